//! OpenTelemetry for `workflow run`, only when `OTEL_EXPORTER_OTLP_ENDPOINT`
//! is set: nothing here is started (no thread, no connection, no id drawn)
//! otherwise, so a run without it costs what it always did.
//!
//! It is one more consumer of the run's events ([`Observer`]), beside the
//! NDJSON writer and the log file, and a small piece of state the runner's
//! [`Context`](super::step::Context) carries ([`Trace`]) so that every
//! command, agent and item source a step starts gets that step's span as
//! its `TRACEPARENT`. The spans and the five metrics go to the collector as
//! OTLP/HTTP with the JSON encoding, from a thread of their own
//! ([`export`]); no OpenTelemetry SDK is linked, which keeps the helper's
//! size and build time what they were.
//!
//! - [`config`]: the `OTEL_*` variables;
//! - [`ids`]: trace and span ids, `traceparent` text;
//! - [`trace`]: the run's ids and the running step, shared with the runner;
//! - [`otlp`]: the wire format; [`metrics`]: the five metrics;
//! - [`export`]: the exporting thread; [`observer`]: the consumer.

mod config;
mod export;
mod ids;
mod metrics;
mod observer;
mod otlp;
mod trace;

pub(super) use observer::Observer;
pub(super) use trace::Trace;

use config::Config;
use export::Exporter;
use ids::Ids;
use trace::TraceIds;

/// The variable that carries the trace to child processes.
pub(super) const TRACEPARENT_VAR: &str = "TRACEPARENT";

/// What the `OTEL_*` and `TRACEPARENT` readers make of the environment
/// `env` (for the fuzz target): whether telemetry would be on, the
/// warnings, and the caller's `traceparent` written back out (`None` when
/// there is none or it did not parse).
pub fn read_otel_env(env: impl Fn(&str) -> Option<String>) -> (bool, Vec<String>, Option<String>) {
    let read = Config::from_lookup(env);
    let parent = read
        .config
        .as_ref()
        .and_then(|c| c.parent)
        .map(|p| ids::traceparent(p.trace, p.span));
    (read.config.is_some(), read.warnings, parent)
}

/// Telemetry for one run: the runner's half and the consumer's half.
pub(super) struct Telemetry {
    pub trace: Trace,
    pub observer: Observer,
}

/// Starts telemetry if the environment asks for it (warnings about the
/// `OTEL_*` variables go to stderr either way). `default_provider` is the
/// environment's provider, which the cost metric names for agent calls
/// outside prompt steps.
pub(super) fn start(default_provider: Option<String>) -> Option<Telemetry> {
    let read = Config::from_env();
    let warn = |text: String| {
        crate::problem::eprint_all(&[crate::problem::Problem::warning(
            super::code::WORKFLOW_TELEMETRY,
            text,
        )]);
    };
    read.warnings.into_iter().for_each(warn);
    let config = read.config?;
    let exporter = match Exporter::start(&config) {
        Ok(exporter) => exporter,
        Err(e) => {
            warn(format!("no OpenTelemetry export for this run: {e}"));
            return None;
        }
    };
    let mut generator = Ids::from_os();
    let ids = TraceIds::new(&mut generator, config.parent);
    Some(Telemetry {
        trace: Trace::new(ids),
        observer: Observer::new(
            ids,
            generator,
            exporter,
            config.metric_interval,
            default_provider,
        ),
    })
}
