//! The checks `trek start` makes before it creates anything (a run
//! branch, a progress file, a wave's worktrees), each one function that
//! returns its outcome as a row: the real start says a warning and stops
//! at a failure with the row's own words; the dry-run (`plan dry-run`,
//! `trek start --dry-run`) shows every row ([`Preview`]), so what it
//! previews is what the start will find.

use std::path::{Path, PathBuf};

use super::code;
use super::git_setup::{self, Places};
use super::reply::Reply;
use crate::plan::PreflightOutcome::{Fail, Pass, Warn};
use crate::plan::{Plan, PreflightRow};
use crate::problem::Problem;

/// The line the start adds after a failed check's own words.
const NOTHING_STARTED: &str = "Nothing was started.";

/// A plain `trek start` of a plan as a dry-run previews it: from `here`,
/// with the start's `--project`, `--fresh`, `--no-push`, `--allow-dirty`
/// and `--in-place`.
pub(crate) struct Preview<'a> {
    pub here: &'a Path,
    pub project: Option<&'a Path>,
    pub fresh: bool,
    pub no_push: bool,
    pub allow_dirty: bool,
    pub in_place: bool,
}

impl crate::plan::PreflightPreview for Preview<'_> {
    fn rows(&self, plan: &Plan, path: &Path) -> Vec<PreflightRow> {
        // The path a plain start takes (the brief's effort aside), as
        // the dry-run's list of effects decides it too.
        let how = crate::plan::Invocation {
            fg: false,
            mode: "execute",
            effort: None,
        };
        let waves =
            crate::plan::decide(plan, &how).decision != crate::plan::StrategyDecision::Single;
        let mut rows = vec![if waves {
            git_version(
                self.here,
                git_setup::MIN_WAVES_VERSION,
                "multi-session waves",
            )
        } else {
            git_version(self.here, git_setup::MIN_VERSION, "a run")
        }];
        rows.push(security_scan(path, plan));
        let tree = crate::git::WorkTree::of(self.here);
        let (root, head) = match repository(self.here, tree) {
            Ok((root, head)) => {
                rows.push(PreflightRow::new(
                    "repository",
                    Pass,
                    format!("{} is a git work tree with a commit", root.display()),
                ));
                (root, head)
            }
            Err(p) => {
                rows.push(PreflightRow::new("repository", Fail, p.message));
                return rows;
            }
        };
        rows.push(identity(&root));
        if waves {
            let target = crate::wave::Target::plan_from(path, self.here);
            rows.extend(crate::wave::preflight_preview(&target, plan, self.no_push));
            return rows;
        }
        rows.extend(self.single_session(plan, path, &root, &head));
        rows
    }
}

impl Preview<'_> {
    /// The single-session start's checks, in its order, once the work
    /// tree `root` (at `head`) is known.
    fn single_session(
        &self,
        plan: &Plan,
        path: &Path,
        root: &Path,
        head: &str,
    ) -> Vec<PreflightRow> {
        let places = Places::of(root);
        let mut rows = vec![
            detached(places.as_ref(), head),
            other_repository(plan, root),
            git_locks(places.as_ref()),
            build_output(root),
        ];
        let previous = crate::run_marker::locate(root)
            .and_then(|l| crate::run_marker::read(&l.marker).ok().flatten());
        let again = self.project.map_or_else(
            || crate::shell::quote(&path.display().to_string()),
            |dir| {
                format!(
                    "--project {}",
                    crate::shell::quote(&dir.display().to_string())
                )
            },
        );
        rows.push(live_run(
            previous.as_ref(),
            &self.here.join(path),
            false,
            self.fresh,
            &again,
        ));
        if let Some(progress) = crate::progress::progress_path(Some(path), self.project, None) {
            rows.push(super::existing::preview(&progress, self.fresh, &again));
        }
        rows.push(
            step_files_clean(plan, root, self.allow_dirty)
                .unwrap_or_else(|p| PreflightRow::new(CLEAN, Fail, p.message)),
        );
        rows.push(run_branch(root, path, self.in_place, &again));
        rows
    }
}

/// The start's side of a row: a warning is said and the start goes on
/// (`false`); a failure is said and stops it (`true`).
pub(super) fn said_by_start(row: PreflightRow, reply: &mut Reply) -> bool {
    match row.outcome {
        Pass => false,
        Warn => {
            reply.push_text(&row.detail);
            false
        }
        Fail => {
            reply.push_text(&row.detail);
            reply.push(NOTHING_STARTED);
            true
        }
    }
}

/// Phase 2.4: every command the plan runs, judged by the denylist. A
/// blocked one stops the start; advisories are said whole, above the PASS
/// line; a clean scan is its PASS line.
pub(super) fn security_scan(plan_path: &Path, plan: &Plan) -> PreflightRow {
    let scan = crate::scan::PlanScan::of_plan(
        &plan_path.display().to_string(),
        plan,
        &crate::scan::Context::from_env(),
    );
    let (text, _) = super::said::text_of(|out| scan.render_text(out).map(|()| crate::exit::OK));
    if scan.blocked() > 0 {
        PreflightRow::new(SCAN, Fail, text.trim_end())
    } else if scan.advised() > 0 {
        PreflightRow::new(SCAN, Warn, text.trim_end())
    } else {
        let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        PreflightRow::new(SCAN, Pass, last)
    }
}

/// The security scan's row.
const SCAN: &str = "security scan";

/// Git itself, before any call that needs it: missing or too old, every
/// later call would fail with git's own words.
pub(super) fn git_version(here: &Path, need: (u32, u32), for_what: &str) -> PreflightRow {
    match git_setup::version_problem(here, need, for_what) {
        Some(why) => PreflightRow::new("git", Fail, format!("Error: {why}")),
        None => PreflightRow::new(
            "git",
            Pass,
            format!("git {}.{} or newer (needed by {for_what})", need.0, need.1),
        ),
    }
}

/// The work tree's top and HEAD: a run checkpoints each step with a
/// commit, and audits from the commit it starts at.
pub(super) fn repository(
    here: &Path,
    tree: Option<crate::git::WorkTree>,
) -> Result<(PathBuf, String), Problem> {
    let tree = tree.ok_or_else(|| {
        Problem::new(
            code::TREK_NOT_A_REPO,
            format!(
                "{} is not in a git work tree: a run checkpoints each step with a commit",
                here.display()
            ),
        )
    })?;
    let head = tree.head.ok_or_else(|| {
        Problem::new(
            code::TREK_NOT_A_REPO,
            format!(
                "{} has no commit yet: make one, so that the run has a start to audit from",
                tree.top.display()
            ),
        )
    })?;
    Ok((tree.top, head))
}

/// Every step ends in a checkpoint commit (and a wave in merges): when git
/// cannot make one (no identity, signing without a key), it is said now,
/// not after the first step's work.
pub(super) fn identity(root: &Path) -> PreflightRow {
    match git_setup::commit_problem(root) {
        Some(why) => PreflightRow::new(
            "git identity",
            Fail,
            format!(
                "Error: no commit can be made in {}, and every step ends in a checkpoint commit: {why}\nFix git's setup as it says, then run /trekexecute again.",
                root.display()
            ),
        ),
        None => PreflightRow::new(
            "git identity",
            Pass,
            "a commit can be made (user.name and user.email are set, and signing works if it is on)",
        ),
    }
}

/// The build output the project's toolchain writes at the root (Cargo's
/// `target/`, npm's `node_modules/`, pytest's `.pytest_cache/`) must be
/// ignored by git: a step's fence opens only ignored build directories,
/// and `trek step-done` takes an untracked one for a change outside the
/// step's Files. A warning: the project may never build in a step.
pub(super) fn build_output(root: &Path) -> PreflightRow {
    const CHECK: &str = "build output";
    let unignored = crate::fence::build_dirs::unignored(root);
    if unignored.is_empty() {
        return PreflightRow::new(
            CHECK,
            Pass,
            "the toolchain's build output (if any) is ignored by git",
        );
    }
    let named: Vec<String> = unignored
        .iter()
        .map(|(dir, file)| format!("{dir}/ ({file})"))
        .collect();
    let lines: Vec<String> = unignored
        .iter()
        .map(|(dir, _)| format!("/{dir}/"))
        .collect();
    PreflightRow::new(
        CHECK,
        Warn,
        format!(
            "warning: git does not ignore {}: a build or test run during a step leaves it untracked, outside the step's Files, and `trek step-done` fails the step for that (under the kernel fence the build cannot make it at all). Add {} to .gitignore and commit that before the run.",
            named.join(", "),
            lines.join(" and ")
        ),
    )
}

/// A detached HEAD: every checkpoint would be a commit on no branch, easy
/// to lose at the next checkout.
pub(super) fn detached(places: Option<&Places>, head: &str) -> PreflightRow {
    if !places.is_some_and(|p| p.detached) {
        return PreflightRow::new("branch", Pass, "HEAD is on a branch");
    }
    let head = head.get(..12).unwrap_or(head);
    PreflightRow::new(
        "branch",
        Warn,
        format!(
            "warning: HEAD is detached (at {head}): the checkpoint commits will be on no branch, and a later checkout leaves them behind. To keep them on a branch, stop here and create one first: git switch -c NAME"
        ),
    )
}

/// A step's file inside a submodule or a nested repository belongs to
/// another repository: this run's checkpoint can never commit it.
pub(super) fn other_repository(plan: &Plan, root: &Path) -> PreflightRow {
    for step in &plan.steps {
        for file in &step.files {
            let Some(full) = crate::audit::inside(root, &file.path) else {
                continue;
            };
            let mut dir = full.parent();
            while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
                if std::fs::symlink_metadata(d.join(".git")).is_ok() {
                    let repo = d.strip_prefix(root).unwrap_or(d).display().to_string();
                    return PreflightRow::new(
                        "one repository",
                        Fail,
                        format!(
                            "Error: step {}'s file {} is inside {repo}, another git repository (a submodule or a nested clone): a run commits in {} only. Run that step's work as a plan of its own inside {repo}, or move the file.",
                            step.number,
                            file.path,
                            root.display()
                        ),
                    );
                }
                dir = d.parent();
            }
        }
    }
    PreflightRow::new(
        "one repository",
        Pass,
        "no step's file is inside a submodule or a nested repository",
    )
}

/// A git command killed earlier (a checkpoint cut short) may have left its
/// locks: named now, with the command to remove them.
pub(super) fn git_locks(places: Option<&Places>) -> PreflightRow {
    match places.and_then(git_setup::stale_locks_line) {
        Some(line) => PreflightRow::new("git locks", Warn, line),
        None => PreflightRow::new("git locks", Pass, "no lock file of git's left behind"),
    }
}

/// The run marker of the work tree, `old`, when one is there: a stale one
/// is replaced (said); a live run of another plan stops the start, and so
/// does a live run of this plan that reached no step, unless the start
/// goes on with it (`goes_on`: --resume or --step) or `fresh`. A live run
/// of this plan that reached a step is left to the earlier-run check,
/// which names what its record holds. `again` names the run again.
pub(super) fn live_run(
    old: Option<&crate::run_marker::RunMarker>,
    plan_path: &Path,
    goes_on: bool,
    fresh: bool,
    again: &str,
) -> PreflightRow {
    const CHECK: &str = "run in progress";
    let Some(old) = old else {
        return PreflightRow::new(CHECK, Pass, "no run in progress in this work tree");
    };
    let this_plan = Path::new(&old.plan) == plan_path;
    match old.stale_reason() {
        Some(why) => PreflightRow::new(
            CHECK,
            Warn,
            format!("A stale run marker ({}: {why}) is replaced.", old.plan),
        ),
        None if this_plan
            && !goes_on
            && !fresh
            && !super::existing::began(Path::new(&old.progress)) =>
        {
            PreflightRow::new(
                CHECK,
                Fail,
                format!(
                    "Error: a run of this plan is already in progress in this work tree (started {}, progress {}).\nTo continue it: /trekexecute --resume {again}\nTo start over on purpose (its record is kept beside it first): /trekexecute --fresh {again}",
                    old.started_at, old.progress
                ),
            )
        }
        None if !this_plan => PreflightRow::new(
            CHECK,
            Fail,
            format!(
                "Error: another run is in progress in this work tree: {} (progress {}).\nFinish it (`trek finish`), or resume it with /trekexecute --resume on that plan.",
                old.plan, old.progress
            ),
        ),
        None => PreflightRow::new(
            CHECK,
            Pass,
            "the run of this plan in progress here goes on (its record is looked at next)",
        ),
    }
}

/// The run branch a new single-session run makes (none with
/// `--in-place`, or for a plan outside the work tree); `again` names the
/// run for the resume the refusal offers.
fn run_branch(root: &Path, plan: &Path, in_place: bool, again: &str) -> PreflightRow {
    const CHECK: &str = "run branch";
    if in_place {
        return PreflightRow::new(
            CHECK,
            Pass,
            "none (--in-place): the checkpoints land on the branch checked out",
        );
    }
    let Ok(layout) = crate::orders::Layout::new(root, plan, None) else {
        return PreflightRow::new(
            CHECK,
            Pass,
            "none (the plan is outside the work tree): the run goes in place",
        );
    };
    let resume = format!("/trekexecute --resume {again}");
    match super::run_branch::preview(root, &layout.run_branch(), &resume) {
        Ok(Ok(line)) => PreflightRow::new(CHECK, Pass, line),
        Ok(Err(lines)) | Err(lines) => PreflightRow::new(CHECK, Fail, lines.join("\n")),
    }
}

/// The check's name: the single-session start's clean tree is its step
/// Files' (the multi-session one's is the whole tree, the wave's Check 1).
const CLEAN: &str = "clean working tree";

/// The user's own uncommitted edits in a step's Files: a failed step's
/// revert restores those Files from HEAD, so they are named before
/// anything is written, and the choice is the user's (`--allow-dirty`).
pub(super) fn step_files_clean(
    plan: &Plan,
    root: &Path,
    allow_dirty: bool,
) -> Result<PreflightRow, Problem> {
    let dirty = dirty_step_files(plan, root)?;
    Ok(if dirty.is_empty() {
        PreflightRow::new(CLEAN, Pass, "no step's Files hold uncommitted changes")
    } else if allow_dirty {
        PreflightRow::new(
            CLEAN,
            Warn,
            format!(
                "warning: these step Files hold uncommitted changes, taken as the steps' starting point (--allow-dirty): {}. A revert saves what a step's Files hold in a patch before restoring them.",
                dirty.join(", ")
            ),
        )
    } else {
        PreflightRow::new(
            CLEAN,
            Fail,
            format!(
                "Error: these step Files hold uncommitted changes that are not this run's: {}.\nA failed step's revert would restore them from HEAD. Commit them (git add -- PATHS && git commit), or put them aside (git stash push --include-untracked -- {}), then start again; or start with --allow-dirty to build on them.",
                dirty.join(", "),
                dirty.join(" ")
            ),
        )
    })
}

/// The Files of `plan`'s steps (inside the repository) that differ from
/// HEAD: staged, unstaged or untracked.
fn dirty_step_files(plan: &Plan, root: &Path) -> Result<Vec<String>, Problem> {
    let files: Vec<String> = plan
        .steps
        .iter()
        .flat_map(|s| s.files.iter())
        .filter(|f| crate::audit::inside(root, &f.path).is_some())
        .map(|f| f.path.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    crate::audit::scope::uncommitted(&crate::audit::Git::at(root), &files)
}
