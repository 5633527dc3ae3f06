//! Judging an `expect:` sentence, where a machine can.
//!
//! The executor skill leaves `expect:` to the model. Many sentences, though,
//! only claim a pass, a failure or an exit code, and those are settled here
//! against the run's outcome. A sentence that needs reading (why a test
//! fails, "without warnings") is `undecided`, with what is already known, so
//! the model only judges what is left. A sentence is never marked `met` on a
//! guess: a qualified claim can be refuted mechanically, not confirmed.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// The run as far as expectations care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunFacts {
    pub kind: RunKind,
    pub exit: i32,
    pub failures: usize,
    /// What the runner's own counts say against the exit code.
    pub counted: Counted,
}

/// What a runner's counts say that the exit code may not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Counted {
    /// Nothing beyond the exit code.
    #[default]
    Nothing,
    /// The runner counted this many failures.
    Failed(u64),
    /// The runner ran no test.
    NoTests,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// The command ran to its end (exit code decides pass or fail).
    Finished,
    TimedOut,
    /// It could not run (not found, not executable, interrupted).
    Error,
}

/// The `EXPECT:` line's verdict and its one-line reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "why", rename_all = "snake_case")]
pub enum Judgement {
    Met(String),
    NotMet(String),
    Undecided(String),
}

impl Judgement {
    pub fn render(&self) -> String {
        match self {
            Self::Met(why) => format!("met - {why}"),
            Self::NotMet(why) => format!("not met - {why}"),
            Self::Undecided(why) => format!("undecided - {why}"),
        }
    }
}

const PASS_PHRASES: &[&str] = &[
    "all green",
    "green",
    "pass",
    "passes",
    "passing",
    "passed",
    "all pass",
    "all passing",
    "all tests pass",
    "all tests passing",
    "all tests passed",
    "tests pass",
    "the tests pass",
    "it passes",
    "suite passes",
    "the suite passes",
    "succeeds",
    "success",
    "successful",
    "build passes",
    "build succeeds",
    "the build passes",
    "the build succeeds",
    "builds",
    "compiles",
    "it compiles",
    "ok",
    "clean",
    "no failures",
    "everything passes",
];

const FAIL_PHRASES: &[&str] = &[
    "fails",
    "fail",
    "failing",
    "failed",
    "red",
    "it fails",
    "tests fail",
    "the tests fail",
    "build fails",
    "the build fails",
    "suite fails",
    "nonzero",
    "non-zero",
    "nonzero exit",
    "non-zero exit",
    "exits nonzero",
    "exits non-zero",
    "exit nonzero",
    "exit non-zero",
];

const PASS_WORDS: &[&str] = &[
    "pass",
    "passes",
    "passing",
    "passed",
    "green",
    "succeed",
    "succeeds",
    "success",
    "successful",
    "compiles",
    "builds",
];
const FAIL_WORDS: &[&str] = &[
    "fail", "fails", "failing", "failed", "failure", "red", "panics", "breaks", "errors",
];
/// Words that can turn a claim around, so the sentence needs a reader.
const TURNING_WORDS: &[&str] = &[
    "not", "no", "never", "except", "unless", "but", "nor", "doesn't", "don't", "isn't", "won't",
    "cannot", "can't", "only", "or",
];

static EXIT_CODE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?:it |the command |the run )?(?:exits?|returns?)(?: with)?(?: an?)?(?: exit)?(?: code| status)? (\d{1,3})$").ok()
});

/// Judges `expect` against the run.
pub fn judge(expect: &str, run: RunFacts) -> Judgement {
    let normal = normalise(expect);
    let finished = run.kind == RunKind::Finished;
    let passed = finished && run.exit == 0 && run.counted == Counted::Nothing;
    let no_tests = finished && run.counted == Counted::NoTests;
    let outcome = describe(run);

    if PASS_PHRASES.contains(&normal.as_str()) {
        return if passed {
            Judgement::Met(format!("it passed ({outcome})"))
        } else {
            Judgement::NotMet(format!("a pass was wanted; {outcome}"))
        };
    }
    if FAIL_PHRASES.contains(&normal.as_str()) {
        return match run.kind {
            // Nothing that ran could fail.
            _ if no_tests => Judgement::NotMet(format!("a failure was wanted; {outcome}")),
            RunKind::Finished if run.exit != 0 || matches!(run.counted, Counted::Failed(_)) => {
                Judgement::Met(format!("it failed ({outcome})"))
            }
            RunKind::Finished => Judgement::NotMet(format!("a failure was wanted; {outcome}")),
            _ => Judgement::Undecided(format!("{outcome}, so it neither passed nor failed")),
        };
    }
    if let Some(code) = EXIT_CODE
        .as_ref()
        .and_then(|re| re.captures(&normal))
        .and_then(|c| c.get(1))
        .and_then(|m| m.as_str().parse::<i32>().ok())
    {
        return match run.kind {
            RunKind::Finished if run.exit == code => Judgement::Met(format!("exit {code}")),
            _ => Judgement::NotMet(format!("exit {code} was wanted; {outcome}")),
        };
    }

    let words: Vec<&str> = normal.split(' ').collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(TURNING_WORDS) {
        return Judgement::Undecided(format!("{outcome}; the sentence needs reading"));
    }
    match (has(PASS_WORDS), has(FAIL_WORDS)) {
        (true, false) if !passed => Judgement::NotMet(format!("a pass was wanted; {outcome}")),
        (true, false) => Judgement::Undecided(format!(
            "it passed ({outcome}); the rest of the sentence needs the log"
        )),
        (false, true) if (passed && run.failures == 0) || no_tests => {
            Judgement::NotMet(format!("a failure was wanted; nothing failed ({outcome})"))
        }
        (false, true) => Judgement::Undecided(format!(
            "{outcome}; whether it failed as described needs the failures"
        )),
        _ => Judgement::Undecided(format!("{outcome}; not a plain pass or fail claim")),
    }
}

fn describe(run: RunFacts) -> String {
    match run.kind {
        RunKind::Finished => match run.counted {
            Counted::Nothing => format!("exit {}", run.exit),
            // With a failing code the code says it already.
            Counted::Failed(n) if run.exit == 0 => {
                format!("exit 0, but the tool counted {n} failed")
            }
            Counted::Failed(_) => format!("exit {}", run.exit),
            Counted::NoTests => format!("no tests ran, exit {}", run.exit),
        },
        RunKind::TimedOut => "it timed out".to_owned(),
        RunKind::Error => "it could not run".to_owned(),
    }
}

/// Lower case, words separated by single spaces, no surrounding punctuation.
fn normalise(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(exit: i32, failures: usize) -> RunFacts {
        RunFacts {
            kind: RunKind::Finished,
            exit,
            failures,
            counted: Counted::Nothing,
        }
    }

    fn outcome(j: &Judgement) -> &'static str {
        match j {
            Judgement::Met(_) => "met",
            Judgement::NotMet(_) => "not met",
            Judgement::Undecided(_) => "undecided",
        }
    }

    #[test]
    fn plain_claims_are_decided() {
        let cases = [
            ("all green", finished(0, 0), "met"),
            ("All green.", finished(1, 2), "not met"),
            ("passes", finished(0, 0), "met"),
            ("fails", finished(1, 1), "met"),
            ("fails", finished(0, 0), "not met"),
            ("exit code 3", finished(3, 0), "met"),
            ("exits 3", finished(2, 0), "not met"),
            ("exit 0", finished(0, 0), "met"),
        ];
        for (text, run, want) in cases {
            assert_eq!(outcome(&judge(text, run)), want, "{text}");
        }
    }

    #[test]
    fn timeouts_never_pass() {
        let run = RunFacts {
            kind: RunKind::TimedOut,
            exit: 124,
            failures: 0,
            counted: Counted::Nothing,
        };
        assert_eq!(outcome(&judge("all green", run)), "not met");
        assert_eq!(outcome(&judge("fails", run)), "undecided");
        assert_eq!(outcome(&judge("exit 124", run)), "not met");
    }

    #[test]
    fn qualified_claims_are_refuted_but_never_confirmed() {
        assert_eq!(
            outcome(&judge("build passes without warnings", finished(1, 0))),
            "not met"
        );
        assert_eq!(
            outcome(&judge("build passes without warnings", finished(0, 0))),
            "undecided"
        );
        assert_eq!(
            outcome(&judge(
                "test X fails because the behaviour is missing",
                finished(0, 0)
            )),
            "not met"
        );
        assert_eq!(
            outcome(&judge(
                "test X fails because the behaviour is missing",
                finished(1, 1)
            )),
            "undecided"
        );
    }

    #[test]
    fn turning_words_leave_it_to_the_reader() {
        assert_eq!(
            outcome(&judge("all green except the flaky test", finished(1, 1))),
            "undecided"
        );
        assert_eq!(
            outcome(&judge("test X does not fail", finished(0, 0))),
            "undecided"
        );
        assert_eq!(
            outcome(&judge("the output mentions 3 files", finished(0, 0))),
            "undecided"
        );
    }

    #[test]
    fn the_runners_counts_are_a_signal_too() {
        let swallowed = RunFacts {
            counted: Counted::Failed(3),
            ..finished(0, 3)
        };
        assert_eq!(
            judge("all green", swallowed),
            Judgement::NotMet("a pass was wanted; exit 0, but the tool counted 3 failed".into())
        );
        assert_eq!(outcome(&judge("fails", swallowed)), "met");
        let nothing_ran = RunFacts {
            counted: Counted::NoTests,
            ..finished(0, 0)
        };
        assert_eq!(
            judge("all green", nothing_ran),
            Judgement::NotMet("a pass was wanted; no tests ran, exit 0".into())
        );
        assert_eq!(outcome(&judge("tests pass", nothing_ran)), "not met");
        // pytest's exit 5: no test ran, so none failed as wanted.
        let exit_5 = RunFacts {
            exit: 5,
            ..nothing_ran
        };
        assert_eq!(outcome(&judge("fails", exit_5)), "not met");
        assert_eq!(
            outcome(&judge("test X fails because it is missing", exit_5)),
            "not met"
        );
        // An exit-code claim is about the code.
        assert_eq!(outcome(&judge("exit 0", nothing_ran)), "met");
    }
}
