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
use crate::progress::{RunStatus, StepStatus};

/// What `trek start` does about an existing progress file.
pub(super) enum Existing {
    /// Go on; the lines (possibly none) say what happened to the old file.
    Proceed(Vec<String>),
    /// Stop: an unfinished run is there and `--fresh` was not given.
    Refuse(Vec<String>),
}

/// Looks at `progress` before a fresh `progress init` replaces it.
/// `again` is the command to resume with, `fresh` whether `--fresh` was
/// given.
pub(super) fn before_fresh_start(progress: &Path, fresh: bool, again: &str) -> Existing {
    if !progress.exists() {
        return Existing::Proceed(Vec::new());
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
            return Existing::Refuse(vec![
                format!("The progress file {file} cannot be read: {why}."),
                "It is not replaced. Restore it (from a backup, or fix the JSON) and continue with /trekexecute --resume ".to_owned() + again,
                "To start over on purpose (the file is kept beside it first): /trekexecute --fresh ".to_owned() + again,
            ]);
        }
        Err(_) => {
            // Unreadable, and --fresh given: nothing can be resumed from
            // it, but it is kept.
            return Existing::Proceed(vec![match archive(progress, "unreadable") {
                Ok(kept) => format!(
                    "The progress file {file} could not be read; it is kept as {} and a fresh run starts.",
                    kept.display()
                ),
                Err(e) => format!(
                    "The progress file {file} could not be read nor kept ({e}); a fresh run replaces it."
                ),
            }]);
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
    let reached = began(progress);
    if !reached && old.status != RunStatus::Completed {
        // Nothing of it reached a step, but it is kept all the same: a
        // record is never replaced without a copy.
        return Existing::Proceed(vec![match archive(progress, "not-begun") {
            Ok(kept) => format!(
                "{what} No step was begun; it is kept as {} and a fresh run starts.",
                kept.display()
            ),
            Err(e) => format!(
                "{what} No step was begun; it could not be kept ({e}) and a fresh run replaces it."
            ),
        }]);
    }
    if old.status.is_unfinished() && !fresh {
        return Existing::Refuse(vec![
            what,
            "It is not replaced. To continue it: /trekexecute --resume ".to_owned() + again,
            "To start over on purpose (the record is kept beside it first): /trekexecute --fresh "
                .to_owned()
                + again,
        ]);
    }
    let status = old.status.as_str();
    Existing::Proceed(vec![
        what,
        match archive(progress, status) {
            Ok(kept) => format!(
                "That record is kept as {}; a fresh run starts.",
                kept.display()
            ),
            Err(e) => {
                format!("warning: that record could not be kept ({e}); a fresh run replaces it.")
            }
        },
    ])
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
