//! What the fence leaves open: the list of [`Grant`]s built from the run
//! marker, and the one table of places a build or a package manager
//! writes by itself.
//!
//! During a step:
//!
//! - each file the step names that exists: written in place and truncated
//!   ([`Rights::File`]); a directory or a pattern the step names: anything
//!   beneath it ([`Rights::Tree`]);
//! - each file the step names that does not exist yet, and the directory of
//!   a file of the step that this call visibly rewrites (`sed -i`, a
//!   rename): files made, written and removed in that directory
//!   ([`Rights::Entries`]); other names there are the step-done scope
//!   audit's to catch;
//! - the build output directories `trek step-begin` found ignored (and
//!   made, for a toolchain whose project file is at the root);
//!
//! and at every moment of the run: Voyage's own log directory, the run's
//! private temporary directory (`TMPDIR`), the package managers' caches
//! ([`CACHES`]), `~/.claude/` but its `projects/` (those only to a step
//! whose manifest says `memory_write: true`), and the devices a
//! redirection writes.
//!
//! Never open, whatever the step says: the repository root itself and any
//! directory holding the git directory, the run marker, the plan or the
//! progress file, since a grant on a directory reaches everything beneath
//! it. A link is never followed to what it points to: a link the step
//! names is the step's file, and writing through it to a target outside
//! the Files fails.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::run_marker::RunMarker;

/// The write rights of one grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Rights {
    /// An existing file: written and truncated.
    File,
    /// A directory: files made, written and removed in it (not truncated
    /// in place, not linked or moved in from elsewhere).
    Entries,
    /// A directory: every write beneath it.
    Tree,
}

/// One place the fence leaves open.
#[derive(Debug, Serialize)]
pub(crate) struct Grant {
    /// Absolute, as opened.
    pub path: String,
    pub rights: Rights,
    /// Why it is open, in a few words.
    pub why: String,
    /// The path opened without following a final link (`O_PATH`); `None`
    /// in a listing.
    #[serde(skip)]
    pub fd: Option<File>,
}

/// A place a grant was refused, and why (shown by `scope status`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Held {
    pub path: String,
    pub why: String,
}

/// The places package managers and toolchains write outside the
/// repository by themselves, open to every fenced call that finds them:
/// the name shown, the environment variable that moves it, and where it
/// is under the home directory otherwise (a build directory moved out of
/// the repository has no such place). One inside the repository is not
/// opened: there the step's Files and build directories decide.
pub(crate) const CACHES: &[(&str, Option<&str>, Option<&str>)] = &[
    ("cargo", Some("CARGO_HOME"), Some(".cargo")),
    ("cargo target", Some("CARGO_TARGET_DIR"), None),
    ("cargo target", Some("CARGO_BUILD_TARGET_DIR"), None),
    ("go build cache", Some("GOCACHE"), Some(".cache/go-build")),
    ("go modules", Some("GOMODCACHE"), Some("go/pkg/mod")),
    ("npm", Some("npm_config_cache"), Some(".npm")),
    ("yarn", Some("YARN_CACHE_FOLDER"), Some(".cache/yarn")),
    ("pnpm", Some("PNPM_HOME"), Some(".local/share/pnpm")),
    ("pnpm cache", None, Some(".cache/pnpm")),
    ("pip", Some("PIP_CACHE_DIR"), Some(".cache/pip")),
    ("uv", Some("UV_CACHE_DIR"), Some(".cache/uv")),
    ("poetry", None, Some(".cache/pypoetry")),
    (
        "pre-commit",
        Some("PRE_COMMIT_HOME"),
        Some(".cache/pre-commit"),
    ),
    ("gradle", Some("GRADLE_USER_HOME"), Some(".gradle")),
    ("maven", None, Some(".m2/repository")),
    ("node-gyp", None, Some(".cache/node-gyp")),
    ("deno", Some("DENO_DIR"), Some(".cache/deno")),
    ("bun", None, Some(".bun/install/cache")),
];

/// Where each cache of [`CACHES`] is: its variable's value when that is
/// an absolute path, else its place under the home directory.
pub(crate) fn caches(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<(&'static str, PathBuf)> {
    CACHES
        .iter()
        .filter_map(|(name, var, under_home)| {
            let path = var
                .and_then(env)
                .filter(|p| p.starts_with('/'))
                .map(PathBuf::from)
                .or_else(|| Some(home?.join((*under_home)?)))?;
            Some((*name, path))
        })
        .collect()
}

/// The device files a redirection or a terminal program writes.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
];

/// Everything the grants are built from.
pub(crate) struct Inputs<'a> {
    pub marker: &'a RunMarker,
    pub marker_path: &'a Path,
    /// The run's private temporary directory (exists).
    pub tmp: &'a Path,
    /// Voyage's log directory in the repository (exists).
    pub logs: &'a Path,
    /// Directories of this call's own visible rewrites of step files.
    pub call_dirs: &'a [String],
    pub home: Option<&'a Path>,
    /// Reads an environment variable (the caller's, or a test's).
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// The grants, and what was held back.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Fence {
    pub grants: Vec<Grant>,
    pub held: Vec<Held>,
}

/// Builds the fence for one call.
pub(crate) fn build(inputs: &Inputs<'_>) -> Fence {
    let marker = inputs.marker;
    let root = real(Path::new(&marker.repo_root));
    let mut fence = Builder {
        fence: Fence::default(),
        guarded: [
            Some(root.join(".git")),
            std::fs::canonicalize(inputs.marker_path).ok(),
            std::fs::canonicalize(&marker.plan).ok(),
            std::fs::canonicalize(&marker.progress).ok(),
        ]
        .into_iter()
        .flatten()
        .collect(),
        root: root.clone(),
    };
    if let Some(n) = marker.step {
        let step = format!("step {n}'s Files");
        for entry in &marker.files {
            fence.step_entry(entry, &step);
        }
        for dir in inputs.call_dirs {
            let dir = root.join(dir.trim_start_matches('/'));
            fence.open(&dir, Rights::Entries, "a step file this call rewrites");
        }
        for dir in &marker.build_dirs {
            fence.open(&root.join(dir), Rights::Tree, "build output (ignored)");
        }
    }
    fence.open(inputs.logs, Rights::Tree, "Voyage's command logs");
    fence.open(
        inputs.tmp,
        Rights::Tree,
        "the run's temporary directory (TMPDIR)",
    );
    for (name, path) in caches(inputs.home, inputs.env) {
        // A variable can move a cache anywhere, into the step's tree too.
        fence.open_outside(&path, &format!("{name} cache"));
    }
    if let Some(home) = inputs.home {
        fence.claude_dir(&home.join(".claude"), marker.memory_write);
    }
    for device in DEVICES {
        fence.open(Path::new(device), Rights::File, "device");
    }
    fence.open(Path::new("/dev/pts"), Rights::Tree, "terminals");
    fence.fence
}

struct Builder {
    fence: Fence,
    /// Real paths no grant may reach.
    guarded: Vec<PathBuf>,
    root: PathBuf,
}

impl Builder {
    /// One entry of the step's Files.
    fn step_entry(&mut self, entry: &str, why: &str) {
        let text = entry.trim().trim_start_matches("./").trim_end_matches('/');
        if text.is_empty() || text.split('/').any(|part| part == "..") {
            return;
        }
        let path = self.root.join(text);
        let pattern = text.find(['*', '?', '[']);
        if let Some(at) = pattern {
            // The directory before the first pattern part.
            let fixed = text
                .get(..at)
                .and_then(|t| t.rsplit_once('/'))
                .map(|(d, _)| d);
            let dir = fixed.map_or_else(|| self.root.clone(), |d| self.root.join(d));
            self.open(&dir, Rights::Tree, why);
        } else if entry.trim().ends_with('/') {
            match std::fs::symlink_metadata(&path) {
                Ok(_) => self.open(&path, Rights::Tree, why),
                Err(_) => self.new_entry(&path, why),
            }
        } else {
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => self.hold(
                    &path,
                    "a link: the step's file is the link, not what it points to",
                ),
                Ok(meta) if meta.is_dir() => self.open(&path, Rights::Tree, why),
                Ok(_) => self.open(&path, Rights::File, why),
                Err(_) => self.new_entry(&path, why),
            }
        }
    }

    /// A file or directory the step makes: its nearest existing directory
    /// is opened for new entries.
    fn new_entry(&mut self, path: &Path, why: &str) {
        let mut dir = path.parent();
        while let Some(d) = dir {
            if std::fs::symlink_metadata(d).is_ok() {
                self.open(
                    d,
                    Rights::Entries,
                    &format!("{why}: a new file's directory"),
                );
                return;
            }
            dir = d.parent();
        }
    }

    /// `~/.claude/`: each entry but `projects/`, which holds the memory
    /// directories, unless the step may write memory.
    fn claude_dir(&mut self, dir: &Path, memory_write: bool) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name() == "projects" && !memory_write {
                continue;
            }
            let rights = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                Rights::Tree
            } else {
                Rights::File
            };
            self.open(&path, rights, "~/.claude (Hard rule 15)");
        }
    }

    fn hold(&mut self, path: &Path, why: &str) {
        self.fence.held.push(Held {
            path: path.display().to_string(),
            why: why.to_owned(),
        });
    }

    /// Opens `path` for a grant, without following a final link, unless it
    /// would reach what holds the run.
    fn open(&mut self, path: &Path, rights: Rights, why: &str) {
        self.open_where(path, rights, why, false);
    }

    /// Opens a cache's directory for every write beneath it, unless it is
    /// in the repository, where the step's Files and build directories
    /// decide.
    fn open_outside(&mut self, path: &Path, why: &str) {
        self.open_where(path, Rights::Tree, why, true);
    }

    fn open_where(&mut self, path: &Path, rights: Rights, why: &str, outside_only: bool) {
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_PATH | nix::libc::O_NOFOLLOW)
            .open(path);
        let Ok(file) = opened else {
            return;
        };
        let Ok(meta) = file.metadata() else { return };
        if meta.file_type().is_symlink() {
            return self.hold(path, "a link: never followed by the fence");
        }
        // Where the open landed, links above it followed.
        let Some(landed) = landed(&file) else { return };
        let reaches = |held: &PathBuf| {
            landed.starts_with(held) || (meta.is_dir() && held.starts_with(&landed))
        };
        if outside_only && landed.starts_with(&self.root) {
            return self.hold(
                path,
                "a cache inside the repository: the step's Files and build directories decide there",
            );
        }
        if meta.is_dir() && rights != Rights::File && landed == self.root {
            return self.hold(
                path,
                "the repository root: a grant there would reach .git, the plan and every file",
            );
        }
        if let Some(held) = self.guarded.iter().find(|held| reaches(held)) {
            let held = held.display().to_string();
            return self.hold(path, &format!("it holds {held}, which holds the run"));
        }
        let rights = if meta.is_dir() { rights } else { Rights::File };
        let path = landed.display().to_string();
        if self
            .fence
            .grants
            .iter()
            .any(|g| g.path == path && g.rights == rights)
        {
            return;
        }
        self.fence.grants.push(Grant {
            path,
            rights,
            why: why.to_owned(),
            fd: Some(file),
        });
    }
}

/// The path an open file descriptor stands for.
fn landed(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .ok()
        .filter(|p| p.is_absolute())
}

/// `path` with its links followed, or as it is when it cannot be.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}
