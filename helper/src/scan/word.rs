//! Expanding a shell word the way bash would, as far as that is possible
//! without running anything: quotes and escapes removed, `$'…'` decoded,
//! braces expanded, `~` and `$HOME` read as home, and each command
//! substitution judged as code and, where it only prints literals
//! (`$(echo rm)`), replaced by what it prints. Whatever depends on run time
//! stays visible in the [`Arg`] as not exact.

use brush_parser::ParserOptions;
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr, TildeExpr,
    WordPiece, WordPieceWithSource,
};

use super::arg::{Arg, Taint};
use super::flow::Flow;
use super::rule;
use super::scanner::Scanner;

/// Most words one brace expression may expand to; the rest are dropped.
pub(super) const MAX_BRACE_WORDS: usize = 64;
/// Most `{` in a word that is brace-expanded. brush-parser's brace grammar
/// backtracks exponentially on runs of unbalanced braces; real brace
/// expressions have one or two.
pub(super) const MAX_BRACES: usize = 6;

/// Builds one word from its pieces.
#[derive(Debug, Default)]
struct Builder {
    text: String,
    exact: bool,
    glob: bool,
    known_from: usize,
    taint: Taint,
    /// An unquoted substitution added text: split the result on blanks.
    split: bool,
}

impl Builder {
    fn new() -> Self {
        Self {
            exact: true,
            ..Self::default()
        }
    }

    fn known(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn unknown(&mut self, source: &str, taint: Taint) {
        self.text.push_str(source);
        self.exact = false;
        self.known_from = self.text.len();
        self.taint = self.taint.union(taint);
    }

    fn finish(self) -> Vec<Arg> {
        let one = |text: &str| Arg {
            text: text.to_owned(),
            exact: self.exact,
            glob: self.glob || (self.split && is_pattern(text)),
            known_from: if self.exact { 0 } else { self.known_from },
            taint: self.taint,
            content: None,
        };
        if self.split {
            self.text.split_whitespace().map(one).collect()
        } else {
            vec![one(&self.text)]
        }
    }
}

impl Scanner<'_> {
    /// The fields `word` (its source text) expands to.
    pub(super) fn expand(&mut self, word: &str) -> Vec<Arg> {
        brace_alternatives(word)
            .iter()
            .flat_map(|alternative| self.expand_one(alternative))
            .collect()
    }

    /// The text of a here-document body, with the substitutions of an
    /// unquoted one judged.
    pub(super) fn expand_heredoc(&mut self, body: &str, expands: bool) -> Arg {
        if !expands {
            return Arg::literal(body);
        }
        let mut builder = Builder::new();
        match word::parse_heredoc(body, &ParserOptions::default()) {
            Ok(pieces) => self.pieces(body, &pieces, true, &mut builder),
            Err(_) => self.unparsable_word(body, &mut builder),
        }
        // The body is one piece of text: never split or globbed.
        builder.split = false;
        builder.glob = false;
        builder.finish().into_iter().next().unwrap_or_default()
    }

    /// Judges the substitutions in `text` (a default value, an arithmetic
    /// expression, an array index), whose value does not matter.
    pub(super) fn embedded(&mut self, text: &str) {
        if !text.contains(['$', '`']) {
            return;
        }
        let mut builder = Builder::new();
        match parse_word(text) {
            Some(pieces) => self.pieces(text, &pieces, false, &mut builder),
            None => self.unparsable_word(text, &mut builder),
        }
    }

    fn expand_one(&mut self, raw: &str) -> Vec<Arg> {
        let mut builder = Builder::new();
        if is_plain(raw) {
            // What brush-parser's word parser would return (one text piece,
            // no glob), without its cost: most words of a long line are such.
            builder.known(raw);
            return builder.finish();
        }
        match parse_word(raw) {
            Some(pieces) => self.pieces(raw, &pieces, false, &mut builder),
            None => self.unparsable_word(raw, &mut builder),
        }
        builder.finish()
    }

    fn unparsable_word(&mut self, raw: &str, builder: &mut Builder) {
        if raw.contains("$(") || raw.contains('`') {
            self.report_text(
                &rule::UNSCANNABLE,
                raw,
                "a word with a substitution the parser cannot read".into(),
            );
        }
        builder.unknown(raw, Taint::OPAQUE);
    }

    fn pieces(&mut self, raw: &str, pieces: &[WordPieceWithSource], quoted: bool, b: &mut Builder) {
        for piece in pieces {
            let source = raw.get(piece.start_index..piece.end_index).unwrap_or("$?");
            match &piece.piece {
                WordPiece::Text(text) => {
                    if !quoted && is_pattern(text) {
                        b.glob = true;
                    }
                    b.known(text);
                }
                WordPiece::SingleQuotedText(text) => b.known(text),
                WordPiece::AnsiCQuotedText(text) => match ansi_c(text) {
                    Some(decoded) => b.known(&decoded),
                    None => b.unknown(source, Taint::OPAQUE),
                },
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(raw, inner, true, b);
                }
                WordPiece::TildeExpansion(tilde) => match tilde {
                    TildeExpr::Home => b.known("~"),
                    TildeExpr::UserHome(user) => b.known(&format!("~{user}")),
                    TildeExpr::WorkingDir
                    | TildeExpr::OldWorkingDir
                    | TildeExpr::NthDirFromTopOfDirStack { .. }
                    | TildeExpr::NthDirFromBottomOfDirStack { .. } => {
                        b.unknown(source, Taint::default());
                    }
                },
                WordPiece::ParameterExpansion(expr) => {
                    self.parameter(expr);
                    if is_home(expr) {
                        b.unknown("~", Taint::default());
                    } else {
                        b.unknown(source, Taint::OPAQUE);
                    }
                }
                WordPiece::CommandSubstitution(body)
                | WordPiece::BackquotedCommandSubstitution(body) => {
                    let flow = self.nested(body, "$(...)", &Flow::inherited());
                    match flow.literal_text() {
                        Some(out) if flow.taint == Taint::default() => {
                            b.known(out.trim_end_matches('\n'));
                            if !quoted {
                                b.split = true;
                            }
                        }
                        _ => b.unknown(source, flow.taint.union(Taint::OPAQUE)),
                    }
                }
                WordPiece::EscapeSequence(escape) => b.known(&unescape(escape, quoted)),
                WordPiece::ArithmeticExpression(expr) => {
                    self.embedded(&expr.value);
                    // bash reads `$(( cmd ) )` as a substitution when it is
                    // no arithmetic; judge the text as code too.
                    self.blocks_only(&expr.value, "$(( ... ))");
                    b.unknown(source, Taint::default());
                }
            }
        }
    }

    /// Judges the code inside a parameter expansion's operands.
    fn parameter(&mut self, expr: &ParameterExpr) {
        let (parameter, texts): (Option<&Parameter>, Vec<&str>) = match expr {
            ParameterExpr::Parameter { parameter, .. }
            | ParameterExpr::ParameterLength { parameter, .. }
            | ParameterExpr::Transform { parameter, .. } => (Some(parameter), vec![]),
            ParameterExpr::UseDefaultValues {
                parameter,
                default_value: value,
                ..
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                default_value: value,
                ..
            }
            | ParameterExpr::IndicateErrorIfNullOrUnset {
                parameter,
                error_message: value,
                ..
            }
            | ParameterExpr::UseAlternativeValue {
                parameter,
                alternative_value: value,
                ..
            }
            | ParameterExpr::RemoveSmallestSuffixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveLargestSuffixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveSmallestPrefixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveLargestPrefixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::UppercaseFirstChar {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::UppercasePattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::LowercaseFirstChar {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::LowercasePattern {
                parameter,
                pattern: value,
                ..
            } => (Some(parameter), value.iter().map(String::as_str).collect()),
            ParameterExpr::Substring {
                parameter,
                offset,
                length,
                ..
            } => {
                let mut texts = vec![offset.value.as_str()];
                texts.extend(length.iter().map(|l| l.value.as_str()));
                (Some(parameter), texts)
            }
            ParameterExpr::ReplaceSubstring {
                parameter,
                pattern,
                replacement,
                match_kind: _,
                ..
            } => {
                let mut texts = vec![pattern.as_str()];
                texts.extend(replacement.iter().map(String::as_str));
                (Some(parameter), texts)
            }
            ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
                (None, vec![])
            }
        };
        for text in texts {
            self.embedded(text);
        }
        if let Some(parameter) = parameter {
            match parameter {
                Parameter::NamedWithIndex { index, .. } => self.embedded(index),
                Parameter::Positional(_)
                | Parameter::Special(_)
                | Parameter::Named(_)
                | Parameter::NamedWithAllIndices { .. } => {}
            }
        }
    }
}

/// A word of characters that mean nothing to bash's word expansion (no
/// quote, escape, `$`, backquote, tilde, brace, glob or blank): its one field
/// is its text.
fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./,:=@%+-".contains(&b))
}

/// brush-parser's word parser, or `None` where it fails or would panic:
/// it unwraps the number of `~N`, `~+N` and `~-N`, which overflows past 19
/// digits.
fn parse_word(raw: &str) -> Option<Vec<WordPieceWithSource>> {
    let huge_tilde = raw.match_indices('~').any(|(at, _)| {
        let rest = raw.get(at + 1..).unwrap_or_default();
        let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        digits.chars().take_while(char::is_ascii_digit).count() >= 19
    });
    if huge_tilde {
        return None;
    }
    word::parse(raw, &ParserOptions::default()).ok()
}

/// The longest run of ASCII digits in `text`.
pub(super) fn longest_digit_run(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// True when `text` holds a glob: `*`, `?`, or a `[` closed by a `]`.
pub(super) fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?'])
        || text
            .find('[')
            .is_some_and(|open| text.get(open + 1..).is_some_and(|rest| rest.contains(']')))
}

fn is_home(expr: &ParameterExpr) -> bool {
    matches!(
        expr,
        ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        } if name == "HOME"
    )
}

/// The text of an escape sequence (`\x`) outside or inside double quotes.
fn unescape(escape: &str, quoted: bool) -> String {
    let mut chars = escape.chars();
    let (Some('\\'), Some(c)) = (chars.next(), chars.next()) else {
        return escape.to_owned();
    };
    match c {
        '\n' => String::new(),
        '$' | '`' | '"' | '\\' => c.to_string(),
        _ if quoted => escape.to_owned(),
        _ => c.to_string(),
    }
}

/// The words a brace expression (`{rm,-rf,/}`, `{a..c}`) expands to. Words
/// with quotes, escapes or `$` are left whole: only plain text is expanded.
fn brace_alternatives(word: &str) -> Vec<String> {
    let plain = !word.contains(['\'', '"', '\\', '$', '`']);
    let opens = word.matches('{').count();
    // brush-parser unwraps the numbers of `{1..N}`, which overflow i64.
    if !plain
        || opens == 0
        || opens > MAX_BRACES
        || opens != word.matches('}').count()
        || longest_digit_run(word) >= 18
    {
        return vec![word.to_owned()];
    }
    match word::parse_brace_expansions(word, &ParserOptions::default()) {
        Ok(Some(pieces)) => {
            let mut out = vec![String::new()];
            for piece in &pieces {
                out = product(&out, &alternatives(piece));
            }
            out.truncate(MAX_BRACE_WORDS);
            out
        }
        Ok(None) | Err(_) => vec![word.to_owned()],
    }
}

fn alternatives(piece: &BraceExpressionOrText) -> Vec<String> {
    match piece {
        BraceExpressionOrText::Text(text) => vec![text.clone()],
        BraceExpressionOrText::Expr(members) => {
            let mut out = Vec::new();
            for member in members {
                match member {
                    BraceExpressionMember::NumberSequence {
                        start,
                        end,
                        increment,
                    } => {
                        let step = usize::try_from(increment.unsigned_abs().max(1)).unwrap_or(1);
                        let (lo, hi) = (*start.min(end), *start.max(end));
                        let mut n = lo;
                        while n <= hi && out.len() < MAX_BRACE_WORDS {
                            out.push(n.to_string());
                            n = n.saturating_add(i64::try_from(step).unwrap_or(1));
                            if n == i64::MAX {
                                break;
                            }
                        }
                    }
                    BraceExpressionMember::CharSequence {
                        start,
                        end,
                        increment: _,
                    } => {
                        let (lo, hi) = ((*start).min(*end), (*start).max(*end));
                        out.extend((lo..=hi).take(MAX_BRACE_WORDS).map(|c| c.to_string()));
                    }
                    BraceExpressionMember::Child(children) => {
                        let mut words = vec![String::new()];
                        for child in children {
                            words = product(&words, &alternatives(child));
                        }
                        out.extend(words);
                    }
                }
                out.truncate(MAX_BRACE_WORDS);
            }
            out
        }
    }
}

fn product(heads: &[String], tails: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for head in heads {
        for tail in tails {
            if out.len() >= MAX_BRACE_WORDS {
                return out;
            }
            out.push(format!("{head}{tail}"));
        }
    }
    out
}

/// Decodes the body of `$'…'`; `None` for an escape it does not know.
pub(super) fn ansi_c(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escape = chars.next()?;
        let simple = match escape {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            continue;
        }
        let (radix, max) = match escape {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            'c' => {
                let ctl = chars.next()?;
                out.push(char::from_u32(u32::from(ctl) & 0x1f)?);
                continue;
            }
            _ => return None,
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(escape);
        }
        while digits.len() < max + usize::from(radix == 8) {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        let code = u32::from_str_radix(&digits, radix).ok()?;
        out.push(char::from_u32(code)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::scanner::Context;

    fn fields(word: &str) -> Vec<(String, bool)> {
        let ctx = Context::default();
        let mut scanner = Scanner::new(&ctx);
        scanner
            .expand(word)
            .into_iter()
            .map(|a| (a.text, a.exact))
            .collect()
    }

    fn one(word: &str) -> String {
        let f = fields(word);
        assert_eq!(f.len(), 1, "{word}: {f:?}");
        f.into_iter().next().map(|(t, _)| t).unwrap_or_default()
    }

    /// The shortcut for plain words gives what the word parser gives.
    #[test]
    fn plain_words_expand_as_the_parser_would() {
        let ctx = Context::default();
        for word in [
            "a",
            "rm",
            "-rf",
            "/",
            "a=b",
            "x.y/z,w:1@2%3+4",
            "--force-with-lease=x",
            "_",
        ] {
            assert!(is_plain(word), "{word}");
            let mut scanner = Scanner::new(&ctx);
            let mut builder = Builder::new();
            let pieces = parse_word(word).unwrap_or_default();
            scanner.pieces(word, &pieces, false, &mut builder);
            assert_eq!(scanner.expand(word), builder.finish(), "{word}");
        }
        for word in [
            "", "~", "a*", "[a]", "{a,b}", "$x", "'a'", "a\\b", "a b", "a`b`", "!x", "#x",
        ] {
            assert!(!is_plain(word), "{word}");
        }
    }

    #[test]
    fn quotes_and_escapes_come_off() {
        assert_eq!(one(r#""r""m""#), "rm");
        assert_eq!(one("r''m"), "rm");
        assert_eq!(one(r"\rm"), "rm");
        assert_eq!(one(r#""a\$b\x""#), r"a$b\x");
        assert_eq!(one(r"$'\x72\155'"), "rm");
        assert_eq!(one("~/.ssh"), "~/.ssh");
        assert_eq!(one("$HOME/.ssh"), "~/.ssh");
        assert_eq!(fields("$X"), [("$X".to_owned(), false)]);
    }

    #[test]
    fn literal_substitutions_are_replaced_and_split() {
        assert_eq!(fields("$(echo rm)"), [("rm".to_owned(), true)]);
        assert_eq!(fields("`printf rm`").len(), 1);
        assert_eq!(
            fields("$(echo rm -rf)"),
            [("rm".to_owned(), true), ("-rf".to_owned(), true)]
        );
        assert_eq!(fields("\"$(echo a b)\""), [("a b".to_owned(), true)]);
        assert_eq!(fields("$(date)"), [("$(date)".to_owned(), false)]);
    }

    #[test]
    fn braces_expand() {
        assert_eq!(
            fields("{rm,-rf,/}"),
            [
                ("rm".to_owned(), true),
                ("-rf".to_owned(), true),
                ("/".to_owned(), true)
            ]
        );
        assert_eq!(fields("a{1..3}").len(), 3);
        assert_eq!(fields("{a..z}{a..z}").len(), MAX_BRACE_WORDS);
        assert_eq!(fields("'{a,b}'").len(), 1);
        assert_eq!(fields("{1..99999999999999999999999}").len(), 1);
        assert_eq!(fields("{-{{{{{{{{{{{{{{{{{{{{").len(), 1);
        assert_eq!(
            fields("~+99999999999999999999999"),
            [("~+99999999999999999999999".to_owned(), false)]
        );
    }

    #[test]
    fn ansi_c_escapes() {
        assert_eq!(ansi_c(r"\x72\x6d").as_deref(), Some("rm"));
        assert_eq!(ansi_c(r"\u0072m").as_deref(), Some("rm"));
        assert_eq!(ansi_c(r"a\tb\n").as_deref(), Some("a\tb\n"));
        assert_eq!(ansi_c(r"\q"), None);
        assert_eq!(ansi_c("\\"), None);
    }
}
