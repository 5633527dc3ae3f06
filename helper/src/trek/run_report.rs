//! The gate's answer on the multi-session path ends with the Phase 8
//! report of the whole plan (seed Phase 2.6 Step 6): built by the report
//! area from the archived session copies and the master verification, and
//! followed by one Phase 9 record for the run as a whole.
//!
//! Each session's own run already wrote its record (mode `session`); the
//! run's record says mode `multi-session` and names its sessions, and
//! `stats show` counts the sessions' records apart from runs, so no run
//! and no step is counted twice. The run's id is derived from its archived
//! copies and the answer: the same answer given again (a retried call)
//! finds its record and writes none, while a decline and the confirm
//! after it are two ends, each recorded, as a single run's decline and
//! the resume after it are.

use std::path::Path;

use serde_json::Value;

use super::reply::Reply;
use crate::wave::Target;

/// How the gate was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    Confirmed,
    Declined,
}

impl Answer {
    fn word(self) -> &'static str {
        match self {
            Self::Confirmed => "confirmed",
            Self::Declined => "declined",
        }
    }
}

/// The report of the whole run, as the reply carries it.
#[derive(Debug, Default)]
pub(super) struct Made {
    pub text: String,
    pub summary: Option<Value>,
}

/// Puts the report of the whole run in `reply` (its `report`, `summary`
/// and the status and exit of its result) and, when the run ends here (a decline, or a confirm whose
/// master verification passed), appends its Phase 9 record once. A report
/// that cannot be made is one line, never a stop: the answer stands.
pub(super) fn at_gate(
    here: &Path,
    plan: &str,
    master: &crate::criteria::Verification,
    answer: Answer,
    reply: &mut Reply,
) -> Made {
    let target = Target::plan_from(Path::new(plan), here);
    let (orders_dir, archives) = match crate::wave::archives(&target) {
        Ok(found) => found,
        Err((_, p)) => {
            reply.push(format!(
                "The report of the whole run was not made: {}",
                p.message
            ));
            return Made::default();
        }
    };
    let budget = crate::progress::budget_from_env();
    let request = crate::report::RunRequest {
        plan: Path::new(plan),
        orders_dir: &orders_dir,
        archives: &archives,
        master: master.record(),
        declined: answer == Answer::Declined,
        notes: note(answer, master.passed()).into_iter().collect(),
        budget: &budget,
    };
    let built = match crate::report::build_run(&request) {
        Ok(built) => built,
        Err(p) => {
            reply.push(format!(
                "The report of the whole run was not made: {}",
                p.message
            ));
            return Made::default();
        }
    };
    let made = Made {
        text: built.full_text(),
        summary: Some(built.summary()),
    };
    reply.report = Some(made.text.clone());
    reply.summary.clone_from(&made.summary);
    // The reply ends as the report does, as a single run's finish does.
    reply.status = built.result().to_owned();
    reply.exit = if built.result() == "completed" {
        crate::exit::OK
    } else {
        crate::exit::NOT_OK
    };
    if answer == Answer::Declined || master.passed() {
        let record = super::said::passing_on(|| {
            built.stats_record(
                None,
                None,
                std::env::var(crate::profile::PROFILE_ENV).ok(),
                crate::data_dir::resolve().as_deref(),
            )
        });
        let id = run_id(&archives, answer);
        super::finish::append_once(Some(&id), &record.to_string(), reply);
    }
    made
}

/// Writes the gate's events and the run's record where its sessions
/// wrote theirs: the data directory a variable named when they started
/// (recorded in their progress copies), unless one is named here. An
/// operator answering from a shell names none.
pub(super) fn adopt_sessions_data_dir(here: &Path, plan: &str) {
    let target = Target::plan_from(Path::new(plan), here);
    let Ok((_, archives)) = crate::wave::archives(&target) else {
        return;
    };
    let recorded = archives.iter().find_map(|a| {
        super::context::read_decided(&a.path)
            .ok()
            .and_then(|d| d.data_dir)
    });
    if let Some(dir) = recorded {
        crate::data_dir::adopt(dir.into());
    }
}

/// What the answer does to the archived copies the report names.
fn note(answer: Answer, passed: bool) -> Option<String> {
    match answer {
        Answer::Declined => Some("the main-merge gate was declined: nothing is finalized, the orders directory keeps its archived session copies, and re-running /trekexecute on the plan (not --resume) comes back to the gate".into()),
        Answer::Confirmed if passed => Some("this confirm clears the orders directory and the archived session copies named below with it: this report is kept in the plan's finished record, and the same confirm given again shows it".into()),
        Answer::Confirmed => None,
    }
}

/// The run's id: its archived copies (which no later call changes) and
/// the answer, so each end of the run is recorded once.
fn run_id(archives: &[crate::report::Archive], answer: Answer) -> String {
    let mut bytes = Vec::new();
    for a in archives {
        bytes.extend(a.path.display().to_string().into_bytes());
        bytes.push(0);
        bytes.extend(std::fs::read(&a.path).unwrap_or_default());
        bytes.push(0);
    }
    let digest = crate::orders::sha256_hex(&bytes);
    format!(
        "waves-{}-{}",
        digest.get(..16).unwrap_or(&digest),
        answer.word()
    )
}
