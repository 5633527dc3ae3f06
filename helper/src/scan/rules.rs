//! `scan rules`: the rule table as a person or a script reads it, and its
//! self-check (`--check`): every example of every rule judged by the engine
//! and answered as the hook answers Claude, each held to what its rule says
//! ([`Example::fault`]). The rule lines of `scan command --help` come from
//! here too, so no list of rule ids is kept by hand.

use std::io::{self, Write};

use serde::Serialize;

use super::examples::{self, Example, Outcome};
use super::finding::Decision;
use super::hook;
use super::rule::{RULES, Rule};
use super::{Context, judge_command};
use crate::exit;

/// The rules as `--help` lists them: one line each, the id, the severity
/// and the pattern name, in the table's order.
pub(crate) fn help_lines() -> String {
    let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut text = String::from(
        "RULES (id, severity, name; `voyage-helper scan rules --json` adds what each catches, \
         the safer alternative and the examples `scan rules --check` runs):\n",
    );
    for rule in RULES {
        text.push_str(&format!(
            "  {:width$}  {:5}  {}\n",
            rule.id,
            severity(rule),
            rule.name
        ));
    }
    text
}

fn severity(rule: &Rule) -> &'static str {
    match rule.severity {
        super::rule::Severity::Block => "block",
        super::rule::Severity::Warn => "warn",
    }
}

/// An example judged wrong.
#[derive(Debug, Serialize)]
struct Failure {
    rule: &'static str,
    command: &'static str,
    /// `block`, `warn` (reported at that severity) or `allow` (not by
    /// this rule).
    wants: &'static str,
    /// What came back.
    got: Decision,
    /// The rules named.
    rules: Vec<String>,
    /// `engine`, or `hook` (the engine's judgement as the hook words it).
    through: &'static str,
    /// One line: the command, the rule, what was wanted and what came back.
    message: String,
}

/// What `--check` found: how many examples ran, and the ones judged wrong.
#[derive(Debug, Serialize)]
struct Check {
    examples: usize,
    failures: Vec<Failure>,
}

/// Every example judged in `ctx` by the engine, and its judgement answered
/// as the hook would answer it.
fn check(ctx: &Context) -> Check {
    let mut examples_run = 0;
    let mut failures = Vec::new();
    for example in examples::all() {
        examples_run += 1;
        let judgement = judge_command(example.command, ctx);
        let engine = Outcome::of(&judgement);
        let hooked = hook::outcome(&hook::denylist_answer(&judgement));
        for (through, outcome) in [("engine", engine), ("hook", hooked)] {
            if let Some(message) = example.fault(&outcome) {
                failures.push(failure(&example, through, outcome, message));
            }
        }
    }
    Check {
        examples: examples_run,
        failures,
    }
}

fn failure(example: &Example, through: &'static str, outcome: Outcome, message: String) -> Failure {
    Failure {
        rule: example.rule.id,
        command: example.command,
        wants: example.wants(),
        got: outcome.decision,
        rules: outcome.rules,
        through,
        message,
    }
}

/// `scan rules --json`.
#[derive(Serialize)]
struct RulesJson<'a> {
    rules: &'a [&'static Rule],
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<&'a Check>,
}

/// `scan rules`: 0 listed (or every example passed), 1 an example failed
/// `--check`; a write error of `out` is returned.
pub(crate) fn execute(
    json: bool,
    run_check: bool,
    ctx: &Context,
    out: &mut impl Write,
) -> io::Result<u8> {
    let checked = run_check.then(|| check(ctx));
    if json {
        serde_json::to_writer(
            &mut *out,
            &RulesJson {
                rules: RULES,
                check: checked.as_ref(),
            },
        )?;
        writeln!(out)?;
    } else if let Some(checked) = &checked {
        for failure in &checked.failures {
            writeln!(
                out,
                "FAIL {} ({}): {}",
                failure.rule, failure.through, failure.message
            )?;
        }
        let result = if checked.failures.is_empty() {
            "PASS"
        } else {
            "FAILED"
        };
        writeln!(
            out,
            "RESULT: {result} ({} examples of {} rules, {} failed)",
            checked.examples,
            RULES.len(),
            checked.failures.len()
        )?;
    } else {
        let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
        for rule in RULES {
            writeln!(
                out,
                "{:width$}  {:5}  {}",
                rule.id,
                severity(rule),
                rule.name
            )?;
        }
    }
    out.flush()?;
    Ok(match checked {
        Some(checked) if !checked.failures.is_empty() => exit::NOT_OK,
        _ => exit::OK,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table passes its own check, through the engine and the hook's
    /// wording alike.
    #[test]
    fn every_example_passes_through_engine_and_hook() {
        let ctx = Context {
            home: Some("/home/user".into()),
        };
        let checked = check(&ctx);
        let messages: Vec<&str> = checked
            .failures
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        assert!(messages.is_empty(), "{}", messages.join("\n"));
        assert_eq!(checked.examples, examples::all().count());
    }

    #[test]
    fn help_lists_every_rule_once() {
        let help = help_lines();
        for rule in RULES {
            let lines = help
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(rule.id))
                .count();
            assert_eq!(lines, 1, "{}", rule.id);
        }
    }
}
