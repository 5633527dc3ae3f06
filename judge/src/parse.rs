//! The shell parser: brush-parser, behind a guard against input that would
//! exhaust its stack. Every text the engine runs as code goes through here,
//! the top-level command and each substitution, `-c` string, here-document
//! and `eval` argument alike.

use brush_parser::ast::Program;
use brush_parser::{ParserOptions, Token, parse_tokens, uncached_tokenize_str};

/// Deepest bracket nesting a text may have before parsing. brush-parser
/// recurses once or more per level; a few thousand levels overflow a thread's
/// stack. No command written for a person nests anywhere near this.
pub(super) const MAX_NESTING: usize = 100;

/// Most `(` a text may have beyond its `)`. brush-parser backtracks
/// exponentially on a run of unclosed parentheses (each may open a subshell
/// or an arithmetic command); such text is a syntax error in bash anyway.
pub(super) const MAX_UNCLOSED_PARENS: usize = 12;

/// Longest text brush-parser is handed whatever it holds. Its syntax tree
/// takes up to some 600 bytes of memory per byte of input (`x=1;`
/// repeated), so this keeps any judgement within the hook's memory budget
/// of 256 MiB. Longer text is parsed when it is all plain words
/// ([`crate::plain`], about 75 bytes per byte), or when it has at most
/// [`MAX_LONG_TOKENS`] tokens (a long here-document is one), up to
/// [`crate::engine::MAX_COMMAND_BYTES`]. No command a person or an agent
/// types comes near it: Linux hands `bash -c` at most 128 KiB as one
/// argument.
pub(super) const MAX_PARSED_BYTES: usize = 256 << 10;

/// Most tokens a text longer than [`MAX_PARSED_BYTES`] may have.
pub(super) const MAX_LONG_TOKENS: usize = 32 << 10;

/// Why a text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Brackets nested deeper than [`MAX_NESTING`].
    TooDeep,
    /// Longer than [`MAX_PARSED_BYTES`], not plain words alone, and more
    /// than [`MAX_LONG_TOKENS`] tokens.
    TooLarge,
    /// The parser's own message.
    Syntax(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooDeep => write!(f, "brackets nested more than {MAX_NESTING} deep"),
            Self::TooLarge => write!(
                f,
                "longer than {} KiB with more than {} words and operators",
                MAX_PARSED_BYTES >> 10,
                MAX_LONG_TOKENS
            ),
            Self::Syntax(message) => write!(f, "not valid shell syntax ({message})"),
        }
    }
}

/// Shortest text for which the plain-subset parser ([`crate::plain`]) is
/// tried first: below it brush-parser is fast enough, and every command a
/// person writes takes the one path.
pub(super) const PLAIN_MIN_BYTES: usize = 4096;

/// A parsed text: brush-parser's syntax tree, or the plain lists of a long
/// text in the subset [`crate::plain`] reads.
#[derive(Debug)]
pub(super) enum Parsed {
    Tree(Program),
    Plain(Vec<crate::plain::PlainList>),
}

/// Parses `text` as a bash program.
pub(super) fn parse(text: &str) -> Result<Parsed, Failure> {
    if text.len() >= PLAIN_MIN_BYTES
        && let Some(lists) = crate::plain::parse(text)
    {
        return Ok(Parsed::Plain(lists));
    }
    parse_with_brush(text).map(Parsed::Tree)
}

/// Parses `text` with brush-parser (also the criteria runner's reader of
/// the commands it may run).
pub fn parse_with_brush(text: &str) -> Result<Program, Failure> {
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
    let tokens = uncached_tokenize_str(text, &options.tokenizer_options())
        .map_err(|e| Failure::Syntax(first_line(&e.to_string())))?;
    if text.len() > MAX_PARSED_BYTES && tokens.len() > MAX_LONG_TOKENS {
        return Err(Failure::TooLarge);
    }
    let closed = rewrite_for_parser(&tokens);
    let parsed = parse_tokens(closed.as_deref().unwrap_or(&tokens), &options);
    match parsed {
        // The rewrite can only help: should it ever trip the parser, the
        // tokens as written decide.
        Err(_) if closed.is_some() => parse_tokens(&tokens, &options),
        other => other,
    }
    .map_err(|e| Failure::Syntax(first_line(&e.to_string())))
}

/// The tokens as brush-parser reads them best, or `None` when none needs
/// changing. Two rewrites, neither of which changes what bash would run:
///
/// `select NAME` becomes `for NAME`. brush-parser 0.4 has no `select`
/// compound and rejected the valid `select x in a b; do …; done`; for
/// judging, the two are one: the body runs with NAME set to one of the words
/// (which one, the user picks at run time; `for` tries each).
///
/// A `;;` goes before every `esac` that closes a case whose last item has
/// none.
/// brush-parser reads the body of an item without `;;` twice: once as an
/// item that must end in `;;`, which fails at the `esac`, then as the last
/// item, which may end without. A case nested in that body is read twice on
/// each of those reads, so the cost doubles with each level (18 levels took
/// 0.6 s, 23 met the watchdog). For bash the `;;` before `esac` changes
/// nothing, and with it each body is read once.
///
/// `case` and `esac` count as keywords only where a command may start, as
/// bash has it, so `echo esac` is left alone.
///
/// `{NAME[N]}>&-` (a descriptor kept in an array element, as `coproc`
/// makes them: `exec {COPROC[1]}>&-`) becomes `{NAME}>&-`. brush-parser
/// reads neither as a redirection's variable, but `{NAME}` is a plain
/// word, where the subscript made a glob the engine must take for a
/// command computed at run time. A subscript of digits only evaluates
/// nothing, so nothing bash would run is lost.
fn rewrite_for_parser(tokens: &[Token]) -> Option<Vec<Token>> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut open_cases = 0usize;
    let mut inserted = false;
    for (i, token) in tokens.iter().enumerate() {
        if let Token::Word(word, span) = token
            && let Some(name) = descriptor_element(word)
            && matches!(tokens.get(i + 1), Some(Token::Operator(op, next))
                if op.starts_with(['<', '>']) && span.end.index == next.start.index)
        {
            out.push(Token::Word(format!("{{{name}}}"), span.clone()));
            inserted = true;
            continue;
        }
        if let Token::Word(word, span) = token
            && word == "select"
            && starts_command(out.last())
            && matches!(tokens.get(i + 1), Some(Token::Word(name, _)) if is_name(name))
        {
            out.push(Token::Word("for".to_owned(), span.clone()));
            inserted = true;
            continue;
        }
        // `case x in esac` is a case with no items.
        let after_in = matches!(out.last(), Some(Token::Word(w, _)) if w == "in");
        if let Token::Word(word, span) = token
            && (starts_command(out.last()) || (after_in && word == "esac"))
        {
            if word == "case" {
                open_cases += 1;
            } else if word == "esac" && open_cases > 0 {
                open_cases -= 1;
                let before = out
                    .iter()
                    .rev()
                    .find(|t| !matches!(t, Token::Operator(op, _) if op == "\n"));
                let ended = matches!(
                    before,
                    Some(Token::Operator(op, _)) if matches!(op.as_str(), ";;" | ";&" | ";;&")
                ) || matches!(before, Some(Token::Word(w, _)) if w == "in");
                if !ended {
                    out.push(Token::Operator(";;".to_owned(), span.clone()));
                    inserted = true;
                }
            }
        }
        out.push(token.clone());
    }
    inserted.then_some(out)
}

/// NAME of `{NAME[N]}`, an array element of digits only.
fn descriptor_element(word: &str) -> Option<&str> {
    let inner = word.strip_prefix('{')?.strip_suffix("]}")?;
    let (name, index) = inner.split_once('[')?;
    (is_name(name) && !index.is_empty() && index.chars().all(|c| c.is_ascii_digit()))
        .then_some(name)
}

/// A shell variable name: a letter or `_`, then letters, digits or `_`.
fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a word after `previous` stands where a command may start: first,
/// after an operator that ends or joins commands, after a case pattern's `)`,
/// or after a keyword that opens a body.
fn starts_command(previous: Option<&Token>) -> bool {
    match previous {
        None => true,
        Some(Token::Operator(op, _)) => matches!(
            op.as_str(),
            "\n" | ";" | ";;" | ";&" | ";;&" | "&" | "&&" | "||" | "|" | "|&" | "(" | ")"
        ),
        Some(Token::Word(word, _)) => matches!(
            word.as_str(),
            "then" | "else" | "elif" | "do" | "if" | "while" | "until" | "!" | "{" | "}" | "time"
        ),
    }
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

    fn words(text: &str) -> Vec<String> {
        let tokens = uncached_tokenize_str(text, &ParserOptions::default().tokenizer_options())
            .unwrap_or_default();
        rewrite_for_parser(&tokens)
            .unwrap_or(tokens)
            .iter()
            .map(|t| t.to_str().to_owned())
            .filter(|t| t != "\n")
            .collect()
    }

    #[test]
    fn a_last_case_item_gets_its_terminator_and_nothing_else_changes() {
        assert_eq!(
            words("case $a in x) rm -rf / ; esac"),
            [
                "case", "$a", "in", "x", ")", "rm", "-rf", "/", ";", ";;", "esac"
            ]
        );
        assert_eq!(
            words("case $a in x) ls\nesac"),
            ["case", "$a", "in", "x", ")", "ls", ";;", "esac"]
        );
        for unchanged in [
            "case $a in x) ls;; esac",
            "case $a in x) ls;& y) ls;;& esac",
            "case $a in esac",
            "echo case esac",
            "echo esac; ls",
            "for esac in a; do ls; done",
        ] {
            let tokens =
                uncached_tokenize_str(unchanged, &ParserOptions::default().tokenizer_options())
                    .unwrap_or_default();
            assert!(rewrite_for_parser(&tokens).is_none(), "{unchanged}");
        }
    }

    #[test]
    fn nested_cases_parse_once_per_level() {
        // 40 levels took years before the rewrite (each level doubled).
        let depth = 40;
        let nested = format!(
            "{}rm -rf /{}",
            "case $x in a) ".repeat(depth),
            "; esac".repeat(depth)
        );
        assert!(parse(&nested).is_ok());
        let mixed = format!(
            "{}ls{}",
            "case $x in a) ls;; b) ".repeat(depth),
            "\nesac".repeat(depth)
        );
        assert!(parse(&mixed).is_ok());
    }

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
            words("select x in a; do echo 'select y in b'; done"),
            [
                "for",
                "x",
                "in",
                "a",
                ";",
                "do",
                "echo",
                "'select y in b'",
                ";",
                "done"
            ]
        );
        assert_eq!(words("echo select x"), ["echo", "select", "x"]);
        assert_eq!(words("select 'x' in a"), ["select", "'x'", "in", "a"]);
        assert_eq!(words("my_select x"), ["my_select", "x"]);
    }

    /// A descriptor kept in an array element, as `coproc` makes them, is
    /// read as one kept in a variable; other words stay as written.
    #[test]
    fn a_descriptor_in_an_array_element_reads_as_a_variable() {
        assert_eq!(
            words("exec {COPROC[1]}>&-"),
            ["exec", "{COPROC}", ">&", "-"]
        );
        assert_eq!(
            words("read <&\"${COPROC[0]}\""),
            ["read", "<&", "\"${COPROC[0]}\""]
        );
        assert_eq!(words("echo {a[1]} >x"), ["echo", "{a[1]}", ">", "x"]);
        assert_eq!(words("exec {a[$i]}>&-")[1], "{a[$i]}");
        assert_eq!(words("exec {a[]}>&-")[1], "{a[]}");
    }
}
