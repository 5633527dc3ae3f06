//! `stats`'s and `event`'s command lines: their subcommands and flags, each
//! run by an `execute` here. The data directory is resolved once, there
//! ([`data_dir::resolve`]).

use std::io::{self, Write};

use super::Source;
use crate::data_dir;

/// Stats records (Phase 9).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Append one record to <data dir>/<KIND>-stats.jsonl.
    ///
    /// The record is RECORD, or stdin when RECORD is left out or `-`. It
    /// must be one JSON object; `ts` (UTC, RFC 3339) is added when it has
    /// none. It is appended as one line under an exclusive file lock, so
    /// concurrent writers never interleave; a writer gives up after 3 s on a
    /// busy lock rather than block the run.
    ///
    /// The data dir is $CLAUDE_PLUGIN_DATA, else $VOYAGE_DATA_DIR, else
    /// $XDG_DATA_HOME/voyage, else ~/.local/share/voyage (created).
    ///
    /// OUTPUT, always one line: {"written": true, "path": …} or
    /// {"written": false, "code": …, "reason": …}.
    ///
    /// Exit status: 0 written, 1 not written.
    #[command(verbatim_doc_comment)]
    Append(AppendArgs),
    /// Summarise the stats files, per kind.
    ///
    /// For each <kind>-stats.jsonl: runs (records with a `result`), results
    /// by kind, steps passed and failed, events by name, the last run, and
    /// lines that are not JSON objects.
    ///
    /// Exit status: 0, or 2 when the data dir cannot be read.
    #[command(verbatim_doc_comment)]
    Show(ShowArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let data_dir = data_dir::resolve();
        match self {
            Self::Append(args) => {
                super::execute_append(&args, data_dir.as_deref(), &mut io::stdin().lock(), out)
            }
            Self::Show(args) => super::execute_show(&args, data_dir.as_deref(), out),
        }
    }
}

/// Lifecycle events (Phase 8 main-merge gate, gates override).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum EventCommand {
    /// Record a lifecycle event in <data dir>/trekexecute-stats.jsonl.
    ///
    /// The line is {ts, event, known_event, payload, not_exportable}.
    /// Known events: main-merge-gate, main-merge-approved,
    /// main-merge-declined, gates_mode_flag_override, wave-merge-gate,
    /// wave-merge-approved, wave-merge-declined, gates-halt; any other name
    /// (1 to 64 of A-Z a-z 0-9 _ - . :) is recorded with known_event: false.
    /// Payload keys outside the export allowlist (wave, wave_count, session,
    /// step, steps_total, steps_passed, steps_failed, result, status, mode,
    /// plan_type, reason, gates, effort, phase, profile) stay in the file
    /// and are listed in not_exportable.
    ///
    /// Pass the payload on stdin with a quoted heredoc so the shell expands
    /// nothing in it:
    ///
    ///     voyage-helper event emit --event main-merge-gate --payload - <<'JSON'
    ///     {"plan": "plans/auth.md", "wave_count": 1}
    ///     JSON
    ///
    /// OUTPUT, always one line: {"written": true, "path": …, "event": …,
    /// "known_event": …} or {"written": false, "code": …, "reason": …}
    /// (reason `payload-not-json: …` for a payload that is not JSON).
    ///
    /// Exit status: 0 written, 1 not written.
    #[command(verbatim_doc_comment)]
    Emit(EmitArgs),
}

impl EventCommand {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let data_dir = data_dir::resolve();
        match self {
            Self::Emit(args) => {
                super::execute_event(&args, data_dir.as_deref(), &mut io::stdin().lock(), out)
            }
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct AppendArgs {
    /// The kind: 1 to 64 of a-z, 0-9, _ and - (e.g. trekexecute).
    #[arg(value_name = "KIND")]
    pub kind: String,
    /// The record as JSON; stdin when left out or `-`.
    #[arg(value_name = "RECORD")]
    pub record: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ShowArgs {
    /// Only this kind.
    #[arg(value_name = "KIND")]
    pub kind: Option<String>,
    /// Print the summary as JSON (schema stats-summary).
    #[arg(long)]
    pub json: bool,
}

impl AppendArgs {
    /// Where the record comes from: RECORD, or stdin.
    pub(crate) fn record(&self) -> Source {
        self.record
            .as_deref()
            .map_or(Source::Stdin, Source::from_arg)
    }
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct EmitArgs {
    /// The event's name.
    #[arg(long, value_name = "NAME")]
    pub event: String,
    /// A JSON object, or `-` for stdin (default: {}).
    #[arg(long, value_name = "-|JSON")]
    pub payload: Option<String>,
    /// The stats kind the event is recorded under.
    #[arg(long, value_name = "KIND", default_value = "trekexecute")]
    pub kind: String,
}

impl EmitArgs {
    /// Where the payload comes from, if given.
    pub(crate) fn payload(&self) -> Option<Source> {
        self.payload.as_deref().map(Source::from_arg)
    }
}
