//! Nested `workflow:` steps resolved before any step runs, so a bad
//! reference anywhere in the tree fails the run at load time (exit 2) and
//! not halfway through.
//!
//! A reference is relative to the directory of the file that holds it, or
//! to the URL of a remote workflow that holds it ([`remote`]).
//! Guards, independent of each other: a chain of at most
//! [`MAX_DEPTH`] nested levels, at most [`MAX_TOTAL`] workflows resolved in
//! the whole tree (a wide fan-out), and no file twice in one chain (a
//! cycle, reported with the chain). Sibling references are read and parsed
//! on threads of their own. There is no cache: the same file referenced
//! twice is loaded twice, since each reference passes its own vars.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::code;
use super::load::{self, Loaded};
use super::model::{Origin, Task, Workflow};
use super::remote::{self, Fetcher};
use crate::problem::Problem;

/// Most nested levels below the top workflow.
pub(super) const MAX_DEPTH: usize = 10;
/// Most workflows resolved across the whole tree (the top one not counted).
pub(super) const MAX_TOTAL: usize = 50;

/// Resolves every `workflow:` step of `loaded`, recursively, fetching the
/// remote ones with `fetcher`; warnings of the children are added to
/// `loaded.warnings`.
pub(super) fn resolve(loaded: &mut Loaded, fetcher: &Fetcher) -> Result<(), Problem> {
    let root = match &loaded.workflow.origin {
        Origin::Remote { url } => url.clone(),
        Origin::Local { .. } => canonical_key(Path::new(&loaded.workflow.source_path)),
    };
    let budget = AtomicUsize::new(0);
    let mut warnings = Vec::new();
    let level = Level {
        chain: &[root],
        budget: &budget,
        fetcher,
    };
    resolve_level(&mut loaded.workflow, &level, &mut warnings)?;
    loaded.warnings.append(&mut warnings);
    Ok(())
}

/// A resolved child and the warnings its files gave.
type Resolved = (Box<Workflow>, Vec<Problem>);

/// What every reference of one level shares.
struct Level<'a> {
    /// The workflows from the top down to this level's, by key.
    chain: &'a [String],
    budget: &'a AtomicUsize,
    fetcher: &'a Fetcher,
}

/// What a reference names: a file, or a URL to fetch.
enum Target {
    File(PathBuf),
    Url(String),
}

fn resolve_level(
    workflow: &mut Workflow,
    level: &Level<'_>,
    warnings: &mut Vec<Problem>,
) -> Result<(), Problem> {
    let origin = workflow.origin.clone();
    let file = PathBuf::from(&workflow.source_path);
    let pending: Vec<&mut super::model::WorkflowTask> = workflow
        .tasks
        .iter_mut()
        .filter_map(|task| match task {
            Task::Workflow(step) if step.workflow.is_none() => Some(step),
            _ => None,
        })
        .collect();
    if pending.is_empty() {
        return Ok(());
    }
    let results: Vec<Result<Resolved, Problem>> = if pending.len() == 1 {
        pending
            .iter()
            .map(|step| resolve_one(step, &origin, &file, level))
            .collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = pending
                .iter()
                .map(|step| {
                    let (origin, file) = (&origin, &file);
                    scope.spawn(move || resolve_one(step, origin, file, level))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Problem::new(
                            code::WORKFLOW_INTERNAL,
                            "resolving a nested workflow failed unexpectedly",
                        ))
                    })
                })
                .collect()
        })
    };
    // The first problem in step order wins, whatever thread finished first.
    for (step, result) in pending.into_iter().zip(results) {
        let (child, mut child_warnings) = result?;
        step.workflow = Some(child);
        warnings.append(&mut child_warnings);
    }
    Ok(())
}

fn resolve_one(
    step: &super::model::WorkflowTask,
    origin: &Origin,
    file: &Path,
    level: &Level<'_>,
) -> Result<Resolved, Problem> {
    let at_step = |code: &'static str, message: String| {
        Problem::new(
            code,
            format!("step \"{}\", field `workflow`: {message}", step.name),
        )
        .in_file(file)
        .at_line(step.reference_line)
    };
    let reference = step.reference.as_str();
    let unsupported = |scheme: &str| {
        at_step(
            code::WORKFLOW_REMOTE_UNSUPPORTED,
            format!(
                "\"{reference}\" is a {scheme} URL; only http and https workflows can be fetched, so download the file and reference its path"
            ),
        )
    };
    let target = match origin {
        // Joined to the URL whatever it looks like: a remote workflow
        // never reads the local disk.
        Origin::Remote { url } => match remote::join(url, reference) {
            Some(joined) => Target::Url(joined),
            None => return Err(unsupported(remote::scheme(reference).unwrap_or("non-http"))),
        },
        Origin::Local { .. } if remote::is_url(reference) => Target::Url(remote::to_raw(reference)),
        Origin::Local { dir } => {
            if let Some(scheme) = remote::scheme(reference) {
                return Err(unsupported(scheme));
            }
            let path = join_reference(Path::new(dir), reference);
            if !path.is_file() {
                let why = if path.exists() {
                    "is not a file"
                } else {
                    "does not exist"
                };
                return Err(at_step(
                    code::WORKFLOW_REFERENCE_NOT_FOUND,
                    format!(
                        "\"{reference}\" {why} (looked for {}; references are relative to the referencing file's directory)",
                        path.display()
                    ),
                ));
            }
            Target::File(path)
        }
    };
    let (key, shown) = match &target {
        Target::File(path) => (canonical_key(path), path.display().to_string()),
        Target::Url(url) => (url.clone(), url.clone()),
    };
    if level.chain.contains(&key) {
        let mut names: Vec<&str> = level.chain.iter().map(String::as_str).collect();
        names.push(&key);
        return Err(at_step(
            code::WORKFLOW_CYCLE,
            format!(
                "the workflow references form a cycle: {}",
                names.join(" → ")
            ),
        ));
    }
    if level.chain.len() > MAX_DEPTH {
        return Err(at_step(
            code::WORKFLOW_TOO_DEEP,
            format!("nested workflows go deeper than {MAX_DEPTH} levels (at \"{shown}\")"),
        ));
    }
    if level.budget.fetch_add(1, Ordering::SeqCst) >= MAX_TOTAL {
        return Err(at_step(
            code::WORKFLOW_TOO_MANY,
            format!(
                "the workflow tree references more than {MAX_TOTAL} workflows in all (at \"{shown}\")"
            ),
        ));
    }
    let loaded = match &target {
        Target::File(path) => load::load_file(path, &step.vars.0),
        Target::Url(url) => match level.fetcher.fetch(url) {
            Ok(source) => load::load_remote(source, url, &step.vars.0),
            Err(problem) => return Err(at_step(problem.code, problem.message)),
        },
    };
    let mut loaded = loaded.map_err(|mut problem| {
        // The child's own file and line, and where it is run from: a
        // missing var is usually the parent step's to give.
        problem.message = format!(
            "{} (in the workflow run by step \"{}\" at {}:{})",
            problem.message,
            step.name,
            file.display(),
            step.reference_line
        );
        problem
    })?;
    let mut child_chain = level.chain.to_vec();
    child_chain.push(key);
    let child_level = Level {
        chain: &child_chain,
        budget: level.budget,
        fetcher: level.fetcher,
    };
    let mut warnings = std::mem::take(&mut loaded.warnings);
    resolve_level(&mut loaded.workflow, &child_level, &mut warnings)?;
    Ok((Box::new(loaded.workflow), warnings))
}

/// `dir/reference` without the `.` segments a plain join keeps: a child of
/// `wf.yaml` referenced as `./c.yaml` was `././c.yaml` (one more `./` per
/// level) in every message and in its `sourcePath`.
fn join_reference(dir: &Path, reference: &str) -> PathBuf {
    let joined: PathBuf = dir
        .join(reference)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if joined.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        joined
    }
}

/// The name a file goes by in a chain: its canonical path when it has one.
fn canonical_key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_join_without_dot_segments() {
        let join = |d: &str, r: &str| join_reference(Path::new(d), r);
        assert_eq!(join(".", "./c.yaml"), PathBuf::from("c.yaml"));
        assert_eq!(
            join("flows", "../shared/l.yaml"),
            PathBuf::from("flows/../shared/l.yaml")
        );
        assert_eq!(join("/w", "./a/./b.yaml"), PathBuf::from("/w/a/b.yaml"));
        assert_eq!(join(".", "/abs/x.yaml"), PathBuf::from("/abs/x.yaml"));
    }
}
