//! The progress file as typed values (schema `progress`; seed Phase 3).
//!
//! Unknown keys, at the top and in each step, are kept in `extra` and written
//! back unchanged, so a rewrite by this helper never loses what another
//! writer added (`plan_verification` details, `recovery_dispatched`, …).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::status::{ManifestAudit, RunStatus, StepStatus};

/// One progress file. The keys an older writer may not have written
/// (`legacy_plan`, `recovery_depth`, `recovery_dispatched`) are options, so
/// a rewrite never adds them to its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub schema_version: Value,
    pub plan: String,
    pub plan_type: String,
    pub plan_version: String,
    #[serde(default)]
    pub started_at: String,
    #[serde(default)]
    pub updated_at: String,
    #[serde(default = "default_mode")]
    pub mode: String,
    #[serde(default)]
    pub total_steps: u32,
    #[serde(default)]
    pub current_step: u32,
    pub status: RunStatus,
    pub steps: BTreeMap<StepKey, StepRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations_remaining: Option<u32>,
    #[serde(default)]
    pub entry_condition_checked: bool,
    #[serde(default)]
    pub exit_condition_checked: bool,
    #[serde(default)]
    pub plan_verification: Value,
    #[serde(default)]
    pub summary: Value,
    /// The plan had no `plan_version` or one below 1.7: its manifests were
    /// synthesised (seed Phase 2, "Legacy mode"; Hard rule 17).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_plan: Option<bool>,
    /// How deep in recovery this run is: 0 for a plan's own run, D for the
    /// run of `session-N-recovery-D.md` (Phase 7.6; at most 2). Each level
    /// spent one of the budget's iterations, which the completion gate's
    /// counter reconciliation counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_depth: Option<u32>,
    /// This run handed a recovery session over (Phase 7.6, step 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_dispatched: Option<bool>,
    /// The session of the plan's Execution Strategy this run executes
    /// (`--session N`): its steps only, and the plan's Verification left to
    /// the master verification after the last wave is merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<u32>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_mode() -> String {
    "execute".into()
}

/// A step's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub status: StepStatus,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_audit: Option<ManifestAudit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_drift: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_drift: Option<Value>,
    /// `progress revert-step` undid this step's Files (Sub-step E); the
    /// session audit does not count what the revert removed as drift.
    /// Cleared when the step starts again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverted: Option<Reverted>,
    /// Why the step's Verify passed on its exit code alone (its runner ran
    /// no test), for the final report. Cleared when the step starts again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_warning: Option<String>,
    /// What `trek step-done`'s scope audit put back, one entry per attempt
    /// that wrote outside the step's Files, in order. Kept across attempts
    /// (a later attempt that passes does not undo what an earlier one did),
    /// for the final report and the stats record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope_violations: Vec<ScopeViolation>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One attempt's writes outside its step's Files, as the scope audit of
/// `trek step-done` found them and put them back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeViolation {
    /// The step's attempt that made them (1 to 3).
    pub attempt: u32,
    /// The paths put back as they were when the step began (a new file
    /// removed; a rename's both names).
    pub restored: Vec<String>,
    /// The patch that holds what was put back (`git apply PATCH` at the
    /// root brings it back); absent when none could be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// The paths left where they are (a nested repository, or every path
    /// when the patch could not be written): the step was escalated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    /// Why something was left in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// What `progress revert-step` did to a step's Files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reverted {
    /// Paths restored from HEAD.
    #[serde(default)]
    pub restored: Vec<String>,
    /// `(new)` paths removed.
    #[serde(default)]
    pub removed: Vec<String>,
    /// Directories the removal left empty, removed too.
    #[serde(default)]
    pub removed_dirs: Vec<String>,
    /// The step's Files the revert did not undo, each with why: they are
    /// left as the failed attempt made them, and the report names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<Left>,
}

/// One of a failed step's Files its revert left as it was, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    pub path: String,
    pub reason: String,
}

impl StepRecord {
    /// A step not started yet.
    pub fn pending() -> Self {
        Self {
            status: StepStatus::Pending,
            attempts: 0,
            error: None,
            completed_at: None,
            commit: None,
            manifest_audit: None,
            manifest_drift: None,
            checkpoint_drift: None,
            reverted: None,
            verify_warning: None,
            scope_violations: Vec::new(),
            extra: Map::new(),
        }
    }
}

/// A step number as a key of `steps`: written as a string (`"3"`), ordered
/// as a number (so step 10 comes after step 9). `"0"` is the synthetic
/// Step 0, the sandbox pre-flight.
///
/// Its own (de)serialisation, because serde's `flatten` (used for unknown
/// keys) hands map keys over as strings, which plain integer keys reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StepKey(pub u32);

impl Serialize for StepKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for StepKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = StepKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a step number (0 is the sandbox pre-flight)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StepKey, E> {
                match v.parse::<u32>() {
                    Ok(0) if v == "0" => Ok(StepKey(0)),
                    Ok(n) if n > 0 && !v.starts_with('0') && !v.starts_with('+') => Ok(StepKey(n)),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StepKey, E> {
                match u32::try_from(v) {
                    Ok(n) => Ok(StepKey(n)),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Counts of step statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub total: u32,
    /// `completed` and the legacy `passed`.
    pub completed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub blocked: u32,
    pub in_progress: u32,
    pub pending: u32,
}

impl Progress {
    /// How many steps are in each status.
    pub fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for record in self.steps.values() {
            t.total += 1;
            let slot = match record.status {
                StepStatus::Completed | StepStatus::Passed => &mut t.completed,
                StepStatus::Failed => &mut t.failed,
                StepStatus::Skipped => &mut t.skipped,
                StepStatus::Blocked => &mut t.blocked,
                StepStatus::InProgress => &mut t.in_progress,
                StepStatus::Pending => &mut t.pending,
            };
            *slot += 1;
        }
        t
    }

    /// The first step (by number) that is not completed; legacy `passed`
    /// counts as completed (seed Phase 3, "mode = resume").
    pub fn resume_point(&self) -> Option<u32> {
        self.steps
            .iter()
            .find(|(_, r)| !r.status.is_completed())
            .map(|(k, _)| k.0)
    }

    /// The result word of the run (seed Phase 8, "Result vocabulary"):
    /// `blocked` for a run stopped by a blocked step (the Step 0 sentinel),
    /// otherwise the run's status; `in_progress` while it runs.
    pub fn result(&self) -> &'static str {
        let blocked = self.steps.values().any(|r| r.status == StepStatus::Blocked);
        match self.status {
            RunStatus::Stopped if blocked => "blocked",
            other => other.as_str(),
        }
    }

    /// The counter-liveness check of the completion gate (Phase 7.5, clause
    /// 3): what `iterations_remaining` must be for a budget of `cap`, namely
    /// `cap − (recovery_depth + Σ attempts beyond each step's first)`, never
    /// below 0.
    pub fn expected_iterations_remaining(&self, cap: u32) -> u32 {
        let retries: u32 = self
            .steps
            .values()
            .map(|r| r.attempts.saturating_sub(1))
            .fold(0, u32::saturating_add);
        let depth = self.recovery_depth.unwrap_or(0);
        cap.saturating_sub(depth.saturating_add(retries))
    }

    /// The document as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The file's bytes: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> &'static str {
        r#"{
          "schema_version": "1", "plan": "p.md", "plan_type": "plan", "plan_version": "1.7",
          "status": "in_progress",
          "steps": {
            "10": {"status": "pending", "attempts": 0},
            "2": {"status": "passed", "attempts": 1, "custom": [1]},
            "1": {"status": "completed", "attempts": 1}
          },
          "recovery_dispatched": true
        }"#
    }

    #[test]
    fn keeps_unknown_keys_and_orders_steps_by_number() {
        let p: Progress = serde_json::from_str(sample()).unwrap();
        let keys: Vec<u32> = p.steps.keys().map(|k| k.0).collect();
        assert_eq!(keys, vec![1, 2, 10]);
        assert_eq!(p.resume_point(), Some(10));
        assert_eq!(p.tally().completed, 2);
        let v = p.to_value();
        assert_eq!(v["recovery_dispatched"], true);
        assert_eq!(v["steps"]["2"]["custom"][0], 1);
        assert_eq!(v["iterations_remaining"], Value::Null);
        let back: Progress = serde_json::from_value(v).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn result_word_and_counter() {
        let mut p: Progress = serde_json::from_str(sample()).unwrap();
        assert_eq!(p.result(), "in_progress");
        p.status = RunStatus::Stopped;
        assert_eq!(p.result(), "stopped");
        p.steps.get_mut(&StepKey(10)).unwrap().status = StepStatus::Blocked;
        assert_eq!(p.result(), "blocked");
        // Attempts 0, 1, 1: no retry yet; one retry and a recovery level.
        assert_eq!(p.expected_iterations_remaining(25), 25);
        p.steps.get_mut(&StepKey(2)).unwrap().attempts = 3;
        p.recovery_depth = Some(1);
        assert_eq!(p.expected_iterations_remaining(25), 22);
        assert_eq!(p.expected_iterations_remaining(2), 0);
    }

    #[test]
    fn step_keys_are_positive_numbers() {
        for bad in ["00", "01", "-1", "x", "+1", "99999999999"] {
            let text = format!(r#"{{"{bad}": 1}}"#);
            assert!(
                serde_json::from_str::<BTreeMap<StepKey, u8>>(&text).is_err(),
                "{bad}"
            );
        }
        let zero: BTreeMap<StepKey, u8> = serde_json::from_str(r#"{"0": 1}"#).unwrap();
        assert!(zero.contains_key(&StepKey(0)));
    }
}
