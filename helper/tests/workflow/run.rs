//! `workflow run`: running steps, spec §1.5–§3 of
//! `docs/maintainer/executant.md` for steps without an agent, through the real
//! binary and the real `sh` on files in temp dirs.
//!
//! Event streams are compared whole and in order (see
//! `crate::common::brief` for the short form); every `--ci` line is
//! validated against `schemas/event.schema.json` on the way. Nothing here
//! asserts that something is fast: overlap and ordering are proved by the
//! steps' own output (barrier files, timestamps), and the only time bounds
//! are generous "did not hang" limits.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Dir, collect, copy_examples, ended, skip, wait_until};
use serde_json::Value;

/// Writes `yaml` as `wf.yaml` in a fresh dir and runs it with `--ci`.
fn run(yaml: &str, args: &[&str]) -> (Dir, crate::common::Run) {
    let dir = Dir::new();
    dir.write("wf.yaml", yaml);
    let ran = dir.ci("wf.yaml", args);
    (dir, ran)
}

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| (*i).to_owned()).collect()
}

// ------------------------------------------------------ command, log (§2.2)

#[test]
fn a_command_step_and_a_log_step_in_order() {
    let (_dir, ran) = run(
        r#"goal: order
steps:
  - name: note
    message: "a log line"
  - name: cmd
    command: printf 'one\n\ntwo\n'; echo err >&2; printf 'tail'
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 note",
            "text 0 a log line",
            "complete 0 note",
            "start 1 cmd",
            "info $ printf 'one\\n\\ntwo\\n'; echo err >&2; printf 'tail'",
            "text 1 one",
            // Empty lines are kept, stderr is merged in order, and a last
            // line without a newline still arrives.
            "text 1 ",
            "text 1 two",
            "text 1 err",
            "text 1 tail",
            "complete 1 cmd",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(ran.last()["lastOutput"], "one\n\ntwo\nerr\ntail");
    assert_eq!(ran.stderr, "");
    let report = &ran.of("workflow:report")[0]["report"];
    assert_eq!(report["totalCostUsd"], 0.0);
    let names: Vec<&str> = report["stepNarrative"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["note", "cmd"]);
    // The whole parsed workflow rides on workflow:start and complete.
    let start = &ran.events[0]["workflow"];
    assert_eq!(start["goal"], "order");
    assert_eq!(start["sourcePath"], "wf.yaml");
    assert!(start["source"].as_str().unwrap().contains("a log line"));
}

#[test]
fn a_failing_step_ends_the_run_with_exit_1() {
    let (dir, ran) = run(
        r#"goal: fail
steps:
  - name: fine
    command: echo fine
  - name: boom
    command: echo partial; echo "why" >&2; exit 7
  - name: never
    command: touch never-ran
"#,
        &[],
    );
    ran.status_is(1);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 fine",
            "info $ echo fine",
            "text 0 fine",
            "complete 0 fine",
            "start 1 boom",
            "info $ echo partial; echo \"why\" >&2; exit 7",
            "text 1 partial",
            "text 1 why",
            "error 1 boom: Command \"boom\" exited with code 7",
        ])
    );
    let error = ran.last();
    assert_eq!(error["error"]["name"], "Error");
    assert_eq!(error["error"]["code"], "WORKFLOW_COMMAND_FAILED");
    assert_eq!(error["lastOutput"], "partial\nwhy");
    assert!(!dir.path().join("never-ran").exists());
    assert_eq!(
        ran.stderr,
        "error[WORKFLOW_COMMAND_FAILED]: Command \"boom\" exited with code 7\n"
    );
}

#[test]
fn continue_on_error_at_the_top_level_keeps_the_run_going() {
    let (_dir, ran) = run(
        r#"goal: tolerant
steps:
  - name: flaky
    command: echo trying; exit 3
    continue_on_error: true
  - name: after
    message: still here
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 flaky",
            "info $ echo trying; exit 3",
            "text 0 trying",
            "error 0 flaky: Command \"flaky\" exited with code 3",
            "start 1 after",
            "text 1 still here",
            "complete 1 after",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(ran.of("step:error")[0]["lastOutput"], "trying");
    let narrative = &ran.of("workflow:report")[0]["report"]["stepNarrative"];
    assert_eq!(narrative[0]["failed"], true);
    assert_eq!(
        narrative[0]["qualityEvents"][0],
        "step failed: Command \"flaky\" exited with code 3"
    );
    assert!(narrative[1].get("failed").is_none());
    assert_eq!(ran.last()["lastOutput"], "still here");
}

/// A provider this build cannot run (the loader accepts only claude and
/// opencode in a file, so it comes from the environment) fails the step
/// with `WORKFLOW_NO_PROVIDER` before anything starts.
#[test]
fn a_prompt_step_fails_for_want_of_a_provider() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: agent\nsteps:\n  - name: think\n    prompt: Summarise the repo\n  - name: after\n    message: not reached\n",
    );
    let ran = dir.ci_env("wf.yaml", &[], &[("VOYAGE_PROVIDER", "gemini")]);
    ran.status_is(1);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 think",
            "error 0 think: Step \"think\" asks for the agent provider gemini, which this version of voyage-helper cannot run (it runs: claude, opencode); run it with Executant, or use another provider",
        ])
    );
    assert_eq!(ran.last()["error"]["code"], "WORKFLOW_NO_PROVIDER");
    assert!(ran.last().get("lastOutput").is_none(), "it printed nothing");
    assert!(
        ran.stderr.starts_with("error[WORKFLOW_NO_PROVIDER]: "),
        "{}",
        ran.stderr
    );
}

/// The CLI's refusal of bypassPermissions to root comes with a hint on how
/// to allow it (a stand-in `claude` says what the real one says).
#[test]
fn a_refusal_to_run_as_root_comes_with_a_hint() {
    let dir = Dir::new();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("claude");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.write(
        "wf.yaml",
        "goal: root\nsteps:\n  - name: ask\n    prompt: hi\n",
    );
    let path = format!("{}:{}", bin.display(), dir.path_without_agents());
    let ran = dir.ci_env("wf.yaml", &[], &[("PATH", &path)]);
    ran.status_is(1);
    let error = &ran.last()["error"];
    assert_eq!(error["code"], "WORKFLOW_AGENT_FAILED");
    assert_eq!(
        error["message"],
        "Step \"ask\": claude exited with code 1\n\
         --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n\
         hint: as root, the Claude Code CLI refuses bypassPermissions unless IS_SANDBOX=1 is set; \
         set it where the run is sandboxed (a container, a VM)"
    );
}

/// The provider a prompt step asks for: its `provider:`, else
/// VOYAGE_PROVIDER, else EXECUTANT_PROVIDER, else claude. Runs without
/// `claude` or `opencode` on PATH, so each case fails for want of the CLI
/// it picked, and says which.
#[test]
fn the_missing_provider_is_the_one_the_step_asks_for() {
    let dir = Dir::new();
    let path = dir.path_without_agents();
    dir.write(
        "wf.yaml",
        "goal: agent\nsteps:\n  - name: think\n    prompt: Summarise\n",
    );
    dir.write(
        "pinned.yaml",
        "goal: agent\nsteps:\n  - name: think\n    prompt: Summarise\n    provider: claude\n",
    );
    type Env<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&str, Env, &str); 4] = [
        (
            "wf.yaml",
            &[("VOYAGE_PROVIDER", ""), ("EXECUTANT_PROVIDER", "")],
            "claude",
        ),
        (
            "wf.yaml",
            &[("EXECUTANT_PROVIDER", "opencode"), ("VOYAGE_PROVIDER", "")],
            "opencode",
        ),
        (
            "wf.yaml",
            &[
                ("VOYAGE_PROVIDER", "opencode"),
                ("EXECUTANT_PROVIDER", "claude"),
            ],
            "opencode",
        ),
        ("pinned.yaml", &[("VOYAGE_PROVIDER", "opencode")], "claude"),
    ];
    for (file, env, wanted) in cases {
        let mut env = env.to_vec();
        env.push(("PATH", &path));
        let ran = dir.ci_env(file, &[], &env);
        ran.status_is(1);
        let error = &ran.last()["error"];
        let message = error["message"].as_str().unwrap().to_owned();
        assert_eq!(error["code"], "WORKFLOW_AGENT_NOT_FOUND", "{env:?}");
        assert!(
            message.contains(&format!("needs the {wanted} CLI, which is not on PATH")),
            "{env:?}: {message}"
        );
    }
}

#[test]
fn commands_run_in_the_current_directory_with_the_workflow_dir_and_traceparent() {
    let dir = Dir::new();
    dir.write(
        "flows/wf.yaml",
        "goal: env\nsteps:\n  - name: env\n    command: echo \"$VOYAGE_WORKFLOW_DIR\"; pwd; echo \"tp=$TRACEPARENT\"\n",
    );
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let ran = dir.ci_env("flows/wf.yaml", &[], &[("TRACEPARENT", traceparent)]);
    ran.status_is(0);
    let texts = ran.texts();
    let canonical = |p: &str| std::fs::canonicalize(p).unwrap();
    assert_eq!(
        canonical(&texts[0]),
        canonical(dir.path().join("flows").to_str().unwrap())
    );
    assert_eq!(
        canonical(&texts[1]),
        canonical(dir.path().to_str().unwrap())
    );
    assert_eq!(texts[2], format!("tp={traceparent}"));
}

#[test]
fn last_output_keeps_the_last_100_lines_of_the_last_executed_step() {
    let (_dir, ran) = run(
        "goal: long\nsteps:\n  - name: first\n    message: short\n  - name: many\n    command: seq 1 150\n",
        &[],
    );
    ran.status_is(0);
    let expected: Vec<String> = (51..=150).map(|n| n.to_string()).collect();
    let briefs = ran.briefs();
    assert_eq!(
        briefs[briefs.len() - 2..],
        s(&["workflow:report", "workflow:complete"])
    );
    assert_eq!(ran.texts().len(), 151, "every line is an event");
    assert_eq!(ran.last()["lastOutput"], expected.join("\n"));

    // The same cap on a failing step's lastOutput.
    let (_dir, ran) = run(
        "goal: long\nsteps:\n  - name: many\n    command: seq 1 150; exit 2\n",
        &[],
    );
    ran.status_is(1);
    assert_eq!(ran.last()["type"], "step:error");
    assert_eq!(ran.last()["lastOutput"], expected.join("\n"));

    // A last step without output leaves no lastOutput.
    let (_dir, ran) = run(
        "goal: quiet\nsteps:\n  - name: loud\n    command: echo hi\n  - name: quiet\n    command: \"true\"\n",
        &[],
    );
    ran.status_is(0);
    assert!(ran.last().get("lastOutput").is_none(), "{}", ran.last());
}

/// A step's background processes with their output redirected keep running
/// for later steps, as in Executant; once they end they are reaped, so a
/// long run does not pile up zombies. (Linux: the count reads /proc.)
#[test]
fn background_processes_outlive_their_step_and_are_reaped_when_they_end() {
    if !cfg!(target_os = "linux") {
        skip("counts zombies in /proc, which only Linux has");
        return;
    }
    // A zombie's stat reads `pid (comm) Z ppid …`; the step's sh has the
    // helper as its parent ($PPID).
    let count = r#"n=0; for f in /proc/[0-9]*/stat; do set -- $(sed 's/.*) //' "$f" 2>/dev/null); [ "$1" = Z ] && [ "$2" = "$PPID" ] && n=$((n + 1)); done; echo "zombies=$n""#;
    // `settle` waits (at most 20 s) until the five short sleeps have ended:
    // zombies, or gone.
    let settle = r#"for p in $(cat sleepers); do i=0; while [ $i -lt 400 ]; do set -- $(sed 's/.*) //' /proc/$p/stat 2>/dev/null); [ "${1:-Z}" = Z ] && break; i=$((i + 1)); sleep 0.05; done; done"#;
    let yaml = format!(
        "goal: servers\nsteps:\n  - name: start\n    repeat: 5\n    command: sleep 0.3 >/dev/null 2>&1 & echo $! >> sleepers\n  - name: server\n    command: sleep 30 >/dev/null 2>&1 & echo $! > server.pid\n  - name: alive\n    command: kill -0 $(cat server.pid) && echo server-up\n  - name: settle\n    command: '{}'\n  - name: count\n    command: '{}'\n",
        settle.replace('\'', "''"),
        count.replace('\'', "''")
    );
    let (dir, ran) = run(&yaml, &[]);
    ran.status_is(0);
    let texts = ran.texts();
    assert!(texts.contains(&"server-up".to_owned()), "{texts:?}");
    assert_eq!(
        texts.last().map(String::as_str),
        Some("zombies=0"),
        "{texts:?}"
    );
    let pid = std::fs::read_to_string(dir.path().join("server.pid")).unwrap();
    let _ = std::process::Command::new("kill").arg(pid.trim()).status();
}

// --------------------------------------------------------------- loops §1.5

#[test]
fn loop_events_with_one_child_and_with_several() {
    let (_dir, ran) = run(
        r#"goal: loops
steps:
  - name: each
    forEach: [a, b]
    command: echo "item {{item}}"
  - name: pairs
    repeat: 2
    steps:
      - name: "first {{item}}"
        message: "first {{item}}"
      - name: "second {{item}}"
        command: echo "second {{item}}"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 each",
            "iteration 0 1/2 a",
            "info $ echo \"item a\"",
            "text 0 item a",
            "iteration-complete 0 1 complete",
            "iteration 0 2/2 b",
            "info $ echo \"item b\"",
            "text 0 item b",
            "iteration-complete 0 2 complete",
            "complete 0 each",
            "start 1 pairs",
            "iteration 1 1/2 1",
            "inner 1 it1 0/2 first 1",
            "text 1 first 1",
            "inner 1 it1 1/2 second 1",
            "info $ echo \"second 1\"",
            "text 1 second 1",
            "iteration-complete 1 1 complete",
            "iteration 1 2/2 2",
            "inner 1 it2 0/2 first 2",
            "text 1 first 2",
            "inner 1 it2 1/2 second 2",
            "info $ echo \"second 2\"",
            "text 1 second 2",
            "iteration-complete 1 2 complete",
            "complete 1 pairs",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(
        ran.last()["lastOutput"],
        "first 1\nsecond 1\nfirst 2\nsecond 2"
    );
}

#[test]
fn shell_item_sources_empty_loops_and_a_failing_source() {
    let (_dir, ran) = run(
        r#"goal: sources
steps:
  - name: shell
    forEach: "printf 'a\n\n  \n b \n'"
    message: "[{{item}}]"
  - name: none
    forEach: "true"
    message: never
  - name: blanks
    forEach: ["", ""]
    message: never
"#,
        &[],
    );
    ran.status_is(0);
    // Blank lines dropped, items not trimmed.
    assert_eq!(ran.texts(), ["[a]", "[ b ]"]);
    let warnings: Vec<String> = ran
        .briefs()
        .into_iter()
        .filter(|b| b.starts_with("warn "))
        .collect();
    assert_eq!(
        warnings,
        [
            "warn forEach resolved to 0 items in \"none\" — this step will do nothing. Check the source command's own inputs.",
            "warn forEach resolved to 0 items in \"blanks\" — this step will do nothing. Check the source command's own inputs.",
        ]
    );
    assert_eq!(ran.of("step:complete").len(), 3);

    let (_dir, ran) = run(
        "goal: bad source\nsteps:\n  - name: list\n    forEach: \"echo x; exit 3\"\n    message: never\n",
        &[],
    );
    ran.status_is(1);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 list",
            "error 0 list: forEach shell command failed: exit code 3\nCommand: echo x; exit 3",
        ])
    );
}

/// A failing item source's stderr says why; it is quoted (its tail), and
/// never taken for items.
#[test]
fn a_failing_item_source_quotes_its_stderr() {
    let (_dir, ran) = run(
        "goal: bad source\nsteps:\n  - name: list\n    forEach: \"echo item; echo no such table >&2; exit 2\"\n    message: never\n",
        &[],
    );
    ran.status_is(1);
    assert_eq!(
        ran.last()["error"]["message"],
        "forEach shell command failed: exit code 2\nno such table\nCommand: echo item; echo no such table >&2; exit 2"
    );
    let (_dir, ran) = run(
        "goal: noisy source\nsteps:\n  - name: list\n    forEach: \"echo a; echo warning >&2; echo b\"\n    message: \"got {{item}}\"\n",
        &[],
    );
    ran.status_is(0);
    assert_eq!(ran.texts(), ["got a", "got b"]);
}

#[test]
fn a_failing_child_without_continue_on_error_aborts_the_loop() {
    let yaml = |loop_coe: bool| {
        format!(
            r#"goal: abort
steps:
  - name: check
    continue_on_error: {loop_coe}
    forEach: [good, bad, never]
    steps:
      - name: "test {{{{item}}}}"
        command: test {{{{item}}}} != bad
      - name: "after {{{{item}}}}"
        message: "after {{{{item}}}}"
  - name: next
    message: next step
"#
        )
    };
    let iterations = [
        "start 0 check",
        "iteration 0 1/3 good",
        "inner 0 it1 0/2 test good",
        "info $ test good != bad",
        "inner 0 it1 1/2 after good",
        "text 0 after good",
        "iteration-complete 0 1 complete",
        "iteration 0 2/3 bad",
        "inner 0 it2 0/2 test bad",
        "info $ test bad != bad",
        "warn [forEach] Step \"test bad\" failed — aborting remaining children and iterations",
        "iteration-complete 0 2 error: Command \"test bad\" exited with code 1",
        "error 0 check: Command \"test bad\" exited with code 1",
    ];
    let (_dir, ran) = run(&yaml(false), &[]);
    ran.status_is(1);
    let mut expected = s(&["workflow:start"]);
    expected.extend(s(&iterations));
    assert_eq!(ran.briefs(), expected);

    // The loop step's own continue_on_error decides whether the run goes on.
    let (_dir, ran) = run(&yaml(true), &[]);
    ran.status_is(0);
    expected.extend(s(&[
        "start 1 next",
        "text 1 next step",
        "complete 1 next",
        "workflow:report",
        "workflow:complete",
    ]));
    assert_eq!(ran.briefs(), expected);
}

#[test]
fn a_failing_child_with_continue_on_error_becomes_a_warning() {
    let (_dir, ran) = run(
        r#"goal: tolerant loop
steps:
  - name: check
    forEach: [bad, good]
    steps:
      - name: "test {{item}}"
        command: test {{item}} != bad
        continue_on_error: true
      - name: "after {{item}}"
        message: "after {{item}}"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 check",
            "iteration 0 1/2 bad",
            "inner 0 it1 0/2 test bad",
            "info $ test bad != bad",
            "warn [forEach] Step \"test bad\" failed (continuing): Command \"test bad\" exited with code 1",
            "inner 0 it1 1/2 after bad",
            "text 0 after bad",
            "iteration-complete 0 1 complete",
            "iteration 0 2/2 good",
            "inner 0 it2 0/2 test good",
            "info $ test good != bad",
            "inner 0 it2 1/2 after good",
            "text 0 after good",
            "iteration-complete 0 2 complete",
            "complete 0 check",
            "workflow:report",
            "workflow:complete",
        ])
    );
}

#[test]
fn a_shorthand_loop_shares_its_continue_on_error_with_every_iteration() {
    let yaml = |coe: bool| {
        format!(
            "goal: shorthand\nsteps:\n  - name: each\n    repeat: 3\n    continue_on_error: {coe}\n    command: echo \"try {{{{item}}}}\"; test {{{{item}}}} != 2\n"
        )
    };
    // With it: every iteration runs, the failure is a warning and the step
    // completes successfully (spec §1.5).
    let (_dir, ran) = run(&yaml(true), &[]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 each",
            "iteration 0 1/3 1",
            "info $ echo \"try 1\"; test 1 != 2",
            "text 0 try 1",
            "iteration-complete 0 1 complete",
            "iteration 0 2/3 2",
            "info $ echo \"try 2\"; test 2 != 2",
            "text 0 try 2",
            "warn [forEach] Step \"each\" failed (continuing): Command \"each\" exited with code 1",
            "iteration-complete 0 2 complete",
            "iteration 0 3/3 3",
            "info $ echo \"try 3\"; test 3 != 2",
            "text 0 try 3",
            "iteration-complete 0 3 complete",
            "complete 0 each",
            "workflow:report",
            "workflow:complete",
        ])
    );
    // Without it: iteration 2 ends the loop and the run.
    let (_dir, ran) = run(&yaml(false), &[]);
    ran.status_is(1);
    let briefs = ran.briefs();
    assert_eq!(
        briefs[briefs.len() - 3..],
        s(&[
            "warn [forEach] Step \"each\" failed — aborting remaining children and iterations",
            "iteration-complete 0 2 error: Command \"each\" exited with code 1",
            "error 0 each: Command \"each\" exited with code 1",
        ])
    );
    assert!(!ran.texts().contains(&"try 3".to_owned()));
}

#[test]
fn nested_loop_children_get_the_outer_item() {
    // Executant's quirk, kept: the outer fill reaches the inner loop's
    // children first, so they never see their own item. The inner loop's
    // iteration rows are dropped (they would clash with the outer ones);
    // its iteration-complete events pass through, as in Executant.
    let (_dir, ran) = run(
        r#"goal: nested
steps:
  - name: outer
    forEach: [x, "y"]
    steps:
      - name: inner
        forEach: [1, 2]
        command: echo "got {{item}}"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 outer",
            "iteration 0 1/2 x",
            "info $ echo \"got x\"",
            "text 0 got x",
            "iteration-complete 0 1 complete",
            "info $ echo \"got x\"",
            "text 0 got x",
            "iteration-complete 0 2 complete",
            "iteration-complete 0 1 complete",
            "iteration 0 2/2 y",
            "info $ echo \"got y\"",
            "text 0 got y",
            "iteration-complete 0 1 complete",
            "info $ echo \"got y\"",
            "text 0 got y",
            "iteration-complete 0 2 complete",
            "iteration-complete 0 2 complete",
            "complete 0 outer",
            "workflow:report",
            "workflow:complete",
        ])
    );
}

#[test]
fn yaml_1_1_booleans_are_plain_text_items() {
    // `no`, `y`, `on` are strings in YAML 1.2 (Executant's reading): a list
    // of country codes must not turn into booleans.
    let (_dir, ran) = run(
        "goal: norway\nvars:\n  answer: yes\nsteps:\n  - name: each\n    forEach: [se, no, y, on]\n    message: \"{{item}} {{answer}}\"\n",
        &[],
    );
    ran.status_is(0);
    assert_eq!(ran.texts(), ["se yes", "no yes", "y yes", "on yes"]);
}

// ------------------------------------------------------------ filters §3

const THREE: &str = r#"goal: three
steps:
  - name: a
    message: A
  - name: b
    command: echo B
  - name: c
    message: C
"#;

#[test]
fn step_by_name_or_number_skips_the_others() {
    let (_dir, ran) = run(THREE, &["--step", "b"]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "skip 0 a",
            "start 1 b",
            "info $ echo B",
            "text 1 B",
            "complete 1 b",
            "skip 2 c",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(ran.last()["lastOutput"], "B");

    let (_dir, ran) = run(THREE, &["--step", "3"]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "skip 0 a",
            "skip 1 b",
            "start 2 c",
            "text 2 C",
            "complete 2 c",
            "workflow:report",
            "workflow:complete",
        ])
    );

    let (_dir, ran) = run(THREE, &["--step", "nosuch"]);
    ran.status_is(0);
    assert_eq!(ran.of("step:skip").len(), 3);
    assert!(
        ran.stderr
            .contains("warning[WORKFLOW_STEP_NOT_FOUND]: --step nosuch matches no top-level step"),
        "{}",
        ran.stderr
    );
}

#[test]
fn from_step_and_to_step_bound_the_run() {
    let (_dir, ran) = run(THREE, &["--from-step", "2"]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "skip 0 a",
            "start 1 b",
            "info $ echo B",
            "text 1 B",
            "complete 1 b",
            "start 2 c",
            "text 2 C",
            "complete 2 c",
            "workflow:report",
            "workflow:complete",
        ])
    );

    let (_dir, ran) = run(THREE, &["--to-step", "2"]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 a",
            "text 0 A",
            "complete 0 a",
            "start 1 b",
            "info $ echo B",
            "text 1 B",
            "complete 1 b",
            "skip 2 c",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(ran.last()["lastOutput"], "B", "the last executed step");

    let (_dir, ran) = run(THREE, &["--from-step", "2", "--to-step", "2"]);
    ran.status_is(0);
    assert_eq!(ran.of("step:start").len(), 1);
    assert_eq!(ran.of("step:skip").len(), 2);

    // Values that cannot mean anything: exit 1, as Executant exits on a bad
    // flag value, before anything runs.
    for args in [
        &["--from-step", "3", "--to-step", "2"][..],
        &["--to-step", "0"],
        &["--from-step", "1.x"],
        &["--from-step", "0"],
        &["--step", ""],
    ] {
        let (_dir, ran) = run(THREE, args);
        ran.status_is(1);
        assert!(ran.events.is_empty(), "{args:?}");
        assert!(
            ran.stderr.starts_with("error[WORKFLOW_BAD_FILTER]: "),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

const RESUME: &str = r#"goal: resume
steps:
  - name: first
    message: one
  - name: loop
    forEach: [a, b, c]
    steps:
      - name: "x {{item}}"
        message: "x {{item}}"
      - name: "y {{item}}"
        message: "y {{item}}"
  - name: last
    message: end
"#;

const RESUME_TAIL: [&str; 6] = [
    "complete 1 loop",
    "start 2 last",
    "text 2 end",
    "complete 2 last",
    "workflow:report",
    "workflow:complete",
];

#[test]
fn from_step_into_a_loop_resumes_at_the_iteration() {
    let (_dir, ran) = run(RESUME, &["--from-step", "2.2"]);
    ran.status_is(0);
    let mut expected = s(&[
        "workflow:start",
        "skip 0 first",
        "start 1 loop",
        "iteration 1 2/3 b",
        "inner 1 it2 0/2 x b",
        "text 1 x b",
        "inner 1 it2 1/2 y b",
        "text 1 y b",
        "iteration-complete 1 2 complete",
        "iteration 1 3/3 c",
        "inner 1 it3 0/2 x c",
        "text 1 x c",
        "inner 1 it3 1/2 y c",
        "text 1 y c",
        "iteration-complete 1 3 complete",
    ]);
    expected.extend(s(&RESUME_TAIL));
    assert_eq!(ran.briefs(), expected);
}

#[test]
fn from_step_into_a_loop_resumes_at_the_child() {
    let (_dir, ran) = run(RESUME, &["--from-step", "2.2.2"]);
    ran.status_is(0);
    let mut expected = s(&[
        "workflow:start",
        "skip 0 first",
        "start 1 loop",
        "iteration 1 2/3 b",
        "inner 1 it2 1/2 y b",
        "text 1 y b",
        "iteration-complete 1 2 complete",
        "iteration 1 3/3 c",
        "inner 1 it3 0/2 x c",
        "text 1 x c",
        "inner 1 it3 1/2 y c",
        "text 1 y c",
        "iteration-complete 1 3 complete",
    ]);
    expected.extend(s(&RESUME_TAIL));
    assert_eq!(ran.briefs(), expected);

    // Past the last iteration: a warning, and the run goes on.
    let (_dir, ran) = run(RESUME, &["--from-step", "2.5"]);
    ran.status_is(0);
    let mut expected = s(&[
        "workflow:start",
        "skip 0 first",
        "start 1 loop",
        "warn [from-step] No iterations to run: target iteration 5 exceeds total 3 in \"loop\"",
    ]);
    expected.extend(s(&RESUME_TAIL));
    assert_eq!(ran.briefs(), expected);
}

#[test]
fn from_step_goes_on_into_a_nested_loop() {
    let yaml = r#"goal: deep resume
steps:
  - name: outer
    forEach: [a, b]
    steps:
      - name: pre
        message: "pre {{item}}"
      - name: inner
        forEach: [p, q, r]
        command: echo "inner {{item}}"
"#;
    // Iteration 2 of outer, its child 2 (the inner loop), that loop's
    // iteration 3: one run of the inner command.
    let (_dir, ran) = run(yaml, &["--from-step", "1.2.2.3"]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 outer",
            "iteration 0 2/2 b",
            "inner 0 it2 1/2 inner",
            "info $ echo \"inner b\"",
            "text 0 inner b",
            "iteration-complete 0 3 complete",
            "iteration-complete 0 2 complete",
            "complete 0 outer",
            "workflow:report",
            "workflow:complete",
        ])
    );
}

#[test]
fn from_step_into_a_concurrent_loop_runs_every_iteration() {
    let (_dir, ran) = run(
        "goal: g\nsteps:\n  - name: par\n    forEach: [a, b, c]\n    concurrency: 2\n    message: \"m {{item}}\"\n",
        &["--from-step", "1.3"],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs()[2],
        "warn [from-step] \"par\" runs with concurrency 2 and cannot resume into a given iteration — running all 3 iterations from the start."
    );
    let mut texts = ran.texts();
    texts.sort();
    assert_eq!(texts, ["m a", "m b", "m c"]);
}

// ---------------------------------------------------------- concurrency

/// `(start, end)` per item from lines `start ITEM T` / `end ITEM T`.
fn intervals(texts: &[String]) -> HashMap<String, (f64, f64)> {
    let mut out: HashMap<String, (f64, f64)> = HashMap::new();
    for text in texts {
        let parts: Vec<&str> = text.split(' ').collect();
        if parts.len() != 3 {
            continue;
        }
        let time: f64 = parts[2].parse().unwrap();
        let entry = out
            .entry(parts[1].to_owned())
            .or_insert((f64::NAN, f64::NAN));
        match parts[0] {
            "start" => entry.0 = time,
            "end" => entry.1 = time,
            _ => {}
        }
    }
    out
}

/// A shell loop waiting (at most ~20 s, then failing) until every file named
/// exists: iterations that cannot finish until others have started.
fn barrier(files: &[&str]) -> String {
    let test = files
        .iter()
        .map(|f| format!("[ -e {f} ]"))
        .collect::<Vec<_>>()
        .join(" && ");
    format!(
        "i=0; until {test}; do i=$((i+1)); if [ $i -gt 400 ]; then echo barrier timed out; exit 1; fi; sleep 0.05; done"
    )
}

#[test]
fn concurrent_iterations_really_overlap() {
    // Each iteration records its start, then waits until all three have
    // started: run one at a time they could never finish. The timestamps
    // show the overlap too: every start comes before every end.
    let yaml = format!(
        "goal: overlap\nsteps:\n  - name: par\n    forEach: [a, b, c]\n    concurrency: 3\n    command: |\n      echo \"start {{{{item}}}} $(date +%s.%N)\"\n      touch {{{{item}}}}.started\n      {}\n      sleep 0.2\n      echo \"end {{{{item}}}} $(date +%s.%N)\"\n",
        barrier(&["a.started", "b.started", "c.started"])
    );
    let (_dir, ran) = run(&yaml, &[]);
    ran.status_is(0);
    let spans = intervals(&ran.texts());
    assert_eq!(spans.len(), 3, "{:?}", ran.texts());
    for (a, (a_start, a_end)) in &spans {
        for (b, (b_start, b_end)) in &spans {
            assert!(
                a_start < b_end && b_start < a_end,
                "{a} [{a_start}, {a_end}] and {b} [{b_start}, {b_end}] overlap"
            );
        }
    }
    // Every iteration has its own start and complete rows.
    let mut iterations: Vec<u64> = ran
        .of("step:iteration")
        .iter()
        .map(|e| e["iteration"].as_u64().unwrap())
        .collect();
    iterations.sort_unstable();
    assert_eq!(iterations, [1, 2, 3]);
    let completes = ran.of("step:iteration-complete");
    assert_eq!(completes.len(), 3);
    assert!(completes.iter().all(|e| e["status"] == "complete"));
    assert_eq!(ran.briefs().last().unwrap(), "workflow:complete");
}

#[test]
fn concurrency_is_a_pool_not_batches() {
    // Two workers, items [long, short1, short2]: `long` waits for `short2`
    // to start. A pool hands `short2` to the worker `short1` freed; fixed
    // batches of two would start it only after `long` ended — never.
    let yaml = format!(
        r#"goal: pool
steps:
  - name: par
    forEach: [long, short1, short2]
    concurrency: 2
    command: |
      echo "start {{{{item}}}} $(date +%s.%N)"
      touch {{{{item}}}}.started
      if [ {{{{item}}}} = long ]; then {}; fi
      echo "end {{{{item}}}} $(date +%s.%N)"
"#,
        barrier(&["short2.started"])
    );
    let (_dir, ran) = run(&yaml, &[]);
    ran.status_is(0);
    let spans = intervals(&ran.texts());
    assert!(
        spans["short2"].0 < spans["long"].1,
        "the third item started before the first ended: {spans:?}"
    );
}

#[test]
fn a_failing_concurrent_iteration_fails_the_loop_unless_it_continues_on_error() {
    let yaml = |coe: bool| {
        format!(
            "goal: g\nsteps:\n  - name: par\n    forEach: [ok, bad]\n    concurrency: 2\n    continue_on_error: {coe}\n    steps:\n      - name: \"check {{{{item}}}}\"\n        command: test {{{{item}}}} != bad\n  - name: after\n    message: after\n"
        )
    };
    let (_dir, ran) = run(&yaml(false), &[]);
    ran.status_is(1);
    let error = ran.last();
    assert_eq!(error["type"], "step:error");
    assert_eq!(
        error["error"]["message"],
        "forEach \"par\" had a failing iteration: Command \"check bad\" exited with code 1"
    );
    assert_eq!(error["error"]["code"], "WORKFLOW_ITERATION_FAILED");
    let failed: Vec<&Value> = ran
        .of("step:iteration-complete")
        .into_iter()
        .filter(|e| e["status"] == "error")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["iteration"], 2);

    let (_dir, ran) = run(&yaml(true), &[]);
    ran.status_is(0);
    assert_eq!(ran.of("step:complete").len(), 2, "{:?}", ran.briefs());
    assert_eq!(ran.of("step:iteration-complete").len(), 2);
}

// ---------------------------------------------------------- timeouts §1.6

#[test]
fn a_timeout_kills_the_whole_group_and_exits_3() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        r#"goal: timeout
steps:
  - name: stuck
    timeout_seconds: 1
    command: sh -c 'sleep 30 & echo $! > pid; wait'
  - name: never
    message: not reached
"#,
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(3);
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "the run did not wait for sleep 30: {:?}",
        ran.elapsed
    );
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 stuck",
            "info $ sh -c 'sleep 30 & echo $! > pid; wait'",
            "error 0 stuck: Step \"stuck\" timed out after 1s",
        ])
    );
    assert_eq!(ran.last()["error"]["name"], "TimeoutError");
    assert_eq!(ran.last()["error"]["code"], "WORKFLOW_STEP_TIMEOUT");
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap();
    let pid: i32 = pid.trim().parse().unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || ended(pid)),
        "the grandchild sleep ({pid}) was killed"
    );
    assert!(
        ran.stderr.starts_with("error[WORKFLOW_STEP_TIMEOUT]: "),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_timeout_in_a_loop_exits_3_but_1_in_a_concurrent_loop() {
    let yaml = |concurrency: u32| {
        format!(
            "goal: g\nsteps:\n  - name: each\n    repeat: 1\n    concurrency: {concurrency}\n    timeout_seconds: 0.3\n    command: sleep 5\n"
        )
    };
    let (_dir, ran) = run(&yaml(1), &[]);
    ran.status_is(3);
    assert_eq!(
        ran.last()["error"]["message"],
        "Step \"each\" timed out after 0.3s"
    );
    // Executant wraps a concurrent loop's failure, timeouts included.
    let (_dir, ran) = run(&yaml(2), &[]);
    ran.status_is(1);
    assert_eq!(
        ran.last()["error"]["message"],
        "forEach \"each\" had a failing iteration: Step \"each\" timed out after 0.3s"
    );
}

// ------------------------------------------------------------- cancel §3

/// Starts `workflow run --ci wf.yaml` in `dir` and waits until its steps
/// have created the file `marker` (so the run is where the test wants it).
fn start_until(dir: &Dir, marker: &str) -> std::process::Child {
    let child = dir
        .ci_command("wf.yaml", &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(30), || dir.path().join(marker).exists()),
        "the run never created {marker}"
    );
    child
}

fn send(child: &std::process::Child, signal: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
}

#[test]
fn cancel_from_inside_a_step() {
    // The workflow lives in a subdirectory and runs from its parent: the
    // step finds the cancel file's place in $VOYAGE_WORKFLOW_DIR.
    let dir = Dir::new();
    dir.write(
        "flows/wf.yaml",
        r#"goal: cancel inside
steps:
  - name: first
    message: first step runs
  - name: stop here
    command: touch "$VOYAGE_WORKFLOW_DIR/.voyage-cancel" && echo requested
  - name: never reached
    command: touch never-ran
"#,
    );
    let ran = dir.ci("flows/wf.yaml", &[]);
    ran.status_is(4);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 first",
            "text 0 first step runs",
            "complete 0 first",
            "start 1 stop here",
            "info $ touch \"$VOYAGE_WORKFLOW_DIR/.voyage-cancel\" && echo requested",
            "text 1 requested",
            "complete 1 stop here",
            "workflow:cancelled",
        ])
    );
    assert!(
        ran.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("{\"type\":\"workflow:cancelled\"")
    );
    assert!(!dir.path().join("flows/.voyage-cancel").exists(), "removed");
    assert!(!dir.path().join("never-ran").exists());
}

#[test]
fn cancel_from_outside_while_a_step_runs() {
    let dir = Dir::new();
    let wait =
        "i=0; while [ ! -e .executant-cancel ] && [ $i -lt 400 ]; do i=$((i+1)); sleep 0.05; done";
    dir.write(
        "wf.yaml",
        &format!(
            "goal: cancel outside\nsteps:\n  - name: wait\n    command: echo waiting; touch started; {wait}; echo woke\n  - name: never\n    command: touch never-ran\n"
        ),
    );
    let start = Instant::now();
    let child = start_until(&dir, "started");
    // What an operator does: Executant's cancel file, next to the workflow.
    std::fs::write(dir.path().join(".executant-cancel"), "").unwrap();
    let output = child.wait_with_output().unwrap();
    let ran = collect(&output, start.elapsed());
    ran.status_is(4);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 wait",
            &format!("info $ echo waiting; touch started; {wait}; echo woke"),
            "text 0 waiting",
            "text 0 woke",
            "complete 0 wait",
            "workflow:cancelled",
        ])
    );
    assert!(
        ran.stdout
            .lines()
            .last()
            .unwrap()
            .contains("workflow:cancelled")
    );
    assert!(!dir.path().join(".executant-cancel").exists(), "removed");
    assert!(
        !dir.path().join("never-ran").exists(),
        "the next step never started"
    );
}

/// SIGTERM (and SIGINT, SIGHUP) to the helper: the running step's whole
/// process group is stopped and the run ends as cancelled, its stream
/// flushed, rather than the helper dying mid-line.
#[test]
fn a_stopping_signal_cancels_the_run_and_stops_the_step_group() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: signal\nsteps:\n  - name: long\n    command: sleep 30 & echo $! > grandchild.pid; touch started; wait\n  - name: never\n    command: touch never-ran\n",
    );
    let start = Instant::now();
    let child = start_until(&dir, "started");
    send(&child, nix::sys::signal::Signal::SIGTERM);
    let output = child.wait_with_output().unwrap();
    let ran = collect(&output, start.elapsed());
    ran.status_is(4);
    assert_eq!(ran.last()["type"], "workflow:cancelled");
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "stopped, not waited for: {:?}",
        ran.elapsed
    );
    let pid: i32 = std::fs::read_to_string(dir.path().join("grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = wait_until(Duration::from_secs(10), || {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err()
    });
    assert!(gone, "the step's background sleep was stopped");
    assert!(!dir.path().join("never-ran").exists(), "no later step ran");
}

/// A signal landing between two commands of a loop (here during a burst
/// of log-only iterations, when no command runs to notice it) stops the
/// loop at its next child, not after every remaining iteration.
#[test]
fn a_signal_between_commands_stops_the_loop() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: gap\nsteps:\n  - name: begin\n    command: touch begun\n  - name: rounds\n    repeat: 3\n    steps:\n      - name: chatter\n        repeat: 20000\n        message: \"chat {{item}}\"\n      - name: work\n        command: touch work-{{item}}; sleep 1\n",
    );
    let child = start_until(&dir, "begun");
    send(&child, nix::sys::signal::Signal::SIGINT);
    let output = child.wait_with_output().unwrap();
    let ran = collect(&output, Duration::ZERO);
    ran.status_is(4);
    assert_eq!(ran.last()["type"], "workflow:cancelled");
    let worked = (1..=3)
        .filter(|i| dir.path().join(format!("work-{i}")).exists())
        .count();
    assert!(worked < 3, "every iteration ran after the signal");
}

#[test]
fn a_cancel_file_present_at_the_start_cancels_before_the_first_step() {
    let dir = Dir::new();
    dir.write("wf.yaml", THREE);
    dir.write(".voyage-cancel", "");
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(4);
    assert_eq!(ran.briefs(), s(&["workflow:start", "workflow:cancelled"]));
    assert!(!dir.path().join(".voyage-cancel").exists());
}

// ------------------------------------------------------------- output: files

#[test]
fn output_files_are_written_on_success_only() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        r#"goal: outputs
vars:
  report: "{{base}}/deep/er/report.txt"
  failed: "{{base}}/failed.txt"
  base: results
steps:
  - name: save
    command: echo one; echo two >&2; echo three
    output: report
  - name: fail save
    command: echo partial; exit 1
    output: failed
    continue_on_error: true
"#,
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(0);
    assert_eq!(ran.of("step:error").len(), 1);
    // Joined with newlines, stderr included, no trailing newline; parent
    // directories created; relative to the current directory.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("results/deep/er/report.txt")).unwrap(),
        "one\ntwo\nthree"
    );
    assert!(!dir.path().join("results/failed.txt").exists());
    assert_eq!(
        ran.events[0]["workflow"]["tasks"][0]["output"],
        "results/deep/er/report.txt"
    );
}

// ------------------------------------------------------------------ log file

fn log_files(dir: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_log_file_is_written_in_executants_format() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        r#"goal: "Log me, please!"
steps:
  - name: greet
    command: echo hi
  - name: each
    forEach: [a]
    message: "item {{item}}"
"#,
    );
    let ran = dir.ci_env("wf.yaml", &[], &[("VOYAGE_LOG", "1")]);
    ran.status_is(0);
    let logs = log_files(&dir.path().join(".claude/voyage.local/logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let name = logs[0].file_name().unwrap().to_str().unwrap().to_owned();
    let (stamp, slug) = name.split_once('_').unwrap();
    assert_eq!(slug, "log-me-please.log");
    assert_eq!(stamp.len(), 15, "{name}");
    assert!(
        stamp[..8].bytes().all(|b| b.is_ascii_digit())
            && &stamp[8..9] == "-"
            && stamp[9..].bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# Execution Log");
    assert_eq!(lines[1], "Task: log-me-please");
    assert!(lines[2].starts_with("Started: "), "{text}");
    // Everything in order: banner, command line, output, completion, the
    // loop's marker and text, the report, the footer.
    let wanted = [
        "Step 1: greet",
        "[info] $ echo hi",
        "hi",
        "Step completed in ",
        "Step 2: each",
        "── iteration 1/1: a",
        "item a",
        "Run Report",
        "  Cost: $0.0000",
        "Task Complete: log-me-please",
        "Finished: ",
    ];
    let mut at = 0;
    for want in wanted {
        let found = lines[at..]
            .iter()
            .position(|l| l.starts_with(want))
            .unwrap_or_else(|| panic!("{want:?} after line {at} in:\n{text}"));
        at += found + 1;
    }
}

/// Within a git work tree, up to its root; the temp dir plays the
/// repository (a `.git` directory is all the search looks for).
#[test]
fn a_log_file_goes_to_the_nearest_voyage_local_above() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/voyage.local")).unwrap();
    dir.write("a/b/wf.yaml", THREE);
    let ran = dir.ci_env("a/b/wf.yaml", &[], &[("VOYAGE_LOG", "1")]);
    ran.status_is(0);
    assert_eq!(
        log_files(&dir.path().join(".claude/voyage.local/logs")).len(),
        1
    );
    assert!(!dir.path().join("a/b/.claude").exists());
}

#[test]
fn voyage_log_0_and_executant_log_0_turn_the_log_off() {
    for env in [
        &[("VOYAGE_LOG", "0")][..],
        &[("VOYAGE_LOG", "1"), ("EXECUTANT_LOG", "0")],
    ] {
        let dir = Dir::new();
        dir.write("wf.yaml", THREE);
        let ran = dir.ci_env("wf.yaml", &[], env);
        ran.status_is(0);
        assert!(!dir.path().join(".claude").exists(), "{env:?}");
    }
}

// ----------------------------------------------------------- the live view

#[test]
fn without_ci_a_person_gets_step_lines_and_a_summary() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: For people\nsteps:\n  - name: greet\n    command: echo hi\n  - name: skipped\n    message: no\n",
    );
    let ran = dir.plain(&["workflow", "run", "--to-step", "1", "wf.yaml"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines[0], "For people (2 steps)");
    assert_eq!(lines[1], "▶ [1/2] greet");
    assert_eq!(lines[2], "  │ hi");
    assert!(lines[3].starts_with("✓ [1/2] greet ("), "{}", ran.stdout);
    assert_eq!(lines[4], "- [2/2] skipped (skipped)");
    assert!(
        lines[6].starts_with("Finished in ")
            && lines[6].ends_with(": 1 passed, 0 failed, 1 skipped"),
        "{}",
        ran.stdout
    );
}

// ------------------------------------------------------ exit codes, examples

#[test]
fn all_five_exit_codes() {
    let cases: [(&str, i32); 5] = [
        ("goal: ok\nsteps:\n  - name: a\n    command: \"true\"\n", 0),
        ("goal: fail\nsteps:\n  - name: a\n    command: exit 9\n", 1),
        (
            "goal: invalid\nsteps:\n  - name: a\n    command: echo {{x}}\n",
            2,
        ),
        (
            "goal: slow\nsteps:\n  - name: a\n    command: sleep 5\n    timeout_seconds: 0.2\n",
            3,
        ),
        (
            "goal: stop\nsteps:\n  - name: a\n    command: touch .voyage-cancel\n  - name: b\n    message: no\n",
            4,
        ),
    ];
    for (yaml, code) in cases {
        let (_dir, ran) = run(yaml, &[]);
        ran.status_is(code);
        let last = ran.events.last().map(|e| e["type"].as_str().unwrap());
        let expected = match code {
            0 => Some("workflow:complete"),
            1 | 3 => Some("step:error"),
            2 => None,
            _ => Some("workflow:cancelled"),
        };
        assert_eq!(last, expected, "exit {code}");
    }
}

#[test]
fn the_examples_run_with_their_documented_exit_codes() {
    let dir = Dir::new();
    copy_examples(dir.path());
    for (file, args, code) in [
        ("hello.yaml", &[][..], 0),
        ("hello.yaml", &["--var", "who=CI"], 0),
        ("loops.yaml", &[], 0),
        ("nested.yaml", &[], 0),
        ("nested-child.yaml", &["--var", "target=x"], 0),
        ("nested-child.yaml", &[], 2),
        ("failing.yaml", &[], 1),
        ("cancelled.yaml", &[], 4),
    ] {
        let ran = dir.ci(file, args);
        assert_eq!(ran.status, code, "{file} {args:?}: {}", ran.stderr);
    }
    assert!(!dir.path().join(".voyage-cancel").exists());
}
