//! Editors in batch mode as carriers of delayed execution: vim's Ex
//! commands (`-c`, `+`, or read from stdin by `ex` and `vim -es`) that run
//! a shell command, and `emacs --eval` forms that start a process.

use super::Later;
use crate::arg::Arg;
use crate::wrapper::option_values;

/// vim's `-c CMD`, `--cmd CMD` and `+CMD` calling `system()` or
/// `systemlist()` with a quoted string, or reading or writing through a
/// command (`r !cmd`, `w !cmd`, `%!cmd`). (`:!cmd` itself is in
/// [`crate::wrapper`].)
pub(super) fn vim(args: &[Arg], found: &mut Vec<Later>) {
    for command in crate::wrapper::vim_commands(args) {
        for call in ["system(", "systemlist("] {
            for code in string_arguments(&command.text, call) {
                match code {
                    Some(code) => {
                        found.push(Later::Code(
                            code_from(&command, code),
                            "vim system()".into(),
                        ));
                    }
                    None => found.push(Later::Unseen(format!(
                        "vim's {call}…) runs a command given by an expression, not a literal string"
                    ))),
                }
            }
        }
        let text = command.text.trim_start_matches([':', ' ']);
        let filter = text
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '%' | '.' | ',' | '$'))
            .split_once('!')
            .filter(|(head, _)| match head.trim_end() {
                "" | "silent" => true,
                // `:w !cmd` pipes to cmd; `:w! file` only forces the write.
                "r" | "read" | "w" | "write" => head.ends_with(' '),
                _ => false,
            })
            .map(|(_, code)| code);
        if let Some(code) = filter
            && !text.starts_with('!')
            && !text
                .trim_start_matches("silent")
                .trim_start()
                .starts_with('!')
        {
            found.push(Later::Code(
                code_from(&command, code.to_owned()),
                "vim !cmd".into(),
            ));
        }
    }
}

/// Whether vim (by the name `name`) runs Ex commands read from stdin:
/// `ex`, or `-e`/`-E` (alone or with `-s`: `-es`), when no file or `-`
/// names stdin as text to edit.
pub(crate) fn reads_ex_commands(name: &str, args: &[Arg]) -> bool {
    // The name first: every command asks, and the words of an `echo` may
    // be half a million.
    matches!(
        name,
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" | "rvim"
    ) && (name == "ex"
        || args.iter().any(|a| {
            a.exact && matches!(a.text.as_str(), "-e" | "-E" | "-es" | "-Es" | "-se" | "-sE")
        }))
}

/// What Ex commands read from stdin run: each line judged as `-c LINE`
/// would be (`!cmd`, `r !cmd`, `system("…")`).
pub(crate) fn ex_commands(name: &str, text: &str) -> Vec<Later> {
    let mut pseudo = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        pseudo.push(Arg::literal("-c"));
        pseudo.push(Arg::derived(line));
    }
    let mut found: Vec<Later> = crate::wrapper::also_runs(name, &pseudo)
        .into_iter()
        .filter_map(|also| match also {
            crate::wrapper::Also::Code(words) => {
                let code = crate::arg::display_plain(&words);
                Some(Later::Code(
                    Arg::derived(&code),
                    format!("{name} (Ex commands on stdin)"),
                ))
            }
            crate::wrapper::Also::Command(_) => None,
        })
        .collect();
    vim(&pseudo, &mut found);
    found
}

/// `emacs --eval EXPR` (also `-eval`, `--eval=EXPR`): `shell-command`
/// and kin run a string as shell code, `call-process` and kin run a
/// program with arguments; one given by an expression (a variable, a
/// `concat`) is not in the command and warns.
pub(super) fn emacs(args: &[Arg], found: &mut Vec<Later>) {
    // Each function, the argument that is shell code or the program, and
    // where the program's own arguments start (`None`: shell code).
    const CALLS: &[(&str, usize, Option<usize>)] = &[
        ("shell-command", 0, None),
        ("shell-command-to-string", 0, None),
        ("async-shell-command", 0, None),
        ("call-process-shell-command", 0, None),
        ("process-file-shell-command", 0, None),
        ("start-process-shell-command", 2, None),
        ("start-file-process-shell-command", 2, None),
        ("call-process", 0, Some(4)),
        ("process-file", 0, Some(4)),
        ("process-lines", 0, Some(1)),
        ("start-process", 2, Some(3)),
        ("start-file-process", 2, Some(3)),
    ];
    let mut exprs: Vec<Arg> = option_values(args, "", "--eval").flatten().collect();
    exprs.extend(option_values(args, "", "-eval").flatten());
    for expr in exprs {
        for (name, at, rest) in CALLS {
            let open = format!("({name} ");
            for (start, _) in expr.text.match_indices(&open) {
                let form = expr.text.get(start + open.len()..).unwrap_or_default();
                let items = lisp_arguments(form);
                let string = |i: usize| items.get(i).cloned().flatten();
                let via = format!("emacs --eval ({name} …)");
                match (string(*at), rest) {
                    (Some(code), None) => found.push(Later::Code(code_from(&expr, code), via)),
                    (Some(program), Some(from)) => {
                        let mut words = vec![code_from(&expr, program)];
                        for item in items.iter().skip(*from) {
                            words.push(match item {
                                Some(text) => code_from(&expr, text.clone()),
                                None => Arg::unknown("$EXPR", crate::arg::Taint::OPAQUE),
                            });
                        }
                        found.push(Later::Command(words, via));
                    }
                    (None, _) => found.push(Later::Unseen(format!(
                        "emacs --eval runs ({name} …) with a command given by an expression, not a literal string"
                    ))),
                }
            }
        }
    }
}

/// The arguments of a Lisp form, from just after its function's name to
/// its closing parenthesis: each string literal's text, or `None` for
/// anything else (a symbol, a number, a nested form).
fn lisp_arguments(form: &str) -> Vec<Option<String>> {
    let mut items = Vec::new();
    let mut rest = form;
    // Each pass takes one argument or ends, so the loop is bounded.
    for _ in 0..=form.len() {
        rest = rest.trim_start();
        let end = match rest.chars().next() {
            None | Some(')') => break,
            Some('"') => {
                items.push(string_literal(rest));
                closing_quote(rest).unwrap_or(rest.len())
            }
            Some('(') => {
                items.push(None);
                form_end(rest)
            }
            Some(_) => {
                items.push(None);
                rest.find(|c: char| c.is_whitespace() || c == ')' || c == '(')
                    .unwrap_or(rest.len())
            }
        };
        rest = rest.get(end..).unwrap_or_default();
    }
    items
}

/// The byte just past the parenthesis that closes the form `text` starts
/// with (strings inside it skipped); the end of `text` if none does.
fn form_end(text: &str) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// An argument of `code` read as shell code, keeping what `from` knows.
fn code_from(from: &Arg, code: String) -> Arg {
    Arg {
        text: code.into(),
        content: None,
        known_from: 0,
        ..from.clone()
    }
}

/// What follows each `call` in `text` (`system("x")`): the string
/// literal's text, quotes and escapes undone, or `None` when it is not a
/// literal (`system(cmd)`).
fn string_arguments(text: &str, call: &str) -> Vec<Option<String>> {
    text.match_indices(call)
        .map(|(at, _)| string_literal(text.get(at + call.len()..).unwrap_or_default().trim_start()))
        .collect()
}

/// The byte just past the closing quote of the literal `text` starts with.
fn closing_quote(text: &str) -> Option<usize> {
    let quote = text.chars().next()?;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == quote && !escaped => return Some(i + 1),
            _ => escaped = false,
        }
    }
    None
}

/// The string literal (`"…"` or `'…'`) at the start of `text`.
fn string_literal(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let end = closing_quote(text)?;
    let body = text.get(1..end - 1)?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && quote == '"' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lisp_arguments_are_strings_or_unknown() {
        assert_eq!(
            lisp_arguments(r#""x" nil (concat "a" "b") "c\"d") "after""#),
            vec![Some("x".to_owned()), None, None, Some("c\"d".to_owned())]
        );
    }
}
