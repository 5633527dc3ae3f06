//! The differential check of redirections against real bash (issue 23,
//! point 1), driven by the fuzzer: the input bytes pick a command out of
//! every redirection operator, descriptor, quoting and compound form
//! (`helper/tests/common/redirections.rs`, shared with the property test),
//! bash runs it in a scratch directory, and every file it created or
//! changed must be a write target the engine reports, and no more.
//!
//! Each input runs one bash process: a few hundred executions a second.

#![no_main]

#[path = "../../helper/tests/common/redirections.rs"]
mod redirections;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let command = redirections::command_from(data);
    if let Err(gap) = redirections::check(&command) {
        panic!("{gap}");
    }
});
