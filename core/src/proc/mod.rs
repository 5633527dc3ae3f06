//! Process spawning and signalling: the one owner of `Command::spawn`.
//!
//! Every command Voyage runs on a user's behalf is started here, as the leader
//! of a process group of its own, so that a timeout or an interrupt can stop
//! the whole tree it started (`sleep 300 &`, a nested `bash -c`, a test
//! runner's workers) and not only the direct child. The escalation is the one
//! nextest uses: SIGTERM to the group, a grace period, then SIGKILL to the
//! group.
//!
//! On Linux the helper makes itself a child subreaper, so that whatever the
//! command leaves behind becomes our child when its parent dies; waiting for
//! the group (`waitpid(-pgid)`, driven by SIGCHLD) then covers every member,
//! and "no process of the group survives" is something we observe rather
//! than hope for.

mod escaped;
mod signals;
pub mod supervise;
mod unix;
mod watchdog;

pub use signals::SignalWatch;
pub use unix::{Group, GroupLeader, Signal, signal_name};
pub use watchdog::Watchdog;
