//! The `voyage-helper` binary: everything lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    voyage_helper::run(std::env::args_os())
}
