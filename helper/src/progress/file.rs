//! Reading and writing a progress file, with the schema as the gate both
//! ways: a file that does not validate is never modified, and a document
//! that would not validate is never written.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::code;
use super::model::Progress;
use crate::atomic_file::write_atomic;
use crate::exit;
use crate::input_file::InputError;
use crate::problem::Coded;
use crate::problem::Problem;
use crate::schema;

/// The codes a schema check of a progress file reports.
pub const CODES: schema::Codes = schema::Codes {
    missing_key: code::PROGRESS_MISSING_KEY,
    not_object: code::PROGRESS_NOT_OBJECT,
    other: code::PROGRESS_BAD_VALUE,
    tagged: code::ALL,
};

/// The most bytes a progress file may have (a plan of thousands of steps is
/// well under a megabyte).
pub(super) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a progress file could not be used. `problems` name every reason.
#[derive(Debug, Clone)]
pub(crate) struct LoadError {
    /// The file is missing (as opposed to present but broken).
    pub missing: bool,
    pub problems: Vec<Problem>,
}

/// Reads and checks the progress file at `path`.
pub(crate) fn load(path: &Path) -> Result<Progress, LoadError> {
    let fail = |missing, problems: Vec<Problem>| LoadError {
        missing,
        problems: problems.into_iter().map(|p| p.in_file(path)).collect(),
    };
    let text = match crate::input_file::read_to_string(path, MAX_FILE_BYTES) {
        Ok(text) => text,
        Err(InputError::NotFound(_)) => {
            return Err(fail(
                true,
                vec![Problem::new(
                    code::PROGRESS_NOT_FOUND,
                    "no progress file here",
                )],
            ));
        }
        Err(e @ InputError::Unreadable(_)) => {
            return Err(fail(
                false,
                vec![Problem::new(
                    code::INPUT.unreadable,
                    format!("cannot read: {e}"),
                )],
            ));
        }
        Err(e) => {
            return Err(fail(
                false,
                vec![Problem::new(e.code(code::INPUT), e.to_string())],
            ));
        }
    };
    parse(&text).map_err(|problems| fail(false, problems))
}

/// Parses and checks one progress document.
///
/// The schema is the contract, but compiling it costs more than the rest of
/// a `progress step` together (the JSON Schema library builds its
/// meta-schemas on first use), so a document is first read into the typed
/// model and checked by [`conforms`], the schema's rules that the types do
/// not already enforce. Only a document that fails there goes through the
/// full schema check, which then names every problem with its code. That
/// `conforms` never accepts what the schema refuses is tested on random
/// documents (`helper/tests/properties/no_panic_state.rs`, fuzz target `progress_file`).
pub fn parse(text: &str) -> Result<Progress, Vec<Problem>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        vec![
            Problem::new(code::PROGRESS_NOT_JSON, format!("not JSON: {e}")).at_line_usize(e.line()),
        ]
    })?;
    if let Ok(progress) = Progress::deserialize(&value)
        && conforms(&value)
    {
        return Ok(progress);
    }
    let problems = schema::check("progress", &value, &CODES);
    if !problems.is_empty() {
        return Err(problems);
    }
    Progress::deserialize(&value).map_err(|e| {
        vec![Problem::new(
            code::PROGRESS_BAD_VALUE,
            format!("cannot be read: {e}"),
        )]
    })
}

/// The rules of the `progress` schema that deserialising into [`Progress`]
/// does not check by itself. `true` only if the schema would accept the
/// document (given that it deserialised).
pub fn conforms(value: &Value) -> bool {
    let text_in = |v: Option<&Value>, words: &[&str]| {
        v.and_then(Value::as_str)
            .is_some_and(|s| words.contains(&s))
    };
    let non_empty = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let Some(top) = value.as_object() else {
        return false;
    };
    let version_ok = matches!(top.get("schema_version"), Some(Value::String(s)) if s == "1")
        || top.get("schema_version").and_then(Value::as_u64) == Some(1);
    let mode_ok = top
        .get("mode")
        .is_none_or(|m| text_in(Some(m), &["execute", "resume", "step", "session"]));
    let budget_ok = top.get("iterations_remaining").is_none_or(Value::is_u64);
    let verification_ok = match top.get("plan_verification") {
        None | Some(Value::Null) => true,
        Some(Value::Object(o)) => o
            .get("status")
            .is_none_or(|s| text_in(Some(s), &["passed", "failed", "not-run", "deferred"])),
        Some(_) => false,
    };
    let audit_ok = match top.get("manifest_audit") {
        None | Some(Value::Null) => true,
        Some(Value::Object(o)) => {
            o.get("status")
                .is_none_or(|s| text_in(Some(s), &["pass", "drift"]))
                && o.get("drift_details").is_none_or(Value::is_array)
        }
        Some(_) => false,
    };
    let gate_ok = match top.get("main_merge_gate") {
        None => true,
        Some(Value::Object(o)) => {
            o.get("status")
                .is_none_or(|s| text_in(Some(s), &["awaiting", "confirmed", "declined"]))
                && o.get("answered_by")
                    .is_none_or(|s| text_in(Some(s), &["operator", "user"]))
                && ["asked_at", "answered_at"]
                    .iter()
                    .all(|k| o.get(*k).is_none_or(Value::is_string))
        }
        Some(_) => false,
    };
    let counts_ok = ["total_steps", "current_step", "recovery_depth"]
        .iter()
        .all(|k| top.get(*k).is_none_or(Value::is_u64))
        && top
            .get("session")
            .is_none_or(|n| n.as_u64().is_some_and(|n| n >= 1));
    // Optional flags: absent, or a boolean (never null).
    let flags_ok = ["legacy_plan", "recovery_dispatched"]
        .iter()
        .all(|k| top.get(*k).is_none_or(Value::is_boolean));
    let steps_ok = top
        .get("steps")
        .and_then(Value::as_object)
        .is_some_and(|steps| {
            steps.iter().all(|(key, record)| {
                let key_ok = key.len() <= 9;
                let record_ok = record.as_object().is_some_and(|r| {
                    r.get("attempts")
                        .is_none_or(|a| a.as_u64().is_some_and(|n| n <= 3))
                        && r.get("manifest_drift")
                            .is_none_or(|d| d.is_array() || d.is_null())
                        && r.get("checkpoint_drift")
                            .is_none_or(|d| d.is_object() || d.is_null())
                        && r.get("reverted").is_none_or(Value::is_object)
                        && r.get("scope_violations").is_none_or(|v| {
                            v.as_array().is_some_and(|entries| {
                                entries.iter().all(|e| {
                                    e.get("attempt")
                                        .and_then(Value::as_u64)
                                        .is_some_and(|n| (1..=3).contains(&n))
                                })
                            })
                        })
                });
                key_ok && record_ok
            })
        });
    version_ok
        && non_empty("plan")
        && non_empty("plan_version")
        && text_in(top.get("plan_type"), &["plan", "session-spec"])
        && mode_ok
        && budget_ok
        && verification_ok
        && audit_ok
        && gate_ok
        && counts_ok
        && flags_ok
        && steps_ok
}

/// Checks `progress` against the schema's rules and replaces the file
/// atomically. A document that does not conform (a flag's value the schema
/// refuses) is not written: exit 1 with the schema's code; a failed write is
/// exit 2.
pub(crate) fn save(path: &Path, progress: &Progress) -> Result<(), (u8, Problem)> {
    let value = progress.to_value();
    if !conforms(&value)
        && let Some(problem) = schema::check("progress", &value, &CODES).into_iter().next()
    {
        return Err((exit::NOT_OK, problem.in_file(path)));
    }
    write_atomic(path, &progress.to_bytes())
        .map_err(|e| (exit::CANNOT_CHECK, e.problem().in_file(path)))
}
