//! The per-program checks: pure functions from a program's arguments to the
//! rules they break. Which program a command runs (after wrappers, paths and
//! quoting) is settled before these are called, by [`super::call`].

pub(super) mod awk;
mod chmod;
mod cron;
pub(super) mod deps;
mod disk;
pub(super) mod fork_bomb;
pub(super) mod git;
pub(super) mod history;
pub(super) mod inline;
pub(super) mod kernel;
mod kill;
mod power;
pub(super) mod rm;
mod rsync;
pub(super) mod sed;
mod writers;
mod writes;

use super::arg::Arg;
use super::rule::Rule;
use super::scanner::Context;

pub(super) use writers::SCRIPT;
pub(super) use writes::{remote_names, targets as write_targets};

/// A rule that fired, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hit {
    pub rule: &'static Rule,
    pub detail: String,
}

impl Hit {
    pub(super) fn new(rule: &'static Rule, detail: impl Into<String>) -> Self {
        Self {
            rule,
            detail: detail.into(),
        }
    }
}

/// Every rule `name` (a program's file name) breaks with `args`, run in
/// `cwd` (where a `cd` moved it, [`super::cwd`]; `None`: the project).
pub(super) fn judge(name: &str, args: &[Arg], ctx: &Context, cwd: Option<&str>) -> Vec<Hit> {
    let hit = match name {
        "rm" => return rm::check(args, ctx, cwd),
        // `rimraf dist`, `del-cli dist`: always `rm -rf`.
        _ if rm::is_tree_remover(name) => {
            let operands: Vec<Arg> = args
                .iter()
                .filter(|a| !a.text.starts_with('-'))
                .cloned()
                .collect();
            if operands.is_empty() {
                return Vec::new();
            }
            let mut as_rm = vec![Arg::literal("-r"), Arg::literal("-f"), Arg::literal("--")];
            as_rm.extend(operands);
            return rm::check(&as_rm, ctx, cwd)
                .into_iter()
                .map(|h| Hit::new(h.rule, format!("{name} deletes recursively: {}", h.detail)))
                .collect();
        }
        "killall5" => kill::check_killall5(args),
        "sysctl" => kernel::check_sysctl(args),
        "rsync" => rsync::check(args, ctx, cwd),
        "chmod" => chmod::check(args),
        "kill" => kill::check(args),
        "pkill" | "killall" => kill::check_pkill(args),
        "history" => history::check(args),
        "unset" | "set" => history::check_switch(name, args),
        "crontab" => cron::check(args),
        "shutdown" | "reboot" | "halt" | "poweroff" | "systemctl" | "init" | "telinit" => {
            power::check(name, args)
        }
        "git" => git::check(args, ctx, cwd),
        _ if disk::is_formatter(name) => disk::check_format(name, args, cwd),
        _ => deps::check(name, args),
    };
    hit.into_iter().collect()
}
