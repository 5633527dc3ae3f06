//! How a `trek` call ends a run early (an escalation, a failed entry
//! condition, a refusal): the progress file's final status, the state pair
//! for a `--project` run, and the run marker removed, so the hook stops
//! holding the agent to a run that is over.

use std::path::Path;

use super::invoke::{invoke, invoke_quiet};
use super::reply::{Next, Reply};
use crate::exit;
use crate::problem::Problem;

/// A reply for a call that could not do its work.
pub(super) fn problem(command: &'static str, problem: &Problem) -> Reply {
    let mut text = Vec::new();
    let _ = problem.render_text(&mut text);
    let mut reply = Reply::new(command, Next::Stop, "error");
    reply.push_text(&String::from_utf8_lossy(&text));
    reply.exit = exit::CANNOT_CHECK;
    reply
}

/// Records `status` as the run's final status, writes the state pair when
/// the run has a project, and removes the run marker of this work tree.
/// What fails here is reported in `reply`, never fatal: the stop stands.
pub(super) fn early(progress: &Path, project: Option<&str>, status: &str, reply: &mut Reply) {
    let file = progress.display().to_string();
    let args = [
        "progress", "finish", "--file", &file, "--status", status, "--json",
    ];
    match invoke_quiet(&args) {
        Ok(done) if done.ok() => {}
        Ok(done) => reply.push(format!(
            "warning: the progress file did not record {status}: {}",
            done.why()
        )),
        Err(p) => reply.push(format!("warning: {}", p.message)),
    }
    if let Some(dir) = project {
        state_pair(dir, status, reply);
    }
    remove_marker(reply);
}

/// Writes `.session-state.local.json` and `NEXT-SESSION-PROMPT.local.md`.
pub(super) fn state_pair(project: &str, status: &str, reply: &mut Reply) {
    let brief = Path::new(project).join("brief.md").display().to_string();
    let label = if status == "completed" {
        "Complete"
    } else {
        "Continue"
    };
    match invoke(&[
        "state",
        "write",
        "--project",
        project,
        "--brief",
        &brief,
        "--label",
        label,
        "--status",
        status,
    ]) {
        Ok(done) if done.ok() => {}
        Ok(done) => reply.push(format!(
            "warning: the state pair was not written: {}",
            done.stdout.trim()
        )),
        Err(p) => reply.push(format!(
            "warning: the state pair was not written: {}",
            p.message
        )),
    }
}

/// Removes the current work tree's run marker, if any.
pub(super) fn remove_marker(reply: &mut Reply) {
    let Some(location) = std::env::current_dir()
        .ok()
        .and_then(|d| crate::run_marker::locate(&d))
    else {
        return;
    };
    if let Err(e) = crate::run_marker::remove(&location.marker) {
        reply.push(format!(
            "warning: the run marker {} could not be removed ({e}): remove it, or the hook keeps this run's scope",
            location.marker.display()
        ));
    }
}
