//! The autonomy modes and how one is chosen (seed Phase 1 `--gates`;
//! "Composition rule"; "High-effort behavior").
//!
//! - `open`: pause only where a pause is mandatory (the main-merge gate);
//!   sessions run one after another (the low-effort path).
//! - `adaptive` (the default): the same pauses, with parallel waves.
//! - `closed`: every autonomy boundary stops for the operator — each wave's
//!   merge-back pauses, a failed step or a drifting audit halts, and the
//!   manifest audit runs in its strictest form (the high-effort path).
//!
//! An explicit `--gates` flag beats the brief's effort signal; when they
//! disagree, the override is recorded as the `gates_mode_flag_override`
//! event. `--gates true` is the bare `--gates` flag (closed); `--gates
//! false` means no flag was given.

use std::fmt;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Open,
    Adaptive,
    Closed,
}

impl Mode {
    pub const ALL: [Self; 3] = [Self::Open, Self::Adaptive, Self::Closed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Adaptive => "adaptive",
            Self::Closed => "closed",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The brief's effort signal for the execute phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    Low,
    Standard,
    High,
}

impl Effort {
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "low" => Some(Self::Low),
            "standard" => Some(Self::Standard),
            "high" => Some(Self::High),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Standard => "standard",
            Self::High => "high",
        }
    }

    /// The mode an effort implies: low → open, standard → adaptive,
    /// high → closed.
    pub fn mode(self) -> Mode {
        match self {
            Self::Low => Mode::Open,
            Self::Standard => Mode::Adaptive,
            Self::High => Mode::Closed,
        }
    }
}

/// What `--gates` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatesFlag {
    /// No flag (`--gates false`, or the option left out).
    Absent,
    /// An explicit mode (`--gates open|adaptive|closed`, or `true` = closed).
    Explicit(Mode),
}

impl GatesFlag {
    pub fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "open" => Self::Explicit(Mode::Open),
            "adaptive" => Self::Explicit(Mode::Adaptive),
            "closed" | "true" => Self::Explicit(Mode::Closed),
            "false" => Self::Absent,
            _ => return None,
        })
    }
}

/// Where the mode came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ModeSource {
    Flag,
    Brief,
    Default,
}

/// The chosen mode, and whether a flag overrode a different brief signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Resolved {
    pub mode: Mode,
    pub source: ModeSource,
    /// The flag won against an effort signal that implied another mode.
    pub overridden: Option<Effort>,
}

/// Flag, then effort, then `adaptive`.
pub(super) fn resolve(flag: GatesFlag, effort: Option<Effort>) -> Resolved {
    match (flag, effort) {
        (GatesFlag::Explicit(mode), Some(e)) => Resolved {
            mode,
            source: ModeSource::Flag,
            overridden: (e.mode() != mode).then_some(e),
        },
        (GatesFlag::Explicit(mode), None) => Resolved {
            mode,
            source: ModeSource::Flag,
            overridden: None,
        },
        (GatesFlag::Absent, Some(e)) => Resolved {
            mode: e.mode(),
            source: ModeSource::Brief,
            overridden: None,
        },
        (GatesFlag::Absent, None) => Resolved {
            mode: Mode::Adaptive,
            source: ModeSource::Default,
            overridden: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_beats_brief_beats_default() {
        let r = resolve(GatesFlag::parse("open").unwrap(), Some(Effort::High));
        assert_eq!(
            (r.mode, r.source, r.overridden),
            (Mode::Open, ModeSource::Flag, Some(Effort::High))
        );
        let r = resolve(GatesFlag::parse("true").unwrap(), Some(Effort::High));
        assert_eq!((r.mode, r.overridden), (Mode::Closed, None));
        let r = resolve(GatesFlag::parse("false").unwrap(), Some(Effort::High));
        assert_eq!((r.mode, r.source), (Mode::Closed, ModeSource::Brief));
        let r = resolve(GatesFlag::Absent, Some(Effort::Low));
        assert_eq!(r.mode, Mode::Open);
        let r = resolve(GatesFlag::Absent, None);
        assert_eq!((r.mode, r.source), (Mode::Adaptive, ModeSource::Default));
        assert_eq!(GatesFlag::parse("maybe"), None);
    }
}
