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

/// Every marker the parser reads after a path in Files, with what the
/// helper does with it: the one list the parser and the plan format
/// reference (docs/guide/plan-format.md) read.
pub(crate) const FILE_MARKERS: [(&str, &str); 1] = [(
    "(new)",
    "the step creates the file: `plan dry-run` expects it to be missing, a revert removes it (an unmarked file HEAD does not have is left for a person), and a session's Touch list need not name it",
)];

/// The marker after a path in Files that says the step creates the file.
pub(crate) const NEW_MARKER: &str = FILE_MARKERS[0].0;

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
    /// Every action with its keyword and what a run does with it: the
    /// one list the parser reads the keyword from and the plan format
    /// reference (docs/guide/plan-format.md) is generated from.
    pub const ALL: [(Self, &'static str, &'static str); 4] = [
        (
            Self::Revert,
            "revert",
            "another attempt, up to 3 in all within the run's budget; after the last, the step's Files are saved as a patch, then put back as HEAD has them (a file marked `(new)` is removed), and the run stops `failed`",
        ),
        (
            Self::Retry,
            "retry",
            "as revert, and each new attempt is shown the words after the keyword as the plan's alternative to take",
        ),
        (
            Self::Skip,
            "skip",
            "the step is recorded `skipped` and the run goes on with the next step; the audits expect nothing of it",
        ),
        (
            Self::Escalate,
            "escalate",
            "no other attempt: the completed steps' uncommitted work is committed (`wip: trekexecute stopped at step N`) and the run stops `stopped` for a person to decide; also what a missing or unknown keyword means, and what a blocked command forces",
        ),
    ];

    /// The action `word` names, in any case.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, keyword, _)| keyword.eq_ignore_ascii_case(word))
            .map(|(action, ..)| *action)
    }

    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(action, ..)| *action == self)
            .map_or("escalate", |(_, keyword, _)| keyword)
    }

    /// The keywords, as a sentence lists them: `revert, retry, skip or escalate`.
    pub fn keywords() -> String {
        let words: Vec<&str> = Self::ALL.iter().map(|(_, keyword, _)| *keyword).collect();
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => words.concat(),
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
