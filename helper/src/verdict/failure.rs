//! One failure a runner reported: what failed, its message, where.

use serde::Serialize;

/// The longest message or frame kept, in characters: a reply line, not a dump.
const MAX_FIELD_CHARS: usize = 240;

/// The longest assertion value kept, in characters.
const MAX_VALUE_CHARS: usize = 120;

/// The most assertion values kept per failure (`left` and `right`,
/// `Expected` and `Received`).
const MAX_VALUES: usize = 2;

/// A failed test, target, file location or rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The test or target as the tool names it.
    pub name: String,
    /// The first line of the failure message, verbatim.
    pub message: String,
    /// The first stack frame or source location, when the tool gives one.
    pub frame: Option<String>,
    /// The values a failed assertion compared, each as the tool printed
    /// it (`left: 170`, `right: 270`; `Expected: 270`, `Received: 170`;
    /// `assert 10 == 20`), when the message does not hold them already.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

impl Failure {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: cap(name.into().trim()),
            message: String::new(),
            frame: None,
            values: Vec::new(),
        }
    }

    /// Keeps `value` (trimmed) as one of the assertion's values, up to
    /// [`MAX_VALUES`]; the same value twice is kept once.
    pub fn add_value(&mut self, value: &str) {
        let value = value.trim();
        if value.is_empty() || self.values.len() >= MAX_VALUES {
            return;
        }
        let value = cap_to(value, MAX_VALUE_CHARS);
        if !self.values.contains(&value) {
            self.values.push(value);
        }
    }

    /// The message with the assertion's values after it, as a reply
    /// shows it: `assertion `left == right` failed (left: 170; right: 270)`.
    pub fn excerpt(&self) -> String {
        match (self.message.is_empty(), self.values.is_empty()) {
            (_, true) => self.message.clone(),
            (true, false) => self.values.join("; "),
            (false, false) => format!("{} ({})", self.message, self.values.join("; ")),
        }
    }

    pub fn with_message(mut self, message: &str) -> Self {
        self.message = cap(message.trim());
        self
    }

    pub fn with_frame(mut self, frame: &str) -> Self {
        self.set_frame(frame);
        self
    }

    /// Sets the message if none is known yet.
    pub fn offer_message(&mut self, message: &str) {
        let message = message.trim();
        if self.message.is_empty() && !message.is_empty() {
            self.message = cap(message);
        }
    }

    /// Replaces the message (for formats whose last line says most).
    pub fn set_message(&mut self, message: &str) {
        let message = message.trim();
        if !message.is_empty() {
            self.message = cap(message);
        }
    }

    /// Sets the frame if none is known yet and `frame` is in the project:
    /// a frame in `node_modules`, the language's library or the runner says
    /// nothing about where to look, so none is better.
    pub fn offer_frame(&mut self, frame: &str) {
        if self.frame.is_none() && !is_third_party(frame) {
            self.set_frame(frame);
        }
    }

    /// Keeps `line` as the values when it is the `170 !== 270` line that
    /// node's `assert.strictEqual` prints under its message; says whether
    /// it was.
    pub fn offer_comparison(&mut self, line: &str) -> bool {
        let is = self.message.ends_with("to be strictly equal:") && line.contains(" !== ");
        if is {
            self.add_value(line);
        }
        is
    }

    fn set_frame(&mut self, frame: &str) {
        let frame = frame.trim();
        self.frame = (!frame.is_empty()).then(|| cap(frame));
    }
}

/// Path pieces that mark a frame outside the project: installed packages,
/// the language's own library, the runner's installation, no file.
const THIRD_PARTY: &[&str] = &[
    "node_modules/",
    "node:",
    "/site-packages/",
    "/dist-packages/",
    "/lib/python3.",
    "/lib/python2.",
    "<frozen ",
    "/gems/",
    "/rubygems",
    "/usr/lib/ruby/",
    "/usr/bin/",
    "/usr/lib/go",
    "/usr/local/go/",
    "/rustc/",
    "/.cargo/registry/",
    "/.rustup/",
    // No file at all: `at parser.next (<anonymous>)`.
    "(<anonymous>)",
    "(native)",
];

/// Whether a frame points into dependencies or the runner's installation
/// rather than the project (see [`THIRD_PARTY`]).
pub(super) fn is_third_party(frame: &str) -> bool {
    THIRD_PARTY.iter().any(|p| frame.contains(p))
}

/// Whether a line reads like an exception's own line (`TypeError: x`,
/// `SyntaxError: invalid syntax`, `Error: boom`), as opposed to a source
/// excerpt or an explanation.
pub(super) fn looks_like_error(line: &str) -> bool {
    // Cheap tests first: this runs on many lines of every log.
    let Some(colon) = memchr::memchr(b':', line.as_bytes()) else {
        return false;
    };
    let head = line.get(..colon).unwrap_or_default();
    let head = head.split(" [").next().unwrap_or(head);
    ["Error", "Exception", "Failure", "Interrupt", "Exit"]
        .iter()
        .any(|w| head.ends_with(w))
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

fn cap(text: &str) -> String {
    cap_to(text, MAX_FIELD_CHARS)
}

fn cap_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or(text)),
        None => text.to_owned(),
    }
}

/// Failures in first-seen order, de-duplicated by name, with a bound on how
/// many are kept (the rest are only counted).
#[derive(Debug, Default, Clone)]
pub struct FailureList {
    items: Vec<Failure>,
    dropped: usize,
}

/// How many failures are kept in full; the reply shows ten at most.
const KEEP: usize = 64;

impl FailureList {
    /// Adds `failure` unless one of the same name is known; returns its index.
    pub fn push(&mut self, failure: Failure) -> Option<usize> {
        if let Some(i) = self.items.iter().position(|f| f.name == failure.name) {
            return Some(i);
        }
        self.add(failure)
    }

    /// Adds `failure` unless one with the same name and message is known:
    /// for compilers and linters, where one position can hold two errors.
    pub fn push_distinct(&mut self, failure: Failure) -> Option<usize> {
        if let Some(i) = self
            .items
            .iter()
            .position(|f| f.name == failure.name && f.message == failure.message)
        {
            return Some(i);
        }
        self.add(failure)
    }

    fn add(&mut self, failure: Failure) -> Option<usize> {
        if self.items.len() >= KEEP {
            self.dropped += 1;
            return None;
        }
        self.items.push(failure);
        Some(self.items.len() - 1)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut Failure> {
        self.items.get_mut(index)
    }

    /// Finds a kept failure by name.
    pub fn find_mut(&mut self, name: &str) -> Option<&mut Failure> {
        self.items.iter_mut().find(|f| f.name == name)
    }

    /// Reads `line` (trimmed) as part of the body of failure `current`, for
    /// formats that print the message and then the stack: the first
    /// non-empty line is the message, and lines starting with
    /// `frame_prefix` are frames; the first frame in the project's code
    /// ends the body (frames in dependencies are kept only until one is).
    pub fn read_body(&mut self, current: &mut Option<usize>, line: &str, frame_prefix: &str) {
        let Some(failure) = current.and_then(|i| self.items.get_mut(i)) else {
            return;
        };
        if line.starts_with(frame_prefix) {
            failure.offer_frame(line);
            if failure.frame.is_some() {
                *current = None;
            }
        } else if !line.is_empty() {
            failure.offer_message(line);
        }
    }

    /// Drops the failures `keep` says no to (a parent that failed only
    /// because a child did, once that is known).
    pub fn retain(&mut self, keep: impl FnMut(&Failure) -> bool) {
        self.items.retain(keep);
    }

    pub fn items(&self) -> &[Failure] {
        &self.items
    }

    /// All failures seen, kept or not.
    pub fn total(&self) -> usize {
        self.items.len() + self.dropped
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}
