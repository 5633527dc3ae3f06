//! Running one command (a shell command line, or an agent CLI) to
//! completion, a timeout or an interrupt, with its output handed to the
//! caller as it arrives.
//!
//! One thread, one loop: `poll` waits on the command's output pipe (stdout
//! and stderr share it, so their interleaving is the command's own) and on a
//! wake-up socket that signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP) make
//! readable, with the current phase's deadline as its timeout. No polling
//! with sleeps, no helper threads. `voyage-helper run` and the command steps
//! of `workflow run` both run their commands here.
//!
//! - On SIGCHLD, members of the command's process group are reaped (the
//!   helper is a child subreaper, so orphans come to it too); the leader's
//!   exit code is kept, and the group is known to be gone when none is left.
//!
//! Phases: *running* until the command is done (see [`Leftovers`]), the
//! deadline passes or we are signalled; then *terminating* (SIGTERM to the
//! group, up to [`GRACE`]), *killing* (SIGKILL, up to [`KILL_WAIT`]) and
//! *draining* (up to [`DRAIN`] for the pipe to close). A process that
//! escaped the group (`setsid`) and still holds the pipe is not waited for
//! beyond the drain; the pipe is closed when we return, so it can never
//! write to the caller afterwards.

use std::ffi::OsStr;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::escaped::{self, Process};
use super::{Group, GroupLeader, Signal, SignalWatch, signal_name};

/// How long the group gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long to wait for the group to be gone after SIGKILL (a process stuck
/// in the kernel cannot die sooner; we report rather than hang).
pub const KILL_WAIT: Duration = Duration::from_secs(5);
/// How long to wait for the output pipe to close once the group is gone.
pub const DRAIN: Duration = Duration::from_millis(500);
/// Read size for the output pipe.
const CHUNK: usize = 128 * 1024;
/// Most bytes handed over per wake-up before looking at signals and deadlines.
const COPY_BURST: usize = 4 << 20;
/// Stands in for "no deadline": far enough never to matter, near enough that
/// adding it to an `Instant` cannot overflow.
const NO_DEADLINE: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// What happens to processes the command leaves running in its group after
/// the leader exits (`server &`, a daemonised helper).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftovers {
    /// Stop them (TERM, grace, KILL): `voyage-helper run` promises that no
    /// member of the group outlives the command.
    Stop,
    /// Leave them running; the command is done once the leader has exited
    /// and nobody holds the output pipe any more. This is what Executant
    /// does, and workflows rely on it to start a server in one step and use
    /// it in the next (with its output redirected away from the pipe).
    Keep,
}

/// Where a supervised command's stderr goes.
#[derive(Debug, Clone, Copy)]
pub enum Stderr<'a> {
    /// Into the output pipe, interleaved with stdout as written.
    Merged,
    /// Into this file (the caller reads it afterwards).
    File(&'a std::fs::File),
}

/// One command to supervise.
#[derive(Debug, Clone, Copy)]
pub struct Job<'a> {
    /// The program, then its arguments: `["sh", "-c", line]` for a shell
    /// command line. Never empty.
    pub argv: &'a [&'a OsStr],
    /// The working directory; `None` keeps ours.
    pub cwd: Option<&'a Path>,
    pub timeout: Option<Duration>,
    pub leftovers: Leftovers,
    /// Where the command's stderr goes.
    pub stderr: Stderr<'a>,
    /// Variables added to the inherited environment.
    pub env: &'a [(&'a str, &'a OsStr)],
    /// What the command reads on stdin; `None`: `/dev/null`.
    pub input: Option<&'a [u8]>,
    /// A flag the caller's own signal handler sets: when it is up, the job
    /// stops as if this process had been sent SIGTERM. It closes the gap
    /// before the job's signal watch exists: a signal that arrived just
    /// before the spawn is not lost.
    pub stop: Option<&'a AtomicBool>,
    /// Stop the group even when this process is killed with SIGKILL before
    /// the command ends ([`super::Watchdog`]); with [`Leftovers::Stop`].
    pub stop_with_us: bool,
}

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

/// How a supervised command ended, and how long it took.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub ending: Ending,
    pub duration: Duration,
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

/// Runs `argv` with `input` (or `/dev/null`) on its stdin, handing every
/// chunk of its output (stdout, and stderr when merged) to `output` as it
/// arrives.
pub fn supervise(job: Job<'_>, output: &mut dyn FnMut(&[u8])) -> io::Result<Outcome> {
    reap_kept_groups();
    // Watch for signals before the child exists, so none slips between.
    let mut signals = SignalWatch::install()?;
    let (reader, writer) = io::pipe()?;
    tune_output_pipe(&reader);
    let Some((program, args)) = job.argv.split_first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no program to run",
        ));
    };
    let mut cmd = Command::new(program);
    cmd.args(args).stdout(writer.try_clone()?);
    match job.stderr {
        Stderr::Merged => {
            cmd.stderr(writer);
        }
        Stderr::File(file) => {
            cmd.stderr(file.try_clone()?);
            drop(writer);
        }
    }
    if let Some(cwd) = job.cwd {
        cmd.current_dir(cwd);
    }
    cmd.envs(job.env.iter().copied());
    // Input goes through a pipe a thread of its own fills, so a command
    // that reads slowly (or not at all) never holds up the output loop.
    let feed = match job.input {
        None => {
            cmd.stdin(Stdio::null());
            None
        }
        Some(bytes) => {
            let (read_end, write_end) = io::pipe()?;
            cmd.stdin(read_end);
            Some((write_end, bytes.to_vec()))
        }
    };
    let mark = escaped::new_mark();
    cmd.env(escaped::MARK_VAR, &mark);
    let spawned = GroupLeader::spawn(&mut cmd);
    // Our copies of the pipe's write end live in `cmd`; drop them now or the
    // pipe would never reach end of file.
    drop(cmd);
    let leader = spawned?;
    // Without a watchdog the command still runs; it only loses the promise
    // for the case where we are killed outright.
    let watchdog = (job.stop_with_us && job.leftovers == Leftovers::Stop)
        .then(|| super::Watchdog::start(leader.group().id()).ok())
        .flatten();
    if let Some((mut write_end, bytes)) = feed {
        // A command that exits without reading all of it makes the write
        // fail (EPIPE; SIGPIPE is ignored), which ends the thread.
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut write_end, &bytes);
        });
    }
    let start = Instant::now();
    let timeout = job.timeout.unwrap_or(NO_DEADLINE);

    let mut run = Run {
        group: leader.group(),
        pipe: Some(reader),
        output,
        buf: vec![0; CHUNK],
        leader_code: None,
        group_gone: false,
        escaped: Vec::new(),
        mark,
    };
    let mut phase = Phase::Running;
    let mut deadline = start.checked_add(timeout).unwrap_or(start + NO_DEADLINE);
    let mut cause = None;
    // Reaping is needed at the start (the child may be gone already) and
    // after each SIGCHLD; not on every chunk of output.
    let mut reap = true;
    loop {
        if reap && !run.group_gone {
            let code = &mut run.leader_code;
            run.group_gone = run.group.reap_exited(|c| *code = Some(c));
        }
        let stop = signals.take_stop().or_else(|| {
            job.stop
                .filter(|flag| flag.load(Ordering::SeqCst))
                .map(|_| Signal::SIGTERM as i32)
        });
        let now = Instant::now();
        let done = match job.leftovers {
            Leftovers::Stop => run.leader_code.is_some(),
            Leftovers::Keep => run.leader_code.is_some() && run.pipe.is_none(),
        };
        let next = match phase {
            Phase::Running => {
                let why = if done {
                    Some(Cause::Exited)
                } else if let Some(signal) = stop {
                    Some(Cause::Signal(signal))
                } else {
                    (now >= deadline).then_some(Cause::Deadline)
                };
                match (why, job.leftovers) {
                    (Some(Cause::Exited), Leftovers::Keep) => break,
                    (Some(why), _) => {
                        cause = Some(why);
                        Some(run.begin_stopping(why))
                    }
                    (None, _) => None,
                }
            }
            Phase::Terminating if run.all_gone() => Some(Phase::Draining),
            // A second signal skips the rest of the grace.
            Phase::Terminating if stop.is_some() || now >= deadline => {
                run.kill();
                Some(Phase::Killing)
            }
            Phase::Killing if run.all_gone() || now >= deadline => Some(Phase::Draining),
            Phase::Draining if run.pipe.is_none() || now >= deadline => break,
            Phase::Terminating | Phase::Killing | Phase::Draining => None,
        };
        if let Some(next) = next {
            phase = next;
            deadline = now
                + match next {
                    Phase::Running => NO_DEADLINE.min(timeout),
                    Phase::Terminating => GRACE,
                    Phase::Killing => KILL_WAIT,
                    Phase::Draining => DRAIN,
                };
            continue;
        }
        reap = run.wait_and_copy(&mut signals, deadline)?;
    }

    escaped::reap(&run.escaped);
    if let Some(watchdog) = watchdog {
        watchdog.dismiss();
    }
    if !run.group_gone && matches!(job.leftovers, Leftovers::Keep) {
        kept_groups().push(run.group);
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
    Ok(Outcome { ending, duration })
}

/// Groups whose leftovers were kept running ([`Leftovers::Keep`]). Their
/// members become our children (the subreaper) and, when they end, zombies
/// that nobody waits for: a long workflow whose steps start servers would
/// pile them up. Each supervised command first reaps what has ended in
/// these groups (by group, so no other command's exit code is taken), and
/// forgets a group once it is empty.
static KEPT_GROUPS: Mutex<Vec<Group>> = Mutex::new(Vec::new());

fn kept_groups() -> MutexGuard<'static, Vec<Group>> {
    KEPT_GROUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn reap_kept_groups() {
    kept_groups().retain(|group| !group.reap_exited(|_| {}));
}

/// The state of one run that the loop works on.
struct Run<'o> {
    group: Group,
    /// The read end of the output pipe; `None` once it reached end of file.
    pipe: Option<io::PipeReader>,
    output: &'o mut dyn FnMut(&[u8]),
    buf: Vec<u8>,
    leader_code: Option<i32>,
    group_gone: bool,
    /// Processes of the command outside its group, being stopped with it
    /// (see [`escaped`]).
    escaped: Vec<Process>,
    /// The command's environment mark ([`escaped::MARK_VAR`]).
    mark: String,
}

impl Run<'_> {
    /// Starts stopping the group: SIGTERM, unless nobody is left. On a
    /// timeout or a signal, the descendants that left the group get it too
    /// (not when the command simply ended: what it started on purpose in a
    /// session of its own is not ours to stop).
    fn begin_stopping(&mut self, why: Cause) -> Phase {
        if !matches!(why, Cause::Exited) {
            self.escaped = escaped::find(&self.mark, self.unreaped_leader(), self.group.id());
            escaped::signal_all(&self.escaped, Signal::SIGTERM);
        }
        if self.all_gone() {
            Phase::Draining
        } else {
            self.group.signal(Signal::SIGTERM);
            Phase::Terminating
        }
    }

    /// SIGKILL to the group and to every escaped descendant, including any
    /// started since SIGTERM.
    fn kill(&mut self) {
        self.group.signal(Signal::SIGKILL);
        let leader = self.unreaped_leader();
        for found in escaped::find(&self.mark, leader, self.group.id()) {
            if !self.escaped.contains(&found) {
                self.escaped.push(found);
            }
        }
        escaped::signal_all(&self.escaped, Signal::SIGKILL);
    }

    /// The leader's pid while it is unreaped (until then the kernel cannot
    /// hand it to another process).
    fn unreaped_leader(&self) -> Option<i32> {
        self.leader_code.is_none().then(|| self.group.id())
    }

    /// Whether nothing of what is being stopped is left.
    fn all_gone(&self) -> bool {
        self.group_gone && self.escaped.iter().all(|p| !escaped::is_alive(p))
    }

    /// Waits until output or a signal arrives or `deadline` passes, then
    /// hands over what output is ready. Returns whether a signal arrived.
    fn wait_and_copy(&mut self, signals: &mut SignalWatch, deadline: Instant) -> io::Result<bool> {
        let left = deadline.saturating_duration_since(Instant::now());
        // Round up: waking a little early only costs another turn, but a
        // zero timeout would spin.
        let millis = left.as_micros().div_ceil(1000);
        let timeout = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
        let (output_ready, signal_ready) = {
            let mut fds = vec![PollFd::new(signals.fd(), PollFlags::POLLIN)];
            if let Some(pipe) = &self.pipe {
                fds.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
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

    /// Hands what the pipe holds to the caller, up to [`COPY_BURST`] bytes
    /// so signals and deadlines are still looked at.
    fn copy_once(&mut self) {
        let mut copied = 0;
        while copied < COPY_BURST {
            let Some(pipe) = self.pipe.as_mut() else {
                return;
            };
            match pipe.read(&mut self.buf) {
                Ok(0) => self.pipe = None,
                Ok(n) => {
                    (self.output)(self.buf.get(..n).unwrap_or_default());
                    copied += n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => self.pipe = None,
            }
        }
    }
}

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
