//! Process spawning and signalling: the one owner of `Command::spawn`.
//!
//! Every command Voyage runs on a user's behalf is started here, as the leader
//! of a process group of its own, so that a timeout or an interrupt can stop
//! the whole tree it started (`sleep 300 &`, a nested `bash -c`, a test
//! runner's workers) and not only the direct child. The escalation is the one
//! nextest uses: SIGTERM to the group, a grace period, then SIGKILL to the
//! group.
//!
//! Waiting is done without reaping first (`waitid(WNOWAIT)` on Linux), so the
//! leader's pid, and with it the group id, cannot be recycled by the kernel
//! while we still signal the group.

mod unix;

pub use unix::{Group, GroupLeader, Signal, signal_name};
