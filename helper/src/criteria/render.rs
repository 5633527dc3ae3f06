//! `criteria run` and `entry check` as text and as JSON.

use std::io::{self, Write};

use super::entry::EntryReport;
use super::model::{Outcome, Report};
use crate::scan::MAX_EXCERPT_CHARS;

/// The checklist, as Phase 7 shows it:
///
/// ```text
/// Plan verification: plan.md, ## Verification (line 40), in /repo
/// - [x] cargo test → PASS (0.8 s)
/// - [ ] cargo clippy -- -D warnings → FAIL (exit 1, 0.3 s)
///       | error: unused variable
/// - [ ] python deploy.py → NOT RUN: `python deploy.py` is not a test, …
/// Criteria: 1/3 passed, 1 failed, 0 blocked, 1 not run
/// RESULT: FAILED
/// ```
pub(super) fn text(report: &Report, out: &mut impl Write) -> io::Result<()> {
    checklist(report, out)?;
    match &report.error {
        Some(e) => writeln!(out, "RESULT: {} ({})", report.status.word(), e.code),
        None => writeln!(out, "RESULT: {}", report.status.word()),
    }
}

/// [`text`] without its closing `RESULT:` line.
pub(super) fn checklist(report: &Report, out: &mut impl Write) -> io::Result<()> {
    let heading = match report.plan_type {
        Some("session-spec") => "Exit condition check",
        _ => "Plan verification",
    };
    let section = match (report.section, report.section_line) {
        (Some(s), Some(l)) => format!(", ## {s} (line {l})"),
        (Some(s), None) => format!(", ## {s}"),
        _ => String::new(),
    };
    writeln!(
        out,
        "{heading}: {}{section}, in {}",
        report.file, report.cwd
    )?;
    for c in &report.criteria {
        let mark = if c.outcome == Outcome::Passed {
            'x'
        } else {
            ' '
        };
        let command = one_line(&c.command);
        let detail = match (c.outcome, c.exit_code, c.duration_ms) {
            (Outcome::Passed, _, Some(ms)) => format!(" ({})", seconds(ms)),
            (Outcome::Failed, Some(code), Some(ms)) => format!(" (exit {code}, {})", seconds(ms)),
            _ => String::new(),
        };
        let reason = c
            .reason
            .as_deref()
            .map(|r| format!(": {}", one_line(r)))
            .unwrap_or_default();
        writeln!(
            out,
            "- [{mark}] {command} → {}{detail}{reason}",
            c.outcome.word()
        )?;
        if c.outcome == Outcome::Failed {
            for line in &c.tail {
                writeln!(out, "      | {line}")?;
            }
        }
    }
    let s = &report.summary;
    writeln!(
        out,
        "Criteria: {}/{} passed, {} failed, {} blocked, {} not run",
        s.passed, s.total, s.failed, s.blocked, s.unrunnable
    )
}

pub(super) fn json<T: serde::Serialize>(value: &T, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

/// `entry check` for people:
///
/// ```text
/// Entry condition: PASS
/// Condition: Session 1 committed (`git log --oneline` shows "feat(store):") (line 8)
/// Checked: git log --format=%s for "feat(store):"
/// Found: feat(store): add the store
/// ```
pub(super) fn entry_text(report: &EntryReport, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "Entry condition: {}", report.status.word())?;
    if let Some(condition) = &report.condition {
        let line = report
            .line
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default();
        writeln!(out, "Condition: {}{line}", one_line(condition))?;
    }
    if let Some(checked) = &report.checked {
        writeln!(out, "Checked: {}", one_line(checked))?;
    }
    if let Some(found) = &report.found {
        writeln!(out, "Found: {}", one_line(found))?;
    }
    writeln!(out, "Reason: {}", one_line(&report.reason))?;
    if report.status == super::entry::EntryStatus::Fail {
        writeln!(out, "Complete the prerequisite first, then re-run.")?;
    }
    Ok(())
}

/// Text on one line, newlines shown as `⏎`, capped.
fn one_line(text: &str) -> String {
    let flat = text.replace('\n', " ⏎ ");
    if flat.chars().count() > MAX_EXCERPT_CHARS {
        let cut: String = flat.chars().take(MAX_EXCERPT_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

fn seconds(ms: u64) -> String {
    let tenths = (ms + 50) / 100;
    format!("{}.{} s", tenths / 10, tenths % 10)
}
