//! Crash-safe state files (area `state/`; seed Phase 8, Handover
//! 7): `write --atomic`, `state write`, `state validate`.
//!
//! - every write goes through the crate's atomic writer,
//!   [`crate::atomic_file`] (temp file, fsync, rename, fsync of the
//!   directory, mode kept; killed writers' temporary files swept up).
//! - [`session_state`]: the handover pair `.session-state.local.json` +
//!   `NEXT-SESSION-PROMPT.local.md`.
//! - [`check`]: `state validate`, the schema plus the pair's agreement.
//! - [`pair`]: writing the pair so that both change or neither does.
//! - [`ops`]: the writes, as the command line and the other areas call
//!   them; [`cli`]: the flags, each mapped to its write.

mod check;
mod cli;
pub(crate) mod code;
mod ops;
mod pair;
mod session_state;

pub use check::{check_prompt, validate_text};
pub(crate) use cli::{Command, WriteArgs};
pub(crate) use ops::write_handover;
