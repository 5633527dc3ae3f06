//! The whole cycle of the example plan: preflight, wave 1 prepared (two
//! worktrees, orders, starters), its sessions, collect, wave 2, collect,
//! `next-wave` saying none, the master verification, `orders clear`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use super::World;

#[test]
fn the_example_plan_runs_from_preflight_to_clear() {
    let w = World::new();
    let (code, pre) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 0, "{pre}");
    assert_eq!(pre["plan_tracking"], "tracked");

    // Wave 1: two worktrees, two orders, two starters.
    let (code, prep) = w.wave_json("wave-prepare", &["wave", "prepare", "--wave", "1"]);
    assert_eq!(code, 0, "{prep}");
    let orders = prep["orders"].as_array().unwrap();
    assert_eq!(orders.len(), 2);
    assert_eq!(
        orders[0]["starter"],
        "/trekexecute --session 1 .claude/plans/split.md"
    );
    // Session 2 opens in `web` (its cwd:), so its starter climbs back out.
    assert_eq!(
        orders[1]["starter"],
        "/trekexecute --session 2 ../.claude/plans/split.md"
    );
    let root = w.root.canonicalize().unwrap();
    let wt2 = root.join(".claude/trekplan-sessions/split/worktrees/session-2");
    assert_eq!(
        orders[1]["directory"],
        wt2.join("web").display().to_string()
    );
    assert!(w.worktree(1).join(".claude/plans/split.md").is_file());
    assert!(w.has_branch(1) && w.has_branch(2));
    let order = fs::read_to_string(w.orders().join("wave-1-session-2.md")).unwrap();
    assert!(order.contains("- steps: 3\n"), "{order}");
    assert!(order.contains("- touch: `web/src/health.rs`\n"), "{order}");
    assert!(
        order.contains(&format!(
            "- progress file: {}\n",
            wt2.join(".claude/plans/.trekexecute-progress-split-session-2.json")
                .display()
        )),
        "{order}"
    );
    let wave: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(w.orders().join("wave.json")).unwrap()).unwrap();
    assert_eq!(wave["status"], "awaiting-sessions");
    assert_eq!(wave["plan"], ".claude/plans/split.md");
    assert_eq!(wave["branch"], "main");
    assert_eq!(wave["plan_sha256"].as_str().unwrap().len(), 64);

    // The text hand-over names each directory and starter.
    let (code, status) = w.wave_json("orders-reply", &["orders", "status", "--wave", "1"]);
    assert_eq!(code, 0);
    assert_eq!(status["status"]["running"], serde_json::json!([1, 2]));

    w.wave_one_done();
    let (code, collected) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{collected}");
    assert_eq!(collected["outcome"], "merged");
    assert_eq!(collected["next_wave"], 2);
    assert_eq!(collected["kept"], serde_json::json!([]));
    assert!(!w.worktree(1).exists() && !w.worktree(2).exists());
    assert!(!w.has_branch(1) && !w.has_branch(2));
    assert!(!w.orders().join("wave.json").exists());
    assert!(w.orders().join("wave-1-session-1.progress.json").is_file());
    let log = w.git(&["log", "--format=%s", "-3"]);
    assert!(
        log.starts_with("merge: trekplan session 2 — HTTP\n"),
        "{log}"
    );
    assert!(w.root.join("src/store/memory.rs").is_file());

    // Wave 2.
    let ran = w.wave(&["wave", "prepare"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("/trekexecute --session 3 .claude/plans/split.md"),
        "{}",
        ran.stdout
    );
    w.session_commits(
        3,
        &[("web/src/app.rs", "fn app() {}\n")],
        "feat(http): wire store",
    );
    w.session_ends(3, "completed");
    let ran = w.wave(&["wave", "collect"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("Wave 2: 1 sessions merged.\n"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.ends_with("next wave: none\n"), "{}", ran.stdout);
    let ran = w.wave(&["orders", "next-wave"]);
    assert_eq!((ran.status, ran.stdout.as_str()), (0, "none\n"));

    // The report reads the archived copies.
    let (code, report) = w.wave_json("wave-report", &["wave", "report"]);
    assert_eq!(code, 0);
    assert_eq!(report["sessions"].as_array().unwrap().len(), 3);
    assert_eq!(report["all_completed"], true);

    // Master verification: the criteria runner on the integrated result.
    let verify = w.case.path().join("verify.md");
    fs::write(
        &verify,
        "# Plan\n\n## Implementation Plan\n\n### Step 1: x\n- **Files:** `a`\n- **Changes:** x\n- **Verify:** `true`\n\n## Verification\n\n- `test -f web/src/app.rs` — the integration landed\n- `test -f src/store/memory.rs` — the store landed\n",
    )
    .unwrap();
    let verify = verify.display().to_string();
    let root_arg = w.root.display().to_string();
    let ran = w.run_in(
        &w.root,
        &["criteria", "run", "--plan", &verify, "--cwd", &root_arg],
    );
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);

    // The gate's confirm clears the orders directory.
    let (code, cleared) = w.wave_json("orders-reply", &["orders", "clear"]);
    assert_eq!(code, 0);
    assert_eq!(cleared["removed"].as_array().unwrap().len(), 7);
    assert!(!w.orders().exists());
    let ran = w.wave(&["orders", "next-wave"]);
    assert_eq!((ran.status, ran.stdout.as_str()), (0, "1\n"));
}
