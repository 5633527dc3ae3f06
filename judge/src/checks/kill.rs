//! `kill -9 -1` and its kin: a signal to process -1 reaches every process the
//! user may signal (trekexecute Phase 2.4, "Kill all user processes").

use super::Hit;
use crate::arg::Arg;
use crate::rule;

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
        // `kill -9 $(pgrep -u "$USER")`: every process pgrep would pick.
        if let Some(inner) = text
            .strip_prefix("$(pgrep")
            .or_else(|| text.strip_prefix("`pgrep"))
            .and_then(|r| r.strip_suffix(')').or_else(|| r.strip_suffix('`')))
        {
            let words: Vec<Arg> = inner.split_whitespace().map(Arg::literal).collect();
            if let Some(hit) = check_pkill(&words) {
                return Some(Hit::new(&rule::KILL_ALL, format!("pgrep {}", hit.detail)));
            }
        }
    }
    None
}

/// `killall5` signals every process outside its own session; only its
/// help and list forms signal nothing.
pub(super) fn check_killall5(args: &[Arg]) -> Option<Hit> {
    let lists = args.iter().any(|a| a.is("-l") || a.is("--help"));
    (!lists).then(|| Hit::new(&rule::KILL_ALL, "killall5 signals every process"))
}

/// Options of pkill and killall that take a value.
const WITH_VALUE: &[&str] = &[
    "-u",
    "-U",
    "-g",
    "-G",
    "-P",
    "-s",
    "-t",
    "-F",
    "--euid",
    "--uid",
    "--group",
    "--pgroup",
    "--parent",
    "--session",
    "--terminal",
    "--pidfile",
    "--signal",
    "--ns",
    "--nslist",
    "--user",
    "-y",
    "-o",
    "--younger-than",
    "--older-than",
    "--older",
    "--newer",
    "-n",
    "-O",
];

/// `pkill -9 -1`, `killall -9 -1`: -1 after a signal; and `pkill -u USER`,
/// `killall -u USER` with no pattern, which signal every process of the
/// user (the agent's own session included).
pub(super) fn check_pkill(args: &[Arg]) -> Option<Hit> {
    let mut signal_given = false;
    let mut by_user = false;
    let mut pattern = false;
    let mut match_all = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let text = arg.text.as_str();
        if arg.is("-1") && signal_given {
            return Some(Hit::new(&rule::KILL_ALL, "-1 aims at every process"));
        }
        if arg.exact && text.starts_with('-') && text.len() > 1 {
            if matches!(text, "-u" | "-U" | "--euid" | "--uid" | "--user")
                || text.starts_with("--euid=")
                || text.starts_with("--uid=")
                || text.starts_with("--user=")
                || (text.len() > 2 && (text.starts_with("-u") || text.starts_with("-U")))
            {
                by_user = true;
            }
            if WITH_VALUE.contains(&text) {
                words.next();
                continue;
            }
            signal_given = true;
            continue;
        }
        pattern = true;
        // `pkill -9 .`, `pkill -f '.*'`: a pattern every process matches.
        match_all |= arg.exact && matches!(text, "." | ".*" | "^" | "" | ".+" | "^.*$");
    }
    if match_all {
        return Some(Hit::new(
            &rule::KILL_ALL,
            "the pattern matches every process",
        ));
    }
    (by_user && !pattern).then(|| {
        Hit::new(
            &rule::KILL_ALL,
            "-u with no pattern signals every process of the user",
        )
    })
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
        for line in [
            "-u ann",
            "-KILL -u ann",
            "-9 -U 1000",
            "-u=ann",
            "--uid 0",
            "-uann",
        ] {
            assert!(check_pkill(&words(line)).is_some(), "{line}");
        }
        for line in [
            "-u ann node",
            "-u ann -f 'my server'",
            "-f node",
            "-s 9 -u ann x",
        ] {
            assert!(check_pkill(&words(line)).is_none(), "{line}");
        }
        assert!(check_pkill(&words("-9 -f .*")).is_some());
        assert!(check_pkill(&words("-9 .")).is_some());
        assert!(
            check(&[
                Arg::literal("-9"),
                Arg::unknown("$(pgrep -u $USER)", Default::default())
            ])
            .is_some()
        );
        assert!(
            check(&[
                Arg::literal("-9"),
                Arg::unknown("$(pgrep node)", Default::default())
            ])
            .is_none()
        );
        assert!(check_killall5(&words("-9")).is_some());
        assert!(check_killall5(&[]).is_some());
        assert!(check_killall5(&words("-l")).is_none());
    }
}
