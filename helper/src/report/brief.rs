//! The brief report `trek finish` hands back for a very long run: a plan of
//! thousands of steps that stops early would otherwise list every step in
//! the Step Results, again in the drift of the audit, and again in What
//! Remains, megabytes a reader (and the agent's context) cannot use. A
//! list longer than [`LONG_LIST`] shows what matters (failed, blocked and
//! running steps one by one, runs of alike steps as ranges, the first
//! [`SHOWN`] findings) and counts the rest; `voyage-helper report
//! --progress FILE` prints all of it from the progress file, which keeps
//! every record. Below the limit nothing changes, so a normal plan's
//! report is the same either way.

use serde_json::Value;

use super::model::StepRow;

/// The longest list shown whole.
pub(crate) const LONG_LIST: usize = 60;
/// How many items of a longer list are shown.
pub(crate) const SHOWN: usize = 10;

/// The part of `items` to show, and how many are left out: all of them
/// up to [`LONG_LIST`], else the first [`SHOWN`].
pub(crate) fn shown<T>(items: &[T]) -> (&[T], usize) {
    if items.len() > LONG_LIST {
        let first = items.get(..SHOWN).unwrap_or(items);
        (first, items.len() - first.len())
    } else {
        (items, 0)
    }
}

/// The call that prints the full report of the run recorded in
/// `progress`, its plan read from `plan`: what a brief report points to.
pub(crate) fn full_call(progress: &std::path::Path, plan: &std::path::Path) -> String {
    format!(
        "voyage-helper report --progress {} --plan {}",
        progress.display(),
        plan.display()
    )
}

/// Runs of rows shorter than this stay one row per step.
const MIN_RANGE: usize = 3;

/// A row of a brief table or list: one step, or a range of alike steps.
pub(super) enum Entry<'a> {
    One(&'a StepRow),
    /// Consecutive rows alike in result, attempts and manifest (never a
    /// failed, blocked or running step, which are always shown alone).
    Range(&'a [StepRow]),
}

/// `rows` with every run of at least [`MIN_RANGE`] alike rows (same
/// result, attempts, manifest and status) as one range.
pub(super) fn ranges(rows: &[StepRow]) -> Vec<Entry<'_>> {
    let alike = |a: &StepRow, b: &StepRow| {
        a.result == b.result
            && a.attempts == b.attempts
            && a.manifest == b.manifest
            && a.status == b.status
            && !matches!(a.result, "FAIL" | "BLOCKED" | "RUNNING")
    };
    let mut entries = Vec::new();
    let mut start = 0;
    while let Some(first) = rows.get(start) {
        let len = rows
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|r| alike(first, r))
            .count()
            .max(1);
        let run = rows.get(start..start + len).unwrap_or_default();
        if run.len() >= MIN_RANGE {
            entries.push(Entry::Range(run));
        } else {
            entries.extend(run.iter().map(Entry::One));
        }
        start += len;
    }
    entries
}

/// `2–5000` for a range of rows.
pub(super) fn span(run: &[StepRow]) -> String {
    match (run.first(), run.last()) {
        (Some(a), Some(b)) => format!("{}–{}", a.step, b.step),
        _ => String::new(),
    }
}

/// The `trekexecute_summary` value with a drift list longer than
/// [`LONG_LIST`] cut to its first [`SHOWN`] items, the number left out in
/// `drift_details_omitted`.
pub(super) fn summary(mut summary: Value) -> Value {
    let omitted = summary
        .get_mut("drift_details")
        .and_then(Value::as_array_mut)
        .map_or(0, |items| {
            let (_, left_out) = shown(items);
            items.truncate(items.len() - left_out);
            left_out
        });
    if omitted > 0
        && let Some(map) = summary.as_object_mut()
    {
        map.insert("drift_details_omitted".into(), omitted.into());
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: u32, result: &'static str) -> StepRow {
        StepRow {
            step,
            description: format!("step {step}"),
            result,
            status: "x",
            attempts: 1,
            commit: None,
            manifest: "pass",
            on_failure: None,
            error: None,
            left: Vec::new(),
            scope_violations: Vec::new(),
        }
    }

    #[test]
    fn alike_runs_become_ranges_and_failures_stay_alone() {
        let mut rows: Vec<StepRow> = (1..=4).map(|n| row(n, "PASS")).collect();
        rows.push(row(5, "FAIL"));
        rows.push(row(6, "FAIL"));
        rows.extend((7..=8).map(|n| row(n, "—")));
        let shape: Vec<String> = ranges(&rows)
            .iter()
            .map(|e| match e {
                Entry::One(r) => r.step.to_string(),
                Entry::Range(run) => span(run),
            })
            .collect();
        assert_eq!(shape, ["1–4", "5", "6", "7", "8"]);
    }

    #[test]
    fn long_lists_are_cut_short_lists_kept() {
        let short: Vec<u32> = (0..60).collect();
        assert_eq!(shown(&short), (short.as_slice(), 0));
        let long: Vec<u32> = (0..61).collect();
        let (first, left_out) = shown(&long);
        assert_eq!((first.len(), left_out), (10, 51));
    }
}
