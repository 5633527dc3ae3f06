//! The exporter: a thread of its own that POSTs OTLP/JSON to the collector,
//! so that the run never waits on the network.
//!
//! The consumer hands it batches through a bounded queue and never blocks:
//! when the queue is full (a slow or dead collector), the batch is dropped
//! and counted. Each request may take [`REQUEST_TIMEOUT`]; at the end,
//! [`Exporter::shutdown`] closes the queue and waits for the thread until a
//! deadline, so a collector that never answers delays the end of a run by
//! about that much and no more (the thread is then left behind, and ends
//! with the process).

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use super::config::{Config, Endpoint};
use super::otlp::{self, Metric, Resource, Span};

/// The longest one request may take (the whole shutdown is capped at
/// about the same).
pub(in crate::workflow) const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Batches that may wait for the thread.
const QUEUE_DEPTH: usize = 64;

/// One request to make.
#[derive(Debug)]
pub(in crate::workflow) enum Job {
    Spans(Vec<Span>),
    Metrics(Vec<Metric>),
}

/// What the thread says when it ends.
#[derive(Debug, Default)]
struct Outcome {
    failed: u64,
    first_error: Option<String>,
}

/// The sending side.
#[derive(Debug)]
pub(in crate::workflow) struct Exporter {
    queue: Option<SyncSender<Job>>,
    done: Receiver<Outcome>,
    dropped: u64,
    traces: bool,
    metrics: bool,
}

impl Exporter {
    /// Starts the thread; `Err` with the reason when it cannot be started.
    pub(in crate::workflow) fn start(config: &Config) -> std::io::Result<Self> {
        let (queue, jobs) = mpsc::sync_channel::<Job>(QUEUE_DEPTH);
        let (report, done) = mpsc::channel();
        let worker = Worker {
            agent: ureq::Agent::new_with_config(
                ureq::Agent::config_builder()
                    .timeout_global(Some(REQUEST_TIMEOUT))
                    .http_status_as_error(false)
                    .user_agent(concat!("voyage-helper/", env!("CARGO_PKG_VERSION")))
                    .build(),
            ),
            resource: Resource::new(&config.resource),
            traces: config.traces.clone(),
            metrics: config.metrics.clone(),
        };
        std::thread::Builder::new()
            .name("otlp-export".into())
            .spawn(move || {
                let outcome = worker.run(&jobs);
                let _ = report.send(outcome);
            })?;
        Ok(Self {
            queue: Some(queue),
            done,
            dropped: 0,
            traces: config.traces.is_some(),
            metrics: config.metrics.is_some(),
        })
    }

    /// Whether spans, and metrics, are exported at all.
    pub(in crate::workflow) fn wants(&self) -> (bool, bool) {
        (self.traces, self.metrics)
    }

    /// Queues `job`, or drops it when the queue is full.
    pub(in crate::workflow) fn send(&mut self, job: Job) {
        if let Some(queue) = &self.queue {
            match queue.try_send(job) {
                Ok(()) => {}
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => self.dropped += 1,
            }
        }
    }

    /// Closes the queue and waits for what is queued to be sent, until
    /// `deadline`; a warning for the user when something was lost.
    pub(in crate::workflow) fn shutdown(&mut self, deadline: Instant) -> Option<String> {
        // The thread ends once it has sent what the closed queue still holds.
        self.queue = None;
        let wait = deadline.saturating_duration_since(Instant::now());
        let outcome = match self.done.recv_timeout(wait) {
            Ok(outcome) => outcome,
            Err(RecvTimeoutError::Timeout) => {
                return Some(format!(
                    "the OpenTelemetry collector did not take the run's data within {} s; what was not sent is lost",
                    REQUEST_TIMEOUT.as_secs()
                ));
            }
            Err(RecvTimeoutError::Disconnected) => Outcome::default(),
        };
        let mut lost = Vec::new();
        if outcome.failed > 0 {
            lost.push(format!(
                "{} export{} failed ({})",
                outcome.failed,
                if outcome.failed == 1 { "" } else { "s" },
                outcome.first_error.unwrap_or_default()
            ));
        }
        if self.dropped > 0 {
            lost.push(format!(
                "{} batch{} dropped while the collector was slow",
                self.dropped,
                if self.dropped == 1 { "" } else { "es" }
            ));
        }
        (!lost.is_empty()).then(|| format!("OpenTelemetry: {}", lost.join("; ")))
    }
}

struct Worker {
    agent: ureq::Agent,
    resource: Resource,
    traces: Option<Endpoint>,
    metrics: Option<Endpoint>,
}

impl Worker {
    fn run(&self, jobs: &Receiver<Job>) -> Outcome {
        let mut outcome = Outcome::default();
        while let Ok(job) = jobs.recv() {
            let (endpoint, body) = match &job {
                Job::Spans(spans) => (&self.traces, otlp::traces_body(&self.resource, spans)),
                Job::Metrics(metrics) => {
                    (&self.metrics, otlp::metrics_body(&self.resource, metrics))
                }
            };
            let Some(endpoint) = endpoint else {
                continue;
            };
            if let Err(e) = self.post(endpoint, &body) {
                outcome.failed += 1;
                outcome.first_error.get_or_insert(e);
            }
        }
        outcome
    }

    fn post(&self, endpoint: &Endpoint, body: &[u8]) -> Result<(), String> {
        let mut request = self
            .agent
            .post(&endpoint.url)
            .header("Content-Type", "application/json");
        for (key, value) in &endpoint.headers {
            request = request.header(key.as_str(), value.as_str());
        }
        let mut response = request
            .send(body)
            .map_err(|e| format!("{}: {e}", endpoint.url))?;
        let status = response.status().as_u16();
        // Read the (small) answer so the connection can be used again.
        let _ = response
            .body_mut()
            .with_config()
            .limit(64 * 1024)
            .read_to_vec();
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(format!("{}: HTTP {status}", endpoint.url))
        }
    }
}
