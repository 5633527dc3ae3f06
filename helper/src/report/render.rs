//! The report as text (seed Phase 8's template, section by section) and as
//! JSON. Writes to a writer; decides nothing.

use std::io::{self, Write};

use serde_json::Value;

use super::brief::{self, Entry};
use super::model::{Report, StepRow, place};

/// How much of a long run the text report lists.
#[derive(Debug, Clone, Copy)]
pub(super) enum Detail<'a> {
    /// Every step and finding (`report`).
    Full,
    /// Long lists summarised ([`brief`]); `full` is the command that
    /// prints the full report.
    Brief { full: &'a str },
}

impl Detail<'_> {
    fn brief(self) -> bool {
        matches!(self, Self::Brief { .. })
    }
}

/// The line that ends a summarised list: how many were left out, and
/// where they all are.
fn left_out(n: usize, what: &str, detail: Detail<'_>) -> String {
    match detail {
        Detail::Brief { full } => format!("… and {n} more {what} (all of them: {full})"),
        Detail::Full => format!("… and {n} more {what}"),
    }
}

/// The lines of an error the Failure Details show.
const ERROR_LINES: usize = 20;

/// One failed criterion: `label: `command` (exit N)`.
fn criterion_line(item: &Value) -> String {
    let text = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
    let how = match (
        item.get("exit_code").and_then(Value::as_i64),
        text("outcome"),
    ) {
        (Some(code), _) => format!("exit {code}"),
        (None, "") => "did not run".to_owned(),
        (None, outcome) => outcome.to_owned(),
    };
    let label = text("label");
    let label = if label.is_empty() { "criterion" } else { label };
    format!("{label}: `{}` ({how})", text("command"))
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn step_table(rows: &[StepRow], detail: Detail<'_>, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "### Step Results")?;
    writeln!(out)?;
    writeln!(
        out,
        "| Step | Description | Result | Attempts | Commit | Manifest |"
    )?;
    writeln!(
        out,
        "|------|-------------|--------|----------|--------|----------|"
    )?;
    let one = |r: &StepRow, out: &mut dyn Write| {
        let commit: String = r
            .commit
            .as_deref()
            .map_or_else(|| "—".to_owned(), |c| c.chars().take(7).collect());
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.step,
            cell(&r.description),
            r.result,
            r.attempts,
            commit,
            r.manifest
        )
    };
    if !(detail.brief() && rows.len() > brief::LONG_LIST) {
        for r in rows {
            one(r, out)?;
        }
        return writeln!(out);
    }
    // A range of alike steps is one row: its steps, how many, and how
    // many commits they made.
    for entry in brief::ranges(rows) {
        match entry {
            Entry::One(r) => one(r, out)?,
            Entry::Range(run) => {
                let commits = run.iter().filter(|r| r.commit.is_some()).count();
                let first = run.first().map_or("—", |r| r.result);
                writeln!(
                    out,
                    "| {} | {} steps | {} | {} | {} | {} |",
                    brief::span(run),
                    run.len(),
                    first,
                    run.first().map_or(0, |r| r.attempts),
                    if commits == 0 {
                        "—".to_owned()
                    } else {
                        format!("{commits} commits")
                    },
                    run.first().map_or("—", |r| r.manifest)
                )?;
            }
        }
    }
    writeln!(out)
}

/// A multi-session run's sessions: which steps each ran, in which wave,
/// how it ended, and the archived copy its rows were read from.
fn sessions(r: &Report, out: &mut impl Write) -> io::Result<()> {
    if r.sessions.is_empty() {
        return Ok(());
    }
    writeln!(out, "### Sessions")?;
    writeln!(out)?;
    for s in &r.sessions {
        let steps: Vec<String> = s.steps.iter().map(u32::to_string).collect();
        writeln!(
            out,
            "- Session {} (wave {}): {} {} — {} — {}",
            s.session,
            s.wave,
            if steps.len() == 1 { "step" } else { "steps" },
            steps.join(", "),
            s.result,
            s.progress_file
        )?;
    }
    writeln!(out)
}

fn bullets(items: &[String], detail: Detail<'_>, out: &mut impl Write) -> io::Result<()> {
    let (items, more) = if detail.brief() {
        brief::shown(items)
    } else {
        (items, 0)
    };
    for item in items {
        writeln!(out, "- {item}")?;
    }
    if more > 0 {
        writeln!(out, "- {}", left_out(more, "items", detail))?;
    }
    Ok(())
}

fn pass_word(status: &str) -> &'static str {
    match status {
        "passed" | "pass" => "PASS",
        "n/a" => "N/A",
        "failed" | "fail" => "FAIL",
        _ => "NOT RUN",
    }
}

/// The text report, ending with the `trekexecute_summary` block.
pub(super) fn text(r: &Report, out: &mut impl Write) -> io::Result<()> {
    text_with(r, Detail::Full, out)
}

/// The text report with `detail`: a brief one summarises lists longer
/// than [`brief::LONG_LIST`] and says so under its Result.
pub(super) fn text_with(r: &Report, detail: Detail<'_>, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "## Ultraexecute Local Complete")?;
    writeln!(out)?;
    writeln!(out, "**Plan:** {}", r.plan)?;
    writeln!(out, "**Type:** {}", r.plan_type)?;
    writeln!(out, "**Mode:** {}", r.mode_line)?;
    writeln!(out, "**Result:** {}", r.result_line)?;
    // Why the result is not the word the run claimed: said here, once.
    if let Some(o) = &r.completion_gate.status_override {
        writeln!(
            out,
            "**Override:** {} -> {}: {}",
            o.from,
            o.to,
            r.completion_gate.reasons.join("; ")
        )?;
    }
    writeln!(out)?;
    let mut notes = r.notes.clone();
    if let Detail::Brief { full } = detail
        && summarised(r)
    {
        notes.push(format!(
            "this report summarises its lists of more than {} items (failed, blocked and running steps one by one, alike steps as ranges, the first {} findings); the progress file keeps every record, and {full} prints them all",
            brief::LONG_LIST,
            brief::SHOWN
        ));
    }
    for note in &notes {
        writeln!(out, "Note: {note}")?;
    }
    if !notes.is_empty() {
        writeln!(out)?;
    }

    step_table(&r.steps, detail, out)?;
    sessions(r, out)?;

    let c = &r.criteria;
    if !r.sessions.is_empty() {
        writeln!(
            out,
            "### Master Verification (Phase 2.6 Step 4, every wave merged)"
        )?;
    } else if c.kind == "exit_condition" {
        writeln!(out, "### Exit Condition (Phase 7, session specs)")?;
    } else {
        writeln!(out, "### Plan Verification (Phase 7, trekplans only)")?;
    }
    writeln!(out)?;
    writeln!(out, "- **Status:** {}", c.status)?;
    writeln!(
        out,
        "- **Criteria:** {}/{} passed, {} failed, {} blocked, {} not run",
        c.passed, c.total, c.failed, c.blocked, c.unrunnable
    )?;
    if c.failed_criteria.is_empty() {
        writeln!(out, "- **Failed criteria:** none")?;
    } else {
        writeln!(out, "- **Failed criteria:**")?;
        for item in &c.failed_criteria {
            writeln!(out, "  - {}", criterion_line(item))?;
        }
    }
    writeln!(out)?;

    let a = &r.manifest_audit;
    writeln!(out, "### Manifest Audit (Phase 7.5)")?;
    writeln!(out)?;
    writeln!(out, "- **Status:** {}", a.status)?;
    if a.drift_details.is_empty() {
        writeln!(out, "- **Drift details:** none")?;
    } else {
        writeln!(out, "- **Drift details:**")?;
        let (items, more) = if detail.brief() {
            brief::shown(&a.drift_details)
        } else {
            (a.drift_details.as_slice(), 0)
        };
        for item in items {
            writeln!(out, "  - {}", crate::audit::drift_line(item))?;
        }
        if more > 0 {
            writeln!(out, "  - {}", left_out(more, "drift items", detail))?;
        }
    }
    if !a.accepted.is_empty() {
        writeln!(
            out,
            "- **Accepted (a message hook rewrote the plan's subject):**"
        )?;
        for item in &a.accepted {
            writeln!(out, "  - {}", crate::audit::drift_line(item))?;
        }
    }
    writeln!(out, "- **Recovery dispatched:** {}", a.recovery_dispatched)?;
    writeln!(out, "- **Recovery depth:** {}", a.recovery_depth)?;
    if let Some(spec) = &a.recovery_spec {
        writeln!(out, "- **Recovery spec:** {spec}")?;
    }
    writeln!(out, "- **Legacy plan:** {}", a.legacy_plan)?;
    writeln!(out)?;

    let n = &r.counts;
    writeln!(out, "### Summary")?;
    writeln!(out)?;
    writeln!(out, "- Passed: {}/{}", n.passed, n.total)?;
    writeln!(out, "- Skipped: {}", n.skipped)?;
    writeln!(out, "- Failed: {}", n.failed)?;
    writeln!(out, "- Not reached: {}", n.not_reached)?;
    writeln!(out, "- Blocked (sandbox): {}", n.blocked)?;
    writeln!(out)?;
    if r.result == "completed" {
        let s = &r.trekexecute_summary;
        // A multi-session run's check of the whole is its master verification.
        let check = if r.sessions.is_empty() {
            "Plan verification"
        } else {
            "Master verification"
        };
        writeln!(
            out,
            "All steps completed. Exit condition: {}. {check}: {}.",
            pass_word(s.exit_condition),
            pass_word(s.plan_verification)
        )?;
        writeln!(out)?;
    }

    let failures: Vec<&StepRow> = r
        .steps
        .iter()
        .filter(|s| s.status == "failed" || s.status == "blocked")
        .collect();
    let (failures, more_failures) = if detail.brief() {
        brief::shown(&failures)
    } else {
        (failures.as_slice(), 0)
    };
    if !failures.is_empty() {
        writeln!(out, "### Failure Details")?;
        writeln!(out)?;
        for f in failures {
            writeln!(out, "Step {}: {}", f.step, f.description)?;
            writeln!(out, "On failure: {}", f.on_failure.unwrap_or("—"))?;
            match &f.error {
                Some(error) => {
                    let mut lines = error.lines().take(ERROR_LINES);
                    writeln!(out, "Error: {}", lines.next().unwrap_or(""))?;
                    for line in lines {
                        writeln!(out, "  {line}")?;
                    }
                }
                None => writeln!(out, "Error: (none recorded)")?,
            }
            writeln!(out, "Attempts: {}", f.attempts)?;
            if !f.left.is_empty() {
                // A revert that did not undo everything says what is left.
                writeln!(out, "Not reverted (left modified):")?;
                for l in &f.left {
                    writeln!(out, "  - {}: {}", l.path, l.reason)?;
                }
                let paths: Vec<&str> = f.left.iter().map(|l| l.path.as_str()).collect();
                writeln!(
                    out,
                    "  Inspect: git diff HEAD -- {0}; drop once checked: git checkout HEAD -- {0}",
                    paths.join(" ")
                )?;
            }
            writeln!(out)?;
        }
        if more_failures > 0 {
            writeln!(out, "{}", left_out(more_failures, "failed steps", detail))?;
            writeln!(out)?;
        }
    }

    if !r.remaining.is_empty() {
        writeln!(out, "### What Remains")?;
        writeln!(out)?;
        // A long list in brief is ranges; otherwise every step is its own row.
        let entries = if detail.brief() && r.remaining.len() > brief::LONG_LIST {
            brief::ranges(&r.remaining)
        } else {
            r.remaining.iter().map(Entry::One).collect()
        };
        for (i, entry) in entries.iter().enumerate() {
            match entry {
                Entry::One(s) => writeln!(
                    out,
                    "{}. Step {}: {} ({})",
                    i + 1,
                    s.step,
                    s.description,
                    s.status
                )?,
                Entry::Range(run) => writeln!(
                    out,
                    "{}. Steps {}: {} steps ({})",
                    i + 1,
                    brief::span(run),
                    run.len(),
                    run.first().map_or("", |s| s.status)
                )?,
            }
        }
        writeln!(out)?;
    }
    if r.result != "completed" {
        // A multi-session run is continued by its parent's command only.
        if r.sessions.is_empty() {
            writeln!(
                out,
                "To resume (single session): /trekexecute --resume {}",
                r.plan
            )?;
        }
        writeln!(
            out,
            "To continue (multi-session waves): re-run the same /trekexecute command (not --resume)"
        )?;
        writeln!(out)?;
    }

    // What the scope audit put back: said even when a later attempt
    // passed, since the agent did write there.
    let scope: Vec<String> = r.steps.iter().filter_map(StepRow::scope_line).collect();
    if !scope.is_empty() {
        writeln!(out, "### Scope")?;
        writeln!(out)?;
        writeln!(
            out,
            "Writes outside a step's Files, put back by its scope audit (`git apply PATCH` at the root brings them back):"
        )?;
        bullets(&scope, detail, out)?;
        writeln!(out)?;
    }

    let blocks: Vec<String> = r
        .security_blocks
        .iter()
        .map(|b| {
            format!(
                "{}: `{}` — {} ({}): {}",
                place(b),
                b.command,
                b.name,
                b.rule,
                b.detail
            )
        })
        .collect();
    // Beyond the template: shown only when there is something to show.
    for (heading, items) in [("Security Blocks", &blocks), ("Advisories", &r.advisories)] {
        if !items.is_empty() {
            writeln!(out, "### {heading}")?;
            writeln!(out)?;
            bullets(items, detail, out)?;
            writeln!(out)?;
        }
    }

    // One line: a JSON reader needs no layout, and the reader of the
    // report has read every fact above.
    writeln!(out, "```json")?;
    let mut summary = serde_json::to_value(&r.trekexecute_summary).unwrap_or(Value::Null);
    if detail.brief() {
        summary = brief::summary(summary);
    }
    let block = serde_json::json!({ "trekexecute_summary": summary });
    serde_json::to_writer(&mut *out, &block)?;
    writeln!(out)?;
    writeln!(out, "```")
}

/// `--json`: the report's data with `trekexecute_summary` beside it.
pub(super) fn json(r: &Report, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    writeln!(out)
}

/// Whether a brief report of `r` leaves anything out.
fn summarised(r: &Report) -> bool {
    let failures = r
        .steps
        .iter()
        .filter(|s| s.status == "failed" || s.status == "blocked")
        .count();
    let scoped = r
        .steps
        .iter()
        .filter(|s| !s.scope_violations.is_empty())
        .count();
    [
        r.steps.len(),
        scoped,
        r.remaining.len(),
        r.manifest_audit.drift_details.len(),
        r.advisories.len(),
        r.security_blocks.len(),
        failures,
    ]
    .iter()
    .any(|n| *n > brief::LONG_LIST)
}
