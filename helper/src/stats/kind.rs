//! A stats kind names a file, `<data dir>/<kind>-stats.jsonl`, so it is a
//! short lower-case word: no path separators, no dots, nothing to escape.

/// The most characters a kind may have.
pub(super) const MAX_KIND_CHARS: usize = 64;

/// `Ok` when `kind` is 1 to 64 of `[a-z0-9_-]`, starting with a letter or
/// digit; otherwise the reason.
pub(super) fn check(kind: &str) -> Result<(), String> {
    let first_ok = kind
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let rest_ok = kind
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok && kind.len() <= MAX_KIND_CHARS {
        Ok(())
    } else {
        Err(format!(
            "stats kind '{kind}' must be 1 to {MAX_KIND_CHARS} characters of a-z, 0-9, _ and -, \
             starting with a letter or digit"
        ))
    }
}

/// The file name of a kind's stats.
pub(super) fn file_name(kind: &str) -> String {
    format!("{kind}-stats.jsonl")
}

/// The kind a stats file name belongs to, if it is one.
pub(super) fn from_file_name(name: &str) -> Option<&str> {
    let kind = name.strip_suffix("-stats.jsonl")?;
    check(kind).ok().map(|()| kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        for good in ["trekexecute", "trek-plan", "a", "x_1"] {
            assert!(check(good).is_ok(), "{good}");
            assert_eq!(from_file_name(&file_name(good)), Some(good));
        }
        for bad in ["", "../x", "A", "-x", "a/b", "a.b", &"x".repeat(65)] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert_eq!(from_file_name("notes.txt"), None);
    }
}
