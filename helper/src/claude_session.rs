//! Which Claude Code session, if any, this process runs in, read from the
//! environment Claude Code gives every Bash call and hook it starts:
//! `CLAUDECODE=1`, and `CLAUDE_CODE_ENTRYPOINT` (`cli` for an interactive
//! session, `sdk-cli` for `claude -p`, `sdk-ts`/`sdk-py` for the SDKs,
//! `claude-code-github-action`, `mcp`, …).
//!
//! It matters for one decision only: the main-merge gate is a person's.
//! An interactive session can ask the user (AskUserQuestion); a session
//! nobody watches cannot, so there the model must not answer it.

use std::ffi::OsString;

/// Who is answering a question from this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asker {
    /// No Claude Code session: a person at a shell, a script, a CI step.
    Operator,
    /// An interactive Claude Code session: the agent asks the user and
    /// passes their answer on.
    InteractiveSession,
    /// A Claude Code session with nobody to ask (`claude -p`, the SDKs, a
    /// GitHub action): the agent would be answering for the user.
    UnattendedSession,
}

impl Asker {
    /// The word recorded with an answer (`answered_by`).
    pub(crate) fn word(self) -> &'static str {
        match self {
            Self::Operator => "operator",
            Self::InteractiveSession => "user",
            Self::UnattendedSession => "agent",
        }
    }
}

/// Who this process answers for.
pub(crate) fn asker() -> Asker {
    asker_from(|key| std::env::var_os(key))
}

/// [`asker`] over any environment lookup (for tests and the hook).
pub(crate) fn asker_from(env: impl Fn(&str) -> Option<OsString>) -> Asker {
    let entrypoint = env("CLAUDE_CODE_ENTRYPOINT").filter(|v| !v.is_empty());
    let inside = env("CLAUDECODE").is_some_and(|v| v == "1") || entrypoint.is_some();
    if !inside {
        return Asker::Operator;
    }
    match entrypoint.as_ref().and_then(|e| e.to_str()) {
        Some(e) if unattended(e) => Asker::UnattendedSession,
        _ => Asker::InteractiveSession,
    }
}

/// Entry points where no person answers the session's questions.
fn unattended(entrypoint: &str) -> bool {
    entrypoint.starts_with("sdk")
        || matches!(
            entrypoint,
            "claude-code-github-action" | "mcp" | "remote_trigger"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Asker {
        asker_from(|key| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn the_entry_point_says_whether_anyone_is_there_to_ask() {
        assert_eq!(with(&[]), Asker::Operator);
        assert_eq!(with(&[("CLAUDECODE", "")]), Asker::Operator);
        let cli = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "cli")];
        assert_eq!(with(&cli), Asker::InteractiveSession);
        assert_eq!(with(&[("CLAUDECODE", "1")]), Asker::InteractiveSession);
        for e in [
            "sdk-cli",
            "sdk-ts",
            "sdk-py",
            "claude-code-github-action",
            "mcp",
        ] {
            let env = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", e)];
            assert_eq!(with(&env), Asker::UnattendedSession, "{e}");
        }
        // Unsetting CLAUDECODE in the agent's own command does not make it
        // the operator while the entry point still says a session.
        let env = [("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")];
        assert_eq!(with(&env), Asker::UnattendedSession);
    }
}
