//! Git's own setup as a run depends on it, kept apart from the agent's
//! work: the git version trek needs, whether a commit can be made at all
//! (an identity, a signing key when signing is on), checked once by
//! `trek start`; and, when a checkpoint made no commit anyway, which part
//! of git's setup stood in the way and the exact line that fixes it. None
//! of these is the step's failure: the agent cannot fix them, and spending
//! its attempts on them would end in a revert of verified work.

use std::path::{Path, PathBuf};

/// The oldest git a run works with: `--pathspec-from-file` for `add` and
/// `restore` (2.26), `status --no-ahead-behind` (2.17).
pub(super) const MIN_VERSION: (u32, u32) = (2, 26);
/// The oldest git multi-session waves work with: `worktree list -z` (2.36).
pub(super) const MIN_WAVES_VERSION: (u32, u32) = (2, 36);

/// The version git reports (`git version 2.47.3` → `(2, 47)`), or why it
/// cannot be had.
fn version(dir: &Path) -> Result<(u32, u32, String), String> {
    let out = crate::git::run(dir, &["version"]).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            "git is not installed, or not on the PATH: install git (2.36 or newer) and run the call again".to_owned()
        } else {
            format!("git cannot be run: {e}")
        }
    })?;
    let text = out.text();
    let words = text.trim();
    let number = words.strip_prefix("git version ").unwrap_or(words);
    let mut parts = number.split(['.', ' ', '-']);
    let mut next = || parts.next().and_then(|p| p.parse::<u32>().ok());
    match (next(), next()) {
        (Some(major), Some(minor)) => Ok((major, minor, number.to_owned())),
        _ => Err(format!("git's version cannot be read from `{words}`")),
    }
}

/// Why this git is too old for `need` (or cannot be run), with what to do.
pub(super) fn version_problem(dir: &Path, need: (u32, u32), for_what: &str) -> Option<String> {
    match version(dir) {
        Err(why) => Some(why),
        Ok((major, minor, _)) if (major, minor) >= need => None,
        Ok((_, _, found)) => Some(format!(
            "git {found} is too old for {for_what}: Voyage needs git {}.{} or newer. Upgrade git (`git --version` shows the one on the PATH), then run the call again.",
            need.0, need.1
        )),
    }
}

/// Why no commit can be made in `root` with git's setup as it is (no
/// identity; signing on without a working key), with the fix; `None` when
/// a test commit object can be made. The object is made and left
/// unreferenced (git's garbage collection removes it); no ref, index or
/// file changes.
pub(super) fn commit_problem(root: &Path) -> Option<String> {
    let signing = crate::git::run(root, &["config", "--type=bool", "--get", "commit.gpgsign"])
        .is_ok_and(|o| o.ok() && o.text().trim() == "true");
    let mut probe = vec![
        "commit-tree",
        "HEAD^{tree}",
        "-p",
        "HEAD",
        "-m",
        "voyage: can a commit be made?",
    ];
    if signing {
        probe.push("-S");
    }
    let out = crate::git::run(root, &probe).ok()?;
    if out.ok() {
        return None;
    }
    let cause = cause_of(root, &out.stderr);
    Some(format!("{} {}", cause.why, cause.fix))
}

/// Why git made no commit, and what a person does about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cause {
    /// What stood in the way, in a sentence.
    pub why: String,
    /// The exact command or action that clears it.
    pub fix: String,
    /// Whether it is git's setup (a person fixes it, no attempt is spent);
    /// otherwise the plan's Checkpoint command itself failed.
    pub setup: bool,
}

/// Reads what git (or the Checkpoint command) said, `said`, for the part
/// of git's setup that refused the commit.
pub(super) fn cause_of(root: &Path, said: &str) -> Cause {
    let lower = said.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&[
        "please tell me who you are",
        "author identity unknown",
        "committer identity unknown",
        "unable to auto-detect email",
        "empty ident name",
        "no email was given",
        "no name was given",
    ]) {
        return Cause {
            why: "git has no identity to commit with (user.name and user.email are not set).".into(),
            fix: "Set it, for this repository: git config user.name \"Your Name\" && git config user.email \"you@example.com\" (or with --global for every repository).".into(),
            setup: true,
        };
    }
    if has(&[
        "gpg failed to sign",
        "cannot run gpg",
        "failed to sign the data",
        "signing failed",
        "error: cannot run ssh-keygen",
        "ssh-keygen",
        "gpg.ssh",
        "no secret key",
    ]) {
        return Cause {
            why: "git is set to sign commits (commit.gpgsign) and signing failed.".into(),
            fix: "Make signing work (check with: echo test | gpg --clearsign, or the user.signingkey that git config shows), or turn it off for this repository: git config commit.gpgsign false.".into(),
            setup: true,
        };
    }
    let places = Places::of(root);
    let locks = places.as_ref().map(stale_locks).unwrap_or_default();
    if !locks.is_empty() && has(&[".lock", "file exists", "unable to create"]) {
        let shown: Vec<String> = locks.iter().map(|l| l.display().to_string()).collect();
        return Cause {
            why: format!(
                "git's lock file {} is there: another git command runs, or one was cut short.",
                shown.join(", ")
            ),
            fix: format!(
                "Once no git command runs in this repository, remove it: rm {}",
                shown.join(" ")
            ),
            setup: true,
        };
    }
    if let Some(hook) = places
        .as_ref()
        .and_then(|p| commit_hooks(p).into_iter().next())
    {
        let words = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        return Cause {
            why: format!(
                "a commit hook of this repository refused the commit: {}{}",
                hook.display(),
                if words.is_empty() {
                    String::new()
                } else {
                    format!(" (its last words: {words})")
                }
            ),
            fix: format!(
                "Run it to see why ({}), fix what it reports or the hook itself; the hook is the repository's, not the step's.",
                hook.display()
            ),
            setup: true,
        };
    }
    Cause {
        why: "the Checkpoint command made no commit".into(),
        fix: "Read git's words above; fix the Checkpoint command in the plan or git's setup."
            .into(),
        setup: false,
    }
}

/// The lock files git leaves when one of its commands is killed between
/// taking and dropping them (`index.lock`, `HEAD.lock`, `packed-refs.lock`,
/// `AUTO_MERGE.lock`, a branch's `refs/heads/NAME.lock`), in the work
/// tree's git directory and the common one: each stops every later
/// commit, and only a person may remove it, once no git runs.
pub(super) fn stale_locks(places: &Places) -> Vec<PathBuf> {
    let mut dirs = vec![places.git_dir.clone(), places.common_dir.clone()];
    dirs.dedup();
    let mut found = Vec::new();
    for dir in &dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        found.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "lock") && p.is_file()),
        );
        found.extend(branch_locks(&dir.join("refs/heads")));
    }
    found.sort();
    found.dedup();
    found
}

/// `refs/heads/**/*.lock` below `dir`.
fn branch_locks(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => todo.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|x| x == "lock") => {
                    found.push(path);
                }
                _ => {}
            }
        }
    }
    found
}

/// The line that names git's stale locks in `root`, if there are any.
pub(super) fn stale_locks_line(places: &Places) -> Option<String> {
    let locks = stale_locks(places);
    (!locks.is_empty()).then(|| {
        let shown: Vec<String> = locks.iter().map(|l| l.display().to_string()).collect();
        format!(
            "warning: git's lock file(s) {} are there: a git command was cut short (or one runs now), and the next commit will fail while they stay. Once no git runs in this repository: rm {}",
            shown.join(", "),
            shown.join(" ")
        )
    })
}

/// Where git keeps what trek's checks of its setup look at, asked of git
/// in one call: the work tree's git directory, the common one, the hooks
/// directory (`core.hooksPath` honoured), and whether HEAD is on a branch.
#[derive(Debug, Clone)]
pub(super) struct Places {
    git_dir: PathBuf,
    common_dir: PathBuf,
    hooks: PathBuf,
    /// HEAD names no branch (a detached HEAD).
    pub detached: bool,
}

impl Places {
    /// `None` outside a work tree, or without git.
    pub(super) fn of(root: &Path) -> Option<Self> {
        let out = crate::git::run(
            root,
            &[
                "rev-parse",
                "--git-dir",
                "--git-common-dir",
                "--git-path",
                "hooks",
                "--symbolic-full-name",
                "HEAD",
            ],
        )
        .ok()
        .filter(crate::git::Output::ok)?;
        let text = out.text();
        let mut lines = text.lines().map(str::trim);
        let mut place = || lines.next().map(|l| root.join(l));
        let (git_dir, common_dir, hooks) = (place()?, place()?, place()?);
        // `refs/heads/NAME` on a branch, `HEAD` when detached.
        let detached = lines.next().is_none_or(|l| l == "HEAD");
        Some(Self {
            git_dir,
            common_dir,
            hooks,
            detached,
        })
    }
}

/// The hooks git runs around a commit that exist and can run, in the
/// order git runs them.
pub(super) fn commit_hooks(places: &Places) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
    ]
    .iter()
    .map(|name| places.hooks.join(name))
    .filter(|p| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
    .collect()
}

/// The hooks of [`commit_hooks`] that git hands the commit message to,
/// and that may change it: `prepare-commit-msg`, then `commit-msg`.
pub(super) fn message_hooks(places: &Places) -> Vec<PathBuf> {
    commit_hooks(places)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n == "prepare-commit-msg" || n == "commit-msg")
        })
        .collect()
}

/// `the commit-msg hook PATH` for the message hooks `hooks` (git runs
/// them in that order, so the last one had the last word), the other
/// one named too when there are two.
pub(super) fn hooks_named(hooks: &[PathBuf]) -> String {
    let name = |p: &PathBuf| {
        let kind = p
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        format!("the {kind} hook {}", p.display())
    };
    match hooks {
        [] => "no hook".to_owned(),
        [one] => name(one),
        [first @ .., last] => format!(
            "{} (after {})",
            name(last),
            first.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_told_apart_by_gits_words() {
        let dir = tempfile::tempdir().unwrap();
        let identity = cause_of(
            dir.path(),
            "Author identity unknown\n\n*** Please tell me who you are.",
        );
        assert!(identity.setup && identity.fix.contains("git config user.email"));
        let signing = cause_of(
            dir.path(),
            "error: gpg failed to sign the data\nfatal: failed to write commit object",
        );
        assert!(signing.setup && signing.fix.contains("commit.gpgsign false"));
        let other = cause_of(dir.path(), "error: pathspec 'x' did not match");
        assert!(!other.setup);
    }
}
