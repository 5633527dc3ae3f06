//! The executor skill's shims, `skills/executor/scripts/run.sh`,
//! `verdict.sh` and `execute.sh` (the two in one call, as the skill uses
//! them), run end to end with the real `voyage-helper` binary: from any
//! directory, through symlinks and relative paths, with arguments passed
//! through, and answering in their own shape when no helper can be found.
//!
//! Every run gets a cleared environment and an explicit `PATH` made of
//! symlinks to just the programs the shims, the launcher and `run` need (no
//! `cargo`, no `voyage-helper`); the helper is handed over in `VOYAGE_HELPER`.

// Test code: a panic here is a failed assertion (clippy.toml allows this
// inside #[test] fns, but not in the helpers they share).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;
use voyage_tests::{
    executor_scripts, helper_binary, launcher, link_tools, run, sh_quote, text, write_executable,
};

/// What the shims, the launcher and `run` call besides shell builtins.
const TOOLS: &[&str] = &["sh", "bash", "dirname", "readlink", "ls", "cat"];

/// The line `run.sh` prints when no helper can be found, for a plugin at `root`.
fn not_found(root: &Path) -> String {
    format!(
        "no usable voyage-helper (the launcher said why on stderr; install it with \
         'cargo install --path {}/helper', or install Rust so the plugin can build it)",
        root.display()
    )
}

/// A scratch area: `tools/` with the programs from [`TOOLS`], and `work/`,
/// an empty directory to run in (its real path, symlinks resolved).
struct Scratch {
    dir: TempDir,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        link_tools(&dir.path().join("tools"), TOOLS).unwrap();
        fs::create_dir(dir.path().join("work")).unwrap();
        Scratch { dir }
    }

    /// `rel` inside the scratch area, with the temp dir's symlinks resolved.
    fn path(&self, rel: &str) -> PathBuf {
        fs::canonicalize(self.dir.path()).unwrap().join(rel)
    }

    fn work(&self) -> PathBuf {
        self.path("work")
    }

    fn path_var(&self, extra: &[&Path]) -> String {
        let mut all: Vec<PathBuf> = extra.iter().map(|d| d.to_path_buf()).collect();
        all.push(self.path("tools"));
        std::env::join_paths(all).unwrap().into_string().unwrap()
    }

    /// `program` in `cwd` with nothing but `PATH` and `VOYAGE_HELPER` (the
    /// real helper) in its environment.
    fn command(&self, program: &Path, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", self.path_var(&[]))
            .env("VOYAGE_HELPER", helper_binary().unwrap())
            .current_dir(cwd);
        cmd
    }

    /// `sh -c script` in `cwd`, with the environment of [`Scratch::command`].
    fn sh(&self, script: &str, cwd: &Path) -> Command {
        let mut cmd = self.command(Path::new("sh"), cwd);
        cmd.args(["-c", script]);
        cmd
    }
}

fn shim(name: &str) -> PathBuf {
    executor_scripts().join(name)
}

fn stdout_lines(out: &Output) -> Vec<String> {
    text(&out.stdout).lines().map(str::to_string).collect()
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}stderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// The value of the `DURATION:` line, checked to be `<digits>s`.
fn duration(line: &str) -> String {
    let value = line
        .strip_prefix("DURATION: ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let secs = value
        .strip_suffix('s')
        .unwrap_or_else(|| panic!("{line:?}"));
    assert!(
        !secs.is_empty() && secs.bytes().all(|b| b.is_ascii_digit()),
        "{line:?}"
    );
    value.to_string()
}

/// Checks `out` is run's 7-line block for a command that succeeded, printing
/// one line, `tail`; returns the LOG path.
fn assert_success(out: &Output, tail: &str) -> PathBuf {
    assert_eq!(out.status.code(), Some(0), "{}", describe(out));
    assert_eq!(text(&out.stderr), "", "{}", describe(out));
    let lines = stdout_lines(out);
    assert_eq!(lines.len(), 7, "{}", describe(out));
    assert_eq!(lines[0], "RESULT: SUCCESS");
    assert_eq!(lines[1], "STATUS: ok");
    assert_eq!(lines[2], "EXIT: 0");
    duration(&lines[3]);
    assert_eq!(lines[5], "LINES: 1");
    assert_eq!(lines[6], format!("TAIL: {tail}"));
    let log = lines[4].strip_prefix("LOG: ").expect("a LOG: line");
    PathBuf::from(log)
}

/// Checks `log` is a `.log` file directly in `<root>/.temp/voyage/logs/`
/// holding exactly `contents`.
fn assert_log(log: &Path, root: &Path, contents: &str) {
    assert_eq!(
        log.parent(),
        Some(root.join(".temp/voyage/logs").as_path()),
        "{}",
        log.display()
    );
    assert!(
        log.extension().is_some_and(|e| e == "log"),
        "{}",
        log.display()
    );
    assert_eq!(fs::read_to_string(log).unwrap(), contents);
}

fn assert_outside_git(dir: &Path) {
    let git = dir.ancestors().find(|d| d.join(".git").exists());
    assert!(
        git.is_none(),
        "the temp dir {} is inside a git work tree ({git:?}); set TMPDIR elsewhere",
        dir.display()
    );
}

#[test]
fn run_sh_works_from_a_directory_outside_any_git_repository() {
    let s = Scratch::new();
    let work = s.work();
    assert_outside_git(&work);

    let out = run(s.command(&shim("run.sh"), &work), "command: echo hi\n");
    let log = assert_success(&out, "hi");
    assert_log(&log, &work, "hi\n");
}

#[test]
fn run_sh_in_a_git_subdirectory_logs_under_the_repository_top() {
    let s = Scratch::new();
    let repo = s.path("repo");
    let init = Command::new("git")
        .args(["init", "-q"])
        .arg(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", s.path(""))
        .output()
        .unwrap();
    assert!(init.status.success(), "git init: {}", describe(&init));
    let sub = repo.join("a/b");
    fs::create_dir_all(&sub).unwrap();
    // Reached through a symlink, spelled so in $PWD: the log root is still
    // the repository's real top.
    std::os::unix::fs::symlink(&repo, s.path("repo-link")).unwrap();
    let spelled = s.path("repo-link/a/b");

    let mut cmd = s.command(&shim("run.sh"), &spelled);
    cmd.env("PWD", &spelled);
    let out = run(cmd, "command: echo hi\n");
    let log = assert_success(&out, "hi");
    assert_log(&log, &repo, "hi\n");
    assert!(!sub.join(".temp").exists(), "nothing is written in the cwd");
}

#[test]
fn shims_work_through_a_symlinked_scripts_directory_and_by_bare_name() {
    let s = Scratch::new();
    let work = s.work();
    let links = s.path("links");
    fs::create_dir(&links).unwrap();
    std::os::unix::fs::symlink(executor_scripts(), links.join("scripts")).unwrap();

    let out = run(
        s.command(&links.join("scripts/run.sh"), &work),
        "command: echo hi\n",
    );
    let log = assert_success(&out, "hi");
    assert_log(&log, &work, "hi\n");

    // Found on PATH by bare name, as a skill's allowed command would be.
    let mut cmd = s.sh("run.sh && verdict.sh --log \"$1\" --exit 0", &work);
    cmd.arg("sh")
        .arg(&log)
        .env("PATH", s.path_var(&[&links.join("scripts")]));
    let out = run(cmd, "command: echo hi\n");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 10, "{}", describe(&out));
    assert_eq!(lines[0], "RESULT: SUCCESS");
    assert_eq!(
        &lines[7..],
        [
            "VERDICT: PASS (exit 0, -)".to_string(),
            "SUMMARY: hi".to_string(),
            format!("LOG: {}", log.display()),
        ]
    );
}

#[test]
fn run_sh_works_through_a_symlink_to_the_file_itself() {
    let s = Scratch::new();
    let work = s.work();
    let link = s.path("bin/run.sh");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(shim("run.sh"), &link).unwrap();

    let out = run(s.command(&link, &work), "command: echo hi\n");
    let log = assert_success(&out, "hi");
    assert_log(&log, &work, "hi\n");
}

#[test]
fn shims_work_by_relative_path_from_their_own_directory() {
    let s = Scratch::new();
    let work = s.work();
    let stdin = format!("command: pwd\ncwd: {}\n", work.display());

    let out = run(s.sh("./run.sh", &executor_scripts()), &stdin);
    let log = assert_success(&out, &work.display().to_string());
    assert_log(&log, &work, &format!("{}\n", work.display()));

    let script = format!(
        "./verdict.sh --log {} --exit 0 --duration 0s",
        sh_quote(&log.display().to_string())
    );
    let out = run(s.sh(&script, &executor_scripts()), "");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "VERDICT: PASS (exit 0, 0s)\nSUMMARY: {}\nLOG: {}\n",
            work.display(),
            log.display()
        )
    );
    assert_eq!(text(&out.stderr), "");
}

/// A copy of the plugin as installed, without a helper: the launcher and the
/// two shims, no `Cargo.toml`, no `target/`. Returns its real root.
fn plugin_without_helper(s: &Scratch) -> PathBuf {
    let root = s.path("plugin");
    let copy = |from: &Path, rel: &str| {
        let text = fs::read_to_string(from).unwrap();
        write_executable(&root.join(rel), &text).unwrap();
    };
    copy(&launcher(), "plugin/bin/voyage-helper");
    copy(&shim("run.sh"), "skills/executor/scripts/run.sh");
    copy(&shim("verdict.sh"), "skills/executor/scripts/verdict.sh");
    copy(&shim("execute.sh"), "skills/executor/scripts/execute.sh");
    root
}

#[test]
fn with_no_helper_anywhere_the_shims_answer_in_their_own_shape() {
    let s = Scratch::new();
    let work = s.work();
    let root = plugin_without_helper(&s);
    let scripts = root.join("skills/executor/scripts");

    let mut cmd = s.command(&scripts.join("run.sh"), &work);
    cmd.env_remove("VOYAGE_HELPER");
    let out = run(cmd, "command: echo hi\n");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "RESULT: DEVIATION\nSTATUS: error\nREASON: {}\n",
            not_found(&root)
        )
    );
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.lines().count(),
        1,
        "the launcher's one line: {stderr}"
    );
    assert!(
        stderr.starts_with("voyage-helper: no voyage-helper binary found"),
        "{stderr}"
    );

    let mut cmd = s.command(&scripts.join("verdict.sh"), &work);
    cmd.env_remove("VOYAGE_HELPER")
        .args(["--log", "/nowhere.log", "--exit", "0"]);
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "VERDICT: ERROR (exit -, -)\nSUMMARY: {}\n",
            not_found(&root)
        )
    );
    assert_eq!(text(&out.stderr).lines().count(), 1, "{}", describe(&out));

    let mut cmd = s.command(&scripts.join("execute.sh"), &work);
    cmd.env_remove("VOYAGE_HELPER");
    let out = run(cmd, "command: echo hi\n");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "VERDICT: ERROR (exit -, -)\nSUMMARY: {}\n",
            not_found(&root)
        )
    );

    assert!(!root.join("target").exists(), "no build was attempted");
    assert!(!work.join(".temp").exists(), "nothing was run");
}

#[test]
fn a_voyage_helper_variable_naming_no_binary_gets_the_same_answer() {
    let s = Scratch::new();
    let work = s.work();
    let missing = s.path("no/such/voyage-helper");
    let real_root = fs::canonicalize(executor_scripts().join("../../..")).unwrap();

    let mut cmd = s.command(&shim("run.sh"), &work);
    cmd.env("VOYAGE_HELPER", &missing);
    let out = run(cmd, "command: echo hi\n");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "RESULT: DEVIATION\nSTATUS: error\nREASON: {}\n",
            not_found(&real_root)
        )
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("VOYAGE_HELPER"), "{stderr}");

    let mut cmd = s.command(&shim("verdict.sh"), &work);
    cmd.env("VOYAGE_HELPER", &missing);
    let out = run(cmd, "log: /nowhere.log\nexit: 0\n");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        format!(
            "VERDICT: ERROR (exit -, -)\nSUMMARY: {}\n",
            not_found(&real_root)
        )
    );
    assert!(!work.join(".temp").exists(), "nothing was run");
}

#[test]
fn run_block_fed_to_verdict_sh_gives_the_failing_verdict() {
    let s = Scratch::new();
    let work = s.work();
    let summary = "test result: FAILED. 1 passed; 2 failed; 0 ignored";
    let stdin = format!("command: printf '{summary}\\n'; exit 101\n");

    let out = run(s.command(&shim("run.sh"), &work), &stdin);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(text(&out.stderr), "");
    let block = stdout_lines(&out);
    assert_eq!(block.len(), 7, "{}", describe(&out));
    assert_eq!(block[0], "RESULT: DEVIATION");
    assert_eq!(block[1], "STATUS: ok");
    assert_eq!(block[2], "EXIT: 101");
    let took = duration(&block[3]);
    assert_eq!(block[5], "LINES: 1");
    assert_eq!(block[6], format!("TAIL: {summary}"));
    let log = PathBuf::from(block[4].strip_prefix("LOG: ").unwrap());
    assert_log(&log, &work, &format!("{summary}\n"));

    let stdin = format!("{}expect: all green\n", text(&out.stdout));
    let out = run(s.command(&shim("verdict.sh"), &work), &stdin);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        stdout_lines(&out),
        [
            format!("VERDICT: FAIL (exit 101, {took})"),
            "EXPECT: not met - a pass was wanted; exit 101".to_string(),
            format!("SUMMARY: {summary}"),
            format!("LOG: {}", log.display()),
        ]
    );

    // The same run described by flags, one of them holding spaces.
    let mut cmd = s.command(&shim("verdict.sh"), &work);
    cmd.arg("--log")
        .arg(&log)
        .args(["--exit", "101", "--duration", "3s", "--expect", "all green"]);
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        stdout_lines(&out),
        [
            "VERDICT: FAIL (exit 101, 3s)".to_string(),
            "EXPECT: not met - a pass was wanted; exit 101".to_string(),
            format!("SUMMARY: {summary}"),
            format!("LOG: {}", log.display()),
        ]
    );
}

#[test]
fn verdict_sh_log_mode_with_flags_passes() {
    let s = Scratch::new();
    let work = s.work();
    let log = work.join("cargo test.log");
    fs::write(
        &log,
        "running 3 tests\ntest result: ok. 3 passed; 0 failed; 0 ignored\n",
    )
    .unwrap();

    let mut cmd = s.command(&shim("verdict.sh"), &work);
    cmd.arg("--log")
        .arg(&log)
        .args(["--exit", "0", "--duration", "3s"]);
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        text(&out.stdout),
        format!(
            "VERDICT: PASS (exit 0, 3s)\n\
             SUMMARY: test result: ok. 3 passed; 0 failed; 0 ignored\n\
             LOG: {}\n",
            log.display()
        )
    );
}

#[test]
fn run_sh_passes_flags_and_the_command_through() {
    let s = Scratch::new();
    let work = s.work();

    let mut cmd = s.command(&shim("run.sh"), &work);
    cmd.args(["--timeout", "5", "--", "echo", "a", "b"]);
    let out = run(cmd, "");
    let log = assert_success(&out, "a b");
    assert_log(&log, &work, "a b\n");

    // A flag value holding spaces stays one argument.
    let spaced = work.join("two  words");
    fs::create_dir(&spaced).unwrap();
    let mut cmd = s.command(&shim("run.sh"), &work);
    cmd.arg("--cwd").arg(&spaced).args(["--", "pwd"]);
    let out = run(cmd, "");
    let log = assert_success(&out, &spaced.display().to_string());
    assert_log(&log, &spaced, &format!("{}\n", spaced.display()));

    // run's own exit 2 (a refused request) comes back as it is.
    let mut cmd = s.command(&shim("run.sh"), &work);
    cmd.args(["--timeout", "nope", "--", "true"]);
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        "RESULT: DEVIATION\nSTATUS: error\nREASON: invalid timeout: nope\n"
    );
    assert_eq!(text(&out.stderr), "");
}

/// `LOG: <path>` replaced by `LOG: <log>`: two runs write two logs.
fn without_log_path(reply: &str) -> String {
    reply
        .lines()
        .map(|l| {
            if l.starts_with("LOG: ") {
                "LOG: <log>"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn execute_sh_gives_in_one_call_what_run_sh_then_verdict_sh_give() {
    let s = Scratch::new();
    let work = s.work();
    fs::write(
        work.join("t.sh"),
        "echo 'test a ... ok'\necho 'test b ... FAILED'\n\
         echo 'test result: FAILED. 1 passed; 1 failed; 0 ignored'\nexit 101\n",
    )
    .unwrap();
    for input in [
        "command: echo hi\n",
        "command: echo hi\nexpect: all green\n",
        "command: bash t.sh\n",
        "command: bash t.sh\nexpect: test b fails because it is not written yet\n",
        "command: sleep 5\ntimeout: 1\n",
        "command: true\ncwd: no/such/dir\n",
        "cwd: .\n",
    ] {
        let one = run(s.command(&shim("execute.sh"), &work), input);
        // The skill's two calls: run.sh, then its block (and expect:) to
        // verdict.sh.
        let block = run(s.command(&shim("run.sh"), &work), input);
        let expect: String = input
            .lines()
            .filter(|l| l.starts_with("expect:"))
            .map(|l| format!("{l}\n"))
            .collect();
        let two = run(
            s.command(&shim("verdict.sh"), &work),
            &format!("{}{expect}", text(&block.stdout)),
        );
        assert_eq!(
            without_log_path(&text(&one.stdout)),
            without_log_path(&text(&two.stdout)),
            "{input:?}"
        );
        assert_eq!(one.status.code(), two.status.code(), "{input:?}");
        assert!(text(&one.stdout).starts_with("VERDICT: "), "{input:?}");
    }
}
