//! How a `trek` call ends a run early (an escalation, a failed entry
//! condition, a refusal): the progress file's final status, the state pair
//! for a `--project` run, and the run marker removed, so the hook stops
//! holding the agent to a run that is over.

use std::path::Path;

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
pub(super) fn early(
    marker: &Path,
    progress: &Path,
    project: Option<&str>,
    status: &str,
    reply: &mut Reply,
) {
    let finished = record_status(progress, status);
    if finished.code != exit::OK {
        reply.push(format!(
            "warning: the progress file did not record {status}: {}",
            finished.why
        ));
    }
    if let Some(dir) = project {
        state_pair(dir, status, reply);
    }
    remove_marker(marker, reply);
}

/// How `progress finish` went for a `trek` call.
pub(super) struct Recorded {
    pub code: u8,
    /// The completion gate turned `completed` into another status.
    pub overridden: bool,
    /// Why it refused: its problem, else what it printed on stderr.
    pub why: String,
}

/// Records `status` as the run's final status in `progress` (through the
/// completion gate); what it says is the caller's to tell.
pub(super) fn record_status(progress: &Path, status: &str) -> Recorded {
    let request = crate::progress::FinishRequest {
        locate: crate::progress::Locate::of_file(progress),
        status: status.to_owned(),
        summary: None,
        plan_verification: None,
    };
    let budget = crate::progress::budget_from_env();
    let (finished, said) = crate::problem::holding(|| {
        let finished = crate::progress::finish_run(&request, &budget);
        finished.eprint();
        finished
    });
    let code = finished.code();
    let why = super::said::why(finished.refusal(), &said, code);
    Recorded {
        code,
        overridden: finished.overridden(),
        why,
    }
}

/// Writes `.session-state.local.json` and `NEXT-SESSION-PROMPT.local.md`.
pub(super) fn state_pair(project: &str, status: &str, reply: &mut Reply) {
    let label = if status == "completed" {
        "Complete"
    } else {
        "Continue"
    };
    let written = super::said::passing_on(|| {
        let written = crate::state::write_handover(Path::new(project), label, status);
        if let Err((_, p)) = &written {
            crate::problem::eprint_all(std::slice::from_ref(p));
        }
        written
    });
    if let Err((_, p)) = written {
        reply.push(format!(
            "warning: the state pair was not written: {}",
            p.message
        ));
    }
}

/// Removes the run marker at `marker`, if it is there.
pub(super) fn remove_marker(marker: &Path, reply: &mut Reply) {
    if let Err(e) = crate::run_marker::remove(marker) {
        reply.push(format!(
            "warning: the run marker {} could not be removed ({e}): remove it, or the hook keeps this run's scope",
            marker.display()
        ));
    }
}
