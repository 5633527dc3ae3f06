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

mod cli;
pub(crate) mod code;
mod event;
mod jsonl;
mod kind;
mod record;
mod summary;

pub(crate) use cli::{Command, EventCommand};
pub use event::{check_name, record};
pub use record::{parse_object, with_ts};
pub use summary::summarize_reader;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use cli::{AppendArgs, EmitArgs, ShowArgs};

use crate::clock::UtcTime;
use crate::exit;
use crate::problem::Coded;
use crate::problem::{self, Problem};
use crate::write_reply::WriteReply;

/// The kind events go to unless told otherwise (seed "High-effort
/// behavior": the record lands in `trekexecute-stats.jsonl`).
pub(crate) const EVENT_KIND: &str = "trekexecute";

/// Where the record comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// Given on the command line.
    Arg(String),
    /// Read from stdin.
    Stdin,
}

impl Source {
    /// A command-line value: `-` means stdin.
    pub(crate) fn from_arg(text: &str) -> Self {
        if text == "-" {
            Self::Stdin
        } else {
            Self::Arg(text.to_owned())
        }
    }
}

fn read_source(source: &Source, stdin: &mut impl Read) -> Result<Vec<u8>, Problem> {
    match source {
        Source::Arg(text) => Ok(text.as_bytes().to_vec()),
        Source::Stdin => {
            let mut bytes = Vec::new();
            stdin
                .take(record::MAX_RECORD_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| {
                    Problem::new(
                        code::STATS_STDIN_UNREADABLE,
                        format!("cannot read stdin: {e}"),
                    )
                })?;
            Ok(bytes)
        }
    }
}

/// Appends `rec` as one line of `<data dir>/<kind>-stats.jsonl`.
pub(crate) fn append(
    data_dir: Option<&std::path::Path>,
    kind_name: &str,
    rec: &Map<String, Value>,
) -> Result<PathBuf, Problem> {
    kind::check(kind_name).map_err(|m| Problem::new(code::STATS_BAD_KIND, m))?;
    let dir = data_dir.ok_or_else(|| {
        Problem::new(
            code::STATS_NO_DATA_DIR,
            "no data directory: set CLAUDE_PLUGIN_DATA, VOYAGE_DATA_DIR, XDG_DATA_HOME or HOME",
        )
    })?;
    std::fs::create_dir_all(dir).map_err(|e| {
        Problem::new(
            code::STATS_UNWRITABLE,
            format!("cannot create {}: {e}", dir.display()),
        )
    })?;
    let path = dir.join(kind::file_name(kind_name));
    let line = serde_json::to_vec(rec)
        .map_err(|e| Problem::new(code::STATS_WRITE_FAILED, e.to_string()))?;
    jsonl::append_line(&path, &line, jsonl::LOCK_WAIT).map_err(|e| e.problem())?;
    Ok(path)
}

/// Whether the stats file of `kind` already holds what the run `run_id`
/// writes once: the event `event` (its payload's `run_id`), or with `None`
/// its Phase 9 record (a line with `run_id` and no `event`). A finish run
/// again after a crash asks first, so that it writes nothing twice. A file
/// that cannot be read holds nothing.
pub(crate) fn already_written(kind: &str, run_id: &str, event: Option<&str>) -> bool {
    let Some(dir) = crate::data_dir::resolve() else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(dir.join(kind::file_name(kind))) else {
        return false;
    };
    text.lines()
        .filter(|line| line.contains(run_id))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .any(|rec| match event {
            Some(name) => {
                rec.get("event").and_then(Value::as_str) == Some(name)
                    && rec.pointer("/payload/run_id").and_then(Value::as_str) == Some(run_id)
            }
            None => {
                rec.get("event").is_none()
                    && rec.get("run_id").and_then(Value::as_str) == Some(run_id)
            }
        })
}

/// Prints the writer's reply and returns 0 (written) or 1 (not written).
fn reply(outcome: Result<WriteReply, Problem>, out: &mut impl Write) -> io::Result<u8> {
    let (code, reply) = match outcome {
        Ok(r) => (exit::OK, r),
        Err(p) => {
            problem::eprint_all(std::slice::from_ref(&p));
            (exit::NOT_OK, WriteReply::refused(&p))
        }
    };
    reply.render_json(out)?;
    out.flush()?;
    Ok(code)
}

/// `stats append KIND [RECORD]`, into `data_dir` (None: no HOME either).
pub(crate) fn execute_append(
    options: &AppendArgs,
    data_dir: Option<&Path>,
    stdin: &mut impl Read,
    out: &mut impl Write,
) -> io::Result<u8> {
    // The kind is checked before stdin is read.
    let outcome = kind::check(&options.kind)
        .map_err(|m| Problem::new(code::STATS_BAD_KIND, m))
        .and_then(|()| read_source(&options.record(), stdin))
        .and_then(|bytes| append_record(data_dir, &options.kind, &bytes));
    reply(outcome, out)
}

/// Appends the JSON object `bytes` to the stats file of `kind`, stamped
/// with `ts` when it has none.
pub(crate) fn append_record(
    data_dir: Option<&Path>,
    kind_name: &str,
    bytes: &[u8],
) -> Result<WriteReply, Problem> {
    kind::check(kind_name).map_err(|m| Problem::new(code::STATS_BAD_KIND, m))?;
    let rec = record::parse_object(bytes, "record")?;
    let rec = record::with_ts(rec, &UtcTime::now().rfc3339());
    let path = append(data_dir, kind_name, &rec)?;
    Ok(WriteReply::written(&path))
}

/// `event emit --event NAME [--payload -|JSON]`, into `data_dir`.
pub(crate) fn execute_event(
    options: &EmitArgs,
    data_dir: Option<&Path>,
    stdin: &mut impl Read,
    out: &mut impl Write,
) -> io::Result<u8> {
    let outcome = (|| {
        // The name is checked before stdin is read.
        event::check_name(&options.event)
            .map_err(|m| Problem::new(code::STATS_BAD_EVENT_NAME, m))?;
        let payload = match &options.payload() {
            None => None,
            Some(source) => Some(read_source(source, stdin)?),
        };
        emit_event(data_dir, &options.kind, &options.event, payload.as_deref())
    })();
    reply(outcome, out)
}

/// Records the lifecycle event `event` with the JSON object `payload`
/// (none: `{}`) in the stats file of `kind`.
pub(crate) fn emit_event(
    data_dir: Option<&Path>,
    kind_name: &str,
    event: &str,
    payload: Option<&[u8]>,
) -> Result<WriteReply, Problem> {
    event::check_name(event).map_err(|m| Problem::new(code::STATS_BAD_EVENT_NAME, m))?;
    let payload = match payload {
        None => Map::new(),
        Some(bytes) => record::parse_object(bytes, "payload")?,
    };
    let rec = event::record(event, payload, &UtcTime::now().rfc3339());
    let path = append(data_dir, kind_name, &rec)?;
    let mut reply = WriteReply::written(&path);
    reply.event = Some(event.to_owned());
    reply.known_event = Some(event::is_known(event));
    Ok(reply)
}

/// `stats show [KIND]`: exit 0, or 2 when the directory cannot be read.
pub(crate) fn execute_show(
    options: &ShowArgs,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    if let Some(k) = &options.kind
        && let Err(m) = kind::check(k)
    {
        problem::eprint_all(&[Problem::new(code::STATS_BAD_KIND, m)]);
        return Ok(exit::CANNOT_CHECK);
    }
    let Some(dir) = data_dir else {
        problem::eprint_all(&[Problem::new(
            code::STATS_NO_DATA_DIR,
            "no data directory: set CLAUDE_PLUGIN_DATA, VOYAGE_DATA_DIR, XDG_DATA_HOME or HOME",
        )]);
        return Ok(exit::CANNOT_CHECK);
    };
    let summary = match summary::summarize_dir(dir, options.kind.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            problem::eprint_all(&[Problem::new(
                code::STATS_UNREADABLE,
                format!("cannot read {}: {e}", dir.display()),
            )]);
            return Ok(exit::CANNOT_CHECK);
        }
    };
    if options.json {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)?;
    } else {
        summary::render_text(&summary, out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}
