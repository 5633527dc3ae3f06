//! Appending one whole line to a JSONL file that other processes append to
//! at the same time (docs/maintainer/conventions.md: whole lines under a file
//! lock, with the standard library's `File::lock`).
//!
//! The file is opened for appending, locked exclusively with
//! `std::fs::File::lock` (`flock(2)`), and the line goes out in one
//! `write`. If the file does not end with a newline (someone's crashed
//! writer, a hand edit), one is written first, so the new record is always a
//! line of its own. The lock is given up when the file is closed.
//!
//! A writer never waits long: when the lock is busy, a helper thread waits
//! for it while the caller waits at most [`LOCK_WAIT`]; then the append is
//! given up (stats never block the run that records them).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use thiserror::Error;

use super::code;

/// The longest a writer waits for the lock.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, Error)]
pub(super) enum AppendError {
    #[error("cannot open {path}: {source}")]
    Open { path: String, source: io::Error },
    #[error("{path} stayed locked by another writer for {secs} s", secs = LOCK_WAIT.as_secs())]
    LockTimeout { path: String },
    #[error("cannot lock {path}: {source}")]
    Lock { path: String, source: io::Error },
    #[error("cannot append to {path}: {source}")]
    Write { path: String, source: io::Error },
}

impl crate::problem::Coded for AppendError {
    fn code(&self) -> &'static str {
        match self {
            Self::Open { .. } => code::STATS_UNWRITABLE,
            Self::LockTimeout { .. } => code::STATS_LOCK_TIMEOUT,
            Self::Lock { .. } => code::STATS_LOCK_FAILED,
            Self::Write { .. } => code::STATS_WRITE_FAILED,
        }
    }
}

/// Appends `line` (without its newline) to `path` as one line.
pub(super) fn append_line(path: &Path, line: &[u8], wait: Duration) -> Result<(), AppendError> {
    let name = || path.display().to_string();
    let file = crate::own_file::open(
        path,
        OpenOptions::new().read(true).append(true).create(true),
    )
    .map_err(|source| AppendError::Open {
        path: name(),
        source,
    })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => lock_within(&file, wait, path)?,
        Err(TryLockError::Error(source)) => {
            return Err(AppendError::Lock {
                path: name(),
                source,
            });
        }
    }
    let write_err = |source| AppendError::Write {
        path: name(),
        source,
    };
    let len = file.metadata().map_err(write_err)?.len();
    let mut buf = Vec::with_capacity(line.len() + 2);
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1).map_err(write_err)?;
        if last != *b"\n" {
            buf.push(b'\n');
        }
    }
    buf.extend_from_slice(line);
    buf.push(b'\n');
    (&file).write_all(&buf).map_err(write_err)?;
    crate::fault::point("jsonl:appended");
    Ok(())
}

/// Waits for the lock on `file` for at most `wait`. The wait happens on a
/// thread holding a duplicate descriptor (the lock belongs to the open file
/// both share); if the time runs out that thread is left behind, and the
/// process ending (or both descriptors closing) frees everything.
fn lock_within(file: &File, wait: Duration, path: &Path) -> Result<(), AppendError> {
    let name = || path.display().to_string();
    let clone = file.try_clone().map_err(|source| AppendError::Lock {
        path: name(),
        source,
    })?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let result = clone.lock();
        let _ = tx.send(result);
        // `clone` closes here; the lock stays with the original descriptor.
    });
    match rx.recv_timeout(wait) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(source)) => Err(AppendError::Lock {
            path: name(),
            source,
        }),
        Err(_) => Err(AppendError::LockTimeout { path: name() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Coded;

    #[test]
    fn appends_whole_lines_and_repairs_a_missing_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k-stats.jsonl");
        append_line(&path, b"{\"a\":1}", LOCK_WAIT).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"broken\"")
            .unwrap();
        append_line(&path, b"{\"b\":2}", LOCK_WAIT).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"broken\"\n{\"b\":2}\n"
        );
    }

    #[test]
    fn gives_up_when_the_lock_stays_busy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k-stats.jsonl");
        let holder = File::create(&path).unwrap();
        holder.lock().unwrap();
        let err = append_line(&path, b"{}", Duration::from_millis(100)).unwrap_err();
        assert_eq!(err.code(), "STATS_LOCK_TIMEOUT");
        drop(holder);
        append_line(&path, b"{}", LOCK_WAIT).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    }
}
