//! The shell's file descriptors besides stdin and stdout, as far as the
//! command shows them: text a descriptor holds for reading (`3<<< '…'`,
//! `3< <(…)`, `exec 3< file`), read back as code through its path
//! (`bash /dev/fd/3`, `source /dev/fd/3`, `BASH_ENV=/dev/fd/3`) or as
//! stdin (`sh <&3`); and the processes the shell's output goes into after
//! `exec > >(cmd)` (stdout: everything it prints from then on, list by
//! list) or `exec 3> >(cmd)` (what is written to descriptor 3: `>&3`,
//! `> /dev/fd/3`), each walked when the shell ends with what it was fed.
//! A descriptor set up for one command lasts for it; one set up by a bare
//! `exec`, for the rest of the shell.

use brush_parser::ast::SubshellCommand;

use crate::arg::Arg;
use crate::flow::Flow;
use crate::rule;
use crate::scanner::Scanner;

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

/// The descriptor a path names: `/dev/fd/N`, `/proc/self/fd/N`,
/// `/dev/stdin` (0), `/dev/stdout` (1), `/dev/stderr` (2).
pub(super) fn descriptor_path(path: &str) -> Option<i32> {
    match path {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

impl Scanner<'_> {
    /// What descriptor `fd` holds for reading, where the command set it.
    pub(super) fn descriptor_text(&self, fd: i32) -> Option<Flow> {
        self.descriptors
            .iter()
            .rev()
            .find(|(n, _)| *n == fd)
            .map(|(_, flow)| flow.clone())
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
    use crate::scanner::Context;

    #[test]
    fn descriptor_paths() {
        assert_eq!(descriptor_path("/dev/fd/3"), Some(3));
        assert_eq!(descriptor_path("/proc/self/fd/0"), Some(0));
        assert_eq!(descriptor_path("/dev/stdin"), Some(0));
        assert_eq!(descriptor_path("/dev/fd/"), None);
        assert_eq!(descriptor_path("/dev/fd/3x"), None);
        assert_eq!(descriptor_path("./fd/3"), None);
    }

    fn judged(command: &str) -> (Decision, Vec<&'static str>) {
        let judgement = crate::judge_command(command, &Context::default());
        let rules = judgement.findings.iter().map(|f| f.rule.id).collect();
        (judgement.decision(), rules)
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
