//! The run marker: what a `/trekexecute` run in progress tells the
//! PreToolUse hook, so that the hook can hold the agent to the run's scope
//! (Hard rules 2, 8 and 15) while the run lasts and behave as usual after.
//!
//! `trek start` writes it, `trek step-begin` names the step being worked on
//! and its `Files:`, and `trek finish` (and every early stop) removes it. It
//! lives in the git directory of the worktree the run is in
//! (`<git dir>/voyage-run.json`): never in the working tree, so it can be
//! neither committed nor counted by a clean-tree check, and each session's
//! worktree has its own. The hook finds it from each path a call writes, its
//! `cwd` and Claude Code's project directory, by walking up through every
//! enclosing `.git` with plain file-system calls ([`locate_all`]; no `git`
//! process: the hook's time budget is about one `bash -c true`).
//!
//! A marker whose progress file is missing, unreadable or no longer says
//! `in_progress` ([`RunMarker::stale_reason`]) does not switch the guard
//! off: the hook refuses every write until the helper ends the run (`trek
//! finish`, or `trek release` run by the user), and the next `trek start`
//! replaces it.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic_file::{AtomicWriteError, write_atomic};

/// The marker's file name inside the git directory.
pub const FILE_NAME: &str = "voyage-run.json";
/// Largest marker read (a marker is a few KiB; this bounds a hostile one).
const MAX_MARKER_BYTES: u64 = 4 << 20;
/// Largest progress file read for the staleness check.
const MAX_PROGRESS_BYTES: u64 = 16 << 20;
/// The format written today.
pub const SCHEMA_VERSION: u32 = 1;

/// What the hook needs to know about the run in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunMarker {
    /// Always [`SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The plan being executed (absolute).
    pub plan: String,
    /// The run's progress file (absolute): its `status` says whether the
    /// run is still in progress.
    pub progress: String,
    /// The root of the working tree the run writes in (absolute): writes
    /// outside it are refused (Hard rule 15).
    pub repo_root: String,
    /// The step being worked on, between `trek step-begin` and its
    /// `trek step-done`; `None` between steps.
    pub step: Option<u32>,
    /// The current step's `Files:`, relative to `repo_root`: the only files
    /// the agent may write while the step runs (Hard rule 2).
    #[serde(default)]
    pub files: Vec<String>,
    /// Whether the current step's manifest says `memory_write: true`, which
    /// opens `~/.claude/projects/*/memory/` (Hard rule 15).
    #[serde(default)]
    pub memory_write: bool,
    /// The build output directories the fence leaves open during a step,
    /// relative to `repo_root`: the ignored directories `trek step-begin`
    /// found, and those it made for a toolchain (`target/` of a Cargo
    /// project with no build yet).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_dirs: Vec<String>,
    /// The session's Touch list (scope fence), relative to `repo_root`.
    #[serde(default)]
    pub touch: Vec<String>,
    /// The session's Never-touch list, relative to `repo_root` (Hard rule 8).
    #[serde(default)]
    pub never_touch: Vec<String>,
    /// When the run started (RFC 3339).
    pub started_at: String,
    /// The commit the current step began from (its manifest audit's
    /// `--since`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_start_sha: Option<String>,
    /// The checkpoint commit `trek step-done` is about to make: written
    /// before the commit, cleared with the step. Found on a later call, it
    /// says whether a commit at HEAD is the step's (recorded then, never
    /// made again) or whether none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
}

/// A checkpoint commit under way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The step it is for.
    pub step: u32,
    /// HEAD before the commit: the commit's parent, once it is made.
    pub head_before: String,
}

/// Where a directory's run marker is, if the directory is in a git
/// working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The working tree's root (the directory holding `.git`).
    pub worktree: PathBuf,
    /// The marker file inside that worktree's git directory.
    pub marker: PathBuf,
}

/// The marker location for `dir`: the nearest ancestor (or `dir` itself)
/// with a `.git` directory, or a `.git` file naming a linked worktree's git
/// directory (`gitdir: PATH`). `None` outside a working tree or when the
/// `.git` file cannot be read.
pub fn locate(dir: &Path) -> Option<Location> {
    // The nearest `.git` decides: one that cannot be read is no work tree.
    let root = dir
        .ancestors()
        .find(|candidate| fs::symlink_metadata(candidate.join(".git")).is_ok())?;
    at(root)
}

/// Every marker location for `dirs`: the work tree holding each, and every
/// work tree around that one (a nested repository, a submodule or a linked
/// worktree inside another tree is judged by each), nearest first. Each
/// directory is looked at once, however many of `dirs` it is above. A
/// `.git` that is neither a directory nor a readable `gitdir:` file is
/// passed over.
pub(crate) fn locate_all<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> Vec<Location> {
    let mut seen = std::collections::HashSet::new();
    let mut found: Vec<Location> = Vec::new();
    for dir in dirs {
        for candidate in dir.ancestors() {
            if !seen.insert(candidate.to_path_buf()) {
                // Looked at already, and so is everything above it.
                break;
            }
            if let Some(location) = at(candidate)
                && !found.contains(&location)
            {
                found.push(location);
            }
        }
    }
    found
}

/// The marker location of the work tree whose root is `dir`, if `dir`
/// holds a `.git` directory or `gitdir:` file.
fn at(dir: &Path) -> Option<Location> {
    let dot_git = dir.join(".git");
    let meta = fs::symlink_metadata(&dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        let text = crate::input_file::read_to_string(&dot_git, 64 * 1024).ok()?;
        let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        if named.is_empty() {
            return None;
        }
        dir.join(named)
    } else {
        return None;
    };
    Some(Location {
        worktree: dir.to_path_buf(),
        marker: git_dir.join(FILE_NAME),
    })
}

/// Why a marker could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read the run marker {path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("the run marker {path} is not a run marker: {reason}")]
    Malformed { path: PathBuf, reason: String },
}

/// The marker at `path`, `Ok(None)` when there is none.
pub fn read(path: &Path) -> Result<Option<RunMarker>, ReadError> {
    let bytes = match crate::input_file::read(path, MAX_MARKER_BYTES) {
        Ok(bytes) => bytes,
        Err(crate::input_file::InputError::NotFound(_)) => return Ok(None),
        Err(e) => {
            return Err(ReadError::Unreadable {
                path: path.to_path_buf(),
                reason: e.to_string(),
            });
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ReadError::Malformed {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

/// Writes `marker` at `path`, atomically.
pub(crate) fn write(path: &Path, marker: &RunMarker) -> Result<(), AtomicWriteError> {
    write_atomic(path, &bytes_of(marker))
}

fn bytes_of(marker: &RunMarker) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(marker).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// [`fn@write`] without the fsyncs, for a change that only has to outlive
/// this process (see [`crate::atomic_file::write_atomic_unsynced`]).
pub(crate) fn write_unsynced(path: &Path, marker: &RunMarker) -> Result<(), AtomicWriteError> {
    crate::atomic_file::write_atomic_unsynced(path, &bytes_of(marker))
}

/// Removes the marker at `path`; `Ok(false)` when there was none.
pub(crate) fn remove(path: &Path) -> std::io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

impl RunMarker {
    /// Why this marker no longer describes a run in progress, or `None`
    /// when its progress file says `in_progress`.
    pub fn stale_reason(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Status {
            status: Option<String>,
        }
        let path = Path::new(&self.progress);
        let bytes = match crate::input_file::read(path, MAX_PROGRESS_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => return Some(format!("its progress file cannot be read ({e})")),
        };
        match serde_json::from_slice::<Status>(&bytes) {
            Ok(Status {
                status: Some(status),
            }) if status == "in_progress" => None,
            Ok(Status {
                status: Some(status),
            }) => Some(format!("its run is `{status}`, no longer in progress")),
            Ok(Status { status: None }) | Err(_) => Some(format!(
                "its progress file {} has no readable status",
                self.progress
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(progress: &Path) -> RunMarker {
        RunMarker {
            schema_version: SCHEMA_VERSION,
            plan: "/r/plan.md".into(),
            progress: progress.display().to_string(),
            repo_root: "/r".into(),
            step: Some(2),
            files: vec!["src/a.rs".into()],
            memory_write: false,
            build_dirs: Vec::new(),
            touch: vec![],
            never_touch: vec!["vendor/".into()],
            started_at: "2026-12-01T00:00:00Z".into(),
            step_start_sha: None,
            checkpoint: None,
        }
    }

    #[test]
    fn locate_finds_the_main_and_a_linked_worktree() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let main = dir.path().join("main");
        fs::create_dir_all(main.join(".git"))?;
        fs::create_dir_all(main.join("src/deep"))?;
        let found = locate(&main.join("src/deep")).ok_or("not found")?;
        assert_eq!(found.worktree, main);
        assert_eq!(found.marker, main.join(".git").join(FILE_NAME));

        let linked = dir.path().join("linked");
        fs::create_dir_all(&linked)?;
        fs::write(
            linked.join(".git"),
            "gitdir: ../main/.git/worktrees/linked\n",
        )?;
        let found = locate(&linked).ok_or("not found")?;
        assert_eq!(
            found.marker,
            linked.join("../main/.git/worktrees/linked").join(FILE_NAME)
        );
        assert_eq!(locate(Path::new("/")), None);
        Ok(())
    }

    #[test]
    fn a_marker_round_trips_and_goes_stale_with_its_run() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let progress = dir.path().join("progress.json");
        let path = dir.path().join(FILE_NAME);
        assert!(read(&path)?.is_none());
        let m = marker(&progress);
        write(&path, &m)?;
        assert_eq!(read(&path)?, Some(m.clone()));

        assert!(m.stale_reason().is_some(), "no progress file yet");
        fs::write(&progress, r#"{"status":"in_progress"}"#)?;
        assert_eq!(m.stale_reason(), None);
        fs::write(&progress, r#"{"status":"completed"}"#)?;
        assert!(m.stale_reason().is_some_and(|r| r.contains("completed")));

        assert!(remove(&path)?);
        assert!(!remove(&path)?);
        fs::write(&path, "{not json")?;
        assert!(matches!(read(&path), Err(ReadError::Malformed { .. })));
        Ok(())
    }
}
