//! The problem codes of `write --atomic`, `state write` and `state validate`
//! (a failed write itself has the codes of [`crate::atomic_file::code`]).

crate::problem::codes! {
    STATE_STDIN_UNREADABLE => "stdin cannot be read",
    STATE_TOO_LARGE => "the document is larger than the helper reads",
    STATE_UNKNOWN_SCHEMA => "no embedded schema has that name",
    STATE_NOT_JSON => "the document is not JSON",
    STATE_NOT_OBJECT => "the document is not a JSON object",
    STATE_MISSING_KEY => "the document lacks a required key",
    STATE_BAD_VALUE => "a value in the state file breaks its schema",
    STATE_BAD_VERSION => "the state file's version is not one the helper reads",
    STATE_BAD_STATUS => "the status is not one of the known words",
    STATE_BAD_TIME => "a time that is not an RFC 3339 UTC time",
    STATE_SCHEMA_VIOLATION => "the document breaks the schema named by --schema",
    STATE_UNREADABLE => "the file cannot be read",
    STATE_NOT_A_FILE => "the path names a directory, FIFO, device or socket, not a regular file",
    STATE_PROMPT_NO_FRONT_MATTER => "the handover prompt has no front matter",
    STATE_PROMPT_BAD_FRONT_MATTER => "the handover prompt's front matter does not parse",
    STATE_PROMPT_PRODUCER => "the handover prompt was not produced by trekexecute",
    STATE_PAIR_MISMATCH => "the handover prompt and the state file disagree",
}

/// The codes of a state file that cannot be read.
pub(crate) const INPUT: crate::input_file::Codes = crate::input_file::Codes {
    unreadable: STATE_UNREADABLE,
    not_a_file: STATE_NOT_A_FILE,
    too_large: STATE_TOO_LARGE,
};
