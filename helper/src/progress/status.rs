//! The status words of a progress file (seed Phase 3, "Progress file
//! schema"): the run's and a step's. These are the validator's lists; the
//! schema `progress` holds the same words.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The run's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    InProgress,
    Completed,
    Failed,
    Stopped,
    Partial,
}

impl RunStatus {
    pub const ALL: [Self; 5] = [
        Self::InProgress,
        Self::Completed,
        Self::Failed,
        Self::Stopped,
        Self::Partial,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
            Self::Partial => "partial",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == word)
    }

    /// A run that ended without finishing its plan: a fresh execute over it
    /// warns that `--resume` exists (seed Phase 3, "mode = execute").
    pub fn is_unfinished(self) -> bool {
        !matches!(self, Self::Completed)
    }
}

/// A step's `status`. `passed` is the legacy word for `completed`: read,
/// counted as completed, never written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
    Skipped,
    Blocked,
    Passed,
}

impl StepStatus {
    /// The words a writer may set (everything but the legacy `passed`).
    pub const SETTABLE: [Self; 6] = [
        Self::Pending,
        Self::InProgress,
        Self::Completed,
        Self::Failed,
        Self::Skipped,
        Self::Blocked,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Blocked => "blocked",
            Self::Passed => "passed",
        }
    }

    /// A word a writer may set; `passed` and anything else is `None`.
    pub fn parse_settable(word: &str) -> Option<Self> {
        Self::SETTABLE.into_iter().find(|s| s.as_str() == word)
    }

    /// Completed, including the legacy `passed` (seed Phase 3, "mode = resume").
    pub fn is_completed(self) -> bool {
        matches!(self, Self::Completed | Self::Passed)
    }
}

impl fmt::Display for StepStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `manifest_audit` of a step (Sub-step D2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ManifestAudit {
    Pass,
    Fail,
}

impl ManifestAudit {
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "pass" => Some(Self::Pass),
            "fail" => Some(Self::Fail),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for s in RunStatus::ALL {
            assert_eq!(RunStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        for s in StepStatus::SETTABLE {
            assert_eq!(StepStatus::parse_settable(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(StepStatus::parse_settable("passed"), None);
        assert!(StepStatus::Passed.is_completed());
        assert_eq!(
            serde_json::from_str::<StepStatus>("\"passed\"").unwrap(),
            StepStatus::Passed
        );
    }
}
