//! The `opencode` provider: an agent [`Call`] run by the OpenCode CLI
//! (`opencode run --format json`), its JSON events turned into the run's
//! events (Executant's OpenCode provider, `docs/maintainer/executant.md`
//! §4.2).
//!
//! The command line is `opencode run --format json --title=<call>
//! [--model=<m>] [--agent=<a>] [--dangerously-skip-permissions]`:
//!
//! - the model is the call's (a step's written `model:`, else
//!   `VOYAGE_MODEL` / `EXECUTANT_MODEL`: see
//!   [`Provider::step_model`](super::provider::Provider::step_model)),
//!   else OpenCode's configured default; OpenCode names models
//!   `provider/model`;
//! - the agent is the step's `agent:`, else `VOYAGE_AGENT` /
//!   `EXECUTANT_AGENT`, else OpenCode's default;
//! - `--dangerously-skip-permissions` when the call may act without asking
//!   (a step, a fixing agent); a judge or an analysis runs without it, so
//!   whatever would need asking is refused;
//! - `--title` names the session after the call, which also spares the
//!   extra model request OpenCode makes to invent a title.
//!
//! Every call runs under Voyage's guard ([`guard`]): the OpenCode plugin
//! Voyage ships, loaded through `OPENCODE_CONFIG_CONTENT`, has
//! `voyage-helper hook pre-tool-use` judge each command and file write,
//! unless `VOYAGE_WORKFLOW_GUARD=off`.
//!
//! Unlike Executant, the prompt goes on stdin rather than as an argument:
//! `opencode run` joins its arguments back into one message and wraps any
//! argument holding a space in double quotes, so the model would read the
//! prompt quoted (and a long one could not be passed at all). Stdin is
//! read whole when it is not a terminal.
//!
//! `allowed_tools:` becomes `OPENCODE_PERMISSION` (see [`permission`]):
//! absent, no variable (every tool); `[]`, every known tool denied; a list,
//! every known tool not in it denied, names matched case-insensitively
//! (`Bash` and `bash` are the same tool; `Bash(git *)` is Bash). OpenCode
//! removes a denied tool from what it offers the model.
//!
//! What each output line becomes:
//!
//! - `text` (`part.text`): `output:text`, unless OpenCode wrote it itself
//!   (`synthetic`);
//! - `tool_use` (`part.tool`, `part.state.input`): `output:tool`, the tool
//!   named as Claude names it (`bash` → `Bash`) so that consumers see one
//!   vocabulary;
//! - `step_finish` (one per model request): `output:context` (the request's
//!   input and cache tokens), and its `cost` and `tokens` added up, given
//!   as one `output:cost` and one `output:usage` when the CLI ends, as the
//!   claude provider gives its result line's;
//! - `error` (`error.data.message`, else `error.name`): kept for the
//!   failure message;
//! - a line that is not JSON: `output:text` without colours, also kept for
//!   the failure message; anything else (`step_start`, `reasoning`,
//!   `done`): nothing.
//!
//! A call with a JSON Schema asks for one JSON object in words (OpenCode
//! has no schema option) and gets the first JSON object of the answer's
//! text as `output:structured`. The process handling is the claude
//! provider's: its own process group, stopped whole on a timeout or a
//! stopping signal.

mod guard;

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io;

use serde_json::{Map, Value};

use super::call::{Call, NOT_FOUND, NOT_STARTED, Permissions};
use super::child::{child_env, time_limit, timed_out};
use super::code;
use super::event::{Event, Level, TokenUsage};
use super::lines::LineSplitter;
use super::step::{Context, Emit, Failure, StepError};
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// The program run for every call.
const PROGRAM: &str = "opencode";
/// The variable OpenCode reads extra permission rules from (JSON).
pub(super) const PERMISSION_VAR: &str = "OPENCODE_PERMISSION";
/// Longest JSON line read whole (a tool's output rides in its line).
const MAX_JSON_LINE: usize = 64 << 20;
/// Most text searched for a structured answer's JSON object.
const MAX_ANSWER: usize = 4 << 20;

/// The tools OpenCode has, by the permission that governs each: denying a
/// permission removes its tools. `edit` governs writing files whichever
/// tool writes, so allowing any of them allows all.
const PERMISSIONS: [(&str, &[&str]); 15] = [
    ("bash", &["bash"]),
    ("read", &["read"]),
    (
        "edit",
        &["edit", "write", "patch", "multiedit", "apply_patch"],
    ),
    ("glob", &["glob"]),
    ("grep", &["grep"]),
    ("list", &["list", "ls"]),
    ("task", &["task"]),
    ("skill", &["skill"]),
    ("todowrite", &["todowrite"]),
    ("todoread", &["todoread"]),
    ("webfetch", &["webfetch"]),
    ("websearch", &["websearch"]),
    ("codesearch", &["codesearch"]),
    ("lsp", &["lsp"]),
    ("question", &["question", "askuserquestion"]),
];

/// OpenCode's tool names as Claude Code spells them.
const CLAUDE_NAMES: [(&str, &str); 16] = [
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("multiedit", "MultiEdit"),
    ("patch", "Patch"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("list", "LS"),
    ("task", "Task"),
    ("skill", "Skill"),
    ("todowrite", "TodoWrite"),
    ("todoread", "TodoRead"),
    ("webfetch", "WebFetch"),
    ("websearch", "WebSearch"),
    ("question", "AskUserQuestion"),
];

/// Runs the CLI once, its stream turned into events through `emit`.
pub(super) fn call(call: &Call<'_>, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError> {
    ctx.check_stopped()?;
    let agent = call.agent.or(ctx.settings.agent.as_deref());
    let args = arguments(call, agent);
    let mut argv: Vec<&OsStr> = vec![OsStr::new(PROGRAM)];
    argv.extend(args.iter().map(OsString::as_os_str));
    emit.emit(Event::log(
        Level::Info,
        match call.model {
            Some(model) => format!("opencode run … (model {model})"),
            None => "opencode run … (OpenCode's default model)".to_owned(),
        },
    ));

    let rules = permission(call.allowed_tools);
    let traceparent = ctx.traceparent();
    let mut env: Vec<(&str, &OsStr)> = child_env(ctx, &traceparent);
    if let Some(rules) = &rules {
        env.push((PERMISSION_VAR, OsStr::new(rules)));
    }
    let guard = if ctx.settings.guard_hook.is_some() {
        Some(guard::Guard::prepare().map_err(|e| guard_not_ready(call.name, &e))?)
    } else {
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "{}=off: Voyage's guard does not judge this OpenCode step's tool calls",
                crate::settings::GUARD_VAR
            ),
        ));
        None
    };
    if let Some(guard) = &guard {
        if guard.dropped_users {
            emit.emit(Event::log(
                Level::Warn,
                format!(
                    "{} is not a plain JSON object, so this step runs without it (only Voyage's \
                     guard plugin); write it as JSON without comments to keep it",
                    guard::CONFIG_VAR
                ),
            ));
        }
        env.push((guard::CONFIG_VAR, OsStr::new(&guard.config)));
        env.push((guard::HELPER_VAR, guard.helper.as_os_str()));
    }
    let message = message(call);
    let mut stream = Stream::new(call.json_schema.is_some());
    let mut lines = LineSplitter::with_limit(MAX_JSON_LINE);
    let mut deliver = |line: String| stream.line(&line, emit);
    let job = Job {
        argv: &argv,
        cwd: None,
        timeout: time_limit(call.timeout_seconds),
        // The agent's own tool processes end with it.
        leftovers: Leftovers::Stop,
        stderr: Stderr::Merged,
        env: &env,
        input: Some(message.as_bytes()),
        stop: Some(&ctx.stop),
        stop_with_us: false,
    };
    let outcome = supervise(job, &mut |chunk| lines.feed(chunk, &mut deliver))
        .map_err(|e| not_started(call.name, &e))?;
    lines.finish(&mut deliver);
    stream.finish(emit);

    match outcome.ending {
        Ending::Exited(0) => Ok(()),
        Ending::Exited(code) => Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_AGENT_FAILED,
            stream.failure(call.name, code),
        ))),
        Ending::TimedOut(_) => Err(timed_out(call.name, call.timeout_seconds)),
        Ending::Interrupted { .. } => Err(StepError::Cancelled),
    }
}

/// The CLI's arguments after the program name (the prompt goes on stdin).
/// Values are joined to their flags (`--model=x`) so that one starting
/// with `-` is never read as a flag.
pub(super) fn arguments(call: &Call<'_>, agent: Option<&str>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["run".into(), "--format".into(), "json".into()];
    args.push(format!("--title={}", call.name).into());
    if let Some(model) = call.model {
        args.push(format!("--model={model}").into());
    }
    if let Some(agent) = agent {
        args.push(format!("--agent={agent}").into());
    }
    if call.permissions == Permissions::Bypass {
        args.push("--dangerously-skip-permissions".into());
    }
    args
}

/// What the CLI reads on stdin: the prompt, after the call's extra system
/// instructions (OpenCode has no option for them) and before, for a call
/// with a JSON Schema, the request to answer with one JSON object.
pub(super) fn message(call: &Call<'_>) -> String {
    let mut text = String::new();
    if let Some(system) = call.append_system_prompt {
        let _ = write!(
            text,
            "Instructions that apply to this whole task:\n{system}\n\n---\n\n"
        );
    }
    text.push_str(call.prompt);
    if let Some(schema) = call.json_schema {
        let _ = write!(
            text,
            "\n\n---\nAnswer with exactly one JSON object and nothing else: no prose before \
             or after it, no Markdown fence. It must follow this JSON Schema:\n{schema}"
        );
    }
    text
}

/// `OPENCODE_PERMISSION` for an `allowed_tools:` list: `None` (no
/// variable) when the step names none; else a JSON object denying every
/// permission none of the listed tools needs.
pub(super) fn permission(allowed: Option<&[String]>) -> Option<String> {
    let allowed = allowed?;
    let wanted: Vec<String> = allowed
        .iter()
        .map(|entry| {
            entry
                .split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let mut rules = Map::new();
    for (permission, tools) in PERMISSIONS {
        if !tools.iter().any(|tool| wanted.iter().any(|w| w == tool)) {
            rules.insert(permission.to_owned(), Value::String("deny".to_owned()));
        }
    }
    Some(Value::Object(rules).to_string())
}

/// A tool's name as Claude spells it (an unknown one as OpenCode does).
fn claude_name(tool: &str) -> String {
    CLAUDE_NAMES
        .iter()
        .find(|(ours, _)| ours.eq_ignore_ascii_case(tool))
        .map_or_else(|| tool.to_owned(), |(_, theirs)| (*theirs).to_owned())
}

fn guard_not_ready(step: &str, e: &io::Error) -> StepError {
    StepError::Failed(Failure::failed(
        NOT_STARTED,
        format!(
            "Step \"{step}\": cannot write Voyage's OpenCode guard plugin to the temporary \
             directory: {e}; free or fix TMPDIR, or run with {}=off to go unguarded",
            crate::settings::GUARD_VAR
        ),
    ))
}

fn not_started(step: &str, e: &io::Error) -> StepError {
    let (code, message) = match e.kind() {
        io::ErrorKind::NotFound => (
            NOT_FOUND,
            format!(
                "Step \"{step}\" needs the opencode CLI, which is not on PATH; install OpenCode \
                 (npm install -g opencode-ai), or set the step's provider: to another agent"
            ),
        ),
        _ => (
            NOT_STARTED,
            format!("Step \"{step}\": cannot start opencode: {e}"),
        ),
    };
    StepError::Failed(Failure::failed(code, message))
}

/// What one run of the CLI has said so far: fed its output line by line,
/// it emits the events and keeps what the end of the call needs.
#[derive(Debug, Default)]
pub struct Stream {
    /// Whether the answer is wanted as JSON (its text is kept for it).
    structured: bool,
    /// The answer's text so far, for a structured call (at most
    /// [`MAX_ANSWER`] bytes).
    answer: String,
    /// The sums of the `step_finish` lines, once one came.
    cost: Option<f64>,
    usage: Option<TokenUsage>,
    /// The errors the CLI reported, in order.
    errors: Vec<String>,
    /// The last lines that were not JSON.
    loose: Vec<String>,
}

impl Stream {
    /// A stream for a call that wants (`structured`) a JSON answer or not.
    pub fn new(structured: bool) -> Self {
        Self {
            structured,
            ..Self::default()
        }
    }

    /// One line of the CLI's output, without its `\n`.
    pub fn line(&mut self, raw: &str, emit: &dyn Emit) {
        if let Some(message) = super::lines::json_object(raw, &mut self.loose, emit) {
            self.message(&message, emit);
        }
    }

    fn message(&mut self, message: &Map<String, Value>, emit: &dyn Emit) {
        let part = message.get("part").and_then(Value::as_object);
        match message.get("type").and_then(Value::as_str) {
            Some("text") => self.text(message, part, emit),
            Some("tool_use") => {
                let Some(part) = part else { return };
                let tool =
                    claude_name(part.get("tool").and_then(Value::as_str).unwrap_or_default());
                let refused = guard::refusal(part);
                let input = part
                    .get("state")
                    .and_then(|s| s.get("input"))
                    .filter(|v| v.is_object())
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                let target = refused
                    .is_some()
                    .then(|| super::event::tool_argument(&tool, &input));
                emit.emit(Event::OutputTool {
                    index: -1,
                    tool: tool.clone(),
                    input,
                });
                if let (Some(reason), Some(target)) = (refused, target) {
                    emit.emit(Event::denied(tool, target, reason));
                }
            }
            Some("step_finish") => {
                if let Some(part) = part {
                    self.step_finish(part, emit);
                }
            }
            Some("error") => self.errors.push(error_text(message.get("error"))),
            _ => {}
        }
    }

    fn text(
        &mut self,
        message: &Map<String, Value>,
        part: Option<&Map<String, Value>>,
        emit: &dyn Emit,
    ) {
        if part
            .and_then(|p| p.get("synthetic"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            return;
        }
        let text = part
            .and_then(|p| p.get("text").or_else(|| p.get("content")))
            .or_else(|| message.get("text"))
            .and_then(Value::as_str);
        let Some(text) = text else { return };
        if self.structured && self.answer.len() < MAX_ANSWER {
            if !self.answer.is_empty() {
                self.answer.push('\n');
            }
            self.answer.push_str(text);
        }
        emit.emit(Event::text(text));
    }

    fn step_finish(&mut self, part: &Map<String, Value>, emit: &dyn Emit) {
        if let Some(usd) = part
            .get("cost")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite())
        {
            let total = self.cost.unwrap_or(0.0) + usd;
            if total.is_finite() {
                self.cost = Some(total);
            }
        }
        let Some(tokens) = part.get("tokens").and_then(Value::as_object) else {
            return;
        };
        let count =
            |map: &Map<String, Value>, key: &str| map.get(key).and_then(Value::as_u64).unwrap_or(0);
        let cache = tokens.get("cache").and_then(Value::as_object);
        let this = TokenUsage {
            input_tokens: count(tokens, "input"),
            output_tokens: count(tokens, "output"),
            cache_creation_tokens: cache.map_or(0, |c| count(c, "write")),
            cache_read_tokens: cache.map_or(0, |c| count(c, "read")),
        };
        emit.emit(Event::OutputContext {
            index: -1,
            tokens: this
                .input_tokens
                .saturating_add(this.cache_creation_tokens)
                .saturating_add(this.cache_read_tokens),
        });
        let sum = self.usage.get_or_insert_with(TokenUsage::default);
        sum.input_tokens = sum.input_tokens.saturating_add(this.input_tokens);
        sum.output_tokens = sum.output_tokens.saturating_add(this.output_tokens);
        sum.cache_creation_tokens = sum
            .cache_creation_tokens
            .saturating_add(this.cache_creation_tokens);
        sum.cache_read_tokens = sum.cache_read_tokens.saturating_add(this.cache_read_tokens);
    }

    /// The end of the output: the call's cost and tokens, and for a
    /// structured call the first JSON object of its answer.
    pub fn finish(&mut self, emit: &dyn Emit) {
        if let Some(usd) = self.cost.take() {
            emit.emit(Event::OutputCost { index: -1, usd });
        }
        if let Some(usage) = self.usage.take() {
            emit.emit(Event::OutputUsage { index: -1, usage });
        }
        if self.structured
            && let Some(data) = first_json_object(&self.answer)
        {
            emit.emit(Event::OutputStructured { data });
        }
    }

    /// The last lines that were not JSON, which a failure message quotes.
    pub fn quoted(&self) -> &[String] {
        &self.loose
    }

    /// The message of a call whose CLI exited with `code`: the code, the
    /// errors it reported, then the last lines that were not JSON.
    pub fn failure(&self, step: &str, code: i32) -> String {
        let mut message = format!("Step \"{step}\": opencode exited with code {code}");
        if !self.errors.is_empty() {
            let _ = write!(message, ": {}", self.errors.join("; "));
        }
        for line in &self.loose {
            let _ = write!(message, "\n{line}");
        }
        message
    }
}

/// An `error` line's words: `data.message`, else `name`, else the JSON.
fn error_text(error: Option<&Value>) -> String {
    let Some(error) = error else {
        return "an error it did not describe".to_owned();
    };
    if let Some(text) = error
        .get("data")
        .and_then(|d| d.get("message"))
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        let name = error.get("name").and_then(Value::as_str);
        return match name {
            Some(name) if !name.is_empty() && name != "UnknownError" => format!("{name}: {text}"),
            _ => text.to_owned(),
        };
    }
    match error {
        Value::String(text) => text.clone(),
        other => other
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| other.to_string(), str::to_owned),
    }
}

/// The first JSON object in `text` that parses whole (fenced or not,
/// with prose around it or not).
pub(super) fn first_json_object(text: &str) -> Option<Value> {
    text.match_indices('{').find_map(|(at, _)| {
        let rest = text.get(at..)?;
        match serde_json::Deserializer::from_str(rest)
            .into_iter::<Value>()
            .next()?
        {
            Ok(value @ Value::Object(_)) => Some(value),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use crate::model::PromptTask;

    type Events = Mutex<Vec<Event>>;

    fn feed(structured: bool, lines: &[Value]) -> (Stream, Vec<Value>) {
        let events = Events::default();
        let mut stream = Stream::new(structured);
        for line in lines {
            stream.line(&line.to_string(), &events);
        }
        stream.finish(&events);
        let out = events
            .into_inner()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        (stream, out)
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn arguments_carry_model_agent_and_bypass() {
        let mut task = PromptTask::sample();
        let plain = Call {
            model: None,
            ..Call::for_step(&task, "hi")
        };
        assert_eq!(
            strings(&arguments(&plain, None)),
            [
                "run",
                "--format",
                "json",
                "--title=ask",
                "--dangerously-skip-permissions"
            ]
        );
        task.agent = Some("plan".into());
        let full = Call {
            model: Some("anthropic/claude-sonnet-4-5"),
            permissions: Permissions::Default,
            ..Call::for_step(&task, "hi")
        };
        assert_eq!(
            strings(&arguments(&full, full.agent)),
            [
                "run",
                "--format",
                "json",
                "--title=ask",
                "--model=anthropic/claude-sonnet-4-5",
                "--agent=plan"
            ]
        );
    }

    #[test]
    fn the_message_holds_the_instructions_the_prompt_and_the_json_request() {
        let mut task = PromptTask::sample();
        assert_eq!(
            message(&Call::for_step(&task, "hi \"there\"")),
            "hi \"there\""
        );
        task.append_system_prompt = Some("be brief".into());
        let with = Call {
            json_schema: Some("{\"type\":\"object\"}"),
            ..Call::for_step(&task, "hi")
        };
        let text = message(&with);
        assert!(
            text.starts_with("Instructions that apply to this whole task:\nbe brief\n\n---\n\nhi\n\n---\nAnswer with exactly one JSON object"),
            "{text}"
        );
        assert!(
            text.ends_with("JSON Schema:\n{\"type\":\"object\"}"),
            "{text}"
        );
    }

    #[test]
    fn allowed_tools_deny_every_other_known_tool() {
        assert_eq!(permission(None), None);
        let none: Value = serde_json::from_str(&permission(Some(&[])).unwrap()).unwrap();
        assert_eq!(none.as_object().unwrap().len(), PERMISSIONS.len());
        assert!(none.as_object().unwrap().values().all(|v| v == "deny"));
        let some = permission(Some(&[
            "Bash(git *)".to_owned(),
            "read".to_owned(),
            "Write".to_owned(),
            "mcp__db__query".to_owned(),
        ]))
        .unwrap();
        let some: Value = serde_json::from_str(&some).unwrap();
        let denied: Vec<&str> = some
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(!denied.contains(&"bash"), "{denied:?}");
        assert!(!denied.contains(&"read"), "{denied:?}");
        assert!(!denied.contains(&"edit"), "Write needs edit: {denied:?}");
        assert!(
            denied.contains(&"glob") && denied.contains(&"webfetch"),
            "{denied:?}"
        );
        assert_eq!(denied.len(), PERMISSIONS.len() - 3);
    }

    #[test]
    fn events_become_text_tools_context_cost_and_usage() {
        let finish = |cost: f64, input: u64| {
            json!({"type": "step_finish", "part": {"type": "step-finish", "cost": cost,
                   "tokens": {"input": input, "output": 10, "reasoning": 0,
                              "cache": {"write": 5, "read": 1000}}}})
        };
        let (_, events) = feed(
            false,
            &[
                json!({"type": "step_start", "part": {"type": "step-start"}}),
                json!({"type": "text", "part": {"type": "text", "text": "I'll run it."}}),
                json!({"type": "tool_use", "part": {"type": "tool", "tool": "bash",
                       "state": {"status": "completed", "input": {"command": "echo hi"}, "output": "hi\n"}}}),
                finish(0.25, 100),
                json!({"type": "tool_use", "part": {"tool": "mcp_db", "state": {"input": [1]}}}),
                json!({"type": "text", "part": {"text": "compacted", "synthetic": true}}),
                json!({"type": "reasoning", "part": {"text": "hm"}}),
                json!({"type": "text", "part": {"type": "text", "text": "done"}}),
                finish(0.5, 200),
                json!({"type": "done", "reason": "idle"}),
            ],
        );
        assert_eq!(
            events,
            [
                json!({"type": "output:text", "index": -1, "text": "I'll run it."}),
                json!({"type": "output:tool", "index": -1, "tool": "Bash", "input": {"command": "echo hi"}}),
                json!({"type": "output:context", "index": -1, "tokens": 1105}),
                json!({"type": "output:tool", "index": -1, "tool": "mcp_db", "input": {}}),
                json!({"type": "output:text", "index": -1, "text": "done"}),
                json!({"type": "output:context", "index": -1, "tokens": 1205}),
                json!({"type": "output:cost", "index": -1, "usd": 0.75}),
                json!({"type": "output:usage", "index": -1, "usage": {
                    "inputTokens": 300, "outputTokens": 20, "cacheCreationTokens": 10, "cacheReadTokens": 2000}}),
            ]
        );
    }

    #[test]
    fn a_call_the_guard_refused_is_recorded_after_the_tool() {
        let (_, events) = feed(
            false,
            &[
                json!({"type": "tool_use", "part": {"tool": "bash", "state": {"status": "error",
                       "input": {"command": "rm -rf ~"},
                       "error": "Error: Voyage refused this call: voyage: blocked rm-recursive-force"}}}),
                json!({"type": "tool_use", "part": {"tool": "bash", "state": {"status": "error",
                       "input": {"command": "false"}, "error": "exit 1"}}}),
            ],
        );
        assert_eq!(
            events,
            [
                json!({"type": "output:tool", "index": -1, "tool": "Bash", "input": {"command": "rm -rf ~"}}),
                json!({"type": "step:denied", "index": -1, "tool": "Bash", "target": "rm -rf ~",
                       "reason": "voyage: blocked rm-recursive-force"}),
                json!({"type": "output:tool", "index": -1, "tool": "Bash", "input": {"command": "false"}}),
            ]
        );
    }

    #[test]
    fn errors_and_loose_lines_make_the_failure_message() {
        let events = Events::default();
        let mut stream = Stream::new(false);
        stream.line(
            &json!({"type": "error", "error": {"name": "APIError", "data": {"message": "invalid x-api-key"}}}).to_string(),
            &events,
        );
        stream.line(
            &json!({"type": "error", "error": {"name": "UnknownError", "data": {"message": "Unexpected server error."}}}).to_string(),
            &events,
        );
        stream.line(
            &json!({"type": "error", "error": {"name": "Aborted"}}).to_string(),
            &events,
        );
        stream.line(&json!({"type": "error"}).to_string(), &events);
        stream.line("\u{1b}[93m! agent \"x\" not found\r", &events);
        assert_eq!(
            stream.failure("ask", 1),
            "Step \"ask\": opencode exited with code 1: APIError: invalid x-api-key; \
             Unexpected server error.; Aborted; an error it did not describe\n! agent \"x\" not found"
        );
        assert_eq!(stream.quoted().len(), 1);
        let texts = events.into_inner().unwrap();
        assert_eq!(texts.len(), 1, "only the loose line is text: {texts:?}");
    }

    #[test]
    fn a_structured_call_gets_the_first_json_object_of_its_answer() {
        let (_, events) = feed(
            true,
            &[
                json!({"type": "text", "part": {"text": "Here it is: {not json}"}}),
                json!({"type": "text", "part": {"text": "```json\n{\"pass\": true, \"feedback\": \"\"}\n```\n{\"pass\": false}"}}),
            ],
        );
        assert_eq!(
            events.last().unwrap(),
            &json!({"type": "output:structured", "data": {"pass": true, "feedback": ""}})
        );
        let (_, events) = feed(
            true,
            &[json!({"type": "text", "part": {"text": "[1, 2] no object"}})],
        );
        assert!(events.iter().all(|e| e["type"] != "output:structured"));
        let (_, events) = feed(
            false,
            &[json!({"type": "text", "part": {"text": "{\"a\": 1}"}})],
        );
        assert!(events.iter().all(|e| e["type"] != "output:structured"));
        assert_eq!(
            first_json_object("{\"a\": {\"b\": 2}} tail"),
            Some(json!({"a": {"b": 2}}))
        );
        assert_eq!(first_json_object("{{{"), None);
    }

    #[test]
    fn tools_are_named_as_claude_names_them() {
        assert_eq!(claude_name("bash"), "Bash");
        assert_eq!(claude_name("TODOWRITE"), "TodoWrite");
        assert_eq!(claude_name("list"), "LS");
        assert_eq!(claude_name("custom_tool"), "custom_tool");
    }
}
