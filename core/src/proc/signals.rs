//! Signals sent to the helper itself, turned into something a poll loop can
//! wait on: a wake-up socket that becomes readable on SIGCHLD, SIGINT,
//! SIGTERM and SIGHUP, and a record of which stopping signal came last.
//!
//! The handlers are installed before a command is spawned, so no signal can
//! slip in between, and removed again when the watch is dropped.

use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGTERM};

/// The signals that ask the helper to stop.
const STOPPING: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

pub struct SignalWatch {
    wake: UnixStream,
    stop: Arc<AtomicUsize>,
    ids: Vec<SigId>,
}

impl SignalWatch {
    pub fn install() -> io::Result<Self> {
        let (wake, wake_sender) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        let stop = Arc::new(AtomicUsize::new(0));
        let mut watch = Self {
            wake,
            stop: Arc::clone(&stop),
            ids: Vec::new(),
        };
        for signal in STOPPING {
            let number = usize::try_from(signal).unwrap_or_default();
            watch.ids.push(signal_hook::flag::register_usize(
                signal,
                Arc::clone(&stop),
                number,
            )?);
        }
        for signal in STOPPING.into_iter().chain([SIGCHLD]) {
            let sender = wake_sender.try_clone()?;
            watch
                .ids
                .push(signal_hook::low_level::pipe::register(signal, sender)?);
        }
        Ok(watch)
    }

    /// Readable when a watched signal has arrived since the last [`Self::drain`].
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }

    /// Empties the wake-up socket.
    pub fn drain(&mut self) {
        let mut buf = [0u8; 64];
        while matches!(self.wake.read(&mut buf), Ok(n) if n > 0) {}
    }

    /// The stopping signal received since the last call, if any.
    pub fn take_stop(&self) -> Option<i32> {
        match self.stop.swap(0, Ordering::SeqCst) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
