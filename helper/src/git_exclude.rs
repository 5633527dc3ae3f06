//! Keeps a run's own files out of the user's `git status` and `git add -A`.
//!
//! Those are the progress files, the runner's logs in `.temp/voyage/`, a
//! multi-session plan's `.claude/trekplan-sessions/` and, for a `--project`
//! run, the state pair; the run marker lives in the git directory already.
//! `trek start` names them in the repository's `info/exclude`: the one in
//! the common git directory, which the main checkout and all its linked
//! worktrees (the session worktrees too) read, and which is never committed
//! the way a `.gitignore` is. The lines sit in a marked block, written once
//! and extended only by a line it lacks; the user's own lines stay as they
//! are. Exclude rules hide untracked files only, so a run file the user
//! tracks on purpose stays tracked.
//!
//! An ignored file no longer keeps `git worktree remove` from deleting its
//! worktree, so [`untracked_progress_files`] lets the wave cleanup keep a
//! session worktree that still holds its progress file (a failed session
//! is resumed there).

use std::io;
use std::path::{Component, Path};

/// The block's first and last lines.
const BEGIN: &str = "# >>> voyage: run files, kept out of git (voyage-helper trek start) >>>";
const END: &str = "# <<< voyage <<<";

/// A progress file beside a plan, in any directory
/// ([`crate::progress::progress_path`]).
const PLAN_PROGRESS: &str = ".trekexecute-progress-*.json";

/// The progress files of a `--project DIR` run, in DIR (with the earlier
/// runs' records `trek start` keeps as `progress.STATUS-TIME.json`).
const PROJECT_PROGRESS: [&str; 3] = [
    "progress.json",
    "progress.*.json",
    "progress-session-*.json",
];

/// The state pair an early stop of a `--project DIR` run leaves in DIR
/// (`state write`).
const PROJECT_STATE: [&str; 2] = [".session-state.local.json", "NEXT-SESSION-PROMPT.local.md"];

/// Directories a run fills at the work tree's top: the runner's logs
/// (`.temp/voyage/logs/`) and a multi-session plan's orders and worktrees.
const RUN_DIRS: [&str; 2] = ["/.temp/voyage/", "/.claude/trekplan-sessions/"];

/// Adds the run's patterns to the exclude file of the repository of
/// `tree`, for a run of `project` when given. Returns a line for the user
/// when it wrote the file or could not; nothing when the block was already
/// whole.
pub(crate) fn ensure(tree: &crate::git::WorkTree, project: Option<&Path>) -> Option<String> {
    let top = &tree.top;
    let file = tree.common_dir.join("info").join("exclude");
    let mut wanted: Vec<String> = vec![PLAN_PROGRESS.to_owned()];
    wanted.extend(RUN_DIRS.iter().map(|d| (*d).to_owned()));
    if let Some(dir) = project.and_then(|p| relative_to(top, p)) {
        wanted.extend(
            PROJECT_PROGRESS
                .iter()
                .chain(&PROJECT_STATE)
                .filter_map(|name| anchored(&dir, name)),
        );
    }
    match update(&file, &wanted) {
        Ok(added) if added.is_empty() => None,
        Ok(added) => Some(format!(
            "Run files kept out of git status: {} now excludes {}.",
            file.display(),
            added.join(" ")
        )),
        Err(e) => Some(format!(
            "warning: the run's files could not be added to {} ({e}); they show as untracked.",
            file.display()
        )),
    }
}

/// `dir` relative to `top` as `/`-joined names, both sides with symlinks
/// resolved (git prints its top resolved); `None` outside it.
fn relative_to(top: &Path, dir: &Path) -> Option<String> {
    let top = top.canonicalize().ok()?;
    let dir = dir.canonicalize().ok()?;
    let rel = dir.strip_prefix(&top).ok()?;
    let names: Option<Vec<&str>> = rel
        .components()
        .map(|c| match c {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    Some(names?.join("/"))
}

/// The pattern matching exactly `dir/name` below the top (`name` may hold
/// a `*`), `dir`'s own glob characters and backslashes escaped. The leading
/// `/` anchors it and keeps a `!` or `#` from reading as syntax, and the
/// line ends in `name`, so no trailing space is lost. `None` for a name an
/// exclude line cannot hold (a line break).
fn anchored(dir: &str, name: &str) -> Option<String> {
    if dir.contains(['\n', '\r']) {
        return None;
    }
    let mut out = String::from("/");
    for c in dir.chars() {
        if matches!(c, '\\' | '*' | '?' | '[') {
            out.push('\\');
        }
        out.push(c);
    }
    if !dir.is_empty() {
        out.push('/');
    }
    out.push_str(name);
    Some(out)
}

/// Writes the lines of `wanted` the file lacks into its block (made at the
/// end when missing); returns the lines added. A line the file already has
/// anywhere, the user's own included, is not repeated.
fn update(file: &Path, wanted: &[String]) -> io::Result<Vec<String>> {
    // Only a run's start writes this block: a killed start's leftovers go.
    crate::atomic_file::sweep_dead_writers(file);
    let text = match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| io::Error::other("it is not UTF-8 text, so it is left as it is"))?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let have = |line: &str| text.lines().any(|l| l.trim_end_matches('\r') == line);
    let added: Vec<String> = wanted.iter().filter(|w| !have(w)).cloned().collect();
    if added.is_empty() {
        return Ok(added);
    }
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines.iter().position(|l| *l == BEGIN);
    let end = begin.and_then(|b| {
        lines
            .iter()
            .skip(b)
            .position(|l| *l == END)
            .map(|offset| b + offset)
    });
    let mut out = String::with_capacity(text.len() + 256);
    match end {
        Some(end) => {
            let (before, after) = lines.split_at(end);
            for line in before {
                out.push_str(line);
                out.push('\n');
            }
            for line in &added {
                out.push_str(line);
                out.push('\n');
            }
            for line in after {
                out.push_str(line);
                out.push('\n');
            }
        }
        None => {
            out.push_str(&text);
            if !text.is_empty() && !text.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(BEGIN);
            out.push('\n');
            for line in &added {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(END);
            out.push('\n');
        }
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::atomic_file::write_atomic(file, out.as_bytes()).map_err(io::Error::other)?;
    Ok(added)
}

/// The untracked progress files in the work tree `dir`, ignored or not,
/// `/`-separated and relative to it. An empty list when git cannot say
/// (not a work tree any more): `git worktree remove` then decides alone.
pub(crate) fn untracked_progress_files(dir: &Path) -> Vec<String> {
    let mut args = vec!["ls-files", "-z", "--others", "--ignored"];
    let patterns: Vec<String> = std::iter::once(PLAN_PROGRESS)
        .chain(PROJECT_PROGRESS)
        .map(|p| format!("--exclude={p}"))
        .collect();
    args.extend(patterns.iter().map(String::as_str));
    match crate::git::run(dir, &args) {
        Ok(out) if out.ok() => out.fields(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_escapes_what_git_would_read_as_a_pattern() {
        assert_eq!(
            anchored("", "progress.json").as_deref(),
            Some("/progress.json")
        );
        assert_eq!(
            anchored("a b/c*d?[e]\\f", "progress-session-*.json").as_deref(),
            Some("/a b/c\\*d\\?\\[e]\\\\f/progress-session-*.json")
        );
        assert_eq!(anchored("new\nline", "progress.json"), None);
    }
}
