//! Programs that run another command: `sudo`, `doas`, `env`, `command`,
//! `builtin`, `exec`, `nice`, `nohup`, `time`, `timeout`, `stdbuf`,
//! `setsid`, `chroot`, `strace`, `taskset`, `systemd-run`, `screen`, the
//! package runners (`npx`, `pnpm dlx`, `bunx`, `poetry run`, `bundle
//! exec`, …) and kin run the words after their options; `su -c`, `watch`,
//! `ssh`, `flock -c`, `script -c`, `tmux new-session`/`send-keys` and
//! `nix-shell --run` run a string as shell code, and `su`, `ssh host` or
//! `sudo -s` with no command a shell reading stdin. The engine judges what
//! they run as if typed directly, with the wrapper noted in the finding.
//! [`also_runs`] names the code a program runs beside its own work (git's
//! `submodule foreach`, `rebase --exec` and aliases, tar's
//! `--checkpoint-action=exec=`, vim's `-c '!…'`). (`xargs`, `parallel` and
//! `find -exec`, which add arguments of their own, are in [`crate::call`].)

use crate::arg::Arg;
use crate::getopt::{self, Spec};

/// What a wrapper runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Inner {
    /// The words from this index of its arguments on, as a command.
    Command(usize),
    /// These words, joined with spaces, as shell code.
    Code(Vec<Arg>),
    /// Files it edits in place (`sudo -e`, `sudoedit`).
    Edit(Vec<Arg>),
    /// Nothing (`sudo -l`, `command -v rm`, `env` alone).
    Nothing,
    /// A shell that reads its commands from stdin (`su`, `ssh host` or
    /// `sudo -s` with no command: `echo 'cmd' | su`).
    Stdin,
}

const SUDO: Spec = Spec::new(
    "ugpCDrtUTRh",
    &[
        ("user", true),
        ("group", true),
        ("prompt", true),
        ("close-from", true),
        ("chdir", true),
        ("role", true),
        ("type", true),
        ("other-user", true),
        ("command-timeout", true),
        ("chroot", true),
        ("host", true),
        ("edit", false),
        ("shell", false),
        ("login", false),
        ("list", false),
        ("validate", false),
        ("preserve-env", false),
        ("non-interactive", false),
        ("background", false),
        ("stdin", false),
    ],
)
.posix();
const DOAS: Spec = Spec::new("uC", &[]).posix();
const EXEC: Spec = Spec::new("a", &[]).posix();
const NICE: Spec = Spec::new("n", &[("adjustment", true)]).posix();
const IONICE: Spec = Spec::new("cnp", &[("class", true), ("classdata", true)]).posix();
const STDBUF: Spec =
    Spec::new("ioe", &[("input", true), ("output", true), ("error", true)]).posix();
const TIME: Spec = Spec::new(
    "fo",
    &[
        ("format", true),
        ("output", true),
        ("append", false),
        ("verbose", false),
    ],
)
.posix();
const TIMEOUT: Spec = Spec::new(
    "sk",
    &[
        ("signal", true),
        ("kill-after", true),
        ("preserve-status", false),
        ("foreground", false),
        ("verbose", false),
    ],
)
.posix();
const CHROOT: Spec = Spec::new(
    "",
    &[("userspec", true), ("groups", true), ("skip-chdir", false)],
)
.posix();
const PLAIN: Spec = Spec::new("", &[]).posix();
const FLOCK: Spec = Spec::new(
    "wEc",
    &[
        ("timeout", true),
        ("conflict-exit-code", true),
        ("command", true),
    ],
)
.posix();
const SU: Spec = Spec::new(
    "cgGsuw",
    &[
        ("command", true),
        ("group", true),
        ("supp-group", true),
        ("shell", true),
        ("user", true),
        ("whitelist-environment", true),
        ("session-command", true),
    ],
)
.posix();
const SU_ANYWHERE: Spec = Spec {
    permute: true,
    ..SU
};
const WATCH: Spec = Spec::new(
    "nq",
    &[("interval", true), ("exec", false), ("differences", false)],
)
.posix();
const SSH: Spec = Spec::new("BbcDEeFIiJLlmOopQRSWw", &[]).posix();
const STRACE: Spec = Spec::new("abeEIOoPpSsUuX", &[("output", true), ("signal", true)]).posix();
const PKEXEC: Spec = Spec::new("", &[("user", true), ("disable-internal-agent", false)]).posix();
const UNSHARE: Spec = Spec::new(
    "SGRw",
    &[
        ("setuid", true),
        ("setgid", true),
        ("root", true),
        ("wd", true),
    ],
)
.posix();
const NSENTER: Spec = Spec::new(
    "tSGwrmuinpUCT",
    &[
        ("target", true),
        ("setuid", true),
        ("setgid", true),
        ("wd", true),
        ("root", true),
    ],
)
.posix();
const NUMACTL: Spec = Spec::new(
    "CNmpiP",
    &[
        ("cpunodebind", true),
        ("physcpubind", true),
        ("membind", true),
        ("preferred", true),
        ("interleave", true),
    ],
)
.posix();
const XVFB_RUN: Spec = Spec::new(
    "nsfelp",
    &[
        ("server-num", true),
        ("server-args", true),
        ("auth-file", true),
        ("error-file", true),
    ],
)
.posix();
const ENTR: Spec = Spec::new("", &[]).posix();
const TASKSET: Spec = Spec::new(
    "",
    &[("cpu-list", false), ("pid", false), ("all-tasks", false)],
)
.posix();
const ENV_RUN: Spec = Spec::new(
    "",
    &[
        ("with", true),
        ("directory", true),
        ("project", true),
        ("python", true),
        ("env", true),
        ("extra", true),
        ("package", true),
        ("group", true),
        ("gemfile", true),
    ],
)
.posix();
const CONDA_RUN: Spec = Spec::new(
    "np",
    &[
        ("name", true),
        ("prefix", true),
        ("cwd", true),
        ("live-stream", false),
        ("no-capture-output", false),
    ],
)
.posix();
const NIX_SHELL: Spec = Spec::new(
    "pIA",
    &[
        ("run", true),
        ("command", true),
        ("packages", false),
        ("pure", false),
        ("arg", true),
        ("argstr", true),
        ("attr", true),
    ],
);
const SETSID: Spec = Spec::new("", &[("fork", false), ("wait", false), ("ctty", false)]).posix();
/// `npx`/`bunx`/`pnpx`: `-p PKG` names what to install, `-c CODE` is shell.
const NPX: Spec = Spec::new(
    "pc",
    &[
        ("package", true),
        ("call", true),
        ("yes", false),
        ("no", false),
        ("quiet", false),
        ("bun", false),
        ("silent", false),
        ("shell-mode", false),
    ],
)
.posix();
/// `pnpm dlx`, `yarn dlx`, `npm exec`: the same shape after the subcommand.
const DLX: Spec = Spec::new(
    "pc",
    &[("package", true), ("call", true), ("silent", false)],
)
.posix();
const SCREEN: Spec = Spec::new("cehpsSTtX", &[]).posix();
const SYSTEMD_RUN: Spec = Spec::new(
    "upEMH",
    &[
        ("unit", true),
        ("property", true),
        ("description", true),
        ("slice", true),
        ("uid", true),
        ("gid", true),
        ("nice", true),
        ("working-directory", true),
        ("setenv", true),
        ("machine", true),
        ("host", true),
        ("on-active", true),
        ("on-boot", true),
        ("on-startup", true),
        ("on-unit-active", true),
        ("on-unit-inactive", true),
        ("on-calendar", true),
        ("on-timer-property", true),
        ("timer-property", true),
        ("path-property", true),
        ("socket-property", true),
        ("service-type", true),
        ("user", false),
        ("system", false),
        ("scope", false),
        ("pty", false),
        ("pipe", false),
        ("wait", false),
        ("collect", false),
        ("quiet", false),
        ("same-dir", false),
        ("shell", false),
        ("no-block", false),
        ("no-ask-password", false),
        ("remain-after-exit", false),
        ("send-sighup", false),
    ],
)
.posix();

/// What the wrapper `name` runs, or `None` when `name` is no wrapper.
pub(super) fn unwrap(name: &str, args: &[Arg]) -> Option<Inner> {
    let run = |spec: &Spec| {
        let p = getopt::parse(args, spec);
        command_at(args, p.rest)
    };
    let inner = match name {
        "sudo" => {
            let p = getopt::parse(args, &SUDO);
            let rest = skip_assignments(args, p.rest);
            if p.has("e", &["edit"]) {
                Inner::Edit(args.get(rest..).unwrap_or_default().to_vec())
            } else if p.has("si", &["shell", "login"]) && rest < args.len() {
                Inner::Code(args.get(rest..).unwrap_or_default().to_vec())
            } else if p.has("si", &["shell", "login"]) {
                Inner::Stdin
            } else {
                command_at(args, rest)
            }
        }
        "sudoedit" => Inner::Edit(
            getopt::parse(args, &SUDO)
                .operands
                .into_iter()
                .cloned()
                .collect(),
        ),
        "doas" => run(&DOAS),
        "env" => env(args),
        "command" => {
            let p = getopt::parse(args, &PLAIN);
            if p.has("vV", &[]) {
                Inner::Nothing
            } else {
                command_at(args, p.rest)
            }
        }
        "builtin" | "nohup" | "unbuffer" | "busybox" | "toybox" | "caffeinate" | "fakeroot"
        | "chronic" | "catchsegv" | "proxychains" | "proxychains4" | "torsocks" | "firejail"
        | "bwrap" => run(&PLAIN),
        "setsid" => run(&SETSID),
        "strace" | "ltrace" => run(&STRACE),
        "pkexec" => run(&PKEXEC),
        "unshare" => run(&UNSHARE),
        "nsenter" => run(&NSENTER),
        "numactl" => run(&NUMACTL),
        "xvfb-run" => run(&XVFB_RUN),
        "entr" => run(&ENTR),
        "dbus-run-session" | "dbus-launch" | "corepack" | "valgrind" => run(&PLAIN),
        // The first operand is a CPU mask or a priority (`taskset 0x3 cmd`,
        // `chrt -f 50 cmd`), unless `-c LIST` / `-p` gave it.
        "taskset" | "chrt" => {
            let p = getopt::parse(args, &TASKSET);
            command_at(args, p.rest + 1)
        }
        // `sg GROUP -c CODE`, `sg GROUP CMD`.
        "sg" => match (args.get(1), args.get(2)) {
            (Some(c), Some(code)) if c.is("-c") => Inner::Code(vec![code.clone()]),
            _ => code_at(args, 1),
        },
        // `poetry run CMD`, `uv run CMD`, `bundle exec CMD`, …: the
        // project's environment around an ordinary command.
        "poetry" | "uv" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "conda" | "mamba"
        | "micromamba" | "direnv" => {
            let sub = args.first().and_then(Arg::exact_text)?;
            let rest = args.get(1..).unwrap_or_default();
            let at = match (name, sub) {
                ("bundle", "exec") | ("poetry" | "uv" | "pipenv" | "pdm" | "rye", "run") => {
                    getopt::parse(rest, &ENV_RUN).rest
                }
                ("hatch", "run") => getopt::parse(rest, &ENV_RUN).rest,
                ("conda" | "mamba" | "micromamba", "run") => getopt::parse(rest, &CONDA_RUN).rest,
                // `direnv exec DIR CMD`.
                ("direnv", "exec") => 1,
                _ => return None,
            };
            match command_at(rest, at) {
                Inner::Command(i) => Inner::Command(i + 1),
                other => other,
            }
        }
        "nix-shell" => {
            let p = getopt::parse(args, &NIX_SHELL);
            match p
                .values(None, Some("run"))
                .first()
                .or(p.values(None, Some("command")).first())
            {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                None => Inner::Nothing,
            }
        }
        "nix"
            if args
                .first()
                .is_some_and(|a| a.is("develop") || a.is("shell")) =>
        {
            let at = args.iter().position(|a| a.is("-c") || a.is("--command"));
            match at {
                Some(i) => command_at(args, i + 1),
                None => Inner::Nothing,
            }
        }
        "npx" | "pnpx" | "bunx" => package_runner(args, &NPX),
        // `pnpm dlx rimraf dist`, `yarn dlx …`, `npm exec -- …`, `bun x …`.
        "pnpm" | "yarn" | "npm" | "bun" => {
            let sub = args.first().and_then(Arg::exact_text)?;
            // `yarn rimraf dist`: a package's binary, run by name.
            if matches!(name, "yarn" | "pnpm") && crate::checks::rm::is_tree_remover(sub) {
                return Some(Inner::Command(0));
            }
            if !matches!(
                (name, sub),
                ("pnpm" | "yarn", "dlx" | "exec") | ("npm", "exec" | "x") | ("bun", "x")
            ) {
                return None;
            }
            let rest = args.get(1..).unwrap_or_default();
            match package_runner(rest, &DLX) {
                Inner::Command(at) => Inner::Command(at + 1),
                other => other,
            }
        }
        "screen" => {
            let p = getopt::parse(args, &SCREEN);
            // `screen -X stuff 'TEXT'` types TEXT into the session's shell.
            match p.values(Some('X'), None).first() {
                Some(&"stuff") => code_at(args, p.rest),
                Some(_) => Inner::Nothing,
                None => command_at(args, p.rest),
            }
        }
        "systemd-run" => {
            let p = getopt::parse(args, &SYSTEMD_RUN);
            command_at(args, p.rest)
        }
        "tmux" => tmux(args),
        "exec" => run(&EXEC),
        "nice" => run(&NICE),
        "ionice" => run(&IONICE),
        "stdbuf" => run(&STDBUF),
        "time" => run(&TIME),
        "timeout" => {
            let p = getopt::parse(args, &TIMEOUT);
            // The first operand is the duration.
            command_at(args, p.rest + 1)
        }
        "chroot" => {
            let p = getopt::parse(args, &CHROOT);
            command_at(args, p.rest + 1)
        }
        "flock" => {
            let p = getopt::parse(args, &FLOCK);
            if let Some(code) = p.values(Some('c'), Some("command")).first() {
                return Some(Inner::Code(vec![code_arg(args, code)]));
            }
            // `flock FILE -c CODE`: options may follow the lock file too.
            let after = args.get(p.rest + 1..).unwrap_or_default();
            let q = getopt::parse(after, &FLOCK);
            match q.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                None => command_at(args, p.rest + 1 + q.rest),
            }
        }
        "su" | "runuser" => {
            // util-linux reads options anywhere: `su root -c CODE`.
            let p = getopt::parse(args, &SU_ANYWHERE);
            match p.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                // `runuser -u USER -- cmd`: the rest is a command.
                None if name == "runuser" && p.has("u", &["user"]) => {
                    match command_at(args, getopt::parse(args, &SU).rest) {
                        Inner::Nothing => Inner::Stdin,
                        other => other,
                    }
                }
                None => Inner::Stdin,
            }
        }
        "watch" => {
            let p = getopt::parse(args, &WATCH);
            if p.has("x", &["exec"]) {
                command_at(args, p.rest)
            } else {
                code_at(args, p.rest)
            }
        }
        "script" => {
            // Options may follow the file: `script -q log -c CMD`.
            let p = getopt::parse(args, &crate::checks::SCRIPT);
            match p.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                None => Inner::Nothing,
            }
        }
        "ssh" => {
            let p = getopt::parse(args, &SSH);
            // The first operand is the host; the rest is remote shell code,
            // or with none the remote shell reads stdin.
            match code_at(args, p.rest + 1) {
                Inner::Nothing if p.rest < args.len() && !p.has("NfT", &[]) => Inner::Stdin,
                other => other,
            }
        }
        _ => return None,
    };
    Some(inner)
}

/// Something a program runs besides doing its own work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Also {
    /// These words, joined with spaces, as shell code.
    Code(Vec<Arg>),
    /// These words as a command.
    Command(Vec<Arg>),
}

/// The code a program hands to a shell (or the command it runs) while it
/// goes on with its own work, which is judged as well: git's `submodule
/// foreach`, `rebase --exec`, `bisect run`, `filter-branch` filters and
/// aliases given inline with `-c alias.x=…`, and vim's `-c '!…'`. (What
/// a program is set up to run later, tar's compressor or git's
/// configuration, is [`crate::checks::later`]'s.)
pub(super) fn also_runs(name: &str, args: &[Arg]) -> Vec<Also> {
    match name {
        "git" => git(args),
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" => editor(args),
        _ => Vec::new(),
    }
}

fn git(args: &[Arg]) -> Vec<Also> {
    let global = getopt::parse(args, &crate::checks::git::GLOBAL);
    let Some((sub, sub_args)) = args.get(global.rest..).and_then(<[Arg]>::split_first) else {
        return Vec::new();
    };
    let Some(sub_name) = sub.exact_text() else {
        return Vec::new();
    };
    // `git -c alias.NAME=VALUE NAME …`: the alias runs in place of NAME.
    let defined = global.values(Some('c'), None).into_iter().find_map(|v| {
        let (key, value) = v.split_once('=')?;
        let alias = key
            .get(..6)?
            .eq_ignore_ascii_case("alias.")
            .then_some(key.get(6..)?)?;
        (alias == sub_name).then_some((v, value))
    });
    if let Some((option, value)) = defined {
        if let Some(code) = value.strip_prefix('!') {
            let mut words = vec![Arg::derived(code)];
            words.extend(sub_args.iter().cloned());
            return vec![Also::Code(words)];
        }
        // Git's options without this alias (so the expansion cannot loop),
        // the alias's words, then the rest.
        let mut cleaned = vec![Arg::literal("git")];
        let mut options = args
            .get(..global.rest)
            .unwrap_or_default()
            .iter()
            .peekable();
        while let Some(word) = options.next() {
            if word.is("-c") && options.peek().is_some_and(|n| n.text == option) {
                options.next();
                continue;
            }
            cleaned.push(word.clone());
        }
        cleaned.extend(value.split_whitespace().map(Arg::derived));
        cleaned.extend(sub_args.iter().cloned());
        return vec![Also::Command(cleaned)];
    }
    let mut found = Vec::new();
    match sub_name {
        "submodule" => {
            let mut rest = sub_args.iter().skip_while(|a| !a.is("foreach")).skip(1);
            let words: Vec<Arg> = rest
                .by_ref()
                .skip_while(|a| a.is("--recursive") || a.is("-q") || a.is("--quiet"))
                .cloned()
                .collect();
            if !words.is_empty() {
                found.push(Also::Code(words));
            }
        }
        "rebase" => found.extend(option_values(sub_args, "-x", "--exec").map(Also::Code)),
        "bisect" if sub_args.first().is_some_and(|a| a.is("run")) => {
            let words = sub_args.get(1..).unwrap_or_default().to_vec();
            if !words.is_empty() {
                found.push(Also::Command(words));
            }
        }
        "filter-branch" => {
            for filter in [
                "--tree-filter",
                "--index-filter",
                "--msg-filter",
                "--env-filter",
                "--commit-filter",
                "--parent-filter",
                "--tag-name-filter",
            ] {
                found.extend(option_values(sub_args, "", filter).map(Also::Code));
            }
        }
        _ => {}
    }
    found
}

/// vim's `-c CMD` and `+CMD` (also `--cmd CMD`): an Ex command starting
/// with `!` (`:!rm -rf x`, `silent !x`) runs the rest in a shell.
fn editor(args: &[Arg]) -> Vec<Also> {
    let mut found = Vec::new();
    for command in vim_commands(args) {
        let text = command.text.trim_start_matches([':', ' ']);
        let text = text.strip_prefix("silent").map_or(text, str::trim_start);
        if let Some(code) = text.strip_prefix('!') {
            found.push(Also::Code(vec![Arg {
                text: code.into(),
                ..command.clone()
            }]));
        }
    }
    found
}

/// The Ex commands vim runs at start: `-c CMD`, `--cmd CMD` and `+CMD`
/// (read here and by [`crate::checks::later`]).
pub(crate) fn vim_commands(args: &[Arg]) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let command = if word.is("-c") || word.is("--cmd") {
            words.next().cloned()
        } else {
            word.text.strip_prefix('+').map(|c| Arg {
                text: c.into(),
                ..word.clone()
            })
        };
        out.extend(command);
    }
    out
}

/// Every value of the option spelled `short` (`-x V`, `-xV`) or `long`
/// (`--exec V`, `--exec=V`), each as one word keeping its exactness.
pub(crate) fn option_values<'a>(
    args: &'a [Arg],
    short: &'a str,
    long: &'a str,
) -> impl Iterator<Item = Vec<Arg>> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(word) = args.get(i) {
            i += 1;
            if !word.exact {
                continue;
            }
            let text = word.text.as_str();
            let value = |v: &str| Arg {
                text: v.into(),
                ..word.clone()
            };
            if (!short.is_empty() && text == short) || text == long {
                let next = args.get(i).cloned();
                i += 1;
                if let Some(next) = next {
                    return Some(vec![next]);
                }
            } else if let Some(v) = text.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(vec![value(v)]);
            } else if !short.is_empty()
                && let Some(v) = text.strip_prefix(short).filter(|v| !v.is_empty())
            {
                return Some(vec![value(v)]);
            }
        }
        None
    })
}

/// `npx [options] COMMAND ARGS…` and kin: `-c CODE` is shell code, else
/// the command after the options (the package's binary, or a program of
/// the system when no package has that name: `npx rm -rf build`).
fn package_runner(args: &[Arg], spec: &Spec) -> Inner {
    let p = getopt::parse(args, spec);
    match p.values(Some('c'), Some("call")).first() {
        Some(code) => Inner::Code(vec![code_arg(args, code)]),
        None => command_at(args, p.rest),
    }
}

/// tmux's commands that start a shell command (`new-session`,
/// `new-window`, `split-window`, `respawn-pane`, `run-shell`, …) or type
/// text into one (`send-keys`): what they run or type, as shell code.
fn tmux(args: &[Arg]) -> Inner {
    const GLOBAL: Spec = Spec::new("cfLST", &[]).posix();
    // Short options of the commands below that take a value.
    const COMMAND: Spec = Spec::new("ceFfnstxyl", &[]).posix();
    const RUN_SHELL: Spec = Spec::new("dct", &[]).posix();
    let g = getopt::parse(args, &GLOBAL);
    if let Some(code) = g.values(Some('c'), None).first() {
        return Inner::Code(vec![code_arg(args, code)]);
    }
    let Some(sub) = args.get(g.rest).and_then(Arg::exact_text) else {
        return Inner::Nothing;
    };
    let rest = args.get(g.rest + 1..).unwrap_or_default();
    const SEND: Spec = Spec::new("cNt", &[]).posix();
    let typed = matches!(sub, "send-keys" | "send");
    let spec = match sub {
        _ if typed => &SEND,
        "run-shell" | "run" => &RUN_SHELL,
        _ => &COMMAND,
    };
    let p = getopt::parse(rest, spec);
    // A `;` word ends one tmux command (`tmux new -d 'x' \; attach`).
    let words: Vec<Arg> = rest
        .get(p.rest..)
        .unwrap_or_default()
        .iter()
        .take_while(|a| !a.is(";"))
        .cloned()
        .collect();
    let runs = matches!(
        sub,
        "new-session"
            | "new"
            | "new-window"
            | "neww"
            | "split-window"
            | "splitw"
            | "respawn-pane"
            | "respawnp"
            | "respawn-window"
            | "respawnw"
            | "run-shell"
            | "run"
            | "display-popup"
            | "popup"
            | "pipe-pane"
            | "pipep"
    );
    if typed {
        // Key names (`Enter`, `C-m`) are keys, not text.
        let text: Vec<Arg> = words
            .into_iter()
            .filter(|w| {
                !matches!(
                    w.text.as_str(),
                    "Enter" | "KPEnter" | "C-m" | "C-j" | "Space" | "Tab"
                )
            })
            .collect();
        return if text.is_empty() {
            Inner::Nothing
        } else {
            Inner::Code(text)
        };
    }
    if runs && !words.is_empty() {
        return Inner::Code(words);
    }
    Inner::Nothing
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [COMMAND]`.
fn env(args: &[Arg]) -> Inner {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if !arg.exact || !text.starts_with('-') || text == "-" {
            break;
        }
        i += 1;
        if text == "--" {
            break;
        }
        if let Some(split) = text
            .strip_prefix("--split-string=")
            .or_else(|| text.strip_prefix("-S").filter(|s| !s.is_empty()))
        {
            let mut code = vec![Arg::derived(split)];
            code.extend(args.get(i..).unwrap_or_default().iter().cloned());
            return Inner::Code(code);
        }
        match text {
            "-S" | "--split-string" => {
                return Inner::Code(args.get(i..).unwrap_or_default().to_vec());
            }
            "-u" | "--unset" | "-C" | "--chdir" => i += 1,
            _ => {}
        }
    }
    command_at(args, skip_assignments(args, i))
}

/// Skips `NAME=VALUE` words from `from` on.
fn skip_assignments(args: &[Arg], from: usize) -> usize {
    let mut i = from;
    while args.get(i).is_some_and(|a| is_assignment(&a.text)) {
        i += 1;
    }
    i
}

fn is_assignment(word: &str) -> bool {
    // An exported function: `BASH_FUNC_name%%=() { …; }`.
    if word.starts_with("BASH_FUNC_") && (word.contains("%%=") || word.contains("()=")) {
        return true;
    }
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn command_at(args: &[Arg], at: usize) -> Inner {
    if at < args.len() {
        Inner::Command(at)
    } else {
        Inner::Nothing
    }
}

fn code_at(args: &[Arg], at: usize) -> Inner {
    match args.get(at..) {
        Some(rest) if !rest.is_empty() => Inner::Code(rest.to_vec()),
        _ => Inner::Nothing,
    }
}

/// The argument an option value came from, so it keeps its exactness and
/// taint (`su -c "$CMD"`); a value glued to its option is taken as known.
fn code_arg(args: &[Arg], value: &str) -> Arg {
    args.iter()
        .find(|a| a.text == value)
        .cloned()
        .unwrap_or_else(|| Arg::derived(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inner(line: &str) -> Option<Inner> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<Arg> = words.map(Arg::literal).collect();
        unwrap(name, &args)
    }

    #[test]
    fn wrapped_commands() {
        assert_eq!(inner("sudo rm -rf /"), Some(Inner::Command(0)));
        assert_eq!(inner("sudo -u root -E rm"), Some(Inner::Command(3)));
        assert_eq!(inner("sudo -- rm"), Some(Inner::Command(1)));
        assert_eq!(inner("sudo A=1 rm"), Some(Inner::Command(1)));
        assert_eq!(inner("sudo -l"), Some(Inner::Nothing));
        assert_eq!(inner("env -i A=1 B=2 rm"), Some(Inner::Command(3)));
        assert_eq!(inner("env -u X rm"), Some(Inner::Command(2)));
        assert_eq!(inner("command -v rm"), Some(Inner::Nothing));
        assert_eq!(inner("command -p rm"), Some(Inner::Command(1)));
        assert_eq!(inner("nice -n 10 rm"), Some(Inner::Command(2)));
        assert_eq!(inner("timeout -s KILL 5 rm"), Some(Inner::Command(3)));
        assert_eq!(inner("timeout 5"), Some(Inner::Nothing));
        assert_eq!(inner("stdbuf -oL rm"), Some(Inner::Command(1)));
        assert_eq!(inner("exec -a name rm"), Some(Inner::Command(2)));
        assert_eq!(inner("flock /tmp/l rm"), Some(Inner::Command(1)));
        assert!(matches!(inner("ssh -p 22 host rm -rf /"), Some(Inner::Code(c)) if c.len() == 3));
        assert!(matches!(inner("su -c x root"), Some(Inner::Code(_))));
        assert!(matches!(inner("env -S x"), Some(Inner::Code(_))));
        assert!(matches!(
            inner("sudo -e /etc/crontab"),
            Some(Inner::Edit(_))
        ));
        assert_eq!(inner("ls -la"), None);
    }
}
