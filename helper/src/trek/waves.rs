//! The multi-session path of `trek start` (Phase 2.6): Voyage never starts
//! a session, so a run here prepares one wave of session orders and stops,
//! and the next run collects that wave, merges it and prepares the next.
//! Once every wave is merged, the plan's verification runs on the
//! integrated result and, when it passes, the run comes to the main-merge
//! gate, answered with `trek finish --gate … --plan PLAN`.

use std::path::Path;

use serde_json::json;

use super::cli::GateAnswer;
use super::code;
use super::finish::{answerer, ask_gate, emit, verification};
use super::reply::{GateCall, Next, Reply};
use super::run_report::{self, Answer};
use super::said;
use crate::exit;
use crate::problem::Problem;
use crate::wave::Target;

fn standing(here: &Path, plan: &str) -> Result<(bool, Option<u32>), Problem> {
    crate::wave::standing(&Target::plan_from(Path::new(plan), here)).map_err(|(_, p)| p)
}

/// Runs the multi-session path from the main checkout. `no_push`: the
/// start's `--no-push` (kept in the wave's record for later starts).
pub(super) fn run(
    here: &Path,
    mut reply: Reply,
    plan: &str,
    project: Option<&Path>,
    no_push: bool,
    in_place: bool,
) -> Result<Reply, Problem> {
    let git = super::preflight::git_version(
        here,
        super::git_setup::MIN_WAVES_VERSION,
        "multi-session waves",
    );
    if super::preflight::said_by_start(git, &mut reply) {
        reply.status = "stopped".into();
        reply.exit = crate::exit::NOT_OK;
        return Ok(reply);
    }
    let (in_flight, mut next) = standing(here, plan)?;
    // A wave to prepare needs a clean tree: refused (with Check 1's own
    // words) before the run branch is made or checked out.
    if !in_flight && next.is_some() {
        let target = Target::plan_from(Path::new(plan), here);
        let clean = said::passing_on(|| crate::wave::clean_tree_first(&target, project));
        if super::preflight::said_by_start(clean, &mut reply) {
            reply.status = "stopped".into();
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
    }
    // The run branch: made with the first wave, checked out for every
    // later one, so the waves fork from it and merge into it.
    let again = format!("/trekexecute {}", crate::shell::quote(plan));
    let branches = match super::run_branch::for_waves(here, plan, in_place, &again) {
        Ok((branches, lines)) => {
            reply.lines.extend(lines);
            branches
        }
        Err(lines) => {
            reply.lines.extend(lines);
            reply.status = "stopped".into();
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
    };
    if in_flight {
        let collected = crate::wave::collect(&Target::plan_from(Path::new(plan), here), no_push);
        reply.push_text(&collected.text);
        match collected.outcome {
            Some("merged") => next = standing(here, plan)?.1,
            // Sessions still open: the hand-over stands, and the wave is
            // checked and not done yet (exit 1, as `wave collect` says).
            Some("running") => {
                reply.status = "handover".into();
                reply.exit = exit::NOT_OK;
                return Ok(reply);
            }
            // A session ended badly or a merge conflicted: the wave stays
            // in flight, with its worktrees, until the user has dealt with
            // it; the next run collects it again.
            Some(outcome @ ("failed" | "conflict")) => {
                reply.push(if outcome == "failed" {
                    "Nothing was merged, and the wave stays open. Re-run the session that ended badly in its worktree (its order names the directory): /trekexecute --session N --resume PLAN; once it completes, run /trekexecute on the plan here again. To give the wave up instead, delete its wave.json and re-run."
                } else {
                    "The merge was aborted and the wave stays open. Merge the conflicting session's branch by hand here (git merge --no-ff BRANCH, resolve, commit); then run /trekexecute on the plan again: it merges the rest and goes on."
                });
                reply.report = Some(sessions_report(here, Path::new(plan)));
                reply.status = "failed".into();
                reply.exit = exit::NOT_OK;
                return Ok(reply);
            }
            // The main tree is dirty, git refused a merge, or the wave
            // cannot be read: the user acts, then re-runs.
            _ => {
                reply.status = "stopped".into();
                reply.exit = exit::NOT_OK;
                return Ok(reply);
            }
        }
    } else if next.is_some() {
        let target = Target::plan_from(Path::new(plan), here);
        if let Ok(Some(ended)) = crate::wave::finished(&target) {
            reply.push(format!(
                "This plan's last multi-session run is finished (its main-merge gate {} by the {} at {}): this starts a new run of it, from its first wave.",
                ended.answer, ended.answered_by, ended.answered_at
            ));
        }
        let preflight = said::passing_on(|| {
            let branch = branches
                .as_ref()
                .map_or(crate::wave::RunBranch::InPlace, |b| {
                    crate::wave::RunBranch::Made {
                        run: b.run.clone(),
                        start: b.start.clone(),
                    }
                });
            let done = crate::wave::preflight(
                &Target::plan_from(Path::new(plan), here),
                project,
                no_push,
                &branch,
            );
            done.eprint();
            done
        });
        reply.push_text(&preflight.text);
        if preflight.code() != exit::OK {
            // Why, in the reply itself (stderr has it too).
            if let Some((_, p)) = &preflight.failed {
                reply.push(format!("Error: {}", p.message));
            }
            reply.status = "stopped".into();
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
    }
    match next {
        Some(_) => {
            let prepared = said::passing_on(|| {
                let done = crate::wave::prepare(
                    &Target::plan_from(Path::new(plan), here),
                    None,
                    project,
                    no_push,
                );
                done.eprint();
                done
            });
            reply.push_text(&prepared.text);
            let code = prepared.code();
            reply.status = if code == exit::OK {
                "handover"
            } else {
                "failed"
            }
            .into();
            reply.exit = code;
            Ok(reply)
        }
        None => {
            // Step 4: the master verification on the integrated result,
            // then the gate. A failure asks nothing: there is nothing fit
            // to publish, and the next run comes back here.
            let root = main_checkout(here)?;
            let criteria = verification(plan, None, Some(&root), None);
            reply.push("Master verification (every wave merged):");
            reply.push_text(&criteria.checklist());
            if !criteria.passed() {
                reply.push("The master verification does not pass on the merged result, so the main-merge gate is not asked. Fix it on this branch (commit the fix), then run /trekexecute on the plan again: it re-runs the master verification and comes back to the gate.");
                reply.status = "failed".into();
                reply.exit = exit::NOT_OK;
                return Ok(reply);
            }
            let payload = json!({ "plan": plan, "wave_count": merged_waves(plan) });
            emit("main-merge-gate", &payload, &mut reply);
            let question = branches.as_ref().map_or_else(
                || super::finish::QUESTION.to_owned(),
                |b| super::run_branch::question(Path::new(&root), b),
            );
            ask_gate(
                &mut reply,
                question,
                GateCall::new(vec!["--plan".into(), plan.to_owned()], &root),
                "/trekexecute on the plan (not --resume)",
            );
            Ok(reply)
        }
    }
}

/// `wave report`'s text: each archived session's result.
fn sessions_report(here: &Path, plan: &Path) -> String {
    said::passing_on(|| {
        let done = crate::wave::sessions_report(&Target::plan_from(plan, here));
        done.eprint();
        done.text
    })
}

/// The work tree holding `here`: where the waves are merged.
fn main_checkout(here: &Path) -> Result<String, Problem> {
    crate::git::toplevel(here)
        .map(|d| d.display().to_string())
        .ok_or_else(|| {
            Problem::new(
                code::TREK_NOT_A_REPO,
                "the multi-session path runs in the main checkout of a git repository",
            )
        })
}

fn merged_waves(plan: &str) -> usize {
    crate::plan::load(Path::new(plan))
        .ok()
        .and_then(|p| p.strategy.map(|s| crate::plan::waves(&s).len()))
        .unwrap_or(0)
}

/// The gate of a run whose gate was confirmed already: the same confirm
/// says so and shows the run's report again (exit 0); a decline
/// cannot undo it. Nothing is recorded or emitted again. Orders a confirm
/// cut short left behind are cleared now.
fn answered_before(
    target: &Target<'_>,
    plan: &str,
    answer: GateAnswer,
    ended: &crate::orders::FinishedRecord,
) -> Result<Reply, Problem> {
    let when = format!(
        "confirmed by the {} at {}",
        ended.answered_by, ended.answered_at
    );
    if answer == GateAnswer::Decline {
        return Err(Problem::new(
            code::TREK_GATE,
            format!(
                "the main-merge gate of this multi-session run was already answered ({when}) and the run is finished; a decline cannot undo it. Its merges are on the branch: review them with git log, and revert what you do not want"
            ),
        ));
    }
    crate::wave::clear_orders(target).map_err(|(_, p)| p)?;
    let mut reply = Reply::new("finish", Next::Stop, "completed");
    reply.plan = Some(plan.to_owned());
    reply.push(format!(
        "The main-merge gate of this multi-session run was already answered ({when}): the run is finished, and nothing more is done (to run the plan again from its first wave: /trekexecute {}). Its report, as the confirm showed it:",
        crate::shell::quote(plan)
    ));
    reply.report = Some(ended.report.clone());
    reply.summary.clone_from(&ended.summary);
    Ok(reply)
}

/// `trek finish --gate … --plan PLAN`: the main-merge gate of a
/// multi-session run whose waves are all merged.
pub(super) fn finish(here: &Path, plan: &Path, gate: Option<GateAnswer>) -> Result<Reply, Problem> {
    let plan = plan.display().to_string();
    let Some(answer) = gate else {
        return Err(Problem::new(
            code::TREK_GATE,
            "--plan goes with --gate confirm|decline: it answers a multi-session run's main-merge gate",
        ));
    };
    let target = Target::plan_from(Path::new(&plan), here);
    let (in_flight, next) = standing(here, &plan)?;
    // Confirmed before: its orders are gone, so the waves read as not
    // merged; the record says how the run ended.
    if !in_flight && let Some(ended) = crate::wave::finished(&target).map_err(|(_, p)| p)? {
        return answered_before(&target, &plan, answer, &ended);
    }
    if in_flight || next.is_some() {
        return Err(Problem::new(
            code::TREK_GATE,
            "not every wave is merged yet: re-run /trekexecute on the plan to collect or prepare the next wave",
        ));
    }
    let root = main_checkout(here)?;
    let by = answerer(&GateCall::new(vec!["--plan".into(), plan.clone()], &root))?.word();
    let mut reply = Reply::new("finish", Next::Stop, "completed");
    reply.plan = Some(plan.clone());
    run_report::adopt_sessions_data_dir(here, &plan);
    let word = match answer {
        GateAnswer::Confirm => "confirm",
        GateAnswer::Decline => "decline",
    };
    let again = crate::helper_call::call(&["trek", "finish", "--gate", word, "--plan", &plan]);
    let branches = match super::run_branch::at_gate(here, &plan, &again) {
        Ok(found) => found.map(|(b, lines)| {
            reply.lines.extend(lines);
            b
        }),
        Err(lines) => {
            reply.lines.extend(lines);
            reply.status = "in_progress".into();
            reply.exit = exit::NOT_OK;
            return Ok(reply);
        }
    };
    match answer {
        GateAnswer::Confirm => {
            emit(
                "main-merge-approved",
                &json!({ "plan": plan, "answered_by": by }),
                &mut reply,
            );
            let verified = verification(&plan, None, Some(&root), None);
            let made = run_report::at_gate(here, &plan, &verified, Answer::Confirmed, &mut reply);
            if verified.passed() {
                if let Some(b) = &branches {
                    match super::run_branch::merge(Path::new(&root), b, &again) {
                        Ok(super::run_branch::Merged::Done(lines)) => reply.lines.extend(lines),
                        Ok(super::run_branch::Merged::Stopped(lines)) | Err(lines) => {
                            // Nothing merged: the orders stay, the run
                            // stays at its gate.
                            reply.lines.extend(lines);
                            reply.status = "in_progress".into();
                            reply.exit = exit::NOT_OK;
                            return Ok(reply);
                        }
                    }
                    super::run_branch::forget(here, &plan);
                }
                // Recorded before the orders go: the report is read from
                // them, and the gate asked again is answered from it.
                crate::wave::record_finished(&target, by, &made.text, made.summary)
                    .map_err(|(_, p)| p)?;
                let cleared = crate::wave::clear_orders(&target).map_err(|(_, p)| p)?;
                reply.push(format!(
                    "Master verification passed; the orders directory is cleared ({} files).",
                    cleared.len()
                ));
            } else {
                reply.push_text(&verified.checklist());
                reply.push("The master verification does not pass: the orders directory is kept; fix it and re-run /trekexecute.");
                reply.status = "failed".into();
                reply.exit = exit::NOT_OK;
            }
        }
        GateAnswer::Decline => {
            emit(
                "main-merge-declined",
                &json!({ "plan": plan, "reason": "hold-for-review", "answered_by": by }),
                &mut reply,
            );
            match &branches {
                Some(b) => reply.lines.extend(super::run_branch::declined(
                    Path::new(&root),
                    b,
                    &format!(
                        "/trekexecute {} (not --resume; it switches back to the run branch)",
                        crate::shell::quote(&plan)
                    ),
                )),
                None => reply.push("Declined: the merged waves stay on this branch for review and the merged-waves record is kept; re-run /trekexecute (not --resume) to come back to this gate."),
            }
            reply.status = "partial".into();
            reply.exit = exit::NOT_OK;
            let verified = verification(&plan, None, Some(&root), None);
            run_report::at_gate(here, &plan, &verified, Answer::Declined, &mut reply);
        }
    }
    Ok(reply)
}
