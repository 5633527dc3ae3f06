//! The stats operations, as the command line and the other areas call
//! them: appending a record, emitting an event, and asking whether a run's
//! record or event is already written.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{code, event, jsonl, kind, record};
use crate::clock::UtcTime;
use crate::problem::Coded;
use crate::problem::Problem;
use crate::write_reply::WriteReply;

/// The kind events go to unless told otherwise (seed "High-effort
/// behavior": the record lands in `trekexecute-stats.jsonl`).
pub(crate) const EVENT_KIND: &str = "trekexecute";

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

/// Appends the JSON object `bytes` to the stats file of `kind`, stamped
/// with `ts` when it has none, if its schema accepts it.
pub(crate) fn append_record(
    data_dir: Option<&Path>,
    kind_name: &str,
    bytes: &[u8],
) -> Result<WriteReply, Problem> {
    kind::check(kind_name).map_err(|m| Problem::new(code::STATS_BAD_KIND, m))?;
    let rec = record::parse_object(bytes, "record")?;
    let rec = record::with_ts(rec, &UtcTime::now().rfc3339());
    record::check(&rec)?;
    let path = append(data_dir, kind_name, &rec)?;
    Ok(WriteReply::written(&path))
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
