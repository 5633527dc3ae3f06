//! git commands that throw work away (trekexecute Phase 2.4 WARN patterns:
//! "git push --force", "git reset --hard"; and `git clean -f`). A forced
//! push warns in every spelling, a lease included: the policy names history
//! rewrites, and `--force-with-lease` still rewrites. `git clean -f` run at
//! a root or home directory (`-C /`, `--work-tree=~`, after `cd /`) is
//! blocked: in a home kept as a repository of dotfiles it deletes every
//! file of the user that git does not track. Everything else git does,
//! `git rm -rf --cached` included, is git's business.

use super::Hit;
use crate::arg::Arg;
use crate::cwd;
use crate::getopt::{self, Spec};
use crate::rule;
use crate::scanner::Context;

/// git's own options before the subcommand.
pub(crate) const GLOBAL: Spec = Spec::new(
    "Cc",
    &[
        ("git-dir", true),
        ("work-tree", true),
        ("namespace", true),
        ("exec-path", false),
        ("config-env", true),
        ("super-prefix", true),
        ("no-pager", false),
        ("paginate", false),
        ("bare", false),
        ("no-replace-objects", false),
        ("literal-pathspecs", false),
        ("no-optional-locks", false),
    ],
)
.posix();

const PUSH: Spec = Spec::new(
    "o",
    &[
        ("force", false),
        ("force-with-lease", false),
        ("force-if-includes", false),
        ("repo", true),
        ("receive-pack", true),
        ("exec", true),
        ("push-option", true),
        ("all", false),
        ("mirror", false),
        ("delete", false),
        ("tags", false),
        ("set-upstream", false),
        ("dry-run", false),
        ("verbose", false),
        ("quiet", false),
    ],
);

const RESET: Spec = Spec::new(
    "",
    &[
        ("hard", false),
        ("soft", false),
        ("mixed", false),
        ("merge", false),
        ("keep", false),
        ("quiet", false),
    ],
);

const CLEAN: Spec = Spec::new(
    "e",
    &[
        ("force", false),
        ("dry-run", false),
        ("exclude", true),
        ("interactive", false),
        ("quiet", false),
    ],
);

/// `git config`'s options that only read (or, with `-l`, list) what is
/// set: none of them sets a value.
pub(crate) const CONFIG_READS: [&str; 7] = [
    "get",
    "get-all",
    "get-regexp",
    "get-urlmatch",
    "get-color",
    "get-colorbool",
    "list",
];

/// `git config`'s options: where it writes, and the ones that take a value
/// (read by the writer table and by the delayed-execution carriers).
pub(crate) const CONFIG_OPTIONS: Spec = Spec::new(
    "ft",
    &[
        ("file", true),
        ("blob", true),
        ("type", true),
        ("default", true),
        ("comment", true),
        ("value", true),
        ("global", false),
        ("system", false),
        ("local", false),
        ("worktree", false),
        ("add", false),
        ("unset", false),
        ("unset-all", false),
        ("replace-all", false),
        ("rename-section", false),
        ("remove-section", false),
        ("edit", false),
        ("get", false),
        ("get-all", false),
        ("get-regexp", false),
        ("get-urlmatch", false),
        ("get-color", false),
        ("get-colorbool", false),
        ("list", false),
        ("all", false),
        ("regexp", false),
        ("url", true),
        ("fixed-value", false),
        ("show-origin", false),
        ("show-scope", false),
        ("name-only", false),
        ("includes", false),
        ("no-includes", false),
        ("null", false),
        ("bool", false),
        ("int", false),
        ("path", false),
        ("expiry-date", false),
    ],
);

pub(super) fn check(args: &[Arg], ctx: &Context, cwd: Option<&str>) -> Option<Hit> {
    let args: Vec<Arg> = args.iter().map(home_work_tree).collect();
    let args = args.as_slice();
    let global = getopt::parse(args, &GLOBAL);
    let rest = args.get(global.rest..).unwrap_or_default();
    let (sub, sub_args) = rest.split_first()?;
    match sub.exact_text()? {
        "push" => {
            let p = getopt::parse(sub_args, &PUSH);
            let forces = ["force", "force-with-lease", "force-if-includes", "mirror"];
            if let Some(flag) = p.spelling("f", &forces) {
                return Some(Hit::new(
                    &rule::GIT_FORCE_PUSH,
                    format!("git push {flag} overwrites the remote branch"),
                ));
            }
            p.operands
                .iter()
                .skip(1)
                .find(|o| o.exact && o.text.starts_with('+'))
                .map(|o| {
                    Hit::new(
                        &rule::GIT_FORCE_PUSH,
                        format!("refspec {} forces the update", o.text),
                    )
                })
        }
        "reset" => getopt::parse(sub_args, &RESET).has_long("hard").then(|| {
            Hit::new(
                &rule::GIT_RESET_HARD,
                "git reset --hard discards uncommitted changes",
            )
        }),
        "clean" => {
            let p = getopt::parse(sub_args, &CLEAN);
            if !p.has("f", &["force"]) || p.has("n", &["dry-run"]) {
                return None;
            }
            let home = ctx.home.as_deref();
            match work_tree(&global, cwd, home).and_then(|dir| cwd::too_wide(&dir, None, home)) {
                Some(wide) => Some(Hit::new(
                    &rule::GIT_CLEAN_CRITICAL,
                    format!("git clean -f at {wide} deletes every untracked file there"),
                )),
                None => Some(Hit::new(
                    &rule::GIT_CLEAN_FORCE,
                    "git clean -f deletes untracked files",
                )),
            }
        }
        _ => None,
    }
}

/// `--work-tree="$HOME"` (or `=$HOME/x`) as the option it is: the word is
/// only known in part (the home), so option parsing would take it for an
/// operand, yet its value is a path as known as `-C "$HOME"`'s.
fn home_work_tree(arg: &Arg) -> Arg {
    const PREFIX: &str = "--work-tree=";
    let value = arg.text.strip_prefix(PREFIX).map(|value| Arg {
        text: value.into(),
        exact: false,
        known_from: crate::arg::offset(arg.known_at().saturating_sub(PREFIX.len())),
        ..arg.clone()
    });
    match value.as_ref().and_then(cwd::known_path) {
        Some(path) if !arg.exact => Arg::literal(&format!("{PREFIX}{path}")),
        _ => arg.clone(),
    }
}

/// The work tree git acts on: `cwd`, moved by each `-C` in turn, then
/// replaced by `--work-tree` (read from there); `None` when unknown.
fn work_tree(global: &getopt::Parsed<'_>, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    let mut dir = cwd.map(str::to_owned);
    for value in global.values(Some('C'), None) {
        // `-C ''` leaves the directory as it is.
        if !value.is_empty() {
            dir = Some(cwd::resolve(value, dir.as_deref(), home)?);
        }
    }
    if let Some(tree) = global.values(None, Some("work-tree")).last() {
        dir = Some(cwd::resolve(tree, dir.as_deref(), home)?);
    }
    dir.or_else(|| Some(".".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_in(line: &str, cwd: Option<&str>) -> Option<&'static str> {
        let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        check(&args, &ctx, cwd).map(|h| h.rule.id)
    }

    fn id(line: &str) -> Option<&'static str> {
        id_in(line, None)
    }

    #[test]
    fn destructive_git() {
        assert_eq!(id("push --force"), Some("git-force-push"));
        assert_eq!(id("push -f origin main"), Some("git-force-push"));
        assert_eq!(id("push origin main --force"), Some("git-force-push"));
        assert_eq!(id("-C repo push -uf origin x"), Some("git-force-push"));
        assert_eq!(id("push origin +main"), Some("git-force-push"));
        assert_eq!(id("reset --hard HEAD~1"), Some("git-reset-hard"));
        assert_eq!(id("init"), None);
        assert_eq!(id("clone --depth 1 https://x.example/r.git"), None);
        assert_eq!(id("-c a=b reset --hard"), Some("git-reset-hard"));
        assert_eq!(id("clean -fdx"), Some("git-clean-force"));
        assert_eq!(id("push --force-with-lease"), Some("git-force-push"));
        assert_eq!(
            id("push --force-with-lease=main:abc origin main"),
            Some("git-force-push")
        );
        assert_eq!(
            id("push --force-if-includes origin main"),
            Some("git-force-push")
        );
        assert_eq!(id("push --force-w origin main"), Some("git-force-push"));
        assert_eq!(id("push --mirror backup"), Some("git-force-push"));
        assert_eq!(id("push origin main"), None);
        assert_eq!(id("reset --soft HEAD~1"), None);
        assert_eq!(id("clean -nfd"), None);
        assert_eq!(id("rm -rf --cached vendor"), None);
        assert_eq!(id("commit -m --force"), None);
    }

    #[test]
    fn git_clean_at_a_root_or_home_directory_blocks() {
        for line in [
            "-C / clean -fdx",
            "-C /home/ann clean -fd",
            "-C ~ clean -f",
            "-C /tmp -C .. clean -ffdx",
            "--work-tree=/ clean -fdx",
            "-C /srv --work-tree .. clean -fdx",
            "-C ../.. clean -fdx",
        ] {
            assert_eq!(id(line), Some("git-clean-critical"), "{line}");
        }
        assert_eq!(id_in("clean -fdx", Some("/")), Some("git-clean-critical"));
        assert_eq!(id_in("clean -xdf", Some("~")), Some("git-clean-critical"));
        assert_eq!(
            id_in("-C sub clean -f", Some("/srv")),
            Some("git-clean-force")
        );
        assert_eq!(
            id_in("-C .. clean -f", Some("/srv")),
            Some("git-clean-critical")
        );
        assert_eq!(id_in("clean -nfdx", Some("/")), None);
        assert_eq!(id("-C /tmp/build clean -fdx"), Some("git-clean-force"));
        assert_eq!(id("-C sub clean -fdx"), Some("git-clean-force"));
    }

    /// `--work-tree="$HOME"`: the word is known from the home on, so it is
    /// read as the option it is; an unknown value is no home.
    #[test]
    fn a_work_tree_in_the_home_variable_is_the_home() {
        let ctx = Context {
            home: Some("/home/ann".into()),
        };
        let judged = |tree: Arg| {
            let args = [tree, Arg::literal("clean"), Arg::literal("-fd")];
            check(&args, &ctx, None).map(|h| h.rule.id)
        };
        let partly = |text: &str, known_from: usize| Arg {
            known_from: crate::arg::offset(known_from),
            ..Arg::unknown(text, crate::arg::Taint::default())
        };
        assert_eq!(
            judged(partly("--work-tree=~", 13)),
            Some("git-clean-critical")
        );
        assert_eq!(
            judged(partly("--work-tree=~/", 13)),
            Some("git-clean-critical")
        );
        assert_eq!(
            judged(partly("--work-tree=~/app", 13)),
            Some("git-clean-force")
        );
        assert_ne!(
            judged(partly("--work-tree=$D", 14)),
            Some("git-clean-critical")
        );
    }
}
