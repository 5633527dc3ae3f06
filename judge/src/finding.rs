//! What the engine hands back: one [`Finding`] per rule that fired on one
//! command it would run, gathered in a [`Judgement`] with its [`Decision`].

use serde::Serialize;

use crate::rule::{Rule, Severity};

/// Longest command excerpt kept in a finding, in characters.
pub const MAX_EXCERPT_CHARS: usize = 200;

/// One rule that fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static Rule,
    /// The command as the engine judged it, after wrappers, quoting and
    /// expansions it could resolve were taken off (e.g. `rm -rf /` for
    /// `sudo env X=1 "r"m -fr /`); at most [`MAX_EXCERPT_CHARS`].
    pub command: String,
    /// Why this command matched, in a short phrase.
    pub detail: String,
    /// Where it sat, outermost first: `bash -c`, `$(...)`, `xargs`, ...
    /// Empty for a command at the top level.
    pub via: Vec<String>,
    /// What to do instead: the rule's advice, unless the cause calls for
    /// other ([`Finding::advising`]).
    pub instead: &'static str,
}

impl Finding {
    pub fn new(rule: &'static Rule, command: &str, detail: String, via: &[String]) -> Self {
        Self {
            rule,
            command: clip(command, MAX_EXCERPT_CHARS),
            detail,
            via: via.to_vec(),
            instead: rule.instead,
        }
    }

    /// The finding with `instead` as its advice: for a cause the rule's own
    /// advice does not fit (an `unscannable` command that is short and
    /// plain, refused because the check had too little memory, is not
    /// helped by splitting it).
    pub fn advising(self, instead: &'static str) -> Self {
        Self { instead, ..self }
    }

    pub fn severity(&self) -> Severity {
        self.rule.severity
    }

    /// The finding in one line: rule, command, detail, nesting and the safer
    /// alternative. This is the hook's deny reason and warning text.
    pub fn one_line(&self) -> String {
        let mut line = format!(
            "{} ({}): `{}` - {}",
            self.rule.id,
            self.rule.name,
            one_line_text(&self.command),
            self.detail
        );
        if !self.via.is_empty() {
            line.push_str(&format!(" (inside {})", self.via.join(" > ")));
        }
        line.push_str(". Safer: ");
        line.push_str(self.instead);
        line
    }
}

/// Allow, warn or block: the worst severity found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Warn,
    Block,
}

impl Decision {
    /// `PASS`, `WARNING` or `BLOCKED`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Allow => "PASS",
            Self::Warn => "WARNING",
            Self::Block => "BLOCKED",
        }
    }
}

/// Everything the engine found in one command (or one path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// In the order found, without repeats of the same rule on the same
    /// command.
    pub findings: Vec<Finding>,
    /// Every path the command would write, as far as the text says
    /// ([`crate::write_target`]); empty for a path judged alone.
    pub writes: Vec<crate::write_target::WriteTarget>,
    /// The command runs `voyage-helper trek release` (or a `trek`
    /// subcommand the text does not give), which ends a run in progress:
    /// the run's scope refuses it to the agent.
    pub ends_run: bool,
    /// The command runs `voyage-helper trek finish` with `--gate` (or a
    /// `trek` subcommand or argument the text does not give): it answers
    /// the main-merge gate, which in a session nobody watches only the
    /// operator may do.
    pub answers_gate: bool,
    /// The command runs `voyage-helper trek …` (any subcommand), however
    /// the helper is reached: while a step is fenced such a call works only
    /// on its own, outside the fence (see the hook).
    pub runs_trek: bool,
}

impl Judgement {
    pub fn decision(&self) -> Decision {
        self.findings
            .iter()
            .map(|f| match f.severity() {
                Severity::Block => Decision::Block,
                Severity::Warn => Decision::Warn,
            })
            .max()
            .unwrap_or(Decision::Allow)
    }

    /// Findings of one severity.
    pub fn with(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |f| f.severity() == severity)
    }

    /// Adds `finding` unless the same rule already fired on the same command.
    pub fn push(&mut self, finding: Finding) {
        let repeat = self
            .findings
            .iter()
            .any(|f| f.rule.id == finding.rule.id && f.command == finding.command);
        if !repeat {
            self.findings.push(finding);
        }
    }

    /// The findings that decide: blocks when there are any, else warnings.
    pub fn deciding(&self) -> Vec<&Finding> {
        let blocks: Vec<_> = self.with(Severity::Block).collect();
        if blocks.is_empty() {
            self.with(Severity::Warn).collect()
        } else {
            blocks
        }
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Newlines and tabs shown as spaces, so a finding stays on one line.
pub fn one_line_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::{GIT_FORCE_PUSH, RM_RECURSIVE_FORCE};

    #[test]
    fn decision_is_the_worst_severity_and_repeats_are_dropped() {
        let mut j = Judgement::default();
        assert_eq!(j.decision(), Decision::Allow);
        j.push(Finding::new(
            &GIT_FORCE_PUSH,
            "git push -f",
            "-f".into(),
            &[],
        ));
        assert_eq!(j.decision(), Decision::Warn);
        let rm = Finding::new(&RM_RECURSIVE_FORCE, "rm -rf x", "d".into(), &[]);
        j.push(rm.clone());
        j.push(rm);
        assert_eq!(j.decision(), Decision::Block);
        assert_eq!(j.findings.len(), 2);
        assert_eq!(j.deciding().len(), 1);
    }

    #[test]
    fn one_line_names_rule_nesting_and_alternative() {
        let f = Finding::new(
            &RM_RECURSIVE_FORCE,
            "rm -rf\nx",
            "-r and -f".into(),
            &["bash -c".into()],
        );
        let line = f.one_line();
        assert!(line.starts_with("rm-recursive-force (Recursive force delete): `rm -rf x`"));
        assert!(line.contains("(inside bash -c). Safer: "));
        assert!(!line.contains('\n'));
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
