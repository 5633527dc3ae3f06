//! `stats`'s and `event`'s command lines: their subcommands and flags, each
//! run by an `execute` here. The data directory is resolved once, there
//! ([`data_dir::resolve`]).

use std::io::{self, Read, Write};
use std::path::Path;

use super::ops::{append_record, emit_event};
use super::{code, event, kind, record, summary};
use crate::data_dir;
use crate::exit;
use crate::problem::{self, Problem};
use crate::write_reply::WriteReply;

/// Stats records (Phase 9).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Append one record to <data dir>/<KIND>-stats.jsonl.
    ///
    /// The record is RECORD, or stdin when RECORD is left out or `-`. It
    /// must be one JSON object; `ts` (UTC, RFC 3339) is added when it has
    /// none. It is then checked against its schema (`voyage-helper schema
    /// stats-record`): `ts` an RFC 3339 time, the Phase 9 keys (result,
    /// steps_*, failed_at_step, plan_type, profile_source, …) of their
    /// types, and no `event` key (events are `event emit`'s); other keys
    /// are the caller's. A record the schema refuses is not written
    /// (STATS_BAD_RECORD, the reason naming the key and what it must be).
    /// It is appended as one line under an exclusive file lock, so
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
                execute_append(&args, data_dir.as_deref(), &mut io::stdin().lock(), out)
            }
            Self::Show(args) => execute_show(&args, data_dir.as_deref(), out),
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
                execute_event(&args, data_dir.as_deref(), &mut io::stdin().lock(), out)
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
fn execute_append(
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

/// `event emit --event NAME [--payload -|JSON]`, into `data_dir`.
fn execute_event(
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

/// `stats show [KIND]`: exit 0, or 2 when the directory cannot be read.
fn execute_show(
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
