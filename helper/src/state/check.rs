//! `state validate`: a `.session-state.local.json` against the
//! `session-state` schema, and, when the sibling `NEXT-SESSION-PROMPT.local.md`
//! exists, that the two agree (producer `trekexecute`, the same instant,
//! project and status).

use std::path::Path;

use serde_json::Value;

use super::code;
use super::ops::{CODES, MAX_DOCUMENT_BYTES};
use super::session_state::{PRODUCER, PROMPT_FILE, PromptFrontMatter};
use crate::input_file;
use crate::problem::Problem;
use crate::schema;
use crate::validation::ValidationReport;
use crate::yaml::front_matter;

/// Validates the state file at `path` (and its sibling prompt, if present).
pub(super) fn validate_file(path: &Path) -> ValidationReport {
    let text = match input_file::read_to_string(path, MAX_DOCUMENT_BYTES) {
        Ok(text) => text,
        Err(e) => {
            let message = match e {
                input_file::InputError::NotFound(_) | input_file::InputError::Unreadable(_) => {
                    format!("cannot read: {e}")
                }
                _ => e.to_string(),
            };
            return ValidationReport::unreadable(path, Problem::new(e.code(code::INPUT), message));
        }
    };
    let mut problems = validate_text(&text);
    if problems.is_empty() {
        let prompt = path.with_file_name(PROMPT_FILE);
        if let Ok(prompt_text) = input_file::read_to_string(&prompt, MAX_DOCUMENT_BYTES) {
            let value: Value = serde_json::from_str(&text).unwrap_or_default();
            problems.extend(
                check_prompt(&value, &prompt_text)
                    .into_iter()
                    .map(|p| p.in_file_if_none(&prompt)),
            );
        }
    }
    ValidationReport::new(path, problems)
}

/// Every problem of one state document's text.
pub fn validate_text(text: &str) -> Vec<Problem> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => schema::check("session-state", &value, &CODES),
        Err(e) => {
            vec![
                Problem::new(code::STATE_NOT_JSON, format!("not JSON: {e}"))
                    .at_line_usize(e.line()),
            ]
        }
    }
}

/// The prompt's front matter against the (valid) state record.
pub fn check_prompt(state: &Value, prompt_text: &str) -> Vec<Problem> {
    let fm: PromptFrontMatter =
        match front_matter::parse(prompt_text) {
            Ok(Some(fm)) => fm,
            Ok(None) => {
                return vec![Problem::new(
                code::STATE_PROMPT_NO_FRONT_MATTER,
                "the prompt has no front matter (produced_by, produced_at, project, status)",
            )
            .at_line(1)];
            }
            Err(e) => {
                let mut p = Problem::new(code::STATE_PROMPT_BAD_FRONT_MATTER, e.to_string());
                p.line = e.line();
                return vec![p];
            }
        };
    let mut problems = Vec::new();
    if fm.produced_by.as_deref() != Some(PRODUCER) {
        problems.push(Problem::new(
            code::STATE_PROMPT_PRODUCER,
            format!(
                "produced_by is {}, not {PRODUCER}",
                fm.produced_by.as_deref().unwrap_or("missing")
            ),
        ));
    }
    let field = |key: &str| state.get(key).and_then(Value::as_str);
    for (name, theirs, ours) in [
        (
            "produced_at",
            fm.produced_at.as_deref(),
            field("updated_at"),
        ),
        ("project", fm.project.as_deref(), field("project")),
        ("status", fm.status.as_deref(), field("status")),
    ] {
        if theirs != ours {
            problems.push(Problem::new(
                code::STATE_PAIR_MISMATCH,
                format!(
                    "the prompt's {name} is {} but the state file says {}",
                    theirs.unwrap_or("missing"),
                    ours.unwrap_or("nothing")
                ),
            ));
        }
    }
    problems
}
