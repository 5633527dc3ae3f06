//! What a git subcommand writes outside its work tree: the repository's
//! git directory (the index, refs, objects, its config) and the config
//! files `git config` names. The work tree's own writes are
//! [`super::git_sub`]'s.
//!
//! The git directory is written by every subcommand that stages, commits,
//! moves a ref or fetches (`add`, `commit`, `stash`, `tag v1`, `fetch`, …),
//! and by the ones that rewrite the index as they check files out
//! (`checkout -- f`, `restore f`: they take the index's lock and fail
//! without it). Reading commands write nothing, `status` included: its
//! index refresh is opportunistic and skipped when the index cannot be
//! written.

use crate::arg::Arg;
use crate::getopt;

/// Where a git subcommand writes besides its work tree.
#[derive(Debug, Default)]
pub(super) struct Outside {
    /// The repository's git directory.
    pub git_dir: bool,
    /// Config files `git config` names (`--file F`, `--global`,
    /// `--system`), as the command spells them.
    pub files: Vec<Arg>,
}

/// What `git NAME ARGS` writes outside its work tree.
pub(super) fn outside(name: &str, args: &[Arg]) -> Outside {
    if name == "config" {
        return config(args);
    }
    Outside {
        git_dir: writes_git_dir(name, args),
        files: Vec::new(),
    }
}

/// The first word that is not an option (a subcommand's action).
fn action(args: &[Arg]) -> Option<&str> {
    args.iter()
        .find(|a| !(a.exact && a.text.starts_with('-')))
        .map(|a| if a.exact { a.text.as_str() } else { "" })
}

fn has(args: &[Arg], words: &[&str]) -> bool {
    args.iter().any(|a| words.iter().any(|w| a.is(w)))
}

/// Some option of `args` is one of the short letters (in a cluster) or
/// long names given.
fn has_flag(args: &[Arg], short: &str, long: &[&str]) -> bool {
    args.iter().filter(|a| a.exact).any(|a| {
        let t = a.text.as_str();
        match t.strip_prefix("--") {
            Some(name) => long.contains(&name.split('=').next().unwrap_or_default()),
            None => {
                t.len() > 1 && t.starts_with('-') && t.chars().skip(1).any(|c| short.contains(c))
            }
        }
    })
}

/// The operands (words that are not options) of `args`.
fn operands(args: &[Arg]) -> usize {
    args.iter()
        .filter(|a| !(a.exact && a.text.starts_with('-')))
        .count()
}

/// Whether `git NAME ARGS` writes the repository's git directory.
fn writes_git_dir(name: &str, args: &[Arg]) -> bool {
    let act = action(args);
    match name {
        "add" | "rm" | "mv" => !has(args, &["-n", "--dry-run"]),
        "commit" | "fetch" | "pull" => !has(args, &["--dry-run"]),
        "reset" | "checkout" | "switch" | "restore" | "merge" | "rebase" | "cherry-pick"
        | "revert" | "am" | "update-index" | "update-ref" | "gc" | "prune" | "prune-packed"
        | "repack" | "pack-refs" | "write-tree" | "commit-tree" | "mktree" | "mktag"
        | "read-tree" | "fast-import" | "unpack-objects" | "filter-branch" | "filter-repo"
        | "maintenance" | "update-server-info" => true,
        "stash" => !matches!(act, Some("list" | "show")),
        "apply" => has_flag(args, "3", &["index", "cached", "3way"]),
        "hash-object" => has_flag(args, "w", &[]),
        "symbolic-ref" => operands(args) >= 2 || has_flag(args, "d", &["delete"]),
        "replace" => !has_flag(args, "l", &["list"]),
        "tag" => tag_writes(args),
        "branch" => branch_writes(args),
        "notes" => !matches!(act, None | Some("list" | "show" | "get-ref")),
        "reflog" => matches!(act, Some("expire" | "delete")),
        "rerere" => !matches!(act, Some("status" | "diff" | "remaining")),
        "sparse-checkout" => act != Some("list"),
        "commit-graph" | "multi-pack-index" => act != Some("verify"),
        "remote" => matches!(
            act,
            Some(
                "add"
                    | "rename"
                    | "remove"
                    | "rm"
                    | "set-head"
                    | "set-branches"
                    | "set-url"
                    | "prune"
                    | "update"
            )
        ),
        "worktree" => !matches!(act, None | Some("list")),
        "submodule" => !matches!(act, None | Some("status" | "summary" | "foreach")),
        "bisect" => !matches!(act, None | Some("log" | "view" | "visualize" | "help")),
        "lfs" => !matches!(
            act,
            None | Some("ls-files" | "status" | "env" | "version" | "logs" | "help")
        ),
        _ => false,
    }
}

/// `git tag NAME`, `-d`, `-a`, `-f`: a ref written; `git tag`, `-l`,
/// `-v`, `--contains`: listed or verified.
fn tag_writes(args: &[Arg]) -> bool {
    if has_flag(args, "lvn", &["list", "verify", "contains", "points-at"]) {
        return false;
    }
    has_flag(
        args,
        "dasmfFu",
        &["delete", "annotate", "sign", "message", "force", "file"],
    ) || operands(args) > 0
}

/// `git branch NAME`, `-d`, `-m`, `-c`, `-u`: a ref or the config
/// written; `git branch`, `-a`, `-l PATTERN`, `--show-current`: listed.
fn branch_writes(args: &[Arg]) -> bool {
    if has_flag(
        args,
        "dDmMcCu",
        &[
            "delete",
            "move",
            "copy",
            "set-upstream-to",
            "unset-upstream",
            "edit-description",
        ],
    ) {
        return true;
    }
    let listing = has_flag(
        args,
        "lavr",
        &[
            "list",
            "all",
            "remotes",
            "show-current",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "format",
            "sort",
        ],
    );
    !listing && operands(args) > 0
}

/// `git config`: what a set, unset or edit writes (`--file F`,
/// `--global`, `--system`, else the repository's own config, in its git
/// directory); a read (`--get`, `--list`, one name, `get`, `list`) writes
/// nothing.
fn config(args: &[Arg]) -> Outside {
    let p = getopt::parse(args, &crate::checks::git::CONFIG_OPTIONS);
    // git 2.46's subcommands: `git config set|unset|rename-section|…`.
    let sub = p.operands.first().and_then(|a| a.exact_text());
    let writes = match sub {
        Some("set" | "unset" | "rename-section" | "remove-section" | "edit") => true,
        Some("get" | "list") => false,
        _ => {
            let changes = p.has(
                "e",
                &[
                    "add",
                    "unset",
                    "unset-all",
                    "replace-all",
                    "rename-section",
                    "remove-section",
                    "edit",
                ],
            );
            let reads = p.has("l", &crate::checks::git::CONFIG_READS);
            changes || (!reads && p.operands.len() >= 2)
        }
    };
    if !writes || p.has("", &["blob"]) {
        return Outside::default();
    }
    let files: Vec<Arg> = p
        .values(Some('f'), Some("file"))
        .into_iter()
        .map(|v| super::value_arg(args, v))
        .collect();
    if !files.is_empty() {
        return Outside {
            git_dir: false,
            files,
        };
    }
    if p.has("", &["global"]) {
        return Outside {
            git_dir: false,
            files: vec![Arg::literal("~/.gitconfig")],
        };
    }
    if p.has("", &["system"]) {
        return Outside {
            git_dir: false,
            files: vec![Arg::literal("/etc/gitconfig")],
        };
    }
    Outside {
        git_dir: true,
        files: Vec::new(),
    }
}
