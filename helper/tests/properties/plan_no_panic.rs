//! The plan parser never panics and always finishes, on any text: arbitrary
//! Markdown-ish input built from the pieces plans are made of, and real
//! plans cut short or mutated at random. `plan fill` keeps its promises on
//! the same inputs (`../common/fill_check.rs`, shared with the fuzz target).

// A failed index in a test is a failed assertion with its location.
#![allow(clippy::indexing_slicing)]

use std::path::Path;

use proptest::prelude::*;
use voyage_helper::internals::brief::Brief;
use voyage_helper::internals::plan::parse;

#[path = "../common/fill_check.rs"]
mod fill_check;

const PIECES: &[&str] = &[
    "---\n",
    "plan_version: 1.7\n",
    "profile: x\n",
    "# Plan\n",
    "## Implementation Plan\n",
    "### Step 1: a\n",
    "### Step 0:\n",
    "### Step 99999999999: b\n",
    "## Phase 2\n",
    "### Fase 1:\n",
    "- **Files:** `a` (new), `b`\n",
    "- **Verify:** `cargo test`\n",
    "- **On failure:** retry — x\n",
    "- **Checkpoint:** `git commit -m \"x\"`\n",
    "- **Manifest:**\n",
    "  ```yaml\n",
    "  expected_paths: [a\n",
    "  must_contain: [{path: a}]\n",
    "  ```\n",
    "```\n",
    "```bash\n",
    "## Execution Strategy\n",
    "### Session 1: s\n",
    "- **Steps:** 1-99999999\n",
    "- **Depends on:** Session 1\n",
    "- **Wave:** 1\n",
    "  - Touch: `src/`\n",
    "### Execution Order\n",
    "- Wave 1: Session 1, Session 1\n",
    "## Verification\n",
    "- `true` — ok\n",
    "## Dependencies\n",
    "Entry condition: x\n",
    "## Scope Fence\n",
    "## Exit Condition\n",
    "- [ ] `make`\n",
    "## Session Manifest\n",
    "| a | b |\n|---|---|\n",
    "> quote\n",
    "    indented\n",
    "\n",
    "`",
    "**",
    "\r\n",
    "\u{0}",
    "é",
    "<pre>\n",
];

fn markdownish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            proptest::sample::select(PIECES).prop_map(str::to_owned),
            ".{0,20}"
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

fn real_plans() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans");
    let mut out = Vec::new();
    for sub in ["valid", "invalid"] {
        for entry in std::fs::read_dir(dir.join(sub))
            .into_iter()
            .flatten()
            .flatten()
        {
            if entry.path().extension().is_some_and(|e| e == "md") {
                out.push(std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_markdown(text in markdownish()) {
        let _ = parse(&text, "fuzz.md");
        let _ = Brief::parse(&text, false);
        fill_check::check(&text);
    }

    #[test]
    fn real_plans_cut_and_mutated(index in 0usize..64, cut in 0.0f64..1.0, at in 0.0f64..1.0, insert in prop::sample::select(PIECES)) {
        let plans = real_plans();
        let plan = &plans[index % plans.len()];
        let mut end = ((plan.len() as f64) * cut) as usize;
        while !plan.is_char_boundary(end) { end -= 1; }
        let mut text = plan[..end].to_owned();
        let mut pos = ((text.len() as f64) * at) as usize;
        while !text.is_char_boundary(pos) { pos -= 1; }
        text.insert_str(pos, insert);
        let _ = parse(&text, "mutated.md");
        fill_check::check(&text);
    }
}

#[test]
fn pathological_inputs_finish() {
    let deep_list: String = (0..2000)
        .map(|i| format!("{}- x\n", "  ".repeat(i % 200)))
        .collect();
    let many_headings = "### Step 1: a\n".repeat(20_000);
    let long_line = format!("- **Files:** {}\n", "`a`, ".repeat(50_000));
    let fences = "```\n".repeat(10_000);
    for text in [deep_list, many_headings, long_line, fences] {
        let _ = parse(&format!("## Implementation Plan\n{text}"), "p.md");
    }
}

#[test]
fn fill_keeps_its_promises_on_every_fixture_plan() {
    for plan in real_plans() {
        fill_check::check(&plan);
        fill_check::check(&plan.replace('\n', "\r\n"));
        fill_check::check(plan.trim_end());
    }
}
