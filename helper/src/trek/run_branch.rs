//! The run branch (issue 40): a run's checkpoints, and on the
//! multi-session path every wave's merges, land on `trek/{slug}/run`, made
//! at the start from the branch the run starts on. That branch does not
//! move until the main-merge gate: its confirm merges the run branch into
//! it (a fast-forward when it has not moved, else a merge commit), a
//! decline leaves the run branch for review. `--in-place` runs without one.
//!
//! Every git call here goes through [`crate::git::run`]; what went wrong
//! comes back as the lines of a reply, with the command that gets past it.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The two branches of a run with a run branch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Branches {
    /// The branch the run started on: the gate's confirm merges into it.
    pub start: String,
    /// Its commit when the run started.
    pub start_sha: String,
    /// The run branch.
    pub run: String,
}

/// A refusal: the reply's lines, the way on included.
pub(super) type Refused = Vec<String>;

fn git(root: &Path, args: &[&str]) -> Result<crate::git::Output, Refused> {
    crate::git::run(root, args).map_err(|e| {
        vec![format!(
            "Error: git {} could not run in {}: {e}",
            args.first().copied().unwrap_or(""),
            root.display()
        )]
    })
}

/// The branch checked out in `root`; `None` when HEAD is detached.
fn current(root: &Path) -> Result<Option<String>, Refused> {
    let out = git(root, &["symbolic-ref", "-q", "--short", "HEAD"])?;
    Ok(out.ok().then(|| out.text().trim().to_owned()))
}

/// The branch checked out before the current one (`@{-1}`), if any.
fn previous(root: &Path) -> Result<Option<String>, Refused> {
    let out = git(root, &["rev-parse", "-q", "--abbrev-ref", "@{-1}"])?;
    let name = out.text().trim().to_owned();
    Ok((out.ok() && !name.is_empty() && exists(root, &name)?).then_some(name))
}

fn exists(root: &Path, branch: &str) -> Result<bool, Refused> {
    let name = format!("refs/heads/{branch}");
    Ok(git(root, &["rev-parse", "-q", "--verify", &name])?.ok())
}

/// Whether every commit of `a` is in `b`.
fn contained(root: &Path, a: &str, b: &str) -> Result<bool, Refused> {
    Ok(git(root, &["merge-base", "--is-ancestor", a, b])?.ok())
}

/// The number of commits in `to` that `from` lacks, as git counts them.
fn ahead(root: &Path, from: &str, to: &str) -> usize {
    git(root, &["rev-list", "--count", &format!("{from}..{to}")])
        .ok()
        .filter(crate::git::Output::ok)
        .and_then(|o| o.text().trim().parse().ok())
        .unwrap_or(0)
}

fn checkout(root: &Path, branch: &str) -> Result<crate::git::Output, Refused> {
    git(root, &["checkout", "-q", branch])
}

/// How a start went about the run branch.
pub(super) struct Begun {
    /// `None`: the run goes in place.
    pub branches: Option<Branches>,
    /// What the reply says about it.
    pub line: String,
}

fn in_place(line: String) -> Begun {
    Begun {
        branches: None,
        line,
    }
}

/// The refusal a new run branch `run` meets in `root`: a branch of that
/// name left from an earlier run of the plan, holding commits `start` (the
/// branch checked out) does not have. `None` when there is none, or when
/// every commit of it is on `start` (it is made again).
fn leftover(
    root: &Path,
    run: &str,
    start: &str,
    resume: &str,
) -> Result<Option<Vec<String>>, Refused> {
    if !exists(root, run)? || contained(root, run, "HEAD")? {
        return Ok(None);
    }
    let n = ahead(root, "HEAD", run);
    Ok(Some(vec![
        format!(
            "Error: the branch {run} is left from an earlier run of this plan and holds {n} commit(s) that {start} does not have (git log --oneline {})).",
            crate::shell::quote(&format!("{start}..{run}"))
        ),
        format!(
            "To go on with that run: {resume}. To drop it: git branch -D {run}. To keep it apart: git branch -m {run} NEW-NAME. Then start again."
        ),
    ]))
}

/// What a new single-session run's branch will be, as the dry-run shows
/// it: made from the branch checked out, or refused (as [`begin`] refuses
/// it) by a branch of its name left from an earlier run. The cases where
/// the run goes in place or on the run branch checked out are said, not
/// refused.
pub(super) fn preview(
    root: &Path,
    run: &str,
    resume: &str,
) -> Result<Result<String, Vec<String>>, Refused> {
    let Some(start) = current(root)? else {
        return Ok(Ok(
            "none: HEAD is detached, the run goes in place".to_owned()
        ));
    };
    if start == run {
        return Ok(Ok(format!(
            "{run} is checked out (an earlier run's): the start goes on with it or in place"
        )));
    }
    Ok(match leftover(root, run, &start, resume)? {
        Some(lines) => Err(lines),
        None => Ok(format!("{run} is made from {start} and checked out")),
    })
}

/// Creates the run branch `run` at HEAD in `root` and checks it out.
/// A detached HEAD or a branch with no commit falls back to a run in
/// place, said in the line. `resume`: the call that goes on with an
/// earlier run of the plan, for a checkout already on `run`.
pub(super) fn begin(
    root: &Path,
    run: &str,
    earlier: Option<Branches>,
    resume: &str,
) -> Result<Begun, Refused> {
    let Some(mut start) = current(root)? else {
        return Ok(in_place(
            "Run branch: none, HEAD is detached: the run goes in place and its checkpoints land on no branch (to have a run branch, stop here and create a branch first: git switch -c NAME).".to_owned(),
        ));
    };
    let head = git(root, &["rev-parse", "-q", "--verify", "HEAD^{commit}"])?;
    if !head.ok() {
        return Ok(in_place(format!(
            "Run branch: none, {start} has no commit yet: the run goes in place."
        )));
    }
    let start_sha = head.text().trim().to_owned();
    if start == run {
        // A fresh start over an earlier run of the plan that is still on
        // its run branch: the new run takes the branch over, with the
        // start branch the earlier one recorded.
        if let Some(e) = earlier.filter(|e| e.run == run) {
            return Ok(Begun {
                line: format!(
                    "Run branch: {run} from {} (kept from the earlier run)",
                    e.start
                ),
                branches: Some(e),
            });
        }
        // A start cut short right after making the branch left it with no
        // commit of its own: back to the branch checked out before it
        // (git's @{-1}), and the branch is made again from there.
        if let Some(before) = previous(root)?
            && before != run
            && contained(root, run, &before)?
            && checkout(root, &before)?.ok()
        {
            start = before;
        }
    }
    if start == run {
        // Its record is gone (a progress file put aside unreadable): the
        // branch it merges into is unknown, so the run stays on it.
        return Ok(in_place(format!(
            "Run branch: none: {run} is checked out, an earlier run's whose record is gone, and the run goes on there in place (merge it by hand when done)"
        )));
    }
    if let Some(lines) = leftover(root, run, &start, resume)? {
        return Err(lines);
    }
    let made = if exists(root, run)? {
        // Every commit of it is on the start branch already: nothing is
        // lost by making it again here.
        git(root, &["checkout", "-q", "-B", run])?
    } else {
        git(root, &["checkout", "-q", "-b", run])?
    };
    if !made.ok() {
        return Err(vec![
            format!(
                "Error: git could not create the run branch {run}: {}",
                made.why()
            ),
            format!(
                "Nothing was started. Fix what git says, or run on {start} itself with --in-place."
            ),
        ]);
    }
    // Short: the start reply's budget is 600 bytes (issue 25); the guide
    // says the rest (the start branch does not move until the gate).
    Ok(Begun {
        line: format!("Run branch: {run} from {start}"),
        branches: Some(Branches {
            start,
            start_sha,
            run: run.to_owned(),
        }),
    })
}

/// Makes sure the checkout is on the run branch before the run goes on: a
/// checkout on the start branch is switched back (said in the returned
/// line), any other is refused with the command. `merged_ok`: a finish
/// may find the run already merged into the start branch (a confirm cut
/// short), and go on there.
pub(super) fn ensure_on(
    root: &Path,
    b: &Branches,
    merged_ok: bool,
    again: &str,
) -> Result<Option<String>, Refused> {
    let here = current(root)?;
    if here.as_deref() == Some(b.run.as_str()) {
        return Ok(None);
    }
    let run_there = exists(root, &b.run)?;
    if here.as_deref() == Some(b.start.as_str()) {
        if merged_ok && (!run_there || contained(root, &b.run, "HEAD")?) {
            return Ok(None);
        }
        if !run_there {
            return Err(vec![
                format!(
                    "Error: the run branch {} is gone, and this run's steps are on it, not on {}.",
                    b.run, b.start
                ),
                format!(
                    "Start the plan afresh (/trekexecute --fresh PLAN), or bring the branch back if you have its commit (git branch {} COMMIT).",
                    b.run
                ),
            ]);
        }
        let switched = checkout(root, &b.run)?;
        if switched.ok() {
            return Ok(Some(format!(
                "The checkout was on {}, the branch this run started from: switched back to the run branch {}, where the run goes on.",
                b.start, b.run
            )));
        }
        return Err(vec![
            format!(
                "Error: the checkout is on {}, and this run goes on on its run branch {}; git refused to switch: {}",
                b.start,
                b.run,
                switched.why()
            ),
            format!(
                "Commit or stash your changes, then: git switch {} && {again}",
                b.run
            ),
        ]);
    }
    let shown = here.unwrap_or_else(|| "a detached HEAD".to_owned());
    Err(vec![
        format!(
            "Error: the checkout is on {shown}, but this run's commits are on its run branch {} (made from {}); nothing was run.",
            b.run, b.start
        ),
        format!(
            "Switch back, then run the same call: git switch {} && {again}",
            b.run
        ),
    ])
}

/// Why a step call may not go on: the checkout is not on the run branch
/// (the user switched away mid-run). Never switched here: a step's work
/// may be in the tree. Read from the work tree's own `HEAD` file in
/// `git_dir`, not asked of git: a step call's time is counted (figure 26).
pub(super) fn off_branch(git_dir: &Path, b: &Branches) -> Option<String> {
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let here = head
        .trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_owned);
    (here.as_deref() != Some(b.run.as_str())).then(|| {
        format!(
            "the checkout is on {}, but this run's commits go on its run branch {}: nothing was done. Switch back (git switch {}), then make the same call again",
            here.as_deref().unwrap_or("a detached HEAD"),
            b.run,
            b.run
        )
    })
}

/// The gate's question for a run with a run branch: what a confirm does.
pub(super) fn question(root: &Path, b: &Branches) -> String {
    let n = ahead(root, &b.start, &b.run);
    format!(
        "Question: All steps are done and audited. Merge {n} commit{} of {} into {}? (Confirm — main-merge / Decline — hold for review)",
        if n == 1 { "" } else { "s" },
        b.run,
        b.start
    )
}

/// What a decline says: where the work is, how to look at it, how to leave
/// it, and how to come back to the gate (`again`).
pub(super) fn declined(root: &Path, b: &Branches, again: &str) -> Vec<String> {
    let n = ahead(root, &b.start, &b.run);
    vec![
        format!(
            "Declined: nothing was merged. {} is as it was; the run's {n} commit(s) stay on {}, which stays checked out.",
            b.start, b.run
        ),
        format!(
            "To look at them: git log --oneline {} (the changes: git diff {}).",
            crate::shell::quote(&format!("{}..{}", b.start, b.run)),
            crate::shell::quote(&format!("{}...{}", b.start, b.run))
        ),
        format!(
            "To leave the run branch: git switch {} (and delete it once its commits are not needed: git branch -D {}).",
            crate::shell::quote(&b.start),
            b.run
        ),
        format!("To come back to this gate: {again}"),
    ]
}

/// How a confirm's merge went.
pub(super) enum Merged {
    /// The lines that say what was merged, and that the checkout is on the
    /// start branch.
    Done(Vec<String>),
    /// Nothing was merged (a conflict, or git refused): the run branch is
    /// kept and checked out again; the lines name the way to finish by
    /// hand, ending with the gate's call again (`again`).
    Stopped(Vec<String>),
}

/// Merges the run branch into the start branch and leaves the checkout on
/// the start branch: a fast-forward when the start branch has not moved,
/// else a merge commit; the run branch is then deleted. Run again after
/// it succeeded (a finish cut short), it finds the run merged and only
/// finishes the checkout and the branch.
pub(super) fn merge(root: &Path, b: &Branches, again: &str) -> Result<Merged, Refused> {
    let (start, run) = (b.start.as_str(), b.run.as_str());
    let mut lines = Vec::new();
    let run_there = exists(root, run)?;
    let n = if run_there {
        ahead(root, start, run)
    } else {
        0
    };
    if current(root)?.as_deref() != Some(start) {
        let switched = checkout(root, start)?;
        if !switched.ok() {
            return Ok(Merged::Stopped(vec![
                format!(
                    "Nothing was merged: git refused to switch to {start}: {}",
                    switched.why()
                ),
                format!(
                    "The run stays on {run}, at the gate. Commit, stash or move what git names, then answer again: {again}"
                ),
            ]));
        }
    }
    if run_there && n > 0 {
        let ff = contained(root, start, run)?;
        let merged = if ff {
            git(root, &["merge", "-q", "--ff-only", run])?
        } else {
            git(root, &["merge", "-q", "--no-ff", "--no-edit", run])?
        };
        if !merged.ok() {
            return stopped_merge(root, b, &merged, again);
        }
        lines.push(format!(
            "Merged {n} commit{} of {run} into {start} ({}), checked out.",
            if n == 1 { "" } else { "s" },
            if ff {
                "fast-forward"
            } else {
                "a merge commit: it had moved"
            }
        ));
    } else {
        lines.push(format!(
            "{run} is merged into {start} already, checked out."
        ));
    }
    if run_there {
        let deleted = git(root, &["branch", "-q", "-d", run])?;
        if !deleted.ok() {
            lines.push(format!("The run branch {run} is kept: {}", deleted.why()));
        }
    }
    Ok(Merged::Done(lines))
}

/// A merge git did not make: a conflict is aborted; either way the run
/// branch is checked out again, and the lines say how to finish by hand.
fn stopped_merge(
    root: &Path,
    b: &Branches,
    merged: &crate::git::Output,
    again: &str,
) -> Result<Merged, Refused> {
    let (start, run) = (b.start.as_str(), b.run.as_str());
    let in_merge = git(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])?.ok();
    let mut lines = Vec::new();
    if in_merge {
        let files = git(root, &["diff", "--name-only", "-z", "--diff-filter=U"])?.fields();
        let _ = git(root, &["merge", "--abort"])?;
        lines.push(format!(
            "MERGE CONFLICT: {run} conflicts with {start} in {}; the merge was aborted and nothing was merged.",
            if files.is_empty() {
                "some files".to_owned()
            } else {
                files.join(", ")
            }
        ));
    } else {
        lines.push(format!(
            "Nothing was merged: git refused to merge {run} into {start}: {}",
            merged.why()
        ));
    }
    let back = checkout(root, run)?;
    lines.push(if back.ok() {
        format!("The run branch {run} is kept and checked out again; the run waits at the gate.")
    } else {
        format!(
            "The run branch {run} is kept; the checkout stays on {start} ({}).",
            back.why()
        )
    });
    lines.push("To finish by hand:".to_owned());
    lines.push(format!("  git switch {}", crate::shell::quote(start)));
    lines.push(format!(
        "  git merge {run}    # resolve the conflicts, then: git add FILES && git commit"
    ));
    lines.push(format!(
        "  {again}    # finds {run} merged, deletes it and finishes the run"
    ));
    Ok(Merged::Stopped(lines))
}

/// Where a multi-session run keeps its [`Branches`]: beside its orders,
/// and kept until the confirm has merged the run branch.
fn record_path(layout: &crate::orders::Layout) -> std::path::PathBuf {
    layout.session_dir.join("run-branch.json")
}

fn read_record(layout: &crate::orders::Layout) -> Option<Branches> {
    let bytes = crate::input_file::read(&record_path(layout), 1 << 16).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The layout of `plan`'s multi-session run from the main checkout `here`;
/// `None` when there is none to find (the wave calls say why).
fn layout(here: &Path, plan: &str) -> Option<crate::orders::Layout> {
    let root = crate::git::toplevel(here)?;
    crate::orders::Layout::new(&root, Path::new(plan), None).ok()
}

/// The run branch of a multi-session run, before its wave is prepared or
/// collected: made with the first wave (`fresh`: no wave in flight or
/// merged yet) unless `in_place`, recorded beside the orders, and checked
/// out again by every later run of the plan (from the start branch; any
/// other branch is refused). The lines say what happened; `again`: the
/// call that goes on with the run.
pub(super) fn for_waves(
    here: &Path,
    plan: &str,
    in_place: bool,
    again: &str,
) -> Result<(Option<Branches>, Vec<String>), Refused> {
    let Some(layout) = layout(here, plan) else {
        return Ok((None, Vec::new()));
    };
    let root = layout.root.as_path();
    let fresh = !layout.wave_file().exists() && !layout.merged_file().exists();
    let mut lines = Vec::new();
    if let Some(b) = read_record(&layout) {
        if exists(root, &b.run)? {
            let line = ensure_on(root, &b, false, again)?;
            lines.extend(line);
            return Ok((Some(b), lines));
        }
        let _ = std::fs::remove_file(record_path(&layout));
        if !fresh {
            lines.push(format!(
                "warning: the run branch {} of this run is gone: the run goes on in place, on the branch checked out.",
                b.run
            ));
            return Ok((None, lines));
        }
    }
    if !fresh {
        return Ok((None, lines));
    }
    if in_place {
        lines.push("Run branch: none (--in-place): every wave merges into the branch checked out, and the main-merge gate merges nothing.".to_owned());
        return Ok((None, lines));
    }
    let begun = begin(root, &layout.run_branch(), None, again)?;
    lines.push(begun.line);
    if let Some(b) = &begun.branches {
        let bytes = serde_json::to_vec_pretty(b).unwrap_or_default();
        let path = record_path(&layout);
        let written = std::fs::create_dir_all(&layout.session_dir)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                crate::atomic_file::write_atomic(&path, &bytes).map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            // Without the record a later run would not know the branch:
            // back to where the run started, and nothing else was done.
            let _ = checkout(root, &b.start);
            let _ = git(root, &["branch", "-q", "-D", &b.run]);
            return Err(vec![format!(
                "Error: cannot write {}: {e}; nothing was started (or run with --in-place).",
                path.display()
            )]);
        }
    }
    Ok((begun.branches, lines))
}

/// The [`Branches`] of `plan`'s multi-session run at its gate, the
/// checkout made sure of (a confirm cut short may have merged them into
/// the start branch already).
pub(super) fn at_gate(
    here: &Path,
    plan: &str,
    again: &str,
) -> Result<Option<(Branches, Vec<String>)>, Refused> {
    let Some(layout) = layout(here, plan) else {
        return Ok(None);
    };
    let Some(b) = read_record(&layout) else {
        return Ok(None);
    };
    let line = ensure_on(&layout.root, &b, true, again)?;
    Ok(Some((b, line.into_iter().collect())))
}

/// Forgets a multi-session run's branches once its confirm has merged them.
pub(super) fn forget(here: &Path, plan: &str) {
    if let Some(layout) = layout(here, plan) {
        let _ = std::fs::remove_file(record_path(&layout));
    }
}
