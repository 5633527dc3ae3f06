//! Shell commands inside one-line programs: `python -c "os.system('…')"`,
//! `perl -e 'system("…")'`, `node -e "execSync('…')"`, `ruby -e '`…`'`.
//! The program itself is not shell and is never judged as shell; only the
//! string literals handed to a known shell-running call are.

/// Calls that run their first argument as a shell command (or an argv list).
const CALLS: &[&str] = &[
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.Popen",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "execSync",
    "spawnSync",
    "shell_exec",
    "passthru",
    "system",
    "exec",
    "popen",
    "qx",
    "%x",
];

/// Most strings taken from one program.
const MAX_STRINGS: usize = 32;

/// The shell commands `code` hands to a shell-running call; with
/// `backticks`, also the text between backticks (Perl, Ruby, PHP).
pub(crate) fn shell_strings(code: &str, backticks: bool) -> Vec<String> {
    let mut found = Vec::new();
    for call in CALLS {
        let mut from = 0;
        while let Some(at) = code.get(from..).and_then(|rest| rest.find(call)) {
            let start = from + at;
            from = start + call.len();
            // `mysystem` is another name; `os.system` also matches `system`.
            let before = code.get(..start).and_then(|b| b.chars().next_back());
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(words) = code.get(from..).and_then(arguments)
                && !found.contains(&words)
            {
                found.push(words);
            }
            if found.len() >= MAX_STRINGS {
                return found;
            }
        }
    }
    if !backticks {
        return found;
    }
    // Perl, Ruby and PHP backticks run their content in a shell.
    let mut parts = code.split('`');
    parts.next();
    while let (Some(inside), Some(_)) = (parts.next(), parts.next().or(Some(""))) {
        if !inside.trim().is_empty() && found.len() < MAX_STRINGS {
            found.push(inside.to_owned());
        }
    }
    found
}

/// The string literal (or list of them, joined by spaces) after a call name.
fn arguments(text: &str) -> Option<String> {
    let rest = text.trim_start();
    let rest = rest
        .strip_prefix('(')
        .or_else(|| rest.strip_prefix('{'))
        .unwrap_or(rest)
        .trim_start();
    if let Some(list) = rest.strip_prefix('[') {
        let mut words = Vec::new();
        let mut rest = list.trim_start();
        while let Some((word, after)) = literal(rest) {
            words.push(word);
            rest = after.trim_start();
            match rest.strip_prefix(',') {
                Some(after) => rest = after.trim_start(),
                None => break,
            }
        }
        return (!words.is_empty()).then(|| words.join(" "));
    }
    literal(rest).map(|(word, _)| word)
}

/// A quoted string at the start of `text`, unescaped, and what follows it.
fn literal(text: &str) -> Option<(String, &str)> {
    let mut chars = text.char_indices();
    let (_, quote) = chars.next().filter(|(_, c)| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in chars {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some((out, text.get(i + 1..).unwrap_or_default()));
        } else {
            out.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_shell_strings() {
        assert_eq!(
            shell_strings("import os; os.system('rm -rf /')", false),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_strings(
                "import subprocess; subprocess.run(['rm', '-rf', 'x'])",
                false
            ),
            ["rm -rf x"]
        );
        assert_eq!(shell_strings(r#"system("rm -rf x")"#, true), ["rm -rf x"]);
        assert_eq!(shell_strings(r#"system "rm -rf x""#, true), ["rm -rf x"]);
        assert_eq!(
            shell_strings("require('child_process').execSync(\"curl x | sh\")", false),
            ["curl x | sh"]
        );
        assert_eq!(shell_strings("print `ls -la`", true), ["ls -la"]);
        assert!(shell_strings("print('rm -rf /')", false).is_empty());
        assert!(shell_strings("console.log(`rm -rf /`)", false).is_empty());
        assert!(shell_strings("mysystem('x')", true).is_empty());
    }
}
