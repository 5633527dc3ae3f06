//! One thing an audit found wrong: `{check, expected, actual}`, with the
//! path, step or commit it is about when there is one. The same shape in
//! `audit step` (`drift`), `audit session` (`drift_details`) and in the
//! progress file (`manifest_drift`, `manifest_audit.drift_details`).

use serde::Serialize;
use serde_json::Value;

/// The checks, as their `check` word names them.
pub(super) mod check {
    /// Sub-step D1: a Verify exit other than 0 (with `--verify-exit`).
    pub(crate) const VERIFY: &str = "verify";
    pub(crate) const EXPECTED_PATHS: &str = "expected_paths";
    pub(crate) const MIN_FILE_COUNT: &str = "min_file_count";
    pub(crate) const FORBIDDEN_PATHS: &str = "forbidden_paths";
    pub(crate) const BASH_SYNTAX: &str = "bash_syntax_check";
    pub(crate) const MUST_CONTAIN: &str = "must_contain";
    pub(crate) const COMMIT_MESSAGE: &str = "commit_message_pattern";
    pub(crate) const COMMIT_COUNT: &str = "commit_count";
    pub(crate) const ITERATIONS: &str = "iterations_remaining";
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct Drift {
    pub check: &'static str,
    pub expected: Value,
    pub actual: Value,
    /// The file it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The step whose manifest declared it (session audit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// The commit it is about (session audit's message sweep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// What `bash -n` said, first lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Drift {
    pub(super) fn new(
        check: &'static str,
        expected: impl Into<Value>,
        actual: impl Into<Value>,
    ) -> Self {
        Self {
            check,
            expected: expected.into(),
            actual: actual.into(),
            path: None,
            step: None,
            commit: None,
            detail: None,
        }
    }

    #[must_use]
    pub(super) fn path(mut self, path: &str) -> Self {
        self.path = Some(path.to_owned());
        self
    }

    #[must_use]
    pub(super) fn step(mut self, step: Option<u32>) -> Self {
        self.step = step;
        self
    }

    #[must_use]
    pub(super) fn commit(mut self, sha: &str) -> Self {
        self.commit = Some(sha.to_owned());
        self
    }

    #[must_use]
    pub(super) fn detail(mut self, detail: Option<String>) -> Self {
        self.detail = detail.filter(|d| !d.is_empty());
        self
    }

    /// One line for the text reports: `check: path: expected E, found A`.
    pub(super) fn line(&self) -> String {
        line_of(&self.to_value())
    }

    pub(super) fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// One drift item, as the audits record it (a [`Drift`] as JSON, in a
/// reply or the progress file), as a line: `check (step N): path: commit
/// C: expected E, found A (detail)`.
pub(crate) fn line_of(item: &Value) -> String {
    let text = |key: &str| item.get(key).and_then(Value::as_str);
    let show = |key: &str| match item.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "nothing".to_owned(),
        Some(other) => other.to_string(),
    };
    let mut line = text("check").unwrap_or("drift").to_owned();
    if let Some(step) = item.get("step").and_then(Value::as_u64) {
        line.push_str(&format!(" (step {step})"));
    }
    if let Some(path) = text("path") {
        line.push_str(&format!(": {path}"));
    }
    if let Some(sha) = text("commit") {
        let short: String = sha.chars().take(12).collect();
        line.push_str(&format!(": commit {short}"));
    }
    line.push_str(&format!(
        ": expected {}, found {}",
        show("expected"),
        show("actual")
    ));
    if let Some(detail) = text("detail") {
        line.push_str(&format!(" ({detail})"));
    }
    line
}
