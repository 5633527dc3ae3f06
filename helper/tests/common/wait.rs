//! Waiting for something a test can observe (a file appearing, a process
//! ending), always with a deadline, never a fixed sleep that hopes the
//! moment has passed.

use std::time::{Duration, Instant};

/// Polls until `cond` holds, for at most `limit`; says whether it held.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// Whether process `pid` has ended: gone, or a zombie that nobody has
/// reaped yet (an orphan's new parent, such as a container's pid 1, may
/// never reap it). The process is no child of the test, so this looks:
/// at `/proc/<pid>/stat` on Linux, with `kill(pid, 0)` elsewhere.
pub fn ended(pid: i32) -> bool {
    if cfg!(target_os = "linux") {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return true;
        };
        // `pid (comm) S …`: the state follows the last `)`.
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        state.starts_with('Z') || state.starts_with('X')
    } else {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err()
    }
}

/// Reads the pid a command under test wrote to `file`, waiting (at most
/// `limit`) for the file to hold one.
pub fn pid_in(file: &std::path::Path, limit: Duration) -> Option<i32> {
    let mut pid = None;
    wait_until(limit, || {
        pid = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.trim().parse().ok());
        pid.is_some()
    });
    pid
}
