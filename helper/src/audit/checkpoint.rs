//! `audit checkpoint`: HEAD's subject against the step's
//! `commit_message_pattern` after its checkpoint commit (Sub-step F). A
//! mismatch is `checkpoint_drift {expected_pattern, actual_message}`, an
//! advisory: the step's verification already passed, so it stays passed.

use serde::Serialize;
use serde_json::{Value, json};

use super::git::Git;
use crate::pattern;
use crate::plan::Manifest;
use crate::problem::Problem;

/// What `audit checkpoint` found (`--json` prints it).
#[derive(Debug, Clone, Serialize)]
pub(super) struct CheckpointAudit {
    /// `pass` or `drift`.
    pub status: &'static str,
    pub step: u32,
    /// HEAD's commit.
    pub commit: String,
    pub expected_pattern: String,
    pub actual_message: String,
    /// `{expected_pattern, actual_message}` on a mismatch, else null: what
    /// `--record` writes as the step's `checkpoint_drift`.
    pub checkpoint_drift: Option<Value>,
    pub recorded: Option<String>,
}

/// Audits HEAD against `manifest` of step `step`. An empty pattern (a
/// legacy step without a Checkpoint) declares nothing and always passes.
pub(super) fn audit(git: &Git, step: u32, manifest: &Manifest) -> Result<CheckpointAudit, Problem> {
    let commit = git.commit_id("HEAD", "HEAD")?;
    let subject = git.head_subject()?;
    let drift = checkpoint_drift(manifest, &subject);
    Ok(CheckpointAudit {
        status: if drift.is_none() { "pass" } else { "drift" },
        step,
        commit,
        checkpoint_drift: drift,
        expected_pattern: manifest.commit_message_pattern.clone(),
        actual_message: subject,
        recorded: None,
    })
}

/// `{expected_pattern, actual_message}` when `subject` misses the step's
/// `commit_message_pattern`, else `None`. An empty pattern (a legacy step
/// without a Checkpoint) declares nothing and always passes.
pub(crate) fn checkpoint_drift(manifest: &Manifest, subject: &str) -> Option<Value> {
    let expected = &manifest.commit_message_pattern;
    let matches =
        expected.is_empty() || pattern::compile(expected).is_ok_and(|re| re.is_match(subject));
    (!matches).then(|| json!({"expected_pattern": expected, "actual_message": subject}))
}
