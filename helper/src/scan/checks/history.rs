//! `history -c`: erasing the shell's history (trekexecute Phase 2.4,
//! "Evidence destruction"). Truncating the history *file* is a write, judged
//! in [`crate::scan::paths`].

use super::Hit;
use crate::scan::arg::Arg;
use crate::scan::rule;

pub fn check(args: &[Arg]) -> Option<Hit> {
    args.iter()
        .filter_map(Arg::exact_text)
        .take_while(|t| *t != "--")
        .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
        .then(|| Hit::new(&rule::HISTORY, "history -c clears the shell history"))
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
