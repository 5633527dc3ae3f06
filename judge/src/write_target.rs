//! [`WriteTarget`]: a path a command would write, as the engine read it,
//! handed back with the judgement so that the run-scope check
//! (the helper's `scan/run_scope.rs`) holds Bash commands to the same rules as the file
//! tools without parsing them a second time.
//!
//! Every write the protected-path rules look at is recorded here
//! (`Scanner::record_write`, called by `Scanner::write_target` and for the
//! interpreter one-liners' writes), plus the directories `mkdir` creates,
//! with where the command stands when it writes (a `cd` before it counts).

use crate::arg::Arg;
use crate::cwd::known_path;
use crate::paths::Write;
use crate::scanner::Scanner;

/// Where a command stands when it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteDir {
    /// Where the tool call runs (no `cd` before the write).
    Call,
    /// Where a `cd` moved it: normalised, `~/…` under the home, `./…`
    /// relative to the call's directory, or absolute.
    Moved(String),
    /// Somewhere the text does not say (`cd "$DIR"`, `cd -`).
    Unknown,
    /// A `cd` before it may have failed (`cd src; echo x > f`): the first
    /// of these places if it succeeded, else one of the others (each
    /// [`Self::Call`] or [`Self::Moved`]).
    InDoubt(Vec<WriteDir>),
}

/// One path a command would write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The path as the command gives it (`~` for the home), `None` when it
    /// depends on run time (`> "$X"`, `tee "$(mktemp)"`).
    pub path: Option<String>,
    /// The word as the engine spelled it, for messages (`$X` stays `$X`).
    pub spelled: String,
    /// The word holds unquoted glob characters (`rm *.o`).
    pub glob: bool,
    /// Where the command stands when it writes.
    pub dir: WriteDir,
    /// How it writes: replaced, appended, removed, changed or created.
    pub kind: WriteKind,
    /// For a link the command makes at `path` (`ln`, `link`, `cp -s`,
    /// `cp -l`, a one-line program's `os.symlink`):
    /// what the link points to, so that a link made during a step to a
    /// file outside its Files can be refused. `None` for every other write.
    pub link: Option<Link>,
    /// `path` is `DIR/.git` for the directory DIR a git command runs in:
    /// what it writes is the git directory of the repository holding DIR,
    /// found as git finds it (the nearest `.git` at or above DIR, a
    /// `gitdir:` file followed), which only the file system can say
    /// (`cd src && git add a.rs` writes the top's `.git`, not `src/.git`).
    pub git_dir: bool,
}

/// What a link made by a command points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The link's target as the command gives it: relative to the link's
    /// own directory (as the file system reads a symbolic link), unless
    /// [`Self::from_here`]. `None` when it depends on run time.
    pub to: Option<String>,
    /// A symbolic link (`ln -s`, `cp -s`); otherwise a hard link.
    pub symbolic: bool,
    /// `to` is relative to where the command stands: a hard link, or
    /// `ln -sr` (which makes the link relative to its own directory
    /// itself).
    pub from_here: bool,
}

/// How a command touches a path, for the run-scope check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// Replaced, appended to, or changed in place.
    Write,
    /// Deleted, moved away or relinked (everything under it goes too).
    Remove,
    /// A directory created (`mkdir`): allowed where it holds a file the
    /// step may write.
    Create,
}

impl WriteTarget {
    /// A path a file tool (Write, Edit, …) writes, from the call's directory.
    pub fn file(path: &str) -> Self {
        Self {
            path: Some(path.to_owned()),
            spelled: path.to_owned(),
            glob: false,
            dir: WriteDir::Call,
            kind: WriteKind::Write,
            link: None,
            git_dir: false,
        }
    }

    /// A path a tool names, written this way, from the call's directory.
    pub fn named(path: &str, kind: WriteKind) -> Self {
        Self {
            kind,
            ..Self::file(path)
        }
    }

    /// A write whose path the call does not give; `what` names it.
    pub fn unknown(what: &str) -> Self {
        Self {
            path: None,
            spelled: what.to_owned(),
            ..Self::file(what)
        }
    }
}

impl From<Write> for WriteKind {
    fn from(write: Write) -> Self {
        match write {
            Write::Replace | Write::Append | Write::Modify => Self::Write,
            Write::Remove => Self::Remove,
            Write::Create => Self::Create,
            // A tree's attributes: everything under it changes.
            Write::Attributes { tree: true } => Self::Remove,
            Write::Attributes { tree: false } => Self::Write,
        }
    }
}

impl Scanner<'_> {
    /// Where the shell stands for a write made now.
    pub(super) fn write_dir(&self) -> WriteDir {
        let at = |cwd: &Option<String>| cwd.clone().map_or(WriteDir::Call, WriteDir::Moved);
        if self.cwd_lost {
            return WriteDir::Unknown;
        }
        if !self.cwd_doubt {
            return at(&self.cwd);
        }
        match &self.cwd_or {
            Some(others) if !others.is_empty() => {
                WriteDir::InDoubt(std::iter::once(&self.cwd).chain(others).map(at).collect())
            }
            _ => WriteDir::Unknown,
        }
    }

    /// Records that the command writes `target` (a word) this way: the
    /// file a descriptor path (`/dev/fd/3`) reopens, where it names one
    /// ([`Scanner::landing`]).
    pub(super) fn record_write(&mut self, target: &Arg, write: Write) {
        for (target, dir) in self.landing(target) {
            self.judgement.writes.push(WriteTarget {
                path: known_path(&target).map(str::to_owned),
                spelled: target.text.to_string(),
                glob: target.glob,
                dir,
                kind: write.into(),
                link: None,
                git_dir: false,
            });
        }
    }

    /// Marks the write recorded last as a link the command makes there.
    pub(super) fn record_link(&mut self, link: Link) {
        if let Some(last) = self.judgement.writes.last_mut() {
            last.link = Some(link);
        }
    }

    /// Marks the write recorded last as a write of the git directory of
    /// the repository its directory is in ([`WriteTarget::git_dir`]), made
    /// by the git command `words` (what a message names, as `.git` alone
    /// says little).
    pub(super) fn record_git_dir(&mut self, words: &[Arg]) {
        if let Some(last) = self.judgement.writes.last_mut() {
            last.git_dir = true;
            last.spelled = crate::arg::display(words);
        }
    }
}
