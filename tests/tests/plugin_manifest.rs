//! The plugin and marketplace manifests in `.claude-plugin/`: their shape,
//! their agreement with each other and with Cargo, and the verdict of the
//! real Claude Code CLI's validator.

// Test code: a panic here is a failed assertion (clippy.toml allows this
// inside #[test] fns, but not in the helpers they share).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use voyage_tests::{cargo_package_version, repo_root};

fn manifest_path(file: &str) -> PathBuf {
    repo_root().join(".claude-plugin").join(file)
}

fn read_json(file: &str) -> Value {
    let path = manifest_path(file);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(value.is_object(), "{file} holds a JSON object");
    value
}

fn string<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| panic!("{key} is a non-empty string in {value}"))
}

fn helper_version() -> String {
    cargo_package_version(&repo_root().join("helper/Cargo.toml")).unwrap()
}

#[test]
fn plugin_manifest_has_the_required_fields() {
    let plugin = read_json("plugin.json");
    assert_eq!(string(&plugin, "name"), "voyage");
    assert!(string(&plugin, "description").ends_with('.'));
    assert!(string(&plugin["author"], "name").contains("Voyage"));
    assert_eq!(string(&plugin, "license"), "MIT");
    let repository = string(&plugin, "repository");
    assert!(repository.starts_with("https://"), "{repository}");
    assert_eq!(string(&plugin, "homepage"), repository);
    let keywords = plugin["keywords"].as_array().unwrap();
    assert!(!keywords.is_empty());
    assert!(
        keywords
            .iter()
            .all(|k| k.as_str().is_some_and(|k| !k.is_empty()))
    );
}

#[test]
fn plugin_manifest_leaves_default_component_paths_undeclared() {
    // commands/, skills/ and hooks/hooks.json are found without being named;
    // naming hooks/hooks.json again makes older CLIs refuse to load the plugin
    // ("Duplicate hooks file detected").
    let plugin = read_json("plugin.json");
    for key in ["commands", "skills", "agents", "hooks"] {
        assert!(
            plugin.get(key).is_none(),
            "plugin.json declares {key}: {}",
            plugin[key]
        );
    }
}

#[test]
fn versions_agree_with_the_helper_crate() {
    let version = helper_version();
    let plugin = read_json("plugin.json");
    assert_eq!(string(&plugin, "version"), version, "plugin.json version");
    // The launcher installs the release binary of exactly this version.
    assert_eq!(
        voyage_tests::launcher_version().unwrap(),
        version,
        "plugin/bin/voyage-helper's version= line"
    );
    let market = read_json("marketplace.json");
    for entry in market["plugins"].as_array().unwrap() {
        if let Some(v) = entry.get("version") {
            assert_eq!(
                v.as_str(),
                Some(version.as_str()),
                "marketplace entry version"
            );
        }
    }
    if let Some(v) = market["metadata"].get("version") {
        assert_eq!(
            v.as_str(),
            Some(version.as_str()),
            "marketplace metadata version"
        );
    }
}

#[test]
fn marketplace_lists_this_plugin_from_the_repository_root() {
    let market = read_json("marketplace.json");
    let plugin = read_json("plugin.json");
    assert_eq!(string(&market, "name"), "voyage-dev");
    string(&market["owner"], "name");
    let entries = market["plugins"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "one plugin: {entries:?}");
    let entry = &entries[0];
    assert_eq!(string(entry, "name"), string(&plugin, "name"));
    if let Some(description) = entry.get("description") {
        assert_eq!(description, &plugin["description"]);
    }

    // A relative source is resolved against the marketplace root, the
    // directory that holds .claude-plugin/.
    let source = string(entry, "source");
    assert!(
        source.starts_with("./"),
        "relative sources start with ./: {source}"
    );
    let resolved = repo_root().join(source).canonicalize().unwrap();
    assert_eq!(resolved, repo_root().canonicalize().unwrap());
    assert!(resolved.join(".claude-plugin/plugin.json").is_file());
}

/// The `claude` CLI, or `None` (after a `SKIPPED:` line) when it is absent
/// outside CI.
fn claude_cli() -> Option<PathBuf> {
    voyage_tests::skip::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")
}

/// Runs `claude plugin validate --strict <target>` offline, in a fresh HOME,
/// and fails with the validator's report unless it passes.
fn assert_claude_validates(claude: &Path, target: &Path) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(claude);
    cmd.args(["plugin", "validate", "--strict"])
        .arg(target)
        .current_dir(repo_root())
        .env("HOME", home.path())
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env_remove("CLAUDE_CONFIG_DIR");
    let out = assert_cmd::Command::from_std(cmd)
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "claude plugin validate --strict {} failed ({}):\n{}{}",
        target.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// Given the repository root, the CLI validates the marketplace (and, on newer
// versions, some components); given plugin.json it validates the plugin with
// its commands, skills and hooks. Check all three targets.

#[test]
fn claude_cli_validates_the_repository_root() {
    if let Some(claude) = claude_cli() {
        assert_claude_validates(&claude, &repo_root());
    }
}

#[test]
fn claude_cli_validates_the_plugin_manifest_and_components() {
    if let Some(claude) = claude_cli() {
        assert_claude_validates(&claude, &manifest_path("plugin.json"));
    }
}

#[test]
fn claude_cli_validates_the_marketplace_manifest() {
    if let Some(claude) = claude_cli() {
        assert_claude_validates(&claude, &manifest_path("marketplace.json"));
    }
}
