//! `orders`' command line: the six subcommands with the seed's flags, each
//! printing its text or `--json` reply (schema `orders-reply`).

use std::io::{self, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::code;
use super::model::{Fail, Layout};
use super::ops::{self, Order, WaveStatus};
use crate::exit;
use crate::problem::{self, Problem};

/// Write and read the session orders of a multi-session run (Phase 2.6).
///
/// The orders live in SESSION_DIR/orders (SESSION_DIR defaults to
/// `.claude/trekplan-sessions/SLUG` in the main checkout, SLUG the plan's
/// file name without its extension). Run it from the main checkout; --plan
/// is relative to it (an absolute path is refused: each session resolves the
/// same relative path inside its own worktree). Every `--json` reply is
/// `{ok, action, plan, …, problem}` (see `voyage-helper schema orders-reply`).
///
/// Example, from the main checkout:
///
///   voyage-helper orders next-wave --plan .claude/plans/split.md
///   voyage-helper orders write --plan .claude/plans/split.md --wave 1 --branch main
///   voyage-helper orders status --plan .claude/plans/split.md --wave 1 --json
///
/// Exit status: 0 done, 1 refused (another plan, another version of it,
/// another branch, no wave in flight), 2 could not read or write.
#[derive(Debug, clap::Subcommand)]
#[command(verbatim_doc_comment)]
pub(crate) enum Command {
    /// Print the lowest wave not yet merged, or `none`.
    ///
    /// Reads ORDERS/merged-waves.json; a record of another plan or another
    /// version of this one (its sha256) is exit 1: clear it or finish that
    /// run first.
    NextWave(Args),
    /// Write wave W's orders and wave.json (status awaiting-sessions).
    ///
    /// One `wave-W-session-N.md` per session of the wave, naming its
    /// worktree, the directory to open (its `cwd:` below the worktree), its
    /// progress file, its steps and scope fence and the starter line
    /// `/trekexecute --session N PLAN`; wave.json records the plan path, the
    /// sha256 of its content and the branch the wave is prepared on
    /// (--branch, default the branch checked out).
    Write(Args),
    /// Each session's progress file, raw status and state.
    ///
    /// completed; running (no file yet, pending, in-progress, in_progress or
    /// any status not named here); ended-bad (failed, stopped, partial,
    /// blocked, unreadable). Exit 1 when wave.json is missing or belongs to
    /// another plan, another version of it, another wave or another branch
    /// than the one checked out (or --branch).
    Status(Args),
    /// Copy each session's progress file to wave-W-session-N.progress.json.
    Archive(Args),
    /// Add wave W to merged-waves.json.
    RecordMerged(Args),
    /// Remove the orders, archived copies, wave.json and merged-waves.json.
    ///
    /// Only those files (and the orders directory when it is left empty):
    /// anything else there stays. The main-merge gate's confirm runs it once
    /// every wave is merged and the master verification passed.
    Clear(Args),
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct Args {
    /// The plan, relative to the main checkout.
    #[arg(long)]
    pub plan: Option<PathBuf>,
    /// The wave (write, status, archive, record-merged).
    #[arg(long)]
    pub wave: Option<u32>,
    /// The plan's session directory (default .claude/trekplan-sessions/SLUG).
    #[arg(long)]
    pub session_dir: Option<PathBuf>,
    /// The branch the wave is (or was) prepared on (default: checked out).
    #[arg(long)]
    pub branch: Option<String>,
    /// Print the reply as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Default, Serialize)]
struct Reply {
    ok: bool,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wave: Option<u32>,
    /// next-wave: the number, or "none".
    #[serde(skip_serializing_if = "Option::is_none")]
    next_wave: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    orders: Option<Vec<Order>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<WaveStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    archived: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_waves: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<Problem>,
}

fn need<T>(value: Option<T>, flag: &str) -> Result<T, Fail> {
    value.ok_or_else(|| {
        (
            exit::CANNOT_CHECK,
            Problem::new(code::ORDERS_NO_WAVE, format!("{flag} is required here")),
        )
    })
}

impl Args {
    fn layout(&self) -> Result<Layout, Fail> {
        let plan = need(self.plan.as_ref(), "--plan")?;
        if plan.is_absolute() {
            return Err((
                exit::NOT_OK,
                Problem::new(
                    code::ORDERS_PLAN_ABSOLUTE,
                    format!(
                        "--plan {} is absolute: give it relative to the main checkout",
                        plan.display()
                    ),
                ),
            ));
        }
        let here = std::env::current_dir().map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::ORDERS_IO, format!("no current directory: {e}")),
            )
        })?;
        let root = crate::git::toplevel(&here).unwrap_or(here);
        Layout::new(&root, plan, self.session_dir.as_deref())
    }
}

impl Command {
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let (action, args) = match &self {
            Self::NextWave(a) => ("next-wave", a),
            Self::Write(a) => ("write", a),
            Self::Status(a) => ("status", a),
            Self::Archive(a) => ("archive", a),
            Self::RecordMerged(a) => ("record-merged", a),
            Self::Clear(a) => ("clear", a),
        };
        let mut reply = Reply {
            action,
            wave: args.wave,
            ..Reply::default()
        };
        let mut text = String::new();
        let done = run(&self, args, &mut reply, &mut text);
        let code = match done {
            Ok(code) => {
                reply.ok = code == exit::OK;
                code
            }
            Err((code, p)) => {
                problem::eprint_all(std::slice::from_ref(&p));
                reply.problem = Some(p);
                code
            }
        };
        if args.json {
            serde_json::to_writer(&mut *out, &reply)?;
            writeln!(out)?;
        } else {
            out.write_all(text.as_bytes())?;
        }
        out.flush()?;
        Ok(code)
    }
}

fn run(command: &Command, args: &Args, reply: &mut Reply, text: &mut String) -> Result<u8, Fail> {
    use std::fmt::Write as _;
    if let Command::Clear(_) = command {
        let dir = match &args.session_dir {
            Some(d) => d.clone(),
            None => args.layout()?.session_dir,
        };
        let removed = ops::clear(&dir)?;
        let _ = writeln!(
            text,
            "cleared {} file(s) from {}",
            removed.len(),
            dir.join("orders").display()
        );
        reply.removed = Some(removed);
        return Ok(exit::OK);
    }
    let layout = args.layout()?;
    reply.plan = Some(layout.plan_rel.clone());
    match command {
        Command::NextWave(_) => {
            let next = ops::next_wave(&layout)?;
            let _ = writeln!(text, "{}", next.map_or("none".into(), |w| w.to_string()));
            reply.next_wave = Some(next.map_or("none".into(), Into::into));
        }
        Command::Write(_) => {
            let wave = need(args.wave, "--wave")?;
            let branch = match &args.branch {
                Some(b) => b.clone(),
                None => super::model::current_branch(&layout.root)?,
            };
            // A run whose pushes were turned off keeps them off.
            let no_push = ops::recorded_no_push(&layout)?.map(|(how, _)| how);
            let orders = ops::write(&layout, wave, &branch, no_push.as_deref())?;
            for o in &orders {
                let _ = writeln!(
                    text,
                    "Session {}: open {}\n  starter: {}",
                    o.session, o.directory, o.starter
                );
            }
            reply.orders = Some(orders);
        }
        Command::Status(_) => {
            let status = ops::status(&layout, args.wave, args.branch.as_deref())?;
            for s in &status.sessions {
                let state = match s.state {
                    ops::State::Completed => "completed",
                    ops::State::Running => "running",
                    ops::State::EndedBad => "ended-bad",
                };
                let _ = writeln!(
                    text,
                    "session {}: {state} ({}) {}",
                    s.session,
                    s.status.as_deref().unwrap_or("no progress file"),
                    s.progress_file
                );
            }
            reply.wave = Some(status.wave);
            reply.status = Some(status);
        }
        Command::Archive(_) => {
            let wave = need(args.wave, "--wave")?;
            let record = ops::awaiting(&layout, Some(wave), args.branch.as_deref())?;
            let copies = ops::archive(&layout, wave, &record.sessions)?;
            for c in &copies {
                let _ = writeln!(text, "archived {c}");
            }
            reply.archived = Some(copies);
        }
        Command::RecordMerged(_) => {
            let wave = need(args.wave, "--wave")?;
            let waves = ops::record_merged(&layout, wave, None)?;
            let list: Vec<String> = waves.iter().map(u32::to_string).collect();
            let _ = writeln!(text, "merged waves: {}", list.join(", "));
            reply.merged_waves = Some(waves);
        }
        Command::Clear(_) => {}
    }
    Ok(exit::OK)
}
