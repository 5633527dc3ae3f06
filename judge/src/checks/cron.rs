//! `crontab`: anything but listing installs, edits or removes a user's cron
//! table (trekexecute Phase 2.4, "Persistence via cron"; Sub-step D1,
//! "crontab writes"). Writes to `/etc/cron*` are judged in
//! [`crate::paths`].

use super::Hit;
use crate::arg::Arg;
use crate::getopt::{self, Spec};
use crate::rule;

const SPEC: Spec = Spec::new("usT", &[("help", false), ("version", false)]);

pub(super) fn check(args: &[Arg]) -> Option<Hit> {
    let parsed = getopt::parse(args, &SPEC);
    let lists = parsed.has_short('l');
    if parsed.has_short('e') {
        return Some(Hit::new(&rule::CRON, "crontab -e edits the cron table"));
    }
    if parsed.has_short('r') {
        return Some(Hit::new(&rule::CRON, "crontab -r removes the cron table"));
    }
    if lists || parsed.has_long("help") || parsed.has_long("version") || parsed.has_short('T') {
        return None;
    }
    Some(Hit::new(&rule::CRON, "crontab installs a new cron table"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listing_passes() {
        let run = |line: &str| {
            let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
            check(&args).is_some()
        };
        assert!(run("-e"));
        assert!(run("-u root -e"));
        assert!(run("jobs.txt"));
        assert!(run("-"));
        assert!(run(""));
        assert!(run("-r"));
        assert!(!run("-l"));
        assert!(!run("-u bob -l"));
    }
}
