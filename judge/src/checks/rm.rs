//! `rm`: a recursive *and* forced delete in any spelling (trekexecute Phase
//! 2.4, "rm with both -r and -f flags (any order)"; Sub-step D1, "with any
//! path"), and a recursive delete of a root, home or system directory.

use super::Hit;
use crate::arg::Arg;
use crate::cwd;
use crate::getopt::{self, Spec};
use crate::paths;
use crate::rule;
use crate::scanner::Context;

const SPEC: Spec = Spec::new(
    "",
    &[
        ("force", false),
        ("interactive", false),
        ("one-file-system", false),
        ("no-preserve-root", false),
        ("preserve-root", false),
        ("recursive", false),
        ("dir", false),
        ("verbose", false),
        ("help", false),
        ("version", false),
    ],
);

/// Directories whose recursive removal wrecks a system or a user.
const CRITICAL: &[&str] = &[
    "/",
    "/*",
    "~",
    "~/*",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
];

/// Programs that delete every operand recursively and without asking, as
/// `rm -rf` does (the npm packages `rimraf` and `del-cli`, whose binary is
/// also `del`).
pub(crate) fn is_tree_remover(name: &str) -> bool {
    // `npx rimraf@5`: the package at a version.
    let name = name.split_once('@').map_or(name, |(n, _)| n);
    matches!(name, "rimraf" | "del-cli" | "del" | "rm-rf")
}

/// Whether `path` (as typed) is a root, home or system directory.
pub(crate) fn is_critical(path: &str, home: Option<&str>) -> bool {
    let norm = paths::normalize(path, home);
    CRITICAL.contains(&norm.as_str()) || CRITICAL.contains(&path.trim_end_matches('/'))
}

/// The rules `rm ARGS` breaks, run in `cwd` (where a `cd` moved it; `None`:
/// the project), against which relative operands are read.
pub(crate) fn check(args: &[Arg], ctx: &Context, cwd: Option<&str>) -> Vec<Hit> {
    let parsed = getopt::parse(args, &SPEC);
    let mut hits = Vec::new();
    let recursive = parsed.spelling("rR", &["recursive"]);
    let force = parsed.spelling("f", &["force"]);
    if let (Some(r), Some(f)) = (&recursive, &force) {
        let how = if r == f {
            r.clone()
        } else {
            format!("{r} and {f}")
        };
        hits.push(Hit::new(
            &rule::RM_RECURSIVE_FORCE,
            format!("recursive forced delete ({how})"),
        ));
    }
    if parsed.has_long("no-preserve-root") {
        hits.push(Hit::new(
            &rule::RM_CRITICAL,
            "--no-preserve-root lets rm delete /",
        ));
    } else if recursive.is_some() {
        let home = ctx.home.as_deref();
        let moved = |o: &Arg| {
            let text = cwd::known_path(o).filter(|_| cwd.is_some())?;
            cwd::resolve(text, cwd, home).filter(|path| is_critical(path, home))
        };
        if let Some(target) = parsed.operands.iter().find_map(|o| {
            if is_critical(&o.text, home) {
                Some(o.text.to_string())
            } else {
                moved(o).map(|path| format!("{path} ({} after cd)", o.text))
            }
        }) {
            hits.push(Hit::new(
                &rule::RM_CRITICAL,
                format!("recursive delete of {target}"),
            ));
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(line: &str) -> Vec<&'static str> {
        let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        check(&args, &ctx, None).iter().map(|h| h.rule.id).collect()
    }

    #[test]
    fn every_spelling_of_recursive_and_force() {
        for line in [
            "-rf x",
            "-fr x",
            "-Rf x",
            "-r -f x",
            "x -r -f",
            "-r --force x",
            "--recursive --force x",
            "--rec --f x",
            "-vrfi x",
        ] {
            assert_eq!(ids(line), ["rm-recursive-force"], "{line}");
        }
        for line in ["-r x", "-f x", "x", "-- -rf", "-i -r x", "--force x"] {
            assert!(ids(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn critical_targets() {
        assert_eq!(ids("-r /"), ["rm-critical-path"]);
        assert_eq!(ids("-r /home/ann"), ["rm-critical-path"]);
        assert_eq!(ids("-R /etc/"), ["rm-critical-path"]);
        assert_eq!(ids("--no-preserve-root x"), ["rm-critical-path"]);
        assert_eq!(ids("-rf /"), ["rm-recursive-force", "rm-critical-path"]);
        assert!(ids("-r build").is_empty());
        assert!(ids("-r /etc/myapp/cache").is_empty());
    }

    #[test]
    fn relative_targets_are_read_from_where_cd_went() {
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        let ids_in = |line: &str, cwd: &str| -> Vec<&'static str> {
            let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
            check(&args, &ctx, Some(cwd))
                .iter()
                .map(|h| h.rule.id)
                .collect()
        };
        assert_eq!(ids_in("-r *", "/"), ["rm-critical-path"]);
        assert_eq!(ids_in("-r .", "~"), ["rm-critical-path"]);
        assert_eq!(ids_in("-r usr", "/"), ["rm-critical-path"]);
        assert!(ids_in("-r build", "/tmp").is_empty());
        assert!(ids("-r *").is_empty());
    }
}
