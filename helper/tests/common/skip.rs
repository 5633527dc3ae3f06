//! A test that cannot run where it is run says so, instead of passing in
//! silence.
//!
//! [`skip`] writes one line, `SKIPPED: <test>: <reason>`, straight to the
//! process's stderr: libtest's capture would swallow an `eprintln!` of a
//! passing test, and `.config/nextest.toml` shows the output of the tests
//! that can skip even when they pass. Where CI provides what is missing
//! (`.ci/run` installs it), `tool_or_skip` fails the test instead: there
//! a missing tool is a broken setup, not a reason to pass.
//!
//! Only `std`: the plugin-level tests (`tests/src/lib.rs`) include this
//! file too, so both crates skip the same way.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The name of the running test: libtest (and so nextest) names the
/// thread a test runs on after the test's path, `module::test`.
pub fn current_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_owned()
}

/// Says that the running test did not check what it is for, and why.
pub fn skip(reason: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {}: {reason}", current_test());
}

/// Whether this is a CI run (`CI` set and not empty).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// The first executable file called `name` on the test process's `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

/// Whether `path` is a file with an execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `tool` on `PATH`; without it `None`, after [`skip`] says so (`install`
/// tells how to get it), or, under CI, a failed test.
pub fn tool_or_skip(tool: &str, install: &str) -> Option<PathBuf> {
    let found = find_on_path(tool);
    if found.is_none() {
        assert!(
            !in_ci(),
            "{}: `{tool}` is not on PATH, and CI is set (CI installs it: {install})",
            current_test()
        );
        skip(&format!("`{tool}` is not on PATH ({install})"));
    }
    found
}

/// Whether the tests run as root (`id -u` says 0), which ignores file
/// permissions.
pub fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}
