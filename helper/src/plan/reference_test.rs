//! The plan format reference (docs/guide/plan-format.md) is written by
//! hand around tables generated from the parser's own: the On failure
//! keywords ([`Action::ALL`]), the Files markers ([`FILE_MARKERS`]), the
//! manifest keys ([`manifest::KEY_TABLE`]), the problem codes
//! ([`code::ALL`]) and the complete example plan (examples/trek/
//! complete.md), so the page cannot say other than the code. This test
//! renders each between its markers and fails when the page differs;
//! `VOYAGE_BLESS=1` rewrites it, as `reference_test` does for the
//! command reference.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::code;
use super::manifest;
use super::step::{Action, FILE_MARKERS};

#[path = "../../tests/common/generated.rs"]
#[allow(dead_code, unreachable_pub)]
mod generated;

const BLESS: &str = "VOYAGE_BLESS=1 cargo test -p voyage-helper --lib plan::reference_test";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A table cell: a `|` would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn table(head: &str, rows: impl IntoIterator<Item = String>) -> String {
    let columns = head.matches('|').count() - 1;
    let mut out = format!("{head}\n|{}\n", "---|".repeat(columns));
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
    out
}

fn on_failure() -> String {
    table(
        "| Keyword | What the run does when the step fails |",
        Action::ALL
            .iter()
            .map(|(_, word, what)| format!("| `{word}` | {} |", cell(what))),
    )
}

fn file_markers() -> String {
    table(
        "| Marker | What it says |",
        FILE_MARKERS
            .iter()
            .map(|(marker, what)| format!("| `{marker}` | {} |", cell(what))),
    )
}

fn manifest_keys() -> String {
    table(
        "| Key | Value | Required | What the helper does with it |",
        manifest::KEY_TABLE.iter().map(|(key, value, what)| {
            let required = if manifest::KEYS.contains(key) {
                "yes (1.7)"
            } else {
                "no (false)"
            };
            format!(
                "| `{key}` | {} | {required} | {} |",
                cell(value),
                cell(what)
            )
        }),
    )
}

fn codes() -> String {
    table(
        "| Code | Means |",
        code::ALL
            .iter()
            .map(|(name, what)| format!("| `{name}` | {} |", cell(what))),
    )
}

/// The complete example, whole, in a fence longer than its own.
fn complete_plan() -> String {
    let plan = std::fs::read_to_string(repository().join("examples/trek/complete.md")).unwrap();
    assert!(
        !plan.contains("````"),
        "complete.md holds a fence of four backticks"
    );
    format!("````markdown\n{}````\n", plan)
}

#[test]
fn the_plan_format_reference_is_generated_from_the_parser() {
    generated::check_blocks(
        &repository().join("docs/guide/plan-format.md"),
        &[
            ("file-markers", file_markers()),
            ("on-failure", on_failure()),
            ("manifest-keys", manifest_keys()),
            ("complete-plan", complete_plan()),
            ("codes", codes()),
        ],
        BLESS,
    );
}

#[test]
fn the_tables_cover_what_the_parser_reads() {
    // Every action the parser knows has its row, and its keyword parses
    // back to it in any case.
    for (action, word, _) in Action::ALL {
        assert_eq!(Action::parse(word), Some(action));
        assert_eq!(Action::parse(&word.to_uppercase()), Some(action));
        assert_eq!(action.as_str(), word);
    }
    assert_eq!(Action::parse("rollback"), None);
    // The code's own description names every keyword.
    let (_, what) = code::ALL
        .iter()
        .find(|(name, _)| *name == code::PLAN_INVALID_ON_FAILURE)
        .unwrap();
    assert!(what.contains(&Action::keywords()), "{what}");
    assert_eq!(Action::keywords(), "revert, retry, skip or escalate");
}
