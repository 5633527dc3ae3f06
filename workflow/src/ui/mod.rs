//! The full-screen terminal view of `workflow run` (Executant's `src/ui/`):
//! one more consumer of the run's events, drawn with ratatui on its
//! crossterm backend, chosen when stdout is a terminal and neither `--ci`
//! nor `--no-tui` is given (elsewhere the line view, [`super::live`]).
//!
//! - [`state`]: the pure reducer of events into what the screen shows,
//!   with the output's bounded [`ring`] and the context [`gauge`];
//! - [`view`]: what the keys change (the pane's size and scroll, the
//!   interjection being typed, the after-run screens), also pure;
//! - [`render`]: one frame from both, tested on ratatui's test backend;
//! - [`terminal`]: the alternate screen and raw mode, always given back;
//! - [`app`]: the consumer, the view thread and the key thread;
//! - [`summary`]: what is printed on the normal screen afterwards.

mod app;
mod gauge;
mod refine;
mod render;
mod ring;
mod state;
mod summary;
mod terminal;
mod view;

pub(crate) use app::{Options, Tui};
pub(crate) use refine::refine;

/// Whether the environment turns the status bar off
/// (`VOYAGE_STATUSLINE=0`, else `EXECUTANT_STATUSLINE=0`).
pub(crate) fn statusline_from(env: impl Fn(&str) -> Option<String>) -> bool {
    ["VOYAGE_STATUSLINE", "EXECUTANT_STATUSLINE"]
        .iter()
        .all(|name| env(name).is_none_or(|v| v != "0"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_status_bar_is_on_unless_a_zero_turns_it_off() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert!(super::statusline_from(env(&[])));
        assert!(super::statusline_from(env(&[("VOYAGE_STATUSLINE", "1")])));
        assert!(!super::statusline_from(env(&[("VOYAGE_STATUSLINE", "0")])));
        assert!(!super::statusline_from(env(&[(
            "EXECUTANT_STATUSLINE",
            "0"
        )])));
    }
}
