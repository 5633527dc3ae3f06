//! `audit step`: a step's manifest checked against the work tree (Sub-step
//! D2), in the seed's order: expected paths exist, `min_file_count`,
//! forbidden paths untouched since the step began, `bash -n` on the listed
//! scripts and on every `.sh` changed since then, `must_contain`. With the
//! Verify's exit code, the Step 0 sentinel comes first (Sub-step D1): 77
//! from a sandbox pre-flight blocks the run and D2 is skipped.

use serde::Serialize;

use super::bash;
use super::drift::{Drift, check};
use super::git::Git;
use super::paths::{self, Matcher};
use crate::pattern;
use crate::plan::{Manifest, SANDBOX_BLOCKED_EXIT, Step, VerifyOutcome};
use crate::problem::Problem;

/// The most bytes of a file `must_contain` reads.
const MAX_CONTAIN_BYTES: u64 = 16 * 1024 * 1024;

/// The verdict word of `audit step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum StepVerdict {
    /// Every check held.
    Pass,
    /// At least one did not; `drift` says which.
    Drift,
    /// The sandbox pre-flight's Verify exited 77: the step is blocked.
    Blocked,
}

/// What `audit step` found (`--json` prints it).
#[derive(Debug, Clone, Serialize)]
pub(super) struct StepAudit {
    pub status: StepVerdict,
    pub step: u32,
    /// The commit the step began from.
    pub since: String,
    pub drift: Vec<Drift>,
    /// The progress file written with `--record`.
    pub recorded: Option<String>,
}

/// Audits `step` (whose manifest is `manifest`) in `git`'s work tree, for
/// changes since `since`; `verify_exit` is the Verify command's exit code,
/// when the caller has it.
pub(super) fn audit(
    git: &Git,
    step: &Step,
    manifest: &Manifest,
    since: &str,
    verify_exit: Option<i32>,
) -> Result<StepAudit, Problem> {
    let mut found = StepAudit {
        status: StepVerdict::Pass,
        step: step.number,
        since: since.to_owned(),
        drift: Vec::new(),
        recorded: None,
    };
    match verify_exit.map(|exit| (exit, step.verify_outcome(exit))) {
        None | Some((_, VerifyOutcome::Passed)) => {}
        Some((_, VerifyOutcome::SandboxBlocked)) => {
            found.status = StepVerdict::Blocked;
            return Ok(found);
        }
        Some((exit, VerifyOutcome::Failed)) => {
            let mut d = Drift::new(check::VERIFY, 0, exit);
            if exit == SANDBOX_BLOCKED_EXIT {
                d = d.detail(Some(
                    "77 blocks only a step whose manifest says sandbox_preflight: true".into(),
                ));
            }
            found.drift.push(d);
            found.status = StepVerdict::Drift;
            return Ok(found);
        }
    }
    found.drift = manifest_drift(git, manifest, since)?;
    if !found.drift.is_empty() {
        found.status = StepVerdict::Drift;
    }
    Ok(found)
}

/// The five checks of Sub-step D2, in order.
fn manifest_drift(git: &Git, manifest: &Manifest, since: &str) -> Result<Vec<Drift>, Problem> {
    let root = &git.root;
    let mut drift = Vec::new();
    let outside = |check: &'static str, path: &str| {
        Drift::new(
            check,
            "a path inside the repository",
            "outside the repository",
        )
        .path(path)
    };

    // 1. Expected paths exist.
    let mut existing: u64 = 0;
    for path in &manifest.expected_paths {
        match paths::inside(root, path) {
            None => drift.push(outside(check::EXPECTED_PATHS, path)),
            Some(full) if full.exists() => existing += 1,
            Some(_) => {
                drift.push(Drift::new(check::EXPECTED_PATHS, "exists", "missing").path(path))
            }
        }
    }
    // 2. Enough of them.
    if existing < manifest.min_file_count {
        drift.push(Drift::new(
            check::MIN_FILE_COUNT,
            manifest.min_file_count,
            existing,
        ));
    }
    // 3. Forbidden paths untouched since the step began.
    let changed = git.changed_since(since)?;
    let forbidden: Vec<Matcher> = manifest
        .forbidden_paths
        .iter()
        .map(|p| Matcher::new(p))
        .collect();
    for path in &changed {
        if let Some(m) = forbidden.iter().find(|m| m.matches(path)) {
            drift.push(
                Drift::new(
                    check::FORBIDDEN_PATHS,
                    format!("untouched ({} is forbidden)", m.entry),
                    "changed",
                )
                .path(path),
            );
        }
    }
    // 4. bash -n on the listed scripts and on every changed .sh.
    let mut scripts: Vec<String> = Vec::new();
    for path in &manifest.bash_syntax_check {
        match paths::inside(root, path) {
            None => drift.push(outside(check::BASH_SYNTAX, path)),
            Some(full) if full.is_file() => scripts.push(path.clone()),
            Some(_) => drift
                .push(Drift::new(check::BASH_SYNTAX, "a script that parses", "missing").path(path)),
        }
    }
    for path in changed.iter().filter(|p| p.ends_with(".sh")) {
        if root.join(path).is_file() && !scripts.contains(path) {
            scripts.push(path.clone());
        }
    }
    drift.extend(syntax_drift(git, &scripts, None)?);
    // 5. must_contain.
    for item in &manifest.must_contain {
        let Some(full) = paths::inside(root, &item.path) else {
            drift.push(outside(check::MUST_CONTAIN, &item.path));
            continue;
        };
        let expected = format!("a line matching {}", item.pattern);
        let text = match crate::input_file::read(&full, MAX_CONTAIN_BYTES) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(crate::input_file::InputError::NotFound(_)) => {
                drift.push(Drift::new(check::MUST_CONTAIN, expected, "missing").path(&item.path));
                continue;
            }
            Err(e) => {
                drift.push(
                    Drift::new(check::MUST_CONTAIN, expected, "unreadable")
                        .path(&item.path)
                        .detail(Some(e.to_string())),
                );
                continue;
            }
        };
        match line_pattern(&item.pattern) {
            Ok(re) if re.is_match(&text) => {}
            Ok(_) => {
                drift.push(Drift::new(check::MUST_CONTAIN, expected, "no match").path(&item.path))
            }
            Err(e) => drift.push(
                Drift::new(
                    check::MUST_CONTAIN,
                    expected,
                    "a pattern the audit cannot run",
                )
                .path(&item.path)
                .detail(Some(e)),
            ),
        }
    }
    Ok(drift)
}

/// `pattern` as `grep -E` runs it: per line (`^` and `$` at line ends).
pub(super) fn line_pattern(pattern: &str) -> Result<regex::Regex, String> {
    pattern::compile(&format!("(?m){}", pattern::normalise(pattern))).map_err(|e| e.to_string())
}

/// `bash -n` over `scripts`, each failure a drift item (with `step`).
pub(super) fn syntax_drift(
    git: &Git,
    scripts: &[String],
    step: Option<u32>,
) -> Result<Vec<Drift>, Problem> {
    Ok(bash::check(&git.root, scripts)?
        .into_iter()
        .map(|e| {
            Drift::new(check::BASH_SYNTAX, "parses with bash -n", "syntax error")
                .path(&e.path)
                .step(step)
                .detail(Some(e.message))
        })
        .collect())
}
