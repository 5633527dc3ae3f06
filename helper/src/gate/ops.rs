//! The gate's operation, as the command line and `trek` call it:
//! [`decide`] reads the words, takes the step of the states × events table
//! and records the override event when there is one.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::GateArgs;
use super::code;
use super::machine::{self, Action, Event, State};
use super::mode::{self, Effort, GatesFlag, Mode, ModeSource};

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
