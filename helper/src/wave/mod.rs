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
//! - [`effects`]: what a run will do to the repository and the remote,
//!   listed before it does it. [`push`]: Hard rule 19's pushes.
//! - [`place`]: where a `--session N` run belongs, and the refusal when
//!   it started elsewhere.
//! - [`ops`]: the operations, as the command line and `trek` call them;
//!   [`cli`]: the flags, each mapped to its operation.

mod cli;
pub(crate) mod code;
mod collect;
mod context;
mod effects;
mod ops;
mod place;
mod preflight;
mod prepare;
mod push;
mod report;
mod tidy;

pub(crate) use cli::Command;
pub(crate) use context::Target;
pub(crate) use effects::{RunBranch, for_dry_run as effects_for_dry_run};
pub(crate) use ops::collect_in_flight as collect;
pub(crate) use ops::{
    archives, clean_tree_first, clear_orders, finished, preflight, preflight_preview, prepare,
    record_finished, sessions_report, standing,
};
pub(crate) use place::session_misplaced;
