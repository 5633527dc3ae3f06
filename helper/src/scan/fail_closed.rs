//! The PreToolUse hook's last word: whatever stops it before it answers
//! (a panic, an allocation that fails, a crash), in any thread, the call is
//! denied, never let through.
//!
//! A hook that dies without answering is a hook error to Claude Code, which
//! then runs the call unchecked (docs/maintainer/hooks-protocol.md §2). The
//! usual way to die is memory: under an address-space limit (`ulimit -v`, a
//! container's), an allocation that fails makes Rust abort, and a stack too
//! small for a deeply nested command (the judge takes a smaller one when
//! the limit leaves no room for its usual one) ends in SIGSEGV. So, once
//! [`arm`] has run (the hook calls it first):
//!
//! - the process's allocator ([`Allocator`], the binary's global one) turns
//!   a failed allocation into a denial instead of returning null, which
//!   would abort;
//! - SIGSEGV, SIGBUS, SIGABRT, SIGILL and SIGFPE are caught (on the
//!   alternate signal stack Rust gives every thread it starts, so a stack
//!   overflow is caught too) and denied the same way;
//! - the panic hook of [`super::hook`] ends here as well.
//!
//! Each writes a reply rendered at compile time (nothing to allocate, no
//! lock to take): the deny JSON on stdout and its reason on stderr, then
//! `_exit(2)`, Claude Code's blocking error, which blocks even if stdout
//! was already written to. The first thread to get here answers; any other
//! waits for the process to end, so that two answers never interleave.

// A global allocator and a signal handler are unsafe by nature; the unsafe
// here is confined to handing calls on to `System` and to libc.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

use super::hook::EXIT_BLOCKING_ERROR;

/// A denial rendered ahead of time: the reason, and the hook's deny reply
/// carrying it (the reason needs no JSON escaping, which a test checks).
pub(crate) struct Denial {
    pub(crate) reason: &'static str,
    json: &'static str,
}

/// `Denial` for a reason given as a string literal (`concat!` takes
/// literals only, and the reply must be whole at compile time).
macro_rules! denial {
    ($reason:literal) => {
        Denial {
            reason: $reason,
            json: concat!(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":""#,
                $reason,
                "\"}}\n"
            ),
        }
    };
}

/// An allocation failed: the check ran out of memory. Its advice is the
/// judge's for a check short of memory ([`voyage_judge::engine::SHORT_OF_MEMORY`],
/// which a test holds it to).
pub(crate) const OUT_OF_MEMORY: Denial = denial!(
    "voyage: blocked unscannable (Command that cannot be checked): `(this call)` - the check ran out of memory, so the call was not checked. Safer: Tell the user the denylist check has too little memory to run (an address-space limit such as `ulimit -v`, or a container's memory limit, on Claude Code); raise it, or let them run the command themselves."
);

/// A fatal signal: most likely a stack overflow on a deeply nested command
/// under a memory limit, possibly a fault of the check itself.
pub(crate) const CRASHED: Denial = denial!(
    "voyage: blocked unscannable (Command that cannot be checked): `(this call)` - the check crashed (out of stack or memory for this command, or an internal error), so the call was not checked. Safer: If the command nests deeply, split it into plain, separate steps; otherwise tell the user the denylist check crashed (an address-space limit such as `ulimit -v`, or a container's memory limit, on Claude Code may be too low), or let them run the command themselves."
);

/// A panic: the check failed with an internal error.
pub(crate) const PANICKED: Denial = denial!(
    "voyage: blocked unscannable: the denylist check failed with an internal error, so this call was not checked. Safer: retry it; if it is blocked again, split the command into simpler ones or run it yourself outside Claude Code."
);

/// The hook is running: failures are denials.
static ARMED: AtomicBool = AtomicBool::new(false);
/// A denial is being written; nobody else may write.
static ANSWERING: AtomicBool = AtomicBool::new(false);

/// Makes every failure from here on a denial: allocation failures, and the
/// fatal signals (whose handlers replace Rust's stack-overflow report).
pub(crate) fn arm() {
    ARMED.store(true, Ordering::SeqCst);
    let action = SigAction::new(
        SigHandler::Handler(on_fatal_signal),
        SaFlags::SA_ONSTACK,
        SigSet::empty(),
    );
    for signal in [
        Signal::SIGSEGV,
        Signal::SIGBUS,
        Signal::SIGABRT,
        Signal::SIGILL,
        Signal::SIGFPE,
    ] {
        // SAFETY: the handler only calls async-signal-safe functions
        // (atomics, write(2), pause(2), _exit(2)).
        let _ = unsafe { sigaction(signal, &action) };
    }
}

extern "C" fn on_fatal_signal(_: nix::libc::c_int) {
    deny_and_exit(&CRASHED);
}

/// Writes `denial` (the reply on stdout, the reason on stderr) and ends the
/// process with exit 2. Allocates nothing and takes no lock, so it may run
/// in a signal handler or with the heap exhausted.
pub(crate) fn deny_and_exit(denial: &Denial) -> ! {
    if ANSWERING.swap(true, Ordering::SeqCst) {
        // Another thread is answering and will end the process.
        loop {
            nix::unistd::pause();
        }
    }
    write_all(nix::libc::STDOUT_FILENO, denial.json.as_bytes());
    write_all(nix::libc::STDERR_FILENO, denial.reason.as_bytes());
    write_all(nix::libc::STDERR_FILENO, b"\n");
    // SAFETY: _exit(2) ends the process at once; it is async-signal-safe.
    unsafe { nix::libc::_exit(i32::from(EXIT_BLOCKING_ERROR)) }
}

/// write(2) until all of `bytes` is written or the descriptor fails.
pub(crate) fn write_all(fd: nix::libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length come from a live slice.
        let n = unsafe { nix::libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(0) => return,
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(_) if nix::errno::Errno::last() == nix::errno::Errno::EINTR => {}
            Err(_) => return,
        }
    }
}

/// The binary's allocator: the system's, except that while the hook runs
/// ([`arm`]) an allocation that fails denies the call instead of aborting.
pub struct Allocator;

impl Allocator {
    /// `ptr` as the allocator returns it: a null one (a failure) while the
    /// hook runs never returns.
    #[inline]
    fn checked(ptr: *mut u8) -> *mut u8 {
        if ptr.is_null() && ARMED.load(Ordering::Relaxed) {
            out_of_memory();
        }
        ptr
    }
}

#[cold]
fn out_of_memory() -> ! {
    deny_and_exit(&OUT_OF_MEMORY)
}

// SAFETY: every call is handed to `System` with its own arguments; only a
// null result is looked at.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::checked(unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::checked(unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::checked(unsafe { System.realloc(ptr, layout, new_size) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::hook::{Answer, render};

    #[test]
    fn the_replies_are_what_the_hook_would_render() {
        for denial in [OUT_OF_MEMORY, CRASHED, PANICKED] {
            let mut rendered = Vec::new();
            render(&Answer::Deny(denial.reason.to_owned()), &mut rendered).unwrap();
            assert_eq!(String::from_utf8(rendered).unwrap(), denial.json);
            assert!(denial.reason.starts_with("voyage: blocked unscannable"));
        }
    }

    #[test]
    fn out_of_memory_reads_as_the_judge_would_say_it() {
        let rule = voyage_judge::find("unscannable").unwrap();
        let finding = voyage_judge::finding::Finding::new(
            rule,
            "(this call)",
            "the check ran out of memory, so the call was not checked".into(),
            &[],
        )
        .advising(voyage_judge::engine::SHORT_OF_MEMORY);
        assert_eq!(
            OUT_OF_MEMORY.reason,
            format!("voyage: blocked {}", finding.one_line())
        );
    }
}
