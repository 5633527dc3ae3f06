//! Briefs: the front matter of a `brief.md` (trekexecute "Composition rule"):
//! `brief_version` and, per phase, the signals `effort` (low, standard,
//! high) and an optional `model`. `brief validate` checks it.

pub mod cli;

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::exit;
use crate::plan::markdown::{self, Block};
use crate::plan::{Problem, version};

/// The efforts a phase signal may ask for.
pub const EFFORTS: [&str; 3] = ["low", "standard", "high"];

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
    /// Parses a brief. `soft` turns the missing-signals error into a warning.
    pub fn parse(source: &str, soft: bool) -> Self {
        let mut brief = Self::default();
        let Some(Block::FrontMatter { text, line }) = markdown::blocks(source).into_iter().next()
        else {
            brief.problems.push(Problem::error(
                "BRIEF_NO_FRONT_MATTER",
                Some(1),
                "the brief has no YAML front matter (a --- block at the top with brief_version)",
            ));
            return brief;
        };
        let map = match serde_saphyr::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) | Err(_) => {
                brief.problems.push(Problem::error(
                    "BRIEF_FRONT_MATTER",
                    Some(line),
                    "the front matter is not a YAML mapping",
                ));
                return brief;
            }
        };
        brief.brief_version = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("brief_version:"))
            .map(|v| v.trim().trim_matches(['"', '\'']).to_owned());
        let key_line = |key: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(key))
                .and_then(|i| u32::try_from(i).ok())
                .map_or(line, |i| line + i)
        };
        brief.phase_signals_partial =
            map.get("phase_signals_partial").and_then(Value::as_bool) == Some(true);
        match map.get("phase_signals") {
            None | Some(Value::Null) => {}
            Some(Value::Object(phases)) => {
                for (phase, signal) in phases {
                    let effort = signal
                        .get("effort")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    let model = signal
                        .get("model")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    if !signal.is_object() {
                        brief.problems.push(Problem::error(
                            "BRIEF_INVALID_SIGNAL",
                            Some(key_line(phase)),
                            format!("phase_signals.{phase} must be a mapping with effort (and optionally model)"),
                        ));
                    } else if let Some(e) = effort.as_deref().filter(|e| !EFFORTS.contains(e)) {
                        brief.problems.push(Problem::error(
                            "BRIEF_INVALID_EFFORT",
                            Some(key_line("effort")),
                            format!(
                                "phase_signals.{phase}.effort is \"{e}\"; use low, standard or high"
                            ),
                        ));
                    }
                    brief.phase_signals.push(PhaseSignal {
                        phase: phase.clone(),
                        effort,
                        model,
                    });
                }
            }
            Some(_) => brief.problems.push(Problem::error(
                "BRIEF_INVALID_SIGNAL",
                Some(key_line("phase_signals")),
                "phase_signals must map each phase to its signals",
            )),
        }
        let needs_signals = brief
            .brief_version
            .as_deref()
            .is_some_and(|v| version::at_least(v, 2, 1));
        if needs_signals && map.get("phase_signals").is_none() && !brief.phase_signals_partial {
            let message = "brief_version 2.1 and later must carry phase_signals (or phase_signals_partial: true); \
                           without them every phase falls back to the profile";
            let line = Some(key_line("brief_version"));
            brief.problems.push(if soft {
                Problem::warning("BRIEF_V51_MISSING_SIGNALS", line, message)
            } else {
                Problem::error("BRIEF_V51_MISSING_SIGNALS", line, message)
            });
        }
        if let Some(v) = &brief.brief_version
            && version::parse(v).is_none()
        {
            brief.problems.push(Problem::error(
                "BRIEF_INVALID_VERSION",
                Some(key_line("brief_version")),
                format!("brief_version \"{v}\" is not a version number such as 2.1"),
            ));
        }
        brief
    }

    /// The signal for `phase`, if the brief gives one.
    pub fn signal(&self, phase: &str) -> Option<&PhaseSignal> {
        self.phase_signals.iter().find(|s| s.phase == phase)
    }
}

/// `brief validate`: 0 valid, 1 not, 2 unreadable (or the error writing
/// the report).
pub fn validate(args: &cli::ValidateArgs, out: &mut impl Write) -> io::Result<u8> {
    let (path, soft, json) = (&args.brief, args.soft, args.json);
    let source = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!(
                "error[BRIEF_UNREADABLE]: cannot read {}: {e}",
                path.display()
            );
            return Ok(exit::CANNOT_CHECK);
        }
    };
    let brief = Brief::parse(&source, soft);
    let valid = brief.problems.iter().all(|p| !p.is_error());
    let file = path.display().to_string();
    if json {
        let body = serde_json::json!({
            "file": file,
            "valid": valid,
            "brief_version": brief.brief_version,
            "phase_signals": brief.phase_signals,
            "phase_signals_partial": brief.phase_signals_partial,
            "errors": brief.problems.iter().filter(|p| p.is_error()).collect::<Vec<_>>(),
            "warnings": brief.problems.iter().filter(|p| !p.is_error()).collect::<Vec<_>>(),
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
