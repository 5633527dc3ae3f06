//! The JSON Schemas of `schemas/`, for tests that check what the helper
//! prints against the contract it documents.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::Value;

/// `schemas/<name>.schema.json`, parsed.
pub fn schema(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(format!("{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator for `schemas/<name>.schema.json` (draft 2020-12).
pub fn validator(name: &str) -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema(name)).unwrap()
}

/// The complaints of `validator` about `instance`, one a line.
pub fn complaints(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Fails the test unless `output` is one JSON document valid against
/// `schemas/<name>.schema.json`; returns it parsed.
pub fn assert_schema(name: &str, output: &str) -> Value {
    let instance: Value =
        serde_json::from_str(output).unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {output}"));
    let errors = complaints(&validator(name), &instance);
    assert!(errors.is_empty(), "{name}: {output}\n{}", errors.join("\n"));
    instance
}
