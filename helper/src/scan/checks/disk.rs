//! Erasing file systems: `mkfs` and its relatives (trekexecute Phase 2.4,
//! "Disk destruction"). Writes to block devices (`dd of=/dev/sda`, `>
//! /dev/nvme0n1`) are judged in [`crate::scan::paths`].

use super::Hit;
use crate::scan::arg::Arg;
use crate::scan::rule;

const FORMATTERS: &[&str] = &[
    "mke2fs",
    "mkswap",
    "wipefs",
    "blkdiscard",
    "newfs",
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
];

pub(super) fn is_formatter(name: &str) -> bool {
    name.starts_with("mkfs") || FORMATTERS.contains(&name)
}

pub(super) fn check_format(name: &str, args: &[Arg]) -> Option<Hit> {
    let asks_for_help = !args.is_empty()
        && args
            .iter()
            .all(|a| ["--help", "-h", "--version", "-V"].iter().any(|h| a.is(h)));
    (!asks_for_help).then(|| Hit::new(&rule::DISK_FORMAT, format!("{name} erases a file system")))
}
