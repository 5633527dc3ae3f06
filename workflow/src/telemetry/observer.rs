//! The telemetry consumer: folds the run's events into one trace and five
//! metrics, the way the log file folds them into text.
//!
//! ```text
//! voyage.run                     the root: goal, step count, the report's totals
//! └─ <step name>                 per top-level step: index, type, provider, model, cost;
//!    │                           events: tool, healing, judge, exception
//!    └─ iteration N/M            per iteration of a top-level loop (or child of a
//!                                nested workflow)
//! ```
//!
//! The names are Executant's, with `voyage.` for its `executant.`; span
//! events carry `tool`; `phase`, `attempt`, `maxAttempts`, `exitCode`
//! (healing); `verdict`, `attempt`, `maxAttempts`, `feedback` (judge);
//! `exception.type`, `exception.message`.
//!
//! What is never recorded: a tool's input, and the lines of output (a
//! failed step's error message, which may quote its last lines, goes into
//! its exception event cut to [`MAX_ERROR_CHARS`]). Spans that are still
//! open when the run ends without closing them (a cancel, a fatal error, a
//! signal) end with `voyage.aborted = true` in [`Observer::shutdown`], which
//! every exit path of `workflow run` reaches.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::super::call::Call;
use super::super::consumers::Consumer;
use super::super::event::{ErrorInfo, Event, IterationStatus, RunReport};
use super::super::healing;
use super::super::model::{Task, Workflow};
use super::super::provider;
use super::export::{Exporter, Job, REQUEST_TIMEOUT};
use super::ids::{Ids, SpanId};
use super::metrics::{Instrument, Labels, Metrics};
use super::otlp::{self, Attr, Code, Span, SpanEvent, Status, set};
use super::trace::TraceIds;

/// Most characters of a failed step's error kept in its exception event.
pub(crate) const MAX_ERROR_CHARS: usize = 1_000;
/// Most characters of a loop item kept on its iteration's span.
const MAX_ITEM_CHARS: usize = 200;
/// Most characters of a judge's feedback kept on its event.
const MAX_FEEDBACK_CHARS: usize = 500;
/// Finished spans sent in one request at most.
const MAX_BATCH: usize = 256;
/// How long finished spans may wait for more before they are sent.
const BATCH_DELAY: Duration = Duration::from_secs(1);
/// The most the end of a run waits for the collector.
pub(crate) const SHUTDOWN_CAP: Duration = REQUEST_TIMEOUT;

/// A span not yet ended.
#[derive(Debug)]
struct Open {
    id: SpanId,
    parent: Option<SpanId>,
    name: String,
    start: u64,
    attributes: Vec<Attr>,
    events: Vec<SpanEvent>,
    /// An iteration that said it completed, when and how (see
    /// [`Observer::on_iteration_complete`]).
    closing: Option<(u64, Status)>,
}

/// The running top-level step.
#[derive(Debug)]
struct Step {
    span: Open,
    name: String,
    kind: &'static str,
    /// Who the cost of its agent calls is counted for.
    provider: String,
    cost: f64,
    started: Instant,
}

/// The consumer.
pub(crate) struct Observer {
    ids: TraceIds,
    generator: Ids,
    exporter: Exporter,
    /// The environment's provider (`VOYAGE_PROVIDER`, `EXECUTANT_PROVIDER`).
    default_provider: Option<String>,
    workflow: Option<Arc<Workflow>>,
    root: Option<Open>,
    step: Option<Step>,
    /// The open iterations of the running step, by number (a concurrent
    /// loop has several).
    iterations: BTreeMap<u64, Open>,
    total_cost: f64,
    /// The report stamped the root's totals (they are the report's).
    reported: bool,
    finished: Vec<Span>,
    spans_sent: Instant,
    metrics: Metrics,
    metrics_sent: Instant,
    metric_interval: Duration,
    shut: bool,
}

impl Observer {
    pub(crate) fn new(
        ids: TraceIds,
        generator: Ids,
        exporter: Exporter,
        metric_interval: Duration,
        default_provider: Option<String>,
    ) -> Self {
        Self {
            ids,
            generator,
            exporter,
            default_provider,
            workflow: None,
            root: None,
            step: None,
            iterations: BTreeMap::new(),
            total_cost: 0.0,
            reported: false,
            finished: Vec::new(),
            spans_sent: Instant::now(),
            metrics: Metrics::new(now()),
            metrics_sent: Instant::now(),
            metric_interval,
            shut: false,
        }
    }

    /// Ends whatever is open (marked aborted), sends what is left and
    /// waits for the collector, [`SHUTDOWN_CAP`] at most. Idempotent; the
    /// warning it returns (data lost) is for stderr.
    pub(crate) fn shutdown(&mut self) -> Option<String> {
        if self.shut {
            return None;
        }
        self.shut = true;
        let deadline = Instant::now() + SHUTDOWN_CAP;
        self.end_iterations(true);
        if let Some(step) = self.step.take() {
            let status = status(Code::Unset, String::new());
            self.end_step(step, status, true);
        }
        if let Some(mut root) = self.root.take() {
            self.stamp_total(&mut root);
            set(&mut root.attributes, "voyage.aborted", true);
            self.end(root, status(Code::Unset, String::new()));
        }
        self.send_spans();
        self.send_metrics();
        self.exporter.shutdown(deadline)
    }

    fn end(&mut self, open: Open, status: Status) {
        let end = now().max(open.start);
        self.end_at(open, end, status);
    }

    fn end_at(&mut self, open: Open, end: u64, status: Status) {
        self.finished.push(Span {
            trace_id: self.ids.trace.hex(),
            span_id: open.id.hex(),
            parent_span_id: open.parent.map(SpanId::hex).unwrap_or_default(),
            name: open.name,
            kind: Span::KIND,
            start_time_unix_nano: open.start,
            end_time_unix_nano: end,
            attributes: open.attributes,
            events: open.events,
            status,
        });
    }

    fn send_spans(&mut self) {
        self.spans_sent = Instant::now();
        if self.finished.is_empty() || !self.exporter.wants().0 {
            self.finished.clear();
            return;
        }
        let batch = std::mem::take(&mut self.finished);
        self.exporter.send(Job::Spans(batch));
    }

    fn send_metrics(&mut self) {
        self.metrics_sent = Instant::now();
        if self.metrics.is_empty() || !self.exporter.wants().1 {
            return;
        }
        self.exporter
            .send(Job::Metrics(self.metrics.snapshot(now())));
    }

    fn on_workflow_start(&mut self, workflow: &Arc<Workflow>) {
        if self.root.is_some() {
            return;
        }
        let attributes = vec![
            otlp::attr("voyage.goal", workflow.goal.as_str()),
            otlp::attr("voyage.workflow", workflow.source_path.as_str()),
            otlp::attr("voyage.step_count", count(workflow.tasks.len())),
        ];
        self.root = Some(Open {
            id: self.ids.root,
            parent: self.ids.parent,
            name: "voyage.run".to_owned(),
            start: now(),
            attributes,
            events: Vec::new(),
            closing: None,
        });
        self.workflow = Some(Arc::clone(workflow));
    }

    /// A top-level step's span, opened (and its attributes).
    fn open_step(&self, index: i64, name: &str) -> (Open, &'static str, String) {
        let task = self
            .workflow
            .as_ref()
            .and_then(|w| usize::try_from(index).ok().and_then(|i| w.tasks.get(i)));
        let mut attributes = vec![
            otlp::attr("voyage.step.index", index),
            otlp::attr("voyage.step.name", name),
        ];
        let kind = task.map_or("unknown", kind_of);
        attributes.push(otlp::attr("voyage.step.type", kind));
        let provider = match task {
            Some(Task::Prompt(prompt)) => {
                let provider = provider::requested(prompt, self.default_provider.as_deref());
                attributes.push(otlp::attr("voyage.provider", provider.as_str()));
                if let Some(model) = Call::for_step(prompt, "").model {
                    attributes.push(otlp::attr("voyage.model", model));
                }
                provider
            }
            // A command step's agent calls are self-healing's.
            Some(Task::Command(_)) => healing::FIXER.name().to_owned(),
            _ => self
                .default_provider
                .clone()
                .unwrap_or_else(|| "claude".to_owned()),
        };
        let span = Open {
            id: self.ids.step(index),
            parent: Some(self.ids.root),
            name: name.to_owned(),
            start: now(),
            attributes,
            events: Vec::new(),
            closing: None,
        };
        (span, kind, provider)
    }

    fn on_step_start(&mut self, index: i64, name: &str) {
        if self.root.is_none() {
            return;
        }
        self.end_iterations(true);
        if let Some(stale) = self.step.take() {
            self.end_step(stale, status(Code::Unset, String::new()), true);
        }
        let (span, kind, provider) = self.open_step(index, name);
        self.step = Some(Step {
            span,
            name: name.to_owned(),
            kind,
            provider,
            cost: 0.0,
            started: Instant::now(),
        });
    }

    fn on_step_skip(&mut self, index: i64, name: &str) {
        if self.root.is_none() {
            return;
        }
        let (mut span, _, _) = self.open_step(index, name);
        set(&mut span.attributes, "voyage.step.skipped", true);
        self.end(span, status(Code::Unset, String::new()));
    }

    /// Ends the running step: the metrics, its cost, its span.
    fn end_step(&mut self, mut step: Step, status: Status, aborted: bool) {
        self.end_iterations(aborted);
        set(&mut step.span.attributes, "voyage.cost.usd", step.cost);
        if aborted {
            set(&mut step.span.attributes, "voyage.aborted", true);
        }
        self.end(step.span, status);
    }

    fn on_step_complete(&mut self, duration_ms: u64) {
        let Some(step) = self.step.take() else {
            return;
        };
        self.metrics.record(
            Instrument::StepDuration,
            step_labels(&step, Some("complete")),
            duration_ms as f64,
        );
        self.end_step(step, status(Code::Ok, String::new()), false);
    }

    fn on_step_error(&mut self, error: &ErrorInfo) {
        let Some(mut step) = self.step.take() else {
            return;
        };
        let millis = step.started.elapsed().as_secs_f64() * 1000.0;
        self.metrics.record(
            Instrument::StepDuration,
            step_labels(&step, Some("error")),
            millis,
        );
        self.metrics
            .record(Instrument::StepErrors, step_labels(&step, None), 1.0);
        let message = cut(&error.message, MAX_ERROR_CHARS);
        step.span.events.push(SpanEvent {
            time_unix_nano: now(),
            name: "exception".to_owned(),
            attributes: vec![
                otlp::attr("exception.type", error.name.as_str()),
                otlp::attr("exception.message", message.as_str()),
            ],
        });
        set(
            &mut step.span.attributes,
            "voyage.error.code",
            error.code.as_str(),
        );
        self.end_step(step, status(Code::Error, message), false);
    }

    fn on_iteration(&mut self, iteration: u64, total: u64, item: &str) {
        let Some(step) = &self.step else {
            return;
        };
        let parent = step.span.id;
        // The iterations that said they completed are over now.
        let closed: Vec<u64> = self
            .iterations
            .iter()
            .filter(|(n, open)| open.closing.is_some() || **n == iteration)
            .map(|(n, _)| *n)
            .collect();
        for n in closed {
            if let Some(open) = self.iterations.remove(&n) {
                self.end_iteration(open, false);
            }
        }
        let open = Open {
            id: self.generator.span(),
            parent: Some(parent),
            name: format!("iteration {iteration}/{total}"),
            start: now(),
            attributes: vec![
                otlp::attr("voyage.iteration", iteration),
                otlp::attr("voyage.iteration.total", total),
                otlp::attr("voyage.item", cut(item, MAX_ITEM_CHARS)),
            ],
            events: Vec::new(),
            closing: None,
        };
        self.iterations.insert(iteration, open);
    }

    /// An iteration says it completed. The span ends then, unless the same
    /// number completes again before the next iteration starts or the step
    /// ends: a loop inside the iteration reports its own iterations'
    /// endings with the same numbers, and the outer one, the iteration's
    /// own, always comes last.
    fn on_iteration_complete(&mut self, iteration: u64, ok: bool, error: Option<&str>) {
        let Some(open) = self.iterations.get_mut(&iteration) else {
            return;
        };
        let status = if ok {
            status(Code::Ok, String::new())
        } else {
            status(Code::Error, cut(error.unwrap_or("failed"), MAX_ERROR_CHARS))
        };
        open.closing = Some((now(), status));
    }

    /// Ends an iteration: when it said it completed, as it said; else now,
    /// marked aborted if the run was cut short.
    fn end_iteration(&mut self, mut open: Open, aborted: bool) {
        match open.closing.take() {
            Some((end, status)) => self.end_at(open, end, status),
            None => {
                if aborted {
                    set(&mut open.attributes, "voyage.aborted", true);
                }
                self.end(open, status(Code::Unset, String::new()));
            }
        }
    }

    /// Ends every open iteration (with its step, or at the end of the run).
    fn end_iterations(&mut self, aborted: bool) {
        for (_, open) in std::mem::take(&mut self.iterations) {
            self.end_iteration(open, aborted);
        }
    }

    /// The span a step's event goes on: the step's, else the root's.
    fn current(&mut self) -> Option<&mut Open> {
        match &mut self.step {
            Some(step) => Some(&mut step.span),
            None => self.root.as_mut(),
        }
    }

    fn add_event(&mut self, name: &str, attributes: Vec<Attr>) {
        if let Some(span) = self.current() {
            span.events.push(SpanEvent {
                time_unix_nano: now(),
                name: name.to_owned(),
                attributes,
            });
        }
    }

    fn on_cost(&mut self, usd: f64) {
        let provider = match &mut self.step {
            Some(step) => {
                step.cost += usd;
                step.provider.clone()
            }
            None => self
                .default_provider
                .clone()
                .unwrap_or_else(|| "claude".to_owned()),
        };
        self.total_cost += usd;
        self.metrics
            .record(Instrument::CostUsd, vec![("provider", provider)], usd);
    }

    fn on_report(&mut self, report: &RunReport) {
        let Some(root) = &mut self.root else {
            return;
        };
        let t = &report.total_tokens;
        let attrs = &mut root.attributes;
        set(attrs, "voyage.duration_ms", report.duration_ms);
        set(attrs, "voyage.cost.total.usd", report.total_cost_usd);
        set(attrs, "voyage.tokens.input", t.input_tokens);
        set(attrs, "voyage.tokens.output", t.output_tokens);
        set(
            attrs,
            "voyage.tokens.cache_creation",
            t.cache_creation_tokens,
        );
        set(attrs, "voyage.tokens.cache_read", t.cache_read_tokens);
        set(attrs, "voyage.tokens.total", t.total());
        set(attrs, "voyage.overflow.tokens", report.overflow_tokens);
        set(attrs, "voyage.overflow.calls", report.overflow_calls);
        self.reported = true;
    }

    /// Puts the run's cost on the root, unless the report already did.
    fn stamp_total(&self, root: &mut Open) {
        if !self.reported {
            set(
                &mut root.attributes,
                "voyage.cost.total.usd",
                self.total_cost,
            );
        }
    }

    /// The run ended by itself: complete, cancelled, or failed.
    fn end_run(&mut self, code: Code, message: String, mark: Option<&str>) {
        // A cancel stops the running step where it was: aborted.
        self.end_iterations(true);
        if let Some(step) = self.step.take() {
            self.end_step(step, status(Code::Unset, String::new()), true);
        }
        if let Some(mut root) = self.root.take() {
            self.stamp_total(&mut root);
            if let Some(mark) = mark {
                set(&mut root.attributes, mark, true);
            }
            self.end(root, status(code, message));
        }
        self.send_spans();
    }
}

impl Consumer for Observer {
    fn observe(&mut self, event: &Event) {
        if self.shut {
            return;
        }
        match event {
            // The lines of output are never recorded: the most common
            // event costs nothing here.
            Event::OutputText { .. } => {}
            Event::WorkflowStart { workflow } => self.on_workflow_start(workflow),
            Event::StepStart { index, name } => self.on_step_start(*index, name),
            Event::StepSkip { index, name } => self.on_step_skip(*index, name),
            Event::StepComplete { duration_ms, .. } => self.on_step_complete(*duration_ms),
            Event::StepError { error, .. } => self.on_step_error(error),
            Event::StepIteration {
                iteration,
                total,
                item,
                ..
            } => self.on_iteration(*iteration, *total, item),
            Event::StepIterationComplete {
                iteration,
                status,
                error,
                ..
            } => self.on_iteration_complete(
                *iteration,
                *status == IterationStatus::Complete,
                error.as_deref(),
            ),
            // The tool's name only: its input may hold anything.
            Event::OutputTool { tool, .. } => {
                self.add_event("tool", vec![otlp::attr("tool", tool.as_str())]);
            }
            Event::StepHealing {
                phase,
                attempt,
                max_attempts,
                exit_code,
                ..
            } => {
                let mut attributes = vec![
                    otlp::attr("phase", phase.as_str()),
                    otlp::attr("attempt", *attempt),
                    otlp::attr("maxAttempts", *max_attempts),
                ];
                if let Some(code) = exit_code {
                    attributes.push(otlp::attr("exitCode", *code));
                }
                self.add_event("healing", attributes);
                // The loop's last phase says how many runs its outcome took.
                if phase != "attempt-failed" {
                    self.metrics.record(
                        Instrument::HealingAttempts,
                        vec![("outcome", phase.clone())],
                        f64::from(*attempt),
                    );
                }
            }
            Event::StepJudge {
                verdict,
                attempt,
                max_attempts,
                feedback,
                ..
            } => {
                let mut attributes = vec![
                    otlp::attr("verdict", verdict.as_str()),
                    otlp::attr("attempt", *attempt),
                    otlp::attr("maxAttempts", *max_attempts),
                ];
                if let Some(feedback) = feedback.as_deref().filter(|f| !f.is_empty()) {
                    attributes.push(otlp::attr("feedback", cut(feedback, MAX_FEEDBACK_CHARS)));
                }
                self.add_event("judge", attributes);
                self.metrics.record(
                    Instrument::JudgeVerdicts,
                    vec![("verdict", verdict.clone())],
                    1.0,
                );
            }
            Event::OutputCost { usd, .. } => self.on_cost(*usd),
            Event::WorkflowReport { report } => self.on_report(report),
            Event::WorkflowComplete { .. } => self.end_run(Code::Ok, String::new(), None),
            Event::WorkflowCancelled { .. } => {
                self.end_run(Code::Unset, String::new(), Some("voyage.cancelled"));
            }
            _ => {}
        }
    }

    fn flush(&mut self) {
        if self.shut {
            return;
        }
        if self.finished.len() >= MAX_BATCH
            || (!self.finished.is_empty() && self.spans_sent.elapsed() >= BATCH_DELAY)
        {
            self.send_spans();
        }
        if self.metrics_sent.elapsed() >= self.metric_interval {
            self.send_metrics();
        }
    }

    fn failed(&mut self, failure: &str, _duration_ms: u64) {
        if !self.shut {
            self.end_run(Code::Error, cut(failure, MAX_ERROR_CHARS), None);
        }
    }

    fn finish(&mut self) {
        if let Some(warning) = self.shutdown() {
            crate::problem::eprint_all(&[crate::problem::Problem::warning(
                super::super::code::WORKFLOW_TELEMETRY,
                warning,
            )]);
        }
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        // Every exit path calls `finish`; this is for one that forgot.
        let _ = self.shutdown();
    }
}

fn status(code: Code, message: String) -> Status {
    Status { message, code }
}

/// The metric labels of a step (and its ending, for durations).
fn step_labels(step: &Step, ending: Option<&str>) -> Labels {
    let mut labels = vec![
        ("step_name", step.name.clone()),
        ("step_type", step.kind.to_owned()),
    ];
    if let Some(ending) = ending {
        labels.push(("status", ending.to_owned()));
    }
    labels
}

/// A step's type, as the `workflow:start` event names it.
fn kind_of(task: &Task) -> &'static str {
    match task {
        Task::Command(_) => "command",
        Task::Prompt(_) => "claude",
        Task::Log(_) => "log",
        Task::Loop(_) => "forEach",
        Task::Workflow(_) => "workflow",
    }
}

/// At most `max` characters of `text`, the last one `…` when it was cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{keep}…")
        }
    }
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Now, in nanoseconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_at_most_max_characters() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("exactly10!", 10), "exactly10!");
        let long = "é".repeat(1500);
        let kept = cut(&long, MAX_ERROR_CHARS);
        assert_eq!(kept.chars().count(), MAX_ERROR_CHARS);
        assert!(kept.ends_with('…'));
    }
}
