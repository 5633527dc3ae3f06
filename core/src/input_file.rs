//! The one reader of files that come from outside: plans, briefs, progress
//! and state files, profiles, workflows and the logs `verdict` reads; and
//! of stdin, for the commands that take their input there.
//!
//! Such a path may name anything: a directory, a FIFO nobody writes to,
//! `/dev/zero`, a gigabyte. A plain `fs::read` blocks forever on the FIFO
//! (in `open(2)` itself) and grows without bound on the device, so every
//! reader of outside files goes through here instead:
//!
//! - the file is opened with `O_NONBLOCK`, so opening a FIFO returns at once
//!   (the flag changes nothing for a regular file);
//! - what was opened is checked, not the path (`fstat` of the open file), so
//!   a swap of the path between a check and the open cannot fool it;
//! - anything but a regular file is refused with what it is;
//! - at most the caller's limit is read (one byte more tells an over-size
//!   file), and a file whose size already says so is refused unread.
//!
//! The error is typed; each area maps it to its own coded problem with
//! [`InputError::code`], so the codes stay in the areas' `code.rs`.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What a path names when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    Fifo,
    CharDevice,
    BlockDevice,
    Socket,
    Other,
}

impl Kind {
    fn of(file_type: std::fs::FileType) -> Option<Self> {
        Some(if file_type.is_file() {
            return None;
        } else if file_type.is_dir() {
            Self::Directory
        } else if file_type.is_fifo() {
            Self::Fifo
        } else if file_type.is_char_device() {
            Self::CharDevice
        } else if file_type.is_block_device() {
            Self::BlockDevice
        } else if file_type.is_socket() {
            Self::Socket
        } else {
            Self::Other
        })
    }

    /// `a directory`, `a FIFO`, … as a message says it.
    pub fn words(self) -> &'static str {
        match self {
            Self::Directory => "a directory",
            Self::Fifo => "a FIFO",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Socket => "a socket",
            Self::Other => "not a regular file",
        }
    }
}

/// Why an outside file was not read.
#[derive(Debug)]
pub enum InputError {
    /// Nothing at the path.
    NotFound(io::Error),
    /// Opening or reading failed (permissions, I/O error).
    Unreadable(io::Error),
    /// The path names something other than a regular file.
    NotRegular(Kind),
    /// The file has more than `limit` bytes.
    TooLarge { limit: u64 },
}

/// The codes one area gives the ways a read can fail.
#[derive(Debug, Clone, Copy)]
pub struct Codes {
    /// Missing, or cannot be opened or read.
    pub unreadable: &'static str,
    /// A directory, FIFO, device or socket.
    pub not_a_file: &'static str,
    /// Larger than the area reads.
    pub too_large: &'static str,
}

impl InputError {
    /// The area's code for this error.
    pub fn code(&self, codes: Codes) -> &'static str {
        match self {
            Self::NotFound(_) | Self::Unreadable(_) => codes.unreadable,
            Self::NotRegular(_) => codes.not_a_file,
            Self::TooLarge { .. } => codes.too_large,
        }
    }
}

impl fmt::Display for InputError {
    /// The reason alone (`is a directory`, `larger than N bytes`, the
    /// system's message), for the area to put after the file's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound(e) | Self::Unreadable(e) => write!(f, "{e}"),
            Self::NotRegular(Kind::Other) => f.write_str("is not a regular file"),
            Self::NotRegular(Kind::Directory) => f.write_str("is a directory"),
            Self::NotRegular(kind) => write!(f, "is {}, not a regular file", kind.words()),
            Self::TooLarge { limit } => write!(f, "larger than {limit} bytes"),
        }
    }
}

impl std::error::Error for InputError {}

/// What `path` names, looked up without opening it (so a FIFO is never
/// waited on): `Ok` for a regular file, else the error [`read`] would give
/// for what is there. For a caller that tells "no such file" from "not a
/// file" before it reads; the read checks again what it opened.
pub fn check(path: &Path) -> Result<(), InputError> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            Kind::of(meta.file_type()).map_or(Ok(()), |kind| Err(InputError::NotRegular(kind)))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(InputError::NotFound(e)),
        Err(e) => Err(InputError::Unreadable(e)),
    }
}

/// Opens `path` for reading if it is a regular file; never blocks.
pub fn open(path: &Path) -> Result<File, InputError> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(InputError::NotFound(e)),
        Err(e) => {
            // A socket cannot be opened at all (ENXIO); say what it is.
            return Err(match check(path) {
                Err(not_regular @ InputError::NotRegular(_)) => not_regular,
                _ => InputError::Unreadable(e),
            });
        }
    };
    let meta = file.metadata().map_err(InputError::Unreadable)?;
    match Kind::of(meta.file_type()) {
        Some(kind) => Err(InputError::NotRegular(kind)),
        None => Ok(file),
    }
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = open(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > limit {
        return Err(InputError::TooLarge { limit });
    }
    let mut bytes = Vec::new();
    // The size can grow between the check and the read; the cap holds anyway.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(InputError::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge { limit });
    }
    Ok(bytes)
}

/// The text of the regular file at `path`, at most `limit` bytes; text that
/// is not UTF-8 is an [`InputError::Unreadable`] (as `fs::read_to_string`).
pub fn read_to_string(path: &Path, limit: u64) -> Result<String, InputError> {
    String::from_utf8(read(path, limit)?).map_err(|_| {
        InputError::Unreadable(io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// All of stdin, for the commands that read their input there (`run`'s
/// labels, `verdict`'s block): read to end of file before anything else.
/// A read error counts as empty input, which each reader reports in its
/// own words (`missing command:`).
pub fn read_stdin() -> Vec<u8> {
    use std::io::Read;
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file_and_what_is_too_large() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read(dir.path(), 10),
            Err(InputError::NotRegular(Kind::Directory))
        ));
        assert!(matches!(
            read(Path::new("/dev/zero"), 10),
            Err(InputError::NotRegular(Kind::CharDevice))
        ));
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = read(&fifo, 10).unwrap_err();
        assert_eq!(e.to_string(), "is a FIFO, not a regular file");
        // Looked at without opening, each says the same.
        assert!(matches!(
            check(&fifo),
            Err(InputError::NotRegular(Kind::Fifo))
        ));
        assert!(matches!(
            check(dir.path()),
            Err(InputError::NotRegular(Kind::Directory))
        ));
        assert!(matches!(
            check(&dir.path().join("none")),
            Err(InputError::NotFound(_))
        ));
        let file = dir.path().join("f");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read(&file, 10).unwrap(), b"0123456789");
        assert!(check(&file).is_ok());
        let e = read(&file, 9).unwrap_err();
        assert_eq!(e.to_string(), "larger than 9 bytes");
        assert!(matches!(
            read(&dir.path().join("none"), 9),
            Err(InputError::NotFound(_))
        ));
        std::fs::write(&file, b"\xff").unwrap();
        assert!(matches!(
            read_to_string(&file, 9),
            Err(InputError::Unreadable(_))
        ));
    }
}
