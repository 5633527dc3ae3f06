//! The entry points of the engine: judge a command line, or a path a file
//! tool is about to write. This is the one place that decides what is
//! dangerous; `scan command`, `scan plan`, the PreToolUse hook and (later)
//! the criteria runner and the executor's Verify check all call it.

use std::thread;

use super::arg::Arg;
use super::finding::Judgement;
use super::paths::{self, Write};
use super::rule;
use super::scanner::{Context, Scanner};

/// Stack for the thread that walks a command. The parser recurses per level
/// of nesting; [`super::parse::MAX_NESTING`] and [`super::scanner::MAX_DEPTH`]
/// bound that, and this leaves a wide margin in debug builds too. Only the
/// pages touched are ever allocated.
const STACK_BYTES: usize = 256 << 20;

/// Judges `command`, a shell command line, as bash would run it.
pub fn judge_command(command: &str, ctx: &Context) -> Judgement {
    let walk = || {
        let mut scanner = Scanner::new(ctx);
        scanner.top(command);
        scanner.judgement
    };
    let outcome = thread::scope(|scope| {
        thread::Builder::new()
            .name("voyage-scan".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, walk)
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(judgement)) => judgement,
        // No thread (resources exhausted) or a bug in the walk: fail closed.
        Ok(Err(_)) | Err(_) => {
            let mut judgement = Judgement::default();
            let mut scanner = Scanner::new(ctx);
            scanner.report_text(
                &rule::UNSCANNABLE,
                command,
                "internal error while scanning".into(),
            );
            judgement.findings.append(&mut scanner.judgement.findings);
            judgement
        }
    }
}

/// Judges a write of `path` by a file tool (Write, Edit, NotebookEdit).
pub fn judge_path(path: &str, ctx: &Context) -> Judgement {
    let mut scanner = Scanner::new(ctx);
    if let Some((rule, detail)) = paths::check(path, Write::Replace, ctx.home.as_deref()) {
        scanner.report(rule, &[Arg::literal(path)], detail);
    }
    scanner.judgement
}
