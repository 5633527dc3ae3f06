//! `run` when its log cannot take the output: the block says so
//! (`LOG-ERROR:`), and `--reply` says the log could not be written, naming
//! the log and the system's error, never "(the log is empty)" as if the
//! command had printed nothing. A real full disk (a 64 KiB tmpfs, filled,
//! mounted in a user namespace of the test's own) where the system allows
//! it, and everywhere a file-size limit of 0 (`ulimit -f 0`), which fails
//! the same writes with "File too large".

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::schema::assert_schema;
use crate::common::skip;

/// `command` with the environment the helper's tests give the helper.
fn like_the_helper(program: &str, cwd: &Path, home: &Path) -> Command {
    let base = crate::common::env::helper(cwd, home);
    let mut cmd = Command::new(program);
    for (key, value) in base.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd.current_dir(cwd).stdin(Stdio::null());
    cmd
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The reply for a log that could not take `printf 'compiling\nall
/// done\n'`: what every case below checks.
fn assert_reply_names_the_unwritten_log(reply: &str, error: &str) {
    let lines: Vec<&str> = reply.lines().collect();
    assert!(lines[0].starts_with("VERDICT: PASS (exit 0, "), "{reply}");
    assert!(
        lines[0].ends_with(&format!(
            " - the log could not be written ({error}): it holds only the output before that"
        )),
        "{reply}"
    );
    let log = lines
        .iter()
        .find_map(|l| l.strip_prefix("LOG: "))
        .unwrap_or_else(|| panic!("no LOG: in {reply}"));
    assert_eq!(
        lines[1],
        format!(
            "SUMMARY: (the log could not be written: {log}: {error}; the command's last line: all done)"
        )
    );
    assert!(!reply.contains("(the log is empty)"), "{reply}");
}

#[test]
fn a_full_disk_is_named_not_taken_for_a_silent_command() {
    let Some(unshare) = skip::find_on_path("unshare") else {
        skip::skip("`unshare` is not on PATH (util-linux): no tmpfs of the test's own");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let logs = dir.path().join(".temp/voyage/logs");
    std::fs::create_dir_all(&logs).unwrap();
    // A 64 KiB tmpfs where the logs go, filled to the last byte, then the
    // helper: `run` (the block) and `run --reply`.
    let script = r#"
        logs=$1; shift
        mount -t tmpfs -o size=64k tmpfs "$logs" || { echo "NO-MOUNT" >&2; exit 97; }
        head -c 1000000 /dev/zero > "$logs/fill" 2>/dev/null
        "$@" run -- "printf 'compiling\nall done\n'"
        echo "==="
        exec "$@" run --reply -- "printf 'compiling\nall done\n'"
    "#;
    let out = like_the_helper(unshare.to_str().unwrap(), dir.path(), home.path())
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&logs)
        .arg(env!("CARGO_BIN_EXE_voyage-helper"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    if !out.status.success() && (stdout.is_empty() || stderr.contains("NO-MOUNT")) {
        skip::skip(&format!(
            "no user namespace with a tmpfs of its own here ({}): {stderr}",
            out.status
        ));
        return;
    }
    let (block, reply) = stdout.split_once("===\n").unwrap();
    assert!(block.contains("\nLINES: 2\nTAIL: all done\n"), "{block}");
    assert!(
        block.ends_with("LOG-ERROR: No space left on device (os error 28)\n"),
        "{block}"
    );
    assert_eq!(out.status.code(), Some(0), "{reply}{stderr}");
    assert_reply_names_the_unwritten_log(reply, "No space left on device (os error 28)");
}

#[test]
fn a_file_size_limit_is_named_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // SIGXFSZ ignored, the write fails with EFBIG instead of killing.
    let script =
        r#"trap '' XFSZ; ulimit -f 0; exec "$@" run --reply -- "printf 'compiling\nall done\n'""#;
    let out = like_the_helper("bash", dir.path(), home.path())
        .args(["-c", script, "bash", env!("CARGO_BIN_EXE_voyage-helper")])
        .output()
        .unwrap();
    let (reply, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{reply}{stderr}");
    assert_reply_names_the_unwritten_log(&reply, "File too large (os error 27)");

    // The block, read back by `verdict` from stdin, says the same.
    let out = like_the_helper("bash", dir.path(), home.path())
        .args([
            "-c",
            r#"trap '' XFSZ; ulimit -f 0; exec "$@" run -- "printf 'compiling\nall done\n'""#,
            "bash",
            env!("CARGO_BIN_EXE_voyage-helper"),
        ])
        .output()
        .unwrap();
    let (block, _) = text(&out);
    assert!(
        block.contains("LOG-ERROR: File too large (os error 27)\n"),
        "{block}"
    );
    let mut verdict = like_the_helper(env!("CARGO_BIN_EXE_voyage-helper"), dir.path(), home.path());
    let out = verdict
        .arg("verdict")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(block.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_reply_names_the_unwritten_log(&text(&out).0, "File too large (os error 27)");

    // Both as JSON, each in its schema.
    for (args, schema) in [
        ("run --json", "run-block"),
        ("run --reply --json", "verdict-reply"),
    ] {
        let script = format!(r#"trap '' XFSZ; ulimit -f 0; exec "$@" {args} -- "echo all done""#);
        let out = like_the_helper("bash", dir.path(), home.path())
            .args(["-c", &script, "bash", env!("CARGO_BIN_EXE_voyage-helper")])
            .output()
            .unwrap();
        let json = assert_schema(schema, text(&out).0.trim());
        let said = if schema == "run-block" {
            &json["log_error"]
        } else {
            &json["note"]
        };
        assert!(
            said.as_str()
                .unwrap()
                .contains("File too large (os error 27)"),
            "{json}"
        );
    }
}
