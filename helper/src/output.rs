//! What happens when a subcommand's own output cannot be written (issue 11,
//! point 5): the one place that turns a subcommand's `io::Result<u8>` into
//! the process exit code.
//!
//! Every renderer returns `io::Result`, and every subcommand's `execute`
//! passes a failed write of stdout up to here instead of dropping it, so a
//! full disk under `--json` is never mistaken for success:
//!
//! - a reader that went away (`EPIPE`, e.g. `voyage-helper plan show --json
//!   | head -c1`) ends the process quietly with status 0, as ripgrep does
//!   (`crates/core/main.rs`): the pipeline's reader chose to stop, nothing
//!   went wrong that a person should be told about;
//! - any other write error prints `error: cannot write output: …` on stderr
//!   and exits 2 (could not check: the answer was not delivered).
//!
//! Stderr diagnostics (`problem::eprint_all`, warnings) stay best-effort:
//! when stderr itself is gone there is no one left to tell, and the exit
//! code still says what happened. The PreToolUse hook never gets here with
//! an error: its protocol wants "no decision" (exit 0, nothing written) when
//! its answer cannot be written (`scan::hook`).

use std::io::{self, Write};

use crate::exit;

/// The exit code for a subcommand's result.
pub(crate) fn exit_code(result: io::Result<u8>) -> u8 {
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            // Not `eprintln!`, which panics when stderr fails too: the
            // message is best-effort, the exit code is not.
            let _ = writeln!(io::stderr(), "error: cannot write output: {e}");
            exit::CANNOT_CHECK
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_quiet_and_other_errors_are_2() {
        assert_eq!(exit_code(Ok(1)), 1);
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(exit_code(Err(pipe)), exit::OK);
        let full = io::Error::from(io::ErrorKind::StorageFull);
        assert_eq!(exit_code(Err(full)), exit::CANNOT_CHECK);
    }
}
