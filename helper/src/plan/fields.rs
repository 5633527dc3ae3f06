//! The labelled fields of a step: `Files:`, `Changes:`, `Verify:`, …
//!
//! Labels may be bold or not, in a list item or not, and a value may go on
//! over the following lines until the next label. A fence right after a
//! label belongs to it (the Manifest's YAML).

use super::markdown::{Block, TextLine};

/// The labels a step may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
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
    pub fn at_start(text: &str) -> Option<(Self, usize)> {
        let colon = text.find(':')?;
        let name = text.get(..colon)?.trim();
        let label = match name.to_ascii_lowercase().replace(['-', '_'], " ").as_str() {
            "files" | "file" => Self::Files,
            "changes" | "change" => Self::Changes,
            "reuses" | "reuse" => Self::Reuses,
            "test first" | "tests first" => Self::TestFirst,
            "verify" | "verification" => Self::Verify,
            "on failure" => Self::OnFailure,
            "checkpoint" => Self::Checkpoint,
            "manifest" => Self::Manifest,
            _ => return None,
        };
        Some((label, colon + 1))
    }
}

/// One field as written: its lines (the first one cut after the label) and
/// any fence that follows.
#[derive(Debug, Clone)]
pub struct RawField {
    pub label: Label,
    pub line: u32,
    pub lines: Vec<TextLine>,
    /// (info, text, fence line)
    pub fence: Option<(String, String, u32)>,
}

impl RawField {
    /// All the text, lines joined by spaces.
    pub fn text(&self) -> String {
        self.lines
            .iter()
            .map(|l| l.text.trim())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The first backticked span, or else the fence's first line, or else
    /// the plain text.
    pub fn command(&self) -> Option<String> {
        if let Some((_, span)) = self.lines.iter().flat_map(|l| &l.spans).next() {
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
pub fn read(blocks: &[Block]) -> Vec<RawField> {
    let mut fields: Vec<RawField> = Vec::new();
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
                    field.lines.push(line.clone());
                }
            }
            Block::Code {
                info, text, line, ..
            } => {
                if let Some(field) = fields.last_mut()
                    && field.fence.is_none()
                {
                    field.fence = Some((info.clone(), text.clone(), *line));
                }
            }
            Block::FrontMatter { .. } | Block::Heading { .. } | Block::Table { .. } => {}
        }
    }
    fields
}

/// `line` with everything before byte `at` dropped (spans re-based).
fn cut(line: &TextLine, at: usize) -> TextLine {
    let text = line.text.get(at..).unwrap_or_default();
    let trimmed = text.trim_start();
    let shift = at + (text.len() - trimmed.len());
    TextLine {
        text: trimmed.to_owned(),
        spans: line
            .spans
            .iter()
            .filter(|(o, _)| *o >= shift)
            .map(|(o, s)| (o - shift, s.clone()))
            .collect(),
        ..line.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::markdown::blocks;

    #[test]
    fn labels_bold_or_not_and_values_over_lines() {
        let src = "- **Files:** `a.rs` (new)\n- Verify:\n  `cargo test`\n**On failure:** retry - then\nask\n- **Manifest:**\n  ```yaml\n  k: v\n  ```\n";
        let fields = read(&blocks(src));
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
        assert_eq!(fields[0].lines[0].spans, [(0, "a.rs".to_owned())]);
    }
}
