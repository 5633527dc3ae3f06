//! `stats show`: what the stats files say, per kind — how many runs, how
//! they ended, steps passed and failed, events, and when the last run was.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::kind;

/// The `mode` of a `--session N` run's record: one share of a
/// multi-session run, not a run of its own.
const SESSION_MODE: &str = "session";

/// The summary of one kind's file (schema `stats-summary`, `kinds[]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KindSummary {
    pub kind: String,
    pub path: String,
    /// Lines that are JSON objects.
    pub records: u64,
    /// Records with a `result` (one per finished run, seed Phase 9), a
    /// session's share of a multi-session run left out.
    pub runs: u64,
    /// Records of one session's share of a multi-session run (`mode`
    /// `session`): counted here and nowhere else, since the run's own
    /// record (`mode` `multi-session`) counts the run and all its steps.
    pub session_shares: u64,
    /// Runs by `result`.
    pub results: BTreeMap<String, u64>,
    pub steps_passed: u64,
    pub steps_failed: u64,
    pub steps_skipped: u64,
    /// Event records by name.
    pub events: BTreeMap<String, u64>,
    /// The latest `ts` of a run.
    pub last_run: Option<String>,
    /// Lines that are not JSON objects (a crashed writer, a hand edit).
    pub bad_lines: u64,
}

/// Everything `stats show` prints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(super) struct Summary {
    pub data_dir: String,
    pub kinds: Vec<KindSummary>,
}

/// Summarises one stats file (read line by line; constant memory per line
/// count, whatever the file's size).
pub(super) fn summarize_file(kind: &str, path: &Path) -> io::Result<KindSummary> {
    // The one reader of outside files: a FIFO or device planted in the
    // data directory is refused instead of read without end.
    let file = crate::input_file::open(path).map_err(io::Error::other)?;
    summarize_reader(kind, path, BufReader::new(file))
}

/// [`summarize_file`] over any reader.
pub fn summarize_reader(kind: &str, path: &Path, reader: impl BufRead) -> io::Result<KindSummary> {
    let mut s = KindSummary {
        kind: kind.to_owned(),
        path: path.display().to_string(),
        ..KindSummary::default()
    };
    for line in reader.split(b'\n') {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(Value::Object(rec)) = serde_json::from_slice::<Value>(&line) else {
            s.bad_lines += 1;
            continue;
        };
        s.records += 1;
        if let Some(event) = rec.get("event").and_then(Value::as_str) {
            *s.events.entry(event.to_owned()).or_default() += 1;
        }
        let Some(result) = rec.get("result") else {
            continue;
        };
        if rec.get("mode").and_then(Value::as_str) == Some(SESSION_MODE) {
            s.session_shares += 1;
            continue;
        }
        s.runs += 1;
        let result = match result {
            Value::String(r) => r.clone(),
            other => other.to_string(),
        };
        *s.results.entry(result).or_default() += 1;
        let count = |key: &str| rec.get(key).and_then(Value::as_u64).unwrap_or(0);
        s.steps_passed = s.steps_passed.saturating_add(count("steps_passed"));
        s.steps_failed = s.steps_failed.saturating_add(count("steps_failed"));
        s.steps_skipped = s.steps_skipped.saturating_add(count("steps_skipped"));
        if let Some(ts) = rec.get("ts").and_then(Value::as_str)
            && s.last_run.as_deref().is_none_or(|last| ts > last)
        {
            s.last_run = Some(ts.to_owned());
        }
    }
    Ok(s)
}

/// Summarises every `<kind>-stats.jsonl` in `dir`, or only `only`'s.
/// A missing directory is an empty summary.
pub(super) fn summarize_dir(dir: &Path, only: Option<&str>) -> io::Result<Summary> {
    let mut kinds = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Summary {
                data_dir: dir.display().to_string(),
                kinds,
            });
        }
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(kind) = name.to_str().and_then(kind::from_file_name) else {
            continue;
        };
        if only.is_some_and(|o| o != kind) || !entry.path().is_file() {
            continue;
        }
        kinds.push(summarize_file(kind, &entry.path())?);
    }
    kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
    Ok(Summary {
        data_dir: dir.display().to_string(),
        kinds,
    })
}

/// The table a person reads.
pub(super) fn render_text(summary: &Summary, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "stats in {}", summary.data_dir)?;
    if summary.kinds.is_empty() {
        return writeln!(out, "no stats recorded yet");
    }
    let results = |k: &KindSummary| {
        if k.results.is_empty() {
            "-".to_owned()
        } else {
            k.results
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let rows: Vec<[String; 7]> = summary
        .kinds
        .iter()
        .map(|k| {
            [
                k.kind.clone(),
                k.runs.to_string(),
                results(k),
                k.steps_passed.to_string(),
                k.steps_failed.to_string(),
                k.events.values().sum::<u64>().to_string(),
                k.last_run.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let head = [
        "kind",
        "runs",
        "results",
        "steps passed",
        "steps failed",
        "events",
        "last run",
    ];
    let mut widths = head.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    writeln!(out)?;
    let line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            // Text columns left, numbers right.
            let left = matches!(i, 0 | 2 | 6);
            if left {
                text.push_str(&format!("{cell:<w$}  "));
            } else {
                text.push_str(&format!("{cell:>w$}  "));
            }
        }
        text.trim_end().to_owned()
    };
    writeln!(out, "{}", line(&head))?;
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        writeln!(out, "{}", line(&cells))?;
    }
    for k in &summary.kinds {
        if !k.events.is_empty() {
            let events: Vec<String> = k.events.iter().map(|(e, n)| format!("{e} {n}")).collect();
            writeln!(out, "\nevents in {}: {}", k.kind, events.join(", "))?;
        }
        if k.session_shares > 0 {
            writeln!(
                out,
                "\n{}: {} session record{} of multi-session runs, each run counted once by its own record",
                k.kind,
                k.session_shares,
                if k.session_shares == 1 { "" } else { "s" }
            )?;
        }
        if k.bad_lines > 0 {
            writeln!(
                out,
                "\n{}: {} line{} not a JSON object (skipped)",
                k.path,
                k.bad_lines,
                if k.bad_lines == 1 { " is" } else { "s are" }
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_runs_results_steps_and_events() {
        let text = concat!(
            "{\"ts\":\"2026-11-29T09:00:00Z\",\"result\":\"completed\",\"steps_passed\":5,\"steps_failed\":0}\n",
            "{\"ts\":\"2026-11-30T09:00:00Z\",\"result\":\"failed\",\"steps_passed\":2,\"steps_failed\":1}\n",
            "{\"ts\":\"2026-11-30T09:01:00Z\",\"event\":\"main-merge-gate\",\"payload\":{}}\n",
            "not json\n",
            "\n",
            "{\"ts\":\"2026-12-01T09:00:00Z\",\"mode\":\"session\",\"result\":\"completed\",\"steps_passed\":2}\n",
        );
        let s = summarize_reader("trekexecute", Path::new("f"), text.as_bytes()).unwrap();
        assert_eq!(s.records, 4);
        assert_eq!(s.runs, 2);
        // A session's share is counted apart: not a run, no steps.
        assert_eq!(s.session_shares, 1);
        assert_eq!(s.results.get("failed"), Some(&1));
        assert_eq!(s.steps_passed, 7);
        assert_eq!(s.steps_failed, 1);
        assert_eq!(s.events.get("main-merge-gate"), Some(&1));
        assert_eq!(s.last_run.as_deref(), Some("2026-11-30T09:00:00Z"));
        assert_eq!(s.bad_lines, 1);
        let mut out = Vec::new();
        let summary = Summary {
            data_dir: "/d".into(),
            kinds: vec![s],
        };
        render_text(&summary, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("completed 1, failed 1"), "{text}");
        assert!(
            text.contains("1 session record of multi-session runs"),
            "{text}"
        );
        assert!(
            text.contains("events in trekexecute: main-merge-gate 1"),
            "{text}"
        );
    }
}
