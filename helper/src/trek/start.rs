//! `trek start`: Phases 1 to 4 of `/trekexecute` in one call. It reads the
//! command's arguments, finds the plan, answers `--validate` and
//! `--dry-run` with their reports, runs the brief's sequencing gate, the
//! profile and effort resolution, the security scan and the strategy
//! decision, then either takes the multi-session path (preflight, wave
//! preparation or collection) or sets the single-session run up: progress
//! file, entry condition, run marker. Every early stop leaves the progress
//! file and the state pair saying so.

use std::path::{Path, PathBuf};

use super::cli::{EntryJudgement, StartArgs};
use super::code;
use super::context::{self, Decided};
use super::preflight;
use super::reply::{Next, Reply};
use super::said;
use super::stop;
use crate::exit;
use crate::git_exclude;
use crate::plan::PlanKind;
use crate::problem::Problem;
use crate::run_marker::{self, RunMarker};

/// The usage block: what `/trekexecute` takes.
pub(super) const USAGE: &str = "\
Usage: /trekexecute <plan.md>
       /trekexecute --project <dir> [--resume | --session N]
       /trekexecute --fg | --resume | --fresh | --dry-run | --validate <plan.md>
       /trekexecute --step N | --session N <plan.md>
Flags combine with --gates[=open|adaptive|closed], --profile <name> and --no-push.";

/// The run's mode (Phase 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Execute,
    Foreground,
    Resume,
    DryRun,
    Validate,
    Step(u32),
    Session(u32),
}

impl Mode {
    /// The word `progress init --mode` and the strategy take.
    fn word(self) -> &'static str {
        match self {
            Mode::Execute | Mode::Foreground => "execute",
            Mode::Resume => "resume",
            Mode::DryRun => "dry-run",
            Mode::Validate => "validate",
            Mode::Step(_) => "step",
            Mode::Session(_) => "session",
        }
    }

    fn label(self) -> String {
        match self {
            Mode::Execute => "execute".into(),
            Mode::Foreground => "execute (foreground)".into(),
            Mode::Resume => "resume".into(),
            Mode::DryRun => "dry-run".into(),
            Mode::Validate => "validate".into(),
            Mode::Step(n) => format!("step {n}"),
            Mode::Session(n) => format!("session {n}"),
        }
    }
}

fn usage(message: impl Into<String>) -> Reply {
    let mut reply = Reply::new("start", Next::Stop, "usage")
        .line(format!("Error: {}", message.into()))
        .line("");
    reply.push_text(USAGE);
    reply.exit = exit::CANNOT_CHECK;
    reply
}

fn mode_of(args: &StartArgs) -> Result<Mode, Box<Reply>> {
    let mut modes = Vec::new();
    if args.fg {
        modes.push(Mode::Foreground);
    }
    if args.dry_run {
        modes.push(Mode::DryRun);
    }
    if args.validate {
        modes.push(Mode::Validate);
    }
    if let Some(n) = args.step {
        modes.push(Mode::Step(n));
    }
    match (args.session, args.resume) {
        // A session's run resumed keeps its session's file and steps.
        (Some(n), _) => modes.push(Mode::Session(n)),
        (None, true) => modes.push(Mode::Resume),
        (None, false) => {}
    }
    match modes.as_slice() {
        [] => Ok(Mode::Execute),
        [one] => Ok(*one),
        _ => Err(Box::new(usage(
            "give at most one of --fg, --resume, --dry-run, --validate, --step N and --session N",
        ))),
    }
}

/// `path` as given from `here`.
fn absolute(here: &Path, path: &Path) -> PathBuf {
    here.join(path)
}

/// The plan path names a directory, FIFO, device or socket: what it is,
/// and what to give instead.
/// `project` is the project directory whose plan.md `path` is.
fn not_a_plan_file(path: &Path, kind: crate::input_file::Kind, project: Option<&Path>) -> Problem {
    let shown = path.display();
    let instead = if let Some(dir) = project {
        format!(
            "; a project's plan.md must be a file: move this one away, then draft the plan with /trekplan --project {} <what to build>",
            dir.display()
        )
    } else if kind == crate::input_file::Kind::Directory {
        let inner = path.join("plan.md");
        if inner.is_file() {
            format!(
                "; it holds a plan.md: give that file ({}), or the directory as a project (--project {shown})",
                inner.display()
            )
        } else {
            "; give the path of the plan's Markdown file inside it".to_owned()
        }
    } else {
        "; a plan is read from a regular file: give the path of the plan's Markdown file".to_owned()
    };
    Problem::new(
        crate::plan::code::PLAN_NOT_A_FILE,
        format!("{shown} is {}, not a plan file{instead}", kind.words()),
    )
}

/// Runs `trek start` from the directory `here`.
pub(super) fn start(here: &Path, args: &StartArgs) -> Reply {
    match start_inner(here, args) {
        Ok(reply) => reply,
        Err(problem) => stop::problem("start", &problem),
    }
}

fn start_inner(here: &Path, args: &StartArgs) -> Result<Reply, Problem> {
    let mode = match mode_of(args) {
        Ok(m) => m,
        Err(reply) => return Ok(*reply),
    };
    if matches!(mode, Mode::Step(0) | Mode::Session(0)) {
        return Ok(usage("--step and --session take a positive number"));
    }
    let project = args.project.as_deref().map(|dir| absolute(here, dir));
    let plan_path = match (&args.plan, &project) {
        (Some(p), _) => absolute(here, p),
        (None, Some(dir)) => {
            let plan = dir.join("plan.md");
            if let Err(crate::input_file::InputError::NotRegular(kind)) =
                crate::input_file::check(&plan)
            {
                return Err(not_a_plan_file(&plan, kind, Some(dir)));
            }
            if !plan.is_file() {
                let mut reply = Reply::new("start", Next::Stop, "usage")
                    .line(format!(
                        "Error: project directory missing plan.md: {}",
                        dir.display()
                    ))
                    .line(format!(
                        "Draft it with /trekplan --project {} <what to build>, then run /trekexecute --project {} again.",
                        dir.display(),
                        dir.display()
                    ));
                reply.exit = exit::CANNOT_CHECK;
                return Ok(reply);
            }
            plan
        }
        (None, None) => return Ok(usage("no plan given")),
    };
    // Looked at, not opened: a FIFO is never waited on. Anything but a
    // missing file is told by the reader (permissions and the like).
    match crate::input_file::check(&plan_path) {
        Err(crate::input_file::InputError::NotFound(_)) => {
            let mut reply = Reply::new("start", Next::Stop, "usage")
                .line(format!("Error: file not found: {}", plan_path.display()));
            reply.exit = exit::CANNOT_CHECK;
            return Ok(reply);
        }
        Err(crate::input_file::InputError::NotRegular(kind)) => {
            return Err(not_a_plan_file(&plan_path, kind, None));
        }
        _ => {}
    }
    let plan_arg = plan_path.display().to_string();
    let mut reply = Reply::new("start", Next::Stop, "in_progress")
        .line(format!("Mode: {}", mode.label()))
        .line(format!(
            "Project: {}",
            project
                .as_deref()
                .map_or("-".into(), |p| p.display().to_string())
        ))
        .line(format!("File: {plan_arg}"));
    reply.plan = Some(plan_arg.clone());

    // Phase 2.3 and Phase 5: report-only modes.
    if mode == Mode::Validate {
        return Ok(validate_only(reply, &plan_path, project.as_deref()));
    }
    if mode == Mode::DryRun {
        let checks = preflight::Preview {
            here,
            project: project.as_deref(),
            fresh: args.fresh,
            no_push: args.no_push,
            allow_dirty: args.allow_dirty,
            in_place: args.in_place,
        };
        let (text, code) = said::text_of(|out| {
            crate::plan::dry_run_report(
                &plan_path,
                false,
                &crate::criteria::Screening,
                &checks,
                out,
            )
        });
        reply.push_text(&text);
        reply.push("");
        reply.lines.extend(crate::wave::effects_for_dry_run(
            &plan_path,
            here,
            args.no_push,
            &if args.in_place {
                crate::wave::RunBranch::InPlace
            } else {
                crate::wave::RunBranch::FromCheckout
            },
        ));
        reply.status = if code == exit::OK { "ready" } else { "fail" }.into();
        reply.exit = code;
        return Ok(reply);
    }

    // A run resumed after its plan was edited goes on with the plan it
    // started with: its checks read that copy (the reply says the plan
    // changed once the progress file is found).
    let pinned = (mode == Mode::Resume)
        .then(|| crate::progress::progress_path(Some(&plan_path), project.as_deref(), args.session))
        .flatten()
        .and_then(|progress| context::resumed_copy(here, &plan_path, &progress));
    let content = pinned.as_deref().unwrap_or(&plan_path);
    let plan = context::load_plan(content)?;
    if plan.errors().next().is_some() {
        let (text, _) = said::text_of(|out| {
            crate::plan::validate_report(
                content,
                crate::problem::Format::Text,
                false,
                &crate::criteria::Screening,
                out,
            )
        });
        reply.push_text(&text);
        reply.push(format!(
            "The plan is not executable; fix it at the lines above, check it with /trekexecute --validate {} (in a terminal: {}), then run /trekexecute again.",
            crate::shell::quote(&plan_arg),
            crate::helper_call::call(&["plan", "validate", &plan_arg])
        ));
        reply.status = "fail".into();
        reply.exit = exit::NOT_OK;
        return Ok(reply);
    }
    // A session of a prepared wave runs in its worktree, on its copy of
    // the plan: anywhere else its progress file would land where the
    // wave's collect never looks. Refused before anything is written.
    if let Mode::Session(n) = mode
        && let Some(why) = crate::wave::session_misplaced(here, &plan_path, n)
    {
        // Checked and refused (exit 1), as every refusal of a start.
        let mut reply = stop::problem("start", &Problem::new(code::TREK_SESSION_PLACE, why));
        reply.exit = exit::NOT_OK;
        return Ok(reply);
    }
    // Git itself, before any call that needs it.
    let git = preflight::git_version(here, super::git_setup::MIN_VERSION, "a run");
    if preflight::said_by_start(git, &mut reply) {
        return Ok(stopped(reply));
    }
    // The criteria the run ends with, screened now as `criteria run` will
    // screen them: a refused one would fail the run after all its steps.
    // The work tree, asked of git once for the whole start.
    let tree = crate::git::WorkTree::of(here);
    let root = tree
        .as_ref()
        .map_or_else(|| here.to_path_buf(), |t| t.top.clone());
    let refused = crate::criteria::plan_problems(&plan, &root);
    if refused.iter().any(Problem::is_error) {
        for p in refused.iter().filter(|p| p.is_error()) {
            reply.push(format!(
                "error[{}]: {}:{}: {}",
                p.code,
                plan_arg,
                p.line.unwrap_or(0),
                p.message
            ));
        }
        reply.push("Nothing was started. Fix the criteria above, then run /trekexecute again.");
        reply.status = "fail".into();
        reply.exit = exit::NOT_OK;
        return Ok(reply);
    }
    reply.push(format!(
        "Type: {}",
        match plan.kind {
            PlanKind::SessionSpec => "session-spec",
            _ => "plan",
        }
    ));
    reply.push(format!("Steps: {}", plan.steps.len()));

    // The brief's sequencing gate (Composition rule).
    let brief = project.as_ref().map(|d| d.join("brief.md"));
    if let Some(brief) = brief.as_ref().filter(|b| b.is_file()) {
        // An unreadable brief is told here and stops the resolution below.
        let missing_signals = match crate::brief::load(brief) {
            Ok(b) => b
                .problems
                .iter()
                .any(|p| p.code == crate::brief::code::BRIEF_V51_MISSING_SIGNALS),
            Err(problem) => {
                said::passing_on(|| crate::problem::eprint_all(&[problem]));
                false
            }
        };
        if missing_signals {
            // Phase 3.5 belongs to /trekbrief, which this plugin does not
            // ship: the user adds the signals by hand.
            let shown = brief.display().to_string();
            reply.push(format!(
                "Brief {shown} is brief_version 2.1 or later but carries no phase_signals. Add them to its front matter (`phase_signals:` with an effort of low, standard or high per phase, e.g. `execute: {{effort: standard}}`), or `phase_signals_partial: true` to let the profile decide; check it with {}, then run /trekexecute again.",
                crate::helper_call::call(&["brief", "validate", &shown])
            ));
            return Ok(stopped(reply));
        }
    }

    // Profile and effort for the execute phase.
    let request = crate::profile::Request {
        phase: "execute",
        brief: brief.as_deref().filter(|b| b.is_file()),
        plan: Some(content),
        loaded: Some(&plan),
        choice: crate::profile::Choice::flag_or_env(args.profile.clone()),
    };
    let data_dir = crate::data_dir::resolve();
    let resolution = said::passing_on(|| {
        let resolved = crate::profile::resolve_phase(&request, data_dir.as_deref());
        match &resolved {
            Ok(r) => crate::problem::eprint_all(&r.warnings),
            Err(refused) => crate::problem::eprint_all(&refused.problems),
        }
        resolved
    });
    let resolution = match resolution {
        Ok(r) => r,
        Err(refused) => {
            reply.push("The profile or the brief could not be resolved (see the error above).");
            reply.status = "stopped".into();
            reply.exit = refused.code.max(exit::NOT_OK);
            return Ok(reply);
        }
    };
    let effort = resolution.effort.clone();
    let profile = Some(resolution.profile.name.clone());
    let profile_source = Some(resolution.profile.source.word().to_owned());
    reply.push(format!(
        "Profile: {} (effort {effort}, model {})",
        resolution.profile.name, resolution.model
    ));

    // Phase 2.4: the security scan, said whatever its outcome.
    let scan = preflight::security_scan(content, &plan);
    reply.push_text(&scan.detail);
    if scan.outcome == crate::plan::PreflightOutcome::Fail {
        return Ok(stopped(reply));
    }

    // The autonomy gates: the operator's flag against the brief's effort.
    let gate = crate::gate::GateArgs {
        state: "start".into(),
        event: "begin".into(),
        gates: args.gates.clone(),
        effort: Some(effort.clone()),
        no_record: false,
        json: true,
    };
    let gate =
        said::passing_on(|| crate::gate::decide(&gate, data_dir.as_deref())).map_err(|code| {
            Problem::new(
                code::TREK_INNER,
                format!("`gate` printed no JSON (exit {code}): "),
            )
        })?;
    let gates = gate.gates.to_string();

    reply.lines.extend(
        tree.as_ref()
            .and_then(|t| git_exclude::ensure(t, project.as_deref())),
    );

    // Phase 2.5: the strategy.
    let how = crate::plan::Invocation {
        fg: mode == Mode::Foreground,
        mode: mode.word(),
        effort: Some(&effort),
    };
    let strategy = crate::plan::decide(&plan, &how);
    // A session's run is one session of the plan's strategy, not a plan
    // run as a single session: say which.
    let session_of = match mode {
        Mode::Session(n) => plan.strategy.as_ref().and_then(|st| {
            let steps: Vec<String> = st.session(n)?.steps.iter().map(u32::to_string).collect();
            Some(format!(
                "Strategy: session {n} of a {}-session plan (steps {} only)",
                st.sessions.len(),
                steps.join(", ")
            ))
        }),
        _ => None,
    };
    reply.push(session_of.unwrap_or_else(|| strategy.line.clone()));
    if strategy.decision != crate::plan::StrategyDecision::Single {
        // The plan commit and every wave's merges are commits too.
        if let Some(t) = tree.as_ref().filter(|t| t.head.is_some())
            && preflight::said_by_start(preflight::identity(&t.top), &mut reply)
        {
            return Ok(stopped(reply));
        }
        return super::waves::run(
            here,
            reply,
            &plan_arg,
            project.as_deref(),
            args.no_push,
            args.in_place,
        );
    }

    let decided = Decided {
        start_sha: String::new(),
        // A session resumed keeps its file: `progress init --mode resume`.
        mode: if args.resume { "resume" } else { mode.word() }.into(),
        only_step: match mode {
            Mode::Step(n) => Some(n),
            _ => None,
        },
        session: match mode {
            Mode::Session(n) => Some(n),
            _ => None,
        },
        project: project.as_ref().map(|p| p.display().to_string()),
        gates,
        profile,
        profile_source,
        data_dir: crate::data_dir::named().map(|d| d.display().to_string()),
        plan_sha256: context::plan_digest(&plan_path),
        stop: None,
        run_id: Some(context::new_run_id()),
        branches: None,
    };
    // The plan read is the file's own unless a resumed run reads its
    // pinned copy: only then does the progress file's setup read the file.
    let live = pinned.is_none().then_some(&plan);
    let place = Place { here, tree };
    single_session(place, reply, args, &plan, live, &plan_path, decided)
}

/// `--validate`: the plan's schema report (and the project's progress
/// file's), nothing else. READY with the warnings listed; FAIL only on the
/// errors Phase 2.3 calls fatal.
fn validate_only(mut reply: Reply, plan: &Path, project: Option<&Path>) -> Reply {
    let (text, mut code) = said::text_of(|out| {
        crate::plan::validate_report(
            plan,
            crate::problem::Format::Text,
            false,
            &crate::criteria::Screening,
            out,
        )
    });
    reply.push_text(&text);
    if let Some(progress) = project
        .map(|d| d.join("progress.json"))
        .filter(|p| p.exists())
    {
        let (text, checked) =
            said::text_of(|out| crate::progress::validate_file(&progress).print(false, out));
        reply.push_text(&text);
        code = code.max(checked);
    }
    reply.status = if code == exit::OK { "ready" } else { "fail" }.into();
    reply.exit = code;
    reply
}

/// Where a start runs: the directory it was called from, and the git work
/// tree holding it (asked of git once per start).
struct Place<'a> {
    here: &'a Path,
    tree: Option<crate::git::WorkTree>,
}

/// Phases 3 and 4 on the single-session path: the progress file, the
/// entry condition, the run marker, and the first step.
fn single_session(
    place: Place<'_>,
    mut reply: Reply,
    args: &StartArgs,
    plan: &crate::plan::Plan,
    live: Option<&crate::plan::Plan>,
    plan_path: &Path,
    mut decided: Decided,
) -> Result<Reply, Problem> {
    let Place { here, tree } = place;
    // The plan file's sha256 as this call read it (a resumed run's pinned
    // one replaces it in `decided` below).
    let plan_now = decided.plan_sha256.clone();
    let (root, head) = preflight::repository(here, tree)?;
    // The pre-flight checks, each as the dry-run previews it (the clean
    // step Files come below, once an earlier run's record is settled).
    let places = super::git_setup::Places::of(&root);
    for row in [
        preflight::detached(places.as_ref(), &head),
        preflight::other_repository(plan, &root),
        preflight::git_locks(places.as_ref()),
        preflight::build_output(&root),
        preflight::identity(&root),
    ] {
        if preflight::said_by_start(row, &mut reply) {
            return Ok(stopped(reply));
        }
    }
    reply
        .lines
        .extend(places.as_ref().and_then(|p| message_hook_warning(plan, p)));
    let location = run_marker::locate(&root).ok_or_else(|| {
        Problem::new(code::TREK_NOT_A_REPO, "the work tree's .git cannot be read")
    })?;
    // One start at a time in a work tree: two starts at once would each
    // find no live run and each write their marker. The lock goes when
    // this call returns.
    let _one_start = hold_start_lock(&location.marker)?;
    // A link where the marker goes is refused before anything is written
    // (the marker's own write would refuse it too, after the progress file).
    if std::fs::symlink_metadata(&location.marker).is_ok_and(|m| m.file_type().is_symlink()) {
        let shown = location.marker.display();
        return Err(Problem::new(
            code::TREK_MARKER,
            format!(
                "the run marker {shown} is a symbolic link; Voyage never writes its own files through a link. If you did not make it on purpose, remove it (rm {shown}) and run the call again"
            ),
        ));
    }
    // A call killed mid-write left its temporary files: gone now.
    crate::atomic_file::sweep_dead_writers(&location.marker);
    let previous = run_marker::read(&location.marker).ok().flatten();
    let in_progress = preflight::live_run(
        previous.as_ref(),
        plan_path,
        matches!(decided.mode.as_str(), "resume" | "step"),
        args.fresh,
        &start_again(args, &plan_path.display().to_string()),
    );
    match in_progress.outcome {
        crate::plan::PreflightOutcome::Pass => {}
        crate::plan::PreflightOutcome::Warn => reply.push_text(&in_progress.detail),
        // The refusal stands alone: the run it names is the news.
        crate::plan::PreflightOutcome::Fail => {
            let mut stopped = Reply::new("start", Next::Stop, "stopped");
            stopped.push_text(&in_progress.detail);
            stopped.exit = exit::NOT_OK;
            return Ok(stopped);
        }
    }

    // Phase 3: the progress file; an earlier run's is never replaced
    // silently.
    let plan_arg = plan_path.display().to_string();
    // An earlier run's branches, read before its progress file is put
    // aside: a fresh start on its run branch takes the branch over.
    let mut earlier = None;
    if !matches!(decided.mode.as_str(), "resume" | "step") {
        let project = decided.project.as_deref().map(Path::new);
        if let Some(old) = crate::progress::progress_path(Some(plan_path), project, decided.session)
        {
            earlier = context::read_decided(&old).ok().and_then(|d| d.branches);
            let again = start_again(args, &plan_arg);
            match super::existing::before_fresh_start(&old, args.fresh, &again) {
                super::existing::Existing::Proceed(lines) => reply.lines.extend(lines),
                super::existing::Existing::Refuse(lines) => {
                    reply.lines.extend(lines);
                    return Ok(stopped(reply));
                }
            }
        }
    }
    // --resume needs a run to resume: a missing or unreadable progress
    // file is never quietly replaced by a new run.
    if decided.mode == "resume"
        && let Some(path) = crate::progress::progress_path(
            Some(plan_path),
            decided.project.as_deref().map(Path::new),
            decided.session,
        )
        && let Some(lines) =
            nothing_to_resume(&path, previous.as_ref(), &start_again(args, &plan_arg))
    {
        reply.lines.extend(lines);
        return Ok(stopped(reply));
    }
    // The user's own uncommitted edits in a step's Files: a failed step's
    // revert restores those Files from HEAD, so they are named before
    // anything is written, and the choice is the user's.
    if decided.mode != "resume" {
        let clean = preflight::step_files_clean(plan, &root, args.allow_dirty)?;
        if preflight::said_by_start(clean, &mut reply) {
            return Ok(stopped(reply));
        }
    }
    // The run branch, made before the progress file so that its first
    // write records it: a new run only, never a session's (its worktree's
    // branch is the session's) nor one that goes on with its own file.
    let goes_on = match decided.mode.as_str() {
        "resume" => true,
        "step" => crate::progress::progress_path(
            Some(plan_path),
            decided.project.as_deref().map(Path::new),
            decided.session,
        )
        .is_some_and(|p| p.exists()),
        _ => false,
    };
    if !goes_on && decided.session.is_none() {
        let again = format!("/trekexecute --resume {}", start_again(args, &plan_arg));
        match new_run_branch(&root, plan_path, args.in_place, earlier, &again) {
            Ok(begun) => {
                reply.push(begun.line);
                decided.branches = begun.branches;
            }
            Err(lines) => {
                reply.lines.extend(lines);
                return Ok(stopped(reply));
            }
        }
    }
    let request = crate::progress::InitRequest {
        locate: crate::progress::Locate {
            file: None,
            plan: Some(plan_path.to_path_buf()),
            project: decided.project.as_ref().map(PathBuf::from),
            session: decided.session,
        },
        mode: decided.mode.clone(),
        loaded: live,
        // A fresh file carries the decisions from its first write; a kept
        // one gets them below, merged with what it holds.
        extra: Some((
            context::KEY,
            serde_json::to_value(Decided {
                start_sha: head.clone(),
                ..decided.clone()
            })
            .unwrap_or_default(),
        )),
    };
    let budget = crate::progress::budget_from_env();
    let init = said::passing_on(|| {
        let done = crate::progress::initialize(&request, &budget);
        done.eprint();
        done
    });
    let Some(init_reply) = init.reply() else {
        return Err(Problem::new(
            code::TREK_INNER,
            format!("`progress init` printed no JSON (exit {}): ", init.code()),
        ));
    };
    let progress = absolute(here, Path::new(&init_reply.path));
    crate::atomic_file::sweep_dead_writers(&progress);
    if let crate::progress::Initialized::Refused { code, problem, .. } = &init {
        reply.push(format!(
            "The progress file {} cannot be used: {}",
            progress.display(),
            problem.message
        ));
        reply.status = "stopped".into();
        reply.exit = *code;
        return Ok(reply);
    }
    reply.progress = Some(progress.display().to_string());
    let kept =
        matches!(decided.mode.as_str(), "resume" | "step") && init_reply.previous_status.is_some();
    let previous_status = init_reply.previous_status.clone().unwrap_or_default();
    if kept && previous_status == "completed" {
        return Ok(completed_already(
            reply,
            &progress,
            &location.marker,
            (plan_path, plan),
        ));
    }
    if kept
        && let Some(branches) = context::read_decided(&progress)
            .ok()
            .and_then(|d| d.branches)
    {
        // Steps never run on the branch the run started from: a checkout
        // left there (after a decline, say) goes back to the run branch,
        // unless a confirm cut short merged the run into it already.
        let confirmed = context::load_progress(&progress).is_ok_and(|p| {
            p.extra
                .get("main_merge_gate")
                .and_then(|g| g.get("status"))
                .and_then(|s| s.as_str())
                == Some("confirmed")
        });
        let again = format!("/trekexecute --resume {}", start_again(args, &plan_arg));
        match super::run_branch::ensure_on(&root, &branches, confirmed, &again) {
            Ok(line) => reply.lines.extend(line),
            Err(lines) => {
                reply.lines.extend(lines);
                return Ok(stopped(reply));
            }
        }
    }
    if kept {
        // The run goes on: a stopped or failed run is in progress again.
        // The report's Mode: says how this run was last started.
        let resumed = decided.mode == "resume";
        // A run that had ended starts a new ending: the last one's gate
        // answer (a decline) is asked again when the run gets there.
        let reopened = previous_status != "in_progress";
        crate::progress::edit(&progress, |p| {
            p.status = crate::progress::RunStatus::InProgress;
            if resumed {
                p.mode = "resume".into();
            }
            if reopened {
                p.extra.remove("main_merge_gate");
            }
        })?;
        let before = context::read_decided(&progress).unwrap_or_default();
        decided.start_sha = before.start_sha;
        decided.branches = before.branches;
        decided.data_dir = decided.data_dir.take().or(before.data_dir);
        // A resumed run stays pinned to the plan it started with.
        if before.plan_sha256.is_some() {
            decided.plan_sha256 = before.plan_sha256;
        }
        // A run cut short goes on as the same run; one that had ended
        // (failed, stopped, partial) ends again as a new one.
        if previous_status == "in_progress" && before.run_id.is_some() {
            decided.run_id = before.run_id;
        }
    }
    if decided.start_sha.is_empty() {
        decided.start_sha = head;
    }
    if kept {
        context::write_decided(&progress, &decided)?;
    }
    let git_dir = location.marker.parent().unwrap_or(&root);
    if let Some(sha) = &decided.plan_sha256 {
        context::pin_plan(git_dir, plan_path, sha)?;
    }
    if let Some(line) = context::plan_change(&decided, plan_path, plan_now, &progress, git_dir) {
        reply.push(line);
    }
    let total = init_reply.total_steps;
    reply.push(if kept {
        format!(
            "Progress: {} (kept, {}/{total} steps completed)",
            progress.display(),
            init_reply.completed_steps
        )
    } else {
        format!("Progress: {} ({total} steps pending)", progress.display())
    });

    reply.push(scope_line(&crate::fence::support()));

    // The scope fence: a session spec's, or the session's in the strategy.
    let (touch, never_touch) = scope_fence(plan, decided.session);
    let marker = RunMarker {
        schema_version: run_marker::SCHEMA_VERSION,
        plan: plan_arg.clone(),
        progress: progress.display().to_string(),
        repo_root: root.display().to_string(),
        step: None,
        files: Vec::new(),
        memory_write: false,
        build_dirs: Vec::new(),
        touch,
        never_touch,
        started_at: crate::clock::UtcTime::now().rfc3339(),
        step_start_sha: None,
        checkpoint: None,
    };

    let mut marker = marker;
    if kept && let Some(old) = previous.filter(|old| Path::new(&old.plan) == plan_path) {
        carry_step(&mut marker, old, &progress);
    }

    // Phase 4: the entry condition (session specs).
    if plan.kind == PlanKind::SessionSpec {
        let request = crate::criteria::Request {
            plan: plan_path,
            loaded: live,
            cwd: Some(&root),
            timeout: std::time::Duration::from_secs(crate::criteria::DEFAULT_TIMEOUT_SECS),
            record: Some(&progress),
        };
        let (found, _) = said::passing_on(|| crate::criteria::check_entry(&request));
        let condition = found.condition.clone().unwrap_or_default();
        use crate::criteria::EntryStatus;
        let verdict = match (found.status, args.entry) {
            (EntryStatus::Pass | EntryStatus::NotApplicable, _) => Ok(()),
            (EntryStatus::Fail, _) | (_, Some(EntryJudgement::Unmet)) => Err(found.reason.clone()),
            (_, Some(EntryJudgement::Met)) => {
                crate::progress::edit(&progress, |p| p.entry_condition_checked = true)?;
                Ok(())
            }
            _ => {
                reply.push(format!("Entry condition: UNDECIDED: {condition}"));
                reply.push(format!("Reason: {}", found.reason));
                reply.next = Next::JudgeEntry;
                reply.status = "in_progress".into();
                return Ok(reply);
            }
        };
        if let Err(why) = verdict {
            reply.push(format!("Entry condition FAILED: {condition}"));
            reply.push(format!("Reason: {why}"));
            reply.push("Complete the prerequisite first, then re-run.");
            stop::early(
                &location.marker,
                &progress,
                decided.project.as_deref(),
                "stopped",
                &mut reply,
            );
            return Ok(stopped(reply));
        }
        reply.push("Entry condition: PASS");
    }

    context::save_marker(&location.marker, &marker)?;
    // A fresh file is the one just written (the entry check records no
    // step); a kept one is read again.
    let next = match &init {
        crate::progress::Initialized::Written { written, .. } => {
            super::step::next_open(written, decided.only_step)
        }
        _ => super::step::next_step(&progress, decided.only_step)?,
    };
    reply.status = "in_progress".into();
    match next {
        Some(n) => {
            reply.next = Next::BeginStep;
            reply.step = Some(n);
        }
        None => {
            reply.push("Every step is already completed.");
            reply.next = Next::Finish;
        }
    }
    Ok(reply)
}

/// The run branch of a new single-session run in `root`, or the line that
/// says the run goes in place (`--in-place`, a plan outside the work tree,
/// a detached HEAD). `again`: the call that resumes an earlier run.
fn new_run_branch(
    root: &Path,
    plan: &Path,
    in_place: bool,
    earlier: Option<super::run_branch::Branches>,
    again: &str,
) -> Result<super::run_branch::Begun, Vec<String>> {
    // Asked of git only for a run in place: `begin` asks it itself.
    let here = |why: &str| {
        let branch = crate::git::run(root, &["symbolic-ref", "-q", "--short", "HEAD"])
            .ok()
            .filter(crate::git::Output::ok)
            .map_or_else(|| "HEAD".to_owned(), |o| o.text().trim().to_owned());
        super::run_branch::Begun {
            branches: None,
            line: format!("Run branch: none ({why}): the checkpoints land on {branch}"),
        }
    };
    if in_place {
        return Ok(here("--in-place"));
    }
    match crate::orders::Layout::new(root, plan, None) {
        Ok(layout) => super::run_branch::begin(root, &layout.run_branch(), earlier, again),
        Err(_) => Ok(here("the plan is outside the work tree")),
    }
}

/// Why `--resume` has nothing to resume from `progress`, with the ways
/// on; `None` when the file is there and can be read. `live` is the run
/// marker found, which tells whether the file went missing mid-run.
fn nothing_to_resume(
    progress: &Path,
    live: Option<&RunMarker>,
    again: &str,
) -> Option<Vec<String>> {
    let shown = progress.display();
    let was_live = live.is_some_and(|m| Path::new(&m.progress) == progress);
    if std::fs::symlink_metadata(progress).is_err() {
        let first = if was_live {
            format!(
                "Error: the progress file {shown} of the run in progress is gone, so the run cannot be resumed: its record of which steps are done is lost."
            )
        } else {
            format!(
                "Error: there is no progress file {shown}, so there is no run of this plan to resume."
            )
        };
        return Some(vec![
            first,
            "If you have a copy of it, put it back and resume again.".to_owned(),
            format!("To start the plan from its first step instead: /trekexecute --fresh {again}"),
        ]);
    }
    let why = crate::progress::load(progress)
        .err()?
        .problems
        .first()
        .map_or_else(|| "it cannot be read".to_owned(), |p| p.message.clone());
    Some(vec![
        format!(
            "Error: the progress file {shown} cannot be read ({why}), so the run cannot be resumed from it."
        ),
        "Restore it (from a backup, or fix the JSON) and resume again.".to_owned(),
        format!(
            "To start over instead (the file is kept beside it first): /trekexecute --fresh {again}"
        ),
    ])
}

/// Takes the work tree's start lock, `voyage-start.flock` beside the run
/// marker (never through a link), waiting for a start running now.
fn hold_start_lock(marker: &Path) -> Result<std::fs::File, Problem> {
    let path = marker.with_file_name("voyage-start.flock");
    let file = crate::own_file::open(&path, std::fs::OpenOptions::new().write(true).create(true))
        .map_err(|e| {
        Problem::new(
            code::TREK_MARKER,
            format!("cannot open the start lock {}: {e}", path.display()),
        )
    })?;
    file.lock().map_err(|e| {
        Problem::new(
            code::TREK_MARKER,
            format!("cannot lock {}: {e}", path.display()),
        )
    })?;
    Ok(file)
}

/// A start that stops after the lines already in `reply` (why, and what
/// to do): nothing of the run was written.
fn stopped(mut reply: Reply) -> Reply {
    reply.status = "stopped".into();
    reply.exit = exit::NOT_OK;
    reply
}

/// A resumed run whose session stopped in the middle of a step keeps that
/// step's place in the marker (its Files and the commit it began from), so
/// that `trek step-begin` goes on with the same attempt and the scope audit
/// still measures from where the step began.
fn carry_step(marker: &mut RunMarker, old: RunMarker, progress: &Path) {
    let Some(n) = old.step else {
        return;
    };
    let in_progress = context::load_progress(progress).is_ok_and(|file| {
        file.steps
            .iter()
            .any(|(k, r)| k.0 == n && r.status == crate::progress::StepStatus::InProgress)
    });
    if in_progress {
        marker.step = Some(n);
        marker.files = old.files;
        marker.memory_write = old.memory_write;
        marker.build_dirs = old.build_dirs;
        marker.step_start_sha = old.step_start_sha;
    }
    // A checkpoint under way is settled by the next step call.
    marker.checkpoint = old.checkpoint;
}

/// `--resume` on a run that completed: nothing to resume, and nothing is
/// changed. Only a finish cut short (its marker still there, or its stats
/// record not written) is sent to `trek finish`, which completes it.
fn completed_already(
    mut reply: Reply,
    progress: &Path,
    marker: &Path,
    (plan_path, plan): (&Path, &crate::plan::Plan),
) -> Reply {
    let file = context::load_progress(progress).ok();
    let decided = context::read_decided(progress).unwrap_or_default();
    let (done, total, at) = file.as_ref().map_or((0, 0, String::new()), |p| {
        let t = p.tally();
        (t.completed + t.skipped, t.total, p.updated_at.clone())
    });
    reply.push(format!(
        "The run of this plan is completed ({done}/{total} steps, finished {at}): there is nothing to resume, and nothing was changed. To run the plan again from the start: --fresh."
    ));
    let finish_left = marker.exists()
        || decided
            .run_id
            .as_deref()
            .is_some_and(|id| !crate::stats::already_written(crate::stats::EVENT_KIND, id, None));
    reply.status = "completed".into();
    // Its report again, as the finish showed it: a session that died
    // right after the finish never saw it.
    let budget = crate::progress::budget_from_env();
    if let Ok(built) =
        said::passing_on(|| crate::report::build(progress, Some(plan_path), Some(plan), &budget))
    {
        reply.report = Some(built.brief_text(&crate::report::full_call(progress, plan_path)));
    }
    if finish_left {
        reply.push("Its finish was cut short: `trek finish` completes it (what it already wrote is not written again).");
        reply.next = Next::Finish;
    }
    reply
}

/// The arguments that name this run again: `--project DIR` or the plan,
/// with `--session N`.
fn start_again(args: &StartArgs, plan: &str) -> String {
    let mut out = match &args.project {
        Some(dir) => format!(
            "--project {}",
            crate::shell::quote(&dir.display().to_string())
        ),
        None => crate::shell::quote(plan),
    };
    if let Some(n) = args.session {
        out = format!("--session {n} {out}");
    }
    out
}

/// The Touch and Never-touch lists the run is held to.
fn scope_fence(plan: &crate::plan::Plan, session: Option<u32>) -> (Vec<String>, Vec<String>) {
    if let Some(spec) = &plan.session {
        return (spec.touch.clone(), spec.never_touch.clone());
    }
    if let (Some(n), Some(strategy)) = (session, &plan.strategy)
        && let Some(s) = strategy.sessions.iter().find(|s| s.number == n)
    {
        return (s.touch.clone(), s.never_touch.clone());
    }
    (Vec::new(), Vec::new())
}

/// A hook of the repository that may change a checkpoint's message, when
/// the plan's manifests hold its commits to patterns: said before the
/// first step, with what the run does about a rewritten subject.
fn message_hook_warning(
    plan: &crate::plan::Plan,
    places: &super::git_setup::Places,
) -> Option<String> {
    let patterns = plan.steps.iter().any(|s| {
        s.manifest
            .as_ref()
            .is_some_and(|m| !m.commit_message_pattern.is_empty())
    });
    let hooks = super::git_setup::message_hooks(places);
    (patterns && !hooks.is_empty()).then(|| {
        format!(
            "warning: {} may change the checkpoints' messages, and the plan holds them to its commit_message_pattern. A subject the hook rewrites so that it no longer matches is said at its step and accepted by the run's audit as an advisory when the plan's own `git commit -m \"…\"` message matches; any other mismatch is drift that ends the run partial.",
            super::git_setup::hooks_named(&hooks)
        )
    })
}

/// How the run's scope is held on this machine, said once at the start:
/// by the kernel, or only judged from the text of each command (`scope
/// status` says why, at length).
fn scope_line(support: &crate::fence::Support) -> String {
    if support.holds() {
        format!(
            "Scope: held by the kernel (Landlock ABI {}); `voyage-helper scope status` shows what is open",
            support.abi
        )
    } else {
        "Scope: judged from each command's text, not held by the kernel (`voyage-helper scope status` says why)".to_owned()
    }
}
