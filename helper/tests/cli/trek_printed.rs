//! A single-session run whose calls run as printed (issue 40): the example
//! plan in a repository whose path holds a space, quotes and a `$`, the
//! plan's path a space, every `NEXT:` call run exactly as printed through
//! `sh -c`, down to the main-merge gate: the agent's Confirm call where a
//! person is asked, the operator's whole call, from another directory,
//! where nobody can be.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::Case;
use crate::common::printed::{agent, drive, gate_calls, helper, next_of, sh, word};
use crate::common::repo::{commit_all, git, init, write};

const PLAN: &str = "plans/greet plan.md";

/// What the agent writes for each step of examples/trek/plan.md.
fn edits(step: u32) -> Vec<(&'static str, &'static str)> {
    match step {
        1 => vec![(
            "greet.sh",
            "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
        )],
        2 => vec![(
            "tests/greet.sh",
            "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n",
        )],
        _ => Vec::new(),
    }
}

/// A repository with the example plan committed, in a hard directory.
fn repo(case: &Case) -> PathBuf {
    let root = case.path().join("my repo's \"dir\" $x");
    fs::create_dir_all(&root).unwrap();
    init(&root);
    write(&root, &[("README.md", "readme\n")]);
    commit_all(&root, "init");
    let plan =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/plan.md"))
            .unwrap();
    write(&root, &[(PLAN, &plan)]);
    commit_all(&root, "plan");
    root
}

#[test]
fn every_printed_call_of_a_single_session_run_runs_as_printed() {
    let case = Case::new(&[]);
    let root = repo(&case);
    let home = case.path();
    let (code, started) = agent(&root, home, &format!("trek start {}", word(PLAN)));
    assert_eq!(code, 0, "{started}");
    let gate = drive(&root, home, started, &edits);
    let (confirm, decline) = gate_calls(next_of(&gate));
    assert_eq!(confirm, "trek finish --gate confirm", "{gate}");
    assert_eq!(decline, "trek finish --gate decline", "{gate}");
    let (code, done) = agent(&root, home, confirm);
    assert_eq!(code, 0, "{done}");
    assert!(done.contains("trekexecute_summary"), "{done}");
    let log = git(&root, &["log", "--format=%s"]);
    assert!(
        log.contains("feat(greet): add the greeting script"),
        "{log}"
    );
    assert!(log.contains("test(greet): check the default name"), "{log}");
}

#[test]
fn the_operators_call_of_a_single_session_run_runs_from_anywhere() {
    let case = Case::new(&[]);
    let root = repo(&case);
    let home = case.path();
    let unattended = format!("CLAUDE_CODE_ENTRYPOINT=sdk-cli {}", helper());
    let (code, started) = sh(
        &root,
        home,
        &format!("{unattended} trek start {}", word(PLAN)),
    );
    assert_eq!(code, 0, "{started}");
    // The steps, as the unattended session's agent makes them.
    let mut text = started;
    for _ in 0..8 {
        let next = next_of(&text).to_owned();
        if next.starts_with("trek ") {
            text = sh(&root, home, &format!("{unattended} {next}")).1;
        } else if let Some(rest) = next.strip_prefix("implement step ") {
            let n: u32 = rest.split(' ').next().unwrap().parse().unwrap();
            write(&root, &edits(n));
            let (_, call) = next.split_once("then: ").unwrap();
            text = sh(&root, home, &format!("{unattended} {call}")).1;
        } else {
            break;
        }
    }
    let next = next_of(&text);
    assert!(
        next.starts_with("stop — do not answer the main-merge gate"),
        "{text}"
    );
    let (confirm, _) = gate_calls(next);
    assert!(confirm.starts_with("cd "), "{confirm}");
    let (code, done) = sh(home, home, confirm);
    assert_eq!(code, 0, "{done}");
    assert!(done.contains("trekexecute_summary"), "{done}");
}
