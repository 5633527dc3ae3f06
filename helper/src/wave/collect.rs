//! `wave collect`: Phase 2.6 Step 3 — the sessions' states first, then the
//! archive, then (every session completed, the main tree clean) one
//! `merge --no-ff` per session in order, the wave recorded, its worktrees
//! and merged branches removed without force, and the next wave named.
//! Each push is named with its result, or one line says why nothing is
//! pushed (turned off, no remote). A session that ended badly or a merge
//! that conflicted leaves the wave in flight, worktrees and all: the user
//! re-runs the session or merges by hand, and the next collect goes on
//! from there.

use std::fs;

use serde::Serialize;

use super::code;
use super::context::{git, git_ok};
use super::push::{self, Choice, Pushes};
use super::tidy::{Kept, Swept};
use crate::exit;
use crate::orders::{self, Fail, Layout, State, WaveStatus};
use crate::problem::Problem;

/// How one session's merge went.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Merge {
    pub session: u32,
    pub branch: String,
    /// `merged`, `conflict`, `refused` or `not-merged` (after a conflict).
    pub result: &'static str,
    pub pushed: bool,
    /// git's reason when the push failed (the run went on).
    pub push_error: Option<String>,
    pub conflicting_files: Vec<String>,
    pub message: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct CollectReply {
    pub ok: bool,
    pub plan: Option<String>,
    pub wave: Option<u32>,
    /// `running`, `failed`, `dirty`, `conflict`, `refused` or `merged`.
    pub outcome: Option<&'static str>,
    pub status: Option<WaveStatus>,
    pub archived: Vec<String>,
    /// Whether the session branches are pushed before their merges, and
    /// where; null when the collect stopped before.
    pub pushes: Option<Pushes>,
    pub merges: Vec<Merge>,
    pub removed_worktrees: Vec<String>,
    pub removed_branches: Vec<String>,
    pub removed_progress_files: Vec<String>,
    pub kept: Vec<Kept>,
    /// After a merged wave: the next wave's number, or "none".
    pub next_wave: Option<serde_json::Value>,
    pub problem: Option<Problem>,
}

fn stop(code: &'static str, message: String) -> Fail {
    (exit::NOT_OK, Problem::new(code, message))
}

/// Where and how to run session `n` of the wave: its directory and its
/// starter line, as its order gives them.
fn how_to_run(layout: &Layout, n: u32) -> String {
    let plan = layout.load_plan().ok();
    match plan
        .as_ref()
        .and_then(|(plan, _)| plan.strategy.as_ref()?.session(n))
    {
        Some(session) => format!(
            "open a Claude Code session in {} and give it: {} (add --resume after the number to go on with a run started there)",
            layout.open_dir(session).display(),
            session.starter(&layout.plan_rel)
        ),
        None => format!(
            "run it in its worktree {} as its order says",
            layout.worktree(n).display()
        ),
    }
}

fn absorb(reply: &mut CollectReply, swept: Swept) {
    reply.removed_worktrees.extend(swept.removed_worktrees);
    reply.removed_branches.extend(swept.removed_branches);
    reply.kept.extend(swept.kept);
}

/// `no_push`: the call's `--no-push`.
pub(super) fn run(
    layout: &Layout,
    wave: Option<u32>,
    no_push: bool,
    reply: &mut CollectReply,
) -> Result<(), Fail> {
    reply.plan = Some(layout.plan_rel.clone());
    let status = orders::status(layout, wave, None)?;
    let w = status.wave;
    reply.wave = Some(w);
    let sessions: Vec<(u32, String)> = status
        .sessions
        .iter()
        .map(|s| (s.session, s.title.clone()))
        .collect();
    let running = status.running.clone();
    let ended_bad: Vec<String> = status
        .sessions
        .iter()
        .filter(|s| s.state == State::EndedBad)
        .map(|s| {
            format!(
                "session {} ended {} (order: {})",
                s.session,
                s.status.as_deref().unwrap_or("?"),
                s.order_file
            )
        })
        .collect();
    let still: Vec<String> = status
        .sessions
        .iter()
        .filter(|s| s.state == State::Running)
        .map(|s| match &s.status {
            Some(word) => format!("session {} ({word}; order: {})", s.session, s.order_file),
            None => format!(
                "session {} (no progress file in its worktree: it has not started there, or it ran elsewhere, such as with the main checkout's plan path, which does not count; {}; order: {})",
                s.session,
                how_to_run(layout, s.session),
                s.order_file
            ),
        })
        .collect();
    reply.status = Some(status);
    // Any running session: touch nothing.
    if !running.is_empty() {
        reply.outcome = Some("running");
        return Err(stop(
            code::WAVE_RUNNING,
            format!(
                "wave {w} is still running: {}. Nothing was touched; when every session is done, run /trekexecute on the plan here again. To give the whole wave up instead: delete {} and re-run",
                still.join("; "),
                layout.wave_file().display()
            ),
        ));
    }
    let numbers: Vec<u32> = sessions.iter().map(|(n, _)| *n).collect();
    reply.archived = orders::archive(layout, w, &numbers)?;
    if !ended_bad.is_empty() {
        // The wave stays in flight with every worktree, so the session can
        // be re-run where it stopped (`--session N --resume`), and the next
        // collect finds it completed.
        reply.outcome = Some("failed");
        return Err(stop(
            code::WAVE_FAILED,
            format!(
                "Wave {w} FAILED: {}. Stopping - later waves depend on this wave; nothing was merged. Re-run that session in its worktree (--session N --resume), then collect again; or give the wave up: delete {} and re-run",
                ended_bad.join("; "),
                layout.wave_file().display()
            ),
        ));
    }
    // The main tree must be clean: the user may have worked here meanwhile.
    let root = &layout.root;
    // Staged or unstaged changes to tracked files (untracked ones are git's
    // to refuse at the merge, reported as such).
    let changed = git_ok(
        root,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=no",
            "--ignore-submodules=none",
        ],
    )?;
    if !changed.stdout.is_empty() {
        reply.outcome = Some("dirty");
        return Err(stop(
            code::WAVE_DIRTY_TREE,
            format!(
                "uncommitted changes in {}. Commit or stash your changes in {}, then re-run",
                root.display(),
                root.display()
            ),
        ));
    }
    // Push first (Hard rule 19); a failure (offline, refused) is named and
    // the run goes on. Off (this call's flag or variable, or the run's
    // record) or without an `origin`, nothing is attempted.
    let choice = Choice::of(layout, no_push)?;
    let pushes = choice.pushes(root)?;
    reply.pushes = Some(pushes.clone());
    for (i, (n, title)) in sessions.iter().enumerate() {
        let branch = layout.branch(*n);
        let pushed = match pushes.remote() {
            Some(remote) => Some(push::push(root, remote, &branch)?),
            None => None,
        };
        let message = format!("merge: trekplan session {n} — {title}");
        let merged = git(
            root,
            &["merge", "--no-ff", "--no-edit", "-m", &message, &branch],
        )?;
        let mut record = Merge {
            session: *n,
            branch: branch.clone(),
            result: "merged",
            pushed: matches!(pushed, Some(Ok(()))),
            push_error: pushed.and_then(Result::err),
            conflicting_files: Vec::new(),
            message: None,
        };
        if merged.ok() {
            reply.merges.push(record);
            continue;
        }
        let in_merge = git(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])?.ok();
        if in_merge {
            let files = git(root, &["diff", "--name-only", "-z", "--diff-filter=U"])?;
            record.conflicting_files = files.fields();
            git_ok(root, &["merge", "--abort"])?;
            record.result = "conflict";
            let listed = record.conflicting_files.join(", ");
            reply.merges.push(record);
            for (m, _) in sessions.iter().skip(i + 1) {
                reply.merges.push(Merge {
                    session: *m,
                    branch: layout.branch(*m),
                    result: "not-merged",
                    pushed: false,
                    push_error: None,
                    conflicting_files: Vec::new(),
                    message: Some("merge-failed: an earlier session conflicted".into()),
                });
            }
            // The wave stays in flight: once the user has merged this
            // branch by hand, the next collect merges the rest (the merges
            // already made are no-ops).
            reply.outcome = Some("conflict");
            return Err(stop(
                code::WAVE_MERGE_CONFLICT,
                format!(
                    "Wave {w} MERGE CONFLICT: session {n} branch conflicts with merged state. Conflicting files: {listed}. Session {n} order: {}. Aborting further merges; sessions already merged in this wave are preserved. Merge {branch} by hand (git merge --no-ff {branch}, resolve, commit), then collect again",
                    layout.order_file(w, *n).display()
                ),
            ));
        }
        record.result = "refused";
        record.message = Some(merged.why());
        reply.merges.push(record);
        reply.outcome = Some("refused");
        return Err(stop(
            code::WAVE_MERGE_REFUSED,
            format!(
                "git refused to merge session {n}: {}. Commit, stash or move your changes in {}, then re-run",
                merged.why(),
                root.display()
            ),
        ));
    }
    orders::record_merged(layout, w, choice.off.as_deref())?;
    let _ = fs::remove_file(layout.wave_file());
    let mut swept = Swept::default();
    for &n in &numbers {
        let wt = layout.worktree(n);
        let progress = layout.progress_file(n);
        let archived = layout.archive_file(w, n);
        if progress.is_file() {
            let same = match (fs::read(&progress), fs::read(&archived)) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            };
            let shown = progress.display().to_string();
            let tracked = git(&wt, &["ls-files", "--error-unmatch", "--", &shown])?.ok();
            if same && !tracked && fs::remove_file(&progress).is_ok() {
                reply.removed_progress_files.push(shown);
            }
        }
        if wt.exists() {
            swept.remove_worktree(root, &wt)?;
        }
        swept.remove_branch(root, &layout.branch(n))?;
    }
    git_ok(root, &["worktree", "prune"])?;
    let _ = fs::remove_dir(layout.worktrees_dir());
    absorb(reply, swept);
    reply.outcome = Some("merged");
    reply.next_wave = Some(match orders::next_wave(layout)? {
        Some(n) => n.into(),
        None => "none".into(),
    });
    Ok(())
}

pub(super) fn render(reply: &CollectReply) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    if let Some(status) = &reply.status {
        for s in &status.sessions {
            let _ = writeln!(
                t,
                "session {}: {} ({})",
                s.session,
                match s.state {
                    State::Completed => "completed",
                    State::Running => "running",
                    State::EndedBad => "ended-bad",
                },
                s.status.as_deref().unwrap_or("no progress file")
            );
        }
    }
    // Each push is named before its merge; nothing pushed is one line.
    let remote = reply.pushes.as_ref().and_then(Pushes::remote);
    if let Some(pushes) = reply.pushes.as_ref().filter(|_| remote.is_none()) {
        let branches: Vec<String> = reply.merges.iter().map(|m| m.branch.clone()).collect();
        let _ = writeln!(t, "{}", pushes.line(&branches));
    }
    for m in &reply.merges {
        let pushed = match &m.push_error {
            Some(why) => Some(Err(why.clone())),
            None => m.pushed.then_some(Ok(())),
        };
        if let (Some(remote), Some(result)) = (remote, pushed) {
            let _ = writeln!(t, "{}", push::said(remote, &m.branch, &result));
        }
        match m.result {
            "merged" => {
                let _ = writeln!(t, "MERGED session {}", m.session);
            }
            "conflict" => {
                let _ = writeln!(
                    t,
                    "MERGE_CONFLICT session {}: {}",
                    m.session,
                    m.conflicting_files.join(", ")
                );
            }
            "refused" => {
                let _ = writeln!(t, "MERGE_REFUSED session {}", m.session);
            }
            _ => {
                let _ = writeln!(t, "not merged: session {} (merge-failed)", m.session);
            }
        }
    }
    if reply.outcome == Some("merged") {
        let _ = writeln!(
            t,
            "Wave {}: {} sessions merged.",
            reply.wave.unwrap_or_default(),
            reply.merges.len()
        );
    }
    for k in &reply.kept {
        let _ = writeln!(t, "KEPT {} {}: {}", k.kind, k.name, k.what_to_do);
    }
    if let Some(next) = &reply.next_wave {
        let shown = next
            .as_str()
            .map_or_else(|| next.to_string(), str::to_owned);
        let _ = writeln!(t, "next wave: {shown}");
    }
    t
}
