//! Running one command to completion, a timeout or an interrupt.
//!
//! Three helper threads feed one channel that the calling thread waits on
//! with a deadline (no polling):
//!
//! - the *copier* reads the command's merged stdout+stderr from a pipe,
//!   writes it to the log and tallies lines and tail as it goes;
//! - the *reaper* reaps members of the command's process group as they exit
//!   (the helper is a child subreaper, so orphans come to it too), reports
//!   the leader's exit code, and reports when the group is empty;
//! - the *signal watcher* reports SIGINT, SIGTERM and SIGHUP sent to us.
//!
//! However the run ends, the group is stopped the same way: SIGTERM, up to
//! [`GRACE`] for every member to exit, then SIGKILL. That also stops what a
//! finished command left running in the background. A process that escaped
//! the group (`setsid`) and still holds the pipe is not waited for beyond
//! [`DRAIN`]; what it writes later never reaches the log, because the tally
//! and the log are read under one lock and the copier stops writing once
//! the report is taken.

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
/// How long to wait for the group to be gone after SIGKILL (a process stuck
/// in the kernel cannot die sooner; we report rather than hang).
pub const KILL_WAIT: Duration = Duration::from_secs(5);
/// How long to wait for the output pipe to close once the group is gone.
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
    /// The leader was reaped, with its shell-style exit code.
    LeaderExited(i32),
    /// No member of the group is left.
    GroupGone,
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
    spawn_reaper(group, tx.clone())?;
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
            Ok(Event::Signal(signal)) => break Some(First::Signal(signal)),
            Ok(event) => {
                note(&mut waits, event);
                if waits.leader.is_some() {
                    break None;
                }
            }
            Err(RecvTimeoutError::Timeout) => break Some(First::Deadline),
            Err(RecvTimeoutError::Disconnected) => break None,
        }
    };

    stop_group(group, &rx, &mut waits);
    signals_handle.close();

    // Without a reaped leader (stuck even after SIGKILL) report it as killed.
    let code = waits.leader.unwrap_or(128 + Signal::SIGKILL as i32);
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
    leader: Option<i32>,
    group_gone: bool,
    output_closed: bool,
}

/// SIGTERM, grace, SIGKILL, then a bounded drain of the output. A signal to
/// us during the grace skips the rest of it.
fn stop_group(group: Group, rx: &Receiver<Event>, waits: &mut Waits) {
    take_pending(rx, waits);
    if !waits.group_gone {
        group.signal(Signal::SIGTERM);
        wait_until(rx, waits, Instant::now() + GRACE, |w| w.group_gone);
    }
    take_pending(rx, waits);
    if !waits.group_gone {
        group.signal(Signal::SIGKILL);
        wait_until(rx, waits, Instant::now() + KILL_WAIT, |w| w.group_gone);
    }
    wait_until(rx, waits, Instant::now() + DRAIN, |w| w.output_closed);
}

/// Notes what has already arrived, so a group that is gone is not signalled.
fn take_pending(rx: &Receiver<Event>, waits: &mut Waits) {
    while let Ok(event) = rx.try_recv() {
        note(waits, event);
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
            Ok(Event::Signal(_)) | Err(_) => return,
            Ok(event) => note(waits, event),
        }
    }
}

fn note(waits: &mut Waits, event: Event) {
    match event {
        Event::LeaderExited(code) => waits.leader = Some(code),
        Event::GroupGone => waits.group_gone = true,
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

fn spawn_reaper(group: Group, tx: Sender<Event>) -> io::Result<()> {
    thread::Builder::new()
        .name("reaper".into())
        .spawn(move || {
            group.reap(|code| {
                let _ = tx.send(Event::LeaderExited(code));
            });
            let _ = tx.send(Event::GroupGone);
        })?;
    Ok(())
}
