//! The Markdown of a plan, flattened into a list of [`Block`]s with lines.
//!
//! Plans are parsed with a real CommonMark parser (pulldown-cmark), never by
//! matching lines with regular expressions: a label inside a code fence or a
//! heading inside a list stays what it is. The plan parser then works on this
//! flat list: headings, lines of text (each paragraph and list item split at
//! its line breaks, with its backticked spans), code fences and tables, each
//! with its 1-based source line. The front matter is not Markdown: the
//! caller splits it off first ([`crate::yaml::front_matter`]).

use pulldown_cmark::{
    CodeBlockKind, Event, HeadingLevel, MetadataBlockKind, Options, Parser, Tag, TagEnd,
};

/// The plan's lines as written, for what the Markdown reader changes on
/// the way: a tab that indents a line of a code fence inside a list item
/// reaches the fence's text as spaces, so a YAML error there is checked
/// against the line in the file. Split into lines when first asked, which
/// only an error does.
pub(super) struct WrittenLines<'a> {
    source: &'a str,
    lines: std::cell::OnceCell<Vec<&'a str>>,
}

impl<'a> WrittenLines<'a> {
    pub(super) fn new(source: &'a str) -> Self {
        Self {
            source,
            lines: std::cell::OnceCell::new(),
        }
    }

    /// Lines `from` to `to` of the file (1-based, both included), each
    /// with its number.
    pub(super) fn range(&self, from: u32, to: u32) -> impl Iterator<Item = (u32, &'a str)> + '_ {
        let lines = self.lines.get_or_init(|| self.source.lines().collect());
        let skip = usize::try_from(from.saturating_sub(1)).unwrap_or(usize::MAX);
        (from.max(1)..=to).zip(lines.iter().skip(skip).copied())
    }
}

/// One piece of a plan's Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Block {
    Heading {
        level: u8,
        text: String,
        line: u32,
    },
    /// One line of a paragraph or list item. `item` is set on the first line
    /// of a list item and gives its nesting depth (1 for a top-level item).
    Text(TextLine),
    /// A fenced or indented code block; `line` is the fence's own line and
    /// `content_line` the first line of its content.
    Code {
        info: String,
        text: String,
        line: u32,
        content_line: u32,
    },
    Table {
        line: u32,
    },
}

/// One line of prose, with its code spans.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct TextLine {
    /// The text with emphasis markers dropped and code spans kept in
    /// backticks.
    pub text: String,
    /// Backticked spans, in order: the byte offset of the opening backtick
    /// in `text` and the length of the content after it (see
    /// [`TextLine::spans`]). Kept as positions, not copies: a long plan has
    /// tens of thousands of spans.
    span_at: Vec<(usize, usize)>,
    pub line: u32,
    /// `Some(depth)` on the first line of a list item.
    pub item: Option<u32>,
    /// `Some(checked)` when the list item is a task (`- [ ]` / `- [x]`).
    pub task: Option<bool>,
    /// Depth of the list this line belongs to (0 outside lists).
    pub depth: u32,
}

impl TextLine {
    /// The backticked spans, in order, each with the byte offset of its
    /// opening backtick in `text`.
    pub(super) fn spans(&self) -> impl Iterator<Item = (usize, &str)> {
        self.span_at.iter().map(|&(at, len)| {
            let content = self.text.get(at + 1..at + 1 + len).unwrap_or_default();
            (at, content)
        })
    }

    /// The first backticked span, if any.
    pub(super) fn first_span(&self) -> Option<(usize, &str)> {
        self.spans().next()
    }
}

/// Maps byte offsets to 1-based line numbers.
pub(super) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self { starts }
    }

    /// The 1-based line holding byte `offset`.
    #[cfg(test)]
    fn line(&self, offset: usize) -> u32 {
        self.locate(offset).0
    }

    /// The 1-based line holding byte `offset`, and the offset where the
    /// next line starts (`usize::MAX` on the last line).
    #[cfg(test)]
    fn locate(&self, offset: usize) -> (u32, usize) {
        let mut cursor = 0;
        self.locate_from(&mut cursor, offset)
    }

    /// `locate` starting from the line found last time (`cursor`).
    /// A parser's events come nearly in source order, so a few steps
    /// forward usually find the line; otherwise a binary search does.
    pub(super) fn locate_from(&self, cursor: &mut usize, offset: usize) -> (u32, usize) {
        const STEPS: usize = 4;
        let mut index = *cursor;
        let behind = index == 0 || self.starts.get(index - 1).is_none_or(|&s| s > offset);
        let mut steps = 0;
        while !behind && steps < STEPS && self.starts.get(index).is_some_and(|&s| s <= offset) {
            index += 1;
            steps += 1;
        }
        if behind || self.starts.get(index).is_some_and(|&s| s <= offset) {
            index = self.starts.partition_point(|&s| s <= offset);
        }
        *cursor = index;
        let next = self.starts.get(index).copied().unwrap_or(usize::MAX);
        (u32::try_from(index.max(1)).unwrap_or(u32::MAX), next)
    }
}

/// Flattens `source`, the Markdown after any front matter, into blocks;
/// `first_line` is the file line `source` starts on.
///
/// The document is parsed whole, on this thread: a plan of a thousand steps
/// takes a few milliseconds, less than starting threads or cutting it into
/// pieces would save (benches/README.md, figures 4 and 5).
pub(super) fn blocks(source: &str, first_line: u32) -> Vec<Block> {
    let mut out = Vec::new();
    blocks_into(source, first_line.saturating_sub(1), &mut out);
    out
}

/// Flattens `source` onto the end of `out`; `line_offset` is added to
/// every line.
fn blocks_into(source: &str, line_offset: u32, out: &mut Vec<Block>) {
    let index = LineIndex::new(source);
    // pulldown-cmark reads a `---` line, text and a closing `---` as a
    // metadata block anywhere in a document, not only at the top. The front
    // matter never reaches it, but the option stays so that such a pair
    // further down reads as it always has: skipped, not a rule and a
    // heading.
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH;
    let mut builder = Builder::default();
    let mut cursor = 0;
    for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
        let (line, next_line) = index.locate_from(&mut cursor, range.start);
        // Room for what the event starts: the rest of its source line for
        // a line of text, all of its source for a code block. Reserving it
        // up front saves growing each string several times.
        builder.room = next_line.min(source.len()).saturating_sub(range.start);
        builder.block_room = range.len();
        builder.event(event, line + line_offset, out);
    }
    builder.flush(out);
}

/// What the flattening is inside of.
#[derive(Default)]
struct Builder {
    depth: u32,
    /// The line being built, if any.
    current: Option<TextLine>,
    /// An item started and waits for its first text.
    pending_item: bool,
    pending_task: Option<bool>,
    heading: Option<(u8, String, u32)>,
    code: Option<(String, String, u32, u32)>,
    /// Inside a `---` … `---` block further down (see [`blocks_into`]).
    metadata: bool,
    table_depth: u32,
    /// Bytes from the current event to the end of its source line.
    room: usize,
    /// Bytes of source the current event spans.
    block_room: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, line: u32, out: &mut Vec<Block>) {
        if let Some((_, text, _, _)) = self.code.as_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((info, text, line, content_line)) = self.code.take() {
                        out.push(Block::Code {
                            info,
                            text,
                            line,
                            content_line,
                        });
                    }
                }
                _ => {}
            }
            return;
        }
        if self.metadata {
            if let Event::End(TagEnd::MetadataBlock(_)) = event {
                self.metadata = false;
            }
            return;
        }
        if self.table_depth > 0 {
            match event {
                Event::Start(Tag::Table(_)) => self.table_depth += 1,
                Event::End(TagEnd::Table) => self.table_depth -= 1,
                _ => {}
            }
            return;
        }
        if let Some((_, text, _)) = self.heading.as_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::Code(c) => {
                    text.push('`');
                    text.push_str(&c);
                    text.push('`');
                }
                Event::SoftBreak | Event::HardBreak => text.push(' '),
                Event::End(TagEnd::Heading(_)) => {
                    if let Some((level, text, line)) = self.heading.take() {
                        let text = if text.trim().len() == text.len() {
                            text
                        } else {
                            text.trim().to_owned()
                        };
                        out.push(Block::Heading { level, text, line });
                    }
                }
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle)) => {
                self.flush(out);
                self.metadata = true;
            }
            Event::Start(Tag::Heading { level, .. }) => {
                self.flush(out);
                self.heading = Some((heading_level(level), String::with_capacity(self.room), line));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                self.flush(out);
                let (info, content_line) = match kind {
                    CodeBlockKind::Fenced(info) => (info.trim().to_owned(), line + 1),
                    CodeBlockKind::Indented => (String::new(), line),
                };
                self.code = Some((
                    info,
                    String::with_capacity(self.block_room),
                    line,
                    content_line,
                ));
            }
            Event::Start(Tag::Table(_)) => {
                self.flush(out);
                self.table_depth = 1;
                out.push(Block::Table { line });
            }
            Event::Start(Tag::List(_)) => {
                self.flush(out);
                self.depth += 1;
            }
            Event::End(TagEnd::List(_)) => {
                self.flush(out);
                self.depth = self.depth.saturating_sub(1);
            }
            Event::Start(Tag::Item) => {
                self.flush(out);
                self.pending_item = true;
                self.pending_task = None;
            }
            Event::TaskListMarker(checked) => self.pending_task = Some(checked),
            Event::End(TagEnd::Item | TagEnd::Paragraph) => self.flush(out),
            Event::Start(Tag::Paragraph) => self.flush(out),
            Event::Text(t) => self.push_text(&t, line),
            Event::Code(c) => {
                let current = self.line_mut(line);
                let at = current.text.len();
                current.text.push('`');
                current.text.push_str(&c);
                current.text.push('`');
                current.span_at.push((at, c.len()));
            }
            Event::InlineHtml(h) | Event::Html(h) => self.push_text(&h, line),
            // The next line starts after this break.
            Event::SoftBreak | Event::HardBreak => self.flush(out),
            Event::FootnoteReference(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_)
            | Event::Rule
            | Event::Start(_)
            | Event::End(_) => {}
        }
    }

    fn push_text(&mut self, text: &str, line: u32) {
        self.line_mut(line).text.push_str(text);
    }

    fn line_mut(&mut self, line: u32) -> &mut TextLine {
        let item = std::mem::take(&mut self.pending_item).then_some(self.depth);
        let task = if item.is_some() {
            self.pending_task.take()
        } else {
            None
        };
        let depth = self.depth;
        let room = self.room;
        self.current.get_or_insert_with(|| TextLine {
            text: String::with_capacity(room),
            line,
            item,
            task,
            depth,
            ..TextLine::default()
        })
    }

    fn flush(&mut self, out: &mut Vec<Block>) {
        if let Some(line) = self.current.take() {
            out.push(Block::Text(line));
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_exact() {
        // The Markdown after a three-line front matter starts on line 4.
        let src = "# Title\n\n- **Files:** `a.rs` (new), `b.rs`\n- **Verify:**\n  `cargo test`\n\n  ```yaml\n  k: v\n  ```\n";
        let blocks = blocks(src, 4);
        assert_eq!(
            blocks[0],
            Block::Heading {
                level: 1,
                text: "Title".into(),
                line: 4
            }
        );
        let Block::Text(files) = &blocks[1] else {
            panic!("{blocks:?}")
        };
        assert_eq!(files.text, "Files: `a.rs` (new), `b.rs`");
        assert_eq!(
            files.spans().collect::<Vec<_>>(),
            vec![(7, "a.rs"), (21, "b.rs")]
        );
        assert_eq!((files.line, files.item), (6, Some(1)));
        let Block::Text(verify) = &blocks[2] else {
            panic!()
        };
        assert_eq!((verify.text.as_str(), verify.line), ("Verify:", 7));
        let Block::Text(cont) = &blocks[3] else {
            panic!()
        };
        assert_eq!(
            (cont.text.as_str(), cont.line, cont.item),
            ("`cargo test`", 8, None)
        );
        assert!(
            matches!(&blocks[4], Block::Code { info, line: 10, content_line: 11, .. } if info == "yaml")
        );
    }

    #[test]
    fn a_dashed_block_further_down_is_skipped() {
        let blocks = blocks("# T\n\n---\nnot: markdown\n---\n\ntext\n", 1);
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert!(matches!(&blocks[1], Block::Text(t) if t.text == "text" && t.line == 7));
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("a\nb\n\nc");
        assert_eq!(
            [idx.line(0), idx.line(2), idx.line(4), idx.line(5)],
            [1, 2, 3, 4]
        );
        // Walking forward, back and far forward from a cursor finds what a
        // fresh search finds.
        let text = "x\n".repeat(50);
        let idx = LineIndex::new(&text);
        let mut cursor = 0;
        for offset in [0, 1, 2, 5, 3, 0, 40, 41, 99, 100, 7, 200] {
            assert_eq!(
                idx.locate_from(&mut cursor, offset),
                idx.locate(offset),
                "{offset}"
            );
        }
    }
}
