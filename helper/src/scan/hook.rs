//! `hook pre-tool-use`: the denylist as a Claude Code PreToolUse hook.
//!
//! Reads the hook's JSON on stdin (docs/maintainer/hooks-protocol.md §1): for
//! `Bash` it judges `tool_input.command`; for `Write`, `Edit`, `MultiEdit`
//! and `NotebookEdit` it judges `tool_input.file_path` (or `notebook_path`)
//! against the protected paths. Unknown fields are ignored.
//!
//! The answer (§3), always with exit status 0:
//!
//! - block: `hookSpecificOutput.permissionDecision: "deny"` with a one-line
//!   reason naming the rule and a safer alternative; Claude reads it;
//! - warn: no decision, so the normal permission flow goes on, with the
//!   warning as `additionalContext` (for Claude) and `systemMessage` (for the
//!   user);
//! - allow: no output at all. "allow" is never sent: it would skip the
//!   user's own permission prompts.
//!
//! The input is read leniently ([`super::hook_input`]: any nesting depth,
//! lone surrogates, invalid UTF-8, a byte-order mark), and the hook fails
//! open only when there really is nothing to judge:
//!
//! - no output when the input is not a JSON object at all, names another
//!   event or a tool not judged, or is a whole object without a tool name,
//!   a `tool_input` object, or a command (path) string: as a missing hook
//!   would, and never by exit 1 (which Claude Code would show as a hook
//!   error);
//! - denied as `unscannable` when the input names Bash or a file tool, or
//!   names no tool before it breaks off, but cannot be read to its end: cut
//!   short, malformed, unreadable (a read error on stdin), or larger than
//!   [`MAX_INPUT_BYTES`] (only that much is read). The command it carries
//!   cannot be known, so it is not run.
//!
//! Nothing that stops the hook lets a call through: a panic, an allocation
//! that fails (a memory limit such as `ulimit -v`) or a crash, in any
//! thread, denies it, with exit 2 (Claude Code's blocking error, which
//! blocks even if stdout were damaged) and the reason on stderr as well
//! ([`super::fail_closed`], armed first thing in [`execute`]). The hook
//! makes no large allocation up front: its input buffer grows with what
//! arrives, so a small call is judged under a tight limit too.

use std::io::{self, Read, Write};

use serde::Serialize;

use super::engine::{judge_command, judge_path, unreadable};
use super::examples::Outcome;
use super::fail_closed;
use super::finding::{Decision, Finding, Judgement, clip};
use super::hook_input::{self, HookInput};
use super::run_scope::{self, Verdict};
use super::scanner::Context;
use super::write_target::{WriteKind, WriteTarget};
use crate::fence;

/// Largest hook input read; a call larger than this is denied (unless what
/// was read shows it is not one the hook judges).
pub(crate) const MAX_INPUT_BYTES: u64 = 64 << 20;
/// Longest reason or message sent (Claude Code caps strings at 10,000).
pub(crate) const MAX_MESSAGE_CHARS: usize = 2_000;
/// Tools whose target path is judged.
pub(crate) const FILE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Words in an MCP tool's name (`mcp__SERVER__TOOL`) that say it changes
/// files: the reference file-system server's `write_file`, `edit_file`,
/// `create_directory` and `move_file`, and the like of other servers.
const MCP_WRITE_WORDS: &[&str] = &[
    "write", "edit", "create", "move", "rename", "delete", "remove", "copy", "append", "patch",
    "mkdir", "upload", "save", "replace", "insert",
];

/// `tool` is an MCP tool that writes files, judged by its name: one word
/// of its own name (split at `_`, `-` and case changes) is a writing verb.
fn mcp_writer(tool: &str) -> bool {
    let Some(name) = tool
        .strip_prefix("mcp__")
        .and_then(|rest| rest.rsplit_once("__").map(|(_, name)| name))
    else {
        return false;
    };
    let mut words = Vec::new();
    let mut word = String::new();
    for c in name.chars() {
        if (c == '_' || c == '-' || c.is_ascii_uppercase()) && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c != '_' && c != '-' {
            word.push(c.to_ascii_lowercase());
        }
    }
    words.push(word);
    words.iter().any(|w| MCP_WRITE_WORDS.contains(&w.as_str()))
}

/// What an MCP writer changes: its destination and path are written, the
/// source of a move is removed; a directory made is created. With no path
/// the tool names, one target nobody can know (refused during a run).
fn mcp_writes(tool: &str, call: &HookInput) -> Vec<WriteTarget> {
    let creates = tool.contains("create_directory") || tool.contains("mkdir");
    let mut writes = Vec::new();
    for path in [&call.file_path, &call.path, &call.destination]
        .into_iter()
        .flatten()
    {
        let kind = if creates {
            WriteKind::Create
        } else {
            WriteKind::Write
        };
        writes.push(WriteTarget::named(path, kind));
    }
    if let Some(source) = &call.source {
        writes.push(WriteTarget::named(source, WriteKind::Remove));
    }
    if writes.is_empty() {
        writes.push(WriteTarget::unknown(&format!("({tool} call)")));
    }
    writes
}

/// Exit status of a call blocked because the check itself failed: Claude
/// Code's blocking error (docs/maintainer/hooks-protocol.md §2).
pub(crate) const EXIT_BLOCKING_ERROR: u8 = 2;

/// `hook pre-tool-use`: reads the call on stdin, writes the answer in one
/// write, and returns the exit status (0; or 2, when the answer cannot be
/// written or, without returning, when anything stops the check).
pub(crate) fn execute(out: &mut impl Write) -> u8 {
    fail_closed::arm();
    block_on_panic();
    crate::fault::fail_at("hook");
    let ctx = Context::from_env();
    let (input, read_ok) = read_input();
    let answer = answer_read(&input, read_ok, &ctx);
    // Rendered whole before anything reaches stdout, so a panic while
    // rendering leaves stdout empty for the panic hook's reply.
    let mut reply = Vec::new();
    if render(&answer, &mut reply).is_err() {
        return EXIT_BLOCKING_ERROR;
    }
    // An answer that cannot be written: a denial still blocks, by exit 2
    // with its reason on stderr (Claude Code's blocking error); anything
    // else is "no decision", exit 0, since exit 1 would be a hook error and
    // exit 2 would block a call the check let through. This is why the
    // hook, alone, does not hand write errors to `crate::output`.
    if out.write_all(&reply).and_then(|()| out.flush()).is_err()
        && let Answer::Deny(reason) = &answer
    {
        fail_closed::write_all(nix::libc::STDERR_FILENO, format!("{reason}\n").as_bytes());
        return EXIT_BLOCKING_ERROR;
    }
    crate::exit::OK
}

/// Replaces the panic hook with one that denies the call and exits 2,
/// whichever thread panicked.
fn block_on_panic() {
    std::panic::set_hook(Box::new(|_| {
        fail_closed::deny_and_exit(&fail_closed::PANICKED)
    }));
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Print nothing.
    Silent,
    /// Deny, with this reason.
    Deny(String),
    /// Let the call go on, with this warning.
    Warn(String),
    /// Run `command` instead (the call fenced), with no decision: the
    /// user's permission flow judges it as it would have the original.
    Rewrite {
        command: String,
        /// The call's `tool_input` as sent, whose other fields it keeps.
        input: Option<String>,
        warning: Option<String>,
    },
}

/// Reads stdin, at most one byte more than [`MAX_INPUT_BYTES`] (so that
/// [`answer`] sees it is too large); and whether it was read without error.
pub(crate) fn read_input() -> (Vec<u8>, bool) {
    let mut input = Vec::new();
    let read = read_capped(&mut io::stdin().lock(), &mut input);
    (input, read.is_ok())
}

/// Reads `from` to its end or to one byte past [`MAX_INPUT_BYTES`],
/// whichever comes first. Nothing is reserved ahead: a call of a few
/// hundred bytes takes a few hundred bytes, even under a memory limit that
/// 64 MiB would not fit in. The buffer doubles as it fills, but never past
/// the cap, so the largest input takes 64 MiB, not the 128 MiB of the next
/// doubling.
fn read_capped(from: &mut impl Read, into: &mut Vec<u8>) -> io::Result<()> {
    let limit = MAX_INPUT_LEN + 1;
    let mut chunk = [0; 64 << 10];
    while into.len() < limit {
        let n = match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n.min(limit - into.len()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let needed = into.len() + n;
        if needed > into.capacity() {
            let grown = (into.capacity() * 2).clamp(needed, limit);
            into.reserve_exact(grown - into.len());
        }
        into.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
    Ok(())
}

/// [`MAX_INPUT_BYTES`] as a length in memory.
const MAX_INPUT_LEN: usize = MAX_INPUT_BYTES as usize;

/// Why a hook input could not be read to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unread {
    TooLarge,
    ReadError,
    Malformed,
}

/// The answer to one hook input, the bytes read from stdin: more than
/// [`MAX_INPUT_BYTES`] of them when the input was too large.
pub fn answer(input: &[u8], ctx: &Context) -> Answer {
    answer_read(input, true, ctx)
}

/// [`answer`], for input whose reading failed part way unless `read_ok`.
fn answer_read(input: &[u8], read_ok: bool, ctx: &Context) -> Answer {
    let unread = if input.len() > MAX_INPUT_LEN {
        Some(Unread::TooLarge)
    } else if !read_ok {
        Some(Unread::ReadError)
    } else {
        None
    };
    let Some(call) = hook_input::read(input.get(..MAX_INPUT_LEN).unwrap_or(input)) else {
        // Not a JSON object at all, as far as it was read.
        return match unread {
            Some(why) => deny_unreadable(&HookInput::default(), why, ctx),
            None => Answer::Silent,
        };
    };
    if call.event.as_deref().is_some_and(|e| e != "PreToolUse") {
        return Answer::Silent;
    }
    let judged = |tool: &str| tool == "Bash" || FILE_TOOLS.contains(&tool) || mcp_writer(tool);
    if call.tool.as_deref().is_some_and(|tool| !judged(tool)) {
        return Answer::Silent;
    }
    if let Some(why) = unread.or((!call.whole).then_some(Unread::Malformed)) {
        return deny_unreadable(&call, why, ctx);
    }
    let mut call = call;
    let cwd = call.cwd.take();
    let tool_input = call.tool_input.take();
    let mut bash_command = None;
    let (judgement, writes, ends_run) = match call {
        HookInput {
            tool: Some(tool),
            command: Some(command),
            ..
        } if tool == "Bash" => {
            let mut judgement = judge_command(&command, ctx);
            let writes = std::mem::take(&mut judgement.writes);
            let ends_run = judgement.ends_run;
            bash_command = Some(command);
            (judgement, writes, ends_run)
        }
        HookInput {
            tool: Some(ref tool),
            ..
        } if mcp_writer(tool) => {
            let writes = mcp_writes(tool, &call);
            let mut judgement = Judgement::default();
            for write in &writes {
                if let Some(path) = &write.path {
                    judgement.findings.extend(judge_path(path, ctx).findings);
                }
            }
            (judgement, writes, false)
        }
        HookInput {
            tool: Some(tool),
            file_path,
            notebook_path,
            ..
        } if tool != "Bash" => match file_path.or(notebook_path) {
            Some(path) => (
                judge_path(&path, ctx),
                vec![WriteTarget::file(&path)],
                false,
            ),
            None => return Answer::Silent,
        },
        _ => return Answer::Silent,
    };
    let answer = decide(&judgement);
    // The main-merge gate is a person's: where nobody can be asked, the
    // agent may not answer it. The hook's environment is Claude Code's own,
    // which the agent's command cannot change.
    if judgement.answers_gate
        && !matches!(answer, Answer::Deny(_))
        && crate::claude_session::asker() == crate::claude_session::Asker::UnattendedSession
    {
        return Answer::Deny(GATE_IS_THE_OPERATORS.to_owned());
    }
    // A Bash call runs inside the kernel fence of the run it belongs to,
    // where the kernel can hold it; the helper's own `trek` calls do not.
    let plugin_root = std::env::var("CLAUDE_PLUGIN_ROOT").ok();
    let helper = std::env::current_exe().ok();
    let executor = bash_command
        .as_deref()
        .and_then(|command| fence::executor_call(command, plugin_root.as_deref()));
    let fenced = bash_command.as_deref().is_some_and(|command| {
        helper
            .as_deref()
            .is_some_and(|helper| !fence::is_helper_call(command, plugin_root.as_deref(), helper))
            && executor != Some(fence::ExecutorCall::Reads)
            && fence::support().holds()
    });
    // The run's scope only adds denials: a denylist denial stays as it is,
    // and a call that writes nothing (and ends no run, and is not fenced)
    // is never affected.
    if matches!(answer, Answer::Deny(_)) || (writes.is_empty() && !ends_run && !fenced) {
        return answer;
    }
    // Only a call that writes needs its directory (most calls do not).
    let call_dir = cwd.filter(|dir| dir.starts_with('/')).or_else(|| {
        std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string())
    });
    let Some(call_dir) = call_dir else {
        return answer;
    };
    // Claude Code's project directory: where the session belongs, however
    // far a `cd` took its shell.
    let project_dir = std::env::var("CLAUDE_PROJECT_DIR").ok();
    let origin = run_scope::Origin {
        call_dir: &call_dir,
        project_dir: project_dir.as_deref(),
        home: ctx.home.as_deref(),
        fenced,
    };
    match run_scope::check(&writes, ends_run, &origin) {
        Verdict::Pass(None) => answer,
        // The helper's own `trek` call, run with something else: fenced, it
        // could write none of what it must (the progress file, the marker,
        // the checkpoint), and a call that fails half way leaves a run
        // that says to stop. Refused before anything runs, with the way.
        Verdict::Pass(Some(_)) if judgement.runs_trek => Answer::Deny(TREK_RUNS_ALONE.to_owned()),
        Verdict::Pass(Some(run)) => {
            let (Some(command), Some(helper)) = (bash_command, helper) else {
                return answer;
            };
            let cwd_file = fence::run_tmp(&std::env::temp_dir(), &run.marker).join(format!(
                "cwd-{}-{}",
                std::process::id(),
                call_nanos()
            ));
            // The executor's own calls keep their text (the skill's
            // permission rule matches its start) and take the fence as a
            // flag of `voyage-helper run`.
            let rewritten = match executor {
                Some(fence::ExecutorCall::Runs { at }) => {
                    fence::fence_executor(&command, at, &run.marker)
                }
                _ => fence::rewrite(&fence::Rewrite {
                    helper: &helper,
                    marker: &run.marker,
                    cwd_file: &cwd_file,
                    call_dirs: &run.dirs,
                    command: &command,
                }),
            };
            Answer::Rewrite {
                command: rewritten,
                input: tool_input,
                warning: match answer {
                    Answer::Warn(warning) => Some(warning),
                    _ => None,
                },
            }
        }
        Verdict::Deny(reason) => Answer::Deny(reason),
    }
}

/// Nanoseconds of the clock, to tell calls of one hook process apart.
fn call_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Why `trek finish --gate …` is refused in a session nobody watches.
const GATE_IS_THE_OPERATORS: &str = "voyage: blocked gate-operator (the main-merge gate is a person's): `trek finish --gate` answers the question only the user may answer, and nobody can be asked in this session (claude -p, an SDK). Safer: stop and say the run waits at the main-merge gate; the operator answers with `voyage-helper trek finish --gate confirm|decline` (and `--plan PLAN` for a multi-session plan) in a shell.";

/// Why a `trek` call inside a longer command is refused while a step is
/// fenced.
const TREK_RUNS_ALONE: &str = "voyage: blocked run-trek-alone (the helper's trek calls run on their own): this command runs `voyage-helper trek` together with something else (a pipe such as `| tail`, `&&`, `;`, a redirection to a file), so it would run inside the step's kernel fence, where trek cannot write the progress file, the run marker or the checkpoint commit. Safer: run the trek call alone, exactly as /trekexecute writes it (`2>&1` after it is fine), and read its whole reply.";

/// The denial of a call whose input could not be read to its end.
fn deny_unreadable(call: &HookInput, why: Unread, ctx: &Context) -> Answer {
    let what = call.tool.as_deref().unwrap_or("tool");
    let why = match why {
        Unread::TooLarge => format!(
            "the hook input is larger than {} MiB, so the call was not read",
            MAX_INPUT_BYTES >> 20
        ),
        Unread::ReadError => "the hook input could not be read".to_owned(),
        Unread::Malformed => "the hook input is not well-formed JSON".to_owned(),
    };
    decide(&unreadable(&format!("({what} call)"), &why, ctx))
}

fn decide(judgement: &Judgement) -> Answer {
    match judgement.decision() {
        Decision::Allow => Answer::Silent,
        Decision::Warn => Answer::Warn(message("warning", judgement)),
        Decision::Block => Answer::Deny(message("blocked", judgement)),
    }
}

/// The hook's answer to `judgement`, before the run's scope is asked:
/// what `scan rules --check` holds the rule table's examples to.
pub(crate) fn denylist_answer(judgement: &Judgement) -> Answer {
    decide(judgement)
}

/// What an answer says, read back from its text: the decision and the
/// rules its message names (the deciding one, then any `(also: …)`), so the
/// rule table's examples can be held to what the hook tells Claude.
pub fn outcome(answer: &Answer) -> Outcome {
    let (decision, text) = match answer {
        Answer::Silent => (Decision::Allow, None),
        Answer::Deny(reason) => (Decision::Block, Some(reason.as_str())),
        Answer::Warn(warning) => (Decision::Warn, Some(warning.as_str())),
        Answer::Rewrite { warning, .. } => match warning {
            Some(warning) => (Decision::Warn, Some(warning.as_str())),
            None => (Decision::Allow, None),
        },
    };
    let mut rules = Vec::new();
    if let Some(text) = text {
        let first = text
            .strip_prefix("voyage: blocked ")
            .or_else(|| text.strip_prefix("voyage: warning "))
            .and_then(|rest| rest.split(' ').next());
        rules.extend(first.map(str::to_owned));
        if let Some(also) = text
            .rsplit_once(" (also: ")
            .and_then(|(_, tail)| tail.strip_suffix(')'))
        {
            rules.extend(also.split(", ").map(str::to_owned));
        }
    }
    Outcome { decision, rules }
}

/// `voyage: blocked rm-recursive-force (…): `rm -rf x` - … Safer: …`, with
/// a count of any further findings of the same weight.
fn message(verb: &str, judgement: &Judgement) -> String {
    let deciding = judgement.deciding();
    let Some(first) = deciding.first() else {
        return String::new();
    };
    let mut text = format!("voyage: {verb} {}", first.one_line());
    let others: Vec<&str> = deciding
        .iter()
        .skip(1)
        .map(|f: &&Finding| f.rule.id)
        .collect();
    if !others.is_empty() {
        text.push_str(&format!(" (also: {})", others.join(", ")));
    }
    clip(&text, MAX_MESSAGE_CHARS)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    hook_specific_output: Specific<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
}

/// Writes the answer: one JSON line, or nothing.
pub fn render(answer: &Answer, out: &mut impl Write) -> io::Result<()> {
    let output = match answer {
        Answer::Silent => return Ok(()),
        Answer::Deny(reason) => Output {
            hook_specific_output: Specific {
                hook_event_name: "PreToolUse",
                permission_decision: Some("deny"),
                permission_decision_reason: Some(reason),
                additional_context: None,
                updated_input: None,
            },
            system_message: None,
        },
        Answer::Warn(warning) => Output {
            hook_specific_output: Specific {
                hook_event_name: "PreToolUse",
                permission_decision: None,
                permission_decision_reason: None,
                additional_context: Some(warning),
                updated_input: None,
            },
            system_message: Some(warning),
        },
        Answer::Rewrite {
            command,
            input,
            warning,
        } => {
            // Every field the call had, its command replaced; a tool input
            // serde_json cannot read (deeper than it nests) keeps only the
            // command, which is all a Bash call needs.
            let mut fields: serde_json::Map<String, serde_json::Value> = input
                .as_deref()
                .and_then(|raw| serde_json::from_str(raw).ok())
                .unwrap_or_default();
            fields.insert(
                "command".to_owned(),
                serde_json::Value::String(command.clone()),
            );
            Output {
                hook_specific_output: Specific {
                    hook_event_name: "PreToolUse",
                    permission_decision: None,
                    permission_decision_reason: None,
                    additional_context: warning.as_deref(),
                    updated_input: Some(fields),
                },
                system_message: warning.as_deref(),
            }
        }
    };
    serde_json::to_writer(&mut *out, &output)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> Answer {
        answer(input.as_bytes(), &Context::default())
    }

    #[test]
    fn mcp_tools_that_write_are_told_by_their_name() {
        for tool in [
            "mcp__filesystem__write_file",
            "mcp__filesystem__edit_file",
            "mcp__filesystem__create_directory",
            "mcp__filesystem__move_file",
            "mcp__fs__writeFile",
            "mcp__my-server__delete-path",
            "mcp__files__saveDocument",
        ] {
            assert!(mcp_writer(tool), "{tool}");
        }
        for tool in [
            "mcp__filesystem__read_file",
            "mcp__filesystem__list_directory",
            "mcp__filesystem__search_files",
            "mcp__github__get_issue",
            "mcp__writer__read_file",
            "Write",
            "mcp__write_file",
        ] {
            assert!(!mcp_writer(tool), "{tool}");
        }
    }

    #[test]
    fn bash_and_file_tools() {
        let deny = run(r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#);
        assert!(
            matches!(&deny, Answer::Deny(r) if r.starts_with("voyage: blocked rm-recursive-force"))
        );
        let warn = run(r#"{"tool_name":"Bash","tool_input":{"command":"git push -f"}}"#);
        assert!(matches!(warn, Answer::Warn(_)));
        assert_eq!(
            run(r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#),
            Answer::Silent
        );
        let write =
            run(r#"{"tool_name":"Write","tool_input":{"file_path":"/p/.git/hooks/pre-commit"}}"#);
        assert!(matches!(write, Answer::Deny(_)));
        let notebook =
            run(r#"{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"/p/.env"}}"#);
        assert!(matches!(notebook, Answer::Deny(_)));
    }

    #[test]
    fn fails_open_on_anything_else() {
        for input in [
            "",
            "not json",
            "[]",
            "{}",
            r#"{"tool_name":"Bash"}"#,
            r#"{"tool_name":"Bash","tool_input":"rm -rf /"}"#,
            r#"{"tool_name":"Bash","tool_input":{"command":7}}"#,
            r#"{"tool_name":"Read","tool_input":{"file_path":"/p/.env"}}"#,
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
        ] {
            assert_eq!(run(input), Answer::Silent, "{input}");
        }
    }

    fn denied_as(answer: &Answer, rule: &str) -> bool {
        matches!(answer, Answer::Deny(r) if r.starts_with(&format!("voyage: blocked {rule} ")))
    }

    fn bash(command_json: &str) -> String {
        format!(
            r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{command_json}}}}}"#
        )
    }

    #[test]
    fn input_as_it_may_really_arrive_is_judged() {
        let deep = format!(
            r#"{{"x":{}{},"tool_name":"Bash","tool_input":{{"command":"rm -rf /"}}}}"#,
            "[".repeat(127),
            "]".repeat(127)
        );
        assert!(denied_as(&run(&deep), "rm-recursive-force"));
        let deeper = deep.replace("[", "[[[[[[[[").replace("]", "]]]]]]]]");
        assert!(denied_as(&run(&deeper), "rm-recursive-force"));
        let lone_elsewhere = r#"{"session_id":"\ud800","tool_name":"Bash","tool_input":{"description":"\udc00","command":"rm -rf /"}}"#;
        assert!(denied_as(&run(lone_elsewhere), "rm-recursive-force"));
        assert!(denied_as(
            &run(&bash(r#""rm -rf / # \ud800""#)),
            "rm-recursive-force"
        ));
        assert!(denied_as(
            &run(&format!("\u{FEFF}{}", bash(r#""rm -rf /""#))),
            "rm-recursive-force"
        ));
        assert!(denied_as(&run(&bash(r#""r\u0000m -rf /""#)), "unscannable"));
    }

    #[test]
    fn raw_bytes_that_are_not_utf8_are_replaced() {
        let mut input = br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf / # "#.to_vec();
        input.extend_from_slice(b"\xff\xc3\x28\"},\"x\":\"\xfe\"}");
        assert!(denied_as(
            &answer(&input, &Context::default()),
            "rm-recursive-force"
        ));
    }

    #[test]
    fn a_call_that_cannot_be_read_whole_is_denied_unless_it_is_not_ours() {
        for input in [
            r#"{"tool_name":"Bash","tool_input":{"command":"ls""#,
            r#"{"tool_name":"Bash","tool_input":{"command":"ls"}} x"#,
            r#"{"tool_name":"Edit","tool_input":{"file_path":"/p/a","x":[}}"#,
            r#"{"session_id":"s","#,
            "{",
        ] {
            assert!(denied_as(&run(input), "unscannable"), "{input}");
        }
        for input in [
            r#"{"tool_name":"Read","tool_input":{"file_path":"/p/a""#,
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"#,
        ] {
            assert_eq!(run(input), Answer::Silent, "{input}");
        }
        let huge = |tool: &str| {
            let mut input =
                format!(r#"{{"tool_name":"{tool}","tool_input":{{"command":"ls","description":""#)
                    .into_bytes();
            input.resize(MAX_INPUT_LEN + 1, b'a');
            input
        };
        let ctx = Context::default();
        let deny = answer(&huge("Bash"), &ctx);
        assert!(denied_as(&deny, "unscannable"), "{deny:?}");
        assert!(matches!(&deny, Answer::Deny(r) if r.contains("larger than 64 MiB")));
        assert_eq!(answer(&huge("Read"), &ctx), Answer::Silent);
        assert!(denied_as(&answer_read(b"", false, &ctx), "unscannable"));
        assert!(denied_as(
            &answer_read(br#"{"tool_name":"Bash""#, false, &ctx),
            "unscannable"
        ));
    }

    /// The buffer takes what arrives and, at the cap, exactly the cap: no
    /// 64 MiB up front (which a memory limit refused, aborting the hook),
    /// and no doubling to 128 MiB past it.
    #[test]
    fn the_input_buffer_grows_with_the_input_up_to_the_cap() {
        let mut small = Vec::new();
        read_capped(&mut &b"{\"tool_name\":\"Bash\"}"[..], &mut small).unwrap();
        assert_eq!(small, b"{\"tool_name\":\"Bash\"}");
        assert_eq!(small.capacity(), small.len());
        let mut huge = Vec::new();
        read_capped(&mut io::repeat(b'a').take(MAX_INPUT_BYTES + 100), &mut huge).unwrap();
        assert_eq!(huge.len(), MAX_INPUT_LEN + 1);
        assert_eq!(huge.capacity(), MAX_INPUT_LEN + 1);
    }

    #[test]
    fn rendering() {
        let mut out = Vec::new();
        render(&Answer::Silent, &mut out).unwrap();
        assert!(out.is_empty());
        render(&Answer::Deny("r".into()), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"r\"}}\n"
        );
        let mut out = Vec::new();
        render(&Answer::Warn("w".into()), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"w\"},\"systemMessage\":\"w\"}\n"
        );
    }
}
