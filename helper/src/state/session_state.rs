//! The session handover pair (seed Phase 8, "Progress + state-file writes";
//! Handover 7): `.session-state.local.json` and its sibling
//! `NEXT-SESSION-PROMPT.local.md`, whose front matter lets `/trekcontinue`
//! tell who produced it and when.
//!
//! Both files carry the same instant (`updated_at` = `produced_at`), which is
//! how a reader (and `state validate`) can tell that they belong together.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// File name of the state record in the project directory.
pub(super) const STATE_FILE: &str = ".session-state.local.json";
/// File name of the prompt written beside it.
pub(super) const PROMPT_FILE: &str = "NEXT-SESSION-PROMPT.local.md";
/// The producer the prompt's front matter names.
pub(super) const PRODUCER: &str = "trekexecute";

/// The run statuses a session state may record.
pub(super) const STATUSES: &[&str] = &["completed", "failed", "stopped", "partial"];

/// `.session-state.local.json`, schema `session-state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SessionState {
    pub schema_version: u32,
    pub project: String,
    pub next_session_brief_path: String,
    pub next_session_label: String,
    pub status: String,
    pub updated_at: String,
}

impl SessionState {
    /// The two paths of the pair in `project_dir`.
    pub(super) fn paths(project_dir: &Path) -> (PathBuf, PathBuf) {
        (project_dir.join(STATE_FILE), project_dir.join(PROMPT_FILE))
    }

    /// The state file's bytes: pretty JSON and a final newline.
    pub(super) fn to_json_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// The prompt file: front matter (`produced_by`, `produced_at`,
    /// `project`, `status`, and the next session's label and brief), then a
    /// short body saying how to go on.
    pub(super) fn prompt(&self) -> String {
        // JSON strings are valid YAML scalars, whatever the text holds.
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        format!(
            "---\nproduced_by: {PRODUCER}\nproduced_at: {at}\nproject: {project}\nstatus: {status}\n\
             next_session_label: {label}\nnext_session_brief_path: {brief}\n---\n\n\
             # {label_text}\n\nBrief: {brief_text}\n\nResume via /trekcontinue.\n",
            at = self.updated_at,
            project = quote(&self.project),
            status = self.status,
            label = quote(&self.next_session_label),
            brief = quote(&self.next_session_brief_path),
            label_text = self.next_session_label,
            brief_text = self.next_session_brief_path,
        )
    }
}

/// The prompt's front matter, as `state validate` reads it back.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct PromptFrontMatter {
    pub produced_by: Option<String>,
    pub produced_at: Option<String>,
    pub project: Option<String>,
    pub status: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::front_matter;

    #[test]
    fn the_prompt_front_matter_reads_back() {
        let state = SessionState {
            schema_version: 1,
            project: "dir: with \"quotes\"".into(),
            next_session_brief_path: "b.md".into(),
            next_session_label: "Session 2: auth".into(),
            status: "partial".into(),
            updated_at: "2026-11-30T10:15:00Z".into(),
        };
        let fm: PromptFrontMatter = front_matter::parse(&state.prompt()).unwrap().unwrap();
        assert_eq!(fm.produced_by.as_deref(), Some("trekexecute"));
        assert_eq!(fm.produced_at.as_deref(), Some("2026-11-30T10:15:00Z"));
        assert_eq!(fm.project.as_deref(), Some("dir: with \"quotes\""));
        assert_eq!(fm.status.as_deref(), Some("partial"));
    }
}
