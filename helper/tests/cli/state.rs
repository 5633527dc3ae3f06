//! `voyage-helper write --atomic`, `state write` and `state validate`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::common::Case;
use serde_json::Value;

const STATE: &str = ".session-state.local.json";
const PROMPT: &str = "NEXT-SESSION-PROMPT.local.md";

#[test]
fn write_atomic_creates_and_replaces_keeping_the_mode() {
    let case = Case::new(&["write", "--atomic", "out.json"]).stdin("{\"a\":1}\n");
    let ran = case.run();
    assert_eq!((ran.status, ran.stdout.as_str()), (0, "wrote out.json\n"));
    let path = case.path().join("out.json");
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let ran = case.run_with_stdin(&["write", "--atomic", "--json", "out.json"], b"second");
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["written"], true);
    assert_eq!(reply["bytes"], 6);
    assert_eq!(fs::read_to_string(&path).unwrap(), "second");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::read_dir(case.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn write_atomic_refuses_and_leaves_the_file_untouched() {
    let case = Case::new(&[]);
    let path = case.path().join("p.json");
    fs::write(&path, "old").unwrap();
    fs::create_dir(case.path().join("adir")).unwrap();
    let cases: &[(&[&str], &[u8], i32, &str)] = &[
        (
            &["write", "--atomic", "--schema", "progress", "p.json"],
            b"not json",
            1,
            "STATE_NOT_JSON",
        ),
        (
            &["write", "--atomic", "--schema", "progress", "p.json"],
            b"[1,2]",
            1,
            "STATE_NOT_OBJECT",
        ),
        (
            &["write", "--atomic", "--schema", "progress", "p.json"],
            b"{\"plan\":\"x\"}",
            1,
            "STATE_MISSING_KEY",
        ),
        (
            &["write", "--atomic", "--schema", "nope", "p.json"],
            b"{}",
            2,
            "STATE_UNKNOWN_SCHEMA",
        ),
        (
            &["write", "--atomic", "adir"],
            b"x",
            2,
            "STATE_TARGET_IS_DIRECTORY",
        ),
        (
            &["write", "--atomic", "no/such/dir/p.json"],
            b"x",
            2,
            "STATE_NO_DIRECTORY",
        ),
        (
            &["write", "--atomic", "/proc/voyage-test.json"],
            b"x",
            2,
            "STATE_UNWRITABLE",
        ),
    ];
    for (args, stdin, status, code) in cases {
        let ran = case.run_with_stdin(args, stdin);
        assert_eq!(ran.status, *status, "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!("error[{code}]")),
            "{args:?}: {}",
            ran.stderr
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            fs::read_dir(case.path()).unwrap().count(),
            2,
            "{args:?} left a file"
        );
    }
    let mut args = cases[0].0.to_vec();
    args.insert(2, "--json");
    let ran = case.run_with_stdin(&args, b"nope");
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["written"], false);
    assert_eq!(reply["code"], "STATE_NOT_JSON");
    // Without --atomic there is no write at all.
    assert_eq!(case.run_with(&["write", "p.json"]).status, 2);
}

#[test]
fn write_atomic_into_a_read_only_directory_is_exit_2() {
    // root ignores directory permissions, so this only means something for
    // other users (the /proc case above covers root).
    if crate::common::skip::running_as_root() {
        crate::common::skip("running as root, which ignores directory permissions");
        return;
    }
    let case = Case::new(&[]);
    let dir = case.path().join("ro");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("p.json"), "old").unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    let ran = case.run_with_stdin(&["write", "--atomic", "ro/p.json"], b"new");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("STATE_UNWRITABLE"));
    assert_eq!(fs::read_to_string(dir.join("p.json")).unwrap(), "old");
}

fn write_state(case: &Case, status: &str, label: &str) -> crate::common::Ran {
    case.run_with(&[
        "state",
        "write",
        "--project",
        "proj",
        "--brief",
        "proj/brief.md",
        "--label",
        label,
        "--status",
        status,
        "--json",
    ])
}

#[test]
fn state_write_writes_the_pair_and_it_validates() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("proj")).unwrap();
    let ran = write_state(&case, "partial", "Session 2: token refresh");
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["path"], format!("proj/{STATE}"));
    assert_eq!(reply["prompt_path"], format!("proj/{PROMPT}"));
    let state: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("proj").join(STATE)).unwrap())
            .unwrap();
    assert_eq!(state["schema_version"], 1);
    assert_eq!(state["project"], "proj");
    assert_eq!(state["next_session_brief_path"], "proj/brief.md");
    assert_eq!(state["next_session_label"], "Session 2: token refresh");
    assert_eq!(state["status"], "partial");
    let prompt = fs::read_to_string(case.path().join("proj").join(PROMPT)).unwrap();
    let at = state["updated_at"].as_str().unwrap();
    assert!(
        prompt.starts_with(&format!(
            "---\nproduced_by: trekexecute\nproduced_at: {at}\nproject: \"proj\"\nstatus: partial\n"
        )),
        "{prompt}"
    );
    assert!(prompt.contains("\n# Session 2: token refresh\n"));
    assert!(prompt.contains("/trekcontinue"));
    let ran = case.run_with(&["state", "validate", &format!("proj/{STATE}")]);
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (0, format!("proj/{STATE}: valid\n").as_str())
    );
}

#[test]
fn state_write_refuses_bad_input_and_changes_neither_file() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("proj")).unwrap();
    assert_eq!(write_state(&case, "completed", "Complete").status, 0);
    let snapshot = || {
        (
            fs::read(case.path().join("proj").join(STATE)).unwrap(),
            fs::read(case.path().join("proj").join(PROMPT)).unwrap(),
        )
    };
    let before = snapshot();
    for (status, label, exit, code) in [
        ("done", "Complete", 1, "STATE_BAD_STATUS"),
        ("in_progress", "Complete", 1, "STATE_BAD_STATUS"),
        ("failed", "", 1, "STATE_BAD_VALUE"),
        ("failed", "two\nlines", 1, "STATE_BAD_VALUE"),
    ] {
        let ran = write_state(&case, status, label);
        assert_eq!(ran.status, exit, "{status} {label:?}: {}", ran.stderr);
        let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(reply["code"], code, "{status} {label:?}");
        assert_eq!(snapshot(), before);
    }
    let ran = case.run_with(&[
        "state",
        "write",
        "--project",
        "nope",
        "--brief",
        "b",
        "--label",
        "L",
        "--status",
        "failed",
    ]);
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("STATE_NO_DIRECTORY"));
}

#[test]
fn when_the_second_file_cannot_be_replaced_the_first_is_restored() {
    let case = Case::new(&[]);
    let proj = case.path().join("proj");
    fs::create_dir(&proj).unwrap();
    // An old prompt, and a directory where the state record should go: the
    // prompt is renamed first, then the record fails.
    fs::write(proj.join(PROMPT), "old prompt").unwrap();
    fs::create_dir(proj.join(STATE)).unwrap();
    let ran = write_state(&case, "failed", "Session 3");
    assert_eq!(ran.status, 2, "{}", ran.stderr);
    assert_eq!(fs::read_to_string(proj.join(PROMPT)).unwrap(), "old prompt");
    assert!(proj.join(STATE).is_dir());
    // Without an old prompt, the new one is removed again.
    fs::remove_file(proj.join(PROMPT)).unwrap();
    let ran = write_state(&case, "failed", "Session 3");
    assert_eq!(ran.status, 2);
    assert!(!proj.join(PROMPT).exists());
    assert_eq!(
        fs::read_dir(&proj).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn state_validate_names_each_problem() {
    let case = Case::new(&[]);
    let good = r#"{"schema_version":1,"project":"p","next_session_brief_path":"b.md","next_session_label":"Complete","status":"completed","updated_at":"2026-11-30T10:15:00Z","extra":"tolerated"}"#;
    let checks: &[(&str, i32, &str)] = &[
        (good, 0, ""),
        ("{", 1, "STATE_NOT_JSON"),
        ("[]", 1, "STATE_NOT_OBJECT"),
        (r#"{"schema_version":1}"#, 1, "STATE_MISSING_KEY"),
        (
            &good.replace("\"schema_version\":1", "\"schema_version\":2"),
            1,
            "STATE_BAD_VERSION",
        ),
        (
            &good.replace("\"completed\"", "\"in_progress\""),
            1,
            "STATE_BAD_STATUS",
        ),
        (
            &good.replace("2026-11-30T10:15:00Z", "yesterday"),
            1,
            "STATE_BAD_TIME",
        ),
    ];
    for (text, status, code) in checks {
        fs::write(case.path().join("s.json"), text).unwrap();
        let ran = case.run_with(&["state", "validate", "--json", "s.json"]);
        assert_eq!(ran.status, *status, "{text}: {}", ran.stdout);
        if !code.is_empty() {
            assert!(ran.stdout.contains(code), "{text}: {}", ran.stdout);
        }
    }
    let ran = case.run_with(&["state", "validate", "missing.json"]);
    assert_eq!(ran.status, 2);
}

#[test]
fn state_validate_checks_the_prompt_beside_it() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("proj")).unwrap();
    assert_eq!(write_state(&case, "stopped", "Session 4").status, 0);
    let prompt_path = case.path().join("proj").join(PROMPT);
    let prompt = fs::read_to_string(&prompt_path).unwrap();
    let validate = || case.run_with(&["state", "validate", &format!("proj/{STATE}")]);
    assert_eq!(validate().status, 0);
    for (from, to, code) in [
        ("status: stopped", "status: failed", "STATE_PAIR_MISMATCH"),
        (
            "produced_by: trekexecute",
            "produced_by: someone",
            "STATE_PROMPT_PRODUCER",
        ),
        ("produced_at: 20", "produced_at: 19", "STATE_PAIR_MISMATCH"),
        (
            "---\nproduced_by",
            "produced_by",
            "STATE_PROMPT_NO_FRONT_MATTER",
        ),
        (
            "status: stopped",
            "status: [",
            "STATE_PROMPT_BAD_FRONT_MATTER",
        ),
    ] {
        fs::write(&prompt_path, prompt.replacen(from, to, 1)).unwrap();
        let ran = validate();
        assert_eq!(ran.status, 1, "{to}: {}", ran.stdout);
        assert!(ran.stdout.contains(code), "{to}: {}", ran.stdout);
        assert!(
            ran.stdout.contains(PROMPT),
            "the problem names the prompt: {}",
            ran.stdout
        );
    }
}
