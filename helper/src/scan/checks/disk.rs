//! Erasing file systems: `mkfs` and its relatives (trekexecute Phase 2.4,
//! "Disk destruction"). Writes to block devices (`dd of=/dev/sda`, `>
//! /dev/nvme0n1`) are judged in [`crate::scan::paths`].
//!
//! Making a file system inside a disk image in the project (`truncate -s
//! 64M disk.img && mkfs.ext4 disk.img`) is no disk destruction: it is what
//! the rule's safer alternative asks for. So a formatter is let through
//! when every word it is given that could name a device is instead a known
//! path inside the project, relative and not climbing out of it, ending in
//! a disk-image extension; anything else (a path under `/dev`, an absolute
//! or computed path, a file with no image extension) still blocks. A
//! symbolic link named `disk.img` that points at a device cannot be seen in
//! the text; that is left to the permission prompt.

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

/// File name endings of disk images.
const IMAGE_EXTENSIONS: &[&str] = &[
    "img", "image", "raw", "iso", "bin", "fs", "ext2", "ext3", "ext4", "fat", "vfat", "swap", "dsk",
];

pub(super) fn is_formatter(name: &str) -> bool {
    name.starts_with("mkfs") || FORMATTERS.contains(&name)
}

/// `cwd`: where a `cd` moved the command (`None`: the project); once moved,
/// a relative path is no longer known to be in the project.
pub(super) fn check_format(name: &str, args: &[Arg], cwd: Option<&str>) -> Option<Hit> {
    let asks_for_help = !args.is_empty()
        && args
            .iter()
            .all(|a| ["--help", "-h", "--version", "-V"].iter().any(|h| a.is(h)));
    let (options, words): (Vec<&Arg>, Vec<&Arg>) = args
        .iter()
        .partition(|a| a.exact && a.text.len() > 1 && a.text.starts_with('-'));
    let on_image = cwd.is_none()
        && !options.iter().any(|o| o.text.contains("/dev"))
        && words.iter().any(|a| is_project_image(a))
        && words
            .iter()
            .all(|a| is_project_image(a) || is_plain_value(a));
    (!asks_for_help && !on_image)
        .then(|| Hit::new(&rule::DISK_FORMAT, format!("{name} erases a file system")))
}

/// A known relative path in the project with a disk-image extension.
fn is_project_image(word: &Arg) -> bool {
    let Some(text) = word.exact_text() else {
        return false;
    };
    let inside = !text.starts_with(['/', '~'])
        && !text.split('/').any(|part| part == "..")
        && !text.contains(['$', '`', '*', '?', '[']);
    let extension = text.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !stem.ends_with('/')
            && IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    });
    inside && extension && !word.glob
}

/// An option's value or a size (`ext4`, `4096`, `64M`, `label`): a known
/// word with no `/`, so it cannot name a device.
fn is_plain_value(word: &Arg) -> bool {
    word.exact_text()
        .is_some_and(|t| !t.is_empty() && !t.contains(['/', '$', '`']) && !word.glob)
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
            "mkfs.ext4 /tmp/disk.img",
            "mkfs.ext4 ../disk.img",
            "mkfs.ext4 dev/sda",
            "mkfs.ext4 disk",
            "mkfs.ext4 .img",
            "mkswap swapfile",
            "wipefs -a /dev/sdb",
            "mkfs.vfat",
            "mke2fs -d /etc disk.img",
            "mkfs.ext4 -Jdevice=/dev/sdb1 disk.img",
            "mkfs.ext4 -J device=/dev/sdb1 disk.img",
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
            "mkfs.ext4 --help",
        ] {
            assert!(!blocks(line), "{line}");
        }
        let moved = [Arg::literal("disk.img")];
        assert!(check_format("mkfs.ext4", &moved, Some("/dev")).is_some());
    }
}
