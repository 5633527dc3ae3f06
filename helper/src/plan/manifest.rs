//! A step's manifest: what the audit checks after the step (trekexecute
//! Phase 2, "Parse the Manifest block", and Sub-step D2).
//!
//! Plans at `plan_version` 1.7 or later carry one per step, as YAML with six
//! keys, each checked for its type and each pattern for whether the audit can
//! run it. Older plans get one synthesised from the step's own fields.

use super::code;
use super::markdown::WrittenLines;
use super::step::{CommandRef, FileRef};
use crate::pattern::{self, PatternError};
use crate::problem::Problem;
use crate::yaml::{self, Node, Value, YamlError};
use serde::Serialize;

/// The optional keys: booleans that default to false. `sandbox_preflight`
/// marks the synthetic Step 0, whose Verify exiting 77 means the sandbox
/// refused the run (Sub-step D1, "Step 0 sentinel"); `memory_write` lets a
/// step write the agent's memory files (Hard rule 15).
pub(super) const OPTIONAL_KEYS: [&str; 2] = ["sandbox_preflight", "memory_write"];

/// The six keys, in the order the seed lists them.
pub(super) const KEYS: [&str; 6] = [
    "expected_paths",
    "min_file_count",
    "commit_message_pattern",
    "bash_syntax_check",
    "forbidden_paths",
    "must_contain",
];

/// Every key a manifest may hold: what the parser requires its value to
/// be (its messages say it in these words) and what the audits do with
/// it. The plan format reference (docs/guide/plan-format.md) is generated
/// from this table; a test holds it to [`KEYS`] and [`OPTIONAL_KEYS`].
pub(super) const KEY_TABLE: [(&str, &str, &str); 8] = [
    (
        "expected_paths",
        "a list of paths",
        "the paths the step leaves in place: `audit step` finds each one (a missing one is drift), and the run's audit finds every completed step's",
    ),
    (
        "min_file_count",
        "a whole number of 0 or more",
        "how many of `expected_paths` must exist after the step; more than the list holds is refused by `plan validate`",
    ),
    (
        "commit_message_pattern",
        "a string",
        "a regular expression the Checkpoint's commit subject must match: `plan validate` holds a message written out in the Checkpoint to it, `audit checkpoint` records a mismatch as drift (the step still passes), and the run's audit holds every commit of the run to one of the plan's patterns; empty matches anything",
    ),
    (
        "bash_syntax_check",
        "a list of paths",
        "scripts `bash -n` must accept after the step (every changed `.sh` file is checked anyway); `[]` for a project without shell scripts",
    ),
    (
        "forbidden_paths",
        "a list of paths",
        "paths or directories the step must not change: `audit step` reports a change to one since the step began as drift, and so does the run's audit unless some step of the run claims the path (in its Files or `expected_paths`)",
    ),
    (
        "must_contain",
        "a list of {path, pattern}",
        "each file must hold a line the pattern matches (as `grep -E` does) after the step",
    ),
    (
        "sandbox_preflight",
        "true or false",
        "optional: the step is the sandbox pre-flight (Step 0, `Files: none`, no Checkpoint); its Verify exiting 77 blocks the run instead of failing the step",
    ),
    (
        "memory_write",
        "true or false",
        "optional: during the step, the run's scope (the hook and the kernel fence) also lets the agent write its memory files, `~/.claude/projects/*/memory/`, closed to every other step",
    ),
];

/// What `key`'s value must be, in the words of [`KEY_TABLE`].
fn expected(key: &str) -> &'static str {
    KEY_TABLE
        .iter()
        .find(|(k, ..)| *k == key)
        .map_or("a value", |(_, what, _)| what)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Manifest {
    pub expected_paths: Vec<String>,
    pub min_file_count: u64,
    pub commit_message_pattern: String,
    pub bash_syntax_check: Vec<String>,
    pub forbidden_paths: Vec<String>,
    pub must_contain: Vec<MustContain>,
    /// `sandbox_preflight: true`: the step is the sandbox pre-flight (Step
    /// 0); its Verify exiting 77 blocks the run instead of failing the step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox_preflight: bool,
    /// `memory_write: true`: the step may write the agent's memory files
    /// under `~/.claude/projects/*/memory/` (Hard rule 15).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub memory_write: bool,
    /// Made from the step's fields (legacy plan), not written in the plan.
    pub synthesized: bool,
    /// The line of the YAML fence, for a written manifest.
    pub line: Option<u32>,
}

/// A file that must contain a pattern after the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct MustContain {
    pub path: String,
    pub pattern: String,
}

/// Parses a manifest's YAML. `fence_line` is the line of the opening fence;
/// `written`, the plan's lines as written, when the caller has them (a YAML
/// error is then checked against those too). Every problem found is
/// pushed; `None` when the manifest is unusable.
pub(super) fn parse(
    yaml: &str,
    fence_line: u32,
    step: u32,
    written: Option<&WrittenLines<'_>>,
    problems: &mut Vec<Problem>,
) -> Option<Manifest> {
    let value = match tree(yaml, fence_line, step, written) {
        Ok(v) => v,
        Err(problem) => {
            problems.push(problem);
            return None;
        }
    };
    // A key's line is the one the parser saw it on; a key the manifest
    // lacks is reported at the fence.
    let key_line = |key: &str| -> u32 { value.entry(key).map_or(fence_line, |(k, _)| k.line) };
    let Value::Map(entries) = &value.value else {
        problems.push(
            Problem::new(
                code::PLAN_MANIFEST_WRONG_TYPE,
                format!(
                    "step {step}: the Manifest must be a YAML mapping with the keys {}",
                    KEYS.join(", ")
                ),
            )
            .at_line(fence_line)
            .in_step(step),
        );
        return None;
    };
    let get = |key: &str| value.get(key);
    let mut found: Vec<Problem> = Vec::new();
    for key in KEYS {
        if get(key).is_none() {
            found.push(
                Problem::new(
                    code::PLAN_MANIFEST_MISSING_KEY,
                    format!(
                        "step {step}: the Manifest has no `{key}` (all six keys are required: {})",
                        KEYS.join(", ")
                    ),
                )
                .at_line(fence_line)
                .in_step(step),
            );
        }
    }
    let string_list = |key: &str, found: &mut Vec<Problem>| -> Vec<String> {
        match get(key) {
            None => Vec::new(),
            Some(Node {
                value: Value::Seq(items),
                ..
            }) if items.iter().all(|v| v.as_str().is_some()) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Some(other) => {
                bad(
                    found,
                    &key_line,
                    step,
                    code::PLAN_MANIFEST_WRONG_TYPE,
                    key,
                    format!(
                        "step {step}: `{key}` must be {}, not {}",
                        expected(key),
                        describe(other)
                    ),
                );
                Vec::new()
            }
        }
    };
    let expected_paths = string_list("expected_paths", &mut found);
    let bash_syntax_check = string_list("bash_syntax_check", &mut found);
    let forbidden_paths = string_list("forbidden_paths", &mut found);
    let min_file_count = match get("min_file_count") {
        None => 0,
        Some(v) => as_count(v).unwrap_or_else(|| {
            bad(
                &mut found,
                &key_line,
                step,
                code::PLAN_MANIFEST_WRONG_TYPE,
                "min_file_count",
                format!(
                    "step {step}: `min_file_count` must be {}, not {}",
                    expected("min_file_count"),
                    describe(v)
                ),
            );
            0
        }),
    };
    let commit_message_pattern = match get("commit_message_pattern") {
        None => String::new(),
        Some(Node {
            value: Value::Str(p),
            ..
        }) => {
            if let Err(e) = pattern::check(p) {
                bad(
                    &mut found,
                    &key_line,
                    step,
                    pattern_code(&e),
                    "commit_message_pattern",
                    format!("step {step}: `commit_message_pattern` {e}"),
                );
            }
            p.clone()
        }
        Some(other) => {
            bad(
                &mut found,
                &key_line,
                step,
                code::PLAN_MANIFEST_WRONG_TYPE,
                "commit_message_pattern",
                format!(
                    "step {step}: `commit_message_pattern` must be {}, not {}",
                    expected("commit_message_pattern"),
                    describe(other)
                ),
            );
            String::new()
        }
    };
    let must_contain = match get("must_contain") {
        None => Vec::new(),
        Some(Node {
            value: Value::Seq(items),
            ..
        }) => {
            let mut out = Vec::new();
            for item in items {
                let path = item.get("path").and_then(Node::as_str);
                let pat = item.get("pattern").and_then(Node::as_str);
                match (path, pat) {
                    (Some(path), Some(pat)) => {
                        if let Err(e) = pattern::check(pat) {
                            bad(
                                &mut found,
                                &key_line,
                                step,
                                pattern_code(&e),
                                "must_contain",
                                format!("step {step}: `must_contain` pattern for {path} {e}"),
                            );
                        }
                        out.push(MustContain {
                            path: path.to_owned(),
                            pattern: pat.to_owned(),
                        });
                    }
                    _ => bad(
                        &mut found,
                        &key_line,
                        step,
                        code::PLAN_MANIFEST_WRONG_TYPE,
                        "must_contain",
                        format!(
                            "step {step}: each `must_contain` entry must be {{path, pattern}} with two strings, not {}",
                            describe(item)
                        ),
                    ),
                }
            }
            out
        }
        Some(other) => {
            bad(
                &mut found,
                &key_line,
                step,
                code::PLAN_MANIFEST_WRONG_TYPE,
                "must_contain",
                format!(
                    "step {step}: `must_contain` must be {}, not {}",
                    expected("must_contain"),
                    describe(other)
                ),
            );
            Vec::new()
        }
    };
    let flag = |key: &str, found: &mut Vec<Problem>| -> bool {
        match get(key) {
            None => false,
            Some(Node {
                value: Value::Bool(b),
                ..
            }) => *b,
            Some(other) => {
                bad(
                    found,
                    &key_line,
                    step,
                    code::PLAN_MANIFEST_WRONG_TYPE,
                    key,
                    format!(
                        "step {step}: `{key}` must be {}, not {}",
                        expected(key),
                        describe(other)
                    ),
                );
                false
            }
        }
    };
    let sandbox_preflight = flag("sandbox_preflight", &mut found);
    let memory_write = flag("memory_write", &mut found);
    for key in entries
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !KEYS.contains(&k.text.as_str()) && !OPTIONAL_KEYS.contains(&k.text.as_str()))
    {
        let line = if key.line > 0 { key.line } else { fence_line };
        let key = &key.text;
        found.push(
            Problem::warning(code::PLAN_MANIFEST_UNKNOWN_KEY, format!("step {step}: the Manifest key `{key}` is not one the audit reads; check its spelling")).at_line(line)
            .in_step(step),
        );
    }
    let clean = found.iter().all(|p| !p.is_error());
    problems.extend(found);
    clean.then_some(Manifest {
        expected_paths,
        min_file_count,
        commit_message_pattern,
        bash_syntax_check,
        forbidden_paths,
        must_contain,
        sandbox_preflight,
        memory_write,
        synthesized: false,
        line: Some(fence_line),
    })
}

/// A manifest's YAML as a tree with file lines, or the PLAN_MALFORMED_YAML
/// problem saying why it does not parse: for [`parse`] and for the filler
/// (`plan fill`), which leaves such a manifest alone.
pub(super) fn tree(
    yaml: &str,
    fence_line: u32,
    step: u32,
    written: Option<&WrittenLines<'_>>,
) -> Result<Node, Problem> {
    yaml::parse_at(yaml, fence_line + 1).map_err(|e| {
        let last = u32::try_from(yaml.lines().count())
            .unwrap_or(u32::MAX)
            .saturating_add(fence_line);
        let e = match written {
            Some(lines) => e.blame_tab(lines.range(fence_line + 1, last)),
            None => e,
        };
        let message = format!("step {step}: the Manifest's YAML does not parse");
        let mut problem = yaml_problem(code::PLAN_MALFORMED_YAML, &e, fence_line, &message);
        if e.message.contains("unknown escape character") {
            // Nearly always a regex escape (`\(`) inside double quotes.
            problem.message.push_str(
                "; inside YAML double quotes a backslash is written twice (\"^feat\\\\(x\\\\): \"), inside single quotes once ('^feat\\(x\\): ')",
            );
        }
        problem.in_step(step)
    })
}

/// The legacy manifest (trekexecute Phase 2, "Legacy mode"): the step's
/// files, their count, the first three words of the checkpoint's commit
/// message (regex-escaped, anchored at the start), its `.sh` files. `plan
/// fill` writes the same keys into a plan.
///
/// The words are taken as written, spaces between them included, from the
/// subject (the message's first line): the pattern must match the subject
/// git will record, which `plan validate` checks (PLAN_CHECKPOINT_MESSAGE_MISMATCH).
pub(super) fn synthesize(files: &[FileRef], checkpoint: Option<&CommandRef>) -> Manifest {
    let expected_paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let words = checkpoint
        .and_then(|c| commit_message(&c.command))
        .map_or("", |m| {
            leading_words(m.lines().next().unwrap_or_default(), 3)
        });
    let commit_message_pattern = if words.trim().is_empty() {
        String::new()
    } else {
        format!("^{}", regex::escape(words))
    };
    Manifest {
        min_file_count: u64::try_from(expected_paths.len()).unwrap_or(u64::MAX),
        bash_syntax_check: expected_paths
            .iter()
            .filter(|p| p.ends_with(".sh"))
            .cloned()
            .collect(),
        expected_paths,
        commit_message_pattern,
        forbidden_paths: Vec::new(),
        must_contain: Vec::new(),
        sandbox_preflight: false,
        memory_write: false,
        synthesized: true,
        line: None,
    }
}

/// `text` from its start through the end of its `n`th word.
fn leading_words(text: &str, n: usize) -> &str {
    let mut end = 0;
    let mut words = 0;
    let mut in_word = false;
    for (at, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_word {
                words += 1;
                if words == n {
                    break;
                }
            }
            in_word = false;
        } else {
            in_word = true;
            end = at + c.len_utf8();
        }
    }
    text.get(..end).unwrap_or(text)
}

/// The message of `git commit -m "…"` (or `-m '…'`, `--message=…`).
pub(super) fn commit_message(command: &str) -> Option<&str> {
    let after = command
        .find("-m ")
        .map(|i| &command[i + 3..])
        .or_else(|| command.find("--message=").map(|i| &command[i + 10..]))
        .or_else(|| command.find("--message ").map(|i| &command[i + 10..]))?;
    let after = after.trim_start();
    let quote = after.chars().next()?;
    if quote == '"' || quote == '\'' {
        let body = &after[1..];
        Some(body.find(quote).map_or(body, |end| &body[..end]))
    } else {
        after.split_whitespace().next()
    }
}

/// Records an error at `key`'s line.
fn bad(
    found: &mut Vec<Problem>,
    key_line: &dyn Fn(&str) -> u32,
    step: u32,
    code: &'static str,
    key: &str,
    message: String,
) {
    found.push(
        Problem::new(code, message)
            .at_line(key_line(key))
            .in_step(step),
    );
}

fn pattern_code(e: &PatternError) -> &'static str {
    match e {
        PatternError::Unsupported { .. } => code::PLAN_REGEX_UNSUPPORTED,
        PatternError::Invalid(_) => code::PLAN_INVALID_REGEX,
    }
}

/// A whole number of 0 or more.
fn as_count(v: &Node) -> Option<u64> {
    match v.value {
        Value::Int(n) => u64::try_from(n).ok(),
        _ => None,
    }
}

fn describe(v: &Node) -> &'static str {
    match &v.value {
        Value::Null => "nothing (null)",
        Value::Bool(_) => "a boolean",
        Value::Float(_) => "a fractional number",
        Value::Int(n) if *n < 0 => "a negative number",
        Value::Int(_) => "a number",
        Value::Str(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
    }
}

/// A plan problem for YAML that does not parse: `what` says which YAML,
/// the parser's sentence follows, and the line is the parser's, else
/// `fallback_line`. The plan area's one conversion from [`YamlError`].
pub(super) fn yaml_problem(
    code: &'static str,
    error: &YamlError,
    fallback_line: u32,
    what: &str,
) -> Problem {
    Problem::new(code, format!("{what}: {}", error.message))
        .at_line(error.line.unwrap_or(fallback_line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_table_has_every_key_once_in_order() {
        let names: Vec<&str> = KEY_TABLE.iter().map(|(k, ..)| *k).collect();
        let declared: Vec<&str> = KEYS.iter().chain(&OPTIONAL_KEYS).copied().collect();
        assert_eq!(names, declared);
        // The messages say what the table says.
        let mut problems = Vec::new();
        let yaml = "expected_paths: 3\nmin_file_count: -1\ncommit_message_pattern: [a]\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: x\nmemory_write: 1\n";
        assert!(parse(yaml, 1, 1, None, &mut problems).is_none());
        for key in [
            "expected_paths",
            "min_file_count",
            "commit_message_pattern",
            "must_contain",
            "memory_write",
        ] {
            let said = format!("`{key}` must be {}, not", expected(key));
            assert!(
                problems.iter().any(|p| p.message.contains(&said)),
                "{said}: {problems:?}"
            );
        }
    }

    #[test]
    fn commit_messages() {
        assert_eq!(
            commit_message(r#"git commit -m "feat(x): add y""#),
            Some("feat(x): add y")
        );
        assert_eq!(commit_message("git commit -m 'a b'"), Some("a b"));
        assert_eq!(commit_message("git commit --message=wip"), Some("wip"));
        assert_eq!(commit_message("git commit"), None);
    }

    #[test]
    fn synthesised_from_the_step() {
        let files = [
            FileRef {
                path: "src/main.rs".into(),
                new: false,
                line: 3,
            },
            FileRef {
                path: "scripts/check.sh".into(),
                new: false,
                line: 3,
            },
        ];
        let checkpoint = CommandRef {
            command: r#"git commit -m "refactor: use settings at call sites""#.into(),
            line: 5,
        };
        let m = synthesize(&files, Some(&checkpoint));
        assert_eq!(m.min_file_count, 2);
        assert_eq!(m.commit_message_pattern, "^refactor: use settings");
        assert_eq!(m.bash_syntax_check, ["scripts/check.sh"]);
        assert!(m.synthesized);
    }

    #[test]
    fn the_pattern_keeps_the_subject_as_written() {
        let pattern = |message: &str| {
            let checkpoint = CommandRef {
                command: format!("git commit -m '{message}'"),
                line: 1,
            };
            synthesize(&[], Some(&checkpoint)).commit_message_pattern
        };
        // Two spaces stay two, and a body never joins the subject.
        assert_eq!(pattern("fix:  a b c"), "^fix:  a b");
        assert_eq!(pattern("wip\nmore words"), "^wip");
        assert_eq!(pattern("a (b) [c] d"), r"^a \(b\) \[c\]");
        assert_eq!(pattern("   "), "");
    }

    #[test]
    fn strict_manifest_problems_have_lines() {
        let yaml = "expected_paths: [b.txt]\nmin_file_count: one\ncommit_message_pattern: \"^feat: (b$\"\nbash_syntax_check: []\nforbidden_paths: []\nextra: 1\n";
        let mut problems = Vec::new();
        assert!(parse(yaml, 10, 2, None, &mut problems).is_none());
        let got: Vec<(&str, Option<u32>)> = problems.iter().map(|p| (p.code, p.line)).collect();
        assert_eq!(
            got,
            [
                ("PLAN_MANIFEST_MISSING_KEY", Some(10)),
                ("PLAN_MANIFEST_WRONG_TYPE", Some(12)),
                ("PLAN_INVALID_REGEX", Some(13)),
                ("PLAN_MANIFEST_UNKNOWN_KEY", Some(16)),
            ]
        );
    }

    #[test]
    fn malformed_yaml_points_into_the_fence() {
        let mut problems = Vec::new();
        assert!(
            parse(
                "expected_paths: [a.txt\nmin_file_count: 1\n",
                20,
                1,
                None,
                &mut problems
            )
            .is_none()
        );
        assert_eq!(problems[0].code, "PLAN_MALFORMED_YAML");
        let line = problems[0].line.unwrap();
        assert!((21..=23).contains(&line), "{line}");
    }

    #[test]
    fn sandbox_preflight_and_memory_write_are_optional_booleans() {
        let six = "expected_paths: []\nmin_file_count: 0\ncommit_message_pattern: \"\"\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: []\n";
        let mut problems = Vec::new();
        let m = parse(six, 1, 0, None, &mut problems).unwrap();
        assert!(!m.sandbox_preflight && !m.memory_write);
        let yaml = format!("{six}sandbox_preflight: true\nmemory_write: true\n");
        let m = parse(&yaml, 1, 0, None, &mut problems).unwrap();
        assert!(m.sandbox_preflight && m.memory_write);
        assert!(problems.is_empty(), "{problems:?}");
        let yaml = format!("{six}sandbox_preflight: yes please\n");
        assert!(parse(&yaml, 1, 0, None, &mut problems).is_none());
        let got: Vec<(&str, Option<u32>)> = problems.iter().map(|p| (p.code, p.line)).collect();
        assert_eq!(got, [("PLAN_MANIFEST_WRONG_TYPE", Some(8))]);
    }

    #[test]
    fn key_lines_come_from_the_parser() {
        // A quoted key and a flow mapping: no `key:` line to scan for.
        let yaml = "{expected_paths: [a], min_file_count: 1,\n commit_message_pattern: \"\",\n bash_syntax_check: [], forbidden_paths: [],\n must_contain: [], \"extra\": on}\n";
        let mut problems = Vec::new();
        assert!(parse(yaml, 30, 4, None, &mut problems).is_some());
        let got: Vec<(&str, Option<u32>)> = problems.iter().map(|p| (p.code, p.line)).collect();
        assert_eq!(got, [("PLAN_MANIFEST_UNKNOWN_KEY", Some(34))]);
    }
}
