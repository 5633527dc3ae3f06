//! The shell's file descriptors, as far as the command shows them.
//!
//! A descriptor open on a file: a write through a path that reopens it
//! lands on the file. `exec 3<README.md; echo x > /dev/fd/3` writes
//! README.md, although the descriptor was opened to read (the kernel opens
//! the file anew, for writing). The paths that reopen one are `/dev/fd/N`,
//! `/proc/self/fd/N` and `/dev/stdin`, `/dev/stdout`, `/dev/stderr`.
//!
//! What a descriptor holds for reading (`3<<< '…'`, `3< <(…)`, `exec 3<
//! file`), read back as code through its path (`bash /dev/fd/3`, `source
//! /dev/fd/3`, `BASH_ENV=/dev/fd/3`) or as stdin (`sh <&3`).
//!
//! And the processes the shell's output goes into after `exec > >(cmd)`
//! (stdout: everything it prints from then on, list by list) or after
//! `exec 3> >(cmd)` (what is written to descriptor 3: `>&3`, `>
//! /dev/fd/3`), each walked when the shell ends with what it was fed.
//!
//! A descriptor is opened by a redirection: `exec`'s last for the rest of
//! the shell, a command's own for that command (a group's, `{ …; } 3<f`,
//! for the group). A subshell's are undone when it ends, with its place
//! ([`crate::cwd`]). A descriptor the text does not open is the shell's
//! own for 0, 1 and 2 (a terminal or pipe, harmless) and unknown above
//! them.

use brush_parser::ast::SubshellCommand;

use crate::arg::{Arg, Taint};
use crate::flow::Flow;
use crate::rule;
use crate::scanner::Scanner;
use crate::write_target::WriteDir;

/// A descriptor the command opens: each file it can be open on (none for
/// a here-document, a pipe or a process), where the shell stood when it
/// opened it (a relative path is read from there), and the text it holds
/// for reading when the command shows it.
#[derive(Debug, Clone)]
pub(super) struct Opened {
    fd: i32,
    files: Vec<Arg>,
    dir: WriteDir,
    text: Option<Flow>,
}

/// A process the shell's output on a descriptor goes into (`exec >
/// >(sh)`), with what the shell wrote there since.
pub(super) struct Sink {
    pub code: SubshellCommand,
    pub fed: Flow,
    /// The descriptor: 1 for stdout.
    pub fd: i32,
    /// The depth of the list `exec` ran in ([`Scanner::list_depth`]).
    pub level: usize,
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
        self.descriptors.push(Opened {
            fd,
            files,
            dir,
            text: None,
        });
    }

    /// Descriptor `fd` now holds `text` for reading (`3<<< '…'`, `3<
    /// <(…)`; `3< file` keeps the file beside what it holds).
    pub(super) fn hold_text(&mut self, fd: i32, text: Flow) {
        match self.descriptors.iter_mut().rev().find(|o| o.fd == fd) {
            Some(opened) => opened.text = Some(text),
            None => {
                let dir = self.write_dir();
                self.descriptors.push(Opened {
                    fd,
                    files: Vec::new(),
                    dir,
                    text: Some(text),
                });
            }
        }
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

    /// What descriptor `fd` holds for reading, where the command set it.
    pub(super) fn descriptor_text(&self, fd: i32) -> Option<Flow> {
        self.descriptors
            .iter()
            .rev()
            .find(|o| o.fd == fd)
            .and_then(|o| o.text.clone())
    }

    /// A shell running the code in descriptor `fd` (`bash /dev/fd/3`,
    /// `source /dev/fd/3`, `BASH_ENV=/dev/fd/3`): the text it holds, or,
    /// for one the command does not set, code nobody can check.
    pub(super) fn code_from_descriptor(&mut self, name: &str, argv: &[Arg], fd: i32) -> Flow {
        match self.descriptor_text(fd) {
            Some(flow) => self.code_on_stdin(name, argv, &flow, true),
            None => {
                self.report(
                    &rule::OPAQUE,
                    argv,
                    format!(
                        "{name} runs code from descriptor {fd}, which the command does not show"
                    ),
                );
                Flow::unknown()
            }
        }
    }

    /// `flow` written to descriptor `fd` (`>&3`, `> /dev/fd/3`): into the
    /// process `exec` made of it, if any.
    pub(super) fn feed_descriptor(&mut self, fd: i32, flow: &Flow) {
        if let Some(sink) = self.sinks.iter_mut().rev().find(|s| s.fd == fd) {
            sink.fed = std::mem::replace(&mut sink.fed, Flow::empty()).then(flow.clone());
        }
    }

    /// The process `exec > >(cmd)` made the shell's stdout, for a list
    /// `depth` deep: one set up in it or in a list around it (a list
    /// inside it prints into whatever it is part of, a pipe or a
    /// substitution, and hands its output up).
    pub(super) fn stdout_sink_at(&mut self, depth: usize) -> Option<&mut Sink> {
        self.sinks
            .iter_mut()
            .rev()
            .find(|sink| sink.fd == 1 && sink.level >= depth)
    }

    /// Walks the processes `exec` set up since there were `keep`, each
    /// reading what the shell wrote into it.
    pub(super) fn flush_sinks(&mut self, keep: usize) {
        while self.sinks.len() > keep {
            let Some(sink) = self.sinks.pop() else {
                break;
            };
            self.subshell(|s| s.inside("exec > >(...)", |s| s.list(&sink.code.list, &sink.fed)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Decision;

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

    fn judged(command: &str) -> (Decision, Vec<&'static str>) {
        crate::judged(command, None)
    }

    /// Code a shell reads through another descriptor (checked against
    /// bash 5.2 with a stand-in).
    #[test]
    fn code_through_another_descriptor_is_judged() {
        for command in [
            "BASH_ENV=/dev/fd/3 bash -c : 3<<< 'reboot'",
            "bash /dev/fd/3 3<<< 'reboot'",
            "source /dev/fd/3 3<<< 'reboot'",
            ". /dev/fd/5 5<<END\nreboot\nEND",
            "exec 3<<< 'reboot'; bash /dev/fd/3",
            "exec 3< <(echo reboot); source /dev/fd/3",
            "exec 3<<< reboot; sh <&3",
            "exec 3> >(sh); echo reboot >&3",
            "exec 4> >(bash); printf 'reboot\\n' > /dev/fd/4",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Block, "{command}: {rules:?}");
            assert!(rules.contains(&"system-power"), "{command}: {rules:?}");
        }
        // A descriptor the command does not set: code nobody can check.
        assert_eq!(judged("bash /dev/fd/3").0, Decision::Warn);
        assert_eq!(judged("exec 3> >(sh)").0, Decision::Warn);
        for command in [
            "exec 3<<< 'hello'; cat <&3",
            "exec 3> >(logger -t ci); echo done >&3",
            "exec 3<<< 'export CI=1'; source /dev/fd/3",
            "diff <(sort a) /dev/fd/3 3< b",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Allow, "{command}: {rules:?}");
        }
    }
}
