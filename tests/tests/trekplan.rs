//! `/trekplan` end to end: the real Claude Code CLI, offline against the
//! project's mock Messages API, with this repository loaded as a plugin.
//! The mock plays the agent the command text describes: it reads the
//! repository, drafts a plan with a mistake, runs the helper's checks,
//! reads the problem back, fixes the plan and checks again until READY.
//! The test looks at what really happened: the helper calls that reached
//! the helper (through a recording `VOYAGE_HELPER`), the final file judged
//! by the real helper, git's history, and the recording fake `claude`.
//!
//! Without `claude` on `PATH` a test prints `SKIPPED:` and passes; under
//! `CI` (which installs it) a missing CLI fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "../../helper/tests/workflow/mock_api.rs"]
mod mock_api;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mock_api::{MockApi, Turn};
use serde_json::json;
use tempfile::TempDir;
use voyage_tests::repo::{commit_all, git, init};
use voyage_tests::{helper_binary, launcher, repo_root, skip};

const PLAN: &str = "plans/add-greeting-script.md";

/// The project's own commands, which the plan's Verification must use.
const MAKEFILE: &str = "test:\n\tbash tests/greet.sh\n\nlint:\n\tbash -n greet.sh\n";

/// The second draft: what the helper calls READY.
const GOOD: &str = r#"---
plan_version: 1.7
---
# Plan: a greeting script

## Context

The user asked for a greeting script; the Makefile's `test` and `lint`
targets are the project's checks.

## Implementation Plan

### Step 1: Add the greeting script
- **Files:** `greet.sh` (new)
- **Changes:** A bash script that prints `Hello, $1!` (default `world`).
- **Verify:** `bash -n greet.sh && test "$(bash greet.sh Ada)" = "Hello, Ada!"`
- **On failure:** retry — quote the argument
- **Checkpoint:** `git commit -m "feat(greet): add the greeting script"`
- **Manifest:**
  ```yaml
  expected_paths: [greet.sh]
  min_file_count: 1
  commit_message_pattern: "^feat\\(greet\\): add the greeting script$"
  bash_syntax_check: [greet.sh]
  forbidden_paths: []
  must_contain: []
  ```

### Step 2: Test the default name
- **Files:** `tests/greet.sh` (new)
- **Changes:** A test that fails unless `bash greet.sh` prints `Hello, world!`.
- **Verify:** `bash tests/greet.sh`
- **On failure:** escalate
- **Checkpoint:** `git commit -m "test(greet): check the default name"`
- **Manifest:**
  ```yaml
  expected_paths: [tests/greet.sh]
  min_file_count: 1
  commit_message_pattern: "^test\\(greet\\): check the default name$"
  bash_syntax_check: [tests/greet.sh]
  forbidden_paths: []
  must_contain: []
  ```

## Verification

- `make test` — the default greeting is right
- `make lint` — the script parses
"#;

/// The line the first draft leaves out of step 1's Manifest.
const MISSING: &str = "  min_file_count: 1\n  commit_message_pattern: \"^feat";

/// The first draft: step 1's Manifest lacks `min_file_count`.
fn first_draft() -> String {
    let draft = GOOD.replacen(MISSING, "  commit_message_pattern: \"^feat", 1);
    assert_ne!(draft, GOOD, "the draft differs from the good plan");
    draft
}

/// A repository with a Makefile, a fresh home whose `bin/` holds the
/// recording fake `claude`, and a recording helper.
struct Session {
    repo: TempDir,
    home: TempDir,
    claude: PathBuf,
}

impl Session {
    fn new() -> Option<Self> {
        let claude = skip::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")?;
        let repo = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        init(repo.path());
        voyage_tests::repo::write(
            repo.path(),
            &[("README.md", "# demo\n"), ("Makefile", MAKEFILE)],
        );
        commit_all(repo.path(), "init");
        voyage_tests::claude::install_fake_claude(home.path()).unwrap();
        // Every `plan …` and `trek …` call that reaches the helper, in
        // order; the hooks' own calls (`hook …`) are left out.
        voyage_tests::write_executable(
            &home.path().join("helper/voyage-helper"),
            &format!(
                "#!/bin/sh\ncase \"$1\" in plan|trek) printf '%s\\n' \"$*\" >> {log} ;; esac\nexec {real} \"$@\"\n",
                log = voyage_tests::sh_quote(&home.path().join("helper-calls").display().to_string()),
                real = voyage_tests::sh_quote(&helper_binary().unwrap().display().to_string()),
            ),
        )
        .unwrap();
        Some(Self { repo, home, claude })
    }

    fn dir(&self) -> &Path {
        self.repo.path()
    }

    /// A helper call as the command text writes it.
    fn helper(&self, args: &str) -> Turn {
        Turn::tool(
            "Bash",
            json!({ "command": format!("\"{}\" {args}", launcher().display()) }),
        )
    }

    fn path(&self, rel: &str) -> String {
        self.dir().join(rel).display().to_string()
    }

    /// `claude -p PROMPT` in the user's default permission mode: the
    /// command's own `allowed-tools` are all it may use unasked, and in
    /// `-p` nobody can be asked.
    fn run(&self, mock: &MockApi, prompt: &str) -> Output {
        let mut cmd = voyage_tests::claude::print_command(
            &self.claude,
            self.dir(),
            self.home.path(),
            &mock.url(),
            prompt,
        )
        .unwrap();
        let out = cmd
            .env(
                "VOYAGE_HELPER",
                self.home.path().join("helper/voyage-helper"),
            )
            .output()
            .unwrap();
        let calls = voyage_tests::claude::fake_claude_calls(self.home.path());
        assert!(
            calls.is_none(),
            "Hard rule 21: something started claude: {calls:?}"
        );
        out
    }

    /// The `plan` and `trek` calls the helper received, in order.
    fn helper_calls(&self) -> Vec<String> {
        fs::read_to_string(self.home.path().join("helper-calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[test]
fn a_draft_with_a_mistake_is_checked_fixed_and_shown_ready() {
    let Some(s) = Session::new() else {
        return;
    };
    let turns = vec![
        Turn::tool("Read", json!({ "file_path": s.path("Makefile") })),
        Turn::tool(
            "Write",
            json!({ "file_path": s.path(PLAN), "content": first_draft() }),
        ),
        s.helper(&format!("plan validate {PLAN}")),
        s.helper(&format!("trek start --dry-run {PLAN}")),
        Turn::tool(
            "Edit",
            json!({
                "file_path": s.path(PLAN),
                "old_string": "  commit_message_pattern: \"^feat",
                "new_string": MISSING,
            }),
        ),
        s.helper(&format!("plan validate {PLAN}")),
        s.helper(&format!("trek start --dry-run {PLAN}")),
        Turn::text(&format!(
            "The plan is READY. Execute it with:\n\n/trekexecute {PLAN}"
        )),
    ];
    let mock = MockApi::start(turns);
    let head = git(s.dir(), &["rev-parse", "HEAD"]);
    let out = s.run(&mock, "/voyage:trekplan add a greeting script");
    assert!(
        out.status.success(),
        "{}\n{}",
        mock.summary(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mock.turns_used(), 8, "{}", mock.summary());
    let commands = voyage_tests::claude::slash_commands(&out.stdout);
    assert!(
        commands
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == "voyage:trekplan")),
        "the init line lists the command: {commands:?}"
    );

    // The command the CLI expanded is what the model was given: the
    // request, where the plan goes, the helper's checks by the launcher,
    // and what it must never do.
    let first = &mock.main_requests()[0];
    let prompt = first.user_texts().join("\n");
    let launcher = launcher().display().to_string();
    for needed in [
        "The user's request: `add a greeting script`",
        "plans/<slug>.md",
        "plan_version: 1.7",
        &format!("\"{launcher}\" plan validate PLAN"),
        &format!("\"{launcher}\" trek start --dry-run PLAN"),
        &format!("\"{launcher}\" plan fill PLAN"),
        "/trekexecute PLAN",
        "meant for `/trekexecute`: here, go on",
        "never commit",
    ] {
        assert!(
            prompt.contains(needed),
            "the command's text lacks {needed:?}: {prompt}"
        );
    }

    // What reached the helper, in order.
    assert_eq!(
        s.helper_calls(),
        [
            format!("plan validate {PLAN}"),
            format!("trek start --dry-run {PLAN}"),
            format!("plan validate {PLAN}"),
            format!("trek start --dry-run {PLAN}"),
        ]
    );
    // What the CLI sent back to the model: the problem, then READY.
    let results = mock.tool_result_texts();
    assert_eq!(results.len(), 7, "{results:#?}");
    assert!(
        results[2].contains("PLAN_MANIFEST_MISSING_KEY")
            && results[2].contains("min_file_count")
            && results[2].contains("FAIL"),
        "the first validate names the problem: {}",
        results[2]
    );
    assert!(
        results[3].contains("PLAN_MANIFEST_MISSING_KEY") && !results[3].contains("\nREADY\n"),
        "the dry-run of the first draft names the problem and is not READY: {}",
        results[3]
    );
    assert!(
        results[5].contains("Schema Validation: READY"),
        "{}",
        results[5]
    );
    assert!(results[6].contains("\nREADY\n"), "{}", results[6]);

    // The file on disk is READY for the real helper, and is the second draft.
    let written = fs::read_to_string(s.dir().join(PLAN)).unwrap();
    assert_eq!(written, GOOD);
    let validate = Command::new(helper_binary().unwrap())
        .args(["plan", "validate", PLAN])
        .current_dir(s.dir())
        .output()
        .unwrap();
    assert!(
        validate.status.success(),
        "{}",
        String::from_utf8_lossy(&validate.stdout)
    );

    // Nothing committed, and nothing but the plan written.
    assert_eq!(git(s.dir(), &["rev-parse", "HEAD"]), head);
    assert_eq!(
        git(s.dir(), &["status", "--porcelain", "--untracked-files=all"]).trim(),
        format!("?? {PLAN}")
    );
}

/// What the command must never do is refused by its permissions, not
/// only by its text: an agent that starts the run or commits is stopped
/// before the command runs, and the repository is left as it was.
#[test]
fn the_commands_permissions_refuse_a_real_start_and_a_commit() {
    let Some(s) = Session::new() else {
        return;
    };
    let mock = MockApi::start(vec![
        Turn::tool(
            "Write",
            json!({ "file_path": s.path(PLAN), "content": GOOD }),
        ),
        s.helper(&format!("plan validate {PLAN}")),
        s.helper(&format!("trek start {PLAN}")),
        Turn::tool(
            "Bash",
            json!({ "command": "git add -A && git commit -m plan" }),
        ),
        Turn::tool("Bash", json!({ "command": "git log --oneline" })),
        Turn::text("Stopped."),
    ]);
    let head = git(s.dir(), &["rev-parse", "HEAD"]);
    let out = s.run(&mock, "/voyage:trekplan add a greeting script");
    assert!(out.status.success(), "{}", mock.summary());
    let results = mock.tool_result_texts();
    assert_eq!(results.len(), 5, "{results:#?}");
    assert!(
        results[1].contains("Schema Validation: READY"),
        "{}",
        results[1]
    );
    for refused in &results[2..4] {
        assert!(
            refused.contains("require") && refused.contains("approval"),
            "refused unasked: {refused}"
        );
    }
    assert!(
        results[4].contains("init"),
        "git log is allowed: {}",
        results[4]
    );
    assert_eq!(s.helper_calls(), [format!("plan validate {PLAN}")]);
    assert_eq!(git(s.dir(), &["rev-parse", "HEAD"]), head);
    assert!(!s.dir().join(".git/voyage-run.json").exists());
}

/// The helper calls the command text makes: each `voyage-helper" …` up to
/// the end of its line, as subcommand words.
fn helper_calls(text: &str) -> Vec<Vec<String>> {
    text.match_indices("plugin/bin/voyage-helper\"")
        .map(|(i, m)| {
            text[i + m.len()..]
                .lines()
                .next()
                .unwrap_or("")
                .split_whitespace()
                .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

#[test]
fn the_command_makes_only_the_helper_checks_and_stays_short() {
    let text = fs::read_to_string(repo_root().join("commands/trekplan.md")).unwrap();
    let trekexecute = fs::read_to_string(repo_root().join("commands/trekexecute.md")).unwrap();
    assert!(
        text.len() <= trekexecute.len(),
        "commands/trekplan.md ({} bytes) is longer than /trekexecute's ({})",
        text.len(),
        trekexecute.len()
    );
    let (front, body) = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .unwrap();
    let calls = helper_calls(body);
    let shown: Vec<String> = calls.iter().map(|c| c.join(" ")).collect();
    assert_eq!(
        shown,
        ["", "plan fill", "plan validate", "trek start --dry-run"],
        "the launcher line, then the three calls"
    );
    // Each call answers --help with the flags it is given.
    let helper = helper_binary().unwrap();
    for (words, flag) in [
        (["plan", "fill"], None),
        (["plan", "validate"], None),
        (["trek", "start"], Some("--dry-run")),
    ] {
        let out = Command::new(&helper)
            .args(words)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{words:?}: {help}");
        if let Some(flag) = flag {
            assert!(help.contains(flag), "{words:?} has no {flag}: {help}");
        }
    }
    // The front matter allows the file tools, the three calls and git's
    // two readers, and nothing else; no sub-agent.
    let allowed = front
        .lines()
        .find_map(|l| l.strip_prefix("allowed-tools: "))
        .unwrap_or_default();
    let launcher = "\"${CLAUDE_PLUGIN_ROOT}/plugin/bin/voyage-helper\"";
    let expected = [
        "Read".to_owned(),
        "Glob".to_owned(),
        "Grep".to_owned(),
        "Write".to_owned(),
        "Edit".to_owned(),
        format!("Bash({launcher} plan fill *)"),
        format!("Bash({launcher} plan validate *)"),
        format!("Bash({launcher} trek start --dry-run *)"),
        "Bash(git status *)".to_owned(),
        "Bash(git log *)".to_owned(),
    ];
    assert_eq!(allowed.split(", ").collect::<Vec<_>>(), expected);
    assert!(
        front.contains("disallowed-tools: Agent, TeamCreate"),
        "{front}"
    );
}
