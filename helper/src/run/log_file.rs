//! Where a run's log goes: the root, the slug and the file name
//! (docs/maintainer/run-contract.md §4).
//!
//! `<root>/.temp/voyage/logs/<UTC yyyymmddTHHMMSSZ>-<slug>-<pid>.log`, where
//! the root is the enclosing git work tree or else the run's directory. The
//! original asked `git rev-parse --show-toplevel` (a process per call, steered
//! by the caller's `GIT_DIR`); Voyage walks up looking for `.git` instead,
//! which gives the same answer for ordinary repositories and worktrees.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::clock::UtcTime;

/// The log directory below the root.
pub(crate) const LOG_SUBDIR: &str = ".temp/voyage/logs";

/// How many characters of the command the slug is made from.
const SLUG_SOURCE_CHARS: usize = 40;

/// The slug of a command: its first 40 characters, every run of characters
/// outside `[A-Za-z0-9._]` turned into one `-`, one leading and one trailing
/// `-` dropped, and `cmd` when nothing is left.
pub fn slug(command: &str) -> String {
    let mut out = String::new();
    for c in command.chars().take(SLUG_SOURCE_CHARS) {
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.strip_prefix('-').unwrap_or(&out);
    let trimmed = trimmed.strip_suffix('-').unwrap_or(trimmed);
    if trimmed.is_empty() {
        "cmd".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The directory logs are written under for a run in `cwd`: the top of the
/// git work tree holding `cwd` (symlinks resolved, as git reports it), or
/// `cwd` as spelled with one trailing `/` dropped.
pub(super) fn root_for(cwd: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(cwd)
        && let Some(top) = real.ancestors().find(|dir| dir.join(".git").exists())
    {
        return top.to_path_buf();
    }
    let spelled = cwd.as_os_str().as_bytes();
    match spelled.strip_suffix(b"/") {
        Some(rest) if !rest.is_empty() => PathBuf::from(OsStr::from_bytes(rest)),
        _ => cwd.to_path_buf(),
    }
}

/// The file name of a log: `<UTC stamp>-<slug>-<pid>.log`.
pub(super) fn file_name(at: UtcTime, command: &str, pid: u32) -> String {
    format!("{}-{}-{pid}.log", at.compact(), slug(command))
}

/// Why the log could not be created; the text is the block's `REASON:`,
/// with the system's own words (`No space left on device (os error 28)`).
#[derive(Debug, thiserror::Error)]
#[error("cannot write log: {}: {error}", .path.display())]
pub(super) struct LogError {
    path: PathBuf,
    error: std::io::Error,
}

/// Creates (or truncates) the log file for a run, with its directory.
pub(super) fn create(root: &Path, name: &str) -> Result<(PathBuf, File), LogError> {
    let dir = root.join(LOG_SUBDIR);
    fs::create_dir_all(&dir).map_err(|error| LogError {
        path: dir.clone(),
        error,
    })?;
    let path = dir.join(name);
    let file = crate::own_file::open(
        &path,
        OpenOptions::new().write(true).create(true).truncate(true),
    )
    .map_err(|error| LogError {
        path: path.clone(),
        error,
    })?;
    Ok((path, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_examples_from_the_contract() {
        assert_eq!(slug("npm test -- --grep \"a b\""), "npm-test-grep-a-b");
        assert_eq!(slug("***"), "cmd");
        assert_eq!(slug("-a--b-"), "a-b");
        assert_eq!(slug(""), "cmd");
        assert_eq!(slug("cargo test --workspace"), "cargo-test-workspace");
        assert_eq!(slug("./run_tests.sh v1.2"), ".-run_tests.sh-v1.2");
    }

    #[test]
    fn slug_takes_forty_characters_not_bytes() {
        let long = "a".repeat(50);
        assert_eq!(slug(&long), "a".repeat(40));
        // 39 wide characters then ASCII: the ASCII is past the cut
        let wide = format!("{}xyz", "é".repeat(39));
        assert_eq!(slug(&wide), "x");
        // a cut in the middle of a run of separators still drops the dash
        assert_eq!(slug(&format!("{} tail", "b".repeat(39))), "b".repeat(39));
    }

    #[test]
    fn file_name_shape() {
        let at = UtcTime::from_unix(1_789_380_900);
        assert_eq!(
            file_name(at, "npm test", 4821),
            "20260914T101500Z-npm-test-4821.log"
        );
    }

    #[test]
    fn root_outside_git_keeps_spelling_minus_one_slash() {
        let dir = tempfile::tempdir().unwrap();
        let spelled = format!("{}/", dir.path().display());
        assert_eq!(root_for(Path::new(&spelled)), dir.path());
        assert_eq!(root_for(Path::new("/")), Path::new("/"));
    }

    #[test]
    fn root_inside_git_is_the_top_of_the_work_tree() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("repo");
        fs::create_dir_all(top.join(".git")).unwrap();
        fs::create_dir_all(top.join("a/b")).unwrap();
        let real_top = fs::canonicalize(&top).unwrap();
        assert_eq!(root_for(&top.join("a/b")), real_top);
        // a worktree has a .git file, not a directory
        let wt = dir.path().join("wt");
        fs::create_dir_all(wt.join("x")).unwrap();
        fs::write(wt.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(root_for(&wt.join("x")), fs::canonicalize(&wt).unwrap());
    }
}
