//! Interjections: corrections a person sends to a running workflow, queued
//! for the next prompt step (Executant's `InterjectChannel`). The terminal
//! view queues what is typed after `i`; `workflow run --interject-file F`
//! lets a script feed the same queue.
//!
//! A prompt step takes everything queued when it starts, and its prompt
//! gets it in front, as Executant writes it:
//!
//! ```text
//! [User correction from a previous step]
//! <message>
//! <message>
//!
//! ---
//! <the step's prompt>
//! ```
//!
//! The agent CLI cannot take input while it runs (it reads its prompt to
//! the end first), so a message always waits for the next prompt step.
//!
//! The file's format: UTF-8 text, one message per line, appended while the
//! run goes (`echo "use the staging database" >> F`). Each prompt step
//! reads the lines completed since the last one read (a line without its
//! newline yet waits); blank lines are skipped. The file may not exist yet
//! when the run starts; it is read through [`crate::input_file`], so a
//! FIFO, device or directory is refused (a warning, and the file is not
//! read again). A file that shrank is read again from its start.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use super::event::{Event, Level};
use super::step::Emit;

/// Bytes read from the file at one prompt step; a longer line is dropped.
pub(super) const MAX_READ: u64 = 1 << 20;

const HEADER: &str = "[User correction from a previous step]";

#[derive(Debug, Default)]
pub(super) struct Queue {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    messages: Vec<String>,
    file: Option<Tail>,
}

#[derive(Debug)]
struct Tail {
    path: PathBuf,
    /// Bytes of the file already taken.
    offset: u64,
    /// Refused once: not read again.
    refused: bool,
}

impl Queue {
    /// A queue that also reads the messages appended to `file`.
    pub(super) fn with_file(file: Option<PathBuf>) -> Self {
        Self {
            inner: Mutex::new(Inner {
                messages: Vec::new(),
                file: file.map(|path| Tail {
                    path,
                    offset: 0,
                    refused: false,
                }),
            }),
        }
    }

    /// Queues `message` for the next prompt step.
    pub(super) fn push(&self, message: String) {
        self.lock().messages.push(message);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Everything queued, the file's new lines after what was typed; a
    /// problem with the file comes back as a warning.
    pub(super) fn take(&self) -> (Vec<String>, Option<String>) {
        let mut inner = self.lock();
        let mut messages = std::mem::take(&mut inner.messages);
        let warning = inner
            .file
            .as_mut()
            .and_then(|tail| tail.read(&mut messages));
        (messages, warning)
    }

    /// The prompt of step `name` with the queued messages in front; each
    /// delivered message (and a problem with the file) is logged.
    pub(super) fn deliver(&self, name: &str, prompt: String, emit: &dyn Emit) -> String {
        let (messages, warning) = self.take();
        if let Some(warning) = warning {
            emit.emit(Event::log(Level::Warn, warning));
        }
        if messages.is_empty() {
            return prompt;
        }
        for message in &messages {
            emit.emit(Event::log(
                Level::Info,
                format!("interjection for step \"{name}\": {message}"),
            ));
        }
        prepend(&messages, &prompt)
    }
}

impl Tail {
    /// Adds the lines completed since the last read to `messages`.
    fn read(&mut self, messages: &mut Vec<String>) -> Option<String> {
        if self.refused {
            return None;
        }
        let mut file = match crate::input_file::open(&self.path) {
            Ok(file) => file,
            Err(crate::input_file::InputError::NotFound(_)) => return None,
            Err(e) => {
                self.refused = true;
                return Some(format!(
                    "the interjection file {} is not read: {e}",
                    self.path.display()
                ));
            }
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.offset {
            self.offset = 0;
        }
        if len == self.offset {
            return None;
        }
        let mut bytes = Vec::new();
        let read = file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.take(MAX_READ).read_to_end(&mut bytes));
        if let Err(e) = read {
            return Some(format!(
                "the interjection file {} cannot be read: {e}",
                self.path.display()
            ));
        }
        let (lines, used) = lines(&bytes);
        messages.extend(lines);
        let used = if used == 0 && bytes.len() as u64 >= MAX_READ {
            // One line longer than a read: dropped, so the file goes on.
            bytes.len()
        } else {
            used
        };
        self.offset = self.offset.saturating_add(used as u64);
        None
    }
}

/// The messages of `bytes`: its complete lines, trimmed, blank ones
/// skipped; and how many bytes they took (an unfinished last line waits).
pub fn lines(bytes: &[u8]) -> (Vec<String>, usize) {
    let Some(last) = memchr::memrchr(b'\n', bytes) else {
        return (Vec::new(), 0);
    };
    let complete = bytes.get(..=last).unwrap_or_default();
    let messages = complete
        .split(|b| *b == b'\n')
        .map(|line| String::from_utf8_lossy(line).trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect();
    (messages, last + 1)
}

/// `prompt` with `messages` in front, as Executant writes it.
pub(super) fn prepend(messages: &[String], prompt: &str) -> String {
    format!("{HEADER}\n{}\n\n---\n{prompt}", messages.join("\n"))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn complete_lines_are_messages_and_an_unfinished_one_waits() {
        assert_eq!(lines(b""), (Vec::new(), 0));
        assert_eq!(lines(b"half"), (Vec::new(), 0));
        let (messages, used) = lines(b"one\n\n  two \r\nthr");
        assert_eq!(messages, ["one", "two"]);
        assert_eq!(used, 13);
    }

    #[test]
    fn messages_go_in_front_of_the_prompt() {
        assert_eq!(
            prepend(&["a".into(), "b".into()], "do it"),
            "[User correction from a previous step]\na\nb\n\n---\ndo it"
        );
    }

    #[test]
    fn the_queue_takes_typed_messages_then_the_files_new_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes");
        let queue = Queue::with_file(Some(path.clone()));
        // No file yet: nothing, and no warning.
        assert_eq!(queue.take(), (Vec::new(), None));
        queue.push("typed".into());
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(b"first\nsecond\nhal").unwrap();
        assert_eq!(queue.take().0, ["typed", "first", "second"]);
        assert_eq!(queue.take().0, Vec::<String>::new());
        file.write_all(b"f done\n").unwrap();
        assert_eq!(queue.take().0, ["half done"]);
        // Replaced by a shorter file: read from its start.
        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(queue.take().0, ["new"]);
        let events = Mutex::new(Vec::new());
        queue.push("use staging".into());
        let prompt = queue.deliver("ask", "go".into(), &events);
        assert_eq!(prompt, prepend(&["use staging".into()], "go"));
        let events = events.into_inner().unwrap();
        assert!(
            matches!(&events[..], [Event::Log { level: Level::Info, text }]
            if text == "interjection for step \"ask\": use staging")
        );
        assert_eq!(
            queue.deliver("ask", "go".into(), &Mutex::new(Vec::new())),
            "go"
        );
    }

    #[test]
    fn a_directory_is_refused_once_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let queue = Queue::with_file(Some(dir.path().to_path_buf()));
        let (messages, warning) = queue.take();
        assert!(messages.is_empty());
        assert!(warning.unwrap().contains("is a directory"));
        assert_eq!(queue.take(), (Vec::new(), None));
    }
}
