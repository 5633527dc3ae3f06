//! The labelled fields of a step: `Files:`, `Changes:`, `Verify:`, …
//!
//! Labels may be bold or not, in a list item or not, and a value may go on
//! over the following lines until the next label. A fence right after a
//! label belongs to it (the Manifest's YAML).

use super::markdown::{Block, TextLine};

/// The labels a step may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
    Files,
    Changes,
    Reuses,
    TestFirst,
    Verify,
    OnFailure,
    Checkpoint,
    Manifest,
}

impl Label {
    /// Recognises `Label:` at the start of `text`; returns the label and the
    /// byte offset where its value starts.
    pub(super) fn at_start(text: &str) -> Option<(Self, usize)> {
        let colon = memchr::memchr(b':', text.as_bytes())?;
        let name = text.get(..colon)?.trim();
        // Every label is short: normalise it on the stack (lower case,
        // `-` and `_` as spaces) rather than in two new strings per line.
        let mut buf = [0u8; 12];
        let normal = buf.get_mut(..name.len())?;
        for (to, from) in normal.iter_mut().zip(name.bytes()) {
            *to = match from.to_ascii_lowercase() {
                b'-' | b'_' => b' ',
                b => b,
            };
        }
        let label = match &*normal {
            b"files" | b"file" => Self::Files,
            b"changes" | b"change" => Self::Changes,
            b"reuses" | b"reuse" => Self::Reuses,
            b"test first" | b"tests first" => Self::TestFirst,
            b"verify" | b"verification" => Self::Verify,
            b"on failure" => Self::OnFailure,
            b"checkpoint" => Self::Checkpoint,
            b"manifest" => Self::Manifest,
            _ => return None,
        };
        Some((label, colon + 1))
    }
}

/// One field as written: its lines (the first one cut after the label) and
/// any fence that follows. It borrows from the blocks it was read from: a
/// 10,000-step plan has 60,000 fields, and copying their lines and fences
/// cost more than reading them.
#[derive(Debug, Clone)]
pub(super) struct RawField<'a> {
    pub label: Label,
    pub line: u32,
    pub lines: Vec<FieldLine<'a>>,
    /// (info, text, fence line)
    pub fence: Option<(&'a str, &'a str, u32)>,
}

/// A line of a field's value: a line of text from byte `from` on (the first
/// line starts after its label and the spaces after it).
#[derive(Debug, Clone, Copy)]
pub(super) struct FieldLine<'a> {
    source: &'a TextLine,
    from: usize,
}

impl<'a> FieldLine<'a> {
    pub(super) fn text(&self) -> &'a str {
        self.source.text.get(self.from..).unwrap_or_default()
    }

    /// The backticked spans of [`Self::text`], with their byte offsets in it.
    pub(super) fn spans(&self) -> impl Iterator<Item = (usize, &'a str)> + use<'a> {
        let from = self.from;
        self.source
            .spans()
            .filter(move |(o, _)| *o >= from)
            .map(move |(o, s)| (o - from, s))
    }

    pub(super) fn line(&self) -> u32 {
        self.source.line
    }
}

impl RawField<'_> {
    /// All the text, lines joined by spaces.
    pub(super) fn text(&self) -> String {
        self.lines
            .iter()
            .map(|l| l.text().trim())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The first backticked span, or else the fence's first line, or else
    /// the plain text.
    pub(super) fn command(&self) -> Option<String> {
        if let Some((_, span)) = self.lines.iter().flat_map(FieldLine::spans).next() {
            return Some(span.trim().to_owned()).filter(|s| !s.is_empty());
        }
        if let Some((_, text, _)) = &self.fence {
            return text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_owned);
        }
        let text = self.text();
        let plain = text.trim();
        (!plain.is_empty() && !matches!(plain.to_ascii_lowercase().as_str(), "none" | "n/a" | "-"))
            .then(|| plain.to_owned())
    }
}

/// Splits a step's content into fields.
pub(super) fn read(blocks: &[Block]) -> Vec<RawField<'_>> {
    let mut fields: Vec<RawField<'_>> = Vec::new();
    for block in blocks {
        match block {
            Block::Text(line) => {
                if let Some((label, value_at)) = Label::at_start(&line.text) {
                    fields.push(RawField {
                        label,
                        line: line.line,
                        lines: vec![cut(line, value_at)],
                        fence: None,
                    });
                } else if let Some(field) = fields.last_mut() {
                    field.lines.push(FieldLine {
                        source: line,
                        from: 0,
                    });
                }
            }
            Block::Code {
                info, text, line, ..
            } => {
                if let Some(field) = fields.last_mut()
                    && field.fence.is_none()
                {
                    field.fence = Some((info, text, *line));
                }
            }
            Block::Heading { .. } | Block::Table { .. } => {}
        }
    }
    fields
}

/// `line` from byte `at` on, less the spaces there.
fn cut(line: &TextLine, at: usize) -> FieldLine<'_> {
    let text = line.text.get(at..).unwrap_or_default();
    let trimmed = text.trim_start();
    FieldLine {
        source: line,
        from: at + (text.len() - trimmed.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::markdown::blocks;

    #[test]
    fn labels_bold_or_not_and_values_over_lines() {
        let src = "- **Files:** `a.rs` (new)\n- Verify:\n  `cargo test`\n**On failure:** retry - then\nask\n- **Manifest:**\n  ```yaml\n  k: v\n  ```\n";
        let blocks = blocks(src, 1);
        let fields = read(&blocks);
        let labels: Vec<Label> = fields.iter().map(|f| f.label).collect();
        assert_eq!(
            labels,
            [
                Label::Files,
                Label::Verify,
                Label::OnFailure,
                Label::Manifest
            ]
        );
        assert_eq!(fields[1].command().as_deref(), Some("cargo test"));
        assert_eq!(fields[2].text(), "retry - then ask");
        assert_eq!(fields[3].fence.as_ref().map(|f| f.2), Some(7));
        assert_eq!(
            fields[0].lines[0].spans().collect::<Vec<_>>(),
            [(0, "a.rs")]
        );
    }
}
