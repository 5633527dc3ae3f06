//! `bash -n`: the syntax check of shell scripts (Sub-step D2, check 4;
//! Phase 7.5, step 5). Scripts are checked a batch at a time, each in its
//! own `bash -n` (bash reads one script per run), so a sweep of many
//! scripts costs about one bash start per batch rather than per file.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::code;
use crate::problem::Problem;

/// How many `bash -n` run at once.
const BATCH: usize = 16;

/// A script that does not parse: its path and bash's first lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    pub path: String,
    pub message: String,
}

/// Checks each of `paths` (relative to `root`) with `bash -n`; the ones
/// that fail. A bash that cannot start is AUDIT_BASH_MISSING.
pub(super) fn check(root: &Path, paths: &[String]) -> Result<Vec<SyntaxError>, Problem> {
    let mut failed = Vec::new();
    for batch in paths.chunks(BATCH) {
        let mut children: Vec<(&String, Child)> = Vec::new();
        for path in batch {
            let child = Command::new("bash")
                .arg("-n")
                .arg("--")
                .arg(path)
                .current_dir(root)
                .env("LC_ALL", "C")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| {
                    Problem::new(
                        code::AUDIT_BASH_MISSING,
                        format!("cannot run bash -n {path}: {e}"),
                    )
                })?;
            children.push((path, child));
        }
        for (path, child) in children {
            let out = child.wait_with_output().map_err(|e| {
                Problem::new(
                    code::AUDIT_BASH_MISSING,
                    format!("bash -n {path} could not be waited for: {e}"),
                )
            })?;
            if !out.status.success() {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let message: Vec<&str> = stderr.lines().take(2).map(str::trim).collect();
                failed.push(SyntaxError {
                    path: path.clone(),
                    message: message.join(" "),
                });
            }
        }
    }
    Ok(failed)
}
