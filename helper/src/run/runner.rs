//! Running one command to completion, a timeout or an interrupt.
//!
//! Three helper threads feed one channel that the calling thread waits on
//! with a deadline (no polling):
//!
//! - the *copier* reads the command's merged stdout+stderr from a pipe,
//!   writes it to the log and tallies lines and tail as it goes;
//! - the *waiter* blocks until the group leader exits (without reaping it);
//! - the *signal watcher* reports SIGINT, SIGTERM and SIGHUP sent to us.
//!
//! However the run ends, the command's process group is stopped the same
//! way: SIGTERM, then up to [`GRACE`] for its members to close the output
//! pipe, then SIGKILL. That also stops what a finished command left running
//! in the background. A process that escaped the group (`setsid`) and still
//! holds the pipe is not waited for beyond [`DRAIN`]; what it writes later
//! never reaches the log, because the tally and the log are read under one
//! lock and the copier stops writing once the report is taken.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use super::tally::LineTally;
use crate::proc::{Group, GroupLeader, Signal, signal_name};

/// How long the group gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long to wait for the output pipe to close after SIGKILL.
pub const DRAIN: Duration = Duration::from_millis(500);
/// Read size of the copier.
const CHUNK: usize = 128 * 1024;

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The command exited by itself with this shell-style code.
    Exited(i32),
    /// The deadline passed; the code the leader died with.
    TimedOut(i32),
    /// We were sent a signal (named, e.g. `SIGTERM`); the code the leader
    /// died with.
    Interrupted { signal: String, code: i32 },
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub ending: Ending,
    pub duration: Duration,
    pub lines: u64,
    pub tail: Option<String>,
}

enum Event {
    /// The leader exited; `Some` carries the code where the wait reaped it.
    Exited(Option<i32>),
    OutputClosed,
    Signal(i32),
}

/// The log and the tally, updated together so that a report taken under the
/// lock describes exactly what the log holds.
struct Sink {
    log: Option<File>,
    tally: LineTally,
}

/// Runs `bash -c <command>` in `cwd` with stdin from `/dev/null`, its output
/// copied to `log`, for at most `timeout`.
pub fn run(
    command: &OsStr,
    cwd: &std::path::Path,
    timeout: Duration,
    log: File,
) -> io::Result<Outcome> {
    // Watch for signals before the child exists, so none slips between.
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let signals_handle = signals.handle();

    let (reader, writer) = io::pipe()?;
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    let spawned = GroupLeader::spawn(&mut cmd);
    // Our copies of the pipe's write end live in `cmd`; drop them now or the
    // copier would never see end of file.
    drop(cmd);
    let leader = spawned?;
    let start = Instant::now();
    let group = leader.group();

    let (tx, rx) = mpsc::channel();
    let sink = Arc::new(Mutex::new(Sink {
        log: Some(log),
        tally: LineTally::new(),
    }));
    spawn_copier(reader, Arc::clone(&sink), tx.clone())?;
    spawn_waiter(group, tx.clone())?;
    {
        let tx = tx.clone();
        thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    if tx.send(Event::Signal(signal)).is_err() {
                        break;
                    }
                }
            })?;
    }
    drop(tx);

    let deadline = start + timeout;
    let mut waits = Waits::default();
    let first = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Exited(code)) => {
                waits.exited = Some(code);
                break None;
            }
            Ok(Event::OutputClosed) => waits.output_closed = true,
            Ok(Event::Signal(signal)) => break Some(First::Signal(signal)),
            Err(RecvTimeoutError::Timeout) => break Some(First::Deadline),
            Err(RecvTimeoutError::Disconnected) => break None,
        }
    };

    stop_group(group, &rx, &mut waits);
    signals_handle.close();

    let code = leader.reap(waits.exited.flatten())?;
    let duration = start.elapsed();
    let ending = match first {
        None => Ending::Exited(code),
        Some(First::Deadline) => Ending::TimedOut(code),
        Some(First::Signal(signal)) => Ending::Interrupted {
            signal: signal_name(signal),
            code,
        },
    };
    // Take the report and close the log under the lock: anything a stray
    // process writes from now on is dropped.
    let mut sink = sink.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(mut log) = sink.log.take() {
        let _ = log.flush();
    }
    Ok(Outcome {
        ending,
        duration,
        lines: sink.tally.lines(),
        tail: sink.tally.tail(),
    })
}

enum First {
    Deadline,
    Signal(i32),
}

#[derive(Default)]
struct Waits {
    /// `Some` once the leader exited (with the reaped code, if any).
    exited: Option<Option<i32>>,
    output_closed: bool,
}

/// SIGTERM, grace, SIGKILL, then a bounded drain. A second signal to us
/// during the grace skips the rest of it.
fn stop_group(group: Group, rx: &Receiver<Event>, waits: &mut Waits) {
    group.signal(Signal::SIGTERM);
    wait_until(rx, waits, Instant::now() + GRACE, |w| {
        w.exited.is_some() && w.output_closed
    });
    group.signal(Signal::SIGKILL);
    // The leader is certain to go after SIGKILL; the pipe only if nothing
    // outside the group holds it.
    let drain_end = Instant::now() + DRAIN;
    wait_until(rx, waits, drain_end, |w| {
        w.exited.is_some() && w.output_closed
    });
    if waits.exited.is_none() {
        // Still not gone after SIGKILL (e.g. stuck in the kernel): wait for
        // it without a bound rather than report a live process as done.
        while let Ok(event) = rx.recv() {
            note(waits, event);
            if waits.exited.is_some() {
                break;
            }
        }
    }
}

fn wait_until(
    rx: &Receiver<Event>,
    waits: &mut Waits,
    until: Instant,
    done: impl Fn(&Waits) -> bool,
) {
    while !done(waits) {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Signal(_)) => return,
            Ok(event) => note(waits, event),
            Err(_) => return,
        }
    }
}

fn note(waits: &mut Waits, event: Event) {
    match event {
        Event::Exited(code) => waits.exited = Some(code),
        Event::OutputClosed => waits.output_closed = true,
        Event::Signal(_) => {}
    }
}

fn spawn_copier(
    mut reader: io::PipeReader,
    sink: Arc<Mutex<Sink>>,
    tx: Sender<Event>,
) -> io::Result<()> {
    thread::Builder::new()
        .name("copier".into())
        .spawn(move || {
            let mut buf = vec![0u8; CHUNK];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let chunk = buf.get(..n).unwrap_or_default();
                let mut sink = sink.lock().unwrap_or_else(PoisonError::into_inner);
                let Some(log) = sink.log.as_mut() else {
                    // The report was taken: stop reading, so late writers get
                    // EPIPE instead of filling a log nobody will read.
                    return;
                };
                // A full disk must not stop the command: keep counting what it
                // printed even when the log cannot take it.
                let _ = log.write_all(chunk);
                sink.tally.feed(chunk);
            }
            let _ = tx.send(Event::OutputClosed);
        })?;
    Ok(())
}

fn spawn_waiter(group: Group, tx: Sender<Event>) -> io::Result<()> {
    thread::Builder::new()
        .name("waiter".into())
        .spawn(move || {
            // An error here means the leader is gone already (ECHILD): report it
            // as exited and let the reap tell the code.
            let code = group.wait_leader_exited().unwrap_or(None);
            let _ = tx.send(Event::Exited(code));
        })?;
    Ok(())
}
