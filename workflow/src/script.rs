//! Script (`command:`) steps: the command run once, or (with
//! `self_healing:`) run by [`healing`] until it passes, and
//! its lines written to the step's `output:` file when it succeeds. How
//! one run of the command goes is [`shell`](super::shell)'s.

use std::path::Path;

use super::code;
use super::healing;
use super::model::CommandTask;
use super::shell::attempt;
use super::step::{Context, Emit, Failure, StepError};

/// Runs a script step, emitting its lines (with `self_healing:`, handing
/// failures to an agent between attempts); writes them to the step's
/// `output:` file when it succeeds.
pub(super) fn run(task: &CommandTask, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError> {
    let mut captured: Option<Vec<String>> = task.output.as_ref().map(|_| Vec::new());
    if task.self_healing {
        healing::run(task, ctx, emit, captured.as_mut())?;
    } else {
        let code = attempt(task, ctx, emit, &mut |line| {
            if let Some(captured) = captured.as_mut() {
                captured.push(line.to_owned());
            }
        })?;
        if code != 0 {
            return Err(command_failed(&task.name, code));
        }
    }
    if let (Some(path), Some(captured)) = (&task.output, captured) {
        write_output(Path::new(path), &captured.join("\n")).map_err(|e| {
            StepError::Failed(Failure::failed(
                code::WORKFLOW_OUTPUT_FAILED,
                format!(
                    "Step \"{}\" succeeded but its output could not be written to {path}: {e}",
                    task.name
                ),
            ))
        })?;
    }
    Ok(())
}

/// The failure of a command step that exited with `code`.
fn command_failed(step: &str, code: i32) -> StepError {
    StepError::Failed(Failure::failed(
        code::WORKFLOW_COMMAND_FAILED,
        format!("Command \"{step}\" exited with code {code}"),
    ))
}

fn write_output(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}
