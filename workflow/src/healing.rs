//! Self-healing command steps (`self_healing: true`): when the command
//! fails, an agent is shown the failure and asked to fix its cause, then
//! the same command runs again, up to `max_healing_attempts` runs in all
//! (default 5, the first included).
//!
//! The agent's word is never taken for the fix: only the command's own
//! exit code ends the loop. A run stopped by its timeout is fixed like a
//! failed one; an agent that fails fails the step. The agent is called
//! through the [`FIXER`] provider, Claude (as in Executant, whatever the
//! step's provider), model sonnet, offered the editing tools, its words
//! and tool calls shown as the step's output. Each turn emits
//! `step:healing`: `attempt-failed` after a failed run that gets a fix,
//! `healed` when a later run passes, `exhausted` when the last one fails.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use super::call::{Call, Permissions};
use super::code;
use super::event::{Event, tool_argument};
use super::model::CommandTask;
use super::provider::Provider;
use super::shell::attempt;
use super::step::{Context, Emit, Failure, StepError};
use super::text::tail;

/// Runs, counting the first, when the step does not say.
pub(super) const DEFAULT_ATTEMPTS: u32 = 5;
/// The exit code a run stopped by its timeout counts as (the shell's).
const TIMEOUT_CODE: i32 = 124;
/// The tools the fixing agent is offered.
const TOOLS: [&str; 6] = ["Bash", "Read", "Write", "Edit", "Glob", "Grep"];
/// Who fixes: Claude, as in Executant (a script step names no provider).
pub(super) const FIXER: Provider = Provider::Claude;
/// The model the fixing agent runs on.
const MODEL: &str = "sonnet";
/// How much of a failed run's output the agent is shown (its end).
const SHOWN_LINES: usize = 200;
const SHOWN_CHARS: usize = 12_000;

/// Runs `task` until it passes or its attempts are used up. Every line of
/// every run, and the agent's words, go to `captured` (the `output:` file).
pub(super) fn run(
    task: &CommandTask,
    ctx: &Context,
    emit: &dyn Emit,
    mut captured: Option<&mut Vec<String>>,
) -> Result<(), StepError> {
    let max = task.max_healing_attempts.unwrap_or(DEFAULT_ATTEMPTS).max(1);
    let mut history: Vec<String> = Vec::new();
    for number in 1..=max {
        let mut tail: VecDeque<String> = VecDeque::with_capacity(SHOWN_LINES);
        let ran = attempt(task, ctx, emit, &mut |line| {
            if tail.len() == SHOWN_LINES {
                tail.pop_front();
            }
            tail.push_back(line.to_owned());
            if let Some(captured) = captured.as_deref_mut() {
                captured.push(line.to_owned());
            }
        });
        // A run stopped by its timeout is a failure to fix too (a command
        // waiting for input, a deadlock), with the shell's code for it.
        let (code, timeout) = match ran {
            Ok(code) => (code, None),
            Err(StepError::Failed(failure)) if failure.timed_out => (TIMEOUT_CODE, Some(failure)),
            Err(other) => return Err(other),
        };
        if code == 0 {
            if number > 1 {
                emit.emit(healing_event("healed", number, max, None));
            }
            return Ok(());
        }
        if number == max {
            emit.emit(healing_event("exhausted", number, max, Some(code)));
            // The last run's timeout stays a timeout (the run exits 3).
            return Err(StepError::Failed(timeout.unwrap_or_else(|| {
                Failure::failed(
                    code::WORKFLOW_HEALING_EXHAUSTED,
                    format!(
                        "Step \"{}\" failed after {max} self-healing attempts (last exit code: {code})",
                        task.name
                    ),
                )
            })));
        }
        emit.emit(healing_event("attempt-failed", number, max, Some(code)));
        let failed = FailedRun {
            number,
            max,
            code,
            timed_out: timeout.is_some(),
            tail: &tail,
        };
        let fix = heal(task, &failed, &history, ctx, emit, captured.as_deref_mut())?;
        history.push(format!("attempt {number} (exit {code}): {fix}"));
    }
    // The loop returns on its last turn; a zero `max` was raised to 1.
    Ok(())
}

fn healing_event(phase: &str, attempt: u32, max_attempts: u32, exit_code: Option<i32>) -> Event {
    Event::StepHealing {
        index: -1,
        phase: phase.to_owned(),
        attempt,
        max_attempts,
        exit_code,
    }
}

/// One failed run, as the agent is told about it.
struct FailedRun<'a> {
    number: u32,
    max: u32,
    code: i32,
    /// Stopped by the step's `timeout_seconds` rather than exiting.
    timed_out: bool,
    tail: &'a VecDeque<String>,
}

/// Asks the agent for a fix; returns what it changed, in a line, for the
/// next turn's history. An agent that fails fails the step, as in
/// Executant: the command's next run would only repeat the failure.
fn heal(
    task: &CommandTask,
    failed: &FailedRun<'_>,
    history: &[String],
    ctx: &Context,
    emit: &dyn Emit,
    captured: Option<&mut Vec<String>>,
) -> Result<String, StepError> {
    let name = format!("{}:heal-{}", task.name, failed.number);
    let prompt = prompt(task, failed, history);
    let tools: Vec<String> = TOOLS.iter().map(|t| (*t).to_owned()).collect();
    let agent = Call {
        name: &name,
        prompt: &prompt,
        model: Some(MODEL),
        allowed_tools: Some(&tools),
        append_system_prompt: None,
        agent: None,
        permissions: Permissions::Bypass,
        json_schema: None,
        // No limit of its own, as in Executant: the step's timeout_seconds
        // is for the command.
        timeout_seconds: None,
    };
    let watcher = Watcher {
        parent: emit,
        seen: Mutex::new(Seen::default()),
        captured: Mutex::new(captured),
    };
    FIXER.call(&agent, ctx, &watcher)?;
    let seen = watcher
        .seen
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    Ok(seen.summary())
}

/// What the agent is asked, in our words: the command, how it failed, the
/// end of its output, the fixes already tried, and the rules.
fn prompt(task: &CommandTask, failed: &FailedRun<'_>, history: &[String]) -> String {
    let mut shown = String::new();
    for line in failed.tail {
        shown.push_str(line);
        shown.push('\n');
    }
    let kept = tail(&shown, SHOWN_CHARS);
    if kept.len() < shown.len() {
        shown = format!("[… earlier output left out]\n{kept}");
    }
    let mut text = format!(
        "A command in a workflow failed. Find the cause and fix it, so that the command \
         succeeds when it runs again.\n\n\
         Step: {name}\nCommand: {command}\nExit code: {code}{how}\nRun {number} of at most {max}.\n\n\
         The end of what it printed:\n```\n{shown}```\n",
        name = task.name,
        command = task.command,
        code = failed.code,
        how = if failed.timed_out {
            " (stopped: it ran past its timeout_seconds)"
        } else {
            ""
        },
        number = failed.number,
        max = failed.max,
    );
    if !history.is_empty() {
        text.push_str("\nEarlier failed runs, and what was changed after each:\n");
        for entry in history {
            let _ = writeln!(text, "- {entry}");
        }
    }
    text.push_str(
        "\nFix the cause in the files the command works on. Do not change the command, the \
         workflow file or what a test expects just to make it pass, and run nothing \
         destructive. When you are done, say in one line what you changed. The command then \
         runs again exactly as above; only its exit code says whether the fix worked.\n",
    );
    text
}

/// What the agent did, as far as the history needs it.
#[derive(Default)]
struct Seen {
    tools: Vec<String>,
    last_text: Option<String>,
}

impl Seen {
    /// `[Edit] src/lib.rs; [Bash] cargo fmt`, else the agent's last words,
    /// else a note that nothing was said.
    fn summary(&self) -> String {
        let said = if !self.tools.is_empty() {
            format!("fix applied: {}", self.tools.join("; "))
        } else if let Some(text) = &self.last_text {
            format!("the agent said: {text}")
        } else {
            "the agent changed nothing it reported".to_owned()
        };
        said.chars().take(500).collect()
    }
}

/// Passes the agent's events on to the step, noting its tool calls and
/// words, and adding its words to the `output:` file as Executant does.
struct Watcher<'a, 'c> {
    parent: &'a dyn Emit,
    seen: Mutex<Seen>,
    captured: Mutex<Option<&'c mut Vec<String>>>,
}

impl Emit for Watcher<'_, '_> {
    fn emit(&self, event: Event) {
        match &event {
            Event::OutputTool { tool, input, .. } => {
                let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
                let argument: String = tool_argument(tool, input).chars().take(120).collect();
                seen.tools.push(format!("[{tool}] {argument}"));
            }
            Event::OutputText { text, .. } => {
                let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
                seen.last_text = Some(text.trim().to_owned());
                let mut captured = self.captured.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(captured) = captured.as_deref_mut() {
                    captured.push(text.clone());
                }
            }
            _ => {}
        }
        self.parent.emit(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> CommandTask {
        CommandTask {
            name: "build".into(),
            command: "make".into(),
            continue_on_error: false,
            self_healing: true,
            max_healing_attempts: None,
            output: None,
            timeout_seconds: None,
            line: 3,
        }
    }

    #[test]
    fn the_prompt_names_the_command_the_failure_and_earlier_fixes() {
        let tail: VecDeque<String> = ["cc -c a.c", "a.c:1: error: x undeclared"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let failed = FailedRun {
            number: 2,
            max: 5,
            code: 2,
            timed_out: false,
            tail: &tail,
        };
        let text = prompt(
            &task(),
            &failed,
            &["attempt 1 (exit 2): fix applied: [Edit] a.c".to_owned()],
        );
        assert!(text.contains("Step: build\nCommand: make\nExit code: 2\nRun 2 of at most 5.\n"));
        assert!(text.contains("```\ncc -c a.c\na.c:1: error: x undeclared\n```\n"));
        assert!(text.contains("- attempt 1 (exit 2): fix applied: [Edit] a.c\n"));
        assert!(text.contains("only its exit code says whether the fix worked"));
    }

    #[test]
    fn a_long_output_is_shown_by_its_end_cut_at_a_character() {
        let tail: VecDeque<String> = std::iter::once("é".repeat(SHOWN_CHARS))
            .chain(std::iter::once("the last line".to_owned()))
            .collect();
        let failed = FailedRun {
            number: 1,
            max: 2,
            code: 124,
            timed_out: true,
            tail: &tail,
        };
        let text = prompt(&task(), &failed, &[]);
        assert!(text.contains("[… earlier output left out]\n"));
        assert!(text.contains("the last line\n```"));
        assert!(!text.contains("Earlier failed runs"));
        assert!(text.contains("Exit code: 124 (stopped: it ran past its timeout_seconds)\n"));
    }

    #[test]
    fn the_history_line_prefers_tool_calls_then_words() {
        let mut seen = Seen::default();
        assert_eq!(seen.summary(), "the agent changed nothing it reported");
        seen.last_text = Some("Added the missing include.".into());
        assert_eq!(seen.summary(), "the agent said: Added the missing include.");
        seen.tools = vec!["[Edit] a.c".into(), "[Bash] make -n".into()];
        assert_eq!(seen.summary(), "fix applied: [Edit] a.c; [Bash] make -n");
    }
}
