//! sed as a filter that adds no text of its own: `sed 's/\r$//' build.sh |
//! bash` runs the project's script with its line ends fixed, no more than
//! `bash build.sh` would, so it is judged as `cat build.sh | bash` is. A
//! script counts only when it can only drop, keep, reorder or trim the text
//! it reads: line commands (`d`, `p`, `q`, `N`, hold space, branches) and
//! `s` whose replacement holds no letter, digit or shell operator of its own
//! (backreferences, `&`, blanks and `\n`/`\t` escapes). Text it inserts
//! (`a`, `i`, `c`, a replacement with words in it), other files it reads or
//! writes (`r`, `w`, `e`, `-f`), transliteration (`y`) and in-place editing
//! leave sed's output unknown, as it was.

use crate::arg::Arg;

/// The file operands of a `sed ARGS` that only trims what it reads (empty:
/// it reads stdin), or `None` when its output may hold text of its own.
pub(crate) fn trimming_files(args: &[Arg]) -> Option<Vec<&Arg>> {
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands: Vec<&Arg> = Vec::new();
    let mut words = args.iter();
    let mut options_done = false;
    while let Some(word) = words.next() {
        let text = word.exact_text()?;
        if options_done || !text.starts_with('-') || text == "-" {
            operands.push(word);
            continue;
        }
        match text {
            "--" => options_done = true,
            "-e" | "--expression" => scripts.push(words.next()?.exact_text()?),
            "--quiet" | "--silent" | "--regexp-extended" | "--separate" | "--unbuffered"
            | "--null-data" | "--posix" | "--sandbox" | "--debug" => {}
            _ => {
                if let Some(script) = text.strip_prefix("--expression=") {
                    scripts.push(script);
                    continue;
                }
                // A cluster of flags without values (`-nE`), perhaps ending
                // in `e` with the script next (`-ne 's/x//'`) or in it.
                let cluster = text.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
                let flags = cluster.trim_start_matches(['n', 'E', 'r', 's', 'u', 'z']);
                match flags.strip_prefix('e') {
                    Some("") => scripts.push(words.next()?.exact_text()?),
                    Some(script) => scripts.push(script),
                    None if flags.is_empty() => {}
                    None => return None,
                }
            }
        }
    }
    if scripts.is_empty() {
        scripts.push(operands.first()?.exact_text()?);
        operands.remove(0);
    }
    scripts
        .iter()
        .all(|script| only_trims(script))
        .then_some(operands)
}

/// Whether the sed `script` adds no text of its own (see the module's
/// documentation). Read as GNU sed reads it; anything not understood fails.
fn only_trims(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Each pass reads one command, so the loop is bounded by the length.
    for _ in 0..=chars.len() {
        while chars
            .get(i)
            .is_some_and(|c| c.is_whitespace() || matches!(c, ';' | '{' | '}'))
        {
            i += 1;
        }
        if i >= chars.len() {
            return true;
        }
        if !address(&chars, &mut i) {
            return false;
        }
        // An address with no command is an error in sed.
        let Some(&command) = chars.get(i) else {
            return false;
        };
        i += 1;
        match command {
            'd' | 'D' | 'p' | 'P' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | 'l' | '=' | 'z'
            | 'F' | '{' | '}' => {}
            // An exit code, or a label to the end of the line.
            'q' | 'Q' | 'b' | 't' | 'T' | ':' => {
                while chars.get(i).is_some_and(|c| *c != '\n' && *c != ';') {
                    i += 1;
                }
            }
            's' => {
                if !substitution(&chars, &mut i) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    false
}

/// Moves `i` past the addresses before a command (`3`, `$`, `/re/`,
/// `\%re%`, `a,b`, `first~step`, `!`); false for one it cannot read.
fn address(chars: &[char], i: &mut usize) -> bool {
    for _ in 0..2 {
        match chars.get(*i) {
            Some(c) if c.is_ascii_digit() => {
                while chars
                    .get(*i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '~')
                {
                    *i += 1;
                }
            }
            Some('$') => *i += 1,
            Some('/') => {
                *i += 1;
                if !past(chars, i, '/') {
                    return false;
                }
                while chars.get(*i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    *i += 1;
                }
            }
            Some('\\') => {
                let Some(&delim) = chars.get(*i + 1) else {
                    return false;
                };
                *i += 2;
                if !past(chars, i, delim) {
                    return false;
                }
            }
            _ => {}
        }
        if chars.get(*i) == Some(&',') {
            *i += 1;
            if chars.get(*i).is_some_and(|c| matches!(c, '+' | '~')) {
                *i += 1;
            }
        } else {
            break;
        }
    }
    while chars.get(*i).is_some_and(|c| *c == '!' || *c == ' ') {
        *i += 1;
    }
    true
}

/// Moves `i` past a delimited part ending in `delim`, escapes included;
/// false when it never ends.
fn past(chars: &[char], i: &mut usize, delim: char) -> bool {
    while let Some(&c) = chars.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == delim {
            return true;
        }
    }
    false
}

/// Reads `s/RE/REPLACEMENT/FLAGS` after the `s`: true when the
/// replacement adds nothing of its own and no flag runs or writes.
fn substitution(chars: &[char], i: &mut usize) -> bool {
    let Some(&delim) = chars.get(*i) else {
        return false;
    };
    if delim == '\n' || delim == '\\' {
        return false;
    }
    *i += 1;
    if !past(chars, i, delim) {
        return false;
    }
    let start = *i;
    if !past(chars, i, delim) {
        return false;
    }
    let replacement = chars.get(start..*i - 1).unwrap_or_default();
    if !adds_nothing(replacement) {
        return false;
    }
    // Flags: `g`, `p`, a count, case and multi-line ones; `e` runs the
    // pattern space and `w` writes a file.
    while let Some(&c) = chars.get(*i) {
        match c {
            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => *i += 1,
            c if c.is_ascii_digit() => *i += 1,
            _ => break,
        }
    }
    !chars.get(*i).is_some_and(|c| matches!(c, 'e' | 'w'))
}

/// A replacement that only puts back what matched, or blanks: `\1`…`\9`,
/// `&`, spaces and tabs, `\n`, `\t`.
fn adds_nothing(replacement: &[char]) -> bool {
    let mut chars = replacement.iter();
    while let Some(&c) = chars.next() {
        match c {
            '&' | ' ' | '\t' => {}
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() || matches!(d, 'n' | 't') => {}
                _ => return false,
            },
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(words: &[&str]) -> Option<Vec<String>> {
        let args: Vec<Arg> = words.iter().map(|w| Arg::literal(w)).collect();
        trimming_files(&args).map(|f| f.iter().map(|a| a.text.to_string()).collect())
    }

    #[test]
    fn reads_the_command_line() {
        let none: Vec<String> = Vec::new();
        assert_eq!(
            files(&[r"s/\r$//", "build.sh"]),
            Some(vec!["build.sh".into()])
        );
        assert_eq!(
            files(&["-e", r"s/\r$//", "a", "b"]),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(files(&["-n", "1,5p"]), Some(none.clone()));
        assert_eq!(files(&["-nE", "/x/p", "f"]), Some(vec!["f".into()]));
        assert_eq!(files(&["-ne", "/x/p", "f"]), Some(vec!["f".into()]));
        assert_eq!(
            files(&["--expression=/^#/d", "--", "-f"]),
            Some(vec!["-f".into()])
        );
        assert_eq!(files(&["-i", r"s/\r$//", "f"]), None);
        assert_eq!(files(&["-f", "script.sed", "f"]), None);
        assert_eq!(files(&["s/^/reboot #/", "f"]), None);
        assert_eq!(files(&["-e", "/x/d", "-e", "1i reboot", "f"]), None);
        assert_eq!(files(&[]), None);
    }

    #[test]
    fn trims_only() {
        for script in [
            r"s/\r$//",
            r"s/\r//g",
            "s/[[:space:]]*$//",
            "/^#/d",
            "1,20p",
            "1d;$d",
            r"s/^\(.*\)$/\1/",
            "s/\t/  /g",
            "/^$/N;/\\n$/D",
            "$!N; s/x//; P; D",
            "10q",
            "s/a/&/2",
            "{/x/d}",
        ] {
            assert!(only_trims(script), "{script}");
        }
        for script in [
            "s/^/rm -rf ~ #/",
            "s/x/y/",
            "1i rm -rf ~",
            "a curl x | sh",
            "$a\\\nreboot",
            "c x",
            "s/x//e",
            "s/x//w out",
            "w out",
            "r other.sh",
            "e reboot",
            "y/abc/xyz/",
            "s/x/;/",
            "s/x/|/",
            "s/x/\\x41/",
            "s/x",
            "/unclosed",
        ] {
            assert!(!only_trims(script), "{script}");
        }
    }
}
