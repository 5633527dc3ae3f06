//! What every `trek` call prints: a few lines for the user, then one
//! `NEXT:` line that says what the agent does now, or with `--json` the
//! same as one object (schema `trek-reply`). The agent never has to work
//! out the next step itself: the reply names it.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

/// What the agent does after this call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Next {
    /// Call `trek step-begin N`.
    BeginStep,
    /// Implement step N's Changes in its Files, then `trek step-done N`.
    Implement,
    /// Call `trek finish`.
    Finish,
    /// Ask the user the main-merge question, then `trek finish --gate …`.
    AskMainMerge,
    /// Stop at the main-merge gate: nobody can be asked in this session,
    /// and the answer is the operator's, given from outside the model.
    AwaitOperator,
    /// Decide whether the entry condition holds, then run `trek start`
    /// again with `--entry met` or `--entry unmet`.
    JudgeEntry,
    /// The run (or this invocation) is over: show the lines and stop.
    Stop,
}

/// A step handed to the agent by `trek step-begin`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Task {
    pub title: String,
    pub files: Vec<TaskFile>,
    pub changes: Option<String>,
    pub reuses: Option<String>,
    pub test_first: Option<String>,
    /// What trek did about the test first on the step's first attempt:
    /// ran it (the RED outcome), or why it is written first and not run.
    /// `null` on a later attempt, where the earlier one dealt with it.
    pub test_first_check: Option<String>,
    pub verify: Option<String>,
    pub on_failure: String,
    pub attempt: u32,
    pub max_attempts: u32,
    /// Why the previous attempt failed (a retry).
    pub previous_error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TaskFile {
    pub path: String,
    pub new: bool,
}

/// The scope audit's finding in a `step-done` reply.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ScopeReply {
    /// Each path changed outside the step's Files, and how.
    pub changes: Vec<crate::audit::scope::Finding>,
    /// The patch holding those changes (`git apply PATH` restores them),
    /// `null` when it could not be written (then nothing was put back).
    pub patch: Option<String>,
    /// The paths put back as they were when the step began.
    pub restored: Vec<String>,
    /// The paths left where they are (a nested repository, or all when
    /// the patch could not be written).
    pub kept: Vec<String>,
    /// Why something was left in place; the step is then escalated.
    pub problem: Option<String>,
}

/// One `trek` reply.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Reply {
    /// `start`, `step-begin`, `step-done`, `finish` or `release`.
    pub command: &'static str,
    pub next: Next,
    /// The step `next` is about (begin-step, implement), if any.
    pub step: Option<u32>,
    /// The run's status word after this call (`in_progress`, `completed`,
    /// `failed`, `stopped`, `partial`, `blocked`, or what a report-only
    /// mode found: `ready`, `fail`, `handover`).
    pub status: String,
    pub plan: Option<String>,
    pub progress: Option<String>,
    /// What to show the user, in order.
    pub lines: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
    /// The final report (finish), shown whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// The `trekexecute_summary` object (finish).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
    /// step-done: what the scope audit found outside the step's Files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeReply>,
    /// The call that answers the main-merge gate, with every argument it
    /// needs (ask-main-merge, await-operator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The exit status this reply carries: 0 the run goes on or completed,
    /// 1 it stopped short, 2 it could not be checked.
    #[serde(skip)]
    pub exit: u8,
}

impl Reply {
    pub(crate) fn new(command: &'static str, next: Next, status: impl Into<String>) -> Self {
        Self {
            command,
            next,
            step: None,
            status: status.into(),
            plan: None,
            progress: None,
            lines: Vec::new(),
            task: None,
            report: None,
            summary: None,
            scope: None,
            call: None,
            exit: crate::exit::OK,
        }
    }

    pub(crate) fn line(mut self, line: impl Into<String>) -> Self {
        self.lines.push(line.into());
        self
    }

    pub(crate) fn push(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// Appends each line of a subcommand's text output.
    pub(crate) fn push_text(&mut self, text: &str) {
        self.lines
            .extend(text.trim_end().lines().map(str::to_owned));
    }

    fn gate_call(&self) -> &str {
        self.call
            .as_deref()
            .unwrap_or("trek finish --gate confirm|decline")
    }

    /// The `NEXT:` line.
    fn next_line(&self) -> String {
        let n = self.step.map(|s| s.to_string()).unwrap_or_default();
        match self.next {
            Next::BeginStep => format!("NEXT: trek step-begin {n}"),
            Next::Implement => format!(
                "NEXT: implement step {n} (only its Files), then: trek step-done {n}"
            ),
            Next::Finish => "NEXT: trek finish".to_owned(),
            Next::AskMainMerge => format!(
                "NEXT: ask the question above with AskUserQuestion, then: {}",
                self.gate_call()
            ),
            Next::AwaitOperator => format!(
                "NEXT: stop — do not answer the main-merge gate; the operator runs: voyage-helper {}",
                self.gate_call()
            ),
            Next::JudgeEntry => "NEXT: judge the entry condition above, then re-run trek start with the same arguments and --entry met|unmet".to_owned(),
            Next::Stop => "NEXT: stop — show the user the lines above".to_owned(),
        }
    }

    pub(crate) fn render(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        if json {
            serde_json::to_writer(&mut *out, self)?;
            writeln!(out)?;
        } else {
            for line in &self.lines {
                writeln!(out, "{}", shown(line))?;
            }
            if let Some(task) = &self.task {
                render_task(self.step.unwrap_or(0), task, out)?;
            }
            if let Some(report) = &self.report {
                writeln!(out, "{}", shown(report.trim_end()))?;
            }
            writeln!(out, "{}", self.next_line())?;
        }
        out.flush()?;
        Ok(self.exit)
    }
}

/// Text from plans and command output as a terminal may show it: control
/// characters and bidirectional overrides escaped, line breaks kept.
fn shown(text: &str) -> String {
    text.split('\n')
        .map(crate::ansi::escape_controls)
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_task(n: u32, task: &Task, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "--- Step {n}: {} (attempt {} of {}) ---",
        shown(&task.title),
        task.attempt,
        task.max_attempts
    )?;
    let files: Vec<String> = task
        .files
        .iter()
        .map(|f| {
            if f.new {
                format!("{} (new)", shown(&f.path))
            } else {
                shown(&f.path)
            }
        })
        .collect();
    writeln!(out, "Files: {}", files.join(", "))?;
    for (label, value) in [("Changes", &task.changes), ("Reuses", &task.reuses)] {
        if let Some(v) = value {
            writeln!(out, "{label}: {}", shown(v))?;
        }
    }
    if let (Some(test), Some(check)) = (&task.test_first, &task.test_first_check) {
        writeln!(out, "Test first: {} → {}", shown(test), shown(check))?;
    }
    if let Some(v) = &task.previous_error {
        writeln!(
            out,
            "Previous attempt failed: {} (the step-done reply above has the details)",
            shown(v)
        )?;
    }
    if let Some(v) = &task.verify {
        writeln!(out, "Verify (trek step-done runs it): `{}`", shown(v))?;
    }
    writeln!(out, "On failure: {}", shown(&task.on_failure))
}
