//! A profile: which model each phase uses and how many agents may work in
//! parallel (seed "Profile (v4.1)").

use std::collections::BTreeMap;

use serde::Serialize;

/// The phases a profile and a brief's `phase_signals` speak of.
pub const PHASES: &[&str] = &["brief", "research", "plan", "execute", "review"];

/// The effort when the brief gives none for the phase.
pub(super) const DEFAULT_EFFORT: &str = "standard";

/// A resolved profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    pub name: String,
    pub description: String,
    /// A model for every phase in [`PHASES`].
    pub phase_models: BTreeMap<String, String>,
    /// Sessions that may run at once in a wave.
    pub parallel_agents: u32,
    /// `builtin`, or the file it was read from.
    pub origin: String,
}

impl Profile {
    /// The model for `phase`.
    pub fn model_for(&self, phase: &str) -> Option<&str> {
        self.phase_models.get(phase).map(String::as_str)
    }
}
