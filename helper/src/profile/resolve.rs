//! Choosing the profile, then composing one phase's effort and model.
//!
//! Profile: `--profile` (source `flag`) → `VOYAGE_PROFILE` (`env`) → the
//! plan's front matter `profile:` (`inheritance`) → `premium` (`default`).
//! Built-in names win over files; other names are looked up as custom
//! profiles.
//!
//! Composition (seed "Composition rule"), per phase:
//! `effort = brief.phase_signals[phase].effort ?? standard`,
//! `model  = brief.phase_signals[phase].model  ?? profile.phase_models[phase]`.

use std::path::Path;

use serde::Serialize;

use super::builtin::{self, DEFAULT_PROFILE};
use super::code;
use super::custom;
use super::model::{DEFAULT_EFFORT, Profile};
use crate::brief::Brief;
use crate::problem::Problem;

/// Where the profile's name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ProfileSource {
    Flag,
    Env,
    Inheritance,
    Default,
}

impl ProfileSource {
    /// The word the resolution and the stats record print.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Self::Flag => "flag",
            Self::Env => "env",
            Self::Inheritance => "inheritance",
            Self::Default => "default",
        }
    }
}

/// The inputs that can name a profile, in order of precedence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Choice {
    pub flag: Option<String>,
    pub env: Option<String>,
    pub plan: Option<String>,
}

/// The name and its source.
pub(super) fn choose(choice: &Choice) -> (String, ProfileSource) {
    let pick = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    if let Some(n) = pick(&choice.flag) {
        (n, ProfileSource::Flag)
    } else if let Some(n) = pick(&choice.env) {
        (n, ProfileSource::Env)
    } else if let Some(n) = pick(&choice.plan) {
        (n, ProfileSource::Inheritance)
    } else {
        (DEFAULT_PROFILE.to_owned(), ProfileSource::Default)
    }
}

/// The profile called `name`: built-in, or a custom file.
pub(super) fn find(
    name: &str,
    project: &Path,
    data_dir: Option<&Path>,
) -> Result<Profile, Vec<Problem>> {
    if let Some(p) = builtin::find(name) {
        return Ok(p);
    }
    match custom::load(name, project, data_dir)? {
        Some(p) => Ok(p),
        None => Err(vec![Problem::new(
            code::PROFILE_UNKNOWN,
            format!(
                "no profile '{name}': not built in ({}) and no {}/{name}.yaml in the project or the data directory",
                builtin::names().join(", "),
                custom::FOLDER
            ),
        )]),
    }
}

/// Where a field's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Sources {
    pub effort: &'static str,
    pub model: &'static str,
}

/// One phase, composed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Composed {
    pub effort: String,
    pub model: String,
    pub sources: Sources,
}

impl Composed {
    /// `brief`, `profile`, or `brief+profile`.
    pub(super) fn source(&self) -> &'static str {
        match (
            self.sources.effort == "brief",
            self.sources.model == "brief",
        ) {
            (true, true) => "brief",
            (false, false) => "profile",
            _ => "brief+profile",
        }
    }
}

/// The composition rule for `phase`.
pub(super) fn compose(
    phase: &str,
    brief: Option<&Brief>,
    profile: &Profile,
) -> Result<Composed, Problem> {
    let signal = brief.and_then(|b| b.signal(phase));
    let (effort, effort_source) = match signal.and_then(|s| s.effort.clone()) {
        Some(e) => (e, "brief"),
        None => (DEFAULT_EFFORT.to_owned(), "default"),
    };
    let (model, model_source) = match signal
        .and_then(|s| s.model.clone())
        .filter(|m| !m.is_empty())
    {
        Some(m) => (m, "brief"),
        None => match profile.model_for(phase) {
            Some(m) => (m.to_owned(), "profile"),
            None => {
                return Err(Problem::new(
                    code::PROFILE_NO_MODEL,
                    format!(
                        "profile '{}' has no model for phase '{phase}'",
                        profile.name
                    ),
                ));
            }
        },
    };
    Ok(Composed {
        effort,
        model,
        sources: Sources {
            effort: effort_source,
            model: model_source,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        let c = |f: Option<&str>, e: Option<&str>, p: Option<&str>| {
            choose(&Choice {
                flag: f.map(Into::into),
                env: e.map(Into::into),
                plan: p.map(Into::into),
            })
        };
        assert_eq!(
            c(Some("economy"), Some("balanced"), Some("fable")),
            ("economy".into(), ProfileSource::Flag)
        );
        assert_eq!(
            c(None, Some("balanced"), Some("fable")),
            ("balanced".into(), ProfileSource::Env)
        );
        assert_eq!(
            c(None, Some(" "), Some("fable")),
            ("fable".into(), ProfileSource::Inheritance)
        );
        assert_eq!(
            c(None, None, None),
            ("premium".into(), ProfileSource::Default)
        );
    }

    #[test]
    fn brief_wins_per_field() {
        let b = Brief::parse(
            "---\nbrief_version: 2.1\nphase_signals:\n  execute:\n    effort: high\n  plan:\n    model: sonnet\n---\n",
            true,
        );
        assert!(b.problems.is_empty(), "{:?}", b.problems);
        let economy = builtin::find("economy").unwrap();
        let c = compose("execute", Some(&b), &economy).unwrap();
        assert_eq!(
            (c.effort.as_str(), c.model.as_str(), c.source()),
            ("high", "haiku", "brief+profile")
        );
        let c = compose("plan", Some(&b), &economy).unwrap();
        assert_eq!(
            (c.effort.as_str(), c.model.as_str()),
            ("standard", "sonnet")
        );
        let c = compose("review", None, &economy).unwrap();
        assert_eq!(
            (c.effort.as_str(), c.model.as_str(), c.source()),
            ("standard", "haiku", "profile")
        );
    }
}
