//! The problem codes of `recovery spec` (Phase 7.6).

crate::problem::codes! {
    RECOVERY_EXHAUSTED => "recovery_depth is already 2: no third recovery is dispatched; the drift is escalated to the user",
    RECOVERY_NO_DRIFT => "the progress file records no drifting manifest audit (audit session --record): there is nothing to recover",
    RECOVERY_NOTHING_MISSING => "the audit drifted, but no step can be named as missing (a forbidden path or a commit subject is not fixed by running steps again)",
    RECOVERY_BUDGET_SPENT => "iterations_remaining is 0: the global recovery/retry budget is spent (Hard rule 20)",
    RECOVERY_PLAN_UNREADABLE => "the plan cannot be read or is not a plan",
    RECOVERY_PROGRESS => "the progress file cannot be read, or the record cannot be written",
    RECOVERY_NOT_A_REPOSITORY => "the current directory is not inside a git work tree with a commit",
    RECOVERY_INVALID_SPEC => "the recovery spec would not pass plan validate (the original plan's problems say why); nothing was written",
    RECOVERY_WRITE_FAILED => "the recovery spec cannot be written to --out",
}
