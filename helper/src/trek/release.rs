//! `trek release`: the user's way to end a run whose session died, without
//! the run's checks. It removes the work tree's run marker, so the
//! PreToolUse hook stops holding the tree to the run's scope, and leaves
//! the progress file as it is, so `/trekexecute --resume` can pick the run
//! up again. The hook refuses this call to the agent while the run is live
//! (`run-release`): it is typed by a person, in a terminal.

use crate::exit;
use crate::run_marker;

use super::reply::{Next, Reply};

/// Removes the run marker of the work tree holding the directory `here`.
pub(super) fn release(here: &std::path::Path) -> Reply {
    let mut reply = Reply::new("release", Next::Stop, "released");
    let Some(location) = run_marker::locate(here) else {
        reply.status = "none".into();
        reply.push("Not in a git work tree: no run can be in progress here; nothing released.");
        return reply;
    };
    let marker_path = location.marker.display().to_string();
    let marker = run_marker::read(&location.marker);
    match &marker {
        Ok(Some(marker)) => {
            reply.plan = Some(marker.plan.clone());
            reply.progress = Some(marker.progress.clone());
        }
        Ok(None) => {
            reply.status = "none".into();
            reply.push(format!(
                "No run is in progress in {} (no {marker_path}); nothing released.",
                location.worktree.display()
            ));
            return reply;
        }
        Err(e) => reply.push(format!(
            "The run marker could not be read ({e}); it is removed all the same."
        )),
    }
    if let Err(e) = run_marker::remove(&location.marker) {
        reply.status = "error".into();
        reply.exit = exit::CANNOT_CHECK;
        // `rm` alone fails on a directory; nothing else has a marker's name.
        let rm = if location.marker.is_dir() {
            "rm -r"
        } else {
            "rm"
        };
        let what = if location.marker.is_dir() {
            " (it is a directory, not a run marker)"
        } else {
            ""
        };
        reply.push(format!(
            "Error: the run marker {marker_path}{what} could not be removed ({e}): remove it by hand (`{rm} {marker_path}`)."
        ));
        return reply;
    }
    reply.push(format!(
        "Released the run in {}: the hook no longer holds this work tree to its scope.",
        location.worktree.display()
    ));
    if let Ok(Some(marker)) = &marker {
        reply.push(format!(
            "Its progress file {} is kept as it was: `/trekexecute --resume {}` picks the run up again, with every check.",
            marker.progress,
            crate::shell::quote(&marker.plan)
        ));
    }
    reply
}
