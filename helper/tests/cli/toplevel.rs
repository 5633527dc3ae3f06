//! The top level: version, help, completions, usage errors, and the library
//! entry point being safe to call twice in one process.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::process::ExitCode;

use crate::common::Case;

#[test]
fn version_and_help() {
    let ran = Case::new(&["--version"]).run();
    assert_eq!(ran.status, 0);
    assert_eq!(
        ran.stdout,
        format!("voyage-helper {}\n", env!("CARGO_PKG_VERSION"))
    );
    let ran = Case::new(&["--help"]).run();
    assert_eq!(ran.status, 0);
    for needle in ["run", "verdict", "completions", "Exit codes"] {
        assert!(ran.stdout.contains(needle), "{needle}: {}", ran.stdout);
    }
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let ran = Case::new(&["completions", shell]).run();
        assert_eq!(ran.status, 0, "{shell}");
        assert!(ran.stdout.contains("verdict"), "{shell}");
    }
}

#[test]
fn usage_errors_exit_2_on_stderr() {
    let ran = Case::new(&["no-such-subcommand"]).run();
    assert_eq!(ran.status, 2);
    assert_eq!(ran.stdout, "");
    assert!(ran.stderr.contains("no-such-subcommand"));
    let ran = Case::new(&["completions", "powershell-9"]).run();
    assert_eq!(ran.status, 2);
}

#[test]
fn the_library_entry_point_can_run_twice() {
    for _ in 0..2 {
        let code = voyage_helper::run(["voyage-helper", "completions", "bash"].map(Into::into));
        assert_eq!(code, ExitCode::SUCCESS);
    }
}
