//! The shell parser: brush-parser, behind a guard against input that would
//! exhaust its stack. Every text the engine runs as code goes through here,
//! the top-level command and each substitution, `-c` string, here-document
//! and `eval` argument alike.

use brush_parser::ast::Program;
use brush_parser::{Parser, ParserOptions};

/// Deepest bracket nesting a text may have before parsing. brush-parser
/// recurses once or more per level; a few thousand levels overflow a thread's
/// stack. No command written for a person nests anywhere near this.
pub(super) const MAX_NESTING: usize = 100;

/// Most `(` a text may have beyond its `)`. brush-parser backtracks
/// exponentially on a run of unclosed parentheses (each may open a subshell
/// or an arithmetic command); such text is a syntax error in bash anyway.
pub(super) const MAX_UNCLOSED_PARENS: usize = 12;

/// Why a text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
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
pub(super) fn parse(text: &str) -> Result<Program, Failure> {
    if nesting(text) > MAX_NESTING {
        return Err(Failure::TooDeep);
    }
    let opens = text.bytes().filter(|b| *b == b'(').count();
    let closes = text.bytes().filter(|b| *b == b')').count();
    if opens > closes + MAX_UNCLOSED_PARENS {
        return Err(Failure::Syntax("unbalanced parentheses".into()));
    }
    if empty_heredoc_delimiter(text) {
        // With an empty delimiter and a comment after it, brush-parser's
        // tokenizer never ends and grows without bound.
        return Err(Failure::Syntax(
            "here-document with an empty delimiter".into(),
        ));
    }
    if huge_fd(text) {
        // brush-parser unwraps a redirection's descriptor number as an i32.
        return Err(Failure::Syntax(
            "file descriptor number out of range".into(),
        ));
    }
    let options = ParserOptions::default();
    let mut parser = Parser::new(text.as_bytes(), &options);
    parser
        .parse_program()
        .map_err(|e| Failure::Syntax(first_line(&e.to_string())))
}

/// The deepest nesting of `(`, `{` and `[` in `text`, quotes ignored: an
/// upper bound of what the parser will recurse through, cheap to compute.
pub(super) fn nesting(text: &str) -> usize {
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

/// A here-document whose delimiter comes out empty (`<<""`, `<<-''`,
/// `<<\`, a delimiter of form feeds): brush-parser trims the delimiter's
/// leading ASCII whitespace and drops its quotes, and with nothing left its
/// tokenizer can loop without end.
fn empty_heredoc_delimiter(text: &str) -> bool {
    text.match_indices("<<").any(|(at, _)| {
        let rest = text.get(at + 2..).unwrap_or_default();
        if rest.starts_with('<') {
            return false;
        }
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '\t']);
        let word: String = rest
            .chars()
            .take_while(|c| {
                !matches!(
                    c,
                    ' ' | '\t' | '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>'
                )
            })
            .collect();
        word.trim_start_matches(|c: char| c.is_ascii_whitespace())
            .chars()
            .all(|c| matches!(c, '"' | '\'' | '\\'))
    })
}

/// A run of ten or more digits right before `<` or `>`.
fn huge_fd(text: &str) -> bool {
    let mut digits = 0;
    for byte in text.bytes() {
        match byte {
            b'0'..=b'9' => digits += 1,
            b'<' | b'>' if digits >= 10 => return true,
            _ => digits = 0,
        }
    }
    false
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
        assert!(matches!(
            parse("99999999999999999999>x"),
            Err(Failure::Syntax(_))
        ));
        assert!(parse("echo 2>&1 123>x").is_ok());
        for empty in ["<<\"\"(#", "cat <<'' >f", "cat <<- \"\"\"\" x", "<<''"] {
            assert!(matches!(parse(empty), Err(Failure::Syntax(_))), "{empty}");
        }
        assert!(parse("cat <<'EOF'\nx\nEOF").is_ok());
        assert!(parse("cat <<<\"\"").is_ok());
        assert_eq!(nesting("a (b) {c [d]}"), 2);
        assert_eq!(nesting(")))((("), 3);
    }
}
