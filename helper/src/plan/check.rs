//! Checks over a parsed plan: step numbering and the Execution Strategy
//! (sessions, waves, dependencies, scope fences; trekexecute Phase 2 and
//! Phase 2.55 Check 3). Pure functions of the model.

use std::collections::{BTreeMap, BTreeSet};

use super::code;
use super::model::Plan;
use super::strategy::Strategy;
use crate::problem::Problem;

/// Duplicate and non-consecutive step numbers. A recovery spec (a session
/// spec with `## Recovery Metadata`, trekexecute Phase 7.6) holds only the
/// steps a run missed after its Step 0: its numbers must rise, and may skip.
pub(super) fn steps(plan: &mut Plan, recovery: bool) {
    let mut seen = BTreeMap::new();
    let mut problems = Vec::new();
    let mut previous: Option<u32> = None;
    for step in &plan.steps {
        if let Some(first) = seen.insert(step.number, step.line) {
            problems.push(
                Problem::new(
                    code::PLAN_DUPLICATE_STEP,
                    format!(
                        "step {} is numbered like the step at line {first}; number steps once each",
                        step.number
                    ),
                )
                .at_line(step.line)
                .in_step(step.number),
            );
        } else {
            let expected = previous.map_or(1, |p| p + 1);
            // A session spec is a slice of a plan: it may start anywhere. A
            // plan may open with the synthetic Step 0, the sandbox
            // pre-flight (Sub-step D1, "Step 0 sentinel").
            let spec = plan.kind == super::model::PlanKind::SessionSpec;
            let first_of_slice =
                (previous.is_none() && (spec || step.number == 0)) || (spec && previous == Some(0));
            let rising = recovery && previous.is_some_and(|p| step.number > p);
            if step.number != expected && !first_of_slice && !rising {
                problems.push(
                    Problem::new(
                        code::PLAN_STEP_SEQUENCE,
                        format!(
                            "step {} follows step {}; expected step {expected}",
                            step.number,
                            previous.unwrap_or(0)
                        ),
                    )
                    .at_line(step.line)
                    .in_step(step.number),
                );
            }
        }
        previous = Some(step.number);
    }
    plan.problems.extend(problems);
}

/// Every check of the Execution Strategy, if the plan has one.
pub(super) fn strategy(plan: &mut Plan) {
    let Some(strategy) = &plan.strategy else {
        return;
    };
    let mut problems = Vec::new();
    let steps: BTreeSet<u32> = plan.steps.iter().map(|s| s.number).collect();
    assignments(strategy, &steps, &plan.steps, &mut problems);
    dependencies(strategy, &mut problems);
    waves(strategy, &mut problems);
    overlaps(strategy, &mut problems);
    plan.problems.extend(problems);
}

fn assignments(
    strategy: &Strategy,
    steps: &BTreeSet<u32>,
    all: &[super::step::Step],
    problems: &mut Vec<Problem>,
) {
    let mut owner: BTreeMap<u32, u32> = BTreeMap::new();
    for session in &strategy.sessions {
        for &step in &session.steps {
            if !steps.contains(&step) {
                problems.push(
                    Problem::new(
                        code::PLAN_STRATEGY_UNKNOWN_STEP,
                        format!(
                            "Session {} lists step {step}, which the plan does not have",
                            session.number
                        ),
                    )
                    .at_line(session.line),
                );
            } else if let Some(other) = owner.insert(step, session.number) {
                problems.push(
                    Problem::new(code::PLAN_STRATEGY_STEP_IN_TWO_SESSIONS, format!("step {step} is in Session {other} and Session {}; give each step to one session", session.number)).at_line(session.line)
                    .in_step(step),
                );
            }
        }
    }
    for step in all {
        if !owner.contains_key(&step.number) {
            problems.push(
                Problem::new(code::PLAN_STRATEGY_UNASSIGNED_STEP, format!("step {} belongs to no session of the Execution Strategy, so no session would run it", step.number)).at_line(step.line)
                .in_step(step.number),
            );
        }
    }
}

fn dependencies(strategy: &Strategy, problems: &mut Vec<Problem>) {
    for session in &strategy.sessions {
        for &dep in &session.depends_on {
            match strategy.session(dep) {
                None => problems.push(
                    Problem::new(
                        code::PLAN_STRATEGY_UNKNOWN_DEPENDENCY,
                        format!(
                            "Session {} depends on Session {dep}, which does not exist",
                            session.number
                        ),
                    )
                    .at_line(session.line),
                ),
                Some(other) => {
                    if let (Some(mine), Some(theirs)) = (session.wave, other.wave)
                        && theirs >= mine
                        && dep != session.number
                    {
                        problems.push(Problem::new(code::PLAN_STRATEGY_DEPENDENCY_NOT_EARLIER, format!(
                                    "Session {} (wave {mine}) depends on Session {dep} (wave {theirs}); a dependency must run in an earlier wave",
                                    session.number
                                )).at_line(session.line));
                    }
                }
            }
        }
    }
    // Cycles: a depth-first walk that remembers the path.
    let mut reported = BTreeSet::new();
    for session in &strategy.sessions {
        let mut path = vec![session.number];
        if let Some(cycle) = find_cycle(strategy, &mut path, &mut BTreeSet::new()) {
            let key: BTreeSet<u32> = cycle.iter().copied().collect();
            if reported.insert(key.into_iter().collect::<Vec<_>>()) {
                let chain: Vec<String> = cycle.iter().map(|n| format!("Session {n}")).collect();
                problems.push(
                    Problem::new(
                        code::PLAN_STRATEGY_DEPENDENCY_CYCLE,
                        format!(
                            "sessions depend on each other in a cycle: {}",
                            chain.join(" -> ")
                        ),
                    )
                    .at(strategy
                        .session(cycle.first().copied().unwrap_or(0))
                        .map(|s| s.line)),
                );
            }
        }
    }
}

/// Returns the cycle (first session repeated at the end) reachable from the
/// last session of `path`, if any.
fn find_cycle(
    strategy: &Strategy,
    path: &mut Vec<u32>,
    done: &mut BTreeSet<u32>,
) -> Option<Vec<u32>> {
    let current = *path.last()?;
    let session = strategy.session(current)?;
    for &dep in &session.depends_on {
        if let Some(at) = path.iter().position(|&p| p == dep) {
            let mut cycle: Vec<u32> = path.get(at..).unwrap_or_default().to_vec();
            cycle.push(dep);
            return Some(cycle);
        }
        if done.contains(&dep) || strategy.session(dep).is_none() {
            continue;
        }
        path.push(dep);
        if let Some(cycle) = find_cycle(strategy, path, done) {
            return Some(cycle);
        }
        path.pop();
        done.insert(dep);
    }
    None
}

fn waves(strategy: &Strategy, problems: &mut Vec<Problem>) {
    if strategy.order.is_empty() {
        return;
    }
    let mut listed: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for wave in &strategy.order {
        for &number in &wave.sessions {
            match strategy.session(number) {
                None => problems.push(Problem::new(code::PLAN_STRATEGY_WAVE_MISMATCH, format!("the Execution Order puts Session {number} in wave {}, but there is no Session {number}", wave.number)).at_line(wave.line)),
                Some(session) => {
                    if let Some((other, _)) = listed.insert(number, (wave.number, wave.line)) {
                        problems.push(Problem::new(code::PLAN_STRATEGY_WAVE_MISMATCH, format!("the Execution Order lists Session {number} in wave {other} and in wave {}", wave.number)).at_line(wave.line));
                    } else if session.wave.is_some_and(|w| w != wave.number) {
                        problems.push(Problem::new(code::PLAN_STRATEGY_WAVE_MISMATCH, format!(
                                "Session {number} says Wave {}, but the Execution Order runs it in wave {}",
                                session.wave.unwrap_or(0),
                                wave.number
                            )).at_line(session.line));
                    }
                }
            }
        }
    }
    for session in &strategy.sessions {
        if !listed.contains_key(&session.number) {
            problems.push(
                Problem::new(
                    code::PLAN_STRATEGY_WAVE_MISMATCH,
                    format!(
                        "Session {} is missing from the Execution Order, so it would never run",
                        session.number
                    ),
                )
                .at_line(session.line),
            );
        }
    }
}

/// Two sessions of one wave whose Touch lists overlap: the same path, or a
/// directory in one and a path under it in the other.
fn overlaps(strategy: &Strategy, problems: &mut Vec<Problem>) {
    let mut by_wave: BTreeMap<u32, Vec<&super::strategy::Session>> = BTreeMap::new();
    for session in &strategy.sessions {
        if let Some(wave) = session.wave {
            by_wave.entry(wave).or_default().push(session);
        }
    }
    for (wave, sessions) in by_wave {
        for (i, a) in sessions.iter().enumerate() {
            for b in sessions.iter().skip(i + 1) {
                let shared: Vec<String> = a
                    .touch
                    .iter()
                    .flat_map(|x| b.touch.iter().filter_map(move |y| overlap(x, y)))
                    .collect();
                if !shared.is_empty() {
                    problems.push(Problem::new(code::PLAN_STRATEGY_SCOPE_OVERLAP, format!(
                            "Sessions {} and {} of wave {wave} both touch {}; they cannot run in parallel (move one to a later wave, or run with --fg)",
                            a.number,
                            b.number,
                            shared.join(", ")
                        )).at_line(b.line));
                }
            }
        }
    }
}

/// The overlapping part of two scope paths, if they overlap.
pub(super) fn overlap(a: &str, b: &str) -> Option<String> {
    let norm = |p: &str| {
        let p = p.trim().trim_start_matches("./").trim_end_matches('/');
        if p == "." {
            String::new()
        } else {
            p.to_owned()
        }
    };
    let (na, nb) = (norm(a), norm(b));
    if na.is_empty() || nb.is_empty() {
        // "" or "." is the whole repository.
        return Some(if na.is_empty() {
            b.trim().to_owned()
        } else {
            a.trim().to_owned()
        });
    }
    let under = |dir: &str, path: &str| {
        path.strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
    };
    if na == nb || under(&na, &nb) {
        Some(b.trim().to_owned())
    } else if under(&nb, &na) {
        Some(a.trim().to_owned())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_paths() {
        assert_eq!(
            overlap("src/store/", "src/store/mod.rs"),
            Some("src/store/mod.rs".into())
        );
        assert_eq!(
            overlap("src/shared.rs", "./src/shared.rs"),
            Some("./src/shared.rs".into())
        );
        assert_eq!(overlap("src/store", "src/storefront.rs"), None);
        assert_eq!(overlap("web/", "src/"), None);
        assert_eq!(overlap(".", "a"), Some("a".into()));
    }
}
