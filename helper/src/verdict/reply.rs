//! The executor skill's reply: its model and its two renderings.
//!
//! Text shape (at most [`MAX_LINES`] lines; bullets are cut, never the fixed
//! lines):
//!
//! ```text
//! VERDICT: PASS | FAIL | NO TESTS RAN | ERROR | TIMEOUT (exit <n>, <duration>)[ - <note>]
//! EXPECT: met | not met | undecided - <why>
//! SUMMARY: <the tool's aggregate line, verbatim>
//! FAILURES:
//! - <test or target> - <message>[ (<the assertion's values>)]
//!     <first stack frame>
//! - +<N> more, see LOG
//! LOG: <path>
//! ```

use std::io::{self, Write};

use serde::Serialize;

use super::expect::Judgement;
use super::failure::Failure;
use super::runners::Counts;

/// The most lines a reply may have.
pub const MAX_LINES: usize = 40;
/// The most failure bullets shown before `+N more`.
pub(super) const MAX_BULLETS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    Fail,
    /// The runner ran no test: a filter that matched nothing, every test
    /// skipped, no test file. Never a pass.
    #[serde(rename = "NO TESTS RAN")]
    NoTestsRan,
    Timeout,
    Error,
}

impl Verdict {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::NoTestsRan => "NO TESTS RAN",
            Self::Timeout => "TIMEOUT",
            Self::Error => "ERROR",
        }
    }
}

/// One reply. `--json` prints it as is.
#[derive(Debug, Clone, Serialize)]
pub struct Reply {
    pub verdict: Verdict,
    /// The exit code, or `-` when nothing ran.
    pub exit: String,
    /// The duration as given, or `-`.
    pub duration: String,
    /// Why the verdict is not what the exit code alone says ("cargo test
    /// reports 3 failed but exited 0"), or what the log could not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the runner counted, when it printed counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<Judgement>,
    pub summary: String,
    /// The runner whose format was recognised, if any.
    pub runner: Option<&'static str>,
    pub failures: Vec<Failure>,
    /// Failures found but not listed.
    pub more_failures: usize,
    pub log: Option<String>,
}

impl Reply {
    /// A reply for input that settles nothing: nothing ran, nothing was read.
    pub fn input_error(summary: String) -> Self {
        Self {
            verdict: Verdict::Error,
            exit: "-".into(),
            duration: "-".into(),
            note: None,
            counts: None,
            expect: None,
            summary,
            runner: None,
            failures: Vec::new(),
            more_failures: 0,
            log: None,
        }
    }

    /// The text lines, cut to [`MAX_LINES`].
    pub fn lines(&self) -> Vec<String> {
        let mut verdict = format!(
            "VERDICT: {} (exit {}, {})",
            self.verdict.as_str(),
            self.exit,
            self.duration
        );
        if let Some(note) = &self.note {
            verdict.push_str(" - ");
            verdict.push_str(&one_line(note));
        }
        let mut head = vec![verdict];
        if let Some(expect) = &self.expect {
            head.push(format!("EXPECT: {}", expect.render()));
        }
        head.push(format!("SUMMARY: {}", one_line(&self.summary)));
        let tail: Vec<String> = self.log.iter().map(|l| format!("LOG: {l}")).collect();

        let mut bullets: Vec<Vec<String>> = self
            .failures
            .iter()
            .map(|f| {
                let message = f.excerpt();
                let mut b = vec![if message.is_empty() {
                    format!("- {}", one_line(&f.name))
                } else {
                    format!("- {} - {}", one_line(&f.name), one_line(&message))
                }];
                if let Some(frame) = &f.frame {
                    b.push(format!("    {}", one_line(frame)));
                }
                b
            })
            .collect();
        let mut more = self.more_failures;
        // Room left for the FAILURES: header, bullets and a "+N more" line.
        let room = MAX_LINES.saturating_sub(head.len() + tail.len() + 2);
        while bullets.iter().map(Vec::len).sum::<usize>() > room {
            match bullets.pop() {
                Some(_) => more += 1,
                None => break,
            }
        }

        let mut lines = head;
        if !bullets.is_empty() || more > 0 {
            lines.push("FAILURES:".into());
            lines.extend(bullets.into_iter().flatten());
            if more > 0 {
                lines.push(format!("- +{more} more, see LOG"));
            }
        }
        lines.extend(tail);
        lines
    }

    pub fn render_text(&self, out: &mut impl Write) -> io::Result<()> {
        for line in self.lines() {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    pub fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        writeln!(out)
    }
}

/// Control characters would break the one-line shape; a bidirectional
/// override would reorder what the reader sees, so it is shown escaped.
fn one_line(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::ansi::escape_controls(&spaced).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(i: usize) -> Failure {
        Failure::new(format!("t{i}"))
            .with_message("boom")
            .with_frame("at x.rs:1")
    }

    #[test]
    fn a_bidi_override_from_the_log_is_shown_escaped() {
        assert_eq!(one_line("bad \u{202e}evil\tx"), "bad \\u{202e}evil x");
    }

    #[test]
    fn fixed_lines_survive_and_bullets_are_cut() {
        let reply = Reply {
            verdict: Verdict::Fail,
            exit: "1".into(),
            duration: "3s".into(),
            note: None,
            counts: None,
            expect: Some(Judgement::NotMet("x".into())),
            summary: "a\tb".into(),
            runner: None,
            failures: (0..30).map(failure).collect(),
            more_failures: 5,
            log: Some("/l.log".into()),
        };
        let lines = reply.lines();
        assert!(lines.len() <= MAX_LINES);
        assert_eq!(lines[0], "VERDICT: FAIL (exit 1, 3s)");
        assert_eq!(lines[1], "EXPECT: not met - x");
        assert_eq!(lines[2], "SUMMARY: a b");
        assert_eq!(lines[3], "FAILURES:");
        assert_eq!(lines.last().unwrap(), "LOG: /l.log");
        let more = &lines[lines.len() - 2];
        // 3 fixed + header + "+N" + LOG = 6 lines; 34 left = 17 bullets of 2
        assert_eq!(more, &format!("- +{} more, see LOG", 30 - 17 + 5));
    }

    #[test]
    fn no_failures_no_section() {
        let reply = Reply {
            log: Some("/l".into()),
            ..Reply::input_error("ok".into())
        };
        assert_eq!(
            reply.lines(),
            vec!["VERDICT: ERROR (exit -, -)", "SUMMARY: ok", "LOG: /l"]
        );
    }
}
