//! What a brief's front matter says ([`Brief`]), parsed and checked
//! line by line.

use serde::Serialize;

use super::code;
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
