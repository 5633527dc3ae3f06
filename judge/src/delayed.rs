//! Delayed execution is execution: what a command sets up to run later
//! (found by [`crate::checks::later`]: git's program-naming keys, `ext::`
//! URLs, `ssh -o ProxyCommand`, `make --eval`, …) is judged now, as the
//! code it is, with the carrier named in the finding's trail.

use crate::arg::Arg;
use crate::checks::later::{self, Later};
use crate::flow::Flow;
use crate::rule;
use crate::scanner::Scanner;
use crate::vars::Value;

impl Scanner<'_> {
    /// Judges what `name` run with `args` (the whole command: `argv`) sets
    /// up to run later.
    pub(super) fn delayed(&mut self, name: &str, argv: &[Arg], args: &[Arg], stdin: &Flow) {
        let mut found = later::runs(name, args, &|var| self.env_values(var));
        // vim in Ex mode (`ex`, `vim -es`) runs the Ex commands it reads.
        if later::reads_ex_commands(name, args)
            && !self.refuse_hostile(stdin.taint, argv, "runs it as editor commands")
            && let Some(text) = stdin.literal_text()
        {
            found.extend(later::ex_commands(name, text));
        }
        for item in found {
            match item {
                Later::Code(code, via) => {
                    self.code(&via, std::slice::from_ref(&code), &Flow::inherited());
                }
                Later::Command(words, via) => {
                    self.inside(&via, |s| s.call(&words, &Flow::inherited()));
                }
                Later::Makefile(text, via) => self.makefile(&text.text, &via),
                Later::Unseen(detail) => self.report(&rule::OPAQUE, argv, detail),
                Later::Hooks(detail) => self.report(&rule::GIT_HOOKS, argv, detail),
            }
        }
    }

    /// Judges the code a makefile's text runs: its `$(shell …)` calls
    /// when make reads it, and its recipes.
    pub(super) fn makefile(&mut self, text: &str, via: &str) {
        let mut code = later::make_shell_calls(text);
        code.extend(crate::call::recipes(text));
        for line in code {
            self.nested(&line, via, &Flow::inherited());
        }
    }

    /// Runs `walk` with each `NAME=VALUE` of `words` set (as `env
    /// NAME=VALUE CMD` sets them for CMD alone, so that what CMD reads from
    /// its environment, `GIT_PAGER` or `GIT_SSH_COMMAND`, is judged), then
    /// puts back what the names held.
    pub(super) fn with_env_words<T>(
        &mut self,
        words: &[Arg],
        walk: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let mut saved = Vec::new();
        for word in words {
            let Some((name, value)) = later::split_setting(word) else {
                continue;
            };
            let valid = name.exact
                && !name.text.starts_with(|c: char| c.is_ascii_digit())
                && name
                    .text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid || name.text.is_empty() {
                continue;
            }
            let before = self.vars.take(&name.text);
            self.vars.put(&name.text, Some(vec![Value::Scalar(value)]));
            saved.push((name.text, before));
        }
        let out = walk(self);
        for (name, before) in saved.into_iter().rev() {
            self.vars.put(&name, before);
        }
        out
    }
}
