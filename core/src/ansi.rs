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
}
