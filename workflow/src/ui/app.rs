//! The view at work (Executant's `App.tsx`): a consumer of the run's
//! events on one side, a thread that owns the terminal on the other.
//!
//! [`Handle::observe`] folds each event into the shared [`State`] (a short
//! lock, no copy of the event) and wakes the view thread unless a wake-up
//! is already waiting (one stays up until the next frame is drawn, so a
//! flood of lines wakes it once a frame). The view thread draws when woken: by events, by a
//! key (read on a thread of its own), by the spinner's tick while a step
//! runs; never more than [`FPS`] frames a second, and not at all while
//! nothing changes and nothing runs.
//!
//! When the run has ended, [`Tui::close`] hands over to what comes after:
//! the retrospective pane after a fatal failure that has one, or the run
//! report with the offer to ask for an efficiency suggestion, both only
//! when keys can be read; otherwise the view leaves at once. Leaving gives
//! the terminal back; `workflow run` then prints the run's summary on the
//! normal screen.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self as term_event, Event as TermEvent};

use super::super::consumers::Consumer;
use super::super::event::Event;
use super::super::interject::Queue;
use super::super::settings::Settings;
use super::super::step::Context;
use super::render::{self, Info};
use super::state::{Outcome, State, Status};
use super::terminal::Screen;
use super::view::{Action, Mode, View};

/// Frames a second, at most.
pub(super) const FPS: u64 = 30;
const FRAME: Duration = Duration::from_millis(1000 / FPS);
/// How often the spinner turns while a step runs.
const TICK: Duration = Duration::from_millis(100);
/// How often a waiting view looks at the stop flag (SIGTERM).
const IDLE: Duration = Duration::from_millis(250);
/// How long the input thread waits for a key before looking whether it
/// should end.
const INPUT_POLL: Duration = Duration::from_millis(100);

/// What the view needs to know besides the events.
pub(crate) struct Options {
    /// Keys can be read: stdin is a terminal.
    pub interactive: bool,
    pub statusline: bool,
    /// The workflow is a local file `workflow refine` could rewrite.
    pub refinable: bool,
    /// Where the repository and branch are read from.
    pub repo_dir: PathBuf,
    /// What the on-demand suggestion's call needs of the run.
    pub work_dir: PathBuf,
    pub stop: Arc<AtomicBool>,
    pub settings: Settings,
    pub interject: Arc<Queue>,
    /// The workflow about to run: the first frame shows its steps at once
    /// (its `workflow:start` comes a moment later).
    pub workflow: Arc<super::super::model::Workflow>,
}

enum Wake {
    Dirty,
    Input(TermEvent),
    Finished,
}

struct Shared {
    state: Mutex<State>,
    /// A `Dirty` wake-up is waiting: no need to send another.
    pending: AtomicBool,
    started: Instant,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// The view's consumer end, fed by `workflow run`'s event loop.
pub(crate) struct Handle {
    shared: Arc<Shared>,
    wake: Sender<Wake>,
}

impl Handle {
    fn notify(&self) {
        if !self.shared.pending.swap(true, Ordering::SeqCst) {
            let _ = self.wake.send(Wake::Dirty);
        }
    }
}

impl Consumer for Handle {
    fn observe(&mut self, event: &Event) {
        let now = self.shared.now_ms();
        self.shared.lock().apply(event, now);
        self.notify();
    }

    fn flush(&mut self) {}

    fn failed(&mut self, failure: &str, duration_ms: u64) {
        self.shared.lock().failed(failure, duration_ms);
        self.notify();
    }
}

/// The running view.
pub(crate) struct Tui {
    shared: Arc<Shared>,
    wake: Sender<Wake>,
    view: Option<JoinHandle<Option<String>>>,
    input: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

impl Tui {
    /// Takes the terminal and starts drawing; an error leaves it as it was.
    pub(crate) fn start(options: Options) -> std::io::Result<Self> {
        let screen = Screen::enter(options.interactive)?;
        let mut state = State::default();
        state.apply(
            &Event::WorkflowStart {
                workflow: Arc::clone(&options.workflow),
            },
            0,
        );
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            pending: AtomicBool::new(false),
            started: Instant::now(),
        });
        let (wake, woken) = mpsc::channel();
        let input = options.interactive.then(|| {
            let done = Arc::new(AtomicBool::new(false));
            let (sender, until) = (wake.clone(), Arc::clone(&done));
            let thread = std::thread::spawn(move || read_keys(&sender, &until));
            (done, thread)
        });
        let view_shared = Arc::clone(&shared);
        let view = std::thread::spawn(move || run_view(screen, &view_shared, &woken, &options));
        Ok(Self {
            shared,
            wake,
            view: Some(view),
            input,
        })
    }

    pub(crate) fn handle(&self) -> Handle {
        Handle {
            shared: Arc::clone(&self.shared),
            wake: self.wake.clone(),
        }
    }

    /// The run is over: what comes after it, then the terminal back and
    /// the run's summary on `out` (with the `log` file's path). Returns the
    /// instruction to refine the workflow with, when the user chose to
    /// update it from the retrospective pane.
    pub(crate) fn close(
        mut self,
        log: Option<&std::path::Path>,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<Option<String>> {
        let _ = self.wake.send(Wake::Finished);
        let refine = self.view.take().and_then(|view| view.join().ok()).flatten();
        // The screen is restored (its guard dropped with the thread, or
        // here if the thread died).
        super::terminal::restore();
        if let Some((done, thread)) = self.input.take() {
            done.store(true, Ordering::SeqCst);
            // It ends within one poll; one stuck in crossterm (a terminal
            // hung up between its poll and its read) ends with the process.
            let deadline = Instant::now() + INPUT_POLL * 5;
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if thread.is_finished() {
                let _ = thread.join();
            }
        }
        super::summary::print(&self.shared.lock(), log, out)?;
        Ok(refine)
    }
}

/// Keys for the view thread, until `done` or the terminal hangs up.
///
/// The terminal is polled here first, and crossterm asked to read only
/// when there are bytes: crossterm's reader spins forever on a terminal
/// that hung up (its read loop ends only on `WouldBlock`), so a hang-up
/// ends this thread before crossterm ever sees it.
fn read_keys(wake: &Sender<Wake>, done: &AtomicBool) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let timeout = PollTimeout::try_from(INPUT_POLL).unwrap_or(PollTimeout::MAX);
    while !done.load(Ordering::SeqCst) {
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => {}
            Err(_) => return,
        }
        let revents = fds
            .first()
            .and_then(PollFd::revents)
            .unwrap_or(PollFlags::POLLHUP);
        if revents.intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL)
            || !revents.contains(PollFlags::POLLIN)
        {
            return;
        }
        while let Ok(true) = term_event::poll(Duration::ZERO) {
            match term_event::read() {
                Ok(event) => {
                    if wake.send(Wake::Input(event)).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    }
}

/// Whether something on screen moves by itself (a spinner, a clock).
fn animating(state: &State) -> bool {
    state.outcome.is_none()
        && state
            .steps
            .iter()
            .any(|s| matches!(s.status, Status::Running { .. }))
}

/// What comes after the run, given how it ended.
fn after_mode(state: &State, options: &Options, view: &mut View) -> Option<Mode> {
    if !options.interactive {
        return None;
    }
    match &state.outcome {
        Some(Outcome::Failed { .. }) => {
            let (_, analysis) = state.retrospective.as_ref()?;
            view.fixable = options.refinable && refine_instruction(analysis).is_some();
            Some(Mode::Retrospective {
                update: view.fixable,
                output: false,
            })
        }
        Some(Outcome::Complete { .. }) => {
            let report = state.report.as_ref()?;
            report
                .suggestion
                .is_none()
                .then_some(Mode::Report { asking: false })
        }
        _ => None,
    }
}

/// The retrospective's instruction for `workflow refine`, when it says the
/// workflow can be fixed.
pub(crate) fn refine_instruction(analysis: &serde_json::Value) -> Option<String> {
    if analysis
        .get("workflowFixable")
        .and_then(serde_json::Value::as_bool)
        != Some(true)
    {
        return None;
    }
    let text = analysis.get("refineInstruction")?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The view thread: draws until the run is over and what comes after it
/// is done; returns the refine instruction the user chose.
fn run_view(
    mut screen: Screen,
    shared: &Shared,
    woken: &Receiver<Wake>,
    options: &Options,
) -> Option<String> {
    let mut view = View::default();
    let mut info = Info {
        repo: None,
        statusline: options.statusline,
        interactive: options.interactive,
    };
    let mut suggestion: Option<String> = None;
    let mut asked = false;
    let mut finished = false;
    let mut last_frame: Option<Instant> = None;
    let mut dirty = true;
    let mut read_repo = options.statusline;
    let mut drawn_size = None;
    loop {
        if dirty && last_frame.is_none_or(|t| t.elapsed() >= FRAME) {
            let now = shared.now_ms();
            // Events from here on ask for the next frame.
            shared.pending.store(false, Ordering::SeqCst);
            let state = shared.lock();
            let drawn = screen.terminal.draw(|frame| {
                render::draw(frame, &state, &mut view, &info, now, suggestion.as_deref());
            });
            drop(state);
            if drawn.is_err() {
                // The terminal went away: nothing more to show.
                return None;
            }
            last_frame = Some(Instant::now());
            drawn_size = screen.terminal.size().ok();
            dirty = false;
            if read_repo {
                // One git read, after the first frame is up.
                read_repo = false;
                info.repo = repo_info(&options.repo_dir);
                dirty = info.repo.is_some();
            }
        }
        if finished && view.mode == Mode::Running {
            // Nothing to wait for; the last frame is drawn.
            if !dirty {
                return None;
            }
        }
        if finished && options.stop.load(Ordering::SeqCst) {
            return None;
        }
        let timeout = if dirty {
            last_frame.map_or(Duration::ZERO, |t| FRAME.saturating_sub(t.elapsed()))
        } else if animating(&shared.lock()) {
            TICK
        } else {
            IDLE
        };
        let action = match woken.recv_timeout(timeout) {
            // `pending` stays up until the next frame: one wake-up a frame
            // at most, however fast the events come.
            Ok(Wake::Dirty) => {
                dirty = true;
                continue;
            }
            Ok(Wake::Input(TermEvent::Key(key))) => {
                let mut state = shared.lock();
                match view.key(key, &state.output) {
                    Action::Interject(message) => {
                        options.interject.push(message.clone());
                        state.interjection(&message);
                        Action::Redraw
                    }
                    other => other,
                }
            }
            Ok(Wake::Input(TermEvent::Resize(..))) => Action::Redraw,
            Ok(Wake::Input(_)) => Action::Nothing,
            Ok(Wake::Finished) => {
                finished = true;
                let state = shared.lock();
                if let Some(mode) = after_mode(&state, options, &mut view) {
                    view.mode = mode;
                }
                view.input = None;
                Action::Redraw
            }
            Err(RecvTimeoutError::Timeout) => {
                // A resized terminal is seen here too (keys come first).
                let resized = screen
                    .terminal
                    .size()
                    .is_ok_and(|size| Some(size) != drawn_size);
                if resized || animating(&shared.lock()) {
                    Action::Redraw
                } else {
                    Action::Nothing
                }
            }
            Err(RecvTimeoutError::Disconnected) => return None,
        };
        match action {
            Action::Redraw => dirty = true,
            Action::Nothing | Action::Interject(_) => {}
            Action::Stop => {
                // As if Ctrl-C had reached us as a signal (raw mode keeps
                // the terminal from sending it).
                let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGINT);
            }
            Action::Exit => return None,
            Action::Update => {
                return shared
                    .lock()
                    .retrospective
                    .as_ref()
                    .and_then(|(_, a)| refine_instruction(a));
            }
            Action::Ask if asked => return None,
            Action::Ask => {
                asked = true;
                view.mode = Mode::Report { asking: true };
                let now = shared.now_ms();
                {
                    let state = shared.lock();
                    let _ = screen.terminal.draw(|frame| {
                        render::draw(frame, &state, &mut view, &info, now, None);
                    });
                }
                suggestion = Some(ask_suggestion(shared, options));
                view.mode = Mode::Report { asking: false };
                dirty = true;
            }
        }
    }
}

/// The report's suggestion asked for now, or why none came.
fn ask_suggestion(shared: &Shared, options: &Options) -> String {
    let (workflow, report) = {
        let state = shared.lock();
        (state.workflow.clone(), state.report.clone())
    };
    let (Some(workflow), Some(report)) = (workflow, report) else {
        return "no report to ask about".to_owned();
    };
    let ctx = Context {
        work_dir: options.work_dir.clone(),
        stop: Arc::clone(&options.stop),
        settings: options.settings.clone(),
        interject: Arc::default(),
        // An on-demand suggestion after the run: no spans.
        trace: None,
    };
    let said = Mutex::new(Vec::new());
    let answer = super::super::suggestion::suggest(&workflow, &report, &ctx, &said);
    answer.unwrap_or_else(|| {
        said.into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .into_iter()
            .find_map(|event| match event {
                Event::Log {
                    level: super::super::event::Level::Warn,
                    text,
                } => Some(text),
                _ => None,
            })
            .unwrap_or_else(|| "no efficiency suggestion came".to_owned())
    })
}

/// The repository's name and branch from one git read (`rev-parse
/// --show-toplevel HEAD --abbrev-ref HEAD`); `None` outside a repository.
fn repo_info(dir: &std::path::Path) -> Option<(String, Option<String>)> {
    let out = crate::git::run(
        dir,
        &[
            "rev-parse",
            "--show-toplevel",
            "HEAD",
            "--abbrev-ref",
            "HEAD",
        ],
    )
    .ok()?;
    parse_repo_info(&out.text(), out.ok())
}

/// What `rev-parse --show-toplevel HEAD --abbrev-ref HEAD` printed: the top
/// (its last component names the repository), the commit, the branch
/// (`HEAD` when detached: then the commit's first 7 digits). Before the
/// first commit only the top is printed (and git fails).
pub(super) fn parse_repo_info(text: &str, ok: bool) -> Option<(String, Option<String>)> {
    let mut lines = text.lines();
    let top = lines.next().filter(|t| t.starts_with('/'))?;
    let name = std::path::Path::new(top)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())?;
    if !ok {
        return Some((name, None));
    }
    let sha = lines.next().unwrap_or_default();
    let branch = match lines.next() {
        Some("HEAD") => sha.get(..7).map(str::to_owned),
        Some(branch) if !branch.is_empty() => Some(branch.to_owned()),
        _ => None,
    };
    Some((name, branch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_and_branch_from_one_read() {
        let sha = "44ecb7326ee890262b03b4f896d0693fe1cdd056";
        assert_eq!(
            parse_repo_info(&format!("/work/voyage\n{sha}\nmain\n"), true),
            Some(("voyage".into(), Some("main".into())))
        );
        assert_eq!(
            parse_repo_info(&format!("/work/voyage\n{sha}\nHEAD\n"), true),
            Some(("voyage".into(), Some("44ecb73".into())))
        );
        assert_eq!(
            parse_repo_info("/tmp/new\nHEAD\n", false),
            Some(("new".into(), None))
        );
        assert_eq!(parse_repo_info("", false), None);
    }

    #[test]
    fn only_a_fixable_retrospective_with_an_instruction_refines() {
        let fixable =
            serde_json::json!({"workflowFixable": true, "refineInstruction": " Drop it. "});
        assert_eq!(refine_instruction(&fixable).as_deref(), Some("Drop it."));
        let empty = serde_json::json!({"workflowFixable": true, "refineInstruction": ""});
        assert_eq!(refine_instruction(&empty), None);
        let no = serde_json::json!({"workflowFixable": false, "refineInstruction": "x"});
        assert_eq!(refine_instruction(&no), None);
    }
}
