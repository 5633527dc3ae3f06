//! The problem codes of `brief validate` (and of the briefs `profile
//! resolve --brief` reads).

crate::problem::codes! {
    BRIEF_UNREADABLE => "the brief cannot be read",
    BRIEF_NOT_A_FILE => "the brief path names a directory, FIFO, device or socket, not a regular file",
    BRIEF_TOO_LARGE => "the brief is larger than the helper reads (16 MiB)",
    BRIEF_NO_FRONT_MATTER => "the brief has no YAML front matter",
    BRIEF_FRONT_MATTER => "the front matter does not parse or is not a mapping",
    BRIEF_INVALID_SIGNAL => "phase_signals, or one phase's signals, is not a mapping with an effort",
    BRIEF_INVALID_EFFORT => "a phase's effort is not low, standard or high",
    // "V51" is the trekexecute specification's version that made the rule
    // (its "Composition rule (v5.1)"); the brief version it applies from is 2.1.
    BRIEF_V51_MISSING_SIGNALS => "a brief of version 2.1 or later lacks phase signals",
    BRIEF_INVALID_VERSION => "brief_version is not a version number",
}

/// The codes of a brief that cannot be read.
pub(crate) const INPUT: crate::input_file::Codes = crate::input_file::Codes {
    unreadable: BRIEF_UNREADABLE,
    not_a_file: BRIEF_NOT_A_FILE,
    too_large: BRIEF_TOO_LARGE,
};
