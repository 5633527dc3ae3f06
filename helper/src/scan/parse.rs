//! The shell parser: brush-parser, behind a guard against input that would
//! exhaust its stack. Every text the engine runs as code goes through here,
//! the top-level command and each substitution, `-c` string, here-document
//! and `eval` argument alike.

use brush_parser::ast::Program;
use brush_parser::{Parser, ParserOptions};

/// Deepest bracket nesting a text may have before parsing. brush-parser
/// recurses once or more per level; a few thousand levels overflow a thread's
/// stack. No command written for a person nests anywhere near this.
pub const MAX_NESTING: usize = 100;

/// Why a text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Brackets nested deeper than [`MAX_NESTING`].
    TooDeep,
    /// The parser's own message.
    Syntax(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooDeep => write!(f, "brackets nested more than {MAX_NESTING} deep"),
            Self::Syntax(message) => write!(f, "not valid shell syntax ({message})"),
        }
    }
}

/// Parses `text` as a bash program.
pub fn parse(text: &str) -> Result<Program, Failure> {
    if nesting(text) > MAX_NESTING {
        return Err(Failure::TooDeep);
    }
    let options = ParserOptions::default();
    let mut parser = Parser::new(text.as_bytes(), &options);
    parser
        .parse_program()
        .map_err(|e| Failure::Syntax(first_line(&e.to_string())))
}

/// The deepest nesting of `(`, `{` and `[` in `text`, quotes ignored: an
/// upper bound of what the parser will recurse through, cheap to compute.
pub fn nesting(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut deepest = 0;
    for byte in text.bytes() {
        match byte {
            b'(' | b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(160)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fails_closed_and_refuses_deep_nesting() {
        assert!(parse("rm -rf / && echo ok").is_ok());
        assert!(matches!(
            parse("echo \"unterminated"),
            Err(Failure::Syntax(_))
        ));
        let deep = format!("{}x{}", "$(".repeat(200), ")".repeat(200));
        assert!(matches!(parse(&deep), Err(Failure::TooDeep)));
        assert_eq!(nesting("a (b) {c [d]}"), 2);
        assert_eq!(nesting(")))((("), 3);
    }
}
