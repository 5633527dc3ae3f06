//! Opening a file of Voyage's own (a stats file, a command's log) for
//! writing without following a final symbolic link. A link planted where
//! such a file lives would otherwise turn an append of JSON, or the
//! truncation of a new log, into a write of whatever it points to; with
//! `O_NOFOLLOW` the kernel refuses the open instead, in the same call, so
//! no link can slip in between a check and the open. The atomic writer
//! ([`crate::atomic_file`]) holds the same rule by renaming.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens `path` with `options`, refusing a symbolic link at `path` itself
/// with an error that says what it is and how to clear it.
pub fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    options
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            if e.raw_os_error() == Some(nix::libc::ELOOP) && is_link {
                io::Error::other(format!(
                    "{} is a symbolic link; Voyage never writes its own files through a link. If you did not make it on purpose, remove it (rm {}) and run the call again",
                    path.display(),
                    path.display()
                ))
            } else {
                e
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("stats.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = open(&link, OpenOptions::new().append(true).create(true)).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        let err = open(
            &link,
            OpenOptions::new().write(true).create(true).truncate(true),
        )
        .unwrap_err();
        assert!(err.to_string().contains("rm "), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn a_plain_file_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut file = open(&path, OpenOptions::new().append(true).create(true)).unwrap();
        io::Write::write_all(&mut file, b"x").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"x");
    }
}
