//! `workflow:` steps: nested workflows resolved before the run (spec §3.3)
//! and their events mapped onto the parent step's row (spec §2.3), with the
//! compatibility set of spec §6 as our own copies in Executant's format
//! (`tests/fixtures/workflows/compat/`).
//!
//! Every `--ci` line is validated against `schemas/event.schema.json`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use crate::common::{Dir, elide_duration};

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| (*i).to_owned()).collect()
}

fn compat() -> Dir {
    let dir = Dir::new();
    dir.copy_fixtures("compat");
    dir
}

/// Asserts a load-time refusal: exit 2, no events, `error[code]` first on
/// stderr, containing every fragment. Returns that line.
#[track_caller]
fn refused(ran: &crate::common::Run, code: &str, fragments: &[&str]) -> String {
    ran.status_is(2);
    assert!(ran.events.is_empty(), "{:?}", ran.briefs());
    let line = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("error["))
        .unwrap_or_else(|| panic!("no error line: {}", ran.stderr))
        .to_owned();
    assert!(line.starts_with(&format!("error[{code}]: ")), "{line}");
    for fragment in fragments {
        assert!(line.contains(fragment), "{fragment:?} in {line}");
    }
    line
}

// ------------------------------------------------ the compatibility set §6

#[test]
fn parent_with_a_nested_child_gives_the_stream_of_spec_6() {
    let dir = compat();
    let ran = dir.ci("workflow-step-parent.yaml", &[]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 preflight",
            "text 0 Starting release",
            "complete 0 preflight",
            "start 1 release",
            "iteration 1 1/2 build",
            "text 1 → build",
            "info $ echo \"Building for region us-east-1\"",
            "text 1 Building for region us-east-1",
            "iteration-complete 1 1 complete",
            "text 1 ✓ build (…)",
            "iteration 1 2/2 deploy",
            "text 1 → deploy",
            "info $ echo \"Deploying to region us-east-1\"",
            "text 1 Deploying to region us-east-1",
            "iteration-complete 1 2 complete",
            "text 1 ✓ deploy (…)",
            "complete 1 release",
            "start 2 postflight",
            "text 2 Release complete",
            "complete 2 postflight",
            "workflow:report",
            "workflow:complete",
        ])
    );
    assert_eq!(ran.last()["lastOutput"], "Release complete");
    assert_eq!(ran.stderr, "");
    // The resolved child rides on workflow:start, its var filled in.
    let release = &ran.events[0]["workflow"]["tasks"][1];
    assert_eq!(release["type"], "workflow");
    assert_eq!(release["vars"]["region"], "us-east-1");
    assert_eq!(release["workflow"]["vars"]["region"], "us-east-1");
    assert_eq!(release["workflow"]["tasks"][0]["name"], "build");
    // Only the top level reports.
    assert_eq!(ran.of("workflow:report").len(), 1);
    let narrative = &ran.of("workflow:report")[0]["report"]["stepNarrative"];
    assert_eq!(narrative.as_array().unwrap().len(), 3);
}

#[test]
fn a_late_bound_child_follows_its_var() {
    let dir = compat();
    let ran = dir.ci("workflow-step-late-bound.yaml", &[]);
    ran.status_is(0);
    let texts: Vec<String> = ran
        .briefs()
        .into_iter()
        .filter(|b| b.starts_with("text "))
        .collect();
    assert_eq!(
        texts,
        s(&[
            "text 0 Deploying with ./workflow-step-child.yaml",
            "text 1 → build",
            "text 1 Building for region eu-central-1",
            "text 1 ✓ build (…)",
            "text 1 → deploy",
            "text 1 Deploying to region eu-central-1",
            "text 1 ✓ deploy (…)",
        ])
    );

    let ran = dir.ci(
        "workflow-step-late-bound.yaml",
        &["--var", "deployer=./workflow-step-child-alt.yaml"],
    );
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 announce",
            "text 0 Deploying with ./workflow-step-child-alt.yaml",
            "complete 0 announce",
            "start 1 deploy",
            "iteration 1 1/1 canary",
            "text 1 → canary",
            "info $ echo \"Canary in region eu-central-1\"",
            "text 1 Canary in region eu-central-1",
            "iteration-complete 1 1 complete",
            "text 1 ✓ canary (…)",
            "complete 1 deploy",
            "workflow:report",
            "workflow:complete",
        ])
    );
    // A URL given late is read like a written one: here, of a scheme
    // that cannot be fetched.
    let ran = dir.ci(
        "workflow-step-late-bound.yaml",
        &["--var", "deployer=ftp://example.com/child.yaml"],
    );
    refused(
        &ran,
        "WORKFLOW_REMOTE_UNSUPPORTED",
        &[
            "step \"deploy\"",
            "field `workflow`",
            "(workflow-step-late-bound.yaml:",
        ],
    );
}

#[test]
fn a_child_with_a_required_var_runs_alone_only_when_given_it() {
    let dir = compat();
    for child in ["workflow-step-child.yaml", "workflow-step-child-alt.yaml"] {
        let ran = dir.ci(child, &[]);
        refused(
            &ran,
            "WORKFLOW_MISSING_VAR",
            &["missing required var(s) region", &format!("({child}:6)")],
        );
        let ran = dir.ci(child, &["--var", "region=ap-south-1"]);
        ran.status_is(0);
        assert!(
            ran.texts().iter().all(|t| t.ends_with("region ap-south-1")),
            "{:?}",
            ran.texts()
        );
    }
}

#[test]
fn from_step_test_runs_only_its_script_step_when_filtered() {
    let dir = compat();
    for args in [&["--step", "1"][..], &["--to-step", "1"]] {
        let ran = dir.ci("from-step-test.yaml", args);
        ran.status_is(0);
        assert_eq!(
            ran.briefs(),
            s(&[
                "workflow:start",
                "start 0 prepare",
                "info $ echo \"prepared\"",
                "text 0 prepared",
                "complete 0 prepare",
                "skip 1 summarise",
                "workflow:report",
                "workflow:complete",
            ]),
            "{args:?}"
        );
    }
    // Unfiltered, the prompt step runs, and fails here for want of claude.
    let path = dir.path_without_agents();
    let ran = dir.ci_env("from-step-test.yaml", &[], &[("PATH", &path)]);
    ran.status_is(1);
    assert_eq!(ran.last()["error"]["code"], "WORKFLOW_AGENT_NOT_FOUND");
}

// ------------------------------------------------------- resolution §3.3

#[test]
fn references_are_relative_to_the_referencing_file() {
    let dir = Dir::new();
    dir.write(
        "flows/parent.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: ./child.yaml\n",
    );
    dir.write(
        "flows/child.yaml",
        "goal: c\nsteps:\n  - name: deeper\n    workflow: ../shared/leaf.yaml\n",
    );
    dir.write(
        "shared/leaf.yaml",
        "goal: l\nsteps:\n  - name: leaf\n    command: echo leaf ran\n",
    );
    let ran = dir.ci("flows/parent.yaml", &[]);
    ran.status_is(0);
    assert!(
        ran.texts().contains(&"leaf ran".to_owned()),
        "{:?}",
        ran.texts()
    );
}

#[test]
fn a_cycle_is_refused_with_its_chain() {
    let dir = Dir::new();
    dir.write(
        "a.yaml",
        "goal: a\nsteps:\n  - name: to b\n    workflow: ./b.yaml\n",
    );
    dir.write(
        "b.yaml",
        "goal: b\nsteps:\n  - name: to a\n    workflow: ./a.yaml\n",
    );
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (a, b) = (root.join("a.yaml"), root.join("b.yaml"));
    let ran = dir.ci("a.yaml", &[]);
    refused(
        &ran,
        "WORKFLOW_CYCLE",
        &[
            "step \"to a\", field `workflow`",
            &format!(
                "the workflow references form a cycle: {} → {} → {}",
                a.display(),
                b.display(),
                a.display()
            ),
            "b.yaml:4)",
        ],
    );
    // A file referencing itself.
    dir.write(
        "self.yaml",
        "goal: s\nsteps:\n  - name: me\n    workflow: self.yaml\n",
    );
    let ran = dir.ci("self.yaml", &[]);
    let me = root.join("self.yaml");
    refused(
        &ran,
        "WORKFLOW_CYCLE",
        &[&format!("cycle: {} → {}", me.display(), me.display())],
    );
}

/// `w0.yaml` → `w1.yaml` → … → `w{levels}.yaml`, the last one a leaf.
fn chain(dir: &Dir, levels: usize) {
    for i in 0..levels {
        dir.write(
            &format!("w{i}.yaml"),
            &format!(
                "goal: level {i}\nsteps:\n  - name: down {i}\n    workflow: ./w{}.yaml\n",
                i + 1
            ),
        );
    }
    dir.write(
        &format!("w{levels}.yaml"),
        "goal: leaf\nsteps:\n  - name: leaf\n    command: echo bottom\n",
    );
}

#[test]
fn ten_nested_levels_run_eleven_are_refused() {
    let dir = Dir::new();
    chain(&dir, 10);
    let ran = dir.ci("w0.yaml", &[]);
    ran.status_is(0);
    assert_eq!(ran.texts().iter().filter(|t| *t == "bottom").count(), 1);

    let dir = Dir::new();
    chain(&dir, 11);
    let ran = dir.ci("w0.yaml", &[]);
    refused(
        &ran,
        "WORKFLOW_TOO_DEEP",
        &[
            "deeper than 10 levels",
            "w11.yaml",
            "step \"down 10\"",
            "(w10.yaml:4)",
        ],
    );
}

fn fan_out(dir: &Dir, children: usize) {
    let mut yaml = String::from("goal: wide\nsteps:\n");
    for i in 0..children {
        yaml.push_str(&format!("  - name: child {i}\n    workflow: ./leaf.yaml\n"));
    }
    dir.write("wide.yaml", &yaml);
    dir.write(
        "leaf.yaml",
        "goal: leaf\nsteps:\n  - name: leaf\n    message: leaf\n",
    );
}

#[test]
fn fifty_workflows_in_all_run_fifty_one_are_refused() {
    let dir = Dir::new();
    fan_out(&dir, 50);
    let ran = dir.ci("wide.yaml", &[]);
    ran.status_is(0);
    assert_eq!(ran.of("step:complete").len(), 50);

    let dir = Dir::new();
    fan_out(&dir, 51);
    let ran = dir.ci("wide.yaml", &[]);
    refused(
        &ran,
        "WORKFLOW_TOO_MANY",
        &["more than 50 workflows", "field `workflow`", "(wide.yaml:"],
    );
}

#[test]
fn a_url_reference_of_another_scheme_is_refused() {
    for (url, scheme) in [
        ("ftp://example.com/w.yaml", "ftp"),
        ("git+ssh://example.com/w.yaml", "git+ssh"),
    ] {
        let (dir, yaml) = (
            Dir::new(),
            format!("goal: g\nsteps:\n  - name: remote\n    workflow: {url}\n"),
        );
        dir.write("wf.yaml", &yaml);
        let ran = dir.ci("wf.yaml", &[]);
        refused(
            &ran,
            "WORKFLOW_REMOTE_UNSUPPORTED",
            &[
                "step \"remote\", field `workflow`",
                &format!("\"{url}\" is a {scheme} URL"),
                "(wf.yaml:4)",
            ],
        );
    }
}

#[test]
fn a_missing_or_invalid_child_is_refused_before_anything_runs() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: g\nsteps:\n  - name: first\n    command: touch ran\n  - name: nest\n    workflow: ./absent.yaml\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    refused(
        &ran,
        "WORKFLOW_REFERENCE_NOT_FOUND",
        &[
            "step \"nest\", field `workflow`",
            "\"./absent.yaml\" does not exist",
            "(wf.yaml:6)",
        ],
    );
    assert!(!dir.path().join("ran").exists(), "nothing ran");

    std::fs::create_dir(dir.path().join("absent.yaml")).unwrap();
    let ran = dir.ci("wf.yaml", &[]);
    refused(&ran, "WORKFLOW_REFERENCE_NOT_FOUND", &["is not a file"]);

    // A problem inside the child names the child's file.
    std::fs::remove_dir(dir.path().join("absent.yaml")).unwrap();
    dir.write(
        "absent.yaml",
        "goal: c\nsteps:\n  - name: inner\n    command: echo {{nope}}\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    refused(
        &ran,
        "WORKFLOW_UNKNOWN_PLACEHOLDER",
        &["step \"inner\", field `command`", "(absent.yaml:4)"],
    );
}

#[test]
fn the_var_contract_applies_to_the_vars_a_parent_passes() {
    let dir = Dir::new();
    dir.write(
        "child.yaml",
        "goal: c\nvars:\n  count:\nsteps:\n  - name: show\n    command: echo \"count {{count}}\"\n",
    );
    // Not passed: the child's required var is missing.
    dir.write(
        "none.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: child.yaml\n",
    );
    refused(
        &dir.ci("none.yaml", &[]),
        "WORKFLOW_MISSING_VAR",
        &["missing required var(s) count", "(child.yaml:3)"],
    );
    // Passed but not declared by the child.
    dir.write(
        "extra.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: child.yaml\n    vars:\n      count: \"1\"\n      colour: red\n",
    );
    refused(
        &dir.ci("extra.yaml", &[]),
        "WORKFLOW_UNDECLARED_VAR",
        &["`colour`", "it declares: count", "(child.yaml:"],
    );
    // A number is accepted as written (a documented difference).
    dir.write(
        "number.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: child.yaml\n    vars:\n      count: 3\n",
    );
    let ran = dir.ci("number.yaml", &[]);
    ran.status_is(0);
    assert!(ran.texts().contains(&"count 3".to_owned()));
}

#[test]
fn a_childs_unknown_keys_are_warned_with_its_file() {
    let dir = Dir::new();
    dir.write(
        "p.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: c.yaml\n",
    );
    dir.write(
        "c.yaml",
        "goal: c\nsteps:\n  - name: x\n    message: hi\n    colour: red\n",
    );
    let ran = dir.ci("p.yaml", &[]);
    ran.status_is(0);
    assert_eq!(
        ran.stderr,
        "warning[WORKFLOW_UNKNOWN_KEY]: unknown key `colour` in step \"x\" is ignored (c.yaml:5)\n"
    );
}

// ------------------------------------------------------ running, §2.3

#[test]
fn a_failing_child_step_fails_the_parent_step() {
    let dir = Dir::new();
    dir.write(
        "child.yaml",
        r#"goal: child
steps:
  - name: ok
    command: echo ok
  - name: soft
    command: exit 2
    continue_on_error: true
  - name: boom
    command: exit 5
  - name: never
    command: touch never-ran
"#,
    );
    dir.write(
        "wf.yaml",
        "goal: parent\nsteps:\n  - name: nest\n    workflow: child.yaml\n  - name: after\n    message: not reached\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(1);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 nest",
            "iteration 0 1/4 ok",
            "text 0 → ok",
            "info $ echo ok",
            "text 0 ok",
            "iteration-complete 0 1 complete",
            "text 0 ✓ ok (…)",
            "iteration 0 2/4 soft",
            "text 0 → soft",
            "info $ exit 2",
            "iteration-complete 0 2 error: Command \"soft\" exited with code 2",
            "text 0 ✗ soft: Command \"soft\" exited with code 2",
            "iteration 0 3/4 boom",
            "text 0 → boom",
            "info $ exit 5",
            "iteration-complete 0 3 error: Command \"boom\" exited with code 5",
            "text 0 ✗ boom: Command \"boom\" exited with code 5",
            "error 0 nest: Command \"boom\" exited with code 5",
        ])
    );
    assert!(!dir.path().join("never-ran").exists());
    // The child's mapped lines are the parent step's output.
    let last_output: Vec<String> = ran.last()["lastOutput"]
        .as_str()
        .unwrap()
        .lines()
        .map(elide_duration)
        .collect();
    assert_eq!(
        last_output,
        s(&[
            "→ ok",
            "ok",
            "✓ ok (…)",
            "→ soft",
            "✗ soft: Command \"soft\" exited with code 2",
            "→ boom",
            "✗ boom: Command \"boom\" exited with code 5",
        ])
    );
}

#[test]
fn a_childs_loop_shows_as_inner_rows() {
    let dir = Dir::new();
    dir.write(
        "child.yaml",
        "goal: child\nsteps:\n  - name: each\n    forEach: [a, b]\n    steps:\n      - name: \"one {{item}}\"\n        message: \"one {{item}}\"\n      - name: \"two {{item}}\"\n        message: \"two {{item}}\"\n",
    );
    dir.write(
        "wf.yaml",
        "goal: parent\nsteps:\n  - name: nest\n    workflow: child.yaml\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(0);
    // The child's step:iteration becomes step:inner; its step:inner is
    // dropped; the rest passes through (spec §2.3).
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 nest",
            "iteration 0 1/1 each",
            "text 0 → each",
            "inner 0 it1 0/2 a",
            "text 0 one a",
            "text 0 two a",
            "iteration-complete 0 1 complete",
            "inner 0 it1 1/2 b",
            "text 0 one b",
            "text 0 two b",
            "iteration-complete 0 2 complete",
            "iteration-complete 0 1 complete",
            "text 0 ✓ each (…)",
            "complete 0 nest",
            "workflow:report",
            "workflow:complete",
        ])
    );
}

#[test]
fn a_cancel_noticed_inside_a_nested_run_cancels_the_whole_run() {
    let dir = Dir::new();
    // The child lives elsewhere; the cancel file is the top workflow's.
    dir.write(
        "parts/child.yaml",
        r#"goal: child
steps:
  - name: stop
    command: touch "$VOYAGE_WORKFLOW_DIR/.voyage-cancel"
  - name: never in child
    command: touch child-never-ran
"#,
    );
    dir.write(
        "wf.yaml",
        "goal: parent\nsteps:\n  - name: nest\n    workflow: parts/child.yaml\n  - name: never in parent\n    command: touch parent-never-ran\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(4);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "start 0 nest",
            "iteration 0 1/2 stop",
            "text 0 → stop",
            "info $ touch \"$VOYAGE_WORKFLOW_DIR/.voyage-cancel\"",
            "iteration-complete 0 1 complete",
            "text 0 ✓ stop (…)",
            "workflow:cancelled",
        ])
    );
    assert!(
        ran.stdout
            .lines()
            .last()
            .unwrap()
            .contains("\"workflow:cancelled\"")
    );
    assert_eq!(
        ran.last()["workflow"]["goal"],
        "parent",
        "the top run's event"
    );
    assert!(!dir.path().join(".voyage-cancel").exists());
    assert!(!dir.path().join("child-never-ran").exists());
    assert!(!dir.path().join("parent-never-ran").exists());
}

#[test]
fn a_timeout_inside_a_child_exits_3() {
    let dir = Dir::new();
    dir.write(
        "child.yaml",
        "goal: c\nsteps:\n  - name: slow\n    command: sleep 5\n    timeout_seconds: 0.2\n",
    );
    dir.write(
        "wf.yaml",
        "goal: p\nsteps:\n  - name: nest\n    workflow: child.yaml\n",
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(3);
    assert_eq!(
        ran.last()["error"]["message"],
        "Step \"slow\" timed out after 0.2s"
    );
    assert_eq!(ran.last()["name"], "nest");
}

#[test]
fn resuming_into_a_nested_workflow_step_is_refused() {
    let dir = compat();
    let ran = dir.ci("workflow-step-parent.yaml", &["--from-step", "2.1"]);
    ran.status_is(1);
    assert_eq!(
        ran.briefs(),
        s(&[
            "workflow:start",
            "skip 0 preflight",
            "start 1 release",
            "error 1 release: Step \"release\": resuming into a nested workflow step is not supported — resume from an earlier step or drop the extra --from-step path parts",
        ])
    );
    // From the step itself is fine.
    let ran = dir.ci("workflow-step-parent.yaml", &["--from-step", "2"]);
    ran.status_is(0);
    assert_eq!(ran.of("step:skip").len(), 1);
}
