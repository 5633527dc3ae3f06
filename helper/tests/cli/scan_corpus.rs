//! The denylist corpus, `tests/data/denylist.jsonl`: every line is judged by
//! the engine and must get the decision it expects (and, for a block or a
//! warning, the rule it names). The test prints block recall and the
//! false-positive rate on stderr, the figures the issue asks for. The
//! PreToolUse hook, given each line as a Bash call, must agree with the
//! engine (what `scan command` prints) on every line.
//!
//! A line is `{"command", "expect": "block"|"warn"|"allow", "rule"?, "note"}`.
//! The corpus holds every BLOCK and WARN pattern of trekexecute Phase 2.4 in
//! many spellings, the evasions the engine must see through, and harmless
//! look-alikes that must pass.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use voyage_helper::internals::scan::hook::{Answer, answer};
use voyage_helper::internals::scan::{Context, Decision, judge_command};

struct Line {
    number: usize,
    command: String,
    expect: Decision,
    rule: Option<String>,
}

fn corpus() -> Vec<Line> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/denylist.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            let expect = match v["expect"].as_str() {
                Some("block") => Decision::Block,
                Some("warn") => Decision::Warn,
                Some("allow") => Decision::Allow,
                other => panic!("line {}: expect {other:?}", i + 1),
            };
            Line {
                number: i + 1,
                command: v["command"].as_str().unwrap().to_owned(),
                expect,
                rule: v["rule"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

#[test]
fn corpus_is_large_unique_and_balanced() {
    let lines = corpus();
    assert!(lines.len() >= 300, "{} lines", lines.len());
    let mut seen = HashSet::new();
    for line in &lines {
        assert!(
            seen.insert(&line.command),
            "line {}: duplicate command {:?}",
            line.number,
            line.command
        );
        if line.expect != Decision::Allow {
            let rule = line
                .rule
                .as_deref()
                .expect("block and warn lines name a rule");
            assert!(
                voyage_helper::internals::scan::find(rule).is_some(),
                "line {}: unknown rule {rule}",
                line.number
            );
        }
    }
    for expect in [Decision::Block, Decision::Warn, Decision::Allow] {
        assert!(lines.iter().filter(|l| l.expect == expect).count() >= 40);
    }
}

#[test]
fn every_line_gets_its_decision_and_rule() {
    let ctx = Context {
        home: Some("/home/user".into()),
    };
    let lines = corpus();
    let mut wrong = Vec::new();
    let (mut blocks, mut blocked, mut allows, mut false_blocks, mut false_any) = (0, 0, 0, 0, 0);
    for line in &lines {
        let judgement = judge_command(&line.command, &ctx);
        let decision = judgement.decision();
        let fired: Vec<&str> = judgement.findings.iter().map(|f| f.rule.id).collect();
        match line.expect {
            Decision::Block => {
                blocks += 1;
                blocked += usize::from(decision == Decision::Block);
            }
            Decision::Allow => {
                allows += 1;
                false_blocks += usize::from(decision == Decision::Block);
                false_any += usize::from(decision != Decision::Allow);
            }
            Decision::Warn => {}
        }
        let rule_ok = line.rule.as_deref().is_none_or(|rule| {
            judgement.findings.iter().any(|f| {
                f.rule.id == rule && f.rule.severity == judgement.deciding()[0].rule.severity
            })
        });
        let hook_call = json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": line.command},
        })
        .to_string();
        let hook_agrees = matches!(
            (answer(hook_call.as_bytes(), &ctx), decision),
            (Answer::Deny(_), Decision::Block)
                | (Answer::Warn(_), Decision::Warn)
                | (Answer::Silent, Decision::Allow)
        );
        if !hook_agrees {
            wrong.push(format!(
                "line {}: {:?}: the hook disagrees with the engine's {decision:?}",
                line.number, line.command
            ));
        }
        if decision != line.expect || !rule_ok {
            wrong.push(format!(
                "line {}: {:?} expected {:?}{} got {:?} {:?}",
                line.number,
                line.command,
                line.expect,
                line.rule
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default(),
                decision,
                fired
            ));
        }
    }
    // Straight to stderr: libtest would swallow eprintln! of a passing test.
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    let _ = writeln!(
        std::io::stderr(),
        "denylist corpus: {} lines; block recall {blocked}/{blocks} ({:.1}%); \
         false positives on {allows} harmless commands: {false_blocks} blocked ({:.1}%), \
         {false_any} blocked or warned ({:.1}%)",
        lines.len(),
        pct(blocked, blocks),
        pct(false_blocks, allows),
        pct(false_any, allows),
    );
    assert!(
        wrong.is_empty(),
        "{} lines judged wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
