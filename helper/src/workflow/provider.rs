//! The boundary agent providers plug into: a prompt step is handed to the
//! [`Provider`] its name resolves to, which streams the step's events
//! (`output:text`, `output:tool`, `output:cost`, `output:usage`, …) through
//! the same [`Emit`] as every other step, so the runner, the report and the
//! consumers need no change when one arrives.
//!
//! [`run`] does what is the same for every provider: it reads the step's
//! `context:` files once, hands the provider one attempt (or the
//! [`judge`](super::judge)'s loop of them) and checks `output:` once at the
//! end. This release registers [`claude`](super::claude); a step asking for
//! any other provider fails with `WORKFLOW_NO_PROVIDER` instead of
//! pretending to run.

use std::fmt::Write as _;
use std::path::Path;

use super::model::PromptTask;
use super::step::{Context, Emit, Failure, StepError};

/// Runs prompt steps with one agent CLI (`claude`, `opencode`).
pub trait Provider: Send + Sync {
    /// The name steps and `VOYAGE_PROVIDER` use for it.
    fn name(&self) -> &'static str;
    /// One attempt at a step: `prompt` is its prompt with its `context:`
    /// files (or a judge's retry of it). The step's post-conditions are
    /// checked by the caller, once.
    fn attempt(
        &self,
        task: &PromptTask,
        prompt: &str,
        ctx: &Context,
        emit: &dyn Emit,
    ) -> Result<(), StepError>;
}

/// The providers this build can run.
pub fn available() -> Vec<Box<dyn Provider>> {
    vec![Box::new(super::claude::Claude)]
}

/// The provider a prompt step asks for: its `provider:`, else
/// `VOYAGE_PROVIDER`, else `EXECUTANT_PROVIDER`, else `claude`.
pub fn requested(task: &PromptTask) -> String {
    task.provider
        .clone()
        .or_else(|| non_empty_env("VOYAGE_PROVIDER"))
        .or_else(|| non_empty_env("EXECUTANT_PROVIDER"))
        .unwrap_or_else(|| "claude".to_owned())
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Runs a prompt step with the provider it asks for, or fails saying why
/// it cannot.
pub fn run(
    providers: &[Box<dyn Provider>],
    task: &PromptTask,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<(), StepError> {
    let wanted = requested(task);
    match providers.iter().find(|p| p.name() == wanted) {
        Some(provider) => {
            ctx.check_stopped()?;
            // Read once: an attempt that edits a context file does not
            // change the task the next attempt, or the judge, is given.
            let prompt = with_context(task)?;
            if task.llm_as_judge {
                super::judge::run(provider.as_ref(), task, &prompt, ctx, emit)?;
            } else {
                provider.attempt(task, &prompt, ctx, emit)?;
            }
            check_output(task)
        }
        None => Err(StepError::Failed(Failure::failed(
            "WORKFLOW_NO_PROVIDER",
            format!(
                "Step \"{}\" asks for the agent provider {wanted}, which this version of voyage-helper cannot run (it runs: {}); run it with Executant, or use another provider",
                task.name,
                providers
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))),
    }
}

/// The prompt with the step's `context:` files before it, each as
/// `### <path>` and a fenced block, read relative to the current directory.
pub fn with_context(task: &PromptTask) -> Result<String, StepError> {
    if task.context_files.is_empty() {
        return Ok(task.prompt.clone());
    }
    let mut out = String::new();
    for path in &task.context_files {
        let text = std::fs::read_to_string(path).map_err(|e| {
            StepError::Failed(Failure::failed(
                "WORKFLOW_CONTEXT_UNREADABLE",
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
            "WORKFLOW_OUTPUT_MISSING",
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
