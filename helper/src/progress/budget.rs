//! The global recovery/retry budget (seed Phase 7.6, "Iteration caps";
//! Hard rule 20) and the per-step retry cap (Sub-step E; Hard rule 5).
//!
//! Three independent bounds exist; the progress file holds two of them:
//! each step's `attempts` (at most [`MAX_ATTEMPTS`]) and the run's
//! `iterations_remaining`, seeded from `TREKEXECUTE_MAX_RECOVERY_ITERATIONS`
//! and decremented by every attempt beyond a step's first. The third,
//! `recovery_depth < 2`, belongs to recovery dispatch.

use std::ffi::OsStr;

/// The environment variable that sets the budget.
pub(super) const BUDGET_ENV: &str = "TREKEXECUTE_MAX_RECOVERY_ITERATIONS";
/// The budget when the variable is unset.
pub(super) const DEFAULT_BUDGET: u32 = 25;
/// Attempts per step: the initial one and two retries.
pub(super) const MAX_ATTEMPTS: u32 = 3;

/// The budget for this run: the variable's value, or the default. A value
/// that is not a non-negative integer is not used; the second element then
/// says why, for a warning.
pub(super) fn from_env_value(value: Option<&OsStr>) -> (u32, Option<String>) {
    let Some(raw) = value else {
        return (DEFAULT_BUDGET, None);
    };
    let text = raw.to_string_lossy();
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return (DEFAULT_BUDGET, None);
    }
    match trimmed.parse::<u32>() {
        Ok(n) => (n, None),
        Err(_) => (
            DEFAULT_BUDGET,
            Some(format!(
                "{BUDGET_ENV}={text} is not a non-negative integer; using {DEFAULT_BUDGET}"
            )),
        ),
    }
}

/// The budget a run starts with, read from the environment once, at the
/// edge (`progress`'s [`Command::execute`](super::cli::Command::execute)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Budget {
    pub cap: u32,
    /// Why the variable's value was not used, for a warning where the
    /// budget is used.
    pub warning: Option<String>,
}

/// The budget from the process environment.
pub(crate) fn from_env() -> Budget {
    let (cap, warning) = from_env_value(std::env::var_os(BUDGET_ENV).as_deref());
    Budget { cap, warning }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_variable() {
        assert_eq!(from_env_value(None), (25, None));
        assert_eq!(from_env_value(Some(OsStr::new("10"))), (10, None));
        assert_eq!(from_env_value(Some(OsStr::new(" 0 "))), (0, None));
        assert_eq!(from_env_value(Some(OsStr::new(""))), (25, None));
        for bad in ["-1", "ten", "1.5", "99999999999"] {
            let (n, warning) = from_env_value(Some(OsStr::new(bad)));
            assert_eq!(n, 25);
            assert!(warning.unwrap().contains(BUDGET_ENV));
        }
    }
}
