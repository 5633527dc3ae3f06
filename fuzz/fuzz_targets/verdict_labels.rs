//! `verdict`'s stdin labels and the `expect:` judge, on arbitrary text; then
//! the whole reply (`verdict::build` and both renderings) for those labels,
//! with the log pointed at a fixed file so the fuzzer never opens a path of
//! its choosing.
//!
//! Checked beyond "no panic": a text reply has at most `MAX_LINES` lines,
//! each one line; the JSON reply is one line.

#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::verdict::{
    Counted, Input, MAX_LINES, RunFacts, RunKind, build, judge,
};

/// A failing `cargo test` log, so replies have failures to lay out.
static LOG: LazyLock<(tempfile::TempDir, PathBuf)> = LazyLock::new(|| {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("run.log");
    let mut log = String::new();
    for i in 0..30 {
        log.push_str(&format!("---- tests::t{i} stdout ----\n"));
        log.push_str(&format!(
            "thread 'tests::t{i}' panicked at src/lib.rs:{i}:5:\nboom {i}\n\n"
        ));
    }
    log.push_str("test result: FAILED. 0 passed; 30 failed; 0 ignored\n");
    std::fs::write(&path, log).expect("the log");
    (dir, path)
});

const KINDS: [RunKind; 3] = [RunKind::Finished, RunKind::TimedOut, RunKind::Error];

fn facts(seed: &[u8]) -> RunFacts {
    let byte = |i: usize| seed.get(i).copied().unwrap_or(0);
    RunFacts {
        kind: KINDS[usize::from(byte(0)) % KINDS.len()],
        exit: i32::from_le_bytes([byte(1), byte(2), byte(3), byte(4)]),
        failures: usize::from(byte(5)),
        counted: match byte(6) % 3 {
            0 => Counted::Nothing,
            1 => Counted::NoTests,
            _ => Counted::Failed(u64::from(byte(7))),
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let input = Input::parse_labels(data);
    for value in [
        &input.exit,
        &input.duration,
        &input.status,
        &input.reason,
        &input.expect,
    ]
    .into_iter()
    .flatten()
    {
        assert_eq!(
            value.trim_matches(|c: char| c.is_ascii_whitespace()),
            value,
            "untrimmed value"
        );
        assert!(!value.contains('\n'), "value spans lines");
    }

    let run = facts(data);
    let text = String::from_utf8_lossy(data);
    for sentence in [input.expect.as_deref(), Some(text.as_ref())]
        .into_iter()
        .flatten()
    {
        let judgement = judge(sentence, run);
        assert!(!judgement.render().is_empty());
    }

    let input = Input {
        log: Some(LOG.1.clone()),
        ..input
    };
    let reply = build(&input);
    let lines = reply.lines();
    assert!(lines.len() <= MAX_LINES, "{} lines", lines.len());
    let mut out = Vec::new();
    reply.render_text(&mut out).expect("rendering into a Vec");
    let printed = String::from_utf8(out).expect("UTF-8 text");
    assert_eq!(printed.lines().count(), lines.len(), "a line broke in two");
    let mut json = Vec::new();
    reply.render_json(&mut json).expect("rendering into a Vec");
    assert_eq!(json.iter().filter(|&&b| b == b'\n').count(), 1);
});
