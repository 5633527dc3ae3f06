//! Unix process groups: spawn a leader, signal its group, wait for it.

use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};

use nix::errno::Errno;
use nix::sys::signal::killpg;
use nix::unistd::Pid;

pub use nix::sys::signal::Signal;

/// A child started as the leader of a new process group.
#[derive(Debug)]
pub struct GroupLeader {
    child: Child,
    pgid: Pid,
}

impl GroupLeader {
    /// Spawns `command` in a new process group whose id is the child's pid.
    ///
    /// The caller must drop `command` afterwards if it holds pipe ends that
    /// the parent should not keep open.
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        let child = command.process_group(0).spawn()?;
        let raw = i32::try_from(child.id())
            .map_err(|_| io::Error::other("child pid does not fit in a pid_t"))?;
        Ok(Self {
            child,
            pgid: Pid::from_raw(raw),
        })
    }

    /// The leader's pid, which is also the group id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A handle that can signal the group from another thread.
    pub fn group(&self) -> Group {
        Group { pgid: self.pgid }
    }

    /// Reaps the leader and returns its shell-style exit code: the code, or
    /// 128 + the signal that killed it. `already` is the code a reaping
    /// [`Group::wait_leader_exited`] returned, if any.
    pub fn reap(mut self, already: Option<i32>) -> io::Result<i32> {
        match already {
            Some(code) => Ok(code),
            None => self.child.wait().map(shell_code),
        }
    }
}

/// The process group of a [`GroupLeader`], safe to share with other threads.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pgid: Pid,
}

impl Group {
    /// Sends `signal` to every process in the group. A group that is already
    /// gone is not an error.
    pub fn signal(self, signal: Signal) {
        match killpg(self.pgid, signal) {
            Ok(()) | Err(Errno::ESRCH) => {}
            // EPERM would mean a member changed credentials (a setuid program);
            // there is nothing more we may do to it.
            Err(_) => {}
        }
    }

    /// Blocks until the leader has exited.
    ///
    /// On Linux the leader is not reaped (`waitid` with `WNOWAIT`): while it
    /// stays a zombie its pid cannot be reused, so signals sent to the group
    /// afterwards still reach only processes it started; `None` is returned
    /// and [`GroupLeader::reap`] collects the status. Elsewhere the wait
    /// reaps, and the shell-style exit code is returned here.
    pub fn wait_leader_exited(self) -> io::Result<Option<i32>> {
        loop {
            match wait_leader(self.pgid) {
                Err(Errno::EINTR) => {}
                Err(errno) => return Err(io::Error::from(errno)),
                Ok(code) => return Ok(code),
            }
        }
    }
}

#[cfg(all(target_os = "linux", not(target_env = "uclibc")))]
fn wait_leader(pid: Pid) -> nix::Result<Option<i32>> {
    use nix::sys::wait::{Id, WaitPidFlag, waitid};
    waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT).map(|_| None)
}

#[cfg(not(all(target_os = "linux", not(target_env = "uclibc"))))]
fn wait_leader(pid: Pid) -> nix::Result<Option<i32>> {
    use nix::sys::wait::{WaitStatus, waitpid};
    match waitpid(pid, None)? {
        WaitStatus::Exited(_, code) => Ok(Some(code)),
        WaitStatus::Signaled(_, signal, _) => Ok(Some(128 + signal as i32)),
        _ => Ok(Some(255)),
    }
}

/// The exit code a shell would report: the code, or 128 + the signal.
fn shell_code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(255)
}

/// `SIGTERM`-style name of a signal number, for messages.
pub fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {signal}"))
}
