//! `voyage-helper profile resolve`: the profile's sources, custom profiles,
//! and the composition rule against real briefs.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::Case;
use serde_json::Value;

fn brief(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/briefs")
        .join(name)
}

fn resolve(case: &Case, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["profile", "resolve", "--json"];
    args.extend_from_slice(extra);
    let ran = case.run_with(&args);
    let value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    (ran.status, value, ran.stderr)
}

#[test]
fn the_brief_wins_per_field_and_the_profile_fills_gaps() {
    let case = Case::new(&[]);
    let b = brief("brief-v21.md");
    let b = b.to_str().unwrap();
    let (status, r, _) = resolve(&case, &["--phase", "execute", "--brief", b]);
    assert_eq!(status, 0);
    assert_eq!(
        (
            r["effort"].as_str(),
            r["model"].as_str(),
            r["source"].as_str()
        ),
        (Some("high"), Some("opus"), Some("brief"))
    );
    let (_, r, _) = resolve(
        &case,
        &["--phase", "plan", "--brief", b, "--profile", "economy"],
    );
    assert_eq!(
        (
            r["effort"].as_str(),
            r["model"].as_str(),
            r["source"].as_str()
        ),
        (Some("standard"), Some("sonnet"), Some("brief+profile"))
    );
    assert_eq!(
        r["sources"],
        serde_json::json!({"effort": "brief", "model": "profile"})
    );
    let (_, r, _) = resolve(
        &case,
        &["--phase", "review", "--brief", b, "--profile", "fable"],
    );
    assert_eq!(
        (
            r["effort"].as_str(),
            r["model"].as_str(),
            r["source"].as_str()
        ),
        (Some("standard"), Some("opus"), Some("profile"))
    );
    let (_, r, _) = resolve(&case, &["--phase", "execute", "--profile", "fable"]);
    assert_eq!(r["model"], "haiku");
    assert_eq!(r["parallel_agents"], 3);
}

#[test]
fn the_profile_comes_from_flag_env_or_default() {
    let case = Case::new(&[]);
    let (_, r, _) = resolve(&case, &["--phase", "execute"]);
    assert_eq!(
        r["profile"],
        serde_json::json!({"name": "premium", "source": "default", "origin": "builtin"})
    );
    let env = Case::new(&["profile", "resolve", "--phase", "execute", "--json"])
        .env("VOYAGE_PROFILE", "balanced");
    let r: Value = serde_json::from_str(&env.run().stdout).unwrap();
    assert_eq!(
        (
            r["profile"]["name"].as_str(),
            r["profile"]["source"].as_str()
        ),
        (Some("balanced"), Some("env"))
    );
    assert_eq!(r["model"], "sonnet");
    let env = Case::new(&[
        "profile",
        "resolve",
        "--phase",
        "execute",
        "--json",
        "--profile",
        "economy",
    ])
    .env("VOYAGE_PROFILE", "balanced");
    let r: Value = serde_json::from_str(&env.run().stdout).unwrap();
    assert_eq!(
        (
            r["profile"]["name"].as_str(),
            r["profile"]["source"].as_str()
        ),
        (Some("economy"), Some("flag"))
    );
}

#[test]
fn custom_profiles_from_the_project_then_the_data_dir() {
    let case = Case::new(&[]);
    fs::create_dir_all(case.path().join("voyage-profiles")).unwrap();
    fs::write(
        case.path().join("voyage-profiles/team.yaml"),
        "description: the team's\nextends: balanced\nphase_models:\n  execute: opus\nparallel_agents: 6\n",
    )
    .unwrap();
    let (status, r, stderr) = resolve(&case, &["--phase", "execute", "--profile", "team"]);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(r["model"], "opus");
    assert_eq!(r["parallel_agents"], 6);
    assert!(
        r["profile"]["origin"]
            .as_str()
            .unwrap()
            .ends_with("voyage-profiles/team.yaml")
    );
    let (_, r, _) = resolve(&case, &["--phase", "review", "--profile", "team"]);
    assert_eq!(r["model"], "sonnet", "balanced fills review");
    let data = case.path().join("data/voyage/voyage-profiles");
    fs::create_dir_all(&data).unwrap();
    fs::write(data.join("solo.yml"), "phase_models:\n  execute: haiku\n").unwrap();
    let (status, r, _) = resolve(&case, &["--phase", "execute", "--profile", "solo"]);
    assert_eq!(status, 0);
    assert_eq!(r["model"], "haiku");
    let ran = case.run_with(&[
        "profile",
        "resolve",
        "--phase",
        "execute",
        "--profile",
        "team",
    ]);
    assert_eq!(
        ran.stdout.lines().next().unwrap(),
        "EFFORT: standard (default)"
    );
    assert!(
        ran.stdout
            .contains("MODEL: opus (profile)\nSOURCE: profile\nPROFILE: team (flag, ")
    );
}

#[test]
fn bad_profiles_and_briefs_are_coded() {
    let case = Case::new(&[]);
    fs::create_dir_all(case.path().join("voyage-profiles")).unwrap();
    fs::write(
        case.path().join("voyage-profiles/broken.yaml"),
        "phase_models: [\n",
    )
    .unwrap();
    fs::write(
        case.path().join("voyage-profiles/wrong.yaml"),
        "phase_models:\n  deploy: opus\n",
    )
    .unwrap();
    fs::write(
        case.path().join("bad-effort.md"),
        "---\nphase_signals:\n  execute:\n    effort: extreme\n---\n",
    )
    .unwrap();
    fs::write(
        case.path().join("bad-yaml.md"),
        "---\nphase_signals: [\n---\n",
    )
    .unwrap();
    for (args, status, code) in [
        (
            &["--phase", "execute", "--profile", "nope"][..],
            1,
            "PROFILE_UNKNOWN",
        ),
        (
            &["--phase", "execute", "--profile", "../x"],
            1,
            "PROFILE_BAD_NAME",
        ),
        (
            &["--phase", "execute", "--profile", "broken"],
            1,
            "PROFILE_NOT_YAML",
        ),
        (
            &["--phase", "execute", "--profile", "wrong"],
            1,
            "PROFILE_BAD_PHASE",
        ),
        (
            &["--phase", "execute", "--brief", "bad-effort.md"],
            1,
            "BRIEF_INVALID_EFFORT",
        ),
        (
            &["--phase", "execute", "--brief", "bad-yaml.md"],
            1,
            "BRIEF_FRONT_MATTER",
        ),
        (
            &["--phase", "execute", "--brief", "missing.md"],
            2,
            "PROFILE_BRIEF_UNREADABLE",
        ),
        (&["--phase", "deploy"], 2, "PROFILE_BAD_PHASE"),
    ] {
        let (got, _, stderr) = resolve(&case, args);
        assert_eq!(got, status, "{args:?}: {stderr}");
        assert!(stderr.contains(code), "{args:?}: {stderr}");
    }
}

#[test]
fn a_21_brief_without_signals_warns() {
    let case = Case::new(&[]);
    let b = brief("brief-v21-missing-signals.md");
    let (status, r, stderr) = resolve(
        &case,
        &["--phase", "execute", "--brief", b.to_str().unwrap()],
    );
    assert_eq!(status, 0);
    assert_eq!(r["warnings"][0]["code"], "BRIEF_V51_MISSING_SIGNALS");
    assert!(stderr.contains("BRIEF_V51_MISSING_SIGNALS"));
    assert_eq!(r["effort"], "standard");
}

#[test]
fn the_plan_front_matter_is_inherited_after_flag_and_env() {
    let case = Case::new(&[]);
    fs::write(
        case.path().join("plan.md"),
        "---\nplan_version: 1.7\nprofile: economy\n---\n# Plan\n\n## Implementation Plan\n\n### Step 1: one\n\n- **Files:** `a.txt`\n- **Verify:** `true`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m one`\n\n```yaml\nmanifest:\n  expected_paths: [a.txt]\n  min_file_count: 1\n  commit_message_pattern: \"^one\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n```\n",
    )
    .unwrap();
    let (status, r, stderr) = resolve(&case, &["--phase", "execute", "--plan", "plan.md"]);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(r["profile"]["name"], "economy");
    assert_eq!(r["profile"]["source"], "inheritance");
    assert_eq!(r["model"], "haiku");
    let env = Case::new(&[
        "profile", "resolve", "--phase", "execute", "--json", "--plan", "plan.md",
    ])
    .env("VOYAGE_PROFILE", "fable");
    fs::copy(case.path().join("plan.md"), env.path().join("plan.md")).unwrap();
    let r: Value = serde_json::from_str(&env.run().stdout).unwrap();
    assert_eq!(r["profile"]["source"], "env");
    let (_, r, _) = resolve(
        &case,
        &[
            "--phase",
            "execute",
            "--plan",
            "plan.md",
            "--profile",
            "balanced",
        ],
    );
    assert_eq!(r["profile"]["source"], "flag");
    // A plan without `profile:` falls through to the default.
    let plain = fs::read_to_string(case.path().join("plan.md"))
        .unwrap()
        .replace("profile: economy\n", "");
    fs::write(case.path().join("plain.md"), plain).unwrap();
    let (_, r, _) = resolve(&case, &["--phase", "execute", "--plan", "plain.md"]);
    assert_eq!(r["profile"]["source"], "default");
    let (status, _, stderr) = resolve(&case, &["--phase", "execute", "--plan", "missing.md"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("PLAN_UNREADABLE"));
}
