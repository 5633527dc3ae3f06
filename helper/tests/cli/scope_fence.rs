//! The kernel fence (`scope exec`), executed for real: a run started and a
//! step begun through `trek` as `/trekexecute` does, then one command of
//! every class of write run the way the hook's rewrite runs it, in a real
//! repository with a home and an outside directory beside it. What
//! happened on disk is compared with what the step may write: nothing
//! outside the step's Files (and the build, temporary and cache places the
//! fence opens) may change, whatever the command is. Ordinary work (a
//! Cargo build and test in a fresh checkout, npm, Python tests) must
//! still succeed under it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::env::helper;
use crate::common::repo::{commit_all, git};
use crate::common::skip::{find_on_path, skip};
use crate::trek::Repo;

/// A one-step plan whose Files are an existing file, a new file, a
/// directory and a committed link to README.md.
const PLAN: &str = r#"---
plan_version: 1.7
profile: economy
---
# Plan: fenced step

## Context

Writes held by the kernel.

## Implementation Plan

### Step 1: Change the code
- **Files:** `src/a.rs`, `src/new.rs` (new), `docs/`, `src/link.rs`
- **Changes:** Edit the code.
- **Verify:** `git diff --quiet HEAD -- README.md`
- **On failure:** retry — fix it
- **Checkpoint:** `git commit -m "feat: change the code"`
- **Manifest:**
  ```yaml
  expected_paths: [src/a.rs]
  min_file_count: 1
  commit_message_pattern: "^feat: change the code$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  ```

## Verification

- `git diff --quiet HEAD -- README.md` — README.md untouched
"#;

/// A run at step 1 in a fresh repository, with a directory outside it.
struct Fenced {
    repo: Repo,
    /// The repository with its links followed.
    root: PathBuf,
    outside: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Fenced {
    /// `None` (after saying why) where the kernel cannot fence.
    fn new() -> Option<Self> {
        if !fence_holds() {
            skip("this kernel has no Landlock ABI 3 (`voyage-helper scope status` says why)");
            return None;
        }
        let repo = Repo::new(PLAN);
        let root = fs::canonicalize(repo.path()).unwrap();
        crate::common::repo::write(
            &root,
            &[
                ("src/a.rs", "fn a() {}\n"),
                ("src/b.rs", "fn b() {}\n"),
                ("lib/other.rs", "fn other() {}\n"),
                ("docs/guide.md", "# guide\n"),
                (".voyage/criteria-allow", "git diff\n"),
            ],
        );
        std::os::unix::fs::symlink("../README.md", root.join("src/link.rs")).unwrap();
        commit_all(&root, "code");
        fs::create_dir_all(root.join("lib/empty")).unwrap();
        let (code, reply) = repo.trek(&["start", &repo.plan()]);
        assert_eq!(code, 0, "{reply}");
        let (code, reply) = repo.trek(&["step-begin", "1"]);
        assert_eq!(code, 0, "{reply}");
        Some(Self {
            repo,
            root,
            outside: tempfile::tempdir().unwrap(),
            tmp: tempfile::tempdir().unwrap(),
        })
    }

    fn marker(&self) -> PathBuf {
        self.root.join(".git/voyage-run.json")
    }

    /// Runs `command` as the hook's rewrite runs it, in the repository.
    fn exec(&self, command: &str, dirs: &[&str]) -> Output {
        self.exec_in_env(command, dirs, &[])
    }

    /// [`Self::exec`] with `env` in the helper's environment.
    fn exec_with(&self, command: &str, env: &[(&str, &Path)]) -> Output {
        self.exec_in_env(command, &[], env)
    }

    fn exec_in_env(&self, command: &str, dirs: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut cmd = helper(&self.root, self.repo.home.path());
        cmd.envs(env.iter().copied());
        cmd.args(["scope", "exec", "--marker"])
            .arg(self.marker())
            .arg("--cwd-file")
            .arg(self.tmp.path().join("run/cwd"))
            .env("OUT", self.outside.path());
        for dir in dirs {
            cmd.args(["--dir", dir]);
        }
        cmd.arg("--").arg(command).output().unwrap()
    }

    /// Everything a command could change: the repository (its git
    /// directory too), the home directory and the outside directory, each
    /// path with its kind, content or link target, and mode.
    fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut seen = BTreeMap::new();
        for top in [
            self.root.as_path(),
            self.repo.home.path(),
            self.outside.path(),
        ] {
            walk(top, &mut seen);
        }
        seen
    }
}

fn walk(dir: &Path, seen: &mut BTreeMap<PathBuf, String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Voyage's own command logs: open to every fenced call.
        if path.ends_with(".temp/voyage/logs") {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode();
        let what = if meta.file_type().is_symlink() {
            format!("link {:?}", fs::read_link(&path).unwrap())
        } else if meta.is_dir() {
            walk(&path, seen);
            "dir".to_owned()
        } else {
            format!("file {:?}", fs::read(&path).unwrap_or_default())
        };
        seen.insert(path, format!("{what} {mode:o}"));
    }
}

/// The kernel can hold a step's scope here, as `scope status` reports.
fn fence_holds() -> bool {
    let here = std::env::temp_dir();
    let out = helper(&here, &here)
        .args(["scope", "status", "--json"])
        .output()
        .unwrap();
    let status =
        crate::common::assert_schema("scope-status", String::from_utf8_lossy(&out.stdout).trim());
    status["held"] == true
}

/// One write of each class, outside the step's Files: every redirection
/// form, the writer table's rows, programs the table does not know, and
/// ways of hiding the target from the text. `$OUT` is a directory outside
/// the repository.
const OUTSIDE_WRITES: &[&str] = &[
    "echo x > README.md",
    "echo x >> README.md",
    "echo x >| README.md",
    "echo x &> README.md",
    "echo x 2> README.md",
    "exec 3>README.md; echo x >&3",
    "echo x 1<>README.md",
    "cat > README.md <<'EOF'\nx\nEOF",
    "cp src/a.rs README.md",
    "mv README.md moved.md",
    "rm -f README.md",
    "ln -sf ../src/a.rs lib/l.rs",
    "ln src/a.rs lib/hard.rs",
    "touch lib/made.rs",
    "mkdir lib/newdir",
    "rmdir lib/empty",
    "truncate -s 0 README.md",
    "echo x | tee README.md",
    "dd if=/dev/zero of=README.md bs=1 count=1 conv=notrunc",
    "sed -i s/demo/x/ README.md",
    "sed -i.bak s/other/x/ lib/other.rs",
    "perl -pi -e s/demo/x/ README.md",
    "python3 -c \"open('README.md','w').write('x')\"",
    "python3 -c \"import os; os.symlink('../README.md', 'lib/x.rs')\"",
    "git config user.name evil",
    "git config --file .git/config core.hooksPath /tmp",
    "git -c core.fsmonitor=false status",
    "echo '#!/bin/sh' > .git/hooks/pre-commit",
    "echo x >> README.md; git stash",
    "git add -A",
    "git commit -q --allow-empty -m x",
    "git rm -q README.md",
    "GIT_WORK_TREE=. git checkout -- README.md",
    "install -m 644 src/a.rs lib/inst.rs",
    "cp --backup=numbered src/a.rs lib/other.rs",
    "script -qc true lib/typescript",
    "HISTFILE=lib/hist bash -c 'history -s x; history -w'",
    "exec 3<README.md; echo x > /dev/fd/3",
    "exec 3<README.md; echo x > /proc/self/fd/3",
    "echo x > src/link.rs",
    "cd lib && echo x > ../README.md",
    "set -P; cd src/..; echo x > README.md",
    "x=README.md; echo y > \"$x\"",
    "eval 'echo y > README.md'",
    "bash -c 'echo y > README.md'",
    "echo 'echo y > README.md' | sh",
    "echo $(( $(echo y > README.md; echo 1) ))",
    "awk 'BEGIN { print \"x\" > \"README.md\" }'",
    "find . -name README.md -exec sh -c 'echo x > \"$1\"' _ {} \\;",
    "echo README.md | xargs -I{} sh -c 'echo x > {}'",
    "sh -c 'echo x > README.md' & wait",
    "echo x > \"$OUT/escape\"",
    "echo x > \"$HOME/.bashrc\"",
    "mkdir -p \"$HOME/.config\" && echo x > \"$HOME/.config/x\"",
    "printf x > lib/other.rs",
    "echo x > src/b.rs",
    "cp -s ../README.md lib/sym.rs",
];

#[test]
fn every_write_outside_the_step_fails_in_the_kernel() {
    let Some(run) = Fenced::new() else { return };
    let mut reached = Vec::new();
    for command in OUTSIDE_WRITES {
        let before = run.snapshot();
        let out = run.exec(command, &[]);
        let after = run.snapshot();
        let changed: Vec<&PathBuf> = before
            .keys()
            .chain(after.keys())
            .filter(|path| before.get(*path) != after.get(*path))
            .collect();
        if !changed.is_empty() {
            reached.push(format!(
                "{command:?} changed {changed:?}\n  stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            // Put the tree back for the next command.
            git(&run.root, &["checkout", "-q", "--", "."]);
        }
    }
    assert!(
        reached.is_empty(),
        "writes outside the step reached the disk:\n{}",
        reached.join("\n")
    );
}

#[test]
fn the_steps_own_files_and_the_places_a_build_writes_stay_open() {
    let Some(run) = Fenced::new() else { return };
    for (command, dirs) in [
        ("echo more >> src/a.rs", &[][..]),
        ("echo 'fn n() {}' > src/new.rs", &[]),
        ("sed -i s/a/c/ src/a.rs", &["src"]),
        ("mkdir -p docs/sub && echo x > docs/sub/page.md", &[]),
        ("rm docs/guide.md", &[]),
        ("f=$(mktemp) && echo x > \"$f\" && rm \"$f\"", &[]),
        ("echo x > \"$TMPDIR/scratch\"", &[]),
        ("echo x > /dev/null", &[]),
    ] {
        let out = run.exec(command, dirs);
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        fs::read_to_string(run.root.join("src/a.rs")).unwrap(),
        "fn c() {}\nmore\n"
    );
    assert!(run.root.join("src/new.rs").is_file());
    assert!(run.root.join("docs/sub/page.md").is_file());
    assert!(!run.root.join("docs/guide.md").exists());
    // The committed link is the step's file: writing through it to
    // README.md, outside the Files, fails.
    let out = run.exec("echo x > src/link.rs", &[]);
    assert!(!out.status.success());
    assert_eq!(
        fs::read_to_string(run.root.join("README.md")).unwrap(),
        "# demo\n"
    );
}

#[test]
fn a_failure_says_the_scope_was_held_and_a_cd_carries_to_the_next_call() {
    let Some(run) = Fenced::new() else { return };
    let out = run.exec("cd src && echo x > ../README.md", &[]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(
        stderr.contains("voyage: step 1's scope was held by the kernel (Landlock)"),
        "{stderr}"
    );
    let cwd = fs::read_to_string(run.tmp.path().join("run/cwd")).unwrap();
    assert_eq!(Path::new(&cwd), run.root.join("src"));
    // The status of `exit` is the command's, and a success says nothing.
    assert_eq!(run.exec("exit 7", &[]).status.code(), Some(7));
    let ok = run.exec("true", &[]);
    assert!(ok.status.success() && ok.stderr.is_empty());
}

#[test]
fn between_steps_nothing_in_the_repository_can_be_written() {
    let Some(run) = Fenced::new() else { return };
    run.repo.write(&[("src/a.rs", "fn a() { 1 }\n")]);
    let (code, reply) = run.repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{reply}");
    let out = run.exec("echo x >> src/a.rs", &[]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no step is in progress"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(run.root.join("src/a.rs")).unwrap(),
        "fn a() { 1 }\n"
    );
}

#[test]
fn a_command_is_not_run_when_its_run_is_gone() {
    let Some(run) = Fenced::new() else { return };
    let gone = run.root.join(".git/no-such-marker.json");
    let out = helper(&run.root, run.repo.home.path())
        .args(["scope", "exec", "--marker"])
        .arg(&gone)
        .arg("--cwd-file")
        .arg(run.tmp.path().join("run/cwd"))
        .args(["--", "touch ran"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(!run.root.join("ran").exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("the command was not run"));
}

/// Ordinary work under the fence: the toolchains write their own output
/// directories (made by `trek step-begin` when a fresh checkout has none)
/// and caches, and the tests pass.
#[test]
fn builds_and_tests_of_a_project_succeed_under_the_fence() {
    if !fence_holds() {
        skip("this kernel has no Landlock ABI 3");
        return;
    }
    let repo = Repo::new(PLAN);
    let root = fs::canonicalize(repo.path()).unwrap();
    crate::common::repo::write(
        &root,
        &[
            (
                ".gitignore",
                "target/\nnode_modules/\n__pycache__/\n.pytest_cache/\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"fenced\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/a.rs\"\n",
            ),
            (
                "src/a.rs",
                "pub fn a() -> u8 { 1 }\n\n#[test]\nfn one() { assert_eq!(a(), 1); }\n",
            ),
            (
                "package.json",
                "{\"name\":\"fenced\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node test.js\"}}\n",
            ),
            ("test.js", "require('assert').strictEqual(1 + 1, 2);\n"),
            ("test_one.py", "def test_one():\n    assert 1 + 1 == 2\n"),
            (".voyage/criteria-allow", "git diff\n"),
        ],
    );
    let tools = [
        ("cargo", "cargo test -q --offline 2>&1"),
        ("npm", "npm test 2>&1"),
        ("python3", "python3 -m unittest -q 2>&1"),
        ("pytest", "pytest -q 2>&1"),
    ];
    if find_on_path("cargo").is_some() {
        let lock = std::process::Command::new("cargo")
            .args(["generate-lockfile", "--offline"])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(lock.status.success(), "{lock:?}");
    }
    commit_all(&root, "project");
    assert!(!root.join("target").exists());
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{reply}");
    let (code, reply) = repo.trek(&["step-begin", "1"]);
    assert_eq!(code, 0, "{reply}");
    let tmp = tempfile::tempdir().unwrap();
    for (tool, command) in tools {
        if find_on_path(tool).is_none() {
            skip(&format!("`{tool}` is not on PATH"));
            continue;
        }
        let out = helper(&root, repo.home.path())
            // The real caches: the fence opens them where they are.
            .env("HOME", std::env::var_os("HOME").unwrap())
            .args(["scope", "exec", "--marker"])
            .arg(root.join(".git/voyage-run.json"))
            .arg("--cwd-file")
            .arg(tmp.path().join("run/cwd"))
            .args(["--", command])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(git(&root, &["status", "--porcelain"]), "");
}

/// The hook's side, as Claude Code calls it during step 1: a Bash call is
/// answered with the call rewritten into `scope exec` (its other fields
/// kept, no decision); the rewritten command, run by bash as Claude Code's
/// shell runs it, hands a `cd` back, and a call that does not move is the
/// `scope exec` call alone. The helper's own plain `trek` call is left
/// alone, and one run with other commands is refused.
#[test]
fn the_hook_rewrites_a_call_into_the_fence_and_refuses_trek_in_a_pipe() {
    let Some(run) = Fenced::new() else { return };
    let plugin = run.root.join("plugin-root");
    let launcher = format!("\"{}/plugin/bin/voyage-helper\"", plugin.display());
    let plugin_root = plugin.display().to_string();
    let ask = |command: &str| -> Option<Value> {
        let answer = hook(&run, command, &[("CLAUDE_PLUGIN_ROOT", &plugin_root)]);
        (!answer.is_null()).then_some(answer)
    };

    let reply = ask("cd src").unwrap();
    let specific = &reply["hookSpecificOutput"];
    assert!(specific.get("permissionDecision").is_none(), "{reply}");
    assert_eq!(specific["updatedInput"]["description"], "a call");
    let rewritten = specific["updatedInput"]["command"].as_str().unwrap();
    let exe = fs::canonicalize(env!("CARGO_BIN_EXE_voyage-helper")).unwrap();
    assert!(
        rewritten.starts_with(&format!(
            "'{}' scope exec --marker '{}' ",
            exe.display(),
            run.marker().display()
        )) && rewritten.contains(" -- 'cd src';"),
        "{rewritten}"
    );
    let shell = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("{rewritten}\npwd -P"))
        .current_dir(&run.root)
        .env("HOME", run.repo.home.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shell.stdout).trim_end(),
        run.root.join("src").display().to_string(),
        "{}",
        String::from_utf8_lossy(&shell.stderr)
    );

    // A call that does not move: the `scope exec` call alone.
    let reply = ask("ls src").unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"]["command"],
        format!(
            "'{}' scope exec --marker '{}' -- 'ls src'",
            exe.display(),
            run.marker().display()
        )
    );

    assert_eq!(ask(&format!("{launcher} trek step-done 1 2>&1")), None);
    for command in [
        format!("{launcher} trek step-done 1 2>&1 | tail -n 20"),
        format!("cd src && {launcher} trek step-done 1"),
    ] {
        let reply = ask(&command).unwrap();
        let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default();
        assert!(
            reason.starts_with("voyage: blocked run-trek-alone "),
            "{command}: {reply}"
        );
    }
}

/// A variable that moves a cache decides where the fence opens it, but
/// never into the repository: `CARGO_HOME` pointed at a directory of the
/// repository leaves it closed. A Cargo target directory moved out of the
/// repository (`CARGO_TARGET_DIR`) is open, so a build still writes there.
#[test]
fn a_cache_moved_into_the_repository_stays_closed() {
    let Some(run) = Fenced::new() else { return };
    let target = run.outside.path().join("target");
    fs::create_dir_all(&target).unwrap();
    let out = run.exec_with(
        "echo x > lib/evil.rs",
        &[("CARGO_HOME", run.root.join("lib").as_path())],
    );
    assert!(!out.status.success());
    assert!(!run.root.join("lib/evil.rs").exists());
    let out = run.exec_with(
        "echo x > \"$CARGO_TARGET_DIR/built\"",
        &[("CARGO_TARGET_DIR", target.as_path())],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(target.join("built").is_file());
}

/// The hook's answer to a Bash call `command` in the repository, with
/// `env` in its environment (Claude Code's).
fn hook(run: &Fenced, command: &str, env: &[(&str, &str)]) -> Value {
    use std::io::Write;
    let input = serde_json::json!({
        "session_id": "s", "cwd": run.root, "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "a call", "timeout": 600000}
    });
    let mut child = helper(&run.root, run.repo.home.path())
        .args(["hook", "pre-tool-use"])
        .env("CLAUDE_PLUGIN_ROOT", "/plugin/root")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    if text.is_empty() {
        return Value::Null;
    }
    crate::common::assert_schema("hook-pre-tool-use-output", &text)
}

/// Runs what the hook answered as Claude Code would: the rewritten command
/// in a bash standing in the repository, then `pwd` in the same shell (as
/// Claude Code reads the directory to carry to the next call).
fn run_rewritten(run: &Fenced, answer: &Value) -> (Option<i32>, String, String) {
    let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("not rewritten: {answer}"));
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("{command}\necho \"status=$? pwd=$(pwd)\""))
        .current_dir(&run.root)
        .env("HOME", run.repo.home.path())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_hook_rewrites_a_steps_bash_calls_into_the_fence() {
    let Some(run) = Fenced::new() else { return };
    // A call the text cannot see into runs fenced, keeps its other fields,
    // and fails in the kernel; README.md is untouched.
    let answer = hook(
        &run,
        "python3 -c \"import sys; open(sys.argv[1], 'w').write('x')\" README.md",
        &[],
    );
    let input = &answer["hookSpecificOutput"]["updatedInput"];
    assert_eq!(input["description"], "a call");
    assert_eq!(input["timeout"], 600000);
    assert!(answer["hookSpecificOutput"]["permissionDecision"].is_null());
    let command = input["command"].as_str().unwrap();
    assert!(command.contains(" scope exec --marker "), "{command}");
    assert!(
        command.contains(r#"-- 'python3 -c "import sys; open(sys.argv[1], '\''w'\'').write('\''x'\'')" README.md'"#),
        "the original, quoted whole: {command}"
    );
    let (_, stdout, stderr) = run_rewritten(&run, &answer);
    assert!(stdout.starts_with("status=1 "), "{stdout}{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(
        fs::read_to_string(run.root.join("README.md")).unwrap(),
        "# demo\n"
    );
    // A write target the text cannot know runs fenced instead of refused;
    // in the step's Files it succeeds, and a `cd` carries.
    let unknown = "cd src && echo more >> \"$(git ls-files a.rs)\"";
    let answer = hook(&run, unknown, &[]);
    let (_, stdout, stderr) = run_rewritten(&run, &answer);
    assert_eq!(
        stdout.trim(),
        format!("status=0 pwd={}", run.root.join("src").display()),
        "{stderr}"
    );
    assert!(
        fs::read_to_string(run.root.join("src/a.rs"))
            .unwrap()
            .ends_with("more\n")
    );
    // With the fence turned off, the text judge alone refuses it.
    let answer = hook(&run, unknown, &[("VOYAGE_FENCE", "off")]);
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.starts_with("voyage: blocked run-unknown-target "),
        "{answer}"
    );
    // What the text judge refuses is refused, fence or not.
    let answer = hook(&run, "echo x > README.md", &[]);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    // The helper's own calls, as the command writes them, run as they are.
    let trek = r#""${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper" trek step-done 1"#;
    assert_eq!(hook(&run, trek, &[]), Value::Null);
    // Anything more than the plain call is refused (run-trek-alone).
    let chained = format!("{trek}; ls");
    assert_eq!(
        hook(&run, &chained, &[])["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

/// The executor skill's calls keep their text, so that the skill's
/// permission rule (`Bash(${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/
/// execute.sh:*)`) still matches, and take the fence as a flag of `run`:
/// the command runs held, and the reply says what happened.
#[test]
fn the_executors_calls_run_fenced_through_run() {
    let Some(run) = Fenced::new() else { return };
    let plugin = fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap();
    let plugin = plugin.display().to_string();
    let env = [
        ("CLAUDE_PLUGIN_ROOT", plugin.as_str()),
        ("VOYAGE_HELPER", env!("CARGO_BIN_EXE_voyage-helper")),
    ];
    let call = |command: &str| {
        format!(
            "\"${{CLAUDE_PLUGIN_ROOT}}/skills/executor/scripts/execute.sh\" <<'EOF'\ncommand: {command}\nEOF"
        )
    };
    let ask = |command: &str| {
        let answer = hook(&run, &call(command), &[("CLAUDE_PLUGIN_ROOT", &plugin)]);
        let rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("not rewritten: {answer}"))
            .to_owned();
        assert!(
            rewritten.starts_with(
                "\"${CLAUDE_PLUGIN_ROOT}/skills/executor/scripts/execute.sh\" --fence '"
            ),
            "{rewritten}"
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&rewritten)
            .current_dir(&run.root)
            .env("HOME", run.repo.home.path())
            .envs(env)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let reply = ask("python3 -c \"import sys; open(sys.argv[1], 'w').write('x')\" README.md");
    assert!(reply.starts_with("VERDICT: FAIL"), "{reply}");
    assert_eq!(
        fs::read_to_string(run.root.join("README.md")).unwrap(),
        "# demo\n"
    );
    let reply = ask("echo more >> src/a.rs");
    assert!(reply.starts_with("VERDICT: PASS"), "{reply}");
    assert!(
        fs::read_to_string(run.root.join("src/a.rs"))
            .unwrap()
            .ends_with("more\n")
    );
    // `run --fence` with a marker that cannot be read does not run the
    // command at all.
    let out = helper(&run.root, run.repo.home.path())
        .args([
            "run",
            "--fence",
            "/nonexistent/voyage-run.json",
            "--",
            "touch ran",
        ])
        .output()
        .unwrap();
    let block = String::from_utf8_lossy(&out.stdout);
    assert!(block.contains("EXIT: 126"), "{block}");
    assert!(!run.root.join("ran").exists());
}

/// `scope status` during a step names what is open and what was held back,
/// as the schema says.
#[test]
fn status_lists_what_the_fence_of_the_run_here_leaves_open() {
    let Some(run) = Fenced::new() else { return };
    let out = helper(&run.root, run.repo.home.path())
        .args(["scope", "status", "--json"])
        .output()
        .unwrap();
    let status =
        crate::common::assert_schema("scope-status", String::from_utf8_lossy(&out.stdout).trim());
    assert_eq!(status["run"]["step"], 1);
    let open = status["run"]["open"].as_array().unwrap();
    let has = |path: &Path, rights: &str| {
        open.iter()
            .any(|g| g["path"] == path.display().to_string() && g["rights"] == rights)
    };
    assert!(has(&run.root.join("src/a.rs"), "file"), "{open:?}");
    assert!(has(&run.root.join("docs"), "tree"), "{open:?}");
    assert!(has(&run.root.join("src"), "entries"), "{open:?}");
    assert!(!has(&run.root, "tree") && !has(&run.root, "entries"));
    let held = status["run"]["held_back"].as_array().unwrap();
    assert!(
        held.iter()
            .any(|h| h["path"] == run.root.join("src/link.rs").display().to_string()),
        "{held:?}"
    );
    let text = helper(&run.root, run.repo.home.path())
        .args(["scope", "status"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("Kernel fence: holds each step's scope"),
        "{text}"
    );
    assert!(
        text.contains("Run: ") && text.contains("(step 1;"),
        "{text}"
    );
}
