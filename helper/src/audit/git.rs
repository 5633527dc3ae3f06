//! The git calls the audits make, each one `git` process with a fixed
//! environment (`LC_ALL=C`, no optional locks, NUL-separated output), so the
//! answer never depends on the user's locale or configuration of quoting.
//! The git CLI is the one view of the repository
//! (docs/maintainer/dependencies.md: it works with reftable repositories and is what the
//! agent itself runs).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::code;
use crate::problem::Problem;

/// A repository's work tree, found from a directory inside it.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    pub root: PathBuf,
}

/// One commit of a range: its id and subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    pub subject: String,
}

impl Git {
    /// The work tree whose top directory is `root`, as the caller knows it.
    pub(crate) fn at(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
        }
    }

    /// The work tree that holds `dir`, or AUDIT_NOT_A_REPOSITORY.
    pub(crate) fn discover(dir: &Path) -> Result<Self, Problem> {
        let out = run(dir, ["rev-parse", "--show-toplevel"]).map_err(|e| {
            if e.started {
                Problem::new(
                    code::AUDIT_NOT_A_REPOSITORY,
                    format!(
                        "{} is not inside a git work tree; run the audit from the repository",
                        dir.display()
                    ),
                )
            } else {
                e.problem
            }
        })?;
        let root = out.strip_suffix('\n').unwrap_or(&out);
        Ok(Self {
            root: PathBuf::from(root),
        })
    }

    /// The full id of `rev` as a commit, or AUDIT_BAD_REVISION naming `flag`.
    pub(super) fn commit_id(&self, rev: &str, flag: &str) -> Result<String, Problem> {
        if rev.starts_with('-') {
            return Err(bad_revision(flag, rev));
        }
        let spec = format!("{rev}^{{commit}}");
        match run(&self.root, ["rev-parse", "--verify", "--quiet", &spec]) {
            Ok(out) => Ok(out.trim().to_owned()),
            Err(e) if e.started => Err(if rev == "HEAD" {
                Problem::new(code::AUDIT_NO_HEAD, "the repository has no commit yet")
            } else {
                bad_revision(flag, rev)
            }),
            Err(e) => Err(e.problem),
        }
    }

    /// The subject of HEAD's commit.
    pub(super) fn head_subject(&self) -> Result<String, Problem> {
        let out = run(&self.root, ["log", "-1", "--format=%s", "HEAD"]).map_err(|e| {
            if e.started {
                Problem::new(code::AUDIT_NO_HEAD, "the repository has no commit yet")
            } else {
                e.problem
            }
        })?;
        Ok(out.strip_suffix('\n').unwrap_or(&out).to_owned())
    }

    /// The commits of `from..HEAD`, newest first.
    pub(super) fn commits_since(&self, from: &str) -> Result<Vec<Commit>, Problem> {
        let range = format!("{from}..HEAD");
        let out =
            run(&self.root, ["log", "-z", "--format=%H%x00%s", &range]).map_err(|e| e.problem)?;
        Ok(parse_log(&out))
    }

    /// The paths changed between `from` and HEAD, deleted ones included,
    /// relative to the root.
    pub(super) fn changed_between(&self, from: &str) -> Result<Vec<String>, Problem> {
        let out = run(
            &self.root,
            [
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                from,
                "HEAD",
                "--",
            ],
        )
        .map_err(|e| e.problem)?;
        Ok(split_z(&out))
    }
}

/// The commits of `git log -z --format=%H%x00%s`: id and subject, each
/// NUL-terminated, records NUL-separated.
pub fn parse_log(out: &str) -> Vec<Commit> {
    let mut fields = out.split('\0');
    let mut commits = Vec::new();
    while let (Some(sha), Some(subject)) = (fields.next(), fields.next()) {
        let sha = sha.trim_start_matches('\n');
        if !sha.is_empty() {
            commits.push(Commit {
                sha: sha.to_owned(),
                subject: subject.to_owned(),
            });
        }
    }
    commits
}

fn split_z(out: &str) -> Vec<String> {
    out.split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

fn bad_revision(flag: &str, rev: &str) -> Problem {
    Problem::new(
        code::AUDIT_BAD_REVISION,
        format!("{flag} {rev} names no commit of this repository"),
    )
}

/// Why a git call gave no answer: it did not start (`started: false`) or it
/// exited non-zero.
struct GitError {
    started: bool,
    problem: Problem,
}

/// Runs `git ARGS` in `dir` through the helper's one git wrapper
/// ([`crate::git`]) and returns its stdout (lossily decoded).
fn run<I, S>(dir: &Path, args: I) -> Result<String, GitError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let shown = args.join(" ");
    let mut argv = vec!["-c", "core.quotepath=off"];
    argv.extend(args.iter().map(String::as_str));
    let output = crate::git::run(dir, &argv).map_err(|e| GitError {
        started: false,
        problem: Problem::new(code::AUDIT_GIT_FAILED, format!("cannot run git: {e}")),
    })?;
    if !output.ok() {
        let why = output.why();
        let first = why.lines().next().unwrap_or("").trim();
        return Err(GitError {
            started: true,
            problem: Problem::new(
                code::AUDIT_GIT_FAILED,
                format!("git {shown} failed: {first}"),
            ),
        });
    }
    Ok(output.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_records() {
        let out = "aaa\0feat: one\0\nbbb\0fix: two\0";
        let got = parse_log(out);
        assert_eq!(
            got,
            [
                Commit {
                    sha: "aaa".into(),
                    subject: "feat: one".into()
                },
                Commit {
                    sha: "bbb".into(),
                    subject: "fix: two".into()
                }
            ]
        );
        assert!(parse_log("").is_empty());
        assert!(parse_log("\0\0").is_empty());
    }
}
