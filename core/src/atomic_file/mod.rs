//! The one way state files are written: whole, or not at all. Every writer
//! of a file that must never be seen half-written (`write --atomic`, the
//! progress file, the session state pair) goes through [`write_atomic`].
//!
//! A temporary file in the target's own directory (so the rename never
//! crosses a file system) gets the bytes, the mode of the file it replaces,
//! and an fsync; then it is renamed over the target and the directory is
//! fsynced, so the rename itself survives a power cut. A reader, or a crash
//! at any instant, sees the old document or the new one, never a mix.
//!
//! The temporary file is named after the target and the writer's pid
//! ([`temp`]), so that what a killed writer leaves behind is
//! recognisable: each commit sweeps up its target's stale ones.
//!
//! Both syncs are `fsync`, not `fdatasync`: the temporary file is new, so
//! its size and blocks are metadata that `fdatasync` must flush as well (on
//! ext4 both commit the same journal transaction, measured no faster), and
//! `fsync` also covers the mode set on it.
//!
//! A symbolic link as the target is refused ([`write_atomic`] and the
//! rest): Voyage's own files (the run marker, the progress file, the step
//! base, the state pair, the exclude file) are only ever replaced in place,
//! so a link planted where one of them lives cannot turn a write of JSON
//! into a write of the file it points to (as root, `/etc/passwd`). Only
//! `write --atomic`, whose caller names the path, follows a link on
//! purpose ([`write_atomic_through_link`]). The check needs no race
//! protection: `rename(2)` replaces a link put there afterwards with the
//! new file and never writes through it.

use std::ffi::OsString;
use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use thiserror::Error;

mod temp;

/// The codes of a failed atomic write: the `write --atomic` codes, shared
/// by every writer that goes through it.
pub mod code {
    crate::problem::codes! {
        pub;
        STATE_TARGET_IS_DIRECTORY => "the path to write is a directory",
        STATE_TARGET_IS_LINK => "the path to write is a symbolic link, and Voyage never writes its own files through one",
        STATE_NO_DIRECTORY => "the directory to write in does not exist",
        STATE_UNWRITABLE => "the temporary file cannot be written",
        STATE_REPLACE_FAILED => "the temporary file cannot replace the target",
    }
}

/// Why an atomic write did not happen. In every case the target is as it was.
#[derive(Debug, Error)]
pub enum AtomicWriteError {
    #[error("{path} is a directory")]
    IsDirectory { path: PathBuf },
    #[error(
        "{path} is a symbolic link (to {to}); Voyage never writes its own files through a link. If you did not make it on purpose, remove the link (rm {path}) and run the call again"
    )]
    IsLink { path: PathBuf, to: String },
    #[error("directory {dir} does not exist")]
    NoDirectory { dir: PathBuf },
    #[error("cannot write in {dir}: {source}")]
    Write { dir: PathBuf, source: io::Error },
    #[error("cannot replace {path}: {source}")]
    Replace { path: PathBuf, source: io::Error },
}

impl crate::problem::Coded for AtomicWriteError {
    fn code(&self) -> &'static str {
        match self {
            Self::IsDirectory { .. } => code::STATE_TARGET_IS_DIRECTORY,
            Self::IsLink { .. } => code::STATE_TARGET_IS_LINK,
            Self::NoDirectory { .. } => code::STATE_NO_DIRECTORY,
            Self::Write { .. } => code::STATE_UNWRITABLE,
            Self::Replace { .. } => code::STATE_REPLACE_FAILED,
        }
    }
}

/// Removes what killed writers of `path` left beside it (their temporary
/// files), however recent: for the one process that writes `path` at a
/// time, such as a run's calls, so that a crash leaves nothing behind for
/// the next call to find. Best effort.
pub fn sweep_dead_writers(path: &Path) {
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        temp::sweep_dead(dir, name);
    }
}

/// Mode of a new file before the umask: what `open(2)` callers ask for.
const NEW_FILE_MODE: u32 = 0o666;

/// Whether a symbolic link at the target is followed or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Links {
    Refuse,
    Follow,
}

/// Replaces (or creates) `path` with `bytes`, atomically and durably; a
/// symbolic link at `path` is refused ([`AtomicWriteError::IsLink`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    stage_with(path, bytes, true, Links::Refuse)?.commit()
}

/// [`write_atomic`] that replaces the file a symbolic link at `path`
/// points to (the link stays a link): for `write --atomic`, whose caller
/// chose the path, never for a file of Voyage's own.
pub fn write_atomic_through_link(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    stage_with(path, bytes, true, Links::Follow)?.commit()
}

/// [`write_atomic`] without the two fsyncs: a reader, or the next process
/// after this one is killed, sees the old bytes or the new ones, but a
/// power cut may take the write back. For a note that only has to outlive
/// the process (trek's checkpoint intent: the commit it announces is no
/// more durable than that either), where the fsyncs would be most of the
/// write's cost.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    stage_with(path, bytes, false, Links::Refuse)?.commit()
}

/// A fully written, fsynced temporary file waiting to replace its target.
/// Dropping it without [`Staged::commit`] removes it and changes nothing;
/// several staged files let a caller commit them one after another.
#[derive(Debug)]
pub struct Staged {
    /// The temporary file; `None` once renamed over the target.
    temp: Option<PathBuf>,
    target: PathBuf,
    dir: PathBuf,
    /// The directory is small enough to list for stale temporary files.
    sweep: bool,
    /// fsync the file and its directory (see [`write_atomic_unsynced`]).
    durable: bool,
}

/// Writes `bytes` to a temporary file beside `path`, ready to replace it
/// (a symbolic link at `path` is refused).
pub fn stage(path: &Path, bytes: &[u8]) -> Result<Staged, AtomicWriteError> {
    stage_with(path, bytes, true, Links::Refuse)
}

fn stage_with(
    path: &Path,
    bytes: &[u8],
    durable: bool,
    links: Links,
) -> Result<Staged, AtomicWriteError> {
    let target = resolve_target(path, links)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir_size = match fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => meta.size(),
        _ => return Err(AtomicWriteError::NoDirectory { dir }),
    };
    let existing_mode = match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(AtomicWriteError::IsDirectory { path: target });
        }
        Ok(meta) => Some(meta.permissions().mode() & 0o7777),
        Err(_) => None,
    };
    let write_err = |source| AtomicWriteError::Write {
        dir: dir.clone(),
        source,
    };
    let name = target.file_name().map(OsString::from).unwrap_or_default();
    let (mut file, temp_path) =
        temp::create(&dir, &name, existing_mode.unwrap_or(NEW_FILE_MODE)).map_err(write_err)?;
    // From here on, dropping `staged` removes the temporary file.
    let staged = Staged {
        temp: Some(temp_path),
        target,
        sweep: dir_size <= temp::LISTING_LIMIT,
        dir: dir.clone(),
        durable,
    };
    fill(&mut file, bytes, existing_mode, durable).map_err(write_err)?;
    Ok(staged)
}

/// The bytes, the exact mode of the file being replaced (the umask applied
/// at creation may have cleared bits of it), and the fsync when `durable`.
fn fill(file: &mut File, bytes: &[u8], mode: Option<u32>, durable: bool) -> io::Result<()> {
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    if durable { file.sync_all() } else { Ok(()) }
}

impl Staged {
    /// The file this will replace.
    #[cfg(test)]
    fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary file over the target and fsyncs the directory.
    pub fn commit(mut self) -> Result<(), AtomicWriteError> {
        let Some(temp_path) = self.temp.take() else {
            return Ok(());
        };
        crate::fault::point("atomic:before-rename");
        if let Err(source) = fs::rename(&temp_path, &self.target) {
            let _ = fs::remove_file(&temp_path);
            return Err(AtomicWriteError::Replace {
                path: self.target.clone(),
                source,
            });
        }
        crate::fault::point("atomic:after-rename");
        // Before the directory's fsync, so that the removals ride on it.
        if self.sweep
            && let Some(name) = self.target.file_name()
        {
            temp::sweep(&self.dir, name);
        }
        // The rename is done and the new document is what readers see. Some
        // file systems refuse fsync on a directory; that only weakens
        // durability across a power cut, never what the file holds, so it
        // is not an error here.
        if self.durable {
            let _ = File::open(&self.dir).and_then(|d| d.sync_all());
            crate::fault::point("atomic:after-fsync");
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(path) = self.temp.take() {
            let _ = fs::remove_file(path);
        }
    }
}

/// The file to replace: `path`, or where it points if it is a symlink
/// and `links` follows them.
fn resolve_target(path: &Path, links: Links) -> Result<PathBuf, AtomicWriteError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() && links == Links::Refuse => {
            Err(AtomicWriteError::IsLink {
                path: path.to_path_buf(),
                to: fs::read_link(path)
                    .map(|to| to.display().to_string())
                    .unwrap_or_else(|_| "an unreadable target".to_owned()),
            })
        }
        Ok(meta) if meta.file_type().is_symlink() => {
            // A dangling link cannot be canonicalised: write where it points.
            fs::canonicalize(path)
                .or_else(|_| {
                    fs::read_link(path).map(|to| match path.parent() {
                        Some(parent) if to.is_relative() => parent.join(to),
                        _ => to,
                    })
                })
                .map_err(|source| AtomicWriteError::Write {
                    dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
                    source,
                })
        }
        _ => Ok(path.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Coded;

    #[test]
    fn creates_replaces_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        write_atomic(&path, b"one").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        // no temporary file left behind
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_unsynced_write_replaces_the_same_way() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        write_atomic(&path, b"one").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o600)).unwrap();
        write_atomic_unsynced(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn refuses_a_symlink_and_leaves_both_ends_alone() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("passwd");
        let link = dir.path().join("voyage-run.json");
        fs::write(&real, b"root:x:0:0").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for write in [write_atomic, write_atomic_unsynced] {
            let err = write(&link, b"{}").unwrap_err();
            assert_eq!(err.code(), "STATE_TARGET_IS_LINK");
            assert!(err.to_string().contains("rm "), "{err}");
        }
        assert_eq!(
            stage(&link, b"{}").unwrap_err().code(),
            "STATE_TARGET_IS_LINK"
        );
        assert_eq!(fs::read(&real).unwrap(), b"root:x:0:0");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A dangling link is refused too (it would create its target).
        let dangling = dir.path().join("voyage-step-base.json");
        std::os::unix::fs::symlink(dir.path().join("new-file"), &dangling).unwrap();
        assert!(write_atomic(&dangling, b"{}").is_err());
        assert!(!dir.path().join("new-file").exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn the_write_command_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        write_atomic_through_link(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn refuses_directories_and_missing_parents() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert_eq!(err.code(), "STATE_TARGET_IS_DIRECTORY");
        let err = write_atomic(&dir.path().join("no/such/file"), b"x").unwrap_err();
        assert_eq!(err.code(), "STATE_NO_DIRECTORY");
    }

    #[test]
    fn a_dropped_stage_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        fs::write(&path, b"old").unwrap();
        let staged = stage(&path, b"new").unwrap();
        assert_eq!(staged.target(), path);
        drop(staged);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_write_sweeps_what_a_killed_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let left = dir
            .path()
            .join(temp::name(std::ffi::OsStr::new("p.json"), dead, 3));
        fs::write(&left, b"{\"half").unwrap();
        let old = std::time::SystemTime::now() - temp::DEAD_GRACE * 2;
        File::options()
            .write(true)
            .open(&left)
            .unwrap()
            .set_modified(old)
            .unwrap();
        write_atomic(&path, b"new").unwrap();
        assert!(!left.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
