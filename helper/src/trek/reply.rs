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

impl Next {
    /// Every form, in the order commands/trekexecute.md takes them.
    #[cfg(test)]
    pub(crate) const ALL: [Next; 7] = [
        Next::BeginStep,
        Next::Implement,
        Next::Finish,
        Next::AskMainMerge,
        Next::AwaitOperator,
        Next::JudgeEntry,
        Next::Stop,
    ];

    /// The `NEXT:` line's form, the one place it is written: the words
    /// `N` (the step), `CONFIRM` and `DECLINE` (the gate's two calls, each
    /// whole and quoted for a shell) stand for what a reply puts there.
    /// commands/trekexecute.md quotes every form word for word; a test
    /// holds the two together.
    pub(crate) const fn form(self) -> &'static str {
        match self {
            Next::BeginStep => "NEXT: trek step-begin N",
            Next::Implement => "NEXT: implement step N (only its Files), then: trek step-done N",
            Next::Finish => "NEXT: trek finish",
            Next::AskMainMerge => {
                "NEXT: ask the question above with AskUserQuestion, then run — Confirm: CONFIRM — Decline: DECLINE"
            }
            Next::AwaitOperator => {
                "NEXT: stop — do not answer the main-merge gate; the operator runs in a terminal — Confirm: CONFIRM — Decline: DECLINE"
            }
            Next::JudgeEntry => {
                "NEXT: judge the entry condition above, then re-run trek start with the same arguments and --entry met|unmet"
            }
            Next::Stop => "NEXT: stop — show the user the lines above",
        }
    }
}

/// The call that answers the main-merge gate: `trek finish --gate ANSWER`
/// with its other words (`--plan PLAN` on the multi-session path), run in
/// `dir`, the repository the run is in.
#[derive(Debug, Clone)]
pub(crate) struct GateCall {
    pub extra: Vec<String>,
    pub dir: String,
}

impl GateCall {
    pub(crate) fn new(extra: Vec<String>, dir: &str) -> Self {
        Self {
            extra,
            dir: dir.to_owned(),
        }
    }

    fn words(&self, answer: &str) -> Vec<String> {
        let mut words: Vec<String> = ["trek", "finish", "--gate", answer]
            .map(str::to_owned)
            .into();
        words.extend(self.extra.iter().cloned());
        words
    }

    /// The agent's `trek` call for `answer`, quoted for a shell (the agent
    /// runs it with the launcher the command names).
    pub(crate) fn agent(&self, answer: &str) -> String {
        crate::shell::join(&self.words(answer))
    }

    /// The operator's call for `answer`, whole: into the repository, then
    /// this helper by a name a plain terminal finds.
    pub(crate) fn operator(&self, answer: &str) -> String {
        format!(
            "cd {} && {}",
            crate::shell::quote(&self.dir),
            crate::helper_call::call(&self.words(answer))
        )
    }

    /// Both answers in one text (`--json`'s `call`, the hook's words):
    /// `trek finish --gate confirm|decline …`.
    pub(crate) fn either(&self) -> String {
        let mut text = "trek finish --gate confirm|decline".to_owned();
        for word in &self.extra {
            text.push(' ');
            text.push_str(&crate::shell::quote(word));
        }
        text
    }
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
    /// The same call, as the `NEXT:` line writes it for each answer.
    #[serde(skip)]
    pub gate: Option<GateCall>,
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
            gate: None,
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

    /// The `NEXT:` line: the form with its words filled in.
    pub(crate) fn next_line(&self) -> String {
        let n = self.step.map(|s| s.to_string()).unwrap_or_default();
        // Only the gate's forms name calls (the operator's looks PATH up).
        let gate = self
            .gate
            .clone()
            .unwrap_or_else(|| GateCall::new(Vec::new(), "."));
        let (confirm, decline) = match self.next {
            Next::AwaitOperator => (gate.operator("confirm"), gate.operator("decline")),
            Next::AskMainMerge => (gate.agent("confirm"), gate.agent("decline")),
            _ => (String::new(), String::new()),
        };
        self.next
            .form()
            .split(' ')
            .map(|word| match word {
                "N" => n.clone(),
                "CONFIRM" => confirm.clone(),
                "DECLINE" => decline.clone(),
                other => other.to_owned(),
            })
            .collect::<Vec<_>>()
            .join(" ")
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
                format!("{} {}", shown(&f.path), crate::plan::NEW_MARKER)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `NEXT: …` that commands/trekexecute.md quotes in backticks.
    fn command_forms() -> Vec<String> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../commands/trekexecute.md");
        let text = std::fs::read_to_string(&path).unwrap();
        text.match_indices("`NEXT: ")
            .filter_map(|(at, _)| {
                let rest = text.get(at + 1..)?;
                rest.split_once('`').map(|(form, _)| form.to_owned())
            })
            .collect()
    }

    /// The command and the helper agree word for word on every form: one
    /// the helper prints that the command does not name, or one the
    /// command names that the helper never prints, fails.
    #[test]
    fn the_command_names_every_next_form_the_helper_prints() {
        let command = command_forms();
        let helper: Vec<&str> = Next::ALL.iter().map(|n| n.form()).collect();
        for form in &helper {
            assert!(
                command.iter().any(|c| c == form),
                "commands/trekexecute.md does not name the helper's form `{form}`; it names {command:#?}"
            );
        }
        for form in &command {
            assert!(
                helper.contains(&form.as_str()),
                "commands/trekexecute.md names `{form}`, which the helper never prints; its forms: {helper:#?}"
            );
        }
    }

    /// A line is its form with the words filled in, the gate's calls whole
    /// and quoted.
    #[test]
    fn a_next_line_fills_its_form() {
        let mut reply = Reply::new("finish", Next::AskMainMerge, "in_progress");
        reply.gate = Some(GateCall::new(
            vec!["--plan".into(), "/tmp/my repo/plan.md".into()],
            "/tmp/my repo",
        ));
        assert_eq!(
            reply.next_line(),
            "NEXT: ask the question above with AskUserQuestion, then run — Confirm: trek finish --gate confirm --plan '/tmp/my repo/plan.md' — Decline: trek finish --gate decline --plan '/tmp/my repo/plan.md'"
        );
        let mut reply = Reply::new("step-done", Next::Implement, "in_progress");
        reply.step = Some(3);
        assert_eq!(
            reply.next_line(),
            "NEXT: implement step 3 (only its Files), then: trek step-done 3"
        );
    }
}
