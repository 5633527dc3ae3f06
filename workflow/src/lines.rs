//! Cutting a child's output into lines, as it arrives in chunks of any
//! size: every line of a command's output becomes an `output:text` event,
//! and every line of an agent CLI's output one message of its stream.

/// Longest text one `output:text` event carries; a longer line arrives in
/// pieces of this size, so one endless line cannot exhaust memory.
pub(super) const MAX_LINE: usize = 1 << 20;

/// Cuts a byte stream into lines; a line longer than its limit arrives in
/// pieces of that size.
#[derive(Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    max: usize,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::with_limit(MAX_LINE)
    }
}

impl LineSplitter {
    pub fn with_limit(max: usize) -> Self {
        Self {
            partial: Vec::new(),
            max: max.max(1),
        }
    }

    /// Hands every complete line in `chunk` (with what came before it) to
    /// `deliver`, without its `\n`.
    pub fn feed(&mut self, chunk: &[u8], deliver: &mut dyn FnMut(String)) {
        let mut rest = chunk;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(at);
            if self.partial.is_empty() {
                deliver(String::from_utf8_lossy(line).into_owned());
            } else {
                self.partial.extend_from_slice(line);
                deliver(String::from_utf8_lossy(&self.partial).into_owned());
                self.partial.clear();
            }
            rest = after.get(1..).unwrap_or_default();
        }
        self.partial.extend_from_slice(rest);
        while self.partial.len() >= self.max {
            let piece: Vec<u8> = self.partial.drain(..self.max).collect();
            deliver(String::from_utf8_lossy(&piece).into_owned());
        }
    }

    /// Hands over a last line that had no `\n`, if any.
    pub fn finish(&mut self, deliver: &mut dyn FnMut(String)) {
        if !self.partial.is_empty() {
            deliver(String::from_utf8_lossy(&self.partial).into_owned());
            self.partial.clear();
        }
    }
}

/// One line of an agent CLI's JSON stream: the object it holds, or `None`
/// for a blank line, and for any other line after it was shown as text and
/// kept among the last [`QUOTED_LINES`](super::claude::QUOTED_LINES) lines
/// that were not JSON (`loose`, quoted when the CLI fails).
pub(super) fn json_object(
    raw: &str,
    loose: &mut Vec<String>,
    emit: &dyn super::step::Emit,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let line = raw.trim();
    if line.is_empty() {
        return None;
    }
    if let Ok(serde_json::Value::Object(message)) = serde_json::from_str(line) {
        return Some(message);
    }
    let text = crate::ansi::clean(raw.as_bytes()).into_owned();
    if loose.len() == super::claude::QUOTED_LINES {
        loose.remove(0);
    }
    loose.push(text.clone());
    emit.emit(super::event::Event::text(text));
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        let mut s = LineSplitter::default();
        for chunk in chunks {
            s.feed(chunk, &mut |l| out.push(l));
        }
        s.finish(&mut |l| out.push(l));
        out
    }

    #[test]
    fn lines_survive_any_chunking() {
        assert_eq!(split(&[b"a\n\nb", b"c\nd"]), ["a", "", "bc", "d"]);
        assert_eq!(split(&[b"x\r\n"]), ["x\r"]);
        assert_eq!(split(&[b"", b"\n"]), [""]);
        assert!(split(&[b""]).is_empty());
    }

    #[test]
    fn an_endless_line_arrives_in_pieces() {
        let big = vec![b'x'; MAX_LINE * 2 + 5];
        let lines = split(&[&big]);
        assert_eq!(
            lines.iter().map(String::len).collect::<Vec<_>>(),
            [MAX_LINE, MAX_LINE, 5]
        );
    }
}
