//! [`Arg`]: one word of a command after the expansions the engine can do
//! without running anything, and what it knows about the rest.

use compact_str::CompactString;

/// Where the unknown parts of a word (or of text on a pipe) came from: the
/// output of a download, of a decoder, or of something the engine cannot see.
/// One byte of flags, as every word carries one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Taint(u8);

impl Taint {
    /// Holds output of curl, wget, nc and the like.
    pub(super) const DOWNLOAD: Self = Self(1);
    /// Holds output of base64 -d, xxd -r and the like.
    pub(super) const DECODE: Self = Self(2);
    /// Holds text only known at run time ($VAR, $(cmd) of an unknown cmd).
    pub(super) const OPAQUE: Self = Self(4);

    pub(super) fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    fn has(self, flag: Self) -> bool {
        self.0 & flag.0 != 0
    }

    pub(super) fn download(self) -> bool {
        self.has(Self::DOWNLOAD)
    }

    pub(super) fn decode(self) -> bool {
        self.has(Self::DECODE)
    }

    pub(super) fn opaque(self) -> bool {
        self.has(Self::OPAQUE)
    }

    /// Download or decoder output: never acceptable as code.
    pub(super) fn is_hostile(self) -> bool {
        self.download() || self.decode()
    }
}

/// One expanded word.
///
/// A megabyte command line holds half a million of them (benches/README.md,
/// figure 14), and touching their memory for the first time was a third of
/// its judging time: so the text of up to 24 bytes lives inline (most words
/// have no allocation of their own), the rare `content` is one pointer wide
/// and the rest packs into 8 bytes: 40 bytes a word in all, down from 64
/// and a heap string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Arg {
    /// The value where known; unknown parts keep their source spelling
    /// (`$X`, `$(cmd)`), and `$HOME` reads as `~`.
    pub text: CompactString,
    /// True when no part of the value depends on run time.
    pub exact: bool,
    /// True when the value holds unquoted glob characters (`*`, `?`, `[`).
    pub glob: bool,
    /// Byte offset in `text` just past the last unknown part (0 if none):
    /// a `/` after it means the file name at the end is known. Four bytes
    /// (see [`offset`]): a judged line is at most 1 MiB.
    pub known_from: u32,
    pub taint: Taint,
    /// For `<(cmd)`: what cmd prints, when it is known literal text.
    #[allow(
        clippy::box_collection,
        reason = "one pointer wide: most words have none"
    )]
    pub content: Option<Box<String>>,
}

impl Arg {
    /// A literal word (tests and derived values).
    pub(super) fn literal(text: &str) -> Self {
        Self {
            text: text.into(),
            exact: true,
            ..Self::default()
        }
    }

    /// A value only known at run time, spelled `source` (`$X`, `$(cmd)`).
    pub(super) fn unknown(source: &str, taint: Taint) -> Self {
        Self {
            text: source.into(),
            exact: false,
            glob: false,
            known_from: offset(source.len()),
            taint,
            content: None,
        }
    }

    /// Literal text that came out of a substitution: exact, but a glob
    /// pattern where it holds glob characters.
    pub(super) fn derived(text: &str) -> Self {
        Self {
            glob: crate::word::is_pattern(text),
            ..Self::literal(text)
        }
    }

    /// The text if it is fully known.
    pub(super) fn exact_text(&self) -> Option<&str> {
        self.exact.then_some(self.text.as_str())
    }

    /// [`Self::known_from`] as an index into the text.
    pub(super) fn known_at(&self) -> usize {
        self.known_from as usize
    }

    /// True for a known word equal to `text`.
    pub(super) fn is(&self, text: &str) -> bool {
        self.exact && self.text == text
    }
}

/// A byte offset as [`Arg::known_from`] keeps it. One past 4 GiB (never
/// reached: the judge reads at most 1 MiB) saturates, which reads as "the
/// whole word is unknown", the cautious side.
pub(super) fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The words as a person would retype them: joined by spaces, a word with
/// spaces or shell characters in single quotes.
pub(super) fn display(words: &[Arg]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&quote(&word.text, word.exact));
    }
    out
}

fn quote(text: &str, exact: bool) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%^~{}*?[]".contains(c);
    if !text.is_empty() && (!exact || text.chars().all(plain)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The words joined by single spaces, as `echo` prints them.
pub(super) fn display_plain(words: &[Arg]) -> String {
    let mut out = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&word.text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size the doc comment of [`Arg`] promises, where pointers are
    /// 8 bytes.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_word_stays_small() {
        assert_eq!(std::mem::size_of::<Arg>(), 40);
    }

    #[test]
    fn display_quotes_only_where_needed() {
        let words = [
            Arg::literal("rm"),
            Arg::literal("-rf"),
            Arg::literal("a b"),
            Arg::literal("it's"),
            Arg::literal(""),
        ];
        assert_eq!(display(&words), r"rm -rf 'a b' 'it'\''s' ''");
        let dynamic = Arg {
            text: "$(x y)".into(),
            ..Arg::default()
        };
        assert_eq!(display(&[dynamic]), "$(x y)");
    }
}
