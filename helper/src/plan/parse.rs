//! From Markdown to a [`Plan`] (trekexecute Phase 2): the file kind, the
//! header, the steps and their fields, the session-spec sections, the
//! Execution Strategy and the Verification criteria.

use serde_json::Value;

use super::code;
use crate::yaml::{self, front_matter};

use super::check;
use super::criterion;
use super::fields::{self, Label, RawField};
use super::manifest;
use super::markdown::{self, Block, TextLine};
use super::model::{Plan, PlanKind, SessionSpec, Verification};
use super::step::{Action, CommandRef, Field, FileRef, NEW_MARKER, OnFailure, Step};
use super::strategy::{self, Session, Strategy, Wave};
use super::version;
use crate::problem::Problem;

/// Parses `source` (read from `file`). A file that is neither a trekplan nor
/// a session spec gives only its problems.
pub fn parse(source: &str, file: &str) -> Result<Plan, Vec<Problem>> {
    let name_file = |problems: &mut Vec<Problem>| {
        for p in problems {
            p.file = Some(file.to_owned());
        }
    };
    match parse_unnamed(source, file) {
        Ok(mut plan) => {
            name_file(&mut plan.problems);
            Ok(plan)
        }
        Err(mut problems) => {
            name_file(&mut problems);
            Err(problems)
        }
    }
}

/// [`parse`], before each problem is given the file's name.
fn parse_unnamed(source: &str, file: &str) -> Result<Plan, Vec<Problem>> {
    // An unclosed `---` at the top is no front matter: the Markdown reader
    // sees it as a rule, as it always has.
    let front = front_matter::split(source).ok().flatten();
    let (body, body_line) = front.map_or((source, 1), |f| (f.body, f.body_line));
    let blocks = markdown::blocks(body, body_line);
    let doc = Doc::new(&blocks);
    let mut problems = Vec::new();

    let step_headings = doc.step_headings();
    forbidden_headings(&blocks, &mut problems);

    let has_scope = doc.section("Scope Fence").is_some();
    let has_entry = doc
        .section("Dependencies")
        .is_some_and(|s| s.iter().any(|b| matches!(b, Block::Text(t) if t.text.trim_start().to_ascii_lowercase().starts_with("entry condition:"))));
    let exit = doc
        .section("Exit Condition")
        .or_else(|| doc.section("Exit Conditions"));
    let kind = if has_entry && has_scope && exit.is_some() {
        PlanKind::SessionSpec
    } else if doc.section("Implementation Plan").is_some()
        && !step_headings.is_empty()
        && !has_scope
    {
        PlanKind::Trekplan
    } else {
        let seen: Vec<String> = problems
            .iter()
            .filter(|p| p.code == code::PLAN_FORBIDDEN_HEADING)
            .filter_map(|p| p.message.split('"').nth(1).map(|h| format!("\"{h}\"")))
            .collect();
        let detail = if seen.is_empty() {
            String::new()
        } else {
            format!("; step-like headings seen: {}", seen.join(", "))
        };
        problems.insert(
            0,
            Problem::new(code::PLAN_UNRECOGNIZED_FORMAT, format!(
                    "not a trekplan (`## Implementation Plan` with `### Step N: description` headings) \
                     nor a session spec (`## Dependencies` with `Entry condition:`, `## Scope Fence`, \
                     `## Exit Condition`){detail}"
                )).at_line(1),
        );
        return Err(problems);
    };

    let header = Header::read(front.as_ref(), &blocks, &mut problems);
    let strict = header
        .version
        .as_deref()
        .is_some_and(|v| version::at_least(v, 1, 7));
    let title = blocks.iter().find_map(|b| match b {
        Block::Heading { level: 1, text, .. } => Some(text.clone()),
        _ => None,
    });

    let written = markdown::WrittenLines::new(source);
    let steps = read_steps(&doc, &step_headings, strict, &written, &mut problems);
    if !strict && !steps.is_empty() {
        // A Manifest written in a legacy plan is not read: say so, or its
        // author takes the synthesised one for theirs.
        let written_manifests = step_headings
            .iter()
            .filter(|h| {
                fields::read(doc.under(h.index, 3))
                    .iter()
                    .any(|f| f.label == Label::Manifest)
            })
            .count();
        let message = if written_manifests == 0 {
            "legacy plan (no plan_version, or older than 1.7): manifests are synthesised from each step's \
             Files and Checkpoint, so the audit is less precise; add `plan_version: 1.7` and a Manifest per step"
                .to_owned()
        } else {
            format!(
                "legacy plan (no plan_version, or older than 1.7): the Manifest written in {written_manifests} of {} steps is not read, \
                 and every step's manifest is synthesised from its Files and Checkpoint instead; add `plan_version: 1.7` to the \
                 front matter to have them read",
                steps.len()
            )
        };
        problems
            .push(Problem::warning(code::PLAN_LEGACY, message).at(header.version_line.or(Some(1))));
    }

    let session = (kind == PlanKind::SessionSpec)
        .then(|| read_session_spec(&doc, strict, &written, &mut problems));
    let strategy = doc
        .section_heading("Execution Strategy")
        .map(|(line, index)| read_strategy(&doc, line, index));
    let verification = if kind == PlanKind::Trekplan {
        read_verification(&doc, &blocks, &mut problems)
    } else {
        None
    };

    let mut plan = Plan {
        file: file.to_owned(),
        kind,
        title,
        plan_version: header.version,
        strict,
        legacy_plan: !strict,
        profile: header.profile,
        steps,
        session,
        strategy,
        verification,
        problems,
    };
    let recovery = kind == PlanKind::SessionSpec && doc.section("Recovery Metadata").is_some();
    check::steps(&mut plan, recovery);
    check::completable(&mut plan);
    check::strategy(&mut plan);
    plan.problems.sort_by_key(|p| p.line.unwrap_or(0));
    Ok(plan)
}

/// The Markdown blocks of `source` after its front matter, with the file's
/// lines: what [`parse`] reads, for a writer that works on the same blocks.
pub(super) fn body_blocks(source: &str) -> Vec<Block> {
    let front = front_matter::split(source).ok().flatten();
    let (body, body_line) = front.map_or((source, 1), |f| (f.body, f.body_line));
    markdown::blocks(body, body_line)
}

/// Positions of headings, for finding sections (the filler finds its steps
/// with it too, so that both see the same steps).
pub(super) struct Doc<'a> {
    blocks: &'a [Block],
}

/// A `### Step N: title` heading.
pub(super) struct StepHeading {
    pub index: usize,
    pub number: u32,
    pub title: String,
    pub line: u32,
}

impl<'a> Doc<'a> {
    pub(super) fn new(blocks: &'a [Block]) -> Self {
        Self { blocks }
    }

    /// The blocks after heading `index` up to the next heading of `level` or
    /// higher.
    pub(super) fn under(&self, index: usize, level: u8) -> &'a [Block] {
        let rest = self.blocks.get(index + 1..).unwrap_or_default();
        let end = rest
            .iter()
            .position(|b| matches!(b, Block::Heading { level: l, .. } if *l <= level))
            .unwrap_or(rest.len());
        rest.get(..end).unwrap_or_default()
    }

    /// The `## name` heading's line and index (case-insensitive, exact text).
    fn section_heading(&self, name: &str) -> Option<(u32, usize)> {
        self.blocks.iter().enumerate().find_map(|(i, b)| match b {
            Block::Heading {
                level: 2,
                text,
                line,
            } if text.eq_ignore_ascii_case(name) => Some((*line, i)),
            _ => None,
        })
    }

    fn section(&self, name: &str) -> Option<&'a [Block]> {
        self.section_heading(name).map(|(_, i)| self.under(i, 2))
    }

    pub(super) fn step_headings(&self) -> Vec<StepHeading> {
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(index, b)| match b {
                Block::Heading {
                    level: 3,
                    text,
                    line,
                } => {
                    let (number, title) = step_heading(text)?;
                    Some(StepHeading {
                        index,
                        number,
                        title,
                        line: *line,
                    })
                }
                _ => None,
            })
            .collect()
    }
}

/// `Step N: title` → (N, title).
fn step_heading(text: &str) -> Option<(u32, String)> {
    let rest = text.strip_prefix("Step ")?;
    let (number, title) = rest.split_once(':')?;
    Some((number.trim().parse().ok()?, title.trim().to_owned()))
}

/// Headings that look like steps but are not written `### Step N: …`.
fn forbidden_headings(blocks: &[Block], problems: &mut Vec<Problem>) {
    for block in blocks {
        let Block::Heading { level, text, line } = block else {
            continue;
        };
        if *level < 2 || *level > 4 {
            continue;
        }
        let mut words = text.split_whitespace();
        let (Some(word), Some(number)) = (words.next(), words.next()) else {
            continue;
        };
        let number = number.trim_end_matches([':', '.', ')']);
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let word_lower = word.to_lowercase();
        let allowed = matches!(word_lower.as_str(), "session" | "wave")
            || (*level == 3 && word == "Step" && step_heading(text).is_some());
        let step_like = matches!(
            word_lower.as_str(),
            "step"
                | "phase"
                | "fase"
                | "stage"
                | "task"
                | "part"
                | "etappe"
                | "schritt"
                | "paso"
                | "étape"
                | "passo"
                | "stap"
                | "milestone"
        );
        if step_like && !allowed {
            problems.push(Problem::new(code::PLAN_FORBIDDEN_HEADING, format!(
                    "heading \"{} {}\" is not a step heading; write steps as \"### Step N: <description>\"",
                    "#".repeat(usize::from(*level)),
                    heading_prefix(text)
                )).at_line(*line));
        }
    }
}

/// The first two words of a heading with their punctuation: `Fase 1:`.
fn heading_prefix(text: &str) -> String {
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The front matter (or a `plan_version:` line before the first step).
struct Header {
    version: Option<String>,
    version_line: Option<u32>,
    profile: Option<String>,
}

impl Header {
    fn read(
        front: Option<&front_matter::Block<'_>>,
        blocks: &[Block],
        problems: &mut Vec<Problem>,
    ) -> Self {
        let mut header = Self {
            version: None,
            version_line: None,
            profile: None,
        };
        if let Some(front) = front {
            header.read_front_matter(front, problems);
        }
        if header.version.is_none() {
            for block in blocks {
                match block {
                    Block::Heading { level: 3, text, .. } if step_heading(text).is_some() => break,
                    Block::Text(t) => {
                        if let Some(v) = t.text.trim().strip_prefix("plan_version:") {
                            header.version = Some(unquote(v.trim()).trim_matches('`').to_owned());
                            header.version_line = Some(t.line);
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        if let (Some(v), Some(line)) = (&header.version, header.version_line)
            && version::parse(v).is_none()
        {
            problems.push(
                Problem::new(
                    code::PLAN_INVALID_VERSION,
                    format!("plan_version \"{v}\" is not a version number such as 1.7"),
                )
                .at_line(line),
            );
        }
        header
    }

    fn read_front_matter(&mut self, front: &front_matter::Block<'_>, problems: &mut Vec<Problem>) {
        let line = front.first_line;
        if front.yaml.trim().is_empty() {
            return;
        }
        let tree = match front.tree() {
            Ok(tree) => tree,
            Err(e) => {
                problems.push(super::manifest::yaml_problem(
                    code::PLAN_FRONT_MATTER,
                    &e,
                    line,
                    "the front matter is not valid YAML",
                ));
                // The version the broken YAML claims, from its text: the
                // parser gives no tree (so no spans) to take it from, and a
                // broken front matter's version is still checked and
                // reported at its line, as it always was.
                for (i, l) in front.yaml.lines().enumerate() {
                    if let Some(v) = l.trim().strip_prefix("plan_version:") {
                        self.version = Some(unquote(v.trim()).to_owned());
                        self.version_line =
                            Some(line.saturating_add(u32::try_from(i).unwrap_or(0)));
                    }
                }
                return;
            }
        };
        match &tree.value {
            yaml::Value::Map(_) => {}
            yaml::Value::Null => return,
            _ => {
                problems.push(
                    Problem::new(
                        code::PLAN_FRONT_MATTER,
                        "the front matter must be a YAML mapping (key: value lines)",
                    )
                    .at_line(line),
                );
                return;
            }
        }
        self.profile = tree
            .get("profile")
            .and_then(yaml::Node::as_str)
            .map(str::to_owned);
        if let Some((key, value)) = tree.entry("plan_version") {
            // Read the version as written: YAML would turn 1.10 into 1.1.
            let written = value
                .source(front.yaml)
                .map(|v| unquote(v.trim()).to_owned())
                .or_else(|| value.value.scalar_text());
            self.version = Some(written.unwrap_or_default());
            self.version_line = Some(key.line);
        }
    }
}

fn unquote(v: &str) -> &str {
    ['"', '\'']
        .iter()
        .find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))
        .unwrap_or(v)
}

fn read_steps(
    doc: &Doc<'_>,
    headings: &[StepHeading],
    strict: bool,
    written: &markdown::WrittenLines<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<Step> {
    headings
        .iter()
        .map(|h| read_step(h, doc.under(h.index, 3), strict, written, problems))
        .collect()
}

fn read_step(
    heading: &StepHeading,
    content: &[Block],
    strict: bool,
    written: &markdown::WrittenLines<'_>,
    problems: &mut Vec<Problem>,
) -> Step {
    let number = heading.number;
    let fields = fields::read(content);
    let field = |label: Label| fields.iter().find(|f| f.label == label);
    let text_field = |label: Label| {
        field(label).map(|f| Field {
            text: f.text(),
            line: f.line,
        })
    };
    let command = |label: Label| {
        field(label).and_then(|f| {
            f.command().map(|command| CommandRef {
                command,
                line: f.line,
            })
        })
    };

    let files = field(Label::Files).map(read_files).unwrap_or_default();
    let verify = command(Label::Verify);
    if verify.is_none() {
        problems.push(
            Problem::warning(code::PLAN_MISSING_VERIFY, format!("step {number} has no Verify command, so nothing checks it before its checkpoint")).at_line(heading.line)
            .in_step(number),
        );
    }
    let on_failure = match field(Label::OnFailure) {
        None => {
            problems.push(
                Problem::warning(
                    code::PLAN_MISSING_ON_FAILURE,
                    format!("step {number} has no On failure; escalate is assumed"),
                )
                .at_line(heading.line)
                .in_step(number),
            );
            OnFailure {
                action: Action::Escalate,
                note: None,
                line: None,
            }
        }
        Some(f) => read_on_failure(f, number, problems),
    };
    let checkpoint = command(Label::Checkpoint);
    let manifest = if strict {
        match field(Label::Manifest).and_then(|f| f.fence.as_ref()) {
            Some(&(_, yaml, fence_line)) => {
                manifest::parse(yaml, fence_line, number, Some(written), problems)
            }
            None => {
                let line = field(Label::Manifest).map_or(heading.line, |f| f.line);
                problems.push(
                    Problem::new(code::PLAN_MISSING_MANIFEST, format!(
                            "step {number} has no Manifest block with a YAML fence; plan_version 1.7 and later require one \
                             per step (`voyage-helper plan fill` writes one from the step's Files and Checkpoint; the six keys: {})",
                            manifest::KEYS.join(", ")
                        )).at_line(line)
                    .in_step(number),
                );
                None
            }
        }
    } else {
        Some(manifest::synthesize(&files, checkpoint.as_ref()))
    };
    Step {
        number,
        title: heading.title.clone(),
        line: heading.line,
        files,
        changes: text_field(Label::Changes),
        reuses: text_field(Label::Reuses),
        test_first: text_field(Label::TestFirst),
        verify,
        on_failure,
        checkpoint,
        manifest,
    }
}

/// Paths in backticks, each `(new)` when that marker follows it; without
/// backticks, comma-separated words.
fn read_files(field: &RawField<'_>) -> Vec<FileRef> {
    let mut out = Vec::new();
    for line in &field.lines {
        let text = line.text();
        let mut spans = line.spans().peekable();
        if spans.peek().is_none() {
            for part in text.split(',') {
                let new = part.contains(NEW_MARKER);
                // `none` (a sandbox pre-flight's Files) names no file.
                if let Some(path) = part
                    .replace(NEW_MARKER, "")
                    .split_whitespace()
                    .next()
                    .filter(|p| !matches!(p.to_ascii_lowercase().as_str(), "none" | "n/a" | "-"))
                {
                    out.push(FileRef {
                        path: path.to_owned(),
                        new,
                        line: line.line(),
                    });
                }
            }
            continue;
        }
        while let Some((at, path)) = spans.next() {
            let from = at + path.len() + 2;
            let to = spans.peek().map_or(text.len(), |(next, _)| *next);
            let between = text.get(from..to).unwrap_or_default();
            out.push(FileRef {
                path: path.trim().to_owned(),
                new: between.contains(NEW_MARKER),
                line: line.line(),
            });
        }
    }
    out
}

fn read_on_failure(field: &RawField<'_>, step: u32, problems: &mut Vec<Problem>) -> OnFailure {
    let text = field.text();
    let word: String = text.chars().take_while(|c| c.is_alphabetic()).collect();
    let rest = text.get(word.len()..).unwrap_or_default();
    let note = rest
        .trim()
        .trim_start_matches(['—', '–', '-', ':', ',', ';', '.'])
        .trim();
    let note = (!note.is_empty()).then(|| note.to_owned());
    match Action::parse(&word) {
        Some(action) => OnFailure {
            action,
            note,
            line: Some(field.line),
        },
        None => {
            problems.push(
                Problem::warning(code::PLAN_INVALID_ON_FAILURE, format!("step {step}: On failure \"{text}\" does not start with {}; escalate is assumed", Action::keywords())).at_line(field.line)
                .in_step(step),
            );
            OnFailure {
                action: Action::Escalate,
                note: Some(text),
                line: Some(field.line),
            }
        }
    }
}

fn read_session_spec(
    doc: &Doc<'_>,
    strict: bool,
    written: &markdown::WrittenLines<'_>,
    problems: &mut Vec<Problem>,
) -> SessionSpec {
    let entry_condition = doc.section("Dependencies").and_then(|blocks| {
        blocks.iter().find_map(|b| match b {
            Block::Text(t) => {
                let (label, value) = t.text.split_once(':')?;
                label
                    .trim()
                    .eq_ignore_ascii_case("entry condition")
                    .then(|| Field {
                        text: value.trim().to_owned(),
                        line: t.line,
                    })
            }
            _ => None,
        })
    });
    let (touch, never_touch) = doc
        .section("Scope Fence")
        .map(scope_lists)
        .unwrap_or_default();
    let exit_heading = doc
        .section_heading("Exit Condition")
        .or_else(|| doc.section_heading("Exit Conditions"));
    let exit_conditions = exit_heading
        .map(|(_, i)| criterion::read(doc.under(i, 2)))
        .unwrap_or_default();
    let manifest_heading = doc.section_heading("Session Manifest");
    let mut manifest = None;
    if let Some((_, i)) = manifest_heading {
        if let Some(Block::Code {
            text,
            line,
            content_line,
            ..
        }) = doc
            .under(i, 2)
            .iter()
            .find(|b| matches!(b, Block::Code { .. }))
        {
            match yaml::from_str_at::<Value>(text, *content_line) {
                Ok(v) => manifest = Some(v),
                Err(e) => {
                    let last = u32::try_from(text.lines().count())
                        .unwrap_or(u32::MAX)
                        .saturating_add(*content_line);
                    let e = e.blame_tab(written.range(*content_line, last));
                    problems.push(super::manifest::yaml_problem(
                        code::PLAN_MALFORMED_YAML,
                        &e,
                        *line,
                        "the Session Manifest's YAML does not parse",
                    ));
                }
            }
        }
    } else if strict {
        problems.push(Problem::warning(code::PLAN_MISSING_SESSION_MANIFEST, "this session spec has no `## Session Manifest`; the session audit falls back to the step manifests").at(exit_heading.map(|(l, _)| l)));
    }
    // A recovery spec's depth, from its metadata's YAML (Phase 7.6).
    let recovery_depth = doc
        .section("Recovery Metadata")
        .and_then(|blocks| {
            blocks.iter().find_map(|b| match b {
                Block::Code {
                    text, content_line, ..
                } => yaml::from_str_at::<Value>(text, *content_line).ok(),
                _ => None,
            })
        })
        .and_then(|v| v.get("recovery_depth").and_then(Value::as_u64))
        .and_then(|d| u32::try_from(d).ok());
    SessionSpec {
        recovery_depth,
        entry_condition,
        touch,
        never_touch,
        exit_conditions,
        exit_condition_line: exit_heading.map(|(l, _)| l),
        manifest,
        manifest_line: manifest_heading.map(|(l, _)| l),
    }
}

/// `Touch:` and `Never touch:` lists from the lines of a scope fence.
fn scope_lists(blocks: &[Block]) -> (Vec<String>, Vec<String>) {
    let mut touch = Vec::new();
    let mut never = Vec::new();
    for block in blocks {
        let Block::Text(t) = block else { continue };
        let Some((label, value)) = t.text.split_once(':') else {
            continue;
        };
        let target = match label.trim().to_ascii_lowercase().as_str() {
            "touch" => &mut touch,
            "never touch" | "never-touch" | "do not touch" => &mut never,
            _ => continue,
        };
        target.extend(paths_of(t, label.len() + 1, value));
    }
    (touch, never)
}

/// Paths from a scope list: its backticked spans, or else its
/// comma-separated words; `none` is no path.
fn paths_of(line: &TextLine, value_at: usize, value: &str) -> Vec<String> {
    let spans: Vec<String> = line
        .spans()
        .filter(|(o, _)| *o >= value_at)
        .map(|(_, s)| s.trim().to_owned())
        .collect();
    if !spans.is_empty() {
        return spans;
    }
    value
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.eq_ignore_ascii_case("none"))
        .map(str::to_owned)
        .collect()
}

fn read_strategy(doc: &Doc<'_>, line: u32, index: usize) -> Strategy {
    let section = doc.under(index, 2);
    let mut sessions = Vec::new();
    let mut order = Vec::new();
    for (i, block) in section.iter().enumerate() {
        let Block::Heading {
            level: 3,
            text,
            line,
        } = block
        else {
            continue;
        };
        let content = {
            let rest = section.get(i + 1..).unwrap_or_default();
            let end = rest
                .iter()
                .position(|b| matches!(b, Block::Heading { level, .. } if *level <= 3))
                .unwrap_or(rest.len());
            rest.get(..end).unwrap_or_default()
        };
        if let Some(rest) = text.strip_prefix("Session ") {
            let (number, title) = rest.split_once(':').unwrap_or((rest, ""));
            let Ok(number) = number.trim().parse() else {
                continue;
            };
            sessions.push(read_session(number, title.trim(), *line, content));
        } else if text.eq_ignore_ascii_case("Execution Order") {
            for b in content {
                let Block::Text(t) = b else { continue };
                let Some((head, list)) = t.text.split_once(':') else {
                    continue;
                };
                let Some(number) = head
                    .trim()
                    .strip_prefix("Wave ")
                    .and_then(|n| n.trim().parse().ok())
                else {
                    continue;
                };
                // "(parallel)" and similar notes carry no numbers to confuse.
                let list = list.split('(').next().unwrap_or(list);
                order.push(Wave {
                    number,
                    sessions: strategy::numbers(list),
                    line: t.line,
                });
            }
        }
    }
    Strategy {
        line,
        sessions,
        order,
    }
}

fn read_session(number: u32, title: &str, line: u32, content: &[Block]) -> Session {
    let mut session = Session {
        number,
        title: title.to_owned(),
        line,
        steps: Vec::new(),
        wave: None,
        depends_on: Vec::new(),
        cwd: None,
        touch: Vec::new(),
        never_touch: Vec::new(),
    };
    for block in content {
        let Block::Text(t) = block else { continue };
        let Some((label, value)) = t.text.split_once(':') else {
            continue;
        };
        match label.trim().to_ascii_lowercase().as_str() {
            "steps" | "step" => session.steps = strategy::numbers(value),
            "wave" => session.wave = strategy::numbers(value).first().copied(),
            "depends on" | "depends" => session.depends_on = strategy::numbers(value),
            "cwd" => {
                session.cwd = t
                    .first_span()
                    .map(|(_, s)| s.to_owned())
                    .or_else(|| Some(value.trim().to_owned()).filter(|v| !v.is_empty()));
            }
            "touch" => session.touch.extend(paths_of(t, label.len() + 1, value)),
            "never touch" | "never-touch" => {
                session
                    .never_touch
                    .extend(paths_of(t, label.len() + 1, value))
            }
            _ => {}
        }
    }
    session
}

fn read_verification(
    doc: &Doc<'_>,
    blocks: &[Block],
    problems: &mut Vec<Problem>,
) -> Option<Verification> {
    let Some((line, index)) = doc.section_heading("Verification") else {
        let near: Vec<(u32, String)> = blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { level, text, line }
                    if text.to_ascii_lowercase().contains("verification") =>
                {
                    Some((
                        *line,
                        format!(
                            "\"{} {text}\" at line {line}",
                            "#".repeat(usize::from(*level))
                        ),
                    ))
                }
                _ => None,
            })
            .collect();
        let hint = if near.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = near.iter().map(|(_, n)| n.as_str()).collect();
            format!(
                " ({} is not read: the heading must be exactly \"## Verification\")",
                names.join(", ")
            )
        };
        problems.push(Problem::warning(code::NO_VERIFICATION_SECTION, format!("the plan has no `## Verification` section, so the criteria runner will fail it: a plan that promises no end-to-end check cannot be verified{hint}")).at(near.first().map(|(line, _)| *line)));
        return None;
    };
    let criteria = criterion::read(doc.under(index, 2));
    if criteria.is_empty() {
        problems.push(Problem::warning(code::NO_CRITERIA, "`## Verification` declares no criterion the runner reads; write each check as a bullet that starts \
             with the command in backticks (- `cargo test` — all green) or put commands in a ```bash fence").at_line(line));
    } else {
        for unread in criterion::unread_items(doc.under(index, 2)) {
            problems.push(Problem::warning(code::PLAN_VERIFICATION_ITEM_UNREAD, "this item of `## Verification` does not start with a command in backticks, \
                 so the criteria runner skips it; write the command first (- `cargo fmt --check` — formatted), or move the prose out of the list").at_line(unread));
        }
    }
    Some(Verification { line, criteria })
}
