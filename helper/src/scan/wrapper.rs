//! Programs that run another command: `sudo`, `doas`, `env`, `command`,
//! `builtin`, `exec`, `nice`, `nohup`, `time`, `timeout`, `stdbuf` and kin
//! run the words after their options; `su -c`, `watch`, `ssh`, `flock -c`
//! and `script -c` run a string as shell code. The engine judges what they
//! run as if typed directly, with the wrapper noted in the finding.
//! (`xargs` and `find -exec`, which add arguments of their own, are in
//! [`super::call`].)

use super::arg::Arg;
use super::getopt::{self, Spec};

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
const WATCH: Spec = Spec::new(
    "nq",
    &[("interval", true), ("exec", false), ("differences", false)],
)
.posix();
const SCRIPT: Spec = Spec::new("cEIOBTm", &[("command", true), ("log-out", true)]).posix();
const SSH: Spec = Spec::new("BbcDEeFIiJLlmOopQRSWw", &[]).posix();

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
        "builtin" | "nohup" | "unbuffer" | "busybox" | "caffeinate" | "fakeroot" | "setsid"
        | "chronic" => run(&PLAIN),
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
            match p.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                None => command_at(args, p.rest + 1),
            }
        }
        "su" | "runuser" => {
            let p = getopt::parse(args, &SU);
            match p.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                // `runuser -u USER -- cmd`: the rest is a command.
                None if name == "runuser" && p.has("u", &["user"]) => command_at(args, p.rest),
                None => Inner::Nothing,
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
            let p = getopt::parse(args, &SCRIPT);
            match p.values(Some('c'), Some("command")).first() {
                Some(code) => Inner::Code(vec![code_arg(args, code)]),
                None => Inner::Nothing,
            }
        }
        "ssh" => {
            let p = getopt::parse(args, &SSH);
            // The first operand is the host; the rest is remote shell code.
            code_at(args, p.rest + 1)
        }
        _ => return None,
    };
    Some(inner)
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
