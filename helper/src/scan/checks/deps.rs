//! Dependency changes in the middle of a plan (trekexecute Phase 2.4 WARN:
//! "npm install --save, pip install, cargo add"), for the package managers an
//! agent reaches for.

use super::Hit;
use crate::scan::arg::Arg;
use crate::scan::rule;

pub(crate) fn check(name: &str, args: &[Arg]) -> Option<Hit> {
    let words: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let sub = operands.first().copied().unwrap_or_default();
    let packages = operands.len() > 1;
    let saves = words.iter().any(|w| {
        matches!(
            *w,
            "--save"
                | "-S"
                | "--save-dev"
                | "-D"
                | "--save-optional"
                | "-O"
                | "--save-exact"
                | "-E"
                | "--save-peer"
                | "-B"
                | "--save-prod"
                | "-P"
        )
    });
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let fires = match base {
        "npm" | "cnpm" => match sub {
            "install" | "i" | "in" | "ins" | "inst" | "insta" | "instal" | "isnt" | "isnta"
            | "isntal" | "isntall" | "add" => packages || saves,
            "uninstall" | "remove" | "rm" | "r" | "un" | "unlink" => packages,
            _ => false,
        },
        "pnpm" | "yarn" | "bun" => match sub {
            "add" | "remove" | "rm" => true,
            "install" | "i" => packages,
            _ => false,
        },
        "pip" | "pipenv" => matches!(sub, "install" | "uninstall"),
        "uv" => {
            matches!(sub, "add" | "remove")
                || (sub == "pip" && matches!(operands.get(1), Some(&("install" | "uninstall"))))
        }
        "poetry" => matches!(sub, "add" | "remove"),
        "cargo" => matches!(sub, "add" | "remove" | "rm"),
        "go" => sub == "get",
        "gem" => matches!(sub, "install" | "uninstall"),
        "bundle" => matches!(sub, "add" | "remove"),
        "composer" => matches!(sub, "require" | "remove"),
        _ => false,
    };
    fires.then(|| {
        Hit::new(
            &rule::DEPENDENCY_CHANGE,
            format!("{name} {sub} changes the project's dependencies"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fires(line: &str) -> bool {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<Arg> = words.map(Arg::literal).collect();
        check(name, &args).is_some()
    }

    #[test]
    fn dependency_changes() {
        for line in [
            "npm install --save lodash",
            "npm i -D jest",
            "npm install lodash",
            "npm install --save",
            "yarn add react",
            "pnpm add -D vitest",
            "pip install requests",
            "pip3 install -r requirements.txt",
            "pip3.12 install x",
            "cargo add serde",
            "uv pip install x",
            "uv add httpx",
            "go get example.com/x",
            "poetry add x",
        ] {
            assert!(fires(line), "{line}");
        }
        for line in [
            "npm install",
            "npm ci",
            "npm test",
            "yarn install",
            "cargo build",
            "cargo install ripgrep",
            "pip list",
            "go build ./...",
        ] {
            assert!(!fires(line), "{line}");
        }
    }
}
