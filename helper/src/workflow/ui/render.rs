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

/// `0.4s` under ten seconds, then `12s`, `3m 05s`.
pub(super) fn short_duration(ms: u64) -> String {
    if ms < 10_000 {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    } else {
        duration_words(ms)
    }
}

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
            if state.current == Some(i) {
                current_row = lines.len() - 1;
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
    // A list taller than its rows keeps the running step in view.
    let skip = if list.len() > usize::from(list_rows) {
        let half = usize::from(list_rows) / 2;
        current_row
            .saturating_sub(half)
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
