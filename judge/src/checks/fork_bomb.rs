//! Fork bombs (trekexecute Phase 2.4, `:(){ :|:& };:`). In the syntax tree a
//! fork bomb is a function that calls itself in a pipeline or in the
//! background; the walker reports that ([`crate::walk`]) unless the
//! recursion is bounded ([`bounded`]). This file also has a check on the
//! raw text for when the parser rejects the command.
//!
//! A recursion is bounded when every call the function makes of itself
//! runs only while a measure shrinks towards a base case: a counter it
//! passes decremented under a test that bounds it from below (`[ $1 -gt 0 ]
//! && f $(( $1 - 1 ))`), the argument list after a `shift` under a test of
//! `$#` or `$1`, or an entry of a listing it walks (`for d in "$1"/*/`,
//! `ls "$1" | while read e`), and a body that runs a self-call beside
//! another process calls itself once only (two, `f | f` or `f & f`, double
//! the processes at every level whatever the bound). A self-call that is
//! not bounded so, run beside another process, is a fork bomb.

use brush_parser::ast::{
    AndOr, AndOrList, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    CompoundListItem, FunctionBody, Pipeline, SeparatorOperator, SimpleCommand,
};

/// Why a self-calling function was reported.
pub(crate) fn detail(name: &str) -> String {
    format!("function {name} calls itself through a pipe or in the background")
}

/// The classic shape `NAME(){ NAME|NAME& };NAME`, blanks ignored.
pub(crate) fn looks_like(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = squeezed.find("(){") else {
        return false;
    };
    let name = squeezed.get(..open).unwrap_or_default();
    let name = name.rsplit([';', '&', '|']).next().unwrap_or_default();
    !name.is_empty() && squeezed.contains(&format!("{name}|{name}&"))
}

/// A loop without end that starts a process in the background at every
/// turn and never waits (`while :; do $0 & done`, `while true; do sh -c
/// x & done`, `until false; do sleep 9 & done`): processes pile up as fast
/// as the shell can fork, as a self-calling function's do. A loop that can
/// end (`break`, `exit`, `return`) or that waits (`wait`, `sleep` in the
/// foreground) is not one.
pub(crate) fn endless_spawner(condition: &CompoundList, body: &CompoundList, until: bool) -> bool {
    let test = condition.to_string();
    let test = test.trim().trim_end_matches(';').trim();
    let endless = if until {
        matches!(test, "false" | "! :" | "! true")
    } else {
        matches!(test, ":" | "true" | "/bin/true" | "/usr/bin/true")
    };
    if !endless {
        return false;
    }
    let text = body.to_string();
    let ends_or_waits = ["break", "exit", "return", "wait", "read", "sleep"]
        .iter()
        .any(|word| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == *word)
        });
    let foreground_waits = body
        .0
        .iter()
        .any(|CompoundListItem(_, separator)| !matches!(separator, SeparatorOperator::Async));
    let background = body
        .0
        .iter()
        .any(|CompoundListItem(_, separator)| matches!(separator, SeparatorOperator::Async));
    // `sleep 1 &` alone still forks without end; `sleep 1; x &` waits.
    background && !(ends_or_waits && foreground_waits)
}

/// Whether the function `name` with `body` only recurses in a bounded way
/// (the module's documentation says which).
pub(crate) fn bounded(name: &str, body: &FunctionBody) -> bool {
    let mut reader = Recursion {
        name,
        guards: Vec::new(),
        listings: Vec::new(),
        shifted: false,
        fanned: false,
        calls: 0,
        fanned_calls: 0,
        unbounded: false,
    };
    reader.compound(&body.0);
    // Two self-calls of which one runs beside the other (`f | f`, `f & f`)
    // double the processes at every level, whatever the bound.
    !reader.unbounded && (reader.fanned_calls == 0 || reader.calls <= 1)
}

/// A condition the commands being read run under: its text, and whether
/// they run when it fails (`||`, `else`, `until`, after `COND && return`).
struct Guard {
    text: String,
    negated: bool,
}

/// What [`bounded`] knows at each point of the body it reads.
struct Recursion<'n> {
    name: &'n str,
    guards: Vec<Guard>,
    /// Variables holding an entry of a listing a loop walks.
    listings: Vec<String>,
    /// A `shift` came earlier in the body.
    shifted: bool,
    /// The command being read runs beside another process.
    fanned: bool,
    /// Self-calls written in the body, and those of them run beside
    /// another process.
    calls: usize,
    fanned_calls: usize,
    unbounded: bool,
}

impl Recursion<'_> {
    fn list(&mut self, list: &CompoundList) {
        let guards = self.guards.len();
        for CompoundListItem(and_or, separator) in &list.0 {
            let fanned = self.fanned;
            self.fanned |= matches!(separator, SeparatorOperator::Async);
            self.and_or(and_or);
            self.fanned = fanned;
            // `COND || return`, `COND && exit 1`, `if COND; then return; fi`:
            // what follows runs only when COND held (or failed).
            if let Some(guard) = early_exit(and_or) {
                self.guards.push(guard);
            }
        }
        self.guards.truncate(guards);
    }

    fn and_or(&mut self, list: &AndOrList) {
        self.pipeline(&list.first);
        let mut before = list.first.to_string();
        for next in &list.additional {
            let (pipeline, negated) = match next {
                AndOr::And(p) => (p, false),
                AndOr::Or(p) => (p, true),
            };
            self.guards.push(Guard {
                text: before.clone(),
                negated,
            });
            self.pipeline(pipeline);
            self.guards.pop();
            before = format!("{before} {pipeline}");
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        let fanned = self.fanned;
        self.fanned |= pipeline.seq.len() > 1;
        for command in &pipeline.seq {
            self.command(command);
        }
        self.fanned = fanned;
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, _) => self.compound(compound),
            // A function defined inside is another function; a test runs
            // nothing.
            Command::Function(_) | Command::ExtendedTest(..) => {}
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition);
                let mut failed = vec![clause.condition.to_string()];
                self.guarded(&clause.condition.to_string(), false, |s| {
                    s.list(&clause.then)
                });
                for branch in clause.elses.iter().flatten() {
                    let guards = self.guards.len();
                    for text in &failed {
                        self.guards.push(Guard {
                            text: text.clone(),
                            negated: true,
                        });
                    }
                    if let Some(condition) = &branch.condition {
                        self.list(condition);
                        self.guarded(&condition.to_string(), false, |s| s.list(&branch.body));
                        failed.push(condition.to_string());
                    } else {
                        self.list(&branch.body);
                    }
                    self.guards.truncate(guards);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                let until = matches!(compound, CompoundCommand::UntilClause(_));
                self.list(&clause.0);
                let listed = read_variables(&clause.0);
                let known = self.listings.len();
                self.listings.extend(listed);
                self.guarded(&clause.0.to_string(), until, |s| s.list(&clause.1.list));
                self.listings.truncate(known);
            }
            CompoundCommand::ForClause(clause) => {
                let known = self.listings.len();
                let listing = clause
                    .values
                    .iter()
                    .flatten()
                    .any(|w| w.value.contains(['*', '?', '[', '`']) || w.value.contains("$("));
                if listing {
                    self.listings.push(clause.variable_name.clone());
                }
                self.list(&clause.body.list);
                self.listings.truncate(known);
            }
            CompoundCommand::ArithmeticForClause(clause) => {
                let condition = clause
                    .condition
                    .as_ref()
                    .map(|c| c.value.clone())
                    .unwrap_or_default();
                self.guarded(&condition, false, |s| s.list(&clause.body.list));
            }
            CompoundCommand::CaseClause(clause) => {
                for item in &clause.cases {
                    if let Some(body) = &item.cmd {
                        self.guarded(&clause.value.value, false, |s| s.list(body));
                    }
                }
            }
            CompoundCommand::Coprocess(coprocess) => {
                let fanned = std::mem::replace(&mut self.fanned, true);
                self.command(&coprocess.body);
                self.fanned = fanned;
            }
            CompoundCommand::Arithmetic(_) => {}
        }
    }

    fn guarded(&mut self, text: &str, negated: bool, read: impl FnOnce(&mut Self)) {
        self.guards.push(Guard {
            text: text.to_owned(),
            negated,
        });
        read(self);
        self.guards.pop();
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let Some(program) = &simple.word_or_name else {
            return;
        };
        let args: Vec<&str> = simple
            .suffix
            .iter()
            .flat_map(|s| s.0.iter())
            .filter_map(|item| match item {
                CommandPrefixOrSuffixItem::Word(w) => Some(w.value.as_str()),
                _ => None,
            })
            .collect();
        if program.value == "shift" {
            self.shifted = true;
        }
        if program.value != self.name {
            return;
        }
        self.calls += 1;
        if self.fanned {
            self.fanned_calls += 1;
        }
        if !self.call_bounded(&args) {
            self.unbounded = true;
        }
    }

    /// Whether a self-call with `args` shrinks a measure that a guard
    /// around it bounds.
    fn call_bounded(&self, args: &[&str]) -> bool {
        let counter = args.iter().filter_map(|a| decremented(a)).any(|measure| {
            self.guards
                .iter()
                .any(|g| bounds_below(&g.text, &measure, g.negated))
        });
        let rest = self.shifted
            && args.iter().any(|a| a.contains("$@") || a.contains("$*"))
            && self
                .guards
                .iter()
                .any(|g| g.text.contains("$#") || mentions(&g.text, "1"));
        let entry = args
            .iter()
            .any(|a| self.listings.iter().any(|v| mentions(a, v)));
        counter || rest || entry
    }
}

/// The guard an item sets for the items after it in its list: `COND ||
/// return` (what follows runs when COND held), `COND && exit` (when it
/// failed), `if COND; then …; return; fi` (when it failed).
fn early_exit(and_or: &AndOrList) -> Option<Guard> {
    let exits = |text: &str| {
        text.split(|c: char| c.is_whitespace() || matches!(c, ';' | '{' | '}'))
            .any(|w| w == "return" || w == "exit")
    };
    if let [next] = and_or.additional.as_slice() {
        let (pipeline, negated) = match next {
            AndOr::And(p) => (p, true),
            AndOr::Or(p) => (p, false),
        };
        return exits(&pipeline.to_string()).then(|| Guard {
            text: and_or.first.to_string(),
            negated,
        });
    }
    let [Command::Compound(CompoundCommand::IfClause(clause), _)] = and_or.first.seq.as_slice()
    else {
        return None;
    };
    (and_or.additional.is_empty() && clause.elses.is_none() && exits(&clause.then.to_string()))
        .then(|| Guard {
            text: clause.condition.to_string(),
            negated: true,
        })
}

/// The variables `while read … VAR` sets in a loop's condition.
fn read_variables(condition: &CompoundList) -> Vec<String> {
    let text = condition.to_string();
    let mut words = text.split_whitespace();
    if !words.any(|w| w == "read") {
        return Vec::new();
    }
    words
        .take_while(|w| !matches!(*w, ";" | "&&" | "||" | "|"))
        .map(|w| w.trim_end_matches(';'))
        .filter(|w| !w.starts_with('-') && is_name(w))
        .map(str::to_owned)
        .collect()
}

fn is_name(word: &str) -> bool {
    !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !word.starts_with(|c: char| c.is_ascii_digit())
}

/// The measure an argument decrements: `$(( $1 - 1 ))`, `$((n-2))`,
/// `$(( ${1} / 2 ))`, `$((n >> 1))` give `1`, `n`, `1`, `n`.
fn decremented(arg: &str) -> Option<String> {
    let arg = arg.trim_matches('"');
    let inner = arg.strip_prefix("$((")?.strip_suffix("))")?;
    let (left, right) = ["-", "/", ">>"]
        .iter()
        .find_map(|op| inner.split_once(op))?;
    let step = right.trim();
    if step.is_empty()
        || !step.bytes().all(|b| b.is_ascii_digit())
        || step.bytes().all(|b| b == b'0')
    {
        return None;
    }
    let measure = left
        .trim()
        .trim_start_matches('$')
        .trim_start_matches('{')
        .trim_end_matches('}');
    (is_name(measure) || (measure.len() == 1 && measure.bytes().all(|b| b.is_ascii_digit())))
        .then(|| measure.to_owned())
}

/// Whether `text` names the variable or parameter `name` (`$name`,
/// `${name}`, or bare inside arithmetic).
fn mentions(text: &str, name: &str) -> bool {
    tokens(text).iter().any(|t| t == name)
}

/// The words of a test, with quotes, brackets and `$` taken off and the
/// comparison operators of `(( ))` set apart: `[ "$1" -gt 0 ]` is `1 -gt
/// 0`, `((n>=1))` is `n >= 1`.
fn tokens(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' | '>' | '=' | '!' => {
                spaced.push(' ');
                spaced.push(c);
                if chars.peek() == Some(&'=') {
                    spaced.push('=');
                    chars.next();
                }
                spaced.push(' ');
            }
            '"' | '\'' | '[' | ']' | '(' | ')' | '$' | '{' | '}' | ';' => spaced.push(' '),
            _ => spaced.push(c),
        }
    }
    spaced.split_whitespace().map(str::to_owned).collect()
}

/// Whether the guard `text` (held, or failed when `negated`) keeps
/// `measure` above some value: `M -gt X`, `X -lt M`, `M > X`, …; failed:
/// `M -le X`, `M -eq X`, `M <= X`, ….
fn bounds_below(text: &str, measure: &str, negated: bool) -> bool {
    let tokens = tokens(text);
    tokens.windows(3).any(|w| {
        let [a, op, b] = w else { return false };
        let (mine, flipped) = if a == measure {
            (op.as_str(), false)
        } else if b == measure {
            (op.as_str(), true)
        } else {
            return false;
        };
        // As if written `M op X`.
        let op = match (mine, flipped) {
            ("-gt" | ">", false) | ("-lt" | "<", true) => ">",
            ("-ge" | ">=", false) | ("-le" | "<=", true) => ">=",
            ("-lt" | "<", false) | ("-gt" | ">", true) => "<",
            ("-le" | "<=", false) | ("-ge" | ">=", true) => "<=",
            ("-eq" | "==", _) => "==",
            _ => return false,
        };
        if negated {
            matches!(op, "<" | "<=" | "==")
        } else {
            matches!(op, ">" | ">=")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_shapes() {
        assert!(looks_like(":(){ :|:& };:"));
        assert!(looks_like("bomb() { bomb | bomb & }; bomb"));
        assert!(!looks_like("f() { echo hi; }; f"));
    }

    /// The body of the first function `text` defines.
    fn body_of(text: &str) -> (String, FunctionBody) {
        let Ok(crate::parse::Parsed::Tree(program)) = crate::parse::parse(text) else {
            panic!("{text} does not parse");
        };
        let item = program
            .complete_commands
            .first()
            .and_then(|list| list.0.first())
            .map(|CompoundListItem(and_or, _)| and_or);
        let Some(Command::Function(definition)) = item.and_then(|a| a.first.seq.first()) else {
            panic!("{text} defines no function first");
        };
        (definition.fname.value.clone(), definition.body.clone())
    }

    #[test]
    fn bounded_recursion() {
        for text in [
            "f() { [ $1 -gt 0 ] && f $(( $1 - 1 )) | cat; }",
            "f() { [ $1 -gt 0 ] && f $(( $1 - 1 )) & }",
            "f() { [ \"$1\" -le 0 ] && return; f \"$(( $1 - 1 ))\" & wait; }",
            "f() { if [ $1 -le 1 ]; then echo 1; else f $(( $1 - 1 )) | cat; fi; }",
            "f() { local n=$1; (( n > 0 )) || return; echo $n | cat; f $((n-1)) & }",
            "f() { [[ $1 -gt 0 ]] && { echo $1; f $(( $1 / 2 )) & }; wait; }",
            "walk() { for d in \"$1\"/*/; do [ -d \"$d\" ] && walk \"$d\" & done; wait; }",
            "tree() { ls \"$1\" | while read -r e; do [ -d \"$1/$e\" ] && tree \"$1/$e\"; done; }",
            "sum() { [ $# -eq 0 ] && return; shift; sum \"$@\" & }",
            "f() { echo hi; }",
        ] {
            let (name, body) = body_of(text);
            assert!(bounded(&name, &body), "{text}");
        }
        for text in [
            ":() { :|:& }",
            "bomb() { bomb | bomb & }",
            "f() { f & f; }",
            "f() { f | cat & }",
            "f() { true && f $(( $1 - 1 )) & }",
            "f() { [ $1 -gt 0 ] && f $(( $1 + 1 )) & }",
            "f() { [ $1 -lt 100 ] && f $(( $1 - 1 )) & }",
            "f() { [ $1 -gt 0 ] && f $1 & }",
            "f() { [ -n \"$1\" ] && f \"$1/x\" & }",
            "f() { [ $1 -gt 0 ] && f $(( $1 - 1 )) | f $(( $1 - 1 )); }",
            "f() { [ $1 -gt 0 ] || return; f $(( $1 - 1 )) & f $(( $1 - 1 )); wait; }",
            "f() { for x in a b; do f $x & done; }",
            "f() { [ $# -gt 0 ] && f \"$@\" & }",
            "f() { while :; do f & done; }",
        ] {
            let (name, body) = body_of(text);
            assert!(!bounded(&name, &body), "{text}");
        }
    }
}
