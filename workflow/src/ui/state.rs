//! What the screen shows, as a pure reducer of the run's events
//! (Executant's `src/ui/reducer.ts`): [`State::apply`] folds one event in,
//! given the time it arrived (milliseconds since the view started), and
//! nothing else; no I/O, no clock, so every event kind is unit-tested here.
//!
//! - the step list: every top-level step, pending until it starts, then
//!   running, done, failed or skipped, with its duration;
//! - a loop's (or a nested workflow's) iterations, with the child step each
//!   is at, kept for the running step (the last [`KEPT_ITERATIONS`] of
//!   them, with a count of the earlier ones);
//! - the running step's output in a bounded [`Ring`], with its healing,
//!   judge and log lines and the user's interjections;
//! - the latest context occupancy, paired with the model of the step that
//!   reported it (a session's turns re-measure one conversation, so each
//!   replaces the last), cleared when a prompt step starts;
//! - the run's report, the retrospective of a fatal failure, and how the
//!   run ended.

use std::sync::Arc;

use super::super::event::{Event, IterationStatus, Level, RunReport, quality_mark, tool_argument};
use super::super::model::{Task, Workflow};
use super::ring::Ring;

/// Iteration records kept for a loop step (the screen shows fewer).
pub(super) const KEPT_ITERATIONS: usize = 32;
/// Warnings kept for the summary after the view (the log file has all).
const KEPT_WARNINGS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Status {
    Pending,
    /// Since this many milliseconds after the view started.
    Running {
        since_ms: u64,
    },
    Done {
        duration_ms: u64,
    },
    Failed {
        duration_ms: u64,
        message: String,
    },
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct StepRow {
    pub name: String,
    pub status: Status,
    /// The model of the step's agent session, when it runs one (a prompt
    /// step, or the first prompt step inside a loop or nested workflow).
    pub model: Option<String>,
    /// Whether the step itself is a prompt step (its start clears the
    /// context gauge).
    pub prompt: bool,
    pub cost_usd: f64,
    pub iterations: Vec<Iteration>,
    /// Iteration records dropped to keep [`KEPT_ITERATIONS`].
    pub earlier: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Iteration {
    pub iteration: u64,
    pub total: u64,
    pub item: String,
    /// 1-based number, count and name of the child step it is at.
    pub inner: Option<(u64, u64, String)>,
    pub status: IterStatus,
    pub since_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum IterStatus {
    Running,
    Done { duration_ms: u64 },
    Failed { duration_ms: u64 },
}

/// The latest `output:context`, with the model that sizes its window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Occupancy {
    pub tokens: u64,
    pub model: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Outcome {
    Complete { duration_ms: u64 },
    Cancelled { duration_ms: u64 },
    Failed { message: String, duration_ms: u64 },
}

#[derive(Debug, Clone, Default)]
pub(super) struct State {
    pub goal: String,
    pub workflow: Option<Arc<Workflow>>,
    pub steps: Vec<StepRow>,
    /// The running step, else the last one that ran.
    pub current: Option<usize>,
    /// Bumped at each `step:start`: the pane goes back to its tail then.
    pub step_starts: u64,
    /// The output of [`State::current`].
    pub output: Ring,
    pub context: Option<Occupancy>,
    pub cost_usd: f64,
    pub report: Option<RunReport>,
    /// The failed step's index and its analysis.
    pub retrospective: Option<(usize, serde_json::Value)>,
    pub outcome: Option<Outcome>,
    /// Warnings and errors the run logged, for the summary after the view.
    pub warnings: Vec<String>,
}

/// The model of the agent session `task` runs, if any.
fn model_of(task: &Task) -> Option<String> {
    match task {
        Task::Prompt(p) => Some(p.model.clone()),
        Task::Loop(l) => l.inner.iter().find_map(model_of),
        Task::Workflow(w) => w
            .workflow
            .as_ref()
            .and_then(|child| child.tasks.iter().find_map(model_of)),
        Task::Command(_) | Task::Log(_) => None,
    }
}

impl StepRow {
    fn new(task: &Task) -> Self {
        Self {
            name: task.name().to_owned(),
            status: Status::Pending,
            model: model_of(task),
            prompt: matches!(task, Task::Prompt(_)),
            cost_usd: 0.0,
            iterations: Vec::new(),
            earlier: 0,
        }
    }

    fn iteration_mut(&mut self, number: u64) -> Option<&mut Iteration> {
        self.iterations
            .iter_mut()
            .rev()
            .find(|i| i.iteration == number)
    }

    /// The step ended: iterations still running end with it.
    fn finish_iterations(&mut self, now_ms: u64, failed: bool) {
        for record in &mut self.iterations {
            if record.status == IterStatus::Running {
                let duration_ms = now_ms.saturating_sub(record.since_ms);
                record.status = if failed {
                    IterStatus::Failed { duration_ms }
                } else {
                    IterStatus::Done { duration_ms }
                };
            }
        }
    }
}

impl State {
    /// The row of an event's step index, when it names one.
    fn row_mut(&mut self, index: i64) -> Option<&mut StepRow> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.steps.get_mut(i))
    }

    /// The output lines of `text` (an agent's text may hold several).
    fn push_text(&mut self, text: &str) {
        if text.contains('\n') {
            text.lines().for_each(|line| self.output.push(line));
        } else {
            self.output.push(text);
        }
    }

    /// The user's interjection, shown where the output goes (Executant's
    /// `step:interjection`, which never reaches the event stream).
    pub(super) fn interjection(&mut self, message: &str) {
        self.output.push(&format!("[interjection] {message}"));
    }

    /// The run stopped on a failed step (no `workflow:complete` comes).
    pub(super) fn failed(&mut self, message: &str, duration_ms: u64) {
        self.outcome = Some(Outcome::Failed {
            message: message.to_owned(),
            duration_ms,
        });
    }

    /// The model of the running step (the gauge's fallback before usage).
    pub(super) fn running_model(&self) -> Option<&str> {
        let row = self.steps.get(self.current?)?;
        match row.status {
            Status::Running { .. } => row.model.as_deref(),
            _ => None,
        }
    }

    pub(super) fn apply(&mut self, event: &Event, now_ms: u64) {
        match event {
            Event::WorkflowStart { workflow } => {
                self.goal.clone_from(&workflow.goal);
                self.steps = workflow.tasks.iter().map(StepRow::new).collect();
                self.workflow = Some(Arc::clone(workflow));
            }
            Event::StepStart { index, .. } => {
                let Some(i) = usize::try_from(*index)
                    .ok()
                    .filter(|i| *i < self.steps.len())
                else {
                    return;
                };
                self.current = Some(i);
                self.step_starts = self.step_starts.wrapping_add(1);
                self.output.clear();
                if let Some(row) = self.steps.get_mut(i) {
                    row.status = Status::Running { since_ms: now_ms };
                    row.iterations.clear();
                    row.earlier = 0;
                    if row.prompt {
                        self.context = None;
                    }
                }
            }
            Event::StepComplete {
                index, duration_ms, ..
            } => {
                if let Some(row) = self.row_mut(*index) {
                    row.status = Status::Done {
                        duration_ms: *duration_ms,
                    };
                    row.finish_iterations(now_ms, false);
                }
            }
            Event::StepError { index, error, .. } => {
                if usize::try_from(*index).ok() == self.current {
                    // Why it failed, under what it printed.
                    self.output.push(&format!("✗ {}", error.message));
                }
                if let Some(row) = self.row_mut(*index) {
                    let since = match row.status {
                        Status::Running { since_ms } => since_ms,
                        _ => now_ms,
                    };
                    row.status = Status::Failed {
                        duration_ms: now_ms.saturating_sub(since),
                        message: error.message.clone(),
                    };
                    row.finish_iterations(now_ms, true);
                }
            }
            Event::StepSkip { index, .. } => {
                if let Some(row) = self.row_mut(*index) {
                    row.status = Status::Skipped;
                }
            }
            Event::StepIteration {
                index,
                item,
                iteration,
                total,
            } => {
                if let Some(row) = self.row_mut(*index) {
                    if row.iterations.len() >= KEPT_ITERATIONS {
                        // The oldest finished record goes; with every kept
                        // one still running (a wide pool), the oldest.
                        let drop = row
                            .iterations
                            .iter()
                            .position(|i| i.status != IterStatus::Running)
                            .unwrap_or(0);
                        row.iterations.remove(drop);
                        row.earlier = row.earlier.saturating_add(1);
                    }
                    row.iterations.push(Iteration {
                        iteration: *iteration,
                        total: *total,
                        item: item.clone(),
                        inner: None,
                        status: IterStatus::Running,
                        since_ms: now_ms,
                    });
                }
            }
            Event::StepInner {
                index,
                iteration,
                inner_index,
                inner_total,
                name,
            } => {
                if let Some(record) = self
                    .row_mut(*index)
                    .and_then(|row| row.iteration_mut(*iteration))
                {
                    record.inner =
                        Some((inner_index.saturating_add(1), *inner_total, name.clone()));
                }
            }
            Event::StepIterationComplete {
                index,
                iteration,
                status,
                ..
            } => {
                if let Some(record) = self
                    .row_mut(*index)
                    .and_then(|row| row.iteration_mut(*iteration))
                {
                    let duration_ms = now_ms.saturating_sub(record.since_ms);
                    record.status = match status {
                        IterationStatus::Complete => IterStatus::Done { duration_ms },
                        IterationStatus::Error => IterStatus::Failed { duration_ms },
                    };
                }
            }
            Event::StepHealing { .. } | Event::StepJudge { .. } | Event::StepDenied { .. } => {
                if let Some((kind, said)) = event.quality_words() {
                    let mark = quality_mark(kind);
                    self.output.push(&format!("{mark}: {said}"));
                }
            }
            Event::StepRetrospective {
                index,
                retrospective,
            } => {
                if let Ok(i) = usize::try_from(*index) {
                    self.retrospective = Some((i, retrospective.clone()));
                }
            }
            Event::OutputText { text, .. } => self.push_text(text),
            Event::OutputTool { tool, input, .. } => {
                self.output
                    .push(&format!("[{tool}] {}", tool_argument(tool, input)));
            }
            Event::OutputCost { index, usd } => {
                self.cost_usd += usd;
                if let Some(row) = self.row_mut(*index) {
                    row.cost_usd += usd;
                }
            }
            Event::OutputContext { index, tokens } => {
                let model = self
                    .row_mut(*index)
                    .and_then(|row| row.model.clone())
                    .unwrap_or_default();
                self.context = Some(Occupancy {
                    tokens: *tokens,
                    model,
                });
            }
            // Cumulative per call: the report's totals, never the gauge.
            Event::OutputUsage { .. } | Event::OutputStructured { .. } => {}
            Event::Log { level, text } => {
                let word = super::super::consumers::level_word(*level);
                self.output.push(&format!("[{word}] {text}"));
                if *level != Level::Info && self.warnings.len() < KEPT_WARNINGS {
                    self.warnings.push(format!("[{word}] {text}"));
                }
            }
            Event::WorkflowReport { report } => {
                self.cost_usd = report.total_cost_usd;
                self.report = Some(report.clone());
            }
            Event::WorkflowComplete { duration_ms, .. } => {
                self.outcome = Some(Outcome::Complete {
                    duration_ms: *duration_ms,
                });
            }
            Event::WorkflowCancelled { duration_ms, .. } => {
                self.outcome = Some(Outcome::Cancelled {
                    duration_ms: *duration_ms,
                });
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::super::event::{ErrorInfo, TokenUsage};
    use super::super::super::model::{
        CommandTask, Items, LogTask, LoopTask, Origin, PromptTask, Vars, WorkflowTask,
    };
    use super::*;

    pub(crate) fn command(name: &str) -> Task {
        Task::Command(CommandTask {
            name: name.into(),
            command: "true".into(),
            continue_on_error: false,
            self_healing: false,
            max_healing_attempts: None,
            output: None,
            timeout_seconds: None,
            line: 1,
        })
    }

    pub(crate) fn prompt(name: &str, model: &str) -> Task {
        let mut p = PromptTask::sample();
        p.name = name.into();
        p.model = model.into();
        Task::Prompt(p)
    }

    pub(crate) fn each(name: &str, inner: Vec<Task>) -> Task {
        Task::Loop(LoopTask {
            name: name.into(),
            continue_on_error: false,
            for_each: Items::List(vec!["a".into()]),
            inner,
            concurrency: None,
            line: 1,
        })
    }

    pub(crate) fn workflow(tasks: Vec<Task>) -> Arc<Workflow> {
        Arc::new(Workflow {
            goal: "Ship it".into(),
            vars: Vars::default(),
            tasks,
            source: String::new(),
            origin: Origin::Local { dir: ".".into() },
            source_path: "wf.yaml".into(),
        })
    }

    pub(crate) fn started(tasks: Vec<Task>) -> State {
        let mut state = State::default();
        state.apply(
            &Event::WorkflowStart {
                workflow: workflow(tasks),
            },
            0,
        );
        state
    }

    pub(crate) fn start(index: i64) -> Event {
        Event::StepStart {
            index,
            name: String::new(),
        }
    }

    fn text(index: i64, text: &str) -> Event {
        Event::OutputText {
            index,
            text: text.into(),
        }
    }

    fn error(index: i64, message: &str) -> Event {
        Event::StepError {
            index,
            name: String::new(),
            error: ErrorInfo {
                name: "Error".into(),
                message: message.into(),
                code: "WORKFLOW_COMMAND_FAILED".into(),
            },
            last_output: None,
        }
    }

    fn lines(state: &State) -> Vec<&str> {
        state.output.iter().collect()
    }

    #[test]
    fn workflow_start_lists_every_step_pending_with_its_model() {
        let nested = Task::Workflow(WorkflowTask {
            name: "child".into(),
            continue_on_error: false,
            reference: "c.yaml".into(),
            vars: Vars::default(),
            workflow: Some(Box::new(
                (*workflow(vec![prompt("deep", "opus[1m]")])).clone(),
            )),
            line: 1,
            reference_line: 1,
        });
        let log = Task::Log(LogTask {
            name: "say".into(),
            message: "hi".into(),
            continue_on_error: false,
            line: 1,
        });
        let state = started(vec![
            command("build"),
            prompt("ask", "haiku"),
            each("loop", vec![command("x"), prompt("y", "sonnet")]),
            nested,
            log,
        ]);
        assert_eq!(state.goal, "Ship it");
        let models: Vec<Option<&str>> = state.steps.iter().map(|s| s.model.as_deref()).collect();
        assert_eq!(
            models,
            [None, Some("haiku"), Some("sonnet"), Some("opus[1m]"), None]
        );
        assert!(state.steps.iter().all(|s| s.status == Status::Pending));
        assert!(state.steps[1].prompt && !state.steps[2].prompt);
    }

    #[test]
    fn a_step_runs_completes_fails_or_is_skipped() {
        let mut state = started(vec![command("a"), command("b"), command("c")]);
        state.apply(
            &Event::StepSkip {
                index: 0,
                name: "a".into(),
            },
            1,
        );
        state.apply(&start(1), 10);
        assert_eq!(state.current, Some(1));
        assert_eq!(state.steps[1].status, Status::Running { since_ms: 10 });
        assert_eq!(state.running_model(), None);
        state.apply(
            &Event::StepComplete {
                index: 1,
                name: "b".into(),
                duration_ms: 1500,
            },
            1510,
        );
        state.apply(&start(2), 1600);
        state.apply(&error(2, "exit 3"), 2600);
        assert_eq!(state.steps[0].status, Status::Skipped);
        assert_eq!(state.steps[1].status, Status::Done { duration_ms: 1500 });
        assert_eq!(
            state.steps[2].status,
            Status::Failed {
                duration_ms: 1000,
                message: "exit 3".into()
            }
        );
        assert_eq!(state.step_starts, 2);
        // Indexes out of range change nothing and do not panic.
        state.apply(&start(7), 1);
        state.apply(&start(-1), 1);
        state.apply(&error(9, "x"), 1);
        assert_eq!(state.current, Some(2));
    }

    #[test]
    fn output_goes_to_the_running_steps_ring_and_a_new_step_clears_it() {
        let mut state = started(vec![command("a"), command("b")]);
        state.apply(&start(0), 0);
        state.apply(&text(0, "one"), 1);
        state.apply(&text(0, "two\nthree"), 2);
        state.apply(
            &Event::OutputTool {
                index: 0,
                tool: "Bash".into(),
                input: serde_json::json!({"command": "ls"}),
            },
            3,
        );
        state.interjection("use the staging database");
        assert_eq!(
            lines(&state),
            [
                "one",
                "two",
                "three",
                "[Bash] ls",
                "[interjection] use the staging database"
            ]
        );
        state.apply(&start(1), 4);
        assert!(state.output.is_empty());
    }

    #[test]
    fn healing_judge_and_logs_are_lines_and_warnings_are_kept() {
        let mut state = started(vec![command("a")]);
        state.apply(&start(0), 0);
        state.apply(
            &Event::StepHealing {
                index: 0,
                phase: "attempt-failed".into(),
                attempt: 1,
                max_attempts: 5,
                exit_code: Some(2),
            },
            1,
        );
        state.apply(
            &Event::StepJudge {
                index: 0,
                verdict: "pass".into(),
                attempt: 2,
                max_attempts: 5,
                feedback: None,
            },
            2,
        );
        state.apply(&Event::log(Level::Info, "fine"), 3);
        state.apply(&Event::log(Level::Warn, "careful"), 4);
        assert_eq!(
            lines(&state),
            [
                "⟳ self-healing: run 1/5 failed (exit 2); an agent looks for a fix",
                "⚖ judge: attempt 2/5: PASS",
                "[info] fine",
                "[warn] careful"
            ]
        );
        assert_eq!(state.warnings, ["[warn] careful"]);
    }

    #[test]
    fn iterations_record_their_child_step_and_end() {
        let mut state = started(vec![each("loop", vec![command("x"), command("y")])]);
        state.apply(&start(0), 0);
        state.apply(
            &Event::StepIteration {
                index: 0,
                item: "a".into(),
                iteration: 1,
                total: 2,
            },
            5,
        );
        state.apply(
            &Event::StepInner {
                index: 0,
                iteration: 1,
                inner_index: 1,
                inner_total: 2,
                name: "y".into(),
            },
            6,
        );
        state.apply(
            &Event::StepIterationComplete {
                index: 0,
                iteration: 1,
                status: IterationStatus::Error,
                error: Some("boom".into()),
            },
            105,
        );
        state.apply(
            &Event::StepIteration {
                index: 0,
                item: "b".into(),
                iteration: 2,
                total: 2,
            },
            110,
        );
        let row = &state.steps[0];
        assert_eq!(row.iterations[0].inner, Some((2, 2, "y".into())));
        assert_eq!(
            row.iterations[0].status,
            IterStatus::Failed { duration_ms: 100 }
        );
        assert_eq!(row.iterations[1].status, IterStatus::Running);
        // The step's end finishes what still runs.
        state.apply(
            &Event::StepComplete {
                index: 0,
                name: "loop".into(),
                duration_ms: 300,
            },
            310,
        );
        assert_eq!(
            state.steps[0].iterations[1].status,
            IterStatus::Done { duration_ms: 200 }
        );
        // An unknown iteration changes nothing.
        state.apply(
            &Event::StepInner {
                index: 0,
                iteration: 9,
                inner_index: 0,
                inner_total: 2,
                name: "x".into(),
            },
            311,
        );
    }

    #[test]
    fn iteration_records_are_bounded_with_a_count_of_the_earlier_ones() {
        let mut state = started(vec![each("loop", vec![command("x")])]);
        state.apply(&start(0), 0);
        let n = KEPT_ITERATIONS as u64 + 5;
        for i in 1..=n {
            state.apply(
                &Event::StepIteration {
                    index: 0,
                    item: format!("item {i}"),
                    iteration: i,
                    total: n,
                },
                i,
            );
            state.apply(
                &Event::StepIterationComplete {
                    index: 0,
                    iteration: i,
                    status: IterationStatus::Complete,
                    error: None,
                },
                i,
            );
        }
        let row = &state.steps[0];
        assert_eq!(row.iterations.len(), KEPT_ITERATIONS);
        assert_eq!(row.earlier, 5);
        assert_eq!(row.iterations[0].iteration, 6);
    }

    #[test]
    fn context_pairs_with_the_reporting_steps_model_and_clears_on_a_prompt_step() {
        let mut state = started(vec![
            prompt("big", "sonnet[1m]"),
            command("c"),
            prompt("p", "haiku"),
        ]);
        state.apply(&start(0), 0);
        assert_eq!(state.running_model(), Some("sonnet[1m]"));
        state.apply(
            &Event::OutputContext {
                index: 0,
                tokens: 100,
            },
            1,
        );
        state.apply(
            &Event::OutputContext {
                index: 0,
                tokens: 300_000,
            },
            2,
        );
        state.apply(
            &Event::StepComplete {
                index: 0,
                name: "big".into(),
                duration_ms: 5,
            },
            5,
        );
        // Sized by the step that reported it, whatever runs next.
        state.apply(&start(1), 6);
        assert_eq!(
            state.context,
            Some(Occupancy {
                tokens: 300_000,
                model: "sonnet[1m]".into()
            })
        );
        state.apply(&start(2), 7);
        assert_eq!(state.context, None);
        assert_eq!(state.running_model(), Some("haiku"));
    }

    #[test]
    fn cost_report_retrospective_and_endings_are_kept() {
        let mut state = started(vec![prompt("p", "haiku")]);
        state.apply(&start(0), 0);
        state.apply(
            &Event::OutputCost {
                index: 0,
                usd: 0.25,
            },
            1,
        );
        state.apply(
            &Event::OutputUsage {
                index: 0,
                usage: TokenUsage::default(),
            },
            1,
        );
        state.apply(
            &Event::OutputStructured {
                data: serde_json::json!({}),
            },
            1,
        );
        assert!((state.steps[0].cost_usd - 0.25).abs() < 1e-9);
        let report = RunReport {
            duration_ms: 10,
            total_cost_usd: 0.5,
            total_tokens: TokenUsage::default(),
            overflow_tokens: 0,
            overflow_calls: 0,
            step_narrative: Vec::new(),
            suggestion: None,
            guard: None,
        };
        state.apply(
            &Event::WorkflowReport {
                report: report.clone(),
            },
            2,
        );
        assert_eq!(state.report, Some(report));
        assert!((state.cost_usd - 0.5).abs() < 1e-9);
        state.apply(
            &Event::WorkflowComplete {
                workflow: workflow(Vec::new()),
                duration_ms: 10,
                last_output: None,
            },
            3,
        );
        assert_eq!(state.outcome, Some(Outcome::Complete { duration_ms: 10 }));
        state.apply(
            &Event::WorkflowCancelled {
                workflow: workflow(Vec::new()),
                duration_ms: 11,
            },
            3,
        );
        assert_eq!(state.outcome, Some(Outcome::Cancelled { duration_ms: 11 }));
        let analysis = serde_json::json!({"summary": "It broke."});
        state.apply(
            &Event::StepRetrospective {
                index: 0,
                retrospective: analysis.clone(),
            },
            4,
        );
        assert_eq!(state.retrospective, Some((0, analysis)));
        state.failed("Step \"p\" failed", 12);
        assert_eq!(
            state.outcome,
            Some(Outcome::Failed {
                message: "Step \"p\" failed".into(),
                duration_ms: 12
            })
        );
    }
}
