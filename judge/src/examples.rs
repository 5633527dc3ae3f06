//! The rule table's examples as a check: every command a rule lists under
//! `block:` or `warn:` must be reported by that rule at its severity, and
//! every look-alike under `allow:` must not be reported by it. The judge's
//! tests, the helper's hook test and `voyage-helper scan rules --check` all
//! judge the examples by [`Example::fault`], so they cannot disagree on
//! what passing means.

use serde::Serialize;

use crate::engine::judge_command;
use crate::finding::{Decision, Judgement};
use crate::rule::{RULES, Rule, Severity};
use crate::scanner::Context;

/// What an example says the rule does with its command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Reported by the rule, at the rule's severity.
    Reports,
    /// Not reported by the rule (another rule may report it).
    Allows,
}

/// One example of the table.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub rule: &'static Rule,
    pub command: &'static str,
    pub expect: Expect,
}

/// What a judge answered: its decision and the rules it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub decision: Decision,
    pub rules: Vec<String>,
}

impl Outcome {
    /// Every rule the engine found, and its decision.
    pub fn of(judgement: &Judgement) -> Self {
        Self {
            decision: judgement.decision(),
            rules: judgement
                .findings
                .iter()
                .map(|f| f.rule.id.to_owned())
                .collect(),
        }
    }

    /// `block (rm-recursive-force, opaque-command)`, or `allow`.
    pub fn describe(&self) -> String {
        let decision = match self.decision {
            Decision::Block => "block",
            Decision::Warn => "warn",
            Decision::Allow => "allow",
        };
        if self.rules.is_empty() {
            decision.to_owned()
        } else {
            format!("{decision} ({})", self.rules.join(", "))
        }
    }
}

/// Every example of every rule, in the table's order.
pub fn all() -> impl Iterator<Item = Example> {
    RULES.iter().flat_map(|rule| {
        let reports = rule.reports.iter().map(move |command| Example {
            rule,
            command,
            expect: Expect::Reports,
        });
        let allows = rule.allows.iter().map(move |command| Example {
            rule,
            command,
            expect: Expect::Allows,
        });
        reports.chain(allows)
    })
}

impl Example {
    /// `block`, `warn` or `allow`: what the example wants of its rule.
    pub fn wants(&self) -> &'static str {
        match (self.expect, self.rule.severity) {
            (Expect::Allows, _) => "allow",
            (Expect::Reports, Severity::Block) => "block",
            (Expect::Reports, Severity::Warn) => "warn",
        }
    }

    /// Why `outcome` is wrong for this example, or `None` when it is right.
    /// A reported example needs the decision of the rule's severity with
    /// the rule among those named (a block hides a warning, so a warn
    /// example that is blocked fails); an allowed one only needs the rule
    /// absent.
    pub fn fault(&self, outcome: &Outcome) -> Option<String> {
        let named = outcome.rules.iter().any(|r| r == self.rule.id);
        let right = match self.expect {
            Expect::Reports => {
                named
                    && outcome.decision
                        == match self.rule.severity {
                            Severity::Block => Decision::Block,
                            Severity::Warn => Decision::Warn,
                        }
            }
            Expect::Allows => !named,
        };
        (!right).then(|| {
            let should = match self.expect {
                Expect::Reports => format!("be reported ({}) as", self.wants()),
                Expect::Allows => "not be reported as".to_owned(),
            };
            format!(
                "`{}` should {should} {}, got {}",
                self.command,
                self.rule.id,
                outcome.describe()
            )
        })
    }

    /// This example judged by the engine in `ctx`: `None` when it passes.
    pub fn check(&self, ctx: &Context) -> Option<String> {
        self.fault(&Outcome::of(&judge_command(self.command, ctx)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The table's promise: at least two of each list per rule, no command
    /// listed twice, and every example judged as its rule says.
    #[test]
    fn every_example_of_the_table_is_judged_as_it_says() {
        let mut seen = HashSet::new();
        for rule in RULES {
            assert!(rule.reports.len() >= 2, "{}: too few to report", rule.id);
            assert!(rule.allows.len() >= 2, "{}: too few to allow", rule.id);
        }
        let ctx = Context {
            home: Some("/home/user".into()),
        };
        let mut faults = Vec::new();
        for example in all() {
            assert!(
                seen.insert((example.rule.id, example.command)),
                "{}: `{}` listed twice",
                example.rule.id,
                example.command
            );
            faults.extend(example.check(&ctx));
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn a_fault_names_the_command_the_rule_and_what_came_back() {
        let example = Example {
            rule: &crate::rule::RM_RECURSIVE_FORCE,
            command: "rm -r build",
            expect: Expect::Reports,
        };
        let ctx = Context::default();
        assert_eq!(
            example.check(&ctx).as_deref(),
            Some("`rm -r build` should be reported (block) as rm-recursive-force, got allow")
        );
        let warned = Outcome {
            decision: Decision::Warn,
            rules: vec!["rm-recursive-force".into()],
        };
        assert!(example.fault(&warned).is_some(), "a warning is not a block");
        let allowed = Example {
            expect: Expect::Allows,
            ..example
        };
        assert_eq!(allowed.check(&ctx), None);
    }
}
