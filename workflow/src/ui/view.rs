//! What the person at the terminal changed about the screen, apart from
//! the run's own state (Executant's `useOutputResize` and `App.tsx`'s
//! local state): the output pane's size and scroll position, the
//! interjection being typed, and which after-run screen is up. Keys come
//! in through [`View::key`], which says what the app must do about them;
//! all of it is pure, so the arithmetic is unit-tested without a terminal.
//!
//! The pane's height: the rows left over by everything else, down to
//! [`MIN_OUTPUT_ROWS`] (the step list is never the one to shrink). Once the
//! user resizes it with `[` or `]`, that size is kept for the run, clamped
//! into what the terminal has room for at each frame. Scrolling counts
//! lines back from the tail; while scrolled up, new lines do not move the
//! view, and a row says "— scrolled up N lines —" (the pane keeps its
//! height either way); a new step starts at its tail.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::ring::Ring;

/// The fewest content rows the output pane gets.
pub(super) const MIN_OUTPUT_ROWS: u16 = 3;

/// Which screen is up.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) enum Mode {
    /// The run goes on.
    #[default]
    Running,
    /// A fatal failure with its retrospective: `update` chosen (when the
    /// workflow can be fixed) or `exit`; `output` shows the failing step's
    /// output instead of the analysis.
    Retrospective { update: bool, output: bool },
    /// A successful run's report, waiting for `a` or any other key.
    Report { asking: bool },
}

/// What the app does about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    /// Nothing but a new frame.
    Redraw,
    Nothing,
    /// Queue this message for the next prompt step.
    Interject(String),
    /// Ctrl-C: stop the run as SIGINT would.
    Stop,
    /// Leave the screen (after the run).
    Exit,
    /// Leave, then refine the workflow with the retrospective's instruction.
    Update,
    /// Ask for the report's efficiency suggestion.
    Ask,
}

#[derive(Debug, Clone, Default)]
pub(super) struct View {
    /// Content rows the user chose with `[`/`]`, kept for the run.
    pub preference: Option<u16>,
    /// Lines scrolled back from the tail, as of [`View::at_total`] lines.
    pub back: u64,
    pub at_total: u64,
    /// The `step_starts` the scroll belongs to.
    pub starts_seen: u64,
    /// The interjection being typed.
    pub input: Option<String>,
    pub mode: Mode,
    /// Whether the workflow can be refined from the retrospective.
    pub fixable: bool,
    /// Content rows of the pane in the last frame (for page keys).
    pub rows: u16,
    /// The most content rows the last frame had room for.
    pub most: u16,
}

/// The pane's content rows, given what the frame leaves it.
pub(super) fn pane_rows(room: u16, preference: Option<u16>) -> u16 {
    let most = room.max(MIN_OUTPUT_ROWS);
    preference.map_or(most, |p| p.clamp(MIN_OUTPUT_ROWS, most))
}

/// The furthest back a pane of `rows` can scroll over `ring`: until its
/// first line is at the top (one row goes to the indicator then).
pub(super) fn max_back(len: usize, rows: u16) -> u64 {
    let rows = usize::from(rows);
    if len <= rows {
        0
    } else {
        u64::try_from(len - rows.saturating_sub(1)).unwrap_or(u64::MAX)
    }
}

impl View {
    /// The pane goes back to its tail when a new step started.
    pub(super) fn follow(&mut self, step_starts: u64) {
        if step_starts != self.starts_seen {
            self.starts_seen = step_starts;
            self.back = 0;
        }
    }

    /// Lines back from the tail the pane shows now: where it was put,
    /// plus what arrived since, within what the ring holds.
    pub(super) fn scrolled(&self, ring: &Ring, rows: u16) -> u64 {
        if self.back == 0 {
            return 0;
        }
        let arrived = ring.total().saturating_sub(self.at_total);
        self.back
            .saturating_add(arrived)
            .min(max_back(ring.len(), rows))
    }

    fn scroll(&mut self, ring: &Ring, by: i64) {
        let rows = self.rows.max(MIN_OUTPUT_ROWS);
        let now = self.scrolled(ring, rows);
        let to = if by < 0 {
            now.saturating_sub(by.unsigned_abs())
        } else {
            now.saturating_add(by.unsigned_abs())
        };
        self.back = to.min(max_back(ring.len(), rows));
        self.at_total = ring.total();
    }

    fn resize(&mut self, by: i16) {
        // From the size chosen last (keys may come faster than frames),
        // kept within the room of the last frame.
        let rows = self.preference.unwrap_or(self.rows).max(MIN_OUTPUT_ROWS);
        let most = if self.most == 0 { u16::MAX } else { self.most };
        let to = rows
            .saturating_add_signed(by)
            .clamp(MIN_OUTPUT_ROWS, most.max(MIN_OUTPUT_ROWS));
        self.preference = Some(to);
    }

    /// What `key` does; `ring` is the output the pane scrolls over.
    pub(super) fn key(&mut self, key: KeyEvent, ring: &Ring) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::Nothing;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'C')) {
            return match self.mode {
                Mode::Running => Action::Stop,
                _ => Action::Exit,
            };
        }
        if let Some(text) = self.input.as_mut() {
            return match key.code {
                KeyCode::Esc => {
                    self.input = None;
                    Action::Redraw
                }
                KeyCode::Enter => {
                    let message = text.trim().to_owned();
                    self.input = None;
                    if message.is_empty() {
                        Action::Redraw
                    } else {
                        Action::Interject(message)
                    }
                }
                KeyCode::Backspace => {
                    text.pop();
                    Action::Redraw
                }
                KeyCode::Char(c) if !ctrl => {
                    text.push(c);
                    Action::Redraw
                }
                _ => Action::Nothing,
            };
        }
        match self.mode.clone() {
            Mode::Running => self.running_key(key, ring),
            Mode::Retrospective { update, output } => match key.code {
                KeyCode::Char('o') => {
                    self.mode = Mode::Retrospective {
                        update,
                        output: !output,
                    };
                    Action::Redraw
                }
                KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab
                    if self.fixable =>
                {
                    self.mode = Mode::Retrospective {
                        update: !update,
                        output,
                    };
                    Action::Redraw
                }
                KeyCode::Char('u') if self.fixable => Action::Update,
                KeyCode::Enter if update && self.fixable => Action::Update,
                KeyCode::Enter | KeyCode::Esc | KeyCode::Char('q') => Action::Exit,
                _ if output => self.running_key(key, ring),
                _ => Action::Nothing,
            },
            Mode::Report { asking: true } => Action::Nothing,
            Mode::Report { asking: false } => match key.code {
                KeyCode::Char('a') => Action::Ask,
                _ => Action::Exit,
            },
        }
    }

    /// Scrolling, resizing, and `i` while the run goes on.
    fn running_key(&mut self, key: KeyEvent, ring: &Ring) -> Action {
        let page = i64::from(self.rows.max(MIN_OUTPUT_ROWS).saturating_sub(1).max(1));
        match key.code {
            KeyCode::Char('i') if self.mode == Mode::Running => {
                self.input = Some(String::new());
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll(ring, 1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll(ring, -1),
            KeyCode::PageUp => self.scroll(ring, page),
            KeyCode::PageDown => self.scroll(ring, -page),
            KeyCode::End | KeyCode::Char('G') => self.back = 0,
            KeyCode::Char('[') => self.resize(-1),
            KeyCode::Char(']') => self.resize(1),
            _ => return Action::Nothing,
        }
        Action::Redraw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ring(n: usize) -> Ring {
        let mut ring = Ring::default();
        for i in 0..n {
            ring.push(&format!("line {i}"));
        }
        ring
    }

    #[test]
    fn the_pane_takes_the_room_down_to_its_minimum_and_keeps_a_chosen_size() {
        assert_eq!(pane_rows(12, None), 12);
        assert_eq!(pane_rows(1, None), MIN_OUTPUT_ROWS);
        assert_eq!(pane_rows(12, Some(5)), 5);
        // A shrinking terminal clamps the chosen size, a growing one
        // gives it back.
        assert_eq!(pane_rows(4, Some(8)), 4);
        assert_eq!(pane_rows(20, Some(8)), 8);
        assert_eq!(pane_rows(20, Some(1)), MIN_OUTPUT_ROWS);
    }

    #[test]
    fn resize_keys_move_from_the_drawn_size() {
        let mut view = View {
            rows: 10,
            most: 10,
            ..View::default()
        };
        let r = ring(0);
        // No more room than the frame had.
        view.key(press(KeyCode::Char(']')), &r);
        assert_eq!(view.preference, Some(10));
        assert_eq!(view.key(press(KeyCode::Char('[')), &r), Action::Redraw);
        assert_eq!(view.preference, Some(9));
        // Before the next frame: from the chosen size.
        view.key(press(KeyCode::Char('[')), &r);
        assert_eq!(view.preference, Some(8));
        view.rows = 8;
        view.key(press(KeyCode::Char(']')), &r);
        view.key(press(KeyCode::Char(']')), &r);
        view.key(press(KeyCode::Char(']')), &r);
        assert_eq!(view.preference, Some(10));
        view.preference = Some(MIN_OUTPUT_ROWS);
        view.key(press(KeyCode::Char('[')), &r);
        assert_eq!(view.preference, Some(MIN_OUTPUT_ROWS));
    }

    #[test]
    fn scrolling_is_clamped_stays_put_as_lines_arrive_and_resets_on_a_new_step() {
        let mut view = View {
            rows: 5,
            ..View::default()
        };
        let mut r = ring(20);
        assert_eq!(max_back(20, 5), 16);
        assert_eq!(max_back(5, 5), 0);
        view.key(press(KeyCode::Up), &r);
        view.key(press(KeyCode::Char('k')), &r);
        assert_eq!(view.scrolled(&r, 5), 2);
        view.key(press(KeyCode::Char('j')), &r);
        assert_eq!(view.scrolled(&r, 5), 1);
        view.key(press(KeyCode::PageUp), &r);
        assert_eq!(view.scrolled(&r, 5), 5);
        for _ in 0..10 {
            view.key(press(KeyCode::PageUp), &r);
        }
        assert_eq!(view.scrolled(&r, 5), 16);
        view.key(press(KeyCode::PageDown), &r);
        assert_eq!(view.scrolled(&r, 5), 12);
        // Three new lines: the same lines stay in view.
        for _ in 0..3 {
            r.push("new");
        }
        assert_eq!(view.scrolled(&r, 5), 15);
        for _ in 0..10 {
            view.key(press(KeyCode::Down), &r);
        }
        assert_eq!(view.scrolled(&r, 5), 5);
        view.follow(1);
        assert_eq!(view.scrolled(&r, 5), 0);
        // At the tail it follows new lines.
        r.push("more");
        assert_eq!(view.scrolled(&r, 5), 0);
        view.key(press(KeyCode::PageUp), &r);
        view.key(press(KeyCode::End), &r);
        assert_eq!(view.scrolled(&r, 5), 0);
        // Nothing to scroll over a short output.
        let short = ring(3);
        view.key(press(KeyCode::Up), &short);
        assert_eq!(view.scrolled(&short, 5), 0);
    }

    #[test]
    fn an_interjection_is_typed_sent_or_cancelled() {
        let mut view = View::default();
        let r = ring(0);
        assert_eq!(view.key(press(KeyCode::Char('i')), &r), Action::Redraw);
        for c in "fix it!".chars() {
            view.key(press(KeyCode::Char(c)), &r);
        }
        view.key(press(KeyCode::Backspace), &r);
        // Keys that scroll or resize are text while typing.
        view.key(press(KeyCode::Char('j')), &r);
        assert_eq!(view.input.as_deref(), Some("fix itj"));
        assert_eq!(
            view.key(press(KeyCode::Enter), &r),
            Action::Interject("fix itj".into())
        );
        assert_eq!(view.input, None);
        view.key(press(KeyCode::Char('i')), &r);
        view.key(press(KeyCode::Char('x')), &r);
        assert_eq!(view.key(press(KeyCode::Esc), &r), Action::Redraw);
        assert_eq!(view.input, None);
        // An empty message sends nothing.
        view.key(press(KeyCode::Char('i')), &r);
        assert_eq!(view.key(press(KeyCode::Enter), &r), Action::Redraw);
    }

    #[test]
    fn ctrl_c_stops_the_run_then_exits() {
        let mut view = View::default();
        let r = ring(0);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(view.key(ctrl_c, &r), Action::Stop);
        view.mode = Mode::Report { asking: false };
        assert_eq!(view.key(ctrl_c, &r), Action::Exit);
    }

    #[test]
    fn the_retrospective_pane_chooses_and_swaps_in_the_output() {
        let r = ring(0);
        let mut view = View {
            mode: Mode::Retrospective {
                update: true,
                output: false,
            },
            fixable: true,
            ..View::default()
        };
        view.key(press(KeyCode::Char('o')), &r);
        assert_eq!(
            view.mode,
            Mode::Retrospective {
                update: true,
                output: true
            }
        );
        assert_eq!(view.key(press(KeyCode::Enter), &r), Action::Update);
        view.key(press(KeyCode::Right), &r);
        assert_eq!(view.key(press(KeyCode::Enter), &r), Action::Exit);
        assert_eq!(view.key(press(KeyCode::Char('u')), &r), Action::Update);
        // Nothing to update: no choice, `u` does nothing.
        view.fixable = false;
        assert_eq!(view.key(press(KeyCode::Char('u')), &r), Action::Nothing);
        assert_eq!(view.key(press(KeyCode::Char('q')), &r), Action::Exit);
    }

    #[test]
    fn the_report_prompt_asks_on_a_and_exits_on_anything_else() {
        let r = ring(0);
        let mut view = View {
            mode: Mode::Report { asking: false },
            ..View::default()
        };
        assert_eq!(view.key(press(KeyCode::Char('a')), &r), Action::Ask);
        assert_eq!(view.key(press(KeyCode::Char('x')), &r), Action::Exit);
        view.mode = Mode::Report { asking: true };
        assert_eq!(view.key(press(KeyCode::Char('x')), &r), Action::Nothing);
    }
}
