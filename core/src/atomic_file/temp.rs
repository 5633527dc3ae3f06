//! The temporary files of the atomic write: how they are named, and how
//! the ones a killed writer left behind are swept up.
//!
//! A writer killed (SIGKILL, a power cut) between creating its temporary
//! file and renaming it leaves the file behind; nothing else ever removes
//! it. So every temporary file is named after its target and its writer:
//! `.<target>.voyage-tmp.<pid>.<n>` (`n` counts the temporary files of one
//! process). The next writer of the same target removes those whose writer
//! is gone. Only that target's names are touched, never another file.
//!
//! A file counts as stale when its writer's pid is not alive and the file
//! is older than [`DEAD_GRACE`] (a pid is only meaningful in its own pid
//! namespace: a writer in a container sharing the directory may look dead
//! from here, and the grace lets it finish), or whatever its pid when it
//! is older than [`ABANDONED`] (the pid may have been reused by an
//! unrelated process). Removing a live writer's file by mistake costs that
//! writer its write — its rename fails and its target stays as it was —
//! never a document.
//!
//! The sweep needs a directory listing. Writers skip it when the directory
//! is large (its size above [`LISTING_LIMIT`]), so that a state file in a
//! big directory does not pay for thousands of entries on every write.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use nix::errno::Errno;
use nix::sys::signal;
use nix::unistd::Pid;

/// What every temporary file's name holds between its target's name and
/// its writer's pid.
pub(super) const MARK: &str = ".voyage-tmp.";

/// How old a dead writer's file must be before it is removed.
pub(super) const DEAD_GRACE: Duration = Duration::from_secs(5);

/// How old any writer's file must be before it is removed.
pub(super) const ABANDONED: Duration = Duration::from_secs(15 * 60);

/// Directories larger than this (`st_size`, about a thousand entries on
/// ext4) are not listed.
pub(super) const LISTING_LIMIT: u64 = 64 * 1024;

/// How many names one process tries before giving up on `EEXIST`.
const ATTEMPTS: u32 = 100;

/// Temporary files this process has created: with the pid, a name no other
/// live process uses.
static COUNTER: AtomicU32 = AtomicU32::new(0);

/// The temporary file name for `target_name`, written by `pid`.
pub(super) fn name(target_name: &OsStr, pid: u32, n: u32) -> OsString {
    let mut name = OsString::from(".");
    name.push(target_name);
    name.push(format!("{MARK}{pid}.{n}"));
    name
}

/// The pid in `entry` if it is a temporary file name of `target_name`.
pub(super) fn owner(entry: &OsStr, target_name: &OsStr) -> Option<u32> {
    let rest = entry
        .as_bytes()
        .strip_prefix(b".")?
        .strip_prefix(target_name.as_bytes())?
        .strip_prefix(MARK.as_bytes())?;
    let rest = std::str::from_utf8(rest).ok()?;
    let (pid, n) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok()
}

/// Creates a new temporary file for `target_name` in `dir` with `mode`
/// (before the umask). Returns it open for writing, and its path.
pub(super) fn create(dir: &Path, target_name: &OsStr, mode: u32) -> io::Result<(File, PathBuf)> {
    let pid = std::process::id();
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..ATTEMPTS {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(name(target_name, pid, n));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
        {
            Ok(file) => return Ok((file, path)),
            // Left by an earlier process that had this pid: take the next.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Removes the stale temporary files of `target_name` in `dir`. Best
/// effort: a file that cannot be examined or removed is left alone.
pub(super) fn sweep(dir: &Path, target_name: &OsStr) {
    sweep_at(dir, target_name, SystemTime::now());
}

/// Removes the temporary files of `target_name` in `dir` whose writer is
/// not alive, whatever their age: for a caller that knows it is the only
/// writer of the target (the calls of one run, made one after another).
pub(super) fn sweep_dead(dir: &Path, target_name: &OsStr) {
    sweep_with(dir, target_name, SystemTime::now(), Duration::ZERO);
}

/// [`sweep`] as if the time were `now`.
pub(super) fn sweep_at(dir: &Path, target_name: &OsStr, now: SystemTime) {
    sweep_with(dir, target_name, now, DEAD_GRACE);
}

fn sweep_with(dir: &Path, target_name: &OsStr, now: SystemTime, grace: Duration) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = owner(&entry.file_name(), target_name) else {
            continue;
        };
        // symlink_metadata: a link with such a name is a link, not a file.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        let stale = age >= ABANDONED || (age >= grace && !alive(pid));
        if meta.is_file() && stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether a process with this pid exists (signal 0 checks without
/// sending). Not permitted to signal it still means it exists.
fn alive(pid: u32) -> bool {
    match i32::try_from(pid) {
        // pid 0 would address our own process group: never a writer's pid.
        Ok(raw) if raw > 0 => signal::kill(Pid::from_raw(raw), None) != Err(Errno::ESRCH),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_for_their_target() {
        let n = name(OsStr::new("p.json"), 4321, 7);
        assert_eq!(n, OsStr::new(".p.json.voyage-tmp.4321.7"));
        assert_eq!(owner(&n, OsStr::new("p.json")), Some(4321));
        assert_eq!(owner(&n, OsStr::new("p")), None);
        assert_eq!(owner(&n, OsStr::new("json")), None);
        for other in [
            "p.json",
            ".p.json.voyage-tmp.",
            ".p.json.voyage-tmp.12",
            ".p.json.voyage-tmp.12.",
            ".p.json.voyage-tmp.x.1",
            ".p.json.voyage-tmp.1.2.3",
            ".p.json.AbC123.tmp",
        ] {
            assert_eq!(
                owner(OsStr::new(other), OsStr::new("p.json")),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn the_own_process_is_alive_and_pid_zero_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(0));
        assert!(!alive(u32::MAX));
    }

    /// A pid that belonged to a process that has exited.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn sweeps_only_stale_files_of_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = OsStr::new("p.json");
        let dead = dead_pid();
        let live = std::process::id();
        let file = |name: OsString| {
            let path = dir.path().join(name);
            fs::write(&path, b"half").unwrap();
            path
        };
        let dead_file = file(name(target, dead, 0));
        let live_file = file(name(target, live, 1_000_000));
        let other_target = file(name(OsStr::new("q.json"), dead, 0));
        let unrelated = file(OsString::from(".p.json.voyage-tmp.notes"));
        let now = SystemTime::now();

        // Just written: a dead writer's file gets its grace.
        sweep_at(dir.path(), target, now);
        assert!(dead_file.exists());
        // Past the grace: the dead writer's file goes, the live one's stays.
        sweep_at(
            dir.path(),
            target,
            now + DEAD_GRACE + Duration::from_secs(1),
        );
        assert!(!dead_file.exists());
        assert!(live_file.exists());
        // Abandoned: any writer's file goes.
        sweep_at(dir.path(), target, now + ABANDONED + Duration::from_secs(1));
        assert!(!live_file.exists());
        // Never another target's file or a name that is not ours.
        assert!(other_target.exists());
        assert!(unrelated.exists());
    }
}
