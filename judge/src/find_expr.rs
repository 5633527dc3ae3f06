//! Whether `find`'s `-delete` only reaches files matched by name: the
//! expression read with find's own grammar (`!` over `-a` over `-o` over
//! `,`, parentheses, left to right with short-circuit), so that `-delete`
//! counts as narrowed when a name test comes before it on its own
//! alternative. `find . -name __pycache__ -prune -o -name '*.pyc' -delete`
//! deletes only `*.pyc` files; `find . -name '*.pyc' -o -delete` and
//! `find . -delete -name '*.pyc'` delete everything.

use crate::arg::Arg;

/// The tests that narrow what follows them to files matched by name.
const NAME_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
];

/// Primaries without an argument (every other one takes one, `-exec` and
/// kin take words up to `;` or `+`, `-fprintf` two).
const NO_ARGUMENT: &[&str] = &[
    "-delete",
    "-print",
    "-print0",
    "-prune",
    "-quit",
    "-empty",
    "-true",
    "-false",
    "-ls",
    "-depth",
    "-d",
    "-xdev",
    "-mount",
    "-follow",
    "-nouser",
    "-nogroup",
    "-readable",
    "-writable",
    "-executable",
    "-noleaf",
    "-daystart",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-warn",
    "-nowarn",
];

/// Whether every `-delete` in `expression` (find's words after its start
/// points) comes after a test by name (a pattern with a letter or a digit:
/// `-name '*'` names nothing) or `-empty` on its own alternative, and the
/// expression holds one. A word only known at run time could be any
/// operator, so it leaves the answer false.
pub(crate) fn deletes_only_named(expression: &[Arg]) -> bool {
    if expression.iter().any(|a| !a.exact) {
        return false;
    }
    let mut parser = Parser {
        words: expression,
        at: 0,
        ok: true,
        deletes: 0,
    };
    parser.expression(false);
    parser.ok && parser.deletes > 0 && parser.at >= expression.len()
}

struct Parser<'a> {
    words: &'a [Arg],
    at: usize,
    /// False once a `-delete` was reached without a name test before it.
    ok: bool,
    deletes: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.words.get(self.at).map(|a| a.text.as_str())
    }

    /// Alternatives (`-o`, `,`) until `)` or the end; true when each one
    /// only matches files by name.
    fn expression(&mut self, narrowed: bool) -> bool {
        let mut all = self.conjunction(narrowed);
        while let Some("-o" | "-or" | ",") = self.peek() {
            self.at += 1;
            all &= self.conjunction(narrowed);
        }
        all
    }

    /// Terms joined by `-a` or by nothing, each run only when those before
    /// it matched; true once one of them narrows by name.
    fn conjunction(&mut self, mut narrowed: bool) -> bool {
        loop {
            match self.peek() {
                None | Some("-o" | "-or" | "," | ")") => return narrowed,
                Some("-a" | "-and") => self.at += 1,
                Some(_) => narrowed |= self.term(narrowed),
            }
        }
    }

    /// One term; true when it matches only files by name.
    fn term(&mut self, narrowed: bool) -> bool {
        let Some(word) = self.peek() else {
            return false;
        };
        self.at += 1;
        match word {
            "!" | "-not" => {
                // A negated name test matches everything else.
                self.term(narrowed);
                false
            }
            "(" => {
                let inner = self.expression(narrowed);
                if self.peek() == Some(")") {
                    self.at += 1;
                } else {
                    self.ok = false;
                }
                inner
            }
            "-delete" => {
                self.deletes += 1;
                self.ok &= narrowed;
                false
            }
            "-empty" => true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while let Some(w) = self.peek() {
                    self.at += 1;
                    if w == ";" || w == "+" {
                        break;
                    }
                }
                false
            }
            "-fprintf" => {
                self.at += 2;
                false
            }
            _ if NAME_TESTS.contains(&word) => {
                let pattern = self.peek().unwrap_or_default();
                self.at += 1;
                pattern.chars().any(char::is_alphanumeric)
            }
            _ if NO_ARGUMENT.contains(&word) => false,
            _ => {
                self.at += 1;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(expression: &str) -> bool {
        let words: Vec<Arg> = expression.split_whitespace().map(Arg::literal).collect();
        deletes_only_named(&words)
    }

    #[test]
    fn a_delete_after_a_name_test_on_its_alternative_is_narrowed() {
        for expression in [
            "-name *.pyc -delete",
            "-type f -name *.orig -delete",
            "-name __pycache__ -prune -o -name *.pyc -delete",
            "-path ./node_modules -prune -o -type f -name *.log -delete",
            "( -name *.pyc -o -name *.pyo ) -delete",
            "-name *.tmp ! -path ./keep/* -delete",
            "-name *.bak -a -mtime +7 -delete",
            "-type d -empty -delete",
            "-name *.o -print -delete",
        ] {
            assert!(named(expression), "{expression}");
        }
    }

    #[test]
    fn a_delete_that_reaches_other_files_is_not() {
        for expression in [
            "-delete",
            "-type f -delete",
            "-name *.pyc -o -delete",
            "-delete -name *.pyc",
            "! -name *.rs -delete",
            "-not -name *.rs -delete",
            "-name *.pyc , -delete",
            "( -name *.pyc -o -type f ) -delete",
            "-name * -delete",
            "( -name *.pyc -delete",
            "-name *.pyc",
            "-name *.pyc -prune -o -type f -delete",
        ] {
            assert!(!named(expression), "{expression}");
        }
    }

    #[test]
    fn a_word_only_known_at_run_time_could_be_any_operator() {
        let words = [
            Arg::literal("-name"),
            Arg::literal("*.pyc"),
            Arg::unknown("$OP", crate::arg::Taint::default()),
            Arg::literal("-delete"),
        ];
        assert!(!deletes_only_named(&words));
    }
}
