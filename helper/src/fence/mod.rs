//! `scope`: the kernel fence that holds a `/trekexecute` step to its Files.
//!
//! The PreToolUse hook judges each Bash call's text first (the denylist and
//! the run's scope, [`crate::scan`]): that explains a refusal before
//! anything runs. During a run it then rewrites the call it lets through
//! ([`wrap`]) into `scope exec` ([`exec`]), which restricts itself with
//! Linux Landlock ([`kernel`]) to the places [`grants`] lists and becomes
//! the shell that runs the command: whatever the command is, a write the
//! text could not foresee fails in the kernel. `trek step-begin` finds the
//! build directories a step's builds write ([`mod@build_dirs`]); `scope
//! status` says what this kernel can do and what is open ([`status`]).
//!
//! Implements trekexecute Hard rules 2, 8 and 15 and Sub-step A (the scope
//! fence), by construction where the kernel has Landlock ABI 3 or later.

pub(crate) mod build_dirs;
mod cli;
mod exec;
mod grants;
mod kernel;
mod status;
mod wrap;

pub(crate) use cli::Command;
pub(crate) use kernel::{Support, support};
pub use wrap::{ExecutorCall, executor_call, is_helper_call, quote};
pub(crate) use wrap::{Rewrite, fence_executor, rewrite, run_tmp};

/// The build output directories of a step (`trek step-begin`).
pub(crate) use build_dirs::find as build_dirs;
