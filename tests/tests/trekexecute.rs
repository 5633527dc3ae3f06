//! `/trekexecute` end to end: the real Claude Code CLI, offline against the
//! project's mock Messages API, with this repository loaded as a plugin
//! (`--plugin-dir`). The mock plays the agent: its scripted turns are the
//! tool calls the command tells an agent to make (the `trek` calls and the
//! step's edits), so each test shows that the command text, the plugin's
//! hooks, the launcher and the helper work together as shipped.
//!
//! Every run has a recording fake `claude` first on `PATH` (Hard rule 21:
//! nothing Voyage runs may start Claude Code): it must see zero calls.
//!
//! Without `claude` on `PATH` a test prints `SKIPPED:` and passes; under
//! `CI` (which installs it) a missing CLI fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "../../helper/tests/workflow/mock_api.rs"]
mod mock_api;

/// Bash calls of a step held by the kernel fence, through the real CLI.
#[path = "trekexecute/fence.rs"]
mod fence;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use mock_api::{MockApi, Turn};
use serde_json::{Value, json};
use tempfile::TempDir;
use voyage_tests::repo::{commit_all, git, init};
use voyage_tests::{helper_binary, launcher, repo_root, skip};

/// `claude` on `PATH`, or `None` after saying the test is skipped (under
/// `CI`, a missing CLI fails the test instead).
fn claude_or_skip() -> Option<PathBuf> {
    skip::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")
}

fn example_plan() -> String {
    fs::read_to_string(repo_root().join("examples/trek/plan.md")).unwrap()
}

const GREET: &str = "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n";
const TEST: &str = "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n";

/// A repository with `plans/plan.md`, a fresh home, a data dir and a bin
/// dir holding the recording fake `claude`.
struct Session {
    repo: TempDir,
    home: TempDir,
    claude: PathBuf,
}

impl Session {
    fn new(plan: &str) -> Option<Self> {
        let claude = claude_or_skip()?;
        let repo = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let dir = repo.path();
        init(dir);
        voyage_tests::repo::write(dir, &[("plans/plan.md", plan), ("README.md", "# demo\n")]);
        commit_all(dir, "init");
        voyage_tests::claude::install_fake_claude(home.path()).unwrap();
        Some(Self { repo, home, claude })
    }

    fn dir(&self) -> &Path {
        self.repo.path()
    }

    /// The helper call the command text makes, as the agent runs it.
    fn call(&self, args: &str) -> Turn {
        self.bash(&format!("\"{}\" trek {args}", launcher().display()))
    }

    fn bash(&self, command: &str) -> Turn {
        Turn::tool("Bash", json!({ "command": command }))
    }

    fn write(&self, rel: &str, content: &str) -> Turn {
        Turn::tool(
            "Write",
            json!({ "file_path": self.dir().join(rel).display().to_string(), "content": content }),
        )
    }

    /// `claude -p PROMPT` with the plugin loaded, offline against `mock`.
    fn run(&self, mock: &MockApi, prompt: &str) -> Output {
        self.run_in(self.dir(), mock, prompt)
    }

    /// The same, started in `dir` (a session's worktree) as a user starts
    /// a session there.
    fn run_in(&self, dir: &Path, mock: &MockApi, prompt: &str) -> Output {
        self.claude_run(dir, mock, prompt, &Claude::bypass())
    }

    /// `claude -p PROMPT` in `dir` with the plugin loaded, offline against
    /// `mock`, in the permission mode and with the environment `how` says.
    fn claude_run(&self, dir: &Path, mock: &MockApi, prompt: &str, how: &Claude) -> Output {
        let mut cmd = voyage_tests::claude::print_command(
            &self.claude,
            dir,
            self.home.path(),
            &mock.url(),
            prompt,
        )
        .unwrap();
        if let Some(mode) = how.permission_mode {
            cmd.args(["--permission-mode", mode]);
        }
        let out = cmd.envs(how.env.iter().copied()).output().unwrap();
        let calls = voyage_tests::claude::fake_claude_calls(self.home.path());
        assert!(
            calls.is_none(),
            "Hard rule 21: something started claude: {calls:?}"
        );
        out
    }

    /// The operator answering from a shell after the session ended: the
    /// launcher run outside Claude Code (none of its variables set).
    fn operator(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(launcher());
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("CLAUDE") || key.starts_with("VOYAGE_DATA") {
                cmd.env_remove(&*key);
            }
        }
        cmd.args(args)
            .current_dir(self.dir())
            .env("HOME", self.home.path())
            .env("VOYAGE_HELPER", helper_binary().unwrap())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// `trek finish --gate confirm` by the operator; its output.
    fn operator_confirms(&self) -> String {
        let out = self.operator(&["trek", "finish", "--gate", "confirm"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    /// The data directory Claude Code gave the plugin's hooks: the one it
    /// made under `~/.claude/plugins/data/` for this `--plugin-dir` plugin.
    fn plugin_data(&self) -> PathBuf {
        let parent = self.home.path().join(".claude/plugins/data");
        let dirs: Vec<PathBuf> = fs::read_dir(&parent)
            .unwrap_or_else(|e| panic!("{}: {e}", parent.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "one plugin data dir: {dirs:?}");
        dirs.into_iter().next().unwrap()
    }

    /// Where the helper writes when no data dir reaches it.
    fn fallback_data(&self) -> PathBuf {
        self.home.path().join(".local/share/voyage")
    }

    fn progress(&self) -> Value {
        let path = self.dir().join("plans/.trekexecute-progress-plan.json");
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap()
    }

    fn subjects(&self) -> Vec<String> {
        git(self.dir(), &["log", "--format=%s"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// How a session runs `claude`.
struct Claude {
    /// `--permission-mode`; `None` is the user's default mode.
    permission_mode: Option<&'static str>,
    /// Added to the CLI's environment (and so its hooks').
    env: Vec<(&'static str, &'static str)>,
}

impl Claude {
    /// As `/trekexecute` runs unattended: every tool call allowed.
    fn bypass() -> Self {
        Self {
            permission_mode: Some("bypassPermissions"),
            env: Vec::new(),
        }
    }
}

const COMMAND: &str = "/voyage:trekexecute plans/plan.md";

#[test]
fn the_plugin_validates_strictly() {
    let Some(claude) = claude_or_skip() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(claude)
        .args(["plugin", "validate", "--strict"])
        .arg(repo_root())
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_two_step_plan_completes_through_the_command() {
    let Some(s) = Session::new(&example_plan()) else {
        return;
    };
    let turns = vec![
        s.call("start plans/plan.md"),
        s.call("step-begin 1"),
        s.write("greet.sh", GREET),
        s.call("step-done 1"),
        s.call("step-begin 2"),
        s.write("tests/greet.sh", TEST),
        s.call("step-done 2"),
        s.call("finish"),
        // An agent that answers the gate anyway is refused: in `claude -p`
        // nobody was asked.
        s.call("finish --gate confirm"),
        Turn::text("The run waits at the main-merge gate."),
    ];
    let mock = MockApi::start(turns);
    let out = s.run(&mock, COMMAND);
    assert!(
        out.status.success(),
        "{}\n{}",
        mock.summary(),
        String::from_utf8_lossy(&out.stderr)
    );

    let commands = voyage_tests::claude::slash_commands(&out.stdout);
    assert!(
        commands
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == "voyage:trekexecute")),
        "the init line lists the command: {commands:?}"
    );
    let first = &mock.main_requests()[0];
    assert!(
        first.user_texts().join("\n").contains("trek step-begin"),
        "the command's text reached the model: {:?}",
        first.user_texts()
    );

    assert_eq!(mock.turns_used(), 10, "{}", mock.summary());
    assert_eq!(
        s.subjects(),
        [
            "test(greet): check the default name",
            "feat(greet): add the greeting script",
            "init"
        ]
    );
    // The run waits at the gate: nothing finalised, the answer refused.
    let results = mock.tool_result_texts();
    let asked = results.iter().find(|r| r.contains("Question:")).unwrap();
    assert!(
        asked.contains("NEXT: stop — do not answer the main-merge gate"),
        "{asked}"
    );
    assert!(
        results
            .last()
            .is_some_and(|r| r.contains("voyage: blocked gate-operator")),
        "{results:?}"
    );
    let progress = s.progress();
    assert_eq!(progress["status"], "in_progress", "{progress}");
    assert_eq!(progress["main_merge_gate"]["status"], "awaiting");

    // The operator answers from a shell.
    let report = s.operator_confirms();
    assert!(
        report.contains("\"result\":\"completed\""),
        "trekexecute_summary: {report}"
    );
    let progress = s.progress();
    assert_eq!(progress["status"], "completed", "{progress}");
    assert_eq!(progress["main_merge_gate"]["answered_by"], "operator");
    // The session's `trek` calls and the operator's finish record the run
    // where the hooks write: the run keeps the data dir it started with.
    let stats = fs::read_to_string(s.plugin_data().join("trekexecute-stats.jsonl")).unwrap();
    assert!(stats.contains("\"main-merge-gate\""), "{stats}");
    assert!(stats.contains("\"main-merge-approved\""), "{stats}");
    assert!(stats.contains("completed"), "{stats}");
    assert!(!s.fallback_data().exists());
}

#[test]
fn an_agent_claiming_done_with_a_file_missing_is_partial() {
    let Some(s) = Session::new(&example_plan()) else {
        return;
    };
    let turns = vec![
        s.call("start plans/plan.md"),
        s.call("step-begin 1"),
        s.write("greet.sh", GREET),
        s.call("step-done 1"),
        // Step 2's file is never written: the agent says it is done.
        s.call("finish"),
        Turn::text("All done!"),
    ];
    let mock = MockApi::start(turns);
    let out = s.run(&mock, COMMAND);
    assert!(out.status.success(), "{}", mock.summary());
    assert_eq!(s.progress()["status"], "partial");
    assert!(!s.dir().join("tests/greet.sh").exists());
    let last = mock.tool_result_texts().join("\n");
    assert!(last.contains("\"result\":\"partial\""), "{last}");
}

#[test]
fn resume_after_an_escalation_continues_at_that_step() {
    let Some(s) = Session::new(&example_plan()) else {
        return;
    };
    let first = MockApi::start(vec![
        s.call("start plans/plan.md"),
        s.call("step-begin 1"),
        s.write("greet.sh", GREET),
        s.call("step-done 1"),
        s.call("step-begin 2"),
        s.write("tests/greet.sh", "exit 1\n"),
        s.call("step-done 2"),
        s.call("finish"),
        Turn::text("Stopped: step 2 escalated."),
    ]);
    s.run(&first, COMMAND);
    assert_eq!(s.progress()["status"], "stopped");

    let second = MockApi::start(vec![
        s.call("start --resume plans/plan.md"),
        s.call("step-begin 2"),
        // Claude Code writes a file it has read only.
        Turn::tool(
            "Read",
            json!({ "file_path": s.dir().join("tests/greet.sh").display().to_string() }),
        ),
        s.write("tests/greet.sh", TEST),
        s.call("step-done 2"),
        s.call("finish"),
        Turn::text("Waiting at the main-merge gate."),
    ]);
    let out = s.run(&second, "/voyage:trekexecute --resume plans/plan.md");
    assert!(out.status.success(), "{}", second.summary());
    let results = second
        .requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        results.contains("NEXT: trek step-begin 2"),
        "resume names step 2: {results}"
    );
    s.operator_confirms();
    assert_eq!(s.progress()["status"], "completed");
    assert_eq!(s.progress()["steps"]["2"]["attempts"], 2);
}

#[test]
fn a_multi_session_plan_writes_wave_one_orders_and_stops() {
    let plan =
        fs::read_to_string(repo_root().join("helper/tests/fixtures/plans/valid/multi-session.md"))
            .unwrap();
    let Some(s) = Session::new(&plan) else {
        return;
    };
    let mock = MockApi::start(vec![
        s.call("start plans/plan.md"),
        Turn::text("Wave 1 is handed over."),
    ]);
    let out = s.run(&mock, COMMAND);
    assert!(out.status.success(), "{}", mock.summary());
    let orders = s.dir().join(".claude/trekplan-sessions/plan/orders");
    assert!(orders.join("wave.json").exists());
    let result = mock.tool_result_texts().join("\n");
    assert!(result.contains("/trekexecute --session"), "{result}");
    assert!(!s.dir().join(".git/voyage-run.json").exists());
}

/// Every helper call the command's text makes, as `(subcommand words,
/// flags)`: each `voyage-helper" trek …` up to the end of its line or span.
fn helper_calls(text: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut calls = Vec::new();
    for (i, _) in text.match_indices("plugin/bin/voyage-helper\"") {
        let rest = &text[i + "plugin/bin/voyage-helper\"".len()..];
        let line = rest.lines().next().unwrap_or("");
        let line = line.split('`').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        let sub: Vec<String> = words
            .iter()
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            .map(|w| (*w).to_owned())
            .collect();
        let flags: Vec<String> = words
            .iter()
            .filter(|w| w.starts_with("--"))
            .map(|w| w.split(['=', '[']).next().unwrap_or(w).to_owned())
            .collect();
        calls.push((sub, flags));
    }
    calls
}

#[test]
fn every_helper_call_in_the_command_exists_with_its_flags() {
    let path = repo_root().join("commands/trekexecute.md");
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.len() <= 25 * 1024,
        "commands/trekexecute.md is {} bytes, over its 25 KB budget",
        text.len()
    );
    let calls = helper_calls(&text);
    assert!(calls.len() >= 5, "{calls:?}");
    let helper = helper_binary().unwrap();
    for (sub, flags) in &calls {
        assert_eq!(sub.first().map(String::as_str), Some("trek"), "{sub:?}");
        let out = Command::new(&helper)
            .args(sub)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "voyage-helper {sub:?} --help: {help}");
        for flag in flags {
            assert!(
                help.contains(flag.as_str()),
                "voyage-helper {sub:?} has no {flag}: {help}"
            );
        }
    }
    // The flags of the usage block reach `trek start`.
    let start = Command::new(&helper)
        .args(["trek", "start", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&start.stdout);
    for flag in [
        "--project",
        "--fg",
        "--resume",
        "--dry-run",
        "--validate",
        "--step",
        "--session",
        "--gates",
        "--profile",
    ] {
        assert!(help.contains(flag), "trek start lacks {flag}");
        assert!(text.contains(flag), "the command does not mention {flag}");
    }
}

#[test]
fn writes_outside_the_step_are_denied_by_the_hook_during_a_run() {
    let spec = "---\nplan_version: 1.7\n---\n# Session 1: scripts\n\n## Dependencies\n\nEntry condition: none\n\n## Scope Fence\n\n- Touch: `src/`\n- Never touch: `src/legacy/`\n\n### Step 1: Add a script\n- **Files:** `src/a.sh` (new)\n- **Changes:** a script that prints ok.\n- **Verify:** `bash -n src/a.sh`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: a script\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/a.sh]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: a script$\"\n  bash_syntax_check: [src/a.sh]\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n## Exit Condition\n\n- [ ] `bash -n src/a.sh` passes\n";
    let Some(s) = Session::new(spec) else {
        return;
    };
    let outside = s.home.path().join("escape.txt");
    let mock = MockApi::start(vec![
        s.call("start plans/plan.md"),
        s.call("step-begin 1"),
        s.write("src/legacy/old.sh", "echo changed\n"),
        Turn::tool(
            "Write",
            json!({ "file_path": outside.display().to_string(), "content": "x\n" }),
        ),
        s.bash(&format!("echo x > {}", outside.display())),
        s.write("src/other.sh", "echo other\n"),
        s.write("src/a.sh", "echo ok\n"),
        s.call("step-done 1"),
        s.call("finish"),
        Turn::text("Done: waiting at the main-merge gate."),
    ]);
    let out = s.run(&mock, COMMAND);
    assert!(out.status.success(), "{}", mock.summary());
    assert!(
        !s.dir().join("src/legacy/old.sh").exists(),
        "Never-touch file written"
    );
    assert!(
        !outside.exists(),
        "a file outside the repository was written"
    );
    assert!(
        !s.dir().join("src/other.sh").exists(),
        "a file not in the step's Files"
    );
    // Each request carries the whole conversation: one result per tool call.
    let mut results: Vec<String> = mock
        .requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|mut v| {
            v.as_object_mut().map(|o| o.remove("cache_control"));
            v.to_string()
        })
        .collect();
    results.sort();
    results.dedup();
    let all = results.join("\n");
    for rule in ["run-never-touch", "run-outside-repo", "run-outside-step"] {
        assert!(
            all.contains(&format!("voyage: blocked {rule}")),
            "{rule} denied: {all}"
        );
    }
    let denials = results
        .iter()
        .filter(|r| r.contains("voyage: blocked run-"))
        .count();
    assert_eq!(denials, 4, "four writes denied by the hook: {results:#?}");
    s.operator_confirms();
    assert_eq!(s.progress()["status"], "completed", "{results:#?}");
}

/// Every tool result of a run, as text, once each.
fn all_results(mock: &MockApi) -> String {
    let mut results: Vec<String> = mock
        .requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .map(|v| match &v["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    results.dedup();
    results.join("\n")
}

/// A multi-session plan whose Verification tests the whole, run as a user
/// runs it: the parent `/trekexecute` in the main checkout after each wave,
/// and each session as its own `claude -p` started in the worktree its
/// order names, with its starter line. Voyage starts none of them (the
/// recording fake `claude` sees no call); the operator answers the gate
/// from a shell at the end.
#[test]
fn a_multi_session_plan_reaches_the_main_merge_through_real_sessions() {
    let plan = fs::read_to_string(repo_root().join("examples/waves/plan.md")).unwrap();
    let Some(s) = Session::new(&plan) else {
        return;
    };
    let worktree = |n: u32| {
        s.dir().join(format!(
            ".claude/trekplan-sessions/plan/worktrees/session-{n}"
        ))
    };
    let parent = |said: &str| {
        let mock = MockApi::start(vec![s.call("start plans/plan.md"), Turn::text(said)]);
        let out = s.run(&mock, COMMAND);
        assert!(out.status.success(), "{}", mock.summary());
        all_results(&mock)
    };
    // One session: the starter, every step with the agent's files, finish.
    let session = |n: u32, steps: &[(u32, &[(&str, &str)])]| {
        let dir = worktree(n);
        assert!(dir.is_dir(), "session {n}'s worktree");
        let mut turns = vec![s.call(&format!("start --session {n} plans/plan.md"))];
        for (step, files) in steps {
            turns.push(s.call(&format!("step-begin {step}")));
            for (rel, text) in *files {
                turns.push(Turn::tool(
                    "Write",
                    json!({ "file_path": dir.join(rel).display().to_string(), "content": text }),
                ));
            }
            turns.push(s.call(&format!("step-done {step}")));
        }
        turns.push(s.call("finish"));
        turns.push(Turn::text("Session done."));
        let mock = MockApi::start(turns);
        let out = s.run_in(
            &dir,
            &mock,
            &format!("/voyage:trekexecute --session {n} plans/plan.md"),
        );
        assert!(out.status.success(), "{}", mock.summary());
        let results = all_results(&mock);
        assert!(
            !results.contains("voyage: blocked"),
            "session {n}: {results}"
        );
        assert!(results.contains("DEFERRED"), "session {n}: {results}");
        let progress: Value = serde_json::from_str(
            &fs::read_to_string(
                dir.join(format!("plans/.trekexecute-progress-plan-session-{n}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(progress["status"], "completed", "session {n}: {results}");
        assert_eq!(progress["plan_verification"]["status"], "deferred");
    };
    const GREET: &str = "greet() { echo \"Hello, ${1:-world}!\"; }\n";
    const GREET_TEST: &str = "#!/usr/bin/env bash\nset -e\ncd \"$(dirname \"$0\")/..\"\n. lib/greet.sh\ntest \"$(greet Ada)\" = \"Hello, Ada!\"\n";
    const FAREWELL: &str = "farewell() { echo \"Goodbye, ${1:-world}!\"; }\n";
    const HELLO: &str = "#!/usr/bin/env bash\nhere=\"$(dirname \"$0\")/..\"\n. \"$here/lib/greet.sh\"\n. \"$here/lib/farewell.sh\"\ngreet \"$1\"\nfarewell \"$1\"\n";
    const ALL: &str = "#!/usr/bin/env bash\nset -e\ncd \"$(dirname \"$0\")/..\"\nbash tests/greet.sh\ntest \"$(bash bin/hello Ada)\" = \"$(printf 'Hello, Ada!\\nGoodbye, Ada!')\"\n";

    let first = parent("Wave 1 is ready: open its two sessions.");
    assert!(
        first.contains("/trekexecute --session 2 plans/plan.md"),
        "{first}"
    );
    session(
        1,
        &[
            (1, &[("lib/greet.sh", GREET)]),
            (2, &[("tests/greet.sh", GREET_TEST)]),
        ],
    );
    session(2, &[(3, &[("lib/farewell.sh", FAREWELL)])]);
    let second = parent("Wave 2 is ready.");
    assert!(second.contains("Wave 1: 2 sessions merged."), "{second}");
    session(3, &[(4, &[("bin/hello", HELLO), ("tests/all.sh", ALL)])]);
    let last = parent("The run waits at the main-merge gate.");
    assert!(
        last.contains("Master verification (every wave merged):")
            && last.contains(" passed, 0 failed, 0 blocked, 0 not run"),
        "the master verification: {last}"
    );
    assert!(
        last.contains("NEXT: stop — do not answer the main-merge gate"),
        "{last}"
    );

    let plan_path = s.dir().join("plans/plan.md").display().to_string();
    let out = s.operator(&["trek", "finish", "--gate", "confirm", "--plan", &plan_path]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The answer ends with the report of the whole plan: every step of
    // every session, the master verification, the whole run's audit and
    // the summary naming the mode and the sessions.
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in [
        "## Ultraexecute Local Complete",
        "**Mode:** multi-session (3 sessions in 2 waves)",
        "**Result:** COMPLETED",
        "| 1 | The greeting function | PASS | 1 |",
        "| 2 | Test the greeting | PASS | 1 |",
        "| 3 | The farewell function | PASS | 1 |",
        "| 4 | One command and the whole test | PASS | 1 |",
        "- Session 1 (wave 1): steps 1, 2 — completed",
        "- Session 3 (wave 2): step 4 — completed",
        "### Master Verification (Phase 2.6 Step 4, every wave merged)",
        "### Manifest Audit (Phase 7.5)",
        "- Passed: 4/4",
        "All steps completed. Exit condition: N/A. Master verification: PASS.",
    ] {
        assert!(report.contains(line), "no {line:?} in:\n{report}");
    }
    let block = report
        .lines()
        .find(|l| l.contains("\"trekexecute_summary\""))
        .unwrap_or_else(|| panic!("no summary block in:\n{report}"));
    let summary: Value = serde_json::from_str(block).unwrap();
    let summary = &summary["trekexecute_summary"];
    assert_eq!(summary["mode"], "multi-session", "{summary}");
    assert_eq!(summary["result"], "completed", "{summary}");
    let sessions: Vec<&Value> = summary["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["session"])
        .collect();
    assert_eq!(sessions, [1, 2, 3], "{summary}");
    // One record for the run, where its sessions wrote theirs (the data
    // directory Claude Code gave them, though the operator named none).
    let stats = fs::read_to_string(s.plugin_data().join("trekexecute-stats.jsonl")).unwrap();
    let records: Vec<Value> = stats
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r.get("event").is_none())
        .collect();
    let count = |mode: &str| records.iter().filter(|r| r["mode"] == mode).count();
    assert_eq!(
        (count("multi-session"), count("session")),
        (1, 3),
        "{stats}"
    );
    let ran = Command::new("bash")
        .arg("tests/all.sh")
        .current_dir(s.dir())
        .status()
        .unwrap();
    assert!(ran.success(), "the integrated result passes on main");
    assert_eq!(
        git(s.dir(), &["log", "--merges", "--format=%s"])
            .lines()
            .count(),
        3
    );
    assert!(
        !s.dir()
            .join(".claude/trekplan-sessions/plan/orders")
            .exists()
    );
}

#[test]
fn bash_calls_write_to_the_data_dir_claude_code_gives_the_plugin() {
    let Some(s) = Session::new(&example_plan()) else {
        return;
    };
    let helper = format!("\"{}\"", launcher().display());
    let mock = MockApi::start(vec![
        s.bash("printf 'data=<%s> plugin=<%s>' \"$VOYAGE_DATA_DIR\" \"${CLAUDE_PLUGIN_DATA:-}\""),
        s.bash(&format!(
            "{helper} event emit --event probe-from-bash --payload - <<'JSON'\n{{\"step\": 1}}\nJSON"
        )),
        Turn::text("Done."),
    ]);
    let out = s.run(&mock, "Record an event.");
    assert!(out.status.success(), "{}", mock.summary());
    let data = s.plugin_data();
    let results = mock.tool_result_texts();
    assert_eq!(
        results.first().map(String::as_str),
        Some(format!("data=<{}> plugin=<>", data.display()).as_str()),
        "{results:?}"
    );
    let written = results.get(1).cloned().unwrap_or_default();
    assert!(
        written.contains("\"written\":true") || written.contains("\"written\": true"),
        "{written}"
    );
    let events = fs::read_to_string(data.join("trekexecute-stats.jsonl"))
        .unwrap_or_else(|e| panic!("no events in {}: {e}; {written}", data.display()));
    assert!(events.contains("\"probe-from-bash\""), "{events}");
    assert!(
        !s.fallback_data().exists(),
        "written to the fallback: {}",
        s.fallback_data().display()
    );
}
