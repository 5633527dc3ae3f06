//! The subject a step's Checkpoint writes itself, when it is a plain
//! `git commit -m "…"`: the one case where the plan's own words for the
//! commit are known for certain, so that a commit whose subject differs
//! was changed after the plan wrote it (by a message hook of the
//! repository). Anything a shell could expand, another command, or an
//! option that changes how git takes the message is not plain, and has no
//! planned subject.

/// The words of `command` as a shell splits it, when splitting is all a
/// shell would do: quotes are removed; an expansion (`$`, a backtick, a
/// backslash, a glob, `~`, braces), an operator (`;`, `&`, `|`, a
/// redirection, a subshell) or a comment makes it `None`.
fn plain_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        inner => w.push(inner),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        inner => w.push(inner),
                    }
                }
            }
            c if c.is_whitespace() => words.extend(word.take()),
            '$' | '`' | '\\' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '*' | '?' | '[' | '#'
            | '~' | '{' | '}' | '!' => return None,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// The subject `git commit` makes of `command`, when `command` is
/// `git commit` with its message written out (`-m MSG`, `-mMSG`,
/// `--message=MSG`, `--message MSG`, more than one `-m` for paragraphs)
/// and at most `-q`/`--quiet` besides: the first message's first line,
/// trimmed as git trims it. `None` for anything else.
pub(crate) fn planned_subject(command: &str) -> Option<String> {
    let words = plain_words(command)?;
    let mut words = words.iter().map(String::as_str);
    if words.next()? != "git" || words.next()? != "commit" {
        return None;
    }
    let mut first: Option<&str> = None;
    while let Some(word) = words.next() {
        let message = match word {
            "-q" | "--quiet" => continue,
            "-m" | "--message" => words.next()?,
            _ => match (word.strip_prefix("--message="), word.strip_prefix("-m")) {
                (Some(message), _) => message,
                (None, Some(message)) if !word.starts_with("--") => message,
                _ => return None,
            },
        };
        first.get_or_insert(message);
    }
    let subject = first?.lines().next().unwrap_or_default().trim();
    (!subject.is_empty()).then(|| subject.to_owned())
}

#[cfg(test)]
mod tests {
    use super::planned_subject;

    #[test]
    fn a_plain_commit_has_its_subject() {
        let cases = [
            (r#"git commit -m "feat: add a""#, "feat: add a"),
            ("git commit -m 'fix: b (c)'", "fix: b (c)"),
            ("git commit -q -m wip", "wip"),
            ("git commit --message=wip", "wip"),
            (r#"git commit --message "x y""#, "x y"),
            (r#"git commit -m"x y""#, "x y"),
            (r#"git commit -m "a" -m "body""#, "a"),
            (r#"git commit -m "it's done""#, "it's done"),
            ("git commit -m '  padded  '", "padded"),
        ];
        for (command, subject) in cases {
            assert_eq!(
                planned_subject(command).as_deref(),
                Some(subject),
                "{command}"
            );
        }
    }

    #[test]
    fn anything_else_has_none() {
        for command in [
            "git commit",
            "git commit -a -m x",
            "git commit --no-verify -m x",
            "git commit --amend -m x",
            r#"git commit -m "$(date)""#,
            r#"git commit -m "a \"b\"""#,
            "git add a && git commit -m x",
            "git commit -m x; true",
            "git commit -F msg.txt",
            "git commit -m 'unclosed",
            r#"git commit -m "unclosed"#,
            "git commit -m",
            "git -C sub commit -m x",
            "git commit -m ''",
        ] {
            assert_eq!(planned_subject(command), None, "{command}");
        }
    }
}
