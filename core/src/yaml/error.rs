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
}
