//! `trek step-begin N` and `trek step-done N`: Phase 6 around the agent's
//! own work. Begin checks the scope fence, starts the attempt, runs the
//! test first and hands the step over; done runs the Verify command (the
//! denylist first), the manifest audit, and then either the checkpoint or
//! the step's `On failure:` clause, whichever the evidence says, and names
//! the next call. The agent's word never decides: exit codes, files and
//! git do.

use std::path::Path;

use super::code;
use super::context::{self, Run};
use super::reply::{Next, Reply, ScopeReply, Task, TaskFile};
use crate::audit::scope::{self, Scope};
use crate::audit::{Git, Matcher};
use crate::exit;
use crate::plan::{Action, Step};
use crate::problem::Problem;
use crate::progress::StepStatus;
use crate::progress::StepUpdate;
use crate::run_marker::Checkpoint;

/// Attempts a step may have (initial + 2 retries; Hard rule 5).
const MAX_ATTEMPTS: u32 = 3;
/// Lines of a failed command's output handed back when no failure was
/// recognised in it.
const FAILURE_LINES: usize = 10;
/// Failures of a recognised runner named in a failed Verify's reply.
const FAILURES_SHOWN: usize = 5;
/// The longest trek lets a command of the plan (a Verify, a Test first,
/// a Checkpoint) run: nine minutes, inside the ten that the command asks
/// Claude Code's Bash tool for, so that a command too slow for one call is
/// stopped by this timeout and recorded as the step's failure, with its
/// log, before the tool stops the call itself (an interruption, which
/// spends nothing).
pub(super) const COMMAND_TIMEOUT_SECS: u64 = 540;

/// The first step of the run still to do: `only` alone in step mode, else
/// the first neither completed nor skipped. `None` when there is none.
pub(super) fn next_step(progress: &Path, only: Option<u32>) -> Result<Option<u32>, Problem> {
    Ok(next_open(&context::load_progress(progress)?, only))
}

/// [`next_step`] of the progress file `file` already read.
pub(super) fn next_open(file: &crate::progress::Progress, only: Option<u32>) -> Option<u32> {
    let open = |status: StepStatus| {
        !matches!(
            status,
            StepStatus::Completed | StepStatus::Passed | StepStatus::Skipped
        )
    };
    let mut steps = file
        .steps
        .iter()
        .map(|(key, record)| (key.0, record.status));
    match only {
        Some(n) => steps.find(|(k, s)| *k == n && open(*s)).map(|(k, _)| k),
        None => steps.find(|(_, s)| open(*s)).map(|(k, _)| k),
    }
}

fn step_of(run: &Run, n: u32) -> Result<&Step, Problem> {
    run.plan.step(n).ok_or_else(|| {
        Problem::new(
            code::TREK_NO_SUCH_STEP,
            format!("the plan {} has no step {n}", run.plan_path.display()),
        )
    })
}

fn record_of(run: &Run, n: u32) -> Result<(StepStatus, u32, Option<String>, Option<u32>), Problem> {
    let file = context::load_progress(&run.progress_path)?;
    let record = file
        .steps
        .iter()
        .find(|(k, _)| k.0 == n)
        .map(|(_, r)| r)
        .ok_or_else(|| {
            Problem::new(
                code::TREK_NO_SUCH_STEP,
                format!(
                    "step {n} is not one of this run's steps ({})",
                    run.progress_arg()
                ),
            )
        })?;
    Ok((
        record.status,
        record.attempts,
        record.error.clone(),
        file.iterations_remaining,
    ))
}

/// How `progress step` went for a `trek` call.
struct StepRecorded {
    ok: bool,
    /// The step's attempts after the change, when it was recorded.
    attempts: Option<u32>,
    /// Why it refused: its problem, else what it printed on stderr.
    why: String,
}

/// A change of step `n` with nothing but its status (given to [`record`]).
fn change(n: u32) -> StepUpdate {
    StepUpdate {
        step: n,
        status: None,
        error: None,
        commit: None,
        manifest_audit: None,
        drift: None,
        checkpoint_drift: None,
    }
}

/// `progress step N --status S …` on the run's file. A refusal is the
/// caller's to say (`why`); what the progress area prints is held back.
fn record(run: &Run, status: &str, update: StepUpdate) -> Result<StepRecorded, Problem> {
    let request = crate::progress::StepRequest {
        locate: crate::progress::Locate::of_file(&run.progress_path),
        status: status.to_owned(),
        update,
    };
    let budget = crate::progress::budget_from_env();
    let (stepped, said) = crate::problem::holding(|| {
        let stepped = crate::progress::record_step(&request, &budget);
        stepped.eprint();
        stepped
    });
    if !stepped.placed() {
        return Err(Problem::new(
            code::TREK_INNER,
            format!(
                "`progress step` printed no JSON (exit {}): ",
                stepped.code()
            ),
        ));
    }
    let why = super::said::why(stepped.refusal(), &said, stepped.code());
    Ok(StepRecorded {
        ok: stepped.code() == crate::exit::OK,
        attempts: stepped.applied().map(|a| a.attempts),
        why,
    })
}

/// Runs `trek step-begin N`.
pub(super) fn begin(here: &Path, n: u32) -> Reply {
    match begin_inner(here, n) {
        Ok(reply) => reply,
        Err(p) => super::stop::problem("step-begin", &p),
    }
}

fn begin_inner(here: &Path, n: u32) -> Result<Reply, Problem> {
    let mut run = Run::here(here)?;
    let mut reply = run.reply("step-begin", Next::Implement);
    reply.step = Some(n);
    if reconcile(&mut run, &mut reply)? && next_step(&run.progress_path, None)? != Some(n) {
        return go_on(&run, reply);
    }
    // A step of the run that the plan no longer has (edited, and no copy
    // of the plan the run started with to read it from) cannot be done:
    // it is recorded skipped, said, and the run goes on, never stuck.
    if step_of(&run, n).is_err() && record_of(&run, n).is_ok() {
        let why =
            format!("step {n} is not in the plan any more (the plan was edited during the run)");
        let skipped = record(
            &run,
            "skipped",
            StepUpdate {
                error: Some(why.clone()),
                ..change(n)
            },
        )?;
        if !skipped.ok {
            return Err(Problem::new(code::TREK_NO_SUCH_STEP, skipped.why));
        }
        reply.push(format!("Step {n}: SKIPPED — {why}."));
        return go_on(&run, reply);
    }
    let step = step_of(&run, n)?.clone();
    let (status, attempts, previous_error, _) = record_of(&run, n)?;
    reply.lines.extend(run.plan_change());
    if matches!(status, StepStatus::Completed | StepStatus::Passed) {
        return Err(Problem::new(
            code::TREK_STEP_STATE,
            format!("step {n} is already completed"),
        ));
    }
    // Steps run in the plan's order: a later step may build on an earlier
    // one's commit, and the session audit counts them in order.
    if let Some(first) = next_step(&run.progress_path, run.decided.only_step)?
        && first != n
    {
        let (first_status, ..) = record_of(&run, first)?;
        reply.push(format!(
            "Step {n} cannot begin yet: step {first} is {}, and steps run in the plan's order. Nothing was changed.",
            first_status.as_str()
        ));
        reply.step = Some(first);
        reply.next = Next::BeginStep;
        reply.exit = exit::NOT_OK;
        return Ok(reply);
    }

    // Sub-step A: the scope fence.
    let fence: Vec<Matcher> = run
        .marker
        .never_touch
        .iter()
        .map(|e| Matcher::new(e))
        .collect();
    if let Some(file) = step
        .files
        .iter()
        .find(|f| fence.iter().any(|m| m.matches(&f.path)))
    {
        let why = format!(
            "SCOPE VIOLATION: Step {n} requires {} which is in the never-touch list.",
            file.path
        );
        reply.push(why.clone());
        reply.push("Escalating — this step cannot be executed within this session's scope.");
        let started = record(&run, "in_progress", change(n))?;
        if !started.ok {
            reply.push(started.why);
        }
        let failed = record(
            &run,
            "failed",
            StepUpdate {
                error: Some(why.clone()),
                ..change(n)
            },
        )?;
        if !failed.ok {
            reply.push(format!(
                "warning: the failure could not be recorded: {}",
                failed.why
            ));
        }
        escalate(&mut run, n, &mut reply)?;
        reply.next = Next::Finish;
        reply.step = None;
        return Ok(reply);
    }
    if !run.marker.touch.is_empty() {
        let touch: Vec<Matcher> = run.marker.touch.iter().map(|e| Matcher::new(e)).collect();
        for f in step.files.iter().filter(|f| !f.new) {
            if !touch.iter().any(|m| m.matches(&f.path)) {
                reply.push(format!(
                    "warning: {} is not in the Touch list (and not a new file)",
                    f.path
                ));
            }
        }
    }

    // An attempt that never reached step-done (the session ended in the
    // middle of the step) was not a failure: it goes on, spending no
    // attempt and no budget, from the base it began with.
    let interrupted = status == StepStatus::InProgress;
    let attempt = if interrupted {
        attempts.max(1)
    } else {
        let started = record(&run, "in_progress", change(n))?;
        if !started.ok {
            reply.push(format!("Step {n} cannot start again: {}", started.why));
            context::set_stop(&run.progress_path, "failed")?;
            reply.next = Next::Finish;
            reply.step = None;
            reply.status = "failed".into();
            return Ok(reply);
        }
        started.attempts.unwrap_or(1)
    };
    let files: Vec<String> = step.files.iter().map(|f| f.path.clone()).collect();
    let kept_base = interrupted
        && run.marker.step == Some(n)
        && run.marker.step_start_sha.is_some()
        && scope::read_base(run.git_dir()).is_none_or(|b| b.step == n);
    if interrupted {
        reply.push(continued(&run, n, attempt, &files)?);
    }

    run.marker.step = Some(n);
    run.marker.files = files;
    run.marker.memory_write = step.manifest.as_ref().is_some_and(|m| m.memory_write);
    // What the step's builds write by themselves, for the kernel fence.
    // and Voyage's own log directory, which a fenced call cannot make.
    run.marker.build_dirs = if crate::fence::support().holds() {
        let _ = std::fs::create_dir_all(run.root.join(crate::run::LOG_SUBDIR));
        crate::fence::build_dirs(&run.root, &run.marker)
    } else {
        Vec::new()
    };
    if !kept_base {
        run.marker.step_start_sha = context::head(&run.root);
    }
    run.save_marker()?;

    // Sub-step B: the test first, checked once, on the step's first attempt.
    let test_first = step.test_first.as_ref().map(|f| f.text.clone());
    let test_first_check = match &test_first {
        Some(text) if attempt == 1 && !interrupted => Some(test_first_check(&run, text)),
        _ => None,
    };
    // What the tree holds now is the step's base: the scope audit of
    // step-done holds only what changes from here against the step.
    if !kept_base && let Some(since) = &run.marker.step_start_sha {
        let base = scope::snapshot(&git_of(&run), n, since, &scope_of(&run, &step))?;
        scope::keep_base(run.git_dir(), base.as_ref())?;
    }

    reply.task = Some(Task {
        title: step.title.clone(),
        files: step
            .files
            .iter()
            .map(|f| TaskFile {
                path: f.path.clone(),
                new: f.new,
            })
            .collect(),
        changes: step.changes.as_ref().map(|f| f.text.clone()),
        reuses: step.reuses.as_ref().map(|f| f.text.clone()),
        test_first,
        test_first_check,
        verify: step.verify.as_ref().map(|c| c.command.clone()),
        on_failure: match &step.on_failure.note {
            Some(note) => format!("{} — {note}", step.on_failure.action.as_str()),
            None => step.on_failure.action.as_str().to_owned(),
        },
        attempt,
        max_attempts: MAX_ATTEMPTS,
        // The failure was shown whole by the step-done that recorded it;
        // its first line is enough to say what to fix.
        previous_error: previous_error
            .filter(|_| attempt > 1 && !interrupted)
            .map(|e| e.lines().next().unwrap_or_default().to_owned()),
    });
    Ok(reply)
}

/// The line that tells a resumed session where an interrupted attempt
/// stands: what it left in the step's Files, and what to do with it.
fn continued(run: &Run, n: u32, attempt: u32, files: &[String]) -> Result<String, Problem> {
    let left = scope::uncommitted(&git_of(run), files)?;
    let head = format!(
        "Step {n}, attempt {attempt} goes on: it ended before `trek step-done` (the session stopped), which is not a failure, so no attempt is spent."
    );
    Ok(if left.is_empty() {
        format!("{head} Its Files hold no uncommitted change: do the step from the start.")
    } else {
        format!(
            "{head} Its Files hold that attempt's uncommitted changes: {0}. Read them and finish the step from there, or to start clean restore them first (git checkout HEAD -- {0}; a new file: delete it).",
            left.join(" ")
        )
    })
}

/// Sub-step B: what trek does about a step's Test first. A field naming an
/// existing script or an allowlisted command is run here, and should fail
/// (RED); a test the step writes is written before the Changes and first
/// runs as (part of) the Verify in step-done: the agent runs no command of
/// the run itself.
fn test_first_check(run: &Run, text: &str) -> String {
    let span = text.split('`').nth(1).unwrap_or("").trim();
    let write_first = "write it before the Changes; its first run is the Verify in step-done";
    if span.is_empty()
        || text.contains(crate::plan::NEW_MARKER)
        || !run.root.join(span).exists() && crate::criteria::allowlisted(span).is_err()
    {
        return write_first.to_owned();
    }
    let command = if run.root.join(span).is_file() {
        if span.ends_with(".sh") || span.ends_with(".bash") {
            format!("bash {span}")
        } else {
            return format!("{span} exists and is not run here; the Verify in step-done runs it");
        }
    } else {
        span.to_owned()
    };
    match run_command(run, &command, Lasting::Long) {
        Err(NotRun::Interrupted { signal, .. }) => {
            format!(
                "trek's run of `{command}` was interrupted ({signal}); the Verify in step-done runs it"
            )
        }
        Ok(ran) if ran.exit == 0 => format!(
            "trek ran `{command}`: it already passes (warning: the step may be done already); go on"
        ),
        Ok(ran) => format!(
            "trek ran `{command}`: it fails as expected (RED, exit {})",
            ran.exit
        ),
        Err(NotRun::Error(why)) => format!("trek could not run `{command}`: {why}"),
    }
}

/// Judges `command` with the denylist: `Some(reason)` when it is blocked.
fn blocked(command: &str) -> Option<String> {
    let j = crate::scan::judge_command(command, &crate::scan::Context::from_env());
    (j.decision() == crate::scan::Decision::Block).then(|| {
        j.findings
            .iter()
            .map(|f| f.rule.name.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// A command trek ran through the runner, read the way the executor skill
/// reads it: the verdict's aggregate line and failures, and the log.
struct Ran {
    exit: i64,
    duration_ms: u64,
    verdict: crate::verdict::Reply,
}

impl Ran {
    /// `PASS (exit 0, 0.4s) — 12 passed in 0.31s`: the outcome, the
    /// runner's own aggregate line (the last line of a tool it does not
    /// know), and how long it took. The outcome is the verdict's, never
    /// greener than the runner's counts: `FAIL (exit 0, …) — …; cargo test
    /// reports 3 failed but exited 0`, `NO TESTS RAN (exit 0, …) — …`.
    fn headline(&self) -> String {
        use crate::verdict::Verdict;
        let word = match self.verdict.verdict {
            Verdict::Pass => "PASS",
            Verdict::NoTestsRan => "NO TESTS RAN",
            _ => "FAIL",
        };
        let said = match self.verdict.summary.as_str() {
            crate::verdict::EMPTY_LOG => "no output",
            summary => summary,
        };
        let note = self
            .verdict
            .note
            .as_deref()
            .map(|n| format!("; {n}"))
            .unwrap_or_default();
        format!(
            "{word} (exit {}, {}) — {said}{note}",
            self.exit,
            crate::clock::short_duration(self.duration_ms),
        )
    }

    /// Whether the runner counted failures that its exit code 0 hides
    /// (`cargo test || true`): the command failed all the same.
    fn failed_despite_exit(&self) -> bool {
        self.exit == 0 && self.verdict.verdict == crate::verdict::Verdict::Fail
    }

    /// Why a Verify that exited 0 tested nothing, when its runner ran no
    /// test (a filter or path that matches nothing, every test skipped).
    fn no_tests_warning(&self) -> Option<String> {
        (self.exit == 0 && self.verdict.verdict == crate::verdict::Verdict::NoTestsRan).then(|| {
            format!(
                "the Verify ran no tests ({}): it passed on its exit code alone; make sure it names tests that exist",
                self.verdict.summary
            )
        })
    }

    /// A failure's detail: the failures the verdict found, or the log's
    /// last lines when it recognised none; then where the whole log is.
    fn detail(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .verdict
            .failures
            .iter()
            .take(FAILURES_SHOWN)
            .map(|f| {
                let message = f.excerpt();
                if message.is_empty() {
                    format!("- {}", f.name)
                } else {
                    format!("- {} - {message}", f.name)
                }
            })
            .collect();
        let more =
            self.verdict.failures.len().saturating_sub(FAILURES_SHOWN) + self.verdict.more_failures;
        if more > 0 {
            lines.push(format!("- +{more} more in the log"));
        }
        if lines.is_empty()
            && let Some(log) = &self.verdict.log
        {
            let tail = last_lines(Path::new(log), FAILURE_LINES);
            // The aggregate line is already in the headline.
            let tail = tail
                .into_iter()
                .filter(|l| l.trim() != self.verdict.summary.trim());
            lines.extend(tail.map(|l| format!("  {l}")));
        }
        if let Some(log) = &self.verdict.log {
            lines.push(format!("Log: {log}"));
        }
        lines
    }
}

/// Why a command trek ran has no outcome of its own.
enum NotRun {
    /// This process was sent `signal` while the command ran (the Bash
    /// tool's timeout, Ctrl-C, a closed terminal): it was stopped from
    /// outside, after `after_ms`; what it would have said is unknown.
    Interrupted { signal: String, after_ms: u64 },
    /// It could not start; why.
    Error(String),
}

/// How long a command of the plan may hold trek up once trek is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lasting {
    /// A test suite may run for minutes: a watchdog stops it with a
    /// `step-done` killed outright (one `sh` more per call).
    Long,
    /// A git commit ends by itself in a moment: no watchdog.
    Brief,
}

/// Runs `command` through the runner in the work tree, for at most
/// [`COMMAND_TIMEOUT_SECS`].
fn run_command(run: &Run, command: &str, lasting: Lasting) -> Result<Ran, NotRun> {
    let ran = super::said::passing_on(|| {
        crate::run::run_command(
            command,
            &run.root,
            Some(COMMAND_TIMEOUT_SECS),
            lasting == Lasting::Long,
        )
    });
    if let Some(signal) = ran.interrupted_by {
        return Err(NotRun::Interrupted {
            signal,
            after_ms: ran.duration_ms,
        });
    }
    let exit = ran.exit.map_or(-1, i64::from);
    if ran.status == "error" && exit < 0 {
        return Err(NotRun::Error(
            ran.reason
                .unwrap_or_else(|| "the command could not run".to_owned()),
        ));
    }
    let verdict = crate::verdict::build(&crate::verdict::Input {
        log: ran.log,
        exit: Some(exit.to_string()),
        duration: Some(crate::clock::short_duration(ran.duration_ms)),
        status: Some(ran.status.to_owned()),
        reason: ran.reason,
        expect: None,
    });
    Ok(Ran {
        exit,
        duration_ms: ran.duration_ms,
        verdict,
    })
}

fn last_lines(log: &Path, n: usize) -> Vec<String> {
    let Ok(bytes) = crate::input_file::read(log, 64 << 20) else {
        return Vec::new();
    };
    let text = crate::ansi::clean(&bytes);
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take(400).collect())
        .collect();
    let skip = lines.len().saturating_sub(n);
    lines.into_iter().skip(skip).collect()
}

/// Runs `trek step-done N`.
pub(super) fn done(here: &Path, n: u32) -> Reply {
    match done_inner(here, n) {
        Ok(reply) => reply,
        Err(p) => super::stop::problem("step-done", &p),
    }
}

fn done_inner(here: &Path, n: u32) -> Result<Reply, Problem> {
    let mut run = Run::here(here)?;
    let mut reply = run.reply("step-done", Next::Finish);
    if reconcile(&mut run, &mut reply)? {
        return go_on(&run, reply);
    }
    let step = step_of(&run, n)?.clone();
    let (status, attempts, _, budget) = record_of(&run, n)?;
    if status != StepStatus::InProgress {
        return Err(Problem::new(
            code::TREK_STEP_STATE,
            format!(
                "step {n} is {}, not in progress: call `trek step-begin {n}` first",
                status.as_str()
            ),
        ));
    }
    reply.lines.extend(run.plan_change());

    // The scope audit, before anything the helper runs itself (the Verify
    // may leave files of its own): every change outside the step's Files
    // fails the attempt, saved as a patch and put back first.
    let head_before = match scope_check(&run, &step, attempts, &mut reply)? {
        Scoped::Outside(why) => {
            let forced = reply.scope.as_ref().is_some_and(|s| s.problem.is_some());
            return fail(&mut run, &step, attempts, budget, &why, forced, reply);
        }
        Scoped::Within(head) => head,
    };

    // Sub-step D1: the Verify command, screened first.
    let exit_code = match step.verify.as_ref().map(|v| v.command.clone()) {
        None => {
            reply.push(format!(
                "Step {n} has no Verify command: the manifest audit alone decides."
            ));
            0
        }
        Some(command) => {
            if let Some(rule) = blocked(&command) {
                let why =
                    format!("SECURITY: Verify command blocked — matches executor denylist: {rule}");
                reply.push(why.clone());
                return fail(&mut run, &step, attempts, budget, &why, true, reply);
            }
            match run_command(&run, &command, Lasting::Long) {
                Ok(ran) => {
                    reply.push(format!("Verify `{command}`: {}", ran.headline()));
                    let code = ran.exit;
                    let failed = code != 0 || ran.failed_despite_exit();
                    if failed && !(code == 77 && step.sandbox_preflight()) {
                        let detail = ran.detail();
                        reply.lines.extend(detail.iter().cloned());
                        let mut why = format!("Verify `{command}`: {}", ran.headline());
                        for line in &detail {
                            why.push('\n');
                            why.push_str(line);
                        }
                        return fail(&mut run, &step, attempts, budget, &why, false, reply);
                    }
                    if let Some(warning) = ran.no_tests_warning() {
                        reply.push(format!("warning: {warning}"));
                        let noted =
                            crate::progress::note_verify_warning(&run.progress_path, n, &warning);
                        if let Err(p) = noted {
                            reply.push(format!(
                                "warning: the final report will not say so: {}",
                                p.message
                            ));
                        }
                    }
                    code
                }
                Err(NotRun::Interrupted { signal, after_ms }) => {
                    let what = Interruption {
                        during: "verify",
                        command: &command,
                        signal: &signal,
                        after_ms,
                    };
                    return interrupted(&run, n, &what, reply);
                }
                Err(NotRun::Error(why)) => {
                    let why = format!("Verify `{command}` could not run: {why}");
                    reply.push(why.clone());
                    return fail(&mut run, &step, attempts, budget, &why, false, reply);
                }
            }
        }
    };

    // Sub-step D2: the manifest (or the Step 0 sentinel).
    let plan = run.plan_file.clone();
    let since = run.marker.step_start_sha.clone();
    let request = crate::audit::StepRequest {
        plan: &plan,
        step: n,
        since: since.as_deref(),
        verify_exit: i32::try_from(exit_code).ok(),
        repo: Some(&run.root),
        loaded: Some(&run.plan),
    };
    // A pass is recorded with the step's completion below (one write of
    // the progress file, not two); anything else is recorded as it is.
    let audited = super::said::passing_on(|| {
        let mut audited = crate::audit::audit_step(&request);
        if let Ok(found) = &mut audited
            && found.verdict() != "pass"
            && let Err(refused) = found.record(&run.progress_path)
        {
            audited = Err(refused);
        }
        if let Err((_, p)) = &audited {
            crate::problem::eprint_all(std::slice::from_ref(p));
        }
        audited
    });
    let verdict = audited.as_ref().map_or("unchecked", |a| a.verdict());
    if verdict == "blocked" {
        reply.push(format!(
            "Step {n}: BLOCKED — the sandbox pre-flight exited 77; no real work is attempted."
        ));
        context::set_stop(&run.progress_path, "stopped")?;
        clear_step(&mut run)?;
        reply.status = "blocked".into();
        return Ok(reply);
    }
    if verdict != "pass" {
        let items = match &audited {
            Ok(found) => found.drift_lines(),
            Err((_, p)) => vec![p.message.clone()],
        };
        reply.push("Manifest audit: FAIL");
        reply.lines.extend(items.iter().map(|l| format!("- {l}")));
        let why = format!("Manifest verification FAIL: {}", items.join("; "));
        return fail(&mut run, &step, attempts, budget, &why, false, reply);
    }
    reply.push("Manifest audit: PASS");

    // Sub-step F: the checkpoint. HEAD before it is what the scope audit
    // saw (one git call fewer); without that audit, asked now.
    let before = head_before.or_else(|| context::head(&run.root));
    let mut nothing_to_commit = false;
    // HEAD's id and subject after the checkpoint, read once (with its
    // parent, when a Checkpoint ran).
    let after;
    let mut head_after = None;
    if let Some(command) = step.checkpoint.as_ref().map(|c| c.command.clone()) {
        if let Some(rule) = blocked(&command) {
            let why =
                format!("SECURITY: Checkpoint command blocked — matches executor denylist: {rule}");
            reply.push(why.clone());
            return fail(&mut run, &step, attempts, budget, &why, true, reply);
        }
        stage(&run, &step);
        // What is about to happen, where the next call finds it if this
        // one is cut short between the commit and its record.
        if let Some(head) = &before {
            run.marker.checkpoint = Some(Checkpoint {
                step: n,
                head_before: head.clone(),
            });
            // Against a killed process, not a power cut: git's commit is
            // no more durable than this.
            crate::run_marker::write_unsynced(&run.marker_path, &run.marker).map_err(|e| {
                Problem::new(
                    code::TREK_MARKER,
                    format!(
                        "cannot write the run marker {}: {e}",
                        run.marker_path.display()
                    ),
                )
            })?;
        }
        let ran = run_command(&run, &command, Lasting::Brief);
        head_after = head_commit(&run.root);
        after = head_after
            .as_ref()
            .map(|(id, _, subject)| (id.clone(), subject.clone()));
        let made = after
            .as_ref()
            .is_some_and(|(id, _)| Some(id) != before.as_ref());
        match ran {
            Ok(ran) if ran.exit == 0 || made => {
                if ran.exit != 0 {
                    reply.push(format!(
                        "warning: the checkpoint exited {} after its commit was made ({}); the commit stands",
                        ran.exit,
                        git_words(&ran.verdict.summary)
                    ));
                }
            }
            Err(NotRun::Interrupted { signal, after_ms }) => {
                // The marker still announces the checkpoint: the next call
                // records the commit if git made it, or makes it.
                let what = Interruption {
                    during: "checkpoint",
                    command: &command,
                    signal: &signal,
                    after_ms,
                };
                return interrupted(&run, n, &what, reply);
            }
            Ok(ran) if is_nothing_to_commit(&ran.verdict.summary) => nothing_to_commit = true,
            Ok(ran) => {
                let why = format!(
                    "Checkpoint `{command}` exited {}: {}",
                    ran.exit,
                    git_words(&ran.verdict.summary)
                );
                let said = ran
                    .verdict
                    .log
                    .as_ref()
                    .map(|log| last_lines(Path::new(log), 40).join("\n"))
                    .unwrap_or_default();
                return checkpoint_refused(&mut run, &step, &why, &said, reply);
            }
            Err(NotRun::Error(why)) => {
                let why = format!("Checkpoint `{command}` did not run: {why}");
                return checkpoint_refused(&mut run, &step, &why, &why, reply);
            }
        }
    } else {
        reply.push(format!("Step {n} has no Checkpoint: nothing is committed."));
        after = last_commit(&run.root);
    }
    let commit = after.filter(|(id, _)| Some(id) != before.as_ref());
    let sha = commit.as_ref().map(|(id, _)| id.clone());
    // A checkpoint that rewrote HEAD (`git commit --amend`) instead of
    // adding a commit on it: the step passed, but say what became of the
    // commit that was there.
    let rewrote = sha.as_ref().and(before.as_ref()).filter(|before| {
        head_after
            .as_ref()
            .is_some_and(|(_, parent, _)| parent != *before)
    });
    complete(&mut run, &step, commit, &mut reply)?;
    if let Some(before) = rewrote {
        reply.push(format!(
            "warning: the Checkpoint replaced HEAD instead of adding a commit on it (git commit --amend?): the commit {} that was HEAD is no longer on the branch (git reflog finds it).",
            before.get(..12).unwrap_or(before)
        ));
    }
    reply.push(match (&sha, &step.checkpoint) {
        (Some(sha), _) => format!(
            "Step {n}: PASS (committed: {})",
            sha.get(..12).unwrap_or(sha)
        ),
        (None, _) if nothing_to_commit => {
            format!("Step {n}: PASS (nothing to commit: the step's Files hold no change)")
        }
        (None, None) => format!("Step {n}: PASS (no commit)"),
        // Said only once git shows no new commit: the step's Files are
        // staged and would go into whatever commits next.
        (None, Some(_)) => format!(
            "Step {n}: PASS, NOT committed: the checkpoint made no commit; the step's Files stay staged (git status), and the next commit takes them unless you commit or unstage them first."
        ),
    });
    clear_step(&mut run)?;
    go_on(&run, reply)
}

/// A command of step `n` that this process was interrupted in.
struct Interruption<'a> {
    /// `verify` or `checkpoint`.
    during: &'static str,
    command: &'a str,
    signal: &'a str,
    after_ms: u64,
}

/// A step-done cut short by a signal to trek itself: not the step's
/// failure. Nothing is spent or reverted; the step stays in progress (and
/// the marker on it), the interruption is noted in the progress file, and
/// the reply says how to go on.
fn interrupted(
    run: &Run,
    n: u32,
    what: &Interruption<'_>,
    mut reply: Reply,
) -> Result<Reply, Problem> {
    let after = crate::clock::short_duration(what.after_ms);
    let note = serde_json::json!({
        "step": n,
        "during": what.during,
        "signal": what.signal,
        "after_ms": what.after_ms,
        "at": crate::clock::UtcTime::now().rfc3339(),
    });
    crate::progress::edit(&run.progress_path, |p| {
        let list = p
            .extra
            .entry(INTERRUPTIONS)
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let Some(list) = list.as_array_mut() {
            list.push(note);
        }
    })?;
    let what_ran = match what.during {
        "checkpoint" => "Checkpoint",
        _ => "Verify",
    };
    reply.push(format!(
        "Step {n}: INTERRUPTED — the {what_ran} `{}` was stopped after {after} because trek itself was sent {} (the Bash tool's timeout, Ctrl-C or a closed terminal), not by the step's work.",
        what.command, what.signal
    ));
    reply.push(
        "That is not a failure: no attempt and no budget are spent, nothing is reverted, and the step's work stays in its Files.",
    );
    reply.push(format!(
        "To go on: trek step-done {n} (it runs the checks again; give the Bash call a timeout of 600000 ms), or /trekexecute --resume {} in a new session.",
        run.plan_arg()
    ));
    reply.status = "interrupted".into();
    reply.next = Next::Stop;
    reply.step = None;
    reply.exit = exit::NOT_OK;
    Ok(reply)
}

/// The progress file's key listing the interruptions of the run.
pub(crate) const INTERRUPTIONS: &str = "interruptions";

/// Records step `n` completed with `commit` (its id and subject), the
/// checkpoint message checked against the manifest (drift is advisory and
/// goes into the same write).
fn complete(
    run: &mut Run,
    step: &Step,
    commit: Option<(String, String)>,
    reply: &mut Reply,
) -> Result<(), Problem> {
    let n = step.number;
    let mut completed = change(n);
    if let Some((sha, subject)) = &commit {
        completed.commit = Some(sha.clone());
        let drift = step
            .manifest
            .as_ref()
            .and_then(|m| crate::audit::checkpoint_drift(m, subject));
        if let Some(mut drift) = drift {
            let pattern = drift
                .get("expected_pattern")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_owned();
            match rewritten_by_hook(run, step, subject) {
                Some((planned, hooks)) => {
                    let who = super::git_setup::hooks_named(&hooks);
                    reply.push(format!(
                        "Step {n}: {who} rewrote the checkpoint's subject: \"{planned}\" became \"{subject}\". The plan's message matches its pattern \"{pattern}\", so the run's audit accepts this commit as the hook's doing and lists it as an advisory; to keep the plan's subjects, change the hook (or make the pattern accept what it writes)."
                    ));
                    if let (Some(map), Some(hook)) = (drift.as_object_mut(), hooks.last()) {
                        map.insert("planned_message".into(), planned.into());
                        map.insert(
                            "rewritten_by_hook".into(),
                            hook.display().to_string().into(),
                        );
                    }
                }
                None => reply.push(format!(
                    "checkpoint_drift: \"{subject}\" does not match \"{pattern}\" (advisory)"
                )),
            }
            completed.checkpoint_drift = Some(drift);
        }
    }
    let recorded = record(run, "completed", completed)?;
    if !recorded.ok
        && record_of(run, n)
            .is_ok_and(|(status, ..)| matches!(status, StepStatus::Completed | StepStatus::Passed))
    {
        // Another call recorded it first (two step-done at once): the
        // step is done either way, and the run goes on from the record.
        reply.push(format!(
            "Step {n} was already recorded completed by another call; nothing more to record."
        ));
        return Ok(());
    }
    if !recorded.ok {
        return Err(Problem::new(
            code::TREK_INNER,
            format!("step {n} could not be recorded completed: {}", recorded.why),
        ));
    }
    Ok(())
}

/// When the checkpoint's `subject` misses the step's pattern although the
/// plan wrote a matching one (a plain `git commit -m`), and the repository
/// has a hook that may change the message: the plan's subject and those
/// hooks. The hook made the difference, not the step.
fn rewritten_by_hook(
    run: &Run,
    step: &Step,
    subject: &str,
) -> Option<(String, Vec<std::path::PathBuf>)> {
    let planned = step.planned_matching_subject()?;
    let hooks = super::git_setup::Places::of(&run.root)
        .map(|p| super::git_setup::message_hooks(&p))
        .unwrap_or_default();
    (planned != subject && !hooks.is_empty()).then_some((planned, hooks))
}

/// A checkpoint that made no commit after the step passed its Verify and
/// its manifest audit: git's setup (an identity, signing, a hook, a lock)
/// or the plan's Checkpoint command stood in the way, never the agent's
/// work. No attempt is spent and nothing is reverted: the step's Files
/// stay staged, a patch of them is kept, the step stays in progress, and
/// the run waits for a person, with the exact fix; `trek step-done N`
/// then checks the work again and commits it.
fn checkpoint_refused(
    run: &mut Run,
    step: &Step,
    why: &str,
    said: &str,
    mut reply: Reply,
) -> Result<Reply, Problem> {
    let n = step.number;
    let cause = super::git_setup::cause_of(&run.root, said);
    reply.push(why.to_owned());
    reply.push(format!("Step {n}: CHECKPOINT NOT MADE — {}", cause.why));
    reply.push(format!("Fix: {}", cause.fix));
    let files: Vec<String> = step.files.iter().map(|f| f.path.clone()).collect();
    let patch = scope::named_patch_path(run.git_dir(), n, "checkpoint");
    let kept = context::head(&run.root)
        .ok_or_else(|| "the work tree has no HEAD".to_owned())
        .and_then(|head| scope::save_patch(&git_of(run), &head, &files, &patch));
    reply.push(match kept {
        Ok(true) => format!(
            "The step passed its Verify and manifest audit; that work is kept: staged in the index, and saved in {} (git apply {} brings it back). No attempt is spent.",
            patch.display(),
            patch.display()
        ),
        Ok(false) => "The step passed its Verify and manifest audit; no attempt is spent.".to_owned(),
        Err(e) => format!(
            "The step passed its Verify and manifest audit; its work stays in its Files, staged (the patch could not be written: {e}). No attempt is spent."
        ),
    });
    reply.push(format!(
        "Once that is fixed: trek step-done {n} (it checks the work again and commits it)."
    ));
    let note = serde_json::json!({
        "step": n,
        "why": cause.why,
        "fix": cause.fix,
        "at": crate::clock::UtcTime::now().rfc3339(),
    });
    crate::progress::edit(&run.progress_path, |p| {
        p.extra.insert(CHECKPOINT_REFUSED.to_owned(), note);
    })?;
    run.marker.checkpoint = None;
    run.save_marker()?;
    reply.status = "paused".into();
    reply.next = Next::Stop;
    reply.step = None;
    reply.exit = exit::NOT_OK;
    Ok(reply)
}

/// The progress file's key holding the last checkpoint git refused, kept
/// as a record once the step commits.
pub(crate) const CHECKPOINT_REFUSED: &str = "checkpoint_refused";

/// Whether git's words say the commit had nothing in it.
fn is_nothing_to_commit(said: &str) -> bool {
    let words = said.trim_start();
    words.starts_with("nothing to commit") || words.starts_with("nothing added to commit")
}

/// What a call cut short between a checkpoint commit and its record left
/// (the marker's `checkpoint`), settled against git: a commit at HEAD whose
/// parent is the HEAD before it is the step's and is recorded now, never
/// made again; otherwise no commit was made, and the step goes on. Returns
/// whether the step was recorded completed here.
pub(super) fn reconcile(run: &mut Run, reply: &mut Reply) -> Result<bool, Problem> {
    let Some(pending) = run.marker.checkpoint.clone() else {
        return Ok(false);
    };
    let n = pending.step;
    let (status, ..) = record_of(run, n)?;
    let mut recorded = false;
    if !matches!(status, StepStatus::Completed | StepStatus::Passed) {
        let made = head_commit(&run.root)
            .filter(|(_, parent, _)| *parent == pending.head_before)
            .map(|(id, _, subject)| (id, subject));
        match (made, step_of(run, n).cloned()) {
            (Some((sha, subject)), Ok(step)) => {
                complete(run, &step, Some((sha.clone(), subject)), reply)?;
                reply.push(format!(
                    "Step {n}: its checkpoint commit {} was made before the last call was cut short; recorded now (not made again).",
                    sha.get(..12).unwrap_or(&sha)
                ));
                recorded = true;
            }
            _ => reply.push(format!(
                "Step {n}: the last call was cut short before its checkpoint commit was made; the step goes on, and its step-done commits it."
            )),
        }
    }
    run.marker.checkpoint = None;
    if recorded || matches!(status, StepStatus::Completed | StepStatus::Passed) {
        clear_step(run)?;
    } else {
        run.save_marker()?;
    }
    Ok(recorded)
}

/// What git said, without its advice: `(use "git add" to track)` is the
/// wrong thing to do in a run, where only a step's Files are staged.
fn git_words(said: &str) -> String {
    let cut = said.find(" (use \"git").unwrap_or(said.len());
    let words = said.get(..cut).unwrap_or(said).trim();
    if words.starts_with("nothing to commit") || words.starts_with("nothing added to commit") {
        "nothing to commit: the step changed none of its Files".to_owned()
    } else if words.is_empty() {
        "no output".to_owned()
    } else {
        words.to_owned()
    }
}

/// The run's repository, for the audit's git calls.
fn git_of(run: &Run) -> Git {
    Git::at(&run.root)
}

/// What the step may change: its Files, its manifest's expected paths,
/// and the run's own files.
fn scope_of(run: &Run, step: &Step) -> Scope {
    let root = std::fs::canonicalize(&run.root).unwrap_or_else(|_| run.root.clone());
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut own = Scope::run_files(&root, &real(&run.plan_path), &real(&run.progress_path));
    own.extend(Scope::run_files(
        &run.root,
        &run.plan_path,
        &run.progress_path,
    ));
    let expected = step
        .manifest
        .as_ref()
        .map(|m| m.expected_paths.as_slice())
        .unwrap_or_default();
    Scope::new(
        step.files
            .iter()
            .map(|f| f.path.as_str())
            .chain(expected.iter().map(String::as_str)),
        own.iter().map(String::as_str),
    )
}

/// What the scope audit of `trek step-done` found.
enum Scoped {
    /// Nothing outside the step's scope; HEAD as the audit saw it (`None`
    /// when no audit ran).
    Within(Option<String>),
    /// The step changed something outside its scope: why (the reply then
    /// says what, where it was saved and what was put back).
    Outside(String),
}

/// The scope audit of `trek step-done`.
fn scope_check(run: &Run, step: &Step, attempt: u32, reply: &mut Reply) -> Result<Scoped, Problem> {
    let Some(since) = run.marker.step_start_sha.clone() else {
        return Ok(Scoped::Within(None));
    };
    let n = step.number;
    let git = git_of(run);
    let base = scope::read_base(run.git_dir()).filter(|b| b.step == n);
    let found = scope::audit(&git, &since, base.as_ref(), &scope_of(run, step))?;
    if found.violations.is_empty() {
        return Ok(Scoped::Within(found.head));
    }
    let patch = scope::patch_path(run.git_dir(), n, attempt);
    let saved = scope::save_and_restore(&git, &found, &patch);
    let lines: Vec<String> = found.violations.iter().map(scope::Finding::line).collect();
    reply.push(format!(
        "SCOPE VIOLATION: step {n} changed {} path(s) outside its Files:",
        lines.len()
    ));
    reply.lines.extend(lines.iter().map(|l| format!("- {l}")));
    if let Some(p) = &saved.patch {
        reply.push(format!(
            "Saved in {p}; those paths are back as they were when the step began. To keep the changes: git apply {p}"
        ));
    }
    if let Some(why) = &saved.problem {
        reply.push(format!(
            "Left in place: {} ({why}); a person decides.",
            saved.kept.join(", ")
        ));
    }
    // On the record too, whatever the attempt's end: the report and the
    // stats record read it from the progress file.
    let noted = crate::progress::note_scope_violation(
        &run.progress_path,
        n,
        crate::progress::ScopeViolation {
            attempt,
            restored: saved.restored.clone(),
            patch: saved.patch.clone(),
            kept: saved.kept.clone(),
            problem: saved.problem.clone(),
        },
    );
    if let Err(p) = noted {
        reply.push(format!(
            "warning: the progress file does not record what was put back, so the final report will not say so: {}",
            p.message
        ));
    }
    reply.scope = Some(ScopeReply {
        changes: found.violations,
        patch: saved.patch,
        restored: saved.restored,
        kept: saved.kept,
        problem: saved.problem,
    });
    Ok(Scoped::Outside(format!(
        "SCOPE VIOLATION: changed outside the step's Files: {}",
        lines.join("; ")
    )))
}

/// HEAD's id and subject, if the work tree has a commit.
fn last_commit(root: &Path) -> Option<(String, String)> {
    head_commit(root).map(|(id, _, subject)| (id, subject))
}

/// HEAD's id, first parent (empty for a root commit) and subject, read in
/// one git call.
fn head_commit(root: &Path) -> Option<(String, String, String)> {
    let out = crate::git::run(root, &["log", "-1", "--format=%H%x1f%P%x1f%s", "HEAD"]).ok()?;
    let text = out.text();
    let mut fields = text.trim_end_matches(['\n', '\r']).splitn(3, '\x1f');
    let (id, parents, subject) = (fields.next()?, fields.next()?, fields.next()?);
    let parent = parents.split(' ').next().unwrap_or_default();
    out.ok()
        .then(|| (id.to_owned(), parent.to_owned(), subject.to_owned()))
}

/// The next call after a step ended well (or was skipped).
fn go_on(run: &Run, mut reply: Reply) -> Result<Reply, Problem> {
    if run.decided.only_step.is_some() {
        reply.next = Next::Finish;
        return Ok(reply);
    }
    match next_step(&run.progress_path, None)? {
        Some(next) => {
            reply.next = Next::BeginStep;
            reply.step = Some(next);
        }
        None => reply.next = Next::Finish,
    }
    Ok(reply)
}

/// Stages the step's Files (never `git add -A` on the whole tree): the
/// Checkpoint is a bare `git commit` in the plans.
fn stage(run: &Run, step: &Step) {
    for file in &step.files {
        // The plan's path as it is: `*.txt` is a file of that name.
        let _ = crate::git::run(
            &run.root,
            &["--literal-pathspecs", "add", "-A", "--", &file.path],
        );
    }
}

/// The marker goes back to "between steps" (and the step's base goes).
fn clear_step(run: &mut Run) -> Result<(), Problem> {
    scope::keep_base(run.git_dir(), None)?;
    run.marker.step = None;
    run.marker.files.clear();
    run.marker.memory_write = false;
    run.marker.step_start_sha = None;
    run.marker.checkpoint = None;
    run.save_marker()
}

/// Sub-step E: the `On failure:` clause (escalate when `forced`: a blocked
/// command), with the attempt cap and the run's budget.
fn fail(
    run: &mut Run,
    step: &Step,
    attempts: u32,
    budget: Option<u32>,
    why: &str,
    forced: bool,
    mut reply: Reply,
) -> Result<Reply, Problem> {
    let n = step.number;
    let failed = record(
        run,
        "failed",
        StepUpdate {
            error: Some(why.to_owned()),
            ..change(n)
        },
    )?;
    if !failed.ok {
        reply.push(format!(
            "warning: the failure could not be recorded: {}",
            failed.why
        ));
    }
    let action = if forced {
        Action::Escalate
    } else {
        step.on_failure.action
    };
    match action {
        Action::Escalate => {
            reply.push(format!("Step {n}: ESCALATED — requires human judgment"));
            escalate(run, n, &mut reply)?;
            reply.status = "stopped".into();
            reply.next = Next::Finish;
            Ok(reply)
        }
        Action::Skip => {
            let skipped = record(
                run,
                "skipped",
                StepUpdate {
                    error: Some(why.to_owned()),
                    ..change(n)
                },
            )?;
            if !skipped.ok {
                reply.push(format!("warning: {}", skipped.why));
            }
            reply.push(format!("Step {n}: SKIPPED (non-critical per plan)"));
            clear_step(run)?;
            go_on(run, reply)
        }
        Action::Revert | Action::Retry => {
            let budget_left = budget.is_none_or(|b| b > 0);
            if attempts < MAX_ATTEMPTS && budget_left {
                reply.push(format!(
                    "Attempt {attempts}/{MAX_ATTEMPTS} failed. Retrying..."
                ));
                if action == Action::Retry
                    && let Some(note) = &step.on_failure.note
                {
                    reply.push(format!("Take the plan's alternative: {note}"));
                }
                clear_step(run)?;
                reply.next = Next::BeginStep;
                reply.step = Some(n);
                return Ok(reply);
            }
            if !budget_left {
                reply.push(
                    "The run's recovery/retry budget is spent (iterations_remaining 0).".to_owned(),
                );
            }
            revert(run, step, attempts, &mut reply)?;
            context::set_stop(&run.progress_path, "failed")?;
            clear_step(run)?;
            reply.status = "failed".into();
            reply.next = Next::Finish;
            Ok(reply)
        }
    }
}

/// A failed step's last attempt: its Files reverted, and the reply says
/// what was undone and what was not, only once git has answered. Files
/// left as the attempt made them (shared with a completed step, or git
/// failed) are named with why and what the user can do, and the reply's
/// exit is 1: the run did not end the way a revert promises.
fn revert(run: &Run, step: &Step, attempts: u32, reply: &mut Reply) -> Result<(), Problem> {
    let n = step.number;
    // What the revert throws away is kept first: the attempt's work, and
    // anything of the user's in those Files that was not committed.
    let files: Vec<String> = step
        .files
        .iter()
        .filter(|f| crate::audit::inside(&run.root, &f.path).is_some())
        .map(|f| f.path.clone())
        .collect();
    let patch = scope::named_patch_path(run.git_dir(), n, "revert");
    let saved = context::head(&run.root)
        .ok_or_else(|| "the work tree has no HEAD".to_owned())
        .and_then(|head| scope::save_patch(&git_of(run), &head, &files, &patch));
    match saved {
        Ok(true) => reply.push(format!(
            "Before the revert, what step {n}'s Files held is saved in {} (git apply {} brings it back).",
            patch.display(),
            patch.display()
        )),
        Ok(false) => {}
        Err(why) => {
            reply.push(format!(
                "Step {n}: FAILED after {attempts} attempt(s); its Files are NOT reverted: what they hold could not be saved first ({why}), and a revert never throws away what it has not kept."
            ));
            reply.exit = exit::NOT_OK;
            return Ok(());
        }
    }
    let found = progress_git(run, false, n);
    let (restored, removed, kept) = found.reverted();
    let (restored, removed, kept) = (restored.to_vec(), removed.to_vec(), kept.to_vec());
    let mut left = found.left();
    if found.code() != exit::OK && left.is_empty() {
        // Refused before git ran: every File is as the attempt left it.
        let why = found
            .refusal()
            .map(|p| p.message.clone())
            .unwrap_or_default();
        left = step
            .files
            .iter()
            .map(|f| (f.path.clone(), format!("not reverted: {why}")))
            .collect();
    }
    let mut done = Vec::new();
    if !restored.is_empty() {
        done.push(format!("restored {}", restored.join(", ")));
    }
    if !removed.is_empty() {
        done.push(format!("removed {}", removed.join(", ")));
    }
    if left.is_empty() && kept.is_empty() {
        reply.push(format!(
            "Step {n}: FAILED after {attempts} attempt(s); its Files are reverted: {}.",
            if done.is_empty() {
                "nothing to restore".to_owned()
            } else {
                done.join("; ")
            }
        ));
        return Ok(());
    }
    reply.push(format!(
        "Step {n}: FAILED after {attempts} attempt(s); its Files are NOT all reverted."
    ));
    if !done.is_empty() {
        reply.push(format!("Reverted: {}.", done.join("; ")));
    }
    reply.push("Left as the failed attempt made them:");
    reply
        .lines
        .extend(left.iter().map(|(path, why)| format!("- {path}: {why}")));
    let paths: Vec<&str> = left.iter().map(|(p, _)| p.as_str()).collect();
    reply.push(format!(
        "See what is left: git status -- {0}; git diff HEAD -- {0}. Drop it once checked: git checkout HEAD -- {0} (a file HEAD lacks: delete it).",
        paths.join(" ")
    ));
    reply.exit = exit::NOT_OK;
    Ok(())
}

/// Commits the completed steps' work before an escalation stop; the reply
/// names the commit only when there is one, and says so when it failed.
fn escalate(run: &mut Run, n: u32, reply: &mut Reply) -> Result<(), Problem> {
    let committed = progress_git(run, true, n);
    let (commit, paths) = committed.commit();
    match (commit, committed.code() == exit::OK) {
        (Some(sha), true) => {
            reply.push(format!(
                "Completed work committed: {} (wip: trekexecute stopped at step {n}), {}.",
                sha.get(..12).unwrap_or(sha),
                paths.join(", ")
            ));
        }
        (None, true) => {
            reply.push("Nothing committed: the completed steps' Files have no uncommitted changes.")
        }
        (_, false) => {
            let why = committed
                .refusal()
                .map(|p| p.message.clone())
                .unwrap_or_default();
            reply.push(format!(
                "The completed work is NOT committed: {why}. It is still in the work tree: see it with git status."
            ));
            reply.exit = exit::NOT_OK;
        }
    }
    context::set_stop(&run.progress_path, "stopped")?;
    clear_step(run)
}

/// `progress revert-step N` or (`escalate`) `progress escalate-commit N`
/// on the run. What git did and did not do is the reply's to say, once:
/// what the progress area prints is held back.
fn progress_git(run: &Run, escalate: bool, n: u32) -> crate::progress::GitDone {
    let request = crate::progress::GitStepRequest {
        step: n,
        locate: crate::progress::Locate::of_file(&run.progress_path),
        cwd: Some(run.root.clone()),
    };
    let (done, _) = crate::problem::holding(|| {
        let done = crate::progress::on_failure_git(&request, escalate);
        done.eprint();
        done
    });
    done
}
