//! Erasing file systems: `mkfs` and its relatives (trekexecute Phase 2.4,
//! "Disk destruction"). Writes to block devices (`dd of=/dev/sda`, `>
//! /dev/nvme0n1`) are judged in [`crate::paths`].
//!
//! Making a file system inside a regular file (`truncate -s 64M disk.img
//! && mkfs.ext4 disk.img`, `dd of=/swapfile … && mkswap /swapfile`) is no
//! disk destruction: it is what the rule's safer alternative asks for. So a
//! formatter is refused only when a word it is given names a device: a
//! path under `/dev` (also relative, after `cd /dev`), an option holding
//! one (`-J device=/dev/sdb1`), or a word only known at run time; with no
//! target at all it is refused too. A symbolic link that points at a
//! device cannot be seen in the text; that is left to the permission
//! prompt.

use super::Hit;
use crate::arg::Arg;
use crate::rule;

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

/// `cwd`: where a `cd` moved the command (`None`: the project), so a
/// relative target after `cd /dev` is a device.
pub(super) fn check_format(name: &str, args: &[Arg], cwd: Option<&str>) -> Option<Hit> {
    let asks_for_help = !args.is_empty()
        && args
            .iter()
            .all(|a| ["--help", "-h", "--version", "-V"].iter().any(|h| a.is(h)));
    if asks_for_help {
        return None;
    }
    let (options, words): (Vec<&Arg>, Vec<&Arg>) = args
        .iter()
        .partition(|a| a.exact && a.text.len() > 1 && a.text.starts_with('-'));
    let device = options
        .iter()
        .find(|o| o.text.contains("/dev/"))
        .or_else(|| words.iter().find(|a| names_device(a, cwd)));
    let detail = match device {
        Some(word) => format!("{name} erases the file system on {}", word.text),
        None if !words.iter().any(|a| could_be_target(a)) => {
            format!("{name} erases a file system (no regular file named)")
        }
        None => return None,
    };
    Some(Hit::new(&rule::DISK_FORMAT, detail))
}

/// A word that is, or may be, a device: under `/dev`, or not known.
fn names_device(word: &Arg, cwd: Option<&str>) -> bool {
    let Some(text) = word.exact_text() else {
        return true;
    };
    // A glob may match a device; `device=/dev/sdb1` is an option's value.
    if word.glob || text.contains("=/dev/") {
        return true;
    }
    let path = match cwd {
        Some(dir) if !text.starts_with(['/', '~']) => {
            format!("{}/{text}", dir.trim_end_matches('/'))
        }
        _ => text.to_owned(),
    };
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if path.starts_with('/') {
        return parts.first() == Some(&"dev");
    }
    // `../../dev/sda` climbs out of the project and may reach `/dev`.
    parts
        .iter()
        .position(|p| *p == "dev")
        .is_some_and(|at| parts.get(..at).is_some_and(|before| before.contains(&"..")))
}

/// A word that could be the file to format: a path-like operand, not a
/// plain value such as a size or a label (`64M`, `ext4`).
fn could_be_target(word: &Arg) -> bool {
    word.exact_text()
        .is_some_and(|t| t.contains(['/', '.']) || t.chars().any(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(line: &str) -> bool {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<Arg> = words.map(Arg::literal).collect();
        check_format(name, &args, None).is_some()
    }

    #[test]
    fn devices_block_and_image_files_in_the_project_do_not() {
        for line in [
            "mkfs.ext4 /dev/sda1",
            "mkfs -t ext4 /dev/nvme0n1p1",
            "mkfs.ext4 disk.img /dev/sda",
            "mkfs.ext4 //dev/./sdb",
            "wipefs -a /dev/sdb",
            "mkswap /dev/sdb2",
            "mkfs.vfat",
            "mkfs.ext4 -Jdevice=/dev/sdb1 disk.img",
            "mkfs.ext4 -J device=/dev/sdb1 disk.img",
            "blkdiscard /dev/nvme0n1",
            "mkfs.ext4 ../../dev/sda",
        ] {
            assert!(blocks(line), "{line}");
        }
        for line in [
            "mkfs.ext4 disk.img",
            "mkfs.ext4 -F build/rootfs.ext4",
            "mkfs -t ext4 ./out/disk.IMG",
            "mke2fs -t ext4 -L root -F disk.img 64M",
            "mkfs.vfat -C floppy.img 1440",
            "mkswap test.swap",
            "mkswap /swapfile",
            "mkswap swapfile",
            "mkfs.ext4 /tmp/disk.img",
            "mkfs.ext4 ../disk.img",
            "mke2fs -d /etc disk.img",
            "mkfs.ext4 --help",
        ] {
            assert!(!blocks(line), "{line}");
        }
        let computed = [Arg::unknown("$DEV", crate::arg::Taint::OPAQUE)];
        assert!(check_format("mkfs.ext4", &computed, None).is_some());
        let moved = [Arg::literal("disk.img")];
        assert!(check_format("mkfs.ext4", &moved, Some("/dev")).is_some());
    }
}
