//! The one screen every criterion passes before anything runs it: the
//! denylist engine (the rules of `scan command`), then the allowlist with
//! the project's own entries. `criteria run` applies it to each criterion
//! right before running it; `plan validate`, `plan dry-run` and `trek
//! start` apply it to the same criteria before the run starts, so a
//! criterion that would be refused at the end is found at the start.
//!
//! Why a step's Verify is screened by the denylist only and a criterion by
//! both: a Verify is the plan author's own check of one step, run inside
//! the step's retry loop, where a failure costs an attempt and is seen at
//! once; the criteria decide the run's result (PASSED or FAILED), so they
//! must be checks, not actions: a `./deploy.sh` that exits 0 would report a
//! verified run. The allowlist is what keeps "verified" meaning "the tests,
//! linters and builds passed". A project whose checks are its own scripts
//! or tools names them in its allowlist file ([`ALLOW_FILE`]).

use std::path::Path;

use super::allowlist::{self, Project};
use super::code;
use crate::plan::{Criterion, Plan, PlanKind};
use crate::problem::Problem;
use crate::scan::{Context, Decision, judge_command};

/// Where a project lists its own runners, relative to the repository root:
/// one program or command prefix a line, `#` comments.
pub(crate) const ALLOW_FILE: &str = ".voyage/criteria-allow";

/// The rules for one repository: the built-in allowlist and the project's
/// entries.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    project: Project,
    /// Its lines that are no entry, as warnings.
    pub problems: Vec<Problem>,
}

impl Rules {
    /// The rules of the repository at `root` (its [`ALLOW_FILE`], if any).
    pub(crate) fn load(root: &Path) -> Self {
        let path = root.join(ALLOW_FILE);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Self::default();
        };
        let (project, bad) = Project::parse(&text);
        let problems = bad
            .into_iter()
            .map(|(line, why)| {
                Problem::warning(code::CRITERIA_ALLOW_FILE_LINE, why)
                    .in_file(&path)
                    .at_line(line)
            })
            .collect();
        Self { project, problems }
    }
}

/// Which rule refused a criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A denylist rule: it is dangerous and never runs.
    Denylist,
    /// Not a test, lint or build run the allowlist knows.
    Allowlist,
}

/// Why a criterion will not run, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub rule: Rule,
    /// The rule's own words (a denylist finding, or the allowlist's reason).
    pub reason: String,
    /// How to make it run.
    pub fix: String,
}

/// The screen: `Ok` when `command` may run under `rules`.
pub(crate) fn screen(command: &str, rules: &Rules, ctx: &Context) -> Result<(), Refusal> {
    let judgement = judge_command(command, ctx);
    if judgement.decision() == Decision::Block {
        let why: Vec<String> = judgement.deciding().iter().map(|f| f.one_line()).collect();
        return Err(Refusal {
            rule: Rule::Denylist,
            reason: why.join("; "),
            fix: "rewrite the criterion as a check that changes nothing; no allowlist entry lifts the denylist".into(),
        });
    }
    allowlist::check(command, &rules.project).map_err(|r| {
        let file = ALLOW_FILE;
        let fix = match r.entry {
            Some(entry) => format!(
                "if it is a test, lint or build check, add the line `{entry}` to {file} (one program or command prefix a line), or rewrite it with a listed runner (see `voyage-helper criteria run --help`)"
            ),
            None => "rewrite it as plain commands joined by &&, || or |, or move the logic into a script under tests/ and run that".into(),
        };
        Refusal {
            rule: Rule::Allowlist,
            reason: r.reason,
            fix,
        }
    })
}

/// The criteria a run of `plan` would run (its `## Verification`, or a
/// session spec's `## Exit Condition`), and that section's heading line.
pub(crate) fn criteria_of(plan: &Plan) -> Option<(&[Criterion], Option<u32>)> {
    match (&plan.kind, &plan.verification, &plan.session) {
        (PlanKind::Trekplan, Some(v), _) => Some((v.criteria.as_slice(), Some(v.line))),
        (PlanKind::SessionSpec, _, Some(s)) => {
            Some((s.exit_conditions.as_slice(), s.exit_condition_line))
        }
        _ => None,
    }
}

/// One criterion as the pre-run screen sees it.
#[derive(Debug, Clone)]
pub(crate) struct Screened<'a> {
    pub criterion: &'a Criterion,
    /// `None`: it will run.
    pub refusal: Option<Refusal>,
}

/// Every criterion of `plan`, screened with the rules of the repository at
/// `root`, and the project file's own warnings.
pub(crate) fn screen_plan<'a>(plan: &'a Plan, root: &Path) -> (Vec<Screened<'a>>, Vec<Problem>) {
    let rules = Rules::load(root);
    let ctx = Context::from_env();
    let screened = criteria_of(plan)
        .map(|(criteria, _)| criteria)
        .unwrap_or_default()
        .iter()
        .map(|criterion| Screened {
            criterion,
            refusal: screen(&criterion.command, &rules, &ctx).err(),
        })
        .collect();
    (screened, rules.problems)
}

/// The refusals of [`screen_plan`] as errors (each with its line, the whole
/// command, the rule and the fix), then the project file's warnings.
pub(crate) fn plan_problems(plan: &Plan, root: &Path) -> Vec<Problem> {
    let section = match plan.kind {
        PlanKind::SessionSpec => "Exit Condition",
        PlanKind::Trekplan => "Verification",
    };
    let (screened, mut warnings) = screen_plan(plan, root);
    let mut problems: Vec<Problem> = screened
        .iter()
        .filter_map(|s| {
            let r = s.refusal.as_ref()?;
            let (code, rule) = match r.rule {
                Rule::Denylist => (code::CRITERION_BLOCKED, "the denylist blocks it"),
                Rule::Allowlist => (code::CRITERION_UNRUNNABLE, "the allowlist refuses it"),
            };
            Some(
                Problem::new(
                    code,
                    format!(
                        "the `## {section}` criterion `{}` will not run at the end of the run, which then fails: {rule}: {}. Fix: {}",
                        s.criterion.command, r.reason, r.fix
                    ),
                )
                .at_line(s.criterion.line),
            )
        })
        .collect();
    problems.append(&mut warnings);
    problems
}

/// The criteria area's screening, as the plan's reports take it.
pub(crate) struct Screening;

impl crate::plan::CriteriaScreen for Screening {
    fn problems(&self, plan: &Plan, root: &Path) -> Vec<Problem> {
        plan_problems(plan, root)
    }

    fn screened(&self, plan: &Plan, root: &Path) -> Vec<crate::plan::ScreenedCriterion> {
        let (screened, _) = screen_plan(plan, root);
        screened
            .into_iter()
            .map(|s| crate::plan::ScreenedCriterion {
                line: s.criterion.line,
                command: s.criterion.command.clone(),
                refusal: s.refusal.map(|r| crate::plan::CriterionRefusal {
                    by: match r.rule {
                        Rule::Denylist => "denylist",
                        Rule::Allowlist => "allowlist",
                    },
                    reason: r.reason,
                    fix: r.fix,
                }),
            })
            .collect()
    }
}
