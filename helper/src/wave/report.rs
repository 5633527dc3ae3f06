//! `wave cleanup` (Phase 2.6 Step 5) and `wave report` (Step 6).

use std::fs;

use serde::Serialize;

use super::code;
use super::tidy::{Swept, sweep};
use crate::exit;
use crate::orders::{Fail, Layout};
use crate::problem::Problem;

/// Step 5: every session worktree git agrees is clean and every merged
/// session branch removed, `wave.json` never present (refused while a
/// wave awaits its sessions).
pub(super) fn cleanup(layout: &Layout) -> Result<Swept, Fail> {
    let wave_file = layout.wave_file();
    if wave_file.exists() {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_IN_FLIGHT,
                format!(
                    "{} exists - a wave is awaiting its sessions: cleanup never runs then (collect the wave, or delete wave.json to abandon it)",
                    wave_file.display()
                ),
            ),
        ));
    }
    sweep(layout)
}

/// One archived session result.
#[derive(Debug, Clone, Serialize)]
pub(super) struct SessionResult {
    pub wave: u32,
    pub session: u32,
    pub archive: String,
    /// The run status the session's progress file ended with, or
    /// `unreadable`.
    pub status: String,
    pub completed_steps: usize,
    pub total_steps: usize,
    /// Steps not completed or skipped, with their status.
    pub open_steps: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct Report {
    pub ok: bool,
    pub plan: Option<String>,
    pub sessions: Vec<SessionResult>,
    pub all_completed: bool,
    pub problem: Option<Problem>,
}

/// `wave-W-session-N.progress.json` → (W, N).
fn numbers(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("wave-")?.strip_suffix(".progress.json")?;
    let (w, n) = rest.split_once("-session-")?;
    Some((w.parse().ok()?, n.parse().ok()?))
}

/// Every archived session copy in the orders directory, as (wave,
/// session, path), in wave and session order: never the worktrees' files.
pub(super) fn archived(layout: &Layout) -> Vec<(u32, u32, std::path::PathBuf)> {
    let mut found: Vec<(u32, u32, std::path::PathBuf)> = fs::read_dir(layout.orders_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            numbers(&name).map(|(w, n)| (w, n, e.path()))
        })
        .collect();
    found.sort();
    found
}

/// Step 6: every archived copy's result.
pub(super) fn report(layout: &Layout) -> Report {
    let mut sessions = Vec::new();
    for (wave, session, path) in archived(layout) {
        let value = crate::input_file::read(&path, 16 << 20)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let status = value
            .as_ref()
            .and_then(|v| v.get("status"))
            .and_then(|s| s.as_str())
            .unwrap_or("unreadable")
            .to_owned();
        let steps: Vec<(String, String)> = value
            .as_ref()
            .and_then(|v| v.get("steps"))
            .and_then(|s| s.as_object())
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let s = v.get("status").and_then(|s| s.as_str()).unwrap_or("?");
                        (k.clone(), s.to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let done = |s: &str| matches!(s, "completed" | "passed");
        sessions.push(SessionResult {
            wave,
            session,
            archive: path.display().to_string(),
            completed_steps: steps.iter().filter(|(_, s)| done(s)).count(),
            total_steps: steps.len(),
            open_steps: steps
                .iter()
                .filter(|(_, s)| !done(s) && s != "skipped")
                .map(|(k, s)| format!("{k} ({s})"))
                .collect(),
            status,
        });
    }
    Report {
        ok: true,
        plan: Some(layout.plan_rel.clone()),
        all_completed: !sessions.is_empty() && sessions.iter().all(|s| s.status == "completed"),
        sessions,
        problem: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn archive_names() {
        assert_eq!(
            super::numbers("wave-2-session-13.progress.json"),
            Some((2, 13))
        );
        assert_eq!(super::numbers("wave-2-session-1.md"), None);
    }
}
