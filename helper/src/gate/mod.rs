//! The autonomy gate (area `gate/`; seed Phase 1 `--gates`,
//! Phase 2.6 Step 3, Phase 8 "Main-merge gate", "High-effort behavior"):
//! `voyage-helper gate --state S --event E [--gates G] [--effort X]`.
//!
//! - [`mode`]: open / adaptive / closed, and flag → brief → default.
//! - [`machine`]: the states × events table.
//!
//! The gate only decides; the caller asks the operator when told to pause.
//! On `--event begin` it also records the `gates_mode_flag_override` event
//! when an explicit flag beat a different brief signal (once per run, since
//! `begin` is sent once).

mod cli;
pub(crate) mod code;
mod machine;
mod mode;

pub(crate) use cli::GateArgs;
pub use machine::{Event, State};
pub use mode::{Effort, GatesFlag};

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use machine::Action;
use mode::{Mode, ModeSource};

use crate::clock::UtcTime;
use crate::exit;
use crate::problem::{self, Problem};
use crate::stats;
use crate::write_reply::WriteReply;

/// What `gate --json` prints (schema `gate-decision`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Decision {
    pub state: State,
    pub event: Event,
    pub action: Action,
    pub next_state: State,
    /// The boundary this decision is, when it is one.
    pub boundary: Option<&'static str>,
    /// Lifecycle events the caller records with `event emit`.
    pub emit: Vec<&'static str>,
    pub gates: Mode,
    pub gates_source: ModeSource,
    /// The brief's effort that an explicit flag overrode.
    pub overridden_effort: Option<Effort>,
    /// Run sessions one after another, no parallel waves (open mode).
    pub sequential_only: bool,
    /// Run the manifest audit in its strictest form (closed mode).
    pub strict_audit: bool,
    /// The override event, when this call recorded it.
    pub override_recorded: Option<WriteReply>,
}

fn usage(code: &'static str, message: String) -> u8 {
    problem::eprint_all(&[Problem::new(code, message)]);
    exit::CANNOT_CHECK
}

fn words<T: Copy>(all: &[T], f: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", ")
}

/// `gate`: exit 0 decided, 1 an event the state refuses, 2 bad words (or
/// the error writing the decision). The override event goes to `data_dir`.
pub(crate) fn execute(
    options: &GateArgs,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    let decision = match decide(options, data_dir) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    if options.json {
        serde_json::to_writer(&mut *out, &decision)?;
        writeln!(out)?;
    } else {
        render_text(&decision, out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The gate's decision for `options`, or the exit code of a refusal, whose
/// problem is printed.
pub(crate) fn decide(options: &GateArgs, data_dir: Option<&Path>) -> Result<Decision, u8> {
    let Some(state) = State::parse(&options.state) else {
        return Err(usage(
            code::GATE_BAD_STATE,
            format!(
                "unknown state '{}'; one of {}",
                options.state,
                words(State::ALL, State::as_str)
            ),
        ));
    };
    let Some(event) = Event::parse(&options.event) else {
        return Err(usage(
            code::GATE_BAD_EVENT,
            format!(
                "unknown event '{}'; one of {}",
                options.event,
                words(Event::ALL, Event::as_str)
            ),
        ));
    };
    let flag = match options.gates.as_deref() {
        None => GatesFlag::Absent,
        Some(word) => match GatesFlag::parse(word) {
            Some(f) => f,
            None => {
                return Err(usage(
                    code::GATE_BAD_MODE,
                    format!("unknown --gates '{word}'; one of open, adaptive, closed, true, false"),
                ));
            }
        },
    };
    let effort = match options.effort.as_deref() {
        None => None,
        Some(word) => match Effort::parse(word) {
            Some(e) => Some(e),
            None => {
                return Err(usage(
                    code::GATE_BAD_EFFORT,
                    format!("unknown --effort '{word}'; one of low, standard, high"),
                ));
            }
        },
    };
    let resolved = mode::resolve(flag, effort);
    let Some(step) = machine::decide(state, event, resolved.mode) else {
        let why = match state {
            State::Finalized | State::Held => "the run is over".to_owned(),
            _ => format!("{event} does not happen in {state}"),
        };
        problem::eprint_all(&[Problem::new(
            code::GATE_ILLEGAL_EVENT,
            format!("{state} + {event}: refused ({why})"),
        )]);
        return Err(exit::NOT_OK);
    };
    let override_recorded = match (event, resolved.overridden) {
        (Event::Begin, Some(signal)) if !options.no_record => {
            Some(record_override(data_dir, signal))
        }
        _ => None,
    };
    Ok(Decision {
        state,
        event,
        action: step.action,
        next_state: step.next,
        boundary: step.boundary,
        emit: step.emit.to_vec(),
        gates: resolved.mode,
        gates_source: resolved.source,
        overridden_effort: resolved.overridden,
        sequential_only: resolved.mode == Mode::Open,
        strict_audit: resolved.mode == Mode::Closed,
        override_recorded,
    })
}

/// Appends `gates_mode_flag_override` (seed "High-effort behavior"); a
/// failure is reported in the decision, never fatal.
fn record_override(data_dir: Option<&Path>, signal: Effort) -> WriteReply {
    let mut payload = Map::new();
    payload.insert("flag".into(), Value::String("--gates".into()));
    payload.insert(
        "signal_effort".into(),
        Value::String(signal.as_str().into()),
    );
    let name = "gates_mode_flag_override";
    let rec = stats::record(name, payload, &UtcTime::now().rfc3339());
    match stats::append(data_dir, stats::EVENT_KIND, &rec) {
        Ok(path) => {
            let mut reply = WriteReply::written(&path);
            reply.event = Some(name.into());
            reply.known_event = Some(true);
            reply
        }
        Err(p) => {
            crate::problem::eprint_line(&format!("warning: override event not recorded: {p}"));
            WriteReply::refused(&p)
        }
    }
}

/// The text form: one `key: value` per line.
pub(crate) fn render_text(d: &Decision, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "ACTION: {}", d.action.as_str())?;
    writeln!(out, "NEXT: {}", d.next_state)?;
    if let Some(b) = d.boundary {
        writeln!(out, "BOUNDARY: {b}")?;
    }
    if !d.emit.is_empty() {
        writeln!(out, "EMIT: {}", d.emit.join(" "))?;
    }
    let source = match d.gates_source {
        ModeSource::Flag => "flag",
        ModeSource::Brief => "brief",
        ModeSource::Default => "default",
    };
    writeln!(out, "GATES: {} ({source})", d.gates)?;
    if let Some(e) = d.overridden_effort {
        writeln!(
            out,
            "OVERRIDE: --gates beat the brief's effort {}",
            e.as_str()
        )?;
    }
    Ok(())
}
