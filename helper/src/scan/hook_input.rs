//! The PreToolUse hook's input as it may really arrive, read leniently so
//! that no oddity of the JSON text lets a call through unjudged.
//!
//! Claude Code sends one JSON object (docs/maintainer/hooks-protocol.md §1).
//! The hook needs a few strings of it: `hook_event_name`, `tool_name`, and
//! `tool_input.command`, `.file_path` or `.notebook_path` (and an MCP
//! file-system tool's `.path`, `.source`, `.destination`). This reader picks
//! them out of the text instead of building the whole document, because a
//! full parse fails on input that is still a call: serde_json refuses
//! nesting deeper than 128 levels and lone surrogate escapes (`"\ud800"`),
//! and a refused document used to be answered with silence. Here:
//!
//! - a leading byte-order mark and whitespace are skipped;
//! - values the hook does not need are skipped at any depth, with a stack on
//!   the heap instead of recursion (no nesting can overflow the stack);
//! - strings are decoded leniently: invalid UTF-8 and lone surrogates become
//!   U+FFFD, which is also what bash receives from Claude Code (Node encodes
//!   a lone surrogate as U+FFFD when it hands the command over);
//! - of a repeated key the last one counts, as in `JSON.parse`;
//! - [`HookInput::whole`] says whether the text was one well-formed object,
//!   so that a call cut short or malformed can be refused, not waved through.
//!
//! Fields are kept as they are read, so a call that breaks off still shows
//! what came before the break (the tool name, typically).

/// What the hook reads of one input.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct HookInput {
    /// `hook_event_name`, when it is a string.
    pub event: Option<String>,
    /// `tool_name`, when it is a string.
    pub tool: Option<String>,
    /// `cwd`, the directory the call runs in, when it is a string.
    pub cwd: Option<String>,
    /// `tool_input.command`, when `tool_input` is an object and it a string.
    pub command: Option<String>,
    /// `tool_input.file_path`, likewise.
    pub file_path: Option<String>,
    /// `tool_input.notebook_path`, likewise.
    pub notebook_path: Option<String>,
    /// `tool_input.path`, `.source` and `.destination`: where an MCP
    /// file-system tool writes (`write_file`, `move_file`, …).
    pub path: Option<String>,
    pub source: Option<String>,
    pub destination: Option<String>,
    /// `tool_input` as it was sent (an object's text), so that a rewritten
    /// call keeps every field it had.
    pub tool_input: Option<String>,
    /// The text was one JSON object, well formed to its end.
    pub whole: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads `bytes` as a hook input; `None` when it does not even begin as a
/// JSON object (empty, not JSON, an array, a string...).
pub(crate) fn read(bytes: &[u8]) -> Option<HookInput> {
    let mut reader = Reader {
        bytes: bytes.strip_prefix(BOM).unwrap_or(bytes),
        at: 0,
    };
    reader.whitespace();
    if reader.peek() != Some(b'{') {
        return None;
    }
    let mut input = HookInput::default();
    let body = reader.object(&mut |r, key| match key.as_str() {
        "hook_event_name" => r.text().map(|t| input.event = t),
        "tool_name" => r.text().map(|t| input.tool = t),
        "cwd" => r.text().map(|t| input.cwd = t),
        "tool_input" => {
            input.command = None;
            input.file_path = None;
            input.notebook_path = None;
            input.path = None;
            input.source = None;
            input.destination = None;
            input.tool_input = None;
            if r.peek() != Some(b'{') {
                return r.skip_value();
            }
            let start = r.at;
            let read = r.object(&mut |r, key| match key.as_str() {
                "command" => r.text().map(|t| input.command = t),
                "file_path" => r.text().map(|t| input.file_path = t),
                "notebook_path" => r.text().map(|t| input.notebook_path = t),
                "path" => r.text().map(|t| input.path = t),
                "source" => r.text().map(|t| input.source = t),
                "destination" => r.text().map(|t| input.destination = t),
                _ => r.skip_value(),
            });
            if read.is_ok() {
                input.tool_input = r
                    .bytes
                    .get(start..r.at)
                    .map(|raw| String::from_utf8_lossy(raw).into_owned());
            }
            read
        }
        _ => r.skip_value(),
    });
    reader.whitespace();
    input.whole = body.is_ok() && reader.at == reader.bytes.len();
    Some(input)
}

/// The text is not well-formed JSON where the reader stopped.
#[derive(Debug)]
struct Broken;

type Step<T> = Result<T, Broken>;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Step<u8> {
        let byte = self.peek().ok_or(Broken)?;
        self.at += 1;
        Ok(byte)
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Step<()> {
        self.whitespace();
        if self.next()? == byte {
            Ok(())
        } else {
            Err(Broken)
        }
    }

    /// Reads an object, handing each member's key to `member`, which must
    /// read the value (the reader stands on it, whitespace skipped).
    fn object(&mut self, member: &mut dyn FnMut(&mut Self, String) -> Step<()>) -> Step<()> {
        self.expect(b'{')?;
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(Broken);
            }
            let key = self.string(true)?;
            self.expect(b':')?;
            self.whitespace();
            member(self, key)?;
            self.whitespace();
            match self.next()? {
                b',' => {}
                b'}' => return Ok(()),
                _ => return Err(Broken),
            }
        }
    }

    /// A value that is kept if it is a string; any other value is skipped.
    fn text(&mut self) -> Step<Option<String>> {
        if self.peek() == Some(b'"') {
            self.string(true).map(Some)
        } else {
            self.skip_value().map(|()| None)
        }
    }

    /// Skips one value of any depth. Inside arrays and objects only the
    /// brackets and strings are followed (commas and colons are passed over):
    /// enough to find where a well-formed value ends, which is all that is
    /// needed of a value nobody reads.
    fn skip_value(&mut self) -> Step<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.whitespace();
            match self.peek().ok_or(Broken)? {
                b'"' => {
                    self.string(false)?;
                }
                b'{' => {
                    self.at += 1;
                    open.push(b'}');
                    continue;
                }
                b'[' => {
                    self.at += 1;
                    open.push(b']');
                    continue;
                }
                close @ (b'}' | b']') => {
                    if open.pop() != Some(close) {
                        return Err(Broken);
                    }
                    self.at += 1;
                }
                b',' | b':' if !open.is_empty() => {
                    self.at += 1;
                    continue;
                }
                _ => self.scalar()?,
            }
            if open.is_empty() {
                return Ok(());
            }
        }
    }

    /// A number, `true`, `false` or `null` (read loosely: any run of the
    /// characters they are made of).
    fn scalar(&mut self) -> Step<()> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'+' | b'-' | b'.')
        ) {
            self.at += 1;
        }
        if self.at == start {
            Err(Broken)
        } else {
            Ok(())
        }
    }

    /// Reads a string (the reader stands on its `"`), decoded when `keep`.
    fn string(&mut self, keep: bool) -> Step<String> {
        self.expect(b'"')?;
        let mut bytes = Vec::new();
        loop {
            // The run of bytes up to the next quote or backslash, taken
            // whole: a command of a megabyte is copied once, not pushed a
            // byte at a time.
            let rest = self.bytes.get(self.at..).unwrap_or_default();
            let run = rest
                .iter()
                .position(|b| matches!(b, b'"' | b'\\'))
                .unwrap_or(rest.len());
            if keep {
                bytes.extend_from_slice(rest.get(..run).unwrap_or_default());
            }
            self.at += run;
            match self.next()? {
                b'"' => break,
                _ => {
                    let c = self.escape()?;
                    if keep {
                        bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                }
            }
        }
        // Valid UTF-8 (the usual case) is kept without a copy: a command of
        // tens of megabytes is not held twice.
        Ok(String::from_utf8(bytes)
            .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned()))
    }

    /// One escape, after its backslash. A surrogate pair makes one
    /// character; a lone surrogate is U+FFFD.
    fn escape(&mut self) -> Step<char> {
        Ok(match self.next()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        self.low_surrogate()
                            .map_or(char::REPLACEMENT_CHARACTER, |low| {
                                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
                            })
                    }
                    _ => char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER),
                }
            }
            _ => return Err(Broken),
        })
    }

    /// A `\uDC00`..`\uDFFF` right here, consumed; otherwise nothing is.
    fn low_surrogate(&mut self) -> Option<u32> {
        let start = self.at;
        let low = (|| {
            (self.next().ok()? == b'\\' && self.next().ok()? == b'u').then_some(())?;
            self.hex4().ok().filter(|u| (0xDC00..=0xDFFF).contains(u))
        })();
        if low.is_none() {
            self.at = start;
        }
        low
    }

    fn hex4(&mut self) -> Step<u32> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = char::from(self.next()?).to_digit(16).ok_or(Broken)?;
            unit = unit * 16 + digit;
        }
        Ok(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(command_json: &str) -> String {
        format!(r#"{{"tool_name":"Bash","tool_input":{{"command":{command_json}}}}}"#)
    }

    #[test]
    fn reads_the_fields_and_skips_the_rest() {
        let input = read(
            br#" {"session_id":"s","a":{"b":[1,2.5e3,true,null,{"c":"}"}]},"hook_event_name":"PreToolUse",
            "tool_name":"Bash","tool_input":{"description":"d","command":"ls -la","timeout":1}}
"#,
        )
        .unwrap();
        assert_eq!(input.event.as_deref(), Some("PreToolUse"));
        assert_eq!(input.tool.as_deref(), Some("Bash"));
        assert_eq!(input.command.as_deref(), Some("ls -la"));
        assert!(input.whole);
        let notebook =
            read(br#"{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"/p/x"}}"#).unwrap();
        assert_eq!(notebook.notebook_path.as_deref(), Some("/p/x"));
        let moved = read(
            br#"{"tool_name":"mcp__fs__move_file","tool_input":{"source":"/p/a","destination":"/p/b"}}"#,
        )
        .unwrap();
        assert_eq!(moved.source.as_deref(), Some("/p/a"));
        assert_eq!(moved.destination.as_deref(), Some("/p/b"));
        assert_eq!(moved.path, None);
    }

    #[test]
    fn not_an_object_is_nothing() {
        for text in ["", "  ", "not json", "[1]", "null", "\"x\"", "\u{FEFF}"] {
            assert_eq!(read(text.as_bytes()), None, "{text:?}");
        }
    }

    #[test]
    fn any_depth_is_skipped_without_recursion() {
        let deep = format!(
            r#"{{"x":{}1{},"tool_name":"Bash","tool_input":{{"y":{}{},"command":"rm -rf /"}}}}"#,
            "[".repeat(1_000_000),
            "]".repeat(1_000_000),
            "{\"k\":".repeat(100_000),
            "}".repeat(100_000),
        );
        let input = read(deep.as_bytes()).unwrap();
        assert_eq!(input.command.as_deref(), Some("rm -rf /"));
        assert!(input.whole);
    }

    #[test]
    fn strings_decode_leniently() {
        let lone = read(bash(r#""rm -rf / # \ud800 \udfff x""#).as_bytes()).unwrap();
        assert_eq!(
            lone.command.as_deref(),
            Some("rm -rf / # \u{FFFD} \u{FFFD} x")
        );
        let pair = read(bash(r#""echo \ud83d\ude00 \u0041\n""#).as_bytes()).unwrap();
        assert_eq!(pair.command.as_deref(), Some("echo \u{1F600} A\n"));
        let high_then_other = read(bash(r#""\ud800\u0041""#).as_bytes()).unwrap();
        assert_eq!(high_then_other.command.as_deref(), Some("\u{FFFD}A"));
        let mut raw = br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf / #"#.to_vec();
        raw.extend_from_slice(b"\xff\xfe\xc3\"}}");
        let raw = read(&raw).unwrap();
        assert_eq!(
            raw.command.as_deref(),
            Some("rm -rf / #\u{FFFD}\u{FFFD}\u{FFFD}")
        );
        assert!(raw.whole);
        let mut bom = BOM.to_vec();
        bom.extend_from_slice(bash(r#""rm -rf /""#).as_bytes());
        assert_eq!(read(&bom).unwrap().command.as_deref(), Some("rm -rf /"));
        let escaped_key = read(br#"{"tool\u005fname":"Bash"}"#).unwrap();
        assert_eq!(escaped_key.tool.as_deref(), Some("Bash"));
    }

    #[test]
    fn last_key_wins_and_non_strings_are_none() {
        let input = read(
            br#"{"tool_name":"Read","tool_name":"Bash","tool_input":{"command":"a","command":7}}"#,
        )
        .unwrap();
        assert_eq!(input.tool.as_deref(), Some("Bash"));
        assert_eq!(input.command, None);
        let replaced = read(br#"{"tool_input":{"command":"rm -rf /"},"tool_input":"x"}"#).unwrap();
        assert_eq!(replaced.command, None);
        assert!(replaced.whole);
    }

    #[test]
    fn broken_text_keeps_what_came_before() {
        for text in [
            r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /""#,
            r#"{"tool_name":"Bash","tool_input":{"command":"rm"#,
            r#"{"tool_name":"Bash" "x":1}"#,
            r#"{"tool_name":"Bash","x":[1}]}"#,
            r#"{"tool_name":"Bash","x":"\q"}"#,
            r#"{"tool_name":"Bash","x":"\u12G4"}"#,
            r#"{"tool_name":"Bash"} trailing"#,
            r#"{"tool_name":"Bash"}{}"#,
            r#"{"tool_name":"Bash","x":}"#,
        ] {
            let input = read(text.as_bytes()).unwrap();
            assert_eq!(input.tool.as_deref(), Some("Bash"), "{text}");
            assert!(!input.whole, "{text}");
        }
        assert!(read(b"{}\n").unwrap().whole);
        assert!(!read(b"{").unwrap().whole);
    }
}
