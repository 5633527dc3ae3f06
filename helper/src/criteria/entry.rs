//! `entry check`: a session spec's entry condition (trekexecute Phase 4),
//! decided by what it names, and never passed when it cannot be decided.
//!
//! The condition is the text after `Entry condition:` in `## Dependencies`.
//! In this order:
//!
//! 1. **none**: `none`, `n/a`, `-`, `nothing`, or text starting with
//!    `none` (`none (first session)`): passes.
//! 2. **previous session**: it mentions a session, a commit or `git log`
//!    and quotes a pattern (`"feat(store):"`): passes when a commit subject
//!    reachable from HEAD contains the pattern (`git log --format=%s`).
//! 3. **git state**: it mentions `git status` or a clean working tree:
//!    passes when `git status --porcelain` prints nothing.
//! 4. **command**: its first backticked span is a command: screened by the
//!    denylist and the criteria runner's allowlist (with the project's
//!    `.voyage/criteria-allow`), then run like a
//!    criterion; passes on exit 0.
//! 5. anything else, a previous session without a quoted pattern, a command
//!    that is blocked or not on the allowlist, or a check that cannot run
//!    (no git repository): **undecided**, for the agent to judge.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::runner::{self, RunError};
use crate::git;
use crate::plan::{Criterion, CriterionForm};
use crate::scan::Context;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum EntryStatus {
    Pass,
    Fail,
    Undecided,
    /// A trekplan: Phase 4 does not apply.
    NotApplicable,
}

impl EntryStatus {
    pub(super) fn word(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAILED",
            Self::Undecided => "UNDECIDED",
            Self::NotApplicable => "NOT APPLICABLE",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum EntryKind {
    None,
    PreviousSession,
    GitState,
    Command,
    Unknown,
}

/// What `entry check --json` prints (schema `entry-check`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EntryReport {
    pub file: String,
    pub status: EntryStatus,
    /// What kind of condition it was read as; `null` for a trekplan.
    pub kind: Option<EntryKind>,
    /// The condition as written.
    pub condition: Option<String>,
    pub line: Option<u32>,
    /// What was run or looked for.
    pub checked: Option<String>,
    /// What that found (the matching commit, the first changed paths, the
    /// command's exit code).
    pub found: Option<String>,
    pub reason: String,
}

impl EntryReport {
    pub(super) fn new(file: String, status: EntryStatus, reason: impl Into<String>) -> Self {
        Self {
            file,
            status,
            kind: None,
            condition: None,
            line: None,
            checked: None,
            found: None,
            reason: reason.into(),
        }
    }
}

/// A decision about one condition.
struct Decision {
    status: EntryStatus,
    kind: EntryKind,
    checked: Option<String>,
    found: Option<String>,
    reason: String,
}

impl Decision {
    fn undecided(kind: EntryKind, reason: impl Into<String>) -> Self {
        Self {
            status: EntryStatus::Undecided,
            kind,
            checked: None,
            found: None,
            reason: reason.into(),
        }
    }
}

/// Decides `condition` (written at `line`) in the repository at `cwd`.
pub(super) fn check(
    report: &mut EntryReport,
    condition: &str,
    line: u32,
    cwd: &Path,
    timeout: Duration,
    ctx: &Context,
) -> Result<(), RunError> {
    let d = decide(condition, line, cwd, timeout, ctx)?;
    report.status = d.status;
    report.kind = Some(d.kind);
    report.condition = Some(condition.to_owned());
    report.line = Some(line);
    report.checked = d.checked;
    report.found = d.found;
    report.reason = d.reason;
    Ok(())
}

/// What a condition asks for, read from its words alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    None,
    /// A previous session's commit, with the quoted pattern to look for
    /// (`None`: it quotes none).
    PreviousSession(Option<String>),
    GitState,
    /// The command in its first backticked span.
    Command(String),
    Unknown,
}

/// Reads `condition` (pure: runs nothing), in the order of the module's
/// documentation.
pub fn read(condition: &str) -> Reading {
    let lower = condition.to_lowercase();
    if is_none(&lower) {
        return Reading::None;
    }
    let command = first_span(condition);
    let mentions_history = lower.contains("session")
        || lower.contains("commit")
        || command.is_some_and(|c| c.starts_with("git log"));
    if mentions_history {
        if let Some(pattern) = quoted(condition) {
            return Reading::PreviousSession(Some(pattern));
        }
        if command.is_none_or(|c| c.starts_with("git log")) {
            return Reading::PreviousSession(None);
        }
    }
    if lower.contains("git status")
        || (lower.contains("clean") && (lower.contains("tree") || lower.contains("git")))
    {
        return Reading::GitState;
    }
    match command {
        Some(command) => Reading::Command(command.to_owned()),
        None => Reading::Unknown,
    }
}

fn decide(
    condition: &str,
    line: u32,
    cwd: &Path,
    timeout: Duration,
    ctx: &Context,
) -> Result<Decision, RunError> {
    Ok(match read(condition) {
        Reading::None => Decision {
            status: EntryStatus::Pass,
            kind: EntryKind::None,
            checked: None,
            found: None,
            reason: "the condition is none".into(),
        },
        Reading::PreviousSession(Some(pattern)) => previous_session(&pattern, cwd),
        Reading::PreviousSession(None) => Decision::undecided(
            EntryKind::PreviousSession,
            "it names a previous session but quotes no commit pattern to look for in git log",
        ),
        Reading::GitState => git_state(cwd),
        Reading::Command(command) => return run_command(&command, line, cwd, timeout, ctx),
        Reading::Unknown => Decision::undecided(
            EntryKind::Unknown,
            "the helper cannot tell what to check: no command in backticks, no git state, no previous session with a quoted commit pattern; judge it yourself",
        ),
    })
}

/// `none`, `n/a`, `-`, or text that starts with the word `none`.
fn is_none(lower: &str) -> bool {
    let t = lower.trim().trim_end_matches('.').trim();
    if matches!(
        t,
        "" | "-" | "—" | "n/a" | "na" | "nothing" | "no prerequisites"
    ) {
        return !t.is_empty();
    }
    t.strip_prefix("none")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
}

/// The content of the first backticked span.
fn first_span(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let len = text.get(start..)?.find('`')?;
    text.get(start..start + len)
        .map(str::trim)
        .filter(|c| !c.is_empty())
}

/// The first text in double quotes (straight or curly) outside backticks.
fn quoted(text: &str) -> Option<String> {
    let mut in_span = false;
    let mut open: Option<(char, String)> = None;
    for c in text.chars() {
        match &mut open {
            Some((close, acc)) => {
                if c == *close {
                    let found = acc.trim().to_owned();
                    if !found.is_empty() {
                        return Some(found);
                    }
                    open = None;
                } else {
                    acc.push(c);
                }
            }
            None => match c {
                '`' => in_span = !in_span,
                '"' if !in_span => open = Some(('"', String::new())),
                '“' if !in_span => open = Some(('”', String::new())),
                _ => {}
            },
        }
    }
    None
}

fn previous_session(pattern: &str, cwd: &Path) -> Decision {
    let checked = format!("git log --format=%s for \"{pattern}\"");
    let out = match git::run(cwd, &["log", "--format=%s%x00"]) {
        Ok(out) if out.ok() => out,
        Ok(out) => {
            return Decision {
                checked: Some(checked),
                ..Decision::undecided(
                    EntryKind::PreviousSession,
                    format!("git log could not be read: {}", out.why()),
                )
            };
        }
        Err(e) => {
            return Decision {
                checked: Some(checked),
                ..Decision::undecided(
                    EntryKind::PreviousSession,
                    format!("git log could not run: {e}"),
                )
            };
        }
    };
    let subjects = out.fields();
    let hit = subjects
        .iter()
        .map(|s| s.trim())
        .find(|s| s.contains(pattern));
    match hit {
        Some(subject) => Decision {
            status: EntryStatus::Pass,
            kind: EntryKind::PreviousSession,
            checked: Some(checked),
            found: Some(subject.to_owned()),
            reason: "a commit of the previous session is in the history".into(),
        },
        None => Decision {
            status: EntryStatus::Fail,
            kind: EntryKind::PreviousSession,
            checked: Some(checked),
            found: None,
            reason: format!(
                "no commit subject among {} contains \"{pattern}\": the previous session is not committed here",
                subjects.len()
            ),
        },
    }
}

fn git_state(cwd: &Path) -> Decision {
    let checked = Some("git status --porcelain".to_owned());
    match git::run(cwd, &["status", "--porcelain"]) {
        Ok(out) if out.ok() => {
            let text = out.text();
            let changed: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if changed.is_empty() {
                Decision {
                    status: EntryStatus::Pass,
                    kind: EntryKind::GitState,
                    checked,
                    found: None,
                    reason: "the working tree is clean".into(),
                }
            } else {
                let shown: Vec<&str> = changed.iter().take(5).copied().collect();
                Decision {
                    status: EntryStatus::Fail,
                    kind: EntryKind::GitState,
                    checked,
                    found: Some(shown.join("; ")),
                    reason: format!(
                        "the working tree is not clean: {} changed or untracked path(s)",
                        changed.len()
                    ),
                }
            }
        }
        Ok(out) => Decision {
            checked,
            ..Decision::undecided(
                EntryKind::GitState,
                format!("git status could not run: {}", out.why()),
            )
        },
        Err(e) => Decision {
            checked,
            ..Decision::undecided(
                EntryKind::GitState,
                format!("git status could not run: {e}"),
            )
        },
    }
}

fn run_command(
    command: &str,
    line: u32,
    cwd: &Path,
    timeout: Duration,
    ctx: &Context,
) -> Result<Decision, RunError> {
    let criterion = Criterion {
        command: command.to_owned(),
        label: String::new(),
        line,
        form: CriterionForm::Bullet,
    };
    let rules = super::screen::Rules::load(cwd);
    let ran = runner::run(&criterion, cwd, timeout, &rules, ctx)?;
    let checked = Some(command.to_owned());
    use super::model::Outcome;
    Ok(match ran.outcome {
        Outcome::Passed => Decision {
            status: EntryStatus::Pass,
            kind: EntryKind::Command,
            checked,
            found: Some("exit 0".into()),
            reason: "the command passed".into(),
        },
        Outcome::Failed => Decision {
            status: EntryStatus::Fail,
            kind: EntryKind::Command,
            checked,
            found: ran.exit_code.map(|c| format!("exit {c}")),
            reason: ran
                .reason
                .unwrap_or_else(|| "the command failed".to_owned()),
        },
        Outcome::Blocked | Outcome::Unrunnable => Decision {
            checked,
            ..Decision::undecided(
                EntryKind::Command,
                format!(
                    "the command was not run ({}): {}",
                    ran.outcome.word().to_lowercase(),
                    ran.reason.unwrap_or_default()
                ),
            )
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_condition() {
        for none in ["none", "None.", "n/a", "-", "none (first session)"] {
            assert!(is_none(&none.to_lowercase()), "{none}");
        }
        for not in ["nonexistent", "", "noneless thing"] {
            assert!(!is_none(not), "{not}");
        }
        assert_eq!(
            quoted("Session 1 committed (`git log --oneline` shows \"feat(store):\")").as_deref(),
            Some("feat(store):")
        );
        assert_eq!(quoted("run `echo \"x\"` first"), None);
        assert_eq!(
            quoted("after “feat(a):” lands").as_deref(),
            Some("feat(a):")
        );
        assert_eq!(first_span("tests pass (`cargo test`)"), Some("cargo test"));
    }
}
