//! What stops a command's process group when the helper itself is killed
//! with SIGKILL (no handler runs, so the helper cannot stop it then): a
//! small `sh` of its own process group that waits on a pipe only the helper
//! holds. The helper writes one line when the command is over, and the
//! watchdog exits quietly; when the helper dies instead, the kernel closes
//! the pipe, `read` meets end of file, and the watchdog sends SIGKILL to
//! the command's group.
//!
//! It costs one `sh` per command, so only callers that promise "nothing of
//! the command outlives this call" ask for it (`trek`'s Verify, checkpoint
//! and criteria), not `voyage-helper run`, whose overhead is benchmarked
//! against `bash -c true`.

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// A running watchdog of one process group.
#[derive(Debug)]
pub struct Watchdog {
    child: Child,
    /// Our end of the pipe; dropped (closed) only when the helper is done.
    line: io::PipeWriter,
}

/// The script: end of file on stdin (the helper died) stops the group.
const SCRIPT: &str = r#"read -r _ || kill -s KILL -- "-$1" 2>/dev/null"#;

impl Watchdog {
    /// Starts the watchdog of the process group `pgid`.
    pub fn start(pgid: i32) -> io::Result<Self> {
        let (reader, line) = io::pipe()?;
        let child = Command::new("sh")
            .args(["-c", SCRIPT, "voyage-watchdog", &pgid.to_string()])
            .stdin(reader)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a signal to the command's group, or to ours
            // from a terminal, must not stop it before its work is done.
            .process_group(0)
            .spawn()?;
        Ok(Self { child, line })
    }

    /// The command is over: the watchdog leaves without stopping anything.
    pub fn dismiss(mut self) {
        let _ = self.line.write_all(b"done\n");
        drop(self.line);
        let _ = self.child.wait();
    }
}
