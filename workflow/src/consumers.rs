//! The consumers of a run's events, all fed from one loop in
//! [`super::command`]: the `--ci` NDJSON writer, the log file, and the live
//! view for people ([`super::live`]). Each writes through a buffer that the loop flushes
//! whenever no event is waiting, so output stays live without a system call
//! per line.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::event::{Event, Level, RunReport, tool_argument};
use super::text::{duration_words, grouped, slugify};
use crate::clock::UtcTime;

/// Something that observes every event.
pub(super) trait Consumer {
    fn observe(&mut self, event: &Event);
    /// Pushes buffered output out.
    fn flush(&mut self);
    /// The run ended without `workflow:complete` or `workflow:cancelled`
    /// because a step failed with `failure`.
    fn failed(&mut self, _failure: &str, _duration_ms: u64) {}
    /// The error that ended this consumer's writing to stdout, handed over
    /// once; the run then stops ([`super::command`]). The log file never
    /// has one: a full disk ends the log, not the run.
    fn take_error(&mut self) -> Option<io::Error> {
        None
    }
    /// The run is over, whichever way it ended: hand over what is still
    /// held (the telemetry consumer ends its open spans and sends them).
    fn finish(&mut self) {}
}

/// The first error of a writer to stdout, kept until it is taken; after it
/// the writer writes nothing more. (Each event is one call that cannot
/// return it, so it waits here for the loop to ask.)
#[derive(Debug, Default)]
pub(super) struct Broken {
    broken: bool,
    error: Option<io::Error>,
}

impl Broken {
    /// Runs `write` unless writing has ended; its error ends it.
    pub(super) fn write<W>(&mut self, out: &mut W, write: impl FnOnce(&mut W) -> io::Result<()>) {
        if self.broken {
            return;
        }
        if let Err(e) = write(out) {
            self.broken = true;
            self.error = Some(e);
        }
    }

    /// The error that ended writing, once.
    pub(super) fn take(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

/// `--ci`: one JSON object per line on stdout.
pub(super) struct Ndjson<W: Write> {
    out: W,
    broken: Broken,
}

impl<W: Write> Ndjson<W> {
    pub(super) fn new(out: W) -> Self {
        Self {
            out,
            broken: Broken::default(),
        }
    }
}

impl<W: Write> Consumer for Ndjson<W> {
    fn observe(&mut self, event: &Event) {
        self.broken.write(&mut self.out, |out| {
            serde_json::to_writer(&mut *out, event)?;
            out.write_all(b"\n")
        });
    }

    fn flush(&mut self) {
        self.broken.write(&mut self.out, Write::flush);
    }

    fn take_error(&mut self) -> Option<io::Error> {
        self.broken.take()
    }
}

/// Where run logs go for a workflow in `workflow_dir`: the nearest
/// `.claude/voyage.local` from it up to the root of its git work tree, else
/// a new one in `workflow_dir`; then `logs/`. The search stops at the work
/// tree's root (outside a work tree, at `workflow_dir` itself) so that a
/// stray `.claude` in `/tmp` or a home directory never collects the logs of
/// unrelated projects.
pub(super) fn log_dir_for(workflow_dir: &Path) -> PathBuf {
    let start = fs::canonicalize(workflow_dir).unwrap_or_else(|_| workflow_dir.to_path_buf());
    let in_work_tree = start.ancestors().any(|dir| dir.join(".git").exists());
    let mut found = None;
    for dir in start.ancestors() {
        let candidate = dir.join(".claude").join("voyage.local");
        if candidate.is_dir() {
            found = Some(candidate);
            break;
        }
        if !in_work_tree || dir.join(".git").exists() {
            break;
        }
    }
    found
        .unwrap_or_else(|| start.join(".claude").join("voyage.local"))
        .join("logs")
}

const RULE: &str = "━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━";

/// The run's log file, in Executant's format: a header, a banner per step,
/// every output line, `[level] text` for log events, iteration markers, the
/// run report and a footer.
pub(super) struct LogFile {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    slug: String,
    step_started: Instant,
    /// Whether the run asked for an efficiency suggestion (the report's
    /// line says "not requested" only when it did not).
    suggestion_requested: bool,
}

impl LogFile {
    /// Creates `<dir>/<YYYYMMDD-HHMMSS>_<goal-slug>.log` (UTC).
    pub(super) fn create(dir: &Path, goal: &str) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let now = UtcTime::now();
        let stamp = format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            now.year, now.month, now.day, now.hour, now.minute, now.second
        );
        let slug = slugify(goal, 40);
        let path = dir.join(format!("{stamp}_{slug}.log"));
        let file = File::create(&path)?;
        Ok(Self {
            path,
            out: Some(BufWriter::with_capacity(64 * 1024, file)),
            slug,
            step_started: Instant::now(),
            suggestion_requested: false,
        })
    }

    /// Says that the run asks for an efficiency suggestion.
    pub(super) fn suggestion_requested(mut self, requested: bool) -> Self {
        self.suggestion_requested = requested;
        self
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    fn line(&mut self, text: &str) {
        if let Some(out) = self.out.as_mut() {
            let ok = out
                .write_all(text.as_bytes())
                .and_then(|()| out.write_all(b"\n"));
            // A full disk ends the log, not the run.
            if ok.is_err() {
                self.out = None;
            }
        }
    }

    fn report(&mut self, report: &RunReport) {
        let t = &report.total_tokens;
        let overflow = if report.overflow_calls > 0 {
            format!(
                "  Long-context overflow: {} call(s), {} token(s) billed at the extended rate",
                report.overflow_calls,
                grouped(report.overflow_tokens)
            )
        } else {
            "  Long-context overflow: none".to_owned()
        };
        let suggestion = match &report.suggestion {
            Some(s) => format!("  Efficiency suggestion: {s}"),
            None if self.suggestion_requested => {
                "  Efficiency suggestion: none came (the warning above says why)".to_owned()
            }
            None => "  Efficiency suggestion: not requested".to_owned(),
        };
        let mut block = vec![
            format!("\n{RULE}\nRun Report"),
            format!("  Duration: {}", duration_words(report.duration_ms)),
            format!("  Cost: ${:.4}", report.total_cost_usd),
            format!(
                "  Tokens: {} total ({} in, {} out, {} cache-write, {} cache-read)",
                grouped(t.total()),
                grouped(t.input_tokens),
                grouped(t.output_tokens),
                grouped(t.cache_creation_tokens),
                grouped(t.cache_read_tokens)
            ),
            overflow,
            suggestion,
        ];
        if report.guard.as_deref() == Some("off") {
            block.push("  Guard: off (VOYAGE_WORKFLOW_GUARD=off)".to_owned());
        }
        block.push(RULE.to_owned());
        self.line(&block.join("\n"));
    }
}

impl Consumer for LogFile {
    fn observe(&mut self, event: &Event) {
        match event {
            Event::WorkflowStart { .. } => {
                let header = format!(
                    "# Execution Log\nTask: {}\nStarted: {}\n{RULE}\n",
                    self.slug,
                    UtcTime::now().rfc3339()
                );
                self.line(&header);
            }
            Event::StepStart { index, name } => {
                self.step_started = Instant::now();
                let banner = format!(
                    "\n{RULE}\nStep {}: {name}\nStarted: {}\n{RULE}\n",
                    index + 1,
                    UtcTime::now().rfc3339()
                );
                self.line(&banner);
            }
            Event::StepComplete { .. } => {
                let secs = self.step_started.elapsed().as_secs_f64();
                self.line(&format!("\nStep completed in {secs:.1}s\n"));
            }
            Event::StepError { error, .. } => {
                self.line(&format!("\nStep failed: {}\n", error.message));
            }
            Event::StepIteration {
                iteration,
                total,
                item,
                ..
            } => self.line(&format!("\n── iteration {iteration}/{total}: {item}")),
            Event::StepInner {
                inner_index,
                inner_total,
                name,
                ..
            } => self.line(&format!("   ↳ [{}/{inner_total}] {name}", inner_index + 1)),
            Event::OutputText { text, .. } => self.line(text),
            Event::OutputTool { tool, input, .. } => {
                let line = format!("   [{tool}] {}", tool_argument(tool, input));
                self.line(&line);
            }
            Event::Log { level, text } => {
                let level = level_word(*level);
                self.line(&format!("[{level}] {text}"));
            }
            Event::StepHealing { .. } | Event::StepJudge { .. } | Event::StepDenied { .. } => {
                if let Some((kind, said)) = event.quality_words() {
                    self.line(&format!("[{kind}] {said}"));
                }
            }
            Event::StepRetrospective { retrospective, .. } => {
                self.line(&format!("\n{RULE}\nRetrospective"));
                for line in retrospective_lines(retrospective) {
                    self.line(&format!("  {line}"));
                }
                self.line(RULE);
            }
            Event::WorkflowReport { report } => self.report(report),
            Event::WorkflowComplete { .. } | Event::WorkflowCancelled { .. } => {
                let footer = format!(
                    "\n{RULE}\nTask Complete: {}\nFinished: {}\n{RULE}\n",
                    self.slug,
                    UtcTime::now().rfc3339()
                );
                self.line(&footer);
            }
            _ => {}
        }
    }

    fn flush(&mut self) {
        if let Some(out) = self.out.as_mut()
            && out.flush().is_err()
        {
            self.out = None;
        }
    }
}

/// A `step:retrospective`'s analysis as lines, for the log file and the
/// live view: the summary, the root cause, the evidence, the suggestions and
/// the edit to the workflow that would fix it.
pub(crate) fn retrospective_lines(analysis: &serde_json::Value) -> Vec<String> {
    let text = |key: &str| {
        analysis
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    };
    let mut lines = vec![text("summary").to_owned()];
    if !text("rootCause").is_empty() {
        lines.push(format!("root cause: {}", text("rootCause")));
    }
    let list = |key: &str| {
        analysis
            .get(key)
            .and_then(|v| v.as_array())
            .cloned()
            .unwrap_or_default()
    };
    for evidence in list("evidence") {
        if let Some(evidence) = evidence.as_str() {
            lines.push(format!("evidence: {evidence}"));
        }
    }
    for suggestion in list("suggestions") {
        let field = |key: &str| {
            suggestion
                .get(key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
        };
        let step = match field("step") {
            "" => String::new(),
            step => format!("{step}: "),
        };
        lines.push(format!(
            "suggestion ({}): {step}{} → {}",
            field("severity"),
            field("issue"),
            field("change")
        ));
    }
    if analysis.get("workflowFixable").and_then(|v| v.as_bool()) == Some(true) {
        lines.push(format!(
            "fix in the workflow: {}",
            text("refineInstruction")
        ));
    }
    lines
}

pub(crate) fn level_word(level: Level) -> &'static str {
    match level {
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retrospective_reads_as_lines() {
        let analysis = serde_json::json!({
            "step": "fail", "summary": "It exits 4.", "rootCause": "exit 4",
            "evidence": ["boom"],
            "suggestions": [{"step": "fail", "issue": "always fails", "change": "drop it", "severity": "high"},
                            {"issue": "vague", "change": "split", "severity": "low"}],
            "workflowFixable": true, "refineInstruction": "Drop exit 4."
        });
        assert_eq!(
            retrospective_lines(&analysis),
            [
                "It exits 4.",
                "root cause: exit 4",
                "evidence: boom",
                "suggestion (high): fail: always fails → drop it",
                "suggestion (low): vague → split",
                "fix in the workflow: Drop exit 4.",
            ]
        );
    }

    #[test]
    fn the_log_directory_is_searched_up_to_the_work_tree_root_only() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().canonicalize().unwrap();
        // A stray one above the project must not be used.
        fs::create_dir_all(root.join(".claude/voyage.local")).unwrap();
        let repo = root.join("repo");
        let flows = repo.join("flows/deep");
        fs::create_dir_all(&flows).unwrap();
        fs::create_dir_all(repo.join(".git")).unwrap();
        let fresh = flows.join(".claude/voyage.local/logs");
        assert_eq!(log_dir_for(&flows), fresh);
        // The project's own, at its root, is found from below.
        fs::create_dir_all(repo.join(".claude/voyage.local")).unwrap();
        assert_eq!(log_dir_for(&flows), repo.join(".claude/voyage.local/logs"));
        // Outside a work tree only the workflow's own directory counts.
        let loose = root.join("loose");
        fs::create_dir_all(&loose).unwrap();
        assert_eq!(log_dir_for(&loose), loose.join(".claude/voyage.local/logs"));
    }
}
