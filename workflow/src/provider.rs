//! The one way an agent is called: every [`Call`] (a prompt step's, the
//! judge's, the self-healing agent's, the retrospective's) goes to a
//! [`Provider`], which runs its CLI and streams the call's events
//! (`output:text`, `output:tool`, `output:cost`, `output:usage`, …) through
//! the [`Emit`] it is given, so that the runner, the report and the
//! consumers need no change when a provider arrives.
//!
//! This release has [`claude`] and
//! [`opencode`]; a step asking for any other provider (an
//! environment naming one) fails with `WORKFLOW_NO_PROVIDER` (see
//! [`prompt`](super::prompt)) instead of pretending to run. A provider is a
//! variant here and a module of its own beside `claude`.
//!
//! The two differ on models: Claude takes the loader's default (`sonnet`)
//! for a step that names none and the runner's own pins (the judge's
//! `sonnet`); OpenCode names models `provider/model`, so it takes only a
//! model the step wrote, else `VOYAGE_MODEL` / `EXECUTANT_MODEL`, else its
//! own configured default ([`Provider::step_model`],
//! [`Provider::pinned_model`]).

use super::call::Call;
use super::claude;
use super::model::PromptTask;
use super::opencode;
use super::settings::Settings;
use super::step::{Context, Emit, StepError};

/// An agent CLI that runs calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Provider {
    /// The Claude Code CLI in print mode.
    Claude,
    /// The OpenCode CLI (`opencode run --format json`).
    OpenCode,
}

impl Provider {
    /// The providers this build can run.
    pub(super) const ALL: [Provider; 2] = [Provider::Claude, Provider::OpenCode];

    /// The name steps and `VOYAGE_PROVIDER` use for it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::OpenCode => "opencode",
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
            Provider::OpenCode => opencode::call(call, ctx, emit),
        }
    }

    /// The model a prompt step runs on with this provider: for Claude its
    /// `model:` or the loader's `sonnet`; for OpenCode only a `model:` the
    /// step wrote, else the environment's, else none (OpenCode's default).
    pub(super) fn step_model<'a>(
        self,
        task: &'a PromptTask,
        settings: &'a Settings,
    ) -> Option<&'a str> {
        match self {
            Provider::Claude => Some(&task.model),
            Provider::OpenCode if task.model_given => Some(&task.model),
            Provider::OpenCode => settings.model.as_deref(),
        }
    }

    /// The model of a call the runner pins to `claude_model` (a Claude
    /// alias such as `sonnet`): that alias on Claude; on OpenCode, which
    /// has no such alias, the environment's model or its own default.
    pub(super) fn pinned_model<'a>(
        self,
        claude_model: &'a str,
        settings: &'a Settings,
    ) -> Option<&'a str> {
        match self {
            Provider::Claude => Some(claude_model),
            Provider::OpenCode => settings.model.as_deref(),
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
        assert_eq!(Provider::named("opencode"), Some(Provider::OpenCode));
        assert_eq!(Provider::named("Claude"), None);
        assert_eq!(Provider::named("gemini"), None);
        for provider in Provider::ALL {
            assert_eq!(Provider::named(provider.name()), Some(provider));
        }
    }

    #[test]
    fn opencode_takes_only_a_model_the_step_wrote_else_the_environments() {
        let mut task = PromptTask::sample();
        let none = Settings::default();
        let env = Settings {
            model: Some("anthropic/claude-haiku-4-5".into()),
            ..Settings::default()
        };
        assert_eq!(Provider::Claude.step_model(&task, &env), Some("sonnet"));
        assert_eq!(Provider::OpenCode.step_model(&task, &none), None);
        assert_eq!(
            Provider::OpenCode.step_model(&task, &env),
            Some("anthropic/claude-haiku-4-5")
        );
        task.model = "openai/gpt-5".into();
        task.model_given = true;
        assert_eq!(
            Provider::OpenCode.step_model(&task, &env),
            Some("openai/gpt-5")
        );
        assert_eq!(
            Provider::Claude.pinned_model("sonnet", &env),
            Some("sonnet")
        );
        assert_eq!(Provider::OpenCode.pinned_model("sonnet", &none), None);
    }
}
