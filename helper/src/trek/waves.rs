//! The multi-session path of `trek start` (Phase 2.6): Voyage never starts
//! a session, so a run here prepares one wave of session orders and stops,
//! and the next run collects that wave, merges it and prepares the next.
//! Once every wave is merged, the plan's verification runs on the
//! integrated result and the run comes to the main-merge gate, answered
//! with `trek finish --gate … --plan PLAN`.

use std::path::Path;

use serde_json::json;

use super::cli::GateAnswer;
use super::code;
use super::finish::{QUESTION, emit};
use super::invoke::invoke;
use super::reply::{Next, Reply};
use crate::exit;
use crate::problem::Problem;

fn standing(plan: &str) -> Result<(bool, Option<u32>), Problem> {
    crate::wave::standing(Path::new(plan)).map_err(|(_, p)| p)
}

/// Runs the multi-session path from the main checkout.
pub(super) fn run(mut reply: Reply, plan: &str, project: Option<&Path>) -> Result<Reply, Problem> {
    let project = project.map(|p| p.display().to_string());
    let (in_flight, mut next) = standing(plan)?;
    if in_flight {
        let collected = invoke(&["wave", "collect", "--plan", plan])?;
        reply.push_text(&collected.stdout);
        let (still, after) = standing(plan)?;
        if still || !collected.ok() {
            reply.status = if still { "handover" } else { "failed" }.into();
            reply.exit = if still { exit::OK } else { exit::NOT_OK };
            if !still {
                let report = invoke(&["wave", "report", "--plan", plan])?;
                reply.report = Some(report.stdout);
            }
            return Ok(reply);
        }
        next = after;
    } else if next.is_some() {
        let mut args = vec!["wave", "preflight", "--plan", plan];
        if let Some(p) = project.as_deref() {
            args.extend(["--project", p]);
        }
        let preflight = invoke(&args)?;
        reply.push_text(&preflight.stdout);
        if !preflight.ok() {
            reply.status = "stopped".into();
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
    }
    match next {
        Some(_) => {
            let mut args = vec!["wave", "prepare", "--plan", plan];
            if let Some(p) = project.as_deref() {
                args.extend(["--project", p]);
            }
            let prepared = invoke(&args)?;
            reply.push_text(&prepared.stdout);
            reply.status = if prepared.ok() { "handover" } else { "failed" }.into();
            reply.exit = prepared.code;
            Ok(reply)
        }
        None => {
            // Step 4: the master verification, then the gate.
            let criteria = invoke(&["criteria", "run", "--plan", plan])?;
            reply.push_text(&criteria.stdout);
            let payload = json!({ "plan": plan, "wave_count": merged_waves(plan) });
            emit("main-merge-gate", &payload, &mut reply);
            reply.push(QUESTION);
            reply.push(format!(
                "Answer with: trek finish --gate confirm|decline --plan {plan}"
            ));
            reply.next = Next::AskMainMerge;
            Ok(reply)
        }
    }
}

fn merged_waves(plan: &str) -> usize {
    crate::plan::load(Path::new(plan))
        .ok()
        .and_then(|p| p.strategy.map(|s| crate::orders::waves(&s).len()))
        .unwrap_or(0)
}

/// `trek finish --gate … --plan PLAN`: the main-merge gate of a
/// multi-session run whose waves are all merged.
pub(super) fn finish(plan: &Path, gate: Option<GateAnswer>) -> Result<Reply, Problem> {
    let plan = plan.display().to_string();
    let Some(answer) = gate else {
        return Err(Problem::new(
            code::TREK_GATE,
            "--plan goes with --gate confirm|decline: it answers a multi-session run's main-merge gate",
        ));
    };
    let (in_flight, next) = standing(&plan)?;
    if in_flight || next.is_some() {
        return Err(Problem::new(
            code::TREK_GATE,
            "not every wave is merged yet: re-run /trekexecute on the plan to collect or prepare the next wave",
        ));
    }
    let mut reply = Reply::new("finish", Next::Stop, "completed");
    reply.plan = Some(plan.clone());
    match answer {
        GateAnswer::Confirm => {
            emit("main-merge-approved", &json!({ "plan": plan }), &mut reply);
            let report = invoke(&["wave", "report", "--plan", &plan])?;
            reply.report = Some(report.stdout);
            let verified = invoke(&["criteria", "run", "--plan", &plan])?;
            if verified.ok() {
                let cleared = invoke(&["orders", "clear", "--plan", &plan])?;
                reply.push_text(&cleared.stdout);
            } else {
                reply.push_text(&verified.stdout);
                reply.push("The master verification does not pass: the orders directory is kept; fix it and re-run /trekexecute.");
                reply.status = "failed".into();
                reply.exit = exit::NOT_OK;
            }
        }
        GateAnswer::Decline => {
            emit(
                "main-merge-declined",
                &json!({ "plan": plan, "reason": "hold-for-review" }),
                &mut reply,
            );
            reply.push("Declined: the merged waves stay on this branch for review and the merged-waves record is kept; re-run /trekexecute (not --resume) to come back to this gate.");
            reply.status = "partial".into();
            reply.exit = exit::NOT_OK;
        }
    }
    Ok(reply)
}
