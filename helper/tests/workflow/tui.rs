//! The full-screen view end to end, through a real pseudo-terminal: each
//! test starts its own tmux server (its own socket, no configuration) and
//! runs `voyage-helper workflow run` in a pane of a fixed size, types keys
//! into it with `send-keys` and reads the screen with `capture-pane`, the
//! way a person would see it. Prompt steps run the real `claude` CLI
//! against [`crate::mock_api`].
//!
//! After the helper exits, the pane's shell records its exit code and
//! `stty -a`, and tmux says whether the alternate screen is still on: the
//! terminal must be back in its normal mode whatever ended the run.
//!
//! Without `tmux` (or `claude`, for the tests that need it) each test
//! prints `SKIPPED: …` and passes, except under `CI`, which installs both.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::common::{Dir, wait_until};
use crate::mock_api::{MockApi, Turn};

const WAIT: Duration = Duration::from_secs(30);

fn tmux_or_skip() -> Option<PathBuf> {
    crate::common::tool_or_skip("tmux", "apt-get install -y tmux")
}

/// One tmux server with one pane running the helper.
struct Pane {
    dir: Dir,
    socket: PathBuf,
}

impl Pane {
    /// Runs `voyage-helper workflow run wf.yaml ARGS…` in a `w`×`h` pane,
    /// with `env` exported first (`None` unsets); `stdin` redirects it.
    fn start(dir: Dir, args: &str, env: &[(&str, Option<&str>)], size: (u16, u16)) -> Self {
        let mut exports = String::new();
        for (key, value) in env {
            match value {
                Some(v) => exports.push_str(&format!("export {key}='{v}'\n")),
                None => exports.push_str(&format!("unset {key}\n")),
            }
        }
        let bin = env!("CARGO_BIN_EXE_voyage-helper");
        // The inner sh writes its pid, then becomes the helper: SIGINT can
        // be sent to it alone. The outer one records how it ended.
        let script = format!(
            "cd '{dir}'\n{exports}sh -c 'echo $$ > pid; exec \"$0\" \"$@\"' '{bin}' workflow run wf.yaml {args}\n\
             echo $? > exit.tmp && mv exit.tmp exit\nstty -a > stty.txt\nsleep 600\n",
            dir = dir.path().display()
        );
        dir.write("pane.sh", &script);
        let socket = dir.path().join("tmux.sock");
        let pane = Self { dir, socket };
        let mut cmd = pane.tmux();
        cmd.args(["new-session", "-d", "-s", "t", "-x"])
            .arg(size.0.to_string())
            .arg("-y")
            .arg(size.1.to_string())
            .arg(format!(
                "sh '{}'",
                pane.dir.path().join("pane.sh").display()
            ));
        let status = cmd.status().unwrap();
        assert!(status.success(), "tmux new-session failed");
        pane
    }

    /// tmux on this test's own server, with nothing of the developer's
    /// environment the helper reads.
    fn tmux(&self) -> Command {
        let mut cmd = Command::new("tmux");
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if ["VOYAGE_", "CLAUDE", "EXECUTANT_", "TREKEXECUTE_", "TMUX"]
                .iter()
                .any(|p| key.starts_with(p))
            {
                cmd.env_remove(&*key);
            }
        }
        cmd.env("HOME", self.dir.path())
            .env("VOYAGE_LOG", "0")
            .env("VOYAGE_RETROSPECTIVE", "0")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null");
        cmd
    }

    fn screen(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", "t"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen holds `text`; returns it.
    fn wait_for(&self, text: &str) -> String {
        let mut last = String::new();
        let seen = wait_until(WAIT, || {
            last = self.screen();
            last.contains(text)
        });
        assert!(seen, "{text:?} never showed; the screen:\n{last}");
        last
    }

    fn keys(&self, keys: &[&str]) {
        let status = self
            .tmux()
            .args(["send-keys", "-t", "t"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Literal text typed in.
    fn type_text(&self, text: &str) {
        self.keys(&["-l", text]);
    }

    fn pid(&self) -> i32 {
        crate::common::pid_in(&self.dir.path().join("pid"), WAIT).unwrap()
    }

    /// The helper's exit code, once it has exited.
    fn exit_code(&self) -> i32 {
        let file = self.dir.path().join("exit");
        let mut code = None;
        let ended = wait_until(WAIT, || {
            code = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.trim().parse().ok());
            code.is_some()
        });
        assert!(
            ended,
            "the helper did not exit; the screen:\n{}",
            self.screen()
        );
        code.unwrap()
    }

    /// After the exit: the alternate screen is off and the line discipline
    /// is back (canonical input, echo).
    fn assert_restored(&self) {
        let stty = self.dir.path().join("stty.txt");
        assert!(wait_until(WAIT, || std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0)));
        let modes = std::fs::read_to_string(&stty).unwrap();
        let words: Vec<&str> = modes.split_whitespace().collect();
        for mode in ["icanon", "echo", "isig"] {
            assert!(
                words.contains(&mode),
                "{mode} is not back on after the run:\n{modes}"
            );
        }
        let out = self
            .tmux()
            .args(["display-message", "-p", "-t", "t", "#{alternate_on}"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "0",
            "the alternate screen is still on"
        );
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
    }
}

/// How many rows of the screen are inside the output pane's box.
fn pane_rows(screen: &str) -> usize {
    screen.lines().filter(|l| l.starts_with('│')).count()
}

/// The last line inside the output pane's box.
fn last_pane_line(screen: &str) -> String {
    screen
        .lines()
        .rfind(|l| l.starts_with('│'))
        .unwrap_or_default()
        .trim_matches(|c: char| c == '│' || c.is_whitespace())
        .to_owned()
}

const LONG_STEP: &str = "goal: Look around\nsteps:\n  - name: count\n    command: |\n      i=1; while [ $i -le 200 ]; do echo \"line $i\"; i=$((i+1)); done\n      while [ ! -e stop-now ]; do sleep 0.05; done\n  - name: after\n    command: echo after\n";

/// Scrolling, resizing, a new step back at its tail; then the report
/// waits for a key, and the terminal is given back.
#[test]
fn keys_scroll_and_resize_the_pane_and_the_report_waits_for_a_key() {
    if tmux_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    dir.write("wf.yaml", LONG_STEP);
    let pane = Pane::start(dir, "", &[], (60, 20));
    let screen = pane.wait_for("line 200");
    assert!(screen.contains(" Look around"), "{screen}");
    assert_eq!(last_pane_line(&screen), "line 200");
    let rows = pane_rows(&screen);
    pane.keys(&["k", "Up", "k"]);
    let screen = pane.wait_for("— scrolled up 3 lines —");
    assert_eq!(
        pane_rows(&screen),
        rows,
        "the indicator takes a row of the pane"
    );
    assert!(screen.contains("│line 197"), "{screen}");
    assert!(!screen.contains("│line 198"), "{screen}");
    pane.keys(&["PageUp"]);
    pane.wait_for(&format!("— scrolled up {} lines —", 3 + rows - 1));
    pane.keys(&["j"]);
    pane.wait_for(&format!("— scrolled up {} lines —", 3 + rows - 2));
    pane.keys(&["PageDown", "PageDown"]);
    assert!(
        wait_until(WAIT, || !pane.screen().contains("scrolled up")),
        "still scrolled up:\n{}",
        pane.screen()
    );
    assert_eq!(last_pane_line(&pane.screen()), "line 200");
    // Smaller by two rows, then one back.
    pane.keys(&["[", "["]);
    assert!(wait_until(WAIT, || pane_rows(&pane.screen()) == rows - 2));
    pane.keys(&["]"]);
    assert!(wait_until(WAIT, || pane_rows(&pane.screen()) == rows - 1));
    // Scrolled up when the step ends: the next one starts at its tail.
    pane.keys(&["k"]);
    pane.wait_for("scrolled up 1 line —");
    std::fs::write(pane.path().join("stop-now"), "").unwrap();
    let screen = pane.wait_for("a ask for an efficiency suggestion");
    assert!(!screen.contains("scrolled up"), "{screen}");
    assert!(screen.contains("✓ after"), "{screen}");
    // The report waits for a key; this one exits.
    pane.keys(&["q"]);
    assert_eq!(pane.exit_code(), 0);
    pane.assert_restored();
    let screen = pane.screen();
    assert!(screen.contains("✓ count ("), "{screen}");
    assert!(screen.contains("Finished in "), "{screen}");
}

/// Ctrl-C during a step, which in raw mode is a key, not a signal: the run
/// is cancelled all the same (exit 4) and the terminal given back.
#[test]
fn ctrl_c_cancels_the_run_and_gives_the_terminal_back() {
    if tmux_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    dir.write("wf.yaml", LONG_STEP);
    let pane = Pane::start(dir, "", &[], (60, 20));
    pane.wait_for("line 200");
    pane.keys(&["C-c"]);
    assert_eq!(pane.exit_code(), 4);
    pane.assert_restored();
    let screen = pane.screen();
    assert!(screen.contains("Cancelled in "), "{screen}");
}

/// SIGINT and SIGTERM from outside: the run is cancelled and the terminal
/// restored, the same as a key would.
#[test]
fn sigint_and_sigterm_restore_the_terminal() {
    if tmux_or_skip().is_none() {
        return;
    }
    for signal in [
        nix::sys::signal::Signal::SIGINT,
        nix::sys::signal::Signal::SIGTERM,
    ] {
        let dir = Dir::new();
        dir.write("wf.yaml", LONG_STEP);
        let pane = Pane::start(dir, "", &[], (60, 20));
        pane.wait_for("line 200");
        let pid = nix::unistd::Pid::from_raw(pane.pid());
        nix::sys::signal::kill(pid, signal).unwrap();
        assert_eq!(pane.exit_code(), 4, "after {signal}");
        pane.assert_restored();
        assert!(pane.screen().contains("Cancelled in "), "{}", pane.screen());
    }
}

/// The terminal going away (its tmux server killed: SIGHUP, then reads
/// that end at once) ends the run and the process, leaving nothing that
/// spins on the dead terminal.
#[test]
fn a_hung_up_terminal_ends_the_run() {
    if tmux_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    dir.write("wf.yaml", LONG_STEP);
    let pane = Pane::start(dir, "", &[], (60, 20));
    pane.wait_for("line 200");
    let pid = pane.pid();
    let _ = pane.tmux().arg("kill-server").status();
    assert!(
        wait_until(WAIT, || crate::common::ended(pid)),
        "the helper still runs after its terminal hung up"
    );
}

/// Without a terminal on stdin nothing can be typed: the view never waits
/// after the run.
#[test]
fn a_view_without_keys_never_waits() {
    if tmux_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: Quick\nsteps:\n  - name: hi\n    command: echo hi\n",
    );
    let pane = Pane::start(dir, "< /dev/null", &[], (60, 12));
    assert_eq!(pane.exit_code(), 0);
    pane.assert_restored();
    let screen = pane.screen();
    assert!(screen.contains("✓ hi ("), "{screen}");
}

/// `--no-tui` keeps the line view on a terminal.
#[test]
fn no_tui_keeps_the_line_view() {
    if tmux_or_skip().is_none() {
        return;
    }
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: Quick\nsteps:\n  - name: hi\n    command: echo hi\n",
    );
    let pane = Pane::start(dir, "--no-tui", &[], (60, 12));
    assert_eq!(pane.exit_code(), 0);
    let screen = pane.screen();
    assert!(screen.contains("▶ [1/1] hi"), "{screen}");
    assert!(screen.contains("✓ [1/1] hi"), "{screen}");
}

// ------------------------------------------------ with the real claude CLI

fn claude_or_skip() -> Option<PathBuf> {
    crate::common::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")
}

/// What the pane exports for claude to talk to the mock (as
/// `claude.rs`'s `offline` does for its commands).
fn offline(mock: &MockApi, home: &Path) -> Vec<(&'static str, Option<String>)> {
    let mut env: Vec<(&'static str, Option<String>)> = [
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
    ]
    .into_iter()
    .map(|k| (k, None))
    .collect();
    env.extend([
        ("HOME", Some(home.display().to_string())),
        ("ANTHROPIC_BASE_URL", Some(mock.url())),
        ("ANTHROPIC_API_KEY", Some("test".to_owned())),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
            Some("1".to_owned()),
        ),
        ("DISABLE_AUTOUPDATER", Some("1".to_owned())),
        ("IS_SANDBOX", Some("1".to_owned())),
        ("CLAUDE_CODE_MAX_RETRIES", Some("0".to_owned())),
    ]);
    env
}

fn as_refs<'a>(env: &'a [(&'static str, Option<String>)]) -> Vec<(&'a str, Option<&'a str>)> {
    env.iter().map(|(k, v)| (*k, v.as_deref())).collect()
}

const HEADER: &str = "[User correction from a previous step]";

/// `i`, a message and Enter while a command runs: the next prompt step's
/// request carries it in front of the prompt; the report then offers the
/// suggestion, and `a` asks for it.
#[test]
fn an_interjection_reaches_the_next_prompt_and_a_asks_for_the_suggestion() {
    if tmux_or_skip().is_none() || claude_or_skip().is_none() {
        return;
    }
    let mock = MockApi::start(vec![
        Turn::text("hi"),
        Turn::tool(
            "StructuredOutput",
            json!({"suggestion": "Merge the two steps."}),
        ),
    ]);
    let home = tempfile::tempdir().unwrap();
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: Correct me\nsteps:\n  - name: wait\n    command: while [ ! -e go ]; do sleep 0.05; done\n  - name: ask\n    prompt: Say hi.\n",
    );
    let env = offline(&mock, home.path());
    let pane = Pane::start(dir, "", &as_refs(&env), (70, 20));
    pane.wait_for("i interject");
    pane.keys(&["i"]);
    pane.wait_for("esc to cancel");
    pane.type_text("never sent");
    pane.keys(&["Escape"]);
    assert!(wait_until(WAIT, || !pane
        .screen()
        .contains("esc to cancel")));
    pane.keys(&["i"]);
    pane.type_text("use the staging database");
    pane.wait_for("▷ use the staging database▌");
    pane.keys(&["Enter"]);
    pane.wait_for("[interjection] use the staging database");
    std::fs::write(pane.path().join("go"), "").unwrap();
    pane.wait_for("a ask for an efficiency suggestion");
    pane.keys(&["a"]);
    pane.wait_for("Suggestion: Merge the two steps.");
    pane.keys(&["x"]);
    assert_eq!(pane.exit_code(), 0, "{}", mock.summary());
    pane.assert_restored();
    let main = mock.main_requests();
    let prompt = main[0].user_texts().join("\n");
    assert!(
        prompt.contains(&format!(
            "{HEADER}\nuse the staging database\n\n---\nSay hi."
        )),
        "{prompt}"
    );
    assert!(!prompt.contains("never sent"), "{prompt}");
    assert_eq!(main.len(), 2, "{}", mock.summary());
}

/// A fatal failure with a retrospective: the pane shows it, `o` swaps in
/// the step's output, `u` leaves the screen and runs `workflow refine`;
/// the exit code stays the run's.
#[test]
fn the_retrospective_pane_shows_the_analysis_and_the_output() {
    if tmux_or_skip().is_none() || claude_or_skip().is_none() {
        return;
    }
    let mock = MockApi::start(vec![
        Turn::text("hi"),
        Turn::tool(
            "StructuredOutput",
            json!({"summary": "The command exits 4 on purpose.", "rootCause": "exit 4",
                   "evidence": ["boom"], "suggestions": [{"step": "fail", "issue": "always fails",
                   "change": "remove exit 4", "severity": "high"}],
                   "workflowFixable": true, "refineInstruction": "Drop exit 4 from step fail."}),
        ),
    ]);
    let home = tempfile::tempdir().unwrap();
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: Fail\nsteps:\n  - name: ask\n    prompt: Say hi.\n  - name: fail\n    command: echo boom; exit 4\n",
    );
    let mut env = offline(&mock, home.path());
    env.push(("VOYAGE_RETROSPECTIVE", None));
    // Tall enough that `workflow refine`'s progress lines (it runs against
    // the mock's exhausted script and fails) leave the summary on screen.
    let pane = Pane::start(dir, "", &as_refs(&env), (80, 60));
    let screen = pane.wait_for("retrospective: fail");
    let summary = screen.find("The command exits 4 on purpose.").unwrap();
    let suggestion = screen
        .find("suggestion (high): fail: always fails → remove exit 4")
        .unwrap();
    let cause = screen.find("root cause: exit 4").unwrap();
    assert!(summary < suggestion && suggestion < cause, "{screen}");
    assert!(screen.contains(" update the workflow "), "{screen}");
    pane.keys(&["o"]);
    let screen = pane.wait_for("│boom");
    assert!(
        screen.contains("✗ Command \"fail\" exited with code 4"),
        "{screen}"
    );
    pane.keys(&["o"]);
    pane.wait_for("root cause: exit 4");
    pane.keys(&["u"]);
    assert_eq!(pane.exit_code(), 1);
    pane.assert_restored();
    let screen = pane.screen();
    assert!(
        screen.contains("refining wf.yaml with the retrospective's fix"),
        "{screen}"
    );
    assert!(
        screen.contains("✎ retrospective: The command exits 4 on purpose."),
        "{screen}"
    );
}

/// `--interject-file`: lines a script appends reach the next prompt step
/// (here the workflow itself appends one), in `--ci` runs too, with a log
/// event saying so.
#[test]
fn the_interject_file_feeds_the_next_prompt_step() {
    if claude_or_skip().is_none() {
        return;
    }
    let mock = MockApi::start(vec![Turn::text("hi")]);
    let home = tempfile::tempdir().unwrap();
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: File\nsteps:\n  - name: note\n    command: printf 'first fix\\n\\nsecond fix\\nunfinished' >> notes.txt\n  - name: ask\n    prompt: Say hi.\n",
    );
    let mut cmd = dir.command(&[
        "workflow",
        "run",
        "--ci",
        "--interject-file",
        "notes.txt",
        "wf.yaml",
    ]);
    for (key, value) in offline(&mock, home.path()) {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.stdin(std::process::Stdio::null());
    let start = std::time::Instant::now();
    let ran = crate::common::collect(&cmd.output().unwrap(), start.elapsed());
    ran.status_is(0);
    let prompt = mock.main_requests()[0].user_texts().join("\n");
    assert!(
        prompt.contains(&format!("{HEADER}\nfirst fix\nsecond fix\n\n---\nSay hi.")),
        "{prompt}"
    );
    let said: Vec<&str> = ran
        .of("log")
        .iter()
        .filter_map(|e| e["text"].as_str())
        .filter(|t| t.starts_with("interjection"))
        .collect();
    assert_eq!(
        said,
        [
            "interjection for step \"ask\": first fix",
            "interjection for step \"ask\": second fix"
        ]
    );
}

/// `--interject-file` naming a directory is refused before the run.
#[test]
fn an_interject_file_that_is_a_directory_is_refused() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: x\nsteps:\n  - name: a\n    command: 'true'\n",
    );
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    let out = dir
        .command(&["workflow", "run", "--interject-file", "notes", "wf.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "error[WORKFLOW_INTERJECT_FILE]: --interject-file notes: is a directory\n"
    );
}
