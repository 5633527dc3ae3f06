//! The differential check of the engine's write targets against real bash
//! (issue 23, point 1): a command is built from a byte string (every byte
//! picks one piece: a body, a redirection operator, a descriptor, a quoting
//! of the file name, a compound around it), run by `bash -c` in an empty
//! directory, and the files bash created or changed are compared with the
//! write targets `judge_command` reports. Every file bash wrote must be a
//! target the engine names; every target the engine names must be a file
//! bash wrote, or one it could not open (a directory, a path through a
//! missing directory).
//!
//! Shared by the property test (`helper/tests/properties/redirect_bash.rs`)
//! and the fuzz target `redirect_bash`, by `#[path]`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use voyage_helper::internals::scan::{Context, WriteDir, judge_command};

/// Bodies that write nothing of their own.
const BODIES: &[&str] = &["echo x", ":", "printf y", "true", "cat /dev/null", "echo"];

/// Operators that open a file for writing when given a file name.
const WRITE_OPS: &[&str] = &[
    ">", ">>", ">|", "&>", "&>>", ">&", "1>", "2>", "5>", "1>>", "2>>", "9>>", "1>&", "<>", "0<>",
    "3<>", "1>|", "2>|", "12>", "{v}>", "{v}>>", "{w}<>",
];

/// Redirections that write no file: duplications, closes, inputs.
const QUIET: &[&str] = &[
    "2>&1",
    ">&2",
    "1>&2",
    "3>&1",
    ">&-",
    "2>&-",
    "<&0",
    "< /dev/null",
    "<<< word",
    ">/dev/null",
    "2>/dev/null",
    "&>/dev/null",
    ">&/dev/null",
];

/// File names the generator writes to (relative to the scratch directory,
/// which holds the directory `d`).
const NAMES: &[&str] = &["a", "bb", "d/c", "./e", "d/../f", "g.txt", "d/h"];

/// How a name is spelled: each form bash reads as the same name.
fn quote(name: &str, form: u8) -> String {
    match form % 7 {
        0 => name.to_owned(),
        1 => format!("'{name}'"),
        2 => format!("\"{name}\""),
        3 => format!("$'{name}'"),
        4 => {
            // The last character quoted on its own: `g.tx"t"`.
            let mut chars: Vec<char> = name.chars().collect();
            match chars.pop() {
                Some(last) => format!("{}\"{last}\"", chars.into_iter().collect::<String>()),
                None => name.to_owned(),
            }
        }
        5 => name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    format!("\\{c}")
                } else {
                    c.to_string()
                }
            })
            .collect(),
        _ => format!("\"\"{name}''"),
    }
}

/// One byte at a time from the input, 0 once it runs out.
struct Picks<'a> {
    bytes: std::slice::Iter<'a, u8>,
}

impl Picks<'_> {
    fn next(&mut self) -> u8 {
        self.bytes.next().copied().unwrap_or(0)
    }

    fn pick<'t>(&mut self, items: &[&'t str]) -> &'t str {
        let n = usize::from(self.next());
        items.get(n % items.len().max(1)).copied().unwrap_or("")
    }
}

/// The redirections of one command: one to three, writing or quiet.
fn redirections(picks: &mut Picks<'_>) -> String {
    let count = 1 + picks.next() % 3;
    let mut out = Vec::new();
    for _ in 0..count {
        if picks.next().is_multiple_of(4) {
            out.push(picks.pick(QUIET).to_owned());
            continue;
        }
        let op = picks.pick(WRITE_OPS);
        let name = quote(picks.pick(NAMES), picks.next());
        let space = if picks.next().is_multiple_of(2) {
            ""
        } else {
            " "
        };
        out.push(format!("{op}{space}{name}"));
    }
    out.join(" ")
}

/// The command a byte string stands for.
pub(crate) fn command_from(bytes: &[u8]) -> String {
    let mut picks = Picks {
        bytes: bytes.iter(),
    };
    let body = picks.pick(BODIES);
    let redirs = redirections(&mut picks);
    match picks.next() % 24 {
        0 => format!("{body} {redirs}"),
        1 => format!("{redirs} {body}"),
        2 => format!("{{ {body}; }} {redirs}"),
        3 => format!("( {body} ) {redirs}"),
        4 => format!("if true; then {body}; fi {redirs}"),
        5 => format!("for i in 1; do {body}; done {redirs}"),
        6 => format!("while false; do :; done {redirs}"),
        7 => format!("fn() {{ {body}; }} {redirs}; fn"),
        8 => format!("exec {redirs}; {body}"),
        9 => format!("{body} | cat {redirs}"),
        10 => format!("{body} && {body} {redirs}"),
        11 => format!("case x in x) {body};; esac {redirs}"),
        12 => format!("cat <<'EOF' {redirs}\nhello\nEOF"),
        13 => format!("[[ -n x ]] {redirs}"),
        14 => format!("! {body} {redirs}"),
        15 => format!("x=$({body} {redirs})"),
        16 => format!("echo \"$({body} {redirs})\""),
        17 => format!("cat <({body} {redirs})"),
        18 => format!("time {body} {redirs}"),
        19 => format!("{body} {redirs} || {body}"),
        20 => format!("until true; do :; done {redirs}"),
        21 => format!("function fn {{ {body}; }} {redirs}; fn"),
        22 => format!("{{ {body}; }} {redirs} | cat"),
        _ => format!("{body} {redirs} & wait"),
    }
}

/// Every regular file under `dir`, with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, Option<std::time::SystemTime>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let bytes = std::fs::read(&path).unwrap_or_default();
                out.insert(rel.to_path_buf(), (bytes, meta.modified().ok()));
            }
        }
    }
    out
}

/// `path` with `.` and `..` taken out, lexically.
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What bash wrote, what the engine named, the files there before, and
/// whether bash ended in failure (a redirection it could not make stops
/// the command and those after it in the same command).
pub(crate) type Sets = (
    BTreeSet<PathBuf>,
    BTreeSet<PathBuf>,
    BTreeSet<PathBuf>,
    bool,
);

/// What bash wrote and what the engine says `command` writes, relative to
/// the scratch directory; `Ok(None)` when the engine refuses the command
/// as unscannable (nothing runs, so nothing can be missed) or bash did not
/// end in time.
pub(crate) fn compare(command: &str) -> Result<Option<Sets>, String> {
    compare_in(command, false).map(|found| found.map(|(sets, _)| sets))
}

/// [`compare`], run from `w/` inside the scratch directory when `nested`
/// (so that `cd ..` stays inside it); also whether the engine named a
/// write whose place it could not know (which a run refuses).
pub(crate) fn compare_in(command: &str, nested: bool) -> Result<Option<(Sets, bool)>, String> {
    let judged = judge_command(command, &Context::default());
    if judged.findings.iter().any(|f| f.rule.id == "unscannable") {
        return Ok(None);
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = scratch.path();
    std::fs::create_dir(root.join("d")).map_err(|e| e.to_string())?;
    // Settled before the run, so that a rewrite shows in the time too.
    std::fs::write(root.join("d/h"), "old\n").map_err(|e| e.to_string())?;
    let start = if nested {
        std::fs::create_dir_all(root.join("w/d/e")).map_err(|e| e.to_string())?;
        root.join("w")
    } else {
        root.to_path_buf()
    };
    std::thread::sleep(Duration::from_millis(2));
    let before = snapshot(root);
    let mut child = Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(command)
        .current_dir(&start)
        .env("HOME", root.join("no-home"))
        .env_remove("CDPATH")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if std::time::Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    };
    // bash says why a redirection failed on stderr (`! cmd` hides the
    // status).
    let mut complaint = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        use std::io::Read;
        let _ = stderr.read_to_string(&mut complaint);
    }
    let after = snapshot(root);
    let written: BTreeSet<PathBuf> = after
        .iter()
        .filter(|(path, now)| before.get(*path) != Some(*now))
        .map(|(path, _)| path.clone())
        .collect();
    let mut named = BTreeSet::new();
    let mut unplaced = false;
    let from = if nested {
        PathBuf::from("w")
    } else {
        PathBuf::new()
    };
    for target in &judged.writes {
        let Some(path) = target.path.as_deref() else {
            return Err(format!(
                "`{command}`: the engine gave no path for `{}`",
                target.spelled
            ));
        };
        if path.starts_with("/dev/") {
            continue;
        }
        let bases = match &target.dir {
            WriteDir::Call => vec![from.clone()],
            WriteDir::Moved(dir) => vec![from.join(dir)],
            // After a `cd` that may fail, every place it may be is judged.
            WriteDir::InDoubt(dirs) if nested => dirs
                .iter()
                .map(|dir| match dir {
                    WriteDir::Moved(dir) => from.join(dir),
                    _ => from.clone(),
                })
                .collect(),
            WriteDir::Unknown if nested => {
                unplaced = true;
                continue;
            }
            WriteDir::Unknown | WriteDir::InDoubt(_) => {
                return Err(format!("`{command}`: the engine lost the cwd"));
            }
        };
        for base in bases {
            named.insert(tidy(&base.join(path)));
        }
    }
    Ok(Some((
        (
            written,
            named,
            before.into_keys().collect(),
            // With a descriptor closed (`2>&-`) bash may fail in silence.
            !status.success() || !complaint.is_empty() || command.contains("&-"),
        ),
        unplaced,
    )))
}

/// The check itself: `Err` with both sets when they differ.
pub(crate) fn check(command: &str) -> Result<(), String> {
    let Some((written, named, existing, failed)) = compare(command)? else {
        return Ok(());
    };
    let missed: Vec<&PathBuf> = written.difference(&named).collect();
    // A file that was there before may be opened for writing and left as
    // it was (`: >> f`, `<> f`); after a failed redirection (`>&- 2>&1`)
    // bash makes none of those after it. Any other name bash did not write
    // is a misread.
    let extra: Vec<&PathBuf> = named
        .difference(&written)
        .filter(|p| !existing.contains(*p) && !failed)
        .collect();
    if missed.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(format!(
        "`{command}`: bash wrote {written:?}, the engine named {named:?} (missed {missed:?}, extra {extra:?})"
    ))
}

/// Where a command moves before it writes: `cd` that works or fails,
/// subshells, pipelines, background jobs, `pushd`/`popd`, `env -C`.
const MOVES: &[&str] = &[
    "cd d",
    "cd nosuch",
    "cd ..",
    "cd ./d/e",
    "cd d/e/..",
    "cd -P d",
    "(cd d)",
    "cd d | true",
    "cd d & wait",
    "pushd d >/dev/null",
    "popd >/dev/null",
    "pushd d >/dev/null; popd >/dev/null",
    "x=$(cd d)",
    "bash -c 'cd d'",
    "eval 'cd d'",
    "{ cd d; }",
    "true",
];

/// How two commands are joined.
const JOINS: &[&str] = &["; ", " && ", " || ", "\n"];

/// What is written after the moves, relative to where the shell stands.
const WRITES: &[&str] = &[
    "echo x > f",
    ": > e/g",
    "echo x >> ../k",
    "env -C d touch m",
    "touch n",
];

/// The command a byte string stands for: one or two moves, each joined to
/// what follows, then a write.
pub(crate) fn cd_command_from(bytes: &[u8]) -> String {
    let mut picks = Picks {
        bytes: bytes.iter(),
    };
    let mut out = String::new();
    for _ in 0..1 + picks.next() % 2 {
        out.push_str(picks.pick(MOVES));
        out.push_str(picks.pick(JOINS));
    }
    out.push_str(picks.pick(WRITES));
    out
}

/// The check for `cd`: every file bash wrote is a target the engine placed
/// there, or the engine named a write it could not place (refused in a
/// run). A target bash did not write is no gap here: a write after a `cd`
/// that failed, or after `||`, may not run at all, and the engine judges
/// every write that may (a write put in the wrong place shows as the file
/// bash wrote, missed).
pub(crate) fn check_cd(command: &str) -> Result<(), String> {
    let Some(((written, named, _, _), unplaced)) = compare_in(command, true)? else {
        return Ok(());
    };
    let missed: Vec<&PathBuf> = written.difference(&named).collect();
    if missed.is_empty() || unplaced {
        return Ok(());
    }
    Err(format!(
        "`{command}`: bash wrote {written:?}, the engine placed {named:?} (missed {missed:?})"
    ))
}
