//! Every program bash runs is one the judge predicted (issue 39, point
//! 2): commands made of harmless stand-ins (`rm`, `reboot`) at every
//! expansion and evaluation point bash has, alone and inside other
//! constructs, are run by the real bash in a scratch directory, and each
//! stand-in that ran must be a finding of `judge_command` with its words
//! (`../common/commands.rs`, shared with the fuzz target `command_bash`).

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used)]

#[path = "../common/commands.rs"]
mod commands;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_judge_predicts_every_program_bash_runs(bytes in prop::collection::vec(any::<u8>(), 0..6)) {
        let command = commands::command_from(&bytes);
        if let Err(gap) = commands::check(&command) {
            prop_assert!(false, "{}", gap);
        }
    }
}

/// Each payload at each evaluation point once, so that a gap in one of
/// them fails here by name whatever proptest draws; all the gaps at once.
#[test]
fn every_evaluation_point_once() {
    let commands: Vec<String> = commands::every_command().collect();
    let gaps: Vec<String> = commands
        .iter()
        .filter_map(|c| commands::check(c).err())
        .collect();
    assert!(
        gaps.is_empty(),
        "{} gap(s) in {} commands:\n{}",
        gaps.len(),
        commands.len(),
        gaps.join("\n")
    );
}

/// The generator never writes a way out of the stand-ins' `PATH`, so that
/// no command it makes is skipped by [`commands::escapes`], and the
/// stand-ins run: a plain payload is seen.
#[test]
fn the_generator_stays_among_the_stand_ins() {
    for command in commands::every_command() {
        assert!(!commands::escapes(&command), "{command}");
    }
    for bytes in 0..=u8::MAX {
        let command = commands::command_from(&[bytes, bytes, bytes, bytes, bytes]);
        assert!(!commands::escapes(&command), "{command}");
    }
    assert!(commands::escapes("/bin/rm -rf ~"));
    assert!(commands::escapes("PATH=/x rm"));
    let ran = commands::run_in_bash("rm -rf ~; x=$(reboot); echo rm").unwrap();
    assert_eq!(
        ran,
        Some(vec![
            vec!["rm".to_owned(), "-rf".to_owned(), "~".to_owned()],
            vec!["reboot".to_owned()],
        ])
    );
}
