//! The final report (area `report/`; seed Phase 8 "Final
//! report", its `trekexecute_summary` block and result vocabulary, and the
//! Phase 9 stats record): `report`.
//!
//! Everything it says comes from what the run recorded: the progress file
//! (steps, `plan_verification` or `exit_condition`, `manifest_audit`,
//! recovery and budget fields) and the plan (descriptions, On failure, and
//! its commands judged by the denylist engine). The result word passes the
//! completion gate of the progress area ([`crate::progress::completion_gate`])
//! whenever the run claims `completed`, so the report and `progress
//! finish` can never disagree.
//!
//! - [`model`]: the report as values, built by a pure function;
//! - [`summary`]: `trekexecute_summary` and the stats record;
//! - [`render`]: the text and JSON forms; [`brief`]: how a very long
//!   run's report (as `trek finish` hands it back) summarises its lists;
//! - [`ops`]: the report built from a run ([`build`]), as the command line
//!   and `trek` call it; [`cli`]: the flags, mapped to it.
//! - [`mod@waves`]: a multi-session run's archived session copies folded
//!   into one run ([`build_run`]), reported by the same pieces.

mod brief;
mod cli;
pub(crate) mod code;
mod model;
mod ops;
mod render;
mod summary;
mod waves;

pub(crate) use brief::{full_call, shown};
pub(crate) use cli::ReportArgs;
pub(crate) use ops::build;
pub(crate) use waves::{Archive, RunRequest, build_run};
