//! The `voyage-helper` binary: everything lives in the library.

use std::process::ExitCode;

/// While the PreToolUse hook runs, an allocation that fails denies the
/// call instead of aborting (an abort would let it run unchecked).
#[global_allocator]
static ALLOCATOR: voyage_helper::Allocator = voyage_helper::Allocator;

fn main() -> ExitCode {
    voyage_helper::run(std::env::args_os())
}
