//! Voyage's denylist around every OpenCode step: the OpenCode plugin
//! Voyage ships (`voyage-guard.js`, embedded in the binary) written out for
//! the call and loaded through `OPENCODE_CONFIG_CONTENT`, whatever the
//! user's own OpenCode configuration says, with `VOYAGE_GUARD_HELPER`
//! naming the binary its before-tool hook calls (`voyage-helper hook
//! pre-tool-use`). A call the hook denies fails in OpenCode with the rule's
//! reason, which the model reads, and which the stream of the call turns
//! into a recorded denial ([`refusal`]).
//!
//! `VOYAGE_WORKFLOW_GUARD=off` runs OpenCode without it (the run's
//! `Settings::guard_hook` is then `None`).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};
use tempfile::TempDir;

/// The plugin, as shipped.
pub(super) const PLUGIN: &str = include_str!("voyage-guard.js");
/// The plugin's file name where it is written out.
const PLUGIN_FILE: &str = "voyage-guard.js";
/// The words every refusal of the plugin starts with (its `REFUSED`).
pub(super) const REFUSED: &str = "Voyage refused this call:";
/// The variable OpenCode reads extra configuration from (JSON), on top of
/// the user's files.
pub(super) const CONFIG_VAR: &str = "OPENCODE_CONFIG_CONTENT";
/// The variable naming the helper the plugin calls.
pub(super) const HELPER_VAR: &str = "VOYAGE_GUARD_HELPER";

/// The guard of one OpenCode call: the plugin written out (removed when
/// this is dropped) and the variables that load it.
#[derive(Debug)]
pub(super) struct Guard {
    _dir: TempDir,
    /// `OPENCODE_CONFIG_CONTENT`: the user's, with the plugin added.
    pub(super) config: String,
    /// The helper the plugin calls.
    pub(super) helper: OsString,
    /// Whether the user's own `OPENCODE_CONFIG_CONTENT` was left out (not
    /// a JSON object, so the plugin could not be added to it).
    pub(super) dropped_users: bool,
}

impl Guard {
    /// Writes the plugin out and names this binary as the helper to call.
    pub(super) fn prepare() -> io::Result<Self> {
        let helper = std::env::current_exe()?;
        let dir = tempfile::Builder::new()
            .prefix("voyage-opencode-")
            .tempdir()?;
        let file = dir.path().join(PLUGIN_FILE);
        std::fs::write(&file, PLUGIN)?;
        let user = std::env::var(CONFIG_VAR).ok();
        let (config, kept) = config_content(user.as_deref(), &file_url(&file));
        Ok(Self {
            config,
            dropped_users: user.is_some() && !kept,
            helper: helper.into_os_string(),
            _dir: dir,
        })
    }
}

/// `OPENCODE_CONFIG_CONTENT` with `plugin` added to the user's own, and
/// whether theirs was kept: it is when it is a JSON object (JSONC, with
/// comments, is not read and is left out).
pub(super) fn config_content(user: Option<&str>, plugin: &str) -> (String, bool) {
    let users = user
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|value| match value {
            Value::Object(map) => Some(map),
            _ => None,
        });
    let kept = users.is_some();
    let mut config = users.unwrap_or_default();
    let mut plugins = match config.remove("plugin") {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    plugins.push(Value::String(plugin.to_owned()));
    config.insert("plugin".to_owned(), Value::Array(plugins));
    (Value::Object(config).to_string(), kept)
}

/// A `file://` URL for `path`, every byte but the plain ones escaped.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for byte in path.as_os_str().as_encoded_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(char::from(*byte));
            }
            _ => {
                let _ = write!(url, "%{byte:02X}");
            }
        }
    }
    url
}

/// The denylist's reason when a `tool_use` part is a call the plugin
/// refused (its state an error holding [`REFUSED`]).
pub(super) fn refusal(part: &Map<String, Value>) -> Option<String> {
    let state = part.get("state")?;
    if state.get("status").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let error = state.get("error").and_then(Value::as_str)?;
    let (_, reason) = error.split_once(REFUSED)?;
    Some(reason.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_plugin_is_added_to_the_users_config_content() {
        let url = "file:///tmp/x/voyage-guard.js";
        let (alone, _) = config_content(None, url);
        assert_eq!(alone, r#"{"plugin":["file:///tmp/x/voyage-guard.js"]}"#);
        let (merged, kept) = config_content(Some(r#"{"model":"a/b","plugin":["theirs"]}"#), url);
        assert!(kept);
        let merged: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(merged, json!({"model": "a/b", "plugin": ["theirs", url]}));
        assert_eq!(
            config_content(Some("{ // a comment\n}"), url),
            (alone, false)
        );
    }

    #[test]
    fn file_urls_escape_what_is_not_plain() {
        assert_eq!(
            file_url(Path::new("/tmp/a b/%x/g.js")),
            "file:///tmp/a%20b/%25x/g.js"
        );
    }

    #[test]
    fn a_refused_call_is_told_from_a_failed_one() {
        let part = |state: Value| {
            json!({"tool": "bash", "state": state})
                .as_object()
                .unwrap()
                .clone()
        };
        assert_eq!(
            refusal(&part(json!({"status": "error",
                "error": "Error: Voyage refused this call: rm-home: deletes your home"}))),
            Some("rm-home: deletes your home".to_owned())
        );
        assert_eq!(
            refusal(&part(json!({"status": "error", "error": "exit 1"}))),
            None
        );
        assert_eq!(
            refusal(&part(json!({"status": "completed", "output": REFUSED}))),
            None
        );
    }

    #[test]
    fn the_shipped_plugin_exports_only_the_plugin() {
        // OpenCode calls every export of a plugin module as a plugin.
        let exports: Vec<&str> = PLUGIN.lines().filter(|l| l.starts_with("export")).collect();
        assert_eq!(
            exports,
            ["export const VoyageGuard = async ({ directory }) => ({"]
        );
        assert!(PLUGIN.contains(&format!("const REFUSED = \"{REFUSED}\"")));
    }
}
