//! What each `orders` subcommand does, with no printing: `next-wave`,
//! `write`, `status`, `archive`, `record-merged` and `clear` (seed Phase 2.6
//! Steps 0, 2 and 3, and Phase 8's main-merge gate). `wave prepare` and
//! `wave collect` call the same functions.

use std::fmt::Write as _;
use std::fs;

use serde::Serialize;

use super::code;
use super::model::{
    AWAITING, Fail, FinishedRecord, Layout, MergedRecord, WaveRecord, current_branch, read_record,
    same_plan, wave_sessions, write_bytes, write_record,
};
use crate::clock::UtcTime;
use crate::exit;
use crate::plan::Session;
use crate::plan::waves;
use crate::problem::Problem;

/// `next-wave`: the lowest wave not yet merged, or `None` when every wave
/// is. A merged-waves record of another plan (version) is exit 1.
pub(crate) fn next_wave(layout: &Layout) -> Result<Option<u32>, Fail> {
    let (plan, sha) = layout.load_plan()?;
    let strategy = plan.strategy.as_ref().ok_or_else(|| {
        (
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_NO_STRATEGY,
                "the plan has no Execution Strategy",
            ),
        )
    })?;
    let path = layout.merged_file();
    let merged = match read_record::<MergedRecord>(&path)? {
        Some(record) => {
            same_plan(&path, &record.plan, &record.plan_sha256, layout, &sha)?;
            record.waves
        }
        None => Vec::new(),
    };
    Ok(waves(strategy)
        .into_iter()
        .map(|w| w.wave)
        .find(|w| !merged.contains(w)))
}

/// One session of a written wave, as the hand-over shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Order {
    pub session: u32,
    pub title: String,
    pub branch: String,
    pub worktree: String,
    pub directory: String,
    pub progress_file: String,
    pub order_file: String,
    pub starter: String,
}

pub(crate) fn order_of(layout: &Layout, wave: u32, session: &Session) -> Order {
    let n = session.number;
    Order {
        session: n,
        title: session.title.clone(),
        branch: layout.branch(n),
        worktree: layout.worktree(n).display().to_string(),
        directory: layout.open_dir(session).display().to_string(),
        progress_file: layout.progress_file(n).display().to_string(),
        order_file: layout.order_file(wave, n).display().to_string(),
        starter: session.starter(&layout.plan_rel),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The text of `wave-W-session-N.md`.
fn order_text(layout: &Layout, wave: u32, session: &Session, order: &Order) -> String {
    let steps: Vec<String> = session.steps.iter().map(u32::to_string).collect();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Wave {wave}, session {}: {}\n",
        order.session, order.title
    );
    let _ = writeln!(t, "- plan: {}", layout.plan_rel);
    let _ = writeln!(t, "- worktree: {}", order.worktree);
    let _ = writeln!(t, "- branch: {}", order.branch);
    let _ = writeln!(t, "- directory: {}", order.directory);
    let _ = writeln!(t, "- progress file: {}", order.progress_file);
    let _ = writeln!(t, "- steps: {}", steps.join(", "));
    let _ = writeln!(t, "- touch: {}", list(&session.touch));
    let _ = writeln!(t, "- never touch: {}", list(&session.never_touch));
    let _ = writeln!(
        t,
        "\nOpen a Claude Code session yourself in the directory above and give it this starter line:\n\n    {}\n",
        order.starter
    );
    let _ = writeln!(
        t,
        "The session runs only these steps, in this worktree, inside its scope fence, and commits on its branch. \
When every session of the wave is done, run the same /trekexecute command again in the main checkout {} to merge the wave.",
        layout.root.display()
    );
    t
}

/// `write`: the orders of wave `wave` and `wave.json`, which keeps
/// `no_push` (how the run's pushes were turned off) for the collect.
pub(crate) fn write(
    layout: &Layout,
    wave: u32,
    branch: &str,
    no_push: Option<&str>,
) -> Result<Vec<Order>, Fail> {
    let (plan, sha) = layout.load_plan()?;
    let sessions = wave_sessions(&plan, wave)?;
    let mut orders = Vec::new();
    for s in &sessions {
        let order = order_of(layout, wave, s);
        write_bytes(
            &layout.order_file(wave, s.number),
            order_text(layout, wave, s, &order).as_bytes(),
        )?;
        orders.push(order);
    }
    let record = WaveRecord {
        schema_version: 1,
        status: AWAITING.into(),
        plan: layout.plan_rel.clone(),
        plan_sha256: sha,
        branch: branch.to_owned(),
        wave,
        sessions: sessions.iter().map(|s| s.number).collect(),
        prepared_at: UtcTime::now().rfc3339(),
        no_push: no_push.map(str::to_owned),
    };
    write_record(&layout.wave_file(), &record)?;
    // A wave prepared is a run going on: an earlier run's end is no
    // longer this plan's answer.
    forget_finished(layout)?;
    Ok(orders)
}

/// Records that the run's main-merge gate was confirmed by `answered_by`,
/// with the run's `report` and its `summary`, before `clear` removes what
/// it was read from.
pub(crate) fn record_finished(
    layout: &Layout,
    answered_by: &str,
    report: &str,
    summary: Option<serde_json::Value>,
) -> Result<(), Fail> {
    let (_, sha) = layout.load_plan()?;
    let record = FinishedRecord {
        schema_version: 1,
        plan: layout.plan_rel.clone(),
        plan_sha256: sha,
        answer: "confirmed".into(),
        answered_by: answered_by.to_owned(),
        answered_at: UtcTime::now().rfc3339(),
        report: report.to_owned(),
        summary,
    };
    write_record(&layout.finished_file(), &record)
}

/// The record of the plan's finished run, if its gate was confirmed and
/// no run of it started since.
pub(crate) fn finished(layout: &Layout) -> Result<Option<FinishedRecord>, Fail> {
    read_record(&layout.finished_file())
}

fn forget_finished(layout: &Layout) -> Result<(), Fail> {
    let path = layout.finished_file();
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err((
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_IO, e.to_string()).in_file(&path),
        )),
    }
}

/// How a session stands, from its progress file's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum State {
    Completed,
    Running,
    EndedBad,
}

/// The state a raw status means; an unknown status is never "ended".
pub(crate) fn state_of(status: Option<&str>) -> State {
    match status {
        Some("completed") => State::Completed,
        Some("failed" | "stopped" | "partial" | "blocked" | "unreadable") => State::EndedBad,
        _ => State::Running,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SessionStatus {
    pub session: u32,
    pub title: String,
    pub progress_file: String,
    /// The file's `status`, `unreadable`, or null when there is no file.
    pub status: Option<String>,
    pub state: State,
    pub order_file: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WaveStatus {
    pub plan: String,
    pub wave: u32,
    pub branch: String,
    pub sessions: Vec<SessionStatus>,
    pub running: Vec<u32>,
    pub ended_bad: Vec<u32>,
    pub all_completed: bool,
}

/// `wave.json` checked against this plan, version, wave and branch.
pub(crate) fn awaiting(
    layout: &Layout,
    wave: Option<u32>,
    branch: Option<&str>,
) -> Result<WaveRecord, Fail> {
    let path = layout.wave_file();
    let record = read_record::<WaveRecord>(&path)?.ok_or_else(|| {
        (
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_NO_WAVE,
                format!(
                    "{} does not exist: no wave awaits its sessions",
                    path.display()
                ),
            ),
        )
    })?;
    let (_, sha) = layout.load_plan()?;
    same_plan(&path, &record.plan, &record.plan_sha256, layout, &sha)?;
    if let Some(w) = wave
        && w != record.wave
    {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_OTHER_WAVE,
                format!("{} is for wave {}, not {w}", path.display(), record.wave),
            ),
        ));
    }
    let here = match branch {
        Some(b) => b.to_owned(),
        None => current_branch(&layout.root)?,
    };
    if here != record.branch {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::ORDERS_OTHER_BRANCH,
                format!(
                    "wave {} was prepared on branch {}, but {here} is checked out: switch back to {} and re-run, so the wave never merges elsewhere",
                    record.wave, record.branch, record.branch
                ),
            ),
        ));
    }
    Ok(record)
}

/// `status`: each session's progress file and state.
pub(crate) fn status(
    layout: &Layout,
    wave: Option<u32>,
    branch: Option<&str>,
) -> Result<WaveStatus, Fail> {
    let record = awaiting(layout, wave, branch)?;
    let (plan, _) = layout.load_plan()?;
    let strategy = plan.strategy.as_ref();
    let mut sessions = Vec::new();
    for &n in &record.sessions {
        let file = layout.progress_file(n);
        let status = if file.exists() {
            Some(
                crate::input_file::read(&file, 16 << 20)
                    .ok()
                    .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                    .and_then(|v| v.get("status").and_then(|s| s.as_str()).map(str::to_owned))
                    .unwrap_or_else(|| "unreadable".into()),
            )
        } else {
            None
        };
        sessions.push(SessionStatus {
            session: n,
            title: strategy
                .and_then(|s| s.session(n))
                .map(|s| s.title.clone())
                .unwrap_or_default(),
            progress_file: file.display().to_string(),
            state: state_of(status.as_deref()),
            status,
            order_file: layout.order_file(record.wave, n).display().to_string(),
        });
    }
    let pick = |state| {
        sessions
            .iter()
            .filter(|s| s.state == state)
            .map(|s| s.session)
            .collect::<Vec<_>>()
    };
    let running = pick(State::Running);
    let ended_bad = pick(State::EndedBad);
    Ok(WaveStatus {
        plan: record.plan,
        wave: record.wave,
        branch: record.branch,
        all_completed: running.is_empty() && ended_bad.is_empty(),
        running,
        ended_bad,
        sessions,
    })
}

/// `archive`: each session's progress file copied beside its order. A
/// session without a file has nothing to archive. Returns the copies.
pub(crate) fn archive(layout: &Layout, wave: u32, sessions: &[u32]) -> Result<Vec<String>, Fail> {
    let mut copies = Vec::new();
    for &n in sessions {
        let from = layout.progress_file(n);
        if !from.exists() {
            continue;
        }
        let bytes = crate::input_file::read(&from, 16 << 20).map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_IO, e.to_string()).in_file(&from),
            )
        })?;
        let to = layout.archive_file(wave, n);
        write_bytes(&to, &bytes)?;
        copies.push(to.display().to_string());
    }
    Ok(copies)
}

/// `record-merged`: wave `wave` joins the merged-waves record; `no_push`
/// (the run's pushes turned off) is kept there for the next wave.
pub(crate) fn record_merged(
    layout: &Layout,
    wave: u32,
    no_push: Option<&str>,
) -> Result<Vec<u32>, Fail> {
    let (_, sha) = layout.load_plan()?;
    let path = layout.merged_file();
    let mut record = match read_record::<MergedRecord>(&path)? {
        Some(r) => {
            same_plan(&path, &r.plan, &r.plan_sha256, layout, &sha)?;
            r
        }
        None => MergedRecord {
            schema_version: 1,
            plan: layout.plan_rel.clone(),
            plan_sha256: sha,
            waves: Vec::new(),
            no_push: None,
        },
    };
    if let Some(how) = no_push {
        record.no_push = Some(how.to_owned());
    }
    if !record.waves.contains(&wave) {
        record.waves.push(wave);
        record.waves.sort_unstable();
    }
    write_record(&path, &record)?;
    Ok(record.waves)
}

/// How an earlier call of this run turned its pushes off, and the record
/// that keeps it: `wave.json` while a wave is out, else
/// `merged-waves.json`. A record of another plan (version) counts as none.
pub(crate) fn recorded_no_push(layout: &Layout) -> Result<Option<(String, String)>, Fail> {
    let (_, sha) = layout.load_plan()?;
    let wave = layout.wave_file();
    if let Some(r) = read_record::<WaveRecord>(&wave)?
        && r.plan == layout.plan_rel
        && r.plan_sha256 == sha
    {
        return Ok(r
            .no_push
            .map(|how| (how, super::model::WAVE_FILE.to_owned())));
    }
    let merged = layout.merged_file();
    Ok(read_record::<MergedRecord>(&merged)?
        .filter(|r| r.plan == layout.plan_rel && r.plan_sha256 == sha)
        .and_then(|r| r.no_push)
        .map(|how| (how, super::model::MERGED_FILE.to_owned())))
}

/// Whether `name` is a file the orders write: `wave.json`,
/// `merged-waves.json`, `wave-W-session-N.md` or its `.progress.json`.
fn is_orders_file(name: &str) -> bool {
    if name == super::model::WAVE_FILE || name == super::model::MERGED_FILE {
        return true;
    }
    let Some(rest) = name.strip_prefix("wave-") else {
        return false;
    };
    let Some(rest) = rest
        .strip_suffix(".progress.json")
        .or_else(|| rest.strip_suffix(".md"))
    else {
        return false;
    };
    let Some((w, n)) = rest.split_once("-session-") else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(w) && digits(n)
}

/// `clear`: the orders, the archived copies, `wave.json` and the merged-waves
/// record, and the orders directory when that leaves it empty. Anything else
/// in it stays. Returns what was removed.
pub(crate) fn clear(session_dir: &std::path::Path) -> Result<Vec<String>, Fail> {
    let dir = session_dir.join("orders");
    let mut removed = Vec::new();
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(removed),
        Err(e) => {
            return Err((
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_IO, e.to_string()).in_file(&dir),
            ));
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_orders_file(n))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        fs::remove_file(&path).map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_IO, e.to_string()).in_file(&path),
            )
        })?;
        removed.push(path.display().to_string());
    }
    // Only an empty directory goes.
    let _ = fs::remove_dir(&dir);
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_of_every_status() {
        assert_eq!(state_of(Some("completed")), State::Completed);
        for s in ["failed", "stopped", "partial", "blocked", "unreadable"] {
            assert_eq!(state_of(Some(s)), State::EndedBad, "{s}");
        }
        for s in [
            None,
            Some("pending"),
            Some("in-progress"),
            Some("in_progress"),
            Some("done"),
        ] {
            assert_eq!(state_of(s), State::Running, "{s:?}");
        }
    }

    #[test]
    fn only_the_orders_files_are_cleared() {
        for name in [
            "wave.json",
            "merged-waves.json",
            "wave-1-session-2.md",
            "wave-10-session-3.progress.json",
        ] {
            assert!(is_orders_file(name), "{name}");
        }
        for name in [
            "notes.md",
            "wave-1-session-.md",
            "wave-x-session-1.md",
            "wave-1.md",
        ] {
            assert!(!is_orders_file(name), "{name}");
        }
    }
}
