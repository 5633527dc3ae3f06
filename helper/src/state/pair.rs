//! Writing the handover pair so that both files change or neither does.
//!
//! Both documents are checked first (the state against the `session-state`
//! schema), then both are staged as complete, fsynced temporary files beside
//! their targets. Only then are they renamed into place: the prompt first,
//! the state record last, because the record is what a reader trusts. If the
//! second rename fails, the first is undone (the old prompt is put back, or a
//! prompt that did not exist is removed). A crash between the two renames —
//! a window of one system call — leaves a new prompt beside the old record;
//! their instants then differ, which `state validate` reports as
//! `STATE_PAIR_MISMATCH`.

use std::fs;
use std::path::Path;

use super::code;
use super::ops::CODES;
use super::session_state::{STATUSES, SessionState};
use crate::atomic_file::{self, AtomicWriteError};
use crate::exit;
use crate::problem::Coded;
use crate::problem::Problem;
use crate::schema;
use crate::write_reply::WriteReply;

/// Writes `state` and its prompt into `project_dir`.
pub(super) fn write_pair(
    project_dir: &Path,
    state: &SessionState,
) -> Result<WriteReply, (u8, Problem)> {
    check_input(project_dir, state)?;
    let (state_path, prompt_path) = SessionState::paths(project_dir);
    let io_err = |e: AtomicWriteError| (exit::CANNOT_CHECK, e.problem());

    // Missing, or a path we cannot read (e.g. a directory): staging fails
    // below.
    let old_prompt = crate::input_file::read(&prompt_path, super::ops::MAX_DOCUMENT_BYTES).ok();
    let staged_prompt =
        atomic_file::stage(&prompt_path, state.prompt().as_bytes()).map_err(io_err)?;
    let staged_state = atomic_file::stage(&state_path, &state.to_json_bytes()).map_err(io_err)?;

    staged_prompt.commit().map_err(io_err)?;
    if let Err(e) = staged_state.commit() {
        // Undo the prompt so that neither file changed.
        let undo = match &old_prompt {
            Some(bytes) => {
                atomic_file::write_atomic(&prompt_path, bytes).map_err(|u| u.to_string())
            }
            None => fs::remove_file(&prompt_path).map_err(|u| u.to_string()),
        };
        let mut problem = e.problem();
        if let Err(undo) = undo {
            problem.message.push_str(&format!(
                "; the prompt was already replaced and could not be restored: {undo}"
            ));
        }
        return Err((exit::CANNOT_CHECK, problem));
    }
    let mut reply = WriteReply::written(&state_path);
    reply.prompt_path = Some(prompt_path.display().to_string());
    Ok(reply)
}

/// Refuses input the schema would refuse, with its codes (exit 1), and a
/// project directory that does not exist (exit 2).
fn check_input(project_dir: &Path, state: &SessionState) -> Result<(), (u8, Problem)> {
    if !STATUSES.contains(&state.status.as_str()) {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::STATE_BAD_STATUS,
                format!(
                    "unknown status '{}' (one of {})",
                    state.status,
                    STATUSES.join(", ")
                ),
            ),
        ));
    }
    let value = serde_json::to_value(state).unwrap_or_default();
    if let Some(problem) = schema::check("session-state", &value, &CODES)
        .into_iter()
        .next()
    {
        return Err((exit::NOT_OK, problem));
    }
    if !project_dir.is_dir() {
        return Err((
            exit::CANNOT_CHECK,
            Problem::new(
                crate::atomic_file::code::STATE_NO_DIRECTORY,
                format!("project directory {} does not exist", project_dir.display()),
            ),
        ));
    }
    Ok(())
}
