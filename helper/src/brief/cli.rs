//! `brief`'s command line: its subcommands and their flags, each run by
//! [`Command::execute`].

use std::io::{self, Write};
use std::path::PathBuf;

use super::ops::load;
use crate::exit;
use crate::problem::Problem;

/// Check a `brief.md`'s front matter.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Check brief_version and phase_signals (effort low, standard or high,
    /// optional model, per phase).
    ///
    /// A brief at brief_version 2.1 or later needs phase_signals, or
    /// `phase_signals_partial: true` (BRIEF_V51_MISSING_SIGNALS). A path
    /// that is not a regular file is refused with BRIEF_NOT_A_FILE, a brief
    /// over 16 MiB with BRIEF_TOO_LARGE. Exit status: 0 valid, 1 not, 2
    /// unreadable.
    Validate(ValidateArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Validate(args) => validate(&args, out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ValidateArgs {
    /// Lower advisory findings to warnings (the sequencing gate's call).
    ///
    /// BRIEF_V51_MISSING_SIGNALS is not advisory: it stays an error with
    /// --soft, so the sequencing gate, which halts when it is in `errors`,
    /// can fire. No check of this version is advisory.
    #[arg(long)]
    pub soft: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    pub brief: PathBuf,
}

/// `brief validate`: 0 valid, 1 not, 2 unreadable (or the error writing
/// the report).
fn validate(args: &ValidateArgs, out: &mut impl Write) -> io::Result<u8> {
    // --soft lowers only what the seed calls advisory; a missing
    // phase_signals block is not (the sequencing gate halts on it in
    // `errors`), and no other check of this version is either.
    let (path, json) = (&args.brief, args.json);
    let brief = match load(path) {
        Ok(brief) => brief,
        Err(problem) => {
            crate::problem::eprint_all(&[problem]);
            return Ok(exit::CANNOT_CHECK);
        }
    };
    let valid = brief.problems.iter().all(|p| !p.is_error());
    let file = path.display().to_string();
    if json {
        let in_file = |keep: fn(&Problem) -> bool| -> Vec<Problem> {
            brief
                .problems
                .iter()
                .filter(|p| keep(p))
                .map(|p| p.clone().in_file(path))
                .collect()
        };
        let body = serde_json::json!({
            "file": file,
            "valid": valid,
            "brief_version": brief.brief_version,
            "phase_signals": brief.phase_signals,
            "phase_signals_partial": brief.phase_signals_partial,
            "errors": in_file(|p| p.is_error()),
            "warnings": in_file(|p| !p.is_error()),
        });
        writeln!(out, "{body:#}")?;
    } else {
        writeln!(
            out,
            "{}: {}",
            file,
            if valid {
                "valid brief"
            } else {
                "INVALID brief"
            }
        )?;
        for p in &brief.problems {
            let kind = if p.is_error() { "error" } else { "warning" };
            let at = p
                .line
                .map_or_else(|| file.clone(), |l| format!("{file}:{l}"));
            writeln!(out, "- {kind} {} {at}: {}", p.code, p.message)?;
        }
    }
    out.flush()?;
    Ok(if valid { exit::OK } else { exit::NOT_OK })
}
