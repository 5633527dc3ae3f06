//! The judge (`llm_as_judge: true` on a prompt step): after each attempt a
//! second agent, which may only read, decides whether the task was really
//! done; when it says no, the step runs again with its feedback, up to
//! [`MAX_ATTEMPTS`] attempts in all.
//!
//! The attempts run on the step's provider. The judge is a call of its own
//! to the provider `VOYAGE_JUDGE_PROVIDER` / `EXECUTANT_JUDGE_PROVIDER`
//! names, else [`JUDGE`] (Claude, Executant's default judge), on sonnet
//! (on OpenCode: the environment's model, else its default) with Read,
//! Grep and Glob, in the default permission mode, answering through a JSON
//! Schema (`pass`, `reasoning`, `feedback`). Its cost and
//! tokens count in the step's; its words do not become the step's output.
//! A judge that cannot answer does not fail the step: the attempt is
//! accepted ungraded, with a warning, as in Executant. Each verdict is a
//! `step:judge` event.

use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::answer::Answer;
use super::call::{Call, NOT_FOUND, Permissions, never_started};
use super::code;
use super::event::{Event, Level};
use super::model::PromptTask;
use super::provider::Provider;
use super::step::{Context, Emit, Failure, StepError};
use super::text::{head, tail};

/// Attempts of the step, the first included.
pub(super) const MAX_ATTEMPTS: u32 = 5;
/// How much of an attempt's answer the judge and the retry are shown (its
/// end).
const SHOWN_CHARS: usize = 24_000;
/// How much of the task the judge is shown (its start): with the answer,
/// the judge's prompt stays under the 128 KiB one argument may hold.
const ASKED_CHARS: usize = 64_000;
/// Who grades unless the environment says: Claude whatever the step's
/// provider, as Executant's judge does by default.
pub(super) const JUDGE: Provider = Provider::Claude;
const MODEL: &str = "sonnet";
const TOOLS: [&str; 3] = ["Read", "Grep", "Glob"];
/// What the judge must answer.
const VERDICT_SCHEMA: &str = r#"{"type":"object","properties":{"pass":{"type":"boolean"},"reasoning":{"type":"string"},"feedback":{"type":"string"}},"required":["pass","feedback"],"additionalProperties":false}"#;

/// Runs a judged prompt step with `provider`; `prompt` is the step's
/// prompt with its context, read once.
pub(super) fn run(
    provider: Provider,
    task: &PromptTask,
    prompt: &str,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<(), StepError> {
    let grader = grader(task, ctx)?;
    let mut asked = prompt.to_owned();
    for attempt in 1..=MAX_ATTEMPTS {
        let words = Words::new(emit);
        let call = Call {
            model: provider.step_model(task, &ctx.settings),
            ..Call::for_step(task, &asked)
        };
        provider.call(&call, ctx, &words)?;
        let answer = words.answer();
        let Some(verdict) = judge(grader, task, prompt, attempt, &answer, ctx, emit)? else {
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
        asked = retry_prompt(prompt, &verdict.feedback, &answer);
    }
    Err(StepError::Failed(Failure::failed(
        code::WORKFLOW_JUDGE_FAILED,
        format!(
            "Step \"{}\" failed judge evaluation after {MAX_ATTEMPTS} attempts",
            task.name
        ),
    )))
}

/// The provider that grades: the environment's judge provider, else
/// [`JUDGE`]. A name this build cannot run fails the step before its
/// first attempt: nothing could be graded.
fn grader(task: &PromptTask, ctx: &Context) -> Result<Provider, StepError> {
    let Some(wanted) = ctx.settings.judge_provider.as_deref() else {
        return Ok(JUDGE);
    };
    Provider::named(wanted).ok_or_else(|| {
        StepError::Failed(Failure::failed(
            code::WORKFLOW_NO_PROVIDER,
            format!(
                "Step \"{}\" is judged by {wanted} (VOYAGE_JUDGE_PROVIDER or \
                 EXECUTANT_JUDGE_PROVIDER), which this version of voyage-helper cannot run \
                 (it runs: {})",
                task.name,
                Provider::ALL.map(Provider::name).join(", ")
            ),
        ))
    })
}

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Verdict {
    pub pass: bool,
    pub feedback: String,
}

/// Asks the judge about one attempt. `Ok(None)`: it could not answer, and
/// the attempt is accepted ungraded. A judge that cannot even be started
/// (the CLI missing, a prompt too long to pass) fails the step instead:
/// nothing was graded, and nothing would be on the next attempt either.
fn judge(
    grader: Provider,
    task: &PromptTask,
    asked: &str,
    attempt: u32,
    answer: &str,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<Option<Verdict>, StepError> {
    let prompt = judge_prompt(&task.name, &start_of(asked, ASKED_CHARS), answer);
    let name = format!("{}:judge-{attempt}", task.name);
    let tools: Vec<String> = TOOLS.iter().map(|t| (*t).to_owned()).collect();
    // No time limit of its own, as in Executant: the step's
    // `timeout_seconds` is the agent's, and a judge cut short would let
    // the attempt through ungraded.
    let judge_call = Call {
        name: &name,
        prompt: &prompt,
        model: grader.pinned_model(MODEL, &ctx.settings),
        allowed_tools: Some(&tools),
        append_system_prompt: None,
        agent: None,
        permissions: Permissions::Default,
        json_schema: Some(VERDICT_SCHEMA),
        timeout_seconds: None,
    };
    let heard = Answer::new(Some(emit));
    match grader.call(&judge_call, ctx, &heard) {
        Ok(()) => {}
        Err(StepError::Failed(failure)) if !never_started(&failure) => {
            return Ok(ungraded(task, attempt, &failure.message, emit));
        }
        Err(StepError::Failed(mut failure))
            if failure.code == NOT_FOUND && ctx.settings.judge_provider.is_none() =>
        {
            failure.message.push_str(
                "\nhint: the judge runs on claude unless VOYAGE_JUDGE_PROVIDER (or \
                 EXECUTANT_JUDGE_PROVIDER) names another provider, such as opencode",
            );
            return Err(StepError::Failed(failure));
        }
        Err(other) => return Err(other),
    }
    let (structured, texts) = heard.into_parts();
    match structured
        .as_ref()
        .and_then(verdict_of)
        .or_else(|| salvage(&texts.join("\n")))
    {
        Some(verdict) => Ok(Some(verdict)),
        None => Ok(ungraded(task, attempt, "its answer held no verdict", emit)),
    }
}

/// Says that an attempt goes through ungraded, and why.
fn ungraded(task: &PromptTask, attempt: u32, why: &str, emit: &dyn Emit) -> Option<Verdict> {
    emit.emit(Event::log(
        Level::Warn,
        format!(
            "the judge could not grade attempt {attempt} of \"{}\"; accepted ungraded: {why}",
            task.name
        ),
    ));
    None
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
/// JSON object in its words that is a verdict, or wraps one under a single
/// key (`{"verdict": {...}}`), pretty-printed or not.
fn salvage(text: &str) -> Option<Verdict> {
    let starts: Vec<usize> = text.match_indices('{').map(|(i, _)| i).collect();
    starts.iter().rev().find_map(|&at| {
        let rest = text.get(at..)?;
        let value = serde_json::Deserializer::from_str(rest)
            .into_iter::<Value>()
            .next()?
            .ok()?;
        verdict_of(&value).or_else(|| match value.as_object() {
            Some(map) if map.len() == 1 => map.values().next().and_then(verdict_of),
            _ => None,
        })
    })
}

/// The end of `text`, at most `max` bytes, said to be cut when it is.
fn end_of(text: &str, max: usize) -> String {
    match tail(text, max) {
        kept if kept.len() == text.len() => text.to_owned(),
        kept => format!("[… the start of the answer is left out]\n{kept}"),
    }
}

/// The start of `text`, at most `max` bytes, said to be cut when it is.
fn start_of(text: &str, max: usize) -> String {
    match head(text, max) {
        kept if kept.len() == text.len() => text.to_owned(),
        kept => format!("{kept}\n[… the rest of the task is left out]"),
    }
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
pub(super) fn retry_prompt(asked: &str, feedback: &str, rejected: &str) -> String {
    format!(
        "{asked}\n\n---\nA reviewer checked your previous attempt at this task and found it not \
         done:\n{feedback}\n\nYour previous answer was:\n\"\"\"\n{rejected}\n\"\"\"\n\n\
         Finish the task, and address every point the reviewer made."
    )
}

/// Passes an attempt's events on, keeping its words for the judge.
pub(super) struct Words<'a> {
    parent: &'a dyn Emit,
    texts: Mutex<Vec<String>>,
}

impl<'a> Words<'a> {
    pub(super) fn new(parent: &'a dyn Emit) -> Self {
        Self {
            parent,
            texts: Mutex::new(Vec::new()),
        }
    }

    /// The end of what the agent said, as much as a retry is shown.
    pub(super) fn answer(self) -> String {
        end_of(
            &self
                .texts
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .join("\n"),
            SHOWN_CHARS,
        )
    }
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
    fn words_are_salvaged_from_the_last_json_verdict() {
        let text = "Looking at the files.\n{\"pass\": false, \"feedback\": \"first\"}\nthen\n\
                    ```json\n{\n  \"pass\": true,\n  \"feedback\": \"\"\n}\n```";
        assert_eq!(salvage(text).map(|v| v.pass), Some(true));
        let wrapped = "{\"verdict\": {\"pass\": false, \"feedback\": \"add tests\"}} trailing";
        assert_eq!(
            salvage(wrapped),
            Some(Verdict {
                pass: false,
                feedback: "add tests".into()
            })
        );
        assert_eq!(salvage("no verdict here {not json"), None);
        assert_eq!(salvage("{\"pass\": \"yes\", \"feedback\": \"\"}"), None);
    }

    #[test]
    fn long_texts_are_cut_at_a_character() {
        let long = format!("{}the end", "é".repeat(SHOWN_CHARS));
        let cut = end_of(&long, SHOWN_CHARS);
        assert!(cut.starts_with("[… the start of the answer is left out]\n"));
        assert!(cut.ends_with("the end"));
        assert!(cut.len() <= SHOWN_CHARS + 60);
        assert_eq!(end_of("short", 10), "short");
        let task = format!("the start{}", "é".repeat(ASKED_CHARS));
        let cut = start_of(&task, ASKED_CHARS);
        assert!(cut.starts_with("the start"));
        assert!(cut.ends_with("\n[… the rest of the task is left out]"));
        assert_eq!(start_of("short", 10), "short");
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
