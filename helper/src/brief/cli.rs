//! `brief`'s command line: its subcommands and their flags, each run by
//! [`Command::execute`].

use std::io::{self, Write};
use std::path::PathBuf;

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
            Self::Validate(args) => super::validate(&args, out),
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
