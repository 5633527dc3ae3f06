//! One problem found in outside input or refused by a rule, with a stable
//! code, and its one rendering (STYLE.md pattern 6).
//!
//! Every area that reports problems (`progress`, `state`, `stats`, `gate`,
//! `profile`) builds these; text goes to stderr as
//! `error[CODE]: message (file:line)`, JSON as `{code, message, file, line,
//! pointer}` (schema `problem`, embedded in the reports that carry problems).

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

/// A problem: what went wrong, in words a person can act on, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Stable SCREAMING_SNAKE code with an area prefix, e.g. `PROGRESS_BAD_STATUS`.
    pub code: &'static str,
    pub message: String,
    /// The file it comes from, when it comes from one.
    pub file: Option<String>,
    /// 1-based line in `file`, when known.
    pub line: Option<u64>,
    /// JSON pointer to the offending value inside a JSON document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

impl Problem {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            file: None,
            line: None,
            pointer: None,
        }
    }

    #[must_use]
    pub fn in_file(mut self, file: &Path) -> Self {
        self.file = Some(file.display().to_string());
        self
    }

    #[must_use]
    pub fn at_line(mut self, line: u64) -> Self {
        self.line = Some(line);
        self
    }

    #[must_use]
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Self {
        let pointer = pointer.into();
        self.pointer = Some(if pointer.is_empty() {
            "/".to_owned()
        } else {
            pointer
        });
        self
    }

    /// Writes `error[CODE]: message (file:line)` and a newline.
    pub fn render_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "error[{}]: {self}", self.code)
    }
}

impl fmt::Display for Problem {
    /// `message (file:line, at /pointer)`, without the code.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        let mut place = Vec::new();
        match (&self.file, self.line) {
            (Some(file), Some(line)) => place.push(format!("{file}:{line}")),
            (Some(file), None) => place.push(file.clone()),
            _ => {}
        }
        if let Some(pointer) = &self.pointer {
            place.push(format!("at {pointer}"));
        }
        if !place.is_empty() {
            write!(f, " ({})", place.join(", "))?;
        }
        Ok(())
    }
}

/// Prints each problem to stderr; a failed write to stderr is ignored.
pub fn eprint_all(problems: &[Problem]) {
    let stderr = io::stderr();
    let mut err = stderr.lock();
    for problem in problems {
        let _ = problem.render_text(&mut err);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_code_file_line_and_pointer() {
        let p = Problem::new("PROGRESS_BAD_STATUS", "unknown step status 'done'")
            .in_file(Path::new("p.json"))
            .at_line(7)
            .at_pointer("/steps/1/status");
        let mut out = Vec::new();
        p.render_text(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "error[PROGRESS_BAD_STATUS]: unknown step status 'done' (p.json:7, at /steps/1/status)\n"
        );
        assert_eq!(Problem::new("X_Y", "m").to_string(), "m");
        assert_eq!(
            Problem::new("X_Y", "m").at_pointer("").pointer.unwrap(),
            "/"
        );
    }
}
