//! [`Flow`]: what the engine knows about text moving between commands, on a
//! pipe, through a here-document or out of a substitution. A shell that reads
//! a flow runs it as code, so where the text came from decides whether that
//! is allowed.

use crate::arg::Taint;

/// Longest literal text a flow carries; past this it is only "unknown".
pub(super) const MAX_LITERAL_BYTES: usize = 1 << 20;

/// The text itself, as far as it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Text {
    /// Whatever the caller's stdin is (a top-level command's own input).
    Inherited,
    /// Known text: echo of literals, a here-document, a substitution of those.
    Literal(String),
    /// A file's content (`< script.sh`, `cat script.sh`): running it is like
    /// running the file.
    File,
    /// Only known at run time.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Flow {
    pub text: Text,
    /// What is mixed into the text.
    pub taint: Taint,
}

impl Flow {
    pub(super) fn inherited() -> Self {
        Self {
            text: Text::Inherited,
            taint: Taint::default(),
        }
    }

    /// No output at all (an empty, known text).
    pub(super) fn empty() -> Self {
        Self::literal(String::new())
    }

    /// Output the engine cannot see.
    pub(super) fn unknown() -> Self {
        Self::tainted(Taint::OPAQUE)
    }

    /// Known text (unknown past [`MAX_LITERAL_BYTES`]).
    pub(super) fn literal(text: String) -> Self {
        if text.len() > MAX_LITERAL_BYTES {
            return Self::unknown();
        }
        Self {
            text: Text::Literal(text),
            taint: Taint::default(),
        }
    }

    pub(super) fn file() -> Self {
        Self {
            text: Text::File,
            taint: Taint::default(),
        }
    }

    /// Unknown text with `taint` mixed in.
    pub(super) fn tainted(taint: Taint) -> Self {
        Self {
            text: Text::Unknown,
            taint: taint.union(Taint::OPAQUE),
        }
    }

    /// The known text, if any.
    pub(super) fn literal_text(&self) -> Option<&str> {
        match &self.text {
            Text::Literal(t) => Some(t),
            Text::Inherited | Text::File | Text::Unknown => None,
        }
    }

    /// The output of one of two ways a command may run.
    pub(super) fn either(self, other: Self) -> Self {
        if self == other {
            return self;
        }
        let taint = self.taint.union(other.taint);
        let text = match (self.text, other.text) {
            (Text::File, Text::File) => Text::File,
            (Text::Inherited, Text::Inherited) => Text::Inherited,
            _ => Text::Unknown,
        };
        Self {
            taint: if text == Text::Unknown {
                taint.union(Taint::OPAQUE)
            } else {
                taint
            },
            text,
        }
    }

    /// The output of this command followed by `next`'s.
    pub(super) fn then(self, next: Self) -> Self {
        let taint = self.taint.union(next.taint);
        let text = match (self.text, next.text) {
            (Text::Literal(mut a), Text::Literal(b)) if a.len() + b.len() <= MAX_LITERAL_BYTES => {
                a.push_str(&b);
                Text::Literal(a)
            }
            (Text::Literal(a), other) | (other, Text::Literal(a)) if a.is_empty() => other,
            (Text::File, Text::File) => Text::File,
            (Text::Inherited, Text::Inherited) => Text::Inherited,
            _ => Text::Unknown,
        };
        Self { text, taint }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_concatenate_literals_and_keep_taint() {
        let a = Flow::literal("a\n".into()).then(Flow::literal("b\n".into()));
        assert_eq!(a.literal_text(), Some("a\nb\n"));
        let download = Flow::tainted(Taint {
            download: true,
            ..Taint::default()
        });
        let mixed = Flow::empty().then(download);
        assert!(mixed.taint.download);
        assert_eq!(mixed.text, Text::Unknown);
        assert_eq!(Flow::file().then(Flow::file()).text, Text::File);
        assert_eq!(Flow::empty().then(Flow::file()).text, Text::File);
        assert_eq!(Flow::file().then(Flow::unknown()).text, Text::Unknown);
    }
}
