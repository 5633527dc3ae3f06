//! Faults on demand, for the tests that prove the helper survives them: a
//! crash at a named point of a call (tests/tests/crash.rs, issue 26) and a
//! panic, a failed allocation or an abort in the PreToolUse hook
//! (tests/tests/hook_panic.rs).
//!
//! Everything here is compiled only with the `fault-injection` feature,
//! which no shipped build enables: without it [`point`] and [`fail_at`]
//! are empty inline functions, and the calls to them compile away.
//!
//! With the feature, two variables of the process's environment decide:
//!
//! - `VOYAGE_FAULT=kill:N`: at the N-th point this process reaches
//!   (counting from 1), it sends itself SIGKILL. Nothing runs after that:
//!   no destructor, no buffered write, no `Drop` removing a temporary file,
//!   as when the user's session is killed or the machine stops.
//! - `VOYAGE_FAULT_TRACE=FILE`: every point reached appends its name as one
//!   line to FILE (before a kill at that point), so a test learns how many
//!   points a call has and which one a kill landed on.
//!
//! `VOYAGE_FAULT=hook` and `VOYAGE_FAULT=scan` name the hook's places of
//! failure instead ([`fail_at`]): a panic there; `alloc:hook` and
//! `alloc:scan` an allocation that fails there; `abort:hook` and
//! `abort:scan` an abort there (a fatal signal, as in a crash).

/// A kill point named `name` (`atomic:before-rename`, `git:exit`, …): with
/// the `fault-injection` feature, counted, traced and perhaps the end of the
/// process; without it, nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn point(_name: &'static str) {}

/// Panics when `VOYAGE_FAULT` names `place`, makes an allocation fail
/// when it is `alloc:PLACE`, aborts when it is `abort:PLACE`; without the
/// feature, nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn fail_at(_place: &'static str) {}

#[cfg(feature = "fault-injection")]
pub use injected::{fail_at, point};

#[cfg(feature = "fault-injection")]
mod injected {
    use std::io::Write;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    use nix::sys::signal::{Signal, raise};

    /// The points this process has reached.
    static REACHED: AtomicU64 = AtomicU64::new(0);

    /// The point to die at, read once: `VOYAGE_FAULT=kill:N`.
    fn kill_at() -> Option<u64> {
        static AT: OnceLock<Option<u64>> = OnceLock::new();
        *AT.get_or_init(|| {
            std::env::var("VOYAGE_FAULT")
                .ok()?
                .strip_prefix("kill:")?
                .parse()
                .ok()
        })
    }

    pub fn point(name: &'static str) {
        let n = REACHED.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(trace) = std::env::var_os("VOYAGE_FAULT_TRACE") {
            // One write of a whole line on an O_APPEND file: lines from
            // several processes never interleave.
            let line = format!("{name}\n");
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(trace)
                .and_then(|mut file| file.write_all(line.as_bytes()));
        }
        if kill_at() == Some(n) {
            let _ = raise(Signal::SIGKILL);
        }
    }

    pub fn fail_at(place: &'static str) {
        let Ok(fault) = std::env::var("VOYAGE_FAULT") else {
            return;
        };
        if fault == place {
            panic!("fault injected at {place}");
        }
        if fault.strip_prefix("alloc:") == Some(place) {
            // More than any machine has: the allocator returns null.
            std::hint::black_box(Vec::<u8>::with_capacity(1 << 62));
        }
        if fault.strip_prefix("abort:") == Some(place) {
            std::process::abort();
        }
    }
}
