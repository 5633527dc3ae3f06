//! `voyage-helper hook pre-tool-use` while a `/trekexecute` run is in
//! progress (issue 15, point 3): a run marker in the git directory of the
//! call's working tree holds every write to the run's scope. Each test is a
//! real repository in a temp dir with the marker written here as JSON (so
//! the format is pinned too), and the hook run as Claude Code runs it, its
//! every reply checked against schemas/hook-pre-tool-use-output.schema.json.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::assert_schema;
use crate::common::env::helper;
use crate::common::repo;

/// What the hook answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reply {
    Silent,
    Deny(String),
    Warn(String),
}

impl Reply {
    /// The deny reason; fails the test on any other reply.
    fn reason(&self) -> &str {
        match self {
            Self::Deny(reason) => reason,
            other => panic!("expected a denial, got {other:?}"),
        }
    }

    fn denied_as(&self, rule: &str) -> bool {
        matches!(self, Self::Deny(r) if r.starts_with(&format!("voyage: blocked {rule} ")))
    }
}

/// A repository with a run in progress (or not), a home directory beside
/// it, and the hook to ask.
struct Run {
    _dir: tempfile::TempDir,
    /// Where the temp dir really is (links followed), so reasons compare.
    top: PathBuf,
    repo: PathBuf,
    home: PathBuf,
    progress: PathBuf,
}

impl Run {
    /// A repository `repo` with `src/a.rs` committed and no marker yet.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let top = fs::canonicalize(dir.path()).unwrap();
        let repo = top.join("repo");
        let home = top.join("home");
        fs::create_dir_all(&repo).unwrap();
        fs::create_dir_all(home.join(".claude")).unwrap();
        repo::init(&repo);
        repo::write(
            &repo,
            &[("src/a.rs", "fn a() {}\n"), ("plan.md", "# plan\n")],
        );
        repo::commit_all(&repo, "start");
        let progress = repo.join(".claude/progress.json");
        fs::create_dir_all(progress.parent().unwrap()).unwrap();
        fs::write(&progress, r#"{"status":"in_progress"}"#).unwrap();
        Self {
            _dir: dir,
            top,
            repo,
            home,
            progress,
        }
    }

    /// The marker as `trek step-begin 2` leaves it, with `changes` merged in.
    fn marker_json(&self, root: &Path, changes: &Value) -> Value {
        let mut marker = json!({
            "schema_version": 1,
            "plan": self.repo.join("plan.md"),
            "progress": self.progress,
            "repo_root": root,
            "step": 2,
            "files": ["src/a.rs", "docs/", "tests/*.rs"],
            "memory_write": false,
            "touch": ["src/", "docs/", "tests/"],
            "never_touch": ["vendor/", "*.lock"],
            "started_at": "2026-12-01T10:00:00Z"
        });
        for (key, value) in changes.as_object().unwrap() {
            marker[key] = value.clone();
        }
        marker
    }

    /// Writes the main worktree's marker (`.git/voyage-run.json`).
    fn start(&self, changes: &Value) -> &Self {
        let marker = self.marker_json(&self.repo, changes);
        fs::write(self.marker(), serde_json::to_vec_pretty(&marker).unwrap()).unwrap();
        self
    }

    fn marker(&self) -> PathBuf {
        self.repo.join(".git/voyage-run.json")
    }

    /// The hook's reply to `input`, run in `cwd`, with the kernel fence
    /// turned off: these tests are the text judge's, which is all there is
    /// where the kernel cannot fence (`scope_fence` tests the fence).
    fn ask(&self, input: &Value, cwd: &Path) -> Reply {
        self.ask_with(input, cwd, &[])
    }

    /// The same with `env` in the hook's environment (Claude Code's own).
    fn ask_with(&self, input: &Value, cwd: &Path, env: &[(&str, &str)]) -> Reply {
        let out = helper(cwd, &self.home)
            .args(["hook", "pre-tool-use"])
            .env("VOYAGE_FENCE", "off")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(input.to_string().as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "no stderr");
        assert_eq!(out.status.code(), Some(0), "the hook exits 0: {stdout}");
        if stdout.is_empty() {
            return Reply::Silent;
        }
        assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
        let reply = assert_schema("hook-pre-tool-use-output", &stdout);
        let specific = &reply["hookSpecificOutput"];
        if let Some(reason) = specific["permissionDecisionReason"].as_str() {
            return Reply::Deny(reason.to_owned());
        }
        Reply::Warn(specific["additionalContext"].as_str().unwrap().to_owned())
    }

    /// A Bash call running `command` in `cwd` (the input's `cwd` field).
    fn bash_in(&self, cwd: &Path, command: &str) -> Reply {
        let input = json!({
            "session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}
        });
        self.ask(&input, cwd)
    }

    fn bash(&self, command: &str) -> Reply {
        self.bash_in(&self.repo, command)
    }

    /// A file tool call (`Write`, `Edit`, …) on `path`.
    fn tool(&self, tool: &str, path: &Path) -> Reply {
        let key = if tool == "NotebookEdit" {
            "notebook_path"
        } else {
            "file_path"
        };
        let input = json!({
            "session_id": "s", "cwd": self.repo, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": {key: path, "content": "x"}
        });
        self.ask(&input, &self.repo)
    }

    fn write(&self, path: &Path) -> Reply {
        self.tool("Write", path)
    }
}

/// Without a marker the hook judges as it always has.
#[test]
fn no_marker_is_todays_behaviour() {
    let run = Run::new();
    assert_eq!(run.bash("echo x > /tmp/elsewhere.txt"), Reply::Silent);
    assert_eq!(run.bash("echo x > \"$X\""), Reply::Silent);
    assert_eq!(run.write(&run.top.join("outside.txt")), Reply::Silent);
    assert_eq!(run.write(&run.repo.join("src/b.rs")), Reply::Silent);
    assert!(run.bash("rm -rf /").denied_as("rm-recursive-force"));
    assert!(
        run.write(&run.repo.join(".git/hooks/pre-commit"))
            .denied_as("git-hooks-write")
    );
}

/// Hard rule 15: nothing outside the repository root, whatever the spelling.
#[test]
fn writes_outside_the_repository_are_denied() {
    let run = Run::new();
    run.start(&json!({}));
    let outside = run.top.join("outside.txt");
    let reason = run.write(&outside).reason().to_owned();
    assert_eq!(
        reason,
        format!(
            "voyage: blocked run-outside-repo (Hard rule 15: no writes outside the repository): `{}` writes {}, outside the repository root {}. Safer: write only inside the repository; outside it only ~/.claude/ is open (its projects/*/memory/ only to a step whose manifest says memory_write: true).",
            outside.display(),
            outside.display(),
            run.repo.display()
        )
    );
    assert!(
        run.tool("Edit", &run.repo.join("src/../../x"))
            .denied_as("run-outside-repo")
    );
    for command in [
        "echo x > /tmp/elsewhere.txt",
        "echo x > ../outside.txt",
        "echo x >> src/../../outside.txt",
        "cd .. && echo x > outside.txt",
        "cd src && cd ../.. && touch outside.txt",
        "cp src/a.rs /tmp/copy.rs",
        "tee -a ../log.txt < src/a.rs",
        "sed -i s/a/b/ ../other/file",
        "rm -f ../outside.txt",
        "mkdir -p /tmp/newdir",
        "echo x >.//..//outside.txt",
        "echo x > ~/.bashrc.d/x",
        "tee \"$(mktemp)\" < src/a.rs",
        "awk '{print > \"/tmp/awk.txt\"}' src/a.rs",
        "uniq src/a.rs ../uniq.txt",
        "openssl enc -base64 -in src/a.rs -out /tmp/enc.txt",
    ] {
        assert!(
            run.bash(command).denied_as("run-outside-repo"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    // From a subdirectory, relative paths are seen from there.
    let src = run.repo.join("src");
    assert!(
        run.bash_in(&src, "echo x > ../../outside.txt")
            .denied_as("run-outside-repo")
    );
    assert_eq!(run.bash_in(&src, "echo x > a.rs"), Reply::Silent);
}

/// The exceptions outside the root: redirection devices and ~/.claude/.
#[test]
fn devices_and_claude_home_are_open_and_memory_only_with_memory_write() {
    let run = Run::new();
    run.start(&json!({}));
    for command in [
        "cargo test 2>/dev/null",
        "ls > /dev/null 2>&1",
        "echo x >/dev/stderr",
        "echo x | tee /dev/stdout > /dev/tty",
        "echo x > /dev/fd/2",
        "ls &> /dev/null",
        "echo x > ~/.claude/notes.md",
        "wget -qO- https://example.invalid/x | cat > src/a.rs",
    ] {
        assert_eq!(run.bash(command), Reply::Silent, "{command}");
    }
    assert_eq!(
        run.write(&run.home.join(".claude/plans/p.md")),
        Reply::Silent
    );
    let memory = run.home.join(".claude/projects/-repo/memory/MEMORY.md");
    let reason = run.write(&memory).reason().to_owned();
    assert_eq!(
        reason,
        format!(
            "voyage: blocked run-memory-write (Hard rule 15: memory files need memory_write: true): `{}` writes {}, in Claude Code's memory, and step 2's manifest does not declare memory_write: true. Safer: leave the memory file alone and record what it should say as a finding for the final report.",
            memory.display(),
            memory.display()
        )
    );
    assert!(
        run.bash("echo note >> ~/.claude/projects/-repo/memory/MEMORY.md")
            .denied_as("run-memory-write")
    );
    assert!(
        run.bash("rm -r ~/.claude/projects")
            .denied_as("run-memory-write")
    );
    run.start(&json!({"memory_write": true}));
    assert_eq!(run.write(&memory), Reply::Silent);
    assert_eq!(
        run.bash("echo note >> ~/.claude/projects/-repo/memory/MEMORY.md"),
        Reply::Silent
    );
    // The open door is ~/.claude, not any .claude.
    assert!(
        run.bash("echo x > /tmp/.claude/x")
            .denied_as("run-outside-repo")
    );
}

/// A link inside the repository that leads out of it is outside.
#[test]
fn a_symlink_out_of_the_repository_is_outside() {
    let run = Run::new();
    run.start(&json!({"files": ["src/", "docs/"]}));
    fs::create_dir_all(run.top.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(run.top.join("elsewhere"), run.repo.join("src/out")).unwrap();
    std::os::unix::fs::symlink("../../elsewhere/f", run.repo.join("docs-link")).unwrap();
    assert!(
        run.write(&run.repo.join("src/out/f.rs"))
            .denied_as("run-outside-repo")
    );
    assert!(
        run.bash("echo x > src/out/f.rs")
            .denied_as("run-outside-repo")
    );
    assert!(run.bash("echo x > docs-link").denied_as("run-outside-repo"));
    // The kernel climbs `..` from where the link leads.
    assert!(
        run.bash("echo x > src/out/../outside.txt")
            .denied_as("run-outside-repo")
    );
    assert_eq!(run.bash("echo x > src/in.rs"), Reply::Silent);
}

/// Hard rule 8: the Never-touch list, matched as the audits match it.
#[test]
fn never_touch_paths_are_denied() {
    let run = Run::new();
    run.start(&json!({"files": ["src/", "vendor/lib.rs", "Cargo.lock"]}));
    let reason = run
        .write(&run.repo.join("vendor/lib.rs"))
        .reason()
        .to_owned();
    assert_eq!(
        reason,
        format!(
            "voyage: blocked run-never-touch (Hard rule 8: the session's Never-touch list): `{}` touches vendor/lib.rs, which the Never-touch entry `vendor/` covers. Safer: leave it alone whatever the step's Changes say, and record the change it seems to need as a finding for the final report.",
            run.repo.join("vendor/lib.rs").display()
        )
    );
    assert!(
        run.tool("MultiEdit", &run.repo.join("Cargo.lock"))
            .denied_as("run-never-touch")
    );
    for command in [
        "echo x > vendor/lib.rs",
        "cd src && echo x > ../Cargo.lock",
        "rm -r vendor",
        "mv src/a.rs vendor/a.rs",
        "rm -f ./sub//yarn.lock",
    ] {
        assert!(
            run.bash(command).denied_as("run-never-touch"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
}

/// Hard rule 2: only the step's Files, and nothing between steps.
#[test]
fn files_outside_the_step_are_denied_and_nothing_between_steps() {
    let run = Run::new();
    run.start(&json!({}));
    for allowed in ["src/a.rs", "docs/guide/intro.md", "tests/cli.rs"] {
        assert_eq!(
            run.write(&run.repo.join(allowed)),
            Reply::Silent,
            "{allowed}"
        );
        assert_eq!(
            run.bash(&format!("printf 'x\\n' > {allowed}")),
            Reply::Silent,
            "{allowed}"
        );
    }
    assert_eq!(run.bash("mkdir -p docs/guide tests"), Reply::Silent);
    assert_eq!(
        run.bash("cat > src/a.rs <<'EOF'\nfn a() {}\nEOF"),
        Reply::Silent
    );
    let reason = run.write(&run.repo.join("src/b.rs")).reason().to_owned();
    assert_eq!(
        reason,
        format!(
            "voyage: blocked run-outside-step (Hard rule 2: only the step's Files): `{}` touches src/b.rs, which is not in step 2's Files (src/a.rs, docs/, tests/*.rs). Safer: leave the file alone and record the change it seems to need as a finding for the final report.",
            run.repo.join("src/b.rs").display()
        )
    );
    assert!(
        run.tool("NotebookEdit", &run.repo.join("nb.ipynb"))
            .denied_as("run-outside-step")
    );
    for command in [
        "echo x > src/b.rs",
        "cd src && echo x > b.rs",
        "touch README.md",
        "rm -r src",
        "mkdir lib",
        "rm *.rs",
        "echo x > tests/sub/deep.txt",
    ] {
        assert!(
            run.bash(command).denied_as("run-outside-step"),
            "{command}: {:?}",
            run.bash(command)
        );
    }

    run.start(&json!({"step": null, "files": []}));
    let reason = run.bash("echo x > src/a.rs").reason().to_owned();
    assert_eq!(
        reason,
        "voyage: blocked run-between-steps (Hard rule 2: only the step's Files): `src/a.rs` writes src/a.rs while no step is in progress. Safer: call `trek step-begin N` first; the step's Files are open until its `trek step-done`."
    );
    assert!(
        run.write(&run.repo.join("src/a.rs"))
            .denied_as("run-between-steps")
    );
}

/// The marker itself cannot be changed or removed while it is live.
#[test]
fn the_marker_cannot_be_written_or_removed() {
    let run = Run::new();
    run.start(&json!({"files": ["."]}));
    let marker = run.marker();
    let reason = run.bash("rm .git/voyage-run.json").reason().to_owned();
    assert_eq!(
        reason,
        format!(
            "voyage: blocked run-marker-write (the run's own guard): `.git/voyage-run.json` would change or remove the run marker {}, which holds this run's scope. Safer: leave it alone; the helper updates it, and `trek finish` ends the run.",
            marker.display()
        )
    );
    assert!(run.write(&marker).denied_as("run-marker-write"));
    for command in [
        "echo '{}' > .git/voyage-run.json",
        "cd .git && mv voyage-run.json old.json",
        "rm -r .git",
        "ln -sf /dev/null .git/voyage-run.json",
    ] {
        assert!(
            run.bash(command).denied_as("run-marker-write"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    // With `.` as the step's Files, the rest of the repository is open.
    assert_eq!(run.bash("echo x > anything.txt"), Reply::Silent);
}

/// A write the text cannot place is refused during a run.
#[test]
fn targets_that_cannot_be_known_fail_closed() {
    let run = Run::new();
    run.start(&json!({}));
    let reason = run.bash("echo x > \"$X\"").reason().to_owned();
    assert_eq!(
        reason,
        "voyage: blocked run-unknown-target (the run's scope): the write target `$X` cannot be known before the command runs (the path depends on what runs), so it cannot be checked against the run's scope. Safer: write the path out literally, relative to the repository or absolute."
    );
    for command in [
        "tee \"$(cat name.txt)\" < src/a.rs",
        "cd \"$DIR\" && echo x > a.rs",
        "cd - && echo x > src/a.rs",
        "rm -r .*/x",
    ] {
        assert!(
            run.bash(command).denied_as("run-unknown-target"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    // A known directory after an unknown one places what follows again.
    let root = run.repo.display();
    assert_eq!(
        run.bash(&format!("cd \"$DIR\"; cd {root} && echo x > src/a.rs")),
        Reply::Silent
    );
}

/// Calls that write nothing are never affected, whatever the marker says.
#[test]
fn calls_that_write_nothing_are_not_affected() {
    let run = Run::new();
    fs::write(run.marker(), "{not json").unwrap();
    for command in [
        "ls -la",
        "cargo test -p x",
        "git status --short",
        "(( x > 5 ))",
    ] {
        assert_eq!(run.bash(command), Reply::Silent, "{command}");
    }
    let read = json!({
        "cwd": run.repo, "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": run.repo.join("src/b.rs")}
    });
    assert_eq!(run.ask(&read, &run.repo), Reply::Silent);
}

/// A marker that cannot be read refuses every write, naming the file.
#[test]
fn a_malformed_marker_fails_closed() {
    let run = Run::new();
    let marker = run.marker();
    for text in ["{not json", r#"{"schema_version":1}"#, "[]"] {
        fs::write(&marker, text).unwrap();
        let reason = run.write(&run.repo.join("src/a.rs")).reason().to_owned();
        assert!(
            reason.starts_with(&format!(
                "voyage: blocked run-marker-unreadable (the run's scope cannot be trusted): the run marker {} is not a run marker: ",
                marker.display()
            )),
            "{reason}"
        );
        assert!(
            reason.ends_with(&format!(
                "so no write can be checked against the run in progress. Safer: stop here and tell the user; they resume the run (/trekexecute --resume), or end it in a terminal with `voyage-helper trek release` (run marker {}).",
                marker.display()
            )),
            "{reason}"
        );
        assert!(
            run.bash("echo x > src/a.rs")
                .denied_as("run-marker-unreadable")
        );
    }
    let mut other = run.marker_json(&run.repo, &json!({}));
    other["repo_root"] = json!("relative/root");
    fs::write(&marker, other.to_string()).unwrap();
    assert!(
        run.bash("echo x > src/a.rs")
            .denied_as("run-marker-unreadable")
    );
    fs::remove_file(&marker).unwrap();
    fs::create_dir(&marker).unwrap();
    assert!(
        run.bash("echo x > src/a.rs")
            .denied_as("run-marker-unreadable")
    );
}

/// The progress file is no off switch (issue 23, point 3): a live marker
/// whose progress file is missing, unreadable or no longer `in_progress`
/// refuses every write instead of being ignored, and the files that hold
/// the run (marker, progress, plan) cannot be written at all.
#[test]
fn a_run_whose_state_cannot_be_trusted_fails_closed() {
    let run = Run::new();
    run.start(&json!({"files": ["."]}));
    let progress = run.progress.display().to_string();
    for command in [
        format!("echo '{{}}' > {progress}"),
        format!("sed -i s/in_progress/completed/ {progress}"),
        format!("rm {progress}"),
        "rm -r .claude".to_owned(),
        "mv .claude elsewhere".to_owned(),
        "echo x >> plan.md".to_owned(),
        "echo x >& plan.md".to_owned(),
    ] {
        assert!(
            run.bash(&command).denied_as("run-marker-write"),
            "{command}: {:?}",
            run.bash(&command)
        );
    }
    assert!(run.write(&run.progress).denied_as("run-marker-write"));
    assert!(
        run.write(&run.repo.join("plan.md"))
            .denied_as("run-marker-write")
    );
    // However the progress file came to say something else, nothing is
    // written until the helper ends the run.
    for state in [r#"{"status":"completed"}"#, "{not json", r#"{"steps":[]}"#] {
        fs::write(&run.progress, state).unwrap();
        let reply = run.bash("echo x > src/a.rs");
        assert!(
            reply.denied_as("run-marker-unreadable"),
            "{state}: {reply:?}"
        );
        assert!(
            reply.reason().contains("voyage-helper trek release"),
            "{reply:?}"
        );
        assert!(
            run.write(&run.repo.join("src/a.rs"))
                .denied_as("run-marker-unreadable")
        );
    }
    fs::remove_file(&run.progress).unwrap();
    assert!(
        run.bash("echo x > src/a.rs")
            .denied_as("run-marker-unreadable")
    );
    // The denylist still decides first, and reads still go through.
    assert!(run.bash("rm -rf /").denied_as("rm-recursive-force"));
    assert_eq!(run.bash("cat src/a.rs"), Reply::Silent);
}

/// `trek release` ends a run without its checks: the user's command, which
/// the hook refuses to the agent while the run is live, and lets through
/// when no run is in progress.
#[test]
fn only_the_user_may_release_a_run() {
    let run = Run::new();
    assert_eq!(run.bash("voyage-helper trek release"), Reply::Silent);
    run.start(&json!({}));
    for command in [
        "voyage-helper trek release",
        "./plugin/bin/voyage-helper trek release --json",
        "env X=1 voyage-helper trek release",
        "sh -c 'voyage-helper trek release'",
        "voyage-helper trek \"$SUB\"",
    ] {
        assert!(
            run.bash(command).denied_as("run-release"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    assert_eq!(run.bash("voyage-helper trek step-done 2"), Reply::Silent);

    // The user runs it in a terminal: the marker goes, the progress file
    // stays, and the hook lets writes through again.
    fs::write(&run.progress, r#"{"status":"completed"}"#).unwrap();
    assert!(
        run.bash("echo x > elsewhere.rs")
            .denied_as("run-marker-unreadable")
    );
    let out = helper(&run.repo, &run.home)
        .args(["trek", "release", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let reply = assert_schema("trek-reply", &String::from_utf8(out.stdout).unwrap());
    assert_eq!(reply["command"], "release");
    assert_eq!(reply["status"], "released");
    assert_eq!(reply["next"], "stop");
    assert!(!run.marker().exists());
    assert_eq!(
        fs::read_to_string(&run.progress).unwrap(),
        r#"{"status":"completed"}"#
    );
    assert_eq!(run.bash("echo x > elsewhere.rs"), Reply::Silent);
    let again = helper(&run.repo, &run.home)
        .args(["trek", "release"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("nothing released"),
        "{again:?}"
    );
}

/// The main-merge gate is a person's: in a session nobody watches
/// (`claude -p`: CLAUDE_CODE_ENTRYPOINT=sdk-cli in the hook's environment,
/// which the agent's command cannot change), every way of answering it is
/// refused, run or no run; in an interactive session and for other `trek`
/// calls nothing changes.
#[test]
fn an_unattended_session_cannot_answer_the_main_merge_gate() {
    let run = Run::new();
    let bash_with = |command: &str, env: &[(&str, &str)]| {
        let input = json!({
            "session_id": "s", "cwd": run.repo, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}
        });
        run.ask_with(&input, &run.repo, env)
    };
    let unattended = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")];
    let interactive = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "cli")];
    let answers = [
        "voyage-helper trek finish --gate confirm",
        "voyage-helper trek finish --gate=decline --json",
        "voyage-helper trek finish --gate confirm --plan plans/split.md",
        "\"/home/u/.claude/plugins/voyage/plugin/bin/voyage-helper\" trek finish --gate confirm",
        "cd sub && voyage-helper trek finish --json --gate confirm",
        "env -u CLAUDE_CODE_ENTRYPOINT voyage-helper trek finish --gate confirm",
        "CLAUDECODE= voyage-helper trek finish --gate confirm",
        "sh -c 'voyage-helper trek finish --gate confirm'",
        "voyage-helper trek \"$SUB\" --gate confirm",
        "voyage-helper trek finish \"$ANSWER\"",
    ];
    for command in answers {
        let reply = bash_with(command, &unattended);
        assert!(reply.denied_as("gate-operator"), "{command}: {reply:?}");
        assert!(reply.reason().contains("operator"), "{reply:?}");
        assert_eq!(bash_with(command, &interactive), Reply::Silent, "{command}");
        assert_eq!(bash_with(command, &[]), Reply::Silent, "{command}");
    }
    for command in [
        "voyage-helper trek finish",
        "voyage-helper trek finish --json",
        "voyage-helper trek start --gates=closed plans/p.md",
        "voyage-helper gate --state auditing --event audit-pass --json",
        "echo trek finish --gate confirm",
    ] {
        assert_eq!(bash_with(command, &unattended), Reply::Silent, "{command}");
    }
    // With a run in progress the refusal is the same.
    run.start(&json!({}));
    assert!(
        bash_with("voyage-helper trek finish --gate confirm", &unattended)
            .denied_as("gate-operator")
    );
}

/// The marker is found from what a call writes and from where the session
/// belongs, not only from the call's directory (issue 23, point 2): a cwd
/// in a nested repository, a submodule-like `.git` file, or outside the
/// repository changes nothing.
#[test]
fn a_cd_out_of_the_tree_changes_nothing() {
    let run = Run::new();
    run.start(&json!({}));
    let nested = run.repo.join("src/nested");
    fs::create_dir_all(&nested).unwrap();
    repo::init(&nested);
    let sub = run.repo.join("docs/sub");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join(".git"), "gitdir: ../../.git/modules/sub\n").unwrap();
    let marker = run.marker();
    for dir in [&nested, &sub] {
        assert!(
            run.bash_in(dir, "echo x > ../../README.md")
                .denied_as("run-outside-step"),
            "{}",
            dir.display()
        );
        assert!(
            run.bash_in(dir, &format!("rm {}", marker.display()))
                .denied_as("run-marker-write")
        );
        // Out of the repository from inside a nested one: Hard rule 15.
        assert!(
            run.bash_in(dir, &format!("echo x > {}/out.txt", run.top.display()))
                .denied_as("run-outside-repo")
        );
    }
    let input = json!({
        "cwd": nested, "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": run.repo.join("README.md"), "content": "x"}
    });
    assert!(run.ask(&input, &nested).denied_as("run-outside-step"));
    // From outside every tree, a write into the run's tree is judged by it.
    assert!(
        run.bash_in(
            &run.top,
            &format!("echo x > {}/README.md", run.repo.display())
        )
        .denied_as("run-outside-step")
    );
    assert!(
        run.bash_in(&run.top, &format!("rm -r {}/.git", run.repo.display()))
            .denied_as("run-marker-write")
    );
    // A write elsewhere from outside is not this run's business.
    assert_eq!(
        run.bash_in(&run.top, "echo x > elsewhere.txt"),
        Reply::Silent
    );
    // The nested repository's own files are inside the run's root: the
    // step's Files still decide.
    assert!(
        run.bash_in(&nested, "echo x > a.txt")
            .denied_as("run-outside-step")
    );
}

/// Claude Code's project directory names the session's run however far a
/// `cd` took the shell: a write outside the repository is refused from
/// anywhere.
#[test]
fn the_project_directory_holds_the_session_to_its_run() {
    let run = Run::new();
    run.start(&json!({}));
    let input = json!({
        "cwd": run.top, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "echo x > elsewhere.txt"}
    });
    let mut hook = helper(&run.top, &run.home);
    hook.args(["hook", "pre-tool-use"])
        .env("CLAUDE_PROJECT_DIR", &run.repo);
    let out = assert_cmd::Command::from_std(hook)
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("voyage: blocked run-outside-repo"),
        "{stdout}"
    );
}

/// Paths are compared as the file system resolves them (issue 23, point
/// 4): a link inside the step's Files pointing out of them, and a hard
/// link of another file, are judged by what they really are.
#[test]
fn links_are_judged_by_what_they_point_at() {
    let run = Run::new();
    repo::write(&run.repo, &[("README.md", "readme\n")]);
    std::os::unix::fs::symlink("../README.md", run.repo.join("src/b.sh")).unwrap();
    fs::hard_link(run.repo.join("README.md"), run.repo.join("src/hard.md")).unwrap();
    fs::create_dir_all(run.repo.join("lib")).unwrap();
    std::os::unix::fs::symlink("../lib", run.repo.join("src/lib")).unwrap();
    run.start(&json!({"files": ["src/"]}));
    for command in [
        "echo x > src/b.sh",
        "echo x >> src/b.sh",
        "echo x >& src/b.sh",
        "cp /dev/null src/b.sh",
        "echo x > src/hard.md",
        "echo x > src/lib/new.rs",
        "cd src && echo x > b.sh",
    ] {
        assert!(
            run.bash(command).denied_as("run-outside-step"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    for path in ["src/b.sh", "src/hard.md", "src/lib/x.rs"] {
        assert!(
            run.write(&run.repo.join(path))
                .denied_as("run-outside-step"),
            "{path}"
        );
        assert!(
            run.tool("Edit", &run.repo.join(path))
                .denied_as("run-outside-step"),
            "{path}"
        );
    }
    // A link made during the step must point where the step may write:
    // every later write through it lands there.
    for command in [
        "ln -sf ../README.md src/a.sh",
        "ln -s ../../etc/passwd src/p",
        "ln README.md src/hl.md",
        "cp -s ../README.md src/c.md",
        "cd src && ln -s ../README.md x",
    ] {
        let reply = run.bash(command);
        assert!(
            reply.denied_as("run-outside-step") || reply.denied_as("run-outside-repo"),
            "{command}: {reply:?}"
        );
    }
    assert!(
        run.bash("ln -s \"$T\" src/x")
            .denied_as("run-unknown-target")
    );
    for command in [
        "ln -s a.rs src/c.rs",
        "ln src/a.rs src/d.rs",
        "cd src && ln -sf a.rs e.rs",
    ] {
        assert_eq!(run.bash(command), Reply::Silent, "{command}");
    }
    // Removing a link removes only the link.
    assert_eq!(run.bash("rm src/b.sh"), Reply::Silent);
    assert_eq!(run.bash("echo x > src/a.rs"), Reply::Silent);
    // A step that names the linked file and the link's target: open.
    run.start(&json!({"files": ["src/hard.md", "README.md", "lib/"]}));
    assert_eq!(run.bash("echo x > src/hard.md"), Reply::Silent);
    assert_eq!(run.bash("echo x > src/lib/new.rs"), Reply::Silent);
    assert_eq!(run.bash("echo x > lib/new.rs"), Reply::Silent);
    // Naming a link to a directory names the link: the directory it
    // leads to stays closed, written directly or through the link.
    run.start(&json!({"files": ["src/lib/"]}));
    for command in ["echo x > lib/new.rs", "echo x > src/lib/new.rs"] {
        assert!(run.bash(command).denied_as("run-outside-step"), "{command}");
    }
    assert_eq!(run.bash("rm src/lib"), Reply::Silent);
}

/// A denylist denial stays as it is during a run.
#[test]
fn a_denylist_denial_wins() {
    let run = Run::new();
    run.start(&json!({}));
    assert!(
        run.bash("rm -rf / ; echo x > src/b.rs")
            .denied_as("rm-recursive-force")
    );
    assert!(
        run.write(&run.repo.join(".env"))
            .denied_as("env-file-write")
    );
    // A denylist warning with an out-of-scope write: the run's denial.
    assert!(
        run.bash("git push -f && echo x > src/b.rs")
            .denied_as("run-outside-step")
    );
}

/// A linked worktree (`git worktree add`) has its own marker, in its own
/// git directory, and its own root.
#[test]
fn a_linked_worktree_finds_its_own_marker() {
    let run = Run::new();
    run.start(&json!({"files": ["src/main-only.rs"]}));
    let wt = run.top.join("wt");
    repo::git(
        &run.repo,
        &["worktree", "add", "-q", "-b", "s1", wt.to_str().unwrap()],
    );
    let git_dir = run.repo.join(".git/worktrees/wt");
    assert!(git_dir.is_dir());
    let marker = run.marker_json(&wt, &json!({"files": ["src/wt-only.rs"]}));
    fs::write(git_dir.join("voyage-run.json"), marker.to_string()).unwrap();

    assert_eq!(run.bash_in(&wt, "echo x > src/wt-only.rs"), Reply::Silent);
    assert!(
        run.bash_in(&wt, "echo x > src/main-only.rs")
            .denied_as("run-outside-step")
    );
    // The main checkout is outside the worktree's root.
    assert!(
        run.bash_in(
            &wt,
            &format!("echo x > {}/src/wt-only.rs", run.repo.display())
        )
        .denied_as("run-outside-repo")
    );
    assert!(
        run.bash_in(&wt, "rm ../repo/.git/worktrees/wt/voyage-run.json")
            .denied_as("run-marker-write")
    );
    // The main checkout keeps its own marker.
    assert_eq!(run.bash("echo x > src/main-only.rs"), Reply::Silent);
    assert!(
        run.bash("echo x > src/wt-only.rs")
            .denied_as("run-outside-step")
    );
}

/// Without `cwd` in the input, the hook's own directory is the call's.
#[test]
fn the_process_directory_stands_in_for_a_missing_cwd() {
    let run = Run::new();
    run.start(&json!({}));
    let input = json!({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "echo x > src/b.rs"}
    });
    assert!(run.ask(&input, &run.repo).denied_as("run-outside-step"));
    assert_eq!(run.ask(&input, &run.top), Reply::Silent);
}

/// Issue 23 point 6: every class of the table of writers is held to the
/// step's Files (`src/a.rs`, `docs/`, `tests/*.rs`): refused when it writes
/// outside them, or where the text cannot say (an unknown target), and let
/// through when all it writes is inside them.
#[test]
fn writers_of_the_table_are_held_to_the_step() {
    let run = Run::new();
    run.start(&json!({}));
    for (command, rule) in [
        // git
        ("git checkout main", "run-unknown-target"),
        ("git checkout -- notes.md", "run-outside-step"),
        ("git restore notes.md", "run-outside-step"),
        ("git stash", "run-unknown-target"),
        ("git stash -u", "run-unknown-target"),
        ("git reset --hard HEAD", "run-unknown-target"),
        ("git mv src/a.rs src/b.rs", "run-outside-step"),
        ("git rm notes.md", "run-outside-step"),
        ("git apply fix.patch", "run-unknown-target"),
        ("git am x.mbox", "run-unknown-target"),
        ("git merge topic", "run-unknown-target"),
        ("git pull", "run-unknown-target"),
        ("git switch topic", "run-unknown-target"),
        ("git clean -fd", "run-unknown-target"),
        ("git worktree add ../wt", "run-outside-repo"),
        ("git clone . OUT", "run-outside-step"),
        // patchers and in-place editors
        ("patch -p1 < fix.patch", "run-unknown-target"),
        ("patch -o notes.md src/a.rs fix.patch", "run-outside-step"),
        ("perl -pi -e 's/a/b/' notes.md", "run-outside-step"),
        ("perl -i.bak -pe 's/a/b/' src/a.rs", "run-outside-step"),
        ("ruby -i -pe 'x' notes.md", "run-outside-step"),
        ("gawk -i inplace '{print}' notes.md", "run-outside-step"),
        ("sed -n 'w out.txt' src/a.rs", "run-outside-step"),
        ("sed -i s/a/b/ notes.md", "run-outside-step"),
        ("ed -s notes.md", "run-outside-step"),
        ("vim -es notes.md", "run-outside-step"),
        ("sponge notes.md", "run-outside-step"),
        ("yq -i '.a=1' plan.yaml", "run-outside-step"),
        // archivers, extractors, compressors
        ("tar -xf x.tar -C src", "run-outside-step"),
        ("unzip x.zip -d lib", "run-outside-step"),
        ("tar -czf out.tgz src", "run-outside-step"),
        ("zip -r out.zip docs", "run-outside-step"),
        ("gzip src/a.rs", "run-outside-step"),
        // downloaders
        ("curl -O https://x.invalid/a.sh", "run-outside-step"),
        (
            "curl --output-dir src -O https://x.invalid/b.rs",
            "run-outside-step",
        ),
        ("wget -P lib https://x.invalid/a.md", "run-outside-step"),
        ("wget https://x.invalid/a.md", "run-outside-step"),
        // formatters and fixers
        ("prettier --write src/", "run-outside-step"),
        ("black src/", "run-outside-step"),
        ("ruff check --fix src", "run-outside-step"),
        ("cargo fmt", "run-unknown-target"),
        ("gofmt -w src", "run-outside-step"),
        ("eslint --fix src", "run-outside-step"),
        ("clang-format -i src/b.c", "run-outside-step"),
        // copies into a directory, links
        ("cp notes.md src/", "run-outside-step"),
        ("cp -t src notes.md", "run-outside-step"),
        ("mv notes.md docs/", "run-outside-step"),
        ("ln -s ../README.md src/b.rs", "run-outside-step"),
        // other writers
        ("sort -o notes.md src/a.rs", "run-outside-step"),
        ("split -l 1 src/a.rs part_", "run-outside-step"),
        ("find . -fprint list.txt", "run-outside-step"),
        // one-liners
        (
            "python3 -c \"import shutil; shutil.copy('src/a.rs', 'notes.md')\"",
            "run-outside-step",
        ),
        (
            "python3 -c \"import sys; open(sys.argv[1], 'w')\" x",
            "run-unknown-target",
        ),
        (
            "node -e \"require('fs').renameSync('src/a.rs', 'b.rs')\"",
            "run-outside-step",
        ),
    ] {
        let reply = run.bash(command);
        assert!(reply.denied_as(rule), "{command}: {reply:?}");
    }
    // The plan being executed is the run's own: its guard speaks first.
    for command in [
        "git checkout -- plan.md",
        "sed -i s/a/b/ plan.md",
        "mv plan.md docs/",
        "sponge plan.md",
    ] {
        assert!(run.bash(command).denied_as("run-marker-write"), "{command}");
    }
    // A whole directory written from the repository root holds the run
    // marker too: refused, as the guard of the marker.
    for command in ["tar -xf x.tar", "unzip x.zip", "black ."] {
        assert!(
            matches!(run.bash(command), Reply::Deny(_)),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    // Checking a step file out of git writes git's index too, which is
    // not the step's (the kernel fence refuses git its index lock).
    for command in ["git checkout -- src/a.rs", "git restore src/a.rs docs/"] {
        let reply = run.bash(command);
        assert!(reply.denied_as("run-outside-step"), "{command}: {reply:?}");
    }
    for inside in [
        "perl -pi -e 's/a/b/' src/a.rs",
        "sed -i s/a/b/ src/a.rs",
        "sed -n 'w docs/hits.txt' src/a.rs",
        "tar -xf x.tar -C docs",
        "unzip -q x.zip -d docs/vendor",
        "cp plan.md docs/",
        "curl -o docs/a.md https://x.invalid/a.md",
        "wget -P docs https://x.invalid/a.md",
        "prettier --write docs/",
        "black src/a.rs",
        "sort -o docs/sorted.txt plan.md",
        "split -l 1 plan.md docs/part_",
        "python3 -c \"import shutil; shutil.copy('plan.md', 'docs/plan.md')\"",
        "cargo fmt -- --check",
        "git status",
        "tar -tf x.tar",
    ] {
        assert_eq!(run.bash(inside), Reply::Silent, "{inside}");
    }
}

/// `cd` as bash does it (issue 23, point 5): a `cd` that may fail leaves
/// what follows unplaced unless `&&` guards it; a subshell, a pipeline
/// stage and a background job keep their own place; `pushd`/`popd`,
/// `cd -P` (and `set -P`), `CDPATH` and `env -C` are followed. A write
/// after a `cd` that may fail is refused where it is refused wherever it
/// lands.
#[test]
fn cd_is_followed_as_bash_follows_it() {
    let run = Run::new();
    fs::create_dir_all(run.repo.join("src/deep")).unwrap();
    run.start(&json!({"files": ["src/"]}));
    for command in [
        "cd nosuch; echo x > ../src/a.sh",
        "cd src; echo x > a.rs",
        "cd src || true; echo x > a.rs",
        "true || cd src && echo x > a.rs",
        "cd src && true; echo x > a.rs",
        "CDPATH=/tmp cd src && echo x > a.rs",
        "pushd src && pushd deep && pushd +1 && echo x > a.rs",
        // eval's `cd` lasts, but whether it worked is not followed into it.
        "eval 'cd src' && echo x > a.rs",
    ] {
        assert!(
            run.bash(command).denied_as("run-unknown-target"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    for command in [
        "cd nosuch; echo x > a.rs",
        "cd src; echo x > ../README.md",
        "(cd src); echo x > a.rs",
        "(cd src) && echo x > a.rs",
        "cd src | true && echo x > a.rs",
        "cd src & echo x > a.rs",
        "x=$(cd src) && echo x > a.rs",
        "bash -c 'cd src' && echo x > a.rs",
        "pushd src && popd && echo x > a.rs",
        "env -C docs touch a.rs",
    ] {
        assert!(
            run.bash(command).denied_as("run-outside-step"),
            "{command}: {:?}",
            run.bash(command)
        );
    }
    for command in [
        "cd src && echo x > a.rs",
        "cd src && cd deep && echo x > b.rs",
        "cd src/deep && cd .. && echo x > a.rs",
        // `cd -P` leaves `..` to the file system, which the scope resolves.
        "cd -P src/deep/../.. && echo x > src/a.rs",
        "set -P; cd src/deep/.. && echo x > a.rs",
        "pushd src && echo x > a.rs",
        "pushd src/deep && popd && echo x > src/a.rs",
        "env -C src touch a.rs",
        "env --chdir=src touch a.rs",
        "(cd src && echo x > a.rs)",
        "cd src && { echo x > a.rs; echo y > b.rs; }",
    ] {
        assert_eq!(run.bash(command), Reply::Silent, "{command}");
    }
}
