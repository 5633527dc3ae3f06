//! `audit step`: each D2 check failing on its own, in a real repository,
//! then `--record`, the sandbox sentinel and the cases it cannot check.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{Value, json};

use super::repo::{PlanStep, Repo, plan, valid};
use super::step_zero::sandbox_plan;

const MANIFEST: &str = r#"
    expected_paths: [src/a.rs, src/b.rs, scripts/run.sh]
    min_file_count: 3
    commit_message_pattern: "^feat: add a and b$"
    bash_syntax_check: [scripts/run.sh]
    forbidden_paths: [Cargo.lock, vendor/]
    must_contain: [{path: src/a.rs, pattern: "^pub fn a"}]
"#;

/// A repository with the plan committed and the start commit returned;
/// the step's work is then done in the work tree, as before a checkpoint.
fn started() -> (Repo, String) {
    let repo = Repo::new();
    repo.write(
        "plan.md",
        &plan(&[PlanStep {
            number: 1,
            files: &["src/a.rs", "src/b.rs", "scripts/run.sh"],
            subject: "feat: add a and b",
            manifest: MANIFEST,
        }]),
    );
    repo.write("Cargo.lock", "# lock\n");
    repo.write("vendor/lib.rs", "// vendored\n");
    let start = repo.commit("chore: the plan");
    (repo, start)
}

/// The step done right.
fn done(repo: &Repo) {
    repo.write("src/a.rs", "// a\npub fn a() {}\n");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.write("scripts/run.sh", "#!/bin/bash\nset -e\necho ok\n");
}

fn audit(repo: &Repo, start: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "audit", "step", "--plan", "plan.md", "--step", "1", "--since", start, "--json",
    ];
    args.extend_from_slice(extra);
    let ran = repo.run(&args);
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
    (ran.status, valid("audit-step", &ran.stdout))
}

/// The `(check, path, actual)` of each drift item.
fn items(report: &Value) -> Vec<(String, String, Value)> {
    report["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["check"].as_str().unwrap().to_owned(),
                d["path"].as_str().unwrap_or("").to_owned(),
                d["actual"].clone(),
            )
        })
        .collect()
}

fn one(check: &str, path: &str, actual: Value) -> Vec<(String, String, Value)> {
    vec![(check.to_owned(), path.to_owned(), actual)]
}

#[test]
fn a_step_done_right_passes() {
    let (repo, start) = started();
    done(&repo);
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["status"], "pass");
    assert_eq!(report["since"], start);
    // Text: the seed's line. Committed already (the default --since is
    // HEAD, so nothing is "changed" and the forbidden check has nothing).
    repo.commit("feat: add a and b");
    let ran = repo.run(&["audit", "step", "--plan", "plan.md", "--step", "1"]);
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (0, "Manifest verification PASS for step 1\n")
    );
}

#[test]
fn a_missing_expected_path_and_too_few_files() {
    let (repo, start) = started();
    done(&repo);
    std::fs::remove_file(repo.path().join("src/b.rs")).unwrap();
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 1);
    assert_eq!(report["status"], "drift");
    assert_eq!(
        items(&report),
        vec![
            ("expected_paths".into(), "src/b.rs".into(), json!("missing")),
            ("min_file_count".into(), String::new(), json!(2)),
        ]
    );
    assert_eq!(report["drift"][1]["expected"], 3);
}

#[test]
fn fewer_files_than_min_file_count_alone() {
    let repo = Repo::new();
    repo.write(
        "plan.md",
        &plan(&[PlanStep {
            number: 1,
            files: &["a.txt"],
            subject: "feat: a",
            manifest: "expected_paths: [a.txt]\nmin_file_count: 2\ncommit_message_pattern: \"\"\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: []",
        }]),
    );
    let start = repo.commit("chore: plan");
    repo.write("a.txt", "a\n");
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 1);
    assert_eq!(items(&report), one("min_file_count", "", json!(1)));
}

#[test]
fn a_forbidden_path_touched_committed_uncommitted_or_new() {
    for touch in ["Cargo.lock", "vendor/lib.rs", "vendor/new.rs"] {
        let (repo, start) = started();
        done(&repo);
        repo.write(touch, "changed\n");
        let (status, report) = audit(&repo, &start, &[]);
        assert_eq!(status, 1, "{touch}");
        assert_eq!(
            items(&report),
            one("forbidden_paths", touch, json!("changed")),
            "{touch}"
        );
        // Committed since the step began: still touched.
        repo.commit("feat: add a and b");
        let (_, report) = audit(&repo, &start, &[]);
        assert_eq!(
            items(&report),
            one("forbidden_paths", touch, json!("changed")),
            "{touch}"
        );
        // From the new HEAD on, nothing is changed.
        let head = repo.head();
        assert_eq!(audit(&repo, &head, &[]).0, 0, "{touch}");
    }
}

#[test]
fn a_broken_script_listed_or_only_changed() {
    let (repo, start) = started();
    done(&repo);
    repo.write("scripts/run.sh", "if then\n");
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 1);
    assert_eq!(
        items(&report),
        one("bash_syntax_check", "scripts/run.sh", json!("syntax error"))
    );
    let detail = report["drift"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("syntax error"), "{detail}");
    // A script no manifest lists, changed by the step: the safety net.
    repo.write("scripts/run.sh", "echo fine\n");
    repo.write("tools/extra.sh", "for x in; do\n");
    let (_, report) = audit(&repo, &start, &[]);
    assert_eq!(
        items(&report),
        one("bash_syntax_check", "tools/extra.sh", json!("syntax error"))
    );
}

#[test]
fn must_contain_missing_or_without_a_match() {
    let (repo, start) = started();
    done(&repo);
    repo.write(
        "src/a.rs",
        "fn a() {}\n// pub fn a is not at a line start\n",
    );
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 1);
    assert_eq!(
        items(&report),
        one("must_contain", "src/a.rs", json!("no match"))
    );
    assert_eq!(report["drift"][0]["expected"], "a line matching ^pub fn a");
    std::fs::remove_file(repo.path().join("src/a.rs")).unwrap();
    let (_, report) = audit(&repo, &start, &[]);
    let checks: Vec<(String, String, Value)> = items(&report);
    assert_eq!(
        checks,
        vec![
            ("expected_paths".into(), "src/a.rs".into(), json!("missing")),
            ("min_file_count".into(), String::new(), json!(2)),
            ("must_contain".into(), "src/a.rs".into(), json!("missing")),
        ]
    );
}

#[test]
fn paths_outside_the_repository_are_drift_never_read() {
    let repo = Repo::new();
    repo.write(
        "plan.md",
        &plan(&[PlanStep {
            number: 1,
            files: &[],
            subject: "feat: a",
            manifest: "expected_paths: [../outside.txt]\nmin_file_count: 0\ncommit_message_pattern: \"\"\nbash_syntax_check: [/etc/profile]\nforbidden_paths: []\nmust_contain: [{path: /etc/passwd, pattern: root}]",
        }]),
    );
    let start = repo.commit("chore: plan");
    let (status, report) = audit(&repo, &start, &[]);
    assert_eq!(status, 1);
    let actual: Vec<Value> = items(&report).into_iter().map(|(_, _, a)| a).collect();
    assert_eq!(actual, vec![json!("outside the repository"); 3]);
}

#[test]
fn record_writes_the_audit_on_the_step() {
    let (repo, start) = started();
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    let (status, report) = audit(&repo, &start, &["--record", "p.json"]);
    assert_eq!((status, &report["recorded"]), (1, &json!("p.json")));
    let p = repo.json("p.json");
    assert_eq!(p["steps"]["1"]["manifest_audit"], "fail");
    assert_eq!(p["steps"]["1"]["manifest_drift"], report["drift"]);
    assert_eq!(
        p["steps"]["1"]["status"], "pending",
        "the status is not the audit's"
    );
    done(&repo);
    let (status, _) = audit(&repo, &start, &["--record", "p.json"]);
    assert_eq!(status, 0);
    let p = repo.json("p.json");
    assert_eq!(p["steps"]["1"]["manifest_audit"], "pass");
    assert!(p["steps"]["1"].get("manifest_drift").is_none(), "{p}");
    assert_eq!(repo.run(&["progress", "validate", "p.json"]).status, 0);
    // A progress file without the step: cannot record (exit 2), nothing written.
    let empty = "expected_paths: []\nmin_file_count: 0\ncommit_message_pattern: \"\"\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: []";
    let two = |number| PlanStep {
        number,
        files: &[],
        subject: "x",
        manifest: empty,
    };
    repo.write("p2.md", &plan(&[two(1), two(2)]));
    let ran = repo.run(&[
        "audit", "step", "--plan", "p2.md", "--step", "2", "--record", "p.json",
    ]);
    assert_eq!(ran.status, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("error[AUDIT_RECORD_REFUSED]"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_sandbox_step_0_exiting_77_blocks_the_run() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("exit 77"));
    let start = repo.commit("chore: plan");
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    repo.run(&[
        "progress",
        "step",
        "0",
        "--status",
        "in_progress",
        "--file",
        "p.json",
    ]);
    // The Verify, run as the executor runs it.
    let verify = std::process::Command::new("bash")
        .args(["-c", "exit 77"])
        .status()
        .unwrap()
        .code()
        .unwrap()
        .to_string();
    let ran = repo.run(&[
        "audit",
        "step",
        "--plan",
        "plan.md",
        "--step",
        "0",
        "--since",
        &start,
        "--verify-exit",
        &verify,
        "--record",
        "p.json",
        "--json",
    ]);
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    let report = valid("audit-step", &ran.stdout);
    assert_eq!(
        (&report["status"], &report["drift"]),
        (&json!("blocked"), &json!([]))
    );
    let p = repo.json("p.json");
    assert_eq!(p["steps"]["0"]["status"], "blocked");
    assert_eq!(p["status"], "stopped");
    assert!(
        p["steps"]["0"]["error"]
            .as_str()
            .unwrap()
            .starts_with("sandbox-blocked"),
        "{p}"
    );
    let ran = repo.run(&[
        "audit",
        "step",
        "--plan",
        "plan.md",
        "--step",
        "0",
        "--verify-exit",
        "77",
    ]);
    assert!(ran.stdout.starts_with("Step 0: BLOCKED"), "{}", ran.stdout);
    // 77 from a step that is no sandbox pre-flight is an ordinary failure;
    // and a sandbox pre-flight that exits 0 is audited like any step.
    let ran = repo.run(&[
        "audit",
        "step",
        "--plan",
        "plan.md",
        "--step",
        "1",
        "--verify-exit",
        "77",
        "--json",
    ]);
    let report = valid("audit-step", &ran.stdout);
    assert_eq!(ran.status, 1);
    assert_eq!(items(&report), one("verify", "", json!(77)));
    let ran = repo.run(&[
        "audit",
        "step",
        "--plan",
        "plan.md",
        "--step",
        "0",
        "--verify-exit",
        "0",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}

#[test]
fn what_it_cannot_check_is_exit_2() {
    let (repo, _) = started();
    let cases: &[(&[&str], &str)] = &[
        (&["--step", "7"], "AUDIT_NO_SUCH_STEP"),
        (
            &["--step", "1", "--since", "no-such-rev"],
            "AUDIT_BAD_REVISION",
        ),
        (&["--step", "1", "--since=--output=x"], "AUDIT_BAD_REVISION"),
        (
            &["--step", "1", "--record", "missing.json"],
            "PROGRESS_NOT_FOUND",
        ),
    ];
    for (extra, code) in cases {
        let mut args = vec!["audit", "step", "--plan", "plan.md"];
        args.extend_from_slice(extra);
        let ran = repo.run(&args);
        assert_eq!(ran.status, 2, "{extra:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!("error[{code}]")),
            "{extra:?}: {}",
            ran.stderr
        );
        assert!(ran.stdout.is_empty());
    }
    let ran = repo.run(&["audit", "step", "--plan", "nope.md", "--step", "1"]);
    assert_eq!(ran.status, 2);
    assert!(
        ran.stderr.contains("error[PLAN_UNREADABLE]"),
        "{}",
        ran.stderr
    );
    // Outside any repository.
    let elsewhere = crate::common::Case::new(&[]);
    std::fs::copy(
        repo.path().join("plan.md"),
        elsewhere.path().join("plan.md"),
    )
    .unwrap();
    let ran = elsewhere.run_with(&["audit", "step", "--plan", "plan.md", "--step", "1"]);
    assert_eq!(ran.status, 2);
    assert!(
        ran.stderr.contains("error[AUDIT_NOT_A_REPOSITORY]"),
        "{}",
        ran.stderr
    );
    // A strict plan whose manifest is broken: the plan says why.
    repo.write(
        "broken.md",
        &std::fs::read_to_string(repo.path().join("plan.md"))
            .unwrap()
            .replace("min_file_count: 3", "min_file_count: three"),
    );
    let ran = repo.run(&["audit", "step", "--plan", "broken.md", "--step", "1"]);
    assert_eq!(ran.status, 2);
    assert!(
        ran.stderr.contains("error[AUDIT_NO_MANIFEST]"),
        "{}",
        ran.stderr
    );
}
