//! `workflow run` and `workflow validate`: the I/O edge of the area.
//!
//! `run` loads and resolves the file (problems: exit 2), starts the runner
//! on a thread of its own and tees its events, from one loop, to the
//! consumers: NDJSON on stdout with `--ci`, else the live view; and the log
//! file unless `VOYAGE_LOG=0` / `EXECUTANT_LOG=0` (the environment's
//! [`Settings`], read once by the caller). Buffers are flushed whenever no
//! event is waiting and before exiting, so a cancelled run's last line is on
//! stdout before exit code 4.
//!
//! When stdout cannot be written (the NDJSON stream's or the live view's
//! reader went away, a full disk), nobody can follow the run any more: it is
//! stopped as a stopping signal would stop it (the running command's group
//! gets SIGTERM, no further step starts), and `run` returns the write error,
//! which `crate::output` turns into the exit status (a closed pipe: 0,
//! quietly; anything else: 2 with a message). The log file, if any, still
//! records the run to its end.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use serde::Serialize;

use super::cli::{RunArgs, ValidateArgs};
use super::code;
use super::consumers::{Consumer, LogFile, Ndjson, log_dir_for};
use super::event::Event;
use super::filter::Filter;
use super::interject::Queue;
use super::live::Live;
use super::load::{self, Loaded};
use super::model::Workflow;
use super::remote::{self, Fetcher};
use super::resolve;
use super::runner::{self, RunOptions};
use super::settings::Settings;
use super::step::{Context, Failure, Finish};
use super::ui;
use super::yaml;
use crate::problem::{Format, Problem};

/// Exit codes of `workflow run`, Executant's.
pub mod exit_code {
    pub const SUCCESS: u8 = 0;
    pub const STEP_FAILED: u8 = 1;
    pub const INVALID: u8 = 2;
    pub const TIMED_OUT: u8 = 3;
    pub const CANCELLED: u8 = 4;
}

/// Events the runner may be ahead of the consumers by; a fast command
/// blocks on a full channel instead of growing memory.
const CHANNEL_DEPTH: usize = 4096;

/// `workflow run`: the exit code, or the error that made stdout unwritable
/// (the run was stopped then).
pub(super) fn run(args: &RunArgs, settings: Settings, out: &mut impl Write) -> io::Result<u8> {
    let started = Instant::now();
    let prepared = parse_vars(&args.vars).and_then(|vars| {
        let filter = Filter::parse(
            args.step.clone(),
            args.from_step.as_deref(),
            args.to_step.as_deref(),
        )?;
        Ok((vars, filter))
    });
    let (vars, filter) = match prepared {
        Ok(p) => p,
        Err(problem) => {
            // Executant exits 1 on a bad flag value.
            report_problem(&problem);
            return Ok(exit_code::STEP_FAILED);
        }
    };
    let fetcher = Fetcher {
        timeout: settings.fetch_timeout,
    };
    let loaded = match load_and_resolve(&args.file, &vars, &fetcher) {
        Ok(loaded) => loaded,
        Err(problem) => {
            report_problem(&problem);
            return Ok(exit_code::INVALID);
        }
    };
    crate::problem::eprint_all(&loaded.warnings);
    if let Some(step) = &filter.step {
        let known = loaded
            .workflow
            .tasks
            .iter()
            .enumerate()
            .any(|(i, t)| t.name() == step || step.parse::<usize>().is_ok_and(|n| n == i + 1));
        if !known {
            crate::problem::eprint_all(&[Problem::warning(
                code::WORKFLOW_STEP_NOT_FOUND,
                format!("--step {step} matches no top-level step; every step is skipped"),
            )]);
        }
    }
    if let Some(problem) = args
        .interject_file
        .as_deref()
        .and_then(interject_file_problem)
    {
        report_problem(&problem);
        return Ok(exit_code::STEP_FAILED);
    }
    let workflow = Arc::new(loaded.workflow);
    let dir = workflow_dir(&args.file);
    let work_dir = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
    let stop = Arc::new(AtomicBool::new(false));
    // Stopping signals end the run as cancelled instead of killing us
    // before the stream is flushed; a running command's group is stopped
    // by its own supervisor, which sees the same signals.
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
    let retrospective = settings.retrospective;
    let (log, width) = (settings.log, settings.width);
    let suggestion_requested = settings.report_suggestion;
    let interject = Arc::new(Queue::with_file(args.interject_file.clone()));
    // Only with OTEL_EXPORTER_OTLP_ENDPOINT set; nothing of it otherwise.
    let telemetry = super::telemetry::start(settings.provider.clone());
    let (trace, observer) = match telemetry {
        Some(t) => (Some(t.trace), Some(t.observer)),
        None => (None, None),
    };
    let ctx = Context {
        work_dir,
        stop,
        settings,
        interject,
        trace,
    };

    let mut consumers: Vec<Box<dyn Consumer + '_>> = Vec::new();
    let mut log_path = None;
    if log {
        match LogFile::create(&log_dir_for(&dir), &workflow.goal)
            .map(|log| log.suggestion_requested(suggestion_requested))
        {
            Ok(log) => {
                log_path = Some(log.path().to_path_buf());
                consumers.push(Box::new(log));
            }
            Err(e) => crate::problem::eprint_all(&[Problem::warning(
                code::WORKFLOW_LOG_FAILED,
                format!("no log file for this run: {e}"),
            )]),
        }
    }
    // The full-screen view on a terminal (unless --no-tui), else the lines.
    let tui = (!args.ci && wants_tui(args.no_tui))
        .then(|| start_tui(args, &ctx, &workflow))
        .flatten();
    // Stdout is line-buffered; these buffers are flushed when no event is
    // waiting, so a burst of lines costs a few writes, not one per line.
    if args.ci {
        consumers.push(Box::new(Ndjson::new(BufWriter::with_capacity(
            1 << 16,
            &mut *out,
        ))));
    } else if let Some(tui) = &tui {
        consumers.push(Box::new(tui.handle()));
    } else {
        let terminal = std::io::stdout().is_terminal();
        let stdout = BufWriter::with_capacity(1 << 16, &mut *out);
        consumers.push(Box::new(Live::new(
            stdout,
            log_path.clone(),
            terminal,
            width,
        )));
    }
    if let Some(observer) = observer {
        consumers.push(Box::new(observer));
    }

    let (sender, receiver) = mpsc::sync_channel::<Event>(CHANNEL_DEPTH);
    let options = RunOptions {
        filter,
        report: true,
        retrospective: super::retrospective::wanted(
            &workflow,
            args.no_retrospective || !retrospective,
        ),
    };
    let mut unwritable: Option<io::Error> = None;
    let finish = std::thread::scope(|scope| {
        let runner = scope.spawn(|| {
            let sender = sender;
            runner::run(&workflow, &options, &ctx, &sender)
        });
        while let Ok(event) = receiver.recv() {
            consumers.iter_mut().for_each(|c| c.observe(&event));
            while let Ok(event) = receiver.try_recv() {
                consumers.iter_mut().for_each(|c| c.observe(&event));
            }
            // Nothing is waiting: a good moment to let the output out.
            consumers.iter_mut().for_each(|c| c.flush());
            if unwritable.is_none()
                && let Some(e) = consumers.iter_mut().find_map(|c| c.take_error())
            {
                // Nobody can follow the run any more: stop it, as a
                // stopping signal would (see the module's comment).
                unwritable = Some(e);
                ctx.stop.store(true, Ordering::SeqCst);
            }
        }
        runner.join().unwrap_or_else(|_| {
            Finish::Failed(Failure::failed(
                code::WORKFLOW_INTERNAL,
                "the runner stopped unexpectedly".into(),
            ))
        })
    });
    if let Finish::Failed(failure) = &finish {
        let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        for consumer in &mut consumers {
            consumer.failed(&failure.message, millis);
            consumer.flush();
        }
    }
    // Every way out passes here: what a consumer still holds goes out (the
    // telemetry's last spans, at most about 3 s), while a stopping signal
    // still only sets the flag.
    consumers.iter_mut().for_each(|c| c.finish());
    drop(consumers);
    // The view's after-run screens wait for keys while the stopping
    // signals still cancel; then the terminal is given back and the run's
    // summary printed on the normal screen.
    let closed = match tui {
        Some(tui) => tui.close(log_path.as_deref(), &mut *out),
        None => Ok(None),
    };
    for id in signal_ids {
        signal_hook::low_level::unregister(id);
    }
    let refine = closed?;
    if let Some(e) = unwritable {
        return Err(e);
    }
    let code = ended(finish);
    if let Some(instruction) = refine {
        // The exit code stays the run's.
        ui::refine(&args.file, &instruction, out)?;
    }
    Ok(code)
}

/// The exit code of a run that ended as `finish`, a failure reported on
/// stderr.
fn ended(finish: Finish) -> u8 {
    match finish {
        Finish::Complete => exit_code::SUCCESS,
        Finish::Cancelled => exit_code::CANCELLED,
        Finish::Failed(failure) => {
            report_problem(&Problem::new(failure.code, failure.message.clone()));
            if failure.timed_out {
                exit_code::TIMED_OUT
            } else {
                exit_code::STEP_FAILED
            }
        }
    }
}

/// Whether the full-screen view is wanted: stdout is a terminal that can
/// take it (`TERM` set and not `dumb`), and `--no-tui` is not given.
fn wants_tui(no_tui: bool) -> bool {
    !no_tui
        && std::io::stdout().is_terminal()
        && std::env::var("TERM").is_ok_and(|t| !t.is_empty() && t != "dumb")
}

/// The full-screen view, or `None` (the line view then) when the terminal
/// cannot be taken.
fn start_tui(args: &RunArgs, ctx: &Context, workflow: &Arc<Workflow>) -> Option<ui::Tui> {
    let local = args.file.to_str().is_none_or(|f| !remote::is_url(f));
    let options = ui::Options {
        interactive: std::io::stdin().is_terminal(),
        statusline: ui::statusline_from(|name| std::env::var(name).ok()),
        refinable: local,
        repo_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        work_dir: ctx.work_dir.clone(),
        stop: Arc::clone(&ctx.stop),
        settings: ctx.settings.clone(),
        interject: Arc::clone(&ctx.interject),
        workflow: Arc::clone(workflow),
    };
    ui::Tui::start(options).ok()
}

/// `--interject-file` naming something that is not a regular file (a file
/// that does not exist yet is fine: a script may create it later).
fn interject_file_problem(path: &Path) -> Option<Problem> {
    match crate::input_file::open(path) {
        Ok(_) | Err(crate::input_file::InputError::NotFound(_)) => None,
        Err(e) => Some(Problem::new(
            code::WORKFLOW_INTERJECT_FILE,
            format!("--interject-file {}: {e}", path.display()),
        )),
    }
}

/// The JSON `workflow validate --json` prints.
#[derive(Debug, Serialize)]
struct ValidateReport<'a> {
    file: String,
    valid: bool,
    goal: Option<&'a str>,
    steps: usize,
    errors: Vec<Problem>,
    warnings: &'a [Problem],
}

/// `workflow validate`: load, resolve nested references, and check the
/// document against `schemas/workflow.schema.json`.
pub(super) fn validate(
    args: &ValidateArgs,
    settings: &Settings,
    out: &mut impl Write,
) -> io::Result<u8> {
    let file = args.file.as_path();
    let json = args.json || args.format == Some(Format::Json);
    let vars = match parse_vars(&args.vars) {
        Ok(v) => v,
        Err(problem) => {
            report_problem(&problem);
            return Ok(exit_code::STEP_FAILED);
        }
    };
    let fetcher = Fetcher {
        timeout: settings.fetch_timeout,
    };
    let (loaded, mut errors) = match load_and_resolve(file, &vars, &fetcher) {
        Ok(loaded) => (Some(loaded), Vec::new()),
        Err(problem) => (None, vec![problem]),
    };
    if let Some(loaded) = &loaded {
        errors.extend(schema_problems(file, &loaded.workflow.source));
    }
    let no_warnings = Vec::new();
    let warnings = loaded.as_ref().map_or(&no_warnings, |l| &l.warnings);
    let valid = errors.is_empty();
    if args.format == Some(Format::Github) {
        crate::problem::render_github_all(errors.iter().chain(warnings), file, out)?;
    } else if json {
        let report = ValidateReport {
            file: file.display().to_string(),
            valid,
            goal: loaded.as_ref().map(|l| l.workflow.goal.as_str()),
            steps: loaded.as_ref().map_or(0, |l| l.workflow.tasks.len()),
            errors,
            warnings,
        };
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        for problem in errors.iter().chain(warnings) {
            problem.render_text(out)?;
        }
        if let (true, Some(loaded)) = (valid, &loaded) {
            writeln!(
                out,
                "valid: {} ({} steps, {} warnings)",
                file.display(),
                loaded.workflow.tasks.len(),
                warnings.len()
            )?;
        }
    }
    out.flush()?;
    Ok(if valid {
        exit_code::SUCCESS
    } else {
        exit_code::INVALID
    })
}

/// What the schema finds wrong with the document (the loader's checks come
/// first and are more precise; this catches anything they do not).
pub(super) fn schema_problems(file: &Path, source: &str) -> Vec<Problem> {
    let Ok(node) = yaml::parse(source) else {
        return Vec::new();
    };
    let document = to_json(&node);
    let codes = crate::schema::Codes {
        missing_key: code::WORKFLOW_MISSING_FIELD,
        not_object: code::WORKFLOW_NOT_A_MAPPING,
        other: code::WORKFLOW_SCHEMA,
        tagged: &[],
    };
    crate::schema::check("workflow", &document, &codes)
        .into_iter()
        .map(|p| p.in_file(file))
        .collect()
}

fn to_json(node: &yaml::Node) -> serde_json::Value {
    use serde_json::Value as J;
    use yaml::Value as Y;
    match &node.value {
        Y::Null => J::Null,
        Y::Bool(b) => J::Bool(*b),
        Y::Int(i) => i64::try_from(*i).map_or_else(|_| J::from(*i as f64), J::from),
        Y::Float(f) => J::from(*f),
        Y::Str(s) => J::String(s.clone()),
        Y::Seq(items) => J::Array(items.iter().map(to_json).collect()),
        Y::Map(entries) => J::Object(
            entries
                .iter()
                .map(|(k, v)| (k.text.clone(), to_json(v)))
                .collect(),
        ),
    }
}

/// Loads the workflow `file` (an http(s) URL is fetched) and resolves its
/// nested references.
fn load_and_resolve(
    file: &Path,
    vars: &[(String, String)],
    fetcher: &Fetcher,
) -> Result<Loaded, Problem> {
    let mut loaded = match file.to_str() {
        Some(url) if remote::is_url(url) => {
            let url = remote::to_raw(url);
            load::load_remote(fetcher.fetch(&url)?, &url, vars)?
        }
        Some(other) if remote::scheme(other).is_some() => {
            return Err(Problem::new(
                code::WORKFLOW_REMOTE_UNSUPPORTED,
                format!(
                    "\"{other}\" is a {} URL; only http and https workflows can be fetched",
                    remote::scheme(other).unwrap_or_default()
                ),
            ));
        }
        _ => load::load_file(file, vars)?,
    };
    resolve::resolve(&mut loaded, fetcher)?;
    Ok(loaded)
}

/// `K=V` pairs from `--var`.
fn parse_vars(raw: &[String]) -> Result<Vec<(String, String)>, Problem> {
    raw.iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
            _ => Err(Problem::new(
                code::WORKFLOW_BAD_VAR,
                format!("--var wants NAME=VALUE, got \"{pair}\""),
            )),
        })
        .collect()
}

/// The directory of the workflow file: where the cancel file is looked for
/// and the log directory is searched from.
fn workflow_dir(file: &Path) -> PathBuf {
    // A fetched workflow has no directory of its own: the current one
    // stands in (Executant's `process.cwd()`).
    if file.to_str().is_some_and(remote::is_url) {
        return PathBuf::from(".");
    }
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Best-effort, as every diagnostic on stderr (`crate::output`).
fn report_problem(problem: &Problem) {
    crate::problem::eprint_all(std::slice::from_ref(problem));
}
