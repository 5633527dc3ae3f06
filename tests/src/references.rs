//! Every reference to a file, in the code and the docs, names a file the
//! repository holds: a clone is all a reader has, so a pointer to a document
//! kept elsewhere (a design note, a research folder) leads nowhere.
//!
//! What counts as a reference:
//!
//! - a Markdown link `[text](target)` in a `.md` file, other than a URL or
//!   an anchor in the same page; the target is relative to the file;
//! - a path that starts with one of the repository's top-level folders
//!   (`helper/src/lib.rs`, `docs/guide/install.md`) and ends in a file
//!   extension, found relative to the repository root, the file's own
//!   folder or its crate's root (`src/…` in a crate's own comments);
//! - a bare document name in capitals (`DESIGN.md`): some file of the
//!   repository must carry that name;
//! - a path into `research/`, the notes the project was designed from,
//!   which were never in the repository;
//! - a numbered section of a file that is not a document (`run.sh §4`: the
//!   sections of the original script's contract, which lived elsewhere).
//!
//! `unmapped_phases` holds the code's other kind of pointer, a "Phase
//! 7.5" or "Sub-step D2" of the trekexecute specification, to the page that
//! maps those numbers to the code (`docs/maintainer/phases.md`): each number
//! cited must have its row there.
//!
//! In Rust files only comments are read, and in shell scripts, TOML and
//! YAML only what follows a `#`: paths in code are mostly data (files the
//! tests and scripts create in scratch repositories). History is not read
//! (`CHANGELOG.md`, `benches/HISTORY.md` name files as they were then), nor
//! test data (`fixtures/`, `examples/`, `tests/data/`), nor this file, whose
//! tests plant broken references on purpose.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One reference that leads nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The file holding the reference, relative to the root.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// The reference as written.
    pub target: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.target)
    }
}

/// Folders never read: build output, history, test data.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "target",
    "node_modules",
    "fixtures",
    "examples",
    "proptest-regressions",
    "data",
    "corpus",
    "artifacts",
];

/// Files never read: history names files as they were when it was written.
const SKIPPED_FILES: &[&str] = &["CHANGELOG.md", "HISTORY.md"];

/// Paths the docs and demos give as examples of a user's repository (a
/// plan's Verify script, a step's Files), not files of this one; their
/// first folder happens to be one of ours. Listed one by one, so a real
/// reference that goes stale is still reported.
const EXAMPLES: &[&str] = &[
    "tests/run.sh",
    "tests/all.sh",
    "tests/greet.sh",
    "tests/wc-words.sh",
    "scripts/smoke.sh",
];

/// This file, relative to the root: its docs and tests hold broken examples.
const THIS_FILE: &str = "tests/src/references.rs";

/// The extensions of the files read, and of the paths taken as references.
const TEXT: &[&str] = &["md", "rs", "sh", "toml", "yml", "yaml"];
const REFERENCED: &[&str] = &["md", "rs", "sh", "toml", "json", "yml", "yaml", "1", "txt"];

/// Every broken reference in the text files under `root`, in file order.
pub fn check(root: &Path) -> io::Result<Vec<Broken>> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let top: BTreeSet<String> = fs::read_dir(root)?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && name != "target")
        .collect();
    let names: BTreeSet<String> = files
        .iter()
        .chain(other_files(root)?.iter())
        .filter_map(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    let mut broken = Vec::new();
    for file in &files {
        let text = fs::read_to_string(root.join(file)).unwrap_or_default();
        let ctx = Context {
            root,
            file,
            top: &top,
            names: &names,
        };
        ctx.check_text(&text, &mut broken);
    }
    Ok(broken)
}

/// Every "Phase N" and "Sub-step X" cited in the text files under `root`
/// (comments in code, all of Markdown) that has no row `| Phase N |` or
/// `| Sub-step X |` in the map `map` (a path relative to `root`).
pub fn unmapped_phases(root: &Path, map: &Path) -> io::Result<Vec<Broken>> {
    let rows = fs::read_to_string(root.join(map))?;
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let mut missing = Vec::new();
    for file in files.iter().filter(|f| f.as_path() != map) {
        let text = fs::read_to_string(root.join(file)).unwrap_or_default();
        let extension = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        for (n, line) in text.lines().enumerate() {
            let comment = match extension {
                "md" => Some(0),
                "rs" => line.find("//"),
                _ => line.find('#'),
            };
            let Some(line) = comment.and_then(|at| line.get(at..)) else {
                continue;
            };
            for cited in phase_numbers(line) {
                if !rows.contains(&format!("| {cited} |")) {
                    missing.push(Broken {
                        file: file.clone(),
                        line: n + 1,
                        target: cited,
                    });
                }
            }
        }
    }
    Ok(missing)
}

/// "Phase 7.5" and "Sub-step D2" as cited on one line (a plural, "Sub-steps
/// A-F", is a range and names no one row).
fn phase_numbers(line: &str) -> Vec<String> {
    let mut cited = Vec::new();
    for (word, number_char) in [
        (
            "Phase ",
            (|c: char| c.is_ascii_digit() || c == '.') as fn(char) -> bool,
        ),
        ("Sub-step ", |c: char| {
            c.is_ascii_uppercase() || c.is_ascii_digit()
        }),
    ] {
        for (at, _) in line.match_indices(word) {
            let rest = line.get(at + word.len()..).unwrap_or_default();
            let end = rest.find(|c: char| !number_char(c)).unwrap_or(rest.len());
            let number = rest.get(..end).unwrap_or_default().trim_end_matches('.');
            if !number.is_empty() {
                cited.push(format!("{word}{number}"));
            }
        }
    }
    cited
}

/// The text files to read, relative to `root`.
fn collect(root: &Path, dir: &Path, into: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            if !SKIPPED_DIRS.contains(&name.as_str()) && rel != Path::new("fuzz/target") {
                collect(root, &path, into)?;
            }
        } else if kind.is_file()
            && !SKIPPED_FILES.contains(&name.as_str())
            && path.strip_prefix(root).ok() != Some(Path::new(THIS_FILE))
            && path
                .extension()
                .is_some_and(|e| TEXT.contains(&e.to_string_lossy().as_ref()))
        {
            into.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

/// The names of the files not read but still referable (`SKILL.md` is read,
/// `LICENSE` or a schema is not): every file outside the skipped folders.
fn other_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) -> io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_dir() {
                if name != ".git" && name != "target" && name != "node_modules" {
                    walk(&entry.path(), into)?;
                }
            } else {
                into.push(entry.path());
            }
        }
        Ok(())
    }
    let mut all = Vec::new();
    walk(root, &mut all)?;
    Ok(all)
}

struct Context<'a> {
    root: &'a Path,
    file: &'a Path,
    top: &'a BTreeSet<String>,
    names: &'a BTreeSet<String>,
}

impl Context<'_> {
    fn check_text(&self, text: &str, broken: &mut Vec<Broken>) {
        let extension = self.file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let rust = extension == "rs";
        let markdown = extension == "md";
        for (n, line) in text.lines().enumerate() {
            // The comment part of a line of code; all of a Markdown line.
            let comment = match extension {
                "md" => Some(0),
                "rs" => line.find("//"),
                _ => line.find('#'),
            };
            let Some(line) = comment.and_then(|at| line.get(at..)) else {
                continue;
            };
            let mut seen = BTreeSet::new();
            let mut report = |target: &str| {
                // A Markdown link is also a path token: one report each.
                if !seen.insert(target.to_owned()) {
                    return;
                }
                broken.push(Broken {
                    file: self.file.to_path_buf(),
                    line: n + 1,
                    target: target.to_owned(),
                });
            };
            if markdown {
                for target in markdown_links(line) {
                    if !self.link_exists(target) {
                        report(target);
                    }
                }
            }
            for (at, _) in line.match_indices(" §") {
                let before = line.get(..at).unwrap_or_default();
                let name = before
                    .rsplit(|c: char| !is_path_char(c))
                    .next()
                    .unwrap_or_default();
                let extension = Path::new(name).extension().and_then(|e| e.to_str());
                if extension.is_some_and(|e| e != "md") {
                    report(&format!("{name} §"));
                }
            }
            for token in line.split(|c: char| !is_path_char(c)) {
                let token = token.trim_start_matches("./").trim_end_matches(['.', '-']);
                if !self.path_exists(token, rust) {
                    report(token);
                }
            }
        }
    }

    /// A Markdown link's target, unless it leaves the repository or stays
    /// in the page.
    fn link_exists(&self, target: &str) -> bool {
        if target.contains("://") || target.starts_with("mailto:") || target.starts_with('#') {
            return true;
        }
        let path = target.split('#').next().unwrap_or_default();
        let dir = self.file.parent().unwrap_or(Path::new(""));
        self.root.join(dir).join(path).exists()
    }

    /// Whether a token that looks like a file reference names one; tokens
    /// that do not look like one pass.
    fn path_exists(&self, token: &str, rust: bool) -> bool {
        let Some((first, _)) = token.split_once('/') else {
            // A bare document name such as DESIGN.md.
            let is_document = token.strip_suffix(".md").is_some_and(|stem| {
                !stem.is_empty()
                    && stem
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
            });
            return !is_document || self.names.contains(token);
        };
        let referenced = Path::new(token)
            .extension()
            .is_some_and(|e| REFERENCED.contains(&e.to_string_lossy().as_ref()));
        if first == "research" && referenced {
            return false;
        }
        // A crate's comments name its files from the crate root (`src/…`),
        // but `src/a.rs` in an example is a user's file: only the paths of
        // the crate's own folders are taken.
        let own = rust && first == "src" && Path::new(token).components().count() > 2;
        if !referenced || EXAMPLES.contains(&token) || !self.top.contains(first) && !own {
            return true;
        }
        let dir = self.file.parent().unwrap_or(Path::new(""));
        let crate_root = dir
            .ancestors()
            .find(|d| self.root.join(d).join("Cargo.toml").is_file())
            .unwrap_or(Path::new(""));
        [Path::new(""), dir, crate_root]
            .iter()
            .any(|base| self.root.join(base).join(token).exists())
    }
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// The targets of the inline links `[text](target)` on one line.
fn markdown_links(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = rest.get(at + 2..).unwrap_or_default();
        let Some(end) = after.find(')') else { break };
        let target = after.get(..end).unwrap_or_default().trim();
        // `[a](b "title")`: the target is the first word.
        let target = target.split_whitespace().next().unwrap_or_default();
        if !target.is_empty() {
            targets.push(target);
        }
        rest = after.get(end..).unwrap_or_default();
    }
    targets
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// What `check` reports as broken under `root`: the targets only.
    fn targets(root: &Path) -> Vec<String> {
        check(root).unwrap().into_iter().map(|b| b.target).collect()
    }

    /// A small repository: a crate with a doc, and a `docs/` page.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("helper/src")).unwrap();
        fs::create_dir_all(root.join("docs/guide")).unwrap();
        fs::write(root.join("helper/Cargo.toml"), "[package]\n").unwrap();
        fs::write(
            root.join("helper/src/lib.rs"),
            "//! See docs/guide/install.md.\n",
        )
        .unwrap();
        fs::write(
            root.join("docs/guide/install.md"),
            "# Install\n\nSee [the library](../../helper/src/lib.rs) and README.md.\n",
        )
        .unwrap();
        fs::write(
            root.join("README.md"),
            "[Install](docs/guide/install.md#cargo)\n",
        )
        .unwrap();
        dir
    }

    fn plant(root: &Path, file: &str, text: &str) {
        fs::write(root.join(file), text).unwrap();
    }

    #[test]
    fn a_tree_whose_references_all_exist_passes() {
        let dir = tree();
        assert_eq!(check(dir.path()).unwrap(), vec![]);
    }

    #[test]
    fn a_markdown_link_to_a_missing_file_is_reported_with_its_line() {
        let dir = tree();
        plant(
            dir.path(),
            "README.md",
            "# Voyage\n\n[Guide](docs/guide/missing.md)\n",
        );
        let broken = check(dir.path()).unwrap();
        assert_eq!(
            broken,
            vec![Broken {
                file: "README.md".into(),
                line: 3,
                target: "docs/guide/missing.md".into()
            }]
        );
    }

    #[test]
    fn a_path_in_a_rust_comment_to_a_missing_file_is_reported() {
        let dir = tree();
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "//! Laid out by area (helper/src/gone.rs).\nfn f() {}\n",
        );
        let broken: Vec<String> = check(dir.path())
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(broken, ["helper/src/lib.rs:1: helper/src/gone.rs"]);
    }

    #[test]
    fn documents_kept_outside_the_repository_are_reported() {
        let dir = tree();
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "//! The areas (DESIGN.md, \"Areas\"); the hook's input\n\
             //! (research/hooks/hooks-protocol.md §1).\n",
        );
        let targets = targets(dir.path());
        assert_eq!(targets, ["DESIGN.md", "research/hooks/hooks-protocol.md"]);
    }

    #[test]
    fn a_section_of_a_script_is_reported_and_one_of_a_document_is_not() {
        let dir = tree();
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "//! The log's name (run.sh §4); the install (README.md §2).\n",
        );
        let targets = targets(dir.path());
        assert_eq!(targets, ["run.sh §"]);
    }

    #[test]
    fn a_phase_without_a_row_in_the_map_is_reported() {
        let dir = tree();
        plant(
            dir.path(),
            "docs/phases.md",
            "| Phase 7.5 | the audit |\n| Sub-step D2 | the manifest |\n",
        );
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "//! The audit (Phase 7.5, Sub-step D2); the report (Phase 8).\n\
             //! Sub-steps A-F, and Phase 7.5. at a sentence's end.\n\
             fn f() { let _ = \"Phase 12\"; }\n",
        );
        let missing: Vec<String> = unmapped_phases(dir.path(), Path::new("docs/phases.md"))
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(missing, ["helper/src/lib.rs:1: Phase 8"]);
    }

    #[test]
    fn a_crate_relative_path_in_its_own_comments_passes() {
        let dir = tree();
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "//! The entry point is src/lib.rs.\n",
        );
        assert_eq!(check(dir.path()).unwrap(), vec![]);
    }

    #[test]
    fn string_literals_urls_and_history_are_not_references() {
        let dir = tree();
        plant(
            dir.path(),
            "helper/src/lib.rs",
            "fn f() { let _ = \"docs/made-in-a-scratch-repo.md\"; }\n",
        );
        plant(
            dir.path(),
            "docs/guide/install.md",
            "[site](https://example.com/docs/x.md) [here](#install)\n",
        );
        plant(
            dir.path(),
            "CHANGELOG.md",
            "Removed DESIGN.md and helper/src/old.rs.\n",
        );
        assert_eq!(check(dir.path()).unwrap(), vec![]);
    }
}
