//! `plan strategy`: the Phase 2.5 decision, every `--json` checked against
//! `plan-strategy`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use crate::common::Case;
use crate::common::assert_schema;

fn decide(plan: &str, flags: &[&str]) -> serde_json::Value {
    let case = Case::new(&[]);
    fs::write(case.path().join("plan.md"), plan).unwrap();
    let mut args = vec!["plan", "strategy", "plan.md", "--json"];
    args.extend(flags);
    let ran = case.run_with(&args);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_schema("plan-strategy", &ran.stdout)
}

#[test]
fn the_example_runs_in_parallel_waves() {
    let got = decide(&super::example_plan(), &[]);
    assert_eq!(got["decision"], "parallel");
    assert_eq!(got["reason"], serde_json::Value::Null);
    assert_eq!(
        got["line"],
        "Strategy: 3 sessions (2 parallel, 1 sequential)"
    );
    assert_eq!(got["waves"][0]["parallel"], true);
    assert_eq!(
        got["waves"][1]["sessions"][0]["steps"],
        serde_json::json!([4])
    );
}

#[test]
fn every_reason_for_a_single_session() {
    let plan = super::example_plan();
    for (flags, reason) in [
        (&["--fg"][..], "--fg"),
        (&["--mode", "step"][..], "step mode"),
        (&["--mode", "resume"][..], "resume mode"),
        (&["--mode", "session"][..], "session mode"),
        (&["--effort", "low"][..], "low effort"),
    ] {
        let got = decide(&plan, flags);
        assert_eq!(got["decision"], "single", "{flags:?}");
        assert_eq!(got["reason"], reason, "{flags:?}");
        assert_eq!(got["line"], "Strategy: single session");
    }
    let without = plan
        .split("## Execution Strategy")
        .next()
        .unwrap()
        .to_owned()
        + "## Verification\n\n- `cargo test` — passes\n";
    let got = decide(&without, &[]);
    assert_eq!(got["reason"], "the plan has no Execution Strategy");
}

#[test]
fn sessions_each_in_their_own_wave_run_in_sequence() {
    let plan = super::example_plan()
        .replace(
            "- **Wave:** 1\n- **Depends on:** none\n- **cwd:**",
            "- **Wave:** 2\n- **Depends on:** Session 1\n- **cwd:**",
        )
        .replace(
            "- **Wave:** 2\n- **Depends on:** Session 1, Session 2",
            "- **Wave:** 3\n- **Depends on:** Session 1, Session 2",
        )
        .replace(
            "- Wave 1: Session 1, Session 2 (parallel)\n- Wave 2: Session 3",
            "- Wave 1: Session 1\n- Wave 2: Session 2\n- Wave 3: Session 3",
        );
    let got = decide(&plan, &[]);
    assert_eq!(got["decision"], "sequential", "{got}");
    assert_eq!(
        got["line"],
        "Strategy: 3 sessions (0 parallel, 3 sequential)"
    );
    assert_eq!(got["waves"].as_array().unwrap().len(), 3);
}
