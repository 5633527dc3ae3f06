//! `voyage-helper run`: one command, a log, and a short block about it.
//!
//! The drop-in replacement for the executor skill's `run.sh` (the contract it
//! keeps: docs/maintainer/run-contract.md). Input comes as `label: value`
//! lines on stdin ([`labels`](voyage_judge::labels)) or as
//! flags; it is validated in the contract's order ([`request`]); the log goes
//! under the repository root ([`log_file`]); the command runs in its own
//! process group with a deadline ([`runner`]) while its output is tallied
//! ([`tally`]); and the result is printed as the contract's block ([`block`]).
//! [`ops`] holds the call itself, as the command line and `trek` make it;
//! [`cli`] maps the flags (or stdin) to it and prints the block or reply.
//!
//! `run` never writes to stderr: every outcome, including refused input, is
//! a block on stdout.

mod block;
mod cli;
mod log_file;
mod ops;
mod request;
mod runner;
mod tally;

pub(crate) use cli::RunArgs;
pub(crate) use log_file::LOG_SUBDIR;
pub use log_file::slug;
pub(crate) use ops::run_command;
pub use request::{MAX_TIMEOUT_SECS, Request};
pub use tally::{LineTally, TAIL_MAX_CHARS};
pub use voyage_judge::Labels;
