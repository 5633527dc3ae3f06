//! The OpenCode provider end to end: `voyage-helper workflow run --ci`
//! running the REAL `opencode` CLI (`npm install -g opencode-ai`; spec
//! §4.2 of `docs/maintainer/executant.md`) against `mock_api`, the same
//! scripted Messages API the claude tests use, through OpenCode's own
//! `anthropic` provider pointed at it by `baseURL`.
//!
//! Nothing of the machine reaches OpenCode: `HOME` and every XDG directory
//! are fresh, its configuration is one file written there, and everything
//! it would fetch is sent nowhere: the models.dev catalogue is off
//! (`OPENCODE_DISABLE_MODELS_FETCH`, its built-in snapshot names the
//! Anthropic models), the npm registry it installs plugin dependencies
//! from is a closed port, asked once (it carries on without them), and any other HTTP
//! goes to a proxy on a closed port. Checked by hand with the whole run in
//! an empty network namespace (`unshare -n`): the same runs pass.
//!
//! Without `opencode` on `PATH` each test prints `SKIPPED: <test>: <reason>`
//! and passes, except under `CI`, which installs it (`.ci/run`). Every
//! `--ci` line is validated against `schemas/event.schema.json`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Dir, Run, collect, ended, pid_in, wait_until};
use crate::mock_api::{MockApi, Turn, Usage};
use serde_json::{Value, json};
use tempfile::TempDir;

fn opencode_or_skip() -> Option<PathBuf> {
    crate::common::tool_or_skip("opencode", "npm install -g opencode-ai")
}

/// What OpenCode offers the model when nothing is denied.
const ALL_TOOLS: [&str; 10] = [
    "bash",
    "edit",
    "glob",
    "grep",
    "read",
    "skill",
    "task",
    "todowrite",
    "webfetch",
    "write",
];

/// The configuration every run gets: the mock as Anthropic's API, a
/// default model, nothing shared or updated, and one agent of our own.
fn config(mock: &MockApi) -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"anthropic": {"options": {
            "baseURL": format!("{}/v1", mock.url()),
            "apiKey": "test"
        }}},
        "model": "anthropic/claude-sonnet-4-5",
        "share": "disabled",
        "autoupdate": false,
        "agent": {"reviewer": {
            "mode": "primary",
            "prompt": "You are the reviewer agent.",
            "model": "anthropic/claude-haiku-4-5"
        }}
    })
}

/// The offline environment described at the top, around `cmd`.
fn offline(cmd: &mut Command, mock: &MockApi, home: &Path) {
    let config_home = home.join(".config");
    std::fs::create_dir_all(config_home.join("opencode")).unwrap();
    std::fs::write(
        config_home.join("opencode/opencode.json"),
        config(mock).to_string(),
    )
    .unwrap();
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("OPENCODE_") || key.starts_with("ANTHROPIC_") {
            cmd.env_remove(&*key);
        }
    }
    for key in [
        "VOYAGE_PROVIDER",
        "EXECUTANT_PROVIDER",
        "http_proxy",
        "https_proxy",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", &config_home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_CLAUDE_CODE", "1")
        .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
        .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
        .env("npm_config_registry", "http://127.0.0.1:9/")
        // With a plugin configured (Voyage's guard) OpenCode waits for that
        // install; npm's retries on the closed port would take a minute.
        .env("npm_config_fetch_retries", "0")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(Stdio::null());
}

/// A workflow dir, a fresh `HOME` and a mock with `turns`.
struct Setup {
    dir: Dir,
    home: TempDir,
    mock: MockApi,
}

impl Setup {
    fn new(yaml: &str, turns: Vec<Turn>) -> Self {
        let dir = Dir::new();
        dir.write("wf.yaml", yaml);
        Self {
            dir,
            home: tempfile::tempdir().unwrap(),
            mock: MockApi::without_side_requests(turns),
        }
    }

    fn command(&self) -> Command {
        let mut cmd = self.dir.ci_command("wf.yaml", &[]);
        offline(&mut cmd, &self.mock, self.home.path());
        cmd.env("VOYAGE_PROVIDER", "opencode");
        cmd
    }

    fn run_with(&self, adjust: impl FnOnce(&mut Command)) -> Run {
        let mut cmd = self.command();
        adjust(&mut cmd);
        let start = Instant::now();
        let output = cmd.output().unwrap();
        collect(&output, start.elapsed())
    }

    fn run(&self) -> Run {
        self.run_with(|_| {})
    }

    fn seen(&self) -> String {
        self.mock.summary()
    }
}

/// The events without the runner's info logs, as short lines.
fn flow(ran: &Run) -> Vec<String> {
    ran.events
        .iter()
        .filter(|e| !(e["type"] == "log" && e["level"] == "info"))
        .map(crate::common::brief)
        .collect()
}

/// A `PATH` with `opencode` and the shells only: no `claude` to fall back
/// on.
fn path_with_only_opencode(dir: &Dir, opencode: &Path) -> String {
    let bin = dir.path().join(".only-opencode");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(opencode, bin.join("opencode")).unwrap();
    for shell in ["sh", "bash"] {
        if let Some(found) = crate::common::skip::find_on_path(shell) {
            std::os::unix::fs::symlink(found, bin.join(shell)).unwrap();
        }
    }
    bin.display().to_string()
}

// ------------------------------------------------------------ prompt steps

/// A prompt step on OpenCode: the prompt reaches the API as written (on
/// stdin, not quoted as `opencode run` quotes arguments), the model's text
/// and its Bash call become `output:text` and `output:tool` (named as
/// Claude names it), the tool really runs, and each model request's
/// tokens and cost come back as `output:context`, then one `output:cost`
/// and one `output:usage` whose sums are the report's totals.
#[test]
fn a_prompt_step_runs_on_opencode() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: hello\nsteps:\n  - name: greet\n    prompt: Say \"hi\" and make a file.\n",
        vec![
            Turn::tool(
                "bash",
                json!({"command": "echo made > made.txt && echo hi", "description": "make it"}),
            )
            .with_text("I'll make it.")
            .usage(Usage::new(1000, 50, 0, 0)),
            Turn::text("Done: made.txt exists.").usage(Usage::new(1200, 20, 0, 0)),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(
        flow(&ran),
        [
            "workflow:start",
            "start 0 greet",
            "text 0 I'll make it.",
            "output:tool",
            "output:context",
            "text 0 Done: made.txt exists.",
            "output:context",
            "output:cost",
            "output:usage",
            "complete 0 greet",
            "workflow:report",
            "workflow:complete",
        ],
        "{}",
        setup.seen()
    );
    let tool = ran.of("output:tool")[0];
    assert_eq!(tool["tool"], "Bash");
    assert_eq!(tool["input"]["command"], "echo made > made.txt && echo hi");
    let contexts: Vec<&Value> = ran
        .of("output:context")
        .iter()
        .map(|e| &e["tokens"])
        .collect();
    assert_eq!(contexts, [&json!(1000), &json!(1200)]);
    assert!(
        ran.events
            .iter()
            .filter(|e| e["type"].as_str().is_some_and(|t| t.starts_with("output:")))
            .all(|e| e["index"] == 0)
    );
    assert_eq!(
        std::fs::read_to_string(setup.dir.path().join("made.txt")).unwrap(),
        "made\n"
    );
    let infos: Vec<&str> = ran
        .of("log")
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(
        infos.contains(&"opencode run … (OpenCode's default model)"),
        "{infos:?}"
    );

    let usage = &ran.of("output:usage")[0]["usage"];
    assert_eq!(usage["inputTokens"], 2200);
    assert_eq!(usage["outputTokens"], 70);
    let report = &ran.of("workflow:report")[0]["report"];
    let cost = ran.of("output:cost")[0]["usd"].as_f64().unwrap();
    assert!(cost > 0.0, "OpenCode prices the snapshot's models");
    assert!((report["totalCostUsd"].as_f64().unwrap() - cost).abs() < 1e-12);
    assert_eq!(report["totalTokens"]["inputTokens"], 2200);
    assert_eq!(report["totalTokens"]["outputTokens"], 70);

    let requests = setup.mock.main_requests();
    assert_eq!(requests.len(), 2, "{}", setup.seen());
    assert_eq!(requests[0].body["model"], "claude-sonnet-4-5");
    assert_eq!(
        requests[0].user_texts(),
        ["Say \"hi\" and make a file."],
        "the prompt as written"
    );
    assert_eq!(requests[0].tool_names(), ALL_TOOLS);
    assert!(
        requests[1]
            .tool_results()
            .iter()
            .any(|r| r["content"].as_str().is_some_and(|c| c.contains("hi"))),
        "the tool's output went back: {:?}",
        requests[1].tool_results()
    );
}

/// The model and the agent: a step's `model:` and `agent:` first, then
/// `VOYAGE_MODEL`/`EXECUTANT_MODEL` and `VOYAGE_AGENT`/`EXECUTANT_AGENT`
/// for a step that names none, else OpenCode's configured default (the
/// loader's `sonnet`, which is Claude's alias, never reaches OpenCode).
#[test]
fn model_and_agent_come_from_the_step_then_the_environment() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        r"goal: models
steps:
  - name: pinned
    prompt: one
    model: anthropic/claude-opus-4-5
  - name: from the environment
    prompt: two
  - name: reviewing
    prompt: three
    agent: reviewer
",
        vec![Turn::text("1"), Turn::text("2"), Turn::text("3")],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("EXECUTANT_MODEL", "anthropic/claude-haiku-4-5");
    });
    ran.status_is(0);
    let requests = setup.mock.main_requests();
    let models: Vec<&str> = requests
        .iter()
        .map(|r| r.body["model"].as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        ["claude-opus-4-5", "claude-haiku-4-5", "claude-haiku-4-5"],
        "{}",
        setup.seen()
    );
    assert!(!requests[1].system_text().contains("reviewer agent"));
    assert!(
        requests[2]
            .system_text()
            .contains("You are the reviewer agent.")
    );

    // The agent from the environment, the model from the agent.
    let setup = Setup::new(
        "goal: agents\nsteps:\n  - name: env agent\n    prompt: four\n",
        vec![Turn::text("4")],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_AGENT", "reviewer");
    });
    ran.status_is(0);
    let request = &setup.mock.main_requests()[0];
    assert_eq!(request.body["model"], "claude-haiku-4-5");
    assert!(
        request
            .system_text()
            .contains("You are the reviewer agent.")
    );
}

/// `allowed_tools:` becomes `OPENCODE_PERMISSION`: a list offers those
/// tools only (names in any case, `Bash(git *)` as Bash), `[]` none, and
/// no list every tool.
#[test]
fn allowed_tools_become_opencode_permissions() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        r#"goal: tools
steps:
  - name: some
    prompt: one
    allowed_tools: ["Read", "Bash(git *)", "GREP"]
  - name: none
    prompt: two
    allowed_tools: []
  - name: all
    prompt: three
"#,
        vec![Turn::text("1"), Turn::text("2"), Turn::text("3")],
    );
    let ran = setup.run();
    ran.status_is(0);
    let offered: Vec<Vec<String>> = setup
        .mock
        .main_requests()
        .iter()
        .map(crate::mock_api::Request::tool_names)
        .collect();
    assert_eq!(offered.len(), 3, "{}", setup.seen());
    assert_eq!(offered[0], ["bash", "grep", "read"]);
    assert!(offered[1].is_empty(), "{:?}", offered[1]);
    assert_eq!(offered[2], ALL_TOOLS);
}

/// An API error fails the step with OpenCode's exit code and the error it
/// reported, as `WORKFLOW_AGENT_FAILED`.
#[test]
fn an_api_error_fails_the_step_with_its_message() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: broken\nsteps:\n  - name: ask\n    prompt: hi\n  - name: never\n    message: not reached\n",
        vec![Turn::error(
            400,
            "invalid_request_error",
            "mock: this request is refused",
        )],
    );
    let ran = setup.run();
    ran.status_is(1);
    let error = ran.last();
    assert_eq!(error["type"], "step:error", "{:?}", flow(&ran));
    assert_eq!(error["error"]["code"], "WORKFLOW_AGENT_FAILED");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Step \"ask\": opencode exited with code 1: "),
        "{message}"
    );
    assert!(
        message.contains("mock: this request is refused"),
        "{message}"
    );
    assert!(
        ran.stderr.contains("error[WORKFLOW_AGENT_FAILED]"),
        "{}",
        ran.stderr
    );
}

// ------------------------------------------------ judge and retrospective

/// With `VOYAGE_JUDGE_PROVIDER=opencode` the judge runs on OpenCode too:
/// offered Read, Grep and Glob only, asked for one JSON object in words,
/// its first JSON object is the verdict; a failing verdict sends the step
/// round again with the feedback, and the judge's cost counts in the
/// step's. No `claude` is on `PATH`.
#[test]
fn an_opencode_judge_grades_an_opencode_step() {
    let Some(opencode) = opencode_or_skip() else {
        return;
    };
    let setup = Setup::new(
        "goal: judged\nsteps:\n  - name: write\n    prompt: Write the docs.\n    llm_as_judge: true\n",
        vec![
            Turn::text("Wrote them."),
            Turn::text(
                "Looking.\n```json\n{\"pass\": false, \"reasoning\": \"thin\", \"feedback\": \"Add usage.\"}\n```",
            ),
            Turn::text("Added usage."),
            Turn::text("{\"pass\": true, \"reasoning\": \"fine\", \"feedback\": \"\"}"),
        ],
    );
    let path = path_with_only_opencode(&setup.dir, &opencode);
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_JUDGE_PROVIDER", "opencode")
            .env("PATH", &path);
    });
    ran.status_is(0);
    let verdicts: Vec<String> = ran
        .of("step:judge")
        .iter()
        .map(|e| format!("{} {}", e["verdict"], e["attempt"]))
        .collect();
    assert_eq!(verdicts, ["\"fail\" 1", "\"pass\" 2"], "{}", setup.seen());
    assert_eq!(ran.of("step:judge")[0]["feedback"], "Add usage.");
    assert_eq!(ran.of("output:cost").len(), 4, "attempts and judges");

    let requests = setup.mock.main_requests();
    assert_eq!(requests.len(), 4, "{}", setup.seen());
    assert_eq!(requests[1].tool_names(), ["glob", "grep", "read"]);
    let asked = requests[1].user_texts().join("\n");
    assert!(
        asked.contains("Answer with exactly one JSON object"),
        "{asked}"
    );
    assert!(asked.contains("\"pass\""), "the schema is shown: {asked}");
    let retry = requests[2].user_texts().join("\n");
    assert!(retry.starts_with("Write the docs."), "{retry}");
    assert!(retry.contains("Add usage."), "{retry}");
}

/// The retrospective follows the environment: with `VOYAGE_PROVIDER=
/// opencode` and no `claude` anywhere on `PATH`, the analysis of a fatal
/// failure comes from OpenCode, with no tools, as `step:retrospective`.
#[test]
fn the_retrospective_runs_on_opencode_without_claude() {
    let Some(opencode) = opencode_or_skip() else {
        return;
    };
    let analysis = json!({
        "summary": "The build step exits 4.",
        "rootCause": "exit 4 is hard-coded",
        "evidence": ["command: exit 4"],
        "suggestions": [{"step": "fail", "issue": "always fails", "change": "remove exit 4", "severity": "high"}],
        "workflowFixable": true,
        "refineInstruction": "Make the fail step succeed."
    });
    let setup = Setup::new(
        "goal: retro\nsteps:\n  - name: ask\n    prompt: Say hi.\n  - name: fail\n    command: exit 4\n",
        vec![
            Turn::text("hi"),
            Turn::text(&format!("Here is my analysis:\n{analysis}")),
        ],
    );
    let path = path_with_only_opencode(&setup.dir, &opencode);
    let ran = setup.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE").env("PATH", &path);
    });
    ran.status_is(1);
    let retro = ran.of("step:retrospective");
    assert_eq!(retro.len(), 1, "{:?}\n{}", flow(&ran), setup.seen());
    assert_eq!(
        retro[0]["retrospective"]["rootCause"],
        "exit 4 is hard-coded"
    );
    assert_eq!(retro[0]["index"], 1);
    let requests = setup.mock.main_requests();
    assert_eq!(requests.len(), 2, "{}", setup.seen());
    assert!(
        requests[1].tool_names().is_empty(),
        "no tools for the analysis"
    );
}

// ------------------------------------------------------------ processes

/// SIGTERM to the helper while OpenCode runs a tool: the run ends as
/// cancelled (exit 4), and neither OpenCode nor the command it started is
/// left running.
#[test]
fn a_stopped_run_leaves_no_opencode_process() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: stop\nsteps:\n  - name: long\n    prompt: wait\n",
        vec![Turn::tool(
            "bash",
            json!({"command": "echo $PPID > opencode.pid; echo $$ > tool.pid; touch started; sleep 60; touch outlived",
                   "description": "wait"}),
        )],
    );
    let start = Instant::now();
    let child = setup
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = setup.dir.path().join("started");
    assert!(
        wait_until(Duration::from_secs(60), || started.exists()),
        "the tool never started: {}",
        setup.seen()
    );
    let opencode = pid_in(
        &setup.dir.path().join("opencode.pid"),
        Duration::from_secs(5),
    )
    .unwrap();
    let tool = pid_in(&setup.dir.path().join("tool.pid"), Duration::from_secs(5)).unwrap();
    assert!(!ended(opencode), "opencode ({opencode}) runs the tool");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let output = child.wait_with_output().unwrap();
    let ran = collect(&output, start.elapsed());
    ran.status_is(4);
    assert_eq!(ran.last()["type"], "workflow:cancelled");
    assert!(
        wait_until(Duration::from_secs(15), || ended(opencode) && ended(tool)),
        "left running: opencode {opencode} ended {}, its tool {tool} ended {}",
        ended(opencode),
        ended(tool)
    );
    assert!(!setup.dir.path().join("outlived").exists());
}

/// A step's `timeout_seconds` stops OpenCode's whole run: exit 3, nothing
/// left behind. The limit is generous because it must cover OpenCode's
/// start (seconds, many more on a loaded machine) before the tool runs.
#[test]
fn a_timed_out_step_leaves_no_opencode_process() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: slow\nsteps:\n  - name: slow\n    prompt: wait\n    timeout_seconds: 45\n",
        vec![Turn::tool(
            "bash",
            json!({"command": "echo $PPID > opencode.pid; touch started; sleep 120; touch outlived",
                   "description": "wait"}),
        )],
    );
    let ran = setup.run();
    ran.status_is(3);
    assert!(
        ran.elapsed < Duration::from_secs(100),
        "stopped at its limit: {:?}",
        ran.elapsed
    );
    assert!(
        setup.dir.path().join("started").exists(),
        "the tool never started: {}",
        setup.seen()
    );
    let opencode = pid_in(
        &setup.dir.path().join("opencode.pid"),
        Duration::from_secs(5),
    )
    .unwrap();
    assert!(
        wait_until(Duration::from_secs(15), || ended(opencode)),
        "opencode ({opencode}) outlived its step"
    );
    assert!(!setup.dir.path().join("outlived").exists());
}

// ------------------------------------------------------------ plan

/// `workflow plan` on OpenCode: its draft comes back in words (OpenCode has
/// no schema option), the first JSON object of the answer is read, and
/// the file loads. The draft request asked for one JSON object.
#[test]
fn plan_runs_on_opencode() {
    if opencode_or_skip().is_none() {
        return;
    }
    let yaml = "goal: Say hello\nsteps:\n  - name: hello\n    command: echo hello\n";
    let setup = Setup::new(
        "goal: unused\nsteps:\n  - name: x\n    message: x\n",
        vec![Turn::text(&format!(
            "Here is the workflow:\n```json\n{}\n```",
            json!({"yaml": yaml, "summary": "one step"})
        ))],
    );
    let mut cmd =
        setup
            .dir
            .command(&["workflow", "plan", "--fast", "Say hello", "-o", "made.yaml"]);
    offline(&mut cmd, &setup.mock, setup.home.path());
    cmd.env("VOYAGE_PROVIDER", "opencode");
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{}", setup.seen());
    assert_eq!(
        std::fs::read_to_string(setup.dir.path().join("made.yaml")).unwrap(),
        yaml
    );
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .starts_with("plan: wrote made.yaml (\"Say hello\", 1 steps; 1 attempt, $"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let requests = setup.mock.main_requests();
    assert_eq!(requests.len(), 1, "{}", setup.seen());
    assert!(
        requests[0].tool_names().is_empty(),
        "the draft has no tools"
    );
    let asked = requests[0].user_texts().join("\n");
    assert!(
        asked.starts_with("Instructions that apply to this whole task:\nYou design workflows"),
        "{asked}"
    );
    assert!(
        asked.contains("Answer with exactly one JSON object"),
        "{asked}"
    );
}

// ------------------------------------------------------------------ guard

/// Voyage's OpenCode plugin, as shipped, run by node with its hook calling
/// the real helper: a destructive command and writes to a credential store
/// (by a file tool or inside a patch) are refused with the rule's reason;
/// a plain command, an ordinary edit and a read go through untouched; and
/// without a helper to ask, every judged call is refused.
#[test]
fn the_shipped_guard_plugin_translates_calls_for_the_hook() {
    if crate::common::tool_or_skip("node", "install Node.js").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Node 20 reads a `.js` file as CommonJS; the plugin is an ES module.
    let plugin = dir.path().join("voyage-guard.mjs");
    std::fs::write(
        &plugin,
        include_str!("../../../workflow/src/opencode/voyage-guard.js"),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/workflow/opencode_guard.mjs");
    let run = |helper: Option<&str>| -> Vec<Value> {
        let mut cmd = Command::new("node");
        cmd.arg(&script)
            .arg(&plugin)
            .env_remove("VOYAGE_GUARD_HELPER");
        if let Some(helper) = helper {
            cmd.env("VOYAGE_GUARD_HELPER", helper);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let calls = run(Some(env!("CARGO_BIN_EXE_voyage-helper")));
    let refused = |i: usize| calls[i]["refused"].as_str().unwrap_or_default().to_owned();
    assert_eq!(calls.len(), 6, "{calls:?}");
    assert!(
        refused(0).starts_with("Voyage refused this call: voyage: blocked rm-recursive-force"),
        "{calls:?}"
    );
    assert_eq!(
        calls[1]["allowed"],
        json!({"command": "echo hi", "description": "greet"})
    );
    assert!(refused(2).contains("credentials-write"), "{calls:?}");
    assert_eq!(calls[3]["allowed"]["filePath"], "src/main.rs");
    assert!(refused(4).contains("credentials-write"), "{calls:?}");
    assert_eq!(calls[5]["allowed"]["filePath"], "/home/u/.ssh/id_rsa");

    let unjudged = run(None);
    for i in [0, 1, 2, 3, 4] {
        assert!(
            unjudged[i]["refused"]
                .as_str()
                .is_some_and(|r| r.contains("VOYAGE_GUARD_HELPER is not set")),
            "{unjudged:?}"
        );
    }
    assert!(unjudged[5]["allowed"].is_object(), "a read is not judged");
}

/// A guarded OpenCode step, whatever OpenCode's own configuration says:
/// the model's `rm -rf "$HOME"` (`HOME` a temp dir with a canary) and its
/// write to `~/.ssh/authorized_keys` are refused before they run, the model
/// reads the rule's reason as the tool's error, each refusal is recorded,
/// and the command it tries next, an allowed one, runs.
#[test]
fn an_opencode_step_is_refused_what_the_denylist_refuses() {
    if opencode_or_skip().is_none() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let keys = home.path().join(".ssh/authorized_keys");
    let mut setup = Setup::new(
        "goal: tidy\nsteps:\n  - name: tidy\n    prompt: Tidy up.\n",
        vec![
            Turn::tool(
                "bash",
                json!({"command": "rm -rf \"$HOME\"", "description": "clean"}),
            ),
            Turn::tool(
                "write",
                json!({"filePath": keys.display().to_string(), "content": "ssh-ed25519 AAAA intruder"}),
            ),
            Turn::tool(
                "bash",
                json!({"command": "echo tidy > tidy.txt", "description": "note"}),
            ),
            Turn::text("Tidied."),
        ],
    );
    setup.home = home;
    let canary = setup.home.path().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    // The user's own extra configuration, naming no plugin, is kept and
    // the guard added to it.
    let ran = setup.run_with(|cmd| {
        cmd.env(
            "OPENCODE_CONFIG_CONTENT",
            r#"{"plugin": [], "permission": {"bash": "allow", "edit": "allow"}}"#,
        );
    });
    ran.status_is(0);
    assert_eq!(
        std::fs::read_to_string(&canary).unwrap(),
        "alive",
        "the home survived"
    );
    assert_eq!(
        std::fs::read_to_string(setup.dir.path().join("tidy.txt")).unwrap(),
        "tidy\n",
        "the allowed command ran"
    );
    assert!(!keys.exists(), "the key was not written");
    let requests = setup.mock.main_requests();
    assert_eq!(requests.len(), 4, "{}", setup.seen());
    let refused_write: Vec<String> = requests[2]
        .tool_results()
        .iter()
        .map(|r| r["content"].to_string())
        .collect();
    assert!(
        refused_write
            .iter()
            .any(|r| r.contains("Voyage refused this call") && r.contains("credentials-write")),
        "{refused_write:?}"
    );
    let answered: Vec<String> = requests[1]
        .tool_results()
        .iter()
        .map(|r| r["content"].to_string())
        .collect();
    assert!(
        answered
            .iter()
            .any(|r| r.contains("Voyage refused this call") && r.contains("rm-recursive-force")),
        "the model read the reason: {answered:?}"
    );
    // Each refusal is a step:denied event, as a claude step's is.
    let denied: Vec<(String, String)> = ran
        .of("step:denied")
        .iter()
        .map(|e| (e["tool"].to_string(), e["reason"].to_string()))
        .collect();
    assert!(
        denied
            .iter()
            .any(|(tool, reason)| tool == "\"Bash\"" && reason.contains("rm-recursive-force")),
        "{denied:?}"
    );
    assert!(
        denied
            .iter()
            .any(|(tool, reason)| tool == "\"Write\"" && reason.contains("credentials-write")),
        "{denied:?}"
    );
}

/// `VOYAGE_WORKFLOW_GUARD=off` runs OpenCode without the plugin, and says
/// so in the run's events.
#[test]
fn the_guard_can_be_turned_off_and_says_so() {
    if opencode_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: plain\nsteps:\n  - name: plain\n    prompt: Note it.\n",
        vec![
            Turn::tool(
                "bash",
                json!({"command": "echo noted > noted.txt", "description": "note"}),
            ),
            Turn::text("Noted."),
        ],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_WORKFLOW_GUARD", "off");
    });
    ran.status_is(0);
    assert!(setup.dir.path().join("noted.txt").exists());
    assert!(
        ran.of("log").iter().any(|e| e["level"] == "warn"
            && e["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("VOYAGE_WORKFLOW_GUARD=off"))),
        "{:?}",
        ran.of("log")
    );
}
