//! The problem codes of `criteria run` and `entry check`. The two the
//! `/trekexecute` command matches on when a plan gives nothing to run,
//! `NO_VERIFICATION_SECTION` and `NO_CRITERIA`, are the plan area's
//! (`crate::plan::code`): `plan validate` warns with the same codes.

crate::problem::codes! {
    CRITERIA_BAD_CWD => "--cwd is not a directory",
    CRITERIA_CANNOT_RUN => "a criterion's command could not be started (no bash?)",
    CRITERION_BLOCKED => "a criterion the denylist blocks: found before the run by `plan validate`, `plan dry-run` and `trek start`",
    CRITERION_UNRUNNABLE => "a criterion that is no test, lint or build run on the allowlist (nor in .voyage/criteria-allow): found before the run",
    CRITERIA_ALLOW_FILE_LINE => "a line of .voyage/criteria-allow that is not plain words; it is ignored (warning)",
    CRITERIA_STOPPED => "the helper was interrupted (SIGINT, SIGTERM, SIGHUP) while a criterion ran; the rest did not run",
}
