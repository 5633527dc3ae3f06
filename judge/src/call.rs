//! One command, judged by the program it runs: wrappers are taken off
//! ([`crate::wrapper`]), shells and `eval` have their code judged in turn,
//! interpreters and shells are refused downloaded or decoded code, and every
//! other program goes to its check ([`crate::checks`]) and to the write
//! targets it names. Each call returns what the command prints, as far as
//! that is known ([`Flow`]), for the next stage of a pipeline.

use crate::arg::{self, Arg, Taint};
use crate::checks;
use crate::descriptors::descriptor_of;
use crate::flow::{Flow, Text};
use crate::getopt::{self, Spec};
use crate::program::{Program, program};
use crate::rule;
use crate::scanner::Scanner;
use crate::shells;
use crate::word::ansi_c;
use crate::wrapper::{self, Inner};

/// Shells whose code is bash's, or close enough to be judged as bash (the
/// others are [`crate::shells`]').
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "pdksh", "oksh",
    "hush", "loksh", "ksh93",
];

const INTERPRETERS: &[&str] = &[
    "python",
    "pypy",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "lua",
    "luajit",
    "deno",
    "tclsh",
    "wish",
    "Rscript",
    "osascript",
    "jshell",
    "irb",
];

const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "http",
    "https",
    "xh",
    "aria2c",
    "lwp-request",
    "GET",
    "ftp",
    "tftp",
];

/// Interpreter options that take the program text or a module.
const CODE_OPTIONS: &[&str] = &[
    "-c",
    "-e",
    "-E",
    "-m",
    "-r",
    "-p",
    "--eval",
    "--print",
    "-x",
    "--command",
];

/// awk and its implementations.
pub(super) const AWKS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "busybox-awk",
    "goawk",
    "onetrue-awk",
];

/// Programs judged as if a computed command word were each of them.
const SUSPECTS: &[&str] = &["rm", "sh"];

impl Scanner<'_> {
    /// Judges the command `argv` reading `stdin`; returns what it prints.
    pub(super) fn call(&mut self, argv: &[Arg], stdin: &Flow) -> Flow {
        let Some((first, args)) = argv.split_first() else {
            return Flow::empty();
        };
        if let Some(name) = first.exact_text()
            && let Some(out) = self.call_function(name, args)
        {
            return out;
        }
        // `voyage-helper trek …`, however the helper is reached (a name on
        // PATH, the plugin's launcher by its path); `trek release` above all.
        if first.text.rsplit('/').next() == Some("voyage-helper")
            && args.first().is_some_and(|a| a.is("trek"))
        {
            self.judgement.runs_trek = true;
            let sub = args.get(1);
            if sub.is_some_and(|a| a.is("release") || !a.exact) {
                self.judgement.ends_run = true;
            }
            // `trek finish --gate X`, `--gate=X`, or arguments only known
            // when the command runs.
            if sub.is_some_and(|a| a.is("finish") || !a.exact)
                && args
                    .iter()
                    .skip(2)
                    .any(|a| !a.exact || a.text.starts_with("--gate"))
            {
                self.judgement.answers_gate = true;
            }
        }
        // `hash -p /bin/rm ls; ls …` runs /bin/rm.
        if let Some(name) = first.exact_text()
            && let Some((_, path)) = self.rebound.iter().rev().find(|(n, _)| n == name)
        {
            let mut as_path = vec![path.clone()];
            as_path.extend(args.iter().cloned());
            let name = name.to_owned();
            // Without the binding while its program runs, so that `hash -p
            // ls ls` cannot loop; it holds again for later calls.
            return self.inside(&format!("hash -p … {name}"), |s| {
                let rebound = std::mem::take(&mut s.rebound);
                let out = s.call(&as_path, stdin);
                s.rebound = rebound;
                out
            });
        }
        // `cp /bin/rm ./x && ./x -rf ~` runs rm; `alias x=rm` then `x`.
        if let Some(out) = self.run_renamed(argv, stdin) {
            return out;
        }
        if let Some(out) = self.run_alias(argv, stdin) {
            return out;
        }
        match program(first) {
            // `/proc/self/exe`, `/proc/$$/exe`: the running shell itself.
            Program::Named(name) if name == "exe" && first.text.starts_with("/proc/") => {
                self.named("bash", argv, args, stdin)
            }
            Program::Named(name) => {
                // `/tmp/x`, `~/bin/x`, or `x` on PATH, just downloaded.
                if first.text.contains('/') {
                    self.run_download(first, argv, "runs it");
                } else {
                    self.runs_download_by_name(&name, argv);
                }
                self.named(&name, argv, args, stdin)
            }
            Program::Local if let Some(tool) = environment_tool(&first.text) => {
                self.named(tool, argv, args, stdin)
            }
            Program::Local => {
                if !self.run_download(first, argv, "runs it") {
                    self.run_written(first, argv, "a script");
                }
                Flow::unknown()
            }
            // A command name read from a download or a decoder.
            Program::Computed if self.refuse_hostile(first.taint, argv, "runs it as a command") => {
                Flow::unknown()
            }
            Program::Computed => self.computed(argv, args, stdin),
        }
    }

    fn named(&mut self, name: &str, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        self.evaluating_builtin(name, argv, args);
        self.delayed(name, argv, args, stdin);
        self.names_taken(name, args);
        self.note_fifos(name, args);
        if let Some(inner) = wrapper::unwrap(name, args) {
            // A wrapper may write files of its own (`script`'s log,
            // `strace -o`); `sudoedit`'s are its files to edit, below.
            if !matches!(inner, Inner::Edit(_)) {
                self.program_writes(name, argv, args);
            }
            return match inner {
                Inner::Command(at) => {
                    let rest = args.get(at..).unwrap_or_default();
                    let before = args.get(..at).unwrap_or_default();
                    // `env -C DIR CMD`: CMD runs in DIR, or not at all.
                    let chdir = (name == "env").then(|| env_chdir(before)).flatten();
                    // `env NAME=VALUE CMD`: CMD sees NAME set.
                    let set = if name == "env" { before } else { &[] };
                    self.with_env_words(set, |s| match chdir {
                        Some(dir) => s.subshell(|s| {
                            s.run_in(&dir);
                            s.inside(name, |s| s.call(rest, stdin))
                        }),
                        None => s.inside(name, |s| s.call(rest, stdin)),
                    })
                }
                Inner::Code(words) => self.code(&format!("{name} (shell code)"), &words, stdin),
                Inner::Edit(files) => {
                    for file in &files {
                        self.write_target(argv, file, crate::paths::Write::Modify);
                    }
                    Flow::unknown()
                }
                Inner::Stdin => self.code_on_stdin(name, argv, stdin, true),
                Inner::Nothing => Flow::unknown(),
            };
        }
        if let Some(command) = executor_run(name, argv, args, stdin) {
            return self.code("voyage-helper run", &[command], &Flow::inherited());
        }
        self.declares(name, args);
        if self.sets_variables(name, args, stdin) && name != "printf" {
            return Flow::empty();
        }
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match name {
            _ if SHELLS.contains(&name) => return self.shell(name, argv, args, stdin),
            _ if shells::POWERSHELLS.contains(&name) => {
                return self.powershell(name, argv, args, stdin);
            }
            _ if shells::OTHER_SHELLS.contains(&name) => {
                return self.other_shell(name, argv, args, stdin);
            }
            _ if INTERPRETERS.contains(&base) => return self.interpreter(name, argv, args, stdin),
            // `bun -e CODE`; `bun add x` is the package manager.
            "bun"
                if args
                    .first()
                    .is_some_and(|a| CODE_OPTIONS.contains(&a.text.as_str())) =>
            {
                return self.interpreter(name, argv, args, stdin);
            }
            "eval" => return self.eval(argv, args, stdin),
            "source" | "." => return self.source(argv, args, stdin),
            "alias" => {
                for (alias, value) in args.iter().filter_map(|a| a.exact_text()?.split_once('=')) {
                    self.nested(value, "alias", &Flow::inherited());
                    self.aliases.push((alias.to_owned(), value.to_owned()));
                }
                return Flow::empty();
            }
            "trap" => {
                let args = match args.first() {
                    Some(first) if first.is("--") => args.get(1..).unwrap_or_default(),
                    _ => args,
                };
                if let Some(action) = args.first().filter(|a| !a.text.starts_with('-')) {
                    self.code("trap", std::slice::from_ref(action), &Flow::inherited());
                }
                return Flow::empty();
            }
            "xargs" => return self.xargs(args, stdin),
            "parallel" | "sem" => return self.parallel(args, stdin),
            // `at TIME` and `batch` run their input as shell code later.
            "at" | "batch" if !args.iter().any(|a| a.is("-l") || a.is("-r") || a.is("-d")) => {
                return self.code_on_stdin(name, argv, stdin, true);
            }
            "make" | "gmake" | "bmake" if reads_makefile_on_stdin(args) => {
                if let Some(makefile) = stdin.literal_text() {
                    self.makefile(makefile, &format!("{name} -f -"));
                } else {
                    self.code_on_stdin(name, argv, stdin, true);
                }
            }
            _ if AWKS.contains(&name) => self.awk(argv, args, stdin),
            _ if checks::rm::is_tree_remover(name) => {
                for file in args.iter().filter(|a| !a.text.starts_with('-')) {
                    self.write_target(argv, file, crate::paths::Write::Remove);
                }
            }
            "find" => self.find(argv, args),
            "cp" | "ln" | "install" | "mv" | "gcp" | "gln" | "ginstall" | "gmv" => {
                self.note_copies(name, args);
            }
            "cd" => self.change_dir(args),
            "set" => self.set_options(args),
            "history" => self.history_writes(argv, args),
            "pushd" | "popd" | "dirs" => self.dir_stack_call(name, args),
            _ => {}
        }
        for also in wrapper::also_runs(name, args) {
            match also {
                wrapper::Also::Code(words) => {
                    self.code(&format!("{name} (shell code)"), &words, &Flow::inherited());
                }
                wrapper::Also::Command(words) => {
                    self.inside(name, |s| s.call(&words, &Flow::inherited()));
                }
            }
        }
        // The files a download is saved to: `curl -o f`, `wget -O f`,
        // `wget URL`, `curl -O URL`, and `tee f` or `dd of=f` reading one.
        if DOWNLOADERS.contains(&name) || stdin.taint.download() {
            for (file, _) in checks::write_targets(name, args) {
                if let Some(path) = crate::downloads::known_path(&file) {
                    self.note_download(path);
                }
            }
            for path in checks::remote_names(name, args) {
                self.note_download(&path);
            }
        }
        self.note_download_copies(name, args);
        if let Some(detail) = network_shell(name, args) {
            self.report(&rule::DOWNLOAD_TO_SHELL, argv, detail);
        }
        for hit in checks::judge(name, args, self.ctx, self.cwd.as_deref()) {
            self.report(hit.rule, argv, hit.detail);
        }
        // `GIT_WORK_TREE=/ git clean -f`: the variable is `--work-tree`.
        if name == "git" {
            let trees: Vec<String> = self
                .env_values("GIT_WORK_TREE")
                .iter()
                .filter_map(|v| crate::cwd::known_path(v).map(|t| format!("--work-tree={t}")))
                .collect();
            for tree in trees {
                let mut with_tree = vec![Arg::literal(&tree)];
                with_tree.extend(args.iter().cloned());
                for hit in checks::judge(name, &with_tree, self.ctx, self.cwd.as_deref()) {
                    self.report(hit.rule, argv, format!("{} (GIT_WORK_TREE)", hit.detail));
                }
            }
        }
        match self.git_env_options(name) {
            Some(variants) => {
                for options in variants {
                    let mut with_env = options;
                    with_env.extend(args.iter().cloned());
                    self.program_writes(name, argv, &with_env);
                }
            }
            None => self.program_writes(name, argv, args),
        }
        self.output(name, args, stdin)
    }

    /// `history -w|-a [FILE]`: FILE, else each value the command gave
    /// `HISTFILE` (one it may not have set is the environment's, which
    /// is bash's default), else bash's default files.
    fn history_writes(&mut self, argv: &[Arg], args: &[Arg]) {
        let Some((write, file)) = checks::history::writes(args) else {
            return;
        };
        let mut files: Vec<Arg> = match file {
            Some(file) => vec![file.clone()],
            None => self.env_values("HISTFILE"),
        };
        // `$HISTFILE` unknown: the environment's, where it is not set.
        let from_env = |f: &Arg| !f.exact && f.text == "$HISTFILE";
        let defaults = files.is_empty() || files.iter().any(from_env);
        files.retain(|f| !from_env(f));
        if defaults {
            files.extend(
                checks::history::DEFAULT_FILES
                    .iter()
                    .map(|f| Arg::literal(f)),
            );
        }
        for file in &files {
            self.write_target(argv, file, write);
        }
    }

    /// The values the command gave the variable `name`, each as `$name`
    /// reads it (empty when the command never set it).
    pub(super) fn env_values(&self, name: &str) -> Vec<Arg> {
        self.vars
            .get(name)
            .unwrap_or_default()
            .iter()
            .map(crate::vars::Value::first)
            .collect()
    }

    /// For git, `GIT_DIR=…` and `GIT_WORK_TREE=…` set in the command as the
    /// options git reads them as (`--git-dir`, `--work-tree`), one set per
    /// value they can have; `None` when neither is set.
    fn git_env_options(&self, name: &str) -> Option<Vec<Vec<Arg>>> {
        if name != "git" {
            return None;
        }
        let dirs = self.env_values("GIT_DIR");
        let trees = self.env_values("GIT_WORK_TREE");
        if dirs.is_empty() && trees.is_empty() {
            return None;
        }
        // A value the command may not have set (`GIT_DIR=x git …` for the
        // commands after it, an assignment in a branch) is the
        // environment's, where git's variables are not set.
        let option = |flag: &str, value: Option<&Arg>| -> Vec<Arg> {
            value
                .filter(|v| v.exact || !v.text.starts_with("$GIT_"))
                .map_or_else(Vec::new, |v| vec![Arg::literal(flag), v.clone()])
        };
        let mut out = Vec::new();
        for dir in dirs.iter().map(Some).chain(dirs.is_empty().then_some(None)) {
            for tree in trees
                .iter()
                .map(Some)
                .chain(trees.is_empty().then_some(None))
            {
                let mut options = option("--git-dir", dir);
                options.extend(option("--work-tree", tree));
                out.push(options);
            }
        }
        Some(out)
    }

    /// What `name` prints, for the next command in the pipeline.
    fn output(&mut self, name: &str, args: &[Arg], stdin: &Flow) -> Flow {
        let has = |words: &[&str]| args.iter().any(|a| words.iter().any(|w| a.is(w)));
        // What the file operands (not options, not `x=y`) print, `None`
        // with none: `cat f`, `rev f` print a download when one of them
        // holds one. Read only by the programs that print their files: on
        // `echo` and half a million words it was a third of the judging.
        let read = || {
            args.iter()
                .filter(|a| !a.text.starts_with('-') && !a.text.contains('='))
                .map(|f| self.operand_flow(f))
                .reduce(Flow::then)
        };
        let decode = Taint::DECODE;
        match name {
            _ if DOWNLOADERS.contains(&name) => Flow::tainted(Taint::DOWNLOAD),
            "base64" | "base32" | "basenc" | "uudecode" => Flow::tainted(decode),
            // `rev` and `tr` undo a reversed or rotated command written in
            // the line (`echo 'fr- mr' | rev | sh`); what they read may
            // itself be a download, which still counts as one. Over the
            // project's own file (`tr -d '\r' < build.sh | sh`) they hide
            // nothing that running the file would not.
            "rev" | "tr" => {
                let input = if name == "rev" { read() } else { None };
                let input = input.unwrap_or_else(|| stdin.clone());
                match input.text {
                    Text::File | Text::Inherited if !input.taint.is_hostile() => input,
                    _ => Flow::tainted(decode.union(input.taint)),
                }
            }
            // Over the project's own file, a sed that only trims what it
            // reads (`sed 's/\r$//' build.sh | bash`) is `cat`.
            "sed" => match checks::sed::trimming_files(args) {
                Some(files) if files.is_empty() => match stdin.text {
                    Text::File | Text::Inherited if !stdin.taint.is_hostile() => stdin.clone(),
                    _ => Flow::unknown(),
                },
                Some(files) => files
                    .iter()
                    .map(|f| self.file_flow(f))
                    .find(|f| f.taint.download())
                    .unwrap_or_else(Flow::file),
                None => Flow::unknown(),
            },
            "xxd" if has(&["-r", "-revert", "-rp", "-r -p"]) => Flow::tainted(decode),
            "openssl" | "gpg" | "gpg2"
                if has(&["-d", "-decrypt", "--decrypt", "-a", "-base64"]) =>
            {
                Flow::tainted(decode)
            }
            "echo" => echo(args),
            "printf" => printf(args),
            "cat" | "tee" | "dd" => {
                let read = if name == "cat" { read() } else { None };
                read.unwrap_or_else(|| stdin.clone())
            }
            _ => Flow::unknown(),
        }
    }

    /// A command whose name is only known at run time: judged as if it were
    /// each of [`SUSPECTS`]; a block found that way stands, otherwise the
    /// command is reported as opaque.
    fn computed(&mut self, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        let why = "the command name is computed at run time";
        if !self.judge_as_suspects(args, stdin, why) {
            self.report(
                &rule::OPAQUE,
                argv,
                "the command name is only known at run time".into(),
            );
        }
        // It could be a downloader: what it prints is not run as code.
        Flow::tainted(Taint::DOWNLOAD)
    }

    /// Judges `args` as if run by each of [`SUSPECTS`], keeping only the
    /// blocks found so (their detail saying `why`); whether there was one.
    pub(super) fn judge_as_suspects(&mut self, args: &[Arg], stdin: &Flow, why: &str) -> bool {
        let before = self.judgement.findings.len();
        for suspect in SUSPECTS {
            let start = self.judgement.findings.len();
            let mut as_if = vec![Arg::literal(suspect)];
            as_if.extend(args.iter().cloned());
            self.named(suspect, &as_if, args, stdin);
            let found: Vec<_> = self.judgement.findings.drain(start..).collect();
            for mut finding in found {
                if finding.rule.severity == rule::Severity::Block {
                    finding.detail = format!("{} ({why}; judged as {suspect})", finding.detail);
                    self.judgement.push(finding);
                }
            }
        }
        self.judgement.findings.len() > before
    }

    /// Words run as shell code (`bash -c`, `su -c`, `ssh host …`).
    pub(super) fn code(&mut self, via: &str, words: &[Arg], stdin: &Flow) -> Flow {
        let taint = words.iter().fold(Taint::default(), |t, w| t.union(w.taint));
        if self.refuse_hostile(taint, words, "runs it as shell code") {
            return Flow::unknown();
        }
        let text = words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let computed = words
            .iter()
            .all(|w| !w.exact && w.known_at() >= w.text.len() && w.text.starts_with(['$', '`']));
        if computed {
            self.report(
                &rule::OPAQUE,
                words,
                "shell code only known at run time".into(),
            );
            return Flow::unknown();
        }
        // Unknown parts keep their source spelling ($X, $(cmd)), which reads
        // as the same shell code.
        self.nested(&text, via, stdin)
    }

    /// Remembers that a downloader wrote `path`.
    pub(super) fn note_download(&mut self, path: &str) {
        let path = same_file(path);
        if matches!(path, "" | "-") || is_device(path) {
            return;
        }
        for spelling in crate::downloads::spellings(path, self.known_cwd()) {
            if !self.downloaded.contains(&spelling) {
                self.downloaded.push(spelling);
            }
        }
    }

    /// What reading `file` gives: a download when a downloader wrote it
    /// earlier in the command, the text the command wrote there (unknown
    /// when only known at run time), else the project's own file.
    pub(super) fn file_flow(&self, file: &Arg) -> Flow {
        let path = crate::downloads::known_path(file);
        let fetched = path.is_some_and(|path| self.is_downloaded(path));
        let written = path.and_then(|path| {
            let path = same_file(path);
            self.written.iter().rev().find(|(p, _)| p == path)
        });
        if let (false, Some((_, text))) = (fetched, written) {
            return match text {
                Some(text) => Flow::literal(text.clone()),
                None => Flow::unknown(),
            };
        }
        if fetched {
            Flow::tainted(Taint::DOWNLOAD)
        } else {
            Flow::file()
        }
    }

    /// What reading the operand `file` gives: what a process substitution
    /// prints (`cat <(curl …)` is the download, `cat <(echo …)` that
    /// text), else [`Self::file_flow`].
    fn operand_flow(&self, file: &Arg) -> Flow {
        match &file.content {
            Some(text) => Flow::literal(String::clone(text)),
            None if file.taint.is_hostile() => Flow::tainted(file.taint),
            None => self.file_flow(file),
        }
    }

    /// Records that the command wrote `path`, with `text` when the text
    /// written is known (the last write decides; an append adds to it).
    pub(super) fn note_written(&mut self, path: &str, text: Option<&str>) {
        let path = same_file(path);
        if matches!(path, "" | "-") || is_device(path) {
            return;
        }
        self.written.retain(|(p, _)| p != path);
        self.written
            .push((path.to_owned(), text.map(str::to_owned)));
    }

    /// Running `file`, which this command wrote earlier: its known text is
    /// judged as the code it is; text only known at run time warns as an
    /// opaque command. Whether it was one.
    fn run_written(&mut self, file: &Arg, argv: &[Arg], via: &str) -> bool {
        let Some(path) = file.exact_text().map(same_file) else {
            return false;
        };
        let Some((_, text)) = self.written.iter().rev().find(|(p, _)| p == path).cloned() else {
            return false;
        };
        match text {
            Some(code) => {
                self.nested(
                    &code,
                    &format!("{via} (written earlier)"),
                    &Flow::inherited(),
                );
            }
            // `cat /bin/rm > x; ./x -rf ~`: a block it would get as the
            // programs a computed name is judged as stands too.
            None => {
                let why = format!("{path} was written earlier in the command");
                // Without the record, so `sh x` judged as `sh` cannot loop.
                let written = std::mem::take(&mut self.written);
                self.judge_as_suspects(argv.get(1..).unwrap_or_default(), &Flow::inherited(), &why);
                self.written = written;
                self.report(
                    &rule::OPAQUE,
                    argv,
                    format!(
                        "{path} was written earlier in the command with text only known at run time"
                    ),
                );
            }
        }
        true
    }

    /// Blocks running `file` when a downloader wrote it earlier in the
    /// command (`curl -o f URL && sh f`): the same as piping it in.
    pub(super) fn run_download(&mut self, file: &Arg, argv: &[Arg], what: &str) -> bool {
        let Some(path) = crate::downloads::known_path(file) else {
            return false;
        };
        let path = same_file(path);
        let fetched = self.is_downloaded(path);
        if fetched {
            self.report(
                &rule::DOWNLOAD_TO_SHELL,
                argv,
                format!("{path} was just downloaded and this {what}"),
            );
        }
        fetched
    }

    /// Blocks `taint` from a download or decoder reaching code.
    pub(super) fn refuse_hostile(&mut self, taint: Taint, words: &[Arg], what: &str) -> bool {
        if taint.download() {
            self.report(
                &rule::DOWNLOAD_TO_SHELL,
                words,
                format!("downloaded text reaches a program that {what}"),
            );
        } else if taint.decode() {
            self.report(
                &rule::DECODE_TO_SHELL,
                words,
                format!("decoded text reaches a program that {what}"),
            );
        }
        taint.is_hostile()
    }

    /// A shell: `-c STRING`, a script file, or code on stdin.
    fn shell(&mut self, name: &str, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        let mut command_mode = false;
        let mut stdin_mode = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let text = arg.text.as_str();
            if !arg.exact || !(text.starts_with('-') || text.starts_with('+')) || text == "-" {
                break;
            }
            i += 1;
            if text == "--" {
                break;
            }
            match text {
                // The start-up file an interactive shell sources instead of
                // `~/.bashrc`: `--rcfile <(…)` runs what it holds.
                "--rcfile" | "--init-file" => {
                    if let Some(file) = args.get(i) {
                        let file = file.clone();
                        self.source(argv, std::slice::from_ref(&file), stdin);
                    }
                    i += 1;
                }
                "-o" | "+o" | "-O" | "+O" => i += 1,
                _ if text.starts_with("--") => {}
                _ => {
                    command_mode |= text.contains('c');
                    stdin_mode |= text.starts_with('-') && text.contains('s');
                }
            }
        }
        let operand = args.get(i);
        if stdin_mode && !command_mode {
            return self.code_on_stdin(name, argv, stdin, true);
        }
        // `BASH_ENV=/dev/stdin bash -c …`: before its code, the shell
        // sources the file `BASH_ENV` (`ENV` for `sh`) names, here its
        // own input or another descriptor.
        if command_mode || operand.is_some() {
            for fd in self.start_up_descriptors() {
                match fd {
                    0 => self.code_on_stdin(name, argv, stdin, true),
                    fd => self.code_from_descriptor(name, argv, fd),
                };
            }
        }
        if command_mode {
            let Some(code) = operand else {
                return Flow::unknown();
            };
            // `sh -c CODE ARG0 ARG1…`: the code's `$0` and `$1`….
            let rest = args.get(i + 1..).unwrap_or_default();
            let positional = crate::vars::Positional {
                zero: rest.first().cloned(),
                args: rest.get(1..).unwrap_or_default().to_vec(),
            };
            let outer = self.vars.positional.replace(positional);
            let flow = self.code(&format!("{name} -c"), std::slice::from_ref(code), stdin);
            self.vars.positional = outer;
            return flow;
        }
        match operand {
            // `bash /dev/fd/3 3<<< …`: the code descriptor 3 holds.
            Some(script) if let Some(fd) = descriptor_of(&script.text).filter(|fd| *fd != 0) => {
                self.code_from_descriptor(name, argv, fd)
            }
            Some(script) if script.text != "-" && !is_stdin_path(&script.text) => {
                if let Some(code) = &script.content {
                    return self.nested(code, &format!("{name} <(...)"), &Flow::inherited());
                }
                if self.run_download(script, argv, "runs it as a script") {
                    return Flow::unknown();
                }
                if self.run_written(script, argv, name) {
                    return Flow::unknown();
                }
                if !self.refuse_hostile(script.taint, argv, "runs it as a script")
                    && !script.exact
                    && script.taint.opaque()
                    && script.text.starts_with(['<', '$'])
                {
                    self.report(
                        &rule::OPAQUE,
                        argv,
                        "the script is only known at run time".into(),
                    );
                }
                Flow::unknown()
            }
            _ => self.code_on_stdin(name, argv, stdin, true),
        }
    }

    /// The descriptors `BASH_ENV` or `ENV`, as the command set them, may
    /// name (`/dev/stdin`, `/dev/fd/3`).
    fn start_up_descriptors(&self) -> Vec<i32> {
        let mut fds = Vec::new();
        for name in ["BASH_ENV", "ENV"] {
            for value in self.variable_values(name) {
                if let Some(fd) = value.first().exact_text().and_then(descriptor_of)
                    && !fds.contains(&fd)
                {
                    fds.push(fd);
                }
            }
        }
        fds
    }

    /// A shell or interpreter that reads its program from `stdin`.
    pub(super) fn code_on_stdin(
        &mut self,
        name: &str,
        argv: &[Arg],
        stdin: &Flow,
        is_shell: bool,
    ) -> Flow {
        let what = if is_shell {
            "runs its input as shell code"
        } else {
            "runs its input as a program"
        };
        if self.refuse_hostile(stdin.taint, argv, what) {
            return Flow::unknown();
        }
        if !is_shell {
            // `python3 - <<'EOF'`, `echo '…' | perl`: the program is known.
            if let Text::Literal(code) = &stdin.text {
                let code = code.clone();
                self.program_text(name, &format!("input of {name}"), &code, argv);
            }
            return Flow::unknown();
        }
        match &stdin.text {
            Text::Literal(code) => {
                let code = code.clone();
                self.nested(&code, &format!("input of {name}"), &Flow::inherited())
            }
            Text::Inherited | Text::File => Flow::unknown(),
            Text::Unknown => {
                self.report(
                    &rule::OPAQUE,
                    argv,
                    "a shell reads code that is only known at run time".into(),
                );
                // The parts that are known run whatever the rest is.
                for part in stdin.known.clone() {
                    self.blocks_only(&part, &format!("input of {name}"));
                }
                Flow::unknown()
            }
        }
    }

    /// python, perl, node and kin: code from a download or decoder, as an
    /// argument or on stdin, is refused; any other code is not shell and is
    /// left alone (`python3 -c "print('rm -rf /')"` is fine).
    fn interpreter(&mut self, name: &str, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        let taint = args.iter().fold(Taint::default(), |t, a| t.union(a.taint));
        if self.refuse_hostile(taint, argv, "runs it as a program") {
            return Flow::unknown();
        }
        // `perl -i`, `ruby -i`: the files it edits in place.
        self.program_writes(name, argv, args);
        // `python -m pip install x` is pip.
        if let Some(at) = args.iter().position(|a| a.is("-m"))
            && let Some(module) = args.get(at + 1).and_then(Arg::exact_text)
            && matches!(module, "pip" | "pip3")
        {
            let rest = args.get(at + 2..).unwrap_or_default();
            if let Some(hit) = checks::deps::check("pip", rest) {
                self.report(hit.rule, argv, hit.detail);
            }
            return Flow::unknown();
        }
        // One-line programs: the shell commands they hand to system() and
        // kin are judged as shell.
        for (i, arg) in args.iter().enumerate() {
            if arg.exact
                && CODE_OPTIONS.contains(&arg.text.as_str())
                && arg.text != "-m"
                && let Some(code) = args.get(i + 1).and_then(Arg::exact_text)
            {
                self.program_text(name, &format!("{name} {}", arg.text), code, argv);
            }
        }
        // `deno eval CODE`.
        if base_name(name) == "deno"
            && args.first().is_some_and(|a| a.is("eval"))
            && let Some(code) = args.get(1).and_then(Arg::exact_text)
        {
            self.program_text(name, "deno eval", code, argv);
            return Flow::unknown();
        }
        if let Some(script) = args.iter().find(|a| !a.text.starts_with('-')) {
            self.run_download(script, argv, "runs it as a program");
        }
        let code_given = args.iter().any(|a| {
            a.exact
                && (CODE_OPTIONS.contains(&a.text.as_str())
                    || (!a.text.starts_with('-') && a.text != "-"))
        }) || args.iter().any(|a| !a.exact);
        if code_given {
            return Flow::unknown();
        }
        self.code_on_stdin(name, argv, stdin, false)
    }

    /// The text of a program `name` runs (given by `via`: `python3 -c`,
    /// `input of perl`): the shell commands it hands to system() and kin
    /// are judged as shell, and what it does itself as the shell command
    /// that would do the same.
    pub(super) fn program_text(&mut self, name: &str, via: &str, code: &str, argv: &[Arg]) {
        let backticks = matches!(base_name(name), "perl" | "ruby" | "php" | "irb");
        let mut commands = checks::inline::shell_strings(code, backticks);
        if matches!(base_name(name), "tclsh" | "wish") {
            commands.extend(checks::inline::tcl_commands(code));
        }
        for command in commands {
            self.nested(&command, &format!("{via} (shell call)"), &Flow::inherited());
        }
        for hidden in checks::inline::hidden_code(code) {
            match hidden {
                checks::inline::Hidden::Decoded(call) => self.report(
                    &rule::DECODE_TO_SHELL,
                    argv,
                    format!("the program decodes text and runs what it computed with {call}()"),
                ),
                checks::inline::Hidden::Fetched(call) => self.report(
                    &rule::DOWNLOAD_TO_SHELL,
                    argv,
                    format!("the program downloads text and runs what it computed with {call}()"),
                ),
                checks::inline::Hidden::Unknown(call) => self.report(
                    &rule::OPAQUE,
                    argv,
                    format!("{call}() runs a shell command only known at run time"),
                ),
            }
        }
        for effect in checks::inline::effects(code) {
            self.inline_effect(argv, effect);
        }
    }

    /// A one-line program's own deed, judged as the shell command that
    /// would do the same: a tree delete as `rm -r PATH`, a write as a
    /// redirection into the path, a fork loop as a fork bomb.
    fn inline_effect(&mut self, argv: &[Arg], effect: checks::inline::Effect) {
        use checks::inline::Effect;
        match effect {
            Effect::DeleteTree { call, path } => {
                if let Some(hit) = self.find_critical(&[Arg::literal(&path)]) {
                    self.report(hit.rule, argv, format!("{call}: {}", hit.detail));
                }
            }
            Effect::Write { call, path, write } => self.inline_write(argv, call, &path, write),
            // The link's own path, judged as `ln`'s: a link made over a
            // path replaces it, and what it points to is judged too.
            Effect::Link {
                call,
                path,
                to,
                symbolic,
            } => {
                self.inline_write(argv, call, &path, crate::paths::Write::Remove);
                self.record_link(crate::write_target::Link {
                    to,
                    symbolic,
                    from_here: !symbolic,
                });
                self.link_made(argv);
            }
            // Where it writes is not known: refused during a run.
            Effect::WriteSomewhere { call } => self.record_write(
                &Arg::unknown(&format!("{call}(…)"), Taint::default()),
                crate::paths::Write::Replace,
            ),
            Effect::ForkLoop => self.report(
                &rule::FORK_BOMB,
                argv,
                "the program forks inside a loop that never ends".into(),
            ),
        }
    }

    /// A one-line program's `call` writing `path`, judged as a redirection
    /// into it.
    fn inline_write(&mut self, argv: &[Arg], call: &str, path: &str, write: crate::paths::Write) {
        self.record_write(&Arg::literal(path), write);
        if let Some((rule, detail)) = self.protected(path, write) {
            self.report(rule, argv, format!("{call}: {detail}"));
        }
    }

    /// `eval`: words joined and run as code. Anything expanded at run time
    /// in them (trekexecute Phase 2.4: "eval with $, backtick, or $(") is
    /// refused; literal code is judged.
    fn eval(&mut self, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        if let Some(dynamic) = args
            .iter()
            .find(|a| !a.exact || a.text.contains(['$', '`']))
        {
            self.report(
                &rule::EVAL_EXPANSION,
                argv,
                format!("eval of {} runs code only known at run time", dynamic.text),
            );
            let taint = args.iter().fold(Taint::default(), |t, a| t.union(a.taint));
            self.refuse_hostile(taint, argv, "runs it as shell code");
            // Text the command gives whole (`eval "$(cat <<'EOF' … EOF)"`)
            // is still the code that runs: judged as well.
            if !args.iter().all(|a| a.exact) {
                return Flow::unknown();
            }
        }
        let text = args
            .iter()
            .map(|a| a.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        self.nested(&text, "eval", stdin)
    }

    /// `source FILE` / `. FILE`: fine for a file, refused for a download.
    pub(super) fn source(&mut self, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Flow {
        match args.first() {
            Some(file) if let Some(fd) = descriptor_of(&file.text).filter(|fd| *fd != 0) => {
                self.code_from_descriptor("source", argv, fd)
            }
            Some(file) if file.text == "-" || is_stdin_path(&file.text) => {
                self.code_on_stdin("source", argv, stdin, true)
            }
            Some(file) => match &file.content {
                Some(code) => self.nested(code, "source <(...)", &Flow::inherited()),
                None => {
                    if !self.run_download(file, argv, "runs it as shell code")
                        && !self.run_written(file, argv, "source")
                    {
                        self.refuse_hostile(file.taint, argv, "runs it as shell code");
                    }
                    Flow::unknown()
                }
            },
            None => Flow::unknown(),
        }
    }

    /// `xargs [options] COMMAND [ARGS]`: COMMAND runs with words read from
    /// stdin added (or put in place of `-I`'s placeholder).
    fn xargs(&mut self, args: &[Arg], stdin: &Flow) -> Flow {
        const XARGS: Spec = Spec::new(
            "adEeIiLlnPs",
            &[
                ("arg-file", true),
                ("delimiter", true),
                ("eof", true),
                ("replace", true),
                ("max-lines", true),
                ("max-args", true),
                ("max-procs", true),
                ("max-chars", true),
                ("process-slot-var", true),
                ("null", false),
                ("no-run-if-empty", false),
                ("verbose", false),
                ("interactive", false),
                ("exit", false),
                ("open-tty", false),
            ],
        )
        .posix();
        let p = getopt::parse(args, &XARGS);
        // `-a FILE`: the words come from FILE (`-a <(…)`: what that
        // prints), not from stdin.
        let stdin = &match arg_file(args.get(..p.rest).unwrap_or_default()) {
            Some(file) => match &file.content {
                Some(text) => Flow::literal(String::clone(text)),
                None if file.taint.is_hostile() => Flow::tainted(file.taint),
                None if file.text == "-" || is_stdin_path(&file.text) => stdin.clone(),
                None => self.file_flow(&file),
            },
            None => stdin.clone(),
        };
        let placeholder = p
            .values(Some('I'), Some("replace"))
            .first()
            .map(|s| (*s).to_owned())
            .or_else(|| p.has_short('i').then(|| "{}".to_owned()));
        let read = Arg {
            text: "ARGS...".into(),
            exact: false,
            glob: false,
            known_from: 7,
            taint: stdin.taint.union(Taint::OPAQUE),
            content: None,
        };
        let mut command: Vec<Arg> = args.get(p.rest..).unwrap_or_default().to_vec();
        if command.is_empty() {
            return Flow::unknown();
        }
        // Input the engine knows (`echo -1 | xargs kill -9`): its words,
        // split as xargs splits them, are what is added.
        let delimiter = if p.has("0", &["null"]) {
            Some('\0')
        } else {
            p.values(Some('d'), Some("delimiter"))
                .first()
                .and_then(|d| ansi_c(d).unwrap_or_else(|| (*d).to_owned()).chars().next())
        };
        // With `-I` each input line is one argument.
        let delimiter = delimiter.or_else(|| placeholder.is_some().then_some('\n'));
        let known = stdin
            .literal_text()
            .map(|text| input_words(text, delimiter));
        // No input at all: the command runs once without words added
        // (unless `-r`), and with `-I` not at all.
        if known.as_ref().is_some_and(Vec::is_empty) {
            if placeholder.is_none() && !p.has("r", &["no-run-if-empty"]) {
                self.inside("xargs", |s| s.call(&command, &Flow::inherited()));
            }
            return Flow::unknown();
        }
        if let Some(words) = known {
            let words: Vec<Arg> = words.iter().map(|w| Arg::derived(w)).collect();
            match &placeholder {
                // One command per input line, the placeholder replaced.
                Some(marker) => {
                    for word in &words {
                        let each: Vec<Arg> = command
                            .iter()
                            .enumerate()
                            .map(|(i, a)| {
                                if i > 0 && a.text.contains(marker.as_str()) {
                                    Arg::derived(&a.text.replace(marker.as_str(), &word.text))
                                } else {
                                    a.clone()
                                }
                            })
                            .collect();
                        self.inside("xargs", |s| s.call(&each, &Flow::inherited()));
                    }
                }
                None => {
                    command.extend(words);
                    self.inside("xargs", |s| s.call(&command, &Flow::inherited()));
                }
            }
            return Flow::unknown();
        }
        match placeholder {
            Some(marker) => {
                for word in command.iter_mut().skip(1) {
                    if word.text.contains(&marker) {
                        *word = Arg {
                            text: word.text.replace(&marker, "ARGS").into(),
                            ..read.clone()
                        };
                    }
                }
            }
            None => command.push(read),
        }
        self.inside("xargs", |s| s.call(&command, &Flow::inherited()))
    }

    /// The builtins that evaluate text bash does not show as code: `let`'s
    /// arithmetic, `mapfile -C`'s callback, `hash -p` and `enable -f`
    /// rebinding a name, and `env`'s exported functions
    /// (`BASH_FUNC_name%%=() { …; }`, run when the child shell calls them).
    fn evaluating_builtin(&mut self, name: &str, argv: &[Arg], args: &[Arg]) {
        match name {
            "let" => {
                for arg in args {
                    self.evaluate(&arg.text, arg.exact);
                }
            }
            "mapfile" | "readarray" => {
                const MAPFILE: Spec = Spec::new("dnOsuCc", &[]).posix();
                let p = getopt::parse(args, &MAPFILE);
                if let Some(callback) = p.values(Some('C'), None).first() {
                    let word = args
                        .iter()
                        .find(|a| a.text == *callback)
                        .cloned()
                        .unwrap_or_else(|| Arg::derived(callback));
                    self.code("mapfile -C", &[word], &Flow::inherited());
                }
            }
            "hash" => {
                let mut words = args.iter();
                while let Some(word) = words.next() {
                    if word.is("-p")
                        && let (Some(path), Some(alias)) = (words.next(), words.next())
                        && let Some(alias) = alias.exact_text()
                    {
                        self.rebound.push((alias.to_owned(), path.clone()));
                    }
                }
            }
            // `compgen -C CMD` runs CMD for the completions (`complete -C`
            // at each completion); `bind -x 'KEYS: CMD'` at a key press.
            "compgen" | "complete" => {
                let mut words = args.iter();
                while let Some(word) = words.next() {
                    if word.is("-C")
                        && let Some(code) = words.next()
                    {
                        self.code(
                            &format!("{name} -C"),
                            std::slice::from_ref(code),
                            &Flow::inherited(),
                        );
                    }
                }
            }
            "bind" => {
                let mut words = args.iter();
                while let Some(word) = words.next() {
                    if word.is("-x")
                        && let Some(binding) = words.next()
                        && let Some((_, code)) = binding.text.split_once(':')
                    {
                        let code = code.trim().trim_matches(['"', '\'']);
                        self.nested(code, "bind -x", &Flow::inherited());
                    }
                }
            }
            "enable" if args.iter().any(|a| a.is("-f")) => self.report(
                &rule::OPAQUE,
                argv,
                "enable -f loads a builtin from a shared object, code nobody can check".into(),
            ),
            "env" => {
                for arg in args.iter().filter(|a| a.text.starts_with("BASH_FUNC_")) {
                    if let Some((_, body)) = arg
                        .text
                        .split_once("%%=")
                        .or_else(|| arg.text.split_once("()="))
                    {
                        let code = format!("voyage_exported{body}; voyage_exported");
                        self.nested(&code, "exported function", &Flow::inherited());
                    }
                }
            }
            _ => {}
        }
    }

    /// GNU `parallel [options] COMMAND ::: ARGS…`: the command words are
    /// joined and run by a shell once per argument, which takes the place of
    /// `{}` (and `{.}`, `{/}`, …) or is added at the end. Arguments from
    /// stdin or `::::` files are unknown words, as for `xargs`.
    fn parallel(&mut self, args: &[Arg], stdin: &Flow) -> Flow {
        const PARALLEL: Spec = Spec::new(
            "aCdEIjLNnPSs",
            &[
                ("jobs", true),
                ("joblog", true),
                ("results", true),
                ("delay", true),
                ("timeout", true),
                ("retries", true),
                ("tmpdir", true),
                ("workdir", true),
                ("sshlogin", true),
                ("arg-file", true),
                ("colsep", true),
                ("delimiter", true),
                ("replace", true),
                ("max-args", true),
                ("max-lines", true),
                ("tagstring", true),
                ("halt", true),
                ("memfree", true),
                ("load", true),
                ("env", true),
                ("profile", true),
                ("basefile", true),
                ("return", true),
                ("transfer", true),
                ("keep-order", false),
                ("tag", false),
                ("dry-run", false),
                ("verbose", false),
                ("progress", false),
                ("bar", false),
                ("eta", false),
                ("null", false),
                ("quote", false),
                ("ungroup", false),
                ("line-buffer", false),
                ("group", false),
                ("will-cite", false),
                ("no-notice", false),
                ("pipe", false),
            ],
        )
        .posix();
        let p = getopt::parse(args, &PARALLEL);
        let rest = args.get(p.rest..).unwrap_or_default();
        let separator =
            |a: &Arg| a.exact && matches!(a.text.as_str(), ":::" | "::::" | ":::+" | "::::+");
        let end = rest.iter().position(separator).unwrap_or(rest.len());
        let command = rest.get(..end).unwrap_or_default();
        if p.has("", &["dry-run"]) {
            return Flow::unknown();
        }
        let marker = p
            .values(Some('I'), Some("replace"))
            .first()
            .map_or_else(|| "{}".to_owned(), |m| (*m).to_owned());
        let mut values: Vec<Arg> = Vec::new();
        let mut from_files = false;
        let mut group = rest.get(end..).unwrap_or_default();
        while let Some((sep, after)) = group.split_first() {
            let next = after.iter().position(separator).unwrap_or(after.len());
            let items = after.get(..next).unwrap_or_default();
            if sep.text.starts_with("::::") {
                from_files = true;
            } else {
                values.extend(items.iter().take(64).cloned());
            }
            group = after.get(next..).unwrap_or_default();
        }
        let unknown = Arg {
            text: "ARGS...".into(),
            exact: false,
            glob: false,
            known_from: 7,
            taint: stdin.taint.union(Taint::OPAQUE),
            content: None,
        };
        if values.is_empty() || from_files {
            values.push(unknown);
        }
        let has_marker = command.iter().any(|w| {
            w.text.contains(&marker)
                || ["{.}", "{/}", "{//}", "{/.}", "{#}"]
                    .iter()
                    .any(|m| w.text.contains(m))
        });
        for value in values {
            // `parallel ::: 'make a' 'make b'`: each argument is a command.
            let words: Vec<Arg> = if command.is_empty() {
                vec![value]
            } else if has_marker {
                command
                    .iter()
                    .map(|w| {
                        let mut text = w.text.replace(&marker, &value.text);
                        for m in ["{.}", "{/}", "{//}", "{/.}"] {
                            text = text.replace(m, &value.text);
                        }
                        Arg {
                            text: text.into(),
                            exact: w.exact && value.exact,
                            taint: w.taint.union(value.taint),
                            ..w.clone()
                        }
                    })
                    .collect()
            } else {
                let mut words = command.to_vec();
                words.push(value);
                words
            };
            self.code("parallel", &words, &Flow::inherited());
        }
        Flow::unknown()
    }

    /// awk's program: the commands it runs with `system()`, prints into
    /// with `print … | "CMD"` or reads with `"CMD" | getline` are shell
    /// code, and text printed into a shell (`print "…" | "sh"`) is too. A
    /// command only known at run time is built from what awk reads, so
    /// over a download or decoded text (`curl … | awk '{system($0)}'`) it
    /// runs that text.
    fn awk(&mut self, argv: &[Arg], args: &[Arg], stdin: &Flow) {
        const AWK: Spec = Spec::new(
            "fvFWE",
            &[
                ("file", true),
                ("assign", true),
                ("field-separator", true),
                ("include", true),
                ("load", true),
                ("source", true),
                ("exec", true),
            ],
        );
        let p = getopt::parse(args, &AWK);
        let mut programs: Vec<&str> = p.values(None, Some("source"));
        if !p.has("f", &["file", "exec"])
            && let Some(program) = p.operands.first()
        {
            if !program.exact {
                return;
            }
            programs.push(program.text.as_str());
        }
        for program in programs {
            for call in checks::awk::shell_calls(program) {
                match call {
                    checks::awk::Call::Code(code) => {
                        self.nested(&code, "awk (shell command)", &Flow::inherited());
                    }
                    checks::awk::Call::Unknown => {
                        let read = p
                            .operands
                            .iter()
                            .skip(1)
                            .fold(stdin.taint, |t, f| t.union(self.file_flow(f).taint));
                        if !self.refuse_hostile(read, argv, "builds shell commands from it") {
                            self.report(
                                &rule::OPAQUE,
                                argv,
                                "awk runs a shell command only known at run time".into(),
                            );
                        }
                    }
                }
            }
        }
    }

    /// The rm-critical-path hit of deleting everything `find` matches under
    /// `starts`, read like `rm -r STARTS`.
    fn find_critical(&self, starts: &[Arg]) -> Option<checks::Hit> {
        let mut as_rm = vec![Arg::literal("-r")];
        as_rm.extend(starts.iter().cloned());
        checks::rm::check(&as_rm, self.ctx, self.cwd.as_deref())
            .into_iter()
            .find(|h| h.rule.id == rule::RM_CRITICAL.id)
    }

    /// `find … -exec CMD … ;` runs CMD on each match; `-delete` deletes.
    fn find(&mut self, argv: &[Arg], args: &[Arg]) {
        let starts = find_starts(args);
        let matched = find_match(&starts, args);
        let mut words = args.iter().enumerate();
        while let Some((i, word)) = words.next() {
            match word.exact_text() {
                Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                    let start = i + 1;
                    let end = args
                        .iter()
                        .skip(start)
                        .position(|a| a.is(";") || a.is("+"))
                        .map_or(args.len(), |n| start + n);
                    let command: Vec<Arg> = args
                        .get(start..end)
                        .unwrap_or_default()
                        .iter()
                        .map(|a| {
                            if a.is("{}") {
                                matched.clone()
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    let via = format!("find {}", word.text);
                    self.inside(&via, |s| s.call(&command, &Flow::inherited()));
                    // `{}` is each match, the start points first: `rm` of
                    // them is a recursive delete of the start points.
                    let rm = without_wrappers(&command).first().map(program);
                    if matches!(rm, Some(Program::Named(name)) if name == "rm")
                        && let Some(hit) = self.find_critical(&starts)
                    {
                        let detail = format!("find {} rm: {}", word.text, hit.detail);
                        self.report(hit.rule, argv, detail);
                    }
                    for _ in start..end {
                        words.next();
                    }
                }
                Some("-delete") => match self.find_critical(&starts) {
                    Some(hit) => {
                        self.report(hit.rule, argv, format!("find -delete: {}", hit.detail))
                    }
                    None if self.in_project(&starts)
                        && crate::find_expr::deletes_only_named(find_parts(args).1) => {}
                    None => self.report(
                        &rule::FIND_DELETE,
                        argv,
                        "-delete removes every match without asking".into(),
                    ),
                },
                _ => {}
            }
        }
    }
}

impl Scanner<'_> {
    /// Whether every one of `starts` (none: `.`) is a known place inside
    /// the project: a relative path that does not climb out of it, with no
    /// `cd` having moved the command elsewhere.
    fn in_project(&self, starts: &[Arg]) -> bool {
        if self.cwd.is_some() || self.cwd_lost {
            return false;
        }
        let dot = [Arg::literal(".")];
        let starts = if starts.is_empty() { &dot[..] } else { starts };
        starts.iter().all(|start| {
            start.exact_text().is_some_and(|path| {
                let norm = crate::paths::normalize(path, self.ctx.home.as_deref());
                norm == "." || (norm.starts_with("./") && !norm.starts_with("./.."))
            })
        })
    }
}

/// A path under `/dev` that names a device or a stream (`/dev/null`,
/// `/dev/stdout`), not a file one can save and run: `/dev/shm` is a
/// directory of ordinary files in memory.
fn is_device(path: &str) -> bool {
    path.starts_with("/dev/") && !path.starts_with("/dev/shm/")
}

/// `find`'s start points: the words before its expression, after the
/// options that may come first (`-H`, `-L`, `-P`, `-D LIST`, `-O3`).
/// `command` with its wrappers taken off (`sudo rm …` is `rm …`).
pub(super) fn without_wrappers(command: &[Arg]) -> &[Arg] {
    let mut command = command;
    while let Some((first, args)) = command.split_first()
        && let Program::Named(name) = program(first)
        && let Some(Inner::Command(at)) = wrapper::unwrap(&name, args)
    {
        command = args.get(at..).unwrap_or_default();
    }
    command
}

/// What `{}` stands for in `find`'s `-exec`: each match, unknown, but
/// under the first start point and with the name `-name` gives it when that
/// is a plain name (`find ~ -name .bash_history -exec truncate -s 0 {} +`
/// truncates `~/…/.bash_history`).
fn find_match(starts: &[Arg], args: &[Arg]) -> Arg {
    // With `-prune`, `-o` or a negation the name may be what is skipped.
    let plain = !args
        .iter()
        .any(|a| ["-prune", "-o", "-or", "!", "-not"].iter().any(|w| a.is(w)));
    let name = args
        .windows(2)
        .find(|w| w.first().is_some_and(|o| o.is("-name") || o.is("-iname")))
        .and_then(|w| w.get(1)?.exact_text())
        .filter(|n| plain && !n.is_empty() && !n.contains('/') && !crate::word::is_pattern(n));
    match name {
        Some(name) => {
            let start = starts
                .first()
                .and_then(Arg::exact_text)
                .unwrap_or(".")
                .trim_end_matches('/');
            Arg {
                text: format!("{start}/{name}").into(),
                exact: false,
                known_from: crate::arg::offset(start.len()),
                ..Arg::default()
            }
        }
        None => Arg {
            text: "{}".into(),
            exact: false,
            known_from: 2,
            ..Arg::default()
        },
    }
}

pub(super) fn find_starts(args: &[Arg]) -> Vec<Arg> {
    find_parts(args).0.to_vec()
}

/// `find`'s start points and its expression, after the options that may
/// come first.
fn find_parts(args: &[Arg]) -> (&[Arg], &[Arg]) {
    let mut rest = args;
    while let Some((first, after)) = rest.split_first() {
        rest = match first.exact_text() {
            Some("-H" | "-L" | "-P") => after,
            Some("-D") => after.get(1..).unwrap_or_default(),
            Some(o) if o.starts_with("-O") => after,
            _ => break,
        };
    }
    let starts = rest
        .iter()
        .take_while(|a| !a.text.starts_with(['-', '(', '!']))
        .count();
    rest.split_at(starts)
}

/// The command that `voyage-helper run` or the executor skill's `run.sh`
/// and `execute.sh` would run: the words after `--`, or the `command:`
/// label on stdin.
fn executor_run(name: &str, argv: &[Arg], args: &[Arg], stdin: &Flow) -> Option<Arg> {
    let shim = matches!(name, "run.sh" | "execute.sh")
        && argv.first().is_some_and(|a| {
            a.text.ends_with("executor/scripts/run.sh")
                || a.text.ends_with("executor/scripts/execute.sh")
        });
    let helper = name == "voyage-helper" && args.first().is_some_and(|a| a.is("run"));
    if !shim && !helper {
        return None;
    }
    if let Some(at) = args.iter().position(|a| a.is("--")) {
        let words = args.get(at + 1..).unwrap_or_default();
        let exact = words.iter().all(|w| w.exact);
        let taint = words.iter().fold(Taint::default(), |t, w| t.union(w.taint));
        return Some(Arg {
            text: arg::display_plain(words).into(),
            exact,
            taint,
            ..Arg::default()
        });
    }
    let labels = crate::labels::Labels::parse(stdin.literal_text()?.as_bytes());
    let command = String::from_utf8_lossy(&labels.command?).into_owned();
    Some(Arg::derived(&command))
}

/// The directory of `env -C DIR`, `-CDIR`, `--chdir DIR` or `--chdir=DIR`
/// among env's own arguments.
fn env_chdir(options: &[Arg]) -> Option<Arg> {
    let mut words = options.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if text == "-C" || text == "--chdir" {
            return words.next().cloned();
        }
        if let Some(dir) = text.strip_prefix("--chdir=") {
            return Some(Arg {
                text: dir.into(),
                ..word.clone()
            });
        }
        if let Some(dir) = text.strip_prefix("-C").filter(|d| !d.is_empty()) {
            return Some(Arg {
                text: dir.into(),
                ..word.clone()
            });
        }
    }
    None
}

/// The program a path into a virtual environment or a package's binaries
/// names (`.venv/bin/pip`, `./node_modules/.bin/rimraf`, `venv/Scripts/pip`):
/// the same tool as on the PATH, so the same rules apply. A project's own
/// script elsewhere (`./scripts/rm`) is not renamed.
fn environment_tool(path: &str) -> Option<&str> {
    let (dir, base) = path.rsplit_once('/')?;
    let parts: Vec<&str> = dir
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let in_bin = parts
        .last()
        .is_some_and(|p| matches!(*p, "bin" | ".bin" | "Scripts"));
    let package_bin = parts.last() == Some(&".bin") && parts.contains(&"node_modules");
    let env_bin = in_bin
        && parts.iter().rev().nth(1).is_some_and(|p| {
            matches!(
                *p,
                ".venv" | "venv" | "env" | ".env" | "virtualenv" | ".virtualenv"
            ) || p.starts_with("venv")
                || p.starts_with(".venv")
        });
    let tool = matches!(
        base_name(base),
        "pip"
            | "python"
            | "npm"
            | "npx"
            | "pnpm"
            | "yarn"
            | "bun"
            | "bunx"
            | "cargo"
            | "poetry"
            | "uv"
            | "gem"
            | "bundle"
            | "composer"
            | "go"
            | "pipenv"
            | "rimraf"
            | "del-cli"
    );
    (package_bin || env_bin || (in_bin && tool)).then_some(base)
}

/// xargs's `-a FILE` (`-aFILE`, `--arg-file FILE`, `--arg-file=FILE`)
/// among its options, the last one given.
fn arg_file(options: &[Arg]) -> Option<Arg> {
    let mut found = None;
    let mut words = options.iter();
    while let Some(word) = words.next() {
        if word.is("-a") || word.is("--arg-file") {
            found = words.next().cloned();
        } else if let Some(file) = word
            .exact_text()
            .and_then(|t| {
                t.strip_prefix("--arg-file=")
                    .or_else(|| t.strip_prefix("-a"))
            })
            .filter(|f| !f.is_empty())
        {
            found = Some(Arg::derived(file));
        }
    }
    found
}

/// `make -f -`, `make --file=-`, `make -f /dev/stdin`: the makefile is read
/// from stdin.
fn reads_makefile_on_stdin(args: &[Arg]) -> bool {
    let stdin = |v: &str| v == "-" || is_stdin_path(v);
    args.iter().enumerate().any(|(i, a)| {
        let text = a.text.as_str();
        match text {
            "-f" | "--file" | "--makefile" => args.get(i + 1).is_some_and(|v| stdin(&v.text)),
            _ => ["-f", "--file=", "--makefile="]
                .iter()
                .any(|o| text.strip_prefix(o).is_some_and(stdin)),
        }
    })
}

/// The recipe lines of a makefile, as shell code: lines that start with a
/// tab, and what follows `;` on a rule's line (`all: ; rm -rf x`), with the
/// `@`, `-` and `+` prefixes taken off.
pub(super) fn recipes(makefile: &str) -> Vec<String> {
    let strip = |line: &str| {
        line.trim_start()
            .trim_start_matches(['@', '-', '+'])
            .trim()
            .to_owned()
    };
    let mut found = Vec::new();
    for line in makefile.lines() {
        let recipe = if let Some(body) = line.strip_prefix('\t') {
            Some(strip(body))
        } else if !line.starts_with('#')
            && let Some((head, body)) = line.split_once(';')
            && head.contains(':')
            && !head.contains('=')
        {
            Some(strip(body))
        } else {
            None
        };
        if let Some(recipe) = recipe.filter(|r| !r.is_empty()) {
            // Make's own `$$` is the shell's `$`; `$(VAR)` stays as text.
            found.push(recipe.replace("$$", "$"));
        }
    }
    found
}

/// xargs's reading of its input into words: blanks and newlines separate
/// them and quotes group them, or only `delimiter` does (`-0`, `-d`).
pub(super) fn input_words(text: &str, delimiter: Option<char>) -> Vec<String> {
    const MAX_WORDS: usize = 256;
    if let Some(d) = delimiter {
        return text
            .split(d)
            .filter(|w| !w.is_empty())
            .take(MAX_WORDS)
            .map(|w| w.trim_end_matches('\n').to_owned())
            .collect();
    }
    quoted_words(text, Some('\\'), MAX_WORDS)
}

/// Words of `text` as a shell-like reader splits them: blanks separate,
/// single and double quotes group and are taken off, `escape` (xargs's
/// `\`) takes the next character as it is; at most `max` words.
pub(super) fn quoted_words(text: &str, escape: Option<char>, max: usize) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if Some(c) == escape => {
                word.extend(chars.next());
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                    if words.len() >= max {
                        return words;
                    }
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The paths that read a process's own stdin.
fn is_stdin_path(path: &str) -> bool {
    descriptor_of(path) == Some(0)
}

/// `./f` and `f` are the same file.
fn same_file(path: &str) -> &str {
    path.trim_start_matches("./")
}

/// `python3.12` → `python`.
fn base_name(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// `nc -e /bin/sh`, `socat … exec:bash`: a shell wired to the network.
fn network_shell(name: &str, args: &[Arg]) -> Option<String> {
    let runs = match name {
        "nc" | "ncat" | "netcat" => args.iter().any(|a| {
            a.exact
                && (matches!(
                    a.text.as_str(),
                    "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"
                ) || (a.text.starts_with("-e") && a.text.len() > 2))
        }),
        "socat" => args.iter().any(|a| {
            let t = a.text.to_ascii_lowercase();
            t.starts_with("exec:") || t.starts_with("system:")
        }),
        _ => false,
    };
    runs.then(|| format!("{name} runs a program for whoever is on the other end"))
}

/// What `echo ARGS` prints, when its words are known.
fn echo(args: &[Arg]) -> Flow {
    let mut newline = true;
    let mut escapes = false;
    let mut words = args;
    while let Some((first, rest)) = words.split_first() {
        match first.exact_text() {
            Some(flags)
                if flags.len() > 1
                    && flags.starts_with('-')
                    && flags.chars().skip(1).all(|c| "neE".contains(c)) =>
            {
                newline &= !flags.contains('n');
                escapes |= flags.contains('e');
                words = rest;
            }
            _ => break,
        }
    }
    if let Some(taint) = unknown_taint(words) {
        return Flow::tainted(taint);
    }
    let mut text = arg::display_plain(words);
    if escapes {
        text = ansi_c(&text).unwrap_or(text);
    }
    if newline {
        text.push('\n');
    }
    Flow::literal(text)
}

/// What `printf FORMAT ARGS` prints, when its words are known: `%s`, `%b`
/// and `%d` filled in, escapes decoded; the format repeats for extra words.
pub(super) fn printf(args: &[Arg]) -> Flow {
    let args = match args.first() {
        Some(first) if first.is("--") => args.get(1..).unwrap_or_default(),
        _ => args,
    };
    if let Some(taint) = unknown_taint(args) {
        return Flow::tainted(taint);
    }
    let Some((format, values)) = args.split_first() else {
        return Flow::empty();
    };
    let format = ansi_c(&format.text).unwrap_or_else(|| format.text.to_string());
    let mut values = values.iter().map(|v| v.text.as_str()).peekable();
    let mut out = String::new();
    loop {
        let mut chars = format.chars().peekable();
        let mut used = false;
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            // Flags, width and precision are dropped; the conversion stays.
            let mut conversion = None;
            while let Some(&d) = chars.peek() {
                chars.next();
                if d.is_ascii_alphabetic() || d == '%' {
                    conversion = Some(d);
                    break;
                }
            }
            match conversion {
                Some('%') => out.push('%'),
                Some('b') => {
                    used = true;
                    let v = values.next().unwrap_or_default();
                    out.push_str(&ansi_c(v).unwrap_or_else(|| v.to_owned()));
                }
                Some(_) => {
                    used = true;
                    out.push_str(values.next().unwrap_or_default());
                }
                None => {}
            }
        }
        if !used || values.peek().is_none() || out.len() > crate::flow::MAX_LITERAL_BYTES {
            break;
        }
    }
    Flow::literal(out)
}

/// The taint of the words, if any of them is not known.
fn unknown_taint(words: &[Arg]) -> Option<Taint> {
    words
        .iter()
        .any(|w| !w.exact)
        .then(|| words.iter().fold(Taint::OPAQUE, |t, w| t.union(w.taint)))
}
