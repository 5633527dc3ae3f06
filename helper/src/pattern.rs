//! Patterns as plan authors write them: `grep -E` / JavaScript regular
//! expressions, checked against the engine the audits run them with.
//!
//! The engine is Rust's `regex`, which guarantees linear time and so has no
//! lookaround and no backreferences. A pattern using those is not invalid,
//! it is unsupported, and the message says which construct and where. A
//! JavaScript literal (`/^feat/i`) is accepted, its flags turned into inline
//! flags.

/// Why a pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PatternError {
    /// A construct the engine cannot express.
    #[error(
        "uses {construct} `{text}` at character {at}, which Voyage's regex engine cannot run (it guarantees linear time); rewrite the pattern without it"
    )]
    Unsupported {
        construct: &'static str,
        text: String,
        at: usize,
    },
    #[error("does not compile: {0}")]
    Invalid(String),
}

/// The pattern in the engine's syntax: a `/…/flags` literal unwrapped.
pub(crate) fn normalise(pattern: &str) -> String {
    if let Some(body) = pattern.strip_prefix('/')
        && let Some(end) = body.rfind('/')
    {
        let (inner, flags) = body.split_at(end);
        let flags = flags.trim_start_matches('/');
        if !inner.is_empty() && flags.chars().all(|f| "gimsuy".contains(f)) {
            let inline: String = flags.chars().filter(|f| "ims".contains(*f)).collect();
            return if inline.is_empty() {
                inner.to_owned()
            } else {
                format!("(?{inline}){inner}")
            };
        }
    }
    pattern.to_owned()
}

/// Checks that `pattern` can be compiled and run, without building the
/// matcher (parsing is enough, and much cheaper over a 10,000-step plan).
pub(crate) fn check(pattern: &str) -> Result<(), PatternError> {
    if is_plain(pattern) {
        return Ok(());
    }
    let pattern = normalise(pattern);
    if let Some(found) = unsupported(&pattern) {
        return Err(found);
    }
    regex_syntax::Parser::new()
        .parse(&pattern)
        .map(|_| ())
        .map_err(|e| PatternError::Invalid(first_line(&e.to_string())))
}

/// Compiles `pattern` for matching (the audits run manifest patterns).
pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, PatternError> {
    let pattern = normalise(pattern);
    if let Some(found) = unsupported(&pattern) {
        return Err(found);
    }
    regex::Regex::new(&pattern).map_err(|e| PatternError::Invalid(first_line(&e.to_string())))
}

/// Literal text with escaped punctuation and `^`/`$` anchors: valid in
/// every engine, so parsing it would only cost time (most manifest patterns
/// look like this).
fn is_plain(pattern: &str) -> bool {
    let body = pattern.strip_prefix('^').unwrap_or(pattern);
    let body = body
        .strip_suffix('$')
        .filter(|b| !b.ends_with('\\'))
        .unwrap_or(body);
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(p) if p.is_ascii_punctuation() => {}
                _ => return false,
            },
            '.' | '^' | '$' | '|' | '?' | '*' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '/' => {
                return false;
            }
            _ => {}
        }
    }
    true
}

/// The regex crate's errors draw the pattern with a caret over several lines;
/// the last line says what is wrong.
fn first_line(message: &str) -> String {
    message
        .lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_owned())
        .unwrap_or_else(|| message.lines().next().unwrap_or(message).to_owned())
}

/// Lookaround and backreferences, found outside character classes.
fn unsupported(pattern: &str) -> Option<PatternError> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                if let Some(&next) = chars.get(i + 1) {
                    if !in_class && next.is_ascii_digit() && next != '0' {
                        return Some(PatternError::Unsupported {
                            construct: "a backreference",
                            text: format!("\\{next}"),
                            at: i + 1,
                        });
                    }
                    if !in_class && next == 'k' && chars.get(i + 2) == Some(&'<') {
                        return Some(PatternError::Unsupported {
                            construct: "a named backreference",
                            text: "\\k<".into(),
                            at: i + 1,
                        });
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars.iter().skip(i + 2).take(2).collect();
                let found = if rest.starts_with('=') {
                    Some(("a lookahead", "(?="))
                } else if rest.starts_with('!') {
                    Some(("a negative lookahead", "(?!"))
                } else if rest == "<=" {
                    Some(("a lookbehind", "(?<="))
                } else if rest == "<!" {
                    Some(("a negative lookbehind", "(?<!"))
                } else {
                    None
                };
                if let Some((construct, text)) = found {
                    return Some(PatternError::Unsupported {
                        construct,
                        text: text.into(),
                        at: i + 1,
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_patterns_pass() {
        for p in [
            r"^feat\(store\): add trait$",
            r"^docs: document --json$",
            r"\d+ files?",
            r"[(?=]",
        ] {
            assert_eq!(check(p), Ok(()), "{p}");
        }
    }

    #[test]
    fn invalid_patterns_say_why_in_one_line() {
        let Err(PatternError::Invalid(why)) = check("^feat: (b$") else {
            panic!()
        };
        assert_eq!(why, "unclosed group");
    }

    #[test]
    fn lookaround_and_backreferences_are_named() {
        let cases = [
            ("^feat(?=:)", "a lookahead"),
            ("^(?!wip)", "a negative lookahead"),
            ("(?<=x)y", "a lookbehind"),
            ("(?<!x)y", "a negative lookbehind"),
            (r"(a)\1", "a backreference"),
            (r"(?<n>a)\k<n>", "a named backreference"),
        ];
        for (p, construct) in cases {
            match check(p) {
                Err(PatternError::Unsupported { construct: c, .. }) => {
                    assert_eq!(c, construct, "{p}")
                }
                other => panic!("{p}: {other:?}"),
            }
        }
        // escaped, `(?=` is an optional `(` then `=`
        assert_eq!(check(r"\(?=x"), Ok(()));
        // inside a class `\1` is no backreference, but the engine refuses it
        assert!(matches!(check(r"[\1]"), Err(PatternError::Invalid(_))));
    }

    #[test]
    fn plain_patterns_skip_the_parser_and_agree_with_it() {
        for p in [
            r"^feat\(mod1\): add f1$",
            "fn f1",
            "^docs: document --json$",
            r"a\.b",
            "x$",
        ] {
            assert!(is_plain(p), "{p}");
            assert!(regex_syntax::Parser::new().parse(p).is_ok(), "{p}");
        }
        assert!(is_plain(r"x\$"), "an escaped dollar is a literal");
        for p in [r"a\d", "a.b", "(a", r"\", "a|b", "/x/i"] {
            assert!(!is_plain(p), "{p}");
        }
    }

    #[test]
    fn javascript_literals() {
        assert_eq!(normalise("/^feat/i"), "(?i)^feat");
        assert_eq!(normalise("/^feat/"), "^feat");
        assert_eq!(normalise("/usr/bin"), "/usr/bin");
        assert!(compile("/^FEAT/i").unwrap().is_match("feat: x"));
    }
}
