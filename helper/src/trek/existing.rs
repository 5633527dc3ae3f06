//! `trek start` over a progress file that is already there (seed Phase 3,
//! mode execute): an earlier run is never replaced without a word.
//!
//! The reply names what exists (status, steps completed, when it was last
//! written). A finished run (`completed`) is kept: the file is moved beside
//! itself under a timestamped name before the fresh run starts. An
//! unfinished one (`in_progress`, `failed`, `stopped`, `partial`) stops the
//! start and points at `--resume`; `--fresh` starts over on purpose, after
//! keeping the old record the same way. A record that never reached a
//! step (a start stopped at the entry condition, say) is kept the same
//! way, and the start goes on, with a line saying so. One that cannot be
//! read stops the start too, unless `--fresh` is given.
//!
//! The seed's wait of three seconds before a fresh start is left out: an
//! agent reads the warning only after the call returns, so a pause gives
//! nobody a chance to stop it; refusing, and naming the two ways on, does.

use std::path::{Path, PathBuf};

use crate::clock::UtcTime;
use crate::plan::PreflightOutcome::{Fail, Pass, Warn};
use crate::plan::PreflightRow;
use crate::progress::{RunStatus, StepStatus};

/// What `trek start` does about an existing progress file.
pub(super) enum Existing {
    /// Go on; the lines (possibly none) say what happened to the old file.
    Proceed(Vec<String>),
    /// Stop: an unfinished run is there and `--fresh` was not given.
    Refuse(Vec<String>),
}

/// What a fresh start will do about a progress file, decided before
/// anything is moved: the start acts on it ([`before_fresh_start`]) and
/// the dry-run previews it ([`preview`]).
enum Decision {
    /// No file: nothing to say.
    Nothing,
    /// An unfinished or unreadable run, and no `--fresh`.
    Refuse(Vec<String>),
    /// Kept beside itself (its name marked with `label`), then a fresh run
    /// starts.
    Keep { label: String, why: Kept },
}

/// Why a progress file is kept and replaced.
enum Kept {
    /// It cannot be read (and `--fresh` was given).
    Unreadable,
    /// `what` it holds reached no step.
    NotBegun { what: String },
    /// `what` it holds ended, or `--fresh` starts over on purpose.
    Ended { what: String },
}

/// Looks at `progress` before a fresh `progress init` replaces it.
/// `again` is the command to resume with, `fresh` whether `--fresh` was
/// given.
fn decide(progress: &Path, fresh: bool, again: &str) -> Decision {
    if !progress.exists() {
        return Decision::Nothing;
    }
    let file = progress.display();
    let old = match crate::progress::load(progress) {
        Ok(old) => old,
        Err(e) if !fresh => {
            // Unreadable or garbled: the run it held may still matter to
            // the user (a backup to restore), so only --fresh replaces it.
            let why = e
                .problems
                .first()
                .map_or_else(|| "it cannot be read".to_owned(), |p| p.message.clone());
            return Decision::Refuse(vec![
                format!("The progress file {file} cannot be read: {why}."),
                "It is not replaced. Restore it (from a backup, or fix the JSON) and continue with /trekexecute --resume ".to_owned() + again,
                "To start over on purpose (the file is kept beside it first): /trekexecute --fresh ".to_owned() + again,
            ]);
        }
        // Unreadable, and --fresh given: nothing can be resumed from it,
        // but it is kept.
        Err(_) => {
            return Decision::Keep {
                label: "unreadable".to_owned(),
                why: Kept::Unreadable,
            };
        }
    };
    let t = old.tally();
    let when = if old.updated_at.is_empty() {
        "at an unknown time".to_owned()
    } else {
        format!("last updated {}", old.updated_at)
    };
    let what = format!(
        "{file} holds an earlier run (status {}): {}/{} steps completed, {when}.",
        old.status, t.completed, t.total
    );
    if !began(progress) && old.status != RunStatus::Completed {
        // Nothing of it reached a step, but it is kept all the same: a
        // record is never replaced without a copy.
        return Decision::Keep {
            label: "not-begun".to_owned(),
            why: Kept::NotBegun { what },
        };
    }
    if old.status.is_unfinished() && !fresh {
        return Decision::Refuse(vec![
            what,
            "It is not replaced. To continue it: /trekexecute --resume ".to_owned() + again,
            "To start over on purpose (the record is kept beside it first): /trekexecute --fresh "
                .to_owned()
                + again,
        ]);
    }
    Decision::Keep {
        label: old.status.as_str().to_owned(),
        why: Kept::Ended { what },
    }
}

/// Looks at `progress` before a fresh `progress init` replaces it, and
/// keeps it aside when the start goes on. `again` is the command to
/// resume with, `fresh` whether `--fresh` was given.
pub(super) fn before_fresh_start(progress: &Path, fresh: bool, again: &str) -> Existing {
    let file = progress.display();
    let (label, why) = match decide(progress, fresh, again) {
        Decision::Nothing => return Existing::Proceed(Vec::new()),
        Decision::Refuse(lines) => return Existing::Refuse(lines),
        Decision::Keep { label, why } => (label, why),
    };
    let kept = archive(progress, &label);
    Existing::Proceed(match why {
        Kept::Unreadable => vec![match kept {
            Ok(kept) => format!(
                "The progress file {file} could not be read; it is kept as {} and a fresh run starts.",
                kept.display()
            ),
            Err(e) => format!(
                "The progress file {file} could not be read nor kept ({e}); a fresh run replaces it."
            ),
        }],
        Kept::NotBegun { what } => vec![match kept {
            Ok(kept) => format!(
                "{what} No step was begun; it is kept as {} and a fresh run starts.",
                kept.display()
            ),
            Err(e) => format!(
                "{what} No step was begun; it could not be kept ({e}) and a fresh run replaces it."
            ),
        }],
        Kept::Ended { what } => vec![
            what,
            match kept {
                Ok(kept) => format!(
                    "That record is kept as {}; a fresh run starts.",
                    kept.display()
                ),
                Err(e) => format!(
                    "warning: that record could not be kept ({e}); a fresh run replaces it."
                ),
            },
        ],
    })
}

/// What a fresh start will do about `progress`, as the dry-run shows it:
/// nothing there, a refusal with the start's words, or the record kept
/// beside it (named with its mark) before a fresh run.
pub(super) fn preview(progress: &Path, fresh: bool, again: &str) -> PreflightRow {
    const CHECK: &str = "earlier run";
    let kept_as = |label: &str| {
        let stem = progress
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "progress".into());
        format!("it is kept beside it as {stem}.{label}-TIME.json and a fresh run starts")
    };
    match decide(progress, fresh, again) {
        Decision::Nothing => PreflightRow::new(
            CHECK,
            Pass,
            format!("no progress file at {}: a fresh run", progress.display()),
        ),
        Decision::Refuse(lines) => PreflightRow::new(CHECK, Fail, lines.join("\n")),
        Decision::Keep { label, why } => {
            let what = match why {
                Kept::Unreadable => {
                    format!("The progress file {} cannot be read;", progress.display())
                }
                Kept::NotBegun { what } | Kept::Ended { what } => what,
            };
            PreflightRow::new(CHECK, Warn, format!("{what} {}", kept_as(&label)))
        }
    }
}

/// Whether the run recorded in `progress` reached a step (an attempt, or
/// a step no longer pending); `false` when it cannot be read.
pub(super) fn began(progress: &Path) -> bool {
    crate::progress::load(progress).is_ok_and(|old| {
        old.steps
            .values()
            .any(|r| r.attempts > 0 || r.status != StepStatus::Pending)
    })
}

/// Moves `progress` to `STEM.STATUS-20260914T101500Z.json` beside it (a
/// counter added when that name is taken), a name the run's exclude
/// patterns cover and `progress init` never uses.
fn archive(progress: &Path, status: &str) -> std::io::Result<PathBuf> {
    let stem = progress
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "progress".into());
    let stamp = UtcTime::now().compact();
    let dir = progress.parent().unwrap_or_else(|| Path::new("."));
    let mut target = dir.join(format!("{stem}.{status}-{stamp}.json"));
    let mut n = 2;
    while target.exists() {
        target = dir.join(format!("{stem}.{status}-{stamp}-{n}.json"));
        n += 1;
    }
    std::fs::rename(progress, &target)?;
    Ok(target)
}
