//! The one way an agent is called: every [`Call`] (a prompt step's, the
//! judge's, the self-healing agent's, the retrospective's) goes to a
//! [`Provider`], which runs its CLI and streams the call's events
//! (`output:text`, `output:tool`, `output:cost`, `output:usage`, …) through
//! the [`Emit`] it is given, so that the runner, the report and the
//! consumers need no change when a provider arrives.
//!
//! This release has [`claude`](super::claude); a step asking for any other
//! provider fails with `WORKFLOW_NO_PROVIDER` (see
//! [`prompt`](super::prompt)) instead of pretending to run. A provider is a
//! variant here and a module of its own beside `claude`.

use super::call::Call;
use super::claude;
use super::model::PromptTask;
use super::step::{Context, Emit, StepError};

/// An agent CLI that runs calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Provider {
    /// The Claude Code CLI in print mode.
    Claude,
}

impl Provider {
    /// The providers this build can run.
    pub(super) const ALL: [Provider; 1] = [Provider::Claude];

    /// The name steps and `VOYAGE_PROVIDER` use for it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
        }
    }

    /// The provider called `name`, if this build can run it.
    pub(super) fn named(name: &str) -> Option<Provider> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Runs `call` once, its events through `emit`.
    pub(super) fn call(
        self,
        call: &Call<'_>,
        ctx: &Context,
        emit: &dyn Emit,
    ) -> Result<(), StepError> {
        match self {
            Provider::Claude => claude::call(call, ctx, emit),
        }
    }
}

/// The provider a prompt step asks for: its `provider:`, else the
/// environment's (`VOYAGE_PROVIDER`, else `EXECUTANT_PROVIDER`:
/// [`Settings::provider`](super::settings::Settings::provider)), else
/// `claude`.
pub(super) fn requested(task: &PromptTask, from_env: Option<&str>) -> String {
    task.provider
        .clone()
        .or_else(|| from_env.map(str::to_owned))
        .unwrap_or_else(|| "claude".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_is_found_by_the_name_steps_use() {
        assert_eq!(Provider::named("claude"), Some(Provider::Claude));
        assert_eq!(Provider::named("opencode"), None);
        assert_eq!(Provider::named("Claude"), None);
        for provider in Provider::ALL {
            assert_eq!(Provider::named(provider.name()), Some(provider));
        }
    }
}
