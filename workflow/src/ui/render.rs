//! One frame of the full-screen view, from the [`State`] and the [`View`]:
//! a pure function of both (and the time, for spinners and elapsed
//! seconds), drawn on any ratatui backend, so the layout is tested on
//! ratatui's `TestBackend` with exact buffers.
//!
//! From the top: the goal; the step list, in full (Executant's primary
//! view: it is never trimmed while the pane can still give rows; only a
//! list taller than the terminal scrolls, keeping the running step in
//! view), with a running loop's last [`ITERATION_ROWS`] iterations under
//! its step; the output pane (or, after the run, the retrospective or the
//! report), which takes the rows left; the interjection being typed; the
//! status bar; the key line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::super::consumers::retrospective_lines;
use super::super::text::{duration_words, grouped};
use super::gauge::{self, Gauge, Level};
use super::state::{IterStatus, Iteration, Outcome, State, Status, StepRow};
use super::view::{Mode, View, max_back, pane_rows};

/// Iteration rows shown under a running loop step.
pub(super) const ITERATION_ROWS: usize = 8;
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// What the frame shows besides the run: read once at the start.
#[derive(Debug, Clone, Default)]
pub(super) struct Info {
    /// The repository's name and its branch (a short SHA on a detached
    /// HEAD; none before the first commit); `None` outside a repository.
    pub repo: Option<(String, Option<String>)>,
    /// `VOYAGE_STATUSLINE=0` / `EXECUTANT_STATUSLINE=0` turn the bar off.
    pub statusline: bool,
    /// Keys can be read (stdin is a terminal).
    pub interactive: bool,
}

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

fn spinner(now_ms: u64) -> &'static str {
    let frame = usize::try_from(now_ms / 100).unwrap_or_default() % SPINNER.len();
    SPINNER.get(frame).copied().unwrap_or("⠋")
}

pub(super) use crate::clock::short_duration;

/// `left` with `right` at the end of a `width`-cell row.
fn spread<'a>(mut left: Vec<Span<'a>>, right: Span<'a>, width: u16) -> Line<'a> {
    let used: usize = left.iter().map(Span::width).sum();
    let room = usize::from(width).saturating_sub(used + right.width() + 1);
    if !right.content.is_empty() {
        left.push(Span::raw(" ".repeat(room.max(1))));
        left.push(right);
    }
    Line::from(left)
}

fn step_line<'a>(row: &'a StepRow, now_ms: u64, width: u16) -> Line<'a> {
    let (glyph, style, time) = match &row.status {
        Status::Pending => ("·", dim(), String::new()),
        Status::Running { since_ms } => (
            spinner(now_ms),
            Style::default().fg(Color::Cyan),
            short_duration(now_ms.saturating_sub(*since_ms)),
        ),
        Status::Done { duration_ms } => (
            "✓",
            Style::default().fg(Color::Green),
            short_duration(*duration_ms),
        ),
        Status::Failed { duration_ms, .. } => (
            "✗",
            Style::default().fg(Color::Red),
            short_duration(*duration_ms),
        ),
        Status::Skipped => ("-", dim(), "skipped".to_owned()),
    };
    let name_style = if row.status == Status::Pending {
        dim()
    } else {
        Style::default()
    };
    spread(
        vec![
            Span::raw(" "),
            Span::styled(glyph, style),
            Span::raw(" "),
            Span::styled(row.name.as_str(), name_style),
        ],
        Span::styled(time, dim()),
        width,
    )
}

fn iteration_line(record: &Iteration, now_ms: u64, width: u16) -> Line<'_> {
    let (glyph, style, ms) = match record.status {
        IterStatus::Running => (
            spinner(now_ms),
            Style::default().fg(Color::Cyan),
            now_ms.saturating_sub(record.since_ms),
        ),
        IterStatus::Done { duration_ms } => ("✓", Style::default().fg(Color::Green), duration_ms),
        IterStatus::Failed { duration_ms } => ("✗", Style::default().fg(Color::Red), duration_ms),
    };
    let mut spans = vec![
        Span::raw("     "),
        Span::styled(glyph, style),
        Span::raw(format!(
            " {}/{} {}",
            record.iteration, record.total, record.item
        )),
    ];
    if let Some((number, total, name)) = &record.inner {
        spans.push(Span::styled(format!("  [{number}/{total}] {name}"), dim()));
    }
    spread(spans, Span::styled(short_duration(ms), dim()), width)
}

/// The step list's rows, and the row of the running (or last) step.
fn list_lines(state: &State, now_ms: u64, width: u16) -> (Vec<Line<'_>>, usize) {
    let mut lines = Vec::with_capacity(state.steps.len());
    let mut current_row = 0;
    for (i, row) in state.steps.iter().enumerate() {
        if state.current == Some(i) {
            current_row = lines.len();
        }
        lines.push(step_line(row, now_ms, width));
        if matches!(row.status, Status::Running { .. }) && !row.iterations.is_empty() {
            let shown = row.iterations.len().min(ITERATION_ROWS);
            let hidden =
                row.earlier + u64::try_from(row.iterations.len() - shown).unwrap_or_default();
            if hidden > 0 {
                lines.push(Line::styled(format!("     … {hidden} earlier"), dim()));
            }
            let start = row.iterations.len() - shown;
            for record in row.iterations.iter().skip(start) {
                lines.push(iteration_line(record, now_ms, width));
            }
        }
    }
    (lines, current_row)
}

/// Rows of `area` from `*y`, at most `height`, moving `*y` past them.
fn take(area: Rect, y: &mut u16, height: u16) -> Rect {
    let top = (*y).min(area.bottom());
    let height = height.min(area.bottom() - top);
    *y = top + height;
    Rect::new(area.x, top, area.width, height)
}

fn status_line<'a>(state: &State, info: &'a Info) -> Line<'a> {
    let mut spans = vec![Span::raw(" ")];
    if let Some((repo, branch)) = &info.repo {
        spans.push(Span::styled(
            repo.as_str(),
            Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
        ));
        if let Some(branch) = branch {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                branch.as_str(),
                Style::default().fg(Color::Cyan),
            ));
        }
        spans.push(Span::raw(" "));
    }
    let occupancy = match (&state.context, state.running_model()) {
        (Some(o), _) => Some((o.tokens, o.model.clone())),
        (None, Some(model)) => Some((0, model.to_owned())),
        (None, None) => None,
    };
    if let Some((tokens, model)) = occupancy {
        let g = Gauge::new(tokens, &model);
        let colour = match g.level {
            Level::Ok => Color::Green,
            Level::Warn => Color::Yellow,
            Level::High => Color::Red,
        };
        spans.push(Span::styled(
            "━".repeat(g.filled),
            Style::default().fg(colour),
        ));
        spans.push(Span::styled("─".repeat(gauge::CELLS - g.filled), dim()));
        spans.push(Span::styled(
            format!(" {}%", g.percent),
            Style::default().fg(colour),
        ));
        spans.push(Span::styled(format!(" {}/{}", g.used, g.limit), dim()));
    }
    Line::from(spans)
}

fn key_line<'a>(state: &State, view: &View, info: &Info, now_ms: u64) -> Line<'a> {
    let key = |k: &'a str| Span::styled(k, Style::default().add_modifier(Modifier::BOLD));
    let words = |w: &'a str| Span::styled(w, dim());
    match &view.mode {
        Mode::Running => {
            let elapsed = match &state.outcome {
                Some(
                    Outcome::Complete { duration_ms }
                    | Outcome::Cancelled { duration_ms }
                    | Outcome::Failed { duration_ms, .. },
                ) => *duration_ms,
                None => now_ms,
            };
            let mut spans = vec![Span::styled(format!(" {}", short_duration(elapsed)), dim())];
            if state.cost_usd > 0.0 {
                spans.push(Span::styled(format!(" · ${:.4}", state.cost_usd), dim()));
            }
            if info.interactive && view.input.is_none() {
                spans.extend([
                    words("   "),
                    key("i"),
                    words(" interject  "),
                    key("↑↓"),
                    words(" scroll  "),
                    key("[ ]"),
                    words(" resize  "),
                    key("^C"),
                    words(" stop"),
                ]);
            }
            Line::from(spans)
        }
        Mode::Retrospective { update, output } => {
            let mut spans = vec![Span::raw(" ")];
            if view.fixable {
                let (on, off) = (
                    Style::default().add_modifier(Modifier::REVERSED),
                    Style::default(),
                );
                spans.push(Span::styled(
                    " update the workflow ",
                    if *update { on } else { off },
                ));
                spans.push(Span::raw(" "));
                spans.push(Span::styled(" exit ", if *update { off } else { on }));
                spans.extend([words("   "), key("u"), words(" update  ")]);
            }
            spans.extend([
                key("o"),
                words(if *output { " analysis  " } else { " output  " }),
                key("q"),
                words(" exit"),
            ]);
            Line::from(spans)
        }
        Mode::Report { asking: true } => {
            Line::styled(" asking for an efficiency suggestion…", dim())
        }
        Mode::Report { asking: false } => Line::from(vec![
            Span::raw(" "),
            key("a"),
            words(" ask for an efficiency suggestion  "),
            key("any other key"),
            words(" exit"),
        ]),
    }
}

/// The retrospective's text, suggestions first after the summary, so that
/// what can be done survives when the screen is short.
fn retrospective_text(analysis: &serde_json::Value) -> Vec<Line<'static>> {
    let mut summary = Vec::new();
    let mut suggestions = Vec::new();
    let mut rest = Vec::new();
    for (i, line) in retrospective_lines(analysis).into_iter().enumerate() {
        if i == 0 {
            summary.push(Line::styled(
                line,
                Style::default().add_modifier(Modifier::BOLD),
            ));
        } else if line.starts_with("suggestion") || line.starts_with("fix in the workflow") {
            suggestions.push(Line::from(line));
        } else {
            rest.push(Line::styled(line, dim()));
        }
    }
    summary.into_iter().chain(suggestions).chain(rest).collect()
}

fn report_text(state: &State, suggestion: Option<&str>) -> Vec<Line<'static>> {
    let Some(report) = &state.report else {
        return Vec::new();
    };
    let t = &report.total_tokens;
    let overflow = if report.overflow_calls > 0 {
        format!(
            "{} call(s), {} token(s) at the long-context rate",
            report.overflow_calls,
            grouped(report.overflow_tokens)
        )
    } else {
        "none".to_owned()
    };
    let mut lines = vec![
        Line::from(format!("Duration  {}", duration_words(report.duration_ms))),
        Line::from(format!("Cost      ${:.4}", report.total_cost_usd)),
        Line::from(format!(
            "Tokens    {} ({} in, {} out, {} cache-write, {} cache-read)",
            grouped(t.total()),
            grouped(t.input_tokens),
            grouped(t.output_tokens),
            grouped(t.cache_creation_tokens),
            grouped(t.cache_read_tokens)
        )),
        Line::from(format!("Overflow  {overflow}")),
    ];
    if let Some(s) = suggestion.or(report.suggestion.as_deref()) {
        lines.push(Line::from(""));
        lines.push(Line::from(format!("Suggestion: {s}")));
    }
    lines
}

/// Draws the frame; `suggestion` is one asked for after the run.
pub(super) fn draw(
    frame: &mut Frame<'_>,
    state: &State,
    view: &mut View,
    info: &Info,
    now_ms: u64,
    suggestion: Option<&str>,
) {
    let area = frame.area();
    let (list, current_row) = list_lines(state, now_ms, area.width);
    let below = 1 + u16::from(view.input.is_some()) + u16::from(info.statusline);
    // The goal, the pane's borders and what is below the pane.
    let fixed = 1 + 2 + below;
    let room = area.height.saturating_sub(fixed);
    let list_len = u16::try_from(list.len()).unwrap_or(u16::MAX);
    let rows = pane_rows(room.saturating_sub(list_len), view.preference);
    let list_rows = list_len.min(room.saturating_sub(rows));
    view.rows = rows;
    view.most = pane_rows(room.saturating_sub(list_len), None);
    view.follow(state.step_starts);

    let mut y = area.y;
    let header = take(area, &mut y, 1);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(" {}", state.goal),
            Style::default().add_modifier(Modifier::BOLD),
        )),
        header,
    );
    let list_area = take(area, &mut y, list_rows);
    // A list taller than its rows keeps the running step in view, the
    // step before it above, its iterations below.
    let skip = if list.len() > usize::from(list_rows) {
        current_row
            .saturating_sub(1)
            .min(list.len() - usize::from(list_rows))
    } else {
        0
    };
    let shown: Vec<Line<'_>> = list
        .into_iter()
        .skip(skip)
        .take(usize::from(list_rows))
        .collect();
    frame.render_widget(Paragraph::new(shown), list_area);

    let pane = take(area, &mut y, rows + 2);
    let current_name = state
        .current
        .and_then(|i| state.steps.get(i))
        .map_or("", |row| row.name.as_str());
    match &view.mode {
        Mode::Retrospective { output: false, .. } => {
            let text = state
                .retrospective
                .as_ref()
                .map(|(_, analysis)| retrospective_text(analysis))
                .unwrap_or_default();
            let block = Block::default()
                .borders(Borders::ALL)
                .title(format!(" retrospective: {current_name} "));
            frame.render_widget(
                Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
                pane,
            );
        }
        Mode::Report { .. } => {
            let block = Block::default().borders(Borders::ALL).title(" run report ");
            frame.render_widget(
                Paragraph::new(report_text(state, suggestion))
                    .block(block)
                    .wrap(Wrap { trim: false }),
                pane,
            );
        }
        Mode::Running | Mode::Retrospective { output: true, .. } => {
            let back = view.scrolled(&state.output, rows);
            let mut lines: Vec<Line<'_>> = Vec::with_capacity(usize::from(rows));
            if back > 0 {
                let count = usize::from(rows.saturating_sub(1));
                let back = usize::try_from(back).unwrap_or(usize::MAX);
                lines.extend(state.output.window(back, count).map(Line::raw));
                // The indicator keeps the pane's height the same.
                while lines.len() < count {
                    lines.push(Line::raw(""));
                }
                lines.push(Line::styled(
                    format!(
                        "— scrolled up {back} line{} —",
                        if back == 1 { "" } else { "s" }
                    ),
                    Style::default().fg(Color::Yellow),
                ));
            } else {
                lines.extend(state.output.window(0, usize::from(rows)).map(Line::raw));
            }
            debug_assert!(back <= max_back(state.output.len(), rows));
            let block = Block::default()
                .borders(Borders::ALL)
                .border_style(dim())
                .title(format!(" {current_name} "));
            frame.render_widget(Paragraph::new(lines).block(block), pane);
        }
    }

    // What is below the pane goes at the bottom of the screen.
    let mut y = area.bottom().saturating_sub(below).max(y);
    if let Some(text) = &view.input {
        let line = Line::from(vec![
            Span::styled(" ▷ ", Style::default().fg(Color::Magenta)),
            Span::raw(text.as_str()),
            Span::raw("▌ "),
            Span::styled("esc to cancel", dim()),
        ]);
        frame.render_widget(Paragraph::new(line), take(area, &mut y, 1));
    }
    if info.statusline {
        frame.render_widget(
            Paragraph::new(status_line(state, info)),
            take(area, &mut y, 1),
        );
    }
    frame.render_widget(
        Paragraph::new(key_line(state, view, info, now_ms)),
        take(area, &mut y, 1),
    );
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::super::super::event::{ErrorInfo, Event, RunReport, TokenUsage};
    use super::super::state::Occupancy;
    use super::super::state::tests::{command, each, start, started};
    use super::*;

    /// The screen as text, one string per row (trailing spaces kept).
    fn screen(
        state: &State,
        view: &mut View,
        info: &Info,
        w: u16,
        h: u16,
        now: u64,
    ) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|frame| draw(frame, state, view, info, now, None))
            .unwrap();
        let buffer = terminal.backend().buffer();
        (0..h)
            .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect())
            .collect()
    }

    /// `left`, then `right` ending one cell before the edge of `w`.
    fn row(left: &str, right: &str, w: usize) -> String {
        let used = left.chars().count() + right.chars().count();
        format!("{left}{}{right} ", " ".repeat(w - used - 1))
    }

    fn fill(text: &str, w: usize) -> String {
        format!("{text}{}", " ".repeat(w - text.chars().count()))
    }

    fn boxed(text: &str, w: usize) -> String {
        format!("│{}│", fill(text, w - 2))
    }

    fn top(title: &str, w: usize) -> String {
        format!("┌{title}{}┐", "─".repeat(w - 2 - title.chars().count()))
    }

    fn bottom(w: usize) -> String {
        format!("└{}┘", "─".repeat(w - 2))
    }

    fn plain() -> Info {
        Info {
            repo: None,
            statusline: false,
            interactive: false,
        }
    }

    /// build done, a loop of 10 running its 10th, deploy pending.
    fn looping() -> State {
        let mut state = started(vec![
            command("build"),
            each("loop", vec![command("x")]),
            command("deploy"),
        ]);
        state.apply(&start(0), 0);
        state.apply(
            &Event::StepComplete {
                index: 0,
                name: "build".into(),
                duration_ms: 1500,
            },
            0,
        );
        state.apply(&start(1), 0);
        for i in 1..=10u64 {
            state.apply(
                &Event::StepIteration {
                    index: 1,
                    item: format!("item{i}"),
                    iteration: i,
                    total: 10,
                },
                i * 100,
            );
            if i < 10 {
                state.apply(
                    &Event::StepIterationComplete {
                        index: 1,
                        iteration: i,
                        status: super::super::super::event::IterationStatus::Complete,
                        error: None,
                    },
                    i * 100 + 100,
                );
            }
        }
        for i in 1..=6 {
            state.apply(
                &Event::OutputText {
                    index: 1,
                    text: format!("out {i}"),
                },
                1500,
            );
        }
        state
    }

    #[test]
    fn the_step_list_with_a_loops_last_eight_iterations_the_pane_and_the_status_bar() {
        let mut state = looping();
        state.context = Some(Occupancy {
            tokens: 162_200,
            model: "sonnet".into(),
        });
        let info = Info {
            repo: Some(("voyage".into(), Some("main".into()))),
            statusline: true,
            interactive: false,
        };
        let w = 44;
        let mut view = View::default();
        let mut expected = vec![
            fill(" Ship it", w),
            row(" ✓ build", "1.5s", w),
            row(" ⠋ loop", "2.0s", w),
            fill("     … 2 earlier", w),
        ];
        for i in 3..10 {
            expected.push(row(&format!("     ✓ {i}/10 item{i}"), "0.1s", w));
        }
        expected.extend([
            row("     ⠋ 10/10 item10", "1.0s", w),
            fill(" · deploy", w),
            top(" loop ", w),
            boxed("out 4", w),
            boxed("out 5", w),
            boxed("out 6", w),
            bottom(w),
            fill(" voyage main ━━━━━━━━── 81% 162.2k/200k", w),
            fill(" 2.0s", w),
        ]);
        assert_eq!(screen(&state, &mut view, &info, 44, 20, 2000), expected);
        // The room left was 3 rows: the pane's minimum.
        assert_eq!(view.rows, super::super::view::MIN_OUTPUT_ROWS);
    }

    #[test]
    fn a_list_taller_than_the_screen_keeps_the_running_step_in_view() {
        let state = looping();
        let w = 30;
        let mut view = View::default();
        // 10 rows: the goal, 3 list rows, the pane (3 + borders), keys.
        assert_eq!(
            screen(&state, &mut view, &plain(), 30, 9, 2000),
            [
                fill(" Ship it", w),
                row(" ✓ build", "1.5s", w),
                row(" ⠋ loop", "2.0s", w),
                top(" loop ", w),
                boxed("out 4", w),
                boxed("out 5", w),
                boxed("out 6", w),
                bottom(w),
                fill(" 2.0s", w),
            ]
        );
    }

    #[test]
    fn a_scrolled_resized_pane_with_the_interjection_line() {
        let mut state = started(vec![command("build")]);
        state.apply(&start(0), 0);
        for i in 0..20 {
            state.apply(
                &Event::OutputText {
                    index: 0,
                    text: format!("line {i}"),
                },
                10,
            );
        }
        let mut view = View {
            preference: Some(4),
            back: 3,
            at_total: 20,
            starts_seen: 1,
            input: Some("use staging".into()),
            ..View::default()
        };
        let w = 36;
        let blank = fill("", w);
        assert_eq!(
            screen(&state, &mut view, &plain(), 36, 16, 2000),
            [
                fill(" Ship it", w),
                row(" ⠋ build", "2.0s", w),
                top(" build ", w),
                boxed("line 14", w),
                boxed("line 15", w),
                boxed("line 16", w),
                boxed("— scrolled up 3 lines —", w),
                bottom(w),
                blank.clone(),
                blank.clone(),
                blank.clone(),
                blank.clone(),
                blank.clone(),
                blank,
                fill(" ▷ use staging▌ esc to cancel", w),
                fill(" 2.0s", w),
            ]
        );
        // The chosen size is clamped when the terminal shrinks: 9 rows
        // leave the pane 3, its minimum.
        let small = screen(&state, &mut view, &plain(), 36, 9, 2000);
        assert_eq!(view.rows, 3);
        assert_eq!(small[4], boxed("line 16", w));
        assert_eq!(small[5], boxed("— scrolled up 3 lines —", w));
        // A new step: back to the tail.
        state.apply(&start(0), 2100);
        state.apply(
            &Event::OutputText {
                index: 0,
                text: "fresh".into(),
            },
            2100,
        );
        let again = screen(&state, &mut view, &plain(), 36, 16, 2100);
        assert_eq!(again[3], boxed("fresh", w));
        assert_eq!(view.back, 0);
    }

    fn status(state: &State, repo: Option<(&str, Option<&str>)>) -> String {
        let info = Info {
            repo: repo.map(|(r, b)| (r.to_owned(), b.map(str::to_owned))),
            statusline: true,
            interactive: false,
        };
        status_line(state, &info)
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect()
    }

    #[test]
    fn the_gauge_follows_the_model_and_its_thresholds_colour_it() {
        let mut state = started(vec![super::super::state::tests::prompt("p", "opus[1m]")]);
        // Outside a repository, no step running: nothing but the margin.
        assert_eq!(status(&state, None), " ");
        // A prompt step running, no usage yet: its model's empty window.
        state.apply(&start(0), 0);
        assert_eq!(
            status(&state, Some(("r", Some("44ecb73")))),
            " r 44ecb73 ────────── 0% 0/1M"
        );
        assert_eq!(status(&state, Some(("r", None))), " r ────────── 0% 0/1M");
        state.context = Some(Occupancy {
            tokens: 950_000,
            model: "opus[1m]".into(),
        });
        assert_eq!(status(&state, None), " ━━━━━━━━━─ 95% 950k/1M");
        let colour = |tokens: u64| {
            let mut s = state.clone();
            s.context = Some(Occupancy {
                tokens,
                model: "sonnet".into(),
            });
            let info = Info::default();
            status_line(&s, &info).spans[1].style.fg
        };
        assert_eq!(colour(139_999), Some(Color::Green));
        assert_eq!(colour(140_000), Some(Color::Yellow));
        assert_eq!(colour(180_000), Some(Color::Red));
    }

    #[test]
    fn the_retrospective_pane_puts_suggestions_first_and_offers_the_update() {
        let mut state = started(vec![command("fail")]);
        state.apply(&start(0), 0);
        state.apply(
            &Event::OutputText {
                index: 0,
                text: "boom".into(),
            },
            1,
        );
        state.apply(
            &Event::StepError {
                index: 0,
                name: "fail".into(),
                error: ErrorInfo {
                    name: "Error".into(),
                    message: "exit 4".into(),
                    code: "WORKFLOW_COMMAND_FAILED".into(),
                },
                last_output: None,
            },
            1000,
        );
        state.apply(
            &Event::StepRetrospective {
                index: 0,
                retrospective: serde_json::json!({
                    "summary": "It exits 4.", "rootCause": "exit 4", "evidence": ["boom"],
                    "suggestions": [{"issue": "fails", "change": "drop it", "severity": "high"}],
                    "workflowFixable": true, "refineInstruction": "Drop exit 4."
                }),
            },
            1000,
        );
        let mut view = View {
            mode: Mode::Retrospective {
                update: true,
                output: false,
            },
            fixable: true,
            ..View::default()
        };
        let w = 60;
        let blank = boxed("", w);
        assert_eq!(
            screen(&state, &mut view, &plain(), 60, 12, 2000),
            [
                fill(" Ship it", w),
                row(" ✗ fail", "1.0s", w),
                top(" retrospective: fail ", w),
                boxed("It exits 4.", w),
                boxed("suggestion (high): fails → drop it", w),
                boxed("fix in the workflow: Drop exit 4.", w),
                boxed("root cause: exit 4", w),
                boxed("evidence: boom", w),
                blank.clone(),
                blank,
                bottom(w),
                fill(
                    "  update the workflow   exit    u update  o output  q exit",
                    w
                ),
            ]
        );
        // `o`: the step's output instead.
        view.mode = Mode::Retrospective {
            update: true,
            output: true,
        };
        let output = screen(&state, &mut view, &plain(), 60, 12, 2000);
        assert_eq!(output[2], top(" fail ", w));
        assert_eq!(output[3], boxed("boom", w));
        assert_eq!(output[4], boxed("✗ exit 4", w));
    }

    #[test]
    fn the_report_screen_and_its_prompt() {
        let mut state = started(vec![command("a")]);
        state.apply(
            &Event::WorkflowReport {
                report: RunReport {
                    duration_ms: 65_000,
                    total_cost_usd: 0.0123,
                    total_tokens: TokenUsage {
                        input_tokens: 1000,
                        output_tokens: 200,
                        cache_creation_tokens: 3000,
                        cache_read_tokens: 40_000,
                    },
                    overflow_tokens: 0,
                    overflow_calls: 0,
                    step_narrative: Vec::new(),
                    guard: None,
                    suggestion: None,
                },
            },
            1,
        );
        let mut view = View {
            mode: Mode::Report { asking: false },
            ..View::default()
        };
        let w = 84;
        let rows = screen(&state, &mut view, &plain(), 84, 11, 0);
        assert_eq!(
            rows[2..],
            [
                top(" run report ", w),
                boxed("Duration  1m 05s", w),
                boxed("Cost      $0.0123", w),
                boxed(
                    "Tokens    44,200 (1,000 in, 200 out, 3,000 cache-write, 40,000 cache-read)",
                    w
                ),
                boxed("Overflow  none", w),
                boxed("", w),
                boxed("", w),
                bottom(w),
                fill(" a ask for an efficiency suggestion  any other key exit", w),
            ]
        );
        view.mode = Mode::Report { asking: true };
        let mut terminal = Terminal::new(TestBackend::new(84, 11)).unwrap();
        terminal
            .draw(|frame| {
                draw(
                    frame,
                    &state,
                    &mut view,
                    &plain(),
                    0,
                    Some("Merge steps 2 and 3."),
                )
            })
            .unwrap();
        let buffer = terminal.backend().buffer();
        let line = |y: u16| {
            (0..84u16)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        };
        assert_eq!(line(8), boxed("Suggestion: Merge steps 2 and 3.", w));
        assert_eq!(line(10), fill(" asking for an efficiency suggestion…", w));
    }
}
