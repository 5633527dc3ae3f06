//! One problem found in outside input or refused by a rule: the one type
//! every area reports with, and its one rendering
//! (docs/maintainer/conventions.md, "Problems and codes").
//!
//! Text is a diagnostic line, `error[CODE]: message (file:line, step N, at
//! /pointer)` (or `warning[CODE]: …`); JSON is `{code, severity, message,
//! file, line, step, pointer}`, with `pointer` only when the problem is about
//! a value inside a JSON document. For GitHub Actions (`--format github` of
//! the validators), a workflow command, `::error file=F,line=L,title=CODE::
//! message`, which GitHub shows on that line of a pull request's diff. Each
//! area declares its codes with
//! [`codes!`] next to its code, so a code is a constant, not a string typed
//! again at every use.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

/// How much a problem weighs: an error fails the check, a warning does not
/// (unless a strict mode says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn word(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// A problem: what went wrong, in words a person can act on, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Problem {
    /// Stable SCREAMING_SNAKE code with an area prefix, e.g.
    /// `PLAN_MISSING_MANIFEST`; scripts and the `/trekexecute` command match
    /// on it.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// The file it comes from, when it comes from one.
    pub file: Option<String>,
    /// 1-based line in `file`, when known.
    pub line: Option<u32>,
    /// The plan step it concerns, if any.
    pub step: Option<u32>,
    /// JSON pointer to the offending value inside a JSON document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

impl Problem {
    /// An error.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: None,
            line: None,
            step: None,
            pointer: None,
        }
    }

    /// A warning.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::new(code, message)
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    #[must_use]
    pub fn in_file(mut self, file: &Path) -> Self {
        self.file = Some(file.display().to_string());
        self
    }

    /// Names `file` unless the problem already names one.
    #[must_use]
    pub fn in_file_if_none(self, file: &Path) -> Self {
        if self.file.is_some() {
            self
        } else {
            self.in_file(file)
        }
    }

    #[must_use]
    pub fn at_line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// The line, when there is one.
    #[must_use]
    pub fn at(mut self, line: Option<u32>) -> Self {
        self.line = line;
        self
    }

    /// A line counted by a parser as `usize` (serde_json, saphyr).
    #[must_use]
    pub fn at_line_usize(self, line: usize) -> Self {
        self.at_line(u32::try_from(line).unwrap_or(u32::MAX))
    }

    #[must_use]
    pub fn in_step(mut self, step: u32) -> Self {
        self.step = Some(step);
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

    /// `file:line`, the file alone, or nothing.
    pub fn place(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => Some(format!("{file}:{line}")),
            (Some(file), None) => Some(file.clone()),
            (None, _) => None,
        }
    }

    /// Writes `error[CODE]: message (file:line, …)` (or `warning[…]`) and
    /// a newline.
    pub fn render_text<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        writeln!(out, "{}[{}]: {self}", self.severity.word(), self.code)
    }
}

/// An output form a validator offers (`--format`): its own text, its JSON
/// (also `--json`), or GitHub Actions annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Github,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "github" => Ok(Self::Github),
            other => Err(format!("unknown format '{other}' (text, json or github)")),
        }
    }
}

impl Problem {
    /// Writes the problem as a GitHub Actions workflow command and a
    /// newline: `::error file=F,line=L,title=CODE::message` (`::warning`
    /// for a warning; no file or line when it has none). The message keeps
    /// the step and pointer; file and line are the annotation's own. Escaped
    /// as the Actions toolkit escapes: `%`, CR and LF everywhere, and `:`
    /// and `,` in properties too, so no text can end a property or start
    /// another command.
    pub fn render_github<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let mut properties = Vec::new();
        if let Some(file) = &self.file {
            properties.push(format!("file={}", escape_property(file)));
        }
        if let Some(line) = self.line {
            properties.push(format!("line={line}"));
        }
        properties.push(format!("title={}", escape_property(self.code)));
        let unplaced = Self {
            file: None,
            line: None,
            ..self.clone()
        };
        writeln!(
            out,
            "::{} {}::{}",
            self.severity.word(),
            properties.join(","),
            escape_data(&unplaced.to_string())
        )
    }
}

/// Writes each problem as a GitHub annotation ([`Problem::render_github`]),
/// placing one that names no file in `file`, the file the validator checked.
pub fn render_github_all<'a, W: Write + ?Sized>(
    problems: impl IntoIterator<Item = &'a Problem>,
    file: &Path,
    out: &mut W,
) -> io::Result<()> {
    for problem in problems {
        if problem.file.is_some() {
            problem.render_github(out)?;
        } else {
            problem.clone().in_file(file).render_github(out)?;
        }
    }
    Ok(())
}

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl fmt::Display for Problem {
    /// `message (file:line, step N, at /pointer)`, without the code.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        let mut place: Vec<String> = self.place().into_iter().collect();
        if let Some(step) = self.step {
            place.push(format!("step {step}"));
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

/// An error type with a stable code: its problem is the code and its
/// message, so every area turns such errors into problems the same way.
pub trait Coded: fmt::Display {
    fn code(&self) -> &'static str;

    fn problem(&self) -> Problem {
        Problem::new(self.code(), self.to_string())
    }
}

thread_local! {
    /// The diagnostics held back while [`holding`] runs on this thread.
    static HELD: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Writes one diagnostic line to stderr, or holds it back when a caller
/// in this process collects them ([`holding`]). A diagnostic that cannot
/// be written has nowhere else to go, so a failed write to stderr is
/// ignored; the exit status still says what happened.
pub fn eprint_line(line: &str) {
    let held = HELD.with(|held| match held.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push(line.trim_end().to_owned());
            true
        }
        None => false,
    });
    if !held {
        let _ = writeln!(io::stderr().lock(), "{}", line.trim_end());
    }
}

/// Prints each problem to stderr (see [`eprint_line`]).
pub fn eprint_all(problems: &[Problem]) {
    for problem in problems {
        let mut text = Vec::new();
        let _ = problem.render_text(&mut text);
        eprint_line(&String::from_utf8_lossy(&text));
    }
}

/// Runs `f` with its diagnostics held back instead of printed, and returns
/// them: for a caller that runs another command in this process and says
/// itself what went wrong. Nested calls keep their own lines.
pub fn holding<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = HELD.with(|held| held.replace(Some(Vec::new())));
    let value = f();
    let lines = HELD.with(|held| held.replace(outer)).unwrap_or_default();
    (value, lines)
}

/// Declares an area's problem codes as constants, each with what it means,
/// and `ALL`, the table of them (for `--help` and the docs). The constants
/// are `pub(crate)` in the crate that declares them; `pub;` first makes
/// them public, for an area whose codes other crates name:
///
/// ```ignore
/// voyage_core::problem::codes! {
///     PROGRESS_NOT_JSON => "the file is not JSON",
/// }
/// ```
#[macro_export]
macro_rules! codes {
    (pub; $($name:ident => $what:literal),* $(,)?) => {
        $crate::codes!(@declare [pub] $($name => $what),*);
    };
    ($($name:ident => $what:literal),* $(,)?) => {
        $crate::codes!(@declare [pub(crate)] $($name => $what),*);
    };
    (@declare [$vis:vis] $($name:ident => $what:literal),*) => {
        $(
            #[doc = $what]
            // Some codes are raised only by name, through a schema's
            // `x-voyage-code` (schemas/*.schema.json), never as a constant.
            #[allow(dead_code)]
            $vis const $name: &str = stringify!($name);
        )*
        /// Every code of this area, with what it means.
        #[allow(dead_code)]
        $vis const ALL: &[(&str, &str)] = &[$((stringify!($name), $what)),*];
    };
}
pub use codes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_code_file_line_step_and_pointer() {
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
        let mut out = Vec::new();
        Problem::warning("PLAN_MISSING_VERIFY", "no Verify")
            .in_step(3)
            .render_text(&mut out)
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "warning[PLAN_MISSING_VERIFY]: no Verify (step 3)\n"
        );
        assert_eq!(Problem::new("X_Y", "m").to_string(), "m");
        assert_eq!(
            Problem::new("X_Y", "m").at_pointer("").pointer.unwrap(),
            "/"
        );
    }

    fn github(p: &Problem) -> String {
        let mut out = Vec::new();
        p.render_github(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn github_annotations_place_the_problem_and_escape_what_would_break_them() {
        let p = Problem::new("PLAN_MISSING_VERIFY", "step 2 has no Verify")
            .in_file(Path::new("plans/a.md"))
            .at_line(12);
        assert_eq!(
            github(&p),
            "::error file=plans/a.md,line=12,title=PLAN_MISSING_VERIFY::step 2 has no Verify\n"
        );
        // A warning, with no file or line: the step stays in the message.
        assert_eq!(
            github(&Problem::warning("X_Y", "m").in_step(3)),
            "::warning title=X_Y::m (step 3)\n"
        );
        // `%`, CR and LF in the message; `:` and `,` in properties too.
        let p = Problem::new("X_Y", "100% sure\r\nsecond: line, still ::error x::y")
            .in_file(Path::new("dir,1/a:b%.md"))
            .at_line(1)
            .at_pointer("/a");
        assert_eq!(
            github(&p),
            "::error file=dir%2C1/a%3Ab%25.md,line=1,title=X_Y::100%25 sure%0D%0Asecond: line, still ::error x::y (at /a)\n"
        );
        // A problem of no file is placed in the file checked.
        let mut out = Vec::new();
        let problems = [
            Problem::new("X_Y", "m").at_line(4),
            Problem::new("X_Z", "n").in_file(Path::new("other.md")),
        ];
        render_github_all(&problems, Path::new("plan.md"), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "::error file=plan.md,line=4,title=X_Y::m\n::error file=other.md,title=X_Z::n\n"
        );
        assert_eq!("github".parse::<Format>(), Ok(Format::Github));
        assert!("xml".parse::<Format>().unwrap_err().contains("github"));
    }

    #[test]
    fn json_has_every_key_but_an_absent_pointer() {
        let p = Problem::new("X_Y", "m").in_file(Path::new("f")).at_line(2);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"code":"X_Y","severity":"error","message":"m","file":"f","line":2,"step":null}"#
        );
    }
}
