//! `recovery`'s command line: its subcommand and flags, run by
//! [`Command::execute`] through [`execute_spec`].

use std::io::{self, Write};
use std::path::PathBuf;

use super::ops::{Reply, SpecRequest, recover};

/// Recovery dispatch (Phase 7.6).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Write the recovery session spec for a drifted run (Phase 7.6).
    ///
    /// Preconditions, each refused with exit 1: the progress file records a
    /// drifting session audit (`audit session --record`; else
    /// RECOVERY_NO_DRIFT); recovery_depth below 2 (else RECOVERY_EXHAUSTED:
    /// no third recovery, the drift goes to the user); iterations_remaining
    /// above 0 (else RECOVERY_BUDGET_SPENT); some step is missing (else
    /// RECOVERY_NOTHING_MISSING). Only the parent run dispatches; a child
    /// `--session N` run that drifts escalates instead (the command's
    /// rule, not checked here).
    ///
    /// The missing steps: those a drift item names for expected_paths,
    /// min_file_count or must_contain; those whose own manifest audit
    /// failed; those neither completed nor skipped; and, when the commit
    /// count drifted low, completed steps with no commit. Step 0 never.
    ///
    /// Writes DIR/session-N-recovery-D.md (D = recovery_depth + 1; N is
    /// --session, else the plan title's `Session N`, else 1), atomically: a
    /// plan_version 1.7 session spec with Dependencies (entry condition:
    /// the current HEAD, its subject quoted for `entry check`), Scope Fence,
    /// `## Recovery Metadata` (recovery_of, recovery_depth, missing_steps,
    /// entry_condition_override, parent_progress_file), the original's
    /// Session Manifest, Step 0 (the sandbox pre-flight) and then each
    /// missing step copied whole with its Manifest block (a legacy step
    /// gets its synthesised manifest written out), and the Exit Condition.
    /// The text is checked as `plan validate` checks it before it is
    /// written (RECOVERY_INVALID_SPEC, exit 2, writes nothing).
    ///
    /// Then the progress file records recovery_dispatched: true,
    /// recovery_depth D, recovery_spec (the path), iterations_remaining one
    /// lower (a recovery spends one budget iteration, so the completion
    /// gate's reconciliation still holds), and status partial.
    ///
    /// OUTPUT: `Recovery spec: PATH (steps …)` and the seed's `Recovery
    /// order: session N, depth D` block with the /trekexecute line to give
    /// a new session; at depth 2 the `RECOVERY EXHAUSTED: …` block. --json:
    /// one object (schema recovery-spec).
    ///
    /// Example:
    ///     voyage-helper audit session --plan s2.md --progress p.json --start "$START" --record
    ///     voyage-helper recovery spec --plan s2.md --progress p.json --out .claude/recovery
    ///
    /// Exit status: 0 written, 1 refused (exhausted, no drift, nothing
    /// missing, budget spent), 2 could not (unreadable plan or progress,
    /// not a repository, invalid spec, write failed).
    #[command(verbatim_doc_comment)]
    Spec(SpecArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Spec(args) => execute_spec(&args, out),
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SpecArgs {
    /// The original plan or session spec.
    #[arg(long, value_name = "P")]
    pub plan: PathBuf,
    /// The parent run's progress file.
    #[arg(long, value_name = "F")]
    pub progress: PathBuf,
    /// The directory the spec is written to (created when missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The session number N of the file name (default: the plan title's).
    #[arg(long, value_name = "N")]
    pub session: Option<u32>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn print(reply: &Reply, json: bool, text: &str, out: &mut impl Write) -> io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, reply)?;
        writeln!(out)?;
    } else {
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}

/// `recovery spec`: 0 written, 1 refused, 2 could not.
fn execute_spec(args: &SpecArgs, out: &mut impl Write) -> io::Result<u8> {
    let request = SpecRequest {
        plan: args.plan.clone(),
        progress: args.progress.clone(),
        out: args.out.clone(),
        session: args.session,
        dir: None,
    };
    let recovery = recover(&request);
    recovery.eprint();
    print(&recovery.reply, args.json, &recovery.text, out)?;
    Ok(recovery.code)
}
