//! The run report's efficiency suggestion: asked for only when
//! `VOYAGE_REPORT_SUGGESTION=1` (or `EXECUTANT_REPORT_SUGGESTION=1`), after
//! a successful top-level run, before `workflow:report`.
//!
//! One call, as Executant's: Claude on a small model ([`MODEL`]), no tools,
//! at most [`TIMEOUT_SECONDS`], asked for one sentence through a JSON
//! Schema. The run narrative (each step's time, cost, and its judge and
//! self-healing history) is its first evidence: a judge's rejections and a
//! fixing agent's fixes show where a prompt fell short. Only when the
//! narrative shows no friction does it look at the workflow's shape.
//!
//! It never fails the run or holds the report past its limit: a call that
//! fails leaves a warning with its cause, and the report goes out without
//! a suggestion.

use serde_json::Value;

use super::answer::Answer;
use super::call::{Call, Permissions};
use super::event::{Event, Level, RunReport};
use super::model::Workflow;
use super::provider::Provider;
use super::step::{Context, Emit, StepError};
use super::text::{duration_words, head};

/// The small model the suggestion is asked of.
const MODEL: &str = "haiku";
/// The longest the suggestion may hold up the report.
const TIMEOUT_SECONDS: f64 = 600.0;
const WORKFLOW_CHARS: usize = 12_000;
const NARRATIVE_CHARS: usize = 12_000;
const SCHEMA: &str =
    r#"{"type":"object","properties":{"suggestion":{"type":"string"}},"required":["suggestion"]}"#;

/// The suggestion for `report`, or `None` after a warning saying why.
pub(super) fn suggest(
    workflow: &Workflow,
    report: &RunReport,
    ctx: &Context,
    emit: &dyn Emit,
) -> Option<String> {
    emit.emit(Event::log(
        Level::Info,
        "asking for an efficiency suggestion…".to_owned(),
    ));
    let prompt = prompt(workflow, report);
    let no_tools: Vec<String> = Vec::new();
    let call = Call {
        name: "report:suggestion",
        prompt: &prompt,
        model: Some(MODEL),
        allowed_tools: Some(&no_tools),
        append_system_prompt: None,
        agent: None,
        permissions: Permissions::Default,
        json_schema: Some(SCHEMA),
        timeout_seconds: Some(TIMEOUT_SECONDS),
    };
    let answer = Answer::new(None);
    let why = match Provider::Claude.call(&call, ctx, &answer) {
        Ok(()) => match answer.into_parts().0.as_ref().and_then(sentence) {
            Some(said) => return Some(said),
            None => "the answer held no suggestion".to_owned(),
        },
        // Interrupted: the run is ending anyway.
        Err(StepError::Cancelled) => return None,
        Err(StepError::Failed(failure)) => failure.message,
    };
    emit.emit(Event::log(
        Level::Warn,
        format!("no efficiency suggestion: {why}"),
    ));
    None
}

/// The suggestion of a structured answer, trimmed; `None` when empty.
fn sentence(value: &Value) -> Option<String> {
    let said = value.get("suggestion")?.as_str()?.trim();
    (!said.is_empty()).then(|| said.to_owned())
}

/// The run narrative as plain text: each step's time and cost, then its
/// judge and self-healing history, or that it passed clean.
pub(super) fn narrative(report: &RunReport) -> String {
    let mut lines = Vec::new();
    for (n, step) in report.step_narrative.iter().enumerate() {
        lines.push(format!(
            "{}. {} — {}, ${:.4}{}",
            n + 1,
            step.name,
            duration_words(step.duration_ms),
            step.cost_usd,
            if step.failed {
                ", failed (continue_on_error)"
            } else {
                ""
            }
        ));
        if step.quality_events.is_empty() {
            lines.push("   passed clean: no judge rejection, no self-healing".to_owned());
        }
        for event in &step.quality_events {
            lines.push(format!("   - {event}"));
        }
    }
    lines.join("\n")
}

fn prompt(workflow: &Workflow, report: &RunReport) -> String {
    format!(
        "A workflow run has just succeeded. Suggest the one change to its workflow file that \
         would most cut its cost or time next run, in one sentence.\n\n\
         Look at the run narrative first: a judge's rejections and self-healing fixes are \
         direct evidence of where a step's prompt or command fell short, and the fix is \
         usually to say in the step what the judge or the fixer had to supply. Only if the \
         narrative shows no friction, look at the workflow's shape: a cheaper `model:` for \
         a simple prompt step, `concurrency:` for independent forEach iterations, \
         `allowed_tools:` narrowed to what a step needs, `context:` files instead of asking \
         the agent to find them, a `command:` step for work that needs no agent, \
         `timeout_seconds:` on a step that can hang.\n\n\
         The run narrative ({duration}, ${cost:.4} in all):\n{narrative}\n\n\
         The workflow file:\n```yaml\n{source}\n```\n\n\
         Answer with: suggestion (one sentence naming the step and the change).",
        duration = duration_words(report.duration_ms),
        cost = report.total_cost_usd,
        narrative = head(&narrative(report), NARRATIVE_CHARS),
        source = head(&workflow.source, WORKFLOW_CHARS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{StepSummary, TokenUsage};
    use serde_json::json;

    #[test]
    fn the_narrative_shows_friction_and_clean_steps() {
        let step = |name: &str, quality: &[&str]| StepSummary {
            name: name.into(),
            duration_ms: 1500,
            cost_usd: 0.25,
            quality_events: quality.iter().map(|q| (*q).to_owned()).collect(),
            failed: false,
        };
        let report = RunReport {
            duration_ms: 3000,
            total_cost_usd: 0.5,
            total_tokens: TokenUsage::default(),
            overflow_tokens: 0,
            overflow_calls: 0,
            step_narrative: vec![step("plan", &[]), step("build", &["judge FAIL: no tests"])],
            suggestion: None,
            guard: None,
        };
        let text = narrative(&report);
        assert!(text.contains("1. plan — "), "{text}");
        assert!(text.contains("passed clean"), "{text}");
        assert!(text.contains("2. build — "), "{text}");
        assert!(text.contains("   - judge FAIL: no tests"), "{text}");
    }

    #[test]
    fn an_answer_gives_its_sentence_or_nothing() {
        assert_eq!(
            sentence(&json!({"suggestion": "  Use haiku for step plan. "})).as_deref(),
            Some("Use haiku for step plan.")
        );
        assert_eq!(sentence(&json!({"suggestion": " "})), None);
        assert_eq!(sentence(&json!({"other": "x"})), None);
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(schema["required"], json!(["suggestion"]));
    }
}
