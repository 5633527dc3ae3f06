//! Shutting the machine down or restarting it (trekexecute Phase 2.4,
//! "System shutdown").

use super::Hit;
use crate::arg::Arg;
use crate::rule;

pub(super) fn check(name: &str, args: &[Arg]) -> Option<Hit> {
    let has = |word: &str| args.iter().any(|a| a.is(word));
    let operand = args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .and_then(Arg::exact_text);
    let fires = match name {
        "shutdown" => !has("-c") && !has("--help"),
        "reboot" | "halt" | "poweroff" => !has("--help"),
        "init" | "telinit" => matches!(operand, Some("0" | "6")),
        "systemctl" => matches!(
            operand,
            Some("poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")
        ),
        _ => false,
    };
    fires.then(|| {
        Hit::new(
            &rule::POWER,
            format!("{name} stops or restarts the machine"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_commands() {
        let run = |name: &str, line: &str| {
            let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
            check(name, &args).is_some()
        };
        assert!(run("shutdown", "-h now"));
        assert!(run("reboot", ""));
        assert!(run("systemctl", "reboot"));
        assert!(run("systemctl", "--no-wall poweroff"));
        assert!(run("init", "0"));
        assert!(!run("shutdown", "-c"));
        assert!(!run("systemctl", "restart nginx"));
        assert!(!run("init", "3"));
    }
}
