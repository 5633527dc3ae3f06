//! `workflow plan` and `workflow refine`: the I/O edge of the
//! [`generate`] pipeline. Reads the file to refine,
//! stops the agent on SIGINT, SIGTERM or SIGHUP, prints progress on
//! stderr (`plan: …` lines) while the passes run, and writes the result:
//! atomically (`atomic_file`) to the file, or on stdout when `plan` has
//! no `-o`. Nothing is written unless a workflow that loads came out, so a
//! failed refine leaves the original as it was.
//!
//! Exit status: 0 written; 1 no attempt gave a workflow that loads
//! (`WORKFLOW_PLAN_INVALID`); 2 could not try (an empty description, an
//! unreadable file, an agent that failed or is missing, a write that
//! failed, a stopping signal).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::cli::{PlanArgs, RefineArgs};
use super::code;
use super::generate::{self, Ask, Draft, Failed, Job, MAX_ATTEMPTS};
use super::load::MAX_FILE_BYTES;
use super::settings::Settings;
use super::step::Context;
use crate::problem::{Coded, Problem};

/// Exit codes of `plan` and `refine` (the project's own three).
mod exit {
    pub(super) const WRITTEN: u8 = 0;
    pub(super) const INVALID: u8 = 1;
    pub(super) const COULD_NOT: u8 = 2;
}

/// `workflow plan DESCRIPTION [-o FILE]`.
pub(super) fn plan(args: &PlanArgs, settings: Settings, out: &mut impl Write) -> io::Result<u8> {
    let description = args.description.trim();
    if description.is_empty() {
        return Ok(refuse(Problem::new(
            code::WORKFLOW_PLAN_EMPTY,
            "workflow plan needs a description of the workflow to write".to_owned(),
        )));
    }
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("workflow.yaml"));
    let job = Job {
        ask: Ask::Plan { description },
        target: &target,
        fast: args.fast,
    };
    let draft = match run(&job, args.output.as_deref(), settings, "plan") {
        Ok(draft) => draft,
        Err(status) => return Ok(status),
    };
    match &args.output {
        Some(path) => finish(path, &draft, "plan", out),
        None => {
            out.write_all(draft.yaml.as_bytes())?;
            if !draft.yaml.ends_with('\n') {
                writeln!(out)?;
            }
            out.flush()?;
            say(
                "plan",
                &format!(
                    "\"{}\": {} steps, {} (no -o: printed, not written)",
                    draft.goal,
                    draft.steps,
                    cost_words(&draft)
                ),
            );
            Ok(exit::WRITTEN)
        }
    }
}

/// `workflow refine FILE --instruction TEXT`.
pub(super) fn refine(
    args: &RefineArgs,
    settings: Settings,
    out: &mut impl Write,
) -> io::Result<u8> {
    let instruction = args.instruction.trim();
    if instruction.is_empty() {
        return Ok(refuse(Problem::new(
            code::WORKFLOW_PLAN_EMPTY,
            "workflow refine needs an --instruction saying what to change".to_owned(),
        )));
    }
    let current = match crate::input_file::read_to_string(&args.file, MAX_FILE_BYTES) {
        Ok(text) => text,
        Err(e) => {
            return Ok(refuse(
                Problem::new(
                    e.code(code::INPUT),
                    format!("cannot read the workflow file: {e}"),
                )
                .in_file(&args.file),
            ));
        }
    };
    let job = Job {
        ask: Ask::Refine {
            current: &current,
            instruction,
        },
        target: &args.file,
        fast: args.fast,
    };
    let draft = match run(&job, Some(&args.file), settings, "refine") {
        Ok(draft) => draft,
        Err(status) => return Ok(status),
    };
    finish(&args.file, &draft, "refine", out)
}

/// Runs the pipeline with signals caught and progress on stderr; the exit
/// status after saying why nothing came out (and that `file`, the one that
/// would have been written, is untouched).
fn run(job: &Job<'_>, file: Option<&Path>, settings: Settings, verb: &str) -> Result<Draft, u8> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut signal_ids = Vec::new();
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        if let Ok(id) = signal_hook::flag::register(signal, Arc::clone(&stop)) {
            signal_ids.push(id);
        }
    }
    let work_dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let ctx = Context {
        work_dir,
        stop,
        settings,
        // The generator's passes are not a workflow run: no spans, and no
        // interjections.
        trace: None,
        interject: Arc::default(),
    };
    let said = |line: &str| say(verb, line);
    let result = generate::generate(job, &ctx, &said);
    for id in signal_ids {
        signal_hook::low_level::unregister(id);
    }
    let untouched = file.map_or_else(
        || "nothing was written".to_owned(),
        |f| format!("{} is untouched", f.display()),
    );
    let (problem, status) = match result {
        Ok(draft) => return Ok(draft),
        Err(Failed::Invalid { problems, cost_usd }) => {
            let mut message = format!(
                "no valid workflow after {MAX_ATTEMPTS} attempts (${cost_usd:.4} spent); \
                 {untouched}. The last attempt's problems:"
            );
            for problem in &problems {
                message.push_str("\n  ");
                message.push_str(problem);
            }
            (
                Problem::new(code::WORKFLOW_PLAN_INVALID, message),
                exit::INVALID,
            )
        }
        Err(Failed::Agent(failure)) => (
            Problem::new(failure.code, format!("{}; {untouched}", failure.message)),
            exit::COULD_NOT,
        ),
        Err(Failed::Cancelled) => (
            Problem::new(
                code::WORKFLOW_PLAN_CANCELLED,
                format!("stopped by a signal; {untouched}"),
            ),
            exit::COULD_NOT,
        ),
    };
    crate::problem::eprint_all(&[problem]);
    Err(status)
}

/// Writes `draft` to `path` atomically and says so on stdout.
fn finish(path: &Path, draft: &Draft, verb: &str, out: &mut impl Write) -> io::Result<u8> {
    let mut bytes = draft.yaml.clone();
    if !bytes.ends_with('\n') {
        bytes.push('\n');
    }
    if let Err(e) = crate::atomic_file::write_atomic(path, bytes.as_bytes()) {
        let code = e.code();
        return Ok(refuse(
            Problem::new(code, format!("cannot write the workflow: {e}")).in_file(path),
        ));
    }
    if let Some(concerns) = &draft.concerns {
        crate::problem::eprint_all(&[Problem::warning(
            code::WORKFLOW_PLAN_CONCERNS,
            format!("the reviewer's last objection, for you to judge: {concerns}"),
        )
        .in_file(path)]);
    }
    writeln!(
        out,
        "{verb}: wrote {} (\"{}\", {} steps; {} attempt{}, {})",
        path.display(),
        draft.goal,
        draft.steps,
        draft.attempts,
        if draft.attempts == 1 { "" } else { "s" },
        cost_words(draft)
    )?;
    out.flush()?;
    Ok(exit::WRITTEN)
}

fn cost_words(draft: &Draft) -> String {
    format!("${:.4}", draft.cost_usd)
}

/// Reports `problem` on stderr; exit 2.
fn refuse(problem: Problem) -> u8 {
    crate::problem::eprint_all(&[problem]);
    exit::COULD_NOT
}

/// One progress line on stderr.
fn say(verb: &str, line: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{verb}: {line}");
}
