//! Recovery dispatch (seed Phase 7.6): `recovery spec`.
//!
//! When the Phase 7.5 audit of a run drifts, the run's missing steps are
//! handed to a new session as a recovery spec, `session-N-recovery-D.md`,
//! at most twice (`recovery_depth < 2`); Voyage writes the spec and the
//! order, never starts the session (Hard rule 21).
//!
//! - [`missing`]: which steps are missing, from the progress records;
//! - [`spec`]: the spec's text (Step 0 prepended, steps copied whole);
//! - [`ops`]: the dispatch itself ([`recover`]), as the command line and
//!   `trek` call it; [`cli`]: the flags, mapped to it.

mod cli;
pub(crate) mod code;
mod missing;
mod ops;
mod spec;

pub(crate) use cli::Command;
pub use ops::spec_text;
pub(crate) use ops::{SpecRequest, recover};
