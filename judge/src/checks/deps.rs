//! Dependency changes in the middle of a plan (trekexecute Phase 2.4 WARN:
//! "npm install --save, pip install, cargo add"), for the package managers an
//! agent reaches for. What the warning is for is code coming in: a new
//! package and whatever its install scripts run. Removing one
//! (`npm uninstall`, `pip uninstall`, `cargo remove`) brings nothing in, and
//! does not warn.

use super::Hit;
use crate::arg::Arg;
use crate::rule;

/// Options that take a value as the next word, before or after the
/// subcommand (`npm --prefix web install x`, `pnpm --filter api add x`,
/// `pip --log f install x`): the value is no subcommand and no package.
/// `None` for a program that is no package manager: its words are never
/// read, so every other command (`echo` and a megabyte of words) costs
/// nothing here.
fn options_with_value(base: &str) -> Option<&'static [&'static str]> {
    Some(match base {
        "npm" | "cnpm" => &[
            "--prefix",
            "-C",
            "--workspace",
            "-w",
            "--loglevel",
            "--registry",
            "--userconfig",
            "--cache",
            "--tag",
            "--omit",
            "--include",
        ],
        "pnpm" => &[
            "--filter",
            "-F",
            "--dir",
            "-C",
            "--workspace-dir",
            "--reporter",
            "--loglevel",
        ],
        "yarn" => &["--cwd", "--modules-folder", "--cache-folder", "--registry"],
        "bun" => &["--cwd", "--config", "-c", "--registry"],
        "pip" | "pipenv" => &[
            "--log",
            "--proxy",
            "--cache-dir",
            "--python",
            "--index-url",
            "-i",
            "--extra-index-url",
            "--trusted-host",
            "--timeout",
            "--retries",
            "--src",
            "--target",
            "-t",
            "--root",
            "--prefix",
            "--platform",
            "--python-version",
            "--constraint",
            "-c",
            "--find-links",
            "-f",
            "--cert",
            "--client-cert",
        ],
        "uv" => &[
            "--directory",
            "--project",
            "--python",
            "-p",
            "--index-url",
            "--cache-dir",
        ],
        "poetry" => &[
            "--directory",
            "-C",
            "--project",
            "-P",
            "--group",
            "-G",
            "--source",
        ],
        "cargo" => &[
            "-Z",
            "--manifest-path",
            "--config",
            "-C",
            "--color",
            "--package",
            "-p",
        ],
        "go" => &["-C"],
        "gem" => &["--install-dir", "-i", "--source", "-s", "--version", "-v"],
        "bundle" => &["--gemfile", "--version", "--group"],
        "composer" => &["--working-dir", "-d"],
        _ => return None,
    })
}

pub(crate) fn check(name: &str, args: &[Arg]) -> Option<Hit> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let with_value = options_with_value(base)?;
    let words: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let mut operands: Vec<&str> = Vec::new();
    let mut skip = false;
    for word in &words {
        if std::mem::take(&mut skip) {
            continue;
        }
        if with_value.contains(word) {
            skip = true;
        } else if !(word.starts_with('-') || base == "cargo" && word.starts_with('+')) {
            operands.push(word);
        }
    }
    // `npm install --no-save x` leaves package.json and the lock alone.
    let no_save = words
        .iter()
        .any(|w| matches!(*w, "--no-save" | "--no-package-lock"));
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
    let fires = match base {
        "npm" | "cnpm" => match sub {
            "install" | "i" | "in" | "ins" | "inst" | "insta" | "instal" | "isnt" | "isnta"
            | "isntal" | "isntall" | "add" => (packages || saves) && !no_save,
            _ => false,
        },
        "pnpm" | "yarn" | "bun" => match sub {
            "add" => true,
            "install" | "i" => packages,
            _ => false,
        },
        "pip" | "pipenv" => sub == "install",
        "uv" => sub == "add" || (sub == "pip" && operands.get(1) == Some(&"install")),
        "poetry" | "bundle" => sub == "add",
        "cargo" => sub == "add",
        "go" => sub == "get",
        "gem" => sub == "install",
        "composer" => sub == "require",
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
            "npm --prefix frontend install --save dayjs",
            "npm -C web i dayjs",
            "pnpm --filter web add zod",
            "yarn --cwd web add zod",
            "pip --log /tmp/l install requests",
            "cargo +nightly add serde",
            "cargo --manifest-path x/Cargo.toml add serde",
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
            "npm install --no-save left-pad",
            "npm --prefix frontend install",
            "npm --prefix frontend ci",
            "cargo +nightly build",
            "npm ci",
            "npm test",
            "yarn install",
            "cargo build",
            "cargo install ripgrep",
            "pip list",
            "go build ./...",
            "pip uninstall requests",
            "pip uninstall -y requests",
            "pip3 uninstall -r requirements-dev.txt",
            "npm uninstall lodash",
            "npm rm lodash",
            "yarn remove react",
            "pnpm remove vitest",
            "cargo remove serde",
            "poetry remove x",
            "uv remove httpx",
            "uv pip uninstall x",
            "gem uninstall rails",
            "composer remove x/y",
        ] {
            assert!(!fires(line), "{line}");
        }
    }
}
