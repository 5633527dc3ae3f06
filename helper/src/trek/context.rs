//! The run a `trek step-*` or `trek finish` call belongs to: found from
//! the current directory through the run marker, with its plan, its
//! progress file and what `trek start` decided (kept in the progress file
//! under `trek`, so that `--resume` in a new session finds it again).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::code;
use crate::plan::Plan;
use crate::problem::Problem;
use crate::run_marker::{self, RunMarker};

/// The progress file's key holding [`Decided`].
pub(super) const KEY: &str = "trek";

/// What `trek start` decided for the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Decided {
    /// The commit the run started from: the session audit counts from it.
    pub start_sha: String,
    /// execute, resume, step or session.
    pub mode: String,
    /// `--step N`: only this step runs.
    #[serde(default)]
    pub only_step: Option<u32>,
    /// `--session N`.
    #[serde(default)]
    pub session: Option<u32>,
    /// `--project DIR`.
    #[serde(default)]
    pub project: Option<String>,
    /// The gates mode (open, adaptive, closed) and where it came from.
    #[serde(default)]
    pub gates: String,
    /// The profile `profile resolve` chose at the start, and where it
    /// came from (flag, env, inheritance or default), for the stats record.
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub profile_source: Option<String>,
    /// How the run ended early, once a step decided it: `stopped` (an
    /// escalation or the sandbox sentinel) or `failed` (the attempts or
    /// the budget spent). `None` while every step went well.
    #[serde(default)]
    pub stop: Option<String>,
    /// The data directory a variable named when the run started (the
    /// plugin's, handed to Bash by the SessionStart hook): the run's later
    /// calls write there, wherever they run from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<String>,
    /// The sha256 of the plan's bytes when the run started: the plan the
    /// run is pinned to. A later call that reads another plan says so, and
    /// the run can no longer end `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_sha256: Option<String>,
    /// This run's id: from a start (or a resume of a run that had ended)
    /// to its end. The effects a finish has outside the progress file (the
    /// gate's events, the stats record) carry it, so a finish run again
    /// after a crash finds what it already wrote and writes it once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The branch the run started on and the run branch its checkpoints
    /// land on; `None` for a run in place (`--in-place`, a detached HEAD,
    /// a session's run in its worktree, a run started before run branches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<super::run_branch::Branches>,
}

/// A new run id: the UTC time and 32 random bits (`20261202T043000Z-9f3c01ab`).
pub(super) fn new_run_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 4];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map(|()| u32::from_le_bytes(bytes))
        .unwrap_or_else(|_| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            nanos ^ std::process::id().rotate_left(16)
        });
    format!("{}-{random:08x}", crate::clock::UtcTime::now().compact())
}

/// The progress file's key recording that the plan changed during the run.
pub(super) const PLAN_CHANGED: &str = "plan_changed";

/// The sha256 of the plan file's bytes, if it can be read.
pub(super) fn plan_digest(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| crate::orders::sha256_hex(&bytes))
}

/// When the plan no longer matches the one the run is pinned to (`now`:
/// the plan file's sha256 as this call read it): records it in the
/// progress file (the first time), with what changed in its steps when the
/// pinned copy in `git_dir` is there to compare, and returns the reply's
/// line. The caller hashes the plan once per call: on a 200-step plan
/// the hash costs as much as judging a tenth of its commands.
pub(super) fn plan_change(
    decided: &Decided,
    plan: &Path,
    now: Option<String>,
    progress: &Path,
    git_dir: &Path,
) -> Option<String> {
    let pinned = decided.plan_sha256.as_deref()?;
    let now = now?;
    if now == pinned {
        return None;
    }
    let steps = crate::plan::load(&pinned_copy(git_dir, pinned))
        .ok()
        .zip(crate::plan::load(plan).ok())
        .map(|(before, after)| step_changes(&before, &after));
    let at = crate::clock::UtcTime::now().rfc3339();
    let _ = crate::progress::edit(progress, |p| {
        if !p.extra.contains_key(PLAN_CHANGED) {
            let mut record = serde_json::json!({ "pinned": pinned, "now": now, "noticed_at": at });
            if let (Some(steps), Some(map)) = (&steps, record.as_object_mut()) {
                map.insert("steps".into(), steps.clone());
            }
            p.extra.insert(PLAN_CHANGED.into(), record);
        }
    });
    let listed = |key: &str| -> Option<String> {
        let numbers: Vec<String> = steps
            .as_ref()?
            .get(key)?
            .as_array()?
            .iter()
            .map(|n| n.to_string())
            .collect();
        (!numbers.is_empty()).then(|| format!("{key} {}", numbers.join(", ")))
    };
    let what: Vec<String> = ["added", "removed", "retitled"]
        .into_iter()
        .filter_map(listed)
        .collect();
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(
            " Steps {}: they are not what this run executes.",
            what.join("; ")
        )
    };
    Some(format!(
        "warning: the plan changed since the run started (sha256 {} then, {} now): the run goes on with the plan it started with (its copy in the git directory), so it can no longer end completed; to run the edited plan, start it afresh (--fresh).{what}",
        pinned.get(..12).unwrap_or(pinned),
        now.get(..12).unwrap_or(&now)
    ))
}

/// Where the copy of the plan a run is pinned to is kept: in the git
/// directory, out of the work tree, by its sha256.
pub(super) fn pinned_copy(git_dir: &Path, sha: &str) -> PathBuf {
    git_dir.join("voyage-plans").join(format!("{sha}.md"))
}

/// Keeps a copy of the plan at `plan` (whose sha256 is `sha`) beside the
/// run marker, so that the run goes on with the plan it started with
/// whatever happens to the file. A copy already there is kept.
pub(super) fn pin_plan(git_dir: &Path, plan: &Path, sha: &str) -> Result<(), Problem> {
    let copy = pinned_copy(git_dir, sha);
    crate::atomic_file::sweep_dead_writers(&copy);
    if copy.exists() {
        return Ok(());
    }
    let bytes = std::fs::read(plan).map_err(|e| {
        Problem::new(code::TREK_NOT_A_PLAN, format!("cannot read the plan: {e}")).in_file(plan)
    })?;
    if crate::orders::sha256_hex(&bytes) != sha {
        return Ok(());
    }
    let written = copy
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| crate::atomic_file::write_atomic(&copy, &bytes).map_err(|e| e.to_string()));
    written.map_err(|why| {
        Problem::new(
            code::TREK_MARKER,
            format!("cannot keep the plan's copy {}: {why}", copy.display()),
        )
    })
}

/// For `--resume`: the pinned copy of the plan a run recorded in
/// `progress` started with, when the plan file no longer matches it.
pub(super) fn resumed_copy(here: &Path, plan: &Path, progress: &Path) -> Option<PathBuf> {
    let sha = read_decided(progress).ok()?.plan_sha256?;
    if plan_digest(plan).as_deref() == Some(sha.as_str()) {
        return None;
    }
    let location = run_marker::locate(here)?;
    let copy = pinned_copy(location.marker.parent()?, &sha);
    copy.is_file().then_some(copy)
}

/// What changed in the steps between the pinned plan and `now`: the step
/// numbers added, removed and retitled.
pub(super) fn step_changes(pinned: &Plan, now: &Plan) -> serde_json::Value {
    let titles = |p: &Plan| -> std::collections::BTreeMap<u32, String> {
        p.steps
            .iter()
            .map(|s| (s.number, s.title.clone()))
            .collect()
    };
    let (before, after) = (titles(pinned), titles(now));
    let added: Vec<u32> = after
        .keys()
        .filter(|k| !before.contains_key(k))
        .copied()
        .collect();
    let removed: Vec<u32> = before
        .keys()
        .filter(|k| !after.contains_key(k))
        .copied()
        .collect();
    let changed: Vec<u32> = before
        .iter()
        .filter(|(k, t)| after.get(k).is_some_and(|a| a != *t))
        .map(|(k, _)| *k)
        .collect();
    serde_json::json!({ "added": added, "removed": removed, "retitled": changed })
}

/// A run found from the directory a call was made in.
pub(super) struct Run {
    pub marker_path: PathBuf,
    pub marker: RunMarker,
    /// The plan as the user names it (shown in replies and events).
    pub plan_path: PathBuf,
    /// The file the run reads its plan from: the plan itself, or the
    /// pinned copy when the plan was edited during the run.
    pub plan_file: PathBuf,
    /// The sha256 of the plan file as this call found it.
    pub plan_now: Option<String>,
    pub plan: Plan,
    pub progress_path: PathBuf,
    pub root: PathBuf,
    pub decided: Decided,
}

impl Run {
    /// The run of the work tree holding the directory `here`.
    /// A run with a run branch goes on only with that branch checked out.
    pub(super) fn here(here: &Path) -> Result<Self, Problem> {
        let run = Self::find(here, false)?;
        let off = run
            .decided
            .branches
            .as_ref()
            .and_then(|b| super::run_branch::off_branch(run.git_dir(), b));
        match off {
            Some(why) => Err(Problem::new(code::TREK_RUN_BRANCH, why)),
            None => Ok(run),
        }
    }

    /// [`Self::here`] for `trek finish`, which also takes a run whose
    /// progress file already holds its final status: a finish cut short
    /// after recording it is completed by the next one.
    pub(super) fn here_finishing(here: &Path) -> Result<Self, Problem> {
        Self::find(here, true)
    }

    fn find(cwd: &Path, ended_is_fine: bool) -> Result<Self, Problem> {
        let location = run_marker::locate(cwd).ok_or_else(|| {
            Problem::new(
                code::TREK_NO_RUN,
                format!(
                    "{} is not in a git work tree, so no run can be in progress here",
                    cwd.display()
                ),
            )
        })?;
        let marker = run_marker::read(&location.marker)
            .map_err(|e| Problem::new(code::TREK_MARKER, e.to_string()))?
            .ok_or_else(|| {
                Problem::new(
                    code::TREK_NO_RUN,
                    format!(
                        "no run is in progress in {} (no {}); start one with `trek start PLAN`",
                        location.worktree.display(),
                        location.marker.display()
                    ),
                )
            })?;
        let ended = ended_is_fine
            && load_progress(Path::new(&marker.progress))
                .is_ok_and(|p| p.status != crate::progress::RunStatus::InProgress);
        if let Some(why) = marker.stale_reason().filter(|_| !ended) {
            return Err(Problem::new(
                code::TREK_STALE_RUN,
                format!(
                    "the run marker {} is stale: {why}; `trek start --resume {}` picks the run up again, or the user ends it in a terminal in {} with `{}` (until then the hook refuses every write)",
                    location.marker.display(),
                    crate::shell::quote(&marker.plan),
                    location.worktree.display(),
                    crate::helper_call::call(&["trek", "release"])
                ),
            ));
        }
        let plan_path = PathBuf::from(&marker.plan);
        let progress_path = PathBuf::from(&marker.progress);
        // A call killed mid-write left its temporary files: gone now.
        crate::atomic_file::sweep_dead_writers(&progress_path);
        crate::atomic_file::sweep_dead_writers(&location.marker);
        let decided = read_decided(&progress_path)?;
        if let Some(dir) = &decided.data_dir {
            crate::data_dir::adopt(PathBuf::from(dir));
        }
        // The plan the run is pinned to: its copy, once the file changed.
        let plan_now = plan_digest(&plan_path);
        let copy = decided
            .plan_sha256
            .as_deref()
            .filter(|sha| plan_now.as_deref() != Some(*sha))
            .map(|sha| pinned_copy(location.marker.parent().unwrap_or(cwd), sha))
            .filter(|copy| copy.is_file());
        let plan_file = copy.unwrap_or_else(|| plan_path.clone());
        let plan = load_plan(&plan_file)?;
        Ok(Self {
            root: PathBuf::from(&marker.repo_root),
            marker_path: location.marker,
            marker,
            plan_path,
            plan_file,
            plan_now,
            plan,
            progress_path,
            decided,
        })
    }

    /// Writes the marker back after a change.
    pub(super) fn save_marker(&self) -> Result<(), Problem> {
        save_marker(&self.marker_path, &self.marker)
    }

    pub(super) fn progress_arg(&self) -> String {
        self.progress_path.display().to_string()
    }

    pub(super) fn plan_arg(&self) -> String {
        self.plan_path.display().to_string()
    }

    /// A reply of `command` about this run (its plan and progress file
    /// named), the run still in progress.
    pub(super) fn reply(
        &self,
        command: &'static str,
        next: super::reply::Next,
    ) -> super::reply::Reply {
        let mut reply = super::reply::Reply::new(command, next, "in_progress");
        reply.plan = Some(self.plan_arg());
        reply.progress = Some(self.progress_arg());
        reply
    }

    /// The line that says the plan changed under the run (recorded the
    /// first time), if it did; the plan is read and hashed once per call.
    pub(super) fn plan_change(&self) -> Option<String> {
        plan_change(
            &self.decided,
            &self.plan_path,
            self.plan_now.clone(),
            &self.progress_path,
            self.git_dir(),
        )
    }

    /// The git directory the run marker is in: the run's own place for
    /// what must never be in the work tree.
    pub(super) fn git_dir(&self) -> &Path {
        self.marker_path.parent().unwrap_or(&self.root)
    }

    /// The plan file the run's checks read (see [`Run::plan_file`]).
    pub(super) fn plan_file_arg(&self) -> String {
        self.plan_file.display().to_string()
    }
}

pub(super) fn save_marker(path: &Path, marker: &RunMarker) -> Result<(), Problem> {
    run_marker::write(path, marker).map_err(|e| {
        Problem::new(
            code::TREK_MARKER,
            format!("cannot write the run marker {}: {e}", path.display()),
        )
    })
}

pub(super) fn load_plan(path: &Path) -> Result<Plan, Problem> {
    use crate::problem::Coded;
    crate::plan::load(path).map_err(|e| match e {
        crate::plan::PlanLoadError::Read { .. } => e.problem().in_file_if_none(path),
        crate::plan::PlanLoadError::Unrecognized { .. } => {
            Problem::new(code::TREK_NOT_A_PLAN, e.to_string()).in_file(path)
        }
    })
}

/// The decisions kept in the progress file (defaults for a file `trek`
/// did not write).
pub(super) fn read_decided(progress: &Path) -> Result<Decided, Problem> {
    let file = load_progress(progress)?;
    Ok(file
        .extra
        .get(KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default())
}

/// Records `decided` in the progress file.
pub(super) fn write_decided(progress: &Path, decided: &Decided) -> Result<(), Problem> {
    let value = serde_json::to_value(decided).unwrap_or_default();
    crate::progress::edit(progress, |p| {
        p.extra.insert(KEY.to_owned(), value);
    })
}

/// HEAD's full id in `root`.
pub(super) fn head(root: &Path) -> Option<String> {
    let out = crate::git::run(root, &["rev-parse", "--verify", "-q", "HEAD"]).ok()?;
    out.ok().then(|| out.text().trim().to_owned())
}

/// Records how the run ends early (see [`Decided::stop`]).
pub(super) fn set_stop(progress: &Path, status: &str) -> Result<(), Problem> {
    let mut decided = read_decided(progress)?;
    decided.stop = Some(status.to_owned());
    write_decided(progress, &decided)
}

/// The run's progress file, or the first reason it cannot be read.
pub(super) fn load_progress(path: &Path) -> Result<crate::progress::Progress, Problem> {
    crate::progress::load(path).map_err(|e| {
        e.problems.into_iter().next().unwrap_or_else(|| {
            Problem::new(code::TREK_NO_RUN, "the progress file cannot be read").in_file(path)
        })
    })
}
