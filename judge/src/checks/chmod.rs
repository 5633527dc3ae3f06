//! `chmod`: modes that let everyone write (trekexecute Phase 2.4, "chmod 777
//! or chmod -R 777"), numeric or symbolic.

use super::Hit;
use crate::arg::Arg;
use crate::getopt::{self, Spec};
use crate::rule;

const SPEC: Spec = Spec::new(
    "",
    &[
        ("changes", false),
        ("silent", false),
        ("quiet", false),
        ("verbose", false),
        ("no-preserve-root", false),
        ("preserve-root", false),
        ("reference", true),
        ("recursive", false),
        ("help", false),
        ("version", false),
    ],
);

pub(super) fn check(args: &[Arg]) -> Option<Hit> {
    let parsed = getopt::parse(args, &SPEC);
    let mode = parsed.operands.first()?;
    world_writable(mode.exact_text()?).then(|| {
        Hit::new(
            &rule::CHMOD_WORLD_WRITABLE,
            format!("mode {} lets every user write", mode.text),
        )
    })
}

/// True when `mode` grants write permission to others.
pub(super) fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.len() <= 5 && mode.chars().all(|c| c.is_digit(8)) {
        return u32::from_str_radix(mode, 8).is_ok_and(|m| m & 0o002 != 0);
    }
    mode.split(',').any(|clause| {
        let who_end = clause
            .find(|c: char| !"ugoa".contains(c))
            .unwrap_or(clause.len());
        let (who, actions) = clause.split_at(who_end);
        let for_others = who.contains(['o', 'a']);
        // Each action is an operator and the permissions after it.
        let mut grants_w = false;
        let mut op = ' ';
        for c in actions.chars() {
            match c {
                '+' | '=' | '-' => op = c,
                'w' if op == '+' || op == '=' => grants_w = true,
                _ => {}
            }
        }
        for_others && grants_w
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_writable_modes() {
        for mode in [
            "777", "0777", "666", "1777", "002", "o+w", "a+rwx", "ugo=rwx", "u+x,o+w",
        ] {
            assert!(world_writable(mode), "{mode}");
        }
        for mode in [
            "755", "644", "0755", "u+x", "+x", "o-w", "a-w", "go=rx", "g+w", "700",
        ] {
            assert!(!world_writable(mode), "{mode}");
        }
    }

    #[test]
    fn options_before_the_mode() {
        let args: Vec<Arg> = ["-R", "777", "dir"].map(Arg::literal).to_vec();
        assert!(check(&args).is_some());
        let args: Vec<Arg> = ["--recursive", "755", "dir"].map(Arg::literal).to_vec();
        assert!(check(&args).is_none());
    }
}
