//! `audit session`: the independent manifest audit of a whole run (Phase
//! 7.5). It ignores the executor's bookkeeping except to know which steps
//! it claims and re-derives the truth from the work tree and git:
//!
//! 1. the expected paths of every step's manifest (and the Session
//!    Manifest's), each checked to exist;
//! 2. the commits since `--start`, one per completed step (a sandbox Step 0
//!    commits nothing and is not counted);
//! 3. every commit subject matching some declared `commit_message_pattern`
//!    (a step's checkpoint whose plain `git commit -m` message matched, and
//!    whose subject a message hook of the repository then rewrote, is
//!    accepted and listed in `accepted`: see [`rewritten`]);
//! 4. `bash -n` on every `.sh` changed since `--start`;
//! 5. no forbidden path changed since `--start` (each step's
//!    `forbidden_paths`, the Scope Fence's never-touch list, the Session
//!    Manifest's `scope_forbidden`);
//! 6. the completion gate's counter liveness (clause 3):
//!    `iterations_remaining == cap − (recovery_depth + Σ attempts beyond the
//!    first)`.
//!
//! A step the run reverted (`progress revert-step` recorded `reverted` in
//! its record) is not asked for its expected paths: the helper removed
//! them itself.
//!
//! Then the override table: drift over a run that claims `completed` makes
//! it `partial` (the audit wins); a `failed` or `stopped` run keeps its
//! status and the drift is informational, and so does a run still
//! `in_progress` that does not claim completed (the caller finalises it).

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use super::drift::{Drift, check};
use super::git::Git;
use super::paths::{self, Matcher};
use super::step::syntax_drift;
use crate::pattern;
use crate::plan::Plan;
use crate::problem::Problem;
use crate::progress::{Progress, RunStatus, StepKey};

/// `{from, to}`: the run's status the audit overrode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(super) struct Override {
    pub from: &'static str,
    pub to: &'static str,
}

/// The counter reconciliation's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(super) struct Counter {
    /// TREKEXECUTE_MAX_RECOVERY_ITERATIONS (default 25).
    pub cap: u32,
    pub recovery_depth: u32,
    /// Σ attempts beyond each step's first.
    pub retries: u32,
    pub expected: u32,
    /// What the progress file says (null when it has none).
    pub actual: Option<u32>,
}

/// What `audit session` found (`--json` prints it).
#[derive(Debug, Clone, Serialize)]
pub(super) struct SessionAudit {
    /// `pass` or `drift`.
    pub status: &'static str,
    pub drift_details: Vec<Drift>,
    #[serde(rename = "override")]
    pub status_override: Option<Override>,
    /// The run status the audit was compared with: the progress file's, or
    /// `completed` for a run still `in_progress` whose every step is
    /// completed or skipped.
    pub claimed: &'static str,
    pub start: String,
    /// Commits in `start..HEAD`.
    pub commits: usize,
    /// Completed steps that commit (a sandbox Step 0 excluded).
    pub committing_steps: usize,
    /// Distinct expected paths checked.
    pub expected_paths: usize,
    /// `.sh` files checked with `bash -n`.
    pub scripts: usize,
    /// Commits check 3 accepted although their subject matches no
    /// declared pattern: a message hook of the repository rewrote what
    /// the plan wrote ([`rewritten`]). Advisories, never drift.
    pub accepted: Vec<Drift>,
    pub counter: Counter,
    pub recorded: Option<String>,
}

/// Audits the run of `plan` recorded in `progress`, from commit `start`,
/// for a budget of `cap`.
pub(super) fn audit(
    git: &Git,
    plan: &Plan,
    progress: &Progress,
    start: &str,
    cap: u32,
) -> Result<SessionAudit, Problem> {
    let root = &git.root;
    let mut drift = Vec::new();
    // The plan's steps this progress file tracks, with their records.
    let steps: Vec<_> = plan
        .steps
        .iter()
        .filter_map(|s| progress.steps.get(&StepKey(s.number)).map(|r| (s, r)))
        .collect();
    let manifests = || {
        steps
            .iter()
            .filter_map(|(s, r)| s.manifest.as_ref().map(|m| (*s, *r, m)))
    };
    let session_manifest = plan.session.as_ref().and_then(|s| s.manifest.as_ref());

    // 1–2. Expected paths exist. A skipped step promised nothing, and a
    // step the run reverted (its record says so) has had its work undone
    // on purpose: neither is drift.
    let mut seen = BTreeSet::new();
    let mut declared: Vec<(Option<u32>, &str)> = manifests()
        .filter(|(_, r, _)| {
            let undone = r.reverted.is_some() && !r.status.is_completed();
            r.status != crate::progress::StepStatus::Skipped && !undone
        })
        .flat_map(|(s, _, m)| {
            m.expected_paths
                .iter()
                .map(|p| (Some(s.number), p.as_str()))
        })
        .collect();
    declared.extend(strings(session_manifest, "expected_paths").map(|p| (None, p)));
    for (step, path) in declared {
        if !seen.insert(path) {
            continue;
        }
        match paths::inside(root, path) {
            None => drift.push(
                Drift::new(
                    check::EXPECTED_PATHS,
                    "a path inside the repository",
                    "outside the repository",
                )
                .path(path)
                .step(step),
            ),
            Some(full) if full.exists() => {}
            Some(_) => drift.push(
                Drift::new(check::EXPECTED_PATHS, "exists", "missing")
                    .path(path)
                    .step(step),
            ),
        }
    }
    let expected_paths = seen.len();

    // 3. One commit per completed step.
    let commits = git.commits_since(start)?;
    let committing_steps = steps
        .iter()
        .filter(|(s, r)| r.status.is_completed() && !s.sandbox_preflight())
        .count();
    if commits.len() != committing_steps {
        drift.push(Drift::new(
            check::COMMIT_COUNT,
            committing_steps,
            commits.len(),
        ));
    }

    // 4. Every subject matches some declared pattern (in any order).
    let patterns: Vec<regex::Regex> = manifests()
        .map(|(_, _, m)| m.commit_message_pattern.as_str())
        .filter(|p| !p.is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter_map(|p| pattern::compile(p).ok())
        .collect();
    // A commit a message hook rewrote is accepted, and listed: see
    // `rewritten`.
    let mut accepted = Vec::new();
    if !patterns.is_empty() {
        let set = regex::RegexSet::new(patterns.iter().map(regex::Regex::as_str)).ok();
        for commit in commits.iter().rev() {
            let matched = set.as_ref().map_or_else(
                || patterns.iter().any(|re| re.is_match(&commit.subject)),
                |set| set.is_match(&commit.subject),
            );
            if matched {
                continue;
            }
            if let Some(found) = rewritten(&steps, commit) {
                accepted.push(found);
            } else {
                drift.push(
                    Drift::new(
                        check::COMMIT_MESSAGE,
                        "a subject matching one of the declared patterns",
                        commit.subject.clone(),
                    )
                    .commit(&commit.sha),
                );
            }
        }
    }

    // 5. bash -n on every .sh changed since the start.
    let changed = git.changed_between(start)?;
    let scripts: Vec<String> = changed
        .iter()
        .filter(|p| p.ends_with(".sh") && root.join(p).is_file())
        .cloned()
        .collect();
    drift.extend(syntax_drift(git, &scripts, None)?);

    // 6. No forbidden path changed. A path some step declares as its own
    // (Files or expected_paths) is that step's to change, whatever another
    // step's manifest forbids.
    let owned: BTreeSet<&str> = steps
        .iter()
        .flat_map(|(s, _)| {
            s.files.iter().map(|f| f.path.as_str()).chain(
                s.manifest
                    .iter()
                    .flat_map(|m| m.expected_paths.iter().map(String::as_str)),
            )
        })
        .map(|p| p.trim_start_matches("./"))
        .collect();
    let mut forbidden: Vec<(Option<u32>, Matcher, bool)> = manifests()
        .flat_map(|(s, _, m)| {
            m.forbidden_paths
                .iter()
                .map(move |p| (Some(s.number), Matcher::new(p), true))
        })
        .collect();
    let fence = plan.session.iter().flat_map(|s| s.never_touch.iter());
    let scoped = ["scope_forbidden", "forbidden_paths"]
        .into_iter()
        .flat_map(|key| strings(session_manifest, key));
    forbidden.extend(
        fence
            .map(String::as_str)
            .chain(scoped)
            .map(|p| (None, Matcher::new(p), false)),
    );
    for path in &changed {
        let hit = forbidden.iter().find(|(_, m, per_step)| {
            m.matches(path) && !(*per_step && owned.contains(path.as_str()))
        });
        if let Some((step, m, _)) = hit {
            drift.push(
                Drift::new(
                    check::FORBIDDEN_PATHS,
                    format!("untouched ({} is forbidden)", m.entry),
                    "changed",
                )
                .path(path)
                .step(*step),
            );
        }
    }

    // Clause 3: the counter reconciles.
    let retries: u32 = progress
        .steps
        .values()
        .map(|r| r.attempts.saturating_sub(1))
        .fold(0, u32::saturating_add);
    let counter = Counter {
        cap,
        recovery_depth: progress.recovery_depth.unwrap_or(0),
        retries,
        expected: progress.expected_iterations_remaining(cap),
        actual: progress.iterations_remaining,
    };
    if counter.actual != Some(counter.expected) {
        drift.push(Drift::new(
            check::ITERATIONS,
            counter.expected,
            counter.actual.map_or(Value::Null, Value::from),
        ));
    }

    let claimed = claimed(progress);
    let status_override =
        (!drift.is_empty() && claimed == RunStatus::Completed).then_some(Override {
            from: RunStatus::Completed.as_str(),
            to: RunStatus::Partial.as_str(),
        });
    Ok(SessionAudit {
        status: if drift.is_empty() { "pass" } else { "drift" },
        drift_details: drift,
        status_override,
        claimed: claimed.as_str(),
        start: start.to_owned(),
        commits: commits.len(),
        committing_steps,
        expected_paths,
        scripts: scripts.len(),
        accepted,
        counter,
        recorded: None,
    })
}

/// Whether `commit` is a checkpoint a message hook rewrote, and so is not
/// drift although its subject matches no pattern: the commit is a
/// completed step's recorded commit, that step's `checkpoint_drift` says
/// `rewritten_by_hook` and holds this very subject, and the plan itself
/// (read again here, not taken from the record) gives the step a plain
/// `git commit -m` whose message matches the step's own pattern. The
/// plan did its part; the repository's hook changed the words. Anything
/// else stays drift.
fn rewritten(
    steps: &[(&crate::plan::Step, &crate::progress::StepRecord)],
    commit: &super::git::Commit,
) -> Option<Drift> {
    steps.iter().find_map(|(step, record)| {
        let recorded = record.commit.as_deref().filter(|c| c.len() >= 7)?;
        let drift = record.checkpoint_drift.as_ref()?;
        let text = |key: &str| drift.get(key).and_then(Value::as_str);
        let hook = text("rewritten_by_hook").filter(|h| !h.is_empty())?;
        let ours = record.status.is_completed()
            && commit.sha.starts_with(recorded)
            && text("actual_message") == Some(commit.subject.as_str());
        if !ours {
            return None;
        }
        let planned = step.planned_matching_subject()?;
        Some(
            Drift::new(
                check::COMMIT_MESSAGE,
                format!("the plan's subject \"{planned}\""),
                commit.subject.clone(),
            )
            .step(Some(step.number))
            .commit(&commit.sha)
            .detail(Some(format!(
                "rewritten by the repository's hook {hook}; accepted: the plan's message matches the step's pattern"
            ))),
        )
    })
}

/// The status the executor claims: the file's, or `completed` for a run
/// still in progress whose every step is completed or skipped.
fn claimed(progress: &Progress) -> RunStatus {
    let done = progress
        .steps
        .values()
        .all(|r| r.status.is_completed() || r.status == crate::progress::StepStatus::Skipped);
    match progress.status {
        RunStatus::InProgress if done && !progress.steps.is_empty() => RunStatus::Completed,
        other => other,
    }
}

/// The strings of a list under `key` of a YAML mapping kept as JSON.
fn strings<'a>(manifest: Option<&'a Value>, key: &str) -> impl Iterator<Item = &'a str> {
    manifest
        .and_then(|m| m.get(key))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}
