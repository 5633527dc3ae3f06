//! The exporter: threads of their own that POST OTLP/JSON to the
//! collector, so that the run never waits on the network.
//!
//! The consumer hands it batches through a bounded queue and never blocks:
//! when the queue is full (a slow or dead collector), the batch is dropped
//! and counted. Each request may take [`REQUEST_TIMEOUT`]; at the end,
//! [`Exporter::shutdown`] closes the queues and waits for the threads until
//! a deadline, so a collector that never answers delays the end of a run by
//! about that much and no more (the threads are then left behind, and end
//! with the process).

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use super::config::{Config, Endpoint};
use super::otlp::{self, Metric, Resource, Span};

/// The longest one request may take (the whole shutdown is capped at
/// about the same).
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Batches that may wait for the thread.
const QUEUE_DEPTH: usize = 64;

/// One request to make.
#[derive(Debug)]
pub(crate) enum Job {
    Spans(Vec<Span>),
    Metrics(Vec<Metric>),
}

/// What the thread says when it ends.
#[derive(Debug, Default)]
struct Outcome {
    failed: u64,
    first_error: Option<String>,
}

/// The sending side: one lane (a queue and a thread) per signal, so that
/// the spans and the metrics sent at the end of a run travel together and
/// the run waits for the slower of the two, not for both in turn.
#[derive(Debug)]
pub(crate) struct Exporter {
    traces: Option<Lane>,
    metrics: Option<Lane>,
}

#[derive(Debug)]
struct Lane {
    queue: Option<SyncSender<Job>>,
    done: Receiver<Outcome>,
    dropped: u64,
}

impl Exporter {
    /// Starts the threads; `Err` with the reason when one cannot be started.
    pub(crate) fn start(config: &Config) -> std::io::Result<Self> {
        let agent = ureq::Agent::new_with_config(
            ureq::Agent::config_builder()
                .timeout_global(Some(REQUEST_TIMEOUT))
                .http_status_as_error(false)
                .user_agent(concat!("voyage-helper/", env!("CARGO_PKG_VERSION")))
                .build(),
        );
        let resource = Arc::new(Resource::new(&config.resource));
        let lane = |endpoint: &Option<Endpoint>, name: &str| -> std::io::Result<Option<Lane>> {
            let Some(endpoint) = endpoint.clone() else {
                return Ok(None);
            };
            let (queue, jobs) = mpsc::sync_channel::<Job>(QUEUE_DEPTH);
            let (report, done) = mpsc::channel();
            let worker = Worker {
                agent: agent.clone(),
                resource: Arc::clone(&resource),
                endpoint,
            };
            std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(move || {
                    let outcome = worker.run(&jobs);
                    let _ = report.send(outcome);
                })?;
            Ok(Some(Lane {
                queue: Some(queue),
                done,
                dropped: 0,
            }))
        };
        Ok(Self {
            traces: lane(&config.traces, "otlp-traces")?,
            metrics: lane(&config.metrics, "otlp-metrics")?,
        })
    }

    /// Whether spans, and metrics, are exported at all.
    pub(crate) fn wants(&self) -> (bool, bool) {
        (self.traces.is_some(), self.metrics.is_some())
    }

    /// Queues `job` on its lane, or drops it when that queue is full.
    pub(crate) fn send(&mut self, job: Job) {
        let lane = match job {
            Job::Spans(_) => self.traces.as_mut(),
            Job::Metrics(_) => self.metrics.as_mut(),
        };
        if let Some(lane) = lane
            && let Some(queue) = &lane.queue
        {
            match queue.try_send(job) {
                Ok(()) => {}
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => lane.dropped += 1,
            }
        }
    }

    /// Closes the queues and waits for what is queued to be sent, until
    /// `deadline`; a warning for the user when something was lost.
    pub(crate) fn shutdown(&mut self, deadline: Instant) -> Option<String> {
        // A thread ends once it has sent what its closed queue still holds.
        let mut lanes: Vec<&mut Lane> = [self.traces.as_mut(), self.metrics.as_mut()]
            .into_iter()
            .flatten()
            .collect();
        for lane in &mut lanes {
            lane.queue = None;
        }
        let (mut failed, mut first_error, mut dropped) = (0, None, 0);
        for lane in lanes {
            dropped += lane.dropped;
            let wait = deadline.saturating_duration_since(Instant::now());
            match lane.done.recv_timeout(wait) {
                Ok(outcome) => {
                    failed += outcome.failed;
                    first_error = first_error.or(outcome.first_error);
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Some(format!(
                        "the OpenTelemetry collector did not take the run's data within {} s; what was not sent is lost",
                        REQUEST_TIMEOUT.as_secs()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {}
            }
        }
        let mut lost = Vec::new();
        if failed > 0 {
            lost.push(format!(
                "{failed} export{} failed ({})",
                if failed == 1 { "" } else { "s" },
                first_error.unwrap_or_default()
            ));
        }
        if dropped > 0 {
            lost.push(format!(
                "{dropped} batch{} dropped while the collector was slow",
                if dropped == 1 { "" } else { "es" }
            ));
        }
        (!lost.is_empty()).then(|| format!("OpenTelemetry: {}", lost.join("; ")))
    }
}

struct Worker {
    agent: ureq::Agent,
    resource: Arc<Resource>,
    endpoint: Endpoint,
}

impl Worker {
    fn run(&self, jobs: &Receiver<Job>) -> Outcome {
        let mut outcome = Outcome::default();
        while let Ok(job) = jobs.recv() {
            let body = match &job {
                Job::Spans(spans) => otlp::traces_body(&self.resource, spans),
                Job::Metrics(metrics) => otlp::metrics_body(&self.resource, metrics),
            };
            if let Err(e) = self.post(&self.endpoint, &body) {
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
