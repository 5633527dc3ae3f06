//! `profile`'s command line: its subcommands and flags, each run by
//! [`Command::execute`]. `VOYAGE_PROFILE` is read by clap, as `--profile`'s
//! `env`; the data directory is resolved once, in `execute`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::{ArgMatches, FromArgMatches};

use super::ops::{Refused, Request, Resolution, resolve_phase};
use super::resolve::Choice;
use crate::data_dir;
use crate::exit;
use crate::problem::{self, Problem};

/// Profiles: which model each phase uses.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Compose one phase's effort and model from the brief and the profile.
    ///
    /// PROFILE. --profile NAME, else $VOYAGE_PROFILE, else the plan's front
    /// matter `profile:` (--plan PLAN), else premium; the source is reported as
    /// flag, env, inheritance or default. Built in: economy, balanced,
    /// premium, fable. Any other NAME is a custom profile,
    /// voyage-profiles/NAME.yaml (or .yml) in the current directory, then in
    /// the data dir (schema `profile`):
    ///
    ///     extends: balanced          # fills the phases left out (default premium)
    ///     phase_models:
    ///       execute: sonnet
    ///     parallel_agents: 2
    ///
    /// COMPOSITION. The brief's front matter phase_signals[PHASE] wins per
    /// field; the profile fills the model; effort defaults to standard.
    ///
    /// OUTPUT:
    ///
    ///     EFFORT: <low|standard|high> (brief|default)
    ///     MODEL: <model> (brief|profile)
    ///     SOURCE: brief|profile|brief+profile
    ///     PROFILE: <name> (<source>, <builtin or file>)
    ///     PARALLEL: <n>
    ///
    /// --json prints {effort, model, source, …} (schema
    /// profile-resolution). The brief is read as `brief validate --soft`
    /// reads it: a brief_version 2.1+ brief without phase_signals gets the
    /// warning BRIEF_V51_MISSING_SIGNALS on stderr, and its errors
    /// (BRIEF_INVALID_EFFORT, BRIEF_FRONT_MATTER, …) stop the resolution; a
    /// brief without front matter simply has no signals.
    ///
    /// Exit status: 0 resolved, 1 unknown profile, bad brief or profile
    /// content, or a --plan that is not a plan; 2 unreadable brief or plan,
    /// or unknown phase.
    // `--help` text: its brackets and URLs are not rustdoc's links.
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]
    #[command(verbatim_doc_comment)]
    Resolve(ResolveArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Resolve(args) => execute_resolve(&args, data_dir::resolve().as_deref(), out),
        }
    }
}

/// `profile resolve`'s flags, and whether the profile's name came from
/// `VOYAGE_PROFILE` rather than `--profile`: the answer reports the source
/// (flag or env), which only clap's matches know.
#[derive(Debug, Clone)]
pub(crate) struct ResolveArgs {
    pub flags: ResolveFlags,
    pub profile_from_env: bool,
}

/// The variable that names the profile when `--profile` is not given.
pub(crate) const PROFILE_ENV: &str = "VOYAGE_PROFILE";

impl Choice {
    /// The names `profile resolve --profile FLAG` would choose from: the
    /// flag, else `$VOYAGE_PROFILE` (as clap reads it, an empty value
    /// included).
    pub(crate) fn flag_or_env(flag: Option<String>) -> Self {
        let env = match &flag {
            Some(_) => None,
            None => std::env::var_os(PROFILE_ENV).map(|v| v.to_string_lossy().into_owned()),
        };
        Choice {
            flag,
            env,
            plan: None,
        }
    }
}

impl ResolveArgs {
    /// The names that can choose the profile, in their order (the plan's is
    /// filled in once the plan is read).
    pub(crate) fn choice(&self) -> Choice {
        let name = self.flags.profile.clone();
        let (flag, env) = if self.profile_from_env {
            (None, name)
        } else {
            (name, None)
        };
        Choice {
            flag,
            env,
            plan: None,
        }
    }

    fn from_env(matches: &ArgMatches) -> bool {
        matches.value_source("profile") == Some(ValueSource::EnvVariable)
    }
}

impl FromArgMatches for ResolveArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(Self {
            flags: ResolveFlags::from_arg_matches(matches)?,
            profile_from_env: Self::from_env(matches),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.flags.update_from_arg_matches(matches)?;
        self.profile_from_env = Self::from_env(matches);
        Ok(())
    }
}

impl clap::Args for ResolveArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        ResolveFlags::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        ResolveFlags::augment_args_for_update(command)
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ResolveFlags {
    /// brief, research, plan, execute or review.
    #[arg(long, value_name = "PHASE")]
    pub phase: String,
    /// The brief.md whose phase_signals to use.
    #[arg(long, value_name = "PATH")]
    pub brief: Option<PathBuf>,
    /// The profile's name.
    #[arg(long, value_name = "NAME", env = PROFILE_ENV)]
    pub profile: Option<String>,
    /// The plan whose front matter `profile:` is inherited.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<PathBuf>,
    /// Print the resolution as one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn fail(code: u8, problems: &[Problem]) -> u8 {
    problem::eprint_all(problems);
    code
}

/// `profile resolve`: exit 0 resolved, 1 bad profile or brief content, 2
/// unreadable input or usage (or the error writing the answer). Custom
/// profiles are looked for in the project, then in `data_dir`.
fn execute_resolve(
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
