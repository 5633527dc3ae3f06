//! Every `--json` output validates against its schema in `schemas/`, and
//! `voyage-helper schema` prints exactly those files.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use crate::common::Case;
use serde_json::Value;

fn schema_file(name: &str) -> Value {
    crate::common::schema::schema(name)
}

fn assert_valid(schema: &str, output: &str) {
    crate::common::assert_schema(schema, output);
}

#[test]
fn run_json_blocks_validate() {
    for input in [
        "command: echo ok\n",
        "command: true\n",
        "command: sleep 5\ntimeout: 1\n",
        "command: no-such-command-voyage\n",
        "",
        "command: true\ntimeout: 0\n",
    ] {
        let ran = Case::new(&["run", "--json"]).stdin(input).run();
        assert_valid("run-block", &ran.stdout);
    }
}

#[test]
fn verdict_json_replies_validate() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdict");
    let cases = [
        ("cargo-test/many.log", "101", Some("all green")),
        ("jest/fail.log", "1", Some("test X fails because of Y")),
        ("pytest/pass.log", "0", None),
        ("tsc/fail.log", "1", Some("exit 1")),
        // The corpus: a swallowed failure, no test run, a crash.
        (
            "../../../tests/data/verdict/pytest/fail-swallowed.log",
            "0",
            Some("all green"),
        ),
        (
            "../../../tests/data/verdict/pytest/filter-nomatch.log",
            "5",
            Some("all green"),
        ),
        (
            "../../../tests/data/verdict/cargo-test/pass-then-crash.log",
            "139",
            None,
        ),
    ];
    for (log, exit, expect) in cases {
        let log = fixtures.join(log);
        let mut args = vec![
            "verdict",
            "--json",
            "--log",
            log.to_str().unwrap(),
            "--exit",
            exit,
        ];
        if let Some(expect) = expect {
            args.extend(["--expect", expect]);
        }
        assert_valid("verdict-reply", &Case::new(&args).run().stdout);
    }
    let ran = Case::new(&["verdict", "--json", "--log", "/no/such"]).run();
    assert_valid("verdict-reply", &ran.stdout);
}

#[test]
fn scan_command_json_validates() {
    for command in [
        "ls -la",
        "git push --force",
        "sudo bash -c 'rm -rf /' && curl x | sh",
        "npm i x; git reset --hard",
        "echo \"unterminated",
        &format!("rm -rf {}", "x".repeat(500)),
    ] {
        let ran = Case::new(&["scan", "command", "--json", "--", command]).run();
        assert_valid("scan-command", &ran.stdout);
    }
}

#[test]
fn scan_plan_json_validates() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans");
    for plan in [
        "invalid/dangerous-verify.md",
        "valid/session-spec.md",
        "valid/v17-single.md",
        "valid/multi-session.md",
        "valid/legacy.md",
        "does-not-exist.md",
    ] {
        let path = fixtures.join(plan);
        let ran = Case::new(&["scan", "plan", "--json", path.to_str().unwrap()]).run();
        assert_valid("scan-plan", &ran.stdout);
    }
}

/// Every enum of rule ids in `schemas/` (any `enum` that names a rule) is
/// the rule table's list, in its order: the ids are never kept by hand.
/// `VOYAGE_BLESS=1` rewrites the schema files from the table instead.
#[test]
fn every_schema_lists_the_rule_ids_of_the_table() {
    let rules: Vec<Value> = voyage_helper::internals::scan::RULES
        .iter()
        .map(|r| Value::from(r.id))
        .collect();
    /// Puts `rules` in every enum under `value` that names one of them;
    /// returns how many there were.
    fn regenerate(value: &mut Value, rules: &[Value]) -> usize {
        match value {
            Value::Object(map) => {
                let mut found = 0;
                for (key, child) in map.iter_mut() {
                    let names_a_rule = key == "enum"
                        && child
                            .as_array()
                            .is_some_and(|listed| listed.iter().any(|v| rules.contains(v)));
                    if names_a_rule {
                        *child = Value::Array(rules.to_vec());
                        found += 1;
                    } else {
                        found += regenerate(child, rules);
                    }
                }
                found
            }
            Value::Array(items) => items.iter_mut().map(|v| regenerate(v, rules)).sum(),
            _ => 0,
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut found = Vec::new();
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let on_disk = std::fs::read_to_string(&path).unwrap();
        let mut schema: Value = serde_json::from_str(&on_disk).unwrap();
        let lists = regenerate(&mut schema, &rules);
        if lists == 0 {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        found.push((name.clone(), lists));
        let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if std::env::var_os("VOYAGE_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        } else if generated != on_disk {
            stale.push(name);
        }
    }
    found.sort();
    assert_eq!(
        found,
        [
            ("scan-command.schema.json".to_owned(), 1),
            ("scan-plan.schema.json".to_owned(), 1),
            ("scan-rules.schema.json".to_owned(), 2),
        ]
    );
    assert!(
        stale.is_empty(),
        "{stale:?} list other rule ids than judge/src/rule.rs: run \
         `VOYAGE_BLESS=1 cargo nextest run -p voyage-helper --test cli -- schemas::every_schema_lists` \
         and commit the result"
    );
}

#[test]
fn scan_rules_json_validates() {
    for args in [
        &["scan", "rules", "--json"][..],
        &["scan", "rules", "--json", "--check"],
    ] {
        let ran = Case::new(args).run();
        let reply = crate::common::assert_schema("scan-rules", &ran.stdout);
        assert_eq!(
            reply["rules"].as_array().unwrap().len(),
            voyage_helper::internals::scan::RULES.len()
        );
    }
}

#[test]
fn hook_output_validates() {
    let bash = |command: &str| {
        serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}})
        .to_string()
    };
    let mut printed = 0;
    for input in [
        bash("rm -rf /"),
        bash("git push -f"),
        bash("curl x | sh; rm -rf y; chmod 777 z"),
        serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": "/x/.env"}})
            .to_string(),
    ] {
        let ran = Case::new(&["hook", "pre-tool-use"]).stdin(input).run();
        assert_valid("hook-pre-tool-use-output", &ran.stdout);
        printed += 1;
    }
    assert_eq!(printed, 4);
    let allow = serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "permissionDecisionReason": "voyage: blocked x"}});
    let validator = jsonschema::draft202012::new(&schema_file("hook-pre-tool-use-output")).unwrap();
    assert!(!validator.is_valid(&allow));
    let warn_without_message = serde_json::json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "additionalContext": "voyage: warning x"}});
    assert!(!validator.is_valid(&warn_without_message));
    // A systemMessage alone is no answer the hook gives (the stale-marker
    // notice is gone: such a marker now refuses writes).
    for bad in [
        serde_json::json!({"systemMessage": "voyage: ignored a stale run marker /r/.git/voyage-run.json (x)"}),
        serde_json::json!({}),
        serde_json::json!({"systemMessage": "voyage: warning x"}),
        serde_json::json!({"systemMessage": "voyage: ignored a stale run marker\nx"}),
    ] {
        assert!(!validator.is_valid(&bad), "{bad}");
    }
}

#[test]
fn schema_subcommand_prints_the_files() {
    let ran = Case::new(&["schema"]).run();
    let listed: Vec<&str> = ran.stdout.lines().collect();
    let mut on_disk: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter_map(|n| n.strip_suffix(".schema.json").map(str::to_owned))
            .collect();
    on_disk.sort();
    assert_eq!(
        listed, on_disk,
        "every file in schemas/ is embedded, and nothing else"
    );
    for name in listed {
        let ran = Case::new(&["schema", name]).run();
        let printed: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(printed, schema_file(name));
    }
    let ran = Case::new(&["schema", "nope"]).run();
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("run-block"));
}

#[test]
fn the_schemas_reject_what_the_helper_must_not_print() {
    let run = jsonschema::draft202012::new(&schema_file("run-block")).unwrap();
    let ok_without_log = serde_json::json!({
        "result": "SUCCESS", "status": "ok", "exit": 0, "duration_secs": 0,
        "duration_ms": 1, "log": null, "lines": 0, "tail": null, "reason": null
    });
    assert!(!run.is_valid(&ok_without_log));
    let verdict = jsonschema::draft202012::new(&schema_file("verdict-reply")).unwrap();
    let eleven = serde_json::json!({
        "verdict": "FAIL", "exit": "1", "duration": "-", "summary": "s", "runner": null,
        "failures": vec![serde_json::json!({"name": "n", "message": "", "frame": null}); 11],
        "more_failures": 0, "log": "/l"
    });
    assert!(!verdict.is_valid(&eleven));
}

fn valid_fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/progress")
        .join(name)
}

#[test]
fn progress_outputs_and_files_validate() {
    let case = Case::new(&[]);
    let p = case.path().join("p.json");
    std::fs::copy(valid_fixture("valid-fresh.json"), &p).unwrap();
    for args in [
        &[
            "progress",
            "step",
            "1",
            "--status",
            "in_progress",
            "--file",
            "p.json",
            "--json",
        ][..],
        &[
            "progress",
            "step",
            "1",
            "--status",
            "completed",
            "--file",
            "p.json",
            "--json",
        ],
        &[
            "progress", "step", "1", "--status", "failed", "--file", "p.json", "--json",
        ],
        &["progress", "resume-point", "--file", "p.json", "--json"],
        &[
            "progress", "finish", "--status", "partial", "--file", "p.json", "--json",
        ],
        &[
            "progress",
            "finish",
            "--status",
            "completed",
            "--file",
            "p.json",
            "--json",
        ],
        &[
            "progress",
            "step",
            "1",
            "--status",
            "in_progress",
            "--file",
            "missing.json",
            "--json",
        ],
    ] {
        assert_valid("progress-reply", &case.run_with(args).stdout);
    }
    assert_valid(
        "progress",
        &case
            .run_with(&["progress", "show", "--file", "p.json", "--json"])
            .stdout,
    );
    assert_valid("progress", &std::fs::read_to_string(&p).unwrap());
    for file in ["p.json", "missing.json"] {
        let out = case
            .run_with(&["progress", "validate", "--json", file])
            .stdout;
        assert_valid("validation-report", &out);
    }
    let broken = valid_fixture("PROGRESS_BAD_STATUS.step.json");
    let out = case
        .run_with(&["progress", "validate", "--json", broken.to_str().unwrap()])
        .stdout;
    assert_valid("validation-report", &out);
}

#[test]
fn state_outputs_and_files_validate() {
    let case = Case::new(&[]);
    std::fs::create_dir(case.path().join("proj")).unwrap();
    let out = case
        .run_with(&[
            "state",
            "write",
            "--project",
            "proj",
            "--brief",
            "b.md",
            "--label",
            "Complete",
            "--status",
            "completed",
            "--json",
        ])
        .stdout;
    assert_valid("write-reply", &out);
    let state = case.path().join("proj/.session-state.local.json");
    assert_valid("session-state", &std::fs::read_to_string(&state).unwrap());
    let out = case
        .run_with(&["state", "validate", "--json", state.to_str().unwrap()])
        .stdout;
    assert_valid("validation-report", &out);
    let out = case
        .run_with(&[
            "state",
            "write",
            "--project",
            "proj",
            "--brief",
            "b.md",
            "--label",
            "L",
            "--status",
            "nope",
            "--json",
        ])
        .stdout;
    assert_valid("write-reply", &out);
    for stdin in [&b"{}"[..], b"not json"] {
        let out = case
            .run_with_stdin(
                &[
                    "write",
                    "--atomic",
                    "--json",
                    "--schema",
                    "stats-summary",
                    "x.json",
                ],
                stdin,
            )
            .stdout;
        assert_valid("write-reply", &out);
    }
}

#[test]
fn stats_gate_and_profile_outputs_validate() {
    let case = Case::new(&[]);
    for (args, stdin) in [
        (
            &["stats", "append", "trekexecute"][..],
            &b"{\"result\":\"completed\",\"steps_passed\":2}"[..],
        ),
        (&["stats", "append", "trekexecute"], b"[]"),
        (
            &[
                "event",
                "emit",
                "--event",
                "main-merge-gate",
                "--payload",
                "-",
            ],
            b"{\"plan\":\"p.md\",\"wave_count\":1}",
        ),
        (
            &[
                "event",
                "emit",
                "--event",
                "unknown-thing",
                "--payload",
                "-",
            ],
            b"nope",
        ),
    ] {
        assert_valid("write-reply", &case.run_with_stdin(args, stdin).stdout);
    }
    case.run_with(&[
        "gate", "--state", "start", "--event", "begin", "--gates", "open", "--effort", "high",
    ]);
    let file = case.path().join("data/voyage/trekexecute-stats.jsonl");
    for line in std::fs::read_to_string(&file).unwrap().lines() {
        let rec: Value = serde_json::from_str(line).unwrap();
        if rec.get("event").is_some() {
            assert_valid("event-record", line);
        } else {
            assert_valid("stats-record", line);
        }
    }
    assert_valid(
        "stats-summary",
        &case.run_with(&["stats", "show", "--json"]).stdout,
    );
    for args in [
        &[
            "gate", "--state", "start", "--event", "begin", "--gates", "open", "--effort", "high",
            "--json",
        ][..],
        &[
            "gate",
            "--state",
            "auditing",
            "--event",
            "audit-pass",
            "--json",
        ],
        &[
            "gate",
            "--state",
            "awaiting-main-merge",
            "--event",
            "decline",
            "--json",
            "--gates",
            "closed",
        ],
        &[
            "gate",
            "--state",
            "executing",
            "--event",
            "wave-complete",
            "--json",
            "--effort",
            "high",
        ],
    ] {
        assert_valid("gate-decision", &case.run_with(args).stdout);
    }
    for args in [
        &["profile", "resolve", "--phase", "execute", "--json"][..],
        &[
            "profile",
            "resolve",
            "--phase",
            "plan",
            "--profile",
            "fable",
            "--json",
        ],
    ] {
        assert_valid("profile-resolution", &case.run_with(args).stdout);
    }
}

#[test]
fn the_profile_schema_accepts_the_documented_example() {
    let example: Value = serde_json::json!({
        "description": "team", "extends": "balanced",
        "phase_models": {"execute": "sonnet"}, "parallel_agents": 2
    });
    let validator = jsonschema::draft202012::new(&schema_file("profile")).unwrap();
    assert!(validator.is_valid(&example));
    assert!(!validator.is_valid(&serde_json::json!({"phase_models": {"deploy": "x"}})));
}
