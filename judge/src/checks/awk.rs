//! What an awk program does outside itself: the shell commands it runs
//! (`system(CMD)`, `print … | CMD` and gawk's `|&`, `CMD | getline`, and
//! the text printed into a shell, `print "rm -rf x" | "sh"`) and the files
//! it writes (`print … > FILE`, `printf … >> FILE`). awk hands each CMD to
//! `sh -c`, so it is shell code, judged like any other. An expression is
//! read as awk joins it: string literals are known text, anything else
//! (`$1`, a variable) is a value only known at run time, written
//! `$AWK_VALUE` so that the code reads as a shell command with an unknown
//! word in it.

/// A shell command an awk program runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Call {
    /// Its text, unknown parts as `$AWK_VALUE`.
    Code(String),
    /// No part of it is written out (`system($0)`).
    Unknown,
}

/// Most commands taken from one program.
const MAX_CALLS: usize = 32;

const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "ash",
    "/bin/sh",
    "/bin/bash",
];

/// A file an awk program writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    /// The file's name; `None` when only known at run time
    /// (`print > $2`).
    pub file: Option<String>,
    /// `>>`: appended to rather than replaced.
    pub append: bool,
}

/// The files `program` writes through its output redirections. awk reads
/// a `>` in a `print` or `printf` statement, outside parentheses, as a
/// redirection (`print (a > b)` compares).
pub(crate) fn output_files(program: &str) -> Vec<Output> {
    let mut found = Vec::new();
    for_each_statement(program, |statement, known| {
        let Some(args) = printed(statement) else {
            return found.len() < MAX_CALLS;
        };
        if let Some(at) = outside_parentheses(args, '>') {
            let rest = args.get(at + 1..).unwrap_or_default();
            let (append, target) = match rest.strip_prefix('>') {
                Some(target) => (true, target),
                None => (false, rest),
            };
            // `print > "f" | "cmd"` is not awk; the target ends at a pipe.
            let target = target.split('|').next().unwrap_or_default();
            let file = match expression(target, known) {
                Call::Code(text) if !text.contains("$AWK_VALUE") => Some(text),
                _ => None,
            };
            found.push(Output { file, append });
        }
        found.len() < MAX_CALLS
    });
    found
}

/// What follows `print` or `printf` in a statement (`if (x) print … `
/// too), or `None` when it prints nothing.
fn printed(statement: &str) -> Option<&str> {
    let mut rest = statement;
    while let Some(at) = find_outside_strings(rest, "print") {
        let before = rest.get(..at).and_then(|b| b.chars().next_back());
        let after = rest.get(at + "print".len()..).unwrap_or_default();
        let after = after.strip_prefix('f').unwrap_or(after);
        let word_ends = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if word_ends && !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(after);
        }
        rest = after;
    }
    None
}

/// Where `wanted` first occurs in `text` outside strings and parentheses.
fn outside_parentheses(text: &str, wanted: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code(text) {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if c == wanted && depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The characters of `text` outside its string literals (`"…"`, with `\`
/// escapes), with their byte positions; the quotes themselves are left
/// out too.
fn code(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    text.char_indices().filter(move |&(_, c)| {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            return false;
        }
        if c == '"' {
            in_string = true;
            return false;
        }
        true
    })
}

/// Calls `each` with every statement of `program` and the variables given
/// a string before it (`cmd = "rm -rf x"; system(cmd)`), last first, until
/// `each` says to stop.
fn for_each_statement(program: &str, mut each: impl FnMut(&str, &[(String, String)]) -> bool) {
    let mut known: Vec<(String, String)> = Vec::new();
    for statement in statements(program) {
        let statement = statement.trim();
        if let Some((name, value)) = statement.split_once('=')
            && !value.starts_with('=')
            && !name.ends_with(['!', '<', '>', '=', '+', '-', '*', '/', '%', '^'])
            && is_name(name.trim())
            && let Call::Code(text) = expression(value, &known)
        {
            known.insert(0, (name.trim().to_owned(), text));
        }
        if !each(statement, &known) {
            break;
        }
    }
}

/// The shell commands `program` runs.
pub(crate) fn shell_calls(program: &str) -> Vec<Call> {
    let mut found = Vec::new();
    for_each_statement(program, |statement, known| {
        // `system(…)` anywhere in the statement.
        let mut rest = statement;
        while let Some(at) = find_outside_strings(rest, "system(") {
            let before = rest.get(..at).and_then(|b| b.chars().next_back());
            let after = rest.get(at + "system(".len()..).unwrap_or_default();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                rest = after;
                continue;
            }
            let inside = up_to_close(after);
            found.push(expression(inside, known));
            rest = after.get(inside.len()..).unwrap_or_default();
        }
        // A pipe into or out of a command.
        if let Some(at) = find_outside_strings(statement, "|")
            && !statement.get(at..).is_some_and(|r| r.starts_with("||"))
        {
            let left = statement.get(..at).unwrap_or_default().trim();
            let right = statement.get(at + 1..).unwrap_or_default();
            let right = right.strip_prefix('&').unwrap_or(right).trim();
            if right.starts_with("getline") {
                // `while (("ls" | getline x) > 0)`: the operand in the
                // innermost open parenthesis.
                let operand =
                    last_open_paren(left).map_or(left, |at| left.get(at + 1..).unwrap_or_default());
                found.push(expression(operand, known));
            } else if let Some(printed) = left
                .strip_prefix("printf")
                .or_else(|| left.strip_prefix("print"))
            {
                let command = expression(right, known);
                let into_shell = matches!(&command, Call::Code(c)
                    if c.split_whitespace().next().is_some_and(|w| SHELLS.contains(&w)));
                if into_shell {
                    found.push(expression(printed.trim(), known));
                }
                found.push(command);
            }
        }
        found.len() < MAX_CALLS
    });
    found.truncate(MAX_CALLS);
    found
}

/// The program's statements: split at `;`, newlines and braces outside
/// string literals.
fn statements(program: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in code(program) {
        if matches!(c, ';' | '\n' | '{' | '}') {
            out.push(program.get(start..i).unwrap_or_default());
            start = i + c.len_utf8();
        }
    }
    out.push(program.get(start..).unwrap_or_default());
    out
}

/// Where `needle` first occurs in `text` outside string literals.
fn find_outside_strings(text: &str, needle: &str) -> Option<usize> {
    code(text)
        .map(|(i, _)| i)
        .find(|&i| text.get(i..).is_some_and(|r| r.starts_with(needle)))
}

/// Where the last `(` of `text` that is still open at its end stands.
fn last_open_paren(text: &str) -> Option<usize> {
    let mut open = Vec::new();
    for (i, c) in code(text) {
        match c {
            '(' => open.push(i),
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// The text up to the `)` that closes an opened parenthesis.
fn up_to_close(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in code(text) {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return text.get(..i).unwrap_or_default(),
            ')' => depth -= 1,
            _ => {}
        }
    }
    text
}

fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An awk expression joined into the text it yields; `names` are the
/// variables given a string earlier in the program.
fn expression(expr: &str, names: &[(String, String)]) -> Call {
    let expr = expr.trim();
    if let Some((_, value)) = names.iter().find(|(n, _)| n == expr) {
        return Call::Code(value.clone());
    }
    let mut out = String::new();
    let mut known = false;
    let mut in_value = false;
    let mut chars = expr.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                known = true;
                in_value = false;
                let mut escaped = false;
                for d in chars.by_ref() {
                    match d {
                        _ if escaped => {
                            out.push(match d {
                                'n' => '\n',
                                't' => '\t',
                                other => other,
                            });
                            escaped = false;
                        }
                        '\\' => escaped = true,
                        '"' => break,
                        _ => out.push(d),
                    }
                }
            }
            // Separators between values: a space in the text comes only
            // from its literals.
            _ if c.is_whitespace() || matches!(c, '(' | ')' | ',') => in_value = false,
            _ if !in_value => {
                in_value = true;
                out.push_str("$AWK_VALUE");
            }
            _ => {}
        }
    }
    if known {
        Call::Code(out)
    } else {
        Call::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(program: &str) -> Vec<String> {
        shell_calls(program)
            .into_iter()
            .map(|c| match c {
                Call::Code(c) => c,
                Call::Unknown => "?".into(),
            })
            .collect()
    }

    #[test]
    fn commands_of_an_awk_program() {
        assert_eq!(
            codes(r#"BEGIN { system("rm -rf build") }"#),
            ["rm -rf build"]
        );
        assert_eq!(codes(r#"{ system("rm -rf " $1) }"#), ["rm -rf $AWK_VALUE"]);
        assert_eq!(
            codes(r#"BEGIN { print "rm -rf /" | "sh" }"#),
            ["rm -rf /", "sh"]
        );
        assert_eq!(codes(r#"BEGIN { "date" | getline d; print d }"#), ["date"]);
        assert_eq!(
            codes(r#"BEGIN { while (("ls -l" | getline line) > 0) print line }"#),
            ["ls -l"]
        );
        assert_eq!(codes(r#"{ print $1 | "sort -u" }"#), ["sort -u"]);
        assert_eq!(codes("{ system($0) }"), ["?"]);
        assert_eq!(codes(r#"BEGIN{cmd="rm -rf ~"; system(cmd)}"#), ["rm -rf ~"]);
        assert_eq!(
            codes(r#"BEGIN{c = "ls " d; c | getline x}"#),
            ["ls $AWK_VALUE"]
        );
        assert!(codes(r#"{ print $1 }"#).is_empty());
        assert!(codes(r#"$1 == "a" || $2 == "b" { print }"#).is_empty());
        assert!(codes(r#"{ print "system(x) | y" }"#).is_empty());
        assert!(codes(r#"{ mysystem("rm -rf /") }"#).is_empty());
    }
}
