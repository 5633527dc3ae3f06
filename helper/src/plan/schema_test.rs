//! `schemas/plan.schema.json`, `schemas/plan-dry-run.schema.json` and
//! `schemas/plan-fill.schema.json` are generated from the plan model, the
//! dry-run's report and `plan fill`'s reply (the types derive `JsonSchema`
//! in test builds only, so the shipped binary does not carry schemars).

#![allow(clippy::unwrap_used)]

use std::path::Path;

/// `schemas/{name}.schema.json` is `schema`, or is rewritten to it with
/// VOYAGE_BLESS set.
fn generated(name: &str, schema: &schemars::Schema) {
    let generated = serde_json::to_string_pretty(schema).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../schemas/{name}.schema.json"));
    if std::env::var_os("VOYAGE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        generated,
        "schemas/{name}.schema.json is stale: run `VOYAGE_BLESS=1 cargo test -p voyage-helper --lib plan::schema_test`"
    );
}

#[test]
fn the_plan_schema_file_is_generated_from_the_model() {
    generated("plan", &schemars::schema_for!(super::Plan));
}

#[test]
fn the_fill_schema_file_is_generated_from_the_reply() {
    generated("plan-fill", &schemars::schema_for!(super::fill::Reply));
}

#[test]
fn the_dry_run_schema_file_is_generated_from_the_report() {
    generated(
        "plan-dry-run",
        &schemars::schema_for!(super::render::DryRun),
    );
}
