//! The boundary agent providers plug into: a prompt step is handed to the
//! [`Provider`] its name resolves to, which streams the step's events
//! (`output:text`, `output:tool`, `output:cost`, `output:usage`, …) through
//! the same [`Emit`] as every other step, so the runner, the report and the
//! consumers need no change when one arrives.
//!
//! This release registers [`claude`](super::claude); a step asking for any
//! other provider fails with `WORKFLOW_NO_PROVIDER` instead of pretending to
//! run.

use super::model::PromptTask;
use super::runner::{Context, Emit, Failure, StepError};

/// Runs prompt steps with one agent CLI (`claude`, `opencode`).
pub trait Provider: Send + Sync {
    /// The name steps and `VOYAGE_PROVIDER` use for it.
    fn name(&self) -> &'static str;
    fn run(&self, task: &PromptTask, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError>;
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
        Some(provider) if task.llm_as_judge => {
            super::judge::run(provider.as_ref(), task, ctx, emit)
        }
        Some(provider) => provider.run(task, ctx, emit),
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
