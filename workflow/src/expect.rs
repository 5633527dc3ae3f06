//! A prompt step's `expect:`: what must be true once its agent has ended
//! (files that exist, files that changed, a command that passes, a work
//! tree that differs). An agent can report success without doing the
//! work; this is what catches it. The state `changed:` and `diff:` compare
//! against is taken before the agent starts.

use std::path::Path;
use std::process::Command;

use super::code;
use super::model::{CommandTask, Expect, PromptTask};
use super::shell;
use super::step::{Context, Emit, Failure, StepError};

/// What the step's `changed:` files and the work tree held before the agent.
pub(super) struct Before {
    changed: Vec<Option<Vec<u8>>>,
    tree: Option<String>,
}

/// Records what `expect:` will compare against; nothing when it asks for
/// no comparison.
pub(super) fn before(expect: &Expect) -> Before {
    Before {
        changed: expect
            .changed
            .iter()
            .map(|p| std::fs::read(p).ok())
            .collect(),
        tree: if expect.diff { work_tree() } else { None },
    }
}

/// The findings of `expect:`, one line each; empty when all of it holds.
pub(super) fn findings(
    task: &PromptTask,
    expect: &Expect,
    before: &Before,
    ctx: &Context,
    emit: &dyn Emit,
) -> Result<Vec<String>, StepError> {
    let mut found = file_findings(expect, before);
    if let Some(command) = &expect.command {
        let check = CommandTask {
            name: task.name.clone(),
            command: command.clone(),
            continue_on_error: false,
            self_healing: false,
            max_healing_attempts: None,
            output: None,
            timeout_seconds: task.timeout_seconds,
            line: task.line,
        };
        let status = shell::attempt(&check, ctx, emit, &mut |_| {})?;
        if status != 0 {
            found.push(format!("the command `{command}` exited {status}"));
        }
    }
    Ok(found)
}

/// The findings of `files:`, `changed:` and `diff:`.
fn file_findings(expect: &Expect, before: &Before) -> Vec<String> {
    let mut found = Vec::new();
    for path in &expect.files {
        if !Path::new(path).exists() {
            found.push(format!("the file {path} does not exist"));
        }
    }
    for (path, was) in expect.changed.iter().zip(&before.changed) {
        if std::fs::read(path).ok() == *was {
            found.push(format!("the file {path} did not change"));
        }
    }
    if expect.diff {
        let now = work_tree();
        if now.is_none() {
            found.push(
                "`diff: true` needs a git work tree, and this directory is not in one".into(),
            );
        } else if now == before.tree {
            found.push(
                "the work tree did not change (git status and git diff are as before the step)"
                    .into(),
            );
        }
    }
    found
}

/// The findings as the next attempt is told them, one per line.
pub(super) fn feedback(findings: &[String]) -> String {
    findings
        .iter()
        .map(|f| format!("- {f}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The step's failure for `findings`.
pub(super) fn failure(task: &PromptTask, findings: &[String]) -> StepError {
    StepError::Failed(Failure::failed(
        code::WORKFLOW_EXPECT_UNMET,
        format!(
            "Step \"{}\" finished but its expect: is not met: {}",
            task.name,
            findings.join("; ")
        ),
    ))
}

/// `git status` and `git diff` of the current directory, or None outside
/// a git work tree.
fn work_tree() -> Option<String> {
    let run = |args: &[&str]| {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let status = run(&["status", "--porcelain=v1", "--untracked-files=all"])?;
    let diff = run(&["diff", "HEAD", "--no-ext-diff"]).unwrap_or_default();
    Some(format!("{status}\n{diff}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_did_not_change_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let same = dir.path().join("same.md");
        let edited = dir.path().join("edited.md");
        std::fs::write(&same, "a").unwrap();
        std::fs::write(&edited, "a").unwrap();
        let expect = Expect {
            changed: vec![same.display().to_string(), edited.display().to_string()],
            files: vec![dir.path().join("gone.md").display().to_string()],
            ..Expect::default()
        };
        let before = before(&expect);
        std::fs::write(&edited, "b").unwrap();
        let found = file_findings(&expect, &before);
        assert_eq!(
            found,
            vec![
                format!(
                    "the file {} does not exist",
                    dir.path().join("gone.md").display()
                ),
                format!("the file {} did not change", same.display()),
            ]
        );
    }
}
