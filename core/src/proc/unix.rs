//! Unix process groups: spawn a leader, signal its group, reap its members.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::errno::Errno;
use nix::sys::signal::killpg;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

pub use nix::sys::signal::Signal;

/// A child started as the leader of a new process group.
#[derive(Debug)]
pub struct GroupLeader {
    pid: Pid,
}

impl GroupLeader {
    /// Spawns `command` in a new process group whose id is the child's pid.
    ///
    /// The caller must drop `command` afterwards if it holds pipe ends that
    /// the parent should not keep open. The child is reaped through
    /// [`Group::reap_exited`], never through `std::process::Child`.
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        become_subreaper();
        let child = command.process_group(0).spawn()?;
        let raw = i32::try_from(child.id())
            .map_err(|_| io::Error::other("child pid does not fit in a pid_t"))?;
        // Dropping a `Child` neither waits nor kills; the group reaper owns it.
        drop(child);
        Ok(Self {
            pid: Pid::from_raw(raw),
        })
    }

    /// A handle on the group, safe to share with other threads.
    pub fn group(&self) -> Group {
        Group { pgid: self.pid }
    }
}

/// Makes orphaned descendants our children instead of init's (Linux), so
/// that [`Group::reap_exited`] can wait for every member of a group and not only
/// for the leader. Elsewhere orphans go to init and only the leader is
/// waited for.
fn become_subreaper() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // Failure leaves the weaker guarantee described above.
        let _ = nix::sys::prctl::set_child_subreaper(true);
    }
}

/// The process group of a [`GroupLeader`].
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pgid: Pid,
}

impl Group {
    /// The group's id, which is its leader's pid.
    pub fn id(self) -> i32 {
        self.pgid.as_raw()
    }

    /// Sends `signal` to every process in the group. A group that is already
    /// gone is not an error.
    pub fn signal(self, signal: Signal) {
        // ESRCH: nobody left. EPERM: a member changed credentials (a setuid
        // program); there is nothing more we may do to it.
        let _ = killpg(self.pgid, signal);
    }

    /// Reaps the members that have exited, without blocking, and calls
    /// `on_leader` with the leader's shell-style exit code (the code, or
    /// 128 + signal) when it is among them. Returns `true` once no member is
    /// left among our children (with the subreaper, that is every member).
    pub fn reap_exited(self, mut on_leader: impl FnMut(i32)) -> bool {
        let members = Pid::from_raw(-self.pgid.as_raw());
        loop {
            match waitpid(members, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => return false,
                Ok(WaitStatus::Exited(pid, code)) if pid == self.pgid => on_leader(code),
                Ok(WaitStatus::Signaled(pid, signal, _)) if pid == self.pgid => {
                    on_leader(128 + signal as i32);
                }
                Ok(_) | Err(Errno::EINTR) => {}
                // ECHILD: no member is left. Anything else cannot get better
                // by asking again.
                Err(_) => return true,
            }
        }
    }
}

/// `SIGTERM`-style name of a signal number, for messages.
pub fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {signal}"))
}
