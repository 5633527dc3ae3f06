//! The verdict as the worst of its signals: how the run ended (status and
//! exit code) and what each runner in the log counted.
//!
//! A wrapper can swallow the exit code (`cargo test || true`, `pytest |
//! tail`), a runner can be configured not to fail, and a filter can match
//! nothing: the exit code alone would call each of those a pass. So a
//! runner that counted failures makes the run a FAIL whatever its code,
//! and one that ran no test at all (while none ran any) makes it `NO TESTS
//! RAN`, never a PASS. A run that timed out or could not run is that,
//! whatever was counted before it ended.

use super::expect::{Counted, RunKind};
use super::reply::Verdict;
use super::runners::Counts;

/// What the signals settle: the verdict, why it is not what the exit code
/// alone says (`None` when it is), and the counts behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Weighed {
    pub verdict: Verdict,
    pub note: Option<String>,
    pub counted: Counted,
    /// The counts of the runner the verdict rests on, if any.
    pub counts: Option<Counts>,
}

/// Weighs the end of the run against what the runners counted (`counted`:
/// the chosen runner's first, see [`super::Findings::counted`]).
pub(super) fn weigh(kind: RunKind, exit: i32, counted: &[(&'static str, Counts)]) -> Weighed {
    let by_exit = match kind {
        RunKind::Finished if exit == 0 => Verdict::Pass,
        RunKind::Finished => Verdict::Fail,
        RunKind::TimedOut => Verdict::Timeout,
        RunKind::Error => Verdict::Error,
    };
    let plain = |counts: Option<Counts>| Weighed {
        verdict: by_exit,
        note: None,
        counted: Counted::Nothing,
        counts,
    };
    let chosen = counted.first().map(|(_, c)| *c);
    if kind != RunKind::Finished {
        return plain(chosen);
    }
    if let Some((runner, counts)) = counted.iter().find(|(_, c)| c.failed > 0) {
        let note = (exit == 0).then(|| {
            format!(
                "{runner} reports {} but exited 0",
                amount(counts.failed, counts.unit)
            )
        });
        return Weighed {
            verdict: Verdict::Fail,
            note,
            counted: Counted::Failed(counts.failed),
            counts: Some(*counts),
        };
    }
    // No test ran only when some runner says so and none ran any.
    let ran_any = counted.iter().any(|(_, c)| c.ran.is_some_and(|n| n > 0));
    if !ran_any && let Some((runner, counts)) = counted.iter().find(|(_, c)| c.ran == Some(0)) {
        let mut note = format!("{runner} ran no tests");
        if counts.not_run > 0 {
            note.push_str(&format!(" ({} skipped or filtered out)", counts.not_run));
        }
        if exit != 0 {
            note.push_str(&format!(" and exited {exit}"));
        }
        return Weighed {
            verdict: Verdict::NoTestsRan,
            note: Some(note),
            counted: Counted::NoTests,
            counts: Some(*counts),
        };
    }
    let mut weighed = plain(chosen);
    // A runner that printed a passing summary and then crashed.
    if exit != 0
        && let Some((runner, counts)) = counted.first()
        && counts.ran.is_some_and(|n| n > 0)
    {
        weighed.note = Some(format!("{runner} reports no failures but exited {exit}"));
    }
    weighed
}

/// `3 failed`, `1 error`, `4 errors`.
fn amount(n: u64, unit: &str) -> String {
    match (n, unit) {
        (1, "errors") => "1 error".to_owned(),
        (n, "") => format!("{n} failed"),
        (n, unit) => format!("{n} {unit}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests(failed: u64, ran: u64, not_run: u64) -> Counts {
        Counts {
            failed,
            ran: Some(ran),
            not_run,
            unit: "failed",
        }
    }

    #[test]
    fn counted_failures_outweigh_a_zero_exit() {
        let w = weigh(RunKind::Finished, 0, &[("cargo test", tests(3, 3, 0))]);
        assert_eq!(w.verdict, Verdict::Fail);
        assert_eq!(
            w.note.as_deref(),
            Some("cargo test reports 3 failed but exited 0")
        );
        // With a failing exit code the code says it already.
        let w = weigh(RunKind::Finished, 101, &[("cargo test", tests(3, 3, 0))]);
        assert_eq!((w.verdict, w.note), (Verdict::Fail, None));
        // Any runner's failures count, not only the last one's.
        let w = weigh(
            RunKind::Finished,
            0,
            &[("jest", tests(0, 6, 0)), ("cargo test", tests(2, 5, 0))],
        );
        assert_eq!(w.verdict, Verdict::Fail);
    }

    #[test]
    fn no_test_ran_is_its_own_outcome() {
        let w = weigh(RunKind::Finished, 0, &[("cargo test", tests(0, 0, 12))]);
        assert_eq!(w.verdict, Verdict::NoTestsRan);
        assert_eq!(
            w.note.as_deref(),
            Some("cargo test ran no tests (12 skipped or filtered out)")
        );
        let w = weigh(RunKind::Finished, 5, &[("pytest", tests(0, 0, 0))]);
        assert_eq!(w.verdict, Verdict::NoTestsRan);
        assert_eq!(w.note.as_deref(), Some("pytest ran no tests and exited 5"));
        // nextest ran the tests, the doc-tests after it found none.
        let w = weigh(
            RunKind::Finished,
            0,
            &[
                ("cargo test", tests(0, 0, 0)),
                ("cargo nextest", tests(0, 7, 0)),
            ],
        );
        assert_eq!((w.verdict, w.note), (Verdict::Pass, None));
    }

    #[test]
    fn a_crash_after_a_passing_summary_stays_a_failure() {
        let w = weigh(RunKind::Finished, 139, &[("cargo test", tests(0, 3, 0))]);
        assert_eq!(w.verdict, Verdict::Fail);
        assert_eq!(
            w.note.as_deref(),
            Some("cargo test reports no failures but exited 139")
        );
    }

    #[test]
    fn timeouts_and_errors_are_what_they_are() {
        let counted = [("pytest", tests(2, 2, 0))];
        assert_eq!(
            weigh(RunKind::TimedOut, 124, &counted).verdict,
            Verdict::Timeout
        );
        assert_eq!(weigh(RunKind::Error, 127, &counted).verdict, Verdict::Error);
        let errors = Counts {
            failed: 1,
            ran: None,
            not_run: 0,
            unit: "errors",
        };
        let w = weigh(RunKind::Finished, 0, &[("tsc", errors)]);
        assert_eq!(w.note.as_deref(), Some("tsc reports 1 error but exited 0"));
        // A tool that runs no tests never makes a run "no tests".
        let w = weigh(
            RunKind::Finished,
            0,
            &[(
                "eslint",
                Counts {
                    failed: 0,
                    ..errors
                },
            )],
        );
        assert_eq!(w.verdict, Verdict::Pass);
    }
}
