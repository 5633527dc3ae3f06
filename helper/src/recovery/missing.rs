//! Which steps a recovery session runs (Phase 7.6, step 1): the steps
//! whose expected paths are absent or whose work is missing, read from the
//! progress file's records. Pure.
//!
//! A step is missing when
//! - a drift item of the session audit (`manifest_audit.drift_details`)
//!   names it for `expected_paths`, `min_file_count` or `must_contain`;
//! - its own manifest audit failed (`manifest_audit: fail`);
//! - it is neither completed nor skipped (failed, pending, in progress);
//! - the commit count drifted low and it claims completed with no commit.
//!
//! Step 0, the sandbox pre-flight, is never missing: every recovery spec
//! opens with a fresh one. A forbidden path touched or a commit subject
//! that matches no pattern names no step: running steps again fixes
//! neither, so they stay for the user.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::plan::Plan;
use crate::progress::{ManifestAudit, Progress, StepStatus};

/// The checks whose drift a step's rerun can repair.
const REPAIRABLE: [&str; 3] = ["expected_paths", "min_file_count", "must_contain"];

/// The missing steps of `plan`, in order.
pub(super) fn steps(plan: &Plan, progress: &Progress) -> Vec<u32> {
    let mut missing = BTreeSet::new();
    let details = progress
        .extra
        .get("manifest_audit")
        .and_then(|a| a.get("drift_details"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut commits_short = false;
    for item in details {
        let check = item.get("check").and_then(Value::as_str).unwrap_or("");
        if REPAIRABLE.contains(&check)
            && let Some(n) = item
                .get("step")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        {
            missing.insert(n);
        }
        if check == "commit_count" {
            let number = |k: &str| item.get(k).and_then(Value::as_u64);
            commits_short =
                matches!((number("expected"), number("actual")), (Some(e), Some(a)) if a < e);
        }
    }
    for (key, record) in &progress.steps {
        let unfinished = !record.status.is_completed() && record.status != StepStatus::Skipped;
        let uncommitted = commits_short
            && record.status.is_completed()
            && record.commit.as_deref().is_none_or(str::is_empty);
        if unfinished || uncommitted || record.manifest_audit == Some(ManifestAudit::Fail) {
            missing.insert(key.0);
        }
    }
    missing
        .into_iter()
        .filter(|&n| {
            plan.step(n)
                .is_some_and(|s| n != 0 && !s.sandbox_preflight())
        })
        .collect()
}
