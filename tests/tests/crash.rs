//! Crash-safe runs (issue 26): a `trek` call killed at any of its kill
//! points, then the user's recovery, still ends the run right.
//!
//! A four-step plan (the first four steps of `examples/trek/calculator.md`)
//! runs through the release helper built with the `fault-injection` feature
//! ([`voyage_tests::faulty_helper`], core/src/fault.rs) in a temp git
//! repository, driven by a stand-in agent that does exactly what each
//! `NEXT:` line says (commands/trekexecute.md). A clean run, traced with
//! `VOYAGE_FAULT_TRACE`, lists the kill points of each of its calls. Then,
//! for a kill point K of the i-th call, the run is made again from scratch
//! with `VOYAGE_FAULT=kill:K` on that call alone: the helper sends itself
//! SIGKILL there, as when the user's session dies. The user recovers the
//! way the command lets them: `trek start --resume PLAN` and the `NEXT:`
//! chain; if that is refused, `trek release`, then `--resume` again. The
//! run must then end as the clean one does (see [`Run::broken`]).
//!
//! The sweep is bounded by default (the first, middle and last point of
//! every call, and every point of `step-done 2` and of `finish --gate
//! confirm`); `VOYAGE_CRASH_SWEEP=full` kills at every point of every call.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tempfile::TempDir;
use voyage_tests::repo::{commit_all, git, init, write};
use voyage_tests::{faulty_helper, repo_root};

/// The plan, relative to the repository.
const PLAN: &str = "plans/plan.md";
const PROGRESS: &str = "plans/.trekexecute-progress-plan.json";
const MARKER: &str = ".git/voyage-run.json";
const STATS: &str = "trekexecute-stats.jsonl";
/// What the atomic writer's temporary files have in their names.
const TEMP_MARK: &str = ".voyage-tmp.";

/// What the stand-in agent writes for each step (operator, shell
/// arithmetic, the result on 6 and 3), as the calculator's Changes say.
const STEPS: [(&str, &str, &str); 4] = [
    ("add", "$(($1+$2))", "9"),
    ("sub", "$(($1-$2))", "3"),
    ("mul", "$(($1*$2))", "18"),
    ("div", "$(($1/$2))", "2"),
];

/// More calls than this in one chain is a loop.
const CHAIN_LIMIT: usize = 40;

/// The calculator cut to its first four steps, Verification kept.
fn plan() -> String {
    let text = fs::read_to_string(repo_root().join("examples/trek/calculator.md")).unwrap();
    let cut = text.find("### Step 5").unwrap();
    let verification = text.find("## Verification").unwrap();
    let plan = format!("{}{}", &text[..cut], &text[verification..]);
    assert_eq!(plan.matches("\n### Step ").count(), 4, "{plan}");
    plan
}

/// The subject of step `n`'s checkpoint commit (1-based).
fn subject(n: usize) -> String {
    format!("feat(calc): add {}", STEPS[n - 1].0)
}

/// One `trek` call as the run made it.
#[derive(Debug, Clone)]
struct Reply {
    args: Vec<String>,
    /// Ended by SIGKILL: the injected crash.
    killed: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Reply {
    fn call(&self) -> String {
        format!("trek {}", self.args.join(" "))
    }

    /// What the user reads of a call that went wrong: its first lines.
    fn said(&self) -> String {
        let text = format!("{}{}", self.stdout, self.stderr);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let mut shown = lines
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(" / ");
        if lines.len() > 3 {
            shown.push_str(" / …");
        }
        shown
    }
}

/// What the agent does next, read from a reply's `NEXT:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    /// Run this call (`trek` and its arguments).
    Call(Vec<String>),
    /// Write step N's files, then run the call.
    Implement(usize, Vec<String>),
    Stop,
    /// A `NEXT:` the stand-in cannot follow, or none.
    Unknown(String),
}

/// The `NEXT:` line of `stdout`, as commands/trekexecute.md tells the agent
/// to follow it. The main-merge question is answered "Confirm"; the line
/// for an operator (nobody to ask in the session) is run as the operator
/// would, since the run is not over until it is answered.
fn next_of(stdout: &str) -> Next {
    let Some(line) = stdout.lines().rev().find_map(|l| l.strip_prefix("NEXT: ")) else {
        return Next::Unknown("no NEXT: line".to_owned());
    };
    // The call a line names after `after` (up to the next " — "), without
    // the program and the operator's `cd DIR &&` before it.
    let named = |after: &str| -> Option<Vec<String>> {
        let (_, call) = line.split_once(after)?;
        let call = call.split(" — ").next().unwrap_or(call);
        let call = call.split_once(" && ").map_or(call, |(_, c)| c);
        let mut words: Vec<String> = call.split_whitespace().map(str::to_owned).collect();
        if words
            .first()
            .is_some_and(|w| w.trim_matches('\'').ends_with("voyage-helper"))
        {
            words.remove(0);
        }
        (words.first().map(String::as_str) == Some("trek")).then(|| words.split_off(1))
    };
    if let Some(n) = line.strip_prefix("trek step-begin ") {
        return match n.trim().parse::<usize>() {
            Ok(_) => Next::Call(vec!["step-begin".to_owned(), n.trim().to_owned()]),
            Err(_) => Next::Unknown(line.to_owned()),
        };
    }
    if line == "trek finish" {
        return Next::Call(vec!["finish".to_owned()]);
    }
    if let Some(rest) = line.strip_prefix("implement step ") {
        let n = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        return match (n, named("then: ")) {
            (Some(n), Some(call)) if (1..=STEPS.len()).contains(&n) => Next::Implement(n, call),
            _ => Next::Unknown(line.to_owned()),
        };
    }
    if line.starts_with("ask the question above")
        || line.starts_with("stop — do not answer the main-merge gate")
    {
        return named("— Confirm: ").map_or_else(|| Next::Unknown(line.to_owned()), Next::Call);
    }
    if line.starts_with("stop") {
        return Next::Stop;
    }
    Next::Unknown(line.to_owned())
}

/// How a chain of calls ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    /// `NEXT: stop`.
    Stopped,
    /// The injected kill.
    Killed,
    /// A reply the stand-in cannot follow.
    Stuck(String),
    Looped,
}

/// A fault to inject: `VOYAGE_FAULT=kill:point` on the `call`-th call of
/// the run (both 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Fault {
    call: usize,
    point: usize,
}

/// One run of the plan in a repository of its own.
struct Run {
    helper: PathBuf,
    repo: TempDir,
    /// HOME, the data dir and the traces: outside the repository.
    home: TempDir,
    replies: Vec<Reply>,
    /// What the user had to do besides the `NEXT:` chain.
    notes: Vec<String>,
}

impl Run {
    fn new(helper: &Path, plan: &str) -> Self {
        let repo = tempfile::tempdir().unwrap();
        init(repo.path());
        write(repo.path(), &[(PLAN, plan), ("README.md", "# calc\n")]);
        commit_all(repo.path(), "init");
        Self {
            helper: helper.to_path_buf(),
            repo,
            home: tempfile::tempdir().unwrap(),
            replies: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn dir(&self) -> &Path {
        self.repo.path()
    }

    fn data(&self) -> PathBuf {
        self.home.path().join("data")
    }

    /// Where the `n`-th call's kill points are listed.
    fn trace(&self, n: usize) -> PathBuf {
        self.home.path().join(format!("trace-{n}"))
    }

    /// The kill points the `n`-th call reached, in order.
    fn points(&self, n: usize) -> Vec<String> {
        fs::read_to_string(self.trace(n))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `voyage-helper trek ARGS` in the repository, as the agent runs it
    /// (nothing of the host's Voyage or Claude Code environment), traced;
    /// with `VOYAGE_FAULT=kill:K` when `kill` is given.
    fn call(&mut self, args: &[String], kill: Option<usize>) -> Reply {
        let n = self.replies.len() + 1;
        let mut cmd = Command::new(&self.helper);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            let read = [
                "VOYAGE_",
                "CLAUDE",
                "EXECUTANT_",
                "TREKEXECUTE_",
                "OTEL_",
                "GIT_",
            ];
            if key == "TRACEPARENT" || read.iter().any(|p| key.starts_with(p)) {
                cmd.env_remove(&*key);
            }
        }
        cmd.arg("trek")
            .args(args)
            .current_dir(self.dir())
            .env("PWD", self.dir())
            .env("HOME", self.home.path())
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("VOYAGE_FAULT_TRACE", self.trace(n))
            .stdin(Stdio::null());
        if let Some(k) = kill {
            cmd.env("VOYAGE_FAULT", format!("kill:{k}"));
        }
        let out = cmd.output().unwrap();
        let reply = Reply {
            args: args.to_vec(),
            killed: out.status.signal() == Some(9),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        self.replies.push(reply.clone());
        reply
    }

    /// The agent's work on step `n`: its two files, written whole.
    fn implement(&self, n: usize) {
        let (op, expr, want) = STEPS[n - 1];
        let script = format!("#!/usr/bin/env bash\necho \"{expr}\"\n");
        let test =
            format!("#!/usr/bin/env bash\nset -e\ntest \"$(bash bin/{op}.sh 6 3)\" = \"{want}\"\n");
        let (bin, tests) = (format!("bin/{op}.sh"), format!("tests/{op}.sh"));
        write(self.dir(), &[(&bin, &script), (&tests, &test)]);
    }

    /// Runs `first`, then whatever each reply's `NEXT:` names, until a stop
    /// (or a kill: `fault` when it is given).
    fn chain(&mut self, first: Vec<String>, fault: Option<Fault>) -> End {
        let mut args = first;
        for _ in 0..CHAIN_LIMIT {
            let n = self.replies.len() + 1;
            let kill = fault.filter(|f| f.call == n).map(|f| f.point);
            let reply = self.call(&args, kill);
            if reply.killed {
                return End::Killed;
            }
            match next_of(&reply.stdout) {
                Next::Call(call) => args = call,
                Next::Implement(step, call) => {
                    self.implement(step);
                    args = call;
                }
                Next::Stop => return End::Stopped,
                Next::Unknown(what) => {
                    return End::Stuck(format!("{}: {what}: {}", reply.call(), reply.said()));
                }
            }
        }
        End::Looped
    }

    fn start(&mut self, fault: Option<Fault>) -> End {
        self.chain(words(&["start", PLAN]), fault)
    }

    /// The user's recovery after the crash: `--resume` and its chain; when
    /// that is refused (a stop with an error, a run left open, a reply the
    /// agent cannot follow), `trek release` and `--resume` once more.
    fn recover(&mut self) {
        let resume = words(&["start", "--resume", PLAN]);
        let end = self.chain(resume.clone(), None);
        let Some(refused) = self.refused(&end) else {
            return;
        };
        // Killed before its progress file was written, the run has nothing
        // to resume: the reply says so and names --fresh, which the user
        // then gives.
        if self
            .replies
            .last()
            .is_some_and(|r| r.stdout.contains("no progress file"))
        {
            let fresh = words(&["start", "--fresh", PLAN]);
            let end = self.chain(fresh, None);
            if let Some(refused) = self.refused(&end) {
                self.notes.push(format!("fresh start refused ({refused})"));
            }
            return;
        }
        self.notes.push(format!("resume refused ({refused})"));
        let released = self.call(&words(&["release"]), None);
        if released.code != Some(0) {
            self.notes
                .push(format!("trek release refused: {}", released.said()));
        }
        let end = self.chain(resume, None);
        if let Some(refused) = self.refused(&end) {
            self.notes
                .push(format!("resume after release refused ({refused})"));
        }
    }

    /// Why the chain that ended with `end` did not end the run, if it did not.
    fn refused(&self, end: &End) -> Option<String> {
        let last = self.replies.last()?;
        match end {
            End::Stuck(what) => Some(what.clone()),
            End::Looped => Some(format!("more than {CHAIN_LIMIT} calls")),
            End::Killed => Some("killed".to_owned()),
            End::Stopped if last.code != Some(0) => Some(format!(
                "{} exited {:?}: {}",
                last.call(),
                last.code,
                last.said()
            )),
            End::Stopped if self.dir().join(MARKER).exists() => Some(format!(
                "{} stopped with the run marker left: {}",
                last.call(),
                last.said()
            )),
            End::Stopped => None,
        }
    }

    /// The commits after `init`, oldest first: (sha, subject).
    fn commits(&self) -> Vec<(String, String)> {
        git(
            self.dir(),
            &["log", "--reverse", "--format=%H%x1f%s", "HEAD"],
        )
        .lines()
        .filter_map(|l| l.split_once('\x1f'))
        .map(|(sha, s)| (sha.to_owned(), s.to_owned()))
        .filter(|(_, s)| s != "init")
        .collect()
    }

    /// Every invariant the run breaks: (kind, detail). Empty when it ended
    /// as a clean run ends.
    fn broken(&self) -> Vec<(&'static str, String)> {
        let mut broken = Vec::new();
        // One commit per committing step, and nothing else.
        let commits = self.commits();
        let mut sha_of = BTreeMap::new();
        for n in 1..=STEPS.len() {
            let made: Vec<&(String, String)> =
                commits.iter().filter(|(_, s)| *s == subject(n)).collect();
            match made.as_slice() {
                [(sha, _)] => {
                    sha_of.insert(n, sha.clone());
                }
                _ => broken.push((
                    "commits per step",
                    format!("step {n}: {} commits", made.len()),
                )),
            }
        }
        for (_, s) in &commits {
            if !(1..=STEPS.len()).any(|n| *s == subject(n)) {
                broken.push(("unexpected commit", s.clone()));
            }
        }
        // The progress file agrees with git and says completed.
        match fs::read_to_string(self.dir().join(PROGRESS))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        {
            None => broken.push((
                "progress",
                "the progress file is missing or unreadable".into(),
            )),
            Some(progress) => {
                let status = progress["status"].as_str().unwrap_or("?");
                if status != "completed" {
                    broken.push(("progress result", format!("status {status}")));
                }
                for n in 1..=STEPS.len() {
                    let recorded = progress["steps"][n.to_string()]["commit"].as_str();
                    let real = sha_of.get(&n).map(String::as_str);
                    if recorded != real {
                        broken.push((
                            "progress commit",
                            format!("step {n}: progress {recorded:?}, git {real:?}"),
                        ));
                    }
                }
            }
        }
        broken.extend(self.report_broken(&sha_of));
        broken.extend(self.stats_broken());
        if self.dir().join(MARKER).exists() {
            broken.push(("run marker", format!("{MARKER} left")));
        }
        let mut temps = Vec::new();
        for root in [self.dir().to_path_buf(), self.data()] {
            temp_files(&root, &root, &mut temps);
        }
        for temp in temps {
            broken.push(("temp file", temp));
        }
        // The confirm is the merge (issue 40): the run ends on the branch it
        // started from, its run branch merged and gone.
        let here = git(self.dir(), &["symbolic-ref", "--short", "HEAD"]);
        if here.trim().starts_with("trek/") {
            broken.push(("checkout", format!("the run ended on {}", here.trim())));
        }
        let left = git(self.dir(), &["branch", "--list", "trek/*/run"]);
        if !left.trim().is_empty() {
            broken.push(("run branch", format!("left: {}", left.trim())));
        }
        let status = git(self.dir(), &["status", "--porcelain"]);
        if !status.trim().is_empty() {
            broken.push(("git status", status.lines().collect::<Vec<_>>().join(", ")));
        }
        broken
    }

    /// The last report the run showed: its summary says completed and its
    /// table's commits are git's.
    fn report_broken(&self, sha_of: &BTreeMap<usize, String>) -> Vec<(&'static str, String)> {
        let Some(report) = self
            .replies
            .iter()
            .rev()
            .find(|r| r.stdout.contains("\"trekexecute_summary\""))
        else {
            return vec![("report", "no report was shown".into())];
        };
        let mut broken = Vec::new();
        let summary = report
            .stdout
            .lines()
            .find_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| v["trekexecute_summary"]["result"].clone());
        if summary.as_ref().and_then(Value::as_str) != Some("completed") {
            broken.push(("report result", format!("result {summary:?}")));
        }
        for line in report.stdout.lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let (Some(step), Some(commit)) = (
                cells.get(1).and_then(|c| c.parse::<usize>().ok()),
                cells.get(5),
            ) else {
                continue;
            };
            let real = sha_of.get(&step).map(String::as_str).unwrap_or("none");
            if commit.len() < 7 || !real.starts_with(commit) {
                broken.push((
                    "report commit",
                    format!("step {step}: report {commit}, git {real}"),
                ));
            }
        }
        broken
    }

    /// The data dir's JSONL: whole lines, one gate event, one approval,
    /// one stats record.
    fn stats_broken(&self) -> Vec<(&'static str, String)> {
        let text = fs::read_to_string(self.data().join(STATS)).unwrap_or_default();
        let mut broken = Vec::new();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for line in text.lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                broken.push(("stats line", format!("not JSON: {line}")));
                continue;
            };
            let kind = match record["event"].as_str() {
                Some("main-merge-gate") => "main-merge-gate events",
                Some("main-merge-approved") => "main-merge-approved events",
                Some(_) => continue,
                None => "stats records",
            };
            *counts.entry(kind).or_default() += 1;
        }
        for kind in [
            "main-merge-gate events",
            "main-merge-approved events",
            "stats records",
        ] {
            let n = counts.get(kind).copied().unwrap_or(0);
            if n != 1 {
                broken.push((kind, format!("{n} {kind}")));
            }
        }
        broken
    }
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|&a| a.to_owned()).collect()
}

/// The atomic writer's temporary files under `dir` (`.git` included), as
/// paths relative to `root`.
fn temp_files(root: &Path, dir: &Path, found: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().contains(TEMP_MARK) {
            let shown = path.strip_prefix(root).unwrap_or(&path);
            found.push(shown.display().to_string());
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            temp_files(root, &path, found);
        }
    }
}

/// The clean run: its calls and the kill points each reached.
struct Clean {
    calls: Vec<(Reply, Vec<String>)>,
}

impl Clean {
    fn run(helper: &Path, plan: &str) -> Self {
        let mut run = Run::new(helper, plan);
        let end = run.start(None);
        let broken = run.broken();
        assert!(
            end == End::Stopped && broken.is_empty() && run.notes.is_empty(),
            "the clean run must end right: {end:?}, {broken:?}, {:?}\n{}",
            run.notes,
            run.replies.last().map(|r| r.stdout.as_str()).unwrap_or("")
        );
        let calls = (1..=run.replies.len())
            .map(|n| (run.replies[n - 1].clone(), run.points(n)))
            .collect();
        Self { calls }
    }

    /// The kills to try: every point, or the first, middle and last of
    /// each call and every point of `step-done 2` and of the gate's answer.
    fn faults(&self, full: bool) -> Vec<Fault> {
        let mut faults = BTreeSet::new();
        for (i, (reply, points)) in self.calls.iter().enumerate() {
            let call = i + 1;
            let n = points.len();
            let every = full
                || reply.args.join(" ") == "step-done 2"
                || reply.args.iter().any(|a| a == "--gate");
            let sample: Vec<usize> = if every {
                (1..=n).collect()
            } else {
                vec![1, n.div_ceil(2), n]
            };
            faults.extend(
                sample
                    .into_iter()
                    .filter(|p| (1..=n).contains(p))
                    .map(|point| Fault { call, point }),
            );
        }
        faults.into_iter().collect()
    }

    fn call_of(&self, fault: Fault) -> String {
        self.calls[fault.call - 1].0.call()
    }

    fn point_of(&self, fault: Fault) -> &str {
        &self.calls[fault.call - 1].1[fault.point - 1]
    }
}

/// The call's kind, for the summary: its words without step numbers,
/// paths and `--plan`.
fn kind_of(call: &str) -> String {
    call.split_whitespace()
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()) && !w.contains('/') && *w != "--plan")
        .collect::<Vec<_>>()
        .join(" ")
}

/// One kill and its recovery: what broke, and what the user had to do.
struct Outcome {
    fault: Fault,
    broken: Vec<(&'static str, String)>,
    notes: Vec<String>,
}

fn kill_and_recover(helper: &Path, plan: &str, clean: &Clean, fault: Fault) -> Outcome {
    let mut run = Run::new(helper, plan);
    let end = run.start(Some(fault));
    let mut broken = Vec::new();
    if end == End::Killed {
        let traced = run.points(fault.call);
        if traced.last().map(String::as_str) != Some(clean.point_of(fault))
            || traced.len() != fault.point
        {
            broken.push((
                "harness",
                format!(
                    "killed at {:?} (point {}), not where the clean run had it",
                    traced.last(),
                    traced.len()
                ),
            ));
        }
        run.recover();
    } else {
        broken.push(("harness", format!("not killed: the run ended {end:?}")));
    }
    broken.extend(run.broken());
    Outcome {
        fault,
        broken,
        notes: run.notes,
    }
}

fn helper() -> PathBuf {
    faulty_helper().unwrap()
}

/// The harness itself: a clean run keeps every invariant, every call type
/// has kill points, and a kill lands exactly on the traced point.
#[test]
fn a_clean_run_keeps_every_invariant_and_a_kill_lands_where_traced() {
    let helper = helper();
    let plan = plan();
    let clean = Clean::run(&helper, &plan);
    let kinds: BTreeSet<String> = clean
        .calls
        .iter()
        .map(|(r, _)| kind_of(&r.call()))
        .collect();
    for kind in [
        "trek start",
        "trek step-begin",
        "trek step-done",
        "trek finish",
        "trek finish --gate confirm",
    ] {
        assert!(kinds.contains(kind), "{kind} is not among {kinds:?}");
    }
    for (reply, points) in &clean.calls {
        assert!(!points.is_empty(), "{} reached no kill point", reply.call());
    }
    let done = clean
        .calls
        .iter()
        .position(|(r, _)| r.call() == "trek step-done 1")
        .unwrap();
    let points = &clean.calls[done].1;
    let last = Fault {
        call: done + 1,
        point: points.len(),
    };
    let mut run = Run::new(&helper, &plan);
    assert_eq!(run.start(Some(last)), End::Killed);
    let killed = run.replies.last().unwrap();
    assert_eq!(killed.call(), "trek step-done 1");
    assert!(killed.stdout.is_empty(), "{}", killed.stdout);
    assert_eq!(&run.points(done + 1), points);
}

/// Issue 26's sweep: every sampled (or, with `VOYAGE_CRASH_SWEEP=full`,
/// every) kill point of every call, then the user's recovery; the run must
/// end as the clean run does.
#[test]
fn a_run_killed_at_any_point_ends_right_after_the_recovery() {
    let helper = helper();
    let plan = plan();
    let clean = Clean::run(&helper, &plan);
    let full = std::env::var("VOYAGE_CRASH_SWEEP").is_ok_and(|v| v == "full");
    let faults = clean.faults(full);
    let total: usize = clean.calls.iter().map(|(_, p)| p.len()).sum();
    eprintln!(
        "crash sweep: {} kills of {total} points in {} calls ({})",
        faults.len(),
        clean.calls.len(),
        if full {
            "full"
        } else {
            "bounded; VOYAGE_CRASH_SWEEP=full for all"
        }
    );
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&fault) = faults.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = kill_and_recover(&helper, &plan, &clean, fault);
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| o.fault);
    let mut classes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let mut failing = 0;
    for outcome in &outcomes {
        let call = clean.call_of(outcome.fault);
        let point = clean.point_of(outcome.fault);
        for note in &outcome.notes {
            eprintln!(
                "note: call {} ({call}) kill:{} at {point}: {note}",
                outcome.fault.call, outcome.fault.point
            );
        }
        if outcome.broken.is_empty() {
            continue;
        }
        failing += 1;
        let details: Vec<String> = outcome
            .broken
            .iter()
            .map(|(kind, detail)| format!("{kind}: {detail}"))
            .collect();
        eprintln!(
            "FAIL: call {} ({call}) kill:{} at {point}: {}",
            outcome.fault.call,
            outcome.fault.point,
            details.join("; ")
        );
        let kinds: BTreeSet<&str> = outcome.broken.iter().map(|(k, _)| *k).collect();
        let kinds = kinds.into_iter().collect::<Vec<_>>().join(", ");
        *classes
            .entry((kind_of(&call), point.to_owned(), kinds))
            .or_default() += 1;
    }
    // One line per class: the call's kind, the point, what broke.
    for ((call, point, kinds), n) in &classes {
        eprintln!("class: {n:>2} × {call} at {point}: {kinds}");
    }
    eprintln!(
        "crash sweep: {failing} of {} kills ended wrong",
        outcomes.len()
    );
    assert_eq!(failing, 0, "{failing} kills ended wrong (lines above)");
}
