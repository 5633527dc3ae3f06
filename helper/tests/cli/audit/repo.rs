//! A real git repository in a temp dir, for the audits' tests: files
//! written, commits made with given subjects, the helper run inside it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Case, Ran};

pub(super) struct Repo {
    pub(super) case: Case,
}

impl Repo {
    /// An empty repository with one first commit (`init`), so HEAD exists.
    pub(super) fn new() -> Self {
        let repo = Self {
            case: Case::new(&[]),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write(".gitkeep", "");
        repo.commit("init");
        repo
    }

    pub(super) fn path(&self) -> &Path {
        self.case.path()
    }

    /// Runs git in the repository with a fixed identity; panics when it fails.
    pub(super) fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Writes `rel` (creating its directories).
    pub(super) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path().join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).unwrap();
        }
        fs::write(&path, text).unwrap();
        path
    }

    /// Stages everything and commits it with `subject`; the new HEAD.
    pub(super) fn commit(&self, subject: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", subject]);
        self.head()
    }

    pub(super) fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Runs the helper in the repository.
    pub(super) fn run(&self, args: &[&str]) -> Ran {
        self.case.run_with(args)
    }

    /// The progress file at `rel`, parsed.
    pub(super) fn json(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(self.path().join(rel)).unwrap()).unwrap()
    }
}

/// Checks `output` (one JSON document) against `schemas/<name>.schema.json`
/// and returns it parsed.
pub(super) fn valid(schema: &str, output: &str) -> serde_json::Value {
    crate::common::assert_schema(schema, output)
}

/// One step of a 1.7 plan: its number, the commit subject its Checkpoint
/// writes, and its manifest's YAML (indented by the caller's `yaml`).
pub(super) struct PlanStep<'a> {
    pub(super) number: u32,
    pub(super) files: &'a [&'a str],
    pub(super) subject: &'a str,
    pub(super) manifest: &'a str,
}

/// A 1.7 trekplan of `steps`.
pub(super) fn plan(steps: &[PlanStep<'_>]) -> String {
    let mut text =
        String::from("---\nplan_version: 1.7\n---\n# Plan: audited\n\n## Implementation Plan\n\n");
    for s in steps {
        let files: Vec<String> = s.files.iter().map(|f| format!("`{f}`")).collect();
        let files = if files.is_empty() {
            "none".to_owned()
        } else {
            files.join(", ")
        };
        text.push_str(&format!(
            "### Step {n}: step {n}\n- **Files:** {files}\n- **Changes:** change.\n- **Verify:** `true`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"{subject}\"`\n- **Manifest:**\n  ```yaml\n",
            n = s.number,
            subject = s.subject,
        ));
        for line in s.manifest.trim().lines() {
            text.push_str("  ");
            text.push_str(line.trim_start());
            text.push('\n');
        }
        text.push_str("  ```\n\n");
    }
    text.push_str("## Verification\n\n- `true` — nothing\n");
    text
}
