//! No input makes the run-state parsers panic: progress files, state files
//! and their prompts, front matter and briefs, stats records and files,
//! custom profiles, gate words. Random bytes and "soup" glued from what the
//! parsers look for; the same entry points have cargo-fuzz targets under
//! `fuzz/` (`progress_file`, `state_file`, `front_matter`, `stats_record`,
//! `profile_yaml`).

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};
use voyage_helper::internals::brief::Brief;
use voyage_helper::internals::progress::{self, CODES, Progress, StepStatus, StepUpdate, apply};
use voyage_helper::internals::schema;
use voyage_helper::internals::state::{check_prompt, validate_text};
use voyage_helper::internals::yaml::front_matter;
use voyage_helper::internals::{gate, profile, stats};

const WORDS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "3.0",
    "\"schema_version\":\"1\"",
    "\"plan\":\"p.md\"",
    "\"plan_type\":\"plan\"",
    "\"plan_version\":\"1.7\"",
    "\"status\":\"in_progress\"",
    "\"status\":\"passed\"",
    "\"steps\":{",
    "\"1\":{\"status\":\"pending\",\"attempts\":0}",
    "\"01\":",
    "\"4294967296\":",
    "\"iterations_remaining\":",
    "\"attempts\":3",
    "\"ts\":",
    "\"result\":\"completed\"",
    "\"steps_passed\":18446744073709551615",
    "\"event\":",
    "---\n",
    "...\n",
    "\n",
    "\r\n",
    "phase_signals:\n",
    "  execute:\n",
    "    effort: high\n",
    "    model: opus\n",
    "brief_version: 2.1\n",
    "extends: economy\n",
    "phase_models:\n",
    "parallel_agents: 99\n",
    "produced_by: trekexecute\n",
    "produced_at: 2026-11-30T10:15:00Z\n",
    "&a [*a, *a]",
    "*a",
    "!!binary",
    "? ",
    "- ",
    "|\n",
    "%YAML 1.2\n",
    "\u{feff}",
    "\0",
];

fn soup() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..8),
    ];
    proptest::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![soup(), proptest::collection::vec(any::<u8>(), 0..1024)]
}

fn check_all(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(mut progress) = progress::parse(&text) {
        for (i, status) in StepStatus::SETTABLE.into_iter().enumerate() {
            let update = StepUpdate {
                step: u32::try_from(i % 3).unwrap() + 1,
                status: Some(status),
                ..StepUpdate::default()
            };
            let before = progress.clone();
            match apply(&mut progress, &update, "2026-11-30T10:15:00Z") {
                Ok(_) => {
                    assert!(schema::check("progress", &progress.to_value(), &CODES).is_empty())
                }
                Err(_) => assert_eq!(progress, before),
            }
        }
    }
    for p in validate_text(&text) {
        assert!(p.code.starts_with("STATE_"));
    }
    let record = serde_json::json!({"updated_at": "t", "project": "p", "status": "completed"});
    for p in check_prompt(&record, &text) {
        assert!(p.code.starts_with("STATE_"));
    }
    let _ = front_matter::parse::<serde_json::Value>(&text);
    let _ = Brief::parse(&text, true);
    if let Ok(p) = profile::parse("x", &text, "x.yaml") {
        assert!(p.parallel_agents >= 1);
    }
    if let Ok(map) = stats::parse_object(data, "record") {
        let with = stats::with_ts(map.clone(), "now");
        assert_eq!(
            with.keys().next().map(String::as_str),
            Some("ts"),
            "ts comes first"
        );
        let _ = stats::record("e", map, "now");
    }
    let s = stats::summarize_reader("k", Path::new("f"), data).unwrap();
    assert!(s.runs <= s.records);
    let word = text.lines().next().unwrap_or("");
    let _ = gate::State::parse(word);
    let _ = gate::Event::parse(word);
    let _ = gate::GatesFlag::parse(word);
    let _ = gate::Effort::parse(word);
    let _ = profile::check_name(word);
    let _ = stats::check_name(word);
}

/// Values a mutation may put anywhere in a progress document.
fn palette() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!(-1)),
        Just(json!(0)),
        Just(json!(1)),
        Just(json!(3)),
        Just(json!(4)),
        Just(json!(1.0)),
        Just(json!(4_294_967_296_u64)),
        Just(json!("")),
        Just(json!("1")),
        Just(json!("plan")),
        Just(json!("session-spec")),
        Just(json!("passed")),
        Just(json!("not-run")),
        Just(json!("in_progress")),
        Just(json!("step")),
        Just(json!("fail")),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"status": "passed"})),
        Just(json!({"status": "pending"})),
        Just(json!({"status": "nope"})),
        Just(json!([{"attempt": 1, "restored": ["a"], "patch": "p"}])),
        Just(json!([{"attempt": 0, "restored": []}])),
        Just(json!([{"attempt": 4, "restored": []}])),
        Just(json!([{"attempt": 2}])),
        Just(json!([{"attempt": 2, "restored": [], "patch": null, "kept": [1]}])),
    ]
}

const KEYS: &[&str] = &[
    "schema_version",
    "plan",
    "plan_type",
    "plan_version",
    "started_at",
    "updated_at",
    "mode",
    "total_steps",
    "current_step",
    "status",
    "steps",
    "iterations_remaining",
    "entry_condition_checked",
    "exit_condition_checked",
    "plan_verification",
    "summary",
    "legacy_plan",
    "recovery_depth",
    "recovery_dispatched",
    "manifest_audit",
    "extra",
];
const STEP_KEYS: &[&str] = &[
    "status",
    "attempts",
    "error",
    "completed_at",
    "commit",
    "manifest_audit",
    "manifest_drift",
    "checkpoint_drift",
    "scope_violations",
    "note",
];
const STEP_NAMES: &[&str] = &["1", "2", "0", "01", "1000000000", "999999999", "x"];

/// A valid document with a few keys set to values from the palette, or
/// removed.
fn mutated_progress() -> impl Strategy<Value = Value> {
    let edit = (
        proptest::sample::select(KEYS),
        proptest::sample::select(STEP_NAMES),
        proptest::sample::select(STEP_KEYS),
        0u8..4,
        palette(),
    );
    proptest::collection::vec(edit, 1..4).prop_map(|edits| {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/progress/valid-fresh.json");
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
        for (key, step, step_key, how, value) in edits {
            match how {
                0 => {
                    doc.as_object_mut().unwrap().remove(key);
                }
                1 => doc[key] = value,
                2 => {
                    if let Some(steps) = doc.get_mut("steps").and_then(Value::as_object_mut) {
                        let record = steps.entry(step).or_insert(json!({"status": "pending"}));
                        if let Some(r) = record.as_object_mut() {
                            r.insert(step_key.to_owned(), value);
                        }
                    }
                }
                _ => {
                    if let Some(steps) = doc.get_mut("steps").and_then(Value::as_object_mut) {
                        steps.insert(step.to_owned(), value);
                    }
                }
            }
        }
        doc
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn run_state_parsers_never_panic(data in input()) {
        check_all(&data);
    }

    /// The typed fast path of `progress` reads never accepts a document the
    /// schema refuses, and reads every document exactly as the slow path.
    #[test]
    fn the_fast_path_agrees_with_the_schema(doc in mutated_progress()) {
        let fast = Progress::deserialize(&doc).is_ok() && progress::conforms(&doc);
        let problems = schema::check("progress", &doc, &CODES);
        if fast {
            prop_assert!(problems.is_empty(), "fast path accepted {doc}: {problems:?}");
        }
        let parsed = progress::parse(&doc.to_string());
        prop_assert_eq!(parsed.is_ok(), problems.is_empty() && Progress::deserialize(&doc).is_ok(), "{}", doc);
    }
}

#[test]
fn known_nasty_inputs() {
    for data in [
        &b""[..],
        b"---\n",
        b"---\n---\n",
        b"\xef\xbb\xbf---\na: &a [*a]\n---\n",
        b"{\"schema_version\":\"1\",\"plan\":\"p\",\"plan_type\":\"plan\",\"plan_version\":\"1\",\"status\":\"failed\",\"steps\":{\"1\":{\"status\":\"failed\",\"attempts\":3}},\"iterations_remaining\":0}",
        b"{\"schema_version\":1,\"plan\":\"p\",\"plan_type\":\"plan\",\"plan_version\":\"1\",\"status\":\"failed\",\"steps\":{\"1\":{\"status\":\"pending\",\"attempts\":3.0}}}",
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        // fuzz/stats_record: `ts` must come first even after a key that
        // sorts before it (serde_json keeps insertion order).
        b"\n{\n\"attempts\":3}",
        b"{\"result\":{\"x\":1},\"steps_passed\":-5,\"ts\":7}\n\xff\n{}",
    ] {
        check_all(data);
    }
}
