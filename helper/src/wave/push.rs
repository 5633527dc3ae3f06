//! Hard rule 19's pushes: before a session branch is merged, `wave
//! collect` pushes it to `origin`, so that the work survives on the remote
//! once the branch is deleted here. This module decides whether a call
//! pushes at all (`--no-push`, `VOYAGE_NO_PUSH=1`, or the choice an
//! earlier call of the same run kept in its records; no `origin`: nothing
//! is attempted), makes one push, and words both for the replies.

use std::path::Path;

use serde::Serialize;

use super::context::git;
use crate::orders::{Fail, Layout};

/// The only remote pushed to (the seed's `git push origin BRANCH`).
pub(crate) const REMOTE: &str = "origin";
/// Set to anything but empty or `0`, it turns the pushes off.
pub(crate) const ENV: &str = "VOYAGE_NO_PUSH";

/// What a run does about pushes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub(crate) enum Pushes {
    /// Each session branch is pushed to `remote` before its merge.
    On { remote: String },
    /// Turned off; `how` names the flag, the variable or the record.
    Off { how: String },
    /// The repository has no `origin`: nothing is attempted.
    NoRemote,
}

/// How this call itself asks for the pushes to be off: the flag, else
/// the environment variable.
pub(crate) fn asked_off(flag: bool) -> Option<String> {
    if flag {
        return Some("--no-push".to_owned());
    }
    match std::env::var(ENV) {
        Ok(v) if !v.is_empty() && v != "0" => Some(format!("{ENV}={v}")),
        _ => None,
    }
}

/// Whether the pushes are off for this call: its own flag or variable,
/// else the choice an earlier call of the run recorded.
pub(crate) struct Choice {
    /// `Some(how)`: off; the `how` the run's records keep.
    pub off: Option<String>,
    /// The words the replies use: `how`, with the record that kept it.
    pub shown: Option<String>,
}

impl Choice {
    pub(crate) fn of(layout: &Layout, flag: bool) -> Result<Self, Fail> {
        if let Some(how) = asked_off(flag) {
            return Ok(Self {
                shown: Some(how.clone()),
                off: Some(how),
            });
        }
        Ok(match crate::orders::recorded_no_push(layout)? {
            Some((how, file)) => Self {
                shown: Some(format!("{how}, kept for this run in {file}")),
                off: Some(how),
            },
            None => Self {
                off: None,
                shown: None,
            },
        })
    }

    /// What the call does: off, or on to `origin` when there is one.
    pub(crate) fn pushes(&self, root: &Path) -> Result<Pushes, Fail> {
        if let Some(how) = &self.shown {
            return Ok(Pushes::Off { how: how.clone() });
        }
        let url = git(root, &["config", "--get", &format!("remote.{REMOTE}.url")])?;
        Ok(if url.ok() {
            Pushes::On {
                remote: REMOTE.to_owned(),
            }
        } else {
            Pushes::NoRemote
        })
    }
}

impl Pushes {
    /// The one line naming what happens to `branches` (the session
    /// branches a run or a wave merges).
    pub(crate) fn line(&self, branches: &[String]) -> String {
        match self {
            Self::On { remote } => format!(
                "pushes (Hard rule 19): before its merge, each session branch is pushed to {remote} as a safety copy: {}; a failed push is named and the run goes on. To turn them off: --no-push, or {ENV}=1",
                branches.join(", ")
            ),
            Self::Off { how } => {
                format!("pushes are off ({how}): nothing is pushed to any remote")
            }
            Self::NoRemote => format!("no remote: nothing is pushed (no remote named {REMOTE})"),
        }
    }

    /// The remote pushed to, when pushes are on.
    pub(crate) fn remote(&self) -> Option<&str> {
        match self {
            Self::On { remote } => Some(remote),
            _ => None,
        }
    }
}

/// Pushes `branch` to `remote`: `Ok(())`, or git's reason on one line.
/// A failure is not the run's: the caller names it and goes on.
pub(crate) fn push(root: &Path, remote: &str, branch: &str) -> Result<Result<(), String>, Fail> {
    let out = git(root, &["push", "-q", remote, branch])?;
    if out.ok() {
        return Ok(Ok(()));
    }
    Ok(Err(one_line(&out.why())))
}

/// git's multi-line stderr as one line: blank lines and the lines naming
/// the remote's URL (which may carry credentials) left out.
fn one_line(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("To ") && !l.starts_with("error: failed to push")
        })
        .collect();
    if kept.is_empty() {
        "git push failed".to_owned()
    } else {
        kept.join(" / ")
    }
}

/// The reply's line for one push.
pub(crate) fn said(remote: &str, branch: &str, result: &Result<(), String>) -> String {
    match result {
        Ok(()) => format!("pushed {branch} to {remote}"),
        Err(why) => {
            format!("push of {branch} to {remote} failed: {why}; the branch stays local")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_reasons_become_one_line_without_the_url() {
        let why = "remote: no pushes here        \nTo /tmp/x/origin.git\n ! [remote rejected] trek/a/session-1 -> trek/a/session-1 (pre-receive hook declined)\nerror: failed to push some refs to '/tmp/x/origin.git'";
        assert_eq!(
            one_line(why),
            "remote: no pushes here / ! [remote rejected] trek/a/session-1 -> trek/a/session-1 (pre-receive hook declined)"
        );
        assert_eq!(one_line("\n\n"), "git push failed");
    }

    #[test]
    fn each_state_is_one_line() {
        let b = vec!["trek/a/session-1".to_owned(), "trek/a/session-2".to_owned()];
        let on = Pushes::On {
            remote: "origin".into(),
        };
        assert!(on.line(&b).contains("pushed to origin"));
        assert!(on.line(&b).contains("trek/a/session-1, trek/a/session-2"));
        let off = Pushes::Off {
            how: "--no-push".into(),
        };
        assert!(off.line(&b).starts_with("pushes are off (--no-push)"));
        assert!(
            Pushes::NoRemote
                .line(&b)
                .starts_with("no remote: nothing is pushed")
        );
    }
}
