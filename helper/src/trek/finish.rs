//! `trek finish`: Phases 7 to 9. Without `--gate` it runs the plan's
//! verification (or the session's exit condition), the independent
//! manifest audit, the recovery dispatch where the seed asks for one, and
//! brings the run to the main-merge gate; `--gate confirm|decline` then
//! records the final status through the completion gate, writes the state
//! pair, prints the report with its `trekexecute_summary`, appends the
//! stats record and removes the run marker. A run that stopped early
//! (escalation, failure, the sandbox sentinel) skips the verification and
//! the gate and is finalised at once: there is nothing to merge.

use std::path::Path;

use serde_json::json;

use super::cli::GateAnswer;
use super::code;
use super::context::{self, Run};
use super::invoke::field;
use super::invoke::invoke;
use super::reply::{Next, Reply};
use super::stop;
use crate::exit;
use crate::plan::PlanKind;
use crate::problem::Problem;
use crate::progress::StepStatus;

/// The main-merge question, as the user is asked it.
pub(super) const QUESTION: &str = "Question: All steps are done and audited. Ready to proceed with the main-merge step and finalize the run? (Confirm — main-merge / Decline — hold for review)";

/// Runs `trek finish`.
pub(super) fn finish(gate: Option<GateAnswer>, wave_plan: Option<&Path>) -> Reply {
    let result = match wave_plan {
        Some(plan) => super::waves::finish(plan, gate),
        None => finish_inner(gate),
    };
    result.unwrap_or_else(|p| stop::problem("finish", &p))
}

/// Whether every step of the run is completed or skipped.
fn all_done(run: &Run) -> Result<bool, Problem> {
    let file = context::load_progress(&run.progress_path)?;
    Ok(file.steps.values().all(|r| {
        matches!(
            r.status,
            StepStatus::Completed | StepStatus::Passed | StepStatus::Skipped
        )
    }))
}

fn finish_inner(gate: Option<GateAnswer>) -> Result<Reply, Problem> {
    let run = Run::here()?;
    let mut reply = Reply::new("finish", Next::Stop, "in_progress");
    reply.plan = Some(run.plan_arg());
    reply.progress = Some(run.progress_arg());
    let done = all_done(&run)?;
    let early = run.decided.stop.clone();

    if let Some(answer) = gate {
        if early.is_some() || !done {
            return Err(Problem::new(
                code::TREK_GATE,
                "no main-merge gate is pending: the run stopped early or has steps left; run `trek finish` without --gate",
            ));
        }
        let plan = run.plan_arg();
        let (event, payload, status) = match answer {
            GateAnswer::Confirm => ("main-merge-approved", json!({ "plan": plan }), "completed"),
            GateAnswer::Decline => (
                "main-merge-declined",
                json!({ "plan": plan, "reason": "hold-for-review" }),
                "partial",
            ),
        };
        emit(event, &payload, &mut reply);
        if answer == GateAnswer::Decline {
            reply.push("Declined: nothing is finalized; the run is recorded as partial and the commits stay for review. /trekexecute --resume returns to this gate.");
        }
        return finalize(&run, status, reply);
    }

    let plan = run.plan_arg();
    let progress = run.progress_arg();
    let root = run.root.display().to_string();
    if early.is_none() && done {
        // Phase 7: the plan's own check of the whole.
        let criteria = invoke(&[
            "criteria", "run", "--plan", &plan, "--cwd", &root, "--record", &progress,
        ])?;
        reply.push_text(&criteria.stdout);
    } else if early.is_none() {
        reply.push("Phase 7 skipped: not every step ran (step mode or steps left).");
    }

    // Phase 7.5: the independent audit.
    let audit = invoke(&[
        "audit",
        "session",
        "--plan",
        &plan,
        "--progress",
        &progress,
        "--start",
        &run.decided.start_sha,
        "--record",
    ])?;
    reply.push_text(&audit.stdout);
    let drift = audit.code != exit::OK;

    // Phase 7.6: a recovery session for a drifted session spec, only from
    // the parent run (a `--session N` child escalates instead).
    if drift
        && early.is_none()
        && run.plan.kind == PlanKind::SessionSpec
        && run.decided.session.is_none()
    {
        let out = run
            .plan_path
            .parent()
            .map_or_else(|| ".".to_owned(), |d| d.display().to_string());
        let recovery = invoke(&[
            "recovery",
            "spec",
            "--plan",
            &plan,
            "--progress",
            &progress,
            "--out",
            &out,
        ])?;
        reply.push_text(&recovery.stdout);
    }

    match early {
        Some(status) => finalize(&run, &status, reply),
        None if !done => finalize(&run, "partial", reply),
        None => {
            // The main-merge gate: always asked, in every gates mode.
            let gates = run.decided.gates.clone();
            let event = if drift { "audit-drift" } else { "audit-pass" };
            let mut args = vec![
                "gate",
                "--state",
                "auditing",
                "--event",
                event,
                "--no-record",
                "--json",
            ];
            if !gates.is_empty() {
                args.extend(["--gates", gates.as_str()]);
            }
            let decision = invoke(&args)?.json_or("gate")?;
            if field(&decision, "/boundary") == "gates-halt" {
                reply.push("Gates closed: the audit drifted, so the run halts here for you first.");
            }
            let payload = json!({ "plan": plan, "wave_count": 1 });
            emit("main-merge-gate", &payload, &mut reply);
            reply.push(QUESTION);
            reply.next = Next::AskMainMerge;
            Ok(reply)
        }
    }
}

/// Records a lifecycle event; a failure is one line, never a stop.
pub(super) fn emit(event: &str, payload: &serde_json::Value, reply: &mut Reply) {
    let payload = payload.to_string();
    match invoke(&["event", "emit", "--event", event, "--payload", &payload]) {
        Ok(done) if done.ok() => {}
        Ok(done) => reply.push(format!(
            "event {event} not written: {}",
            done.json()
                .and_then(|v| field(&v, "/reason").as_str().map(str::to_owned))
                .unwrap_or_else(|| done.stdout.trim().to_owned())
        )),
        Err(p) => reply.push(format!("event {event} not written: {}", p.message)),
    }
}

/// Phase 8 and 9: the final status, the state pair, the report, the stats.
fn finalize(run: &Run, status: &str, mut reply: Reply) -> Result<Reply, Problem> {
    let progress = run.progress_arg();
    let finished = invoke(&[
        "progress", "finish", "--file", &progress, "--status", status,
    ])?;
    reply.push_text(&finished.stdout);
    if let Some(project) = &run.decided.project {
        let recorded = crate::progress::load(&run.progress_path)
            .map(|p| p.status.as_str().to_owned())
            .unwrap_or_else(|_| status.to_owned());
        stop::state_pair(project, &recorded, &mut reply);
    }
    let report = invoke(&["report", "--progress", &progress])?;
    reply.report = Some(report.stdout.clone());
    let data = invoke(&["report", "--progress", &progress, "--json"])?;
    let summary = data
        .json()
        .map(|v| field(&v, "/trekexecute_summary").clone());
    let result = summary
        .as_ref()
        .and_then(|s| field(s, "/result").as_str())
        .unwrap_or(status)
        .to_owned();
    reply.summary = summary;

    let mut stats = vec!["report", "--progress", &progress, "--stats-record"];
    if let Some(profile) = run.decided.profile.as_deref() {
        stats.extend(["--profile", profile]);
        if let Some(source) = run.decided.profile_source.as_deref() {
            stats.extend(["--profile-source", source]);
        }
    }
    let record = invoke(&stats)?;
    let line = record.stdout.trim().to_owned();
    match invoke(&["stats", "append", "trekexecute", &line]) {
        Ok(done) if done.ok() => {}
        Ok(done) => reply.push(format!("stats: not written: {}", done.stdout.trim())),
        Err(p) => reply.push(format!("stats: not written: {}", p.message)),
    }
    stop::remove_marker(&mut reply);
    reply.status = result.clone();
    reply.exit = if result == "completed" {
        exit::OK
    } else {
        exit::NOT_OK
    };
    Ok(reply)
}
