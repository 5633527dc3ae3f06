//! `history -c`: erasing the shell's history (trekexecute Phase 2.4,
//! "Evidence destruction"). Truncating the history *file* is a write, judged
//! in [`crate::paths`].

use super::Hit;
use crate::arg::Arg;
use crate::paths::Write;
use crate::rule;

pub(crate) fn check(args: &[Arg]) -> Option<Hit> {
    args.iter()
        .filter_map(Arg::exact_text)
        .take_while(|t| *t != "--")
        .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
        .then(|| Hit::new(&rule::HISTORY, "history -c clears the shell history"))
}

/// `history -w [FILE]` (the history written over FILE) and `history -a
/// [FILE]` (appended to it): how it writes, and FILE when given; without
/// it bash writes `$HISTFILE`, or, where that is not set, the file its
/// readline library names (`~/.history`; an interactive shell sets
/// `~/.bash_history`).
pub(crate) fn writes(args: &[Arg]) -> Option<(Write, Option<&Arg>)> {
    let mut write = None;
    let mut words = args.iter();
    let mut file = None;
    while let Some(word) = words.next() {
        match word.exact_text() {
            Some("--") => {
                file = words.next();
                break;
            }
            Some(flags) if flags.starts_with('-') && flags.len() > 1 => {
                if flags.contains('w') {
                    write = Some(Write::Replace);
                } else if flags.contains('a') && write.is_none() {
                    write = Some(Write::Append);
                }
                // `-d OFFSET`, `-p ARGS`, `-s ARGS`: no file follows.
                if flags.contains(['d', 'p', 's']) {
                    return None;
                }
            }
            _ => {
                file = Some(word);
                break;
            }
        }
    }
    write.map(|w| (w, file))
}

/// Where bash writes its history when neither `history -w FILE` nor
/// `HISTFILE` says: see [`writes`].
pub(crate) const DEFAULT_FILES: &[&str] = &["~/.bash_history", "~/.history"];

/// `unset HISTFILE`, `set +o history`: history switched off.
pub(crate) fn check_switch(name: &str, args: &[Arg]) -> Option<Hit> {
    let fires = match name {
        "unset" => args.iter().any(|a| a.is("HISTFILE")),
        "set" => args
            .windows(2)
            .any(|w| matches!(w, [a, b] if a.is("+o") && b.is("history"))),
        _ => false,
    };
    fires.then(|| Hit::new(&rule::HISTORY, format!("{name} switches shell history off")))
}

/// `HISTFILE=/dev/null`, `HISTSIZE=0`: history sent nowhere.
pub(crate) fn check_variable(name: &str, value: Option<&str>) -> Option<Hit> {
    let fires = match (name, value) {
        ("HISTFILE", Some(v)) => v.is_empty() || v == "/dev/null",
        ("HISTSIZE" | "HISTFILESIZE" | "SAVEHIST", Some(v)) => v == "0",
        _ => false,
    };
    fires.then(|| Hit::new(&rule::HISTORY, format!("{name} set to throw history away")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_flags() {
        let run = |line: &str| {
            let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
            check(&args).is_some()
        };
        assert!(run("-c"));
        assert!(run("-cw"));
        assert!(!run("10"));
        assert!(!run("-w"));
    }
}
