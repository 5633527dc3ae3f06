//! Programs that a command sets up to run later (delayed execution): git's
//! configuration keys that name a program (`core.pager`, `core.fsmonitor`,
//! filters, aliases, …) however they are set (`-c`, `--config-env`, `git
//! config`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`),
//! the environment variables git, man and less read a program from, git's
//! `ext::` transport and its `--upload-pack`-style options, ssh's
//! `ProxyCommand` and kin, `rsync -e`, tar's compressor and `--to-command`,
//! `zip -TT`, sed's `e`, `make --eval`
//! and editors in batch mode. What such a value runs is judged as if the
//! command ran it now: git hands these values to `sh -c`, so a destructive
//! command or a download in one is as bad there as typed directly.
//!
//! The functions here only find the values; [`crate::call`] judges them.

use crate::arg::Arg;
use crate::getopt::{self, Spec};
use crate::wrapper::option_values;

/// Something a command sets up to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Later {
    /// Shell code, and where it was set (`git -c core.pager`).
    Code(Arg, String),
    /// A command given as words (an `ext::` URL, `scp -S PROGRAM`).
    Command(Vec<Arg>, String),
    /// A makefile's text (`make --eval`): its `$(shell …)` calls and
    /// recipes run.
    Makefile(Arg, String),
    /// Code the command runs that it does not show (sed's `e` over the
    /// lines it reads, `--config-env` naming an unset variable), or a
    /// switch that lets later commands run code (`protocol.ext.allow`).
    Unseen(String),
    /// git's hooks taken from another directory (`core.hooksPath`).
    Hooks(String),
}

/// The environment variables each program reads a program from, with the
/// variables' values in the command.
pub(crate) const ENV_PROGRAMS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "GIT_SSH_COMMAND",
            "GIT_SSH",
            "GIT_PAGER",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GIT_EXTERNAL_DIFF",
            "GIT_ASKPASS",
            "SSH_ASKPASS",
            "GIT_PROXY_COMMAND",
            "PAGER",
            "EDITOR",
            "VISUAL",
        ],
    ),
    ("man", &["MANPAGER", "PAGER"]),
    ("rsync", &["RSYNC_RSH", "RSYNC_CONNECT_PROG"]),
    ("sudoedit", &["SUDO_EDITOR", "VISUAL", "EDITOR"]),
    ("ssh", &["SSH_ASKPASS"]),
    ("scp", &["SSH_ASKPASS"]),
    ("sftp", &["SSH_ASKPASS"]),
];

/// Everything `name` run with `args` sets up to run; `env(VAR)` gives the
/// values the command gave VAR (empty: it did not set it).
pub(crate) fn runs(name: &str, args: &[Arg], env: &dyn Fn(&str) -> Vec<Arg>) -> Vec<Later> {
    let mut found = Vec::new();
    for (program, vars) in ENV_PROGRAMS {
        if *program == name {
            for var in *vars {
                for value in env(var) {
                    found.push(Later::Code(value, format!("{var}= {name}")));
                }
            }
        }
    }
    match name {
        "git" => git(args, env, &mut found),
        "ssh" | "scp" | "sftp" | "slogin" => ssh(name, args, &mut found),
        // `-e` runs here; `--rsync-path` on the host, judged as `ssh host
        // CMD` is.
        "rsync" => {
            for (short, long) in [(Some('e'), "rsh"), (None, "rsync-path")] {
                for value in values(args, &super::rsync::SPEC, short, long) {
                    found.push(Later::Code(value, format!("rsync --{long}")));
                }
            }
        }
        "tar" | "gtar" | "bsdtar" => tar(args, env, &mut found),
        "zip" => {
            for value in option_values(args, "-TT", "--unzip-command") {
                found.extend(value.into_iter().map(|v| Later::Code(v, "zip -TT".into())));
            }
        }
        "sed" | "gsed" => sed(args, &mut found),
        "make" | "gmake" | "bmake" => {
            const MAKE: Spec = Spec::new(
                "CEfIjlLoOW",
                &[
                    ("directory", true),
                    ("eval", true),
                    ("file", true),
                    ("makefile", true),
                    ("include-dir", true),
                    ("jobs", false),
                    ("load-average", false),
                    ("old-file", true),
                    ("assume-old", true),
                    ("output-sync", false),
                    ("what-if", true),
                    ("new-file", true),
                    ("assume-new", true),
                ],
            );
            for value in values(args, &MAKE, Some('E'), "eval") {
                found.push(Later::Makefile(value, "make --eval".into()));
            }
            // `make -f <(printf …)`: a makefile whose text is in the line.
            for long in ["--file", "--makefile"] {
                for value in option_values(args, "-f", long).flatten() {
                    if let Some(text) = value.content.clone() {
                        let makefile = Arg::derived(&text);
                        found.push(Later::Makefile(makefile, "make -f <(…)".into()));
                    }
                }
            }
        }
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" | "rvim" => {
            vim(args, &mut found)
        }
        "emacs" | "emacsclient" => emacs(args, &mut found),
        "less" => {
            for var in ["LESSOPEN", "LESSCLOSE"] {
                for value in env(var) {
                    // `|cmd %s` and `||cmd %s` pipe; otherwise the output
                    // names a file; either way the text is run by a shell.
                    let text = value.text.trim_start_matches('|').to_owned();
                    found.push(Later::Code(Arg { text, ..value }, format!("{var}= less")));
                }
            }
        }
        "fc" => fc(args, env, &mut found),
        "man" => {
            for value in option_values(args, "-P", "--pager") {
                found.extend(value.into_iter().map(|v| Later::Code(v, "man -P".into())));
            }
        }
        _ => {}
    }
    found
}

/// Every value of the option `-short`/`--long` as `spec` reads `args`
/// (clusters such as `rsync -avze CMD` included), each as the part of its
/// word it is, so that what is unknown in it stays unknown.
fn values(args: &[Arg], spec: &Spec, short: Option<char>, long: &str) -> Vec<Arg> {
    let long = (!long.is_empty()).then_some(long);
    let p = getopt::parse(args, spec);
    p.values(short, long)
        .into_iter()
        .filter_map(|value| {
            // The word the value is a slice of, and where in it.
            let at = value.as_ptr() as usize;
            args.iter().find_map(|word| {
                let start = word.text.as_ptr() as usize;
                let offset = at.checked_sub(start)?;
                (offset + value.len() <= word.text.len()).then(|| Arg {
                    text: value.to_owned(),
                    known_from: word.known_from.saturating_sub(offset),
                    content: None,
                    ..word.clone()
                })
            })
        })
        .collect()
}

/// tar's options whose value a shell runs (`-I`/`--use-compress-program`,
/// `--to-command`, `-F`/`--info-script`, `--new-volume-script`,
/// `--rsh-command`, `--checkpoint-action=exec=`), read in every spelling
/// tar takes: clusters (`-xvI CMD`), abbreviations (`--use-comp=CMD`), the
/// old style (`tar xIf CMD x.tar`) and `TAR_OPTIONS`.
fn tar(args: &[Arg], env: &dyn Fn(&str) -> Vec<Arg>, found: &mut Vec<Later>) {
    const SHORT_WITH_VALUE: &str = "bCfFgHIKLNTVX";
    const TAR: Spec = Spec::new(
        SHORT_WITH_VALUE,
        &[
            ("use-compress-program", true),
            ("to-command", true),
            ("info-script", true),
            ("new-volume-script", true),
            ("rsh-command", true),
            ("checkpoint-action", true),
            ("checkpoint", false),
            ("file", true),
            ("directory", true),
            ("files-from", true),
            ("exclude", true),
            ("exclude-from", true),
            ("transform", true),
            ("xform", true),
            ("format", true),
            ("owner", true),
            ("group", true),
            ("mode", true),
            ("mtime", true),
            ("listed-incremental", true),
            ("label", true),
            ("tape-length", true),
            ("blocking-factor", true),
            ("newer", true),
            ("after-date", true),
            ("newer-mtime", true),
            ("starting-file", true),
            ("suffix", true),
            ("sort", true),
            ("totals", false),
            ("to-stdout", false),
        ],
    );
    let mut words: Vec<Arg> = Vec::new();
    // `TAR_OPTIONS` comes before the command line's own options, split
    // at blanks with quotes grouping.
    for options in env("TAR_OPTIONS") {
        words.extend(
            crate::call::input_words(&options.text, None)
                .into_iter()
                .map(|w| Arg {
                    text: w,
                    content: None,
                    ..options.clone()
                }),
        );
    }
    // The old style: `tar xIf CMD x.tar` gives each letter that takes a
    // value the next word, in order.
    let mut rest = args.iter();
    if let Some(first) = args.first()
        && first.exact
        && !first.text.starts_with('-')
        && first.text.chars().all(|c| c.is_ascii_alphabetic())
    {
        rest.next();
        for letter in first.text.chars() {
            words.push(Arg::literal(&format!("-{letter}")));
            if SHORT_WITH_VALUE.contains(letter)
                && let Some(value) = rest.next()
            {
                words.push(value.clone());
            }
        }
    }
    words.extend(rest.cloned());
    for (short, long) in [
        (Some('I'), "use-compress-program"),
        (None, "to-command"),
        (Some('F'), "info-script"),
        (None, "new-volume-script"),
        (None, "rsh-command"),
    ] {
        for value in values(&words, &TAR, short, long) {
            found.push(Later::Code(value, format!("tar --{long}")));
        }
    }
    for action in values(&words, &TAR, None, "checkpoint-action") {
        if let Some(code) = action.text.strip_prefix("exec=") {
            let at = action.text.len() - code.len();
            found.push(Later::Code(
                Arg {
                    text: code.to_owned(),
                    known_from: action.known_from.saturating_sub(at),
                    ..action.clone()
                },
                "tar --checkpoint-action=exec=".into(),
            ));
        }
    }
}

/// bash's `fc`: without `-l` it hands commands of the history to an
/// editor (`-e EDITOR`, else `FCEDIT`, else `EDITOR`) and runs what it
/// leaves; `-s` runs them again as they were. Neither is in the command.
fn fc(args: &[Arg], env: &dyn Fn(&str) -> Vec<Arg>, found: &mut Vec<Later>) {
    const FC: Spec = Spec::new("e", &[]).posix();
    let p = getopt::parse(args, &FC);
    if p.has("l", &[]) {
        return;
    }
    if !p.has("s", &[]) {
        let editors = values(args, &FC, Some('e'), "");
        let editors = if editors.is_empty() {
            let mut from_env = env("FCEDIT");
            from_env.extend(env("EDITOR"));
            from_env
        } else {
            editors
        };
        for editor in editors {
            found.push(Later::Code(editor, "fc -e".into()));
        }
    }
    found.push(Later::Unseen(
        "fc runs commands from the shell's history, which the command does not show".into(),
    ));
}

/// git's options before the subcommand, as in [`super::git::GLOBAL`].
fn git(args: &[Arg], env: &dyn Fn(&str) -> Vec<Arg>, found: &mut Vec<Later>) {
    let global = getopt::parse(args, &super::git::GLOBAL);
    let options = args.get(..global.rest).unwrap_or_default();
    let mut settings: Vec<(Arg, Arg, &'static str)> = Vec::new();
    for word in option_values(options, "-c", "").flatten() {
        if let Some((key, value)) = split_setting(&word) {
            settings.push((key, value, "git -c"));
        }
    }
    for word in option_values(options, "", "--config-env").flatten() {
        let Some((key, var)) = split_setting(&word) else {
            continue;
        };
        let values = var.exact_text().map(env).unwrap_or_default();
        if values.is_empty() {
            let value = Arg::unknown(&format!("${}", var.text), crate::arg::Taint::OPAQUE);
            settings.push((key.clone(), value, "git --config-env"));
        }
        for value in values {
            settings.push((key.clone(), value, "git --config-env"));
        }
    }
    settings.extend(env_settings(env));
    for dir in env("GIT_TEMPLATE_DIR") {
        if !dir.text.is_empty() {
            found.push(Later::Hooks(format!(
                "GIT_TEMPLATE_DIR={} makes git init and clone copy that directory's hooks into .git/hooks",
                dir.text
            )));
        }
    }
    for var in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"] {
        for file in env(var) {
            if file.text != "/dev/null" {
                found.push(Later::Unseen(format!(
                    "{var}={} makes git read settings from a file this command does not show, which may name programs it runs",
                    file.text
                )));
            }
        }
    }
    let rest = args.get(global.rest..).unwrap_or_default();
    if let Some((sub, sub_args)) = rest.split_first()
        && let Some(sub_name) = sub.exact_text()
    {
        if sub_name == "config"
            && let Some((key, value)) = config_setting(sub_args)
        {
            settings.push((key, value, "git config"));
        }
        // `git clone -c KEY=VALUE` writes the setting into the new
        // repository's configuration, where the checkout and every later
        // command read it.
        if sub_name == "clone" {
            for word in option_values(sub_args, "-c", "--config").flatten() {
                if let Some((key, value)) = split_setting(&word) {
                    settings.push((key, value, "git clone -c"));
                }
            }
        }
        // A template directory's `hooks/` is copied into the new `.git/`.
        if matches!(sub_name, "clone" | "init") {
            for dir in option_values(sub_args, "", "--template").flatten() {
                if !dir.text.is_empty() {
                    found.push(Later::Hooks(format!(
                        "git {sub_name} --template={} copies that directory's hooks into .git/hooks",
                        dir.text
                    )));
                }
            }
        }
        subcommand(sub_name, sub_args, found);
        // Any URL or value spelled `ext::…` (clone, fetch, ls-remote,
        // `submodule add`, `remote add`, `config remote.x.url`).
        for word in sub_args {
            ext(word, &format!("git {sub_name}"), found);
        }
    }
    for (key, value, how) in settings {
        setting(&key, &value, how, found);
    }
}

/// `KEY=VALUE` split at the first `=`, each part keeping what is known.
pub(crate) fn split_setting(word: &Arg) -> Option<(Arg, Arg)> {
    let (key, value) = word.text.split_once('=')?;
    let at = key.len() + 1;
    let key_arg = Arg {
        text: key.to_owned(),
        // Unknown parts keep their source spelling (`$X`, `$(cmd)`).
        exact: word.exact || !key.contains(['$', '`']),
        known_from: 0,
        content: None,
        ..word.clone()
    };
    let value_arg = Arg {
        text: value.to_owned(),
        known_from: word.known_from.saturating_sub(at),
        content: None,
        ..word.clone()
    };
    Some((key_arg, value_arg))
}

/// The settings git reads from its environment: `GIT_CONFIG_KEY_n` with
/// `GIT_CONFIG_VALUE_n` (`GIT_CONFIG_COUNT` says how many), and
/// `GIT_CONFIG_PARAMETERS` (`'key'='value' …`, as `git -c` passes them on).
fn env_settings(env: &dyn Fn(&str) -> Vec<Arg>) -> Vec<(Arg, Arg, &'static str)> {
    let mut out = Vec::new();
    // Any count the command may set is read; past it git reads nothing.
    for n in 0..32 {
        let keys = env(&format!("GIT_CONFIG_KEY_{n}"));
        if keys.is_empty() {
            continue;
        }
        let values = env(&format!("GIT_CONFIG_VALUE_{n}"));
        for key in &keys {
            for value in &values {
                out.push((key.clone(), value.clone(), "GIT_CONFIG_KEY_n"));
            }
        }
    }
    for params in env("GIT_CONFIG_PARAMETERS") {
        for (key, value) in quoted_pairs(&params.text) {
            out.push((
                Arg {
                    text: key,
                    ..params.clone()
                },
                Arg {
                    text: value,
                    ..params.clone()
                },
                "GIT_CONFIG_PARAMETERS",
            ));
        }
    }
    out
}

/// The `'key'='value'` pairs of `GIT_CONFIG_PARAMETERS` (also an older
/// `'key=value'`), with `'\''` read as a quote.
fn quoted_pairs(text: &str) -> Vec<(String, String)> {
    let mut strings: Vec<(String, bool)> = Vec::new();
    let mut rest = text;
    // Each pass takes one quoted string, so the loop ends.
    while let Some(open) = rest.find('\'') {
        let glued = rest.get(..open).is_some_and(|g| g.ends_with('='));
        let mut body = String::new();
        let mut tail = rest.get(open + 1..).unwrap_or_default();
        loop {
            match tail.find('\'') {
                Some(close) => {
                    body.push_str(tail.get(..close).unwrap_or_default());
                    tail = tail.get(close + 1..).unwrap_or_default();
                    if let Some(after) = tail.strip_prefix("\\''") {
                        body.push('\'');
                        tail = after;
                        continue;
                    }
                }
                None => {
                    body.push_str(tail);
                    tail = "";
                }
            }
            break;
        }
        strings.push((body, glued));
        rest = tail;
    }
    let mut pairs = Vec::new();
    let mut i = 0;
    while let Some((text, _)) = strings.get(i) {
        if let Some((_, true)) = strings.get(i + 1) {
            pairs.push((
                text.clone(),
                strings.get(i + 1).map(|s| s.0.clone()).unwrap_or_default(),
            ));
            i += 2;
        } else {
            if let Some((k, v)) = text.split_once('=') {
                pairs.push((k.to_owned(), v.to_owned()));
            }
            i += 1;
        }
    }
    pairs
}

/// The key and value `git config ARGS` sets (`git config [--global] KEY
/// VALUE`, `--add`, `--replace-all`, `git config set KEY VALUE`); `None`
/// when it reads, lists, removes or renames instead.
fn config_setting(args: &[Arg]) -> Option<(Arg, Arg)> {
    const CONFIG: Spec = Spec::new(
        "ft",
        &[
            ("file", true),
            ("blob", true),
            ("type", true),
            ("default", true),
            ("comment", true),
            ("value", true),
            ("global", false),
            ("system", false),
            ("local", false),
            ("worktree", false),
            ("add", false),
            ("replace-all", false),
            ("append", false),
            ("all", false),
            ("fixed-value", false),
            ("bool", false),
            ("int", false),
            ("path", false),
            ("get", false),
            ("get-all", false),
            ("get-regexp", false),
            ("get-urlmatch", false),
            ("get-color", false),
            ("get-colorbool", false),
            ("unset", false),
            ("unset-all", false),
            ("list", false),
            ("edit", false),
            ("rename-section", false),
            ("remove-section", false),
            ("show-origin", false),
            ("show-scope", false),
            ("name-only", false),
            ("null", false),
            ("includes", false),
            ("no-includes", false),
        ],
    );
    let p = getopt::parse(args, &CONFIG);
    let reads = [
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "get-color",
        "get-colorbool",
        "unset",
        "unset-all",
        "list",
        "edit",
        "rename-section",
        "remove-section",
    ];
    if p.has("le", &reads) {
        return None;
    }
    let mut operands = p.operands.iter().copied();
    let mut key = operands.next()?;
    if key.is("set") {
        key = operands.next()?;
    } else if key.exact && !key.text.contains('.') {
        // `get`, `unset`, `list`, `edit`, … of git's new syntax.
        return None;
    }
    let value = operands.next()?;
    Some((key.clone(), value.clone()))
}

/// git's subcommand options whose value a shell runs.
fn subcommand(sub: &str, args: &[Arg], found: &mut Vec<Later>) {
    let options: &[(&str, &str)] = match sub {
        "clone" | "ls-remote" => &[("-u", "--upload-pack")],
        "fetch" | "pull" => &[("", "--upload-pack")],
        "push" | "send-pack" => &[("", "--receive-pack"), ("", "--exec")],
        "archive" => &[("", "--exec")],
        "difftool" => &[("-x", "--extcmd")],
        "send-email" => &[
            ("", "--sendmail-cmd"),
            ("", "--to-cmd"),
            ("", "--cc-cmd"),
            ("", "--header-cmd"),
        ],
        _ => &[],
    };
    for (short, long) in options {
        for value in option_values(args, short, long).flatten() {
            found.push(Later::Code(value, format!("git {sub} {long}")));
        }
    }
}

/// An `ext::` URL: git runs its words as a command (git-remote-ext(1):
/// `% ` is a space inside a word, `%%` a percent sign, `%s` and `%S` the
/// service's name).
fn ext(word: &Arg, via: &str, found: &mut Vec<Later>) {
    let Some(command) = word.text.strip_prefix("ext::") else {
        return;
    };
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        let current = words.last_mut();
        match (c, current) {
            ('%', Some(w)) => match chars.next() {
                Some(' ') => w.push(' '),
                Some('%') => w.push('%'),
                Some('s' | 'S') => w.push_str("git-upload-pack"),
                Some(_) | None => {}
            },
            (' ', _) => words.push(String::new()),
            (c, Some(w)) => w.push(c),
            (_, None) => {}
        }
    }
    let argv: Vec<Arg> = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(|w| Arg {
            text: w,
            content: None,
            ..word.clone()
        })
        .collect();
    if !argv.is_empty() {
        found.push(Later::Command(argv, format!("{via} (ext:: transport)")));
    }
}

/// What setting `key` to `value` makes git run.
fn setting(key: &Arg, value: &Arg, how: &str, found: &mut Vec<Later>) {
    let via = format!("{how} {}", key.text);
    // A URL rewrite or remote URL naming an `ext::` command.
    ext(value, &via, found);
    let Some(key_text) = key.exact_text() else {
        // A key only known at run time could be any of those below, so
        // its value is judged as the code it may be.
        found.push(Later::Unseen(format!(
            "{how} sets a key only known at run time ({}), which may name a program git runs",
            key.text
        )));
        found.push(Later::Code(value.clone(), via));
        return;
    };
    let lower = key_text.to_ascii_lowercase();
    let (section, rest) = lower.split_once('.').unwrap_or((lower.as_str(), ""));
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    if section == "url"
        && let Some(sub) = key_text
            .split_once('.')
            .and_then(|(_, r)| r.rsplit_once('.'))
    {
        ext(
            &Arg {
                text: sub.0.to_owned(),
                ..key.clone()
            },
            &via,
            found,
        );
    }
    let boolean = matches!(
        value.text.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    ) && value.exact;
    let shell = match (section, sub, name) {
        ("core", None, "hookspath") => {
            found.push(Later::Hooks(format!(
                "{how} core.hooksPath makes git run hooks from another directory"
            )));
            return;
        }
        ("init", None, "templatedir") if !value.text.is_empty() => {
            found.push(Later::Hooks(format!(
                "{how} init.templateDir makes git init and clone copy that directory's hooks into .git/hooks"
            )));
            return;
        }
        ("protocol", Some("ext"), "allow") | ("protocol", None, "allow")
            if value.text.eq_ignore_ascii_case("always") || !value.exact =>
        {
            found.push(Later::Unseen(format!(
                "{how} {key_text}={} lets an ext:: URL run any command",
                value.text
            )));
            return;
        }
        // Another file's settings, which this command does not show.
        ("include" | "includeif", _, "path") if value.text != "/dev/null" => {
            found.push(Later::Unseen(format!(
                "{how} {key_text}={} makes git read settings from a file this command does not show, which may name programs it runs",
                value.text
            )));
            return;
        }
        ("core", None, "fsmonitor") | ("pager", _, _) if boolean => return,
        (
            "core",
            None,
            "fsmonitor" | "sshcommand" | "pager" | "editor" | "askpass" | "gitproxy",
        )
        | ("sequence", None, "editor")
        | ("diff", None, "external")
        | ("diff", Some(_), "command" | "textconv")
        | ("filter", Some(_), "clean" | "smudge" | "process")
        | ("merge", Some(_), "driver")
        | ("difftool" | "mergetool", Some(_), "cmd")
        | ("remote", Some(_), "uploadpack" | "receivepack")
        | ("gpg", _, "program")
        | ("gpg", Some("ssh"), "defaultkeycommand")
        | ("sendemail", _, "sendmailcmd" | "tocmd" | "cccmd" | "headercmd")
        | ("pager", _, _) => value.clone(),
        // `!code` is shell code; an absolute path is a program run by the
        // shell; a plain name is git's own `git credential-NAME`.
        ("credential", _, "helper") => match value.text.strip_prefix('!') {
            Some(code) => Arg {
                text: code.to_owned(),
                ..value.clone()
            },
            None if value.text.starts_with('/') => value.clone(),
            None => return,
        },
        // `!code` runs in a shell; other aliases are git's own commands,
        // judged where they are used (`crate::wrapper`).
        ("alias", Some(_), _) | ("alias", None, _) => match value.text.strip_prefix('!') {
            Some(code) => Arg {
                text: code.to_owned(),
                ..value.clone()
            },
            None => return,
        },
        _ => return,
    };
    found.push(Later::Code(shell, via));
}

/// ssh's `-o` options that run a command: on this machine (`ProxyCommand`,
/// `LocalCommand`, `KnownHostsCommand`) or on the host (`RemoteCommand`,
/// judged as `ssh host CMD` is); and `scp -S`/`sftp -S PROGRAM`.
fn ssh(name: &str, args: &[Arg], found: &mut Vec<Later>) {
    // The short options of each that take a value (OpenSSH's manuals).
    let spec = match name {
        "scp" => Spec::new("cDFiJloPSX", &[]),
        "sftp" => Spec::new("BbcDFiJloPRSsX", &[]),
        _ => Spec::new("BbcDEeFIiJLlmOopQRSWw", &[]).posix(),
    };
    for value in values(args, &spec, Some('o'), "") {
        let text = value.text.trim_start();
        let split = text
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(text.len());
        let (option, code) = text.split_at(split);
        let code = code
            .trim_start()
            .strip_prefix('=')
            .unwrap_or(code)
            .trim_start();
        let option = option.to_ascii_lowercase();
        if matches!(
            option.as_str(),
            "proxycommand" | "localcommand" | "knownhostscommand" | "remotecommand"
        ) && !code.eq_ignore_ascii_case("none")
        {
            found.push(Later::Code(
                Arg {
                    text: code.to_owned(),
                    known_from: value
                        .known_from
                        .saturating_sub(value.text.len() - code.len()),
                    content: None,
                    ..value.clone()
                },
                format!("{name} -o {option}"),
            ));
        }
    }
    if name != "ssh" && name != "slogin" {
        for value in values(args, &spec, Some('S'), "") {
            found.push(Later::Command(vec![value], format!("{name} -S")));
        }
    }
}

/// sed's `e COMMAND`, `e` alone (runs the line it holds) and the `e` flag
/// of `s` (runs the line after the substitution).
fn sed(args: &[Arg], found: &mut Vec<Later>) {
    const SED: Spec = Spec::new(
        "efl",
        &[
            ("expression", true),
            ("file", true),
            ("line-length", true),
            ("sandbox", false),
        ],
    );
    let p = getopt::parse(args, &SED);
    if p.has_long("sandbox") {
        return;
    }
    let mut scripts: Vec<&str> = p.values(Some('e'), Some("expression"));
    if !p.has("ef", &["expression", "file"])
        && let Some(first) = p.operands.first()
    {
        scripts.push(first.text.as_str());
    }
    for script in scripts {
        for run in super::writers::sed_script(script).runs {
            match run {
                super::writers::SedRun::Command(code) => {
                    found.push(Later::Code(Arg::derived(&code), "sed e".into()));
                }
                super::writers::SedRun::Line(replacement) => {
                    if let Some(text) = replacement {
                        found.push(Later::Code(Arg::derived(&text), "sed s///e".into()));
                    }
                    found.push(Later::Unseen(
                        "sed's e runs each line it reads as a command, and those lines are not in the command".into(),
                    ));
                }
            }
        }
    }
}

/// vim's `-c CMD`, `--cmd CMD` and `+CMD` calling `system()` or
/// `systemlist()` with a quoted string, or reading or writing through a
/// command (`r !cmd`, `w !cmd`, `%!cmd`). (`:!cmd` itself is in
/// [`crate::wrapper`].)
fn vim(args: &[Arg], found: &mut Vec<Later>) {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let command = if word.is("-c") || word.is("--cmd") {
            words.next().cloned()
        } else {
            word.text.strip_prefix('+').map(|c| Arg {
                text: c.to_owned(),
                ..word.clone()
            })
        };
        let Some(command) = command else {
            continue;
        };
        for call in ["system(", "systemlist("] {
            for code in string_arguments(&command.text, call) {
                match code {
                    Some(code) => {
                        found.push(Later::Code(
                            code_from(&command, code),
                            "vim system()".into(),
                        ));
                    }
                    None => found.push(Later::Unseen(format!(
                        "vim's {call}…) runs a command given by an expression, not a literal string"
                    ))),
                }
            }
        }
        let text = command.text.trim_start_matches([':', ' ']);
        let filter = text
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '%' | '.' | ',' | '$'))
            .split_once('!')
            .filter(|(head, _)| match head.trim_end() {
                "" | "silent" => true,
                // `:w !cmd` pipes to cmd; `:w! file` only forces the write.
                "r" | "read" | "w" | "write" => head.ends_with(' '),
                _ => false,
            })
            .map(|(_, code)| code);
        if let Some(code) = filter
            && !text.starts_with('!')
            && !text
                .trim_start_matches("silent")
                .trim_start()
                .starts_with('!')
        {
            found.push(Later::Code(
                code_from(&command, code.to_owned()),
                "vim !cmd".into(),
            ));
        }
    }
}

/// Whether vim (by the name `name`) runs Ex commands read from stdin:
/// `ex`, or `-e`/`-E` (alone or with `-s`: `-es`), when no file or `-`
/// names stdin as text to edit.
pub(crate) fn reads_ex_commands(name: &str, args: &[Arg]) -> bool {
    let ex_mode = name == "ex"
        || args.iter().any(|a| {
            a.exact && matches!(a.text.as_str(), "-e" | "-E" | "-es" | "-Es" | "-se" | "-sE")
        });
    ex_mode
        && matches!(
            name,
            "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" | "rvim"
        )
}

/// What Ex commands read from stdin run: each line judged as `-c LINE`
/// would be (`!cmd`, `r !cmd`, `system("…")`).
pub(crate) fn ex_commands(name: &str, text: &str) -> Vec<Later> {
    let mut pseudo = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        pseudo.push(Arg::literal("-c"));
        pseudo.push(Arg::derived(line));
    }
    let mut found: Vec<Later> = crate::wrapper::also_runs(name, &pseudo)
        .into_iter()
        .filter_map(|also| match also {
            crate::wrapper::Also::Code(words) => {
                let code = crate::arg::display_plain(&words);
                Some(Later::Code(
                    Arg::derived(&code),
                    format!("{name} (Ex commands on stdin)"),
                ))
            }
            crate::wrapper::Also::Command(_) => None,
        })
        .collect();
    vim(&pseudo, &mut found);
    found
}

/// `emacs --eval EXPR` (also `-eval`, `--eval=EXPR`): `shell-command`
/// and kin run a string as shell code, `call-process` and kin run a
/// program with arguments; one given by an expression (a variable, a
/// `concat`) is not in the command and warns.
fn emacs(args: &[Arg], found: &mut Vec<Later>) {
    // Each function, the argument that is shell code or the program, and
    // where the program's own arguments start (`None`: shell code).
    const CALLS: &[(&str, usize, Option<usize>)] = &[
        ("shell-command", 0, None),
        ("shell-command-to-string", 0, None),
        ("async-shell-command", 0, None),
        ("call-process-shell-command", 0, None),
        ("process-file-shell-command", 0, None),
        ("start-process-shell-command", 2, None),
        ("start-file-process-shell-command", 2, None),
        ("call-process", 0, Some(4)),
        ("process-file", 0, Some(4)),
        ("process-lines", 0, Some(1)),
        ("start-process", 2, Some(3)),
        ("start-file-process", 2, Some(3)),
    ];
    let mut exprs: Vec<Arg> = option_values(args, "", "--eval").flatten().collect();
    exprs.extend(option_values(args, "", "-eval").flatten());
    for expr in exprs {
        for (name, at, rest) in CALLS {
            let open = format!("({name} ");
            for (start, _) in expr.text.match_indices(&open) {
                let form = expr.text.get(start + open.len()..).unwrap_or_default();
                let items = lisp_arguments(form);
                let string = |i: usize| items.get(i).cloned().flatten();
                let via = format!("emacs --eval ({name} …)");
                match (string(*at), rest) {
                    (Some(code), None) => found.push(Later::Code(code_from(&expr, code), via)),
                    (Some(program), Some(from)) => {
                        let mut words = vec![code_from(&expr, program)];
                        for item in items.iter().skip(*from) {
                            words.push(match item {
                                Some(text) => code_from(&expr, text.clone()),
                                None => Arg::unknown("$EXPR", crate::arg::Taint::OPAQUE),
                            });
                        }
                        found.push(Later::Command(words, via));
                    }
                    (None, _) => found.push(Later::Unseen(format!(
                        "emacs --eval runs ({name} …) with a command given by an expression, not a literal string"
                    ))),
                }
            }
        }
    }
}

/// The arguments of a Lisp form, from just after its function's name to
/// its closing parenthesis: each string literal's text, or `None` for
/// anything else (a symbol, a number, a nested form).
fn lisp_arguments(form: &str) -> Vec<Option<String>> {
    let mut items = Vec::new();
    let mut rest = form;
    // Each pass takes one argument or ends, so the loop is bounded.
    for _ in 0..=form.len() {
        rest = rest.trim_start();
        let end = match rest.chars().next() {
            None | Some(')') => break,
            Some('"') => {
                items.push(string_literal(rest));
                closing_quote(rest).unwrap_or(rest.len())
            }
            Some('(') => {
                items.push(None);
                form_end(rest)
            }
            Some(_) => {
                items.push(None);
                rest.find(|c: char| c.is_whitespace() || c == ')' || c == '(')
                    .unwrap_or(rest.len())
            }
        };
        rest = rest.get(end..).unwrap_or_default();
    }
    items
}

/// The byte just past the parenthesis that closes the form `text` starts
/// with (strings inside it skipped); the end of `text` if none does.
fn form_end(text: &str) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// An argument of `code` read as shell code, keeping what `from` knows.
fn code_from(from: &Arg, code: String) -> Arg {
    Arg {
        text: code,
        content: None,
        known_from: 0,
        ..from.clone()
    }
}

/// What follows each `call` in `text` (`system("x")`): the string
/// literal's text, quotes and escapes undone, or `None` when it is not a
/// literal (`system(cmd)`).
fn string_arguments(text: &str, call: &str) -> Vec<Option<String>> {
    text.match_indices(call)
        .map(|(at, _)| string_literal(text.get(at + call.len()..).unwrap_or_default().trim_start()))
        .collect()
}

/// The byte just past the closing quote of the literal `text` starts with.
fn closing_quote(text: &str) -> Option<usize> {
    let quote = text.chars().next()?;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == quote && !escaped => return Some(i + 1),
            _ => escaped = false,
        }
    }
    None
}

/// The string literal (`"…"` or `'…'`) at the start of `text`.
fn string_literal(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let end = closing_quote(text)?;
    let body = text.get(1..end - 1)?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && quote == '"' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The code a makefile's text runs when make reads it: each
/// `$(shell …)` (and `${shell …}`), with make's `$$` read as `$`.
pub(crate) fn make_shell_calls(makefile: &str) -> Vec<String> {
    let mut out = Vec::new();
    for open in ["$(shell ", "${shell "] {
        let close = if open.starts_with("$(") {
            ('(', ')')
        } else {
            ('{', '}')
        };
        for (at, _) in makefile.match_indices(open) {
            let body = makefile.get(at + open.len()..).unwrap_or_default();
            let mut depth = 1usize;
            let mut end = body.len();
            for (i, c) in body.char_indices() {
                if c == close.0 {
                    depth += 1;
                } else if c == close.1 {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
            }
            out.push(body.get(..end).unwrap_or_default().replace("$$", "$"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_config_parameters_are_read_as_git_writes_them() {
        assert_eq!(
            quoted_pairs("'core.pager'='rm -rf ~' 'a.b'='it'\\''s'"),
            vec![
                ("core.pager".to_owned(), "rm -rf ~".to_owned()),
                ("a.b".to_owned(), "it's".to_owned())
            ]
        );
        assert_eq!(
            quoted_pairs("'core.pager=less'"),
            vec![("core.pager".to_owned(), "less".to_owned())]
        );
    }

    #[test]
    fn ext_urls_unescape_as_git_remote_ext_does() {
        let mut found = Vec::new();
        ext(
            &Arg::literal("ext::sh -c rm% -rf% ~"),
            "git clone",
            &mut found,
        );
        let Some(Later::Command(words, _)) = found.first() else {
            panic!("{found:?}");
        };
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["sh", "-c", "rm -rf ~"]);
    }

    #[test]
    fn lisp_arguments_are_strings_or_unknown() {
        assert_eq!(
            lisp_arguments(r#""x" nil (concat "a" "b") "c\"d") "after""#),
            vec![Some("x".to_owned()), None, None, Some("c\"d".to_owned())]
        );
    }

    #[test]
    fn make_shell_calls_are_found_with_nesting() {
        assert_eq!(
            make_shell_calls("x := $(shell rm -rf $(HOME)) y"),
            vec!["rm -rf $(HOME)".to_owned()]
        );
        assert_eq!(
            make_shell_calls("x := $(wildcard *.c)"),
            Vec::<String>::new()
        );
    }
}
