//! The parts of docs/guide/safety.md that are counted or listed from data,
//! between `<!-- NAME:begin … -->` and `<!-- NAME:end -->` markers: the
//! rule table (from judge/src/rule.rs) and the corpus figures (from
//! tests/data/denylist.jsonl). The test fails when the page says other
//! than the data; `VOYAGE_BLESS=1` rewrites the page instead.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use voyage_helper::internals::scan::RULES;

fn page() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/safety.md")
}

/// Compares (or with `VOYAGE_BLESS=1` writes) the page with `body` as the
/// `name` block.
fn check_block(name: &str, body: &str) {
    crate::common::generated::check_blocks(
        &page(),
        &[(name, body.to_owned())],
        "VOYAGE_BLESS=1 cargo nextest run -p voyage-helper --test cli -- safety_doc",
    );
}

/// Backticks around a command, with room for a backtick inside it.
fn code(command: &str) -> String {
    let command = command.replace('|', "\\|");
    if command.contains('`') {
        format!("`` {command} ``")
    } else {
        format!("`{command}`")
    }
}

#[test]
fn the_rule_table_is_the_rule_tables() {
    let mut body = String::from(
        "| rule | severity | name | reports, e.g. | does not report, e.g. |\n|---|---|---|---|---|\n",
    );
    for rule in RULES {
        let severity = serde_json::to_value(rule.severity).unwrap();
        body.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            rule.id,
            severity.as_str().unwrap(),
            rule.name,
            code(rule.reports[0]),
            code(rule.allows[0]),
        ));
    }
    check_block("rules", &body);
}

#[test]
fn the_corpus_figures_are_counted_from_the_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/denylist.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut block, mut warn, mut allow) = (0, 0, 0);
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v["expect"].as_str().unwrap() {
            "block" => block += 1,
            "warn" => warn += 1,
            _ => allow += 1,
        }
    }
    // "all" and "none" hold because scan_corpus fails on any line judged
    // other than it expects.
    let body = format!(
        "On a corpus of {} commands it blocks all {block} dangerous ones, warns on\n\
         all {warn} risky ones and flags none of the {allow} harmless ones.\n",
        block + warn + allow
    );
    check_block("corpus", &body);
}
