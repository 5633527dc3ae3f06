//! The terminal while the view owns it: the alternate screen, raw mode
//! (when keys are read) and a hidden cursor, given back whatever happens.
//!
//! - a normal end, or an error: [`Screen`]'s `Drop` restores;
//! - SIGINT, SIGTERM, SIGHUP: `workflow run` turns them into a cancelled
//!   run, which ends normally (Ctrl-C in raw mode is a key, not a signal:
//!   the view raises SIGINT itself);
//! - a panic: the release build aborts on panic, so no `Drop` runs; a
//!   panic hook restores the terminal before the message is printed.
//!
//! The view writes to its own handle of stdout (a duplicate of the
//! descriptor): the subcommand holds the lock of `std::io::stdout`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{cursor, execute, terminal};

/// Whether a screen is up (the panic hook restores only then).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Whether raw mode was turned on.
static RAW: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

pub(super) type Backend = CrosstermBackend<BufWriter<File>>;

pub(super) struct Screen {
    pub terminal: Terminal<Backend>,
}

/// Leaves the alternate screen and raw mode, shows the cursor; does
/// nothing when no screen is up. Safe to call twice.
pub(super) fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if RAW.swap(false, Ordering::SeqCst) {
        let _ = terminal::disable_raw_mode();
    }
    // Where the screen was drawn: stdout (its own handle, unlocked).
    if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
        let mut out = File::from(fd);
        let _ = execute!(out, terminal::LeaveAlternateScreen, cursor::Show);
        let _ = out.flush();
    }
}

impl Screen {
    /// Takes the terminal: the alternate screen, raw mode when `raw`.
    pub(super) fn enter(raw: bool) -> io::Result<Self> {
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        let file = File::from(io::stdout().as_fd().try_clone_to_owned()?);
        let mut out = BufWriter::with_capacity(1 << 16, file);
        ACTIVE.store(true, Ordering::SeqCst);
        if raw {
            if let Err(e) = terminal::enable_raw_mode() {
                ACTIVE.store(false, Ordering::SeqCst);
                return Err(e);
            }
            RAW.store(true, Ordering::SeqCst);
        }
        let entered = execute!(out, terminal::EnterAlternateScreen, cursor::Hide);
        let terminal = entered.and_then(|()| Terminal::new(CrosstermBackend::new(out)));
        match terminal {
            Ok(terminal) => Ok(Self { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = self.terminal.flush();
        let _ = self.terminal.backend_mut().flush();
        restore();
    }
}
