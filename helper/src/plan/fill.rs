//! `plan fill`: writes into a plan the manifest keys its steps lack, each
//! made from the step itself exactly as legacy mode makes a whole manifest
//! ([`manifest::synthesize`]), so that a plan written without manifests, or
//! with some keys left out, becomes one `plan_version: 1.7` accepts.
//!
//! The filler only inserts whole lines; every byte already in the file
//! stays as it was. A step without a Manifest gets a `- **Manifest:**` item
//! with a ```yaml fence after its Checkpoint (a Manifest label without a
//! fence gets the fence); a manifest that lacks keys gets them at the end of
//! its fence. A manifest whose YAML does not parse, or is not a mapping, is
//! left alone for its author. Before anything is written the result is read
//! back as the parser reads it: every step keeps its fields, an untouched
//! manifest is unchanged, and a filled one holds its author's keys as they
//! were plus the six. A step for which that does not hold is left alone.

use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::code;
use super::fields::{self, Label, RawField};
use super::manifest::{self, KEYS, Manifest};
use super::markdown::{Block, WrittenLines};
use super::parse::{self, Doc, StepHeading};
use super::{Plan, Step};
use crate::problem::Problem;
use crate::yaml::{self, Value};

/// What the filler did with one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub(super) enum Outcome {
    /// The step's manifest already has the six keys.
    Complete,
    /// Keys were added (or, with --check, would be).
    Filled,
    /// The step lacks keys the filler cannot add; `problem` says why.
    LeftAlone,
}

/// One step of the reply.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct StepFill {
    pub step: u32,
    /// The line of the step's heading.
    pub line: u32,
    pub outcome: Outcome,
    /// A whole Manifest was added (the step had none, or a label without
    /// a fence).
    pub manifest_added: bool,
    /// The keys added, in the order the seed lists them.
    pub keys: Vec<String>,
    /// The line of the plan, as it was read, after which the lines go.
    pub after_line: Option<u32>,
    /// The lines added, without their line ends.
    pub lines: Vec<String>,
    /// Why the step was left alone.
    pub problem: Option<Problem>,
}

/// The filled text and what was done to each step.
pub(super) struct Filled {
    pub text: String,
    pub steps: Vec<StepFill>,
}

impl Filled {
    /// Lines were added.
    pub(super) fn changed(&self) -> bool {
        self.steps.iter().any(|s| s.outcome == Outcome::Filled)
    }
}

/// Fills the plan `source`, parsed as `plan`.
pub(super) fn fill(source: &str, plan: &Plan) -> Filled {
    let blocks = parse::body_blocks(source);
    let doc = Doc::new(&blocks);
    let headings = doc.step_headings();
    let lines = Lines::new(source);
    let written = WrittenLines::new(source);
    let mut steps: Vec<StepFill> = Vec::new();
    let mut expected: Vec<Option<Map<String, Json>>> = Vec::new();
    for (step, heading) in plan.steps.iter().zip(&headings) {
        let content = doc.under(heading.index, 3);
        let (fill, json) = plan_step(step, heading, content, &lines, &written);
        steps.push(fill);
        expected.push(json);
    }
    // Two rounds at most: a step whose lines do not read back is left
    // alone and the rest tried again; if that fails too, nothing is added.
    for _ in 0..2 {
        let text = lines.with(&steps);
        let failed = read_back(&text, plan, &headings, &blocks, &steps, &expected);
        if failed.is_empty() {
            return Filled { text, steps };
        }
        for i in failed {
            if let Some(step) = steps.get_mut(i) {
                give_up(step);
            }
        }
    }
    for step in steps.iter_mut().filter(|s| s.outcome == Outcome::Filled) {
        give_up(step);
    }
    Filled {
        text: source.to_owned(),
        steps,
    }
}

/// Marks a step whose lines did not read back as left alone.
fn give_up(step: &mut StepFill) {
    let lines: Vec<String> = step
        .lines
        .iter()
        .map(|l| format!("`{}`", l.trim()))
        .collect();
    step.problem = Some(
        Problem::new(
            code::PLAN_MANIFEST_MISSING_KEY,
            format!(
                "step {}: the filler cannot add {} so that the Manifest reads back with them (a manifest written as one flow mapping `{{…}}`, or keys indented unevenly?); add them by hand: {}",
                step.step,
                step.keys.join(", "),
                lines.join(", ")
            ),
        )
        .at(step.after_line)
        .in_step(step.step),
    );
    step.outcome = Outcome::LeftAlone;
    step.lines.clear();
    step.after_line = None;
}

/// What to add to `step`, and the manifest it must then read back as (for
/// a filled step).
fn plan_step(
    step: &Step,
    heading: &StepHeading,
    content: &[Block],
    lines: &Lines<'_>,
    written: &WrittenLines<'_>,
) -> (StepFill, Option<Map<String, Json>>) {
    let number = step.number;
    let mut out = StepFill {
        step: number,
        line: heading.line,
        outcome: Outcome::Complete,
        manifest_added: false,
        keys: Vec::new(),
        after_line: None,
        lines: Vec::new(),
        problem: None,
    };
    let planned = if step.number == heading.number && step.line == heading.line {
        let made = manifest::synthesize(&step.files, step.checkpoint.as_ref());
        let fields = fields::read(content);
        match fields
            .iter()
            .find(|f| f.label == Label::Manifest)
            .and_then(|f| f.fence)
        {
            Some((_, yaml, fence_line)) => {
                into_fence(number, yaml, fence_line, &made, lines, written)
            }
            None => new_manifest(number, heading, &fields, &made, lines),
        }
    } else {
        // The parser and this reader disagree on the steps: never guess.
        Err(Problem::new(
            code::PLAN_MISSING_MANIFEST,
            format!("step {number}: the filler cannot place its manifest; add it by hand"),
        )
        .at_line(heading.line))
    };
    match planned {
        Err(problem) => {
            out.outcome = Outcome::LeftAlone;
            out.problem = Some(problem.in_step(number));
            (out, None)
        }
        Ok(None) => (out, None),
        Ok(Some(add)) => {
            out.outcome = Outcome::Filled;
            out.manifest_added = add.whole;
            out.keys = add.keys.iter().map(|k| (*k).to_owned()).collect();
            out.after_line = Some(add.after);
            out.lines = add.lines;
            (out, Some(add.expected))
        }
    }
}

/// Lines to add to a step, after line `after` of the plan.
struct Addition {
    after: u32,
    lines: Vec<String>,
    keys: Vec<&'static str>,
    /// A whole Manifest (a fence, and the label when there was none).
    whole: bool,
    /// What the step's manifest must then read back as.
    expected: Map<String, Json>,
}

/// The keys a step's manifest fence (`yaml`, opened on `fence_line`)
/// lacks, at the end of it; `Ok(None)` when it has all six; `Err` for a
/// manifest the filler leaves alone.
fn into_fence(
    number: u32,
    yaml_text: &str,
    fence_line: u32,
    made: &Manifest,
    lines: &Lines<'_>,
    written: &WrittenLines<'_>,
) -> Result<Option<Addition>, Problem> {
    let Some(fence) = lines.fence_at(fence_line) else {
        return Err(unclosed(number, fence_line));
    };
    let Some(closing) = lines.closing_line(fence_line, &fence, yaml_text) else {
        return Err(unclosed(number, fence_line));
    };
    let tree = match manifest::tree(yaml_text, fence_line, number, Some(written)) {
        Ok(tree) => tree,
        Err(problem) => {
            let problem = Problem {
                message: format!(
                    "{}; the filler leaves it alone: fix the YAML, then run `voyage-helper plan fill` again",
                    problem.message
                ),
                ..problem
            };
            return Err(problem);
        }
    };
    let have: Vec<&str> = match &tree.value {
        Value::Null => Vec::new(),
        Value::Map(entries) => entries.iter().map(|(k, _)| k.text.as_str()).collect(),
        other => {
            return Err(
                    Problem::new(
                        code::PLAN_MANIFEST_WRONG_TYPE,
                        format!(
                            "step {number}: the Manifest is {}, not a mapping of keys; the filler leaves it alone: write it as `key: value` lines",
                            other.kind()
                        ),
                    )
                    .at_line(fence_line),
                );
        }
    };
    let missing: Vec<&'static str> = KEYS.into_iter().filter(|k| !have.contains(k)).collect();
    if missing.is_empty() {
        return Ok(None);
    }
    // What the author wrote, read as data, for the read-back.
    let before = match yaml::from_str::<Json>(yaml_text) {
        Ok(Json::Object(map)) => map,
        Ok(Json::Null) => Map::new(),
        _ => {
            return Err(
                    Problem::new(
                        code::PLAN_MANIFEST_WRONG_TYPE,
                        format!("step {number}: the filler cannot read the Manifest as a mapping; it leaves it alone"),
                    )
                    .at_line(fence_line),
                );
        }
    };
    // Keys go at the indentation of the first one written (the fence's
    // own when there is none), so that YAML reads them as its siblings.
    let indent = (fence_line + 1..closing)
        .map(|n| lines.get(n))
        .find(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .map_or(fence.indent, leading_space);
    let new_lines = missing
        .iter()
        .map(|key| format!("{indent}{key}: {}", yaml_value(key, made)))
        .collect();
    Ok(Some(Addition {
        after: closing - 1,
        lines: new_lines,
        expected: with_keys(before, &missing, made),
        keys: missing,
        whole: false,
    }))
}

/// A whole Manifest for a step whose Manifest has no fence: after its
/// label if it has one, else after its Checkpoint, else after its last
/// field, else after its heading. `Err` when that place cannot be found.
fn new_manifest(
    number: u32,
    heading: &StepHeading,
    fields: &[RawField<'_>],
    made: &Manifest,
    lines: &Lines<'_>,
) -> Result<Option<Addition>, Problem> {
    let manifest_field = fields.iter().find(|f| f.label == Label::Manifest);
    let anchor = manifest_field
        .or_else(|| fields.iter().find(|f| f.label == Label::Checkpoint))
        .or_else(|| fields.last());
    let (after, item) = match anchor {
        Some(field) => {
            let Some(end) = field_end(field, lines) else {
                let at = field.fence.map_or(field.line, |f| f.2);
                return Err(unclosed(number, at));
            };
            (end, Item::of(lines.get(field.line)))
        }
        // As the docs write a step's fields.
        None => (heading.line, Item::of("- **Files:**")),
    };
    let mut new_lines = Vec::new();
    if manifest_field.is_none() {
        new_lines.push(format!(
            "{}{}{}Manifest:{}",
            item.label_indent(),
            item.marker,
            item.bold,
            item.bold
        ));
    }
    let inner = item.content_indent();
    new_lines.push(format!("{inner}```yaml"));
    for key in KEYS {
        new_lines.push(format!("{inner}{key}: {}", yaml_value(key, made)));
    }
    new_lines.push(format!("{inner}```"));
    Ok(Some(Addition {
        after,
        lines: new_lines,
        keys: KEYS.to_vec(),
        whole: true,
        expected: with_keys(Map::new(), &KEYS, made),
    }))
}

fn unclosed(step: u32, line: u32) -> Problem {
    Problem::new(
        code::PLAN_MALFORMED_YAML,
        format!(
            "step {step}: the code fence at line {line} is not closed (or not one the filler can find the end of); the filler leaves the step alone: close the fence, then run `voyage-helper plan fill` again"
        ),
    )
    .at_line(line)
    .in_step(step)
}

/// `before` with `keys` added from `made`, as data.
fn with_keys(mut before: Map<String, Json>, keys: &[&str], made: &Manifest) -> Map<String, Json> {
    let all = serde_json::to_value(made).unwrap_or_default();
    for key in keys {
        before.insert(
            (*key).to_owned(),
            all.get(*key).cloned().unwrap_or_default(),
        );
    }
    before
}

/// The YAML for `key` of `made`: lists in flow style as the docs write
/// them, the pattern double-quoted.
fn yaml_value(key: &str, made: &Manifest) -> String {
    let list = |items: &[String]| {
        let items: Vec<String> = items.iter().map(|s| scalar(s)).collect();
        format!("[{}]", items.join(", "))
    };
    match key {
        "expected_paths" => list(&made.expected_paths),
        "min_file_count" => made.min_file_count.to_string(),
        "commit_message_pattern" => quoted(&made.commit_message_pattern),
        "bash_syntax_check" => list(&made.bash_syntax_check),
        "forbidden_paths" => list(&made.forbidden_paths),
        "must_contain" => {
            let items: Vec<String> = made
                .must_contain
                .iter()
                .map(|m| {
                    format!(
                        "{{path: {}, pattern: {}}}",
                        scalar(&m.path),
                        quoted(&m.pattern)
                    )
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        _ => String::new(),
    }
}

/// `text` plain when YAML reads it back as that very string inside a flow
/// list (most paths), else double-quoted.
fn scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '+' | '@'))
        && !text.starts_with('-')
        && matches!(yaml::parse(text), Ok(node) if node.as_str() == Some(text));
    if plain { text.to_owned() } else { quoted(text) }
}

/// A YAML double-quoted scalar: JSON's escapes are YAML's.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn leading_space(line: &str) -> &str {
    let rest = line.trim_start_matches([' ', '\t']);
    line.get(..line.len() - rest.len()).unwrap_or_default()
}

/// How the line of a field is written: its indentation, list marker and
/// bold label, for a new label written the same way.
#[derive(Debug)]
struct Item<'a> {
    indent: &'a str,
    /// `- ` or `* `, as written; empty outside a bullet list.
    marker: &'a str,
    /// Spaces for an ordered list's marker (`1. `): the new label goes on
    /// as part of that item.
    continued: usize,
    /// `**` when the label is bold.
    bold: &'static str,
}

impl<'a> Item<'a> {
    fn of(line: &'a str) -> Self {
        let indent = leading_space(line);
        let rest = line.get(indent.len()..).unwrap_or_default();
        let bullet = rest
            .strip_prefix(['-', '*', '+'])
            .filter(|r| r.starts_with(' '));
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let (marker, continued, rest) = if let Some(after) = bullet {
            let label = after.trim_start_matches(' ');
            let width = rest.len() - label.len();
            (rest.get(..width).unwrap_or("- "), 0, label)
        } else if digits > 0
            && let Some(after) = rest
                .get(digits..)
                .and_then(|r| r.strip_prefix(['.', ')']))
                .filter(|r| r.starts_with(' '))
        {
            let label = after.trim_start_matches(' ');
            ("", rest.len() - label.len(), label)
        } else {
            ("", 0, rest)
        };
        let bold = if rest.starts_with("**") || rest.starts_with("__") {
            "**"
        } else {
            ""
        };
        Self {
            indent,
            marker,
            continued,
            bold,
        }
    }

    /// Where the new label goes before its marker: an ordered item's
    /// label goes on in that item, at its content column.
    fn label_indent(&self) -> String {
        format!("{}{}", self.indent, " ".repeat(self.continued))
    }

    /// Where a fence under the new label goes.
    fn content_indent(&self) -> String {
        let width = self.marker.len() + self.continued;
        format!("{}{}", self.indent, " ".repeat(width))
    }
}

/// The last line of `field`: its last line of text, or its fence's closing
/// line. `None` for a fence that is not closed.
fn field_end(field: &RawField<'_>, lines: &Lines<'_>) -> Option<u32> {
    let text_end = field.lines.last().map_or(field.line, |l| l.line());
    match field.fence {
        None => Some(text_end),
        Some((_, text, fence_line)) => {
            let fence = lines.fence_at(fence_line)?;
            let closing = lines.closing_line(fence_line, &fence, text)?;
            Some(text_end.max(closing))
        }
    }
}

/// An opening code fence: its indentation, character and length.
struct Fence<'a> {
    indent: &'a str,
    ch: char,
    len: usize,
}

/// The plan's lines, each with its line end, to insert lines between.
struct Lines<'a> {
    lines: Vec<&'a str>,
    /// The line end the file uses (CRLF when its first line ends so).
    eol: &'static str,
}

impl<'a> Lines<'a> {
    fn new(source: &'a str) -> Self {
        let lines: Vec<&str> = source.split_inclusive('\n').collect();
        let eol = if lines.first().is_some_and(|l| l.ends_with("\r\n")) {
            "\r\n"
        } else {
            "\n"
        };
        Self { lines, eol }
    }

    /// Line `n` (1-based) without its line end; empty past the end.
    fn get(&self, n: u32) -> &'a str {
        let index = usize::try_from(n).unwrap_or(usize::MAX).wrapping_sub(1);
        self.lines
            .get(index)
            .map_or("", |l| l.trim_end_matches(['\n', '\r']))
    }

    /// The fence opening on line `n`, if that line opens one.
    fn fence_at(&self, n: u32) -> Option<Fence<'a>> {
        let line = self.get(n);
        let indent = leading_space(line);
        let rest = line.get(indent.len()..)?;
        let ch = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = rest.chars().take_while(|c| *c == ch).count();
        (len >= 3).then_some(Fence { indent, ch, len })
    }

    /// The line that closes `fence`, opened on line `opening` and holding
    /// `text`, when it is there.
    fn closing_line(&self, opening: u32, fence: &Fence<'_>, text: &str) -> Option<u32> {
        // The fence's text has one line per line of the file.
        let count = u32::try_from(text.lines().count()).ok()?;
        let n = opening.checked_add(1)?.checked_add(count)?;
        let line = self.get(n).trim();
        let run = line.chars().take_while(|c| *c == fence.ch).count();
        (run >= fence.len && line.chars().skip(run).all(char::is_whitespace)).then_some(n)
    }

    /// The text with each step's lines inserted after its line.
    fn with(&self, steps: &[StepFill]) -> String {
        let mut inserts: Vec<(u32, &[String])> = steps
            .iter()
            .filter(|s| s.outcome == Outcome::Filled)
            .filter_map(|s| Some((s.after_line?, s.lines.as_slice())))
            .collect();
        inserts.sort_by_key(|(after, _)| *after);
        let extra: usize = inserts
            .iter()
            .flat_map(|(_, lines)| lines.iter())
            .map(|l| l.len() + 2)
            .sum();
        let total: usize = self.lines.iter().map(|l| l.len()).sum();
        let mut out = String::with_capacity(total + extra);
        let mut next = inserts.iter().peekable();
        for (i, line) in self.lines.iter().enumerate() {
            out.push_str(line);
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            while let Some((_, add)) = next.next_if(|(after, _)| *after <= n) {
                if !out.ends_with('\n') {
                    out.push_str(self.eol);
                }
                for l in *add {
                    out.push_str(l);
                    out.push_str(self.eol);
                }
            }
        }
        for (_, add) in next {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(self.eol);
            }
            for l in *add {
                out.push_str(l);
                out.push_str(self.eol);
            }
        }
        out
    }
}

/// The indexes of the filled steps whose lines do not read back as meant:
/// all of them when anything else changed (a step's fields, a manifest
/// not filled), since which lines did it cannot be told.
fn read_back(
    text: &str,
    plan: &Plan,
    headings: &[StepHeading],
    blocks: &[Block],
    steps: &[StepFill],
    expected: &[Option<Map<String, Json>>],
) -> Vec<usize> {
    let all = || {
        (0..steps.len())
            .filter(|&i| steps.get(i).is_some_and(|s| s.outcome == Outcome::Filled))
            .collect()
    };
    let Ok(after) = parse::parse(text, &plan.file) else {
        return all();
    };
    let same_step = |a: &Step, b: &Step| {
        a.number == b.number
            && a.title == b.title
            && a.checkpoint.as_ref().map(|c| &c.command)
                == b.checkpoint.as_ref().map(|c| &c.command)
            && a.verify.as_ref().map(|c| &c.command) == b.verify.as_ref().map(|c| &c.command)
            && a.files
                .iter()
                .map(|f| (&f.path, f.new))
                .eq(b.files.iter().map(|f| (&f.path, f.new)))
    };
    if after.steps.len() != plan.steps.len()
        || !plan
            .steps
            .iter()
            .zip(&after.steps)
            .all(|(a, b)| same_step(a, b))
    {
        return all();
    }
    let new_blocks = parse::body_blocks(text);
    let new_doc = Doc::new(&new_blocks);
    let new_headings = new_doc.step_headings();
    let old_doc = Doc::new(blocks);
    let fence_of = |doc: &Doc<'_>, h: &StepHeading| -> Option<String> {
        fields::read(doc.under(h.index, 3))
            .into_iter()
            .find(|f| f.label == Label::Manifest)
            .and_then(|f| f.fence.map(|(_, t, _)| t.to_owned()))
    };
    let mut failed = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let (Some(old_h), Some(new_h)) = (headings.get(i), new_headings.get(i)) else {
            return all();
        };
        let now = fence_of(&new_doc, new_h);
        let ok = match (step.outcome, expected.get(i).and_then(Option::as_ref)) {
            (Outcome::Filled, Some(want)) => now
                .and_then(|t| yaml::from_str::<Json>(&t).ok())
                .is_some_and(|got| got.as_object() == Some(want)),
            _ if now == fence_of(&old_doc, old_h) => true,
            _ => return all(),
        };
        if !ok {
            failed.push(i);
        }
    }
    failed
}

/// `plan fill` on a plan's text, without the I/O: for the fuzz target and
/// the property tests, which check what [`fill`] promises. `None` when the
/// text is not a plan.
pub fn fill_text(source: &str) -> Option<FillText> {
    let plan = parse::parse(source, "plan.md").ok()?;
    let filled = fill(source, &plan);
    let done = |s: &&StepFill| s.outcome == Outcome::Filled;
    Some(FillText {
        inserts: filled
            .steps
            .iter()
            .filter(done)
            .filter_map(|s| Some((s.after_line?, s.lines.clone())))
            .collect(),
        filled: filled.steps.iter().filter(done).map(|s| s.step).collect(),
        text: filled.text,
    })
}

/// What [`fill_text`] made of a plan.
#[derive(Debug)]
pub struct FillText {
    /// The plan with the lines added.
    pub text: String,
    /// Each group of added lines, with the line of the source it follows.
    pub inserts: Vec<(u32, Vec<String>)>,
    /// The steps keys were added to.
    pub filled: Vec<u32>,
}

/// The reply of `plan fill` (`--json`: schema `plan-fill`).
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(test, schemars(title = "voyage-helper plan fill --json"))]
pub(super) struct Reply {
    /// The plan, as given.
    pub file: String,
    /// `--check`: nothing is written.
    pub check: bool,
    /// The plan was rewritten with the keys added.
    pub written: bool,
    /// Every step's Manifest has the six keys once this call is done (with
    /// `--check`: as the plan stands). The exit status is 0 exactly then.
    pub complete: bool,
    pub plan_version: Option<String>,
    /// No plan_version, or older than 1.7: the run synthesises manifests
    /// and reads none of the ones written until the plan says 1.7.
    pub legacy_plan: bool,
    /// Steps keys were added to (with `--check`: would be).
    pub filled: usize,
    /// Steps that lack keys the filler cannot add (`problem` says why).
    pub left_alone: usize,
    pub steps: Vec<StepFill>,
    /// What to know besides: that a legacy plan stays legacy.
    pub note: Option<String>,
    /// Why nothing was done: the plan cannot be read, is not a plan, or
    /// cannot be written.
    pub errors: Vec<Problem>,
}

impl Reply {
    /// The reply for `plan` filled as `filled`; `written` when the result
    /// replaced the file.
    pub(super) fn of(plan: &Plan, filled: Filled, check: bool, written: bool) -> Self {
        let count = |o: Outcome| filled.steps.iter().filter(|s| s.outcome == o).count();
        let (filled_count, left_alone) = (count(Outcome::Filled), count(Outcome::LeftAlone));
        let note = plan.legacy_plan.then(|| {
            format!(
                "{} is a legacy plan (plan_version {}): a run still synthesises its manifests and reads none written in it until its front matter says `plan_version: 1.7`; set that, then check the plan with `voyage-helper plan validate {}`",
                plan.file,
                plan.plan_version.as_deref().unwrap_or("not set"),
                plan.file
            )
        });
        Self {
            file: plan.file.clone(),
            check,
            written,
            complete: left_alone == 0 && (filled_count == 0 || written),
            plan_version: plan.plan_version.clone(),
            legacy_plan: plan.legacy_plan,
            filled: filled_count,
            left_alone,
            steps: filled
                .steps
                .into_iter()
                .map(|mut s| {
                    s.problem = s.problem.map(|p| Problem {
                        file: Some(plan.file.clone()),
                        ..p
                    });
                    s
                })
                .collect(),
            note,
            errors: Vec::new(),
        }
    }

    /// The reply when nothing could be done, for `errors`.
    pub(super) fn failed(file: &str, check: bool, errors: Vec<Problem>) -> Self {
        Self {
            file: file.to_owned(),
            check,
            written: false,
            complete: false,
            plan_version: None,
            legacy_plan: false,
            filled: 0,
            left_alone: 0,
            steps: Vec::new(),
            note: None,
            errors,
        }
    }

    /// The text form: a line for the plan, the lines added to each step
    /// (`+ ` before each), each step left alone with its problem, and the
    /// next command.
    pub(super) fn render_text(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let file = &self.file;
        let total = self.steps.len();
        let filled = self.filled;
        match (filled, self.check) {
            (0, _) if self.left_alone == 0 => writeln!(
                out,
                "{file}: nothing to fill; the Manifest of each of its {total} steps has the six keys"
            )?,
            (0, _) => writeln!(out, "{file}: nothing filled")?,
            (_, true) => writeln!(
                out,
                "{file}: {filled} of {total} steps lack manifest keys the filler would add (--check: nothing written)"
            )?,
            (_, false) => writeln!(
                out,
                "{file}: filled the manifest keys of {filled} of {total} steps"
            )?,
        }
        for step in &self.steps {
            match step.outcome {
                Outcome::Complete => {}
                Outcome::Filled => {
                    let what = if step.manifest_added {
                        "a Manifest".to_owned()
                    } else {
                        step.keys.join(", ")
                    };
                    let verb = if self.check { "would add" } else { "added" };
                    let after = step.after_line.unwrap_or(step.line);
                    writeln!(
                        out,
                        "Step {} (line {}): {verb} {what} after line {after}:",
                        step.step, step.line
                    )?;
                    for line in &step.lines {
                        writeln!(out, "  + {line}")?;
                    }
                }
                Outcome::LeftAlone => {
                    write!(out, "Step {} (line {}): left alone: ", step.step, step.line)?;
                    if let Some(problem) = &step.problem {
                        let place = problem.place().unwrap_or_else(|| file.clone());
                        writeln!(out, "{} {place}: {}", problem.code, problem.message)?;
                    } else {
                        writeln!(out)?;
                    }
                }
            }
        }
        if let Some(note) = &self.note {
            writeln!(out, "Note: {note}")?;
        }
        if filled > 0 && self.check {
            writeln!(out, "Fill them: voyage-helper plan fill {file}")?;
        } else if self.written {
            writeln!(out, "Next: voyage-helper plan validate {file}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn filled(source: &str) -> Filled {
        let plan = parse::parse(source, "plan.md").unwrap();
        fill(source, &plan)
    }

    /// `text` without the lines `steps` added: the plan as it was.
    fn without_added(text: &str, steps: &[StepFill]) -> String {
        let mut added: Vec<&str> = steps
            .iter()
            .flat_map(|s| s.lines.iter().map(String::as_str))
            .collect();
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            let bare = line.trim_end_matches(['\n', '\r']);
            if let Some(at) = added.iter().position(|a| *a == bare) {
                added.remove(at);
                continue;
            }
            out.push_str(line);
        }
        out
    }

    const STEP: &str = "### Step 1: Add it\n- **Files:** `src/a.rs`, `run.sh` (new)\n- **Verify:** `cargo test`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat(a): add  it now please\"`\n";

    fn plan_of(steps: &str) -> String {
        format!(
            "---\nplan_version: 1.7\n---\n# Plan\n\n## Implementation Plan\n\n{steps}\n## Verification\n\n- `cargo test`\n"
        )
    }

    #[test]
    fn a_step_without_a_manifest_gets_one_after_its_checkpoint() {
        let source = plan_of(STEP);
        let got = filled(&source);
        assert_eq!(got.steps[0].outcome, Outcome::Filled);
        assert!(got.steps[0].manifest_added);
        assert!(got.text.contains(
            "please\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/a.rs, run.sh]\n  min_file_count: 2\n  commit_message_pattern: \"^feat\\\\(a\\\\): add  it\"\n  bash_syntax_check: [run.sh]\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n## Verification"
        ), "{}", got.text);
        assert_eq!(without_added(&got.text, &got.steps), source);
        let again = filled(&got.text);
        assert_eq!(again.steps[0].outcome, Outcome::Complete);
        assert_eq!(again.text, got.text);
        let plan = parse::parse(&got.text, "plan.md").unwrap();
        assert!(plan.errors().next().is_none(), "{:?}", plan.problems);
    }

    #[test]
    fn missing_keys_go_at_the_end_of_the_fence_at_the_keys_indentation() {
        let step = format!(
            "{STEP}- **Manifest:**\n    ```yaml\n    # kept\n    expected_paths:   [src/a.rs, run.sh]   # odd\n    must_contain: []\n    ```\n"
        );
        let source = plan_of(&step).replace('\n', "\r\n");
        let got = filled(&source);
        assert_eq!(
            got.steps[0].keys,
            [
                "min_file_count",
                "commit_message_pattern",
                "bash_syntax_check",
                "forbidden_paths"
            ]
        );
        assert!(
            got.text
                .contains("must_contain: []\r\n    min_file_count: 2\r\n")
        );
        assert_eq!(without_added(&got.text, &got.steps), source);
    }

    #[test]
    fn broken_yaml_and_non_mappings_are_left_alone() {
        for (yaml, code) in [
            ("expected_paths: [a\n", "PLAN_MALFORMED_YAML"),
            ("[a, b]\n", "PLAN_MANIFEST_WRONG_TYPE"),
        ] {
            let source = plan_of(&format!(
                "{STEP}- **Manifest:**\n  ```yaml\n  {yaml}  ```\n"
            ));
            let got = filled(&source);
            assert_eq!(got.steps[0].outcome, Outcome::LeftAlone);
            assert_eq!(got.steps[0].problem.as_ref().unwrap().code, code);
            assert_eq!(got.text, source);
        }
    }

    #[test]
    fn a_flow_mapping_is_left_alone_by_the_read_back() {
        let source = plan_of(&format!(
            "{STEP}- **Manifest:**\n  ```yaml\n  {{expected_paths: [src/a.rs, run.sh]}}\n  ```\n"
        ));
        let got = filled(&source);
        assert_eq!(got.steps[0].outcome, Outcome::LeftAlone, "{}", got.text);
        assert_eq!(got.text, source);
    }

    #[test]
    fn labels_are_written_as_the_step_writes_its_own() {
        let item = Item::of("  * __Checkpoint:__ `x`");
        assert_eq!((item.indent, item.marker, item.bold), ("  ", "* ", "**"));
        assert_eq!(item.content_indent(), "    ");
        let item = Item::of("3. Checkpoint: `x`");
        assert_eq!((item.marker, item.continued, item.bold), ("", 3, ""));
        assert_eq!(
            (item.label_indent(), item.content_indent()),
            ("   ".into(), "   ".into())
        );
    }

    #[test]
    fn paths_are_plain_unless_yaml_would_read_them_otherwise() {
        assert_eq!(scalar("src/a.rs"), "src/a.rs");
        assert_eq!(scalar("1.5"), "\"1.5\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("a b.rs"), "\"a b.rs\"");
        assert_eq!(scalar("-x"), "\"-x\"");
    }
}
