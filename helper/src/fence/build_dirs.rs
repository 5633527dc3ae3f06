//! The build output directories a step's fence leaves open, found by
//! `trek step-begin`: what a build or a test of the project writes by
//! itself inside the repository.
//!
//! They are the directories git ignores that exist when the step begins
//! (`git ls-files --others --ignored --directory`), plus, for a toolchain
//! whose project file is at the root, the output directory it would create
//! on its first build (`target/` of Cargo, `node_modules/` of npm,
//! `.pytest_cache/` of pytest), made empty now when the project's ignore
//! rules already ignore it: a fenced call could not make it in the root,
//! which stays closed. Voyage's own `.temp/` is left out (its log
//! directory is opened on its own), and so is any directory holding the
//! plan or the progress file.

use std::path::Path;

use crate::run_marker::RunMarker;

/// Output directories a toolchain makes on its first build, with the file
/// at the root that says the project uses it.
const TOOLCHAIN_DIRS: &[(&str, &[&str])] = &[
    ("target", &["Cargo.toml"]),
    ("node_modules", &["package.json"]),
    (
        ".pytest_cache",
        &[
            "pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
            "conftest.py",
        ],
    ),
];

/// Most directories kept: a repository with more ignored directories than
/// this at its top is served by the first ones (sorted).
const MAX_DIRS: usize = 200;

/// The build directories of the run at `root`, relative to it.
pub(crate) fn find(root: &Path, marker: &RunMarker) -> Vec<String> {
    for (dir, project_files) in TOOLCHAIN_DIRS {
        let path = root.join(dir);
        let used = project_files.iter().any(|f| root.join(f).is_file());
        if used && std::fs::symlink_metadata(&path).is_err() && ignored(root, dir) {
            // Best effort: if it cannot be made, the build says so itself.
            let _ = std::fs::create_dir(&path);
        }
    }
    let listing = crate::git::run(
        root,
        &[
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "-z",
        ],
    );
    let Some(listing) = listing.ok().filter(crate::git::Output::ok) else {
        return Vec::new();
    };
    let holds_run = |dir: &str| {
        [&marker.plan, &marker.progress].iter().any(|held| {
            Path::new(held)
                .strip_prefix(root)
                .is_ok_and(|rel| rel.starts_with(dir))
        })
    };
    let mut dirs: Vec<String> = listing
        .fields()
        .into_iter()
        .filter_map(|entry| entry.strip_suffix('/').map(str::to_owned))
        .filter(|dir| !dir.is_empty() && dir != ".temp" && !dir.starts_with(".temp/"))
        .filter(|dir| !holds_run(dir))
        .collect();
    dirs.sort();
    dirs.truncate(MAX_DIRS);
    dirs
}

/// The toolchain output directories the project at `root` uses (its
/// project file is at the root) that git does not ignore, each with that
/// file: a step's fence opens only ignored ones, and `trek step-done`
/// counts an untracked one as a change outside the step's Files, so a
/// build there fails the step. `trek start` warns of them.
pub(crate) fn unignored(root: &Path) -> Vec<(&'static str, &'static str)> {
    TOOLCHAIN_DIRS
        .iter()
        .filter_map(|(dir, project_files)| {
            let file = project_files.iter().find(|f| root.join(f).is_file())?;
            (!ignored(root, dir)).then_some((*dir, *file))
        })
        .collect()
}

/// git ignores `dir` (a directory at the root).
fn ignored(root: &Path, dir: &str) -> bool {
    crate::git::run(
        root,
        &["check-ignore", "-q", "--no-index", &format!("{dir}/")],
    )
    .is_ok_and(|out| out.ok())
}
