//! The problem codes of `criteria run` and `entry check`. The two the
//! `/trekexecute` command matches on when a plan gives nothing to run,
//! `NO_VERIFICATION_SECTION` and `NO_CRITERIA`, are the plan area's
//! (`crate::plan::code`): `plan validate` warns with the same codes.

crate::problem::codes! {
    CRITERIA_BAD_CWD => "--cwd is not a directory",
    CRITERIA_CANNOT_RUN => "a criterion's command could not be started (no bash?)",
    CRITERIA_STOPPED => "the helper was interrupted (SIGINT, SIGTERM, SIGHUP) while a criterion ran; the rest did not run",
}
