//! The file descriptors a command opens on files, so that a write through
//! a path that reopens a descriptor lands on the file: `exec 3<README.md;
//! echo x > /dev/fd/3` writes README.md, although the descriptor was
//! opened to read (the kernel opens the file anew, for writing).
//!
//! A descriptor is opened by a redirection: `exec`'s last for the rest of
//! the shell, a command's own for that command (a group's, `{ …; } 3<f`,
//! for the group). A subshell's are undone when it ends, with its place
//! ([`crate::cwd`]). The paths that reopen one are `/dev/fd/N`,
//! `/proc/self/fd/N` and `/dev/stdin`, `/dev/stdout`, `/dev/stderr`. A
//! descriptor the text does not open is the shell's own for 0, 1 and 2 (a
//! terminal or pipe, harmless) and unknown above them.

use crate::arg::{Arg, Taint};
use crate::scanner::Scanner;
use crate::write_target::WriteDir;

/// A descriptor open on a file: each path it can be, and where the shell
/// stood when it opened it (a relative path is read from there).
#[derive(Debug, Clone)]
pub(super) struct Opened {
    fd: i32,
    files: Vec<Arg>,
    dir: WriteDir,
}

/// The descriptor `path` reopens, if it is one of the paths that do.
pub(super) fn descriptor_of(path: &str) -> Option<i32> {
    let number = match path {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
            .iter()
            .find_map(|prefix| path.strip_prefix(prefix))?,
    };
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    number.parse().ok()
}

impl Scanner<'_> {
    /// Descriptor `fd` now reads or writes `files` (each path it can be).
    pub(super) fn open_descriptor(&mut self, fd: i32, files: Vec<Arg>) {
        let dir = self.write_dir();
        self.close_descriptor(fd);
        self.descriptors.push(Opened { fd, files, dir });
    }

    /// `N>&M`, `N<&M`: descriptor `fd` is now what `from` is; `N>&-`
    /// (`from` `None`) closes it.
    pub(super) fn copy_descriptor(&mut self, fd: i32, from: Option<i32>) {
        let copied = from.and_then(|from| self.descriptors.iter().find(|o| o.fd == from).cloned());
        self.close_descriptor(fd);
        if let Some(opened) = copied {
            self.descriptors.push(Opened { fd, ..opened });
        }
    }

    /// Descriptor `fd` no longer names a file the text knows (closed, or
    /// a here-document, a pipe, a process).
    pub(super) fn close_descriptor(&mut self, fd: i32) {
        self.descriptors.retain(|o| o.fd != fd);
    }

    /// What the descriptors are, to hand back with [`Self::restore_descriptors`]
    /// when what opened them ends.
    pub(super) fn save_descriptors(&self) -> Vec<Opened> {
        self.descriptors.clone()
    }

    pub(super) fn restore_descriptors(&mut self, saved: Vec<Opened>) {
        self.descriptors = saved;
    }

    /// Where a write of `target` lands, and from where a relative path is
    /// read: the file a reopened descriptor was opened on, a target the
    /// text cannot know for a descriptor above 2 it did not open, else
    /// `target` itself where the shell stands.
    pub(super) fn landing(&self, target: &Arg) -> Vec<(Arg, WriteDir)> {
        let here = || vec![(target.clone(), self.write_dir())];
        let Some(fd) = target.exact_text().and_then(descriptor_of) else {
            return here();
        };
        match self.descriptors.iter().find(|o| o.fd == fd) {
            Some(opened) => opened
                .files
                .iter()
                .map(|f| (f.clone(), opened.dir.clone()))
                .collect(),
            None if fd <= 2 => here(),
            None => vec![(
                Arg::unknown(
                    &format!("{} (a descriptor the command does not open)", target.text),
                    Taint::default(),
                ),
                self.write_dir(),
            )],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_reopen_a_descriptor() {
        assert_eq!(descriptor_of("/dev/fd/3"), Some(3));
        assert_eq!(descriptor_of("/proc/self/fd/10"), Some(10));
        assert_eq!(descriptor_of("/proc/thread-self/fd/4"), Some(4));
        assert_eq!(descriptor_of("/dev/stdout"), Some(1));
        assert_eq!(descriptor_of("/dev/stdin"), Some(0));
        assert_eq!(descriptor_of("/dev/fd/"), None);
        assert_eq!(descriptor_of("/dev/fd/3/x"), None);
        assert_eq!(descriptor_of("/dev/null"), None);
        assert_eq!(descriptor_of("/proc/1/fd/3"), None);
    }
}
