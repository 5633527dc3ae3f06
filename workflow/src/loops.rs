//! `forEach:` and `repeat:` steps: the children run once per item.
//!
//! Sequential loops follow Executant exactly (spec §1.5): `step:iteration`
//! per item, `step:inner` before each child when there is more than one,
//! `step:iteration-complete` after; a child failing without its own
//! `continue_on_error` ends the loop, one with it becomes a warning.
//! `--from-step N.I.C` resumes at iteration I, child C.
//!
//! `concurrency: N` differs from Executant on purpose: iterations run on a
//! pool of N workers, each taking the next item as soon as it is free,
//! where Executant ran fixed batches of N (a slow item held up the next
//! batch). What stays the same: an iteration's children run in order; a
//! failed iteration does not stop those already running; afterwards the
//! loop fails with "forEach X had a failing iteration: …" unless the loop
//! step has `continue_on_error` (and once one has failed, no new iteration
//! starts). Resuming into a concurrent loop runs all its iterations, with a
//! warning.
//!
//! The children run through the runner's own step dispatch, handed in as a
//! [`RunChild`]: a loop holds steps of every kind, and taking the dispatch
//! as an argument keeps this module below the runner rather than beside it
//! in a cycle.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::code;
use super::event::{Event, IterationStatus, Level};
use super::model::{Items, LoopTask, Task};
use super::placeholder::fill_item;
use super::shell;
use super::step::{Context, Emit, Failure, StepError};

/// Most iterations a concurrent loop runs at once, whatever its
/// `concurrency:` (each is a thread, most of it waiting on a command).
pub(super) const MAX_WORKERS: usize = 256;

/// Runs one child step to its end (with the `--from-step` path within it):
/// the runner's `run_task`.
pub(super) type RunChild = fn(&Task, Option<&[u64]>, &Context, &dyn Emit) -> Result<(), StepError>;

/// Runs a loop step, its children through `run_child`.
pub(super) fn run(
    task: &LoopTask,
    resume: Option<&[u64]>,
    ctx: &Context,
    emit: &dyn Emit,
    run_child: RunChild,
) -> Result<(), StepError> {
    let items: Vec<String> = match &task.for_each {
        Items::List(list) => list.iter().filter(|i| !i.is_empty()).cloned().collect(),
        Items::Shell(command) => shell::shell_items(command, ctx)?,
    };
    let total = items.len();
    let start_iteration = resume.and_then(|r| r.first()).copied().unwrap_or(1);
    if total == 0 && start_iteration == 1 {
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "forEach resolved to 0 items in \"{}\" — this step will do nothing. Check the source command's own inputs.",
                task.name
            ),
        ));
    }
    match task.concurrency {
        Some(workers) if workers > 1 => {
            if resume.is_some_and(|r| !r.is_empty()) {
                emit.emit(Event::log(
                    Level::Warn,
                    format!(
                        "[from-step] \"{}\" runs with concurrency {workers} and cannot resume into a given iteration — running all {total} iterations from the start.",
                        task.name
                    ),
                ));
            }
            run_pool(task, &items, workers as usize, ctx, emit, run_child)
        }
        _ => run_in_order(task, &items, resume, ctx, emit, run_child),
    }
}

fn run_in_order(
    task: &LoopTask,
    items: &[String],
    resume: Option<&[u64]>,
    ctx: &Context,
    emit: &dyn Emit,
    run_child: RunChild,
) -> Result<(), StepError> {
    let total = count(items.len());
    let start_iteration = resume.and_then(|r| r.first()).copied().unwrap_or(1);
    if start_iteration > 1 && start_iteration > total {
        emit.emit(Event::log(
            Level::Warn,
            format!(
                "[from-step] No iterations to run: target iteration {start_iteration} exceeds total {total} in \"{}\"",
                task.name
            ),
        ));
        return Ok(());
    }
    for (i, item) in items.iter().enumerate() {
        let iteration = count(i) + 1;
        if iteration < start_iteration {
            continue;
        }
        ctx.check_stopped()?;
        // Only the first resumed iteration goes on down the path.
        let within = if iteration == start_iteration {
            resume.and_then(|r| r.get(1..))
        } else {
            None
        };
        let position = Position {
            iteration,
            total,
            concurrent: false,
        };
        run_iteration(task, item, position, within, ctx, emit, run_child)?;
    }
    Ok(())
}

fn run_pool(
    task: &LoopTask,
    items: &[String],
    workers: usize,
    ctx: &Context,
    emit: &dyn Emit,
    run_child: RunChild,
) -> Result<(), StepError> {
    if items.is_empty() {
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop_starting = AtomicBool::new(false);
    let cancelled = AtomicBool::new(false);
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let total = count(items.len());
    let worker = || {
        loop {
            if ctx.check_stopped().is_err() {
                cancelled.store(true, Ordering::SeqCst);
            }
            if stop_starting.load(Ordering::SeqCst) || cancelled.load(Ordering::SeqCst) {
                return;
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(item) = items.get(i) else {
                return;
            };
            let position = Position {
                iteration: count(i) + 1,
                total,
                concurrent: true,
            };
            match run_iteration(task, item, position, None, ctx, emit, run_child) {
                Ok(()) => {}
                Err(StepError::Cancelled) => {
                    cancelled.store(true, Ordering::SeqCst);
                    stop_starting.store(true, Ordering::SeqCst);
                }
                Err(StepError::Failed(failure)) => {
                    first_error
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(failure.message);
                    if !task.continue_on_error {
                        stop_starting.store(true, Ordering::SeqCst);
                    }
                }
            }
        }
    };
    let started = std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..workers.min(items.len()).min(MAX_WORKERS) {
            // A system out of threads runs the loop on those it got.
            if std::thread::Builder::new()
                .spawn_scoped(scope, worker)
                .is_ok()
            {
                started += 1;
            }
        }
        started
    });
    if started == 0 {
        return Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_NO_THREADS,
            format!(
                "forEach \"{}\": no worker thread could be started",
                task.name
            ),
        )));
    }
    if cancelled.load(Ordering::SeqCst) {
        return Err(StepError::Cancelled);
    }
    let first_error = first_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match first_error {
        Some(error) if !task.continue_on_error => {
            emit.emit(Event::log(
                Level::Warn,
                format!(
                    "[forEach] An iteration failed in \"{}\" — not starting the remaining iterations",
                    task.name
                ),
            ));
            // Wrapped, as in Executant: a timeout inside a concurrent loop
            // fails the loop (exit 1) rather than timing out the run.
            Err(StepError::Failed(Failure::failed(
                code::WORKFLOW_ITERATION_FAILED,
                format!("forEach \"{}\" had a failing iteration: {error}", task.name),
            )))
        }
        _ => Ok(()),
    }
}

/// Where an iteration stands, for its events and messages.
#[derive(Debug, Clone, Copy)]
struct Position {
    iteration: u64,
    total: u64,
    /// Run on the pool: messages then name the iteration, since other
    /// iterations' lines interleave with this one's.
    concurrent: bool,
}

/// One iteration: `step:iteration`, the children in order (from the
/// `--from-step` path `within` it, if any), `step:iteration-complete`. A
/// child failing without its own `continue_on_error` ends the iteration
/// with status `error` and is returned.
fn run_iteration(
    task: &LoopTask,
    item: &str,
    at: Position,
    within: Option<&[u64]>,
    ctx: &Context,
    emit: &dyn Emit,
    run_child: RunChild,
) -> Result<(), StepError> {
    let iteration = at.iteration;
    emit.emit(Event::StepIteration {
        index: -1,
        item: item.to_owned(),
        iteration,
        total: at.total,
    });
    let start_child = within.and_then(|w| w.first()).copied().unwrap_or(1);
    let inner_total = count(task.inner.len());
    let quiet = WithoutIterations(emit);
    for (j, child) in task.inner.iter().enumerate() {
        let child_number = count(j) + 1;
        if child_number < start_child {
            continue;
        }
        ctx.check_stopped()?;
        let child = with_item(child, item);
        if inner_total > 1 {
            emit.emit(Event::StepInner {
                index: -1,
                iteration,
                inner_index: count(j),
                inner_total,
                name: child.name().to_owned(),
            });
        }
        let child_resume = if child_number == start_child {
            within.and_then(|w| w.get(1..))
        } else {
            None
        };
        let failure = match run_child(&child, child_resume, ctx, &quiet) {
            Ok(()) => continue,
            Err(StepError::Cancelled) => return Err(StepError::Cancelled),
            Err(StepError::Failed(failure)) => failure,
        };
        let name = child.name();
        // Executant's wording, which differs between the two kinds of loop.
        let (text, stops) = match (child.continue_on_error(), at.concurrent) {
            (true, false) => (
                format!(
                    "[forEach] Step \"{name}\" failed (continuing): {}",
                    failure.message
                ),
                false,
            ),
            (true, true) => (
                format!(
                    "[forEach] Step \"{name}\" failed in iteration {iteration} (\"{item}\", continuing): {}",
                    failure.message
                ),
                false,
            ),
            (false, false) => (
                format!(
                    "[forEach] Step \"{name}\" failed — aborting remaining children and iterations"
                ),
                true,
            ),
            (false, true) => (
                format!(
                    "[forEach] Step \"{name}\" failed in iteration {iteration} (\"{item}\") — aborting the rest of this iteration"
                ),
                true,
            ),
        };
        emit.emit(Event::log(Level::Warn, text));
        if stops {
            emit.emit(Event::StepIterationComplete {
                index: -1,
                iteration,
                status: IterationStatus::Error,
                error: Some(failure.message.clone()),
            });
            return Err(StepError::Failed(failure));
        }
    }
    emit.emit(Event::StepIterationComplete {
        index: -1,
        iteration,
        status: IterationStatus::Complete,
        error: None,
    });
    Ok(())
}

/// Drops the iteration rows of a nested loop: they would land in this
/// loop's row with clashing numbers (Executant does the same).
struct WithoutIterations<'e>(&'e dyn Emit);

impl Emit for WithoutIterations<'_> {
    fn emit(&self, event: Event) {
        if !matches!(event, Event::StepIteration { .. } | Event::StepInner { .. }) {
            self.0.emit(event);
        }
    }
}

/// `task` with `{{item}}` filled in wherever Executant fills it: names,
/// commands, prompts, messages, allowed tools, and inside nested loops
/// (their shell source and children, which therefore see this item, not
/// their own — Executant's behaviour, kept for compatibility).
pub(super) fn with_item(task: &Task, item: &str) -> Task {
    let mut task = task.clone();
    fill_in_place(&mut task, item);
    task
}

fn fill_in_place(task: &mut Task, item: &str) {
    let fill = |s: &mut String| {
        if s.contains("{{item}}") {
            *s = fill_item(s, item);
        }
    };
    match task {
        Task::Command(t) => {
            fill(&mut t.name);
            fill(&mut t.command);
        }
        Task::Prompt(t) => {
            fill(&mut t.name);
            fill(&mut t.prompt);
            if let Some(tools) = t.allowed_tools.as_mut() {
                tools.iter_mut().for_each(fill);
            }
        }
        Task::Log(t) => {
            fill(&mut t.name);
            fill(&mut t.message);
        }
        Task::Loop(t) => {
            fill(&mut t.name);
            if let Items::Shell(command) = &mut t.for_each {
                fill(command);
            }
            for child in &mut t.inner {
                fill_in_place(child, item);
            }
        }
        // Rejected inside loops at load time.
        Task::Workflow(_) => {}
    }
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
