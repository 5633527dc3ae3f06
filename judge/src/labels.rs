//! The `label: value` input block that the executor skill feeds on stdin.
//!
//! Contract (run.sh §2): a trailing CR is dropped; a line counts only when it
//! starts at column 0, case-sensitively, with a known label; the value is the
//! rest of the line trimmed of whitespace; the first occurrence of a label
//! wins, even when its value is empty. Everything else is ignored.

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
    /// Reads every line of `input`.
    pub fn parse(input: &[u8]) -> Self {
        let mut labels = Self::default();
        for line in input.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let slot = if let Some(v) = line.strip_prefix(b"command:") {
                Some((&mut labels.command, v))
            } else if let Some(v) = line.strip_prefix(b"cwd:") {
                Some((&mut labels.cwd, v))
            } else if let Some(v) = line.strip_prefix(b"timeout:") {
                Some((&mut labels.timeout, v))
            } else if let Some(v) = line.strip_prefix(b"expect-exit:") {
                Some((&mut labels.expect_exit, v))
            } else {
                None
            };
            if let Some((slot, value)) = slot
                && slot.is_none()
            {
                *slot = Some(value.trim_ascii().to_vec());
            }
        }
        labels
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

    #[test]
    fn only_one_trailing_cr_is_dropped() {
        let l = Labels::parse(b"command: echo x\r\r\n");
        // trimming whitespace removes the inner CR too, as bash's trim does
        assert_eq!(l.command, v("echo x"));
    }
}
