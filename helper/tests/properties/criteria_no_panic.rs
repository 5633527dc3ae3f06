//! The criteria runner's allowlist and the entry-condition reader never
//! panic, on shell-ish text built from the pieces commands are made of and
//! on any text at all; what the allowlist accepts never holds a command
//! substitution.

use proptest::prelude::*;
use voyage_helper::internals::criteria::{Reading, allowlisted, read_entry_condition};

const PIECES: &[&str] = &[
    "cargo ",
    "test ",
    "npm ",
    "run ",
    "bash ",
    "tests/x.sh ",
    "-n ",
    "-c ",
    "'",
    "\"",
    "`",
    "$(",
    ")",
    "|",
    "&&",
    "||",
    ";",
    "&",
    "\n",
    "cd ",
    "env ",
    "X=1 ",
    "timeout ",
    "5 ",
    "tail ",
    "{ ",
    "} ",
    "for x in a; do ",
    "done",
    "<(",
    "uv ",
    "python3 -m pytest ",
    "Session 1 ",
    "committed ",
    "“",
    "”",
    "none",
    "git status ",
    "clean ",
    "\\",
    "é",
    "\0",
];

fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..24).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn allowlist_and_entry_reader_never_panic(text in prop_oneof![shellish(), any::<String>()]) {
        if allowlisted(&text).is_ok() {
            prop_assert!(!text.contains("$(") && !text.contains('`'));
        }
        if let Reading::Command(c) = read_entry_condition(&text) {
            prop_assert!(!c.is_empty());
        }
    }
}
