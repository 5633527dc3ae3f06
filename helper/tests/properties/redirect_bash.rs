//! Every file bash writes through a redirection is a write target the
//! engine reports, and no more (issue 23, point 1): commands made of every
//! redirection operator and quoting form are run by the real bash in a
//! scratch directory and compared with `judge_command`'s writes
//! (`../common/redirections.rs`, shared with the fuzz target). The same
//! for writes after `cd`, `pushd`/`popd`, subshells and pipelines (issue
//! 23, point 5): the engine places them where bash does, or not at all.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used)]

#[path = "../common/redirections.rs"]
mod redirections;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn the_engine_places_writes_after_cd_where_bash_does(bytes in prop::collection::vec(any::<u8>(), 0..8)) {
        let command = redirections::cd_command_from(&bytes);
        if let Err(gap) = redirections::check_cd(&command) {
            prop_assert!(false, "{}", gap);
        }
    }

    #[test]
    fn the_engine_names_every_file_bash_writes(bytes in prop::collection::vec(any::<u8>(), 0..24)) {
        let command = redirections::command_from(&bytes);
        if let Err(gap) = redirections::check(&command) {
            prop_assert!(false, "{}", gap);
        }
    }
}

/// Runs `check` on every command and fails with all the gaps at once.
fn assert_no_gaps(commands: impl Iterator<Item = String>, check: fn(&str) -> Result<(), String>) {
    let gaps: Vec<String> = commands.filter_map(|c| check(&c).err()).collect();
    assert!(
        gaps.is_empty(),
        "{} gap(s):\n{}",
        gaps.len(),
        gaps.join("\n")
    );
}

/// Each move, join and write once after another, so that a gap in `cd`
/// modelling fails here by name (issue 23, point 5).
#[test]
fn every_move_and_join_once() {
    let commands = (0..17u8).flat_map(|mv| {
        (0..4u8).flat_map(move |join| {
            (0..5u8).map(move |write| redirections::cd_command_from(&[0, mv, join, write]))
        })
    });
    assert_no_gaps(commands, redirections::check_cd);
}

/// Each operator and quoting form once, in a simple command, so that a
/// gap in one of them fails here by name whatever proptest draws.
#[test]
fn every_operator_and_quoting_once() {
    // Body `echo x`, one writing redirection (operator, name, quoting), no
    // space, the simple command shape.
    let commands = (0..22u8).flat_map(|op| {
        (0..7u8).flat_map(move |form| {
            (0..7u8).map(move |name| redirections::command_from(&[0, 0, 1, op, name, form, 0, 0]))
        })
    });
    assert_no_gaps(commands, redirections::check);
}
