//! `kill -9 -1` and its kin: a signal to process -1 reaches every process the
//! user may signal (trekexecute Phase 2.4, "Kill all user processes").

use super::Hit;
use crate::scan::arg::Arg;
use crate::scan::rule;

/// `kill [-s SIG | -n NUM | -SIG] [--] PID...`: a PID of -1.
pub(super) fn check(args: &[Arg]) -> Option<Hit> {
    let mut signal_given = false;
    let mut options_over = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let text = arg.text.as_str();
        if !options_over && arg.exact {
            match text {
                "--" => {
                    options_over = true;
                    continue;
                }
                "-l" | "-L" | "--list" | "--table" => return None,
                "-s" | "-n" | "--signal" => {
                    words.next();
                    signal_given = true;
                    continue;
                }
                _ if text.starts_with('-') && !signal_given && text != "-1" => {
                    signal_given = true;
                    continue;
                }
                // `kill -1 -1`: the first is the signal (SIGHUP).
                "-1" if !signal_given && args.len() > 1 => {
                    signal_given = true;
                    continue;
                }
                _ => {}
            }
        }
        if text == "-1" {
            return Some(Hit::new(&rule::KILL_ALL, "process -1 is every process"));
        }
    }
    None
}

/// `pkill -9 -1`, `killall -9 -1`: -1 after a signal.
pub(super) fn check_pkill(args: &[Arg]) -> Option<Hit> {
    let mut signal_given = false;
    for arg in args {
        if arg.is("-1") && signal_given {
            return Some(Hit::new(&rule::KILL_ALL, "-1 aims at every process"));
        }
        if arg.exact && arg.text.starts_with('-') && arg.text.len() > 1 {
            signal_given = true;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    #[test]
    fn kill_minus_one() {
        for line in [
            "-9 -1",
            "-KILL -1",
            "-s KILL -1",
            "-SIGKILL -- -1",
            "-- -1",
            "-TERM 5 -1",
        ] {
            assert!(check(&words(line)).is_some(), "{line}");
        }
        for line in ["-9 1234", "-1 1234", "-l", "%1", "-9 -12"] {
            assert!(check(&words(line)).is_none(), "{line}");
        }
        assert!(check_pkill(&words("-9 -1")).is_some());
        assert!(check_pkill(&words("-9 node")).is_none());
        assert!(check_pkill(&words("-f -1")).is_some());
    }
}
