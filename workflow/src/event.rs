//! The events a run produces, with Executant's type names and camelCase
//! field names, so that an Executant NDJSON consumer reads our `--ci`
//! stream. `schemas/event.schema.json` describes every type; consumers must
//! ignore types and fields they do not know (the stream grows over time).
//!
//! The agent-only types (`output:tool`, `output:cost`, `output:usage`,
//! `output:context`, `output:structured`, `step:healing`, `step:judge`,
//! `step:retrospective`) are part of the enum so that the providers of a
//! later release plug into the same stream, the report and the consumers.

use std::sync::Arc;

use serde::Serialize;

use super::model::Workflow;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type")]
pub enum Event {
    #[serde(rename = "workflow:start")]
    WorkflowStart { workflow: Arc<Workflow> },
    #[serde(rename = "workflow:complete", rename_all = "camelCase")]
    WorkflowComplete {
        workflow: Arc<Workflow>,
        duration_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        last_output: Option<String>,
    },
    #[serde(rename = "workflow:cancelled", rename_all = "camelCase")]
    WorkflowCancelled {
        workflow: Arc<Workflow>,
        duration_ms: u64,
    },
    #[serde(rename = "workflow:report")]
    WorkflowReport { report: RunReport },
    #[serde(rename = "step:start")]
    StepStart { index: i64, name: String },
    #[serde(rename = "step:complete", rename_all = "camelCase")]
    StepComplete {
        index: i64,
        name: String,
        duration_ms: u64,
    },
    #[serde(rename = "step:error", rename_all = "camelCase")]
    StepError {
        index: i64,
        name: String,
        error: ErrorInfo,
        #[serde(skip_serializing_if = "Option::is_none")]
        last_output: Option<String>,
    },
    #[serde(rename = "step:skip")]
    StepSkip { index: i64, name: String },
    #[serde(rename = "step:iteration")]
    StepIteration {
        index: i64,
        item: String,
        iteration: u64,
        total: u64,
    },
    #[serde(rename = "step:inner", rename_all = "camelCase")]
    StepInner {
        index: i64,
        iteration: u64,
        inner_index: u64,
        inner_total: u64,
        name: String,
    },
    #[serde(rename = "step:iteration-complete")]
    StepIterationComplete {
        index: i64,
        iteration: u64,
        status: IterationStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    #[serde(rename = "step:healing", rename_all = "camelCase")]
    StepHealing {
        index: i64,
        phase: String,
        attempt: u32,
        max_attempts: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    #[serde(rename = "step:judge", rename_all = "camelCase")]
    StepJudge {
        index: i64,
        verdict: String,
        attempt: u32,
        max_attempts: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
    /// An agent's tool call that Voyage's hook refused (the guard): made
    /// with [`Event::denied`] by every provider that learns of one.
    #[serde(rename = "step:denied")]
    StepDenied {
        index: i64,
        /// The tool as Claude Code names it (`Bash`, `Write`, …).
        tool: String,
        /// What the call would have acted on: the command, or the path.
        target: String,
        /// The rule's reason, as the agent was told it.
        reason: String,
    },
    #[serde(rename = "step:retrospective")]
    StepRetrospective {
        index: i64,
        retrospective: serde_json::Value,
    },
    #[serde(rename = "output:text")]
    OutputText { index: i64, text: String },
    #[serde(rename = "output:tool")]
    OutputTool {
        index: i64,
        tool: String,
        input: serde_json::Value,
    },
    #[serde(rename = "output:cost")]
    OutputCost { index: i64, usd: f64 },
    #[serde(rename = "output:usage")]
    OutputUsage { index: i64, usage: TokenUsage },
    #[serde(rename = "output:context")]
    OutputContext { index: i64, tokens: u64 },
    #[serde(rename = "output:structured")]
    OutputStructured { data: serde_json::Value },
    #[serde(rename = "log")]
    Log { level: Level, text: String },
}

impl Event {
    /// Puts the top-level step's index on the events that carry one for
    /// their step's row (inner producers do not know it). `log`,
    /// `output:structured` and the workflow and step lifecycle events keep
    /// theirs, as in Executant.
    pub fn patch_index(&mut self, top: i64) {
        match self {
            Event::StepIteration { index, .. }
            | Event::StepInner { index, .. }
            | Event::StepIterationComplete { index, .. }
            | Event::OutputText { index, .. }
            | Event::OutputTool { index, .. }
            | Event::OutputCost { index, .. }
            | Event::OutputUsage { index, .. }
            | Event::OutputContext { index, .. }
            | Event::StepHealing { index, .. }
            | Event::StepJudge { index, .. }
            | Event::StepDenied { index, .. } => *index = top,
            _ => {}
        }
    }

    /// A `step:healing`, `step:judge` or `step:denied` event in words, and
    /// which it is (`healing`, `judge`, `denied`): what the log file, the live view and
    /// the report's narrative say of it.
    pub fn quality_words(&self) -> Option<(&'static str, String)> {
        match self {
            Event::StepHealing {
                phase,
                attempt,
                max_attempts: max,
                exit_code,
                ..
            } => {
                let exit = exit_code
                    .map(|c| format!(" (exit {c})"))
                    .unwrap_or_default();
                let said = match phase.as_str() {
                    "attempt-failed" => {
                        format!("run {attempt}/{max} failed{exit}; an agent looks for a fix")
                    }
                    "healed" => format!("run {attempt}/{max} passed"),
                    "exhausted" => format!("run {attempt}/{max} failed{exit}; no runs left"),
                    other => format!("run {attempt}/{max}: {other}{exit}"),
                };
                Some(("healing", said))
            }
            Event::StepJudge {
                verdict,
                attempt,
                max_attempts: max,
                feedback,
                ..
            } => {
                let verdict = verdict.to_uppercase();
                let said = match feedback.as_deref().filter(|f| !f.is_empty()) {
                    Some(feedback) => format!("attempt {attempt}/{max}: {verdict} — {feedback}"),
                    None => format!("attempt {attempt}/{max}: {verdict}"),
                };
                Some(("judge", said))
            }
            Event::StepDenied {
                tool,
                target,
                reason,
                ..
            } => Some(("denied", format!("{tool} {target}: {reason}"))),
            _ => None,
        }
    }

    pub fn log(level: Level, text: impl Into<String>) -> Self {
        Event::Log {
            level,
            text: text.into(),
        }
    }

    /// A `step:denied` event for the running step: `tool` was refused on
    /// `target` (the command or the path) for `reason`. The one way every
    /// provider (claude's stream, OpenCode's plugin) and the scope check
    /// records a refusal, so that the log, the views and the report read
    /// them alike.
    pub fn denied(
        tool: impl Into<String>,
        target: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Event::StepDenied {
            index: -1,
            tool: tool.into(),
            target: target.into(),
            reason: reason.into(),
        }
    }

    pub fn text(text: impl Into<String>) -> Self {
        Event::OutputText {
            index: -1,
            text: text.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IterationStatus {
    Complete,
    Error,
}

/// An error as Executant serialises one (`name`, `message`), with our
/// stable `code` beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorInfo {
    pub name: String,
    pub message: String,
    pub code: String,
}

/// Token counts, as the agent providers will report them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cache_read_tokens: u64,
}

impl TokenUsage {
    pub fn add(&mut self, other: &TokenUsage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_tokens += other.cache_creation_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
    }

    /// The tokens that occupy a context window (output tokens do not).
    pub fn context(&self) -> u64 {
        self.input_tokens + self.cache_creation_tokens + self.cache_read_tokens
    }

    pub fn total(&self) -> u64 {
        self.context() + self.output_tokens
    }
}

/// The summary of a successful run (`workflow:report`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    pub duration_ms: u64,
    pub total_cost_usd: f64,
    pub total_tokens: TokenUsage,
    pub overflow_tokens: u64,
    pub overflow_calls: u64,
    pub step_narrative: Vec<StepSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// `off` when the run's agents ran without Voyage's hook
    /// (`VOYAGE_WORKFLOW_GUARD=off`); absent when they were guarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
}

/// One step's line in the run narrative.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepSummary {
    pub name: String,
    pub duration_ms: u64,
    pub cost_usd: f64,
    pub quality_events: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

/// How the live views mark a [`Event::quality_words`] line of `kind`.
pub(super) fn quality_mark(kind: &str) -> &'static str {
    match kind {
        "judge" => "⚖ judge",
        "denied" => "⛔ denied",
        _ => "⟳ self-healing",
    }
}

/// The argument of an `output:tool` call that says what it did (a path, a
/// command): for the log file, the live view and a fixing agent's history.
pub(super) fn tool_argument(tool: &str, input: &serde_json::Value) -> String {
    let key = match tool {
        "Read" => input.get("file_path").or_else(|| input.get("path")),
        // OpenCode names the path `filePath`.
        "Edit" | "Write" => input.get("file_path").or_else(|| input.get("filePath")),
        "Bash" => input.get("command"),
        "Glob" | "Grep" => input.get("pattern"),
        _ => return input.to_string(),
    };
    match key {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_denial_is_a_step_denied_event_on_its_steps_row() {
        let mut event = Event::denied("Bash", "rm -rf ~", "voyage: blocked rm-home");
        event.patch_index(2);
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "step:denied", "index": 2, "tool": "Bash",
                   "target": "rm -rf ~", "reason": "voyage: blocked rm-home"})
        );
        assert_eq!(
            event.quality_words(),
            Some((
                "denied",
                "Bash rm -rf ~: voyage: blocked rm-home".to_owned()
            ))
        );
    }
}
