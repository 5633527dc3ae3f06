//! The real Claude Code CLI as the plugin's commands are tested with it:
//! `claude -p` offline against the mock Messages API, this repository
//! loaded with `--plugin-dir`, in a fresh home whose `bin/` holds a
//! recording fake `claude` first on `PATH` (Hard rule 21: nothing Voyage
//! runs may start Claude Code, so that fake must see zero calls).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The variables a test's host may have set that would reach the CLI or
/// the plugin's hooks and change what they do: none may leak in.
const HOST_ONLY: &[&str] = &[
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_PLUGIN_ROOT",
    // Claude Code sets the data dir for the plugin's hooks, and the plugin
    // hands it to Bash: none may come from the test's host.
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_ENV_FILE",
    "VOYAGE_DATA_DIR",
    "XDG_DATA_HOME",
    // The user's switch for the kernel fence: a test sets it itself.
    "VOYAGE_FENCE",
];

/// Writes the recording fake `claude` into `home/bin/`.
pub fn install_fake_claude(home: &Path) -> io::Result<()> {
    crate::write_executable(
        &home.join("bin/claude"),
        &format!(
            "#!/bin/sh\necho \"$@\" >> {}\nexit 1\n",
            crate::sh_quote(&calls_file(home).display().to_string())
        ),
    )
}

/// What the fake `claude` in `home` recorded; `None` when it never ran.
pub fn fake_claude_calls(home: &Path) -> Option<String> {
    let calls = calls_file(home);
    calls
        .exists()
        .then(|| fs::read_to_string(&calls).unwrap_or_default())
}

fn calls_file(home: &Path) -> PathBuf {
    home.join("claude-calls")
}

/// `claude -p PROMPT --output-format stream-json --verbose` run in `dir`
/// with the plugin loaded, offline against the mock at `url`, in `home`
/// (its `bin/` first on `PATH`), the launcher pointed at the helper Cargo
/// built. The caller adds a permission mode and its own variables (a
/// variable set again replaces this one). Fails when the helper does not
/// build.
pub fn print_command(
    claude: &Path,
    dir: &Path,
    home: &Path,
    url: &str,
    prompt: &str,
) -> io::Result<Command> {
    let path = format!(
        "{}:{}",
        home.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(claude);
    for key in HOST_ONLY {
        cmd.env_remove(key);
    }
    cmd.args(["-p", prompt, "--output-format", "stream-json", "--verbose"])
        .arg("--plugin-dir")
        .arg(crate::repo_root())
        .current_dir(dir)
        .env("HOME", home)
        .env("PATH", path)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "test")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("VOYAGE_HELPER", crate::helper_binary()?)
        .stdin(Stdio::null());
    Ok(cmd)
}

/// The slash commands the CLI loaded, from the `system`/`init` line of its
/// `stream-json` output; `None` when there is no such line.
pub fn slash_commands(stdout: &[u8]) -> Option<Vec<String>> {
    let init = String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| {
            v.get("type").and_then(|t| t.as_str()) == Some("system")
                && v.get("subtype").and_then(|t| t.as_str()) == Some("init")
        })?;
    Some(
        init.get("slash_commands")?
            .as_array()?
            .iter()
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect(),
    )
}
