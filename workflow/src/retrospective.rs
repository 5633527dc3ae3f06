//! The failure retrospective: when a top-level step fails the run, one
//! agent call with no tools reads what is known (the step and where in its
//! loop it failed, its error, the end of its output, its judge and
//! self-healing history, the workflow file) and answers why it failed and
//! what to change, as a `step:retrospective` event after the `step:error`.
//!
//! As in Executant the call pins neither provider nor model: it follows
//! the environment (`VOYAGE_PROVIDER` / `EXECUTANT_PROVIDER`, else claude;
//! `VOYAGE_MODEL` / `EXECUTANT_MODEL`, else the CLI's own default), where
//! the judge and self-healing pin theirs, so a machine with only OpenCode
//! gets its analysis from OpenCode.
//!
//! It never masks the failure: a call that fails or answers nothing usable
//! leaves a warning saying why (the call's own error: a timeout, the API's
//! message) and no event, and the run ends as it would have. As in
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
    /// Where in its loop (or nested workflow) the step failed, in words.
    pub position: Option<&'a str>,
}

/// Runs the analysis and emits `step:retrospective`, or a warning.
pub(super) fn run(failed: &Failed<'_>, ctx: &Context, emit: &dyn Emit) {
    let name = failed.task.name();
    // The environment's provider and model, read once at the edge.
    let wanted = ctx.settings.provider.as_deref().unwrap_or("claude");
    let Some(analyst) = Provider::named(wanted) else {
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "no retrospective of \"{name}\": {}",
                Why::NoProvider(wanted)
            ),
        ));
        return;
    };
    emit.emit(Event::log(
        Level::Info,
        format!("analysing why \"{name}\" failed…"),
    ));
    let prompt = prompt(failed);
    let model = ctx.settings.model.as_deref();
    let label = format!("{name}:retrospective");
    let no_tools: Vec<String> = Vec::new();
    let analysis = Call {
        name: &label,
        prompt: &prompt,
        model,
        allowed_tools: Some(&no_tools),
        append_system_prompt: None,
        agent: None,
        permissions: Permissions::Default,
        json_schema: Some(SCHEMA),
        timeout_seconds: Some(TIMEOUT_SECONDS),
    };
    // Nothing of the analysis is the step's: not even its cost, since a
    // failed run has no report to add it to.
    let answer = Answer::new(None);
    let said = match analyst.call(&analysis, ctx, &answer) {
        Ok(()) => match answer.into_parts().0 {
            Some(value) => normalise(name, &value).ok_or(Why::Empty),
            None => Err(Why::Unstructured),
        },
        // Interrupted: the run is ending anyway, and quickly is wanted.
        Err(StepError::Cancelled) => return,
        Err(StepError::Failed(failure)) => Err(Why::Failed(failure.message)),
    };
    match said {
        Ok(retrospective) => emit.emit(Event::StepRetrospective {
            index: failed.index,
            retrospective,
        }),
        Err(why) => emit.emit(Event::log(
            Level::Warn,
            format!("no retrospective of \"{name}\": {why}"),
        )),
    }
}

/// Why there is no retrospective, for the warning that says so.
enum Why<'a> {
    /// The environment names a provider this build cannot run.
    NoProvider(&'a str),
    /// The call failed: its own message (a timeout, the API's error).
    Failed(String),
    /// The call ended without the structured answer it was asked for.
    Unstructured,
    /// The answer had neither a summary nor a root cause.
    Empty,
}

impl std::fmt::Display for Why<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::NoProvider(name) => write!(
                f,
                "its provider \"{name}\" (VOYAGE_PROVIDER or EXECUTANT_PROVIDER) is not one this build runs"
            ),
            Why::Failed(message) => write!(f, "the analysis failed: {message}"),
            Why::Unstructured => {
                f.write_str("the analysis ended without the structured answer it was asked for")
            }
            Why::Empty => {
                f.write_str("the analysis answered with neither a summary nor a root cause")
            }
        }
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
         The failed step ({name}{position}):\n```json\n{step}\n```\n\n\
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
        position = failed
            .position
            .map(|p| format!(", failed at {p}"))
            .unwrap_or_default(),
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
    fn a_missing_retrospective_says_why() {
        let said = |why: Why<'_>| why.to_string();
        assert_eq!(
            said(Why::Failed(
                "Step \"x:retrospective\" timed out after 2m 00s".into()
            )),
            "the analysis failed: Step \"x:retrospective\" timed out after 2m 00s"
        );
        assert!(said(Why::NoProvider("opencode")).contains("\"opencode\""));
        assert!(said(Why::Unstructured).contains("structured answer"));
        assert!(said(Why::Empty).contains("neither a summary nor a root cause"));
    }

    #[test]
    fn the_schema_is_json() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(schema["type"], "object");
    }
}
