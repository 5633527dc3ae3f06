//! Checks over a parsed plan: step numbering, whether each step can
//! complete a run, and the Execution Strategy (sessions, waves,
//! dependencies, scope fences; trekexecute Phase 2 and Phase 2.55 Check 3).
//! Pure functions of the model.

use std::collections::{BTreeMap, BTreeSet};

use super::code;
use super::model::Plan;
use super::step::in_repository;
use super::strategy::Strategy;
use crate::problem::Problem;

/// Duplicate and non-consecutive step numbers. A recovery spec (a session
/// spec with `## Recovery Metadata`, trekexecute Phase 7.6) holds only the
/// steps a run missed after its Step 0: its numbers must rise, and may skip.
pub(super) fn steps(plan: &mut Plan, recovery: bool) {
    let mut seen = BTreeMap::new();
    let mut problems = Vec::new();
    let mut previous: Option<u32> = None;
    let mut previous_line = 0;
    // A step written under another heading (`## Step 2:`) is already named
    // as PLAN_FORBIDDEN_HEADING; the gap it leaves is not a second mistake.
    let misheaded: Vec<u32> = plan
        .problems
        .iter()
        .filter(|p| p.code == code::PLAN_FORBIDDEN_HEADING)
        .filter_map(|p| p.line)
        .collect();
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
            let after_misheaded = misheaded
                .iter()
                .any(|line| (previous_line..step.line).contains(line));
            if step.number != expected && !first_of_slice && !rising && !after_misheaded {
                let message = match previous {
                    Some(p) => format!(
                        "step {} follows step {p}; number it {expected}, or renumber the steps in order",
                        step.number
                    ),
                    None => format!(
                        "the first step is numbered {}; number the steps from 1 in order (a plan may open with step 0, the sandbox pre-flight)",
                        step.number
                    ),
                };
                problems.push(
                    Problem::new(code::PLAN_STEP_SEQUENCE, message)
                        .at_line(step.line)
                        .in_step(step.number),
                );
            }
        }
        previous = Some(step.number);
        previous_line = step.line;
    }
    plan.problems.extend(problems);
}

/// Whether each step can complete a run: what a run of it is judged on at
/// its end must be within its reach, so that the run's result never rests
/// on something `plan validate` let through.
///
/// - The run's audit (Phase 7.5) counts one commit per completed step, a
///   sandbox pre-flight none. So a step that is no pre-flight needs its
///   Checkpoint, and Files for it to commit (the checkpoint stages the
///   step's Files and nothing else); a pre-flight has no Checkpoint.
/// - Every path a step names (Files, a written manifest's paths, the
///   Session Manifest's expected paths) lies in the repository: the audits
///   find no other (drift), the checkpoint cannot commit one, and a revert
///   must never act outside the repository.
/// - A manifest's `min_file_count` is at most the number of its expected
///   paths, the only files the step audit counts.
/// - A Checkpoint whose message is written out matches the step's
///   `commit_message_pattern`, which the run's audit holds every commit to.
///
/// A strict step whose manifest is missing or invalid is only checked for
/// its paths: whether it is the pre-flight is not known, and the manifest's
/// own error says what to fix first.
pub(super) fn completable(plan: &mut Plan) {
    let mut problems = Vec::new();
    for step in &plan.steps {
        let n = step.number;
        for file in step.files.iter().filter(|f| !in_repository(&f.path)) {
            problems.push(outside(n, "Files", &file.path, file.line));
        }
        let manifest = step.manifest.as_ref();
        if let Some(m) = manifest.filter(|m| !m.synthesized) {
            let line = m.line.unwrap_or(step.line);
            let paths = (m.expected_paths.iter().map(|p| ("expected_paths", p)))
                .chain(m.bash_syntax_check.iter().map(|p| ("bash_syntax_check", p)))
                .chain(m.must_contain.iter().map(|c| ("must_contain", &c.path)));
            for (key, path) in paths.filter(|(_, p)| !in_repository(p)) {
                problems.push(outside(n, &format!("its Manifest's `{key}`"), path, line));
            }
            let listed = m.expected_paths.len() as u64;
            if m.min_file_count > listed {
                problems.push(
                    Problem::new(
                        code::PLAN_MIN_FILE_COUNT_UNREACHABLE,
                        format!(
                            "step {n}: `min_file_count` is {} but `expected_paths` lists {listed}, and the step audit counts only expected paths that exist, so the step can never pass; set `min_file_count` to {listed} at most, or list the other paths",
                            m.min_file_count
                        ),
                    )
                    .at_line(line)
                    .in_step(n),
                );
            }
            if let Some(problem) = message_mismatch(step, m) {
                problems.push(problem);
            }
        }
        if plan.strict && manifest.is_none() {
            continue;
        }
        if step.sandbox_preflight() {
            if let Some(checkpoint) = &step.checkpoint {
                problems.push(
                    Problem::new(
                        code::PLAN_PREFLIGHT_CHECKPOINT,
                        format!(
                            "step {n} is the sandbox pre-flight (`sandbox_preflight: true`), which commits nothing: the run's audit counts no commit for it, so a commit would be one too many; remove its Checkpoint"
                        ),
                    )
                    .at_line(checkpoint.line)
                    .in_step(n),
                );
            }
            continue;
        }
        let only_checks = step.checkpoint.is_none() && step.files.is_empty();
        let elsewhere = if only_checks {
            "; a step that changes nothing and only runs a check belongs in `## Verification` (a session spec's `## Exit Condition`) instead"
        } else {
            ""
        };
        if step.checkpoint.is_none() {
            let pattern = if plan.strict {
                ", with a message its `commit_message_pattern` matches"
            } else {
                ""
            };
            problems.push(
                Problem::new(
                    code::PLAN_MISSING_CHECKPOINT,
                    format!(
                        "step {n} has no Checkpoint, so it would commit nothing, and the run's audit, which counts one commit per completed step, would end the run PARTIAL: add `- **Checkpoint:** `git commit -m \"…\"`` to the step{pattern}{elsewhere}"
                    ),
                )
                .at_line(step.line)
                .in_step(n),
            );
        }
        if step.files.is_empty() {
            problems.push(
                Problem::new(
                    code::PLAN_MISSING_FILES,
                    format!(
                        "step {n} has no Files: its checkpoint commits only the step's Files, so it would have nothing to commit and the run's audit would end the run PARTIAL; list the paths the step changes, e.g. `- **Files:** `src/lib.rs`, `src/new.rs` (new)`{elsewhere}"
                    ),
                )
                .at_line(step.line)
                .in_step(n),
            );
        }
    }
    if let Some(spec) = &plan.session {
        let listed = spec
            .manifest
            .as_ref()
            .and_then(|m| m.get("expected_paths"))
            .and_then(serde_json::Value::as_array);
        for path in listed
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
        {
            if !in_repository(path) {
                problems.push(
                    Problem::new(
                        code::PLAN_PATH_OUTSIDE_REPOSITORY,
                        format!(
                            "the Session Manifest's `expected_paths` names `{path}`, outside the repository: the run's audit looks only inside it and would report drift; write it relative to the repository root (no `..`, no leading `/` or `~/`)"
                        ),
                    )
                    .at(spec.manifest_line),
                );
            }
        }
    }
    plan.problems.extend(problems);
}

/// A path outside the repository, named by step `n` in `place`.
fn outside(n: u32, place: &str, path: &str, line: u32) -> Problem {
    Problem::new(
        code::PLAN_PATH_OUTSIDE_REPOSITORY,
        format!(
            "step {n}: {place} names `{path}`, outside the repository: the step may change only paths in it, the audits read no other (they would report drift), and a revert must not touch one; write it relative to the repository root (no `..`, no leading `/` or `~/`)"
        ),
    )
    .at_line(line)
    .in_step(n)
}

/// The step's Checkpoint, when its message is written out (no expansion
/// the shell would make), against the pattern its manifest declares.
fn message_mismatch(step: &super::step::Step, manifest: &super::Manifest) -> Option<Problem> {
    let pattern = manifest.commit_message_pattern.as_str();
    let checkpoint = step.checkpoint.as_ref()?;
    let message = super::manifest::commit_message(&checkpoint.command)?;
    if pattern.is_empty() || message.contains(['$', '`', '\\']) {
        return None;
    }
    let regex = crate::pattern::compile(pattern).ok()?;
    // git takes the first line as the subject.
    let subject = message.lines().next().unwrap_or_default();
    (!regex.is_match(subject)).then(|| {
        Problem::new(
            code::PLAN_CHECKPOINT_MESSAGE_MISMATCH,
            format!(
                "step {}: the Checkpoint's message \"{subject}\" does not match its Manifest's `commit_message_pattern` \"{pattern}\", so every run would record checkpoint drift for the step, and the run's audit, which holds each commit to the declared patterns, can end the run PARTIAL; {}",
                step.number,
                unescaped_hint(pattern, subject)
            ),
        )
        .at_line(checkpoint.line)
        .in_step(step.number)
    })
}

/// The fix for a pattern that does not match its message. The usual cause
/// is the message written out as the pattern with its regex characters
/// left bare (`add to_dict()`): the two then read the same, and only the
/// characters' names tell them apart.
fn unescaped_hint(pattern: &str, subject: &str) -> String {
    let core = pattern.strip_prefix('^').unwrap_or(pattern);
    let core = core.strip_suffix('$').unwrap_or(core);
    let special: String =
        core.chars()
            .filter(|c| "().[]{}*+?|".contains(*c))
            .fold(String::new(), |mut seen, c| {
                if !seen.contains(c) {
                    seen.push(c);
                }
                seen
            });
    if !special.is_empty() && subject.contains(core) {
        let listed: Vec<String> = special.chars().map(|c| format!("`{c}`")).collect();
        format!(
            "the pattern is the message written out, but {} are regex characters in it: put a backslash before each (`\\\\(` inside YAML double quotes, `\\(` inside single quotes), or let `voyage-helper plan fill` write the pattern (remove the key first)",
            listed.join(" ")
        )
    } else {
        "change the message or the pattern so that they agree".to_owned()
    }
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
