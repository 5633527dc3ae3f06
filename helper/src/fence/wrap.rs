//! The hook's side of the fence: which Bash calls run fenced, and the
//! command Claude Code runs in their place (the hook's `updatedInput`).
//!
//! The rewritten command runs `voyage-helper scope exec` with the original
//! command as its last argument, so a permission prompt shows both what runs
//! and that it runs fenced. The fenced shell is a child of Claude Code's
//! shell, and Claude Code carries only the working directory from one Bash
//! call to the next (by reading its shell's directory after the call): so
//! for a command that may change directory ([`may_change_dir`]) the fenced
//! shell writes its last directory to a file when it exits, and the
//! rewritten command ends by changing to it and exiting with the original's
//! status. A `cd` therefore carries as it did; an `export` never did.
//!
//! Any other command is rewritten to the `scope exec` call alone: one
//! simple command with no expansion, whose status is the original's, and
//! which starts no process after the fenced shell. Handing a directory
//! back costs Claude Code's shell a few processes (`rm`, a command
//! substitution), several milliseconds on a loaded machine
//! (benches/README.md, figure 30), and most calls never move.
//!
//! The helper's own `trek` calls, written as the command prescribes, run as
//! they are: they write the progress file, the marker and the checkpoint
//! commit, which a fence exists to keep from the agent.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Where the fenced calls of the run whose marker is `marker` keep their
/// temporary files: `<temp>/voyage-fence-<uid>/<run>`, one directory per
/// run (made by `scope exec`, private to the user).
pub(crate) fn run_tmp(temp: &Path, marker: &Path) -> PathBuf {
    let digest = Sha256::digest(marker.as_os_str().as_encoded_bytes());
    let run: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    temp.join(format!("voyage-fence-{}", nix::unistd::geteuid()))
        .join(run)
}

/// What the rewritten command is made of.
pub(crate) struct Rewrite<'a> {
    /// The helper to run (the hook's own executable).
    pub helper: &'a Path,
    pub marker: &'a Path,
    /// The file the fenced shell leaves its last directory in.
    pub cwd_file: &'a Path,
    /// Directories of step files the call visibly rewrites.
    pub call_dirs: &'a [String],
    pub command: &'a str,
}

/// The command Claude Code runs instead of `rewrite.command`.
pub(crate) fn rewrite(rewrite: &Rewrite<'_>) -> String {
    let moves = may_change_dir(rewrite.command);
    let mut text = format!(
        "{} scope exec --marker {}",
        quote(&rewrite.helper.display().to_string()),
        quote(&rewrite.marker.display().to_string()),
    );
    let cwd_file = quote(&rewrite.cwd_file.display().to_string());
    if moves {
        text.push_str(&format!(" --cwd-file {cwd_file}"));
    }
    for dir in rewrite.call_dirs {
        text.push_str(&format!(" --dir {}", quote(dir)));
    }
    text.push_str(&format!(" -- {}", quote(rewrite.command)));
    if moves {
        // Builtins but the one `rm`: `read` takes the directory (an empty
        // one, or none, stays), and a function returns the status, which
        // `(exit N)` would fork for.
        text.push_str(&format!(
            "; set -- $? {cwd_file}; voyage_cwd=; {{ IFS= read -r voyage_cwd < \"$2\"; }} 2>/dev/null; cd -- \"${{voyage_cwd:-.}}\"; rm -f -- \"$2\"; voyage_status() {{ return \"$1\"; }}; voyage_status \"$1\""
        ));
    }
    text
}

/// Whether `command` may leave the shell that runs it in another
/// directory, judged from its text and erring towards yes: it names `cd`,
/// `pushd` or `popd`, or runs text as code in the same shell (`eval`,
/// `source`, `.`). A `cd` hidden from the text (`c\d`, `$X`) is not seen;
/// its only cost is the directory Claude Code's next call starts in.
pub(crate) fn may_change_dir(command: &str) -> bool {
    ["cd", "pushd", "popd", "eval", "source"]
        .iter()
        .any(|word| command.contains(word))
        || runs_dot(command)
}

/// `.` as a command: at the start of a command (after a separator or a
/// keyword that starts one) and followed by a blank or the end.
fn runs_dot(command: &str) -> bool {
    command.match_indices('.').any(|(at, _)| {
        let after = command.get(at + 1..).unwrap_or_default();
        if !(after.is_empty() || after.starts_with([' ', '\t', '\n'])) {
            return false;
        }
        let before = command
            .get(..at)
            .unwrap_or_default()
            .trim_end_matches([' ', '\t']);
        before.is_empty()
            || before.ends_with([';', '&', '|', '(', '{', '\n', '`', '!'])
            || ["then", "do", "else"].iter().any(|keyword| {
                before
                    .strip_suffix(keyword)
                    .is_some_and(|rest| rest.is_empty() || rest.ends_with([' ', '\t', '\n', ';']))
            })
    })
}

/// `text` as one single-quoted shell word (the wrapped command's text
/// stays the same whatever a path holds).
pub use crate::shell::single_quoted as quote;

/// `command` is one of the helper's own `trek` calls, written plainly: the
/// helper named as the command prescribes (`"${CLAUDE_PLUGIN_ROOT}/plugin/
/// bin/voyage-helper"`) or by the path it runs from, then `trek` and plain
/// words; at most `2>&1` after. Anything else (a second command, a
/// substitution, a variable other than the plugin root, a redirection to a
/// file) is not, and runs fenced.
pub fn is_helper_call(command: &str, plugin_root: Option<&str>, helper: &Path) -> bool {
    let command = command.trim();
    let command = command.strip_suffix("2>&1").unwrap_or(command).trim_end();
    let mut words = words(command, plugin_root);
    let (Some(Some(program)), Some(Some(sub))) = (words.next(), words.next()) else {
        return false;
    };
    let launcher = plugin_root.map(|root| {
        Path::new(root)
            .join("plugin/bin/voyage-helper")
            .display()
            .to_string()
    });
    let named = launcher.as_deref() == Some(&*program) || Path::new(&*program) == helper;
    // The name first: any other command (a megabyte of words, say) is
    // told apart without reading its words.
    named && sub == "trek" && words.all(|word| word.is_some())
}

/// The words of a plain command line, in order: unquoted words of plain
/// characters, single-quoted words, and double-quoted words holding plain
/// characters, spaces and `${CLAUDE_PLUGIN_ROOT}`; a `None` for anything
/// else, after which there are no more. Read one at a time, borrowed from
/// the line where they can be, so that a caller that needs only the first
/// words pays nothing for the rest.
fn words<'l>(line: &'l str, plugin_root: Option<&'l str>) -> Words<'l> {
    Words {
        rest: Some(line),
        plugin_root,
    }
}

/// [`words`]: the line not yet read, `None` once a word was not plain.
struct Words<'l> {
    rest: Option<&'l str>,
    plugin_root: Option<&'l str>,
}

impl<'l> Iterator for Words<'l> {
    type Item = Option<Cow<'l, str>>;

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.rest?.trim_start_matches(' ');
        if line.is_empty() {
            self.rest = None;
            return None;
        }
        let read = self.word(line);
        self.rest = read
            .as_ref()
            .map(|(_, rest)| *rest)
            .filter(|rest| rest.is_empty() || rest.starts_with(' '));
        Some(read.and_then(|(word, _)| self.rest.is_some().then_some(word)))
    }
}

impl<'l> Words<'l> {
    /// The word `line` starts with, and the text after it.
    fn word(&self, line: &'l str) -> Option<(Cow<'l, str>, &'l str)> {
        if let Some(quoted) = line.strip_prefix('"') {
            let (inner, rest) = quoted.split_once('"')?;
            let word = match self.plugin_root {
                Some(root) if inner.contains("${CLAUDE_PLUGIN_ROOT}") => {
                    Cow::Owned(inner.replace("${CLAUDE_PLUGIN_ROOT}", root))
                }
                _ => Cow::Borrowed(inner),
            };
            return word
                .chars()
                .all(|c| is_plain(c) || c == ' ')
                .then_some((word, rest));
        }
        plain_word(line)
    }
}

fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_./:=,@%+-".contains(c)
}

/// The word `line` starts with when it is made of plain characters,
/// single-quoted parts and `\'` run together (`'it'\''s.md'` is `it's.md`,
/// the way [`crate::shell::quote`] prints a path holding a quote), and the
/// text after it. Borrowed when the word is one part.
fn plain_word(line: &str) -> Option<(Cow<'_, str>, &str)> {
    let mut word: Cow<'_, str> = Cow::Borrowed("");
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let (part, after) = if c == '\'' {
            rest.get(1..)?.split_once('\'')?
        } else if let Some(after) = rest.strip_prefix("\\'") {
            ("'", after)
        } else if is_plain(c) {
            rest.split_at(rest.find(|c| !is_plain(c)).unwrap_or(rest.len()))
        } else if c == ' ' {
            break;
        } else {
            return None;
        };
        if word.is_empty() {
            word = Cow::Borrowed(part);
        } else {
            word.to_mut().push_str(part);
        }
        rest = after;
    }
    Some((word, rest))
}

/// A call of the executor skill's scripts, written as the skill writes
/// them: the script (`"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/
/// NAME.sh"` or its absolute path), plain words, and at most a here-document
/// with a quoted delimiter (its body is data: `label: value` lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutorCall {
    /// `verdict.sh`: reads a log, runs nothing, writes nothing.
    Reads,
    /// `execute.sh` or `run.sh`: runs a command through `voyage-helper
    /// run`, which takes `--fence MARKER` at byte `at` of the call (so the
    /// skill's permission rule, a prefix of the text, still matches).
    Runs { at: usize },
}

/// What `command` is, when it is one of the executor skill's calls.
pub fn executor_call(command: &str, plugin_root: Option<&str>) -> Option<ExecutorCall> {
    let (first, body) = command.split_once('\n').unwrap_or((command, ""));
    let (line, delimiter) = match first.split_once("<<") {
        Some((line, rest)) => {
            let rest = rest.trim().trim_start_matches('-');
            let delimiter = rest
                .strip_prefix('\'')
                .and_then(|d| d.strip_suffix('\''))
                .or_else(|| rest.strip_prefix('"').and_then(|d| d.strip_suffix('"')))
                .or_else(|| rest.strip_prefix('\\'))?;
            if delimiter.is_empty()
                || !delimiter
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return None;
            }
            (line, Some(delimiter))
        }
        None => (first, None),
    };
    match delimiter {
        // The body ends at its delimiter line, and nothing follows it.
        Some(delimiter) => {
            let mut lines = body.lines();
            if !lines.any(|l| l == delimiter) || lines.any(|l| !l.trim().is_empty()) {
                return None;
            }
        }
        None if !body.is_empty() => return None,
        None => {}
    }
    let mut words = words(line, plugin_root);
    let script = words.next()??;
    let root = plugin_root?;
    let name = script
        .strip_prefix(root)?
        .strip_prefix("/skills/executor/scripts/")?;
    // The script's name first, then the words after it, all plain.
    let mut dashes = false;
    for word in words {
        dashes |= word? == "--";
    }
    match name {
        "verdict.sh" => Some(ExecutorCall::Reads),
        "execute.sh" | "run.sh" => {
            // The flag goes in among plain words only: after the script's
            // word, nothing may be quoted, so a `--` found is the word.
            let line = line.trim_end();
            let start = line.len() - line.trim_start().len();
            let script_end = match line.get(start..)?.strip_prefix('"') {
                Some(rest) => start + 2 + rest.find('"')?,
                None => line
                    .get(start..)?
                    .find(' ')
                    .map_or(line.len(), |at| start + at),
            };
            let after = line.get(script_end..)?;
            if after.contains(['\'', '"', '\\']) {
                return None;
            }
            let at = if dashes {
                script_end
                    + after.match_indices(" --").map(|(at, _)| at).find(|at| {
                        after
                            .get(at + 3..)
                            .is_none_or(|r| r.is_empty() || r.starts_with(' '))
                    })?
            } else {
                line.len()
            };
            Some(ExecutorCall::Runs { at })
        }
        _ => None,
    }
}

/// The executor's call with `--fence MARKER` put in at byte `at`.
pub(crate) fn fence_executor(command: &str, at: usize, marker: &Path) -> String {
    let (before, after) = command.split_at(at.min(command.len()));
    format!(
        "{before} --fence {}{after}",
        quote(&marker.display().to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helpers_own_trek_calls_are_told_apart() {
        let root = Some("/p/root");
        let helper = Path::new("/data/voyage-helper");
        for call in [
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done 3"#,
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek start --plan 'plans/my plan.md' 2>&1"#,
            "/p/root/plugin/bin/voyage-helper trek finish --gate confirm",
            "'/data/voyage-helper' trek step-begin 2",
            // A path holding a quote, as the helper prints it.
            r"/data/voyage-helper trek start 'plans/it'\''s plan.md'",
        ] {
            assert!(is_helper_call(call, root, helper), "{call}");
        }
        for call in [
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done 3; rm x"#,
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done 3 > README.md"#,
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done $(rm x)"#,
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done "$(rm x)""#,
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" run -- cargo fmt"#,
            "./voyage-helper trek step-done 3",
            "voyage-helper trek step-done 3",
            r#""$X/plugin/bin/voyage-helper" trek step-done 3"#,
            "/p/root/plugin/bin/voyage-helper trek x && touch y",
            "/p/root/plugin/bin/voyage-helper trek x\ntouch y",
            "/p/root/plugin/bin/voyage-helper 'trek' x|sh",
            // A quote run into a word, or left open, past the first words.
            "'/data/voyage-helper'x trek step-begin 2",
            "/data/voyage-helper trek step-begin 'x",
            "/data/voyage-helper trek step-begin 2 \"a\"b",
        ] {
            assert!(!is_helper_call(call, root, helper), "{call}");
        }
        assert!(!is_helper_call(
            r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done 3"#,
            None,
            helper
        ));
    }

    /// Every line the word reader reads through to its end holds the words
    /// bash itself reads from it.
    #[test]
    fn plain_words_are_the_words_bash_reads() {
        let lines = [
            "trek start plans/a.md",
            r"trek start 'plans/it'\''s.md'",
            r"trek start it\''s'",
            r"trek start 'a b'\'''",
            "trek start ''x'' ''",
            r#"trek start "a b" c"#,
            "trek --flag=1 x:y@z%w+v,u",
        ];
        for line in lines {
            let ours: Option<Vec<String>> = words(line, None)
                .map(|word| word.map(Cow::into_owned))
                .collect();
            let ours = ours.unwrap_or_else(|| panic!("not read as plain: {line}"));
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf '%s\\0' {line}"))
                .output()
                .unwrap();
            let theirs: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .split_terminator('\0')
                .map(str::to_owned)
                .collect();
            assert_eq!(ours, theirs, "{line}");
        }
    }

    #[test]
    fn a_command_that_may_move_is_told_by_its_text() {
        for command in [
            "cd src",
            "cd src && cargo test",
            "pushd /tmp",
            "popd",
            "eval \"$X\"",
            "source env.sh",
            ". ./env.sh",
            "true; . ./env.sh",
            "if true; then . ./env.sh; fi",
            "(true) && . x",
        ] {
            assert!(may_change_dir(command), "{command}");
        }
        for command in [
            "cargo test -q",
            "find . -name '*.rs'",
            "ls .",
            "ls ./src",
            "echo done.",
            "git status",
            "ls ..",
        ] {
            assert!(!may_change_dir(command), "{command}");
        }
    }

    /// Both forms, run as Claude Code's shell runs them with the helper's
    /// place taken by a shell that moves or fails: the status is the
    /// command's, and only the form that may move hands a directory back.
    #[test]
    fn the_rewritten_command_keeps_the_status_and_hands_a_move_back() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("helper");
        // Stands for `scope exec`: goes to /, leaves that in the cwd file
        // when it is given one, and exits 3.
        std::fs::write(
            &fake,
            "#!/bin/sh\ncd /\nwhile [ \"$1\" != -- ]; do [ \"$1\" = --cwd-file ] && printf %s \"$PWD\" > \"$2\"; shift; done\nexit 3\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let cwd_file = dir.path().join("cwd");
        let run = |command: &str| {
            let text = rewrite(&Rewrite {
                helper: &fake,
                marker: Path::new("/m"),
                cwd_file: &cwd_file,
                call_dirs: &[],
                command,
            });
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("{text} && true; echo \"$? $PWD\""))
                .current_dir(dir.path())
                .output()
                .unwrap();
            (text, String::from_utf8(out.stdout).unwrap())
        };
        let (text, out) = run("cd /");
        assert_eq!(out, "3 /\n", "{text}");
        assert!(!cwd_file.exists(), "the file is removed: {text}");
        let (text, out) = run("true");
        assert_eq!(
            text,
            format!(
                "{} scope exec --marker '/m' -- 'true'",
                quote(&fake.display().to_string())
            )
        );
        let here = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(out, format!("3 {}\n", here.display()));
    }

    #[test]
    fn quoting_survives_every_character() {
        assert_eq!(quote("a'b"), r"'a'\''b'");
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf %s {}", quote("it's $(x) `y` \\ \"z\"")))
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"it's $(x) `y` \\ \"z\"");
    }

    #[test]
    fn the_executors_calls_take_the_fence_where_their_permission_rule_still_matches() {
        let root = Some("/p/root");
        let marker = Path::new("/r/.git/voyage-run.json");
        let execute = "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/execute.sh\" <<'EOF'\ncommand: cargo test\nEOF";
        let Some(ExecutorCall::Runs { at }) = executor_call(execute, root) else {
            panic!("not the executor's call");
        };
        assert_eq!(
            fence_executor(execute, at, marker),
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/execute.sh\" --fence '/r/.git/voyage-run.json' <<'EOF'\ncommand: cargo test\nEOF"
        );
        let run = "/p/root/skills/executor/scripts/run.sh --timeout 9 -- cargo test";
        let Some(ExecutorCall::Runs { at }) = executor_call(run, root) else {
            panic!("not the executor's call");
        };
        assert_eq!(
            fence_executor(run, at, marker),
            "/p/root/skills/executor/scripts/run.sh --timeout 9 --fence '/r/.git/voyage-run.json' -- cargo test"
        );
        let verdict = "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/verdict.sh\" <<'EOF'\nlog: x\nexit: 0\nEOF\n";
        assert_eq!(executor_call(verdict, root), Some(ExecutorCall::Reads));
        // Quoted words after the script: no place to put the flag in safely.
        assert_eq!(
            executor_call("/p/root/skills/executor/scripts/run.sh 'a -- b' -- x", root),
            None
        );
        for other in [
            // Expanded here-documents run substitutions in the calling shell.
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/verdict.sh\" <<EOF\nlog: $(touch x)\nEOF",
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/verdict.sh\" <<'EOF'\nlog: x\nEOF\ntouch y",
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/verdict.sh\" <<'EOF' > out\nlog: x\nEOF",
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/verdict.sh\"; touch y",
            "/elsewhere/skills/executor/scripts/verdict.sh",
            "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/other.sh\"",
        ] {
            assert_eq!(executor_call(other, root), None, "{other}");
        }
    }
}
