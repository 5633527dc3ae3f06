//! `history -c`: erasing the shell's history (trekexecute Phase 2.4,
//! "Evidence destruction"). Truncating the history *file* is a write, judged
//! in [`crate::paths`].

use super::Hit;
use crate::arg::Arg;
use crate::rule;

pub(crate) fn check(args: &[Arg]) -> Option<Hit> {
    args.iter()
        .filter_map(Arg::exact_text)
        .take_while(|t| *t != "--")
        .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
        .then(|| Hit::new(&rule::HISTORY, "history -c clears the shell history"))
}

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
