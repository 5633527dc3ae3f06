//! `gate`'s command line: the flags, run by [`GateArgs::execute`]. The
//! data directory (where the override event is recorded) is resolved once,
//! there.

use std::io::{self, Write};
use std::path::Path;

use super::mode::ModeSource;
use super::ops::{Decision, decide};
use crate::data_dir;
use crate::exit;

/// Decide what the run does at an autonomy boundary
///
/// MODES. --gates open|adaptive|closed is the operator's flag (`true` is the
/// bare --gates flag: closed; `false` means no flag). Without a flag the
/// brief's --effort decides: low → open, standard → adaptive, high →
/// closed; without either, adaptive. A flag beats the effort signal; when
/// they disagree, `--event begin` records the gates_mode_flag_override
/// event (payload {flag, signal_effort}). open runs sessions one after
/// another (sequential_only); closed audits strictly (strict_audit).
///
/// STATES × EVENTS (action → next state; blank cells are refused with
/// GATE_ILLEGAL_EVENT, exit 1):
///
///     state                event          open / adaptive              closed
///     start                begin          continue → executing         continue → executing
///     executing            step-failed    continue → executing         continue → executing
///     executing            wave-complete  continue → executing         pause → awaiting-wave-merge
///     executing            run-complete   continue → auditing          continue → auditing
///     auditing             audit-drift    pause → awaiting-main-merge  pause → awaiting-operator
///     auditing             audit-pass     pause → awaiting-main-merge  pause → awaiting-main-merge
///     awaiting-operator    approve        pause → awaiting-main-merge  pause → awaiting-main-merge
///     awaiting-operator    decline        stop → held                  stop → held
///     awaiting-wave-merge  approve        continue → executing         continue → executing
///     awaiting-wave-merge  decline        stop → held                  stop → held
///     awaiting-main-merge  approve        continue → finalized         continue → finalized
///     awaiting-main-merge  decline        stop → held                  stop → held
///     finalized, held      (any)          refused: the run is over
///
/// The main-merge gate pauses in every mode, and every run reaches it: after
/// audit-pass, after audit-drift (closed mode halts on the drift first;
/// approve goes on to the gate). A failed step never pauses, in any mode
/// (Hard rule 1): it goes on to the plan's own `On failure:` clause. pause means: ask the operator, then send approve
/// or decline from the awaiting state.
///
/// OUTPUT, one `KEY: value` per line:
///
///     ACTION: continue|pause|stop
///     NEXT: <state>
///     BOUNDARY: main-merge-gate|wave-merge-gate|gates-halt   (at a boundary)
///     EMIT: <event> …        lifecycle events to record with `event emit`
///     GATES: <mode> (flag|brief|default)
///     OVERRIDE: --gates beat the brief's effort <effort>     (when it did)
///
/// --json prints one object (schema gate-decision).
///
/// Exit status: 0 decided, 1 an event the state refuses, 2 an unknown
/// state, event, mode or effort.
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct GateArgs {
    /// Where the run is (see the table).
    #[arg(long, value_name = "STATE")]
    pub state: String,
    /// What just happened (see the table).
    #[arg(long, value_name = "EVENT")]
    pub event: String,
    /// The operator's --gates: open, adaptive, closed, true or false.
    #[arg(long, value_name = "MODE")]
    pub gates: Option<String>,
    /// The brief's effort for the execute phase: low, standard or high.
    #[arg(long, value_name = "EFFORT")]
    pub effort: Option<String>,
    /// Do not record the override event on `begin`.
    #[arg(long)]
    pub no_record: bool,
    /// Print the decision as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl GateArgs {
    /// Decides and prints; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        execute_gate(&self, data_dir::resolve().as_deref(), out)
    }
}

/// `gate`: exit 0 decided, 1 an event the state refuses, 2 bad words (or
/// the error writing the decision). The override event goes to `data_dir`.
fn execute_gate(
    options: &GateArgs,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    let decision = match decide(options, data_dir) {
        Ok(d) => d,
        Err(code) => return Ok(code),
    };
    if options.json {
        serde_json::to_writer(&mut *out, &decision)?;
        writeln!(out)?;
    } else {
        render_text(&decision, out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The text form: one `key: value` per line.
fn render_text(d: &Decision, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "ACTION: {}", d.action.as_str())?;
    writeln!(out, "NEXT: {}", d.next_state)?;
    if let Some(b) = d.boundary {
        writeln!(out, "BOUNDARY: {b}")?;
    }
    if !d.emit.is_empty() {
        writeln!(out, "EMIT: {}", d.emit.join(" "))?;
    }
    let source = match d.gates_source {
        ModeSource::Flag => "flag",
        ModeSource::Brief => "brief",
        ModeSource::Default => "default",
    };
    writeln!(out, "GATES: {} ({source})", d.gates)?;
    if let Some(e) = d.overridden_effort {
        writeln!(
            out,
            "OVERRIDE: --gates beat the brief's effort {}",
            e.as_str()
        )?;
    }
    Ok(())
}
