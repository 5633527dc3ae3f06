//! `scope exec`: runs one Bash call of the agent inside the fence of the
//! run in progress. The helper reads the run marker, builds the grants,
//! restricts itself with Landlock and then becomes the shell Claude Code
//! would have used (no process waits in between), so everything the
//! command starts inherits the fence.
//!
//! The shell runs the command as Claude Code's would, with `TMPDIR` set to
//! the run's private temporary directory, and on its way out it leaves its
//! directory in the call's file, when it is given one (see
//! [`super::wrap`]), and, when the command failed, one line on stderr
//! saying the step's scope was held by the kernel, so the agent knows what
//! a `Permission denied` meant.
//!
//! Anything that keeps the fence from being built refuses the command
//! (exit 126, the reason on stderr): the hook rewrote the call because it
//! found a run to hold, and it is not run unheld.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::grants::{self, Inputs};
use super::kernel;
use super::wrap::quote;
use crate::run_marker;

/// Exit status of a command the fence refused to run: the shell's "found
/// but cannot run".
pub(crate) const REFUSED: u8 = 126;

/// What `scope exec` is given.
pub(crate) struct Request<'a> {
    pub marker: &'a Path,
    /// Where the shell leaves its last directory (in the run's temporary
    /// directory); `None` for a command that does not move, and for `run
    /// --fence`, which hands nothing back.
    pub cwd_file: Option<&'a Path>,
    /// The shell to use instead of Claude Code's.
    pub shell: Option<&'a OsStr>,
    pub call_dirs: &'a [String],
    pub command: &'a str,
}

/// Runs the command fenced; returns only when it could not (the reason,
/// already meant for the agent).
pub(crate) fn exec(request: &Request<'_>) -> String {
    let marker = match run_marker::read(request.marker) {
        Ok(Some(marker)) => marker,
        Ok(None) => {
            return format!(
                "the run marker {} is gone: the run ended before this command ran. Run the command again.",
                request.marker.display()
            );
        }
        Err(e) => return format!("{e}"),
    };
    if let Some(why) = marker.stale_reason() {
        return format!("the run in progress cannot be trusted: {why}");
    }
    // The run's temporary directory: the cwd file's, which the hook put
    // there, else found from the marker as the hook finds it.
    let tmp = match request.cwd_file {
        Some(file) => match file.parent() {
            Some(dir) => dir.to_owned(),
            None => return format!("{} is not a file in a directory", file.display()),
        },
        None => super::wrap::run_tmp(&std::env::temp_dir(), request.marker),
    };
    let tmp = tmp.as_path();
    if let Err(why) = private_dir(tmp) {
        return why;
    }
    let logs = Path::new(&marker.repo_root).join(crate::run::LOG_SUBDIR);
    // Best effort: `run` makes it too, but inside the fence it could not.
    let _ = std::fs::create_dir_all(&logs);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let env = |name: &str| std::env::var(name).ok();
    let fence = grants::build(&Inputs {
        marker: &marker,
        marker_path: request.marker,
        tmp,
        logs: &logs,
        call_dirs: request.call_dirs,
        home: home.as_deref(),
        env: &env,
    });
    if let Err(why) = kernel::enforce(&fence.grants) {
        return why;
    }
    let held = match marker.step {
        Some(n) => format!(
            "step {n}'s scope was held by the kernel (Landlock): a write outside the step's Files fails with `Permission denied`; `voyage-helper scope status` lists what is open"
        ),
        None => "no step is in progress, and the kernel (Landlock) held every write in the repository: call `trek step-begin N` first; `voyage-helper scope status` lists what is open".to_owned(),
    };
    let hand_back = request.cwd_file.map_or_else(String::new, |file| {
        format!(
            "printf '%s' \"$PWD\" > {} 2>/dev/null; ",
            quote(&file.display().to_string())
        )
    });
    let exit = format!(
        "voyage_fence_status=$?; {hand_back}[ \"$voyage_fence_status\" -eq 0 ] || printf '%s\\n' {} >&2; exit \"$voyage_fence_status\"",
        quote(&format!("voyage: {held}.")),
    );
    let script = format!("trap {} EXIT; eval \"shift; $1\"", quote(&exit));
    let shell = request.shell.map_or_else(shell, OsStr::to_owned);
    let error = std::process::Command::new(shell)
        .arg("-c")
        .arg(script)
        .arg("voyage-fence")
        .arg(request.command)
        .env("TMPDIR", tmp)
        .exec();
    format!("the shell could not be started: {error}")
}

/// The shell Claude Code runs Bash calls with: `CLAUDE_CODE_SHELL`, else
/// `SHELL` when it is bash or zsh, else bash.
fn shell() -> OsString {
    let usable = |path: &OsString| Path::new(path).is_absolute() && Path::new(path).is_file();
    if let Some(shell) = std::env::var_os("CLAUDE_CODE_SHELL").filter(usable) {
        return shell;
    }
    if let Some(shell) = std::env::var_os("SHELL").filter(usable).filter(|s| {
        Path::new(s)
            .file_name()
            .is_some_and(|name| name == "bash" || name == "zsh")
    }) {
        return shell;
    }
    OsString::from("bash")
}

/// Makes `dir` (and its parent, the user's directory of runs) private to
/// this user, refusing one that is a link or someone else's.
fn private_dir(dir: &Path) -> Result<(), String> {
    let parent = dir.parent().unwrap_or(dir);
    for d in [parent, dir] {
        match std::fs::DirBuilder::new().mode(0o700).create(d) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot make {}: {e}", d.display())),
        }
        let meta = std::fs::symlink_metadata(d)
            .map_err(|e| format!("cannot read {}: {e}", d.display()))?;
        if !meta.is_dir() || meta.uid() != nix::unistd::geteuid().as_raw() {
            return Err(format!(
                "{} is not a directory of this user's; remove it and run the command again",
                d.display()
            ));
        }
    }
    Ok(())
}
