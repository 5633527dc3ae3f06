//! `voyage-helper stats append`, `event emit` and `stats show`, including
//! many writers appending at once.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::HashSet;
use std::fs;
use std::process::{Command, Stdio};

use crate::common::Case;
use serde_json::Value;

fn lines(path: &std::path::Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn append_from_stdin_or_argument_adds_ts() {
    let case = Case::new(&["stats", "append", "trekexecute"])
        .stdin("{\"plan\":\"auth.md\",\"result\":\"completed\",\"steps_passed\":3}\n");
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let file = case.path().join("data/voyage/trekexecute-stats.jsonl");
    assert_eq!(
        ran.stdout,
        format!("{{\"written\":true,\"path\":\"{}\"}}\n", file.display())
    );
    let ran = case.run_with(&[
        "stats",
        "append",
        "trekexecute",
        r#"{"ts":"2026-01-01T00:00:00Z","result":"failed"}"#,
    ]);
    assert_eq!(ran.status, 0);
    let records = lines(&file);
    assert_eq!(records.len(), 2);
    assert!(records[0]["ts"].as_str().unwrap().ends_with('Z'));
    assert_eq!(records[0]["plan"], "auth.md");
    assert_eq!(
        records[1]["ts"], "2026-01-01T00:00:00Z",
        "a given ts is kept"
    );
}

#[test]
fn the_data_dir_follows_the_environment() {
    let case = Case::new(&[]);
    let plugin = case.path().join("plugin-data");
    let voyage = case.path().join("voyage-data");
    let c = Case::new(&["stats", "append", "k", "{}"])
        .env("CLAUDE_PLUGIN_DATA", &plugin)
        .env("VOYAGE_DATA_DIR", &voyage);
    assert_eq!(c.run().status, 0);
    assert!(plugin.join("k-stats.jsonl").is_file());
    let c = Case::new(&["stats", "append", "k", "{}"]).env("VOYAGE_DATA_DIR", &voyage);
    assert_eq!(c.run().status, 0);
    assert!(voyage.join("k-stats.jsonl").is_file());
}

#[test]
fn bad_records_are_refused_with_a_code_and_exit_1() {
    let case = Case::new(&[]);
    let file = case.path().join("data/voyage/trekexecute-stats.jsonl");
    assert_eq!(
        case.run_with(&["stats", "append", "trekexecute", "{}"])
            .status,
        0
    );
    let before = fs::read(&file).unwrap();
    for (args, stdin, code) in [
        (
            &["stats", "append", "trekexecute"][..],
            "not json",
            "STATS_NOT_JSON",
        ),
        (
            &["stats", "append", "trekexecute"],
            "[1,2]",
            "STATS_NOT_OBJECT",
        ),
        (&["stats", "append", "trekexecute"], "", "STATS_NOT_JSON"),
        (
            &["stats", "append", "trekexecute", "\"text\""],
            "",
            "STATS_NOT_OBJECT",
        ),
        (&["stats", "append", "../escape"], "{}", "STATS_BAD_KIND"),
        (&["stats", "append", "Trek"], "{}", "STATS_BAD_KIND"),
        (
            &[
                "event",
                "emit",
                "--event",
                "main-merge-gate",
                "--payload",
                "-",
            ],
            "{\"plan\": $PLAN}",
            "STATS_NOT_JSON",
        ),
        (
            &[
                "event",
                "emit",
                "--event",
                "main-merge-gate",
                "--payload",
                "[]",
            ],
            "",
            "STATS_NOT_OBJECT",
        ),
        (
            &["event", "emit", "--event", "bad name"],
            "",
            "STATS_BAD_EVENT_NAME",
        ),
    ] {
        let ran = case.run_with_stdin(args, stdin.as_bytes());
        assert_eq!(ran.status, 1, "{args:?}");
        let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(reply["written"], false, "{args:?}");
        assert_eq!(reply["code"], code, "{args:?}: {}", ran.stdout);
        assert!(!reply["reason"].as_str().unwrap().contains('\n'));
        assert!(ran.stderr.contains(code));
        assert_eq!(
            fs::read(&file).unwrap(),
            before,
            "{args:?} changed the file"
        );
    }
    let ran = case.run_with_stdin(
        &[
            "event",
            "emit",
            "--event",
            "main-merge-gate",
            "--payload",
            "-",
        ],
        b"nope",
    );
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .starts_with("payload-not-json"),
        "{}",
        ran.stdout
    );
}

/// A record its schema (`voyage-helper schema stats-record`) refuses is not
/// written: exit 1, code STATS_BAD_RECORD, and a reason naming the key and
/// what it must be; the file stays as it was. What `report --stats-record`
/// prints is accepted, as is any key of the caller's own.
#[test]
fn a_record_its_schema_refuses_is_not_written() {
    let case = Case::new(&[]);
    let file = case.path().join("data/voyage/trekexecute-stats.jsonl");
    let phase9 = r#"{"ts":"2026-12-01T09:30:00Z","plan":"a.md","plan_type":"plan","mode":"execute","result":"stopped","steps_total":2,"steps_passed":1,"steps_failed":0,"steps_skipped":0,"failed_at_step":null,"profile":"premium","phase_models":{"execute":"opus"},"profile_source":"default","note":"mine"}"#;
    let ran = case.run_with(&["stats", "append", "trekexecute", phase9]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let before = fs::read(&file).unwrap();
    for (record, names) in [
        (
            r#"{"steps_passed":"3"}"#,
            r#"`steps_passed`: "3" is not of type "integer""#,
        ),
        (r#"{"result":"done"}"#, r#"`result`: "done" is not one of"#),
        (
            r#"{"failed_at_step":-2}"#,
            "`failed_at_step`: -2 is less than the minimum of 0",
        ),
        (
            r#"{"ts":"last tuesday"}"#,
            "`ts` must be a time in RFC 3339",
        ),
        (r#"{"ts":1764581400}"#, "`ts` must be a time in RFC 3339"),
        (
            r#"{"event":"main-merge-gate"}"#,
            "`event` marks a lifecycle event",
        ),
    ] {
        let ran = case.run_with(&["stats", "append", "trekexecute", record]);
        assert_eq!(ran.status, 1, "{record}");
        let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(reply["written"], false, "{record}");
        assert_eq!(reply["code"], "STATS_BAD_RECORD", "{record}");
        let reason = reply["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("record-not-valid (schema stats-record): ")
                && reason.contains(names),
            "{record}: {reason}"
        );
        assert!(ran.stderr.contains("STATS_BAD_RECORD") && ran.stderr.contains(names));
        assert_eq!(fs::read(&file).unwrap(), before, "{record} was written");
    }
}

#[test]
fn an_unwritable_data_dir_is_reported_not_fatal() {
    let case = Case::new(&[]);
    fs::write(case.path().join("afile"), "").unwrap();
    let c = Case::new(&["stats", "append", "k", "{}"])
        .env("VOYAGE_DATA_DIR", case.path().join("afile/sub"));
    let ran = c.run();
    assert_eq!(ran.status, 1);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["code"], "STATS_UNWRITABLE");
}

#[test]
fn events_known_and_unknown_with_export_marks() {
    let case = Case::new(&[]);
    let ran = case.run_with_stdin(
        &[
            "event",
            "emit",
            "--event",
            "main-merge-gate",
            "--payload",
            "-",
        ],
        br#"{"plan":"plans/a \"quoted\" $(x).md","wave_count":2}"#,
    );
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["known_event"], true);
    assert_eq!(reply["event"], "main-merge-gate");
    let ran = case.run_with(&[
        "event",
        "emit",
        "--event",
        "gates_mode_flag_override",
        "--payload",
        r#"{"flag":"--gates","signal_effort":"high"}"#,
    ]);
    assert_eq!(ran.status, 0);
    let ran = case.run_with(&["event", "emit", "--event", "made-up.thing"]);
    assert_eq!(ran.status, 0);
    let records = lines(&case.path().join("data/voyage/trekexecute-stats.jsonl"));
    assert_eq!(records[0]["payload"]["plan"], "plans/a \"quoted\" $(x).md");
    assert_eq!(records[0]["not_exportable"], serde_json::json!(["plan"]));
    assert_eq!(records[1]["known_event"], true);
    assert_eq!(
        records[1]["not_exportable"],
        serde_json::json!(["flag", "signal_effort"])
    );
    assert_eq!(records[2]["known_event"], false);
    assert_eq!(records[2]["payload"], serde_json::json!({}));
    for r in &records {
        for key in ["ts", "event", "known_event", "payload", "not_exportable"] {
            assert!(r.get(key).is_some(), "{key} in {r}");
        }
    }
}

#[test]
fn show_summarises_each_kind() {
    let case = Case::new(&[]);
    for rec in [
        r#"{"ts":"2026-11-29T09:00:00Z","plan":"a.md","result":"completed","steps_total":5,"steps_passed":5,"steps_failed":0}"#,
        r#"{"ts":"2026-11-30T09:00:00Z","plan":"b.md","result":"failed","steps_total":4,"steps_passed":2,"steps_failed":1}"#,
        r#"{"ts":"2026-11-30T08:00:00Z","plan":"c.md","result":"completed","steps_total":1,"steps_passed":1,"steps_failed":0}"#,
    ] {
        assert_eq!(
            case.run_with(&["stats", "append", "trekexecute", rec])
                .status,
            0
        );
    }
    case.run_with(&["event", "emit", "--event", "main-merge-gate"]);
    case.run_with(&["stats", "append", "trekplan", r#"{"result":"completed"}"#]);
    let ran = case.run_with(&["stats", "show"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let lines = ran.lines();
    assert!(lines[0].starts_with("stats in "));
    let header = lines.iter().find(|l| l.starts_with("kind")).unwrap();
    assert!(
        header.contains("runs") && header.contains("steps passed") && header.contains("last run")
    );
    let row = lines.iter().find(|l| l.starts_with("trekexecute")).unwrap();
    assert!(row.contains("completed 2, failed 1"), "{row}");
    assert!(row.contains("2026-11-30T09:00:00Z"), "{row}");
    assert!(
        row.split_whitespace().any(|w| w == "8"),
        "8 steps passed: {row}"
    );
    assert!(
        ran.stdout
            .contains("events in trekexecute: main-merge-gate 1")
    );
    let ran = case.run_with(&["stats", "show", "--json", "trekplan"]);
    let summary: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(summary["kinds"].as_array().unwrap().len(), 1);
    assert_eq!(summary["kinds"][0]["runs"], 1);
    let empty = Case::new(&["stats", "show"]).run();
    assert_eq!(empty.status, 0);
    assert!(empty.stdout.contains("no stats recorded yet"));
    assert_eq!(case.run_with(&["stats", "show", "../x"]).status, 2);
}

#[test]
fn sixteen_writers_append_500_records_each_without_interleaving() {
    let case = Case::new(&[]);
    let data = case.path().join("data");
    let bin = assert_cmd::cargo::cargo_bin("voyage-helper");
    // Each writer is a shell loop of 500 helper runs; all 16 start together.
    let script = r#"i=0; while [ $i -lt 500 ]; do "$BIN" stats append load "{\"writer\":$W,\"i\":$i,\"pad\":\"$PAD\"}" >/dev/null || exit 1; i=$((i+1)); done"#;
    let pad = "x".repeat(300); // long enough that a torn write would show
    let writers: Vec<_> = (0..16)
        .map(|w| {
            Command::new("sh")
                .arg("-c")
                .arg(script)
                .env("BIN", &bin)
                .env("W", w.to_string())
                .env("PAD", &pad)
                .env("XDG_DATA_HOME", &data)
                .env_remove("CLAUDE_PLUGIN_DATA")
                .env_remove("VOYAGE_DATA_DIR")
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut w in writers {
        assert!(w.wait().unwrap().success());
    }
    let text = fs::read_to_string(data.join("voyage/load-stats.jsonl")).unwrap();
    let mut seen = HashSet::new();
    let mut count = 0;
    for line in text.lines() {
        let rec: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(rec["pad"].as_str().unwrap().len(), 300);
        assert!(seen.insert((rec["writer"].as_u64().unwrap(), rec["i"].as_u64().unwrap())));
        count += 1;
    }
    assert_eq!(count, 8000);
    assert!(text.ends_with('\n'));
}
