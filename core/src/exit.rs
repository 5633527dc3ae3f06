//! Exit codes, named: scripts and the Markdown command depend on them.
//!
//! The general rule (docs/maintainer/conventions.md): 0 checked and fine,
//! 1 checked and not fine, 2 could not check. Subcommands whose seed fixes other codes
//! document them here and in their `--help`.

/// Checked, and fine (also `run` for an `ok` or `timeout` block).
pub const OK: u8 = 0;
/// Checked, and not fine (e.g. `verdict` on a failed or timed-out run).
pub const NOT_OK: u8 = 1;
/// Could not check: a usage error, unreadable input, an internal error,
/// output that cannot be written (`crate::output`; a closed pipe is 0), and
/// every `STATUS: error` block of `run`.
pub const CANNOT_CHECK: u8 = 2;
