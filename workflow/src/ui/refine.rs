//! "Update the workflow" from the retrospective pane: once the view has
//! given the terminal back (two full-screen programs cannot share it),
//! `voyage-helper workflow refine FILE --instruction TEXT` runs as a child
//! of this same binary, its output streamed to ours. The file is read
//! again from disk by it (a long run may have edited its own workflow),
//! and the run's exit code does not change whatever the refine does.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::Path;

use super::super::code;
use crate::problem::Problem;
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// Runs the refine; a failure to run it is a warning on stderr.
pub(crate) fn refine(file: &Path, instruction: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "\nrefining {} with the retrospective's fix…",
        file.display()
    )?;
    out.flush()?;
    let warn = |why: String| {
        crate::problem::eprint_all(&[Problem::warning(
            code::WORKFLOW_REFINE_FAILED,
            format!("workflow refine {}: {why}", file.display()),
        )]);
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            warn(format!("cannot find this program: {e}"));
            return Ok(());
        }
    };
    let argv = [
        exe.as_os_str(),
        OsStr::new("workflow"),
        OsStr::new("refine"),
        file.as_os_str(),
        OsStr::new("--instruction"),
        OsStr::new(instruction),
    ];
    let job = Job {
        argv: &argv,
        cwd: None,
        timeout: None,
        leftovers: Leftovers::Stop,
        stderr: Stderr::Merged,
        env: &[],
        input: None,
        stop: None,
        stop_with_us: false,
    };
    let mut written = Ok(());
    let outcome = supervise(job, &mut |chunk| {
        if written.is_ok() {
            written = out.write_all(chunk).and_then(|()| out.flush());
        }
    });
    written?;
    match outcome {
        Ok(outcome) => match outcome.ending {
            Ending::Exited(0) => {}
            Ending::Exited(code) => warn(format!("exited with {code}")),
            Ending::TimedOut(_) => warn("timed out".to_owned()),
            Ending::Interrupted { signal, .. } => warn(format!("interrupted by {signal}")),
        },
        Err(e) => warn(format!("cannot be started: {e}")),
    }
    Ok(())
}
