//! [`Scanner`]: the state of one judgement while the engine walks a command,
//! and the one door through which nested code (substitutions, `-c` strings,
//! here-documents fed to a shell, `eval`) is parsed and judged in turn.

use crate::arg::Arg;
use crate::finding::{Finding, Judgement};
use crate::flow::Flow;
use crate::parse;
use crate::rule::{self, Rule};
use crate::vars::Vars;

/// Deepest nesting of code inside code (`bash -c "$(sh -c '…')"`) that is
/// judged; anything deeper is refused.
pub(super) const MAX_DEPTH: usize = 12;
/// Most texts parsed for one judgement (each substitution, `-c` string and
/// shell-fed here-document is one); past this the command is refused.
pub(super) const MAX_PARSES: usize = 5_000;

/// What the engine knows about the machine it judges for.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The user's home directory, so `/home/ann/.ssh` reads as `~/.ssh`.
    pub home: Option<String>,
}

impl Context {
    /// The context of this process: `$HOME`.
    pub fn from_env() -> Self {
        Self {
            home: std::env::var("HOME").ok().filter(|h| h.starts_with('/')),
        }
    }
}

pub(super) struct Scanner<'c> {
    pub ctx: &'c Context,
    pub judgement: Judgement,
    /// The nesting of the code being walked, outermost first.
    pub via: Vec<String>,
    depth: usize,
    parses: usize,
    /// Names of the functions whose bodies are being walked.
    pub functions: Vec<String>,
    /// The command being walked runs beside a copy of another: it is a stage
    /// of a pipeline of two or more, or runs in the background.
    pub fanned_out: bool,
    /// Where the command runs, once a `cd` moved it ([`crate::cwd`]);
    /// `None`: the project.
    pub cwd: Option<String>,
    /// A `cd` went where the text does not say (`cd "$DIR"`), so relative
    /// paths written after it are nowhere known ([`crate::write_target`]);
    /// [`Self::cwd`] then reads as the project, for the rules that need a
    /// place.
    pub cwd_lost: bool,
    /// The shell may not be in [`Self::cwd`]: a `cd` there may have failed
    /// (bash goes on after a failed `cd` unless `&&` guards what follows),
    /// or `CDPATH` may send it elsewhere. Relative writes are then nowhere
    /// known, as with [`Self::cwd_lost`]; the rules that need a place read
    /// [`Self::cwd`], the likelier one.
    pub cwd_doubt: bool,
    /// While [`Self::cwd_doubt`]: the other places the shell may be in
    /// (each as [`Self::cwd`] is spelled, `None` the project), where a
    /// `cd` that may have failed leaves it; `None` when the text does not
    /// say ([`crate::cwd`]).
    pub cwd_or: Option<Vec<Option<String>>>,
    /// `set -P` (`set -o physical`) is on: a `cd` resolves links before
    /// `..`, as `cd -P` does ([`crate::cwd`]).
    pub physical: bool,
    /// [`Self::cwd`] was reached by a physical `cd`: it is a path for the
    /// file system to resolve (`./src/..`, links before `..`), not the
    /// directory's logical name, so a logical `..` from it cannot be
    /// placed.
    pub cwd_resolved_later: bool,
    /// `pushd`'s directory stack, the top last.
    pub dir_stack: Vec<Option<String>>,
    /// The last `cd` of the pipeline being walked, and whether the shell's
    /// place was in doubt before it: what `&&` after it settles.
    pub cd_seen: Option<bool>,
    /// Files a downloader wrote earlier in the command (`curl -o f`,
    /// `wget -O f`, `curl … > f`), so running one later is running the
    /// download ([`crate::call`]).
    pub downloaded: Vec<String>,
    /// Links the command made earlier: where each sits and where it leads,
    /// normalized ([`crate::cwd::resolve`]), so a write through one is
    /// judged where it lands.
    pub links: Vec<(String, String)>,
    /// Files the command wrote earlier, with the text written when it is
    /// known (`echo 'rm -rf /' > x.sh`), so that running one later is
    /// judged as running that text ([`crate::call`]).
    pub written: Vec<(String, Option<String>)>,
    /// The named pipes the command made ([`crate::fifos`]).
    pub fifos: Vec<String>,
    /// The descriptors the command opened, on files or on text
    /// ([`crate::descriptors`]).
    pub descriptors: Vec<crate::descriptors::Opened>,
    /// File descriptors opened on a network socket (`exec 3<>/dev/tcp/…`),
    /// so reading one (`<&3`) is reading the network.
    pub sockets: Vec<i32>,
    /// The variables the command set so far ([`crate::vars`]).
    pub vars: Vars,
    /// The functions the command defined, by name, last definition last.
    pub defined: Vec<(String, brush_parser::ast::FunctionBody)>,
    /// How many function calls were judged ([`crate::walk`]).
    pub function_calls: usize,
    /// `declare -n NAME=TARGET`: assignments to NAME set TARGET.
    pub namerefs: Vec<(String, String)>,
    /// `hash -p PATH NAME`: NAME runs PATH ([`crate::setters`]).
    pub rebound: Vec<(String, Arg)>,
    /// Paths the command copied or linked a program to, with the program
    /// (`None`: one the text does not name) ([`crate::renamed`]).
    pub renamed: Vec<(String, Option<String>)>,
    /// `alias NAME=VALUE` run earlier in the command ([`crate::renamed`]).
    pub aliases: Vec<(String, String)>,
    /// `declare -i NAME`: an assignment to NAME is arithmetic.
    pub integers: Vec<String>,
    /// The processes `exec` made of the shell's output on a descriptor,
    /// innermost last ([`crate::descriptors`]).
    pub sinks: Vec<crate::descriptors::Sink>,
    /// How many lists deep the walk is.
    pub list_depth: usize,
}

impl<'c> Scanner<'c> {
    pub(super) fn new(ctx: &'c Context) -> Self {
        Self {
            ctx,
            judgement: Judgement::default(),
            via: Vec::new(),
            depth: 0,
            parses: 0,
            functions: Vec::new(),
            fanned_out: false,
            cwd: None,
            cwd_lost: false,
            cwd_doubt: false,
            cwd_or: Some(Vec::new()),
            physical: false,
            cwd_resolved_later: false,
            dir_stack: Vec::new(),
            cd_seen: None,
            downloaded: Vec::new(),
            links: Vec::new(),
            written: Vec::new(),
            fifos: Vec::new(),
            descriptors: Vec::new(),
            sockets: Vec::new(),
            vars: Vars::default(),
            defined: Vec::new(),
            function_calls: 0,
            namerefs: Vec::new(),
            rebound: Vec::new(),
            renamed: Vec::new(),
            aliases: Vec::new(),
            integers: Vec::new(),
            sinks: Vec::new(),
            list_depth: 0,
        }
    }

    /// Records that `rule` fired on `words` (the command as judged).
    pub(super) fn report(&mut self, rule: &'static Rule, words: &[Arg], detail: String) {
        let command = crate::arg::display(words);
        self.report_text(rule, &command, detail);
    }

    pub(super) fn report_text(&mut self, rule: &'static Rule, command: &str, detail: String) {
        self.judgement
            .push(Finding::new(rule, command, detail, &self.via));
    }

    /// Runs `walk` with `via` added to the nesting trail.
    pub(super) fn inside<T>(&mut self, via: &str, walk: impl FnOnce(&mut Self) -> T) -> T {
        self.via.push(via.to_owned());
        let out = walk(self);
        self.via.pop();
        out
    }

    /// Parses `text` as shell code run with `stdin`, judges it one level
    /// deeper, and returns what it prints. Text that cannot be parsed, or
    /// nests too deep, is refused ([`rule::UNSCANNABLE`]).
    pub(super) fn nested(&mut self, text: &str, via: &str, stdin: &Flow) -> Flow {
        if self.depth >= MAX_DEPTH {
            self.report_text(
                &rule::UNSCANNABLE,
                text,
                format!("code nested more than {MAX_DEPTH} levels deep"),
            );
            return Flow::unknown();
        }
        if self.parses >= MAX_PARSES {
            self.report_text(
                &rule::UNSCANNABLE,
                text,
                format!("more than {MAX_PARSES} pieces of nested code"),
            );
            return Flow::unknown();
        }
        self.parses += 1;
        let program = match parse::parse(text) {
            Ok(program) => program,
            Err(failure) => {
                self.inside(via, |s| {
                    s.report_text(&rule::UNSCANNABLE, text, failure.to_string());
                });
                return Flow::unknown();
            }
        };
        self.depth += 1;
        let fanned_out = std::mem::replace(&mut self.fanned_out, false);
        let functions = std::mem::take(&mut self.functions);
        // `eval`, `source` and an alias run in this shell, and their `cd`
        // lasts; a child shell's or a substitution's does not.
        let same_shell = ["eval", "source", "alias"]
            .iter()
            .any(|word| via.starts_with(word));
        let flow = if same_shell {
            self.inside(via, |s| s.parsed(&program, stdin))
        } else {
            // A child shell's `exec > >(cmd)` ends with it.
            let sinks = self.sinks.len();
            self.subshell(|s| {
                let flow = s.inside(via, |s| s.parsed(&program, stdin));
                s.flush_sinks(sinks);
                flow
            })
        };
        self.functions = functions;
        self.fanned_out = fanned_out;
        self.depth -= 1;
        flow
    }

    /// Judges `text` as code in case it is code, keeping only blocks: text
    /// that fails to parse, or whose commands merely warn, adds nothing
    /// (nesting past the caps still blocks).
    pub(super) fn blocks_only(&mut self, text: &str, via: &str) {
        // Nor does it write: `(( x > 5 ))` read as code would write `5`.
        self.blocks_only_writing(text, via, false);
    }

    /// [`Self::blocks_only`], keeping the writes of the code when
    /// `writes` (the text is code that runs, not text read as code in
    /// case it is).
    fn blocks_only_writing(&mut self, text: &str, via: &str, writes: bool) {
        // The spaces around `$(( … ))`'s content are no part of the code; a
        // here-document's closing line with one after it would not parse.
        let text = text.trim();
        if parse::parse(text).is_err() {
            return;
        }
        let written = self.judgement.writes.len();
        self.blocks_from(|s| s.nested(text, via, &Flow::inherited()));
        if !writes {
            self.judgement.writes.truncate(written);
        }
    }

    /// Every write into the kernel's controls (`/proc/sysrq-trigger`,
    /// `/proc/sys/…`) the command makes, by whatever program or redirection:
    /// read off the write targets, so no writer can be missed.
    fn kernel_writes(&mut self) {
        use crate::write_target::WriteDir;
        let hits: Vec<String> = self
            .judgement
            .writes
            .iter()
            .filter_map(|w| {
                let path = w.path.as_deref()?;
                let full = match &w.dir {
                    WriteDir::Moved(dir) if !path.starts_with('/') => format!("{dir}/{path}"),
                    _ => path.to_owned(),
                };
                crate::checks::kernel::is_kernel_path(&full).then_some(full)
            })
            .collect();
        for path in hits {
            self.report_text(
                &rule::KERNEL,
                &path,
                format!("writing {path} changes the running kernel"),
            );
        }
    }

    /// Judges the substitutions (`$(…)`, backticks, `$((…))`) that bash
    /// runs when it expands `text` as it expands a double-quoted word (a
    /// prompt, an arithmetic operand, `ENV`): read as the body of an
    /// unquoted here-document, which bash expands the same way. Only blocks
    /// count, as for [`Self::blocks_only`]; what the substitutions write is
    /// written (`x='$(touch f)'; echo ${x@P}` writes f).
    pub(super) fn substitutions_in(&mut self, text: &str, via: &str) {
        if !text.contains(['$', '`']) {
            return;
        }
        let mut end = String::from("VOYAGE_END");
        while text.contains(&end) {
            end.push('_');
        }
        self.blocks_only_writing(&format!(": <<{end}\n{text}\n{end}\n"), via, true);
    }

    /// Judges a whole top-level command. Returns what was parsed, for the
    /// caller to drop once the judgement is handed on: freeing the words of
    /// a megabyte command (half a million of them) takes a good part of
    /// the time judging them does, and the answer need not wait for it.
    pub(super) fn top(&mut self, text: &str) -> Option<parse::Parsed> {
        self.parses += 1;
        match parse::parse(text) {
            Ok(program) => {
                self.parsed(&program, &Flow::inherited());
                self.flush_sinks(0);
                self.kernel_writes();
                Some(program)
            }
            Err(failure) => {
                // A fork bomb is often typed in forms the parser rejects.
                if crate::checks::fork_bomb::looks_like(text) {
                    self.report_text(&rule::FORK_BOMB, text, "a self-calling function".into());
                }
                self.report_text(&rule::UNSCANNABLE, text, failure.to_string());
                None
            }
        }
    }
}
