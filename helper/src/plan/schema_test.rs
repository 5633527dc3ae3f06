//! `schemas/plan.schema.json` and `schemas/plan-dry-run.schema.json` are
//! generated from the plan model and the dry-run's report (the types
//! derive `JsonSchema` in test builds only, so the shipped binary does not
//! carry schemars).

#![allow(clippy::unwrap_used)]

use std::path::Path;

/// Compares `generated` with the schema file `name` names in schemas/ (written first
/// under VOYAGE_BLESS).
fn check(name: &str, generated: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../schemas/{name}.schema.json"));
    if std::env::var_os("VOYAGE_BLESS").is_some() {
        std::fs::write(&path, generated).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        generated,
        "schemas/{name}.schema.json is stale: run `VOYAGE_BLESS=1 cargo test -p voyage-helper --lib plan::schema_test`"
    );
}

#[test]
fn the_plan_schema_file_is_generated_from_the_model() {
    let generated =
        serde_json::to_string_pretty(&schemars::schema_for!(super::Plan)).unwrap() + "\n";
    check("plan", &generated);
}

#[test]
fn the_dry_run_schema_file_is_generated_from_the_report() {
    let generated =
        serde_json::to_string_pretty(&schemars::schema_for!(super::render::DryRun)).unwrap() + "\n";
    check("plan-dry-run", &generated);
}
