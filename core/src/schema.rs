//! The JSON Schemas of the formats the helper reads and writes, embedded so
//! the binary can print them (`voyage-helper schema NAME`) and validate
//! against them. The files in `schemas/` are the source; the validators
//! (`progress validate`, `state validate`) and the writers (every rewrite of
//! a progress or state file is checked before it replaces the old one) use
//! the same schema, so they cannot drift apart.
//!
//! A schema may tag a subschema with `"x-voyage-code": "AREA_CODE"`: a value
//! that fails anywhere under it is reported with that code (the nearest tag
//! wins), so the codes live beside the rules they name.

use std::io::{self, Write};

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::exit;
use crate::problem::Problem;

/// Every schema by name: the file name without `.schema.json`.
pub const SCHEMAS: &[(&str, &str)] = &[
    (
        "audit-checkpoint",
        include_str!("../../schemas/audit-checkpoint.schema.json"),
    ),
    (
        "audit-scope",
        include_str!("../../schemas/audit-scope.schema.json"),
    ),
    (
        "audit-session",
        include_str!("../../schemas/audit-session.schema.json"),
    ),
    (
        "audit-step",
        include_str!("../../schemas/audit-step.schema.json"),
    ),
    (
        "criteria-run",
        include_str!("../../schemas/criteria-run.schema.json"),
    ),
    (
        "entry-check",
        include_str!("../../schemas/entry-check.schema.json"),
    ),
    ("event", include_str!("../../schemas/event.schema.json")),
    (
        "event-record",
        include_str!("../../schemas/event-record.schema.json"),
    ),
    (
        "gate-decision",
        include_str!("../../schemas/gate-decision.schema.json"),
    ),
    (
        "hook-pre-tool-use-output",
        include_str!("../../schemas/hook-pre-tool-use-output.schema.json"),
    ),
    (
        "orders-reply",
        include_str!("../../schemas/orders-reply.schema.json"),
    ),
    ("plan", include_str!("../../schemas/plan.schema.json")),
    (
        "plan-dry-run",
        include_str!("../../schemas/plan-dry-run.schema.json"),
    ),
    (
        "plan-fill",
        include_str!("../../schemas/plan-fill.schema.json"),
    ),
    (
        "plan-strategy",
        include_str!("../../schemas/plan-strategy.schema.json"),
    ),
    ("profile", include_str!("../../schemas/profile.schema.json")),
    (
        "profile-resolution",
        include_str!("../../schemas/profile-resolution.schema.json"),
    ),
    (
        "progress",
        include_str!("../../schemas/progress.schema.json"),
    ),
    (
        "progress-git-reply",
        include_str!("../../schemas/progress-git-reply.schema.json"),
    ),
    (
        "progress-reply",
        include_str!("../../schemas/progress-reply.schema.json"),
    ),
    (
        "recovery-spec",
        include_str!("../../schemas/recovery-spec.schema.json"),
    ),
    (
        "run-block",
        include_str!("../../schemas/run-block.schema.json"),
    ),
    (
        "run-marker",
        include_str!("../../schemas/run-marker.schema.json"),
    ),
    (
        "scan-command",
        include_str!("../../schemas/scan-command.schema.json"),
    ),
    (
        "scan-plan",
        include_str!("../../schemas/scan-plan.schema.json"),
    ),
    (
        "scan-rules",
        include_str!("../../schemas/scan-rules.schema.json"),
    ),
    (
        "scope-status",
        include_str!("../../schemas/scope-status.schema.json"),
    ),
    (
        "session-state",
        include_str!("../../schemas/session-state.schema.json"),
    ),
    (
        "stats-record",
        include_str!("../../schemas/stats-record.schema.json"),
    ),
    (
        "stats-summary",
        include_str!("../../schemas/stats-summary.schema.json"),
    ),
    ("summary", include_str!("../../schemas/summary.schema.json")),
    (
        "trek-reply",
        include_str!("../../schemas/trek-reply.schema.json"),
    ),
    (
        "validation-report",
        include_str!("../../schemas/validation-report.schema.json"),
    ),
    (
        "verdict-reply",
        include_str!("../../schemas/verdict-reply.schema.json"),
    ),
    (
        "wave-cleanup",
        include_str!("../../schemas/wave-cleanup.schema.json"),
    ),
    (
        "wave-collect",
        include_str!("../../schemas/wave-collect.schema.json"),
    ),
    (
        "wave-preflight",
        include_str!("../../schemas/wave-preflight.schema.json"),
    ),
    (
        "wave-prepare",
        include_str!("../../schemas/wave-prepare.schema.json"),
    ),
    (
        "wave-report",
        include_str!("../../schemas/wave-report.schema.json"),
    ),
    (
        "workflow",
        include_str!("../../schemas/workflow.schema.json"),
    ),
    (
        "write-reply",
        include_str!("../../schemas/write-reply.schema.json"),
    ),
];

/// The schema called `name`.
pub fn find(name: &str) -> Option<&'static str> {
    SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The names, for help and error messages.
pub fn names() -> Vec<&'static str> {
    SCHEMAS.iter().map(|(n, _)| *n).collect()
}

/// How [`check`] names the problems it finds.
#[derive(Debug, Clone, Copy)]
pub struct Codes {
    /// A required key is missing.
    pub missing_key: &'static str,
    /// The document is not a JSON object at all.
    pub not_object: &'static str,
    /// Any other violation without an `x-voyage-code` tag.
    pub other: &'static str,
    /// The codes the schema's tags may use, the area's code table (a tag
    /// naming anything else counts as `other`, so a typo in a schema cannot
    /// invent a code).
    pub tagged: &'static [(&'static str, &'static str)],
}

/// `schema [NAME]`: the names, one a line, or the schema called `name`.
/// Exit 0, or 2 for an unknown name (or the error writing).
pub fn print(name: Option<&str>, out: &mut impl Write) -> io::Result<u8> {
    match name {
        None => {
            for name in names() {
                writeln!(out, "{name}")?;
            }
        }
        Some(name) => match find(name) {
            Some(text) => out.write_all(text.as_bytes())?,
            None => {
                eprintln!(
                    "error: no schema named '{name}' (known: {})",
                    names().join(", ")
                );
                return Ok(exit::CANNOT_CHECK);
            }
        },
    }
    out.flush()?;
    Ok(exit::OK)
}

/// Checks `instance` against the embedded schema `name` and returns every
/// violation as a problem (no file set). An unknown name or a schema that
/// does not compile is an internal error, reported as one problem.
pub fn check(name: &str, instance: &Value, codes: &Codes) -> Vec<Problem> {
    let schema: Value = match find(name).map(serde_json::from_str) {
        Some(Ok(schema)) => schema,
        _ => return vec![Problem::new(codes.other, format!("no schema '{name}'"))],
    };
    let validator = match jsonschema::draft202012::new(&schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![Problem::new(
                codes.other,
                format!("schema '{name}' does not compile: {e}"),
            )];
        }
    };
    validator
        .iter_errors(instance)
        .map(|error| {
            let pointer = error.instance_path().as_str().to_owned();
            let (code, message) = match error.kind() {
                ValidationErrorKind::Required { property } => (
                    codes.missing_key,
                    format!("missing required key {property}"),
                ),
                ValidationErrorKind::Type { .. } if pointer.is_empty() => {
                    (codes.not_object, "the document is not a JSON object".into())
                }
                _ => (
                    tag_of(&schema, error.schema_path().as_str(), codes),
                    error.to_string(),
                ),
            };
            Problem::new(code, message).at_pointer(pointer)
        })
        .collect()
}

/// The `x-voyage-code` of the nearest subschema that holds the failing
/// keyword at `keyword_path`.
fn tag_of(schema: &Value, keyword_path: &str, codes: &Codes) -> &'static str {
    let mut path = keyword_path;
    loop {
        let tag = schema
            .pointer(path)
            .and_then(|s| s.get("x-voyage-code"))
            .and_then(Value::as_str);
        if let Some(tag) = tag {
            return codes
                .tagged
                .iter()
                .find(|(c, _)| *c == tag)
                .map_or(codes.other, |(c, _)| *c);
        }
        match path.rfind('/') {
            Some(cut) => path = path.get(..cut).unwrap_or(""),
            None => return codes.other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_parses_and_compiles() {
        for (name, text) in SCHEMAS {
            let schema: Value = serde_json::from_str(text).unwrap();
            assert!(jsonschema::draft202012::new(&schema).is_ok(), "{name}");
        }
    }

    #[test]
    fn names_are_sorted_and_unique() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }
}
