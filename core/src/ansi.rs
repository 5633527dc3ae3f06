//! Text as a person would read it off a terminal: lossy UTF-8 without ANSI
//! escape sequences or trailing whitespace. Logs of runners forced into
//! colour (`verdict`) and the agent CLI's output (`workflow`) are read
//! through it.

use std::borrow::Cow;

/// Lossy UTF-8, no ANSI escapes, no trailing whitespace (CR included).
/// Borrows when there is nothing to replace or strip, as for most lines.
pub fn clean(raw: &[u8]) -> Cow<'_, str> {
    let text = String::from_utf8_lossy(raw);
    if memchr::memchr(0x1b, raw).is_none() {
        return match text {
            Cow::Borrowed(t) => Cow::Borrowed(t.trim_end()),
            Cow::Owned(t) => Cow::Owned(t.trim_end().to_owned()),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            // CSI: ESC [ parameters, intermediates, one final byte @..~
            Some('[') => {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: ESC ] ... terminated by BEL or ESC \
            Some(']') => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            // nF escapes: intermediates (space to `/`) then one final
            // character, e.g. ESC ( B, which libtest writes to reset colour.
            Some(&c) if (' '..='/').contains(&c) => {
                while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
                chars.next();
            }
            // Any other two-character escape.
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    Cow::Owned(out)
}

/// `text` safe to print on a terminal: every control character but the
/// tab (an escape sequence that moves the cursor or retitles the window, a
/// carriage return that overwrites the line) and every bidirectional
/// override (which reorders what a reader sees) is shown as its escape,
/// `\x1b` or `\u{202e}`. Plans and command output reach replies through it.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\t')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colour_and_trailing_whitespace() {
        assert_eq!(clean(b"\x1b[31mred\x1b[0m  \r"), "red");
        assert_eq!(clean(b"plain"), "plain");
    }

    #[test]
    fn strips_osc_hyperlinks_and_charset_escapes() {
        assert_eq!(
            clean(b"\x1b]8;;file:///x\x07link\x1b]8;;\x07 \x1b(Bok"),
            "link ok"
        );
        assert_eq!(clean(b"trailing escape \x1b"), "trailing escape");
    }

    #[test]
    fn controls_and_bidi_overrides_are_shown_escaped() {
        assert_eq!(escape_controls("plain\ttext"), "plain\ttext");
        assert_eq!(escape_controls("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escape_controls("x\ry"), "x\\x0dy");
        assert_eq!(escape_controls("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape_controls("é ü 中"), "é ü 中");
    }
}
