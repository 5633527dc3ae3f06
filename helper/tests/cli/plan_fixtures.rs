//! Every plan under `tests/fixtures/plans/` against its expectations:
//! `<name>.expected` lists the codes and lines `plan validate` must report
//! (errors then warnings, `-` for no line), and each valid plan's
//! `<name>.show.json` is the whole model `plan show --json` must print,
//! field by field. `invalid/dangerous-verify.md` is schema-valid on purpose:
//! what is wrong with it is for `scan plan` to find.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans")
}

fn plans(dir: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    found.sort();
    found
}

fn helper(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("voyage-helper")
        .unwrap()
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

#[test]
fn every_plan_reports_exactly_its_expected_codes_and_lines() {
    let all: Vec<PathBuf> = plans("invalid").into_iter().chain(plans("valid")).collect();
    assert!(all.len() >= 18, "{}", all.len());
    let mut mismatches = Vec::new();
    for plan in all {
        let rel = relative(&plan);
        let (status, stdout) = helper(&["plan", "validate", "--json", &rel]);
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let got: Vec<String> = report["errors"]
            .as_array()
            .unwrap()
            .iter()
            .chain(report["warnings"].as_array().unwrap())
            .map(|p| {
                format!(
                    "{} {}",
                    p["code"].as_str().unwrap(),
                    p["line"].as_u64().map_or("-".into(), |l| l.to_string())
                )
            })
            .collect();
        let expected: Vec<String> = fs::read_to_string(plan.with_extension("expected"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        if got != expected {
            mismatches.push(format!("{rel}: got {got:?}, expected {expected:?}"));
        }
        let has_errors = !report["errors"].as_array().unwrap().is_empty();
        assert_eq!(status, i32::from(has_errors), "{rel}: exit status");
        assert_eq!(report["valid"], !has_errors, "{rel}");
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn every_valid_plan_shows_its_whole_model() {
    for plan in plans("valid") {
        let rel = relative(&plan);
        let (status, stdout) = helper(&["plan", "show", "--json", &rel]);
        assert_eq!(status, 0, "{rel}");
        let got: Value = serde_json::from_str(&stdout).unwrap();
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(plan.with_extension("show.json")).unwrap())
                .unwrap();
        if got != expected {
            // Name the first differing field rather than dump both documents.
            let diff = first_difference(&got, &expected, String::new()).unwrap_or_default();
            panic!("{rel}: plan show differs at {diff}");
        }
    }
}

fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    format!("{at}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} != {b}")),
    }
}

#[test]
fn plan_show_validates_against_its_schema() {
    let validator = crate::common::schema::validator("plan");
    for plan in plans("valid").into_iter().chain(plans("invalid")) {
        let rel = relative(&plan);
        let (status, stdout) = helper(&["plan", "show", "--json", &rel]);
        if status != 0 {
            continue;
        }
        let instance: Value = serde_json::from_str(&stdout).unwrap();
        let errors = crate::common::schema::complaints(&validator, &instance);
        assert!(errors.is_empty(), "{rel}: {}", errors.join("\n"));
    }
}
