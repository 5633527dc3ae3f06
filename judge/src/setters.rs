//! The builtins that set variables from text: `read`, `mapfile` (and its
//! other name `readarray`) and `printf -v`. What they read is a [`Flow`], so
//! a variable filled from a here-string holds that text, and one filled
//! from a download holds a download ([`crate::vars`]). Also what bash does
//! later with a variable set here or by an assignment
//! ([`Scanner::assigned`]): `PROMPT_COMMAND` is run, the prompts and
//! `BASH_ENV`/`ENV` are expanded (and the latter sourced), an integer
//! variable's value is arithmetic, and a nameref's assignment sets its
//! target.

use crate::arg::{Arg, Taint};
use crate::flow::Flow;
use crate::getopt::{self, Opt, Spec};
use crate::scanner::Scanner;
use crate::vars::{self, Value};

const READ: Spec = Spec::new("adinNptu", &[]).posix();
const MAPFILE: Spec = Spec::new("dnOsuCc", &[]).posix();

impl Scanner<'_> {
    /// Records what `name args` assigns, reading `stdin`; false when `name`
    /// sets no variable.
    pub(super) fn sets_variables(&mut self, name: &str, args: &[Arg], stdin: &Flow) -> bool {
        match name {
            "read" => self.read(args, stdin),
            "mapfile" | "readarray" => self.mapfile(args, stdin),
            "printf" => self.printf_v(args),
            "set" | "shift" => {
                self.set_positional(name, args);
                return false;
            }
            _ => return false,
        }
        true
    }

    /// The variable an assignment to `name` sets: the target of a nameref
    /// (`declare -n r=PROMPT_COMMAND; r=…` sets PROMPT_COMMAND).
    pub(super) fn nameref_target(&self, name: &str) -> String {
        let mut name = name.to_owned();
        for _ in 0..8 {
            match self.namerefs.iter().find(|(n, _)| *n == name) {
                Some((_, target)) => name.clone_from(target),
                None => break,
            }
        }
        name
    }

    /// Judges `name=value` for what bash does with the variable later:
    /// the history switches ([`crate::checks::history`]), and the
    /// variables bash runs as code or expands with their substitutions:
    /// `PROMPT_COMMAND` (run before each prompt), the prompts `PS0`…`PS4`
    /// and `BASH_ENV`/`ENV` (expanded, then sourced by the next shell).
    pub(super) fn assigned(&mut self, name: &str, value: &Arg) {
        if let Some(hit) = crate::checks::history::check_variable(name, Some(&value.text)) {
            let words = [Arg::literal(&format!("{name}={}", value.text))];
            self.report(hit.rule, &words, hit.detail);
        }
        // `declare -i n; n=EXPR` evaluates EXPR as arithmetic.
        if self.integers.iter().any(|n| n == name) {
            self.evaluate(&value.text, value.exact);
        }
        match name {
            "PROMPT_COMMAND" => {
                self.code(
                    "PROMPT_COMMAND",
                    std::slice::from_ref(value),
                    &Flow::inherited(),
                );
            }
            "PS0" | "PS1" | "PS2" | "PS3" | "PS4" | "BASH_ENV" | "ENV" if value.exact => {
                self.substitutions_in(&value.text, name);
            }
            _ => {}
        }
        if matches!(name, "BASH_ENV" | "ENV") {
            match &value.content {
                // `BASH_ENV=<(echo …)`: the code the shell will source.
                Some(code) => {
                    self.nested(code, &format!("{name}=<(...)"), &Flow::inherited());
                }
                // A descriptor (`/dev/stdin`, `/dev/fd/3`) is read by the
                // shell that starts, with the descriptors it is given.
                None if crate::descriptors::descriptor_of(&value.text).is_some() => {}
                None => {
                    let argv = [Arg::literal(name), value.clone()];
                    self.source(&argv, std::slice::from_ref(value), &Flow::inherited());
                }
            }
        }
    }

    /// `export NAME=VALUE` and the other declaration builtins, where the
    /// word only became an assignment through an expansion (`export "$v"`);
    /// words written as assignments were recorded when the command was
    /// walked.
    pub(super) fn declares(&mut self, name: &str, args: &[Arg]) {
        if !matches!(
            name,
            "export" | "declare" | "typeset" | "local" | "readonly"
        ) {
            return;
        }
        // `declare -n r=X`: r names X; it takes X's values (as they are now).
        let flag = |letter: char| {
            args.iter()
                .filter_map(Arg::exact_text)
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
        };
        let nameref = name != "export" && flag('n');
        let integer = name != "export" && flag('i');
        for arg in args.iter().filter(|a| !a.text.starts_with(['-', '+'])) {
            if integer {
                let variable = arg
                    .text
                    .split_once('=')
                    .map_or(arg.text.as_str(), |(n, _)| n);
                self.integers
                    .push(variable.trim_end_matches('+').to_owned());
            }
            let Some((variable, value)) = arg.text.split_once('=') else {
                continue;
            };
            let variable = variable.trim_end_matches('+');
            let identifier = variable.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && variable
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !identifier || value.starts_with('(') {
                continue;
            }
            if nameref {
                self.namerefs.retain(|(n, _)| n != variable);
                self.namerefs.push((variable.to_owned(), value.to_owned()));
                if let Some(target) = self.vars.get(value).map(<[Value]>::to_vec) {
                    self.vars.assign(variable, target, false);
                }
                continue;
            }
            let variable = self.nameref_target(variable);
            let variable = variable.as_str();
            // Reported as the assignment it is, so that one written as an
            // assignment word (already judged by the walk) is one finding.
            if arg.exact {
                self.assigned(variable, &Arg::literal(value));
            }
            let value = Arg {
                text: value.into(),
                known_from: crate::arg::offset(arg.known_at().saturating_sub(variable.len() + 1)),
                ..arg.clone()
            };
            self.vars
                .assign(variable, vec![Value::Scalar(value)], false);
        }
    }

    /// `set -- A B…` (or `set A B…`) and `shift [N]`: the positional
    /// parameters.
    fn set_positional(&mut self, name: &str, args: &[Arg]) {
        if name == "shift" {
            let n = args
                .first()
                .and_then(|a| a.exact_text()?.parse::<usize>().ok())
                .unwrap_or(1);
            if let Some(known) = self.vars.positional.as_mut() {
                known.args.drain(..n.min(known.args.len()));
            }
            return;
        }
        let rest = match args.iter().position(|a| a.is("--")) {
            Some(at) => args.get(at + 1..).unwrap_or_default(),
            None if args
                .first()
                .is_some_and(|a| !a.text.starts_with(['-', '+'])) =>
            {
                args
            }
            None => return,
        };
        let zero = self.vars.positional.as_ref().and_then(|p| p.zero.clone());
        self.vars.positional = Some(crate::vars::Positional {
            zero,
            args: rest.to_vec(),
        });
    }

    fn read(&mut self, args: &[Arg], stdin: &Flow) {
        let parsed = getopt::parse(args, &READ);
        let array = parsed
            .opts
            .iter()
            .find(|(o, _)| *o == Opt::Short('a'))
            .and_then(|(_, v)| *v);
        let names: Vec<String> = args
            .get(parsed.rest..)
            .unwrap_or_default()
            .iter()
            .filter_map(|a| a.exact_text().map(str::to_owned))
            .collect();
        let ifs = self.vars.ifs();
        let Some(text) = stdin.literal_text() else {
            // Text only known at run time, carrying what it came from.
            let taint = stdin.taint;
            for name in array.into_iter().map(str::to_owned).chain(names) {
                let value = Value::unknown(&format!("${name}"), taint);
                self.vars.assign(&name, vec![value], false);
            }
            return;
        };
        // `read` takes one line; each line of a text made of alternatives
        // (see `expand_heredoc`) is one value it may get.
        let lines: Vec<&str> = text.lines().take(vars::MAX_VALUES).collect();
        let lines = if lines.is_empty() { vec![""] } else { lines };
        if let Some(array) = array {
            let values = lines
                .iter()
                .map(|line| Value::Array(literal_fields(line, &ifs)))
                .collect();
            self.vars.assign(array, values, false);
            return;
        }
        let names = if names.is_empty() {
            vec!["REPLY".to_owned()]
        } else {
            names
        };
        let mut each: Vec<Vec<Value>> = vec![Vec::new(); names.len()];
        for line in &lines {
            for (slot, value) in each.iter_mut().zip(split_for_read(line, &ifs, names.len())) {
                slot.push(Value::Scalar(Arg::literal(&value)));
            }
        }
        for (name, values) in names.iter().zip(each) {
            self.vars.assign(name, values, false);
        }
    }

    fn mapfile(&mut self, args: &[Arg], stdin: &Flow) {
        let parsed = getopt::parse(args, &MAPFILE);
        let name = args
            .get(parsed.rest)
            .and_then(Arg::exact_text)
            .unwrap_or("MAPFILE")
            .to_owned();
        let value = match stdin.literal_text() {
            Some(text) => Value::Array(text.lines().map(Arg::literal).collect()),
            None => Value::unknown(&format!("${name}"), stdin.taint),
        };
        self.vars.assign(&name, vec![value], false);
    }

    /// `printf -v NAME FORMAT ARGS`: NAME gets what printf would print.
    fn printf_v(&mut self, args: &[Arg]) {
        let Some(at) = args.iter().position(|a| a.is("-v")) else {
            return;
        };
        let Some(name) = args.get(at + 1).and_then(Arg::exact_text) else {
            return;
        };
        let rest = args.get(at + 2..).unwrap_or_default();
        let value = match crate::call::printf(rest).literal_text() {
            Some(text) => Arg::literal(text),
            None => Arg::unknown(&format!("${name}"), Taint::OPAQUE),
        };
        self.vars.assign(name, vec![Value::Scalar(value)], false);
    }
}

/// The fields of `line` split on `ifs`, as `read -a` makes them.
fn literal_fields(line: &str, ifs: &str) -> Vec<Arg> {
    vars::split(line, ifs)
        .into_iter()
        .map(Arg::literal)
        .collect()
}

/// `line` cut for `read A B C`: one field each, the last taking the rest.
fn split_for_read(line: &str, ifs: &str, names: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim_start_matches(|c: char| ifs.contains(c) && c.is_whitespace());
    while out.len() + 1 < names {
        let end = rest.find(|c| ifs.contains(c)).unwrap_or(rest.len());
        out.push(rest.get(..end).unwrap_or_default().to_owned());
        rest = rest
            .get(end..)
            .unwrap_or_default()
            .trim_start_matches(|c| ifs.contains(c));
    }
    out.push(
        rest.trim_end_matches(|c: char| ifs.contains(c) && c.is_whitespace())
            .to_owned(),
    );
    out.resize(names, String::new());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_splits_like_bash() {
        let ifs = vars::DEFAULT_IFS;
        assert_eq!(split_for_read("  rm -rf / ", ifs, 1), ["rm -rf /"]);
        assert_eq!(split_for_read("rm -rf /", ifs, 2), ["rm", "-rf /"]);
        assert_eq!(split_for_read("rm", ifs, 3), ["rm", "", ""]);
        assert_eq!(split_for_read("a,b,c", ",", 2), ["a", "b,c"]);
    }
}
