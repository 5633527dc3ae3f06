//! Every `--json` output validates against its schema in `schemas/`, and
//! `voyage-helper schema` prints exactly those files.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod support;

use std::path::Path;

use serde_json::Value;
use support::Case;

fn schema_file(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(format!("{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn assert_valid(schema: &str, output: &str) {
    let validator = jsonschema::draft202012::new(&schema_file(schema)).unwrap();
    let instance: Value = serde_json::from_str(output).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{schema}: {output}\n{}",
        errors.join("\n")
    );
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
