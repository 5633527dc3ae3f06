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
    let text = select_as_for(text);
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

/// `text` with each `select NAME` in command position spelled `for` (and
/// three spaces, so offsets stay put). brush-parser 0.4 has no `select`
/// compound, and rejected the valid `select x in a b; do …; done`; for
/// judging, the two are one: the body runs with NAME set to one of the
/// words (which one, the user picks at run time; `for` tries each). Quoted
/// text is left alone; in a comment or a here-document the rewrite changes
/// nothing that is judged, and where such text is run as code it is right.
fn select_as_for(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("select") {
        return text.into();
    }
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let (mut single, mut double, mut escaped) = (false, false, false);
    // Whether a command may start here: at the start, after a separator,
    // or after a reserved word that opens a body.
    let mut command_start = true;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if escaped {
            escaped = false;
        } else if single {
            single = byte != b'\'';
        } else if byte == b'\\' {
            escaped = true;
        } else if double {
            double = byte != b'"';
        } else if byte == b'\'' {
            single = true;
        } else if byte == b'"' {
            double = true;
        } else if command_start && bytes.get(i..).is_some_and(is_select) {
            out.splice(i..i + 6, *b"for   ");
            i += 6;
            command_start = false;
            continue;
        }
        if !single && !double && !escaped {
            if b";&|(){}\n".contains(&byte) {
                command_start = true;
            } else if byte.is_ascii_alphanumeric() || byte == b'_' {
                let word_end = bytes
                    .get(i..)
                    .and_then(|rest| {
                        rest.iter()
                            .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    })
                    .map_or(bytes.len(), |n| i + n);
                let word = bytes.get(i..word_end).unwrap_or_default();
                command_start = matches!(word, b"do" | b"then" | b"else" | b"elif" | b"time");
                i = word_end;
                continue;
            } else if !matches!(byte, b' ' | b'\t' | b'!') {
                command_start = false;
            }
        }
        i += 1;
    }
    String::from_utf8(out).map_or_else(|_| text.into(), Into::into)
}

/// `select` followed by blanks and a name, at the start of `rest`.
fn is_select(rest: &[u8]) -> bool {
    let Some(after) = rest.strip_prefix(b"select") else {
        return false;
    };
    let name = after.trim_ascii_start();
    after.len() > name.len()
        && !after.starts_with(b"\n")
        && name
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
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

    #[test]
    fn select_parses_as_for() {
        for text in [
            "select x in a b; do echo $x; done",
            "select x; do break; done",
            "if true; then select f in *.txt\ndo cat \"$f\"; break; done; fi",
            "PS3='? '; select opt in yes no; do echo $opt; break; done",
        ] {
            assert!(parse(text).is_ok(), "{text}");
        }
        assert_eq!(
            select_as_for("select x in a; do echo 'select y in b'; done"),
            "for    x in a; do echo 'select y in b'; done"
        );
        assert_eq!(select_as_for("echo select x"), "echo select x");
        assert_eq!(select_as_for("selectx in a"), "selectx in a");
        assert_eq!(select_as_for("my_select x"), "my_select x");
    }
}
