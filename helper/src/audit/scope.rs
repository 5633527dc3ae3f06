//! The step's scope audit (issue 23, point 7): every change in the work
//! tree since the step began that lies outside the step's Files. The hook
//! judges each tool call before it runs; this looks at what happened
//! whatever made it happen (a formatter, `git checkout`, an MCP write, a
//! write from a nested repository), so it is the guarantee and the hook is
//! the early warning.
//!
//! What changed comes from one `git status --porcelain=v2 -z` call (its
//! paths also serve `audit step`'s forbidden-path and `bash -n` checks).
//! Only when a path may lie outside the scope, or when the step did not
//! begin from a clean tree or HEAD has moved, are the candidates compared
//! exactly with the step's base in a scratch index (never the repository's
//! own): that comparison pairs renames, tells an edit from a revert, and
//! gives the binary-safe patch that keeps what is put back.
//!
//! The base is the step's start commit, or, when the tree already held
//! changes at `trek step-begin` (a step without a Checkpoint, a Verify's
//! artefacts, the user's own work), a tree of that state written at
//! step-begin ([`Base`]), so nothing from before the step counts against
//! it. A nested repository (an untracked directory with its own `.git`) is
//! another repository's content: it is seen only as a whole, and one that
//! appears or goes away cannot be carried by a patch, so it is left where
//! it is and the step is escalated.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::code;
use super::git::Git;
use super::paths::Matcher;
use crate::problem::Problem;

/// The base file's name in the git directory, next to the run marker.
pub(crate) const BASE_FILE: &str = "voyage-step-base.json";
/// The directory of saved patches in the git directory.
pub(crate) const PATCH_DIR: &str = "voyage-scope";

/// How a path changed since the step began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Change {
    Modified,
    /// New and staged.
    Added,
    Deleted,
    /// `from` holds the old name.
    Renamed,
    /// New and not staged (git does not ignore it).
    Untracked,
    /// A directory holding its own repository, appeared or gone.
    NestedRepository,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Modified => "modified",
            Self::Added => "added",
            Self::Deleted => "deleted",
            Self::Renamed => "renamed",
            Self::Untracked => "untracked",
            Self::NestedRepository => "nested repository",
        }
    }
}

/// One path changed outside the scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Finding {
    pub path: String,
    pub change: Change,
    /// The old name of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl Finding {
    /// `path (modified)`, `old -> new (renamed)`.
    pub(crate) fn line(&self) -> String {
        match &self.from {
            Some(from) => format!("{from} -> {} ({})", self.path, self.change.as_str()),
            None => format!("{} ({})", self.path, self.change.as_str()),
        }
    }
}

/// The state a step began from when the tree was not clean then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Base {
    pub step: u32,
    /// The step's start commit.
    pub since: String,
    /// The tree of the start commit with the paths below as they were.
    pub tree: String,
    /// The paths that differed from the start commit at step-begin.
    pub dirty: Vec<String>,
}

/// What the step may change: its Files and the manifest's expected paths,
/// and the run's own files (plan, progress file, the runner's logs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    allowed: Vec<Matcher>,
    exempt: Vec<Matcher>,
}

impl Scope {
    /// `allowed` (Files, expected paths) and the run's own `exempt` paths,
    /// each relative to the root (directories cover what is under them).
    pub(crate) fn new<'a>(
        allowed: impl IntoIterator<Item = &'a str>,
        exempt: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let keep = |e: &&str| !e.trim().is_empty();
        Self {
            allowed: allowed.into_iter().filter(keep).map(Matcher::new).collect(),
            exempt: exempt.into_iter().filter(keep).map(Matcher::new).collect(),
        }
    }

    /// The run's own files under `root`: the plan, the progress file (and
    /// the hand-over files beside it) and the runner's log directory.
    pub(crate) fn run_files(root: &Path, plan: &Path, progress: &Path) -> Vec<String> {
        let mut out = vec![crate::run::LOG_SUBDIR.to_owned()];
        let mut add = |p: &Path| {
            if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.display().to_string());
            }
        };
        add(plan);
        add(progress);
        if let Some(dir) = progress.parent() {
            add(&dir.join(".session-state.local.json"));
            add(&dir.join("NEXT-SESSION-PROMPT.local.md"));
        }
        out
    }

    fn exempt(&self, path: &str) -> bool {
        self.exempt
            .iter()
            .any(|m| m.matches(path.trim_end_matches('/')))
    }

    fn allowed(&self, path: &str) -> bool {
        self.allowed
            .iter()
            .any(|m| m.matches(path.trim_end_matches('/')))
    }

    /// Outside both the step's paths and the run's files.
    pub(crate) fn outside(&self, path: &str) -> bool {
        !self.allowed(path) && !self.exempt(path)
    }
}

/// One entry of `git status --porcelain=v2`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    /// A staged rename's old name.
    from: Option<String>,
    /// Untracked (`?`); a path ending in `/` is a nested repository.
    untracked: bool,
}

/// What `git status` says: HEAD and the entries.
#[derive(Debug, Clone, Default)]
struct Status {
    head: Option<String>,
    entries: Vec<Entry>,
}

impl Status {
    fn paths(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .flat_map(|e| std::iter::once(e.path.as_str()).chain(e.from.as_deref()))
    }
}

/// Parses `git status --porcelain=v2 -z --branch`.
fn parse_status(out: &[u8]) -> Status {
    let mut status = Status::default();
    let mut fields = out.split(|b| *b == 0).map(String::from_utf8_lossy);
    while let Some(record) = fields.next() {
        let text = record.as_ref();
        if let Some(oid) = text.strip_prefix("# branch.oid ") {
            status.head = (oid != "(initial)").then(|| oid.to_owned());
            continue;
        }
        let (path, from, untracked) = match text.as_bytes().first() {
            Some(b'1') => (text.splitn(9, ' ').nth(8), None, false),
            Some(b'2') => (
                text.splitn(10, ' ').nth(9),
                fields.next().map(|f| f.into_owned()),
                false,
            ),
            Some(b'u') => (text.splitn(11, ' ').nth(10), None, false),
            Some(b'?') => (text.get(2..), None, true),
            _ => continue,
        };
        if let Some(path) = path.filter(|p| !p.is_empty()) {
            status.entries.push(Entry {
                path: path.to_owned(),
                from,
                untracked,
            });
        }
    }
    status
}

/// Runs git with the audit's fixed settings; stdout as bytes.
fn call(git: &Git, args: &[&str], with: crate::git::With<'_>) -> Result<Vec<u8>, Problem> {
    let mut argv = vec!["-c", "core.quotepath=off", "--literal-pathspecs"];
    argv.extend_from_slice(args);
    let failed = |why: String| {
        Problem::new(
            code::AUDIT_GIT_FAILED,
            format!(
                "git {} failed: {why}",
                args.iter().take(2).copied().collect::<Vec<_>>().join(" ")
            ),
        )
    };
    let out = crate::git::run_with(&git.root, &argv, with).map_err(|e| failed(e.to_string()))?;
    if !out.ok() {
        return Err(failed(out.why().lines().next().unwrap_or("").to_owned()));
    }
    Ok(out.stdout)
}

fn nul_list<'a>(paths: impl IntoIterator<Item = &'a String>) -> Vec<u8> {
    let mut out = Vec::new();
    for p in paths {
        out.extend_from_slice(p.as_bytes());
        out.push(0);
    }
    out
}

impl Git {
    /// One `git status` call: HEAD and every path that differs from it,
    /// staged or not, untracked ones included (ignored ones not).
    fn status(&self) -> Result<Status, Problem> {
        let out = call(
            self,
            &[
                "status",
                "--porcelain=v2",
                "-z",
                "--branch",
                "--no-ahead-behind",
                "--untracked-files=all",
            ],
            crate::git::With::default(),
        )?;
        Ok(parse_status(&out))
    }

    /// The paths changed since the commit `from`, staged or not, and the
    /// untracked paths git does not ignore: what a step has changed before
    /// its checkpoint commit (deleted paths included, a rename's both
    /// names). One `git status` call, and one `git diff` more only when
    /// HEAD has moved since `from`.
    pub(super) fn changed_since(&self, from: &str) -> Result<Vec<String>, Problem> {
        let status = self.status()?;
        let mut paths: BTreeSet<String> = status.paths().map(str::to_owned).collect();
        if status.head.as_deref() != Some(from) {
            paths.extend(self.committed_since(from)?);
        }
        Ok(paths.into_iter().collect())
    }

    /// The paths commits since `from` changed (both names of a rename).
    fn committed_since(&self, from: &str) -> Result<Vec<String>, Problem> {
        let out = call(
            self,
            &[
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                from,
                "HEAD",
                "--",
            ],
            crate::git::With::default(),
        )?;
        Ok(split_z(&out))
    }
}

fn split_z(out: &[u8]) -> Vec<String> {
    out.split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

/// Which of `paths` differ from HEAD (staged, unstaged or untracked),
/// sorted: what an interrupted attempt left in a step's Files.
pub(crate) fn uncommitted(git: &Git, paths: &[String]) -> Result<Vec<String>, Problem> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec![
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all",
        "--",
    ];
    args.extend(paths.iter().map(String::as_str));
    let out = call(git, &args, crate::git::With::default())?;
    let status = parse_status(&out);
    Ok(status
        .paths()
        .map(str::to_owned)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect())
}

/// Step-begin: the [`Base`] to keep when the tree already differs from
/// `since` outside the run's own files, `None` when it is clean.
pub(crate) fn snapshot(
    git: &Git,
    step: u32,
    since: &str,
    scope: &Scope,
) -> Result<Option<Base>, Problem> {
    let status = git.status()?;
    let dirty: Vec<String> = status
        .paths()
        .filter(|p| !scope.exempt(p))
        .map(str::to_owned)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if dirty.is_empty() {
        return Ok(None);
    }
    let scratch = Scratch::new(git, since, &dirty)?;
    let tree = call(
        git,
        &["write-tree"],
        crate::git::With {
            index: Some(&scratch.index),
            input: None,
        },
    )?;
    Ok(Some(Base {
        step,
        since: since.to_owned(),
        tree: String::from_utf8_lossy(&tree).trim().to_owned(),
        dirty,
    }))
}

/// A scratch index: the base tree with some paths taken from the work tree.
struct Scratch {
    _dir: tempfile::TempDir,
    index: PathBuf,
}

impl Scratch {
    /// `base` read into a new index, then `paths` (not nested
    /// repositories) staged from the work tree, present or deleted.
    fn new(git: &Git, base: &str, paths: &[String]) -> Result<Self, Problem> {
        let dir = tempfile::tempdir().map_err(|e| {
            Problem::new(
                code::AUDIT_GIT_FAILED,
                format!("cannot make a scratch index: {e}"),
            )
        })?;
        let index = dir.path().join("index");
        let scratch = crate::git::With {
            index: Some(&index),
            input: None,
        };
        call_quiet(git, &["read-tree", base], scratch)?;
        let (present, absent): (Vec<&String>, Vec<&String>) = paths
            .iter()
            .filter(|p| !p.ends_with('/'))
            .partition(|p| std::fs::symlink_metadata(git.root.join(p)).is_ok());
        let from_stdin = ["--pathspec-from-file=-", "--pathspec-file-nul"];
        if !present.is_empty() {
            let list = nul_list(present);
            let mut args = vec!["add", "-A", "-f"];
            args.extend(from_stdin);
            let with = crate::git::With {
                input: Some(&list),
                ..scratch
            };
            call_quiet(git, &args, with)?;
        }
        if !absent.is_empty() {
            let list = nul_list(absent);
            let mut args = vec!["rm", "--cached", "-q", "-r", "--ignore-unmatch"];
            args.extend(from_stdin);
            let with = crate::git::With {
                input: Some(&list),
                ..scratch
            };
            call_quiet(git, &args, with)?;
        }
        Ok(Self { _dir: dir, index })
    }

    fn with(&self) -> crate::git::With<'_> {
        crate::git::With {
            index: Some(&self.index),
            input: None,
        }
    }
}

fn call_quiet(git: &Git, args: &[&str], with: crate::git::With<'_>) -> Result<(), Problem> {
    call(git, args, with).map(drop)
}

/// What [`audit`] found.
pub(crate) struct Found {
    /// The tree-ish the step is compared with (the start commit or the
    /// step-begin tree).
    pub base: String,
    /// The step's start commit.
    pub since: String,
    pub violations: Vec<Finding>,
    /// HEAD when the audit ran (`git status` says it), if there is one.
    pub head: Option<String>,
    /// Changed paths inside the step's scope (the run's files left out).
    pub in_scope: Vec<String>,
    /// The scratch index holding the out-of-scope changes, for the patch.
    scratch: Option<Scratch>,
}

/// Compares the work tree with the step's base and keeps what lies
/// outside `scope`. `base` is the step-begin [`Base`] when there is one
/// for this step and start commit `since`.
pub(crate) fn audit(
    git: &Git,
    since: &str,
    base: Option<&Base>,
    scope: &Scope,
) -> Result<Found, Problem> {
    let base = base.filter(|b| b.since == since);
    let status = git.status()?;
    let mut candidates: BTreeSet<String> = status.paths().map(str::to_owned).collect();
    let moved = status.head.as_deref() != Some(since);
    if moved {
        candidates.extend(git.committed_since(since)?);
    }
    if let Some(b) = base {
        candidates.extend(b.dirty.iter().cloned());
    }
    let mut found = Found {
        base: base.map_or_else(|| since.to_owned(), |b| b.tree.clone()),
        since: since.to_owned(),
        violations: Vec::new(),
        head: status.head.clone(),
        in_scope: candidates
            .iter()
            .filter(|p| scope.allowed(p) && !scope.exempt(p))
            .cloned()
            .collect(),
        scratch: None,
    };
    let outside: Vec<String> = candidates
        .into_iter()
        .filter(|p| scope.outside(p))
        .collect();
    // Nested repositories: by presence, before and now.
    let now: BTreeSet<&str> = status
        .entries
        .iter()
        .filter(|e| e.untracked)
        .map(|e| e.path.as_str())
        .collect();
    let before: BTreeSet<&str> = base
        .map(|b| b.dirty.iter().map(String::as_str).collect())
        .unwrap_or_default();
    for repo in outside.iter().filter(|p| p.ends_with('/')) {
        if now.contains(repo.as_str()) != before.contains(repo.as_str()) {
            found.violations.push(Finding {
                path: repo.clone(),
                change: Change::NestedRepository,
                from: None,
            });
        }
    }
    let files: Vec<String> = outside.into_iter().filter(|p| !p.ends_with('/')).collect();
    if files.is_empty() {
        return Ok(found);
    }
    // The exact comparison, in a scratch index.
    let scratch = Scratch::new(git, &found.base, &files)?;
    let out = call(
        git,
        &[
            "diff-index",
            "--cached",
            "-z",
            "--name-status",
            "-M",
            &found.base,
            "--",
        ],
        scratch.with(),
    )?;
    let mut fields = split_z(&out).into_iter();
    while let Some(letter) = fields.next() {
        let Some(first) = fields.next() else { break };
        let (path, from, change) = match letter.as_bytes().first() {
            Some(b'R') => match fields.next() {
                Some(new) => (new, Some(first), Change::Renamed),
                None => break,
            },
            Some(b'A') => {
                let untracked = now.contains(first.as_str());
                let kind = if untracked {
                    Change::Untracked
                } else {
                    Change::Added
                };
                (first, None, kind)
            }
            Some(b'D') => (first, None, Change::Deleted),
            _ => (first, None, Change::Modified),
        };
        found.violations.push(Finding { path, change, from });
    }
    found.violations.sort_by(|a, b| a.path.cmp(&b.path));
    if found
        .violations
        .iter()
        .any(|v| v.change != Change::NestedRepository)
    {
        found.scratch = Some(scratch);
    }
    Ok(found)
}

/// Saves what `paths` hold in the work tree against the commit `base`
/// (new files included) as a patch at `patch`, touching neither the index
/// nor the tree: what a revert is about to throw away, or the verified
/// work of a step whose checkpoint git refused, kept first. `Ok(false)`
/// when they hold no change (no patch is written).
pub(crate) fn save_patch(
    git: &Git,
    base: &str,
    paths: &[String],
    patch: &Path,
) -> Result<bool, String> {
    let scratch = Scratch::new(git, base, paths).map_err(|p| p.message)?;
    let bytes = staged_patch(git, &scratch, base, paths).map_err(|p| p.message)?;
    if bytes.is_empty() {
        return Ok(false);
    }
    write_patch(patch, &bytes)?;
    Ok(true)
}

/// The binary-safe patch from `base` to what `scratch` holds, for `paths`
/// (all of them when empty).
fn staged_patch(
    git: &Git,
    scratch: &Scratch,
    base: &str,
    paths: &[String],
) -> Result<Vec<u8>, Problem> {
    let mut args = vec![
        "diff-index",
        "--cached",
        "-p",
        "--binary",
        "-M",
        "--full-index",
        base,
        "--",
    ];
    args.extend(paths.iter().map(String::as_str));
    call(git, &args, scratch.with())
}

/// Writes `bytes` to `patch`, making its directory first.
fn write_patch(patch: &Path, bytes: &[u8]) -> Result<(), String> {
    patch
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| crate::atomic_file::write_atomic(patch, bytes).map_err(|e| e.to_string()))
}

/// Where a patch of step `step` is kept, named after why (`revert`,
/// `checkpoint`): beside the scope audit's.
pub(crate) fn named_patch_path(git_dir: &Path, step: u32, why: &str) -> PathBuf {
    let stamp = crate::clock::UtcTime::now().compact();
    git_dir
        .join(PATCH_DIR)
        .join(format!("step-{step}-{why}-{stamp}.patch"))
}

/// How the out-of-scope changes were kept and put back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Saved {
    /// The patch holding them (`git apply PATH` at the root re-applies).
    pub patch: Option<String>,
    /// Paths put back as they were when the step began.
    pub restored: Vec<String>,
    /// Paths left where they are (nested repositories, or everything when
    /// the patch could not be written), with why.
    pub kept: Vec<String>,
    /// Why something was left in place: the step must be escalated.
    pub problem: Option<String>,
}

/// Writes the patch of `found`'s violations to `patch`, then puts those
/// paths back as they were at the base: a path the base has is restored
/// in the work tree from it and in the index from the start commit; a new
/// one is removed. Nothing is put back unless the patch was written.
pub(crate) fn save_and_restore(git: &Git, found: &Found, patch: &Path) -> Saved {
    let mut saved = Saved::default();
    let nested: Vec<&Finding> = found
        .violations
        .iter()
        .filter(|v| v.change == Change::NestedRepository)
        .collect();
    for v in &nested {
        saved.kept.push(v.path.clone());
    }
    if !nested.is_empty() {
        saved.problem = Some(
            "a nested repository is another repository's content: it was left where it is"
                .to_owned(),
        );
    }
    let Some(scratch) = &found.scratch else {
        return saved;
    };
    let files: Vec<&Finding> = found
        .violations
        .iter()
        .filter(|v| v.change != Change::NestedRepository)
        .collect();
    let keep_all = |saved: &mut Saved, why: String| {
        saved.kept.extend(
            files
                .iter()
                .map(|v| v.path.clone())
                .chain(files.iter().filter_map(|v| v.from.clone())),
        );
        saved.problem = Some(why);
    };
    let bytes = match staged_patch(git, scratch, &found.base, &[]) {
        Ok(b) => b,
        Err(p) => {
            keep_all(
                &mut saved,
                format!("the patch could not be made: {}", p.message),
            );
            return saved;
        }
    };
    let written = write_patch(patch, &bytes);
    if let Err(why) = written {
        keep_all(
            &mut saved,
            format!("the patch {} could not be written: {why}", patch.display()),
        );
        return saved;
    }
    saved.patch = Some(patch.display().to_string());

    // Put back: the base's paths from the base, new ones removed, and the
    // index entries of all of them as the start commit has them.
    let mut old: Vec<String> = Vec::new();
    let mut new: Vec<String> = Vec::new();
    for v in &files {
        match v.change {
            Change::Added | Change::Untracked => new.push(v.path.clone()),
            Change::Renamed => {
                new.push(v.path.clone());
                old.extend(v.from.clone());
            }
            _ => old.push(v.path.clone()),
        }
    }
    let mut all: Vec<String> = old.iter().chain(&new).cloned().collect();
    all.sort();
    let mut failures = Vec::new();
    for path in &new {
        let full = git.root.join(path);
        if let Err(e) = std::fs::remove_file(&full)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            failures.push(format!("{path}: {e}"));
        }
    }
    let from_stdin = ["--pathspec-from-file=-", "--pathspec-file-nul"];
    let reset = nul_list(&all);
    let mut args = vec!["reset", "-q", found.since.as_str()];
    args.extend(from_stdin);
    if let Err(p) = call(
        git,
        &args,
        crate::git::With {
            index: None,
            input: Some(&reset),
        },
    ) {
        failures.push(p.message);
    }
    if !old.is_empty() {
        let list = nul_list(&old);
        let source = format!("--source={}", found.base);
        let mut args = vec!["restore", "--worktree", source.as_str()];
        args.extend(from_stdin);
        if let Err(p) = call(
            git,
            &args,
            crate::git::With {
                index: None,
                input: Some(&list),
            },
        ) {
            failures.push(p.message);
        }
    }
    if failures.is_empty() {
        saved.restored = all;
    } else {
        saved.kept.extend(all);
        saved.problem = Some(format!(
            "putting the paths back failed ({}); they are saved in the patch",
            failures.join("; ")
        ));
    }
    saved
}

/// The step-begin [`Base`] kept in `git_dir`, if any (an unreadable one
/// counts as none: the audit then compares with the start commit, which
/// can only find more).
pub(crate) fn read_base(git_dir: &Path) -> Option<Base> {
    let bytes = crate::input_file::read(&git_dir.join(BASE_FILE), 64 << 20).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Keeps `base` in `git_dir` (`None`: removes any).
pub(crate) fn keep_base(git_dir: &Path, base: Option<&Base>) -> Result<(), Problem> {
    let path = git_dir.join(BASE_FILE);
    let done = match base {
        Some(b) => {
            let mut bytes = serde_json::to_vec(b).unwrap_or_default();
            bytes.push(b'\n');
            crate::atomic_file::write_atomic(&path, &bytes).map_err(|e| e.to_string())
        }
        None => match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
            _ => Ok(()),
        },
    };
    done.map_err(|why| {
        Problem::new(
            code::AUDIT_GIT_FAILED,
            format!("cannot keep the step's base {}: {why}", path.display()),
        )
    })
}

/// Where a run's scope patches go: `<git dir>/voyage-scope/`.
pub(crate) fn patch_path(git_dir: &Path, step: u32, attempt: u32) -> PathBuf {
    let stamp = crate::clock::UtcTime::now().compact();
    git_dir
        .join(PATCH_DIR)
        .join(format!("step-{step}-attempt-{attempt}-{stamp}.patch"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_records() {
        let out = b"# branch.oid 0123abcd\0# branch.head main\0\
1 .M N... 100644 100644 100644 aaa aaa a file.txt\0\
2 R. N... 100644 100644 100644 aaa aaa R100 new name\0old name\0\
u UU N... 100644 100644 100644 100644 a b c both.txt\0\
? nested/\0? new.txt\0";
        let s = parse_status(out);
        assert_eq!(s.head.as_deref(), Some("0123abcd"));
        let paths: Vec<&str> = s.paths().collect();
        assert_eq!(
            paths,
            [
                "a file.txt",
                "new name",
                "old name",
                "both.txt",
                "nested/",
                "new.txt"
            ]
        );
        assert!(s.entries.iter().filter(|e| e.untracked).count() == 2);
        assert_eq!(parse_status(b"# branch.oid (initial)\0").head, None);
    }

    #[test]
    fn scope_matches_files_directories_and_run_files() {
        let scope = Scope::new(["src/", "greet.sh"], ["plans/plan.md", ".temp/voyage/logs"]);
        assert!(!scope.outside("src/a/b.rs"));
        assert!(!scope.outside("greet.sh"));
        assert!(!scope.outside(".temp/voyage/logs/x.log"));
        assert!(scope.outside("README.md"));
        assert!(scope.outside("srcx/a"));
        assert!(scope.outside("nested/"));
        assert!(!Scope::new(["nested"], []).outside("nested/"));
    }
}
