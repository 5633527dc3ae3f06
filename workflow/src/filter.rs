//! `--step`, `--from-step` and `--to-step`: which top-level steps run.
//!
//! Step numbers are 1-based. `--from-step` is a dotted path that goes on
//! into a step: `3.2.1` starts at step 3, its iteration 2, that iteration's
//! child 1 (and deeper for nested loops).

use super::code;
use crate::problem::Problem;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Filter {
    /// Run only this step: its number or its name.
    pub step: Option<String>,
    /// Resume here.
    pub from: Option<Vec<u64>>,
    /// Stop after this step.
    pub to: Option<u64>,
}

impl Filter {
    /// Builds a filter from the flag values, refusing values that cannot
    /// mean anything.
    pub(super) fn parse(
        step: Option<String>,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<Self, Problem> {
        let from = from.map(parse_path).transpose()?;
        let to = to
            .map(|t| {
                positive(t).ok_or_else(|| {
                    Problem::new(
                        code::WORKFLOW_BAD_FILTER,
                        format!("--to-step wants a step number (1 or more), got \"{t}\""),
                    )
                })
            })
            .transpose()?;
        if let (Some(first), Some(to)) = (from.as_ref().and_then(|f| f.first()), to)
            && *first > to
        {
            return Err(Problem::new(
                code::WORKFLOW_BAD_FILTER,
                format!("--to-step {to} comes before --from-step {first}; nothing would run"),
            ));
        }
        if step.as_deref().is_some_and(str::is_empty) {
            return Err(Problem::new(
                code::WORKFLOW_BAD_FILTER,
                "--step wants a step name or number, got an empty value",
            ));
        }
        Ok(Self { step, from, to })
    }

    /// Whether top-level step `number` (1-based) called `name` is skipped.
    pub(super) fn skips(&self, number: u64, name: &str) -> bool {
        if let Some(step) = &self.step {
            let by_number = positive(step).is_some_and(|n| n == number);
            return !by_number && name != step;
        }
        if self
            .from
            .as_ref()
            .and_then(|f| f.first())
            .is_some_and(|first| number < *first)
        {
            return true;
        }
        self.to.is_some_and(|to| number > to)
    }

    /// The rest of the `--from-step` path for step `number`, when the path
    /// starts there.
    pub(super) fn resume_within(&self, number: u64) -> Option<&[u64]> {
        let from = self.from.as_deref()?;
        match from.split_first() {
            Some((first, rest)) if *first == number => Some(rest),
            _ => None,
        }
    }
}

fn positive(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|n| *n > 0)
}

fn parse_path(text: &str) -> Result<Vec<u64>, Problem> {
    text.split('.')
        .map(|part| {
            positive(part).ok_or_else(|| {
                Problem::new(
                    code::WORKFLOW_BAD_FILTER,
                    format!(
                        "--from-step wants step numbers (1 or more) joined by dots, like 3 or 3.2.1; got \"{text}\""
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_matches_by_number_or_name() {
        let f = Filter::parse(Some("2".into()), None, None).unwrap();
        assert!(f.skips(1, "2x") && !f.skips(2, "b"));
        let f = Filter::parse(Some("build".into()), None, None).unwrap();
        assert!(!f.skips(5, "build") && f.skips(1, "test"));
    }

    #[test]
    fn from_and_to_bound_the_range() {
        let f = Filter::parse(None, Some("2.3.1"), Some("3")).unwrap();
        assert!(f.skips(1, "a") && !f.skips(2, "b") && !f.skips(3, "c") && f.skips(4, "d"));
        assert_eq!(f.resume_within(2), Some(&[3, 1][..]));
        assert_eq!(f.resume_within(3), None);
    }

    #[test]
    fn nonsense_is_refused() {
        for (from, to) in [
            (Some("0"), None),
            (Some("1..2"), None),
            (Some("x"), None),
            (None, Some("-1")),
            (Some("3"), Some("2")),
        ] {
            let err = Filter::parse(None, from, to).unwrap_err();
            assert_eq!(err.code, "WORKFLOW_BAD_FILTER", "{from:?} {to:?}");
        }
    }
}
