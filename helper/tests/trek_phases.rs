//! A whole `/trekexecute` run driven through `trek`'s phases as calls in
//! this process, with no command line and no child helper (issue 27,
//! point 5): start, each step begun, implemented and done, a failed
//! attempt retried, the finish and the main-merge gate. Each phase's reply
//! is checked as the agent reads it, and the run's files as git and the
//! progress file hold them.
//!
//! The phases read the current directory, as the command does: this binary
//! holds one test, which moves into its own repository before anything
//! else runs in the process.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
// The process's environment is set once, before any thread of the test
// runs, which is what `set_var` needs to be sound.
#![allow(unsafe_code)]

#[path = "common/mod.rs"]
mod common;

use std::fs;
use std::path::Path;

use common::repo::{git, init};
use voyage_helper::internals::trek::{self, Replied};

fn next(replied: &Replied) -> &str {
    replied.text.lines().last().unwrap_or_default()
}

#[test]
fn a_run_goes_through_every_phase_in_process() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    fs::create_dir_all(repo.join("plans")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/plan.md"),
        repo.join("plans/plan.md"),
    )
    .unwrap();
    fs::write(repo.join("README.md"), "# greeting\n").unwrap();
    init(&repo);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    // SAFETY: no other thread runs yet; see the crate attribute above.
    unsafe {
        std::env::set_var("CLAUDE_PLUGIN_DATA", work.path().join("data"));
        std::env::set_var("VOYAGE_DATA_DIR", work.path().join("data"));
        std::env::set_var("GIT_CONFIG_GLOBAL", "/dev/null");
        std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
        std::env::remove_var("CLAUDE_CODE_ENTRYPOINT");
    }
    std::env::set_current_dir(&repo).unwrap();

    // Phases 1 to 4.
    let started = trek::start(Path::new("plans/plan.md"));
    assert_eq!(started.exit, 0, "{}", started.text);
    assert_eq!(
        next(&started),
        "NEXT: trek step-begin 1",
        "{}",
        started.text
    );
    assert_eq!(started.json["status"], "in_progress");
    assert!(repo.join(".git/voyage-run.json").is_file());

    // Step 1, first attempt wrong: the Verify fails and the step is retried.
    let begun = trek::step_begin(1);
    assert_eq!(begun.exit, 0, "{}", begun.text);
    assert!(begun.text.contains("greet.sh"), "{}", begun.text);
    fs::write(repo.join("greet.sh"), "#!/usr/bin/env bash\necho Hi\n").unwrap();
    let failed = trek::step_done(1);
    assert!(
        failed.text.contains("Attempt 1/3 failed"),
        "{}",
        failed.text
    );
    assert_eq!(next(&failed), "NEXT: trek step-begin 1", "{}", failed.text);

    // The retry passes and is committed.
    trek::step_begin(1);
    fs::write(
        repo.join("greet.sh"),
        "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
    )
    .unwrap();
    let done = trek::step_done(1);
    assert!(
        done.text.contains("Step 1: PASS (committed"),
        "{}",
        done.text
    );
    assert_eq!(next(&done), "NEXT: trek step-begin 2", "{}", done.text);

    // Step 2.
    trek::step_begin(2);
    fs::create_dir_all(repo.join("tests")).unwrap();
    fs::write(
        repo.join("tests/greet.sh"),
        "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n",
    )
    .unwrap();
    let done = trek::step_done(2);
    assert!(
        done.text.contains("Step 2: PASS (committed"),
        "{}",
        done.text
    );
    assert_eq!(next(&done), "NEXT: trek finish", "{}", done.text);

    // Phases 7 and 8: the checks pass, the gate is asked, then confirmed.
    let asked = trek::finish(None);
    assert!(
        asked.text.contains("Manifest audit: PASS"),
        "{}",
        asked.text
    );
    assert_eq!(asked.json["next"], "ask-main-merge", "{}", asked.text);
    let confirmed = trek::finish(Some(true));
    assert_eq!(confirmed.exit, 0, "{}", confirmed.text);
    assert_eq!(confirmed.json["status"], "completed", "{}", confirmed.text);
    assert!(
        confirmed.json["report"]
            .as_str()
            .unwrap_or_default()
            .contains("**Result:** COMPLETED"),
        "{}",
        confirmed.text
    );

    // What the run left: two checkpoint commits, a clean tree, no marker.
    let log = git(&repo, &["log", "--format=%s"]);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            "test(greet): check the default name",
            "feat(greet): add the greeting script",
            "init"
        ]
    );
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert!(!repo.join(".git/voyage-run.json").exists());
    let progress: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo.join("plans/.trekexecute-progress-plan.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(progress["status"], "completed");
    assert_eq!(progress["steps"]["1"]["attempts"], 2);
    // The events and the Phase 9 record went to the data dir, once each.
    let stats = fs::read_to_string(work.path().join("data/trekexecute-stats.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = stats
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        records.iter().filter(|r| r.get("event").is_none()).count(),
        1,
        "{stats}"
    );
    assert!(
        records.iter().any(|r| r["event"] == "main-merge-approved"),
        "{stats}"
    );
}
