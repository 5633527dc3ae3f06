//! `verdict` on real logs captured from each runner it knows.
//!
//! Every `<runner>/<case>.log` under `tests/fixtures/verdict/` has a
//! `<case>.expected.json` written by reading the log: the aggregate line,
//! and each failure's name, message and first frame. This test walks the
//! folder, so a new fixture is a new test case.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use voyage_helper::internals::verdict::scan;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdict");
    let mut logs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .flat_map(|runner| fs::read_dir(runner.unwrap().path()).into_iter().flatten())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    logs
}

/// Frames are compared by location: the tool prints `at ./src/lib.rs:56:5`
/// where the reply may keep `src/lib.rs:56:5`.
fn same_frame(ours: &str, expected: &str) -> bool {
    let norm = |s: &str| s.replace("./", "");
    let (ours, expected) = (norm(ours), norm(expected));
    expected.contains(&ours) || ours.contains(&expected)
}

#[test]
fn every_fixture_matches_its_expectation() {
    let logs = fixtures();
    assert!(
        logs.len() >= 30,
        "expected the captured fixtures, found {}",
        logs.len()
    );
    let mut problems = Vec::new();
    for log in &logs {
        let expected_path = log.with_extension("expected.json");
        let expected: Value = serde_json::from_str(&fs::read_to_string(&expected_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let found = scan(fs::File::open(log).unwrap()).unwrap();
        let case = log
            .strip_prefix(log.parent().unwrap().parent().unwrap())
            .unwrap()
            .display()
            .to_string();

        let want_summary = expected["summary"].as_str().map(str::trim);
        if found.summary.as_deref() != want_summary {
            problems.push(format!(
                "{case}: summary {:?}, expected {want_summary:?}",
                found.summary
            ));
        }
        let want: &Vec<Value> = expected["failures"].as_array().unwrap();
        let got = found.failures.items();
        if found.failures.total() != want.len() {
            problems.push(format!(
                "{case}: {} failures, expected {}: {:?}",
                found.failures.total(),
                want.len(),
                got.iter().map(|f| &f.name).collect::<Vec<_>>()
            ));
            continue;
        }
        for (g, w) in got.iter().zip(want) {
            let name = w["name"].as_str().unwrap();
            if g.name != name {
                problems.push(format!("{case}: name {:?}, expected {name:?}", g.name));
                continue;
            }
            let message = w["message"].as_str().unwrap().trim();
            if g.message != message
                && !(g.message.ends_with('…')
                    && message.starts_with(g.message.trim_end_matches('…')))
            {
                problems.push(format!(
                    "{case}: {name}: message {:?}, expected {message:?}",
                    g.message
                ));
            }
            match (w["frame"].as_str(), &g.frame) {
                (None, None) => {}
                (Some(want), Some(got)) if same_frame(got, want) => {}
                (want, got) => {
                    problems.push(format!("{case}: {name}: frame {got:?}, expected {want:?}"))
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
