//! Plan versions: `1.7`, `1.10`, `2` — compared as numbers, part by part.

/// The numeric parts of a version, or `None` if it is not one.
pub(crate) fn parse(text: &str) -> Option<Vec<u64>> {
    let text = text.trim().trim_start_matches(['v', 'V']);
    if text.is_empty() {
        return None;
    }
    text.split('.').map(|p| p.parse().ok()).collect()
}

/// `text` is at least `major.minor`.
pub(crate) fn at_least(text: &str, major: u64, minor: u64) -> bool {
    parse(text).is_some_and(|parts| {
        let have = (
            parts.first().copied().unwrap_or(0),
            parts.get(1).copied().unwrap_or(0),
        );
        have >= (major, minor)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        assert!(at_least("1.7", 1, 7));
        assert!(at_least("1.10", 1, 7));
        assert!(at_least("2", 1, 7));
        assert!(!at_least("1.6", 1, 7));
        assert!(!at_least("banana", 1, 7));
        assert_eq!(parse("1.x"), None);
    }
}
