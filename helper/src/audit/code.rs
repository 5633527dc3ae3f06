//! The problem codes of the audits (`audit step`, `audit checkpoint`,
//! `audit session`): why an audit could not check (exit 2). What an audit
//! finds is drift, reported as `{check, expected, actual}` items, not as
//! problems.

crate::problem::codes! {
    AUDIT_PLAN_UNREADABLE => "the plan cannot be read or is not a plan",
    AUDIT_NO_SUCH_STEP => "the plan has no step with that number",
    AUDIT_NO_MANIFEST => "the step has no usable manifest (the plan's problems say why)",
    AUDIT_NOT_A_REPOSITORY => "the current directory is not inside a git work tree",
    AUDIT_BAD_REVISION => "--since or --start names no commit of the repository",
    AUDIT_NO_HEAD => "the repository has no commit yet",
    AUDIT_GIT_FAILED => "a git command the audit needs failed or could not start",
    AUDIT_BASH_MISSING => "bash could not be started for a syntax check",
    AUDIT_PROGRESS => "the progress file cannot be read, or the record cannot be written",
    AUDIT_RECORD_REFUSED => "the progress file does not accept the record (no such step, or an illegal change)",
}
