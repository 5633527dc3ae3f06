//! `## Execution Strategy`: sessions, their waves and dependencies, and the
//! `### Execution Order` (trekexecute Phase 2, "Parse Execution Strategy").

use std::collections::BTreeMap;

use serde::Serialize;

/// The plan's split into sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Strategy {
    pub line: u32,
    pub sessions: Vec<Session>,
    /// The waves of `### Execution Order`, in order.
    pub order: Vec<Wave>,
}

/// One `### Session N: title`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Session {
    pub number: u32,
    pub title: String,
    pub line: u32,
    pub steps: Vec<u32>,
    pub wave: Option<u32>,
    /// Session numbers this one depends on.
    pub depends_on: Vec<u32>,
    pub cwd: Option<String>,
    pub touch: Vec<String>,
    pub never_touch: Vec<String>,
}

/// One line of the Execution Order: `Wave 1: Session 1, Session 2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Wave {
    pub number: u32,
    pub sessions: Vec<u32>,
    pub line: u32,
}

impl Strategy {
    pub fn session(&self, number: u32) -> Option<&Session> {
        self.sessions.iter().find(|s| s.number == number)
    }

    /// Number of distinct waves.
    pub fn wave_count(&self) -> usize {
        let mut waves: Vec<u32> = self.sessions.iter().filter_map(|s| s.wave).collect();
        waves.extend(self.order.iter().map(|w| w.number));
        waves.sort_unstable();
        waves.dedup();
        waves.len()
    }
}

impl Session {
    /// The directory the session opens in, relative to its worktree's
    /// top: its `cwd:` without leading and trailing slashes, or `.`.
    pub fn open_dir(&self) -> &str {
        match self.cwd.as_deref().map(|c| c.trim().trim_matches('/')) {
            Some(cwd) if !cwd.is_empty() && cwd != "." => cwd,
            _ => ".",
        }
    }

    /// The starter line the user gives the session they open: the one
    /// line the dry-run, `wave prepare` and the session orders all print.
    /// `plan_rel` is the plan relative to the repository's top; the line
    /// names it relative to the session's open directory in its worktree
    /// (a checkout of the same commit), so it runs there and only there,
    /// and it is quoted for a shell.
    pub fn starter(&self, plan_rel: &str) -> String {
        let depth = std::path::Path::new(self.open_dir())
            .components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .count();
        let plan = format!("{}{}", "../".repeat(depth), plan_rel);
        format!(
            "/trekexecute --session {} {}",
            self.number,
            crate::shell::quote(&plan)
        )
    }
}

/// Numbers in a list such as `1, 2`, `1-3`, `Session 1, Session 2`, `S1, S2`
/// or `none`.
pub(super) fn numbers(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.split([',', ';', '&']).flat_map(|p| p.split(" and ")) {
        let digits: Vec<u32> = part
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|d| d.parse().ok())
            .collect();
        let is_range = part.contains(['-', '–']) || part.contains(" to ");
        match (digits.as_slice(), is_range) {
            ([a, b], true) if a <= b && b - a < 10_000 => out.extend(*a..=*b),
            _ => out.extend(digits),
        }
    }
    out
}

/// One wave: its number and its sessions, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct WavePlan {
    pub wave: u32,
    pub sessions: Vec<u32>,
}

/// The waves of `strategy`: from each session's `Wave:` and the Execution
/// Order's lines; a session in neither gets a wave of its own after them.
pub(crate) fn waves(strategy: &Strategy) -> Vec<WavePlan> {
    let mut map: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for line in &strategy.order {
        map.entry(line.number)
            .or_default()
            .extend(line.sessions.iter().copied());
    }
    for s in &strategy.sessions {
        if let Some(w) = s.wave {
            map.entry(w).or_default().push(s.number);
        }
    }
    let placed: Vec<u32> = map.values().flatten().copied().collect();
    let mut next = map.keys().last().copied().unwrap_or(0);
    for s in &strategy.sessions {
        if !placed.contains(&s.number) {
            next += 1;
            map.entry(next).or_default().push(s.number);
        }
    }
    map.into_iter()
        .map(|(wave, mut sessions)| {
            sessions.sort_unstable();
            sessions.dedup();
            WavePlan { wave, sessions }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lists() {
        assert_eq!(numbers("1, 2"), [1, 2]);
        assert_eq!(numbers("Session 1, Session 2"), [1, 2]);
        assert_eq!(numbers("S1 and S3"), [1, 3]);
        assert_eq!(numbers("2-4"), [2, 3, 4]);
        assert_eq!(numbers("none"), Vec::<u32>::new());
    }

    fn session(number: u32, wave: Option<u32>) -> Session {
        Session {
            number,
            title: String::new(),
            line: 1,
            steps: vec![],
            wave,
            depends_on: vec![],
            cwd: None,
            touch: vec![],
            never_touch: vec![],
        }
    }

    #[test]
    fn waves_come_from_both_places_and_strays_go_last() {
        let strategy = Strategy {
            line: 1,
            sessions: vec![session(1, Some(1)), session(2, None), session(3, None)],
            order: vec![Wave {
                number: 1,
                sessions: vec![2],
                line: 1,
            }],
        };
        assert_eq!(
            waves(&strategy),
            vec![
                WavePlan {
                    wave: 1,
                    sessions: vec![1, 2]
                },
                WavePlan {
                    wave: 2,
                    sessions: vec![3]
                }
            ]
        );
    }
}
