//! What stays on the normal screen once the view has left it (the
//! alternate screen takes its frames with it): the step list with each
//! step's mark and duration, the failure's retrospective, the run report,
//! and the summary line with the log file's path.

use std::io::{self, Write};
use std::path::Path;

use super::super::consumers::retrospective_lines;
use super::super::text::{duration_words, grouped};
use super::render::short_duration;
use super::state::{Outcome, State, Status};

pub(super) fn print(state: &State, log: Option<&Path>, out: &mut impl Write) -> io::Result<()> {
    if !state.goal.is_empty() {
        writeln!(out, "{} ({} steps)", state.goal, state.steps.len())?;
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for row in &state.steps {
        match &row.status {
            Status::Pending => writeln!(out, "· {} (not run)", row.name)?,
            Status::Running { .. } => writeln!(out, "▶ {} (stopped)", row.name)?,
            Status::Done { duration_ms } => {
                passed += 1;
                writeln!(out, "✓ {} ({})", row.name, short_duration(*duration_ms))?;
            }
            Status::Failed { message, .. } => {
                failed += 1;
                writeln!(out, "✗ {}: {message}", row.name)?;
            }
            Status::Skipped => {
                skipped += 1;
                writeln!(out, "- {} (skipped)", row.name)?;
            }
        }
    }
    for warning in &state.warnings {
        writeln!(out, "  {warning}")?;
    }
    if let Some((_, analysis)) = &state.retrospective {
        let mut lines = retrospective_lines(analysis).into_iter();
        if let Some(first) = lines.next() {
            writeln!(out, "  ✎ retrospective: {first}")?;
        }
        for line in lines {
            writeln!(out, "    {line}")?;
        }
    }
    if let Some(report) = &state.report {
        let t = &report.total_tokens;
        writeln!(
            out,
            "  report: {}, ${:.4}, {} tokens ({} in, {} out, {} cache-write, {} cache-read), overflow {}",
            duration_words(report.duration_ms),
            report.total_cost_usd,
            grouped(t.total()),
            grouped(t.input_tokens),
            grouped(t.output_tokens),
            grouped(t.cache_creation_tokens),
            grouped(t.cache_read_tokens),
            if report.overflow_calls > 0 {
                format!(
                    "{} call(s), {} token(s)",
                    report.overflow_calls,
                    grouped(report.overflow_tokens)
                )
            } else {
                "none".to_owned()
            }
        )?;
    }
    let (verdict, duration_ms) = match &state.outcome {
        Some(Outcome::Complete { duration_ms }) if failed > 0 => (
            "Finished with failures allowed by continue_on_error".to_owned(),
            *duration_ms,
        ),
        Some(Outcome::Complete { duration_ms }) => ("Finished".to_owned(), *duration_ms),
        Some(Outcome::Cancelled { duration_ms }) => ("Cancelled".to_owned(), *duration_ms),
        Some(Outcome::Failed {
            message,
            duration_ms,
        }) => (
            format!("Failed ({})", message.lines().next().unwrap_or_default()),
            *duration_ms,
        ),
        None => ("Stopped".to_owned(), 0),
    };
    let cost = if state.cost_usd > 0.0 {
        format!(", ${:.4}", state.cost_usd)
    } else {
        String::new()
    };
    writeln!(
        out,
        "\n{verdict} in {}: {passed} passed, {failed} failed, {skipped} skipped{cost}",
        duration_words(duration_ms)
    )?;
    if let Some(log) = log {
        writeln!(out, "log: {}", log.display())?;
    }
    out.flush()
}
