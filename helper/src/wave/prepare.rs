//! `wave prepare`: Phase 2.6 Steps 1 and 2 — one worktree and branch per
//! session of the wave, the project's files copied into each, the orders
//! written, the hand-over printed. Nothing that exists is reused or deleted.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::code;
use super::context::{branch_exists, git};
use super::tidy::Swept;
use crate::exit;
use crate::orders::{self, Fail, Layout, Order};
use crate::problem::Problem;

#[derive(Debug, Default, Serialize)]
pub(super) struct PrepareReply {
    pub ok: bool,
    pub plan: Option<String>,
    pub wave: Option<u32>,
    pub branch: Option<String>,
    pub worktrees_created: Vec<String>,
    pub copied: Vec<String>,
    pub orders: Vec<Order>,
    /// What the collect of this wave does about pushes (the choice to turn
    /// them off is kept in wave.json for the rest of the run).
    pub pushes: Option<super::push::Pushes>,
    /// Left by an earlier attempt (the refusal names them).
    pub leftovers: Vec<String>,
    /// After a failure: what this call created and then removed again, and
    /// what git kept.
    pub undone: Vec<String>,
    pub kept: Vec<super::tidy::Kept>,
    pub problem: Option<Problem>,
}

/// What each worktree receives: (source in the main checkout, path
/// relative to the worktree's top).
fn deliveries(layout: &Layout, project: Option<&Path>) -> Result<Vec<(PathBuf, String)>, Fail> {
    let mut out = vec![(layout.plan_path(), layout.plan_rel.clone())];
    let explicit = project.is_some();
    let dir = match project {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => layout.root.join(p),
        None => match layout.plan_path().parent() {
            Some(p) => p.to_path_buf(),
            None => return Ok(out),
        },
    };
    let outside = |shown: &Path| {
        (
            exit::NOT_OK,
            Problem::new(
                code::WAVE_PROJECT_OUTSIDE,
                format!(
                    "cannot derive a project relpath inside the repo ({} vs {}): nothing was copied",
                    shown.display(),
                    layout.root.display()
                ),
            ),
        )
    };
    let real = dir.canonicalize().map_err(|_| outside(&dir))?;
    let rel = real
        .strip_prefix(&layout.root)
        .map_err(|_| outside(&real))?;
    if rel.as_os_str().is_empty() {
        // A plan at the top of the repository is a plan, not a project.
        if explicit {
            return Err(outside(&real));
        }
        return Ok(out);
    }
    let rel = rel.to_string_lossy().replace('\\', "/");
    for name in ["brief.md", "plan.md"] {
        let source = real.join(name);
        let to = format!("{rel}/{name}");
        if source.is_file() && to != layout.plan_rel {
            out.push((source, to));
        }
    }
    let research = real.join("research");
    if research.is_dir() {
        walk(&research, &format!("{rel}/research"), &mut out);
    }
    Ok(out)
}

/// Every regular file below `dir` (symlinks are not followed).
fn walk(dir: &Path, rel: &str, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            walk(&e.path(), &format!("{rel}/{name}"), out);
        } else if kind.is_file() {
            out.push((e.path(), format!("{rel}/{name}")));
        }
    }
}

fn copy_into(
    worktree: &Path,
    files: &[(PathBuf, String)],
    copied: &mut Vec<String>,
) -> Result<(), Fail> {
    for (from, rel) in files {
        let to = worktree.join(rel);
        let fail = |e: std::io::Error| {
            (
                exit::CANNOT_CHECK,
                Problem::new(
                    code::WAVE_COPY,
                    format!("{} -> {}: {e}", from.display(), to.display()),
                ),
            )
        };
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(fail)?;
        }
        let bytes =
            crate::input_file::read(from, crate::plan::MAX_FILE_BYTES * 4).map_err(|e| {
                (
                    exit::CANNOT_CHECK,
                    Problem::new(code::WAVE_COPY, e.to_string()).in_file(from),
                )
            })?;
        // A tracked file is already there, identical: leave it untouched.
        if fs::read(&to).is_ok_and(|have| have == bytes) {
            continue;
        }
        fs::write(&to, &bytes).map_err(fail)?;
        copied.push(to.display().to_string());
    }
    Ok(())
}

/// Removes, without force, the worktrees and branches this call created.
fn undo(layout: &Layout, created: &[(u32, bool)], reply: &mut PrepareReply) {
    let mut swept = Swept::default();
    for &(n, with_worktree) in created.iter().rev() {
        if with_worktree {
            let _ = swept.remove_worktree(&layout.root, &layout.worktree(n));
        }
        let _ = swept.remove_branch(&layout.root, &layout.branch(n));
    }
    let _ = git(&layout.root, &["worktree", "prune"]);
    reply.undone = swept
        .removed_worktrees
        .into_iter()
        .chain(swept.removed_branches)
        .collect();
    reply.kept = swept.kept;
    let _ = fs::remove_dir(layout.worktrees_dir());
}

/// `no_push`: the call's `--no-push`.
pub(super) fn run(
    layout: &Layout,
    wave: Option<u32>,
    project: Option<&Path>,
    no_push: bool,
    reply: &mut PrepareReply,
) -> Result<(), Fail> {
    reply.plan = Some(layout.plan_rel.clone());
    let wave_file = layout.wave_file();
    if wave_file.exists() {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_IN_FLIGHT,
                format!(
                    "{} exists - a wave is awaiting its sessions: collect it first",
                    wave_file.display()
                ),
            ),
        ));
    }
    // The merged-waves record must be this plan's, whatever wave is asked.
    let next = orders::next_wave(layout)?;
    let wave = match wave.or(next) {
        Some(w) => w,
        None => {
            return Err((
                exit::NOT_OK,
                Problem::new(
                    code::WAVE_NONE_LEFT,
                    "every wave of the plan is merged: run the master verification",
                ),
            ));
        }
    };
    reply.wave = Some(wave);
    let (plan, _) = layout.load_plan()?;
    let sessions: Vec<u32> = crate::plan::waves(plan.strategy.as_ref().ok_or_else(|| {
        (
            exit::NOT_OK,
            Problem::new(code::WAVE_NO_STRATEGY, "the plan has no Execution Strategy"),
        )
    })?)
    .into_iter()
    .find(|w| w.wave == wave)
    .map(|w| w.sessions)
    .ok_or_else(|| {
        (
            exit::NOT_OK,
            Problem::new(
                code::WAVE_NO_STRATEGY,
                format!("the plan has no wave {wave}"),
            ),
        )
    })?;
    for &n in &sessions {
        let branch = layout.branch(n);
        let wt = layout.worktree(n);
        if branch_exists(&layout.root, &branch)? || wt.symlink_metadata().is_ok() {
            reply.leftovers.push(branch);
        }
    }
    if !reply.leftovers.is_empty() {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_LEFTOVERS,
                format!(
                    "left by an earlier attempt: {} (branch or {}/session-N); nothing was created or deleted. Inspect each (git log HEAD..<branch>, git -C <worktree> status --short), merge it by hand, or delete it yourself once its work is not needed, then re-run",
                    reply.leftovers.join(", "),
                    layout.worktrees_dir().display()
                ),
            ),
        ));
    }
    // Before anything is created: an underivable relpath copies nothing.
    let files = deliveries(layout, project)?;
    // The pushes: this call's flag or variable, or an earlier wave's record.
    let choice = super::push::Choice::of(layout, no_push)?;
    let branch = orders::current_branch(&layout.root)?;
    reply.branch = Some(branch.clone());
    let mkdir = |dir: PathBuf| {
        fs::create_dir_all(&dir).map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::WAVE_COPY, format!("{}: {e}", dir.display())),
            )
        })
    };
    mkdir(layout.worktrees_dir())?;
    mkdir(layout.orders_dir())?;
    let mut created: Vec<(u32, bool)> = Vec::new();
    for &n in &sessions {
        let name = layout.branch(n);
        let wt = layout.worktree(n).display().to_string();
        let out = git(
            &layout.root,
            &["worktree", "add", "-q", "-b", &name, &wt, "HEAD"],
        );
        let failed = match out {
            Ok(o) if o.ok() => None,
            Ok(o) => Some(o.why()),
            Err((_, p)) => Some(p.message),
        };
        if let Some(why) = failed {
            // A branch made before the failure is ours too.
            if branch_exists(&layout.root, &name).unwrap_or(false) {
                created.push((n, Path::new(&wt).exists()));
            }
            undo(layout, &created, reply);
            return Err((
                exit::CANNOT_CHECK,
                Problem::new(
                    code::WAVE_WORKTREE_ADD,
                    format!("git worktree add {wt} failed: {why}; the wave is stopped"),
                ),
            ));
        }
        created.push((n, true));
        reply.worktrees_created.push(wt);
    }
    for &n in &sessions {
        if let Err(e) = copy_into(&layout.worktree(n), &files, &mut reply.copied) {
            undo(layout, &created, reply);
            return Err(e);
        }
    }
    reply.orders = orders::write(layout, wave, &branch, choice.off.as_deref())?;
    reply.pushes = Some(match &choice.off {
        Some(how) => super::push::Pushes::Off {
            how: format!("{how}, kept for this run in {}", orders::WAVE_FILE),
        },
        None => choice.pushes(&layout.root)?,
    });
    Ok(())
}

pub(super) fn render(reply: &PrepareReply, orders_dir: &Path) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    for o in &reply.orders {
        let _ = writeln!(
            t,
            "Worktree created: session-{} → {} (branch: {})",
            o.session, o.worktree, o.branch
        );
    }
    for o in &reply.orders {
        let _ = writeln!(
            t,
            "\nSession {}: {}\n  open:    {}\n  starter: {}\n  order:   {}",
            o.session, o.title, o.directory, o.starter, o.order_file
        );
    }
    if let Some(w) = reply.wave.filter(|_| reply.ok) {
        let _ = writeln!(
            t,
            "\nWave {w}: {} session order(s) written in {}. Awaiting sessions.\nOpen each session yourself in the directory its order names and give it the\nstarter line. When every session is done, run this same /trekexecute command\nagain here to merge the wave.",
            reply.orders.len(),
            orders_dir.display()
        );
        // Without a remote the collect's one line is enough.
        if let Some(pushes) = reply
            .pushes
            .as_ref()
            .filter(|p| **p != super::push::Pushes::NoRemote)
        {
            let branches: Vec<String> = reply.orders.iter().map(|o| o.branch.clone()).collect();
            let _ = writeln!(t, "When the wave is collected: {}", pushes.line(&branches));
        }
    }
    t
}
