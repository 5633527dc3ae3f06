//! `orders …` on their own: the refusals of the seed's tool (an absolute
//! plan path, another plan's record), the states of unusual statuses, and
//! `clear` removing only what it writes.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use super::World;

#[test]
fn an_absolute_plan_path_is_refused() {
    let w = World::new();
    let abs = w.root.join(&w.plan).display().to_string();
    let ran = w.run_in(&w.root, &["orders", "next-wave", "--plan", &abs]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("error[ORDERS_PLAN_ABSOLUTE]"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_record_of_another_plan_or_version_is_exit_1() {
    let w = World::new();
    let ran = w.wave(&["orders", "record-merged", "--wave", "1"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(w.wave(&["orders", "next-wave"]).stdout, "2\n");
    // Another version of the plan.
    fs::write(
        w.root.join(&w.plan),
        super::example_plan() + "\n<!-- edited -->\n",
    )
    .unwrap();
    let ran = w.wave(&["orders", "next-wave"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("error[ORDERS_PLAN_CHANGED]"),
        "{}",
        ran.stderr
    );
    // Another plan sharing the slug's session directory.
    fs::create_dir_all(w.root.join("other")).unwrap();
    fs::write(w.root.join("other/split.md"), super::example_plan()).unwrap();
    let ran = w.run_in(
        &w.root,
        &["orders", "next-wave", "--plan", "other/split.md", "--json"],
    );
    assert_eq!(ran.status, 1);
    let reply = crate::common::assert_schema("orders-reply", &ran.stdout);
    assert_eq!(reply["problem"]["code"], "ORDERS_OTHER_PLAN");
}

#[test]
fn unknown_statuses_run_and_unreadable_files_ended_bad() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    fs::create_dir_all(w.progress_file(1).parent().unwrap()).unwrap();
    fs::write(w.progress_file(1), "{\"status\": \"thinking\"}").unwrap();
    fs::write(w.progress_file(2), "not json").unwrap();
    let (code, reply) = w.wave_json("orders-reply", &["orders", "status", "--wave", "1"]);
    assert_eq!(code, 0);
    let s = &reply["status"]["sessions"];
    assert_eq!(
        (&s[0]["status"], &s[0]["state"]),
        (&"thinking".into(), &"running".into())
    );
    assert_eq!(
        (&s[1]["status"], &s[1]["state"]),
        (&"unreadable".into(), &"ended-bad".into())
    );
    assert_eq!(reply["status"]["ended_bad"], serde_json::json!([2]));
    assert_eq!(reply["status"]["all_completed"], false);
}

#[test]
fn clear_removes_only_what_the_orders_write() {
    let w = World::new();
    assert_eq!(w.wave(&["orders", "write", "--wave", "1"]).status, 0);
    fs::write(w.orders().join("notes.md"), "mine").unwrap();
    let ran = w.wave(&["orders", "clear"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(w.orders().join("notes.md").is_file());
    assert!(!w.orders().join("wave.json").exists());
    assert!(!w.orders().join("wave-1-session-1.md").exists());
}
