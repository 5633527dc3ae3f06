//! Properties of the PreToolUse hook while a run marker is live (issue 15,
//! point 3): a path whose normalised form is outside the repository root
//! (and not under `~/.claude/`) is denied whatever its spelling (`./`,
//! `../`, `//`, a trailing `/`, detours through `x/..`), for the Write tool
//! and for a Bash redirection alike; and every spelling of a path in the
//! step's Files is let through.
//!
//! One repository for all cases (made once, in a temp dir): the hook only
//! reads it.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;
use voyage_helper::internals::scan::Context;
use voyage_helper::internals::scan::hook::{Answer, answer};

struct Fixture {
    _dir: tempfile::TempDir,
    top: PathBuf,
    repo: PathBuf,
    home: PathBuf,
}

/// `top/repo` (a git directory with a live marker whose step's Files are
/// `src/`) and `top/home`.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let repo = top.join("repo");
        let home = top.join("home");
        for d in [
            repo.join(".git"),
            repo.join("src/deep"),
            home.join(".claude"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let progress = repo.join("progress.json");
        std::fs::write(&progress, r#"{"status":"in_progress"}"#).unwrap();
        let marker = json!({
            "schema_version": 1, "plan": repo.join("plan.md"), "progress": progress,
            "repo_root": repo, "step": 1, "files": ["src/"], "memory_write": false,
            "never_touch": [], "started_at": "2026-12-01T10:00:00Z"
        });
        std::fs::write(repo.join(".git/voyage-run.json"), marker.to_string()).unwrap();
        Fixture {
            _dir: dir,
            top,
            repo,
            home,
        }
    })
}

/// The hook's answer to `tool` with `path` (Write) or `command` (Bash),
/// called from `cwd`.
fn ask(tool: &str, text: &str, cwd: &str) -> Answer {
    let f = fixture();
    let tool_input = if tool == "Bash" {
        json!({ "command": text })
    } else {
        json!({ "file_path": text })
    };
    let input = json!({
        "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input
    });
    let ctx = Context {
        home: Some(f.home.display().to_string()),
    };
    answer(input.to_string().as_bytes(), &ctx)
}

fn outside(answer: &Answer) -> bool {
    matches!(answer, Answer::Deny(r) if r.starts_with("voyage: blocked run-outside-repo "))
}

/// A lowercase name that no protected-path rule knows.
fn name() -> impl Strategy<Value = String> {
    "[a-z]{1,6}".prop_map(|n| format!("f{n}"))
}

/// Noise that leaves a path's normalised form as it is: nothing, `./`, an
/// extra `/`, or a detour `x/../`.
fn noise() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("./".to_owned()),
        Just("/".to_owned()),
        name().prop_map(|n| format!("{n}/../")),
    ]
}

/// `parts` joined with noise after each `/`, and maybe a trailing `/`.
fn spell(parts: &[String], noises: &[String], trailing: bool) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('/');
            out.push_str(&noises[i % noises.len()]);
        }
        out.push_str(part);
    }
    if trailing {
        out.push('/');
    }
    out
}

/// A place outside the repository, as the parts of a path relative to the
/// repository root (`..` first), and whether it is under the home.
fn outside_place() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        // A sibling of the repository, maybe deeper.
        prop::collection::vec(name(), 1..4).prop_map(|names| {
            let mut parts = vec!["..".to_owned()];
            parts.extend(names);
            parts
        }),
        // Under the home directory, but not in .claude.
        prop::collection::vec(name(), 1..3).prop_map(|names| {
            let mut parts = vec!["..".to_owned(), "home".to_owned()];
            parts.extend(names);
            parts
        }),
        // Out of the repository through src/ and back up twice.
        name().prop_map(|n| vec![
            "src".into(),
            "deep".into(),
            "..".into(),
            "..".into(),
            "..".into(),
            n
        ]),
        // The repository's name with something after it (`repo-x`).
        name().prop_map(|n| vec!["..".to_owned(), format!("repo{n}")]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Relative to the repository or absolute, any spelling of a place
    /// outside it is denied, by the Write tool and by a redirection.
    #[test]
    fn outside_is_denied_whatever_the_spelling(
        parts in outside_place(),
        noises in prop::collection::vec(noise(), 1..4),
        trailing in any::<bool>(),
        absolute in any::<bool>(),
        from_src in any::<bool>(),
    ) {
        let f = fixture();
        let rel = spell(&parts, &noises, trailing);
        let (cwd, text) = match (absolute, from_src) {
            (true, _) => (f.repo.clone(), format!("{}//{rel}", f.repo.display())),
            (false, true) => (f.repo.join("src"), format!("../{rel}")),
            (false, false) => (f.repo.clone(), rel),
        };
        let cwd = cwd.display().to_string();
        let write = ask("Write", &text, &cwd);
        prop_assert!(outside(&write), "Write {text:?} from {cwd}: {write:?}");
        let quoted = format!("echo x > '{text}'");
        let bash = ask("Bash", &quoted, &cwd);
        prop_assert!(outside(&bash), "{quoted} from {cwd}: {bash:?}");
    }

    /// Every spelling of a path under `src/` (the step's Files) passes, and
    /// every spelling of one under `~/.claude/` too.
    #[test]
    fn inside_the_scope_passes_whatever_the_spelling(
        names in prop::collection::vec(name(), 1..3),
        noises in prop::collection::vec(noise(), 1..4),
        claude in any::<bool>(),
    ) {
        let f = fixture();
        let mut parts = if claude {
            vec![f.top.display().to_string(), "home".into(), ".claude".into()]
        } else {
            vec![".".into(), "src".into()]
        };
        parts.extend(names);
        let text = spell(&parts, &noises, false);
        let cwd = f.repo.display().to_string();
        prop_assert_eq!(ask("Write", &text, &cwd), Answer::Silent, "{}", text);
        let quoted = format!("echo x >> '{text}'");
        // Let through as it is, or into the kernel fence where it holds.
        let bash = ask("Bash", &quoted, &cwd);
        prop_assert!(
            matches!(bash, Answer::Silent | Answer::Rewrite { .. }),
            "{} {:?}",
            quoted,
            bash
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever bytes the marker file holds, the hook does not panic, and
    /// a marker the reader refuses denies the write (fail closed).
    #[test]
    fn any_marker_bytes_fail_closed_or_are_read(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..200),
            "\\{\"schema_version\":1,\"plan\":\"p\",\"progress\":\"/nonexistent\",\"repo_root\":\"[/a-z\\n]{0,8}\",\"step\":[0-9]{0,3},\"files\":\\[\"[a-z/.*]{0,6}\"\\],\"started_at\":\"t\"[}, ]{0,2}"
                .prop_map(String::into_bytes),
        ],
    ) {
        use voyage_helper::internals::run_marker::read;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let marker = dir.path().join(".git/voyage-run.json");
        std::fs::write(&marker, &bytes).unwrap();
        let file = dir.path().join("src/a.rs");
        let reply = ask("Write", &file.display().to_string(), &dir.path().display().to_string());
        if read(&marker).is_err() {
            prop_assert!(
                matches!(&reply, Answer::Deny(r) if r.starts_with("voyage: blocked run-marker-unreadable ")),
                "{:?}", reply
            );
        }
        if let Answer::Deny(text) | Answer::Warn(text) = &reply {
            prop_assert!(!text.contains('\n'), "{}", text);
        }
    }
}
