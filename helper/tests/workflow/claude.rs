//! Prompt steps end to end: `voyage-helper workflow run --ci` running the
//! REAL `claude` CLI (spec §1.2, §1.6, §2.1, §4.1 of
//! `docs/maintainer/executant.md`) against `mock_api`, a scripted Messages
//! API on 127.0.0.1, so that both sides of the provider are checked: the
//! events it makes of the CLI's stream, and what the CLI sent on its
//! behalf (model, system prompt, prompt text, tools, tool results).
//!
//! Without `claude` on `PATH` each test prints `SKIPPED: <test>: <reason>`
//! on stderr and passes, except under `CI`, which installs the CLI and so
//! fails instead.
//! Every `--ci` line is validated against `schemas/event.schema.json`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Dir, Run, collect, wait_until};
use crate::mock_api::{MockApi, Turn, Usage};
use serde_json::{Value, json};
use tempfile::TempDir;

/// `claude` on `PATH`, or `None` after saying the test is skipped. Under
/// `CI` a missing CLI fails the test: CI installs it, so its absence there
/// is a broken setup, not a reason to pass.
pub(crate) fn claude_or_skip() -> Option<PathBuf> {
    crate::common::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")
}

/// What every claude run here gets: a fresh `HOME` (no settings, no
/// credentials, no history of the developer's), the mock as the API, an API
/// key so the CLI does not try to log in, no telemetry or update checks, and
/// `IS_SANDBOX=1` because steps run with `--permission-mode
/// bypassPermissions`, which the CLI refuses as root without it. Retries are
/// off so that an error turn fails at once instead of after minutes of
/// backoff. Anything that would send the CLI elsewhere (another credential,
/// a cloud provider) or pick another provider is removed.
pub(crate) fn offline(cmd: &mut Command, mock: &MockApi, home: &Path) {
    for key in [
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "VOYAGE_PROVIDER",
        "EXECUTANT_PROVIDER",
        // Set inside a Claude Code session; a nested CLI behaves differently.
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HOME", home)
        .env("ANTHROPIC_BASE_URL", mock.url())
        .env("ANTHROPIC_API_KEY", "test")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .stdin(Stdio::null());
}

/// A workflow dir, a separate fresh `HOME` and a mock with `turns`.
struct Setup {
    dir: Dir,
    home: TempDir,
    mock: MockApi,
}

impl Setup {
    fn new(yaml: &str, turns: Vec<Turn>) -> Self {
        Self::in_dir(Dir::new(), yaml, turns)
    }

    /// For turns that must name paths inside the run's directory.
    fn in_dir(dir: Dir, yaml: &str, turns: Vec<Turn>) -> Self {
        dir.write("wf.yaml", yaml);
        Self {
            dir,
            home: tempfile::tempdir().unwrap(),
            mock: MockApi::start(turns),
        }
    }

    /// `workflow run --ci wf.yaml` with the offline environment.
    fn run(&self) -> Run {
        self.run_with(|_| {})
    }

    fn run_with(&self, adjust: impl FnOnce(&mut Command)) -> Run {
        let mut cmd = self.dir.ci_command("wf.yaml", &[]);
        offline(&mut cmd, &self.mock, self.home.path());
        adjust(&mut cmd);
        let start = Instant::now();
        let output = cmd.output().unwrap();
        collect(&output, start.elapsed())
    }

    /// The requests the mock got, for assertion messages.
    fn seen(&self) -> String {
        self.mock.summary()
    }
}

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| (*i).to_owned()).collect()
}

// ------------------------------------------------- the mock, on its own

/// The mock against the CLI directly, before any provider is involved: a
/// text reply reaches the stream's `result` line with a cost computed from
/// the mock's usage numbers, and the mock saw the prompt.
#[test]
fn the_mock_drives_the_real_cli() {
    let Some(claude) = claude_or_skip() else {
        return;
    };
    let mock = MockApi::start(vec![
        Turn::text("hi from the mock").usage(Usage::new(1000, 50, 2000, 3000)),
    ]);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(claude);
    cmd.args([
        "-p",
        "say hi",
        "--output-format",
        "stream-json",
        "--verbose",
    ])
    .current_dir(home.path());
    offline(&mut cmd, &mock, home.path());
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}\nrequests:\n{}",
        mock.summary()
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let result = lines
        .iter()
        .find(|l| l["type"] == "result")
        .unwrap_or_else(|| panic!("no result line:\n{stdout}"));
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "hi from the mock");
    assert_eq!(result["usage"]["input_tokens"], 1000);
    assert_eq!(result["usage"]["output_tokens"], 50);
    assert_eq!(result["usage"]["cache_creation_input_tokens"], 2000);
    assert_eq!(result["usage"]["cache_read_input_tokens"], 3000);
    // The CLI prices the usage itself; all that is certain is that it is
    // positive for a nonzero usage.
    let cost = result["total_cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0, "{result}");
    // The assistant line is the streamed message, reassembled from deltas.
    let assistant = lines
        .iter()
        .find(|l| l["type"] == "assistant")
        .unwrap_or_else(|| panic!("no assistant line:\n{stdout}"));
    assert_eq!(
        assistant["message"]["content"][0]["text"],
        "hi from the mock"
    );
    assert_eq!(assistant["message"]["id"], "msg_mock_001");

    let main = mock.main_requests();
    assert_eq!(main.len(), 1, "{}", mock.summary());
    assert_eq!(main[0].body["stream"], true);
    assert!(
        main[0].user_texts().iter().any(|t| t.contains("say hi")),
        "{:?}",
        main[0].user_texts()
    );
    assert!(!main[0].tool_names().is_empty());
    assert_eq!(mock.turns_used(), 1);
}

/// The mock's own HTTP, without the CLI (so it is checked even where
/// `claude` is missing): two requests on one kept-alive connection, the
/// JSON and the SSE shapes, an error turn repeated, the exhausted reply,
/// side traffic that takes no turn, and the record of it all.
#[test]
fn the_mock_speaks_http_on_one_connection() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mock = MockApi::start(vec![
        Turn::text("plain").usage(Usage::new(7, 3, 0, 0)),
        Turn::tool("Bash", json!({"command": "echo hi"})).with_text("streamed"),
        Turn::error(529, "overloaded_error", "busy").times(2),
    ]);
    let stream = std::net::TcpStream::connect(mock.url().trim_start_matches("http://")).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    // One request out, one response back: (status, content-type, body).
    let mut exchange = |body: Value| {
        let body = body.to_string();
        write!(
            writer,
            "POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let (mut length, mut kind) = (0, String::new());
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            let Some((name, value)) = line.trim_end().split_once(':') else {
                break;
            };
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "content-type" => kind = value.trim().to_owned(),
                _ => {}
            }
        }
        let mut reply = vec![0; length];
        reader.read_exact(&mut reply).unwrap();
        (status, kind, String::from_utf8(reply).unwrap())
    };
    let tools = json!([{"name": "Bash", "input_schema": {"type": "object"}}]);

    let (status, kind, body) =
        exchange(json!({"model": "m1", "max_tokens": 100, "tools": tools, "messages": []}));
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    let message: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "plain"}])
    );
    assert_eq!(message["model"], "m1");
    assert_eq!(message["stop_reason"], "end_turn");
    assert_eq!(message["usage"]["input_tokens"], 7);

    // A quota probe in between takes no turn.
    let (status, _, body) = exchange(json!({"model": "m1", "max_tokens": 1, "messages": []}));
    assert_eq!(status, 200);
    assert!(body.contains(crate::mock_api::SIDE_REPLY), "{body}");

    let (status, kind, body) = exchange(
        json!({"model": "m1", "max_tokens": 100, "tools": tools, "stream": true, "messages": []}),
    );
    assert_eq!((status, kind.as_str()), (200, "text/event-stream"));
    let events: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    assert_eq!(
        events,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    let data: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let json_deltas: String = data
        .iter()
        .filter_map(|d| d["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&json_deltas).unwrap(),
        json!({"command": "echo hi"})
    );
    let text_deltas: String = data
        .iter()
        .filter_map(|d| d["delta"]["text"].as_str())
        .collect();
    assert_eq!(text_deltas, "streamed");
    assert_eq!(data[0]["message"]["usage"]["output_tokens"], 1);
    assert_eq!(data[10]["delta"]["stop_reason"], "tool_use");
    assert_eq!(data[10]["usage"]["output_tokens"], 10);

    for _ in 0..2 {
        let (status, _, body) =
            exchange(json!({"max_tokens": 100, "tools": tools, "messages": []}));
        assert_eq!(status, 529);
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            error,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
        );
    }
    let (_, _, body) = exchange(json!({"max_tokens": 100, "tools": tools, "messages": []}));
    assert!(body.contains(crate::mock_api::EXHAUSTED), "{body}");

    let requests = mock.requests();
    assert_eq!(requests.len(), 6);
    assert!(
        requests
            .iter()
            .all(|r| r.method == "POST" && r.path == "/v1/messages")
    );
    assert_eq!(requests.iter().filter(|r| r.side).count(), 1);
    assert_eq!(requests[0].body["model"], "m1");
    assert_eq!(mock.main_requests().len(), 5);
    assert_eq!(mock.turns_used(), 3);
}

// ------------------------------------------------------------ helpers

/// The run's events in short form without the runner's `info` lines (what
/// the runner logs about starting the CLI is not part of the provider's
/// contract; warnings and errors stay in).
fn flow(ran: &Run) -> Vec<String> {
    ran.events
        .iter()
        .filter(|e| !(e["type"] == "log" && e["level"] == "info"))
        .map(crate::common::brief)
        .collect()
}

/// The `{inputTokens, …}` object of `output:usage` and the report.
fn tokens(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Value {
    json!({
        "inputTokens": input,
        "outputTokens": output,
        "cacheCreationTokens": cache_creation,
        "cacheReadTokens": cache_read,
    })
}

/// A `claude` on `PATH` that records how it was started (its arguments,
/// NUL-separated, and what its stdin is) in `argv-N` / `stdin-N` files of
/// `log` (N = 0, 1, … per invocation) and then becomes the real CLI. The
/// mock sees what the CLI sends; this sees what the provider asked for.
fn recording_shim(bin: &Path, log: &Path, real: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let script = format!(
        "#!/bin/sh\n\
         n=$(ls '{log}' | grep -c '^argv-')\n\
         readlink /proc/self/fd/0 > '{log}/stdin-'\"$n\"\n\
         printf '%s\\0' \"$@\" > '{log}/argv-'\"$n\"\n\
         exec '{real}' \"$@\"\n",
        log = log.display(),
        real = real.display(),
    );
    let path = bin.join("claude");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The arguments the shim recorded for invocation `n`.
fn recorded_argv(log: &Path, n: usize) -> Vec<String> {
    let raw = std::fs::read(log.join(format!("argv-{n}"))).unwrap();
    // Each argument ends with a NUL; an empty argument is an empty field.
    let Some(raw) = raw.strip_suffix(&[0]) else {
        return Vec::new();
    };
    raw.split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Recorded arguments without the guard's `--settings JSON`, which every
/// guarded call ends with (checked here): the rest is Executant's argv.
fn without_guard(mut argv: Vec<String>) -> Vec<String> {
    let n = argv.len();
    assert!(n >= 2 && argv[n - 2] == "--settings", "{argv:?}");
    assert!(argv[n - 1].contains("hook pre-tool-use"), "{argv:?}");
    argv.truncate(n - 2);
    argv
}

/// `PATH` with `first` in front.
fn path_with(first: &Path) -> String {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut all = vec![first.to_path_buf()];
    all.extend(std::env::split_paths(&rest));
    std::env::join_paths(all)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

// ---------------------------------------------------- one text step

/// A step whose agent just answers: the whole stream in order, the text,
/// the context size of the one API call, the cost and the usage of the
/// invocation, and the report summing them.
#[test]
fn a_text_only_step() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: text\nsteps:\n  - name: ask\n    prompt: say hello\n",
        vec![Turn::text("hello from the mock").usage(Usage::new(1000, 50, 2000, 3000))],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(
        flow(&ran),
        s(&[
            "workflow:start",
            "start 0 ask",
            "output:context",
            "text 0 hello from the mock",
            "output:cost",
            "output:usage",
            "complete 0 ask",
            "workflow:report",
            "workflow:complete",
        ]),
        "requests:\n{}",
        setup.seen()
    );
    // input + cache creation + cache read of the one call.
    assert_eq!(ran.of("output:context")[0]["tokens"], 6000);
    assert_eq!(ran.of("output:context")[0]["index"], 0);
    let usage = ran.of("output:usage")[0];
    assert_eq!(usage["index"], 0);
    assert_eq!(usage["usage"], tokens(1000, 50, 2000, 3000));
    // The CLI prices the usage with its own table, so only "some cost,
    // and the same number everywhere" is the provider's to keep.
    let cost = ran.of("output:cost")[0];
    assert_eq!(cost["index"], 0);
    let usd = cost["usd"].as_f64().unwrap();
    assert!(usd > 0.0, "{cost}");
    let report = &ran.of("workflow:report")[0]["report"];
    assert_eq!(report["totalCostUsd"].as_f64().unwrap(), usd);
    assert_eq!(report["totalTokens"], tokens(1000, 50, 2000, 3000));
    assert_eq!(report["stepNarrative"][0]["name"], "ask");
    assert_eq!(report["stepNarrative"][0]["costUsd"].as_f64().unwrap(), usd);

    // The CLI asked once, streaming, with the step's prompt.
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 1, "{}", setup.seen());
    assert_eq!(main[0].body["stream"], true);
    assert!(
        main[0].user_texts().iter().any(|t| t == "say hello"),
        "{:?}",
        main[0].user_texts()
    );
    // The default model is sonnet (the CLI resolves the alias to a full id).
    let model = main[0].body["model"].as_str().unwrap();
    assert!(model.contains("sonnet"), "{model}");
}

// ----------------------------------------------------- tool round-trip

/// The agent calls Bash, the real CLI runs it and sends the result back,
/// and the agent answers: `output:tool` with the call, one `output:context`
/// per API call (not per content block), and the usage summed over both
/// calls.
#[test]
fn a_tool_round_trip() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: tools\nsteps:\n  - name: run it\n    prompt: run echo hi\n    allowed_tools: [Bash]\n",
        vec![
            Turn::tool("Bash", json!({"command": "echo hi"}))
                .with_text("I'll run it.")
                .usage(Usage::new(100, 20, 1000, 0)),
            Turn::text("It printed hi").usage(Usage::new(150, 30, 0, 1000)),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(
        flow(&ran),
        s(&[
            "workflow:start",
            "start 0 run it",
            "output:context",
            "text 0 I'll run it.",
            "output:tool",
            "output:context",
            "text 0 It printed hi",
            "output:cost",
            "output:usage",
            "complete 0 run it",
            "workflow:report",
            "workflow:complete",
        ]),
        "requests:\n{}",
        setup.seen()
    );
    let tool = ran.of("output:tool")[0];
    assert_eq!(tool["index"], 0);
    assert_eq!(tool["tool"], "Bash");
    assert_eq!(tool["input"], json!({"command": "echo hi"}));
    let contexts: Vec<&Value> = ran
        .of("output:context")
        .iter()
        .map(|e| &e["tokens"])
        .collect();
    assert_eq!(contexts, [&json!(1100), &json!(1150)]);
    assert_eq!(
        ran.of("output:usage")[0]["usage"],
        tokens(250, 50, 1000, 1000)
    );

    // The second request carried the command's real output back.
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert!(main[0].tool_results().is_empty());
    let results = main[1].tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["tool_use_id"], "toolu_mock_1");
    assert_eq!(results[0]["is_error"], false, "{results:?}");
    assert!(
        main[1].user_texts().iter().any(|t| t.trim() == "hi"),
        "{results:?}"
    );
    assert_eq!(setup.mock.turns_used(), 2);
}

// ------------------------------------------------------- allowed_tools

/// `allowed_tools: []` means no tools: the CLI gets `--tools ""`, the
/// request it makes offers none, and a Bash call the model asks for
/// anyway is refused by the CLI, so nothing runs. (`--allowedTools`, all
/// Executant passes, is a permission list that bypassPermissions, which
/// every step runs with, overrides: observed with CLI 2.1.197, the request
/// still offered Bash and the call ran.)
#[test]
fn allowed_tools_empty_takes_every_tool_away() {
    let Some(real) = claude_or_skip() else {
        return;
    };
    let setup = Setup::new(
        "goal: no tools\nsteps:\n  - name: locked\n    prompt: do nothing\n    allowed_tools: []\n",
        vec![
            Turn::tool("Bash", json!({"command": "touch made-by-bash"})),
            Turn::text("done"),
        ],
    );
    let bin = tempfile::tempdir().unwrap();
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env("PATH", path_with(bin.path()));
    });
    ran.status_is(0);

    let argv = recorded_argv(log.path(), 0);
    let at = argv
        .iter()
        .position(|a| a == "--tools")
        .unwrap_or_else(|| panic!("no --tools in {argv:?}"));
    assert_eq!(argv[at + 1], "", "{argv:?}");
    assert!(!argv.contains(&"--allowedTools".to_owned()), "{argv:?}");

    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert_eq!(main[0].tool_names(), Vec::<String>::new());
    let results = main[1].tool_results();
    assert_eq!(results[0]["is_error"], true, "{results:?}");
    assert!(!setup.dir.path().join("made-by-bash").exists());
    assert_eq!(ran.texts(), ["done"]);
}

/// A list of tools is what the model is offered: `allowed_tools: [Read]`
/// leaves Bash out of the request.
#[test]
fn allowed_tools_is_the_set_the_model_is_offered() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: read only\nsteps:\n  - name: reader\n    prompt: look\n    allowed_tools: [Read]\n",
        vec![Turn::text("looked")],
    );
    let ran = setup.run();
    ran.status_is(0);
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 1, "{}", setup.seen());
    let offered = main[0].tool_names();
    assert!(offered.iter().any(|t| t == "Read"), "{offered:?}");
    assert!(!offered.iter().any(|t| t == "Bash"), "{offered:?}");
}

// --------------------------------------------------- the command line

/// The provider's side of the contract, seen from the CLI's process: the
/// arguments in Executant's order, the default model `sonnet`, the tool
/// list joined with commas, the appended system prompt last, and stdin
/// `/dev/null` even when the helper's own stdin is a pipe. And the
/// request the CLI then made: the model and the appended system prompt
/// reached the API.
#[test]
fn model_and_append_system_prompt_reach_the_cli_and_the_api() {
    let Some(real) = claude_or_skip() else {
        return;
    };
    let setup = Setup::new(
        r#"goal: flags
steps:
  - name: plain
    prompt: first question
  - name: tuned
    prompt: second question
    model: claude-test-model-1
    allowed_tools: [Bash, Read]
    append_system_prompt: "Answer like a pirate. MARK-7f3a"
"#,
        vec![Turn::text("one"), Turn::text("two")],
    );
    let bin = tempfile::tempdir().unwrap();
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env("PATH", path_with(bin.path())).stdin(Stdio::piped());
    });
    ran.status_is(0);
    assert_eq!(ran.texts(), ["one", "two"]);
    let indexes: Vec<&Value> = ran.of("output:text").iter().map(|e| &e["index"]).collect();
    assert_eq!(indexes, [&json!(0), &json!(1)]);

    assert_eq!(
        without_guard(recorded_argv(log.path(), 0)),
        s(&[
            "--print",
            "first question",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            "--model",
            "sonnet",
        ])
    );
    assert_eq!(
        without_guard(recorded_argv(log.path(), 1)),
        s(&[
            "--print",
            "second question",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash,Read",
            "--tools",
            "Bash,Read",
            "--permission-mode",
            "bypassPermissions",
            "--model",
            "claude-test-model-1",
            "--append-system-prompt",
            "Answer like a pirate. MARK-7f3a",
        ])
    );
    for n in 0..2 {
        let stdin = std::fs::read_to_string(log.path().join(format!("stdin-{n}"))).unwrap();
        assert_eq!(stdin.trim(), "/dev/null", "invocation {n}");
    }

    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert!(
        main[0].body["model"].as_str().unwrap().contains("sonnet"),
        "{}",
        main[0].body["model"]
    );
    assert!(!main[0].system_text().contains("MARK-7f3a"));
    // A full model id goes to the API as it is.
    assert_eq!(main[1].body["model"], "claude-test-model-1");
    assert!(
        main[1]
            .system_text()
            .contains("Answer like a pirate. MARK-7f3a"),
        "the appended system prompt is not in `system`"
    );
    assert!(
        main[1].user_texts().iter().any(|t| t == "second question"),
        "{:?}",
        main[1].user_texts()
    );
}

// ---------------------------------------------------------------- context

/// `context:` files are read relative to the working directory and put
/// before the prompt, each as `### <path>` and a fenced block; the mock
/// receives them in the prompt text itself.
#[test]
fn context_files_are_prepended_to_the_prompt() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        r#"goal: context
vars:
  notes: docs/notes.md
  data: data.txt
steps:
  - name: read
    prompt: Summarise the files above.
    context: [notes, data]
"#,
        vec![Turn::text("summary")],
    );
    setup
        .dir
        .write("docs/notes.md", "NOTE-LINE-ONE\nNOTE-LINE-TWO\n");
    setup.dir.write("data.txt", "DATA-42");
    let ran = setup.run();
    ran.status_is(0);

    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 1, "{}", setup.seen());
    let prompt = main[0]
        .user_texts()
        .into_iter()
        .find(|t| t.contains("Summarise the files above."))
        .unwrap_or_else(|| panic!("prompt not sent: {:?}", main[0].user_texts()));
    let at = |needle: &str| {
        prompt
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing from the prompt:\n{prompt}"))
    };
    assert!(prompt.starts_with("### docs/notes.md\n```"), "{prompt}");
    assert!(at("### docs/notes.md") < at("NOTE-LINE-ONE\nNOTE-LINE-TWO"));
    assert!(at("NOTE-LINE-TWO") < at("### data.txt"));
    assert!(at("### data.txt") < at("DATA-42"));
    assert!(at("DATA-42") < at("Summarise the files above."));
    assert!(prompt.ends_with("Summarise the files above."), "{prompt}");
    // Each file's block is closed before the next heading.
    assert_eq!(prompt.matches("```").count(), 4, "{prompt}");
}

// ---------------------------------------------------------------- output

/// `output:` on a prompt step is a post-condition: the step fails when the
/// agent did not create the file, and completes when it did (here the
/// real CLI runs a Bash call in the run's working directory).
#[test]
fn the_output_file_is_a_post_condition() {
    if claude_or_skip().is_none() {
        return;
    }
    let yaml = r#"goal: output
vars:
  report: out/report.md
steps:
  - name: write
    prompt: Write the report.
    output: report
"#;
    let missing = Setup::new(yaml, vec![Turn::text("I wrote nothing")]);
    let ran = missing.run();
    ran.status_is(1);
    let briefs = flow(&ran);
    assert_eq!(
        briefs[..3],
        s(&["workflow:start", "start 0 write", "output:context"])
    );
    assert_eq!(ran.texts(), ["I wrote nothing"]);
    let error = ran.last();
    assert_eq!(error["type"], "step:error", "{briefs:?}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("out/report.md"), "{message}");
    assert!(ran.of("workflow:complete").is_empty());

    let written = Setup::new(
        yaml,
        vec![
            Turn::tool(
                "Bash",
                json!({"command": "mkdir -p out && echo done > out/report.md"}),
            ),
            Turn::text("written"),
        ],
    );
    let ran = written.run();
    ran.status_is(0);
    assert_eq!(
        std::fs::read_to_string(written.dir.path().join("out/report.md")).unwrap(),
        "done\n"
    );
    assert_eq!(ran.texts(), ["written"]);
}

// ------------------------------------------------------------- API error

/// An API error the CLI does not retry (400) makes it exit 1 with the
/// error in its result: the step fails with that exit code and the API's
/// message, and the run exits 1 without a report.
#[test]
fn an_api_error_fails_the_step_with_its_message() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: error\nsteps:\n  - name: doomed\n    prompt: say hi\n  - name: never\n    command: touch never-ran\n",
        vec![Turn::error(
            400,
            "invalid_request_error",
            "mock: messages.0.content is malformed",
        )],
    );
    let ran = setup.run();
    ran.status_is(1);
    let error = ran.last();
    assert_eq!(error["type"], "step:error", "{:?}", flow(&ran));
    assert_eq!(error["index"], 0);
    assert_eq!(error["name"], "doomed");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("claude exited with code 1"), "{message}");
    assert!(
        message.contains("mock: messages.0.content is malformed"),
        "{message}"
    );
    assert!(ran.of("workflow:report").is_empty());
    assert!(ran.of("workflow:complete").is_empty());
    assert!(!setup.dir.path().join("never-ran").exists());
    // Asked once: a 400 is not retried.
    assert_eq!(setup.mock.main_requests().len(), 1, "{}", setup.seen());
}

// ------------------------------------------------------ claude missing

/// Without `claude` on `PATH` (only `sh` is there) a prompt step fails at
/// once, naming the program it needs; the run exits 1 and nothing reached
/// the API. (This one needs no CLI, so it always runs.)
#[test]
fn a_missing_claude_fails_the_step_naming_it() {
    let setup = Setup::new(
        "goal: missing\nsteps:\n  - name: ask\n    prompt: say hi\n",
        Vec::new(),
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("PATH", setup.dir.path_without_agents());
    });
    ran.status_is(1);
    let error = ran.last();
    assert_eq!(error["type"], "step:error", "{:?}", flow(&ran));
    assert_eq!(error["name"], "ask");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("claude"), "{message}");
    assert!(setup.mock.requests().is_empty(), "{}", setup.seen());
}

// ---------------------------------------------------------------- timeout

/// A prompt step over its `timeout_seconds` fails with the CLI stopped and
/// the run exits 3, without waiting for the command the agent was running
/// (whether that command is stopped too is the next test's question).
#[test]
fn a_prompt_step_timeout_exits_3() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: slow\nsteps:\n  - name: slow\n    prompt: wait\n    timeout_seconds: 2\n",
        vec![
            Turn::tool("Bash", json!({"command": "sleep 12"})),
            Turn::text("never sent"),
        ],
    );
    let ran = setup.run();
    ran.status_is(3);
    assert!(
        ran.elapsed.as_secs() < 10,
        "the run took {:?}: the CLI or its command outlived the timeout",
        ran.elapsed
    );
    let error = ran.last();
    assert_eq!(error["type"], "step:error", "{:?}", flow(&ran));
    assert_eq!(error["name"], "slow");
    assert!(ran.texts().iter().all(|t| t != "never sent"));
}

/// A timeout also stops the command the agent was running. The CLI starts
/// its Bash tool's shell in a session of its own (`setsid`; with `ps`: PGID
/// = SID = the shell's pid), out of reach of a signal to the CLI's process
/// group. Once the tool is under way the CLI stops it itself on SIGTERM;
/// when the CLI dies before it can (a timeout of one second caught it
/// starting the tool), the orphaned shell went on and created the file
/// after the run had exited 3. The supervisor now finds such processes by
/// the mark in their environment (`cli/run.rs` proves that part alone,
/// with a double fork); this test checks the end result with the real CLI.
#[test]
fn a_timed_out_step_leaves_no_agent_command_running() {
    if claude_or_skip().is_none() {
        return;
    }
    // The limit leaves the CLI time to start (about a second here) and
    // begin the tool; `started` proves the tool ran before the timeout.
    let setup = Setup::new(
        "goal: slow\nsteps:\n  - name: slow\n    prompt: wait\n    timeout_seconds: 5\n",
        vec![Turn::tool(
            "Bash",
            json!({"command": "echo $$ > agent.pid; touch started; sleep 8; touch outlived-the-timeout"}),
        )],
    );
    let ran = setup.run();
    ran.status_is(3);
    assert!(
        setup.dir.path().join("started").exists(),
        "the agent's command never started: {}",
        setup.seen()
    );
    // Once the command's shell has ended (stopped, or done after its
    // `sleep 8`), the marker says which.
    let pid = crate::common::pid_in(&setup.dir.path().join("agent.pid"), Duration::from_secs(5))
        .expect("the agent's command wrote its pid");
    assert!(
        wait_until(Duration::from_secs(20), || crate::common::ended(pid)),
        "the agent's command ({pid}) never ended"
    );
    let marker = setup.dir.path().join("outlived-the-timeout");
    assert!(
        !marker.exists(),
        "the agent's command was still running after the step timed out"
    );
}

// ---------------------------------------------------------------- forEach

/// A prompt step inside a `forEach` runs the CLI once per item, in order,
/// with `{{item}}` replaced in the prompt the API receives; every event
/// carries the loop's top-level index.
#[test]
fn a_prompt_step_in_a_for_each() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        r#"goal: loop
steps:
  - name: first
    command: echo before
  - name: each
    forEach: [alpha, beta]
    prompt: "Describe {{item}} briefly."
"#,
        vec![Turn::text("about alpha"), Turn::text("about beta")],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(ran.texts(), ["before", "about alpha", "about beta"]);
    let iterations: Vec<String> = ran
        .of("step:iteration")
        .iter()
        .map(|e| format!("{} {}", e["index"], e["item"]))
        .collect();
    assert_eq!(iterations, ["1 \"alpha\"", "1 \"beta\""]);
    for kind in ["output:context", "output:cost", "output:usage"] {
        let found = ran.of(kind);
        assert_eq!(found.len(), 2, "{kind}: {:?}", flow(&ran));
        assert!(found.iter().all(|e| e["index"] == 1), "{kind}: {found:?}");
    }
    let report = &ran.of("workflow:report")[0]["report"];
    let summed: f64 = ran
        .of("output:cost")
        .iter()
        .map(|e| e["usd"].as_f64().unwrap())
        .sum();
    assert!(summed > 0.0);
    assert!((report["totalCostUsd"].as_f64().unwrap() - summed).abs() < 1e-12);

    let prompts: Vec<String> = setup
        .mock
        .main_requests()
        .iter()
        .map(|r| {
            r.user_texts()
                .into_iter()
                .find(|t| t.starts_with("Describe "))
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        prompts,
        ["Describe alpha briefly.", "Describe beta briefly."]
    );
}

// ------------------------------------------------------------- the example

/// `examples/workflows/agent.yaml` as shipped: the first command's file
/// reaches the agent as context, the agent's Write call creates the
/// output file (it is offered Write and nothing else), and the last
/// command prints it.
#[test]
fn the_agent_example_runs_end_to_end() {
    if claude_or_skip().is_none() {
        return;
    }
    let yaml = std::fs::read_to_string(crate::common::examples().join("agent.yaml")).unwrap();
    let dir = Dir::new();
    let summary = dir.path().join("summary.md");
    let setup = Setup::in_dir(
        dir,
        &yaml,
        vec![
            Turn::tool(
                "Write",
                json!({"file_path": summary.display().to_string(), "content": "one\ntwo\nthree\n"}),
            ),
            Turn::text("Written."),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(
        ran.texts()[ran.texts().len() - 3..],
        s(&["one", "two", "three"])[..],
        "{:?}",
        ran.texts()
    );
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert_eq!(main[0].tool_names(), s(&["Write"]));
    let prompt = main[0].user_texts().join("\n");
    assert!(prompt.contains("### notes.txt\n```\n"), "{prompt}");
    assert!(prompt.contains("write them to summary.md"), "{prompt}");
}

// ----------------------------------------------------------- self-healing

/// A failing command with `self_healing: true`: the agent is shown the
/// command, its exit code and output, its Bash call fixes the cause, the
/// same command runs again and passes. The events say so in order, the
/// report's narrative keeps the history, and the output file holds both
/// runs' lines and the agent's words.
#[test]
fn self_healing_fixes_a_failing_command_and_runs_it_again() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        r#"goal: heal
vars:
  out: out.txt
steps:
  - name: check
    command: test -f ready && echo ready || { echo "ready is missing"; exit 3; }
    self_healing: true
    output: out
"#,
        vec![
            Turn::tool("Bash", json!({"command": "touch ready"})),
            Turn::text("Created the missing file."),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    let healing: Vec<String> = ran
        .of("step:healing")
        .iter()
        .map(|e| {
            format!(
                "{} {}/{} {}",
                e["phase"].as_str().unwrap(),
                e["attempt"],
                e["maxAttempts"],
                e["exitCode"]
            )
        })
        .collect();
    assert_eq!(healing, ["attempt-failed 1/5 3", "healed 2/5 null"]);
    assert_eq!(
        ran.texts(),
        ["ready is missing", "Created the missing file.", "ready"]
    );
    assert_eq!(
        ran.of("output:tool")[0]["input"]["command"],
        "touch ready",
        "{:?}",
        flow(&ran)
    );

    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    let prompt = main[0].user_texts().join("\n");
    for expected in [
        "Step: check\n",
        "Exit code: 3\n",
        "Run 1 of at most 5.",
        "ready is missing",
    ] {
        assert!(prompt.contains(expected), "{expected:?} not in {prompt}");
    }
    let offered = main[0].tool_names();
    for tool in ["Bash", "Read", "Write", "Edit", "Glob", "Grep"] {
        assert!(
            offered.iter().any(|t| t == tool),
            "{tool} not in {offered:?}"
        );
    }
    assert!(
        main[0].body["model"].as_str().unwrap().contains("sonnet"),
        "{}",
        main[0].body["model"]
    );

    let narrative = &ran.of("workflow:report")[0]["report"]["stepNarrative"][0];
    assert_eq!(
        narrative["qualityEvents"],
        json!([
            "self-healing attempt 1/5: attempt-failed (exit 3)",
            "self-healing attempt 2/5: healed"
        ])
    );
    assert_eq!(
        std::fs::read_to_string(setup.dir.path().join("out.txt")).unwrap(),
        "ready is missing\nCreated the missing file.\nready"
    );
}

/// When every run fails, the step fails after `max_healing_attempts` runs
/// with the last exit code, and the second agent is told what the first
/// one did.
#[test]
fn self_healing_gives_up_after_its_attempts() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: hopeless\nsteps:\n  - name: never\n    command: echo nope; exit 7\n    self_healing: true\n    max_healing_attempts: 3\n",
        vec![
            Turn::tool("Bash", json!({"command": "echo trying"})),
            Turn::text("Tried something."),
            Turn::text("Nothing to fix here."),
        ],
    );
    let ran = setup.run();
    ran.status_is(1);
    let phases: Vec<String> = ran
        .of("step:healing")
        .iter()
        .map(|e| format!("{} {}", e["phase"].as_str().unwrap(), e["attempt"]))
        .collect();
    assert_eq!(
        phases,
        ["attempt-failed 1", "attempt-failed 2", "exhausted 3"]
    );
    let error = &ran.last()["error"];
    assert_eq!(error["code"], "WORKFLOW_HEALING_EXHAUSTED");
    assert_eq!(
        error["message"],
        "Step \"never\" failed after 3 self-healing attempts (last exit code: 7)"
    );
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 3, "{}", setup.seen());
    let second = main[2].user_texts().join("\n");
    assert!(
        second.contains("- attempt 1 (exit 7): fix applied: [Bash] echo trying"),
        "{second}"
    );
    assert!(second.contains("Run 2 of at most 3."), "{second}");
}

// ------------------------------------------------------------------ judge

/// What the judge answers through the CLI's structured output tool.
fn verdict(pass: bool, feedback: &str) -> Turn {
    Turn::tool(
        "StructuredOutput",
        json!({"pass": pass, "reasoning": "checked", "feedback": feedback}),
    )
}

/// `llm_as_judge: true`: the judge rejects the first attempt with
/// feedback, the step runs again with that feedback and the rejected
/// answer in its prompt, and the judge accepts the second. The judge only
/// reads (Read, Grep, Glob, and the CLI's structured output tool), its
/// words are not the step's output, its cost is the step's.
#[test]
fn the_judge_sends_a_step_back_with_its_feedback() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: judged\nsteps:\n  - name: write\n    prompt: Write notes.md about the project.\n    llm_as_judge: true\n",
        vec![
            Turn::text("Done, trust me."),
            verdict(false, "notes.md does not exist."),
            Turn::text("Now it is really done."),
            verdict(true, ""),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    let verdicts: Vec<String> = ran
        .of("step:judge")
        .iter()
        .map(|e| {
            format!(
                "{} {}/{} {}",
                e["verdict"].as_str().unwrap(),
                e["attempt"],
                e["maxAttempts"],
                e["feedback"]
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        ["fail 1/5 \"notes.md does not exist.\"", "pass 2/5 null"]
    );
    assert_eq!(
        ran.texts(),
        ["Done, trust me.", "Now it is really done."],
        "the judge's words are not the step's output"
    );

    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 4, "{}", setup.seen());
    let judge_tools = main[1].tool_names();
    for tool in ["Read", "Grep", "Glob", "StructuredOutput"] {
        assert!(
            judge_tools.iter().any(|t| t == tool),
            "{tool} not in {judge_tools:?}"
        );
    }
    assert!(
        !judge_tools.iter().any(|t| t == "Bash" || t == "Write"),
        "{judge_tools:?}"
    );
    let judge_prompt = main[1].user_texts().join("\n");
    assert!(
        judge_prompt.contains("Write notes.md about the project."),
        "{judge_prompt}"
    );
    assert!(judge_prompt.contains("Done, trust me."), "{judge_prompt}");
    // The prompt is the last text block (the CLI puts a reminder first).
    let retry = main[2].user_texts().last().cloned().unwrap_or_default();
    assert!(
        retry.starts_with("Write notes.md about the project.\n\n---\n"),
        "{retry}"
    );
    assert!(retry.contains("notes.md does not exist."), "{retry}");
    assert!(retry.contains("\"\"\"\nDone, trust me.\n\"\"\""), "{retry}");

    // Two attempts and two verdicts: four calls' costs in the step's.
    assert_eq!(ran.of("output:cost").len(), 4);
    let narrative = &ran.of("workflow:report")[0]["report"]["stepNarrative"][0];
    assert_eq!(
        narrative["qualityEvents"],
        json!([
            "judge attempt 1/5: FAIL — notes.md does not exist.",
            "judge attempt 2/5: PASS"
        ])
    );
}

/// Five rejected attempts fail the step.
#[test]
fn the_judge_fails_a_step_after_five_rejections() {
    if claude_or_skip().is_none() {
        return;
    }
    let mut turns = Vec::new();
    for n in 1..=5 {
        turns.push(Turn::text(&format!("attempt {n}")));
        turns.push(verdict(false, &format!("still wrong ({n})")));
    }
    let setup = Setup::new(
        "goal: judged\nsteps:\n  - name: hard\n    prompt: Do the impossible.\n    llm_as_judge: true\n",
        turns,
    );
    let ran = setup.run();
    ran.status_is(1);
    assert_eq!(ran.of("step:judge").len(), 5);
    let error = &ran.last()["error"];
    assert_eq!(error["code"], "WORKFLOW_JUDGE_FAILED");
    assert_eq!(
        error["message"],
        "Step \"hard\" failed judge evaluation after 5 attempts"
    );
    assert_eq!(setup.mock.main_requests().len(), 10, "{}", setup.seen());
}

/// A judge that cannot answer (its API call fails) does not fail the step:
/// the attempt is accepted ungraded, with a warning.
#[test]
fn a_judge_that_cannot_answer_accepts_the_attempt_with_a_warning() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: judged\nsteps:\n  - name: write\n    prompt: Say hi.\n    llm_as_judge: true\n",
        vec![
            Turn::text("hi"),
            Turn::error(400, "invalid_request_error", "judge unavailable"),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert!(ran.of("step:judge").is_empty());
    let warnings: Vec<&Value> = ran
        .of("log")
        .into_iter()
        .filter(|e| e["level"] == "warn")
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", flow(&ran));
    let text = warnings[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("the judge could not grade attempt 1 of \"write\"; accepted ungraded:"),
        "{text}"
    );
    assert!(text.contains("judge unavailable"), "{text}");
}

/// A judged step with `output:` is checked once, after the judge: an
/// attempt that claimed success without the file is sent back, and the
/// second writes it.
#[test]
fn a_judged_step_checks_its_output_file_after_the_judge() {
    if claude_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    let notes = dir.path().join("notes.md");
    let setup = Setup::in_dir(
        dir,
        "goal: judged\nvars:\n  notes: notes.md\nsteps:\n  - name: write\n    prompt: Write notes.md.\n    output: notes\n    llm_as_judge: true\n",
        vec![
            Turn::text("Done."),
            verdict(false, "notes.md does not exist."),
            Turn::tool(
                "Write",
                json!({"file_path": notes.display().to_string(), "content": "notes\n"}),
            ),
            Turn::text("Written."),
            verdict(true, ""),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    assert_eq!(ran.of("step:judge").len(), 2, "{:?}", flow(&ran));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "notes\n");
}

/// A run stopped by its timeout is healed like a failed one: the agent is
/// told it was stopped, and the next run passes.
#[test]
fn self_healing_fixes_a_command_that_ran_past_its_timeout() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: heal\nsteps:\n  - name: wait\n    command: test -f ready || sleep 30\n    timeout_seconds: 1\n    self_healing: true\n",
        vec![
            Turn::tool("Bash", json!({"command": "touch ready"})),
            Turn::text("Created ready."),
        ],
    );
    let ran = setup.run();
    ran.status_is(0);
    let healing: Vec<String> = ran
        .of("step:healing")
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["phase"].as_str().unwrap(),
                e["attempt"],
                e["exitCode"]
            )
        })
        .collect();
    assert_eq!(healing, ["attempt-failed 1 124", "healed 2 null"]);
    let prompt = setup.mock.main_requests()[0].user_texts().join("\n");
    assert!(
        prompt.contains("Exit code: 124 (stopped: it ran past its timeout_seconds)"),
        "{prompt}"
    );
}

// ----------------------------------------------------------- retrospective

/// A failed run of a workflow with agent steps gets a retrospective: one
/// call with no tools of its own, given the error, the output and the
/// workflow file, whose answer becomes `step:retrospective` after the
/// `step:error`, completed where the model left fields out.
#[test]
fn a_failed_agent_run_gets_a_retrospective() {
    if claude_or_skip().is_none() {
        return;
    }
    let yaml = "goal: retro\nsteps:\n  - name: ask\n    prompt: Say hi.\n  - name: fail\n    command: echo boom; exit 4\n";
    let setup = Setup::new(
        yaml,
        vec![
            Turn::text("hi"),
            Turn::tool(
                "StructuredOutput",
                json!({"summary": "The command exits 4 on purpose.", "rootCause": "exit 4",
                       "evidence": ["boom"], "suggestions": [{"step": "fail", "issue": "always fails",
                       "change": "remove exit 4", "severity": "high"}],
                       "workflowFixable": true, "refineInstruction": "Drop `exit 4` from step fail."}),
            ),
        ],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE");
    });
    ran.status_is(1);
    let kinds: Vec<&str> = ran
        .events
        .iter()
        .rev()
        .take(2)
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["step:retrospective", "log"], "{:?}", flow(&ran));
    let retro = ran.last();
    assert_eq!(retro["index"], 1);
    assert_eq!(
        retro["retrospective"],
        json!({"step": "fail", "summary": "The command exits 4 on purpose.", "rootCause": "exit 4",
               "evidence": ["boom"], "suggestions": [{"step": "fail", "issue": "always fails",
               "change": "remove exit 4", "severity": "high"}],
               "workflowFixable": true, "refineInstruction": "Drop `exit 4` from step fail."})
    );
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert_eq!(main[1].tool_names(), s(&["StructuredOutput"]));
    let prompt = main[1].user_texts().join("\n");
    for expected in [
        "Its error:\nCommand \"fail\" exited with code 4",
        "```\nboom\n```",
        "command: echo boom; exit 4",
    ] {
        assert!(prompt.contains(expected), "{expected:?} not in {prompt}");
    }
}

/// A structured answer for a retrospective.
fn analysis() -> Turn {
    Turn::tool(
        "StructuredOutput",
        json!({"summary": "Item b is refused.", "rootCause": "test b != b",
               "evidence": ["item b"], "suggestions": [], "workflowFixable": false,
               "refineInstruction": ""}),
    )
}

/// A failure in a loop, after a prompt step (so a retrospective is wanted).
const LOOP_FAILS_AT_B: &str = "goal: retro\nsteps:\n  - name: ask\n    prompt: Say hi.\n  - name: each\n    forEach: [a, b, c]\n    command: echo \"item {{item}}\"; test {{item}} != b\n";

/// The retrospective pins no model: VOYAGE_MODEL (else EXECUTANT_MODEL)
/// reaches the CLI and the API; and its input says where in the loop the
/// step failed, which the error (naming only the loop) does not.
#[test]
fn the_retrospective_follows_the_environment_and_names_the_loop_position() {
    let Some(real) = claude_or_skip() else {
        return;
    };
    let setup = Setup::new(LOOP_FAILS_AT_B, vec![Turn::text("hi"), analysis()]);
    let bin = tempfile::tempdir().unwrap();
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE")
            .env("PATH", path_with(bin.path()))
            .env("EXECUTANT_MODEL", "claude-test-model-2");
    });
    ran.status_is(1);
    assert_eq!(ran.last()["type"], "step:retrospective", "{:?}", flow(&ran));
    assert_eq!(ran.last()["index"], 1);
    let argv = recorded_argv(log.path(), 1);
    let at = argv.iter().position(|a| a == "--model").unwrap();
    assert_eq!(argv[at + 1], "claude-test-model-2", "{argv:?}");
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    assert_eq!(main[1].body["model"], "claude-test-model-2");
    let prompt = main[1].user_texts().join("\n");
    assert!(
        prompt.contains("The failed step (each, failed at iteration 2 of 3 (item \"b\")):"),
        "{prompt}"
    );

    // Without a model in the environment, the CLI's own default: no
    // --model at all (the prompt step keeps its sonnet).
    let setup = Setup::new(LOOP_FAILS_AT_B, vec![Turn::text("hi"), analysis()]);
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE")
            .env("PATH", path_with(bin.path()));
    });
    ran.status_is(1);
    assert_eq!(ran.last()["type"], "step:retrospective", "{:?}", flow(&ran));
    assert!(recorded_argv(log.path(), 0).contains(&"--model".to_owned()));
    let argv = recorded_argv(log.path(), 1);
    assert!(!argv.contains(&"--model".to_owned()), "{argv:?}");
}

/// An analysis that fails says why, in the CLI's words (here the API's
/// error), and the run still ends with the step's own error; a provider
/// the environment names that this build cannot run is said too, and no
/// analysis is announced or asked for.
#[test]
fn a_failed_analysis_logs_its_real_cause() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        LOOP_FAILS_AT_B,
        vec![
            Turn::text("hi"),
            Turn::error(400, "invalid_request_error", "mock: no analysis today"),
        ],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE");
    });
    ran.status_is(1);
    assert!(ran.of("step:retrospective").is_empty());
    let warning = ran.last();
    assert_eq!(warning["type"], "log", "{:?}", flow(&ran));
    assert_eq!(warning["level"], "warn");
    let text = warning["text"].as_str().unwrap();
    assert!(
        text.starts_with("no retrospective of \"each\": the analysis failed: "),
        "{text}"
    );
    assert!(text.contains("mock: no analysis today"), "{text}");
    assert!(!text.contains("no usable answer"), "{text}");
    assert!(
        ran.stderr.contains("error[WORKFLOW_COMMAND_FAILED]"),
        "{}",
        ran.stderr
    );

    let elsewhere = Setup::new(
        "goal: retro\nsteps:\n  - name: ask\n    provider: claude\n    prompt: Say hi.\n  - name: fail\n    command: exit 4\n",
        vec![Turn::text("hi")],
    );
    let ran = elsewhere.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE")
            .env("VOYAGE_PROVIDER", "gemini");
    });
    ran.status_is(1);
    let texts: Vec<&str> = ran
        .of("log")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(
        !texts.iter().any(|t| t.starts_with("analysing")),
        "{texts:?}"
    );
    assert_eq!(
        texts.last().copied(),
        Some(
            "no retrospective of \"fail\": its provider \"gemini\" (VOYAGE_PROVIDER or EXECUTANT_PROVIDER) is not one this build runs"
        )
    );
    assert_eq!(
        elsewhere.mock.main_requests().len(),
        1,
        "{}",
        elsewhere.seen()
    );
}

// ------------------------------------------------------ report suggestion

/// The log file of a run in `dir`.
fn the_log(dir: &Path) -> String {
    let logs: Vec<PathBuf> = std::fs::read_dir(dir.join(".claude/voyage.local/logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    std::fs::read_to_string(&logs[0]).unwrap()
}

/// With VOYAGE_REPORT_SUGGESTION=1 a successful run asks one more call,
/// on haiku with no tools, grounded in the run narrative; its sentence is
/// the report's `suggestion` and the log's. Without it, no call is made
/// and the log says it was not requested.
#[test]
fn a_requested_suggestion_reaches_the_report_and_the_log() {
    if claude_or_skip().is_none() {
        return;
    }
    let yaml = "goal: suggest\nsteps:\n  - name: ask\n    prompt: Say hi.\n";
    let advice = "Give step ask `model: haiku`; its answer is one word.";
    let setup = Setup::new(
        yaml,
        vec![
            Turn::text("hi"),
            Turn::tool("StructuredOutput", json!({"suggestion": advice})),
        ],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_LOG", "1")
            .env("EXECUTANT_REPORT_SUGGESTION", "1");
    });
    ran.status_is(0);
    let report = &ran.of("workflow:report")[0]["report"];
    assert_eq!(report["suggestion"], advice);
    let summed: f64 = ran
        .of("output:cost")
        .iter()
        .map(|e| e["usd"].as_f64().unwrap())
        .sum();
    assert_eq!(report["totalCostUsd"].as_f64().unwrap(), summed);
    let main = setup.mock.main_requests();
    assert_eq!(main.len(), 2, "{}", setup.seen());
    let model = main[1].body["model"].as_str().unwrap();
    assert!(model.contains("haiku"), "{model}");
    assert_eq!(main[1].tool_names(), s(&["StructuredOutput"]));
    let prompt = main[1].user_texts().join("\n");
    assert!(prompt.contains("1. ask — "), "{prompt}");
    assert!(prompt.contains("passed clean"), "{prompt}");
    let log = the_log(setup.dir.path());
    assert!(
        log.contains(&format!("  Efficiency suggestion: {advice}")),
        "{log}"
    );

    let plain = Setup::new(yaml, vec![Turn::text("hi")]);
    let ran = plain.run_with(|cmd| {
        cmd.env("VOYAGE_LOG", "1");
    });
    ran.status_is(0);
    assert!(
        ran.of("workflow:report")[0]["report"]
            .get("suggestion")
            .is_none()
    );
    assert_eq!(plain.mock.main_requests().len(), 1, "{}", plain.seen());
    assert!(the_log(plain.dir.path()).contains("  Efficiency suggestion: not requested"));
}

/// A suggestion that cannot be had (here the API refuses it) fails
/// nothing: the report goes out without one, a warning gives the cause,
/// and the log says none came rather than "not requested".
#[test]
fn a_failed_suggestion_leaves_the_report_alone() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: suggest\nsteps:\n  - name: ask\n    prompt: Say hi.\n",
        vec![
            Turn::text("hi"),
            Turn::error(400, "invalid_request_error", "mock: no advice today"),
        ],
    );
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_LOG", "1")
            .env("VOYAGE_REPORT_SUGGESTION", "1");
    });
    ran.status_is(0);
    assert_eq!(ran.last()["type"], "workflow:complete");
    let report = &ran.of("workflow:report")[0]["report"];
    assert!(report.get("suggestion").is_none(), "{report}");
    let warning = ran
        .of("log")
        .into_iter()
        .find(|e| e["level"] == "warn")
        .unwrap_or_else(|| panic!("no warning: {:?}", flow(&ran)));
    let text = warning["text"].as_str().unwrap();
    assert!(text.starts_with("no efficiency suggestion: "), "{text}");
    assert!(text.contains("mock: no advice today"), "{text}");
    let log = the_log(setup.dir.path());
    assert!(log.contains("  Efficiency suggestion: none came"), "{log}");
}

/// No retrospective with `--no-retrospective`, and none for a workflow
/// without agent steps: a shell command failing starts no agent call.
#[test]
fn no_retrospective_when_turned_off_or_without_agent_steps() {
    if claude_or_skip().is_none() {
        return;
    }
    let agent = Setup::new(
        "goal: retro\nsteps:\n  - name: ask\n    prompt: Say hi.\n  - name: fail\n    command: exit 4\n",
        vec![Turn::text("hi")],
    );
    let ran = agent.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE");
        cmd.arg("--no-retrospective");
    });
    ran.status_is(1);
    assert!(ran.of("step:retrospective").is_empty());
    assert_eq!(agent.mock.main_requests().len(), 1, "{}", agent.seen());

    let shell = Setup::new(
        "goal: shell\nsteps:\n  - name: fail\n    command: exit 4\n",
        Vec::new(),
    );
    let ran = shell.run_with(|cmd| {
        cmd.env_remove("VOYAGE_RETROSPECTIVE");
    });
    ran.status_is(1);
    assert!(ran.of("step:retrospective").is_empty());
    assert!(shell.mock.requests().is_empty(), "{}", shell.seen());
}

/// A prompt longer than one command-line argument may be (its context
/// files make it 200 KB here) goes to the CLI on stdin, and reaches the API
/// whole.
#[test]
fn a_prompt_too_long_for_the_command_line_goes_on_stdin() {
    let Some(real) = claude_or_skip() else {
        return;
    };
    let setup = Setup::new(
        "goal: big\nvars:\n  big: big.txt\nsteps:\n  - name: read\n    prompt: Summarise the file above. END-MARK-42\n    context: [big]\n",
        vec![Turn::text("It is long.")],
    );
    let line = "all work and no play makes a long prompt\n";
    std::fs::write(setup.dir.path().join("big.txt"), line.repeat(5000)).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env("PATH", path_with(bin.path()));
    });
    ran.status_is(0);
    assert_eq!(ran.texts(), ["It is long."]);
    let argv = recorded_argv(log.path(), 0);
    assert!(
        argv.iter().all(|a| a.len() < 1000),
        "the prompt is not an argument: {:?}",
        argv.iter().map(String::len).collect::<Vec<_>>()
    );
    let prompt = setup.mock.main_requests()[0].user_texts().join("\n");
    assert!(prompt.len() > 200_000, "{}", prompt.len());
    assert!(
        prompt.contains("### big.txt\n```\nall work"),
        "{}",
        &prompt[..200]
    );
    assert!(
        prompt.contains("Summarise the file above. END-MARK-42"),
        "the end was lost"
    );
}

// ------------------------------------------------------------ the guard

/// A step whose model runs `rm -rf "$HOME"` under bypassPermissions, with
/// no Voyage plugin in the user's settings (a fresh HOME): the hook the
/// runner attaches refuses it, the model is told why, the canary in HOME
/// is still there, and a `step:denied` event records the refusal.
#[test]
fn the_guard_denies_a_destructive_call_of_a_prompt_step() {
    if claude_or_skip().is_none() {
        return;
    }
    let setup = Setup::new(
        "goal: guard\nsteps:\n  - name: wipe\n    prompt: clean up\n",
        vec![
            Turn::tool("Bash", json!({"command": "rm -rf \"$HOME\""})),
            Turn::text("I could not."),
        ],
    );
    std::fs::write(setup.home.path().join("canary"), "still here").unwrap();
    let ran = setup.run();
    ran.status_is(0);
    assert!(setup.home.path().join("canary").exists());
    let denied = ran.of("step:denied");
    assert_eq!(denied.len(), 1, "{}", setup.seen());
    assert_eq!(denied[0]["index"], 0);
    assert_eq!(denied[0]["tool"], "Bash");
    assert_eq!(denied[0]["target"], "rm -rf \"$HOME\"");
    let reason = denied[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("voyage: blocked "), "{reason}");
    let results = setup.mock.main_requests()[1].tool_results();
    assert_eq!(results[0]["is_error"], true, "{results:?}");
    assert!(
        results[0].to_string().contains("voyage: blocked "),
        "{results:?}"
    );
    let narrative = &ran.of("workflow:report")[0]["report"]["stepNarrative"][0];
    assert!(
        narrative["qualityEvents"][0]
            .as_str()
            .unwrap()
            .starts_with("denied Bash"),
        "{narrative}"
    );
}

/// A write to `~/.ssh/authorized_keys` through the Write tool is refused
/// the same way, and the file is never made.
#[test]
fn the_guard_denies_a_write_to_authorized_keys() {
    if claude_or_skip().is_none() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let keys = home.path().join(".ssh/authorized_keys");
    let setup = Setup {
        dir: Dir::new(),
        home,
        mock: MockApi::start(vec![
            Turn::tool(
                "Write",
                json!({"file_path": keys.display().to_string(), "content": "ssh-ed25519 AAAA x"}),
            ),
            Turn::text("done"),
        ]),
    };
    setup.dir.write(
        "wf.yaml",
        "goal: guard\nsteps:\n  - name: keys\n    prompt: add my key\n",
    );
    let ran = setup.run();
    ran.status_is(0);
    assert!(!keys.exists());
    let denied = ran.of("step:denied");
    assert_eq!(denied.len(), 1, "{}", setup.seen());
    assert_eq!(denied[0]["tool"], "Write");
    assert_eq!(denied[0]["target"], keys.display().to_string());
}
/// With VOYAGE_WORKFLOW_GUARD=off no hook is attached: a harmless call
/// runs as it would anyway, nothing is denied, and the run's report says
/// the guard was off.
#[test]
fn the_guard_can_be_turned_off_and_the_report_says_so() {
    let Some(real) = claude_or_skip() else {
        return;
    };
    let setup = Setup::new(
        "goal: guard\nsteps:\n  - name: touch\n    prompt: make a file\n",
        vec![
            Turn::tool("Bash", json!({"command": "touch made"})),
            Turn::text("done"),
        ],
    );
    let bin = tempfile::tempdir().unwrap();
    let log = tempfile::tempdir().unwrap();
    recording_shim(bin.path(), log.path(), &real);
    let ran = setup.run_with(|cmd| {
        cmd.env("VOYAGE_WORKFLOW_GUARD", "off")
            .env("PATH", path_with(bin.path()));
    });
    ran.status_is(0);
    let argv = recorded_argv(log.path(), 0);
    assert!(!argv.iter().any(|a| a == "--settings"), "{argv:?}");
    assert!(setup.dir.path().join("made").exists());
    assert!(ran.of("step:denied").is_empty());
    assert_eq!(ran.of("workflow:report")[0]["report"]["guard"], "off");
    assert!(ran.of("log").iter().any(|l| {
        l["text"]
            .as_str()
            .unwrap()
            .contains("VOYAGE_WORKFLOW_GUARD=off")
    }));
}
