//! Words for a POSIX shell: every call Voyage prints for a person or an
//! agent to run (a `NEXT:` line, a session's starter line, a hint) and
//! every command it builds for `sh -c` quotes its arguments here, so a
//! path with a space, a quote or a `$` in it runs as printed.

/// `text` as one single-quoted word, whatever it holds: `'` becomes `'\''`.
pub fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `word` as one shell word: as it is when the shell reads every one of
/// its characters literally, else single-quoted (an empty word is `''`).
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c))
        // `=` is literal except at the start of a command's first word;
        // `~` is left out: it expands at a word's start.
        && !word.starts_with('=')
    {
        word.to_owned()
    } else {
        single_quoted(word)
    }
}

/// `words` quoted one by one and joined with spaces: a call as printed.
pub fn join<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_as_they_are() {
        assert_eq!(quote(".claude/plans/a.md"), ".claude/plans/a.md");
        assert_eq!(quote("--gate"), "--gate");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn other_words_are_single_quoted() {
        assert_eq!(quote("my plans/a.md"), "'my plans/a.md'");
        assert_eq!(quote("it's.md"), r"'it'\''s.md'");
        assert_eq!(quote("$HOME"), "'$HOME'");
        assert_eq!(quote("~/x"), "'~/x'");
        assert_eq!(join(&["a b", "c"]), "'a b' c");
    }

    /// What `sh` reads back from each quoted word is the word itself.
    #[test]
    fn the_shell_reads_back_each_word() {
        let words = [
            "plain",
            "with space",
            "it's",
            "$HOME `x` $(y) \\ \"z\" *",
            "",
            "~user",
            "a\nb",
        ];
        let script = format!("printf '%s\\0' {}", join(&words));
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("sh: {e}"));
        let read: Vec<String> = out
            .stdout
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        let mut expected: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        expected.push(String::new());
        assert_eq!(read, expected);
    }
}
