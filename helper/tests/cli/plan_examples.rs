//! Every plan the documentation shows validates, so a reader who copies one
//! starts from a plan the helper accepts. The blocks are found in README.md,
//! docs/**/*.md, commands/*.md and skills/**/SKILL.md by the convention in
//! docs/maintainer/conventions.md ("Plan examples in the docs"), and each is
//! put through the real `voyage-helper plan validate`; so is every plan in
//! examples/.
//!
//! - A fenced block whose info string starts with `markdown` and holds a
//!   `### Step N:` heading or `## Implementation Plan` is a plan example.
//! - With `## Implementation Plan` (or a session spec's `## Scope Fence`) it
//!   is whole and must be READY as it is; otherwise it is a fragment, put in
//!   a minimal plan, and must be READY there.
//! - `<!-- plan-example: invalid CODE -->` on the line before the fence
//!   marks a mistake shown on purpose: validation must FAIL with CODE.
//! - A step heading under any other info string fails the test, which
//!   says how to mark the block.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use crate::common::env::helper;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown files whose plan examples are checked, relative to the
/// repository: README.md, docs/**/*.md, commands/*.md, skills/**/SKILL.md.
fn documents() -> Vec<PathBuf> {
    let root = repository();
    let mut out = vec![PathBuf::from("README.md")];
    let mut walk = |dir: &str, keep: &dyn Fn(&Path) -> bool, recurse: bool| {
        let mut stack = vec![root.join(dir)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if recurse {
                        stack.push(path);
                    }
                } else if keep(&path) {
                    out.push(path.strip_prefix(&root).unwrap().to_path_buf());
                }
            }
        }
    };
    let markdown = |p: &Path| p.extension().is_some_and(|e| e == "md");
    walk("docs", &markdown, true);
    walk("commands", &markdown, false);
    walk("skills", &|p: &Path| p.ends_with("SKILL.md"), true);
    out.sort();
    out
}

/// One fenced block of a document.
struct Block {
    /// The line of the opening fence.
    line: usize,
    info: String,
    text: String,
    /// The HTML comment on the line before the fence, when it is a
    /// `plan-example:` mark: what follows that word.
    mark: Option<String>,
}

impl Block {
    /// The block holds a step heading or the plan's section, as a line.
    fn plan_like(&self) -> bool {
        self.text.lines().any(|l| {
            let l = l.trim();
            step_number(l).is_some() || l == "## Implementation Plan"
        })
    }

    /// A whole plan (or session spec), not a fragment of one.
    fn whole(&self) -> bool {
        self.text
            .lines()
            .any(|l| matches!(l.trim(), "## Implementation Plan" | "## Scope Fence"))
    }

    fn markdown(&self) -> bool {
        self.info.starts_with("markdown")
    }
}

/// `### Step N: …` → N.
fn step_number(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("### Step ")?;
    let (number, _) = rest.split_once(':')?;
    number.trim().parse().ok()
}

/// The code blocks of `source`, read by a CommonMark parser (so a fence
/// inside a longer fence, as a Manifest's inside a plan, is text).
fn blocks(source: &str) -> Vec<Block> {
    let lines: Vec<&str> = source.lines().collect();
    let line_of = |offset: usize| source[..offset].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (event, range) in Parser::new_ext(source, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                // An indented block has no info string to tag: it is
                // caught as untagged when it holds a plan.
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.trim().to_owned(),
                    CodeBlockKind::Indented => "(indented, no fence)".to_owned(),
                };
                let line = line_of(range.start);
                let before = line
                    .checked_sub(2)
                    .and_then(|i| lines.get(i))
                    .map(|l| l.trim());
                let mark = before
                    .and_then(|l| l.strip_prefix("<!--"))
                    .and_then(|l| l.strip_suffix("-->"))
                    .and_then(|l| l.trim().strip_prefix("plan-example:"))
                    .map(|l| l.trim().to_owned());
                open = Some(Block {
                    line,
                    info,
                    text: String::new(),
                    mark,
                });
            }
            Event::Text(text) => {
                if let Some(block) = &mut open {
                    block.text.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// What a block must do under `plan validate`.
enum Expect {
    Ready,
    Fail(String),
}

/// The plan a fragment is checked in: front matter with `plan_version: 1.7`
/// when it has a Manifest (else none, a legacy plan), the section it
/// belongs to and one Verification criterion. Returns the plan and the
/// line of it where the fragment starts.
fn minimal_plan(fragment: &str) -> (String, usize) {
    let mut plan = String::new();
    if fragment.contains("Manifest:") {
        plan.push_str("---\nplan_version: 1.7\n---\n");
    }
    plan.push_str("# Example\n\n## Implementation Plan\n\n");
    let start = plan.lines().count() + 1;
    plan.push_str(fragment);
    plan.push_str("\n## Verification\n\n- `cargo test` — the tests pass\n");
    (plan, start)
}

/// Runs `plan validate --json` on `plan` (written to a temp dir) and
/// returns what is wrong with the result, given what was expected; problem
/// lines are moved by `shift` to the document's own lines.
fn check(plan: &str, expect: &Expect, shift: impl Fn(u64) -> String) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plan.md");
    std::fs::write(&file, plan).unwrap();
    let out = helper(dir.path(), dir.path())
        .args(["plan", "validate", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Ok(report) = serde_json::from_str::<Value>(&stdout) else {
        return Some(format!(
            "plan validate exited {:?} with no report: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ));
    };
    let errors: Vec<(String, String)> = report["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let code = e["code"].as_str().unwrap_or_default().to_owned();
            let at = e["line"].as_u64().map(&shift).unwrap_or_default();
            let text = format!("{code}{at}: {}", e["message"].as_str().unwrap_or_default());
            (code, text)
        })
        .collect();
    let listed = || {
        errors
            .iter()
            .map(|(_, t)| format!("\n    {t}"))
            .collect::<String>()
    };
    let status = report["status"].as_str().unwrap_or_default();
    match expect {
        Expect::Ready if status == "READY" => None,
        Expect::Ready => Some(format!("is {status}, not READY:{}", listed())),
        Expect::Fail(code) if errors.iter().any(|(c, _)| c == code) => None,
        Expect::Fail(code) => Some(format!(
            "is marked `invalid {code}` but validation is {status} without it:{}",
            listed()
        )),
    }
}

/// What is wrong with one block of `doc`, if anything.
fn judge(doc: &Path, block: &Block) -> Option<String> {
    let at = format!("{}:{}", doc.display(), block.line);
    let expect = match block.mark.as_deref() {
        None => Expect::Ready,
        Some(mark) => match mark.strip_prefix("invalid") {
            Some(code) if !code.trim().is_empty() => Expect::Fail(code.trim().to_owned()),
            _ => {
                return Some(format!(
                    "{at}: unknown mark `plan-example: {mark}`; the one mark is \
                     `<!-- plan-example: invalid CODE -->`"
                ));
            }
        },
    };
    if !block.markdown() {
        return Some(format!(
            "{at}: a block tagged `{}` holds a plan; put it in a fence tagged `markdown` \
             so that it is checked (and mark a mistake shown on purpose with \
             `<!-- plan-example: invalid CODE -->` on the line before the fence)",
            block.info
        ));
    }
    // The fragment's (or plan's) line n is the document's fence line + n.
    let fence = block.line;
    let problem = if block.whole() {
        check(&block.text, &expect, |l| {
            format!(" at {}:{}", doc.display(), fence as u64 + l)
        })
    } else {
        let (plan, start) = minimal_plan(&block.text);
        let start = start as u64;
        check(&plan, &expect, |l| {
            if l >= start && l < start + block.text.lines().count() as u64 {
                format!(" at {}:{}", doc.display(), fence as u64 + 1 + l - start)
            } else {
                format!(" (line {l} of the minimal plan around the fragment)")
            }
        })
    };
    problem.map(|p| format!("{at}: the plan example {p}"))
}

#[test]
fn every_plan_example_in_the_docs_validates() {
    let root = repository();
    let mut wrong = Vec::new();
    let mut checked = Vec::new();
    for doc in documents() {
        let source = std::fs::read_to_string(root.join(&doc)).unwrap();
        for block in blocks(&source) {
            if !block.plan_like() {
                if block.mark.is_some() {
                    wrong.push(format!(
                        "{}:{}: marked as a plan example but holds no `### Step N:` heading \
                         or `## Implementation Plan`",
                        doc.display(),
                        block.line
                    ));
                }
                continue;
            }
            checked.push(format!("{}:{}", doc.display(), block.line));
            wrong.extend(judge(&doc, &block));
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
    // The walk found them: the README's example and the reference's.
    for doc in ["README.md:", "docs/guide/plan-format.md:"] {
        assert!(
            checked.iter().any(|c| c.starts_with(doc)),
            "no plan example found in {doc} (checked: {checked:?})"
        );
    }
}

#[test]
fn every_plan_in_examples_validates() {
    let root = repository();
    let mut plans = Vec::new();
    let mut stack = vec![root.join("examples")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                plans.push(path);
            }
        }
    }
    plans.sort();
    let mut wrong = Vec::new();
    for path in &plans {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let plan = std::fs::read_to_string(path).unwrap();
        if let Some(p) = check(&plan, &Expect::Ready, |l| format!(" at {name}:{l}")) {
            wrong.push(format!("{name}: {p}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
    let names: Vec<String> = plans
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    for expected in [
        "examples/trek/plan.md",
        "examples/trek/complete.md",
        "examples/waves/plan.md",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not found: {names:?}"
        );
    }
}

/// The reader finds what the convention says and only that: a fragment in
/// a list item, a whole plan, a mark, a step heading under `text`, and a
/// fence inside a longer fence left as text.
#[test]
fn the_reader_follows_the_convention() {
    let doc = "intro\n\n<!-- plan-example: invalid PLAN_MISSING_FILES -->\n````markdown\n### Step 1: A\n- **Manifest:**\n  ```yaml\n  k: v\n  ```\n````\n\n- item\n\n  ```markdown\n  ## Implementation Plan\n  ```\n\n```text\n### Step 2: output\n```\n\n```sh\necho '### Steps: none'\n```\n\npara\n\n    ### Step 1: indented\n";
    let found = blocks(doc);
    let seen: Vec<(usize, &str, bool, bool, Option<&str>)> = found
        .iter()
        .map(|b| {
            (
                b.line,
                b.info.as_str(),
                b.plan_like(),
                b.whole(),
                b.mark.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                4,
                "markdown",
                true,
                false,
                Some("invalid PLAN_MISSING_FILES")
            ),
            (14, "markdown", true, true, None),
            (18, "text", true, false, None),
            (22, "sh", false, false, None),
            (28, "(indented, no fence)", true, false, None),
        ]
    );
    assert!(found[0].text.contains("```yaml\n  k: v"));
    let (plan, start) = minimal_plan(&found[0].text);
    assert!(plan.starts_with("---\nplan_version: 1.7\n---\n"));
    assert_eq!(plan.lines().nth(start - 1), Some("### Step 1: A"));
    // A mark is held to: the mistake must be the one it names, and a
    // problem is told at the document's line (the heading after the fence).
    let step =
        "### Step 1: A\n- **Files:** `a.txt`\n- **Verify:** `true`\n- **On failure:** skip\n";
    let marked = |code: &str| Block {
        line: 5,
        info: "markdown".into(),
        text: step.into(),
        mark: Some(format!("invalid {code}")),
    };
    assert_eq!(
        judge(Path::new("x.md"), &marked("PLAN_MISSING_CHECKPOINT")),
        None
    );
    let wrong = judge(Path::new("x.md"), &marked("PLAN_MISSING_FILES")).unwrap();
    assert!(
        wrong.starts_with("x.md:5: ") && wrong.contains("PLAN_MISSING_CHECKPOINT at x.md:6"),
        "{wrong}"
    );
    let judged = judge(Path::new("x.md"), &found[2]).unwrap();
    assert!(
        judged.contains("x.md:18") && judged.contains("in a fence tagged `markdown`"),
        "{judged}"
    );
}
