//! Which paths must never be written: Hard rule 16's protected paths, block
//! devices, cron's files and shell history (trekexecute Phase 2.4 and Hard
//! rule 16), git's configuration (whose keys run programs as surely as a
//! hook does) and the guard's own files. Pure functions of the path text
//! and of [`Places`], the few directories only the environment names; `~`,
//! `$HOME` and the user's real home directory all count as home.

use std::sync::OnceLock;

use crate::rule::{self, Rule};

/// How a command touches a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Write {
    /// Replaced or truncated (`>`, `cp`, `tee`, `dd of=`, `truncate`).
    Replace,
    /// Added to (`>>`, `tee -a`).
    Append,
    /// Deleted, moved away or relinked (`rm`, `mv` source, `ln -sf`).
    Remove,
    /// Changed in place (`sed -i`, `touch`).
    Modify,
    /// A directory created (`mkdir`): protected like a write where the
    /// directory is one the rules protect (`mkdir -p .claude/hooks` is
    /// the first half of installing a hook), and held to a run's scope
    /// ([`crate::write_target`]).
    Create,
    /// Mode, owner or attributes changed (`chmod`, `chown`): no
    /// protected-path rule applies (`chmod 600 ~/.ssh/id_ed25519` is
    /// ordinary care), only a run's scope; `tree` for everything under the
    /// path (`chmod -R`).
    Attributes { tree: bool },
}

/// The directories that are protected because the environment of this
/// process names them, not because of their names: the Voyage plugin's
/// own tree and data directory (Claude Code hands hooks
/// `$CLAUDE_PLUGIN_ROOT` and `$CLAUDE_PLUGIN_DATA`; the data directory
/// holds the installed helper binary), and where git reads its global and
/// system configuration when the environment moves it. The hook's
/// environment is Claude Code's own, which no command of the agent can
/// change, so these are read once per process, as bash reads `CDPATH`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Places {
    /// The plugin's root and data directory, normalized.
    pub guard: Vec<String>,
    /// Git configuration files the environment names
    /// (`$XDG_CONFIG_HOME/git/config`, `$GIT_CONFIG_GLOBAL`,
    /// `$GIT_CONFIG_SYSTEM`), normalized.
    pub git_config: Vec<String>,
}

/// The variables that name the guard's directories, as a command's text may
/// spell them (`> "$VOYAGE_DATA_DIR/helper/…"`): the session's Bash calls
/// see `VOYAGE_DATA_DIR`, which the SessionStart hook exports.
const GUARD_VARIABLES: &[&str] = &[
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "VOYAGE_DATA_DIR",
];

impl Places {
    /// The places of this process's environment, read once.
    pub(crate) fn of_process() -> &'static Self {
        static PLACES: OnceLock<Places> = OnceLock::new();
        PLACES.get_or_init(|| {
            let home = std::env::var("HOME").ok();
            Self::from_vars(|name| std::env::var(name).ok(), home.as_deref())
        })
    }

    /// The places `var` (an environment lookup) names.
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>, home: Option<&str>) -> Self {
        // Only an absolute directory counts, and never `/` or the home
        // itself: a stray value must not protect every path there is.
        let dir = |name: &str| {
            var(name)
                .filter(|v| v.starts_with('/'))
                .map(|v| normalize(&v, home))
                .filter(|n| n != "/" && n != "~")
        };
        let guard = ["CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"]
            .into_iter()
            .filter_map(dir)
            .collect();
        let mut git_config: Vec<String> = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"]
            .into_iter()
            .filter_map(dir)
            .filter(|f| !f.starts_with("/dev/"))
            .collect();
        git_config.extend(dir("XDG_CONFIG_HOME").map(|d| format!("{d}/git/config")));
        Self { guard, git_config }
    }
}

/// The part of `norm` under a user's home directory: this user's (`~`),
/// root's, or another's under `/home` or `/Users`.
fn in_a_home(norm: &str) -> Option<&str> {
    if let Some(rest) = norm
        .strip_prefix("~/")
        .or_else(|| norm.strip_prefix("/root/"))
    {
        return Some(rest);
    }
    ["/home/", "/Users/"].iter().find_map(|h| {
        let (user, rest) = norm.strip_prefix(h)?.split_once('/')?;
        (!user.is_empty()).then_some(rest)
    })
}

/// The guard's variable `path` starts with (`$CLAUDE_PLUGIN_ROOT/…`,
/// `"${CLAUDE_PLUGIN_DATA}"/…`), also as a directory a `cd` moved to
/// makes of a relative path (`./$CLAUDE_PLUGIN_ROOT/…`).
pub(super) fn guard_spelling(path: &str) -> Option<&'static str> {
    let path = path.trim_start_matches('"');
    let path = path.strip_prefix("./").unwrap_or(path);
    GUARD_VARIABLES.iter().copied().find(|v| {
        [format!("${v}"), format!("${{{v}}}")]
            .iter()
            .any(|spelled| under(path.trim_start_matches('"'), spelled))
    })
}

/// Whether `norm` is `dir` or under it.
fn under(norm: &str, dir: &str) -> bool {
    norm.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The rule a write to `path` breaks, with a few words on why.
pub(super) fn check(
    path: &str,
    write: Write,
    home: Option<&str>,
) -> Option<(&'static Rule, String)> {
    check_in(path, write, home, Places::of_process())
}

/// [`check`] with the environment's places given.
pub(super) fn check_in(
    path: &str,
    write: Write,
    home: Option<&str>,
    places: &Places,
) -> Option<(&'static Rule, String)> {
    // A change of mode or owner names no protected path (`chmod 600
    // ~/.ssh/id_ed25519` is ordinary care); only a run's scope holds it.
    if matches!(write, Write::Attributes { .. }) {
        return None;
    }
    let norm = normalize(path, home);
    let parts: Vec<&str> = norm.split('/').filter(|p| !p.is_empty()).collect();
    let base = parts.last().copied().unwrap_or_default();
    let pair = |a: &str, b: &[&str]| {
        parts
            .windows(2)
            .any(|w| matches!(w, [x, y] if *x == a && b.contains(y)))
    };

    if is_block_device(&norm) {
        return Some((&rule::DISK_WRITE, format!("{path} is a block device")));
    }
    if is_cron_path(&norm) {
        return Some((&rule::CRON, format!("{path} is a cron table")));
    }
    if HISTORY_FILES.contains(&base) || norm.ends_with("/fish/fish_history") {
        return match write {
            Write::Append => None,
            Write::Replace
            | Write::Remove
            | Write::Modify
            | Write::Create
            | Write::Attributes { .. } => {
                Some((&rule::HISTORY, format!("{path} is a shell history file")))
            }
        };
    }
    if let Some(var) = guard_spelling(path) {
        return Some((
            &rule::GUARD_FILES,
            format!("{path} is in ${var}, the Voyage plugin's own files"),
        ));
    }
    if let Some(dir) = places.guard.iter().find(|dir| under(&norm, dir)) {
        return Some((
            &rule::GUARD_FILES,
            format!("{path} is in {dir}, the Voyage plugin's own files"),
        ));
    }
    // `.git/hooks/…`, and a submodule's or a linked worktree's hooks under
    // `.git/modules/…/hooks/`.
    let in_git = parts.iter().position(|p| *p == ".git");
    if let Some(at) = in_git
        && parts.iter().skip(at + 1).any(|p| *p == "hooks")
    {
        return Some((&rule::GIT_HOOKS, format!("{path} is in .git/hooks/")));
    }
    if let Some(why) = git_config(&norm, base, in_git.is_some(), places) {
        return Some((&rule::GIT_CONFIG, format!("{path} is {why}")));
    }
    if let Some(dir) = parts.iter().find(|p| CREDENTIAL_DIRS.contains(p)) {
        return Some((&rule::CREDENTIALS, format!("{path} is in {dir}/")));
    }
    // A directory named `.env` (a virtualenv's old default name) holds no
    // secrets as the file does.
    if is_env_file(base) && write != Write::Create {
        return Some((&rule::ENV_FILE, format!("{path} is a .env file")));
    }
    if SHELL_RC_FILES.contains(&base)
        || SYSTEM_RC
            .iter()
            .any(|p| norm == *p || norm.starts_with(&format!("{p}/")))
        || norm.ends_with(".config/fish/config.fish")
    {
        return Some((&rule::SHELL_RC, format!("{path} is a shell startup file")));
    }
    if pair(
        ".claude",
        &["settings.json", "settings.local.json", "hooks"],
    ) {
        return Some((
            &rule::CLAUDE_CONFIG,
            format!("{path} is Claude Code's own configuration"),
        ));
    }
    if in_a_home(&norm).is_some_and(|rest| under(rest, ".claude/plugins")) {
        return Some((
            &rule::CLAUDE_CONFIG,
            format!(
                "{path} is in ~/.claude/plugins/, Claude Code's installed plugins and their hooks"
            ),
        ));
    }
    None
}

/// Why `norm` is a git configuration file, if it is: the repository's
/// (`.git/config`, a submodule's or a worktree's under `.git/`), the
/// global or system one, or `.gitmodules`.
fn git_config(norm: &str, base: &str, in_git: bool, places: &Places) -> Option<&'static str> {
    if in_git && matches!(base, "config" | "config.worktree") {
        return Some("git's repository configuration");
    }
    if base == ".gitmodules" {
        return Some("git's list of submodules and where they come from");
    }
    let global = in_a_home(norm)
        .is_some_and(|rest| rest == ".gitconfig" || rest == ".config/git/config")
        || norm == "/etc/gitconfig"
        || places.git_config.iter().any(|f| f == norm);
    global.then_some("git's global configuration")
}

const HISTORY_FILES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".sh_history",
    ".ksh_history",
    ".history",
];

const CREDENTIAL_DIRS: &[&str] = &[".ssh", ".aws", ".gnupg"];

const SHELL_RC_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
];

const SYSTEM_RC: &[&str] = &[
    "/etc/profile",
    "/etc/profile.d",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zshrc",
    "/etc/zshenv",
    "/etc/zsh",
    "/etc/environment",
];

/// Committed templates of a .env file, which hold no secrets.
const ENV_TEMPLATES: &[&str] = &[
    "example", "sample", "template", "dist", "defaults", "schema",
];

/// `.env`, `.env.local`, `.env.production.local`; not a template nor a copy
/// of one (`.env.example`, `.env.local.sample`, `.env.example.bak`). A
/// name ending in `.local` is read by the tools that load `.env.MODE.local`
/// whatever MODE is, so it stays a secrets file.
fn is_env_file(base: &str) -> bool {
    match base.strip_prefix(".env") {
        Some("") => true,
        Some(rest) => rest.strip_prefix('.').is_some_and(|suffix| {
            let template = suffix.split('.').any(|part| ENV_TEMPLATES.contains(&part));
            !suffix.is_empty() && (!template || suffix.ends_with(".local"))
        }),
        None => false,
    }
}

/// `/dev/sda`, `/dev/nvme0n1p2`, `/dev/disk2`, `/dev/mapper/root`, ...
pub(super) fn is_block_device(norm: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "sr",
        "nbd",
    ];
    norm.strip_prefix("/dev/")
        .is_some_and(|dev| DISKS.iter().any(|d| dev.starts_with(d)))
}

/// `/etc/crontab`, `/etc/cron.d/x`, `/var/spool/cron/...`, ...
pub(super) fn is_cron_path(norm: &str) -> bool {
    norm.starts_with("/etc/cron")
        || norm == "/etc/anacrontab"
        || norm.starts_with("/var/spool/cron")
        || norm.starts_with("/var/spool/anacron")
        || norm.starts_with("/var/cron/")
        || norm.starts_with("/usr/lib/cron/tabs")
}

/// The path with home spelled `~`, `.`, empty and `..` segments resolved
/// lexically, and no trailing slash.
pub fn normalize(path: &str, home: Option<&str>) -> String {
    let home = home
        .map(|h| h.trim_end_matches('/'))
        .filter(|h| !h.is_empty());
    let rest = if path == "~" || path.starts_with("~/") {
        Some(path.get(1..).unwrap_or_default())
    } else {
        home.and_then(|h| {
            path.strip_prefix(h)
                .filter(|r| r.is_empty() || r.starts_with('/'))
        })
    };
    let (root, rest) = match rest {
        Some(r) => ("~", r),
        None if path.starts_with('/') => ("", path),
        None => (".", path),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            // Above a relative start, `..` piles up (`../..`); above `/`
            // or `~`, it stays there.
            ".." => match parts.last() {
                None | Some(&"..") if root == "." => parts.push(".."),
                _ => {
                    parts.pop();
                }
            },
            p => parts.push(p),
        }
    }
    let mut out = root.to_owned();
    for part in parts {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(path: &str) -> Option<&'static str> {
        check(path, Write::Replace, Some("/home/ann")).map(|(r, _)| r.id)
    }

    #[test]
    fn protected_paths() {
        assert_eq!(id(".git/hooks/pre-commit"), Some("git-hooks-write"));
        assert_eq!(id("./.git/./hooks"), Some("git-hooks-write"));
        assert_eq!(id("sub/../.git/hooks/x"), Some("git-hooks-write"));
        assert_eq!(id("~/.ssh/authorized_keys"), Some("credentials-write"));
        assert_eq!(id("/home/ann/.aws/credentials"), Some("credentials-write"));
        assert_eq!(id("/root/.gnupg/x"), Some("credentials-write"));
        assert_eq!(id(".env"), Some("env-file-write"));
        assert_eq!(id("app/.env.production"), Some("env-file-write"));
        assert_eq!(id(".env.example"), None);
        assert_eq!(id(".env.example.bak"), None);
        assert_eq!(id("app/.env.production.sample"), None);
        assert_eq!(id(".env.example.local"), Some("env-file-write"));
        assert_eq!(id(".env.production.local"), Some("env-file-write"));
        assert_eq!(id(".env.bak"), Some("env-file-write"));
        assert_eq!(id(".envrc"), None);
        assert_eq!(id("/home/ann/.bashrc"), Some("shell-config-write"));
        assert_eq!(id("~/.zshrc"), Some("shell-config-write"));
        assert_eq!(id("/etc/profile.d/x.sh"), Some("shell-config-write"));
        assert_eq!(id(".claude/settings.json"), Some("claude-config-write"));
        assert_eq!(id("/p/.claude/hooks/x.sh"), Some("claude-config-write"));
        assert_eq!(id(".claude/commands/x.md"), None);
        assert_eq!(id("/dev/sda"), Some("disk-write"));
        assert_eq!(id("/dev/nvme0n1"), Some("disk-write"));
        assert_eq!(id("/dev/null"), None);
        assert_eq!(id("/etc/cron.d/job"), Some("cron-persistence"));
        assert_eq!(id("~/.bash_history"), Some("history-erase"));
        assert_eq!(
            check("~/.bash_history", Write::Append, None).map(|(r, _)| r.id),
            None
        );
        assert_eq!(id("src/main.rs"), None);
        assert_eq!(id("docs/ssh.md"), None);
        assert_eq!(id("hooks/hooks.json"), None);
    }

    #[test]
    fn git_configuration_is_protected() {
        for path in [
            ".git/config",
            "./.git/config",
            "sub/.git/config",
            ".git/modules/lib/config",
            ".git/worktrees/w/config.worktree",
            ".gitmodules",
            "vendor/x/.gitmodules",
            "~/.gitconfig",
            "/home/ann/.gitconfig",
            "/root/.gitconfig",
            "~/.config/git/config",
            "/etc/gitconfig",
        ] {
            assert_eq!(id(path), Some("git-config-write"), "{path}");
        }
        assert_eq!(
            id(".git/modules/lib/hooks/pre-commit"),
            Some("git-hooks-write")
        );
        for path in [
            "config",
            "src/config",
            "git/config",
            "dotfiles/.gitconfig",
            ".github/config.yml",
            ".git/COMMIT_EDITMSG",
            "docs/.gitconfig.md",
        ] {
            assert_eq!(id(path), None, "{path}");
        }
        let places = Places::from_vars(
            |name| match name {
                "XDG_CONFIG_HOME" => Some("/home/ann/cfg".into()),
                "GIT_CONFIG_GLOBAL" => Some("/srv/gitconfig".into()),
                "GIT_CONFIG_SYSTEM" => Some("/dev/null".into()),
                _ => None,
            },
            Some("/home/ann"),
        );
        let in_places = |path: &str| {
            check_in(path, Write::Replace, Some("/home/ann"), &places).map(|(r, _)| r.id)
        };
        assert_eq!(
            in_places("/home/ann/cfg/git/config"),
            Some("git-config-write")
        );
        assert_eq!(in_places("/srv/gitconfig"), Some("git-config-write"));
        assert_eq!(in_places("/dev/null"), None);
    }

    #[test]
    fn the_guard_protects_its_own_files() {
        let places = Places::from_vars(
            |name| match name {
                "CLAUDE_PLUGIN_ROOT" => Some("/opt/voyage/".into()),
                "CLAUDE_PLUGIN_DATA" => Some("/home/ann/.claude/plugins/data/voyage".into()),
                _ => None,
            },
            Some("/home/ann"),
        );
        let hit = |path: &str, write: Write| {
            check_in(path, write, Some("/home/ann"), &places).map(|(r, _)| r.id)
        };
        for path in [
            "/opt/voyage",
            "/opt/voyage/hooks/hooks.json",
            "/opt/voyage/plugin/bin/voyage-helper",
            "/opt/voyage/./x/../plugin/checksums.txt",
            "~/.claude/plugins/data/voyage/helper/voyage-helper-0.1.0",
            "/home/ann/.claude/plugins/data/voyage/helper",
            "$CLAUDE_PLUGIN_DATA/helper/voyage-helper-0.1.0",
            "\"${CLAUDE_PLUGIN_ROOT}/hooks/hooks.json",
            "$VOYAGE_DATA_DIR/helper/voyage-helper-0.1.0",
            "$VOYAGE_DATA_DIR",
        ] {
            assert_eq!(
                hit(path, Write::Replace),
                Some("guard-files-write"),
                "{path}"
            );
        }
        assert_eq!(
            hit("/opt/voyage/hooks", Write::Create),
            Some("guard-files-write")
        );
        assert_eq!(
            hit("/opt/voyage/x", Write::Remove),
            Some("guard-files-write")
        );
        // Other plugins, without the environment: Claude Code's own.
        assert_eq!(
            id("~/.claude/plugins/cache/m/other/1.0/hooks/hooks.json"),
            Some("claude-config-write")
        );
        assert_eq!(
            id("~/.claude/plugins/data/voyage/helper/voyage-helper-0.1.0"),
            Some("claude-config-write")
        );
        assert_eq!(
            id("/home/bob/.claude/plugins/installed_plugins.json"),
            Some("claude-config-write")
        );
        assert_eq!(id("/home/.claude/plugins/x"), None);
        for path in [
            "/opt/voyage-docs/x",
            "/opt/x",
            "$VOYAGE_DATA_DIRECTORY/x",
            "~/.claude/projects/p/memory/x.md",
            "plugins/x",
        ] {
            assert_eq!(hit(path, Write::Replace), None, "{path}");
        }
        // A value that would protect everything is ignored.
        let wide = Places::from_vars(
            |name| (name == "CLAUDE_PLUGIN_ROOT").then(|| "/home/ann/".into()),
            Some("/home/ann"),
        );
        assert!(wide.guard.is_empty(), "{wide:?}");
        assert!(
            Places::from_vars(|_| Some("relative".into()), None)
                .guard
                .is_empty()
        );
    }

    #[test]
    fn creating_a_protected_directory_is_writing_it() {
        let made = |path: &str| check(path, Write::Create, Some("/home/ann")).map(|(r, _)| r.id);
        assert_eq!(made(".claude/hooks"), Some("claude-config-write"));
        assert_eq!(made(".git/hooks"), Some("git-hooks-write"));
        assert_eq!(made("~/.ssh"), Some("credentials-write"));
        assert_eq!(made("/etc/cron.d"), Some("cron-persistence"));
        assert_eq!(made(".claude"), None);
        assert_eq!(made(".claude/commands"), None);
        assert_eq!(made(".git"), None);
        assert_eq!(made(".env"), None);
        assert_eq!(made("build/out"), None);
    }

    #[test]
    fn normalizing() {
        assert_eq!(normalize("/home/ann/x", Some("/home/ann/")), "~/x");
        assert_eq!(
            normalize("/home/annie/x", Some("/home/ann")),
            "/home/annie/x"
        );
        assert_eq!(normalize("../a/./b/", None), "./../a/b");
        assert_eq!(normalize("../..", None), "./../..");
        assert_eq!(normalize("/../..", None), "/");
        assert_eq!(normalize("~", None), "~");
    }
}
