//! The gate's states, events and transitions: where the run is, what just
//! happened, and whether it goes on, pauses for the operator, or stops.
//!
//! States × events (cells not listed are refused, `GATE_ILLEGAL_EVENT`):
//!
//! | state | event | open | adaptive | closed |
//! |---|---|---|---|---|
//! | start | begin | continue → executing | same | same |
//! | executing | step-failed | continue → executing | same | same |
//! | executing | wave-complete | continue → executing | continue → executing | pause → awaiting-wave-merge |
//! | executing | run-complete | continue → auditing | same | same |
//! | auditing | audit-drift | pause → awaiting-main-merge | pause → awaiting-main-merge | pause → awaiting-operator |
//! | auditing | audit-pass | pause → awaiting-main-merge | same | same |
//! | awaiting-operator | approve / decline | pause → awaiting-main-merge / stop → held | same | same |
//! | awaiting-wave-merge | approve / decline | continue → executing / stop → held | same | same |
//! | awaiting-main-merge | approve / decline | continue → finalized / stop → held | same | same |
//! | finalized, held | (any) | refused: the run is over | | |
//!
//! The main-merge gate pauses in every mode and every run reaches it (seed
//! Phase 8: "the one boundary that ALWAYS pauses on every run"): after a
//! passing audit, after a drifting one (the drift shown there; the run is
//! reported partial), and, in closed mode, after the operator approved
//! going on from the drift halt. A failed step never pauses, in any mode:
//! it goes on to the plan's own `On failure:` clause (Hard rule 1:
//! execution decisions come from the plan, never from a question).

use std::fmt;

use serde::Serialize;

use super::mode::Mode;

macro_rules! words {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
        pub enum $name { $(#[serde(rename = $word)] $variant),+ }

        impl $name {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $word),+ }
            }

            pub fn parse(word: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == word)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

words! {
    /// Where the run is.
    State {
        Start = "start",
        Executing = "executing",
        Auditing = "auditing",
        AwaitingOperator = "awaiting-operator",
        AwaitingWaveMerge = "awaiting-wave-merge",
        AwaitingMainMerge = "awaiting-main-merge",
        Finalized = "finalized",
        Held = "held",
    }
}

words! {
    /// What just happened.
    Event {
        Begin = "begin",
        StepFailed = "step-failed",
        WaveComplete = "wave-complete",
        RunComplete = "run-complete",
        AuditDrift = "audit-drift",
        AuditPass = "audit-pass",
        Approve = "approve",
        Decline = "decline",
    }
}

/// What the caller does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    /// Go on without asking.
    Continue,
    /// Ask the operator (AskUserQuestion), then send approve or decline.
    Pause,
    /// End the run here; nothing more is finalized.
    Stop,
}

impl Action {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Pause => "pause",
            Self::Stop => "stop",
        }
    }
}

/// One decision of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Step {
    pub action: Action,
    pub next: State,
    /// The boundary this is, when it is one.
    pub boundary: Option<&'static str>,
    /// Lifecycle events the caller records (with its own payload).
    pub emit: &'static [&'static str],
}

const fn go(next: State) -> Step {
    Step {
        action: Action::Continue,
        next,
        boundary: None,
        emit: &[],
    }
}

/// The table in the module docs; `None` for a refused cell.
pub(super) fn decide(state: State, event: Event, mode: Mode) -> Option<Step> {
    use Event as E;
    use State as S;
    let closed = mode == Mode::Closed;
    let halt = Step {
        action: Action::Pause,
        next: S::AwaitingOperator,
        boundary: Some("gates-halt"),
        emit: &["gates-halt"],
    };
    let main_merge = Step {
        action: Action::Pause,
        next: S::AwaitingMainMerge,
        boundary: Some("main-merge-gate"),
        emit: &["main-merge-gate"],
    };
    Some(match (state, event) {
        (S::Start, E::Begin) => go(S::Executing),
        (S::Executing, E::StepFailed) => go(S::Executing),
        (S::Executing, E::WaveComplete) if closed => Step {
            action: Action::Pause,
            next: S::AwaitingWaveMerge,
            boundary: Some("wave-merge-gate"),
            emit: &["wave-merge-gate"],
        },
        (S::Executing, E::WaveComplete) => go(S::Executing),
        (S::Executing, E::RunComplete) => go(S::Auditing),
        (S::Auditing, E::AuditDrift) if closed => halt,
        (S::Auditing, E::AuditDrift | E::AuditPass) | (S::AwaitingOperator, E::Approve) => {
            main_merge
        }
        (S::AwaitingWaveMerge, E::Approve) => Step {
            emit: &["wave-merge-approved"],
            ..go(S::Executing)
        },
        (S::AwaitingMainMerge, E::Approve) => Step {
            emit: &["main-merge-approved"],
            ..go(S::Finalized)
        },
        (S::AwaitingOperator | S::AwaitingWaveMerge | S::AwaitingMainMerge, E::Decline) => Step {
            action: Action::Stop,
            next: S::Held,
            boundary: None,
            emit: match state {
                S::AwaitingWaveMerge => &["wave-merge-declined"],
                S::AwaitingMainMerge => &["main-merge-declined"],
                _ => &[],
            },
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_merge_gate_always_pauses() {
        for mode in Mode::ALL {
            let step = decide(State::Auditing, Event::AuditPass, mode).unwrap();
            assert_eq!(step.action, Action::Pause);
            assert_eq!(step.emit, &["main-merge-gate"]);
        }
    }

    #[test]
    fn terminal_states_refuse_everything() {
        for &event in Event::ALL {
            for mode in Mode::ALL {
                assert_eq!(decide(State::Finalized, event, mode), None);
                assert_eq!(decide(State::Held, event, mode), None);
            }
        }
    }
}
