//! The judge (`llm_as_judge: true` on a prompt step): after each attempt a
//! second agent, which may only read, decides whether the task was really
//! done; when it says no, the step runs again with its feedback, up to
//! [`MAX_ATTEMPTS`] attempts in all.
//!
//! The judge is Claude on sonnet with Read, Grep and Glob, in the default
//! permission mode, answering through `--json-schema` (`pass`, `reasoning`,
//! `feedback`). Its cost and tokens count in the step's; its words do not
//! become the step's output. A judge that cannot answer does not fail the
//! step: the attempt is accepted ungraded, with a warning, as in Executant.
//! Each verdict is a `step:judge` event.

use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::claude::{Call, call, with_context};
use super::event::{Event, Level};
use super::model::PromptTask;
use super::provider::Provider;
use super::runner::{Context, Emit, Failure, StepError};

/// Attempts of the step, the first included.
pub const MAX_ATTEMPTS: u32 = 5;
/// How much of an attempt's answer the judge and the retry are shown (its
/// end).
const SHOWN_CHARS: usize = 24_000;
const MODEL: &str = "sonnet";
const TOOLS: [&str; 3] = ["Read", "Grep", "Glob"];
/// What the judge must answer.
const VERDICT_SCHEMA: &str = r#"{"type":"object","properties":{"pass":{"type":"boolean"},"reasoning":{"type":"string"},"feedback":{"type":"string"}},"required":["pass","feedback"],"additionalProperties":false}"#;

/// Runs a judged prompt step with `provider`.
pub fn run(
    provider: &dyn Provider,
    task: &PromptTask,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<(), StepError> {
    let mut attempt_task = task.clone();
    for attempt in 1..=MAX_ATTEMPTS {
        let words = Words {
            parent: emit,
            texts: Mutex::new(Vec::new()),
        };
        provider.run(&attempt_task, ctx, &words)?;
        let answer = shown(
            &words
                .texts
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .join("\n"),
        );
        let Some(verdict) = judge(task, attempt, &answer, ctx, emit)? else {
            return Ok(());
        };
        emit.emit(Event::StepJudge {
            index: -1,
            verdict: if verdict.pass { "pass" } else { "fail" }.to_owned(),
            attempt,
            max_attempts: MAX_ATTEMPTS,
            feedback: (!verdict.pass).then(|| verdict.feedback.clone()),
        });
        if verdict.pass {
            return Ok(());
        }
        attempt_task.prompt = retry_prompt(&task.prompt, &verdict.feedback, &answer);
    }
    Err(StepError::Failed(Failure::failed(
        "WORKFLOW_JUDGE_FAILED",
        format!(
            "Step \"{}\" failed judge evaluation after {MAX_ATTEMPTS} attempts",
            task.name
        ),
    )))
}

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub pass: bool,
    pub feedback: String,
}

/// Asks the judge about one attempt. `Ok(None)`: it could not answer, and
/// the attempt is accepted ungraded.
fn judge(
    task: &PromptTask,
    attempt: u32,
    answer: &str,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<Option<Verdict>, StepError> {
    // The step's own context files are part of what was asked.
    let asked = with_context(task).unwrap_or_else(|_| task.prompt.clone());
    let prompt = judge_prompt(&task.name, &asked, answer);
    let name = format!("{}:judge-{attempt}", task.name);
    let tools: Vec<String> = TOOLS.iter().map(|t| (*t).to_owned()).collect();
    let judge_call = Call {
        name: &name,
        prompt: &prompt,
        model: MODEL,
        allowed_tools: Some(&tools),
        append_system_prompt: None,
        permission_mode: "default",
        json_schema: Some(VERDICT_SCHEMA),
        timeout_seconds: task.timeout_seconds,
    };
    let heard = Heard {
        parent: emit,
        structured: Mutex::new(None),
        texts: Mutex::new(Vec::new()),
    };
    let ungraded = |why: String| {
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "the judge could not grade attempt {attempt} of \"{}\"; accepted ungraded: {why}",
                task.name
            ),
        ));
        Ok(None)
    };
    match call(&judge_call, ctx, &heard) {
        Ok(()) => {}
        Err(StepError::Cancelled) => return Err(StepError::Cancelled),
        Err(StepError::Failed(failure)) => return ungraded(failure.message),
    }
    let structured = heard
        .structured
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let texts = heard
        .texts
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match structured
        .as_ref()
        .and_then(verdict_of)
        .or_else(|| salvage(&texts))
    {
        Some(verdict) => Ok(Some(verdict)),
        None => ungraded("its answer held no verdict".to_owned()),
    }
}

/// A verdict from the judge's JSON: `pass` a boolean, `feedback` a string
/// (missing: empty).
fn verdict_of(value: &Value) -> Option<Verdict> {
    Some(Verdict {
        pass: value.get("pass")?.as_bool()?,
        feedback: value
            .get("feedback")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

/// A judge that answered in words rather than through the schema: the last
/// line of its words that is a JSON verdict.
fn salvage(texts: &[String]) -> Option<Verdict> {
    texts
        .iter()
        .rev()
        .flat_map(|t| t.lines().rev())
        .find_map(|line| {
            let line = line.trim().trim_matches('`');
            serde_json::from_str::<Value>(line)
                .ok()
                .as_ref()
                .and_then(verdict_of)
        })
}

/// The end of `text`, at most [`SHOWN_CHARS`] bytes, cut at a character.
fn shown(text: &str) -> String {
    if text.len() <= SHOWN_CHARS {
        return text.to_owned();
    }
    let mut cut = text.len() - SHOWN_CHARS;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    format!("[… the start of the answer is left out]\n{}", &text[cut..])
}

/// What the judge is asked, in our words.
fn judge_prompt(step: &str, asked: &str, answer: &str) -> String {
    format!(
        "You check whether one step of an automated workflow was really done. Judge by \
         evidence: read the files the step should have changed where that helps, and do not \
         take the agent's word for it.\n\n\
         Step: {step}\n\nThe task it was given:\n\"\"\"\n{asked}\n\"\"\"\n\n\
         What the agent answered:\n\"\"\"\n{answer}\n\"\"\"\n\n\
         Answer with pass true only when the task is done as asked; reasoning in a sentence or \
         two; and feedback: what exactly is missing or wrong, as an instruction the agent can \
         act on (empty when it passes)."
    )
}

/// The step's prompt for its next attempt: the task, the judge's feedback
/// and the answer it rejected.
fn retry_prompt(asked: &str, feedback: &str, rejected: &str) -> String {
    format!(
        "{asked}\n\n---\nA reviewer checked your previous attempt at this task and found it not \
         done:\n{feedback}\n\nYour previous answer was:\n\"\"\"\n{rejected}\n\"\"\"\n\n\
         Finish the task, and address every point the reviewer made."
    )
}

/// Passes an attempt's events on, keeping its words for the judge.
struct Words<'a> {
    parent: &'a dyn Emit,
    texts: Mutex<Vec<String>>,
}

impl Emit for Words<'_> {
    fn emit(&self, event: Event) {
        if let Event::OutputText { text, .. } = &event {
            self.texts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(text.clone());
        }
        self.parent.emit(event);
    }
}

/// Takes the judge's events: its cost and tokens go on to the step, its
/// verdict and words are kept, the rest (its reading) is not the step's
/// output.
struct Heard<'a> {
    parent: &'a dyn Emit,
    structured: Mutex<Option<Value>>,
    texts: Mutex<Vec<String>>,
}

impl Emit for Heard<'_> {
    fn emit(&self, event: Event) {
        match event {
            Event::OutputCost { .. } | Event::OutputUsage { .. } => self.parent.emit(event),
            Event::OutputStructured { data } => {
                *self
                    .structured
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(data);
            }
            Event::OutputText { text, .. } => self
                .texts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(text),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_verdict_needs_a_boolean_pass() {
        assert_eq!(
            verdict_of(&json!({"pass": false, "feedback": "add tests"})),
            Some(Verdict {
                pass: false,
                feedback: "add tests".into()
            })
        );
        assert_eq!(
            verdict_of(&json!({"pass": true})),
            Some(Verdict {
                pass: true,
                feedback: String::new()
            })
        );
        assert_eq!(verdict_of(&json!({"pass": "yes"})), None);
        assert_eq!(verdict_of(&json!([true])), None);
    }

    #[test]
    fn words_are_salvaged_from_the_last_json_line() {
        let texts = vec![
            "Looking at the files.".to_owned(),
            "{\"pass\": false, \"feedback\": \"first\"}\nthen\n`{\"pass\": true, \"feedback\": \"\"}`"
                .to_owned(),
        ];
        assert_eq!(salvage(&texts).map(|v| v.pass), Some(true));
        assert_eq!(salvage(&["no verdict here".to_owned()]), None);
    }

    #[test]
    fn long_answers_are_shown_by_their_end() {
        let long = format!("{}the end", "é".repeat(SHOWN_CHARS));
        let cut = shown(&long);
        assert!(cut.starts_with("[… the start of the answer is left out]\n"));
        assert!(cut.ends_with("the end"));
        assert_eq!(shown("short"), "short");
    }

    #[test]
    fn the_retry_carries_the_task_the_feedback_and_the_rejected_answer() {
        let text = retry_prompt("Write docs.", "README lacks usage.", "Done!");
        assert!(text.starts_with("Write docs.\n\n---\n"));
        assert!(text.contains("found it not done:\nREADME lacks usage.\n"));
        assert!(text.contains("\"\"\"\nDone!\n\"\"\""));
    }

    #[test]
    fn the_verdict_schema_is_json() {
        let schema: Value = serde_json::from_str(VERDICT_SCHEMA).unwrap();
        assert_eq!(schema["required"], json!(["pass", "feedback"]));
    }
}
