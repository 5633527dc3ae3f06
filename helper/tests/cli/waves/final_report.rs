//! The main-merge gate's answer on the multi-session path ends with the
//! Phase 8 report of the whole plan (issue 40, item 3): a two-session plan
//! driven through the calls its orders name, then answered. The report
//! lists every step of both sessions with its result, attempts and commit,
//! the master verification, the whole run's audit and the summary naming
//! the mode and the sessions; the stats file gets one record for the run,
//! beside the sessions' own, which `stats show` counts apart.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use serde_json::Value;

use super::World;
use super::user_path::{PLAN, answer, completes, example, lines, parent, progress_of};
use crate::common::schema::assert_schema;

/// The example plan cut to its first wave: session 1 (steps 1 and 2) and
/// session 2 (step 3), checked as a whole by the greeting's test and the
/// farewell's syntax.
fn two_sessions() -> String {
    let text = example();
    let (head, rest) = text.split_once("### Step 4:").unwrap();
    let (_, strategy) = rest.split_once("## Execution Strategy").unwrap();
    let (sessions, _) = strategy.split_once("### Session 3:").unwrap();
    format!(
        "{head}## Execution Strategy{sessions}### Execution Order\n\n- Wave 1: Session 1, Session 2 (parallel)\n\n## Verification\n\n- `bash tests/greet.sh` — the greeting passes its test\n- `bash -n lib/farewell.sh` — the farewell parses\n"
    )
}

/// Both sessions run and completed; the commit each step made, by step.
fn both_sessions_done(w: &World) -> Vec<(u32, String)> {
    let (code, first) = parent(w);
    assert_eq!(
        (code, first["status"].as_str()),
        (0, Some("handover")),
        "{first}"
    );
    completes(w, 1, false);
    completes(w, 2, false);
    let mut commits = Vec::new();
    for (n, steps) in [(1, &[1, 2][..]), (2, &[3][..])] {
        let progress = progress_of(w, n);
        for step in steps {
            let sha = progress["steps"][step.to_string()]["commit"]
                .as_str()
                .unwrap();
            commits.push((*step, sha.to_owned()));
        }
    }
    commits
}

/// The parent's next run passes the master verification and asks (the
/// first time, after merging the wave).
fn to_the_gate(w: &World, first: bool) {
    let (code, gate) = parent(w);
    assert_eq!(
        (code, gate["next"].as_str()),
        (0, Some("ask-main-merge")),
        "{gate}"
    );
    assert_eq!(
        lines(&gate).contains("Wave 1: 2 sessions merged."),
        first,
        "{gate}"
    );
}

/// Every Phase 9 record (no `event`) of the trekexecute stats file.
fn records(w: &World) -> Vec<Value> {
    let path = w
        .case
        .path()
        .join(".local/share/voyage/trekexecute-stats.jsonl");
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r.get("event").is_none())
        .collect()
}

fn with_mode<'a>(all: &'a [Value], mode: &str) -> Vec<&'a Value> {
    all.iter().filter(|r| r["mode"] == mode).collect()
}

/// Every step's row, with its session's commit, and the sessions named.
fn lists_every_step(report: &str, commits: &[(u32, String)], result: &str) {
    let titles = [
        (1, "The greeting function"),
        (2, "Test the greeting"),
        (3, "The farewell function"),
    ];
    for (step, title) in titles {
        let sha = &commits.iter().find(|(s, _)| *s == step).unwrap().1;
        let row = format!("| {step} | {title} | PASS | 1 | {} | pass |", &sha[..7]);
        assert!(report.contains(&row), "no row {row} in:\n{report}");
    }
    for line in [
        "**Mode:** multi-session (2 sessions in 1 wave)",
        &format!("**Result:** {result}"),
        "- Session 1 (wave 1): steps 1, 2 — completed",
        "- Session 2 (wave 1): step 3 — completed",
        "### Master Verification (Phase 2.6 Step 4, every wave merged)",
        "- **Criteria:** 2/2 passed, 0 failed, 0 blocked, 0 not run",
        "### Manifest Audit (Phase 7.5)",
        "- **Status:** pass",
        "- Passed: 3/3",
        "### Summary",
        "\"trekexecute_summary\":{",
        "\"mode\":\"multi-session\"",
    ] {
        assert!(report.contains(line), "no {line:?} in:\n{report}");
    }
}

/// The reply's summary is the report's block, valid against its schema,
/// naming the mode and both sessions.
fn summary_names_the_sessions(reply: &Value, result: &str) {
    let summary = &reply["summary"];
    let block = serde_json::json!({ "trekexecute_summary": summary }).to_string();
    assert_schema("summary", &block);
    assert!(
        reply["report"].as_str().unwrap().contains(&block),
        "the report ends with the same block: {reply}"
    );
    assert_eq!(summary["mode"], "multi-session");
    assert_eq!(summary["result"], result);
    assert_eq!(summary["steps_total"], 3);
    assert_eq!(summary["plan_verification"], "passed");
    assert_eq!(summary["manifest_audit"], "pass");
    let sessions: Vec<(u64, Value)> = summary["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session"].as_u64().unwrap(), s["steps"].clone()))
        .collect();
    assert_eq!(
        sessions,
        vec![(1, serde_json::json!([1, 2])), (2, serde_json::json!([3]))]
    );
}

#[test]
fn a_confirm_ends_with_the_whole_plans_report_and_one_record_for_the_run() {
    let w = World::of_plan("repo", PLAN, &two_sessions(), true);
    let commits = both_sessions_done(&w);
    to_the_gate(&w, true);
    let (code, done) = answer(&w, "confirm");
    assert_eq!(
        (code, done["status"].as_str()),
        (0, Some("completed")),
        "{done}"
    );
    let report = done["report"].as_str().unwrap();
    lists_every_step(report, &commits, "COMPLETED");
    assert!(
        report.contains("this confirm clears the orders directory")
            && report.contains("Master verification: PASS."),
        "{report}"
    );
    summary_names_the_sessions(&done, "completed");
    // Every commit the report names is on the branch the waves merged into.
    for (_, sha) in &commits {
        w.git(&["merge-base", "--is-ancestor", sha, "HEAD"]);
    }

    // One record for the run, beside the sessions' own two.
    let all = records(&w);
    let runs = with_mode(&all, "multi-session");
    assert_eq!(runs.len(), 1, "{all:?}");
    let run = runs[0];
    assert_eq!(run["result"], "completed");
    assert_eq!(run["steps_total"], 3);
    assert_eq!(run["steps_passed"], 3);
    assert_eq!(run["sessions"], serde_json::json!([1, 2]));
    assert_eq!(run["plan"], "ship.md");
    assert!(
        run["run_id"].as_str().unwrap().starts_with("waves-"),
        "{run}"
    );
    assert_schema("stats-record", &run.to_string());
    assert_eq!(with_mode(&all, "session").len(), 2, "{all:?}");
    assert_eq!(all.len(), 3, "{all:?}");

    // `stats show` counts the run once, and its steps once.
    let shown = w.run_in(&w.root, &["stats", "show", "--json"]);
    let shown = assert_schema("stats-summary", &shown.stdout);
    let kind = shown["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "trekexecute")
        .unwrap();
    assert_eq!(kind["runs"], 1, "{kind}");
    assert_eq!(kind["session_shares"], 2, "{kind}");
    assert_eq!(kind["steps_passed"], 3, "{kind}");

    // The gate answered again: the same report, read from the record
    // kept, and no second record.
    let (code, again) = answer(&w, "confirm");
    assert_eq!(code, 0, "{again}");
    assert_eq!(again["report"], done["report"]);
    assert_eq!(again["summary"], done["summary"]);
    assert_eq!(records(&w).len(), 3);
}

#[test]
fn a_decline_gives_the_same_report_partial_and_its_own_record() {
    let w = World::of_plan("repo", PLAN, &two_sessions(), true);
    let commits = both_sessions_done(&w);
    to_the_gate(&w, true);
    let (code, declined) = answer(&w, "decline");
    assert_eq!(
        (code, declined["status"].as_str()),
        (1, Some("partial")),
        "{declined}"
    );
    let report = declined["report"].as_str().unwrap();
    lists_every_step(report, &commits, "PARTIAL (3/3 passed)");
    assert!(
        report.contains("the main-merge gate was declined"),
        "{report}"
    );
    assert!(
        report.contains("To continue (multi-session waves)") && !report.contains("--resume "),
        "a multi-session run is continued by its parent's command: {report}"
    );
    summary_names_the_sessions(&declined, "partial");
    let all = records(&w);
    let runs = with_mode(&all, "multi-session");
    assert_eq!(runs.len(), 1, "{all:?}");
    assert_eq!(runs[0]["result"], "partial");

    // Declined again after the next run: that end is recorded already.
    to_the_gate(&w, false);
    assert_eq!(answer(&w, "decline").0, 1);
    assert_eq!(with_mode(&records(&w), "multi-session").len(), 1);

    // The confirm that follows is the run's other end, recorded once.
    to_the_gate(&w, false);
    let (code, done) = answer(&w, "confirm");
    assert_eq!(code, 0, "{done}");
    let all = records(&w);
    let results: Vec<&Value> = with_mode(&all, "multi-session")
        .iter()
        .map(|r| &r["result"])
        .collect();
    assert_eq!(results, ["partial", "completed"], "{all:?}");
}
