//! `schemas/plan.schema.json` is generated from the plan model (the types
//! derive `JsonSchema` in test builds only, so the shipped binary does not
//! carry schemars).

#![allow(clippy::unwrap_used)]

use std::path::Path;

#[test]
fn the_plan_schema_file_is_generated_from_the_model() {
    let generated =
        serde_json::to_string_pretty(&schemars::schema_for!(super::Plan)).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/plan.schema.json");
    if std::env::var_os("VOYAGE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        generated,
        "schemas/plan.schema.json is stale: run `VOYAGE_BLESS=1 cargo test -p voyage-helper --lib plan::schema_test`"
    );
}
