//! `voyage-helper gate`: every cell of the states × events table in every
//! mode, the mode's sources, and the override event.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;

use crate::common::Case;
use serde_json::Value;

const STATES: [&str; 8] = [
    "start",
    "executing",
    "auditing",
    "awaiting-operator",
    "awaiting-wave-merge",
    "awaiting-main-merge",
    "finalized",
    "held",
];
const EVENTS: [&str; 8] = [
    "begin",
    "step-failed",
    "wave-complete",
    "run-complete",
    "audit-drift",
    "audit-pass",
    "approve",
    "decline",
];

/// The expected decision of a cell as `action next-state [emit]`, for
/// (open, adaptive, closed); cells not listed are refused.
fn expected(state: &str, event: &str) -> Option<[&'static str; 3]> {
    let same = |s: &'static str| Some([s, s, s]);
    match (state, event) {
        ("start", "begin") => same("continue executing"),
        ("executing", "step-failed") => same("continue executing"),
        ("executing", "wave-complete") => Some([
            "continue executing",
            "continue executing",
            "pause awaiting-wave-merge wave-merge-gate",
        ]),
        ("executing", "run-complete") => same("continue auditing"),
        ("auditing", "audit-drift") => Some([
            "pause awaiting-main-merge main-merge-gate",
            "pause awaiting-main-merge main-merge-gate",
            "pause awaiting-operator gates-halt",
        ]),
        ("auditing", "audit-pass") => same("pause awaiting-main-merge main-merge-gate"),
        ("awaiting-operator", "approve") => same("pause awaiting-main-merge main-merge-gate"),
        ("awaiting-operator", "decline") => same("stop held"),
        ("awaiting-wave-merge", "approve") => same("continue executing wave-merge-approved"),
        ("awaiting-wave-merge", "decline") => same("stop held wave-merge-declined"),
        ("awaiting-main-merge", "approve") => same("continue finalized main-merge-approved"),
        ("awaiting-main-merge", "decline") => same("stop held main-merge-declined"),
        _ => None,
    }
}

#[test]
fn every_cell_in_every_mode() {
    let case = Case::new(&[]);
    let mut cells = 0;
    for state in STATES {
        for event in EVENTS {
            for (i, mode) in ["open", "adaptive", "closed"].iter().enumerate() {
                let ran = case.run_with(&[
                    "gate", "--state", state, "--event", event, "--gates", mode, "--json",
                ]);
                cells += 1;
                match expected(state, event) {
                    Some(want) => {
                        assert_eq!(ran.status, 0, "{state} {event} {mode}: {}", ran.stderr);
                        let d: Value = serde_json::from_str(&ran.stdout).unwrap();
                        let mut got = format!(
                            "{} {}",
                            d["action"].as_str().unwrap(),
                            d["next_state"].as_str().unwrap()
                        );
                        for e in d["emit"].as_array().unwrap() {
                            got.push(' ');
                            got.push_str(e.as_str().unwrap());
                        }
                        assert_eq!(got, want[i], "{state} + {event} in {mode}");
                        assert_eq!(d["gates"], *mode);
                        assert_eq!(d["sequential_only"], *mode == "open");
                        assert_eq!(d["strict_audit"], *mode == "closed");
                    }
                    None => {
                        assert_eq!(ran.status, 1, "{state} {event} {mode} must be refused");
                        assert_eq!(ran.stdout, "");
                        assert!(
                            ran.stderr.contains("error[GATE_ILLEGAL_EVENT]"),
                            "{}",
                            ran.stderr
                        );
                    }
                }
            }
        }
    }
    assert_eq!(cells, 192);
}

#[test]
fn the_main_merge_gate_pauses_whatever_the_flags() {
    let case = Case::new(&[]);
    for gates in [
        None,
        Some("open"),
        Some("adaptive"),
        Some("closed"),
        Some("true"),
        Some("false"),
    ] {
        for effort in [None, Some("low"), Some("standard"), Some("high")] {
            let mut args = vec!["gate", "--state", "auditing", "--event", "audit-pass"];
            if let Some(g) = gates {
                args.extend(["--gates", g]);
            }
            if let Some(e) = effort {
                args.extend(["--effort", e]);
            }
            let ran = case.run_with(&args);
            assert_eq!(ran.status, 0);
            assert!(ran.stdout.starts_with("ACTION: pause\nNEXT: awaiting-main-merge\nBOUNDARY: main-merge-gate\nEMIT: main-merge-gate\n"), "{args:?}: {}", ran.stdout);
        }
    }
}

#[test]
fn mode_sources_flag_beats_brief_beats_default() {
    let case = Case::new(&[]);
    let decide = |extra: &[&str]| {
        let mut args = vec![
            "gate",
            "--state",
            "executing",
            "--event",
            "wave-complete",
            "--json",
            "--no-record",
        ];
        args.extend_from_slice(extra);
        let d: Value = serde_json::from_str(&case.run_with(&args).stdout).unwrap();
        (
            d["gates"].as_str().unwrap().to_owned(),
            d["gates_source"].as_str().unwrap().to_owned(),
            d["overridden_effort"].clone(),
        )
    };
    let s = |a: &str, b: &str| (a.to_owned(), b.to_owned(), Value::Null);
    assert_eq!(decide(&[]), s("adaptive", "default"));
    assert_eq!(decide(&["--gates", "false"]), s("adaptive", "default"));
    assert_eq!(decide(&["--gates", "true"]), s("closed", "flag"));
    assert_eq!(
        decide(&["--effort", "high"]),
        s("closed", "brief"),
        "high effort means closed"
    );
    assert_eq!(decide(&["--effort", "low"]), s("open", "brief"));
    assert_eq!(decide(&["--effort", "standard"]), s("adaptive", "brief"));
    assert_eq!(
        decide(&["--gates", "false", "--effort", "high"]),
        s("closed", "brief")
    );
    assert_eq!(
        decide(&["--gates", "open", "--effort", "high"]),
        ("open".into(), "flag".into(), Value::from("high")),
        "an explicit flag beats the brief"
    );
    assert_eq!(
        decide(&["--gates", "closed", "--effort", "high"]),
        s("closed", "flag")
    );
}

#[test]
fn begin_records_the_override_once() {
    let case = Case::new(&[]);
    let file = case.path().join("data/voyage/trekexecute-stats.jsonl");
    let ran = case.run_with(&[
        "gate", "--state", "start", "--event", "begin", "--gates", "open", "--effort", "high",
    ]);
    assert_eq!(ran.status, 0);
    assert!(
        ran.stdout
            .contains("OVERRIDE: --gates beat the brief's effort high"),
        "{}",
        ran.stdout
    );
    let text = fs::read_to_string(&file).unwrap();
    let rec: Value = serde_json::from_str(text.trim_end()).unwrap();
    assert_eq!(rec["event"], "gates_mode_flag_override");
    assert_eq!(rec["known_event"], true);
    assert_eq!(
        rec["payload"],
        serde_json::json!({"flag": "--gates", "signal_effort": "high"})
    );
    // Later boundaries report the override but do not record it again; no
    // override, or --no-record, records nothing.
    for args in [
        &[
            "gate",
            "--state",
            "executing",
            "--event",
            "step-failed",
            "--gates",
            "open",
            "--effort",
            "high",
        ][..],
        &[
            "gate", "--state", "start", "--event", "begin", "--gates", "closed", "--effort", "high",
        ],
        &[
            "gate", "--state", "start", "--event", "begin", "--effort", "high",
        ],
        &[
            "gate",
            "--state",
            "start",
            "--event",
            "begin",
            "--gates",
            "open",
            "--effort",
            "high",
            "--no-record",
        ],
    ] {
        assert_eq!(case.run_with(args).status, 0);
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    // A failed record never fails the gate.
    let blocked = Case::new(&[
        "gate", "--state", "start", "--event", "begin", "--gates", "open", "--effort", "high",
        "--json",
    ])
    .env("VOYAGE_DATA_DIR", "/proc/voyage-nope");
    let ran = blocked.run();
    assert_eq!(ran.status, 0);
    let d: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(d["override_recorded"]["written"], false);
}

#[test]
fn unknown_words_are_usage_errors() {
    let case = Case::new(&[]);
    for (args, code) in [
        (
            &["gate", "--state", "flying", "--event", "begin"][..],
            "GATE_BAD_STATE",
        ),
        (
            &["gate", "--state", "start", "--event", "jump"],
            "GATE_BAD_EVENT",
        ),
        (
            &[
                "gate", "--state", "start", "--event", "begin", "--gates", "ajar",
            ],
            "GATE_BAD_MODE",
        ),
        (
            &[
                "gate", "--state", "start", "--event", "begin", "--effort", "max",
            ],
            "GATE_BAD_EFFORT",
        ),
    ] {
        let ran = case.run_with(args);
        assert_eq!(ran.status, 2, "{args:?}");
        assert!(ran.stderr.contains(code), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn the_help_documents_the_table() {
    let ran = Case::new(&["gate", "--help"]).run();
    for state in STATES {
        assert!(ran.stdout.contains(state), "{state}");
    }
    for event in EVENTS {
        assert!(ran.stdout.contains(event), "{event}");
    }
    assert!(
        ran.stdout
            .contains("awaiting-main-merge  approve        continue → finalized")
    );
}
