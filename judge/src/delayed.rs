//! Delayed execution is execution: what a command sets up to run later
//! (found by [`crate::checks::later`]: git's program-naming keys, `ext::`
//! URLs, `ssh -o ProxyCommand`, `make --eval`, …) is judged now, as the
//! code it is, with the carrier named in the finding's trail.

use crate::arg::Arg;
use crate::checks::later::{self, Later};
use crate::flow::Flow;
use crate::rule;
use crate::scanner::Scanner;

impl Scanner<'_> {
    /// Judges what `name` run with `args` (the whole command: `argv`) sets
    /// up to run later.
    pub(super) fn delayed(&mut self, name: &str, argv: &[Arg], args: &[Arg]) {
        let found = later::runs(name, args, &|var| self.env_values(var));
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
}
