//! The denylist as data: every rule the engine can report, with its severity,
//! what it catches and the safer alternative a blocked agent is pointed to.
//!
//! The BLOCK and WARN tables of trekexecute Phase 2.4 and the list of Sub-step
//! D1 map onto these rules one to one (the seed's "pattern name" is
//! [`Rule::name`]); Hard rule 16 is split into one rule per kind of protected
//! path so that a reason can say which one was hit. The rules after those are
//! the engine's own: what it does when it cannot see what would run.
//!
//! The checks in [`crate::checks`] decide *whether* a rule fires; this file
//! only says what each rule is. Ids are stable: plans, logs and tests name them.

use serde::Serialize;

/// How bad a match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Reported; the command may still run (seed: "report but continue").
    Warn,
    /// Refused (seed: "stop execution immediately").
    Block,
}

impl Severity {
    /// `BLOCKED` or `WARNING`, as the seed's scan output spells them.
    pub fn label(self) -> &'static str {
        match self {
            Self::Block => "BLOCKED",
            Self::Warn => "WARNING",
        }
    }
}

/// One entry of the denylist.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Stable kebab-case id, e.g. `rm-recursive-force`.
    pub id: &'static str,
    pub severity: Severity,
    /// The seed's pattern name: a few words, e.g. "Recursive force delete".
    pub name: &'static str,
    /// What the rule catches, in one sentence.
    pub catches: &'static str,
    /// What to do instead, in one sentence an agent can act on.
    pub instead: &'static str,
}

macro_rules! rules {
    ($($konst:ident: $id:literal, $sev:ident, $name:literal, $catches:literal, $instead:literal;)*) => {
        $(
            #[doc = $catches]
            pub(super) static $konst: Rule = Rule {
                id: $id,
                severity: Severity::$sev,
                name: $name,
                catches: $catches,
                instead: $instead,
            };
        )*
        /// Every rule, in the order `--help` and the README list them.
        pub static RULES: &[&Rule] = &[$(&$konst),*];
    };
}

rules! {
    RM_RECURSIVE_FORCE: "rm-recursive-force", Block, "Recursive force delete",
        "rm with both a recursive flag (-r, -R, --recursive) and a force flag (-f, --force), in any spelling or order, and the tools that always delete that way (rimraf, del-cli), also through npx, pnpm dlx or bunx.",
        "Delete the specific files by name without -f, or move the directory aside (mv build build.old) and let a person remove it.";
    RM_CRITICAL: "rm-critical-path", Block, "Recursive delete of a root, home or system directory",
        "rm -r of /, ~, $HOME, a top-level system directory or '*' at the root (also find -delete or find -exec rm from there, a relative path after cd there, and a one-line program's shutil.rmtree, FileUtils.rm_rf, fs.rmSync with recursive or File::Path of them), or any rm with --no-preserve-root.",
        "Name the exact project subdirectory to delete, relative to the repository.";
    GIT_CLEAN_CRITICAL: "git-clean-critical", Block, "Delete untracked files of a root or home directory",
        "git clean -f run at /, ~, $HOME, a top-level system directory or above the project (by -C, --work-tree or after cd), which deletes every file git does not track there.",
        "Run git clean -n inside the project's own repository, then delete the paths it lists by name.";
    RSYNC_DELETE_CRITICAL: "rsync-delete-critical", Block, "Mirror deletion onto a root or home directory",
        "rsync with --delete (or --del, --delete-after, ...) whose destination is /, ~, $HOME, a top-level system directory or above the project, which deletes everything there the source lacks.",
        "Sync into a named project subdirectory, and run it with --dry-run first.";
    CHMOD_WORLD_WRITABLE: "chmod-world-writable", Block, "World-writable permissions",
        "chmod with a mode that lets everyone write: 777, 666, 0777, a+w, o+rwx and the like, recursive or not.",
        "Grant only what is needed to the owner or group: chmod u+x FILE, chmod 755 DIR, chmod 644 FILE.";
    DOWNLOAD_TO_SHELL: "download-to-shell", Block, "Remote code execution",
        "The output of curl, wget, fetch, nc, a /dev/tcp socket or similar run as code: piped, redirected or substituted into a shell, eval, source or an interpreter, or saved to a file that the same command then runs (curl -o f URL && sh f).",
        "Download to a file, read it, then run it as a separate step: curl -fsSLo install.sh URL && less install.sh.";
    DECODE_TO_SHELL: "decode-to-shell", Block, "Obfuscated code execution",
        "Decoded text (base64, base32, xxd -r, openssl enc -d, uudecode, and rev or tr undoing a reversed or rotated command) run as code by a shell, eval, source or an interpreter.",
        "Decode into a file, read it, and run the plain command itself.";
    EVAL_EXPANSION: "eval-expansion", Block, "Code injection via eval",
        "eval whose argument contains a variable, $(...) or backticks, so the code is only known at run time.",
        "Run the command directly instead of building it in a string, or use an array: \"${cmd[@]}\".";
    DISK_FORMAT: "disk-format", Block, "Disk destruction",
        "mkfs and its relatives (mkfs.*, mke2fs, mkswap, wipefs, blkdiscard, newfs) that erase a file system on a device (/dev/…, or a target only known at run time); a regular file (disk.img, /swapfile) is fine.",
        "Work on a disk image file instead of a device, and leave formatting to a person.";
    DISK_WRITE: "disk-write", Block, "Disk destruction",
        "Writing to a block device (/dev/sd*, /dev/nvme*, /dev/hd*, /dev/vd*, /dev/xvd*, /dev/mmcblk*, /dev/disk*) with dd of=, >, tee, cp and the like.",
        "Write to a regular file (dd of=disk.img) and leave devices to a person.";
    POWER: "system-power", Block, "System shutdown",
        "shutdown, reboot, halt, poweroff, init 0/6 and systemctl poweroff/reboot/halt.",
        "Stop only the process you started (kill PID), or ask a person to restart the machine.";
    FORK_BOMB: "fork-bomb", Block, "Fork bomb",
        "A function that calls itself through a pipe or in the background, such as :(){ :|:& };:, unless a counter, a shrinking argument list or a directory listing bounds the recursion and it runs one copy at a time ([ $1 -gt 0 ] && f $(( $1 - 1 )) &), or a one-line program that forks in a loop without end (perl -e 'fork while 1').",
        "Bound the work: a loop with a fixed count, or xargs -P N for parallelism.";
    CRON: "cron-persistence", Block, "Persistence via cron",
        "crontab -e, installing or removing a crontab, and any write under /etc/cron*, /etc/anacrontab or /var/spool/cron.",
        "Leave scheduled jobs to a person; describe the job in the plan or a README instead.";
    KILL_ALL: "kill-all", Block, "Kill all user processes",
        "kill, pkill or killall aimed at process -1 (every process you may signal), such as kill -9 -1; killall5; and pkill or killall of every process of a user (pkill -u USER with no pattern).",
        "Signal the exact process: kill PID, or pkill -f 'exact pattern' for one program.";
    KERNEL: "kernel-control", Block, "Kernel control",
        "Writing to /proc/sysrq-trigger (which reboots, powers off or crashes the machine at once) or to a setting under /proc/sys/, and sysctl setting a value (-w, KEY=VALUE, -p, --system).",
        "Leave kernel settings to a person; say in the plan or README which setting the project needs.";
    HISTORY: "history-erase", Block, "Evidence destruction",
        "history -c, and truncating, removing or relinking a shell history file such as ~/.bash_history.",
        "Leave shell history alone; nothing in a plan needs it erased.";
    GIT_HOOKS: "git-hooks-write", Block, "Git hook injection",
        "Writing into .git/hooks/, where git runs any file it finds as code on the next commit, checkout or push.",
        "Keep hooks as versioned files in the repository (e.g. scripts/hooks/) and let a person install them.";
    GIT_CONFIG: "git-config-write", Block, "Git configuration injection",
        "Writing, moving or deleting a git configuration file with a shell command or a file tool: .git/config (and a submodule's or worktree's under .git/), ~/.gitconfig, ~/.config/git/config, $XDG_CONFIG_HOME/git/config, /etc/gitconfig, or .gitmodules; their keys make git run programs (core.fsmonitor, core.sshCommand, filters, aliases) as surely as a hook.",
        "Set a plain option with git config NAME VALUE, or tell the person which setting the project needs.";
    CREDENTIALS: "credentials-write", Block, "Credential store modification",
        "Writing, moving or deleting anything under ~/.ssh, ~/.aws or ~/.gnupg.",
        "Leave credential stores to a person; read keys through the tools that own them (ssh-agent, aws configure).";
    ENV_FILE: "env-file-write", Block, "Secrets file modification",
        "Writing, moving or deleting a .env file (.env, .env.local, .env.production; templates such as .env.example are fine).",
        "Edit the template (.env.example) and tell the person which variables to set.";
    SHELL_RC: "shell-config-write", Block, "Shell configuration modification",
        "Writing to a shell startup file: ~/.bashrc, ~/.bash_profile, ~/.profile, ~/.zshrc, ~/.zshenv, /etc/profile and their kin.",
        "Put the setting in a project script (scripts/env.sh) and tell the person to source it.";
    CLAUDE_CONFIG: "claude-config-write", Block, "Agent infrastructure self-modification",
        "Writing to .claude/settings.json, .claude/settings.local.json, anything under .claude/hooks/ (creating the directory included), or anything under ~/.claude/plugins/, where Claude Code keeps its installed plugins and their hooks.",
        "Propose the settings change to the person instead of making it.";
    GUARD_FILES: "guard-files-write", Block, "Guard self-modification",
        "Writing, moving or deleting the Voyage plugin's own files ($CLAUDE_PLUGIN_ROOT: the hooks file, the launcher, the pinned checksums) or its data directory ($CLAUDE_PLUGIN_DATA or $VOYAGE_DATA_DIR, where the launcher installs the voyage-helper binary that judges these commands).",
        "Leave the guard's files alone; if it refuses something the work needs, tell the person, who can change the plugin or run the command themselves.";
    UNSCANNABLE: "unscannable", Block, "Command that cannot be checked",
        "A command the shell parser rejects, or one nested or sized beyond what the scanner checks, so what it would run is unknown.",
        "Split the command into plain, separate steps without deep nesting.";
    DEPENDENCY_CHANGE: "dependency-change", Warn, "Dependency changes during execution",
        "Adding dependencies: npm/pnpm/yarn/bun install or add with packages, pip install, cargo add, go get, poetry add, uv add, gem install (removing one, npm uninstall or pip uninstall, brings no new code in and does not warn).",
        "Make dependency changes a planned step of their own, with the manifest and lock file in its Files: list.";
    GIT_FORCE_PUSH: "git-force-push", Warn, "History rewrite",
        "git push --force, -f, --force-with-lease, --force-if-includes, --mirror or a +refspec, which overwrites the remote branch (a lease only checks that nobody pushed since).",
        "Push to a new branch and open a pull request; if the rewrite is planned, let a person run git push --force-with-lease.";
    GIT_RESET_HARD: "git-reset-hard", Warn, "Discard uncommitted changes",
        "git reset --hard, which throws away uncommitted work in the tree.",
        "Stash first (git stash push -u), or reset only what you mean: git restore PATH.";
    GIT_CLEAN_FORCE: "git-clean-force", Warn, "Delete untracked files",
        "git clean -f, which deletes untracked files with no way back.",
        "Look first with git clean -n, then delete the paths by name.";
    FIND_DELETE: "find-delete", Warn, "Bulk delete by search",
        "find ... -delete, which deletes everything the expression matches without asking; inside the project, matched by name (find . -name '*.pyc' -delete), it is fine.",
        "Run the same find with -print first and check the list.";
    OPAQUE: "opaque-command", Warn, "Command computed at run time",
        "A command name, shell script text or piped input that is only known when the command runs ($VAR, $(...), unknown output fed to a shell), so it could not be checked.",
        "Write the command out literally so it can be checked.";
}

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_kebab_case_and_texts_are_sentences() {
        let mut seen = HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.id), "duplicate id {}", rule.id);
            assert!(
                rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                rule.id
            );
            assert!(rule.catches.ends_with('.'), "{}", rule.id);
            assert!(rule.instead.ends_with('.'), "{}", rule.id);
            assert!(!rule.instead.contains('\n'), "{}", rule.id);
        }
        assert_eq!(find("fork-bomb"), Some(&FORK_BOMB));
        assert_eq!(find("nope"), None);
    }
}
