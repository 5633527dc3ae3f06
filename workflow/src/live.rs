//! The view for people when `--ci` is not given: a line per step with a
//! status mark and its duration, the running step's output under it,
//! warnings, and a summary at the end.
//!
//! On a terminal only the running step's last [`WINDOW`] lines are shown,
//! redrawn in place whenever the output is flushed (not once per line), and
//! cleared when the step ends: a step printing 200,000 lines scrolls
//! nothing. Elsewhere (a pipe, a file, CI) every line is printed, indented,
//! as a plain log.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;

use super::consumers::{Broken, Consumer, level_word, retrospective_lines};
use super::event::{Event, IterationStatus, Level, tool_argument};
use super::text::duration_words;

/// Lines of the running step shown on a terminal.
pub(super) const WINDOW: usize = 5;

pub(super) struct Live<W: Write> {
    out: W,
    /// The first write error: it ends the view (and the run).
    broken: Broken,
    /// Redraw a window of the last lines instead of printing them all.
    terminal: bool,
    /// Characters a window line may take, so it never wraps (a wrapped line
    /// would throw off the count of lines to clear).
    width: usize,
    window: VecDeque<String>,
    /// Window lines currently on the screen.
    drawn: usize,
    total: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    /// The run's cost, from its report.
    cost_usd: f64,
    log_path: Option<PathBuf>,
}

impl<W: Write> Live<W> {
    /// `terminal`: whether `out` is a terminal `width` characters wide.
    pub(super) fn new(out: W, log_path: Option<PathBuf>, terminal: bool, width: usize) -> Self {
        Self {
            out,
            broken: Broken::default(),
            terminal,
            width: width.max(20),
            window: VecDeque::with_capacity(WINDOW),
            drawn: 0,
            total: 0,
            passed: 0,
            failed: 0,
            skipped: 0,
            cost_usd: 0.0,
            log_path,
        }
    }

    /// Prints a line of its own (above the window, which is redrawn at the
    /// next flush).
    fn say(&mut self, text: std::fmt::Arguments<'_>) {
        self.clear_window();
        self.broken.write(&mut self.out, |out| {
            out.write_fmt(text)?;
            out.write_all(b"\n")
        });
    }

    fn clear_window(&mut self) {
        if self.drawn > 0 {
            // Up to the first window line, then clear to the end of screen.
            let drawn = self.drawn;
            self.broken
                .write(&mut self.out, |out| write!(out, "\x1b[{drawn}F\x1b[J"));
            self.drawn = 0;
        }
    }

    fn draw_window(&mut self) {
        self.clear_window();
        let room = self.width.saturating_sub(4);
        for line in &self.window {
            let shown: String = line
                .chars()
                .filter(|c| !c.is_control() || *c == '\t')
                .map(|c| if c == '\t' { ' ' } else { c })
                .take(room)
                .collect();
            self.broken
                .write(&mut self.out, |out| writeln!(out, "  │ {shown}"));
        }
        self.drawn = self.window.len();
    }

    /// The running step's output: into the window on a terminal, printed
    /// elsewhere. An agent's text may hold several lines; each is its own.
    fn output(&mut self, text: String) {
        if !text.contains('\n') {
            return self.output_line(text);
        }
        for line in text.lines() {
            self.output_line(line.to_owned());
        }
    }

    fn output_line(&mut self, line: String) {
        if self.terminal {
            if self.window.len() == WINDOW {
                self.window.pop_front();
            }
            self.window.push_back(line);
        } else {
            self.say(format_args!("  │ {line}"));
        }
    }

    fn end_step(&mut self) {
        self.clear_window();
        self.window.clear();
    }

    fn summary(&mut self, verdict: &str, duration_ms: u64) {
        self.end_step();
        let (passed, failed, skipped) = (self.passed, self.failed, self.skipped);
        // Agent steps report what they cost; a run of commands costs nothing.
        let cost = if self.cost_usd > 0.0 {
            format!(", ${:.4}", self.cost_usd)
        } else {
            String::new()
        };
        self.say(format_args!(
            "\n{verdict} in {}: {passed} passed, {failed} failed, {skipped} skipped{cost}",
            duration_words(duration_ms)
        ));
        if let Some(path) = self.log_path.clone() {
            self.say(format_args!("log: {}", path.display()));
        }
    }
}

impl<W: Write> Consumer for Live<W> {
    fn observe(&mut self, event: &Event) {
        match event {
            Event::WorkflowStart { workflow } => {
                self.total = workflow.tasks.len();
                let (goal, total) = (workflow.goal.clone(), self.total);
                self.say(format_args!("{goal} ({total} steps)"));
            }
            Event::StepStart { index, name } => {
                let total = self.total;
                self.say(format_args!("▶ [{}/{total}] {name}", index + 1));
            }
            Event::StepComplete {
                index,
                name,
                duration_ms,
            } => {
                self.end_step();
                self.passed += 1;
                let total = self.total;
                self.say(format_args!(
                    "✓ [{}/{total}] {name} ({})",
                    index + 1,
                    duration_words(*duration_ms)
                ));
            }
            Event::StepError {
                index, name, error, ..
            } => {
                // The last lines say why: keep them on screen.
                if self.terminal {
                    self.draw_window();
                    self.drawn = 0;
                }
                self.window.clear();
                self.failed += 1;
                let total = self.total;
                self.say(format_args!(
                    "✗ [{}/{total}] {name}: {}",
                    index + 1,
                    error.message
                ));
            }
            Event::StepSkip { index, name } => {
                self.skipped += 1;
                let total = self.total;
                self.say(format_args!("- [{}/{total}] {name} (skipped)", index + 1));
            }
            Event::StepIteration {
                iteration,
                total,
                item,
                ..
            } => self.say(format_args!("  ↻ {iteration}/{total}: {item}")),
            Event::StepIterationComplete {
                iteration,
                status: IterationStatus::Error,
                error,
                ..
            } => {
                let error = error.as_deref().unwrap_or("failed");
                self.say(format_args!("  ✗ iteration {iteration}: {error}"));
            }
            Event::OutputText { text, .. } => self.output(text.clone()),
            // An agent's tool calls are what it did: shown among its words.
            Event::OutputTool { tool, input, .. } => {
                self.output(format!("[{tool}] {}", tool_argument(tool, input)));
            }
            Event::WorkflowReport { report } => self.cost_usd = report.total_cost_usd,
            Event::StepHealing { .. } | Event::StepJudge { .. } | Event::StepDenied { .. } => {
                if let Some((kind, said)) = event.quality_words() {
                    let mark = super::event::quality_mark(kind);
                    self.say(format_args!("  {mark}: {said}"));
                }
            }
            Event::StepRetrospective { retrospective, .. } => {
                let mut lines = retrospective_lines(retrospective).into_iter();
                if let Some(first) = lines.next() {
                    self.say(format_args!("  ✎ retrospective: {first}"));
                }
                for line in lines {
                    self.say(format_args!("    {line}"));
                }
            }
            Event::Log {
                level: level @ (Level::Warn | Level::Error),
                text,
            } => {
                let level = level_word(*level);
                self.say(format_args!("  [{level}] {text}"));
            }
            Event::WorkflowComplete { duration_ms, .. } => {
                let verdict = if self.failed > 0 {
                    "Finished with failures allowed by continue_on_error"
                } else {
                    "Finished"
                };
                self.summary(verdict, *duration_ms);
            }
            Event::WorkflowCancelled { duration_ms, .. } => self.summary("Cancelled", *duration_ms),
            _ => {}
        }
    }

    fn flush(&mut self) {
        if self.terminal && !self.window.is_empty() {
            self.draw_window();
        }
        self.broken.write(&mut self.out, Write::flush);
    }

    fn take_error(&mut self) -> Option<std::io::Error> {
        self.broken.take()
    }

    fn failed(&mut self, failure: &str, duration_ms: u64) {
        // The whole message is on screen above (and on stderr); the summary
        // line keeps its first line.
        let first = failure.lines().next().unwrap_or_default();
        self.summary(&format!("Failed ({first})"), duration_ms);
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &str) -> Event {
        Event::OutputText {
            index: 0,
            text: line.into(),
        }
    }

    /// What a terminal would show: the bytes with each `ESC[nF ESC[J`
    /// applied (n lines up, then everything below cleared).
    fn screen(bytes: &[u8]) -> Vec<String> {
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let mut lines: Vec<String> = Vec::new();
        let mut rest = text.as_str();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("\x1b[") {
                let end = after.find('F').unwrap();
                let up: usize = after[..end].parse().unwrap();
                lines.truncate(lines.len() - up);
                rest = after[end + 1..].strip_prefix("\x1b[J").unwrap();
                continue;
            }
            let end = rest.find('\n').unwrap();
            lines.push(rest[..end].to_owned());
            rest = &rest[end + 1..];
        }
        lines
    }

    #[test]
    fn a_terminal_shows_the_last_lines_then_clears_them() {
        let mut live = Live::new(Vec::new(), None, true, 80);
        live.observe(&Event::StepStart {
            index: 0,
            name: "big".into(),
        });
        for i in 0..1000 {
            live.observe(&text(&format!("line {i}")));
        }
        live.flush();
        let shown = screen(&live.out);
        assert_eq!(shown.len(), 1 + WINDOW, "{shown:?}");
        assert_eq!(shown.last().unwrap(), "  │ line 999");
        live.observe(&text("one more\twith a tab\x1b[31m"));
        live.flush();
        assert_eq!(
            screen(&live.out).last().unwrap(),
            "  │ one more with a tab[31m"
        );
        live.observe(&Event::StepComplete {
            index: 0,
            name: "big".into(),
            duration_ms: 1500,
        });
        live.flush();
        assert_eq!(screen(&live.out), ["▶ [1/0] big", "✓ [1/0] big (2s)"]);
    }

    #[test]
    fn a_failed_step_keeps_its_last_lines_on_a_terminal() {
        let mut live = Live::new(Vec::new(), None, true, 80);
        live.observe(&text("why it failed"));
        live.observe(&Event::StepError {
            index: 0,
            name: "x".into(),
            error: super::super::event::ErrorInfo {
                name: "Error".into(),
                message: "boom".into(),
                code: "WORKFLOW_COMMAND_FAILED".into(),
            },
            last_output: None,
        });
        live.flush();
        assert_eq!(screen(&live.out), ["  │ why it failed", "✗ [1/0] x: boom"]);
    }

    #[test]
    fn long_lines_do_not_wrap_on_a_terminal() {
        let mut live = Live::new(Vec::new(), None, true, 30);
        live.observe(&text(&"x".repeat(100)));
        live.flush();
        let shown = screen(&live.out);
        assert_eq!(shown[0].chars().count(), 4 + 26);
    }

    #[test]
    fn an_agents_tool_calls_and_healing_show_and_the_summary_names_the_cost() {
        let mut live = Live::new(Vec::new(), None, false, 80);
        live.observe(&text("I'll run it.\nFirst this."));
        live.observe(&Event::OutputTool {
            index: 0,
            tool: "Bash".into(),
            input: serde_json::json!({"command": "echo hi", "description": "Print hi"}),
        });
        let report = super::super::event::RunReport {
            duration_ms: 1200,
            total_cost_usd: 0.00926,
            total_tokens: super::super::event::TokenUsage::default(),
            overflow_tokens: 0,
            overflow_calls: 0,
            step_narrative: Vec::new(),
            suggestion: None,
            guard: None,
        };
        live.observe(&Event::StepHealing {
            index: 0,
            phase: "attempt-failed".into(),
            attempt: 1,
            max_attempts: 5,
            exit_code: Some(3),
        });
        live.observe(&Event::StepJudge {
            index: 0,
            verdict: "fail".into(),
            attempt: 1,
            max_attempts: 5,
            feedback: Some("notes.md is missing".into()),
        });
        live.observe(&Event::WorkflowReport { report });
        live.summary("Finished", 1200);
        assert_eq!(
            screen(&live.out),
            [
                "  │ I'll run it.",
                "  │ First this.",
                "  │ [Bash] echo hi",
                "  ⟳ self-healing: run 1/5 failed (exit 3); an agent looks for a fix",
                "  ⚖ judge: attempt 1/5: FAIL — notes.md is missing",
                "",
                "Finished in 1s: 0 passed, 0 failed, 0 skipped, $0.0093"
            ]
        );
    }

    #[test]
    fn elsewhere_every_line_is_printed() {
        let mut live = Live::new(Vec::new(), None, false, 80);
        for i in 0..10 {
            live.observe(&text(&format!("l{i}")));
        }
        live.flush();
        assert_eq!(screen(&live.out).len(), 10);
    }
}
