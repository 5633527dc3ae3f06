//! `voyage-helper run`: the run.sh contract, end to end, on the real binary.
//!
//! Line counts pinned by the original's own tests: a run with output prints
//! 7 lines, a silent run 6, a timeout of a silent command 6, a command not
//! found 8, a pre-launch error 3. `run` never writes to stderr.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Case, Ran, ended, pid_in, skip, wait_until};

fn run(input: &str) -> (Case, Ran) {
    let case = Case::new(&["run"]).stdin(input);
    let ran = case.run();
    assert_eq!(ran.stderr, "", "run must never write to stderr");
    (case, ran)
}

fn pre_launch(input: &str, reason: &str) {
    let (case, ran) = run(input);
    assert_eq!(
        ran.lines(),
        [
            "RESULT: DEVIATION",
            "STATUS: error",
            &format!("REASON: {reason}")
        ],
        "input {input:?}"
    );
    assert_eq!(ran.status, 2);
    assert!(
        !case.path().join(".temp").exists(),
        "nothing is written for refused input"
    );
}

#[test]
fn happy_path_prints_seven_lines() {
    let (case, ran) = run("command: echo hi; echo there >&2\n");
    assert_eq!(ran.status, 0);
    let lines = ran.lines();
    assert_eq!(lines.len(), 7, "{}", ran.stdout);
    assert_eq!(lines[0], "RESULT: SUCCESS");
    assert_eq!(lines[1], "STATUS: ok");
    assert_eq!(lines[2], "EXIT: 0");
    assert_eq!(lines[3], "DURATION: 0s");
    assert!(lines[4].starts_with("LOG: "));
    assert_eq!(lines[5], "LINES: 2");
    assert_eq!(lines[6], "TAIL: there");
    let log = ran.log_path();
    assert_eq!(log.parent().unwrap(), case.path().join(".temp/voyage/logs"));
    assert_eq!(fs::read_to_string(&log).unwrap(), "hi\nthere\n");
    let name = log.file_name().unwrap().to_str().unwrap();
    let pattern = regex_lite(name);
    assert!(pattern, "log name {name}");
}

/// `<8 digits>T<6 digits>Z-echo-hi-echo-there-2-<pid>.log`
fn regex_lite(name: &str) -> bool {
    let (stamp, rest) = name.split_at(16);
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    digits(&stamp[..8])
        && &stamp[8..9] == "T"
        && digits(&stamp[9..15])
        && &stamp[15..16] == "Z"
        && rest.starts_with("-echo-hi-echo-there-2-")
        && rest.ends_with(".log")
        && digits(&rest["-echo-hi-echo-there-2-".len()..rest.len() - 4])
}

#[test]
fn silent_command_prints_six_lines_and_leaves_an_empty_log() {
    let (_case, ran) = run("command: true\n");
    assert_eq!(ran.lines().len(), 6, "{}", ran.stdout);
    assert_eq!(ran.field("LINES"), Some("0"));
    assert_eq!(ran.field("TAIL"), None);
    assert_eq!(fs::read(ran.log_path()).unwrap(), b"");
}

#[test]
fn timeout_of_a_silent_command() {
    let started = Instant::now();
    let (_case, ran) = run("command: sleep 30\ntimeout: 1\n");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        ran.lines()[..3],
        ["RESULT: DEVIATION", "STATUS: timeout", "EXIT: 124"]
    );
    assert_eq!(ran.lines().len(), 6, "{}", ran.stdout);
    assert_eq!(ran.status, 0);
}

#[test]
fn timeout_keeps_partial_output() {
    let (_case, ran) = run("command: echo partial; sleep 30\ntimeout: 1\n");
    assert_eq!(ran.field("STATUS"), Some("timeout"));
    assert_eq!(ran.field("TAIL"), Some("partial"));
    assert_eq!(fs::read_to_string(ran.log_path()).unwrap(), "partial\n");
}

#[test]
fn command_not_found_is_an_error_with_eight_lines() {
    let (_case, ran) = run("command: no-such-command-voyage\n");
    let lines = ran.lines();
    assert_eq!(lines.len(), 8, "{}", ran.stdout);
    assert_eq!(lines[0], "RESULT: DEVIATION");
    assert_eq!(lines[1], "STATUS: error");
    assert_eq!(lines[2], "EXIT: 127");
    assert!(lines[6].contains("no-such-command-voyage: command not found"));
    assert_eq!(
        lines[7],
        "REASON: command not found or not executable (exit 127)"
    );
    assert_eq!(ran.status, 2);
}

#[test]
fn exit_126_is_not_executable() {
    let (case, _) = run("command: true\n");
    fs::write(case.path().join("script.sh"), "echo x\n").unwrap();
    let ran = Case::new(&["run"])
        .stdin(format!("command: {}/script.sh\n", case.path().display()))
        .run();
    assert_eq!(ran.field("EXIT"), Some("126"));
    assert_eq!(
        ran.field("REASON"),
        Some("command not found or not executable (exit 126)")
    );
    assert_eq!(ran.status, 2);
}

#[test]
fn deliberate_exit_127_is_reported_as_the_contract_does() {
    let (_case, ran) = run("command: exit 127\n");
    assert_eq!(ran.field("STATUS"), Some("error"));
    assert_eq!(ran.lines().len(), 7, "silent, so no TAIL: {}", ran.stdout);
}

#[test]
fn every_validation_rule_and_its_reason() {
    pre_launch("", "missing command:");
    pre_launch("cwd: /tmp\n", "missing command:");
    pre_launch("command:   \n", "missing command:");
    pre_launch("command:\ncommand: true\n", "missing command:");
    pre_launch("  command: true\nCommand: true\n", "missing command:");
    pre_launch(
        "command: true\ncwd:\n",
        "empty cwd: (leave the label out to run in the current directory)",
    );
    pre_launch(
        "command: true\ncwd: /no/such/dir\n",
        "working directory missing: /no/such/dir",
    );
    pre_launch(
        "command: true\ncwd: /dev/null\n",
        "cwd is not a directory: /dev/null",
    );
    for bad in ["0", "-1", "abc", "05", "1.5", ""] {
        pre_launch(
            &format!("command: true\ntimeout: {bad}\n"),
            &format!("invalid timeout: {bad}"),
        );
    }
    pre_launch(
        "command: true\ntimeout: 86401\n",
        "invalid timeout: 86401 (more than 86400 seconds)",
    );
    for bad in ["x", "-1", "00", "NONZERO"] {
        pre_launch(
            &format!("command: true\nexpect-exit: {bad}\n"),
            &format!("invalid expect-exit: {bad}"),
        );
    }
    pre_launch(
        "command: true\nexpect-exit: 256\n",
        "invalid expect-exit: 256 (exit codes stop at 255)",
    );
}

#[test]
fn validation_order_first_failure_wins() {
    pre_launch("cwd: /no/such\ntimeout: x\n", "missing command:");
    pre_launch(
        "command: true\ntimeout: x\ncwd: /no/such\n",
        "working directory missing: /no/such",
    );
    pre_launch(
        "command: true\nexpect-exit: x\ntimeout: 0\n",
        "invalid timeout: 0",
    );
}

#[test]
fn relative_cwd_is_glued_onto_the_current_directory() {
    let case = Case::new(&["run"]).stdin("command: pwd\ncwd: sub/inner\n");
    fs::create_dir_all(case.path().join("sub/inner")).unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    let real = fs::canonicalize(case.path().join("sub/inner")).unwrap();
    assert_eq!(ran.field("TAIL").map(std::path::PathBuf::from), Some(real));
    // outside a git repository the log stays in the directory it ran in
    assert!(
        ran.log_path()
            .starts_with(case.path().join("sub/inner/.temp/voyage/logs"))
    );
}

#[test]
fn logs_go_to_the_top_of_the_git_work_tree() {
    let case = Case::new(&["run"]).stdin("command: echo in-repo\ncwd: a/b\n");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(case.path())
        .status()
        .unwrap();
    assert!(git.success());
    fs::create_dir_all(case.path().join("a/b")).unwrap();
    let ran = case.run();
    let top = fs::canonicalize(case.path()).unwrap();
    assert_eq!(
        ran.log_path().parent().unwrap(),
        top.join(".temp/voyage/logs")
    );
}

#[test]
fn expect_exit_decides_the_result() {
    let result = |input: &str| run(input).1.field("RESULT").unwrap().to_owned();
    assert_eq!(result("command: exit 3\nexpect-exit: 3\n"), "SUCCESS");
    assert_eq!(result("command: exit 3\nexpect-exit: nonzero\n"), "SUCCESS");
    assert_eq!(result("command: true\nexpect-exit: nonzero\n"), "DEVIATION");
    assert_eq!(result("command: exit 3\n"), "DEVIATION");
    let (_case, ran) = run("command: exit 3\n");
    assert_eq!(ran.field("STATUS"), Some("ok"));
    assert_eq!(ran.status, 0, "a non-zero exit is still a reported run");
}

#[test]
fn crlf_input_is_read() {
    let (_case, ran) = run("command: echo crlf\r\ntimeout: 5\r\nexpect-exit: 0\r\n");
    assert_eq!(ran.field("RESULT"), Some("SUCCESS"));
    assert_eq!(ran.field("TAIL"), Some("crlf"));
}

#[test]
fn unknown_labels_and_the_skills_expect_are_ignored() {
    let (_case, ran) = run("# a comment\nexpect: all green\ncommand:echo tight\n");
    assert_eq!(ran.field("TAIL"), Some("tight"));
}

#[test]
fn slug_edge_cases_in_the_log_name() {
    let name = |command: &str| {
        let (_case, ran) = run(&format!("command: {command}\n"));
        let file = ran
            .log_path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // strip "<stamp>-" and "-<pid>.log"
        let rest = &file[17..];
        rest[..rest.rfind('-').unwrap()].to_owned()
    };
    assert_eq!(name("true ***"), "true");
    assert_eq!(name(": '***'"), "cmd");
    assert_eq!(name("echo \"a b\" -- --x"), "echo-a-b-x");
    assert_eq!(
        name("echo 0123456789012345678901234567890123456789"),
        "echo-01234567890123456789012345678901234"
    );
    assert_eq!(name("echo héllo"), "echo-h-llo");
}

#[test]
fn unterminated_last_line_is_the_tail_but_not_a_line() {
    let (_case, ran) = run("command: printf 'one\\nabc'\n");
    assert_eq!(ran.field("LINES"), Some("1"));
    assert_eq!(ran.field("TAIL"), Some("abc"));
}

#[test]
fn tail_skips_blank_lines_strips_and_is_capped() {
    let (_case, ran) = run("command: printf 'keep me \\t\\r\\n   \\n\\n'\n");
    assert_eq!(ran.field("TAIL"), Some("keep me"));
    assert_eq!(ran.field("LINES"), Some("3"));
    let (_case, ran) = run("command: head -c 5000 /dev/zero | tr '\\0' x; echo\n");
    assert_eq!(ran.field("TAIL").unwrap().chars().count(), 400);
}

#[test]
fn invalid_utf8_output_is_logged_raw_and_tailed_lossily() {
    let (_case, ran) = run("command: printf 'ok \\377\\376 done\\n'\n");
    assert_eq!(fs::read(ran.log_path()).unwrap(), b"ok \xff\xfe done\n");
    assert_eq!(ran.field("TAIL"), Some("ok \u{fffd}\u{fffd} done"));
}

#[test]
fn one_gibibyte_of_output() {
    // 99 characters and a newline, cut at exactly 1 GiB: 10737418 whole
    // lines and an unterminated 24-byte tail.
    let line = "a".repeat(99);
    let (_case, ran) = run(&format!(
        "command: yes {line} | head -c 1073741824\ntimeout: 600\n"
    ));
    assert_eq!(ran.field("STATUS"), Some("ok"), "{}", ran.stdout);
    assert_eq!(ran.field("LINES"), Some("10737418"));
    assert_eq!(ran.field("TAIL"), Some("a".repeat(24).as_str()));
    let log = ran.log_path();
    assert_eq!(fs::metadata(&log).unwrap().len(), 1 << 30);
    fs::remove_file(log).unwrap();
}

#[test]
fn flags_instead_of_labels() {
    let case = Case::new(&[
        "run",
        "--cwd",
        "sub",
        "--timeout",
        "5",
        "--",
        "echo",
        "a",
        "b",
    ])
    .cwd("");
    fs::create_dir_all(case.path().join("sub")).unwrap();
    let ran = case.run();
    assert_eq!(ran.field("RESULT"), Some("SUCCESS"), "{}", ran.stdout);
    assert_eq!(ran.field("TAIL"), Some("a b"));
    let ran = Case::new(&["run", "--timeout", "0", "--", "true"]).run();
    assert_eq!(
        ran.lines(),
        [
            "RESULT: DEVIATION",
            "STATUS: error",
            "REASON: invalid timeout: 0"
        ]
    );
}

#[test]
fn json_block() {
    let ran = Case::new(&["run", "--json"])
        .stdin("command: echo j\n")
        .run();
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["result"], "SUCCESS");
    assert_eq!(v["status"], "ok");
    assert_eq!(v["exit"], 0);
    assert_eq!(v["lines"], 1);
    assert_eq!(v["tail"], "j");
    assert!(v["log"].as_str().unwrap().ends_with(".log"));
    let ran = Case::new(&["run", "--json"]).stdin("").run();
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["status"], "error");
    assert_eq!(v["reason"], "missing command:");
    assert_eq!(ran.status, 2);
}

// ---- the process tree ---------------------------------------------------

/// Processes (not zombies) whose process group is `pgid`.
fn live_members(pgid: u32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split(' ').collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            found.push(stat);
        }
    }
    found
}

fn pgid_from_log(log: &std::path::Path) -> u32 {
    let text = fs::read_to_string(log).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("pgid="))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

const TREE: &str = "command: echo pgid=$$; sleep 300 & bash -c 'sleep 300'; true\n";

#[test]
fn timeout_kills_the_whole_process_group() {
    let started = Instant::now();
    let (_case, ran) = run(&format!("{TREE}timeout: 1\n"));
    let took = started.elapsed();
    assert_eq!(ran.field("STATUS"), Some("timeout"));
    assert!(took < Duration::from_secs(3), "took {took:?}");
    let pgid = pgid_from_log(&ran.log_path());
    assert_eq!(live_members(pgid), Vec::<String>::new());
}

#[test]
fn a_finished_command_leaves_nothing_running_in_its_group() {
    let (_case, ran) = run("command: echo pgid=$$; sleep 300 & echo started\n");
    assert_eq!(ran.field("STATUS"), Some("ok"));
    assert_eq!(ran.field("TAIL"), Some("started"));
    let pgid = pgid_from_log(&ran.log_path());
    assert_eq!(live_members(pgid), Vec::<String>::new());
}

fn interrupted_by(signal: nix::sys::signal::Signal) {
    let case = Case::new(&["run"]);
    let mut child = crate::common::env::helper(case.path(), case.path())
        .arg("run")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(TREE.as_bytes()).unwrap();
    }
    // Wait (bounded) for the command to have started and printed its group.
    let logs = case.path().join(".temp/voyage/logs");
    let mut pgid = None;
    let started = wait_until(Duration::from_secs(10), || {
        let log = fs::read_dir(&logs)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(Result::ok);
        pgid = log
            .and_then(|e| fs::read_to_string(e.path()).ok())
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("pgid="))
                    .map(|p| p.trim().parse::<u32>().unwrap())
            });
        pgid.is_some()
    });
    assert!(started, "the command never started");
    let pgid = pgid.unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(stderr, "");
    assert_eq!(status.code(), Some(2), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "RESULT: DEVIATION");
    assert_eq!(lines[1], "STATUS: error");
    assert_eq!(
        *lines.last().unwrap(),
        format!("REASON: interrupted by signal {}", signal.as_str())
    );
    assert_eq!(live_members(pgid), Vec::<String>::new());
}

#[test]
fn sigterm_to_the_helper_stops_the_group_and_still_prints_the_block() {
    interrupted_by(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn sigint_and_sighup_too() {
    interrupted_by(nix::sys::signal::Signal::SIGINT);
    interrupted_by(nix::sys::signal::Signal::SIGHUP);
}

/// The command ends once its child has left for a session of its own (it
/// has written its pid); the escaped process writes only once the block is
/// out (the test then creates `go`), and the log is read once it has ended.
#[test]
fn an_escaped_process_cannot_write_into_the_log_after_the_block() {
    let (case, ran) = run(
        "command: setsid sh -c 'echo $$ > escaped.pid; i=0; until [ -e go ] || [ $i -ge 600 ]; do i=$((i+1)); sleep 0.05; done; echo late' & i=0; until [ -s escaped.pid ] || [ $i -ge 1000 ]; do i=$((i+1)); sleep 0.01; done; echo early\n",
    );
    assert_eq!(ran.field("TAIL"), Some("early"));
    let pid = pid_in(&case.path().join("escaped.pid"), Duration::from_secs(10))
        .expect("the escaped process wrote its pid");
    fs::write(case.path().join("go"), "").unwrap();
    assert!(
        wait_until(Duration::from_secs(40), || ended(pid)),
        "the escaped process {pid} never ended"
    );
    assert_eq!(fs::read_to_string(ran.log_path()).unwrap(), "early\n");
}

/// A timeout also stops what left the group for a session of its own (an
/// agent CLI's tool shells do), whether its parent is still there or not
/// (a double fork leaves it to us), though a command that simply ends may
/// leave such a process running (the test above). Linux only: elsewhere
/// the supervisor cannot find them by their mark.
#[test]
fn timeout_stops_processes_in_sessions_of_their_own() {
    if !cfg!(target_os = "linux") {
        skip("only Linux finds processes by their mark (it reads /proc)");
        return;
    }
    let (case, ran) = run(
        "command: setsid sh -c 'echo $$ > child.pid; exec sleep 300' & setsid sh -c 'sleep 300 >/dev/null 2>&1 & echo $! > orphan.pid'; wait\ntimeout: 1\n",
    );
    assert_eq!(ran.field("STATUS"), Some("timeout"));
    for file in ["child.pid", "orphan.pid"] {
        let pid: u32 = fs::read_to_string(case.path().join(file))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let state = fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rfind(')').map(|i| stat[i + 2..i + 3].to_owned()));
        assert!(
            state.is_none() || state.as_deref() == Some("Z"),
            "{file}: process {pid} is still running: {state:?}"
        );
    }
}

#[test]
fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
    let (_case, ran) =
        run("command: echo pgid=$$; bash -c 'trap \"\" TERM; sleep 300' & wait\ntimeout: 1\n");
    assert_eq!(ran.field("STATUS"), Some("timeout"));
    let pgid = pgid_from_log(&ran.log_path());
    assert_eq!(live_members(pgid), Vec::<String>::new());
}
