//! The `label: value` blocks of the executor: what the skill feeds `run`
//! on stdin (`command:`, `cwd:`, `timeout:`, `expect-exit:`), and what
//! `verdict` reads (the skill's `log:`, `exit:`, … or `run`'s own block,
//! `LOG:`, `EXIT:`, … passed on as it is). One reader serves both, with one
//! set of rules ([`read`]); what differs is each caller's vocabulary: the
//! labels it knows and how they are spelt ([`Spelling`]).
//!
//! `run`'s labels follow its contract (docs/maintainer/run-contract.md
//! §2): exact spelling, so
//! `Command:` is not a label. `verdict` matches its labels in any case,
//! since one producer writes them in lower case and the other in upper.

/// How a caller's labels are spelt in the blocks it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// Byte for byte as named.
    Exact,
    /// In any ASCII case.
    AnyCase,
}

/// Reads the values of the labels `names` from `input`, one per name in
/// the order given.
///
/// The rules: lines are split at LF, and a CR before the LF (or at the end)
/// is dropped. A line carries a label when the text before its first colon,
/// from column 0, is one of `names` (so an indented label, or one with a
/// space before the colon, is not one). The value is the rest of the line,
/// trimmed of ASCII whitespace (a space after the colon is optional). The
/// first occurrence of a label wins, even when its value is empty; every
/// other line is ignored.
pub fn read<'a, const N: usize>(
    input: &'a [u8],
    names: [&str; N],
    spelling: Spelling,
) -> [Option<&'a [u8]>; N] {
    let mut values = [None; N];
    for line in input.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        let (label, rest) = line.split_at(colon);
        let value = rest.get(1..).unwrap_or_default().trim_ascii();
        for (name, slot) in names.iter().zip(values.iter_mut()) {
            let named = match spelling {
                Spelling::Exact => label == name.as_bytes(),
                Spelling::AnyCase => label.eq_ignore_ascii_case(name.as_bytes()),
            };
            if named && slot.is_none() {
                *slot = Some(value);
            }
        }
    }
    values
}

/// The raw values of the labels `run` knows, as bytes so that a command
/// travels byte for byte.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Labels {
    pub command: Option<Vec<u8>>,
    pub cwd: Option<Vec<u8>>,
    pub timeout: Option<Vec<u8>>,
    pub expect_exit: Option<Vec<u8>>,
}

impl Labels {
    /// Reads `run`'s labels from every line of `input` ([`read`], exact
    /// spelling).
    pub fn parse(input: &[u8]) -> Self {
        let [command, cwd, timeout, expect_exit] = read(
            input,
            ["command", "cwd", "timeout", "expect-exit"],
            Spelling::Exact,
        )
        .map(|value| value.map(<[u8]>::to_vec));
        Self {
            command,
            cwd,
            timeout,
            expect_exit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Option<Vec<u8>> {
        Some(s.as_bytes().to_vec())
    }

    #[test]
    fn reads_known_labels_and_trims() {
        let l = Labels::parse(
            b"command:  npm test -- --grep \"a b\"  \ncwd: sub\r\ntimeout:5\nexpect-exit: nonzero",
        );
        assert_eq!(l.command, v("npm test -- --grep \"a b\""));
        assert_eq!(l.cwd, v("sub"));
        assert_eq!(l.timeout, v("5"));
        assert_eq!(l.expect_exit, v("nonzero"));
    }

    #[test]
    fn ignores_indented_other_case_and_unknown_labels() {
        let l = Labels::parse(b"  command: a\nCommand: b\nexpect: all green\n# command: c\n");
        assert_eq!(l, Labels::default());
    }

    #[test]
    fn first_occurrence_wins_even_when_empty() {
        let l = Labels::parse(b"command:\ncommand: true\n");
        assert_eq!(l.command, v(""));
    }

    /// `verdict`'s vocabulary, on what its two producers write: the
    /// skill's lower-case labels and `run`'s upper-case block.
    #[test]
    fn any_case_reads_the_skills_labels_and_runs_block_alike() {
        let names = ["log", "exit", "duration"];
        let skill = read(
            b"log: /l.log\nexit: 1\nduration: 3s\n",
            names,
            Spelling::AnyCase,
        );
        let block = read(
            b"RESULT: DEVIATION\nSTATUS: ok\nEXIT: 1\nDURATION: 3s\nLOG: /l.log\nLINES: 9\nTAIL: exit: 7\n",
            names,
            Spelling::AnyCase,
        );
        let want = [&b"/l.log"[..], b"1", b"3s"].map(Some);
        assert_eq!(skill, want);
        assert_eq!(block, want);
        // The same block read with exact spelling knows none of them.
        assert_eq!(
            read(b"LOG: /l.log\nEXIT: 1\n", names, Spelling::Exact),
            [None; 3]
        );
    }

    #[test]
    fn a_label_is_the_text_before_the_first_colon_at_column_0() {
        let names = ["command", "cwd"];
        assert_eq!(
            read(
                b" cwd: a\ncommand : b\ncommand:c: d\ncwd:\tsub \t\r\n",
                names,
                Spelling::Exact
            ),
            [Some(&b"c: d"[..]), Some(&b"sub"[..])]
        );
        // No colon, no label; an empty input reads nothing.
        assert_eq!(read(b"command\n\n", names, Spelling::Exact), [None; 2]);
        assert_eq!(read(b"", names, Spelling::AnyCase), [None; 2]);
    }

    #[test]
    fn only_one_trailing_cr_is_dropped() {
        let l = Labels::parse(b"command: echo x\r\r\n");
        // trimming whitespace removes the inner CR too, as bash's trim does
        assert_eq!(l.command, v("echo x"));
    }
}
