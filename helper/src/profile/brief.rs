//! The brief's per-phase signals (seed "Composition rule"): front matter
//! `phase_signals: {<phase>: {effort, model}}`, brief_version 2.1 and later.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::model::{EFFORTS, PHASES};
use crate::front_matter;
use crate::problem::Problem;

/// One phase's signal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signal {
    pub effort: Option<String>,
    pub model: Option<String>,
}

/// What the brief says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BriefSignals {
    pub version: Option<String>,
    pub signals: BTreeMap<String, Signal>,
    /// The brief says its signals are partial on purpose.
    pub partial: bool,
    /// The front matter has a `phase_signals` key at all.
    pub has_signals: bool,
}

#[derive(Debug, Deserialize, Default)]
struct Raw {
    #[serde(default)]
    brief_version: Option<Value>,
    #[serde(default)]
    phase_signals: Option<Value>,
    #[serde(default)]
    phase_signals_partial: Option<bool>,
}

/// Reads the signals from a brief's text. A brief without front matter has
/// none. Problems: bad YAML, a signal that is not a mapping, an unknown
/// effort word.
pub fn parse(text: &str) -> Result<BriefSignals, Vec<Problem>> {
    let raw: Raw = match front_matter::parse::<Raw>(text) {
        Ok(r) => r.unwrap_or_default(),
        Err(e) => {
            let mut p = Problem::new("PROFILE_BRIEF_BAD_FRONT_MATTER", e.to_string());
            p.line = e.line();
            return Err(vec![p]);
        }
    };
    let version = raw.brief_version.map(|v| match v {
        Value::String(s) => s,
        other => other.to_string(),
    });
    let mut out = BriefSignals {
        version,
        partial: raw.phase_signals_partial.unwrap_or(false),
        has_signals: raw.phase_signals.is_some(),
        ..BriefSignals::default()
    };
    let mut problems = Vec::new();
    match raw.phase_signals {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (phase, signal) in map {
                let Value::Object(fields) = signal else {
                    problems.push(Problem::new(
                        "PROFILE_BRIEF_BAD_SIGNAL",
                        format!("phase_signals.{phase} must be a mapping of effort and model"),
                    ));
                    continue;
                };
                let text_of =
                    |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
                let effort = text_of("effort");
                if let Some(e) = &effort
                    && !EFFORTS.contains(&e.as_str())
                {
                    problems.push(Problem::new(
                        "PROFILE_BRIEF_BAD_EFFORT",
                        format!(
                            "phase_signals.{phase}.effort is '{e}'; one of {}",
                            EFFORTS.join(", ")
                        ),
                    ));
                }
                if !PHASES.contains(&phase.as_str()) {
                    // Other phases belong to other commands; ignored here.
                    continue;
                }
                out.signals.insert(
                    phase,
                    Signal {
                        effort,
                        model: text_of("model"),
                    },
                );
            }
        }
        Some(_) => problems.push(Problem::new(
            "PROFILE_BRIEF_BAD_SIGNAL",
            "phase_signals must be a mapping of phase to {effort, model}",
        )),
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

impl BriefSignals {
    /// brief_version 2.1 or later without phase_signals, and not marked
    /// partial: the sequencing gate's `BRIEF_V51_MISSING_SIGNALS`.
    pub fn missing_signals(&self) -> bool {
        let at_least_2_1 = self.version.as_deref().is_some_and(|v| {
            let mut parts = v.trim().split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            let major = parts.next().unwrap_or(0);
            let minor = parts.next().unwrap_or(0);
            (major, minor) >= (2, 1)
        });
        at_least_2_1 && !self.has_signals && !self.partial
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_signals() {
        let text = "---\nbrief_version: 2.1\nphase_signals:\n  execute:\n    effort: high\n    model: opus\n  plan:\n    effort: standard\n---\n# B\n";
        let b = parse(text).unwrap();
        assert_eq!(b.version.as_deref(), Some("2.1"));
        assert_eq!(b.signals["execute"].effort.as_deref(), Some("high"));
        assert_eq!(b.signals["plan"].model, None);
        assert!(!b.missing_signals());
        let b = parse("---\nbrief_version: 2.1\n---\n").unwrap();
        assert!(b.missing_signals());
        assert!(!parse("# no front matter").unwrap().missing_signals());
        let err = parse("---\nphase_signals:\n  execute:\n    effort: max\n---\n").unwrap_err();
        assert_eq!(err[0].code, "PROFILE_BRIEF_BAD_EFFORT");
    }
}
