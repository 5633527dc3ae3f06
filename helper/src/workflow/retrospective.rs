//! The failure retrospective: when a top-level step fails the run, one
//! agent call with no tools (to the [`ANALYST`] provider) reads what is
//! known (the step, its error, the end of its output, its judge and
//! self-healing history, the workflow file) and answers why it failed and
//! what to change, as a `step:retrospective` event after the `step:error`.
//!
//! It never masks the failure: a call that fails or answers nothing usable
//! leaves a warning and no event, and the run ends as it would have. As in
//! Executant it is skipped by `--no-retrospective` and by
//! `VOYAGE_RETROSPECTIVE=0` / `EXECUTANT_RETROSPECTIVE=0`, and nested runs
//! never make one. Unlike Executant, a workflow with no agent step (no
//! `prompt:`, no `self_healing:`) gets none either: a run of shell commands
//! does not start a paid agent call because one of them failed.

use serde_json::{Map, Value, json};

use super::answer::Answer;
use super::call::{Call, Permissions};
use super::event::{Event, Level};
use super::model::{Task, Workflow};
use super::provider::Provider;
use super::step::{Context, Emit, Failure, StepError};
use super::text::{head, tail};

/// Who analyses: Claude, whatever the steps' providers. (Executant
/// follows `EXECUTANT_PROVIDER` here; while this build runs no other
/// provider, that would only lose the analysis.)
pub(super) const ANALYST: Provider = Provider::Claude;
/// The analysis may take this long; it stands between the failure and the
/// run's end.
const TIMEOUT_SECONDS: f64 = 120.0;
const STEP_CHARS: usize = 4_000;
const OUTPUT_CHARS: usize = 8_000;
const WORKFLOW_CHARS: usize = 12_000;
const SCHEMA: &str = r#"{"type":"object","properties":{"summary":{"type":"string"},"rootCause":{"type":"string"},"evidence":{"type":"array","items":{"type":"string"}},"suggestions":{"type":"array","items":{"type":"object","properties":{"step":{"type":"string"},"issue":{"type":"string"},"change":{"type":"string"},"severity":{"type":"string","enum":["low","medium","high"]}},"required":["issue","change"]}},"workflowFixable":{"type":"boolean"},"refineInstruction":{"type":"string"}},"required":["summary","rootCause","evidence","suggestions","workflowFixable","refineInstruction"]}"#;

/// Whether a top-level failure of `workflow` gets a retrospective, given
/// that it is `off` (`--no-retrospective`, or the environment's
/// [`Settings::retrospective`](super::settings::Settings::retrospective)).
pub(super) fn wanted(workflow: &Workflow, off: bool) -> bool {
    !off && workflow.tasks.iter().any(uses_an_agent)
}

fn uses_an_agent(task: &Task) -> bool {
    match task {
        Task::Prompt(_) => true,
        Task::Command(command) => command.self_healing,
        Task::Log(_) => false,
        Task::Loop(each) => each.inner.iter().any(uses_an_agent),
        Task::Workflow(step) => step
            .workflow
            .as_ref()
            .is_some_and(|child| child.tasks.iter().any(uses_an_agent)),
    }
}

/// What the analysis is given about the failure.
pub(super) struct Failed<'a> {
    pub workflow: &'a Workflow,
    pub task: &'a Task,
    pub index: i64,
    pub failure: &'a Failure,
    pub last_output: Option<&'a str>,
    pub quality: &'a [String],
}

/// Runs the analysis and emits `step:retrospective`, or a warning.
pub(super) fn run(failed: &Failed<'_>, ctx: &Context, emit: &dyn Emit) {
    let name = failed.task.name();
    emit.emit(Event::log(
        Level::Info,
        format!("analysing why \"{name}\" failed…"),
    ));
    let prompt = prompt(failed);
    // VOYAGE_MODEL, else EXECUTANT_MODEL, read once at the edge.
    let model = ctx
        .settings
        .model
        .clone()
        .unwrap_or_else(|| "sonnet".to_owned());
    let label = format!("{name}:retrospective");
    let no_tools: Vec<String> = Vec::new();
    let analysis = Call {
        name: &label,
        prompt: &prompt,
        model: &model,
        allowed_tools: Some(&no_tools),
        append_system_prompt: None,
        permissions: Permissions::Default,
        json_schema: Some(SCHEMA),
        timeout_seconds: Some(TIMEOUT_SECONDS),
    };
    // Nothing of the analysis is the step's: not even its cost, since a
    // failed run has no report to add it to.
    let answer = Answer::new(None);
    let said = match ANALYST.call(&analysis, ctx, &answer) {
        Ok(()) => answer
            .into_parts()
            .0
            .and_then(|value| normalise(name, &value)),
        // Interrupted: the run is ending anyway, and quickly is wanted.
        Err(StepError::Cancelled) => return,
        Err(StepError::Failed(_)) => None,
    };
    match said {
        Some(retrospective) => emit.emit(Event::StepRetrospective {
            index: failed.index,
            retrospective,
        }),
        None => emit.emit(Event::log(
            Level::Warn,
            format!("no retrospective of \"{name}\": the analysis gave no usable answer"),
        )),
    }
}

/// The answer with every field present: missing text empty, missing lists
/// empty, and `workflowFixable` false without an instruction to act on.
pub(super) fn normalise(step: &str, value: &Value) -> Option<Value> {
    let answer = value.as_object()?;
    let text = |key: &str| answer.get(key).and_then(Value::as_str).unwrap_or_default();
    let strings: Vec<Value> = answer
        .get("evidence")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter(|v| v.is_string()).cloned().collect())
        .unwrap_or_default();
    let suggestions: Vec<Value> = answer
        .get("suggestions")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(suggestion).collect())
        .unwrap_or_default();
    let instruction = text("refineInstruction").trim();
    let fixable = answer.get("workflowFixable").and_then(Value::as_bool) == Some(true)
        && !instruction.is_empty();
    if text("summary").is_empty() && text("rootCause").is_empty() {
        return None;
    }
    Some(json!({
        "step": step,
        "summary": text("summary"),
        "rootCause": text("rootCause"),
        "evidence": strings,
        "suggestions": suggestions,
        "workflowFixable": fixable,
        "refineInstruction": instruction,
    }))
}

fn suggestion(value: &Value) -> Option<Value> {
    let item = value.as_object()?;
    let text = |key: &str| item.get(key).and_then(Value::as_str);
    let mut out = Map::new();
    if let Some(step) = text("step") {
        out.insert("step".into(), step.into());
    }
    out.insert("issue".into(), text("issue")?.into());
    out.insert("change".into(), text("change")?.into());
    out.insert(
        "severity".into(),
        match text("severity") {
            Some(s @ ("low" | "medium" | "high")) => s.into(),
            _ => "medium".into(),
        },
    );
    Some(Value::Object(out))
}

/// What the analysis is asked, in our words.
fn prompt(failed: &Failed<'_>) -> String {
    let step_json = serde_json::to_string_pretty(failed.task).unwrap_or_default();
    let history = if failed.quality.is_empty() {
        "none".to_owned()
    } else {
        failed.quality.join("\n")
    };
    format!(
        "A workflow run stopped because one of its steps failed. Explain why, from the \
         evidence below only, and say what to change. Tell apart: work the agent left \
         undone, a step too large or too vague, a check that cannot be met, and a judge \
         that was wrong; more retries are the answer only when the attempts were getting \
         closer.\n\n\
         The failed step ({name}):\n```json\n{step}\n```\n\n\
         Its error:\n{error}\n\n\
         The end of its output:\n```\n{output}\n```\n\n\
         Its judge and self-healing history (the primary evidence when there is one):\n\
         {history}\n\n\
         The workflow file:\n```yaml\n{source}\n```\n\n\
         Answer with: summary (one or two sentences); rootCause; evidence (short quotes \
         or facts from the above); suggestions (for each: the step, the issue, the change, \
         severity low, medium or high); workflowFixable (whether editing the workflow file \
         would fix it); refineInstruction (the edit to make, as an instruction, or empty).",
        name = failed.task.name(),
        step = head(&step_json, STEP_CHARS),
        error = failed.failure.message,
        output = tail(failed.last_output.unwrap_or("(none)"), OUTPUT_CHARS),
        source = head(&failed.workflow.source, WORKFLOW_CHARS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_completed_and_fixable_only_with_an_instruction() {
        let full = normalise(
            "build",
            &json!({"summary": "s", "rootCause": "r", "evidence": ["e", 3],
                    "suggestions": [{"issue": "i", "change": "c", "severity": "urgent"},
                                    {"issue": "no change"}],
                    "workflowFixable": true, "refineInstruction": "  "}),
        )
        .unwrap();
        assert_eq!(
            full,
            json!({"step": "build", "summary": "s", "rootCause": "r", "evidence": ["e"],
                   "suggestions": [{"issue": "i", "change": "c", "severity": "medium"}],
                   "workflowFixable": false, "refineInstruction": ""})
        );
        let sparse = normalise(
            "x",
            &json!({"rootCause": "r", "workflowFixable": true,
                                              "refineInstruction": "split step 2"}),
        )
        .unwrap();
        assert_eq!(sparse["workflowFixable"], true);
        assert_eq!(sparse["evidence"], json!([]));
        assert_eq!(normalise("x", &json!({"evidence": ["only"]})), None);
        assert_eq!(normalise("x", &json!("text")), None);
    }

    #[test]
    fn the_schema_is_json() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(schema["type"], "object");
    }
}
