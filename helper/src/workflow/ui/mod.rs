//! The full-screen terminal view of `workflow run` (Executant's `src/ui/`):
//! one more consumer of the run's events, drawn with ratatui.
//!
//! - [`state`]: the pure reducer of events into what the screen shows,
//!   with the output's bounded [`ring`] and the context [`gauge`].
#![cfg_attr(
    not(test),
    expect(dead_code, reason = "wired into workflow run in the next change")
)]

mod gauge;
mod ring;
mod state;
