//! The PreToolUse hook under a real address-space limit (`ulimit -v` in a
//! child bash, as a container's limit or a user's shell would set it), in
//! the binary as it ships (issue 37, "fails open"). It used to reserve
//! 64 MiB for its input up front and abort below some 78 MB, printing
//! nothing, which Claude Code takes as a hook error and runs the call:
//! `rm -rf ~` included. Above that, up to 400 MB, its 256 MiB scan stack
//! could not be had and every command was refused. Now: a command is judged
//! wherever the hook can run at all, and whatever it runs out of (heap or
//! stack) denies the call, by exit 2 with the reason on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use voyage_tests::faulty_helper;

/// Limits in MiB (`None`: unlimited). Below about 14 MiB the kernel cannot
/// even load the 13 MB binary: no process of it ever runs, so there is
/// nothing the hook could answer.
const LIMITS: [Option<u64>; 8] = [
    Some(20),
    Some(40),
    Some(60),
    Some(80),
    Some(120),
    Some(200),
    Some(400),
    None,
];

/// Runs the shipped hook under `limit` with `input` on stdin.
fn hook_under(limit: Option<u64>, input: &str) -> Output {
    let ulimit = limit.map_or("unlimited".to_owned(), |mib| (mib << 10).to_string());
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ulimit} && exec \"$0\" hook pre-tool-use"
        ))
        .arg(faulty_helper().unwrap())
        .env_remove("VOYAGE_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook that denies before reading all of a large input closes the pipe.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// What the hook answered.
#[derive(Debug, PartialEq)]
enum Reply {
    /// Exit 0, no output.
    Allowed,
    /// Denied (exit 0 with the JSON, or exit 2 with it and the reason on
    /// stderr), with this reason.
    Denied(String),
}

/// The reply, asserting it is one the hook protocol blocks or allows by:
/// never an abort, a signal or silence with another exit.
fn reply(out: &Output, what: &str) -> Reply {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 2)),
        "{what}: exit {:?} fails open (Claude Code runs the call); stderr: {stderr}",
        out.status
    );
    if out.stdout.is_empty() {
        assert_eq!(code, Some(0), "{what}: exit 2 without a reply");
        return Reply::Allowed;
    }
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: {e}: {:?}", out.stdout));
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{what}"
    );
    let reason = json["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned();
    if code == Some(2) {
        assert_eq!(
            stderr.trim_end(),
            reason,
            "{what}: the reason is on stderr too"
        );
    }
    Reply::Denied(reason)
}

fn bash_call(command: &str) -> String {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
}

/// Whether `reason` is a denial because the check had too little memory.
fn short_of_memory(reason: &str) -> bool {
    reason.starts_with("voyage: blocked unscannable")
        && (reason.contains("ran out of memory")
            || reason.contains("not enough memory")
            || reason.contains("crashed"))
}

#[test]
fn a_plain_command_is_judged_under_any_limit_the_hook_runs_under() {
    for limit in LIMITS {
        let what = format!("ls under {limit:?} MiB");
        match reply(&hook_under(limit, &bash_call("ls")), &what) {
            Reply::Allowed => {}
            // Only where the binary barely fits may the check itself not;
            // and then the advice is about memory, not the command.
            Reply::Denied(reason) => assert!(
                limit < Some(40)
                    && short_of_memory(&reason)
                    && !reason.contains("Split the command"),
                "{what}: {reason}"
            ),
        }
        let what = format!("rm -rf ~ under {limit:?} MiB");
        let Reply::Denied(reason) = reply(&hook_under(limit, &bash_call("rm -rf ~")), &what) else {
            panic!("{what} was let through");
        };
        assert!(
            reason.starts_with("voyage: blocked rm-recursive-force")
                || (limit < Some(40) && short_of_memory(&reason)),
            "{what}: {reason}"
        );
    }
}

/// 20,000 nested `if`s: the deepest text the parser takes, which needs
/// more stack than a tight limit leaves. Where the stack runs out the call
/// is denied (a crash caught), never let through.
#[test]
fn a_command_too_deep_for_the_memory_left_is_denied_not_let_through() {
    let deep = |inner: &str| {
        bash_call(&format!(
            "{}{inner};{}",
            "if a;then ".repeat(20_000),
            "fi;".repeat(20_000)
        ))
    };
    for limit in LIMITS {
        let what = format!("deep rm -rf ~ under {limit:?} MiB");
        let Reply::Denied(reason) = reply(&hook_under(limit, &deep("rm -rf ~")), &what) else {
            panic!("{what} was let through");
        };
        assert!(
            reason.starts_with("voyage: blocked rm-recursive-force") || short_of_memory(&reason),
            "{what}: {reason}"
        );
        let what = format!("deep ls under {limit:?} MiB");
        match reply(&hook_under(limit, &deep("ls")), &what) {
            Reply::Allowed => {}
            Reply::Denied(reason) => assert!(short_of_memory(&reason), "{what}: {reason}"),
        }
    }
    assert_eq!(
        reply(&hook_under(None, &deep("ls")), "deep ls, unlimited"),
        Reply::Allowed
    );
    // Under 200 MiB the scan gets a 64 MiB stack, which this command
    // overflows: the overflow itself (SIGSEGV on the guard page) is caught,
    // unless the heap runs out first (the judge's model of each level,
    // descriptors and physical `cd` included, takes memory too): either way
    // the call is denied, never let through.
    let Reply::Denied(reason) = reply(&hook_under(Some(200), &deep("ls")), "deep ls, 200 MiB")
    else {
        panic!("deep ls under 200 MiB was let through");
    };
    assert!(
        reason.contains("the check crashed") || short_of_memory(&reason),
        "{reason}"
    );
}
