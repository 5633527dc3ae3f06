//! Programs that a command sets up to run later (delayed execution): git's
//! configuration keys that name a program (`core.pager`, `core.fsmonitor`,
//! filters, aliases, …) however they are set (`-c`, `--config-env`, `git
//! config`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`),
//! the environment variables git, man and less read a program from, git's
//! `ext::` transport and its `--upload-pack`-style options, ssh's
//! `ProxyCommand` and kin, `rsync -e`, tar's compressor and `--to-command`,
//! `zip -TT`, sed's `e`, `make --eval`, bash's `fc` and editors in batch
//! mode. What such a value runs is judged as if the command ran it now:
//! git hands these values to `sh -c`, so a destructive command or a
//! download in one is as bad there as typed directly.
//!
//! git's carriers are in [`git`], the editors' in [`editors`]. The
//! functions here only find the values; [`crate::delayed`] judges them.

mod editors;
mod git;

pub(crate) use editors::{ex_commands, reads_ex_commands};
pub(crate) use git::split_setting;

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
        "git" => git::carriers(args, env, &mut found),
        "ssh" | "scp" | "sftp" | "slogin" => ssh(name, args, &mut found),
        // `-e` runs here; `--rsync-path` on the host, judged as `ssh host
        // CMD` is.
        "rsync" => {
            for (short, long) in [(Some('e'), "rsh"), (None, "rsync-path")] {
                for value in values(args, &crate::checks::rsync::SPEC, short, long) {
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
            editors::vim(args, &mut found)
        }
        "emacs" | "emacsclient" => editors::emacs(args, &mut found),
        "less" => {
            for var in ["LESSOPEN", "LESSCLOSE"] {
                for value in env(var) {
                    // `|cmd %s` and `||cmd %s` pipe; otherwise the output
                    // names a file; either way the text is run by a shell.
                    let text = value.text.trim_start_matches('|').to_owned();
                    found.push(Later::Code(
                        Arg {
                            text: text.into(),
                            ..value
                        },
                        format!("{var}= less"),
                    ));
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
                    text: value.into(),
                    known_from: crate::arg::offset(word.known_at().saturating_sub(offset)),
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
                    text: w.into(),
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
                    text: code.into(),
                    known_from: crate::arg::offset(action.known_at().saturating_sub(at)),
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
                    text: code.into(),
                    known_from: crate::arg::offset(
                        value
                            .known_at()
                            .saturating_sub(value.text.len() - code.len()),
                    ),
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
        for run in crate::checks::writers::sed_script(script).runs {
            match run {
                crate::checks::writers::SedRun::Command(code) => {
                    found.push(Later::Code(Arg::derived(&code), "sed e".into()));
                }
                crate::checks::writers::SedRun::Line(replacement) => {
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
