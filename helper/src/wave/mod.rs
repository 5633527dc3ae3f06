//! Multi-session waves (trekexecute Phases 2.55 and 2.6; the README's
//! table of areas):
//! `wave preflight`, `prepare`, `collect`, `cleanup` and `report`. The
//! Phase 2.5 decision they follow (`plan strategy`) is the plan area's.
//!
//! Voyage never starts a Claude Code session (Hard rule 21): a wave is a
//! set of git worktrees, one per session, each with a branch
//! `trek/SLUG/session-N` and a session order (the `orders` area) the user
//! hands to a session they open themselves. Every git call goes through
//! [`crate::git::run`] (`LC_ALL=C`, `GIT_OPTIONAL_LOCKS=0`, `-z` where paths
//! are listed), and nothing here ever forces: no `--force`, no `-f` on
//! `worktree remove`, no `branch -D`, no `reset --hard`, no `clean -f`, no
//! `-X theirs/ours` (a test reads this source to keep it so). What git
//! refuses to remove holds work: it is kept and listed with what the user
//! can do.
//!
//! - [`context`]: the main checkout (a linked worktree is refused) and the
//!   shared git calls.
//! - [`mod@preflight`]: Checks 1–4. [`mod@prepare`]: Steps 1–2. [`mod@collect`]: Step
//!   3. [`report`]: Steps 5 and 6. [`tidy`]: removal without force.

mod cli;
pub(crate) mod code;
mod collect;
mod context;
mod ops;
mod preflight;
mod prepare;
mod report;
mod tidy;

pub(crate) use cli::Command;
pub(crate) use ops::{preflight, prepare, sessions_report};

/// Where a plan's multi-session run stands, for `trek start`: whether a
/// wave awaits its sessions (`wave.json` exists), and else the lowest wave
/// not yet merged (`None`: every wave is merged).
pub(crate) fn standing(plan: &std::path::Path) -> Result<(bool, Option<u32>), crate::orders::Fail> {
    let layout = context::layout(plan, None)?;
    if layout.wave_file().exists() {
        return Ok((true, None));
    }
    Ok((false, crate::orders::next_wave(&layout)?))
}

/// How `trek start`'s collect of the wave in flight ended.
pub(crate) struct Collected {
    /// What `wave collect` prints, then the problem's line when it stopped.
    pub text: String,
    /// `merged`, `running`, `failed`, `conflict`, `refused`, `dirty`, or
    /// `None` when the wave could not even be read.
    pub outcome: Option<&'static str>,
}

/// `wave collect` for the plan's wave in flight, as `trek start` runs it.
pub(crate) fn collect(plan: &std::path::Path) -> Collected {
    let done = ops::collect(plan, None, None);
    let mut text = done.text;
    if let Some((_, problem)) = &done.failed {
        text.push_str(&format!("error[{}]: {}\n", problem.code, problem.message));
    }
    Collected {
        text,
        outcome: done.reply.outcome,
    }
}

/// Phase 8's confirm on the multi-session path: the plan's orders
/// directory cleared (orders, archived progress copies, the merged-waves
/// record). Returns what was removed.
pub(crate) fn clear_orders(plan: &std::path::Path) -> Result<Vec<String>, crate::orders::Fail> {
    let layout = context::layout(plan, None)?;
    crate::orders::clear(&layout.session_dir)
}
