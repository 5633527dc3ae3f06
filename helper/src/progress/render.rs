//! `progress show` as text, and the replies of the writing subcommands
//! (schema `progress-reply`).

use std::io::{self, Write};

use serde::Serialize;

use super::budget::MAX_ATTEMPTS;
use super::model::Progress;
use crate::problem::Problem;

/// What `progress init|step|finish|resume-point --json` print.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Reply {
    pub ok: bool,
    pub action: &'static str,
    pub path: String,
    /// The step changed, or for resume-point the step to resume from (null
    /// when every step is completed).
    pub step: Option<u32>,
    /// The step's new status (step), the run's status (init, finish,
    /// resume-point).
    pub status: Option<String>,
    pub previous_status: Option<String>,
    pub attempts: Option<u32>,
    /// This step change started a retry and spent one budget iteration.
    pub retry: bool,
    pub iterations_remaining: Option<u32>,
    pub completed_steps: u32,
    pub total_steps: u32,
    /// resume-point and step: a missing iterations_remaining was seeded.
    pub backfilled: bool,
    pub warnings: Vec<String>,
    pub problem: Option<Problem>,
    /// finish: the completion gate that overrode `completed` (absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_gate: Option<super::gate::Gate>,
}

impl Reply {
    pub(super) fn new(action: &'static str, path: &std::path::Path) -> Self {
        Self {
            ok: true,
            action,
            path: path.display().to_string(),
            step: None,
            status: None,
            previous_status: None,
            attempts: None,
            retry: false,
            iterations_remaining: None,
            completed_steps: 0,
            total_steps: 0,
            backfilled: false,
            warnings: Vec::new(),
            problem: None,
            completion_gate: None,
        }
    }

    /// Fills the counts from the document.
    #[must_use]
    pub(super) fn counted(mut self, progress: &Progress) -> Self {
        let tally = progress.tally();
        self.completed_steps = tally.completed;
        self.total_steps = tally.total;
        self.iterations_remaining = progress.iterations_remaining;
        self
    }

    /// This reply as a refusal: `ok` false, with its problem.
    #[must_use]
    pub(super) fn refused(&self, problem: &Problem) -> Self {
        let mut reply = self.clone();
        reply.ok = false;
        reply.problem = Some(problem.clone());
        reply
    }

    pub(super) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        writeln!(out)
    }
}

/// `progress show` for people.
pub(super) fn render_show(path: &str, p: &Progress, out: &mut impl Write) -> io::Result<()> {
    let t = p.tally();
    writeln!(out, "progress  {path}")?;
    writeln!(
        out,
        "plan      {} ({}, version {})",
        p.plan, p.plan_type, p.plan_version
    )?;
    writeln!(
        out,
        "run       {}, mode {}, current step {}",
        p.status, p.mode, p.current_step
    )?;
    writeln!(
        out,
        "steps     {} of {} completed, {} failed, {} skipped, {} blocked, {} in progress, {} pending",
        t.completed, t.total, t.failed, t.skipped, t.blocked, t.in_progress, t.pending
    )?;
    match p.iterations_remaining {
        Some(n) => writeln!(out, "budget    {n} recovery/retry iterations left")?,
        None => writeln!(out, "budget    not recorded (seeded on resume)")?,
    }
    if !p.updated_at.is_empty() {
        writeln!(out, "updated   {}", p.updated_at)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "  {:>4}  {:<11}  {:>8}  {:<10}  {:<20}  error",
        "step", "status", "attempts", "commit", "completed at"
    )?;
    for (key, r) in &p.steps {
        let commit: String = r.commit.as_deref().unwrap_or("").chars().take(10).collect();
        let error = r
            .error
            .as_deref()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let line = format!(
            "  {:>4}  {:<11}  {:>8}  {:<10}  {:<20}  {}",
            key.0,
            r.status.as_str(),
            format!("{}/{MAX_ATTEMPTS}", r.attempts),
            commit,
            r.completed_at.as_deref().unwrap_or(""),
            error
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
