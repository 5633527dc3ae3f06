//! The `claude` provider: an agent [`Call`] run by the Claude Code CLI in
//! print mode, its `stream-json` output turned into the run's events.
//!
//! The CLI is looked up on `PATH` for every step (as Executant does, so a
//! run picks up an install made while it waits), runs as the leader of its
//! own process group with stdin from `/dev/null` (or the prompt, when it is
//! too long for the command line), and has its stdout and stderr read as
//! one stream of lines. What each line becomes:
//!
//! - an `assistant` line: `output:context` the first time a message id is
//!   seen (the tokens its request occupied), then `output:text` per text
//!   block and `output:tool` per tool call;
//! - the `result` line: `output:cost`, `output:usage`, `output:structured`
//!   when present, and its error (API errors are `is_error` with subtype
//!   `success`) kept for the failure message;
//! - a line that is not JSON (a warning, a usage error): `output:text`
//!   without colours, also kept for the failure message;
//! - everything else (`system`, `user` tool results, partial messages):
//!   nothing, so a tool's large output never floods the run.
//!
//! A non-zero exit fails the step with the CLI's own words; `timeout_seconds`
//! stops the CLI's whole group (exit code 3 for the run); a stopping signal
//! cancels. The same [`call`] serves every [`Call`] the
//! [`Provider`](super::provider::Provider) hands it: prompt steps, the
//! self-healing agent, the judge and the retrospective.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io;

use serde_json::{Map, Value};

use super::call::{Call, NOT_FOUND, NOT_STARTED, Permissions};
use super::child::{child_env, time_limit, timed_out};
use super::code;
use super::event::{Event, Level, TokenUsage};
use super::lines::LineSplitter;
use super::settings::STRUCTURED_RETRIES_VAR;
use super::step::{Context, Emit, Failure, StepError};
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// The program run for every step.
const PROGRAM: &str = "claude";
/// Longest stream-json line read whole. An assistant line carries one
/// content block, so only a huge written file comes near; beyond this a
/// line arrives in pieces that no longer parse, and is shown as text.
const MAX_JSON_LINE: usize = 64 << 20;
/// How many lines that were not JSON a failure message quotes (the last).
pub const QUOTED_LINES: usize = 20;

/// Runs the CLI once, its stream turned into events through `emit`.
pub(super) fn call(call: &Call<'_>, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError> {
    ctx.check_stopped()?;
    let args = arguments(call, ctx.settings.guard_hook.as_deref());
    let mut argv: Vec<&OsStr> = vec![OsStr::new(PROGRAM)];
    argv.extend(args.iter().map(OsString::as_os_str));
    emit.emit(Event::log(
        Level::Info,
        match call.model {
            Some(model) => format!("claude --print … (model {model})"),
            None => "claude --print … (the CLI's default model)".to_owned(),
        },
    ));

    let traceparent = ctx.traceparent();
    let mut env: Vec<(&str, &OsStr)> = child_env(ctx, &traceparent);
    // Fewer schema retries than the CLI's default, as Executant asks,
    // unless the user chose.
    if call.json_schema.is_some() && !ctx.settings.structured_retries_chosen {
        env.push((STRUCTURED_RETRIES_VAR, OsStr::new("2")));
    }
    let mut stream = Stream::default();
    let mut lines = LineSplitter::with_limit(MAX_JSON_LINE);
    let mut deliver = |line: String| stream.line(&line, emit);
    let job = Job {
        argv: &argv,
        cwd: None,
        timeout: time_limit(call.timeout_seconds),
        // The agent's own tool processes end with it; a step that hung on
        // one holding the pipe would be worse than losing it.
        leftovers: Leftovers::Stop,
        stderr: Stderr::Merged,
        env: &env,
        input: on_stdin(call).then_some(call.prompt.as_bytes()),
        stop: Some(&ctx.stop),
        stop_with_us: false,
    };
    let outcome = supervise(job, &mut |chunk| lines.feed(chunk, &mut deliver))
        .map_err(|e| not_started(call.name, &e))?;
    lines.finish(&mut deliver);

    match outcome.ending {
        Ending::Exited(0) => Ok(()),
        Ending::Exited(code) => {
            let mut message = stream.failure(call.name, code);
            if stream.quoted().iter().any(|l| l.contains("root/sudo")) {
                message.push_str(
                    "\nhint: as root, the Claude Code CLI refuses bypassPermissions unless \
                     IS_SANDBOX=1 is set; set it where the run is sandboxed (a container, a VM)",
                );
            }
            Err(StepError::Failed(Failure::failed(
                code::WORKFLOW_AGENT_FAILED,
                message,
            )))
        }
        Ending::TimedOut(_) => Err(timed_out(call.name, call.timeout_seconds)),
        Ending::Interrupted { .. } => Err(StepError::Cancelled),
    }
}

/// The tools Voyage's hook judges: the matcher of the plugin's own
/// `hooks/hooks.json`, so that a read (`Read`, `Grep`) starts no process.
const GUARDED_TOOLS: &str = "Bash|Write|Edit|MultiEdit|NotebookEdit|mcp__.*";

/// `--settings` text that attaches Voyage's PreToolUse hook, `hook` the
/// command: given on the command line, it holds whatever the user's own
/// settings say (hooks of every source run, and a denial wins).
pub(super) fn guard_settings(hook: &str) -> String {
    serde_json::json!({"hooks": {"PreToolUse": [{
        "matcher": GUARDED_TOOLS,
        "hooks": [{"type": "command", "command": hook, "timeout": 10}]
    }]}})
    .to_string()
}

/// The CLI's arguments after the program name, in Executant's order, then
/// the guard's `--settings` when `hook` (the guard's command) is given.
pub(super) fn arguments(call: &Call<'_>, hook: Option<&str>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--print".into()];
    // A prompt too long for one argument goes on stdin, where the CLI
    // reads it when none is given.
    if !on_stdin(call) {
        args.push(argument(call.prompt));
    }
    args.extend([
        "--output-format".into(),
        "stream-json".into(),
        "--verbose".into(),
    ]);
    if let Some(tools) = call.allowed_tools {
        // Steps run with bypassPermissions, under which `--allowedTools` (a
        // permission list, all Executant passes) restricts nothing: only
        // `--tools` takes tools away from the model. The list still goes to
        // `--allowedTools`, as Executant's does, but a pattern such as
        // `Bash(git *)` offers the whole of Bash.
        if !tools.is_empty() {
            args.push("--allowedTools".into());
            args.push(tools.join(",").into());
        }
        args.push("--tools".into());
        args.push(built_in_tools(tools).into());
    }
    args.extend([
        "--permission-mode".into(),
        permission_mode(call.permissions).into(),
    ]);
    if let Some(model) = call.model {
        args.push("--model".into());
        args.push(model.into());
    }
    if let Some(text) = call.append_system_prompt {
        args.push("--append-system-prompt".into());
        args.push(argument(text));
    }
    if let Some(schema) = call.json_schema {
        args.push("--json-schema".into());
        args.push(schema.into());
    }
    if let Some(hook) = hook {
        args.push("--settings".into());
        args.push(guard_settings(hook).into());
    }
    args
}

/// The CLI's `--permission-mode` for what the agent may do.
fn permission_mode(permissions: Permissions) -> &'static str {
    match permissions {
        Permissions::Bypass => "bypassPermissions",
        Permissions::Default => "default",
    }
}

/// The built-in tools an `allowed_tools:` list names, for `--tools`:
/// `Bash(git *)` is Bash, MCP tools (`mcp__…`) are not built in, and an
/// empty result (`""`) means none.
fn built_in_tools(allowed: &[String]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for entry in allowed {
        let name = entry.split('(').next().unwrap_or_default().trim();
        if !name.is_empty() && !name.starts_with("mcp__") && !names.contains(&name) {
            names.push(name);
        }
    }
    names.join(",")
}

fn not_started(step: &str, e: &io::Error) -> StepError {
    let (code, message) = match e.kind() {
        io::ErrorKind::NotFound => (
            NOT_FOUND,
            format!(
                "Step \"{step}\" needs the claude CLI, which is not on PATH; install Claude Code \
                 (npm install -g @anthropic-ai/claude-code), or set the step's provider: to another agent"
            ),
        ),
        io::ErrorKind::ArgumentListTooLong => (
            NOT_STARTED,
            format!(
                "Step \"{step}\": cannot start claude: its arguments and environment are longer \
                 than the system allows"
            ),
        ),
        _ => (
            NOT_STARTED,
            format!("Step \"{step}\": cannot start claude: {e}"),
        ),
    };
    StepError::Failed(Failure::failed(code, message))
}

/// Longest prompt passed as an argument: Linux takes at most 128 KiB in
/// one, and a little room is left.
const LONGEST_ARGUMENT: usize = 120 * 1024;

/// Whether `call`'s prompt goes on stdin rather than on the command line.
fn on_stdin(call: &Call<'_>) -> bool {
    call.prompt.len() > LONGEST_ARGUMENT
}

/// A command-line argument from text: a NUL cannot be passed in one, so it
/// becomes U+FFFD (a command's binary output can land in a prompt).
fn argument(text: &str) -> OsString {
    if text.contains('\0') {
        text.replace('\0', "\u{fffd}").into()
    } else {
        text.into()
    }
}

/// What one run of the CLI has said so far: fed its output line by line,
/// it emits the events and keeps what a failure message needs.
#[derive(Debug, Default)]
pub struct Stream {
    /// The id of the last assistant message, so each request's context is
    /// reported once although the CLI prints a line per content block.
    last_message: Option<String>,
    /// The result's error, when it reported one.
    error: Option<String>,
    /// The last lines that were not JSON.
    loose: Vec<String>,
    /// The tool calls asked for, by id (tool, input), until their result
    /// comes back: what a `step:denied` names.
    calls: std::collections::HashMap<String, (String, Value)>,
}

/// How every refusal of Voyage's hook begins (helper/src/scan/hook.rs).
const DENIAL: &str = "voyage: blocked ";

impl Stream {
    /// One line of the CLI's output, without its `\n`.
    pub fn line(&mut self, raw: &str, emit: &dyn Emit) {
        if let Some(message) = super::lines::json_object(raw, &mut self.loose, emit) {
            self.message(&message, emit);
        }
    }

    fn message(&mut self, message: &Map<String, Value>, emit: &dyn Emit) {
        match message.get("type").and_then(Value::as_str) {
            Some("assistant") => self.assistant(message, emit),
            Some("result") => self.result(message, emit),
            Some("user") => self.tool_results(message, emit),
            _ => {}
        }
    }

    fn assistant(&mut self, line: &Map<String, Value>, emit: &dyn Emit) {
        let Some(message) = line.get("message").and_then(Value::as_object) else {
            return;
        };
        let id = message.get("id").and_then(Value::as_str);
        if let Some(usage) = message.get("usage").and_then(Value::as_object)
            && (id.is_none() || id != self.last_message.as_deref())
        {
            emit.emit(Event::OutputContext {
                index: -1,
                tokens: token_usage(usage).context(),
            });
        }
        if let Some(id) = id {
            self.last_message = Some(id.to_owned());
        }
        let blocks = message.get("content").and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if let Some(text) = block.get("text").and_then(Value::as_str) {
                        emit.emit(Event::text(text));
                    }
                }
                Some("tool_use") => {
                    if let Some(id) = block.get("id").and_then(Value::as_str) {
                        self.calls.insert(
                            id.to_owned(),
                            (
                                block
                                    .get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                block.get("input").cloned().unwrap_or(Value::Null),
                            ),
                        );
                    }
                    emit.emit(Event::OutputTool {
                        index: -1,
                        tool: block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        // The schema promises an object; a CLI that sent none
                        // (or something else) gives an empty one.
                        input: block
                            .get("input")
                            .filter(|v| v.is_object())
                            .cloned()
                            .unwrap_or_else(|| Value::Object(Map::new())),
                    });
                }
                _ => {}
            }
        }
    }

    /// The results of tool calls (a `user` line): one that is an error
    /// saying Voyage's refusal is a `step:denied`. Read from the stream
    /// rather than from a record the hook would write: the stream is what
    /// the agent itself was told, it needs no file handed to the hook
    /// through Claude Code (whose own plugin hook, if the user enabled it,
    /// would not write one), and the agent's commands cannot add to it.
    fn tool_results(&mut self, line: &Map<String, Value>, emit: &dyn Emit) {
        let blocks = line
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let id = block.get("tool_use_id").and_then(Value::as_str);
            let call = id.and_then(|id| self.calls.remove(id));
            if block.get("is_error").and_then(Value::as_bool) != Some(true) {
                continue;
            }
            let text = result_text(block.get("content"));
            let Some(at) = text.find(DENIAL) else {
                continue;
            };
            let (tool, input) = call.unwrap_or_default();
            let target = super::event::tool_argument(&tool, &input);
            let reason = text.get(at..).unwrap_or_default().trim_end();
            emit.emit(Event::denied(tool, target, reason));
        }
    }

    fn result(&mut self, line: &Map<String, Value>, emit: &dyn Emit) {
        if let Some(usd) = line.get("total_cost_usd").and_then(Value::as_f64) {
            emit.emit(Event::OutputCost { index: -1, usd });
        }
        if let Some(usage) = line.get("usage").and_then(Value::as_object) {
            emit.emit(Event::OutputUsage {
                index: -1,
                usage: token_usage(usage),
            });
        }
        if let Some(data) = line.get("structured_output").filter(|v| !v.is_null()) {
            emit.emit(Event::OutputStructured { data: data.clone() });
        }
        let subtype = line.get("subtype").and_then(Value::as_str).unwrap_or("");
        let is_error = line.get("is_error").and_then(Value::as_bool) == Some(true);
        if is_error || subtype.starts_with("error") {
            let said = match line.get("result").and_then(Value::as_str) {
                Some(text) if !text.is_empty() => text.to_owned(),
                _ => errors_text(line.get("errors")),
            };
            self.error = Some(if said.is_empty() {
                subtype.to_owned()
            } else {
                format!("{subtype}: {said}")
            });
        }
    }

    /// The last lines that were not JSON, which a failure message quotes.
    pub fn quoted(&self) -> &[String] {
        &self.loose
    }

    /// The message of a step whose CLI exited with `code`: the code, the
    /// result's error, then the last lines that were not JSON.
    pub fn failure(&self, step: &str, code: i32) -> String {
        let mut message = format!("Step \"{step}\": claude exited with code {code}");
        if let Some(error) = &self.error {
            let _ = write!(message, ": {error}");
        }
        for line in &self.loose {
            let _ = write!(message, "\n{line}");
        }
        message
    }
}

/// The four counters of a usage object; a missing or odd one counts 0.
fn token_usage(usage: &Map<String, Value>) -> TokenUsage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    TokenUsage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_creation_tokens: count("cache_creation_input_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
    }
}

/// A tool result's text: a string, or its text blocks joined.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `errors: ["…", …]` of a result, joined.
fn errors_text(errors: Option<&Value>) -> String {
    errors
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use crate::model::PromptTask;

    type Events = Mutex<Vec<Event>>;

    fn task() -> PromptTask {
        PromptTask::sample()
    }

    fn feed(lines: &[Value]) -> (Stream, Vec<Value>) {
        let events = Events::default();
        let mut stream = Stream::default();
        for line in lines {
            stream.line(&line.to_string(), &events);
        }
        let out = events
            .into_inner()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        (stream, out)
    }

    #[test]
    fn arguments_follow_executants_order() {
        let mut t = task();
        let plain: Vec<String> = arguments(&Call::for_step(&t, "hi"), None)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            plain,
            [
                "--print",
                "hi",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "bypassPermissions",
                "--model",
                "sonnet"
            ]
        );
        t.allowed_tools = Some(vec![
            "Bash(git *)".into(),
            "Read".into(),
            "Bash".into(),
            "mcp__db__query".into(),
        ]);
        t.append_system_prompt = Some("be brief".into());
        let full: Vec<String> = arguments(&Call::for_step(&t, "hi"), None)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            full[5..9],
            [
                "--allowedTools",
                "Bash(git *),Read,Bash,mcp__db__query",
                "--tools",
                "Bash,Read"
            ]
        );
        assert_eq!(
            full[full.len() - 2..],
            ["--append-system-prompt", "be brief"]
        );
        let nul = arguments(&Call::for_step(&t, "a\0b"), None);
        assert_eq!(nul[1], "a\u{fffd}b");
        let long = "x".repeat(LONGEST_ARGUMENT + 1);
        let on_stdin = arguments(&Call::for_step(&t, &long), None);
        assert_eq!(on_stdin[..2], ["--print", "--output-format"]);
        t.allowed_tools = Some(Vec::new());
        let none = arguments(&Call::for_step(&t, "hi"), None);
        assert_eq!(none[5..7], ["--tools", ""]);
        assert_eq!(none[7], "--permission-mode");
    }

    #[test]
    fn a_call_that_may_not_act_asks_for_the_default_permission_mode() {
        let t = task();
        let reading = Call {
            permissions: Permissions::Default,
            ..Call::for_step(&t, "hi")
        };
        let args = arguments(&reading, None);
        let at = args
            .iter()
            .position(|a| a == "--permission-mode")
            .expect("a permission mode is always passed");
        assert_eq!(args[at + 1], "default");
        let default_model = Call {
            model: None,
            ..Call::for_step(&t, "hi")
        };
        let args = arguments(&default_model, None);
        assert!(!args.iter().any(|a| a == "--model"), "{args:?}");
    }

    #[test]
    fn assistant_lines_give_context_once_per_message_then_text_and_tools() {
        let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 100,
                           "cache_read_input_tokens": 1000, "output_tokens": 1});
        let (_, events) = feed(&[
            json!({"type": "system", "subtype": "init"}),
            json!({"type": "assistant", "message": {"id": "m1", "usage": usage,
                   "content": [{"type": "text", "text": "I'll run it.\nNow."}]}}),
            json!({"type": "assistant", "message": {"id": "m1", "usage": usage,
                   "content": [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}}]}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "content": "hi"}]}}),
            json!({"type": "assistant", "message": {"id": "m2", "usage": usage,
                   "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "done"}]}}),
            json!({"type": "assistant", "message": {"id": "m2",
                   "content": [{"type": "tool_use", "name": "Odd", "input": [1]}]}}),
        ]);
        assert_eq!(
            events,
            [
                json!({"type": "output:context", "index": -1, "tokens": 1110}),
                json!({"type": "output:text", "index": -1, "text": "I'll run it.\nNow."}),
                json!({"type": "output:tool", "index": -1, "tool": "Bash", "input": {"command": "echo hi"}}),
                json!({"type": "output:context", "index": -1, "tokens": 1110}),
                json!({"type": "output:text", "index": -1, "text": "done"}),
                json!({"type": "output:tool", "index": -1, "tool": "Odd", "input": {}}),
            ]
        );
    }

    #[test]
    fn the_result_gives_cost_usage_structured_data_and_its_error() {
        let (stream, events) = feed(&[json!({
            "type": "result", "subtype": "success", "is_error": true,
            "result": "API Error: 400 prompt is too long", "total_cost_usd": 0.25,
            "usage": {"input_tokens": 3, "output_tokens": "many"},
            "structured_output": {"answer": 42}
        })]);
        assert_eq!(
            events,
            [
                json!({"type": "output:cost", "index": -1, "usd": 0.25}),
                json!({"type": "output:usage", "index": -1, "usage": {
                    "inputTokens": 3, "outputTokens": 0, "cacheCreationTokens": 0, "cacheReadTokens": 0}}),
                json!({"type": "output:structured", "data": {"answer": 42}}),
            ]
        );
        assert_eq!(
            stream.failure("ask", 1),
            "Step \"ask\": claude exited with code 1: success: API Error: 400 prompt is too long"
        );

        let (stream, _) = feed(&[json!({"type": "result", "subtype": "error_max_turns",
            "errors": ["Reached maximum number of turns (1)"]})]);
        assert_eq!(
            stream.error.as_deref(),
            Some("error_max_turns: Reached maximum number of turns (1)")
        );
    }

    #[test]
    fn lines_that_are_not_json_are_text_without_colours_and_are_quoted_on_failure() {
        let events = Events::default();
        let mut stream = Stream::default();
        stream.line(
            "\u{1b}[31mError: When using --print, stream-json requires --verbose\r",
            &events,
        );
        stream.line("   ", &events);
        stream.line("[1, 2]", &events);
        let texts: Vec<Value> = events
            .into_inner()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        assert_eq!(
            texts,
            [
                json!({"type": "output:text", "index": -1,
                       "text": "Error: When using --print, stream-json requires --verbose"}),
                json!({"type": "output:text", "index": -1, "text": "[1, 2]"}),
            ]
        );
        assert_eq!(
            stream.failure("ask", 1),
            "Step \"ask\": claude exited with code 1\nError: When using --print, stream-json requires --verbose\n[1, 2]"
        );
        for n in 0..30 {
            stream.line(&format!("noise {n}"), &Events::default());
        }
        assert_eq!(stream.loose.len(), QUOTED_LINES);
        assert_eq!(stream.loose[0], "noise 10");
    }

    #[test]
    fn the_guard_is_attached_by_settings_and_its_refusals_are_step_denied() {
        let t = task();
        let args = arguments(
            &Call::for_step(&t, "hi"),
            Some("'/x y/voyage-helper' hook pre-tool-use"),
        );
        let at = args.iter().position(|a| a == "--settings").unwrap();
        let settings: Value = serde_json::from_str(&args[at + 1].to_string_lossy()).unwrap();
        let hook = &settings["hooks"]["PreToolUse"][0];
        assert_eq!(hook["matcher"], GUARDED_TOOLS);
        assert_eq!(
            hook["hooks"][0]["command"],
            "'/x y/voyage-helper' hook pre-tool-use"
        );

        let (_, events) = feed(&[
            json!({"type": "assistant", "message": {"id": "m1", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "rm -rf ~"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "false"}}]}}),
            json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                 "content": "Hook PreToolUse:Bash denied this tool: voyage: blocked rm-home (x): no\n"},
                {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": "exit 1"}]}}),
        ]);
        let denied: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "step:denied")
            .collect();
        assert_eq!(
            denied,
            [&json!({"type": "step:denied", "index": -1, "tool": "Bash",
                     "target": "rm -rf ~", "reason": "voyage: blocked rm-home (x): no"})]
        );
    }
}
