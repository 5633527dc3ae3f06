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
        logs.len() >= 100,
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

/// Path pieces of frames outside the project: installed packages, the
/// language's library, the runner's installation. Written here from the
/// logs, not taken from the recognisers.
const OUTSIDE: &[&str] = &[
    "node_modules/",
    "node:internal",
    "node:async_hooks",
    "/site-packages/",
    "/lib/python3",
    "<frozen ",
    "/gems/",
    "rubygems-integration",
    "/usr/bin/rspec",
    "/usr/lib/go-",
    "/rustc/",
];

fn outside(frame: &str) -> bool {
    OUTSIDE.iter().any(|p| frame.contains(p))
}

/// Whitespace runs become one space: a message joined from two lines of
/// the log (`ArgumentError:` and the text under it) still occurs in it.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A location in a project file: `cart.test.js:5:42`, `src/lib.rs:3:20`,
/// `t/cart.t line 4`, `cart_spec.rb:6:in`, `test_cart.py", line 8`.
fn project_frames(log: &str) -> bool {
    let location = regex::Regex::new(
        r#"[\w./-]+\.(?:[cm]?js|ts|py|rb|go|rs|c|t)(?::\d+|", line \d+| line \d+)"#,
    )
    .unwrap();
    log.lines()
        .any(|line| !outside(line) && location.is_match(line))
}

#[test]
fn every_reply_is_short_quotes_the_log_and_points_into_the_project() {
    use voyage_helper::internals::ansi::clean;
    use voyage_helper::internals::verdict::{Input, MAX_LINES, build};

    let mut problems = Vec::new();
    for log in fixtures() {
        let case = log.display().to_string();
        let raw = fs::read(&log).unwrap();
        let text: String = String::from_utf8_lossy(&raw)
            .lines()
            .map(|l| clean(l.as_bytes()).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        let squeezed = squeeze(&text);
        let has_project_frame = project_frames(&text);
        let reply = build(&Input {
            log: Some(log.clone()),
            exit: Some("1".into()),
            ..Input::default()
        });
        let lines = reply.lines();
        if lines.len() > MAX_LINES {
            problems.push(format!("{case}: {} lines", lines.len()));
        }
        for failure in scan(fs::File::open(&log).unwrap())
            .unwrap()
            .failures
            .items()
        {
            let message = squeeze(failure.message.trim_end_matches('…'));
            if !squeezed.contains(&message) {
                problems.push(format!(
                    "{case}: message {:?} is not in the log",
                    failure.message
                ));
            }
            if let Some(frame) = &failure.frame
                && has_project_frame
                && outside(frame)
            {
                problems.push(format!(
                    "{case}: {}: frame {frame:?} is outside the project",
                    failure.name
                ));
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
