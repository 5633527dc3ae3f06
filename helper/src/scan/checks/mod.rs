//! The per-program checks: pure functions from a program's arguments to the
//! rules they break. Which program a command runs (after wrappers, paths and
//! quoting) is settled before these are called, by [`super::call`].

pub mod chmod;
pub mod cron;
pub mod deps;
pub mod disk;
pub mod fork_bomb;
pub mod git;
pub mod history;
pub mod inline;
pub mod kill;
pub mod power;
pub mod rm;
pub mod writes;

use super::arg::Arg;
use super::rule::Rule;
use super::scanner::Context;

/// A rule that fired, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: &'static Rule,
    pub detail: String,
}

impl Hit {
    pub fn new(rule: &'static Rule, detail: impl Into<String>) -> Self {
        Self {
            rule,
            detail: detail.into(),
        }
    }
}

/// Every rule `name` (a program's file name) breaks with `args`.
pub fn judge(name: &str, args: &[Arg], ctx: &Context) -> Vec<Hit> {
    let hit = match name {
        "rm" => return rm::check(args, ctx),
        "chmod" => chmod::check(args),
        "kill" => kill::check(args),
        "pkill" | "killall" => kill::check_pkill(args),
        "history" => history::check(args),
        "unset" | "set" => history::check_switch(name, args),
        "crontab" => cron::check(args),
        "shutdown" | "reboot" | "halt" | "poweroff" | "systemctl" | "init" | "telinit" => {
            power::check(name, args)
        }
        "git" => git::check(args),
        _ if disk::is_formatter(name) => disk::check_format(name, args),
        _ => deps::check(name, args),
    };
    hit.into_iter().collect()
}
