//! git's carriers of delayed execution: the keys that name a program and
//! every way a command sets them (`-c`, `--config-env`, `git config`,
//! `git clone -c`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`,
//! `GIT_CONFIG_PARAMETERS`), `ext::` URLs, the subcommand options whose
//! value a shell runs, and template directories and `core.hooksPath`,
//! which take hooks from elsewhere.

use super::Later;
use crate::arg::Arg;
use crate::getopt;
use crate::wrapper::option_values;

/// git's options before the subcommand, as in [`crate::checks::git::GLOBAL`].
pub(super) fn carriers(args: &[Arg], env: &dyn Fn(&str) -> Vec<Arg>, found: &mut Vec<Later>) {
    let global = getopt::parse(args, &crate::checks::git::GLOBAL);
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
            // git takes any unambiguous prefix of a long option (`--temp=`,
            // even `--te`; checked with git 2.39).
            let spelled: Vec<Arg> = sub_args
                .iter()
                .map(|word| match word.text.split_once('=') {
                    _ if !word.exact => word.clone(),
                    Some((option, dir)) if is_template_option(option) => Arg {
                        text: format!("--template={dir}").into(),
                        ..word.clone()
                    },
                    None if is_template_option(&word.text) => Arg {
                        text: "--template".into(),
                        ..word.clone()
                    },
                    _ => word.clone(),
                })
                .collect();
            for dir in option_values(&spelled, "", "--template").flatten() {
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
        text: key.into(),
        // Unknown parts keep their source spelling (`$X`, `$(cmd)`).
        exact: word.exact || !key.contains(['$', '`']),
        known_from: 0,
        content: None,
        ..word.clone()
    };
    let value_arg = Arg {
        text: value.into(),
        known_from: crate::arg::offset(word.known_at().saturating_sub(at)),
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
                    text: key.into(),
                    ..params.clone()
                },
                Arg {
                    text: value.into(),
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
    let p = getopt::parse(args, &crate::checks::git::CONFIG_OPTIONS);
    let removes_or_renames = [
        "unset",
        "unset-all",
        "edit",
        "rename-section",
        "remove-section",
    ];
    if p.has("l", &crate::checks::git::CONFIG_READS) || p.has("e", &removes_or_renames) {
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
            text: w.into(),
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
                text: sub.0.into(),
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
                text: code.into(),
                ..value.clone()
            },
            None if value.text.starts_with('/') => value.clone(),
            None => return,
        },
        // `submodule.NAME.update=!code`: `git submodule update` runs code
        // in a shell (git ignores it from .gitmodules, not from a config).
        ("submodule", Some(_), "update") => match value.text.strip_prefix('!') {
            Some(code) => Arg {
                text: code.into(),
                ..value.clone()
            },
            None => return,
        },
        // `!code` runs in a shell; other aliases are git's own commands,
        // judged where they are used (`crate::wrapper`).
        ("alias", Some(_), _) | ("alias", None, _) => match value.text.strip_prefix('!') {
            Some(code) => Arg {
                text: code.into(),
                ..value.clone()
            },
            None => return,
        },
        _ => return,
    };
    if let Some(program) = unseen_program(&shell) {
        found.push(Later::Unseen(format!(
            "{via}={} makes git run {program}, a program this command does not show, every time git needs it",
            shell.text
        )));
    }
    found.push(Later::Code(shell, via));
}

/// The program a value runs when it is a file named by its path outside
/// the system's program directories (`./x`, `~/bin/hook`, `/tmp/m`): its
/// code is nowhere in the command, and git runs it later unasked. A
/// program found on `PATH` (`less`, `delta`, `code --wait`) or installed
/// under `/usr`, `/bin`, `/opt` is the user's known tool.
fn unseen_program(value: &Arg) -> Option<&str> {
    const SYSTEM: &[&str] = &["/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/"];
    let program = value.exact_text()?.split_whitespace().next()?;
    let program = program.trim_matches(['"', '\'']);
    (program.contains('/') && !SYSTEM.iter().any(|dir| program.starts_with(dir))).then_some(program)
}

/// `--template` or a prefix of it git still reads as that option.
fn is_template_option(option: &str) -> bool {
    option.len() >= "--te".len() && "--template".starts_with(option)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_named_by_a_path_the_command_does_not_show_is_unseen() {
        for (value, program) in [
            ("./x", Some("./x")),
            ("~/bin/page.sh -R", Some("~/bin/page.sh")),
            ("'/tmp/m' --flag", Some("/tmp/m")),
            ("less -R", None),
            ("code --wait", None),
            ("/usr/bin/ssh -o IdentitiesOnly=yes", None),
            ("/opt/homebrew/bin/delta", None),
        ] {
            assert_eq!(unseen_program(&Arg::literal(value)), program, "{value}");
        }
    }

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
}
