//! Running a resolved workflow: the producer of the event stream.
//!
//! The runner knows nothing of its consumers: it hands every [`Event`] to an
//! [`Emit`] (in `workflow run`, the sending end of a channel whose receiver
//! tees events to the NDJSON writer, the log file and the live view). Nor
//! does it know the agents: a prompt step goes to [`prompt`], which hands
//! it to a [`Provider`](super::provider::Provider). It
//! runs on a thread of its own, and a loop's `concurrency` runs iterations
//! on a pool of threads, so it is asynchronous without an async runtime:
//! every wait is a blocking `poll` on a command's pipe, which is cheaper to
//! start and simpler to reason about than a scheduler.
//!
//! Order of a run (Executant's, spec §2.2): `workflow:start`; per top-level
//! step a cancel check (the cancel file, or a stopping signal), then
//! `step:skip`, or `step:start` → the step's events → `step:complete` or
//! `step:error`; on success `workflow:report` then `workflow:complete`.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::event::{Event, IterationStatus, RunReport, StepSummary, TokenUsage};
use super::filter::Filter;
use super::model::{Task, Workflow};
use super::step::{Context, Emit, Finish, StepError};
use super::{loops, nested, prompt, retrospective, script, suggestion};

/// Lines of a step's output kept for `lastOutput`.
pub(super) const LAST_OUTPUT_LINES: usize = 100;
/// Context size above which a call is billed at the extended rate.
const OVERFLOW_THRESHOLD: u64 = 200_000;

/// Options that differ between the top-level run and nested ones.
#[derive(Debug, Clone, Default)]
pub(super) struct RunOptions {
    pub filter: Filter,
    /// Emit `workflow:report` before `workflow:complete` (top level only).
    pub report: bool,
    /// Analyse a fatal step failure (top level only; see [`retrospective`]).
    pub retrospective: bool,
}

/// Runs `workflow`, emitting its events, and says how it ended.
pub(super) fn run(
    workflow: &Arc<Workflow>,
    options: &RunOptions,
    ctx: &Context,
    emit: &dyn Emit,
) -> Finish {
    let start = Instant::now();
    emit.emit(Event::WorkflowStart {
        workflow: Arc::clone(workflow),
    });
    if ctx.settings.guard_hook.is_none() {
        emit.emit(Event::log(super::event::Level::Warn, GUARD_OFF));
    }
    let mut last_output = None;
    let mut cost = 0.0;
    let mut usages: Vec<TokenUsage> = Vec::new();
    let mut narrative = Vec::new();
    for (i, task) in workflow.tasks.iter().enumerate() {
        if ctx.cancel_requested() {
            emit.emit(Event::WorkflowCancelled {
                workflow: Arc::clone(workflow),
                duration_ms: millis(start),
            });
            return Finish::Cancelled;
        }
        let index = i64::try_from(i).unwrap_or(i64::MAX);
        let number = u64::try_from(i).unwrap_or(u64::MAX).saturating_add(1);
        let name = task.name().to_owned();
        if options.filter.skips(number, &name) {
            emit.emit(Event::StepSkip { index, name });
            continue;
        }
        let step_start = Instant::now();
        // While telemetry is on, the processes of this step carry its span.
        let _traced = ctx.trace.as_ref().map(|trace| trace.enter(index));
        emit.emit(Event::StepStart {
            index,
            name: name.clone(),
        });
        let recorder = StepRecorder::new(index, emit);
        let result = run_task(task, options.filter.resume_within(number), ctx, &recorder);
        let record = recorder.finish();
        cost += record.cost;
        usages.extend(record.usages.iter().copied());
        last_output = record.last_output();
        match result {
            Ok(()) => {
                emit.emit(Event::StepComplete {
                    index,
                    name: name.clone(),
                    duration_ms: millis(step_start),
                });
                narrative.push(StepSummary {
                    name,
                    duration_ms: millis(step_start),
                    cost_usd: record.cost,
                    quality_events: record.quality,
                    failed: false,
                });
            }
            Err(StepError::Cancelled) => {
                emit.emit(Event::WorkflowCancelled {
                    workflow: Arc::clone(workflow),
                    duration_ms: millis(start),
                });
                return Finish::Cancelled;
            }
            Err(StepError::Failed(failure)) => {
                emit.emit(Event::StepError {
                    index,
                    name: name.clone(),
                    error: failure.info(),
                    last_output: last_output.clone(),
                });
                if !task.continue_on_error() {
                    if options.retrospective {
                        let position = record.position();
                        let failed = retrospective::Failed {
                            workflow,
                            task,
                            index,
                            failure: &failure,
                            last_output: last_output.as_deref(),
                            quality: &record.quality,
                            position: position.as_deref(),
                        };
                        retrospective::run(&failed, ctx, emit);
                    }
                    return Finish::Failed(failure);
                }
                let mut quality = record.quality;
                quality.push(format!("step failed: {}", failure.message));
                narrative.push(StepSummary {
                    name,
                    duration_ms: millis(step_start),
                    cost_usd: record.cost,
                    quality_events: quality,
                    failed: true,
                });
            }
        }
    }
    if options.report {
        let mut report = build_report(millis(start), cost, &usages, narrative);
        if ctx.settings.guard_hook.is_none() {
            report.guard = Some("off".to_owned());
        }
        if ctx.settings.report_suggestion {
            report.suggestion = suggestion::suggest(workflow, &report, ctx, emit);
        }
        emit.emit(Event::WorkflowReport { report });
    }
    emit.emit(Event::WorkflowComplete {
        workflow: Arc::clone(workflow),
        duration_ms: millis(start),
        last_output,
    });
    Finish::Complete
}

/// Runs one step (top-level, or a loop's child) to its end.
pub(super) fn run_task(
    task: &Task,
    resume: Option<&[u64]>,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<(), StepError> {
    match task {
        Task::Log(log) => {
            emit.emit(Event::text(log.message.clone()));
            Ok(())
        }
        Task::Command(command) => script::run(command, ctx, emit),
        Task::Prompt(step) => prompt::run(step, ctx, emit),
        // A loop's children and a nested workflow's steps run through this
        // same runner, handed down, so that neither module depends on it.
        Task::Loop(each) => loops::run(each, resume, ctx, emit, run_task),
        Task::Workflow(step) => nested::run(step, resume, emit, |child, mapper| {
            let options = RunOptions {
                report: false,
                ..RunOptions::default()
            };
            run(child, &options, ctx, mapper)
        }),
    }
}

/// The run report: free figures summed from what the steps reported.
fn build_report(
    duration_ms: u64,
    cost: f64,
    usages: &[TokenUsage],
    narrative: Vec<StepSummary>,
) -> RunReport {
    let mut total = TokenUsage::default();
    let (mut overflow_tokens, mut overflow_calls) = (0, 0);
    for usage in usages {
        total.add(usage);
        // Billed per call, not per session: only a call whose own context
        // crossed the line counts, and only by how much.
        if let Some(over) = usage
            .context()
            .checked_sub(OVERFLOW_THRESHOLD)
            .filter(|o| *o > 0)
        {
            overflow_tokens += over;
            overflow_calls += 1;
        }
    }
    RunReport {
        duration_ms,
        total_cost_usd: cost,
        total_tokens: total,
        overflow_tokens,
        overflow_calls,
        step_narrative: narrative,
        suggestion: None,
        guard: None,
    }
}

/// What a run with the guard off says first.
const GUARD_OFF: &str = "the guard is off (VOYAGE_WORKFLOW_GUARD=off): agents' tool calls are not judged by Voyage's hook";

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Stands between one top-level step and the run's [`Emit`]: puts the
/// step's index on its events and keeps what the run needs afterwards (the
/// last lines, cost, usage, quality history). Shared by a loop's threads.
struct StepRecorder<'e> {
    index: i64,
    parent: &'e dyn Emit,
    record: Mutex<StepRecord>,
}

#[derive(Debug, Default)]
struct StepRecord {
    lines: VecDeque<String>,
    cost: f64,
    usages: Vec<TokenUsage>,
    quality: Vec<String>,
    /// The iterations of a loop (or the child steps of a nested workflow)
    /// seen so far, by number, for the loop position of a failure.
    iterations: BTreeMap<u64, Position>,
    /// The first iteration that ended in an error, else the last started.
    failed_iteration: Option<u64>,
    last_iteration: Option<u64>,
}

/// Where in its loop a step was: the iteration and its item, and the
/// child step running in it when the iteration has several.
#[derive(Debug, Clone)]
struct Position {
    item: String,
    iteration: u64,
    total: u64,
    /// 1-based number, count and name of the child step.
    inner: Option<(u64, u64, String)>,
}

impl Position {
    fn words(&self) -> String {
        let mut said = format!(
            "iteration {} of {} (item \"{}\")",
            self.iteration, self.total, self.item
        );
        if let Some((number, total, name)) = &self.inner {
            said.push_str(&format!(", at its step {number} of {total} \"{name}\""));
        }
        said
    }
}

impl StepRecord {
    /// The loop position of the failure, in words: the first iteration
    /// that failed, else the last one that started; `None` outside loops.
    fn position(&self) -> Option<String> {
        let iteration = self.failed_iteration.or(self.last_iteration)?;
        self.iterations.get(&iteration).map(Position::words)
    }

    fn last_output(&self) -> Option<String> {
        if self.lines.is_empty() {
            return None;
        }
        let joined = self
            .lines
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n");
        Some(joined)
    }
}

impl<'e> StepRecorder<'e> {
    fn new(index: i64, parent: &'e dyn Emit) -> Self {
        Self {
            index,
            parent,
            record: Mutex::new(StepRecord::default()),
        }
    }

    fn finish(self) -> StepRecord {
        self.record
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Emit for StepRecorder<'_> {
    fn emit(&self, mut event: Event) {
        event.patch_index(self.index);
        {
            let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
            match &event {
                Event::OutputText { text, .. } => {
                    if record.lines.len() >= LAST_OUTPUT_LINES {
                        record.lines.pop_front();
                    }
                    record.lines.push_back(text.clone());
                }
                Event::OutputCost { usd, .. } => record.cost += usd,
                Event::OutputUsage { usage, .. } => record.usages.push(*usage),
                Event::StepIteration {
                    item,
                    iteration,
                    total,
                    ..
                } => {
                    record.last_iteration = Some(*iteration);
                    record.iterations.insert(
                        *iteration,
                        Position {
                            item: item.clone(),
                            iteration: *iteration,
                            total: *total,
                            inner: None,
                        },
                    );
                }
                Event::StepInner {
                    iteration,
                    inner_index,
                    inner_total,
                    name,
                    ..
                } => {
                    if let Some(position) = record.iterations.get_mut(iteration) {
                        position.inner =
                            Some((inner_index.saturating_add(1), *inner_total, name.clone()));
                    }
                }
                Event::StepIterationComplete {
                    iteration,
                    status: IterationStatus::Error,
                    ..
                } => {
                    record.failed_iteration.get_or_insert(*iteration);
                }
                Event::StepJudge { .. } | Event::StepDenied { .. } => {
                    if let Some((kind, said)) = event.quality_words() {
                        record.quality.push(format!("{kind} {said}"));
                    }
                }
                Event::StepHealing {
                    phase,
                    attempt,
                    max_attempts,
                    exit_code,
                    ..
                } => {
                    let exit = exit_code
                        .map(|c| format!(" (exit {c})"))
                        .unwrap_or_default();
                    record.quality.push(format!(
                        "self-healing attempt {attempt}/{max_attempts}: {phase}{exit}"
                    ));
                }
                _ => {}
            }
        }
        self.parent.emit(event);
    }
}
