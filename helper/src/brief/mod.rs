//! Briefs: the front matter of a `brief.md` (trekexecute "Composition rule"):
//! `brief_version` and, per phase, the signals `effort` (low, standard,
//! high) and an optional `model`. `brief validate` checks it.

mod cli;
pub(crate) mod code;

pub(crate) use cli::Command;

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::exit;
use crate::plan::version;
use crate::problem::Problem;
use crate::yaml::{Node, Value, front_matter};

/// The efforts a phase signal may ask for.
pub(crate) const EFFORTS: [&str; 3] = ["low", "standard", "high"];

/// One phase's signals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseSignal {
    pub phase: String,
    pub effort: Option<String>,
    pub model: Option<String>,
}

/// What a brief's front matter says.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Brief {
    pub brief_version: Option<String>,
    pub phase_signals: Vec<PhaseSignal>,
    pub phase_signals_partial: bool,
    pub problems: Vec<Problem>,
}

impl Brief {
    /// Parses a brief. `soft` turns the missing-signals error into a warning
    /// (for `profile resolve`, where the profile fills what a brief lacks;
    /// `brief validate --soft` keeps it an error).
    pub fn parse(source: &str, soft: bool) -> Self {
        let mut brief = Self::default();
        let Some(front) = front_matter::split(source).ok().flatten() else {
            brief.problems.push(Problem::new(code::BRIEF_NO_FRONT_MATTER, "the brief has no YAML front matter (a --- block at the top with brief_version)").at_line(1));
            return brief;
        };
        let line = front.first_line;
        let tree = match front.tree() {
            Ok(tree) if matches!(tree.value, Value::Map(_)) => tree,
            Ok(_) | Err(_) => {
                brief.problems.push(
                    Problem::new(
                        code::BRIEF_FRONT_MATTER,
                        "the front matter is not a YAML mapping",
                    )
                    .at_line(line),
                );
                return brief;
            }
        };
        // Lines of keys as the parser saw them; a key the brief lacks is
        // reported at the front matter's first line.
        let key_line = |node: &Node, key: &str| node.entry(key).map_or(line, |(k, _)| k.line);
        brief.brief_version = tree.get("brief_version").map(|v| {
            // As written: YAML would read 2.10 as the number 2.1.
            v.source(front.yaml)
                .map(|t| t.trim().trim_matches(['"', '\'']).to_owned())
                .or_else(|| v.value.scalar_text())
                .unwrap_or_default()
        });
        brief.phase_signals_partial = matches!(
            tree.get("phase_signals_partial"),
            Some(Node {
                value: Value::Bool(true),
                ..
            })
        );
        let phase_signals = tree.get("phase_signals");
        match phase_signals {
            None
            | Some(Node {
                value: Value::Null, ..
            }) => {}
            Some(Node {
                value: Value::Map(phases),
                ..
            }) => {
                for (phase, signal) in phases {
                    let text =
                        |key: &str| signal.get(key).and_then(Node::as_str).map(str::to_owned);
                    let (effort, model) = (text("effort"), text("model"));
                    let phase_name = &phase.text;
                    if !matches!(signal.value, Value::Map(_)) {
                        brief.problems.push(Problem::new(code::BRIEF_INVALID_SIGNAL, format!("phase_signals.{phase_name} must be a mapping with effort (and optionally model)")).at_line(phase.line));
                    } else if let Some(e) = effort.as_deref().filter(|e| !EFFORTS.contains(e)) {
                        brief.problems.push(Problem::new(code::BRIEF_INVALID_EFFORT, format!(
                                "phase_signals.{phase_name}.effort is \"{e}\"; use low, standard or high"
                            )).at_line(key_line(signal, "effort")));
                    }
                    brief.phase_signals.push(PhaseSignal {
                        phase: phase_name.clone(),
                        effort,
                        model,
                    });
                }
            }
            Some(_) => brief.problems.push(
                Problem::new(
                    code::BRIEF_INVALID_SIGNAL,
                    "phase_signals must map each phase to its signals",
                )
                .at_line(key_line(&tree, "phase_signals")),
            ),
        }
        let needs_signals = brief
            .brief_version
            .as_deref()
            .is_some_and(|v| version::at_least(v, 2, 1));
        if needs_signals && phase_signals.is_none() && !brief.phase_signals_partial {
            let message = "brief_version 2.1 and later must carry phase_signals (or phase_signals_partial: true); \
                           without them every phase falls back to the profile";
            let line = Some(key_line(&tree, "brief_version"));
            brief.problems.push(if soft {
                Problem::warning(code::BRIEF_V51_MISSING_SIGNALS, message).at(line)
            } else {
                Problem::new(code::BRIEF_V51_MISSING_SIGNALS, message).at(line)
            });
        }
        if let Some(v) = &brief.brief_version
            && version::parse(v).is_none()
        {
            brief.problems.push(
                Problem::new(
                    code::BRIEF_INVALID_VERSION,
                    format!("brief_version \"{v}\" is not a version number such as 2.1"),
                )
                .at_line(key_line(&tree, "brief_version")),
            );
        }
        brief
    }

    /// The signal for `phase`, if the brief gives one.
    pub fn signal(&self, phase: &str) -> Option<&PhaseSignal> {
        self.phase_signals.iter().find(|s| s.phase == phase)
    }
}

/// The most bytes a brief may have; briefs are a few kilobytes.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the brief at `path` (invalid UTF-8 replaced: the checks
/// point at what it breaks), for `brief validate` and `profile resolve
/// --brief` alike.
pub(crate) fn read(path: &Path) -> Result<String, crate::input_file::InputError> {
    let bytes = crate::input_file::read(path, MAX_FILE_BYTES)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The brief at `path`, checked as `brief validate` checks it (a missing
/// `phase_signals` block an error), or why it cannot be read.
pub(crate) fn load(path: &Path) -> Result<Brief, Problem> {
    let source = read(path).map_err(|e| {
        Problem::new(
            e.code(code::INPUT),
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    Ok(Brief::parse(&source, false))
}

/// `brief validate`: 0 valid, 1 not, 2 unreadable (or the error writing
/// the report).
pub(crate) fn validate(args: &cli::ValidateArgs, out: &mut impl Write) -> io::Result<u8> {
    // --soft lowers only what the seed calls advisory; a missing
    // phase_signals block is not (the sequencing gate halts on it in
    // `errors`), and no other check of this version is either.
    let (path, json) = (&args.brief, args.json);
    let brief = match load(path) {
        Ok(brief) => brief,
        Err(problem) => {
            crate::problem::eprint_all(&[problem]);
            return Ok(exit::CANNOT_CHECK);
        }
    };
    let valid = brief.problems.iter().all(|p| !p.is_error());
    let file = path.display().to_string();
    if json {
        let in_file = |keep: fn(&Problem) -> bool| -> Vec<Problem> {
            brief
                .problems
                .iter()
                .filter(|p| keep(p))
                .map(|p| p.clone().in_file(path))
                .collect()
        };
        let body = serde_json::json!({
            "file": file,
            "valid": valid,
            "brief_version": brief.brief_version,
            "phase_signals": brief.phase_signals,
            "phase_signals_partial": brief.phase_signals_partial,
            "errors": in_file(|p| p.is_error()),
            "warnings": in_file(|p| !p.is_error()),
        });
        writeln!(out, "{body:#}")?;
    } else {
        writeln!(
            out,
            "{}: {}",
            file,
            if valid {
                "valid brief"
            } else {
                "INVALID brief"
            }
        )?;
        for p in &brief.problems {
            let kind = if p.is_error() { "error" } else { "warning" };
            let at = p
                .line
                .map_or_else(|| file.clone(), |l| format!("{file}:{l}"));
            writeln!(out, "- {kind} {} {at}: {}", p.code, p.message)?;
        }
    }
    out.flush()?;
    Ok(if valid { exit::OK } else { exit::NOT_OK })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_keys_own() {
        let text = "---\nbrief_version: \"2.10\"\nphase_signals:\n  plan:\n    effort: high\n  execute:\n    effort: extreme\n---\n# Brief\n";
        let brief = Brief::parse(text, false);
        assert_eq!(brief.brief_version.as_deref(), Some("2.10"));
        let got: Vec<(&str, Option<u32>)> =
            brief.problems.iter().map(|p| (p.code, p.line)).collect();
        // The second phase's effort, not the first `effort:` in the text.
        assert_eq!(got, [("BRIEF_INVALID_EFFORT", Some(7))]);
    }

    #[test]
    fn yaml_1_1_booleans_are_strings() {
        let text = "---\nbrief_version: 2.1\nphase_signals_partial: yes\n---\n";
        let brief = Brief::parse(text, false);
        assert!(!brief.phase_signals_partial);
        assert_eq!(brief.problems[0].code, "BRIEF_V51_MISSING_SIGNALS");
        assert_eq!(brief.problems[0].line, Some(2));
    }
}
