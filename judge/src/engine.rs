//! The entry points of the engine: judge a command line, or a path a file
//! tool is about to write. This is the one place that decides what is
//! dangerous; `scan command`, `scan plan`, the PreToolUse hook and (later)
//! the criteria runner and the executor's Verify check all call it.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use crate::arg::Arg;
use crate::finding::{Finding, Judgement};
use crate::paths::{self, Write};
use crate::rule;
use crate::scanner::{Context, Scanner};

/// Stacks for the thread that walks a command, the first one taken that
/// can be had. The parser recurses per level of nesting, and keywords
/// (`if`, `while`, …) nest as deep as the text's size allows: the deepest
/// text it accepts (20,000 nested `if`s) needs some 150 MiB of stack in a
/// release build, and the first size leaves a margin for debug builds too.
/// Only the pages touched are ever used, but the whole size is reserved,
/// and under an address-space limit (`ulimit -v`, a container's) it may not
/// be had: then a smaller one serves. Every command a person writes needs
/// far less than the last; one that needs more than it got overflows it,
/// which the hook answers with a denial (helper/src/scan/fail_closed.rs).
const STACKS: [usize; 6] = [256 << 20, 64 << 20, 16 << 20, 4 << 20, 1 << 20, 256 << 10];

/// The advice of a command refused because the check had too little
/// memory: the command is not at fault, the limit is.
pub const SHORT_OF_MEMORY: &str = "Tell the user the denylist check has too little memory to run (an address-space limit such as `ulimit -v`, or a container's memory limit, on Claude Code); raise it, or let them run the command themselves.";

/// How much of an overlong command the refusal quotes (on a character
/// boundary, or a placeholder).
const MAX_EXCERPT: usize = 200;

/// How long a judgement may take before the engine gives up and blocks.
/// Under the hook's 10 s timeout in `hooks/hooks.json` (a hook that times
/// out lets the call through), well over the 0.1 s a 1 MB command takes.
/// Debug builds (the test suite) run about ten times slower and get more.
pub(super) const WATCHDOG: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(120)
} else {
    Duration::from_secs(8)
};

/// Longest command judged at all; a longer one is blocked as unscannable
/// at once, before any parsing. Up to this size even tokenising the
/// densest text (`a>b a>b …`) stays within about 150 MiB; what is then
/// parsed is capped lower still ([`crate::parse::MAX_PARSED_BYTES`]).
pub(crate) const MAX_COMMAND_BYTES: usize = 1 << 20;

/// Judges `command`, a shell command line, as bash would run it.
///
/// A command holding a NUL character is blocked as unscannable. The walk
/// runs on its own thread with a large stack ([`STACKS`]), or as
/// unscannable when no thread can be had. If it panics, or is
/// still running after [`WATCHDOG`] (the parser has been seen to loop on
/// input it should reject), the command is blocked as unscannable; a thread
/// that overran is left to end with the process.
pub fn judge_command(command: &str, ctx: &Context) -> Judgement {
    if command.len() > MAX_COMMAND_BYTES {
        return unreadable(
            command.get(..MAX_EXCERPT).unwrap_or("(a long command)"),
            &format!(
                "the command is longer than {} MiB, more than the denylist judges",
                MAX_COMMAND_BYTES >> 20
            ),
            ctx,
        );
    }
    if command.contains('\0') {
        // bash cannot be handed a NUL: `bash -c` stops at it, a script read
        // from a file has it dropped (`r\0m` runs `rm`). Which one would run
        // depends on how the command reaches bash, so neither is judged.
        return unreadable(
            command,
            "the command holds a NUL character, which bash drops or stops at",
            ctx,
        );
    }
    let Some(rx) = spawn_walk(command, ctx) else {
        let mut judgement = Judgement::default();
        judgement.push(
            Finding::new(
                &rule::UNSCANNABLE,
                command,
                "not enough memory to start the check".into(),
                &[],
            )
            .advising(SHORT_OF_MEMORY),
        );
        return judgement;
    };
    let why = match rx.recv_timeout(WATCHDOG) {
        // The thread goes on to free what it parsed, and ends by itself;
        // the caller has its answer meanwhile (a hook's process may exit).
        Ok(judgement) => return judgement,
        Err(RecvTimeoutError::Timeout) => "the scan took too long",
        Err(RecvTimeoutError::Disconnected) => "internal error while scanning",
    };
    let mut scanner = Scanner::new(ctx);
    scanner.report_text(&rule::UNSCANNABLE, command, why.into());
    scanner.judgement
}

/// Starts the walk of `command` on a thread of its own, with the largest
/// of [`STACKS`] that can be had; `None` when not even the smallest can.
/// The thread is never joined: it sends its judgement, then frees what it
/// parsed and ends.
fn spawn_walk(command: &str, ctx: &Context) -> Option<Receiver<Judgement>> {
    STACKS.into_iter().find_map(|stack| {
        let (tx, rx) = mpsc::channel();
        let text = command.to_owned();
        let owned = ctx.clone();
        thread::Builder::new()
            .name("voyage-scan".into())
            .stack_size(stack)
            .spawn(move || {
                crate::fault::fail_at("scan");
                let mut scanner = Scanner::new(&owned);
                let mut parsed = scanner.top(&text);
                // A FIFO's reader may come first in the text: walk again
                // with what the first walk saw written into it.
                let (downloads, texts) = scanner.fifo_feeds();
                if !downloads.is_empty() || !texts.is_empty() {
                    let fifos = std::mem::take(&mut scanner.fifos);
                    scanner = Scanner::new(&owned);
                    scanner.fifos = fifos;
                    scanner.downloaded = downloads;
                    scanner.written = texts;
                    parsed = scanner.top(&text);
                }
                let _ = tx.send(scanner.judgement);
                // Only now: the answer does not wait for this.
                drop(parsed);
            })
            .ok()
            .map(|_| rx)
    })
}

/// A judgement that blocks `what` as unscannable, for a command that cannot
/// be judged as text (a NUL in it) or could not even be read (the hook's
/// input, cut short or too large).
pub fn unreadable(what: &str, why: &str, ctx: &Context) -> Judgement {
    let mut scanner = Scanner::new(ctx);
    scanner.report_text(&rule::UNSCANNABLE, what, why.to_owned());
    scanner.judgement
}

/// Judges a write of `path` by a file tool (Write, Edit, NotebookEdit).
pub fn judge_path(path: &str, ctx: &Context) -> Judgement {
    let mut scanner = Scanner::new(ctx);
    if let Some((rule, detail)) = paths::check(path, Write::Replace, ctx.home.as_deref()) {
        scanner.report(rule, &[Arg::literal(path)], detail);
    }
    scanner.judgement
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Decision;

    fn rules(judgement: &Judgement) -> Vec<&'static str> {
        judgement.findings.iter().map(|f| f.rule.id).collect()
    }

    /// `case` nested 25 deep, each item's body the next `case` and no `;;`
    /// before `esac` (valid bash). brush-parser once parsed each body twice,
    /// so this took longer than the watchdog and came back unscannable; it
    /// must be judged like any other command (the time is benches' business,
    /// scripts/bench.sh figure 15).
    #[test]
    fn nested_case_is_judged_not_timed_out() {
        let nest = |inner: &str| {
            (0..25).fold(inner.to_owned(), |body, _| {
                format!("case a in a) {body}\nesac")
            })
        };
        let ctx = Context::default();
        assert_eq!(
            judge_command(&nest("echo x"), &ctx).decision(),
            Decision::Allow
        );
        let judged = judge_command(&nest("rm -rf /"), &ctx);
        assert!(rules(&judged).contains(&"rm-recursive-force"), "{judged:?}");
        assert!(!rules(&judged).contains(&"unscannable"), "{judged:?}");
    }

    /// The `case` grammar after the parser's token rewrite (`parse.rs`):
    /// only the last item may lack its `;;`, and every item's body is judged.
    #[test]
    fn case_items_are_read_as_bash_reads_them() {
        let ctx = Context::default();
        for (command, rule) in [
            (
                "case x in a) echo;; b) rm -rf /\nesac",
                "rm-recursive-force",
            ),
            (
                "case x in (a) ;; (b) rm -rf / ;;& c) echo ;& esac",
                "rm-recursive-force",
            ),
            ("case x in a) rm -rf /\nb) echo;; esac", "unscannable"),
            ("case x in a) echo\nb) echo\nesac", "unscannable"),
        ] {
            let judged = judge_command(command, &ctx);
            assert!(
                rules(&judged).contains(&rule),
                "{command}: {:?}",
                rules(&judged)
            );
        }
        for command in [
            "case x in esac",
            "case x in a) esac",
            "case x in a|b) echo\n;;\nesac",
        ] {
            assert_eq!(
                judge_command(command, &ctx).decision(),
                Decision::Allow,
                "{command}"
            );
        }
    }

    /// `>&WORD` and `1>&WORD` write WORD when it is no descriptor (bash
    /// 5.2 creates the file), so the protected-path rules see them as they
    /// see `>`; a descriptor, `-`, or another descriptor's duplication
    /// (`2>&file` is an error in bash) writes nothing.
    #[test]
    fn duplicating_redirections_that_name_a_file_write_it() {
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        for (command, rule) in [
            ("echo x >& ~/.ssh/authorized_keys", "credentials-write"),
            ("echo x 1>& ~/.bashrc", "shell-config-write"),
            ("echo x >&.git/hooks/pre-commit", "git-hooks-write"),
            ("echo x >& /dev/sda", "disk-write"),
            ("exec >& ~/.bashrc", "shell-config-write"),
            ("{ echo x; } >& ~/.zshrc", "shell-config-write"),
        ] {
            let judged = judge_command(command, &ctx);
            assert!(
                rules(&judged).contains(&rule),
                "{command}: {:?}",
                rules(&judged)
            );
        }
        for command in [
            "echo x >&2",
            "echo x 1>&2",
            "echo x >&-",
            "echo x >&1-",
            "echo x 2>&1",
        ] {
            let judged = judge_command(command, &ctx);
            assert_eq!(judged.decision(), Decision::Allow, "{command}");
            assert!(judged.writes.is_empty(), "{command}: {:?}", judged.writes);
        }
        // A word only known at run time may be a file: a write of an
        // unknown target.
        let judged = judge_command("echo x >& \"$OUT\"", &ctx);
        assert_eq!(judged.writes.len(), 1, "{:?}", judged.writes);
        assert_eq!(judged.writes.first().and_then(|w| w.path.clone()), None);
    }

    /// A file the command writes and then runs is judged by what was
    /// written into it: by a shell, `source`, or as `./FILE`.
    #[test]
    fn a_script_written_then_run_is_judged_by_its_text() {
        let ctx = Context::default();
        for (command, rule) in [
            ("echo 'rm -rf /' > x.sh && sh x.sh", "rm-recursive-force"),
            ("echo 'rm -rf /' > x.sh; bash ./x.sh", "rm-recursive-force"),
            ("printf 'reboot\\n' > r; chmod +x r; ./r", "system-power"),
            ("echo reboot > r.sh && . r.sh", "system-power"),
            ("echo \"$C\" > x.sh && sh x.sh", "opaque-command"),
        ] {
            let judged = judge_command(command, &ctx);
            assert!(
                rules(&judged).contains(&rule),
                "{command}: {:?}",
                rules(&judged)
            );
        }
        // The last write decides; an ordinary script stays allowed.
        let judged = judge_command("echo 'rm -rf /' > x.sh; echo ls > x.sh; sh x.sh", &ctx);
        assert_eq!(judged.decision(), Decision::Allow, "{:?}", rules(&judged));
        assert_eq!(
            judge_command("sh build.sh", &ctx).decision(),
            Decision::Allow
        );
    }

    /// Memory stays bounded (issue 23, point 11): a command past
    /// [`MAX_COMMAND_BYTES`] is refused at once, and text past the parser's
    /// own cap that is more than plain words is refused unparsed; plain
    /// words up to the command cap are judged as always.
    #[test]
    fn overlong_commands_are_refused_unparsed() {
        let ctx = Context::default();
        let huge = format!("echo {}", "a ".repeat(MAX_COMMAND_BYTES / 2));
        let judged = judge_command(&huge, &ctx);
        assert_eq!(rules(&judged), ["unscannable"]);
        assert!(
            judged
                .findings
                .iter()
                .any(|f| f.detail.contains("longer than 1 MiB")),
            "{judged:?}"
        );
        let busy = format!("echo {}", "x=1;".repeat(crate::parse::MAX_PARSED_BYTES / 4));
        let judged = judge_command(&busy, &ctx);
        assert_eq!(rules(&judged), ["unscannable"]);
        let under = format!("{}rm -rf /", "x=1;".repeat(1000));
        assert!(rules(&judge_command(&under, &ctx)).contains(&"rm-recursive-force"));
    }

    /// A 1 MB command line: half a million words, then the dangerous part.
    #[test]
    fn a_megabyte_command_is_judged_whole() {
        let words = "a ".repeat(512 * 1024 - 16);
        let ctx = Context::default();
        let judged = judge_command(&format!("echo {words}"), &ctx);
        assert_eq!(judged.decision(), Decision::Allow, "{:?}", rules(&judged));
        let judged = judge_command(&format!("echo {words}&& rm -rf /"), &ctx);
        assert!(
            rules(&judged).contains(&"rm-recursive-force"),
            "{:?}",
            rules(&judged)
        );
        assert!(
            !rules(&judged).contains(&"unscannable"),
            "{:?}",
            rules(&judged)
        );
    }
}
