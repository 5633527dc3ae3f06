//! Shared helpers for Voyage's plugin-level end-to-end tests.
//!
//! The tests in `tests/tests/` exercise the plugin as a user installs it:
//! the launcher in `plugin/bin/`, the executor skill's shims, and the
//! manifests in `.claude-plugin/`. They run the real `voyage-helper` binary
//! built by Cargo, never a mock.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// How a test that cannot run here says so (`SKIPPED: <test>: <reason>`):
/// the file the helper's tests use, so both crates skip the same way.
#[path = "../../helper/tests/common/skip.rs"]
pub mod skip;

pub use skip::{find_on_path, is_executable_file};

/// Real git repositories in temp dirs: the helper tests' own builders.
#[path = "../../helper/tests/common/repo.rs"]
pub mod repo;

/// `claude -p` with the plugin loaded, offline against the mock API.
pub mod claude;

/// The check that every file a text of the repository names exists.
pub mod references;

/// How long a test lets one command run: long enough for a slow machine;
/// a launcher that loops or a shim that hangs hits it.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `cmd` to completion with `stdin`, killing it after
/// [`COMMAND_TIMEOUT`]; a command that cannot be started fails the test.
pub fn run(cmd: Command, stdin: &str) -> Output {
    match assert_cmd::Command::from_std(cmd)
        .timeout(COMMAND_TIMEOUT)
        .write_stdin(stdin.to_owned())
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("the command could not run: {e}"),
    }
}

/// A command's output as text, invalid UTF-8 replaced.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The repository root (the plugin root), found from this crate's manifest dir.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The launcher the plugin ships, `plugin/bin/voyage-helper`.
pub fn launcher() -> PathBuf {
    repo_root().join("plugin").join("bin").join("voyage-helper")
}

/// The plugin version the launcher is written for: its `version=` line,
/// the version its installed binary and a helper on PATH must have.
pub fn launcher_version() -> io::Result<String> {
    let text = fs::read_to_string(launcher())?;
    text.lines()
        .find_map(|line| line.strip_prefix("version="))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| io::Error::other("the launcher has no version= line"))
}

/// The executor skill's shims, `skills/executor/scripts/`.
pub fn executor_scripts() -> PathBuf {
    repo_root().join("skills").join("executor").join("scripts")
}

/// The real `voyage-helper` binary, built once per test process with
/// `cargo build -p voyage-helper` (the `cargo` running the tests, from
/// `$CARGO`) and located from Cargo's JSON messages, so `CARGO_TARGET_DIR`
/// and the like are honoured. A failed build is reported to every caller.
///
/// Cargo releases its build-directory lock before it runs test binaries, so
/// this nested build does not wait on the `cargo test` that started it.
pub fn helper_binary() -> io::Result<PathBuf> {
    static HELPER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    HELPER
        .get_or_init(|| build_helper().map_err(|e| e.to_string()))
        .clone()
        .map_err(io::Error::other)
}

fn build_helper() -> io::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO")
        .or_else(|| option_env!("CARGO").map(Into::into))
        .unwrap_or_else(|| "cargo".into());
    let manifest = repo_root().join("Cargo.toml");
    let out = Command::new(&cargo)
        .args(["build", "-p", "voyage-helper", "--bin", "voyage-helper"])
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(&manifest)
        .stdin(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "{} build -p voyage-helper failed ({}):\n{}",
            Path::new(&cargo).display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| {
            msg.get("reason").and_then(|r| r.as_str()) == Some("compiler-artifact")
                && msg.pointer("/target/name").and_then(|n| n.as_str()) == Some("voyage-helper")
                && msg
                    .pointer("/target/kind")
                    .and_then(|k| k.as_array())
                    .is_some_and(|kinds| kinds.iter().any(|k| k == "bin"))
        })
        .find_map(|msg| msg.get("executable")?.as_str().map(PathBuf::from))
        .filter(|path| is_executable_file(path))
        .ok_or_else(|| io::Error::other("cargo reported no voyage-helper executable"))
}

/// The release helper with the `fault-injection` feature
/// (core/src/fault.rs), built once per test process by
/// `scripts/build-helper.sh`, so it is the binary as it ships (release
/// profile, `panic = "abort"`, static where the toolchain allows) plus the
/// faults. It goes to `target/fault-injection/`, its own target directory,
/// so that it never stands where the launcher looks for the shipped one.
/// A failed build is reported to every caller.
pub fn faulty_helper() -> io::Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| build_faulty_helper().map_err(|e| e.to_string()))
        .clone()
        .map_err(io::Error::other)
}

fn build_faulty_helper() -> io::Result<PathBuf> {
    let target = repo_root().join("target").join("fault-injection");
    let status = Command::new("sh")
        .arg(repo_root().join("scripts/build-helper.sh"))
        .args(["--features", "fault-injection", "-q", "--target-dir"])
        .arg(&target)
        .stdin(Stdio::null())
        .status()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "scripts/build-helper.sh --features fault-injection failed: {status}"
        )));
    }
    let binary = target.join("release").join("voyage-helper");
    if is_executable_file(&binary) {
        Ok(binary)
    } else {
        Err(io::Error::other(format!(
            "{} was not built",
            binary.display()
        )))
    }
}

/// Makes `dir` hold symlinks to the host's `tools` (found on this process's
/// `PATH`), so a test can run a program with `PATH=dir` and know exactly what
/// it can reach.
pub fn link_tools(dir: &Path, tools: &[&str]) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    for tool in tools {
        let found = find_on_path(tool).ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, format!("{tool} not on PATH"))
        })?;
        symlink(found, dir.join(tool))?;
    }
    Ok(())
}

/// Writes an executable file (mode 0755), creating parent directories.
///
/// The final file is written by a `cp` child process, not by this process:
/// a test binary runs tests on many threads, and a file this process held
/// open for writing could leak into a sibling test's fork and make executing
/// it fail with "Text file busy" (ETXTBSY).
pub fn write_executable(path: &Path, contents: &str) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other(format!("{} has no parent", path.display())))?;
    fs::create_dir_all(dir)?;
    let name = path.file_name().unwrap_or(OsStr::new("file"));
    let mut staging = name.to_os_string();
    staging.push(".staging");
    let staging = dir.join(staging);
    fs::write(&staging, contents)?;
    fs::set_permissions(&staging, fs::Permissions::from_mode(0o755))?;
    let status = Command::new("cp").arg(&staging).arg(path).status()?;
    fs::remove_file(&staging)?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "cp to {} failed: {status}",
            path.display()
        )));
    }
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
}

/// Quotes `text` as one word for a POSIX shell script.
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The package version a Cargo manifest declares, following
/// `version.workspace = true` to the root manifest's `[workspace.package]`.
///
/// A small line-based reader, enough for this repository's manifests.
pub fn cargo_package_version(manifest: &Path) -> io::Result<String> {
    let text = fs::read_to_string(manifest)?;
    let own = toml_value(&text, "package", "version");
    if let Some(version) = own.as_deref().and_then(unquote) {
        return Ok(version);
    }
    let inherited = matches!(
        own.as_deref(),
        Some("{ workspace = true }" | "{workspace = true}")
    ) || toml_value(&text, "package", "version.workspace").as_deref()
        == Some("true");
    if !inherited {
        return Err(io::Error::other(format!(
            "{}: no readable [package] version",
            manifest.display()
        )));
    }
    let root = repo_root().join("Cargo.toml");
    let root_text = fs::read_to_string(&root)?;
    toml_value(&root_text, "workspace.package", "version")
        .as_deref()
        .and_then(unquote)
        .ok_or_else(|| {
            io::Error::other(format!(
                "{}: no [workspace.package] version",
                root.display()
            ))
        })
}

/// The raw (untrimmed of quotes) value of `key` in `[section]`.
fn toml_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = "";
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim();
        } else if current == section
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().to_string());
        }
    }
    None
}

fn unquote(value: &str) -> Option<String> {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .map(str::to_string)
}
