//! Text and JSON for `scan command`, written to any writer.
//!
//! Text, one block per finding, then a closing line:
//!
//! ```text
//! BLOCKED: rm-recursive-force (Recursive force delete)
//!   Command: rm -rf build
//!   Why: recursive forced delete (-r and -f)
//!   Inside: bash -c
//!   Safer: Delete the specific files by name without -f, …
//! RESULT: BLOCKED (1 blocked, 0 warnings)
//! ```
//!
//! `Inside:` appears only for nested code. JSON is one object per the
//! `scan-command` schema.

use std::io::{self, Write};

use serde::Serialize;

use crate::finding::{Decision, Finding, Judgement, one_line_text};
use crate::rule::Severity;

/// One finding on the wire (`scan command --json`, `scan plan --json`).
#[derive(Debug, Serialize)]
pub struct FindingJson<'a> {
    /// The rule's stable id.
    pub rule: &'static str,
    pub severity: Severity,
    /// The rule's pattern name.
    pub name: &'static str,
    /// The command as judged.
    pub command: &'a str,
    pub detail: &'a str,
    /// Outermost first; empty at the top level.
    pub via: &'a [String],
    /// The safer alternative.
    pub instead: &'static str,
}

impl<'a> From<&'a Finding> for FindingJson<'a> {
    fn from(f: &'a Finding) -> Self {
        Self {
            rule: f.rule.id,
            severity: f.rule.severity,
            name: f.rule.name,
            command: &f.command,
            detail: &f.detail,
            via: &f.via,
            instead: f.instead,
        }
    }
}

/// `scan command --json`.
#[derive(Debug, Serialize)]
struct CommandJson<'a> {
    command: &'a str,
    decision: Decision,
    findings: Vec<FindingJson<'a>>,
}

/// The closing line's counts: `1 blocked, 2 warnings`.
pub(super) fn counts(judgement: &Judgement) -> String {
    let blocked = judgement.with(Severity::Block).count();
    let warnings = judgement.with(Severity::Warn).count();
    let plural = if warnings == 1 { "" } else { "s" };
    format!("{blocked} blocked, {warnings} warning{plural}")
}

pub fn render_text(judgement: &Judgement, out: &mut impl Write) -> io::Result<()> {
    for finding in &judgement.findings {
        writeln!(
            out,
            "{}: {} ({})",
            finding.severity().label(),
            finding.rule.id,
            finding.rule.name
        )?;
        writeln!(out, "  Command: {}", one_line_text(&finding.command))?;
        writeln!(out, "  Why: {}", one_line_text(&finding.detail))?;
        if !finding.via.is_empty() {
            writeln!(out, "  Inside: {}", finding.via.join(" > "))?;
        }
        writeln!(out, "  Safer: {}", finding.instead)?;
    }
    writeln!(
        out,
        "RESULT: {} ({})",
        judgement.decision().label(),
        counts(judgement)
    )
}

pub fn render_json(command: &str, judgement: &Judgement, out: &mut impl Write) -> io::Result<()> {
    let doc = CommandJson {
        command,
        decision: judgement.decision(),
        findings: judgement.findings.iter().map(FindingJson::from).collect(),
    };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)
}
