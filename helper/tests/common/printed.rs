//! Calls as a reply prints them, run exactly so through `sh -c` (issue 40):
//! the agent's `trek …` calls of `NEXT:` lines, with the test's helper
//! standing for the launcher the command names, and whole calls (the
//! operator's) as they are.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// `text` as one single-quoted shell word: the tests' own, so a bug in
/// the helper's quoting is not shared.
pub fn word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The test's helper binary as a shell word.
pub fn helper() -> String {
    word(env!("CARGO_BIN_EXE_voyage-helper"))
}

/// `script` through `sh -c` in `dir` (`HOME` at `home`): the exit code,
/// then stdout and stderr.
pub fn sh(dir: &Path, home: &Path, script: &str) -> (i32, String) {
    let out = super::env::shell(dir, home, script).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The agent's call `trek …`, as a `NEXT:` line names it, run in `dir`.
pub fn agent(dir: &Path, home: &Path, call: &str) -> (i32, String) {
    assert!(call.starts_with("trek "), "{call}");
    sh(dir, home, &format!("{} {call}", helper()))
}

/// The last `NEXT:` line's text after `NEXT: `.
pub fn next_of(text: &str) -> &str {
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("NEXT: "))
        .unwrap_or_else(|| panic!("no NEXT line: {text}"))
}

/// The gate's two calls a `NEXT:` line gives: Confirm's, then Decline's.
pub fn gate_calls(next: &str) -> (&str, &str) {
    let (_, calls) = next
        .split_once(" — Confirm: ")
        .unwrap_or_else(|| panic!("no gate calls: {next}"));
    calls
        .split_once(" — Decline: ")
        .unwrap_or_else(|| panic!("no Decline call: {next}"))
}

/// Follows a run's `NEXT:` lines from `text` in `dir`, each call run as
/// printed and each step's files written by `edits`, until a line that is
/// no step call; returns the last reply.
pub fn drive(
    dir: &Path,
    home: &Path,
    mut text: String,
    edits: &dyn Fn(u32) -> Vec<(&'static str, &'static str)>,
) -> String {
    for _ in 0..24 {
        let next = next_of(&text).to_owned();
        if next.starts_with("trek ") {
            text = agent(dir, home, &next).1;
        } else if let Some(rest) = next.strip_prefix("implement step ") {
            let n: u32 = rest.split(' ').next().unwrap().parse().unwrap();
            super::repo::write(dir, &edits(n));
            let (_, call) = next.split_once("then: ").unwrap();
            text = agent(dir, home, call).1;
        } else {
            return text;
        }
    }
    panic!("no end: {text}");
}
