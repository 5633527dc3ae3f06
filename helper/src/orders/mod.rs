//! Session orders (seed Phase 2.6, the `session-orders` tool; area
//! `orders/`): `orders next-wave`, `write`, `status`, `archive`,
//! `record-merged` and `clear`.
//!
//! A multi-session run keeps its state under
//! `.claude/trekplan-sessions/SLUG/orders/` in the main checkout: one order
//! per session of the wave in flight (`wave-W-session-N.md`: its worktree,
//! the directory to open, its progress file, steps, scope fence and starter
//! line), `wave.json` while the wave awaits its sessions, the archived
//! progress copies, and `merged-waves.json`, the waves already merged;
//! beside it, `finished.json` once the run's main-merge gate is confirmed
//! (what its sessions' report said), until the plan's next run.
//! Both records carry the plan path relative to the main checkout and the
//! sha256 of the plan's content, so another plan, or another version of
//! this one, is refused rather than collected.
//!
//! - [`model`]: the layout of the session directory, the waves of a plan,
//!   the two records.
//! - [`ops`]: each subcommand, without printing (the `wave` commands call
//!   them too).
//! - [`sha256`]: the plan hash.

mod cli;
pub(crate) mod code;
mod model;
mod ops;
mod sha256;

pub(crate) use cli::Command;
pub(crate) use model::FinishedRecord;
pub use model::ref_safe;
pub(crate) use model::{Fail, Layout, WAVE_FILE, current_branch};
pub(crate) use ops::{
    Order, State, WaveStatus, archive, clear, finished, next_wave, record_finished, record_merged,
    recorded_no_push, status, write,
};
pub use sha256::hex as sha256_hex;
