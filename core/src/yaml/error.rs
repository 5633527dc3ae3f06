//! [`YamlError`]: why a YAML document could not be read, and where.

use std::fmt;

/// The parser's sentence and the place in the file it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// One line, without the source excerpt the parser draws: callers show
    /// `file:line` instead.
    pub message: String,
    /// 1-based line of the file, when the parser knows it.
    pub line: Option<u32>,
    /// 1-based column, when the parser knows it.
    pub column: Option<u32>,
}

impl YamlError {
    /// Maps the parser's error; `first_line` is the file line the YAML
    /// text starts on.
    pub fn from_parser(error: &serde_saphyr::Error, first_line: u32) -> Self {
        // A location of line 0 is the parser saying it has none.
        let location = error.location().filter(|l| l.line() > 0);
        let line = location.map(|l| {
            let line = u32::try_from(l.line()).unwrap_or(u32::MAX);
            line.saturating_add(first_line.saturating_sub(1))
        });
        let column = location
            .map(|l| l.column())
            .filter(|c| *c > 0)
            .map(|c| u32::try_from(c).unwrap_or(u32::MAX));
        Self {
            message: message(&error.to_string(), line),
            line,
            column,
        }
    }
}

impl YamlError {
    /// Names a tab in the indentation as the cause, when one is where the
    /// parser stopped. YAML indents with spaces only, and the parser's
    /// sentence for a tab depends on what it was reading ("did not find
    /// expected key", "found a tab"), on the line before the tab's as often
    /// as on its own. `lines` are the YAML's lines as written, each with its
    /// line in the file: a line indented with a tab on the line the parser
    /// names or the next is the cause (a tab further off, as in a flow
    /// list, is legal and is left alone).
    #[must_use]
    pub fn blame_tab<'a>(self, lines: impl IntoIterator<Item = (u32, &'a str)>) -> Self {
        let Some(stopped) = self.line else {
            return self;
        };
        let tab = lines
            .into_iter()
            .skip_while(|(n, _)| *n < stopped)
            .take_while(|(n, _)| *n <= stopped.saturating_add(1))
            .find_map(|(n, text)| tab_indent(text).map(|column| (n, column)));
        match tab {
            Some((line, column)) => Self {
                message: format!(
                    "line {line} column {column}: a tab indents this line, and YAML allows only spaces in indentation; indent it with spaces"
                ),
                line: Some(line),
                column: Some(column),
            },
            None => self,
        }
    }
}

/// The 1-based column of a tab in `line`'s indentation (the blanks before
/// its first other character), for a line with content that is no comment.
fn tab_indent(line: &str) -> Option<u32> {
    let content = line.trim_start_matches([' ', '\t']);
    if content.is_empty() || content.starts_with('#') {
        return None;
    }
    let indent = line.get(..line.len() - content.len())?;
    let at = indent.find('\t')?;
    u32::try_from(at + 1).ok()
}

/// `text`'s lines, each with its line in the file (`first_line` the first).
pub(super) fn numbered(text: &str, first_line: u32) -> impl Iterator<Item = (u32, &str)> {
    (first_line..).zip(text.lines())
}

/// The parser's message as one line: its first line (the rest is a drawn
/// excerpt that callers replace with `file:line`), without the `error:`
/// prefix, and with the line it names made a line of the file (the parser
/// counts from the start of the YAML text, which for a front matter or a
/// fenced manifest is not the start of the file).
fn message(text: &str, file_line: Option<u32>) -> String {
    let first = text.lines().next().unwrap_or_default();
    let first = first.split(" --> ").next().unwrap_or(first);
    let first = first.trim().trim_start_matches("error:").trim();
    match (located(first), file_line) {
        (Some((column, sentence)), Some(line)) => {
            format!("line {line} column {column}: {sentence}")
        }
        _ => first.to_owned(),
    }
}

/// `line L column C: sentence` → (C, sentence).
fn located(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(" column ")?;
    let (column, sentence) = rest.split_once(": ")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(line) && digits(column)).then_some((column, sentence))
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for YamlError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_with_the_file_line() {
        let e = crate::yaml::from_str_at::<serde_json::Value>("a: x\nb: [\n", 10).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line, e.column),
            ("line 11 column 4: unclosed bracket '['", Some(11), Some(4))
        );
        let e = crate::yaml::from_str::<serde_json::Value>("a: 1\na: 2\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.message
                .starts_with("line 2 column 1: duplicate mapping key"),
            "{e}"
        );
        assert_eq!(message("something else\n --> x", Some(3)), "something else");
        assert_eq!(
            message("error: line 9 column 2: odd", None),
            "line 9 column 2: odd"
        );
    }

    #[test]
    fn a_tab_in_the_indentation_is_named_with_its_line() {
        let said = |text: &str| {
            crate::yaml::parse_at(text, 10)
                .err()
                .map(|e| (e.message, e.line, e.column))
        };
        let tab = |line: u32, column: u32| {
            Some((
                format!(
                    "line {line} column {column}: a tab indents this line, and YAML allows only spaces in indentation; indent it with spaces"
                ),
                Some(line),
                Some(column),
            ))
        };
        // The parser stops on the tab's line, or on the line before it.
        assert_eq!(said("a: 1\n\tb: 2\n"), tab(11, 1));
        assert_eq!(said("a:\n\t- x\n"), tab(11, 1));
        assert_eq!(said("a:\n  b: 1\n \tc: 2\n"), tab(12, 2));
        assert_eq!(said("a: |\n\thello\n"), tab(11, 1));
        // Legal tabs, and a tab far from an error of its own, are left alone.
        assert_eq!(said("a:\t1\nb: [1,\n\t2]\n"), None);
        let other = said("a: [1\nb: 2\nc:\n\td: 1\n").unwrap();
        assert!(!other.0.contains("tab"), "{other:?}");
        // The lines as written can be given by a caller that holds them.
        let e = YamlError {
            message: "line 22 column 3: while parsing a block mapping, did not find expected key"
                .into(),
            line: Some(22),
            column: Some(3),
        };
        let blamed = e.blame_tab([(21, "  a: 1"), (22, "\tb: 2")]);
        assert_eq!((blamed.line, blamed.column), (Some(22), Some(1)));
        assert!(
            blamed
                .message
                .starts_with("line 22 column 1: a tab indents")
        );
    }
}
