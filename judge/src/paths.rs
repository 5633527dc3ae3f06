//! Which paths must never be written: Hard rule 16's protected paths, block
//! devices, cron's files and shell history (trekexecute Phase 2.4 and Hard
//! rule 16). Pure functions of the path text; `~`, `$HOME` and the user's
//! real home directory all count as home.

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
    /// A directory created (`mkdir`): no protected-path rule applies, only
    /// a run's scope ([`crate::write_target`]).
    Create,
    /// Mode, owner or attributes changed (`chmod`, `chown`): no
    /// protected-path rule applies (`chmod 600 ~/.ssh/id_ed25519` is
    /// ordinary care), only a run's scope; `tree` for everything under the
    /// path (`chmod -R`).
    Attributes { tree: bool },
}

/// The rule a write to `path` breaks, with a few words on why.
pub(super) fn check(
    path: &str,
    write: Write,
    home: Option<&str>,
) -> Option<(&'static Rule, String)> {
    if matches!(write, Write::Create | Write::Attributes { .. }) {
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
    if pair(".git", &["hooks"]) || (base == "hooks" && parts.iter().rev().nth(1) == Some(&".git")) {
        return Some((&rule::GIT_HOOKS, format!("{path} is in .git/hooks/")));
    }
    if let Some(dir) = parts.iter().find(|p| CREDENTIAL_DIRS.contains(p)) {
        return Some((&rule::CREDENTIALS, format!("{path} is in {dir}/")));
    }
    if is_env_file(base) {
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
    None
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

fn is_env_file(base: &str) -> bool {
    match base.strip_prefix(".env") {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('.')
            .is_some_and(|suffix| !suffix.is_empty() && !ENV_TEMPLATES.contains(&suffix)),
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
