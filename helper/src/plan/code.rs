//! The problem codes of plans (`plan validate`, `plan show`, `plan dry-run`
//! and every reader of a plan). Scripts and the `/trekexecute` command match
//! on them. Two predate the `PLAN_` prefix and keep their names.

crate::problem::codes! {
    PLAN_UNREADABLE => "the plan file cannot be read",
    PLAN_NOT_A_FILE => "the plan path names a directory, FIFO, device or socket, not a regular file",
    PLAN_TOO_LARGE => "the plan file is larger than the helper reads (16 MiB)",
    PLAN_UNRECOGNIZED_FORMAT => "neither a trekplan nor a session spec",
    PLAN_FORBIDDEN_HEADING => "a step-like heading in another form than `### Step N: description`",
    PLAN_FRONT_MATTER => "the YAML front matter does not parse",
    PLAN_INVALID_VERSION => "plan_version is not a version number",
    PLAN_DUPLICATE_STEP => "two steps share a number",
    PLAN_STEP_SEQUENCE => "step numbers are not consecutive",
    PLAN_MISSING_VERIFY => "a step has no Verify (warning)",
    PLAN_MISSING_ON_FAILURE => "a step has no On failure; escalate is assumed (warning)",
    PLAN_INVALID_ON_FAILURE => "On failure is not revert, retry, skip or escalate; escalate is assumed (warning)",
    PLAN_MISSING_MANIFEST => "plan_version >= 1.7 and a step has no Manifest",
    PLAN_MALFORMED_YAML => "a Manifest's YAML does not parse",
    PLAN_MANIFEST_MISSING_KEY => "a Manifest lacks one of the six keys",
    PLAN_MANIFEST_WRONG_TYPE => "a Manifest key has the wrong type",
    PLAN_MANIFEST_UNKNOWN_KEY => "a Manifest has a key no audit reads (warning)",
    PLAN_INVALID_REGEX => "a pattern does not compile",
    PLAN_REGEX_UNSUPPORTED => "a pattern uses lookaround or a backreference, which the audit's regex engine cannot run",
    PLAN_MISSING_CHECKPOINT => "a step that is no sandbox pre-flight has no Checkpoint, so the run's audit would miss its commit",
    PLAN_MISSING_FILES => "a step that is no sandbox pre-flight has no Files, so its checkpoint would have nothing to commit",
    PLAN_PREFLIGHT_CHECKPOINT => "the sandbox pre-flight has a Checkpoint; it commits nothing",
    PLAN_PATH_OUTSIDE_REPOSITORY => "a path in Files or a manifest lies outside the repository (`..`, `/`, `~/`)",
    PLAN_MIN_FILE_COUNT_UNREACHABLE => "a manifest's min_file_count is more than its expected_paths",
    PLAN_CHECKPOINT_MESSAGE_MISMATCH => "a Checkpoint's message does not match the step's commit_message_pattern",
    PLAN_LEGACY => "no plan_version or < 1.7: manifests synthesised (warning)",
    PLAN_MISSING_SESSION_MANIFEST => "a session spec >= 1.7 has no Session Manifest (warning)",
    PLAN_STRATEGY_UNKNOWN_STEP => "a session lists a step the plan does not have",
    PLAN_STRATEGY_UNASSIGNED_STEP => "a step belongs to no session",
    PLAN_STRATEGY_STEP_IN_TWO_SESSIONS => "a step belongs to two sessions",
    PLAN_STRATEGY_UNKNOWN_DEPENDENCY => "Depends on names a session that does not exist",
    PLAN_STRATEGY_DEPENDENCY_CYCLE => "sessions depend on each other in a cycle",
    PLAN_STRATEGY_DEPENDENCY_NOT_EARLIER => "a session depends on one in the same or a later wave",
    PLAN_STRATEGY_WAVE_MISMATCH => "a session's Wave disagrees with the Execution Order",
    PLAN_STRATEGY_SCOPE_OVERLAP => "two sessions of one wave touch overlapping paths",
    NO_VERIFICATION_SECTION => "a trekplan has no `## Verification` (warning; the criteria runner will fail)",
    NO_CRITERIA => "`## Verification` declares no criterion the runner reads (warning)",
    PLAN_VERIFICATION_ITEM_UNREAD => "an item of `## Verification` does not start with a command in backticks, so the runner skips it (warning)",
}

/// The codes of a plan file that cannot be read.
pub(crate) const INPUT: crate::input_file::Codes = crate::input_file::Codes {
    unreadable: PLAN_UNREADABLE,
    not_a_file: PLAN_NOT_A_FILE,
    too_large: PLAN_TOO_LARGE,
};
