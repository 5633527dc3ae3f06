//! Profiles and the composition rule (area `profile/`; seed
//! "Profile (v4.1)", "Composition rule (v5.1)"): `profile resolve`.
//!
//! - [`model`]: a profile, the phases and effort words.
//! - [`builtin`]: economy, balanced, premium (the default), fable.
//! - [`custom`]: `voyage-profiles/NAME.yaml` in the project or data dir.
//! - the brief's `phase_signals` come from the `brief` area's model.
//! - [`resolve`]: flag → env → plan → default, then brief > profile.

mod builtin;
mod cli;
pub(crate) mod code;
mod custom;
mod model;
mod resolve;

pub(crate) use cli::{Command, PROFILE_ENV};
pub use custom::{check_name, parse};
pub use model::PHASES;

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use cli::ResolveArgs;
use resolve::Sources;
pub(crate) use resolve::{Choice, ProfileSource};

use crate::exit;
use crate::problem::Coded;
use crate::problem::{self, Problem};

/// The profile part of the answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProfileRef {
    pub name: String,
    pub source: ProfileSource,
    pub origin: String,
}

/// What `profile resolve --json` prints (schema `profile-resolution`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Resolution {
    pub phase: String,
    pub effort: String,
    pub model: String,
    pub source: &'static str,
    pub sources: Sources,
    pub profile: ProfileRef,
    pub parallel_agents: u32,
    pub warnings: Vec<Problem>,
}

fn fail(code: u8, problems: &[Problem]) -> u8 {
    problem::eprint_all(problems);
    code
}

/// Where `voyage-profiles/` is looked for first: the current directory.
const PROJECT: &str = ".";

/// What one phase's resolution is asked for: the phase, the brief whose
/// signals count, the plan whose front matter names a profile, and the
/// names given by flag or environment.
#[derive(Debug, Clone)]
pub(crate) struct Request<'a> {
    pub phase: &'a str,
    pub brief: Option<&'a Path>,
    pub plan: Option<&'a Path>,
    /// The plan `plan` names, when the caller has read it already.
    pub loaded: Option<&'a crate::plan::Plan>,
    pub choice: resolve::Choice,
}

/// Why a resolution was refused: the exit code and the problems to print.
#[derive(Debug, Clone)]
pub(crate) struct Refused {
    pub code: u8,
    pub problems: Vec<Problem>,
}

fn refused(code: u8, problems: Vec<Problem>) -> Refused {
    Refused { code, problems }
}

/// `profile resolve`: exit 0 resolved, 1 bad profile or brief content, 2
/// unreadable input or usage (or the error writing the answer). Custom
/// profiles are looked for in the project, then in `data_dir`.
pub(crate) fn execute(
    args: &ResolveArgs,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    let options = &args.flags;
    let request = Request {
        phase: &options.phase,
        brief: options.brief.as_deref(),
        plan: options.plan.as_deref(),
        loaded: None,
        choice: args.choice(),
    };
    let resolution = match resolve_phase(&request, data_dir) {
        Ok(r) => r,
        Err(Refused { code, problems }) => return Ok(fail(code, &problems)),
    };
    problem::eprint_all(&resolution.warnings);
    if options.json {
        serde_json::to_writer(&mut *out, &resolution)?;
        writeln!(out)?;
    } else {
        render_text(&resolution, out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// One phase's effort and model, composed from the brief's signals and the
/// chosen profile (looked for in the project, then in `data_dir`).
pub(crate) fn resolve_phase(
    request: &Request<'_>,
    data_dir: Option<&Path>,
) -> Result<Resolution, Refused> {
    if !PHASES.contains(&request.phase) {
        return Err(refused(
            exit::CANNOT_CHECK,
            vec![Problem::new(
                code::PROFILE_BAD_PHASE,
                format!(
                    "unknown phase '{}'; one of {}",
                    request.phase,
                    PHASES.join(", ")
                ),
            )],
        ));
    }
    let mut choice = request.choice.clone();
    if let Some(plan) = request.loaded {
        choice.plan.clone_from(&plan.profile);
    } else if let Some(path) = request.plan {
        match crate::plan::load(path) {
            Ok(plan) => choice.plan = plan.profile,
            Err(e) => {
                let code = match e {
                    crate::plan::PlanLoadError::Read { .. } => exit::CANNOT_CHECK,
                    crate::plan::PlanLoadError::Unrecognized { .. } => exit::NOT_OK,
                };
                return Err(refused(code, vec![e.problem().in_file(path)]));
            }
        }
    }
    let (name, source) = resolve::choose(&choice);
    let profile = resolve::find(&name, Path::new(PROJECT), data_dir)
        .map_err(|problems| refused(exit::NOT_OK, problems))?;
    let mut warnings = Vec::new();
    let signals = match request.brief {
        None => None,
        Some(path) => {
            let text = crate::brief::read(path).map_err(|e| {
                refused(
                    exit::CANNOT_CHECK,
                    vec![
                        Problem::new(code::PROFILE_BRIEF_UNREADABLE, format!("cannot read: {e}"))
                            .in_file(path),
                    ],
                )
            })?;
            // A brief without front matter has no signals; anything else the
            // brief validator calls an error is one here too.
            let parsed = crate::brief::Brief::parse(&text, true);
            let mut errors = Vec::new();
            for p in &parsed.problems {
                if p.code == crate::brief::code::BRIEF_NO_FRONT_MATTER {
                    continue;
                }
                let problem = p.clone().in_file(path);
                if problem.is_error() {
                    errors.push(problem);
                } else {
                    warnings.push(problem);
                }
            }
            if !errors.is_empty() {
                return Err(refused(exit::NOT_OK, errors));
            }
            Some(parsed)
        }
    };
    let composed = resolve::compose(request.phase, signals.as_ref(), &profile)
        .map_err(|p| refused(exit::NOT_OK, vec![p]))?;
    Ok(Resolution {
        phase: request.phase.to_owned(),
        source: composed.source(),
        effort: composed.effort,
        model: composed.model,
        sources: composed.sources,
        profile: ProfileRef {
            name: profile.name,
            source,
            origin: profile.origin,
        },
        parallel_agents: profile.parallel_agents,
        warnings,
    })
}

fn render_text(r: &Resolution, out: &mut impl Write) -> io::Result<()> {
    let source = r.profile.source.word();
    writeln!(out, "EFFORT: {} ({})", r.effort, r.sources.effort)?;
    writeln!(out, "MODEL: {} ({})", r.model, r.sources.model)?;
    writeln!(out, "SOURCE: {}", r.source)?;
    writeln!(
        out,
        "PROFILE: {} ({source}, {})",
        r.profile.name, r.profile.origin
    )?;
    writeln!(out, "PARALLEL: {}", r.parallel_agents)
}

/// The profile a run used, for its stats record (seed "Profile (v4.1)":
/// the record carries `profile`, `phase_models` and `profile_source`),
/// chosen in the same order as `profile resolve`: `flag`, then `env`, then
/// the plan's front matter, then the default. A caller that resolved the
/// profile itself earlier (`trek start`) passes the name as `flag` and
/// where it really came from as `recorded`, so a defaulted profile is not
/// recorded as a flag. Returns the profile and the source's word.
pub(crate) fn for_record(
    flag: Option<String>,
    recorded: Option<ProfileSource>,
    env: Option<String>,
    plan: Option<String>,
    data_dir: Option<&Path>,
) -> Result<(model::Profile, &'static str), (String, &'static str, Vec<Problem>)> {
    let (name, source) = resolve::choose(&resolve::Choice { flag, env, plan });
    let source = match (source, recorded) {
        (ProfileSource::Flag, Some(r)) => r,
        (s, _) => s,
    };
    let word = source.word();
    resolve::find(&name, Path::new(PROJECT), data_dir)
        .map(|p| (p, word))
        .map_err(|problems| (name, word, problems))
}
