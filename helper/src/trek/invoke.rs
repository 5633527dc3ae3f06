//! Running another subcommand in-process, the way the façade does every
//! mechanical part of a phase: the same code, flags and JSON replies as
//! the command line a person or a script would use, without a new process
//! or a second implementation.

use clap::Parser;
use serde_json::Value;

use super::code;
use crate::cli::Cli;
use crate::problem::Problem;

/// What a subcommand printed on stdout and the exit code it chose.
#[derive(Debug, Clone)]
pub(super) struct Invoked {
    pub code: u8,
    pub stdout: String,
    /// Its diagnostics (`error[CODE]: …`, `warning: …`), one per line.
    pub stderr: Vec<String>,
}

impl Invoked {
    /// The reply as JSON (the first line that parses, or the whole text).
    pub(super) fn json(&self) -> Option<Value> {
        serde_json::from_str(self.stdout.trim())
            .ok()
            .or_else(|| {
                self.stdout
                    .lines()
                    .find_map(|line| serde_json::from_str::<Value>(line).ok())
            })
            .filter(Value::is_object)
    }

    /// The reply as JSON, or a problem naming the command.
    pub(super) fn json_or(&self, what: &str) -> Result<Value, Problem> {
        self.json().ok_or_else(|| {
            Problem::new(
                code::TREK_INNER,
                format!(
                    "`{what}` printed no JSON (exit {}): {}",
                    self.code,
                    first_line(&self.stdout)
                ),
            )
        })
    }

    pub(super) fn ok(&self) -> bool {
        self.code == crate::exit::OK
    }

    /// Why a refused call refused: its reply's `problem.message`, else its
    /// diagnostics, else its output, else its exit code.
    pub(super) fn why(&self) -> String {
        self.json()
            .and_then(|v| field(&v, "/problem/message").as_str().map(str::to_owned))
            .or_else(|| (!self.stderr.is_empty()).then(|| self.stderr.join("; ")))
            .or_else(|| Some(self.stdout.trim().to_owned()).filter(|s| !s.is_empty()))
            .unwrap_or_else(|| format!("it exited {}", self.code))
    }
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

/// Runs `voyage-helper ARGS…` in this process and returns its stdout. Its
/// diagnostics go on to this process's stderr, where the agent sees them,
/// each line once per process however many calls print it (the budget
/// warning, say, which every area that reads the budget gives).
pub(super) fn invoke<S: AsRef<str>>(args: &[S]) -> Result<Invoked, Problem> {
    let invoked = invoke_quiet(args)?;
    super::said::pass_on(&invoked.stderr);
    Ok(invoked)
}

/// [`invoke`] for a call whose outcome the caller puts in its own reply:
/// the diagnostics are returned, not printed, so nothing is said twice.
pub(super) fn invoke_quiet<S: AsRef<str>>(args: &[S]) -> Result<Invoked, Problem> {
    let argv = std::iter::once("voyage-helper").chain(args.iter().map(AsRef::as_ref));
    let what = || {
        args.iter()
            .map(AsRef::as_ref)
            .collect::<Vec<&str>>()
            .join(" ")
    };
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        Problem::new(
            code::TREK_INNER,
            format!(
                "`{}` is refused by the command line: {}",
                what(),
                e.to_string().lines().next().unwrap_or("")
            ),
        )
    })?;
    if matches!(cli.command, crate::cli::Subcommand::Trek(_)) {
        return Err(Problem::new(
            code::TREK_INNER,
            "trek does not run itself".to_owned(),
        ));
    }
    let mut stdout = Vec::new();
    let (code, stderr) = crate::problem::holding(|| crate::dispatch(cli.command, &mut stdout));
    let code =
        code.map_err(|e| Problem::new(code::TREK_INNER, format!("`{}` failed: {e}", what())))?;
    Ok(Invoked {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr,
    })
}

static NULL: Value = Value::Null;

/// The value at `pointer` (`/a/b`) in a reply, `null` when it is absent.
pub(super) fn field<'v>(value: &'v Value, pointer: &str) -> &'v Value {
    value.pointer(pointer).unwrap_or(&NULL)
}
