//! The problem codes of `progress`.

crate::problem::codes! {
    PROGRESS_NO_TARGET => "no --file, --project or --plan says which progress file",
    PROGRESS_NOT_FOUND => "there is no progress file where it was looked for",
    PROGRESS_UNREADABLE => "the progress file cannot be read",
    PROGRESS_TOO_LARGE => "the progress file is larger than the helper reads (16 MiB)",
    PROGRESS_NOT_A_FILE => "the progress path names a directory, FIFO, device or socket, not a regular file",
    PROGRESS_NOT_JSON => "the file, or a JSON flag's value, is not JSON of the right kind",
    PROGRESS_NOT_OBJECT => "the progress file is not a JSON object",
    PROGRESS_MISSING_KEY => "the progress file lacks a required key",
    PROGRESS_BAD_VALUE => "a value in the progress file breaks its schema",
    PROGRESS_BAD_VERSION => "the progress file's version is not one the helper reads",
    PROGRESS_BAD_STATUS => "a step or run status that is not one of the known words",
    PROGRESS_BAD_STEP_KEY => "a key of steps that is not a step number",
    PROGRESS_BAD_ATTEMPTS => "a step's attempts count is out of range",
    PROGRESS_BAD_BUDGET => "the recovery budget is out of range",
    PROGRESS_BAD_MODE => "the --mode is not one progress init knows",
    PROGRESS_NO_SUCH_SESSION => "the plan's Execution Strategy has no such session",
    PROGRESS_NO_SUCH_STEP => "the step is not in the progress file",
    PROGRESS_ILLEGAL_TRANSITION => "the step cannot go from its status to the one asked",
    PROGRESS_RETRY_CAP => "the step has used all its attempts (Hard rule 5)",
    PROGRESS_BUDGET_EXHAUSTED => "the run's recovery budget is spent (Hard rule 20)",
    PROGRESS_FLAG_NOT_APPLICABLE => "a flag that does not go with the status given",
    PROGRESS_MANIFEST_FAILED => "a step whose manifest audit failed cannot be completed (Hard rule 17)",
    PROGRESS_INCOMPLETE => "the run cannot be completed while steps are not",
    PROGRESS_COMPLETION_GATE => "completed was overridden: the manifest audit, the plan verification (or exit condition) or the counter reconciliation did not pass",
    PROGRESS_NOT_A_REPO => "revert-step and escalate-commit need a git work tree",
    PROGRESS_SHARED_FILE => "a file of the step to revert also belongs to a completed step (Sub-step E)",
    PROGRESS_REVERT_COMPLETED => "a completed step is not reverted",
    PROGRESS_GIT_FAILED => "a git command of revert-step or escalate-commit failed",
}

/// The codes of a progress file that cannot be read.
pub(crate) const INPUT: crate::input_file::Codes = crate::input_file::Codes {
    unreadable: PROGRESS_UNREADABLE,
    not_a_file: PROGRESS_NOT_A_FILE,
    too_large: PROGRESS_TOO_LARGE,
};
