//! `plan fill` through the CLI (issue 41, point 3): real plan files in temp
//! directories, filled by the real binary and then checked by `plan
//! validate` as a person would check them; what the author wrote must come
//! back byte for byte once the added lines are taken out.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;

use serde_json::Value;

use crate::common::{Case, Ran};

/// A plan with `steps` under its Implementation Plan; `version` goes in
/// the front matter when given.
fn plan(version: Option<&str>, steps: &str) -> String {
    let front = version.map_or_else(String::new, |v| format!("---\nplan_version: {v}\n---\n"));
    format!(
        "{front}# Plan: greet\n\n## Implementation Plan\n\n{steps}\n## Verification\n\n- `bash -n greet.sh` — the script parses\n"
    )
}

/// A step without a Manifest.
fn bare_step(n: u32, files: &str, message: &str) -> String {
    format!(
        "### Step {n}: Step number {n}\n- **Files:** {files}\n- **Changes:** what it changes\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"{message}\"`\n\n"
    )
}

/// A case with `text` in plan.md, running `plan fill` with `args` on it.
fn case(text: &str, args: &[&str]) -> Case {
    let mut all = vec!["plan", "fill"];
    all.extend_from_slice(args);
    all.push("plan.md");
    let case = Case::new(&all);
    fs::write(case.path().join("plan.md"), text).unwrap();
    case
}

fn read(case: &Case) -> String {
    fs::read_to_string(case.path().join("plan.md")).unwrap()
}

/// `plan fill --json`, checked against its schema.
fn fill_json(case: &Case, check: bool) -> (i32, Value) {
    let mut args = vec!["plan", "fill", "--json"];
    if check {
        args.push("--check");
    }
    args.push("plan.md");
    let ran = case.run_with(&args);
    assert_eq!(ran.stderr, "");
    (
        ran.status,
        crate::common::assert_schema("plan-fill", &ran.stdout),
    )
}

/// `plan validate --json` on the case's plan: its exit code and codes.
fn validate(case: &Case) -> (i32, Vec<String>) {
    let ran: Ran = case.run_with(&["plan", "validate", "--json", "plan.md"]);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    let codes = ["errors", "warnings"]
        .iter()
        .flat_map(|k| report[*k].as_array().unwrap().clone())
        .map(|p| p["code"].as_str().unwrap().to_owned())
        .collect();
    (ran.status, codes)
}

/// `text` with the lines the reply says were added taken out again.
fn without_added(text: &str, reply: &Value) -> String {
    let mut added: Vec<String> = reply["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["lines"].as_array().unwrap().clone())
        .map(|l| l.as_str().unwrap().to_owned())
        .collect();
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(at) = added.iter().position(|a| a == bare) {
            added.remove(at);
            continue;
        }
        out.push_str(line);
    }
    assert!(added.is_empty(), "lines not found in the file: {added:?}");
    out
}

/// A manifest that lacks some keys, with comments and odd spacing.
const PARTIAL: &str = "- **Manifest:**\n  ```yaml\n  # the author's own note\n  expected_paths:   [greet.sh]    # odd spacing, kept\n  must_contain:\n    - {path: greet.sh, pattern: \"Hello\"}\n\n  ```\n";

#[test]
fn each_step_gets_the_keys_it_lacks_and_the_plan_then_validates() {
    let steps = format!(
        "{}{}{PARTIAL}\n{}- **Manifest:**\n  ```yaml\n  expected_paths: [README.md]\n  min_file_count: 1\n  commit_message_pattern: \"^docs\"\n  ```\n\n",
        bare_step(1, "`greet.sh` (new)", "feat(greet): add the script"),
        bare_step(2, "`greet.sh`", "fix(greet): quote the name"),
        bare_step(3, "`README.md`", "docs: say how to greet"),
    );
    let text = plan(Some("1.7"), &steps);
    let case = case(&text, &[]);
    let (status, before) = validate(&case);
    assert_eq!(status, 1);
    assert!(
        before.contains(&"PLAN_MISSING_MANIFEST".to_owned()),
        "{before:?}"
    );
    assert!(
        before.contains(&"PLAN_MANIFEST_MISSING_KEY".to_owned()),
        "{before:?}"
    );

    let (status, reply) = fill_json(&case, false);
    assert_eq!(status, 0, "{reply:#}");
    assert_eq!(
        (reply["written"].as_bool(), reply["complete"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(reply["filled"], 3);
    let keys: Vec<Vec<String>> = reply["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| serde_json::from_value(s["keys"].clone()).unwrap())
        .collect();
    assert_eq!(keys[0].len(), 6);
    assert_eq!(
        keys[1],
        [
            "min_file_count",
            "commit_message_pattern",
            "bash_syntax_check",
            "forbidden_paths"
        ]
    );
    assert_eq!(
        keys[2],
        ["bash_syntax_check", "forbidden_paths", "must_contain"]
    );

    let after = read(&case);
    assert_eq!(without_added(&after, &reply), text, "only lines were added");
    assert!(after.contains(
        "  ```yaml\n  expected_paths: [README.md]\n  min_file_count: 1\n  commit_message_pattern: \"^docs\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n"
    ), "{after}");
    let (status, codes) = validate(&case);
    assert_eq!(status, 0, "{codes:?}");
    for code in [
        "PLAN_MISSING_MANIFEST",
        "PLAN_MANIFEST_MISSING_KEY",
        "PLAN_CHECKPOINT_MESSAGE_MISMATCH",
    ] {
        assert!(!codes.iter().any(|c| c == code), "{codes:?}");
    }
    // A second fill finds nothing to do and leaves the file as it is.
    let ran = case.run();
    assert_eq!(ran.status, 0);
    assert_eq!(
        ran.stdout,
        "plan.md: nothing to fill; the Manifest of each of its 3 steps has the six keys\n"
    );
    assert_eq!(read(&case), after);
}

#[test]
fn a_step_without_a_manifest_gets_one_after_its_checkpoint() {
    let text = plan(
        Some("1.7"),
        &bare_step(
            1,
            "`greet.sh` (new), `src/lib.rs`",
            "feat(greet): add the greeting script",
        ),
    );
    let case = case(&text, &[]);
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    let block = "- **Manifest:**\n  ```yaml\n  expected_paths: [greet.sh, src/lib.rs]\n  min_file_count: 2\n  commit_message_pattern: \"^feat\\\\(greet\\\\): add the\"\n  bash_syntax_check: [greet.sh]\n  forbidden_paths: []\n  must_contain: []\n  ```\n";
    assert!(
        read(&case).contains(&format!("greeting script\"`\n{block}\n\n## Verification")),
        "{}",
        read(&case)
    );
    let added: String = block.lines().map(|l| format!("  + {l}\n")).collect();
    assert_eq!(
        ran.stdout,
        format!(
            "plan.md: filled the manifest keys of 1 of 1 steps\nStep 1 (line 8): added a Manifest after line 13:\n{added}Next: voyage-helper plan validate plan.md\n"
        )
    );
    assert_eq!(validate(&case).0, 0);
}

#[test]
fn the_authors_keys_comments_and_spacing_survive_byte_for_byte() {
    // CRLF line ends, an oddly spaced manifest with a comment and a blank
    // line inside its fence, a message with runs of spaces: all of it stays.
    let steps = format!(
        "{}{PARTIAL}\n",
        bare_step(1, "`greet.sh`", "feat:   spaced   words here")
    );
    let text = plan(Some("1.7"), &steps).replace('\n', "\r\n");
    let case = case(&text, &[]);
    let (status, reply) = fill_json(&case, false);
    assert_eq!(status, 0, "{reply:#}");
    let after = read(&case);
    assert_eq!(without_added(&after, &reply), text);
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    assert!(after.contains(
        "  must_contain:\r\n    - {path: greet.sh, pattern: \"Hello\"}\r\n\r\n  min_file_count: 1\r\n  commit_message_pattern: \"^feat:   spaced   words\"\r\n"
    ), "{after}");
    let (status, codes) = validate(&case);
    assert_eq!(status, 0, "{codes:?}");
}

#[test]
fn check_writes_nothing_and_says_whether_a_step_lacks_keys() {
    let text = plan(Some("1.7"), &bare_step(1, "`greet.sh`", "feat: greet"));
    let case = case(&text, &["--check"]);
    let ran = case.run();
    assert_eq!(ran.status, 1);
    assert!(ran.stdout.starts_with(
        "plan.md: 1 of 1 steps lack manifest keys the filler would add (--check: nothing written)\nStep 1 (line 8): would add a Manifest after line 13:\n"
    ), "{}", ran.stdout);
    assert!(
        ran.stdout
            .ends_with("Fill them: voyage-helper plan fill plan.md\n")
    );
    assert_eq!(read(&case), text);
    let (status, reply) = fill_json(&case, true);
    assert_eq!(
        (status, &reply["written"], &reply["complete"]),
        (1, &Value::Bool(false), &Value::Bool(false))
    );
    assert_eq!(read(&case), text);

    // Filled, the same check passes.
    assert_eq!(case.run_with(&["plan", "fill", "plan.md"]).status, 0);
    let filled = read(&case);
    assert_eq!(case.run().status, 0);
    assert_eq!(read(&case), filled);

    // A complete plan as the docs write one: exit 0, untouched.
    let complete = fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/plans/valid/v17-single.md"),
    )
    .unwrap();
    let case = self::case(&complete, &["--check"]);
    let ran = case.run();
    assert_eq!((ran.status, ran.stderr.as_str()), (0, ""));
    assert_eq!(read(&case), complete);
}

#[test]
fn a_checkpoint_with_regex_metacharacters_gets_an_escaped_pattern_that_matches_it() {
    for message in [
        "fix(parser): a.b* [c]+ ^d? {e} |f|",
        "feat: 1+1=2 (really)",
        "chore(deps): bump ^1.2 -> ~1.3",
        "refactor: use a\\\\b",
    ] {
        let text = plan(Some("1.7"), &bare_step(1, "`src/parse.rs`", message));
        let case = case(&text, &[]);
        let (status, reply) = fill_json(&case, false);
        assert_eq!(status, 0, "{message}: {reply:#}");
        let (status, codes) = validate(&case);
        assert_eq!(status, 0, "{message}: {codes:?}\n{}", read(&case));
        assert!(
            !codes
                .iter()
                .any(|c| c == "PLAN_CHECKPOINT_MESSAGE_MISMATCH"),
            "{message}"
        );
    }
    let text = plan(
        Some("1.7"),
        &bare_step(1, "`a.rs`", "fix(parser): a.b* [c]+"),
    );
    let case = case(&text, &[]);
    case.run();
    assert!(
        read(&case).contains(r#"commit_message_pattern: "^fix\\(parser\\): a\\.b\\* \\[c\\]\\+""#),
        "{}",
        read(&case)
    );
}

#[test]
fn a_manifest_whose_yaml_is_broken_is_left_alone_and_reported() {
    let broken =
        "- **Manifest:**\n  ```yaml\n  expected_paths: [greet.sh\n  min_file_count: 1\n  ```\n";
    let steps = format!(
        "{}{broken}\n{}",
        bare_step(1, "`greet.sh`", "feat: greet"),
        bare_step(2, "`README.md`", "docs: greet")
    );
    let text = plan(Some("1.7"), &steps);
    let case = case(&text, &[]);
    let ran = case.run();
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("Step 1 (line 8): left alone: PLAN_MALFORMED_YAML plan.md:"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("fix the YAML, then run `voyage-helper plan fill` again")
    );
    let after = read(&case);
    assert!(after.contains(broken), "step 1 must stay as written");
    // Step 2 is filled all the same; only step 1's problem remains.
    let (_, codes) = validate(&case);
    assert_eq!(
        codes
            .iter()
            .filter(|c| c.starts_with("PLAN_M"))
            .collect::<Vec<_>>(),
        ["PLAN_MALFORMED_YAML"]
    );
    let (status, reply) = fill_json(&case, true);
    assert_eq!(
        (status, &reply["left_alone"], &reply["filled"]),
        (1, &Value::from(1), &Value::from(0))
    );
    assert_eq!(reply["steps"][0]["problem"]["code"], "PLAN_MALFORMED_YAML");
}

#[test]
fn a_legacy_plan_is_filled_and_told_it_stays_legacy_until_1_7() {
    let text = plan(None, &bare_step(1, "`greet.sh`", "feat: greet"));
    let case = case(&text, &[]);
    let ran = case.run();
    assert_eq!(ran.status, 0);
    assert!(ran.stdout.contains(
        "Note: plan.md is a legacy plan (plan_version not set): a run still synthesises its manifests and reads none written in it until its front matter says `plan_version: 1.7`"
    ), "{}", ran.stdout);
    // Once it says 1.7, the filled manifests are what validate checks.
    let strict = format!("---\nplan_version: 1.7\n---\n{}", read(&case));
    fs::write(case.path().join("plan.md"), strict).unwrap();
    let (status, codes) = validate(&case);
    assert_eq!(status, 0, "{codes:?}");
    assert!(!codes.iter().any(|c| c == "PLAN_LEGACY"));
}

#[test]
fn a_plan_that_cannot_be_read_is_exit_2_and_a_link_is_written_through() {
    let case = Case::new(&["plan", "fill", "missing.md"]);
    let ran = case.run();
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("PLAN_UNREADABLE"), "{}", ran.stderr);
    fs::create_dir(case.path().join("dir.md")).unwrap();
    let ran = case.run_with(&["plan", "fill", "--json", "dir.md"]);
    assert_eq!(ran.status, 2);
    let reply = crate::common::assert_schema("plan-fill", &ran.stdout);
    assert_eq!(reply["errors"][0]["code"], "PLAN_NOT_A_FILE");

    let text = plan(Some("1.7"), &bare_step(1, "`greet.sh`", "feat: greet"));
    fs::create_dir(case.path().join("plans")).unwrap();
    fs::write(case.path().join("plans/real.md"), &text).unwrap();
    std::os::unix::fs::symlink("plans/real.md", case.path().join("plan.md")).unwrap();
    let ran = case.run_with(&["plan", "fill", "plan.md"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        fs::symlink_metadata(case.path().join("plan.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(case.path().join("plans/real.md"))
            .unwrap()
            .contains("- **Manifest:**")
    );
}
