//! The orders directory and what it holds (seed Phase 2.6): where each
//! session's worktree, branch, progress file, order and archived copy live,
//! the waves of a plan, and the two records, `wave.json` and
//! `merged-waves.json`.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::code;
use crate::exit;
use crate::plan::Plan;
use crate::plan::{Session, waves};
use crate::problem::Problem;

/// A refusal: the exit code and why.
pub(crate) type Fail = (u8, Problem);

pub(crate) const WAVE_FILE: &str = "wave.json";
pub(crate) const MERGED_FILE: &str = "merged-waves.json";
/// Beside `orders/`, not in it: what `orders clear` leaves of a finished
/// run, so that the gate asked again says it was answered.
pub(crate) const FINISHED_FILE: &str = "finished.json";
pub(crate) const AWAITING: &str = "awaiting-sessions";

/// Where everything of one plan's multi-session run lives.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The main checkout, symlinks resolved.
    pub root: PathBuf,
    /// The plan relative to `root`, `/`-separated.
    pub plan_rel: String,
    /// The plan's file name without its extension.
    pub slug: String,
    /// `root/.claude/trekplan-sessions/SLUG` unless given.
    pub session_dir: PathBuf,
}

impl Layout {
    /// The layout for `plan` (relative to `root`, or absolute inside it)
    /// in the main checkout `root`. Both sides are resolved, so a symlinked
    /// path to the repository and macOS's `/var` → `/private/var` agree.
    pub(crate) fn new(root: &Path, plan: &Path, session_dir: Option<&Path>) -> Result<Self, Fail> {
        let root = root.canonicalize().map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_IO, format!("{}: {e}", root.display())),
            )
        })?;
        let joined = root.join(plan);
        let resolved = joined.canonicalize().map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_PLAN_UNREADABLE, format!("{e}")).in_file(plan),
            )
        })?;
        let outside = || {
            (
                exit::NOT_OK,
                Problem::new(
                    code::ORDERS_PLAN_OUTSIDE,
                    format!(
                        "the plan {} is not inside the main checkout {}",
                        plan.display(),
                        root.display()
                    ),
                ),
            )
        };
        let rel = resolved.strip_prefix(&root).map_err(|_| outside())?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| match c {
                Component::Normal(s) => Ok(s.to_string_lossy().into_owned()),
                _ => Err(outside()),
            })
            .collect::<Result<_, _>>()?;
        if parts.is_empty() {
            return Err(outside());
        }
        let slug = resolved
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(outside)?;
        let session_dir = match session_dir {
            Some(dir) if dir.is_absolute() => dir.to_path_buf(),
            Some(dir) => root.join(dir),
            None => root.join(".claude/trekplan-sessions").join(&slug),
        };
        Ok(Self {
            root,
            plan_rel: parts.join("/"),
            slug,
            session_dir,
        })
    }

    pub(crate) fn plan_path(&self) -> PathBuf {
        self.root.join(&self.plan_rel)
    }

    pub(crate) fn orders_dir(&self) -> PathBuf {
        self.session_dir.join("orders")
    }

    pub(crate) fn worktrees_dir(&self) -> PathBuf {
        self.session_dir.join("worktrees")
    }

    pub(crate) fn wave_file(&self) -> PathBuf {
        self.orders_dir().join(WAVE_FILE)
    }

    pub(crate) fn merged_file(&self) -> PathBuf {
        self.orders_dir().join(MERGED_FILE)
    }

    pub(crate) fn finished_file(&self) -> PathBuf {
        self.session_dir.join(FINISHED_FILE)
    }

    pub(crate) fn branch(&self, session: u32) -> String {
        format!("trek/{}/session-{session}", ref_safe(&self.slug))
    }

    /// The run branch: the run's checkpoints and merges land here, and the
    /// main-merge gate's confirm merges it into the branch the run started on.
    pub(crate) fn run_branch(&self) -> String {
        format!("trek/{}/run", ref_safe(&self.slug))
    }

    /// The prefix of every session branch of this plan.
    pub(crate) fn branch_prefix(&self) -> String {
        format!("refs/heads/trek/{}/", ref_safe(&self.slug))
    }

    pub(crate) fn worktree(&self, session: u32) -> PathBuf {
        self.worktrees_dir().join(format!("session-{session}"))
    }

    /// The progress file `--session N` writes in its worktree (Phase 3: next
    /// to the plan, named after its slug and the session).
    pub(crate) fn progress_file(&self, session: u32) -> PathBuf {
        let plan = self.worktree(session).join(&self.plan_rel);
        crate::progress::progress_path(Some(&plan), None, Some(session))
            .unwrap_or_else(|| self.worktree(session).join("progress.json"))
    }

    /// The directory the session opens in: its `cwd:` below the worktree.
    pub(crate) fn open_dir(&self, session: &Session) -> PathBuf {
        let wt = self.worktree(session.number);
        match session.open_dir() {
            "." => wt,
            cwd => wt.join(cwd),
        }
    }

    pub(crate) fn order_file(&self, wave: u32, session: u32) -> PathBuf {
        self.orders_dir()
            .join(format!("wave-{wave}-session-{session}.md"))
    }

    pub(crate) fn archive_file(&self, wave: u32, session: u32) -> PathBuf {
        self.orders_dir()
            .join(format!("wave-{wave}-session-{session}.progress.json"))
    }

    /// The plan read and parsed, with the sha256 of its bytes.
    pub(crate) fn load_plan(&self) -> Result<(Plan, String), Fail> {
        let path = self.plan_path();
        let bytes = crate::input_file::read(&path, crate::plan::MAX_FILE_BYTES).map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_PLAN_UNREADABLE, e.to_string()).in_file(&path),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let plan = crate::plan::parse(&text, &self.plan_rel).map_err(|_| {
            (
                exit::NOT_OK,
                Problem::new(code::ORDERS_PLAN_UNREADABLE, "not a plan").in_file(&path),
            )
        })?;
        Ok((plan, super::sha256::hex(&bytes)))
    }
}

/// `slug` as one component of a branch name: a character git refuses in a
/// ref (a space, `~^:?*[\\`, a control character) becomes `-`, and so do
/// the dots that would make `..`, a leading `.` or a trailing `.lock`.
pub fn ref_safe(slug: &str) -> String {
    let mut out: String = slug
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+".contains(c) || (!c.is_ascii() && !c.is_control())
            {
                c
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("..") {
        out = out.replace("..", "-.");
    }
    if out.starts_with('.') {
        out.replace_range(..1, "-");
    }
    if let Some(stem) = out.strip_suffix(".lock") {
        out = format!("{stem}-lock");
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// The sessions of wave `wave`, or a refusal naming the waves there are.
pub(crate) fn wave_sessions(plan: &Plan, wave: u32) -> Result<Vec<&Session>, Fail> {
    let strategy = plan.strategy.as_ref().ok_or_else(|| {
        (
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_NO_STRATEGY,
                "the plan has no Execution Strategy",
            ),
        )
    })?;
    let all = waves(strategy);
    let found = all.iter().find(|w| w.wave == wave).ok_or_else(|| {
        let have: Vec<String> = all.iter().map(|w| w.wave.to_string()).collect();
        (
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_NO_STRATEGY,
                format!(
                    "the plan has no wave {wave} (its waves: {})",
                    have.join(", ")
                ),
            ),
        )
    })?;
    Ok(found
        .sessions
        .iter()
        .filter_map(|n| strategy.session(*n))
        .collect())
}

/// `wave.json`: the wave awaiting its sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WaveRecord {
    pub schema_version: u32,
    pub status: String,
    pub plan: String,
    pub plan_sha256: String,
    pub branch: String,
    pub wave: u32,
    pub sessions: Vec<u32>,
    pub prepared_at: String,
    /// How the run's pushes were turned off (`--no-push`,
    /// `VOYAGE_NO_PUSH=1`); absent: the collect pushes (Hard rule 19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_push: Option<String>,
}

/// `merged-waves.json`: the waves of this plan (version) already merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MergedRecord {
    pub schema_version: u32,
    pub plan: String,
    pub plan_sha256: String,
    pub waves: Vec<u32>,
    /// The run's pushes turned off, carried from wave to wave (as in
    /// [`WaveRecord::no_push`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_push: Option<String>,
}

/// `finished.json`: the main-merge gate of this plan's multi-session run
/// was confirmed and its orders cleared; what the sessions' report said
/// then. Removed when a new run of the plan prepares its first wave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FinishedRecord {
    pub schema_version: u32,
    pub plan: String,
    pub plan_sha256: String,
    /// `confirmed`.
    pub answer: String,
    /// `user` or `operator`.
    pub answered_by: String,
    pub answered_at: String,
    /// The run's report as the confirm printed it.
    pub report: String,
    /// Its `trekexecute_summary` (absent from a record written before
    /// the whole run's report was made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<serde_json::Value>,
}

/// Reads a record; `Ok(None)` when the file does not exist.
pub(crate) fn read_record<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, Fail> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = crate::input_file::read(path, 1 << 20).map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_IO, e.to_string()).in_file(path),
        )
    })?;
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_BROKEN_FILE, e.to_string()).in_file(path),
        )
    })
}

/// Writes a record atomically, creating its directory.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), Fail> {
    let io = |e: String| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_IO, e).in_file(path),
        )
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(e.to_string()))?;
    }
    crate::atomic_file::write_atomic(path, bytes).map_err(|e| io(e.to_string()))
}

pub(crate) fn write_record<T: Serialize>(path: &Path, record: &T) -> Result<(), Fail> {
    let mut bytes = serde_json::to_vec_pretty(record).map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_IO, e.to_string()),
        )
    })?;
    bytes.push(b'\n');
    write_bytes(path, &bytes)
}

/// A record of `plan`/`sha` must be this plan in this version.
pub(crate) fn same_plan(
    file: &Path,
    plan: &str,
    sha: &str,
    layout: &Layout,
    current_sha: &str,
) -> Result<(), Fail> {
    if plan != layout.plan_rel {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_OTHER_PLAN,
                format!(
                    "{} belongs to the plan {plan}, not {}: an unfinished multi-session run of that plan holds {}; finish it (re-run it with its own plan) or clear it with `voyage-helper orders clear --session-dir {}`",
                    file.display(),
                    layout.plan_rel,
                    layout.orders_dir().display(),
                    layout.session_dir.display()
                ),
            ),
        ));
    }
    if sha != current_sha {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_PLAN_CHANGED,
                format!(
                    "{} was written for another version of {plan} (sha256 {sha}, now {current_sha}): re-run with the version that wrote it, or clear it with `voyage-helper orders clear --session-dir {}`",
                    file.display(),
                    layout.session_dir.display()
                ),
            ),
        ));
    }
    Ok(())
}

/// The branch checked out in `root` (`HEAD` when detached).
pub(crate) fn current_branch(root: &Path) -> Result<String, Fail> {
    let out = crate::git::run(root, &["rev-parse", "--abbrev-ref", "HEAD"]).map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_GIT, e.to_string()),
        )
    })?;
    if !out.ok() {
        return Err((
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_GIT, out.why()),
        ));
    }
    Ok(out.text().trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_become_valid_branch_components() {
        assert_eq!(ref_safe("split"), "split");
        assert_eq!(ref_safe("split plan"), "split-plan");
        assert_eq!(ref_safe("a..b~1^x:y?z*[w\\"), "a-.b-1-x-y-z--w-");
        assert_eq!(ref_safe(".hidden.lock"), "-hidden-lock");
        assert_eq!(ref_safe("été"), "été");
    }
}
