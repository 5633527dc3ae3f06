//! The kernel fence through the real CLI: during a step the plugin's
//! PreToolUse hook rewrites each Bash call into `voyage-helper scope exec`
//! (its `updatedInput`), and Claude Code runs what the hook wrote. Shown
//! here as a user would see it: a write to the step's file succeeds, a
//! write outside it that the text of the command does not reveal fails in
//! the kernel, a `cd` carries to the next call, the helper's own `trek`
//! call runs only on its own, and in the default permission mode a call
//! that needed approval still needs it.
//!
//! Skipped (`SKIPPED:`) without `claude`, as every test of this file, and
//! on a kernel without Landlock ABI 3, where the text judge works alone.

use std::fs;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::mock_api::{MockApi, Turn};
use super::{COMMAND, Claude, Session};
use voyage_tests::repo::{commit_all, git};
use voyage_tests::{helper_binary, launcher, skip};

/// One step whose only file is `src/a.sh`; README.md is outside it.
const PLAN: &str = r#"---
plan_version: 1.7
profile: economy
---
# Plan: a fenced step

## Context

Writes held by the kernel.

## Implementation Plan

### Step 1: Change the script
- **Files:** `src/a.sh`
- **Changes:** Add a comment to the script.
- **Verify:** `bash -n src/a.sh`
- **On failure:** retry — fix it
- **Checkpoint:** `git commit -m "feat: change the script"`
- **Manifest:**
  ```yaml
  expected_paths: [src/a.sh]
  min_file_count: 1
  commit_message_pattern: "^feat: change the script$"
  bash_syntax_check: [src/a.sh]
  forbidden_paths: []
  must_contain: []
  ```

## Verification

- `bash -n src/a.sh` — the script parses
"#;

const README: &str = "# demo\n";

/// The line `scope exec` adds to a failed call.
const HELD: &str = "voyage: step 1's scope was held by the kernel (Landlock)";

/// A session with `src/a.sh` committed, where the kernel can fence;
/// `None` after saying why not.
fn fenced_session() -> Option<Session> {
    let s = Session::new(PLAN)?;
    let status = voyage_tests::run(
        {
            let mut cmd = std::process::Command::new(helper_binary().unwrap());
            cmd.args(["scope", "status", "--json"]).current_dir(s.dir());
            cmd
        },
        "",
    );
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    if status["held"] != true {
        skip::skip(&format!(
            "the kernel cannot fence here: {}",
            status["why_not"]
        ));
        return None;
    }
    voyage_tests::repo::write(s.dir(), &[("src/a.sh", "echo a\n")]);
    commit_all(s.dir(), "script");
    Some(s)
}

#[test]
fn bash_calls_of_a_step_run_inside_the_kernel_fence() {
    let Some(s) = fenced_session() else {
        return;
    };
    let mock = MockApi::start(vec![
        s.call("start plans/plan.md"),
        s.call("step-begin 1"),
        // In the step's Files: written.
        s.bash("echo '# fenced' >> src/a.sh"),
        // Outside them, by names the text cannot know before the command
        // runs: the text judge lets them through, the kernel does not.
        s.bash("echo x > \"$(ls | grep -i readme)\""),
        s.bash("cp src/a.sh \"$(git ls-files | grep -v /)\""),
        // A `cd` in one call is where the next starts.
        s.bash("cd src"),
        s.bash("pwd -P; echo \"shell: $0\"; tr '\\0' ' ' < /proc/$PPID/cmdline"),
        s.bash("cd .."),
        // The helper's own call in a pipe would run fenced and fail half
        // way: refused before it runs, and the plain call goes through.
        s.bash(&format!(
            "\"{}\" trek step-done 1 2>&1 | tail -n 20",
            launcher().display()
        )),
        s.call("step-done 1"),
        s.call("finish"),
        Turn::text("The run waits at the main-merge gate."),
    ]);
    let out = s.run(&mock, COMMAND);
    assert!(out.status.success(), "{}", mock.summary());
    let results = mock.tool_result_texts();
    assert_eq!(results.len(), 11, "{results:#?}");

    for held in &results[3..5] {
        assert!(
            held.contains("Permission denied") && held.contains(HELD),
            "an out-of-scope write fails in the kernel: {held}"
        );
        assert!(
            !held.contains("voyage: blocked"),
            "the write reached the kernel, not a refusal of its text: {held}"
        );
    }
    assert_eq!(
        fs::read_to_string(s.dir().join("README.md")).unwrap(),
        README
    );

    // The call reached the shell rewritten: the fenced shell names itself,
    // and the shell Claude Code started ran `scope exec`.
    let here = &results[6];
    let mut lines = here.lines();
    let src = fs::canonicalize(s.dir().join("src")).unwrap();
    assert_eq!(lines.next().map(Path::new), Some(src.as_path()), "{here}");
    assert_eq!(lines.next(), Some("shell: voyage-fence"), "{here}");
    assert!(here.contains(" scope exec --marker "), "{here}");

    assert!(
        results[8].contains("voyage: blocked run-trek-alone"),
        "{}",
        results[8]
    );
    // The in-scope write passed the step's checks and was committed.
    assert!(
        results[9].contains("NEXT: trek finish"),
        "step 1 done: {}",
        results[9]
    );
    assert_eq!(
        git(s.dir(), &["show", "HEAD:src/a.sh"]),
        "echo a\n# fenced\n"
    );
    assert_eq!(s.progress()["steps"]["1"]["status"], "completed");
}

/// The commands Claude Code refused for want of approval, by tool call.
fn denials(out: &Output) -> Vec<(String, String)> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| panic!("no result line: {stdout}"));
    result["permission_denials"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                d["tool_input"]["command"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

/// The default permission mode, no allowed tools: the rewritten call goes
/// through the user's permission flow, and a write Claude Code asks about
/// without the fence (`VOYAGE_FENCE=off`) is asked about with it; in `-p`
/// nobody answers, so it is refused both ways and nothing is written. The
/// refusal shows the command as it would have run: fenced.
#[test]
fn in_the_default_mode_a_call_that_needs_approval_still_needs_it() {
    let Some(s) = fenced_session() else {
        return;
    };
    // The run as `/trekexecute` leaves it during step 1, made from a shell.
    for args in [
        &["trek", "start", "plans/plan.md"][..],
        &["trek", "step-begin", "1"],
    ] {
        let out = s.operator(args);
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let writes = ["echo x >> src/a.sh", "touch src/a.sh"];
    let run = |env: Vec<(&'static str, &'static str)>| {
        let mut turns: Vec<Turn> = writes.iter().map(|w| s.bash(w)).collect();
        turns.push(Turn::text("Not allowed."));
        let mock = MockApi::start(turns);
        let how = Claude {
            permission_mode: None,
            env,
        };
        let out = s.claude_run(s.dir(), &mock, "Change the script.", &how);
        assert!(out.status.success(), "{}", mock.summary());
        let results = mock.tool_result_texts();
        assert_eq!(results.len(), writes.len(), "{results:#?}");
        assert!(
            results.iter().all(|r| !r.contains("voyage: blocked")),
            "the hook let the step's writes through: {results:#?}"
        );
        denials(&out)
    };
    let unfenced = run(vec![("VOYAGE_FENCE", "off")]);
    let fenced = run(Vec::new());

    let ids = |d: &[(String, String)]| d.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&unfenced).len(), writes.len(), "{unfenced:#?}");
    assert_eq!(ids(&fenced), ids(&unfenced), "{fenced:#?}\n{unfenced:#?}");
    for ((_, off), ((_, on), write)) in unfenced.iter().zip(fenced.iter().zip(writes)) {
        assert_eq!(off, write);
        let helper = helper_binary().unwrap();
        assert!(
            on.starts_with(&format!("'{}' scope exec ", helper.display()))
                && on.ends_with(&format!(" -- '{write}'")),
            "the prompt shows the fenced call: {on}"
        );
    }
    assert_eq!(
        fs::read_to_string(s.dir().join("src/a.sh")).unwrap(),
        "echo a\n"
    );
}
