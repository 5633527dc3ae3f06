//! The problem codes of `profile`.

crate::problem::codes! {
    PROFILE_UNKNOWN => "no built-in or custom profile has that name",
    PROFILE_NO_MODEL => "the profile names no model for the phase",
    PROFILE_BAD_PHASE => "the phase is not one a profile maps",
    PROFILE_BAD_NAME => "a profile name that is not 1 to 64 of A-Z, a-z, 0-9, _ and -",
    PROFILE_BAD_VALUE => "a profile file's key has a value of the wrong kind",
    PROFILE_BAD_EXTENDS => "extends: names no built-in profile",
    PROFILE_NOT_MAPPING => "a profile file is not a YAML mapping",
    PROFILE_NOT_YAML => "a profile file does not parse as YAML",
    PROFILE_TOO_LARGE => "a profile file is larger than the helper reads",
    PROFILE_UNREADABLE => "a profile file cannot be read",
    PROFILE_BRIEF_UNREADABLE => "the --brief file cannot be read",
}

/// The codes of a profile file that cannot be read. Only regular files are
/// candidates, so one that is something else was swapped in: unreadable.
pub(crate) const INPUT: crate::input_file::Codes = crate::input_file::Codes {
    unreadable: PROFILE_UNREADABLE,
    not_a_file: PROFILE_UNREADABLE,
    too_large: PROFILE_TOO_LARGE,
};
