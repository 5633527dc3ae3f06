//! One recogniser per runner output format, and the scan that feeds them.
//!
//! Each file knows one tool's output: where its aggregate line is and how its
//! failures are laid out. They are tested on real logs captured from each
//! tool (`helper/tests/fixtures/verdict/`).

mod cargo_test;
mod eslint;
mod generic;
mod go_test;
mod jest;
mod make_gcc;
mod mocha;
mod nextest;
mod node_test;
mod pytest;
mod rspec;
mod tap;
mod tsc;
mod unittest;
mod vitest;

use std::io::{self, Read};

use super::failure::FailureList;
use super::lines::for_each_line;
pub use super::recognizer::Counts;
use super::recognizer::{Recognizer, pick};

/// What one pass over a log found.
#[derive(Debug, Default, Clone)]
pub struct Findings {
    /// The runner whose format was recognised.
    pub runner: Option<&'static str>,
    pub summary: Option<String>,
    pub failures: FailureList,
    /// The last non-empty line, the fallback summary.
    pub last_line: Option<String>,
    /// The log held a NUL byte: binary, not text.
    pub binary: bool,
    /// What the runners counted, each a signal beside the exit code: the
    /// chosen runner's first, then every other that printed an aggregate
    /// line (a log can hold two tools' runs: `cargo nextest run && cargo
    /// test --doc`).
    pub counted: Vec<(&'static str, Counts)>,
}

/// All recognisers, most specific first (ties in [`pick`] go to the first).
fn all() -> Vec<Box<dyn Recognizer>> {
    vec![
        Box::new(nextest::Nextest::default()),
        Box::new(cargo_test::CargoTest::default()),
        Box::new(pytest::Pytest::default()),
        Box::new(go_test::GoTest::default()),
        Box::new(node_test::NodeTest::default()),
        Box::new(jest::Jest::default()),
        Box::new(vitest::Vitest::default()),
        Box::new(mocha::Mocha::default()),
        Box::new(rspec::Rspec::default()),
        Box::new(tsc::Tsc::default()),
        Box::new(eslint::Eslint::default()),
        Box::new(unittest::Unittest::default()),
        Box::new(tap::Tap::default()),
        Box::new(make_gcc::MakeGcc::default()),
        Box::new(generic::Generic::default()),
    ]
}

/// Reads `log` once and returns what the best-fitting recogniser found.
pub fn scan(log: impl Read) -> io::Result<Findings> {
    let mut recognizers = all();
    let mut last_line = String::new();
    let binary = for_each_line(log, |line, number| {
        let trimmed = line.trim_start();
        for r in &mut recognizers {
            r.feed(line, trimmed, number);
        }
        if !trimmed.is_empty() {
            last_line.clear();
            last_line.push_str(line);
        }
    })?;
    for r in &mut recognizers {
        r.finish();
    }
    let chosen = pick(&recognizers);
    let mut counted: Vec<(&'static str, Counts)> = chosen
        .and_then(|r| Some((r.runner(), r.counts()?)))
        .into_iter()
        .collect();
    let others = recognizers
        .iter()
        .filter(|r| r.summary().is_some() && chosen.is_none_or(|c| c.runner() != r.runner()));
    counted.extend(others.filter_map(|r| Some((r.runner(), r.counts()?))));
    Ok(Findings {
        runner: chosen.map(|r| r.runner()),
        summary: chosen.and_then(|r| r.summary()).map(|s| s.text.clone()),
        failures: chosen.map(|r| r.failures().clone()).unwrap_or_default(),
        last_line: (!last_line.is_empty()).then_some(last_line),
        binary,
        counted,
    })
}

/// `true` when the (lazily compiled) pattern matches. A pattern that failed
/// to compile matches nothing; the unit tests compile every one.
fn matches(re: &std::sync::LazyLock<Option<regex::Regex>>, text: &str) -> bool {
    re.as_ref().is_some_and(|re| re.is_match(text))
}

/// The captures of a (lazily compiled) pattern.
fn captures<'t>(
    re: &std::sync::LazyLock<Option<regex::Regex>>,
    text: &'t str,
) -> Option<regex::Captures<'t>> {
    re.as_ref().and_then(|re| re.captures(text))
}

/// Capture group `i` as a string, or "".
fn group<'t>(caps: &regex::Captures<'t>, i: usize) -> &'t str {
    caps.get(i).map_or("", |m| m.as_str())
}
