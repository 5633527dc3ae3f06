//! Prompt (`claude:`) steps: the step handed to the [`Provider`] it asks
//! for, with what is the same for every provider around it. Its
//! `context:` files are read once, before the prompt; the provider gets one
//! call (or the [`judge`]'s loop of them); `output:` is
//! checked once, at the end. A step asking for a provider this build does
//! not have fails with `WORKFLOW_NO_PROVIDER`.

use std::fmt::Write as _;
use std::path::Path;

use super::call::Call;
use super::code;
use super::event::{Event, Level};
use super::expect;
use super::judge;
use super::model::PromptTask;
use super::provider::{Provider, requested};
use super::step::{Context, Emit, Failure, StepError};

/// Runs a prompt step with the provider it asks for, or fails saying why
/// it cannot.
pub(super) fn run(task: &PromptTask, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError> {
    let wanted = requested(task, ctx.settings.provider.as_deref());
    let Some(provider) = Provider::named(&wanted) else {
        return Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_NO_PROVIDER,
            format!(
                "Step \"{}\" asks for the agent provider {wanted}, which this version of voyage-helper cannot run (it runs: {}); run it with Executant, or use another provider",
                task.name,
                Provider::ALL
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )));
    };
    ctx.check_stopped()?;
    // Read once: an attempt that edits a context file does not change the
    // task the next attempt, or the judge, is given.
    let prompt = with_context(task)?;
    // What the user sent since the last prompt step goes in front.
    let prompt = ctx.interject.deliver(&task.name, prompt, emit);
    if task.llm_as_judge {
        let before = task.expect.as_deref().map(expect::before);
        judge::run(provider, task, &prompt, ctx, emit)?;
        check_output(task)?;
        return match (task.expect.as_deref(), &before) {
            (Some(wanted), Some(before)) => {
                let found = expect::findings(task, wanted, before, ctx, emit)?;
                if found.is_empty() {
                    Ok(())
                } else {
                    Err(expect::failure(task, &found))
                }
            }
            _ => Ok(()),
        };
    }
    let attempts = task.expect.as_deref().map_or(1, |e| e.attempts);
    let mut asked = prompt.clone();
    for attempt in 1..=attempts {
        let before = task.expect.as_deref().map(expect::before);
        let call = Call {
            model: provider.step_model(task, &ctx.settings),
            ..Call::for_step(task, &asked)
        };
        let words = judge::Words::new(emit);
        provider.call(&call, ctx, &words)?;
        let answer = words.answer();
        let (Some(wanted), Some(before)) = (task.expect.as_deref(), &before) else {
            return check_output(task);
        };
        let found = expect::findings(task, wanted, before, ctx, emit)?;
        if found.is_empty() {
            return check_output(task);
        }
        if attempt == attempts {
            return Err(expect::failure(task, &found));
        }
        // The findings go back to the agent the way the judge's feedback does.
        let feedback = expect::feedback(&found);
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "step \"{}\": expect: not met on attempt {attempt}/{attempts} ({}); running it again with the findings",
                task.name,
                found.join("; ")
            ),
        ));
        asked = judge::retry_prompt(&prompt, &feedback, &answer);
    }
    check_output(task)
}

/// The prompt with the step's `context:` files before it, each as
/// `### <path>` and a fenced block, read relative to the current directory.
pub(super) fn with_context(task: &PromptTask) -> Result<String, StepError> {
    if task.context_files.is_empty() {
        return Ok(task.prompt.clone());
    }
    let mut out = String::new();
    for path in &task.context_files {
        let text = crate::input_file::read_to_string(
            std::path::Path::new(path),
            super::load::MAX_FILE_BYTES,
        )
        .map_err(|e| {
            StepError::Failed(Failure::failed(
                code::WORKFLOW_CONTEXT_UNREADABLE,
                format!(
                    "Step \"{}\": cannot read its context file {path}: {e}",
                    task.name
                ),
            ))
        })?;
        let newline = if text.ends_with('\n') || text.is_empty() {
            ""
        } else {
            "\n"
        };
        let _ = write!(out, "### {path}\n```\n{text}{newline}```\n\n");
    }
    out.push_str(&task.prompt);
    Ok(out)
}

/// `output:` on a prompt step: the file the agent had to create.
fn check_output(task: &PromptTask) -> Result<(), StepError> {
    match &task.output {
        Some(path) if !Path::new(path).exists() => Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_OUTPUT_MISSING,
            format!(
                "Step \"{}\" finished but did not create its output file {path}",
                task.name
            ),
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> PromptTask {
        PromptTask::sample()
    }

    #[test]
    fn context_files_come_before_the_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        std::fs::write(&a, "alpha").unwrap();
        let b = dir.path().join("b.md");
        std::fs::write(&b, "beta\n").unwrap();
        let mut t = task();
        t.context_files = vec![a.display().to_string(), b.display().to_string()];
        assert_eq!(
            with_context(&t).unwrap(),
            format!(
                "### {}\n```\nalpha\n```\n\n### {}\n```\nbeta\n```\n\nsay hi",
                a.display(),
                b.display()
            )
        );
        t.context_files
            .push(dir.path().join("gone.md").display().to_string());
        let Err(StepError::Failed(f)) = with_context(&t) else {
            panic!("a missing context file must fail the step");
        };
        assert_eq!(f.code, "WORKFLOW_CONTEXT_UNREADABLE");
    }
}
