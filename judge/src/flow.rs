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
    /// For text only known in part ([`Text::Unknown`]): the parts that are
    /// known, in order (`{ date; echo 'rm -rf ~'; } | sh` runs the second
    /// whatever the first prints).
    pub known: Vec<String>,
}

/// Most known parts an unknown text keeps.
const MAX_KNOWN_PARTS: usize = 64;

impl Flow {
    pub(super) fn inherited() -> Self {
        Self {
            text: Text::Inherited,
            taint: Taint::default(),
            known: Vec::new(),
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
            known: Vec::new(),
        }
    }

    pub(super) fn file() -> Self {
        Self {
            text: Text::File,
            taint: Taint::default(),
            known: Vec::new(),
        }
    }

    /// Unknown text with `taint` mixed in.
    pub(super) fn tainted(taint: Taint) -> Self {
        Self {
            text: Text::Unknown,
            taint: taint.union(Taint::OPAQUE),
            known: Vec::new(),
        }
    }

    /// The known text, if any.
    pub(super) fn literal_text(&self) -> Option<&str> {
        match &self.text {
            Text::Literal(t) => Some(t),
            Text::Inherited | Text::File | Text::Unknown => None,
        }
    }

    /// The output of one of two ways a command may run (the parts known
    /// of either kept, each a text the command may print).
    pub(super) fn either(self, other: Self) -> Self {
        if self == other {
            return self;
        }
        let taint = self.taint.union(other.taint);
        match (self.text, other.text) {
            (Text::File, Text::File) => Self::made(Text::File, taint, Vec::new()),
            (Text::Inherited, Text::Inherited) => Self::made(Text::Inherited, taint, Vec::new()),
            (a, b) => Self::made(
                Text::Unknown,
                taint,
                joined(parts(a, self.known), parts(b, other.known)),
            ),
        }
    }

    /// The output of this command followed by `next`'s.
    pub(super) fn then(self, next: Self) -> Self {
        let taint = self.taint.union(next.taint);
        match (self.text, next.text) {
            (Text::Literal(mut a), Text::Literal(b)) if a.len() + b.len() <= MAX_LITERAL_BYTES => {
                a.push_str(&b);
                Self::made(Text::Literal(a), taint, Vec::new())
            }
            (Text::Literal(a), other) if a.is_empty() => Self::made(other, taint, next.known),
            (other, Text::Literal(b)) if b.is_empty() => Self::made(other, taint, self.known),
            (Text::File, Text::File) => Self::made(Text::File, taint, Vec::new()),
            (Text::Inherited, Text::Inherited) => Self::made(Text::Inherited, taint, Vec::new()),
            (a, b) => Self::made(
                Text::Unknown,
                taint,
                joined(parts(a, self.known), parts(b, next.known)),
            ),
        }
    }

    /// A flow of `text`, its known parts kept when the text is unknown.
    fn made(text: Text, taint: Taint, known: Vec<String>) -> Self {
        match text {
            Text::Unknown => Self {
                text,
                taint: taint.union(Taint::OPAQUE),
                known,
            },
            text => Self {
                text,
                taint,
                known: Vec::new(),
            },
        }
    }
}

/// The known parts of a text: all of a literal, the known parts of an
/// unknown text, none of another.
fn parts(text: Text, known: Vec<String>) -> Vec<String> {
    match text {
        Text::Literal(text) if !text.is_empty() => vec![text],
        Text::Unknown => known,
        Text::Literal(_) | Text::Inherited | Text::File => Vec::new(),
    }
}

/// The known parts `a` and then `b`, within [`MAX_KNOWN_PARTS`] and
/// [`MAX_LITERAL_BYTES`] together (the rest dropped: only known at run
/// time).
fn joined(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    let mut bytes: usize = a.iter().map(String::len).sum();
    for part in b {
        bytes += part.len();
        if a.len() >= MAX_KNOWN_PARTS || bytes > MAX_LITERAL_BYTES {
            break;
        }
        a.push(part);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_concatenate_literals_and_keep_taint() {
        let a = Flow::literal("a\n".into()).then(Flow::literal("b\n".into()));
        assert_eq!(a.literal_text(), Some("a\nb\n"));
        let download = Flow::tainted(Taint::DOWNLOAD);
        let mixed = Flow::empty().then(download);
        assert!(mixed.taint.download());
        assert_eq!(mixed.text, Text::Unknown);
        assert_eq!(Flow::file().then(Flow::file()).text, Text::File);
        assert_eq!(Flow::empty().then(Flow::file()).text, Text::File);
        assert_eq!(Flow::file().then(Flow::unknown()).text, Text::Unknown);
    }

    #[test]
    fn unknown_text_keeps_its_known_parts() {
        let text = |t: &str| Flow::literal(t.into());
        let mixed = Flow::unknown()
            .then(text("a\n"))
            .then(Flow::unknown())
            .then(text("b\n"));
        assert_eq!(mixed.text, Text::Unknown);
        assert_eq!(mixed.known, ["a\n", "b\n"]);
        let either = text("c\n").either(mixed.clone());
        assert_eq!(either.known, ["c\n", "a\n", "b\n"]);
        assert_eq!(Flow::file().then(text("d")).known, ["d"]);
        assert!(mixed.then(text("e")).known.len() == 3);
    }
}
