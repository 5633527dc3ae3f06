//! The Markdown of a plan, flattened into a list of [`Block`]s with lines.
//!
//! Plans are parsed with a real CommonMark parser (pulldown-cmark), never by
//! matching lines with regular expressions: a label inside a code fence or a
//! heading inside a list stays what it is. The plan parser then works on this
//! flat list: headings, lines of text (each paragraph and list item split at
//! its line breaks, with its backticked spans), code fences, tables, and the
//! YAML front matter, each with its 1-based source line.

use pulldown_cmark::{
    CodeBlockKind, Event, HeadingLevel, MetadataBlockKind, Options, Parser, Tag, TagEnd,
};

/// One piece of a plan's Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// YAML front matter between `---` lines at the top.
    FrontMatter {
        text: String,
        line: u32,
    },
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
pub struct TextLine {
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
    pub fn spans(&self) -> impl Iterator<Item = (usize, &str)> {
        self.span_at.iter().map(|&(at, len)| {
            let content = self.text.get(at + 1..at + 1 + len).unwrap_or_default();
            (at, content)
        })
    }

    /// The first backticked span, if any.
    pub fn first_span(&self) -> Option<(usize, &str)> {
        self.spans().next()
    }
}

/// Maps byte offsets to 1-based line numbers.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self { starts }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        self.locate(offset).0
    }

    /// The 1-based line holding byte `offset`, and the offset where the
    /// next line starts (`usize::MAX` on the last line).
    pub fn locate(&self, offset: usize) -> (u32, usize) {
        let mut cursor = 0;
        self.locate_from(&mut cursor, offset)
    }

    /// [`Self::locate`] starting from the line found last time (`cursor`).
    /// A parser's events come nearly in source order, so a few steps
    /// forward usually find the line; otherwise a binary search does.
    pub fn locate_from(&self, cursor: &mut usize, offset: usize) -> (u32, usize) {
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

/// Flattens `source` into blocks.
///
/// A long plan is cut at its `### Step` headings (see [`step_boundaries`]
/// for when that is exact) into pieces of about [`PIECE`] bytes, each parsed
/// on its own. Small pieces keep pulldown-cmark's event tree small, so its
/// memory is reused from one piece to the next instead of growing to tens of
/// megabytes and paying a page fault per new page; and the pieces are shared
/// out to several threads in contiguous runs.
pub fn blocks(source: &str) -> Vec<Block> {
    if source.len() < 2 * PIECE {
        return blocks_of(source, 0);
    }
    let Some(cuts) = step_boundaries(source, PIECE) else {
        return blocks_of(source, 0);
    };
    // Each piece starts at a line start; its lines are offset by the lines
    // before it, counted once over the whole source.
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let (mut start, mut lines_before) = (0, 0usize);
    for cut in cuts.into_iter().chain(std::iter::once(source.len())) {
        if let Some(piece) = source.get(start..cut) {
            pieces.push((piece, u32::try_from(lines_before).unwrap_or(u32::MAX)));
            lines_before += memchr::memchr_iter(b'\n', piece.as_bytes()).count();
        }
        start = cut;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let parse_run = |run: &[(&str, u32)]| {
        let mut out = Vec::new();
        for &(piece, offset) in run {
            blocks_into(piece, offset, &mut out);
        }
        out
    };
    if threads < 2 {
        return parse_run(&pieces);
    }
    let per_thread = pieces.len().div_ceil(threads);
    let parsed: Vec<Vec<Block>> = std::thread::scope(|scope| {
        let workers: Vec<_> = pieces
            .chunks(per_thread)
            .map(|run| scope.spawn(move || parse_run(run)))
            .collect();
        workers.into_iter().filter_map(|w| w.join().ok()).collect()
    });
    if parsed.len() != pieces.chunks(per_thread).len() {
        return blocks_of(source, 0);
    }
    super::join_runs(parsed)
}

/// The size of the pieces a long plan is parsed in: large enough that the
/// cost of starting a parser is lost in it, small enough to stay in cache.
const PIECE: usize = 64 * 1024;

/// Byte offsets of `### Step` lines at which the document can be cut without
/// changing how it parses, about `every` bytes apart; `None` when the
/// document has constructs that could hold such a line without it being a
/// heading (a `~~~` fence, HTML blocks, block quotes), so it is parsed whole.
///
/// A line starting at column 0 with `### ` is an ATX heading and closes any
/// open list, paragraph or indented fence, unless a fence opened at column 0
/// to 3 is still open, which is tracked here. A link reference definition
/// (`[name]: url`) applies to the whole document, so one anywhere also keeps
/// it whole.
fn step_boundaries(source: &str, every: usize) -> Option<Vec<usize>> {
    if may_define_links(source) {
        return None;
    }
    let mut cuts = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut last = 0;
    let mut next = 0;
    while next < source.len() {
        let at = next;
        let rest = source.as_bytes().get(at..).unwrap_or_default();
        next = memchr::memchr(b'\n', rest).map_or(source.len(), |i| at + i + 1);
        let line = source.get(at..next).unwrap_or_default();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = line.trim_start_matches(' ');
        if rest.starts_with("~~~")
            || (indent < 4 && (rest.starts_with('<') || rest.starts_with('>')))
        {
            return None;
        }
        let ticks = rest.bytes().take_while(|&b| b == b'`').count();
        match fence {
            Some((_, open)) if ticks >= open && indent < 4 && rest.trim_end().len() == ticks => {
                fence = None
            }
            Some(_) => {}
            None if ticks >= 3 && indent < 4 => fence = Some((b'`', ticks)),
            None => {
                if indent == 0 && line.starts_with("### Step ") && at - last >= every && at > 0 {
                    cuts.push(at);
                    last = at;
                }
            }
        }
    }
    Some(cuts)
}

/// Whether some line could be a link reference definition: `[…]:` after
/// spaces and list markers. Generous (a `[x]: y` inside a fence counts too):
/// a false alarm only costs parsing the document in one piece.
fn may_define_links(source: &str) -> bool {
    let bytes = source.as_bytes();
    memchr::memmem::find_iter(bytes, b"]:").any(|at| {
        let start =
            memchr::memrchr(b'\n', bytes.get(..at).unwrap_or_default()).map_or(0, |i| i + 1);
        let line = source.get(start..at).unwrap_or_default();
        line.trim_start_matches(|c: char| {
            c.is_ascii_whitespace() || "-*+.)".contains(c) || c.is_ascii_digit()
        })
        .starts_with('[')
    })
}

/// Flattens one piece; `line_offset` is added to every line.
fn blocks_of(source: &str, line_offset: u32) -> Vec<Block> {
    let mut out = Vec::new();
    blocks_into(source, line_offset, &mut out);
    out
}

/// Flattens one piece onto the end of `out`.
fn blocks_into(source: &str, line_offset: u32, out: &mut Vec<Block>) {
    let index = LineIndex::new(source);
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
    metadata: Option<(String, u32)>,
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
        if let Some((text, _)) = self.metadata.as_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::MetadataBlock(_)) => {
                    if let Some((text, line)) = self.metadata.take() {
                        out.push(Block::FrontMatter { text, line });
                    }
                }
                _ => {}
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
                // The content starts on the line after the opening `---`.
                self.metadata = Some((String::new(), line + 1));
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
        let src = "---\nplan_version: 1.7\n---\n# Title\n\n- **Files:** `a.rs` (new), `b.rs`\n- **Verify:**\n  `cargo test`\n\n  ```yaml\n  k: v\n  ```\n";
        let blocks = blocks(src);
        assert_eq!(
            blocks[0],
            Block::FrontMatter {
                text: "plan_version: 1.7\n".into(),
                line: 2
            }
        );
        assert_eq!(
            blocks[1],
            Block::Heading {
                level: 1,
                text: "Title".into(),
                line: 4
            }
        );
        let Block::Text(files) = &blocks[2] else {
            panic!("{blocks:?}")
        };
        assert_eq!(files.text, "Files: `a.rs` (new), `b.rs`");
        assert_eq!(
            files.spans().collect::<Vec<_>>(),
            vec![(7, "a.rs"), (21, "b.rs")]
        );
        assert_eq!((files.line, files.item), (6, Some(1)));
        let Block::Text(verify) = &blocks[3] else {
            panic!()
        };
        assert_eq!((verify.text.as_str(), verify.line), ("Verify:", 7));
        let Block::Text(cont) = &blocks[4] else {
            panic!()
        };
        assert_eq!(
            (cont.text.as_str(), cont.line, cont.item),
            ("`cargo test`", 8, None)
        );
        assert!(
            matches!(&blocks[5], Block::Code { info, line: 10, content_line: 11, .. } if info == "yaml")
        );
    }

    #[test]
    fn pieces_parse_like_the_whole() {
        let mut src =
            String::from("---\nplan_version: 1.7\n---\n# Plan\n\n## Implementation Plan\n\n");
        for i in 1..=6000 {
            src.push_str(&format!("### Step {i}: s\n- **Files:** `a{i}.rs` (new)\n- **Changes:** *some* text\n  over two lines\n- **Manifest:**\n  ```yaml\n  k: [a]\n  ```\n\n"));
            if i % 500 == 0 {
                src.push_str("```\n### Step 0: inside a fence, not a heading\n```\n\n");
            }
        }
        assert!(
            src.len() > 512 * 1024,
            "large enough to be cut: {}",
            src.len()
        );
        assert!(step_boundaries(&src, 64 * 1024).is_some_and(|c| !c.is_empty()));
        assert_eq!(blocks(&src), blocks_of(&src, 0));
        // A link defined in one step and used in another: parsed whole.
        src.push_str("- see [the spec]\n\n[the spec]: https://example.com\n");
        src.insert_str(
            src.find("### Step 2:").unwrap(),
            "Read [the spec] first.\n\n",
        );
        assert!(step_boundaries(&src, 64 * 1024).is_none());
        assert_eq!(blocks(&src), blocks_of(&src, 0));
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
