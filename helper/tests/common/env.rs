//! The `voyage-helper` binary with nothing of the developer's environment
//! that could change a run: the one place the tests' commands are built
//! from ([`super::Case`] and [`super::Dir`] both start here).

use std::path::Path;
use std::process::Command;

/// Prefixes of the variables the helper reads (its own, Claude Code's, the
/// Executant fallbacks, the plan executor's budget, OpenTelemetry's).
const READ_BY_THE_HELPER: [&str; 6] = [
    "VOYAGE_",
    "CLAUDE_",
    "CLAUDECODE",
    "EXECUTANT_",
    "TREKEXECUTE_",
    "OTEL_",
];

/// `voyage-helper` to run in `cwd` (`PWD` too) with `HOME` at `home`, and
/// every `VOYAGE_*`, `CLAUDE_*`, `EXECUTANT_*`, `TREKEXECUTE_*` and `OTEL_*`
/// variable and `TRACEPARENT` removed.
pub fn helper(cwd: &Path, home: &Path) -> Command {
    clean(Command::new(env!("CARGO_BIN_EXE_voyage-helper")), cwd, home)
}

/// `sh -c SCRIPT` in `cwd` with the same environment as [`helper`]: a
/// call a reply printed, run as a user would paste it into a terminal.
pub fn shell(cwd: &Path, home: &Path, script: &str) -> Command {
    let mut cmd = clean(Command::new("sh"), cwd, home);
    cmd.arg("-c").arg(script);
    cmd
}

/// `cmd` with no git identity but the repository's own config: no system
/// config, and none of the variables git takes a name or email from.
pub fn without_git_identity(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1");
    for var in [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn clean(mut cmd: Command, cwd: &Path, home: &Path) -> Command {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key == "TRACEPARENT" || READ_BY_THE_HELPER.iter().any(|p| key.starts_with(p)) {
            cmd.env_remove(&*key);
        }
    }
    cmd.current_dir(cwd).env("PWD", cwd).env("HOME", home);
    cmd
}
