//! Calls that run as printed (issue 40): a multi-session plan driven in a
//! repository whose path holds a space and a quote, its plan's path a
//! space, where every call a reply prints is run exactly as printed
//! through `sh -c`: the `NEXT:` lines (the agent's `trek …` calls, with the
//! test's helper standing for the launcher the command names; the
//! operator's calls whole), and the starter lines (`/trekexecute` standing
//! for `trek start`, in the directory the order names). The dry-run and
//! `wave prepare` print one starter per session; a `--session N` run
//! started anywhere else is refused before anything is written. The same
//! run, with a bare `origin`, is the whole user path of the issue: the run
//! branch, the pushes said before and when made, the gate's confirm as the
//! merge into the starting branch, and the whole plan's report.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::World;
use super::pushes::{remote_branches, with_origin};
use super::user_path::good;
use crate::common::printed::{self, gate_calls, next_of, word};

const PLAN: &str = "plans/ship plan.md";

fn world() -> World {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/waves/plan.md"))
            .unwrap();
    World::of_plan("my repo's \"dir\" $x", PLAN, &text, true)
}

fn sh(w: &World, dir: &Path, script: &str) -> (i32, String) {
    printed::sh(dir, w.case.path(), script)
}

fn agent(w: &World, dir: &Path, call: &str) -> (i32, String) {
    printed::agent(dir, w.case.path(), call)
}

/// The starter lines a reply prints, by session.
fn starters(text: &str) -> BTreeMap<u32, String> {
    text.match_indices("/trekexecute --session ")
        .map(|(at, _)| {
            let rest = &text[at..];
            let line = rest
                .split(['\n', '`'])
                .next()
                .unwrap()
                .trim_end()
                .to_owned();
            let n = line.split(' ').nth(2).unwrap().parse().unwrap();
            (n, line)
        })
        .collect()
}

/// A starter line run as the session would: `/trekexecute` is `trek
/// start`, the rest of the line as printed, in `dir`.
fn run_starter(w: &World, dir: &Path, starter: &str) -> (i32, String) {
    let rest = starter.strip_prefix("/trekexecute ").unwrap();
    agent(w, dir, &format!("trek start {rest}"))
}

/// Follows a session's NEXT lines to its end.
fn drive(w: &World, dir: &Path, text: String) -> String {
    printed::drive(dir, w.case.path(), text, &good)
}

/// Every file below `dir` (the `.git` directory aside: git's own reads
/// refresh its index) with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else {
                all.insert(path.clone(), fs::read(&path).unwrap_or_default());
            }
        }
    }
    all
}

#[test]
fn every_printed_call_of_a_multi_session_run_runs_as_printed() {
    let w = world();
    let remote = with_origin(&w);
    let quoted_plan = word(PLAN);
    let main_before = w.git(&["rev-parse", "main"]);
    let run_branch = w.branch(1).replace("session-1", "run");

    // The dry-run's starter lines are the ones the wave's orders print.
    let (code, dry) = agent(&w, &w.root, &format!("trek start --dry-run {quoted_plan}"));
    assert_eq!(code, 0, "{dry}");
    let planned = starters(&dry);
    assert_eq!(planned.len(), 3, "{dry}");
    assert_eq!(planned[&1], "/trekexecute --session 1 'plans/ship plan.md'");
    // What the run will do, said before: the run branch and the pushes.
    assert!(
        dry.contains(&format!("- run branch: {run_branch}, created from main")),
        "{dry}"
    );
    assert!(
        dry.contains(&w.branch(1)) && dry.contains("origin"),
        "{dry}"
    );

    let (code, first) = agent(&w, &w.root, &format!("trek start {quoted_plan}"));
    assert_eq!(code, 0, "{first}");
    assert!(
        first.contains(&format!("Run branch: {run_branch} from main")),
        "{first}"
    );
    let handed = starters(&first);
    assert_eq!(handed[&1], planned[&1], "{first}");
    assert_eq!(handed[&2], planned[&2], "{first}");

    // Collecting with a session not started: exit 1, and the reply names
    // where and how to run it.
    let (code, early) = agent(&w, &w.root, &format!("trek start {quoted_plan}"));
    assert_eq!(code, 1, "{early}");
    assert!(early.contains("WAVE_RUNNING"), "{early}");
    assert!(early.contains(&planned[&1]), "{early}");
    assert!(
        early.contains(&w.worktree(1).display().to_string()),
        "{early}"
    );

    // Session 1 started in the wrong places: refused, nothing written.
    let before = tree(&w.root);
    for (dir, plan) in [
        (w.root.clone(), quoted_plan.clone()),
        (w.worktree(2), quoted_plan.clone()),
        (
            w.worktree(1),
            word(&w.root.join(PLAN).display().to_string()),
        ),
    ] {
        let (code, refused) = agent(&w, &dir, &format!("trek start --session 1 {plan}"));
        assert_eq!(code, 1, "{refused}");
        assert!(refused.contains("TREK_SESSION_PLACE"), "{refused}");
        assert!(refused.contains(&planned[&1]), "{refused}");
        assert!(
            refused.contains(&w.worktree(1).display().to_string()),
            "{refused}"
        );
        assert!(refused.contains("nothing was written"), "{refused}");
        assert_eq!(tree(&w.root), before, "a refused start wrote nothing");
    }

    // Each session started with its starter line where its order says.
    for n in [1, 2] {
        let (code, started) = run_starter(&w, &w.worktree(n), &handed[&n]);
        assert_eq!(code, 0, "{started}");
        assert!(
            started.contains(&format!("Strategy: session {n} of a 3-session plan")),
            "{started}"
        );
        let done = drive(&w, &w.worktree(n), started);
        assert!(done.contains("completed"), "{done}");
    }
    let (code, second) = agent(&w, &w.root, &format!("trek start {quoted_plan}"));
    assert_eq!(code, 0, "{second}");
    // Each push named when made, and the remote holds the branches.
    for n in [1, 2] {
        assert!(
            second.contains(&format!("pushed {} to origin", w.branch(n))),
            "{second}"
        );
        assert!(remote_branches(&remote).contains(&w.branch(n)));
    }
    let handed = starters(&second);
    assert_eq!(handed[&3], planned[&3], "{second}");
    let (code, started) = run_starter(&w, &w.worktree(3), &handed[&3]);
    assert_eq!(code, 0, "{started}");
    drive(&w, &w.worktree(3), started);

    // The gate: the NEXT line's Confirm call, run as printed.
    let (code, gate) = agent(&w, &w.root, &format!("trek start {quoted_plan}"));
    assert_eq!(code, 0, "{gate}");
    let (confirm, decline) = gate_calls(next_of(&gate));
    assert!(decline.starts_with("trek finish --gate decline"), "{gate}");
    // Until the confirm, main has not moved: the waves are on the run
    // branch.
    assert_eq!(w.git(&["rev-parse", "main"]), main_before);
    let run_tip = w.git(&["rev-parse", &run_branch]);
    let (code, done) = agent(&w, &w.root, confirm);
    assert_eq!(code, 0, "{done}");
    // The confirm is the merge: main holds the run, and is checked out.
    assert_eq!(w.git(&["rev-parse", "main"]), run_tip);
    assert_eq!(w.git(&["branch", "--show-current"]).trim(), "main");
    assert_eq!(
        w.git(&["log", "--merges", "--format=%s"]).lines().count(),
        3
    );
    // The whole plan's report ends the answer: every session's steps.
    for needle in ["Master Verification", "multi-session", "Session"] {
        assert!(done.contains(needle), "no {needle:?} in:\n{done}");
    }
}

/// Where nobody can be asked, the operator's calls are whole: into the
/// repository, then the helper by its full path. The parent runs through
/// the plugin's launcher (`plugin/bin/voyage-helper`) after a plugin-only
/// install: the helper in a `CLAUDE_PLUGIN_DATA`-like directory under the
/// launcher's versioned name, none on PATH. The printed call is run from
/// another directory in a plain shell, without the plugin's variables.
#[test]
fn the_operators_call_runs_in_a_plain_terminal_after_a_plugin_install() {
    let w = world();
    let quoted_plan = word(PLAN);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let launcher = source.join("plugin/bin/voyage-helper");
    let version = fs::read_to_string(&launcher)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("version=").map(str::to_owned))
        .unwrap();
    let data = w.case.path().join("plugin data's dir");
    let installed = data.join(format!("helper/voyage-helper-{version}"));
    fs::create_dir_all(installed.parent().unwrap()).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_voyage-helper"), &installed).unwrap();
    let parent = || {
        sh(
            &w,
            &w.root,
            &format!(
                "CLAUDE_PLUGIN_DATA={} CLAUDE_CODE_ENTRYPOINT=sdk-cli {} trek start {quoted_plan}",
                word(&data.display().to_string()),
                word(&launcher.display().to_string())
            ),
        )
    };
    let mut reply = parent().1;
    for wave in [vec![1, 2], vec![3]] {
        let handed = starters(&reply);
        for n in wave {
            let (code, started) = run_starter(&w, &w.worktree(n), &handed[&n]);
            assert_eq!(code, 0, "{started}");
            drive(&w, &w.worktree(n), started);
        }
        reply = parent().1;
    }
    let next = next_of(&reply);
    assert!(
        next.starts_with("stop — do not answer the main-merge gate"),
        "{reply}"
    );
    let (confirm, _) = gate_calls(next);
    assert!(
        confirm.contains(&word(&installed.display().to_string())),
        "the installed helper by its full path: {confirm}"
    );
    let (code, done) = sh(&w, w.case.path(), confirm);
    assert_eq!(code, 0, "{done}");
    assert!(done.contains("orders directory is cleared"), "{done}");
}
