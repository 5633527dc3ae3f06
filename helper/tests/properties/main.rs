//! Properties that hold for any input and any interruption: no parser or
//! subcommand panics on random or hostile input, the denylist engine's
//! invariants (and its differentials against the real bash), and writers
//! killed at random moments leave a whole file.
//!
//! proptest keeps the seeds of past failures in
//! `../proptest-regressions/<module>.txt` (its default place for a test
//! binary with a `main.rs`) and replays them first.

#[path = "../common/mod.rs"]
mod common;

mod branch_slug;
mod command_bash;
mod crash;
mod criteria_no_panic;
mod no_panic;
mod no_panic_state;
mod plan_no_panic;
mod recovery_spec;
mod redirect_bash;
mod run_scope;
mod scan_properties;
mod scan_values;
