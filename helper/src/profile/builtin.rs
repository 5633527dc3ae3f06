//! The four profiles that ship with Voyage. The model names are Claude Code's
//! aliases (`opus`, `sonnet`, `haiku`), so they follow the current models.
//!
//! | profile | brief | research | plan | execute | review | parallel |
//! |---|---|---|---|---|---|---|
//! | economy | sonnet | haiku | sonnet | haiku | haiku | 1 |
//! | balanced | opus | sonnet | opus | sonnet | sonnet | 2 |
//! | premium (default) | opus | opus | opus | opus | opus | 4 |
//! | fable | opus | opus | opus | haiku | opus | 3 |
//!
//! `fable` spends on the thinking (brief, research, plan, review) and
//! saves on the typing: execution follows a plan that leaves little to
//! decide, and every step is verified by commands anyway.

use std::collections::BTreeMap;

use super::model::{PHASES, Profile};

/// The name used when nothing else chooses a profile.
pub(super) const DEFAULT_PROFILE: &str = "premium";

const TABLE: &[(&str, &str, [&str; 5], u32)] = &[
    (
        "economy",
        "lowest cost: sonnet to think, haiku to do",
        ["sonnet", "haiku", "sonnet", "haiku", "haiku"],
        1,
    ),
    (
        "balanced",
        "opus where the plan is made, sonnet elsewhere",
        ["opus", "sonnet", "opus", "sonnet", "sonnet"],
        2,
    ),
    (
        "premium",
        "opus everywhere (the default)",
        ["opus", "opus", "opus", "opus", "opus"],
        4,
    ),
    (
        "fable",
        "opus for brief, research, plan and review; haiku executes the plan",
        ["opus", "opus", "opus", "haiku", "opus"],
        3,
    ),
];

/// The built-in names.
pub(super) fn names() -> Vec<&'static str> {
    TABLE.iter().map(|(n, ..)| *n).collect()
}

/// The built-in profile called `name`.
pub(super) fn find(name: &str) -> Option<Profile> {
    let (name, description, models, parallel) = TABLE.iter().find(|(n, ..)| *n == name)?;
    let phase_models: BTreeMap<String, String> = PHASES
        .iter()
        .zip(models)
        .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
        .collect();
    Some(Profile {
        name: (*name).to_owned(),
        description: (*description).to_owned(),
        phase_models,
        parallel_agents: *parallel,
        origin: "builtin".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_covers_every_phase() {
        for name in names() {
            let p = find(name).unwrap();
            for phase in PHASES {
                assert!(p.model_for(phase).is_some(), "{name} {phase}");
            }
        }
        assert!(find(DEFAULT_PROFILE).is_some());
        assert_eq!(find("fable").unwrap().model_for("execute"), Some("haiku"));
    }
}
