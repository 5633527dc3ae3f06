//! `Step`: one `### Step N: description` of a plan, with its fields.

use std::path::{Component, Path};

use serde::Serialize;

use super::manifest::Manifest;

/// A text field of a step, with the line its label is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Field {
    pub text: String,
    pub line: u32,
}

/// A command: the content of a field's first backticked span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CommandRef {
    pub command: String,
    pub line: u32,
}

/// A path from a step's `Files:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FileRef {
    pub path: String,
    /// Marked `(new)`: the step creates it.
    pub new: bool,
    pub line: u32,
}

/// What to do when a step's Verify fails (trekexecute Sub-step E).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Revert,
    Retry,
    Skip,
    Escalate,
}

impl Action {
    pub fn parse(word: &str) -> Option<Self> {
        match word.to_ascii_lowercase().as_str() {
            "revert" => Some(Self::Revert),
            "retry" => Some(Self::Retry),
            "skip" => Some(Self::Skip),
            "escalate" => Some(Self::Escalate),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Revert => "revert",
            Self::Retry => "retry",
            Self::Skip => "skip",
            Self::Escalate => "escalate",
        }
    }
}

/// A step's `On failure:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct OnFailure {
    pub action: Action,
    /// The free text after the action word, e.g. "if parsing by hand fails,
    /// switch to clap's ValueEnum".
    pub note: Option<String>,
    /// `None` when the field is absent and `escalate` is assumed.
    pub line: Option<u32>,
}

/// One step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Step {
    pub number: u32,
    pub title: String,
    /// The heading's line.
    pub line: u32,
    pub files: Vec<FileRef>,
    pub changes: Option<Field>,
    pub reuses: Option<Field>,
    pub test_first: Option<Field>,
    pub verify: Option<CommandRef>,
    pub on_failure: OnFailure,
    pub checkpoint: Option<CommandRef>,
    /// The step's manifest: as written (plan_version >= 1.7, when valid) or
    /// synthesised (legacy plans). `None` when a strict manifest is missing
    /// or invalid; the problems say why.
    pub manifest: Option<Manifest>,
}

/// Whether `path`, as a step names it (in Files or its manifest), stays in
/// the repository: relative to its root, with no `..` (not even one that
/// comes back down) and no leading `/` or `~/`. The audits read paths by
/// this rule (one that leaves is drift, never read), and `plan validate`
/// refuses a plan by it, so a plan that passes never names a path the run
/// cannot audit, commit or put back. An empty path is no path: not refused.
pub(crate) fn in_repository(path: &str) -> bool {
    let path = path.trim();
    if path == "~" || path.starts_with("~/") {
        return false;
    }
    Path::new(path)
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The exit code of a sandbox pre-flight's Verify that means "the sandbox
/// refused": not a failure, the run is blocked (Sub-step D1, "Step 0
/// sentinel").
pub(crate) const SANDBOX_BLOCKED_EXIT: i32 = 77;

/// What a Verify exit code means for a step (Sub-step D1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyOutcome {
    /// Exit 0: go on to the manifest audit (Sub-step D2).
    Passed,
    /// Any other exit: the step's On failure applies.
    Failed,
    /// Exit 77 from a step whose manifest says `sandbox_preflight: true`:
    /// the step is `blocked`, D2 is skipped, nothing is committed, the run
    /// stops (status `stopped`, result `blocked`).
    SandboxBlocked,
}

impl Step {
    /// The manifest says `sandbox_preflight: true`.
    pub fn sandbox_preflight(&self) -> bool {
        self.manifest.as_ref().is_some_and(|m| m.sandbox_preflight)
    }

    /// The subject the Checkpoint writes, when it is a plain `git commit
    /// -m "…"` ([`super::commit_line::planned_subject`]) and that subject
    /// matches the manifest's declared `commit_message_pattern`: the plan
    /// then did its part, and a commit subject that misses the pattern was
    /// changed after the plan wrote it. `None` otherwise (no pattern too).
    pub(crate) fn planned_matching_subject(&self) -> Option<String> {
        let pattern = self.manifest.as_ref()?.commit_message_pattern.as_str();
        let subject = super::commit_line::planned_subject(&self.checkpoint.as_ref()?.command)?;
        let regex = crate::pattern::compile(pattern).ok()?;
        (!pattern.is_empty() && regex.is_match(&subject)).then_some(subject)
    }

    /// What the Verify command exiting with `exit` means for this step.
    pub fn verify_outcome(&self, exit: i32) -> VerifyOutcome {
        match exit {
            0 => VerifyOutcome::Passed,
            SANDBOX_BLOCKED_EXIT if self.sandbox_preflight() => VerifyOutcome::SandboxBlocked,
            _ => VerifyOutcome::Failed,
        }
    }
}
