//! Small text forms Executant's messages and log files use: the goal slug
//! of a log file name, durations in words, grouped token counts; and the
//! start or end of a long text, cut where an agent's prompt has room.

/// The goal as a file-name slug: lower case, every run of characters outside
/// `[a-z0-9]` one `-`, no `-` at either end, at most `max` characters;
/// `task` when nothing is left.
pub(super) fn slugify(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let cut: String = out.chars().take(max).collect();
    let trimmed = cut.trim_end_matches('-');
    if trimmed.is_empty() {
        "task".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The first `max` bytes of `text` at most, cut between characters.
pub(super) fn head(text: &str, max: usize) -> &str {
    let cut = (0..=max.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.get(..cut).unwrap_or_default()
}

/// The last `max` bytes of `text` at most, cut between characters.
pub(super) fn tail(text: &str, max: usize) -> &str {
    let from = text.len().saturating_sub(max);
    let cut = (from..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    text.get(cut..).unwrap_or_default()
}

pub(super) use crate::clock::duration_words;

/// `123,456`.
pub(super) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_cut_between_characters() {
        assert_eq!(head("héllo", 2), "h");
        assert_eq!(head("abc", 10), "abc");
        assert_eq!(tail("héllo", 4), "llo");
        assert_eq!(tail("abc", 10), "abc");
        assert_eq!(tail("abc", 0), "");
    }

    #[test]
    fn slugs_like_executant() {
        assert_eq!(
            slugify("Demonstrate nested workflow: steps — stitch", 40),
            "demonstrate-nested-workflow-steps-stitch"
        );
        assert_eq!(slugify("  one echo step ", 40), "one-echo-step");
        assert_eq!(
            slugify("a very long goal that goes on and on past forty", 40),
            "a-very-long-goal-that-goes-on-and-on-pas"
        );
        assert_eq!(slugify("ab cd", 3), "ab");
        assert_eq!(slugify("¿?", 40), "task");
    }

    #[test]
    fn durations_read_like_executant() {
        assert_eq!(duration_words(0), "0s");
        assert_eq!(duration_words(1_499), "1s");
        assert_eq!(duration_words(65_000), "1m 05s");
        assert_eq!(duration_words(3_725_000), "1h 02m");
    }

    #[test]
    fn counts_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(1234), "1,234");
        assert_eq!(grouped(123_456_789), "123,456,789");
    }
}
