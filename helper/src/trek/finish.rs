//! `trek finish`: Phases 7 to 9. Without `--gate` it runs the plan's
//! verification (or the session's exit condition), the independent
//! manifest audit, the recovery dispatch where the seed asks for one, and
//! brings the run to the main-merge gate; `--gate confirm|decline` then
//! records the final status through the completion gate, writes the state
//! pair, prints the report with its `trekexecute_summary`, appends the
//! stats record and removes the run marker. A run that stopped early
//! (escalation, failure, the sandbox sentinel) skips the verification and
//! the gate and is finalised at once: there is nothing to merge.
//!
//! A `--session N` run of a multi-session plan is one share of the work:
//! the plan's Verification checks the whole, so it is deferred to the
//! master verification the parent runs after the last merge, and the
//! session is finalised without a gate (its branch is merged by the
//! parent, whose gate is the one that publishes anything).
//!
//! The gate is a person's: where nobody can be asked (`claude -p`), the
//! reply says to stop and the answer is refused to the session
//! ([`crate::claude_session`]); the operator gives it from a shell.

use std::path::Path;

use serde_json::json;

use super::cli::GateAnswer;
use super::code;
use super::context::{self, Run};
use super::reply::{GateCall, Next, Reply};
use super::stop;
use crate::claude_session::{self, Asker};
use crate::exit;
use crate::plan::PlanKind;
use crate::problem::Problem;
use crate::progress::StepStatus;

/// The main-merge question, as the user is asked it.
pub(super) const QUESTION: &str = "Question: All steps are done and audited. Ready to proceed with the main-merge step and finalize the run? (Confirm — main-merge / Decline — hold for review)";

/// Brings the reply to the main-merge gate: the question, and the call
/// that answers it with every argument it needs (`gate`). Where no one
/// can be asked, the agent is told to stop instead of answering.
/// `again`: the command that brings an interactive session back here.
/// `question`: [`QUESTION`], or what a run branch's confirm merges.
pub(super) fn ask_gate(reply: &mut Reply, question: String, gate: GateCall, again: &str) {
    reply.push(question);
    if claude_session::asker() == Asker::UnattendedSession {
        reply.push(format!(
            "Nobody can be asked in this session, so the run waits at the gate. The operator answers in a terminal with the call the NEXT line names for the answer, or with {again} in an interactive session."
        ));
        reply.next = Next::AwaitOperator;
    } else {
        reply.next = Next::AskMainMerge;
    }
    reply.call = Some(gate.either());
    reply.gate = Some(gate);
}

/// Who gives the gate's answer from this process, or the refusal when it
/// would be the model answering for the user.
pub(super) fn answerer(gate: &GateCall) -> Result<Asker, Problem> {
    match claude_session::asker() {
        Asker::UnattendedSession => Err(Problem::new(
            code::TREK_GATE_UNATTENDED,
            format!(
                "the main-merge gate is the user's to answer, and nobody can be asked in this Claude Code session (CLAUDE_CODE_ENTRYPOINT says it runs unattended): stop here and say the run waits at the gate; the operator answers in a terminal with `{}` (or `decline` in its place)",
                gate.operator("confirm")
            ),
        )),
        who => Ok(who),
    }
}

/// Runs `trek finish`; `advisory`: a session's run also runs the plan's
/// Verification, as information, never as its gate.
pub(super) fn finish(
    here: &Path,
    gate: Option<GateAnswer>,
    wave_plan: Option<&Path>,
    advisory: bool,
) -> Reply {
    let result = match wave_plan {
        Some(plan) => super::waves::finish(here, plan, gate),
        None => finish_inner(here, gate, advisory),
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

/// Whether the run is one session's share of a multi-session plan, whose
/// Verification is the master verification's.
fn session_share(run: &Run) -> Option<u32> {
    run.decided
        .session
        .filter(|_| run.plan.kind == PlanKind::Trekplan && run.plan.strategy.is_some())
}

fn finish_inner(here: &Path, gate: Option<GateAnswer>, advisory: bool) -> Result<Reply, Problem> {
    let mut run = Run::here_finishing(here)?;
    let mut reply = run.reply("finish", Next::Stop);
    super::step::reconcile(&mut run, &mut reply)?;
    // A finish cut short after the final status was recorded: what it had
    // still to do is done now, once; the status stands.
    let recorded = context::load_progress(&run.progress_path)?.status;
    if recorded != crate::progress::RunStatus::InProgress {
        reply.push(format!(
            "The run's final status ({recorded}) was recorded by a finish that did not get to its end: completing it."
        ));
        return finalize(&run, recorded.as_str(), reply);
    }
    // The run's commits are on its run branch: the checks below read that
    // checkout (or the start branch a confirm cut short merged them into).
    if let Some(branches) = &run.decided.branches {
        let again = crate::helper_call::call(match gate {
            Some(GateAnswer::Confirm) => &["trek", "finish", "--gate", "confirm"][..],
            Some(GateAnswer::Decline) => &["trek", "finish", "--gate", "decline"][..],
            None => &["trek", "finish"][..],
        });
        match super::run_branch::ensure_on(&run.root, branches, true, &again) {
            Ok(line) => reply.lines.extend(line),
            Err(lines) => {
                reply.lines.extend(lines);
                reply.status = "in_progress".into();
                reply.exit = exit::NOT_OK;
                return Ok(reply);
            }
        }
    }
    let done = all_done(&run)?;
    let early = run.decided.stop.clone();
    let root = run.root.display().to_string();
    let share = session_share(&run);
    let changed = run.plan_change();
    let plan_changed = changed.is_some();
    reply.lines.extend(changed);

    if let Some(answer) = gate {
        if early.is_some() || !done || share.is_some() {
            return Err(Problem::new(
                code::TREK_GATE,
                if share.is_some() {
                    "a session's run has no main-merge gate: its branch is merged by the parent run; run `trek finish` without --gate"
                } else {
                    "no main-merge gate is pending: the run stopped early or has steps left; run `trek finish` without --gate"
                },
            ));
        }
        let who = answerer(&GateCall::new(Vec::new(), &root))?;
        let plan = run.plan_arg();
        let by = who.word();
        let (event, payload, status, word) = match answer {
            // The plan the run was measured against is not the one it ran:
            // the answer is recorded, the run is not completed.
            GateAnswer::Confirm if plan_changed => (
                "main-merge-approved",
                json!({ "plan": plan, "answered_by": by }),
                "partial",
                "confirmed",
            ),
            GateAnswer::Confirm => (
                "main-merge-approved",
                json!({ "plan": plan, "answered_by": by }),
                "completed",
                "confirmed",
            ),
            GateAnswer::Decline => (
                "main-merge-declined",
                json!({ "plan": plan, "reason": "hold-for-review", "answered_by": by }),
                "partial",
                "declined",
            ),
        };
        record_gate(&run, word, Some(by), &mut reply);
        if answer == GateAnswer::Confirm && !merge_run_branch(&run, &mut reply) {
            // Nothing was merged: the answer is taken back, and the run
            // waits at the gate until the merge is made.
            record_gate(&run, "awaiting", None, &mut reply);
            return Ok(reply);
        }
        emit_once(&run, event, payload, &mut reply);
        if answer == GateAnswer::Decline {
            let again = match &run.decided.project {
                Some(dir) => format!(
                    "/trekexecute --project {} --resume",
                    crate::shell::quote(dir)
                ),
                None => format!(
                    "/trekexecute --resume {}",
                    crate::shell::quote(&run.plan_arg())
                ),
            };
            match &run.decided.branches {
                Some(b) => reply.lines.extend(super::run_branch::declined(
                    &run.root,
                    b,
                    &format!("{again} (it switches back to the run branch)"),
                )),
                None => reply.push("Declined: nothing is finalized; the run is recorded as partial and the commits stay for review. /trekexecute --resume returns to this gate."),
            }
        }
        return finalize(&run, status, reply);
    }

    // The checks read the plan the run is pinned to; replies and events
    // name the plan as the user does.
    let plan = run.plan_file_arg();
    let shown_plan = run.plan_arg();
    let progress = run.progress_arg();
    // Whether the plan's own check passed (a session's share defers it).
    let mut verified = true;
    if early.is_none() && done && share.is_some() {
        // Phase 7 for one session: the plan's check of the whole waits for
        // the master verification, after the last wave is merged.
        let reason = "the plan's Verification checks the integrated result: the master verification runs it in the main checkout after the last wave is merged";
        crate::progress::edit(&run.progress_path, |p| {
            p.plan_verification = json!({ "status": "deferred", "reason": reason });
        })?;
        reply.push("Plan verification: DEFERRED to the master verification (it checks the whole plan, after the last wave is merged); this session is judged by its steps and its manifest audit.");
        if advisory {
            let criteria = verification(&plan, Some(&run.plan), Some(&root), None);
            reply.push("Advisory run of the plan's Verification (information only, not this session's gate):");
            reply.push_text(&criteria.checklist());
        }
    } else if early.is_none() && done {
        // Phase 7: the plan's own check of the whole.
        let criteria = verification(&plan, Some(&run.plan), Some(&root), Some(&progress));
        if let Some(why) = criteria.interrupted() {
            // A signal to trek (the Bash tool's timeout, Ctrl-C) is not a
            // verdict on the plan: nothing is finalised, and the same call
            // runs the verification again.
            reply.push(format!(
                "Plan verification: INTERRUPTED — {why}. That is a signal sent to trek itself (the Bash tool's timeout, Ctrl-C, a closed terminal), not a failure of the plan: the run is unchanged."
            ));
            reply.push("To go on: trek finish (give the Bash call a timeout of 600000 ms).");
            reply.status = "interrupted".into();
            reply.next = Next::Stop;
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
        reply.push_text(&criteria.checklist());
        verified = criteria.passed();
    } else if early.is_none() {
        reply.push("The plan's verification is not run: not every step ran.");
    }

    // Phase 7.5: the independent audit. What it means for the run is said
    // below, once, by what this call does with it.
    let (audit, said) = crate::problem::holding(|| {
        told(
            crate::audit::audit_session(&crate::audit::SessionRequest {
                plan: &run.plan_file,
                loaded: Some(&run.plan),
                progress: &run.progress_path,
                start: &run.decided.start_sha,
                record: true,
                repo: Some(&run.root),
            })
            .map_err(|(_, p)| p),
        )
    });
    let drift = !matches!(&audit, Ok(found) if found.drift.is_empty());
    push_audit(&mut reply, &audit, &said, &full_report(&run));

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
        let request = crate::recovery::SpecRequest {
            plan: plan.clone().into(),
            progress: run.progress_path.clone(),
            out: out.into(),
            session: None,
            dir: Some(run.root.clone()),
        };
        let recovery = super::said::passing_on(|| {
            let recovery = crate::recovery::recover(&request);
            recovery.eprint();
            recovery
        });
        reply.push_text(&recovery.text);
        // The recovery order is handed over (or recovery is exhausted at
        // depth 2): either way the run stops here as partial, with
        // nothing to merge until the recovery session has run.
        reply.push("The run stops as partial: hand the recovery order above to a session you open yourself (at depth 2 the drift is yours to resolve).");
        return finalize(&run, "partial", reply);
    }

    match (early, share) {
        (Some(status), _) => finalize(&run, &status, reply),
        (None, _) if !done => finalize(&run, "partial", reply),
        (None, Some(n)) => {
            let mut reply = finalize(&run, "completed", reply)?;
            if reply.status == "completed" {
                reply.push(format!("Session {n} is done. Its branch is merged by the parent run: run /trekexecute on the plan again in the main checkout once every session of this wave is done."));
            }
            Ok(reply)
        }
        // Nothing fit to publish: the run is recorded as what it is, and
        // the main-merge question is not asked.
        (None, None) if plan_changed && verified && !drift => {
            reply.push("The plan was edited during the run, so the run is recorded as partial and no main-merge question is asked: its steps and checks were the old plan's. Start the edited plan afresh (--fresh) to run it as it is now.");
            finalize(&run, "partial", reply)
        }
        (None, None) if !verified || drift => {
            let status = if verified { "partial" } else { "failed" };
            reply.push(if verified {
                "The manifest audit drifted: there is nothing to publish, so no main-merge question; the run is recorded as partial. Fix the drift above, then /trekexecute --resume runs the checks again."
            } else {
                "The plan's verification did not pass: there is nothing to publish, so no main-merge question; the run is recorded as failed. Fix what failed above, then /trekexecute --resume runs the checks again."
            });
            finalize(&run, status, reply)
        }
        // The gate was answered by a finish that did not get to its end:
        // the answer stands, and is not asked for again.
        (None, None) if answered(&run).is_some() => {
            let (word, by) = answered(&run).unwrap_or_default();
            reply.push(format!(
                "The main-merge gate was already answered ({word} by the {by}) by a finish that did not get to its end: finishing with that answer."
            ));
            // The answer's event, unless the cut-short finish wrote it.
            let confirmed = word == "confirmed";
            let (event, payload) = if confirmed {
                (
                    "main-merge-approved",
                    json!({ "plan": shown_plan, "answered_by": by }),
                )
            } else {
                (
                    "main-merge-declined",
                    json!({ "plan": shown_plan, "reason": "hold-for-review", "answered_by": by }),
                )
            };
            if confirmed && !merge_run_branch(&run, &mut reply) {
                return Ok(reply);
            }
            emit_once(&run, event, payload, &mut reply);
            finalize(&run, if confirmed { "completed" } else { "partial" }, reply)
        }
        (None, None) => {
            // The main-merge gate: always asked when there is something
            // to publish, in every gates mode.
            let payload = json!({ "plan": shown_plan, "wave_count": 1 });
            record_gate(&run, "awaiting", None, &mut reply);
            emit_once(&run, "main-merge-gate", payload, &mut reply);
            let question = run.decided.branches.as_ref().map_or_else(
                || QUESTION.to_owned(),
                |b| super::run_branch::question(&run.root, b),
            );
            ask_gate(
                &mut reply,
                question,
                GateCall::new(Vec::new(), &root),
                "/trekexecute --resume",
            );
            Ok(reply)
        }
    }
}

/// A confirm's merge of the run branch into the branch the run started
/// from, said in `reply`; `true` when it is made (or there is no run
/// branch). `false`: nothing was merged, and the reply says why and how to
/// finish by hand; the run stays in progress at the gate.
fn merge_run_branch(run: &Run, reply: &mut Reply) -> bool {
    let Some(branches) = &run.decided.branches else {
        return true;
    };
    let merged = super::run_branch::merge(
        &run.root,
        branches,
        "voyage-helper trek finish --gate confirm",
    );
    match merged {
        Ok(super::run_branch::Merged::Done(lines)) => {
            reply.lines.extend(lines);
            true
        }
        Ok(super::run_branch::Merged::Stopped(lines)) | Err(lines) => {
            reply.lines.extend(lines);
            reply.status = "in_progress".into();
            reply.next = Next::Stop;
            reply.exit = exit::NOT_OK;
            false
        }
    }
}

/// The plan's criteria run in `cwd` (the git work tree holding the current
/// directory by default), recorded in `record`'s progress file when given;
/// `loaded`: the plan at `plan`, when the caller has read it.
pub(super) fn verification(
    plan: &str,
    loaded: Option<&crate::plan::Plan>,
    cwd: Option<&str>,
    record: Option<&str>,
) -> crate::criteria::Verification {
    let request = crate::criteria::Request {
        plan: Path::new(plan),
        loaded,
        cwd: cwd.map(Path::new),
        // Inside the Bash tool's ten minutes, as for a step's Verify.
        timeout: std::time::Duration::from_secs(super::step::COMMAND_TIMEOUT_SECS),
        record: record.map(Path::new),
    };
    super::said::passing_on(|| crate::criteria::run_criteria(&request))
}

/// The session audit's finding in one line, and each drift item (of a
/// long list, the first few and how many more, `full` printing them all):
/// what it means for the run (partial, no question) is the reply's next
/// line.
fn push_audit(
    reply: &mut Reply,
    audit: &Result<crate::audit::SessionFindings, Problem>,
    said: &[String],
    full: &str,
) {
    let found = match audit {
        Ok(found) => found,
        Err(p) => {
            let why = if said.is_empty() {
                p.message.clone()
            } else {
                said.join("; ")
            };
            reply.push(format!("Manifest audit: could not run: {why}"));
            return;
        }
    };
    let checked = format!(
        "{} expected paths, {} commits, {} scripts checked",
        found.expected_paths, found.commits, found.scripts
    );
    let accepted = found.accepted.iter().map(|a| format!("- accepted: {a}"));
    if found.drift.is_empty() {
        reply.push(format!("Manifest audit: PASS ({checked})"));
        reply.lines.extend(accepted);
        return;
    }
    reply.push(format!(
        "Manifest audit: DRIFT, {} finding{} ({checked}):",
        found.drift.len(),
        if found.drift.len() == 1 { "" } else { "s" }
    ));
    let (shown, more) = crate::report::shown(&found.drift);
    reply.lines.extend(shown.iter().map(|d| format!("- {d}")));
    if more > 0 {
        reply.push(format!(
            "- … and {more} more drift items: the progress file keeps them all (manifest_audit); every one: {full}"
        ));
    }
    reply.lines.extend(accepted);
}

/// Appends the run's Phase 9 record, with the run's id, unless the stats
/// file already holds it (a finish cut short after writing it).
fn append_record_once(run: &Run, line: &str, reply: &mut Reply) {
    append_once(run.decided.run_id.as_deref(), line, reply);
}

/// Appends a Phase 9 record `line`, with `id` as its `run_id`, unless the
/// stats file already holds that run's record; a failure is one line.
pub(super) fn append_once(id: Option<&str>, line: &str, reply: &mut Reply) {
    let mut line = line.to_owned();
    if let Some(id) = id {
        if crate::stats::already_written(crate::stats::EVENT_KIND, id, None) {
            return;
        }
        if let Ok(serde_json::Value::Object(mut record)) = serde_json::from_str(&line) {
            record.insert("run_id".into(), id.into());
            line = serde_json::Value::Object(record).to_string();
        }
    }
    let data_dir = crate::data_dir::resolve();
    let written = super::said::passing_on(|| {
        told(crate::stats::append_record(
            data_dir.as_deref(),
            crate::stats::EVENT_KIND,
            line.as_bytes(),
        ))
    });
    if let Err(p) = written {
        let refused = crate::write_reply::WriteReply::refused(&p);
        let mut text = Vec::new();
        // Writing into memory does not fail.
        let _ = refused.render_json(&mut text);
        reply.push(format!(
            "stats: not written: {}",
            String::from_utf8_lossy(&text).trim()
        ));
    }
}

/// `outcome`, its problem printed on stderr as the writers print it.
fn told<T>(outcome: Result<T, Problem>) -> Result<T, Problem> {
    if let Err(p) = &outcome {
        crate::problem::eprint_all(std::slice::from_ref(p));
    }
    outcome
}

/// The main-merge gate's recorded answer (`confirmed` or `declined`) and
/// who gave it, when one was given.
fn answered(run: &Run) -> Option<(String, String)> {
    let file = context::load_progress(&run.progress_path).ok()?;
    let gate = file.extra.get("main_merge_gate")?;
    let word = gate.get("status")?.as_str()?;
    matches!(word, "confirmed" | "declined").then(|| {
        let by = gate
            .get("answered_by")
            .and_then(|b| b.as_str())
            .unwrap_or("user");
        (word.to_owned(), by.to_owned())
    })
}

/// Records where the run stands at the main-merge gate in its progress
/// file (`main_merge_gate`): `awaiting` an answer, then `confirmed` or
/// `declined` and by whom. A failure is one line, never a stop.
fn record_gate(run: &Run, status: &str, by: Option<&str>, reply: &mut Reply) {
    let now = crate::clock::UtcTime::now().rfc3339();
    let edited = crate::progress::edit(&run.progress_path, |p| {
        let asked = p
            .extra
            .get("main_merge_gate")
            .and_then(|g| g.get("asked_at"))
            .cloned()
            .unwrap_or_else(|| now.clone().into());
        let mut gate = json!({ "status": status, "asked_at": asked });
        if let (Some(by), Some(map)) = (by, gate.as_object_mut()) {
            map.insert("answered_by".into(), by.into());
            map.insert("answered_at".into(), now.clone().into());
        }
        p.extra.insert("main_merge_gate".into(), gate);
    });
    if let Err(p) = edited {
        reply.push(format!("warning: the gate was not recorded: {}", p.message));
    }
}

/// Records one of the run's lifecycle events once: with the run's id in
/// its payload, and not again when the stats file already holds it (a
/// finish run again after a crash). A failure is one line, never a stop.
fn emit_once(run: &Run, event: &str, payload: serde_json::Value, reply: &mut Reply) {
    let Some(id) = run.decided.run_id.as_deref() else {
        return emit(event, &payload, reply);
    };
    if crate::stats::already_written(crate::stats::EVENT_KIND, id, Some(event)) {
        return;
    }
    let mut payload = payload;
    if let Some(map) = payload.as_object_mut() {
        map.insert("run_id".into(), id.into());
    }
    emit(event, &payload, reply);
}

/// Records a lifecycle event; a failure is one line, never a stop.
pub(super) fn emit(event: &str, payload: &serde_json::Value, reply: &mut Reply) {
    let payload = payload.to_string();
    let data_dir = crate::data_dir::resolve();
    let written = super::said::passing_on(|| {
        told(crate::stats::emit_event(
            data_dir.as_deref(),
            crate::stats::EVENT_KIND,
            event,
            Some(payload.as_bytes()),
        ))
    });
    if let Err(p) = written {
        let reason = crate::write_reply::WriteReply::refused(&p)
            .reason
            .unwrap_or_default();
        reply.push(format!("event {event} not written: {reason}"));
    }
}

/// The call that prints the run's full report: a very long run's reply
/// summarises its lists, and this lists every step and finding, from the
/// progress file and the plan the run is pinned to.
fn full_report(run: &Run) -> String {
    crate::report::full_call(&run.progress_path, &run.plan_file)
}

/// Phase 8 and 9: the final status, the state pair, the report, the stats.
fn finalize(run: &Run, status: &str, mut reply: Reply) -> Result<Reply, Problem> {
    // The report below says what was recorded, an override of completed
    // by the completion gate included; only a refusal is said here. A
    // status already final (a finish cut short) is not recorded again.
    let open = context::load_progress(&run.progress_path)
        .is_ok_and(|p| p.status == crate::progress::RunStatus::InProgress);
    if open {
        let finished = stop::record_status(&run.progress_path, status);
        if finished.code != exit::OK && !finished.overridden {
            // Nothing after this may claim an end the file does not hold
            // (a full disk, a file made read-only): the marker stays, no
            // report or record is made, and the same call ends it later.
            reply.push(format!(
                "The run's end ({status}) could not be recorded in its progress file {}: {}",
                run.progress_path.display(),
                finished.why
            ));
            reply.push(
                "Nothing else was done: the run is still in progress and its marker stays. Free disk space (or make the file writable), then run the same call again.",
            );
            reply.status = "in_progress".into();
            reply.next = Next::Stop;
            reply.exit = exit::CANNOT_CHECK;
            return Ok(reply);
        }
    }
    if let Some(project) = &run.decided.project {
        let recorded = crate::progress::load(&run.progress_path)
            .map(|p| p.status.as_str().to_owned())
            .unwrap_or_else(|_| status.to_owned());
        stop::state_pair(project, &recorded, &mut reply);
    }
    // The report, built once: its text, its summary and the stats record.
    let budget = crate::progress::budget_from_env();
    let built = super::said::passing_on(|| {
        told(crate::report::build(
            &run.progress_path,
            Some(&run.plan_file),
            Some(&run.plan),
            &budget,
        ))
    });
    let full = full_report(run);
    let (text, summary, record) = match &built {
        Ok(built) => {
            let source = run.decided.profile.as_ref().and_then(|_| {
                run.decided
                    .profile_source
                    .as_deref()
                    .and_then(|s| clap::ValueEnum::from_str(s, false).ok())
            });
            let record = super::said::passing_on(|| {
                built.stats_record(
                    run.decided.profile.clone(),
                    source,
                    std::env::var(crate::profile::PROFILE_ENV).ok(),
                    crate::data_dir::resolve().as_deref(),
                )
            });
            (
                built.brief_text(&full),
                Some(built.brief_summary()),
                record.to_string(),
            )
        }
        // No report can be made: the reply says so through its empty
        // report, and the stats record is refused as what it is.
        Err(_) => (String::new(), None, String::new()),
    };
    let result = built
        .as_ref()
        .map_or_else(|_| status.to_owned(), |b| b.result().to_owned());
    reply.report = Some(text);
    reply.summary = summary;
    append_record_once(run, &record, &mut reply);
    stop::remove_marker(&run.marker_path, &mut reply);
    reply.status = result.clone();
    reply.exit = if result == "completed" {
        exit::OK
    } else {
        exit::NOT_OK
    };
    Ok(reply)
}
