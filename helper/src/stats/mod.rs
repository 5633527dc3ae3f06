//! Stats and lifecycle events (area `stats/`; seed Phase 8 and
//! Phase 9): `stats append`, `event emit`, `stats show`.
//!
//! Records are appended as single lines to `<data dir>/<kind>-stats.jsonl`
//! under a file lock, so any number of concurrent writers never interleave
//! ([`jsonl`]). A writer answers `{"written": true, "path": …}` or
//! `{"written": false, "code": …, "reason": …}` with exit 1, and never makes
//! its caller wait more than a few seconds: stats must not block a run.
//!
//! - [`kind`]: the kind names a file; [`mod@record`]: one JSON object + `ts`.
//! - [`event`]: known events and the export allowlist.
//! - [`jsonl`]: locked whole-line appends; [`summary`]: `stats show`.
//! - [`ops`]: the operations (append a record, emit an event), as the
//!   command line and the other areas call them; [`cli`]: the flags, each
//!   mapped to its operation.

mod cli;
pub(crate) mod code;
mod event;
mod jsonl;
mod kind;
mod ops;
mod record;
mod summary;

pub(crate) use cli::{Command, EventCommand};
pub use event::{check_name, record};
pub(crate) use ops::{EVENT_KIND, already_written, append, append_record, emit_event};
pub use record::{parse_object, with_ts};
pub use summary::summarize_reader;
