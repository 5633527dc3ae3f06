//! The exec differential of commands against real bash (issue 39, point
//! 2), driven by the fuzzer: the input bytes pick a command out of every
//! expansion and evaluation point bash has, with harmless stand-ins for
//! the programs it runs (`helper/tests/common/commands.rs`, shared with
//! the property test), bash runs it in a scratch directory, and every
//! stand-in that ran must be one `scan::judge_command` predicted, with its
//! words.
//!
//! Each input runs one bash process and a few stand-ins: some tens of
//! executions a second.

#![no_main]

#[path = "../../helper/tests/common/commands.rs"]
mod commands;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let command = commands::command_from(data);
    if let Err(gap) = commands::check(&command) {
        panic!("{gap}");
    }
});
