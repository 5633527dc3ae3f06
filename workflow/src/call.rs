//! One agent call, as every provider is asked for it: a prompt step's, or
//! one the runner makes itself (a fixing agent, a judge, a retrospective).
//!
//! A [`Call`] says what is wanted in the workflow's terms (the prompt, the
//! model, the tools, whether the agent may act without asking); each
//! provider turns it into its own CLI's arguments. The two codes of a CLI
//! that never started are shared too, so that the judge tells "could not
//! grade" from "could not even ask" whichever provider it asked.

use super::code;
use super::model::PromptTask;
use super::step::Failure;

/// One run of an agent CLI.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call<'a> {
    /// Names the call in messages: the step, or `build:heal-2`.
    pub name: &'a str,
    pub prompt: &'a str,
    /// `None`: the CLI's own default model (no `--model`).
    pub model: Option<&'a str>,
    /// `None`: every tool; an empty list: none.
    pub allowed_tools: Option<&'a [String]>,
    pub append_system_prompt: Option<&'a str>,
    /// The OpenCode agent (`--agent`); `None`: `VOYAGE_AGENT` /
    /// `EXECUTANT_AGENT`, else OpenCode's default. Claude has no such
    /// choice and ignores it.
    pub agent: Option<&'a str>,
    pub permissions: Permissions,
    /// A JSON Schema the answer must follow; the answer arrives as
    /// `output:structured`.
    pub json_schema: Option<&'a str>,
    pub timeout_seconds: Option<f64>,
}

impl<'a> Call<'a> {
    /// A prompt step's call, with its prompt already completed (its
    /// `context:` files, or a judge's retry).
    pub(super) fn for_step(task: &'a PromptTask, prompt: &'a str) -> Self {
        Self {
            name: &task.name,
            prompt,
            model: Some(&task.model),
            allowed_tools: task.allowed_tools.as_deref(),
            append_system_prompt: task.append_system_prompt.as_deref(),
            agent: task.agent.as_deref(),
            permissions: Permissions::Bypass,
            json_schema: None,
            timeout_seconds: task.timeout_seconds,
        }
    }
}

/// What the agent may do without asking. Nobody answers a question during
/// a run, so whatever would need one is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Permissions {
    /// Whatever its tools can do: a step's work, a fixing agent's fix.
    Bypass,
    /// Only what needs no asking: a judge or an analysis that reads.
    Default,
}

/// The code of a call whose CLI is not on `PATH`.
pub(super) const NOT_FOUND: &str = code::WORKFLOW_AGENT_NOT_FOUND;
/// The code of a CLI that could not be started otherwise (a prompt too long
/// for one argument, say).
pub(super) const NOT_STARTED: &str = code::WORKFLOW_AGENT_NOT_STARTED;

/// Whether a failure is the CLI never having started.
pub(super) fn never_started(failure: &Failure) -> bool {
    failure.code == NOT_FOUND || failure.code == NOT_STARTED
}
