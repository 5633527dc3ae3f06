//! Running one command to completion, a timeout or an interrupt.
//!
//! One thread, one loop: `poll` waits on the command's output pipe and on a
//! wake-up socket that signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP) make
//! readable, with the current phase's deadline as its timeout. No polling
//! with sleeps, no helper threads.
//!
//! - Output is copied to the log and tallied (lines, tail) as it arrives.
//! - On SIGCHLD, members of the command's process group are reaped (the
//!   helper is a child subreaper, so orphans come to it too); the leader's
//!   exit code is kept, and the group is known to be gone when none is left.
//!
//! Phases: *running* until the leader exits, the deadline passes or we are
//! signalled; then *terminating* (SIGTERM to the group, up to [`GRACE`]),
//! *killing* (SIGKILL, up to [`KILL_WAIT`]) and *draining* (up to [`DRAIN`]
//! for the pipe to close). A finished command's leftovers in its group are
//! stopped the same way. A process that escaped the group (`setsid`) and
//! still holds the pipe is not waited for beyond the drain; the pipe is
//! closed when we return, so it can never write into the log afterwards.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::tally::LineTally;
use crate::proc::{Group, GroupLeader, Signal, SignalWatch, signal_name};

/// How long the group gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long to wait for the group to be gone after SIGKILL (a process stuck
/// in the kernel cannot die sooner; we report rather than hang).
pub const KILL_WAIT: Duration = Duration::from_secs(5);
/// How long to wait for the output pipe to close once the group is gone.
pub const DRAIN: Duration = Duration::from_millis(500);
/// Read size for the output pipe.
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

/// Why the group is being stopped.
#[derive(Debug, Clone, Copy)]
enum Cause {
    Exited,
    Deadline,
    Signal(i32),
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Running,
    Terminating,
    Killing,
    Draining,
}

/// Runs `bash -c <command>` in `cwd` with stdin from `/dev/null`, its output
/// copied to `log`, for at most `timeout`.
pub fn run(command: &OsStr, cwd: &Path, timeout: Duration, log: File) -> io::Result<Outcome> {
    // Watch for signals before the child exists, so none slips between.
    let mut signals = SignalWatch::install()?;
    let (reader, writer) = io::pipe()?;
    tune_output_pipe(&reader);
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    let spawned = GroupLeader::spawn(&mut cmd);
    // Our copies of the pipe's write end live in `cmd`; drop them now or the
    // pipe would never reach end of file.
    drop(cmd);
    let leader = spawned?;
    let start = Instant::now();

    let mut run = Run {
        group: leader.group(),
        output: Some(reader),
        log,
        tally: LineTally::new(),
        buf: vec![0; CHUNK],
        leader_code: None,
        group_gone: false,
    };
    let mut phase = Phase::Running;
    let mut deadline = start + timeout;
    let mut cause = None;
    // Reaping is needed at the start (the child may be gone already) and
    // after each SIGCHLD; not on every chunk of output.
    let mut reap = true;
    loop {
        if reap && !run.group_gone {
            let code = &mut run.leader_code;
            run.group_gone = run.group.reap_exited(|c| *code = Some(c));
        }
        let stop = signals.take_stop();
        let now = Instant::now();
        let next = match phase {
            Phase::Running => {
                let why = if run.leader_code.is_some() {
                    Some(Cause::Exited)
                } else if let Some(signal) = stop {
                    Some(Cause::Signal(signal))
                } else {
                    (now >= deadline).then_some(Cause::Deadline)
                };
                why.map(|why| {
                    cause = Some(why);
                    run.begin_stopping()
                })
            }
            Phase::Terminating if run.group_gone => Some(Phase::Draining),
            // A second signal skips the rest of the grace.
            Phase::Terminating if stop.is_some() || now >= deadline => {
                run.group.signal(Signal::SIGKILL);
                Some(Phase::Killing)
            }
            Phase::Killing if run.group_gone || now >= deadline => Some(Phase::Draining),
            Phase::Draining if run.output.is_none() || now >= deadline => break,
            Phase::Terminating | Phase::Killing | Phase::Draining => None,
        };
        if let Some(next) = next {
            phase = next;
            deadline = now
                + match next {
                    Phase::Running => timeout,
                    Phase::Terminating => GRACE,
                    Phase::Killing => KILL_WAIT,
                    Phase::Draining => DRAIN,
                };
            continue;
        }
        reap = run.wait_and_copy(&mut signals, deadline)?;
    }

    let duration = start.elapsed();
    // Without a reaped leader (stuck even after SIGKILL) report it as killed.
    let code = run.leader_code.unwrap_or(128 + Signal::SIGKILL as i32);
    let ending = match cause {
        Some(Cause::Exited) | None => Ending::Exited(code),
        Some(Cause::Deadline) => Ending::TimedOut(code),
        Some(Cause::Signal(signal)) => Ending::Interrupted {
            signal: signal_name(signal),
            code,
        },
    };
    let _ = run.log.flush();
    Ok(Outcome {
        ending,
        duration,
        lines: run.tally.lines(),
        tail: run.tally.tail(),
    })
}

/// The state of one run that the loop works on.
struct Run {
    group: Group,
    /// The read end of the output pipe; `None` once it reached end of file.
    output: Option<io::PipeReader>,
    log: File,
    tally: LineTally,
    buf: Vec<u8>,
    leader_code: Option<i32>,
    group_gone: bool,
}

impl Run {
    /// Starts stopping the group: SIGTERM, unless nobody is left.
    fn begin_stopping(&mut self) -> Phase {
        if self.group_gone {
            Phase::Draining
        } else {
            self.group.signal(Signal::SIGTERM);
            Phase::Terminating
        }
    }

    /// Waits until output or a signal arrives or `deadline` passes, then
    /// copies what output is ready. Returns whether a signal arrived.
    fn wait_and_copy(&mut self, signals: &mut SignalWatch, deadline: Instant) -> io::Result<bool> {
        let left = deadline.saturating_duration_since(Instant::now());
        // Round up: waking a little early only costs another turn, but a
        // zero timeout would spin.
        let millis = left.as_micros().div_ceil(1000);
        let timeout = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
        let (output_ready, signal_ready) = {
            let mut fds = vec![PollFd::new(signals.fd(), PollFlags::POLLIN)];
            if let Some(output) = &self.output {
                fds.push(PollFd::new(output.as_fd(), PollFlags::POLLIN));
            }
            match poll(&mut fds, timeout) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => return Ok(true),
                Err(e) => return Err(e.into()),
            }
            let ready = |fd: Option<&PollFd<'_>>| {
                fd.and_then(PollFd::revents).is_some_and(|r| !r.is_empty())
            };
            (ready(fds.get(1)), ready(fds.first()))
        };
        if signal_ready {
            signals.drain();
        }
        if output_ready {
            self.copy_once();
        }
        Ok(signal_ready)
    }

    /// Copies what the pipe holds into the log and the tally, up to
    /// [`COPY_BURST`] bytes so signals and deadlines are still looked at.
    fn copy_once(&mut self) {
        let mut copied = 0;
        while copied < COPY_BURST {
            let Some(output) = self.output.as_mut() else {
                return;
            };
            match output.read(&mut self.buf) {
                Ok(0) => self.output = None,
                Ok(n) => {
                    let chunk = self.buf.get(..n).unwrap_or_default();
                    // A full disk must not stop the command: keep counting
                    // what it printed even when the log cannot take it.
                    let _ = self.log.write_all(chunk);
                    self.tally.feed(chunk);
                    copied += n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => self.output = None,
            }
        }
    }
}

/// Most bytes copied per wake-up before looking at signals and deadlines.
const COPY_BURST: usize = 4 << 20;

/// Makes our end of the output pipe non-blocking, so one wake-up can empty
/// it in several reads, and asks for a 1 MiB pipe so a fast writer blocks
/// less often. Both are optimisations: failure leaves a working pipe.
fn tune_output_pipe(reader: &io::PipeReader) {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    if let Ok(flags) = fcntl(reader, FcntlArg::F_GETFL) {
        let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
        let _ = fcntl(reader, FcntlArg::F_SETFL(flags));
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = fcntl(reader, FcntlArg::F_SETPIPE_SZ(1 << 20));
    }
}
