//! `plan strategy`: the Phase 2.5 decision — one foreground session, or
//! several in waves, run in parallel or one after another.

use serde::Serialize;

use super::Plan;
use super::strategy::waves;

/// How the run goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Decision {
    Single,
    Parallel,
    Sequential,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WaveView {
    pub wave: u32,
    pub sessions: Vec<SessionView>,
    /// Two or more sessions: they run side by side, each in its worktree.
    pub parallel: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SessionView {
    pub session: u32,
    pub title: String,
    pub steps: Vec<u32>,
}

/// The decision and what it rests on.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StrategyReport {
    pub plan: String,
    pub decision: Decision,
    /// Why a single session; null otherwise.
    pub reason: Option<String>,
    pub session_count: usize,
    pub waves: Vec<WaveView>,
    /// The Phase 2.5 report line.
    pub line: String,
}

/// What the invocation says, besides the plan.
pub(crate) struct Invocation<'a> {
    pub fg: bool,
    pub mode: &'a str,
    pub effort: Option<&'a str>,
}

pub(crate) fn decide(plan: &Plan, how: &Invocation<'_>) -> StrategyReport {
    let views: Vec<WaveView> = plan
        .strategy
        .as_ref()
        .map(|s| {
            waves(s)
                .into_iter()
                .map(|w| WaveView {
                    wave: w.wave,
                    parallel: w.sessions.len() > 1,
                    sessions: w
                        .sessions
                        .iter()
                        .filter_map(|n| s.session(*n))
                        .map(|x| SessionView {
                            session: x.number,
                            title: x.title.clone(),
                            steps: x.steps.clone(),
                        })
                        .collect(),
                })
                .collect()
        })
        .unwrap_or_default();
    let count = plan.strategy.as_ref().map_or(0, |s| s.sessions.len());
    let reason = if how.fg {
        Some("--fg".to_owned())
    } else if matches!(how.mode, "step" | "resume" | "session") {
        Some(format!("{} mode", how.mode))
    } else if how.mode != "execute" {
        Some(format!("{} mode runs no sessions", how.mode))
    } else if plan.strategy.is_none() {
        Some("the plan has no Execution Strategy".to_owned())
    } else if count < 2 {
        Some("the Execution Strategy has one session".to_owned())
    } else if how.effort == Some("low") {
        Some("low effort".to_owned())
    } else {
        None
    };
    let decision = if reason.is_some() {
        Decision::Single
    } else if views.iter().any(|w| w.parallel) {
        Decision::Parallel
    } else {
        Decision::Sequential
    };
    let line = if decision == Decision::Single {
        "Strategy: single session".to_owned()
    } else {
        let parallel: usize = views
            .iter()
            .filter(|w| w.parallel)
            .map(|w| w.sessions.len())
            .sum();
        format!(
            "Strategy: {count} sessions ({parallel} parallel, {} sequential)",
            count.saturating_sub(parallel)
        )
    };
    StrategyReport {
        plan: plan.file.clone(),
        decision,
        reason,
        session_count: count,
        waves: views,
        line,
    }
}
