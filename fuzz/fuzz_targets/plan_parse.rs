//! `plan::parse::parse` and `brief::Brief::parse`, and the crate's YAML
//! reader (`yaml::parse`, which plan manifests use) on the same text.
//!
//! Checked beyond "no panic": every problem's line is within the file, and
//! so is a YAML error's line and every node's line of a tree that parses.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::brief::Brief;
use voyage_helper::internals::plan::parse;
use voyage_helper::internals::yaml;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX).max(1);
    let problems = match parse(&text, "fuzz.md") {
        Ok(plan) => plan.problems,
        Err(problems) => problems,
    };
    for p in problems {
        if let Some(line) = p.line {
            assert!(line >= 1 && line <= lines + 1, "{} at line {line} of {lines}", p.code);
        }
    }
    let _ = Brief::parse(&text, false);
    // YAML breaks lines at a lone CR too, where `str::lines` does not.
    let yaml_lines = yaml_line_count(&text).max(lines);
    match yaml::parse(&text) {
        Ok(tree) => assert_lines(&tree, yaml_lines),
        Err(e) => assert!(e.line.is_none_or(|l| l >= 1 && l <= yaml_lines + 1), "{e:?}"),
    }
    let _ = yaml::from_str::<serde_json::Value>(&text);
});

/// Lines as YAML 1.2 counts them: LF, CRLF and a lone CR each end one.
fn yaml_line_count(text: &str) -> u32 {
    let breaks = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
    u32::try_from(breaks + 1).unwrap_or(u32::MAX)
}

/// Every node's and key's line is 0 (unknown) or within the text.
fn assert_lines(node: &yaml::Node, lines: u32) {
    assert!(node.line <= lines + 1, "{node:?}");
    match &node.value {
        yaml::Value::Seq(items) => items.iter().for_each(|n| assert_lines(n, lines)),
        yaml::Value::Map(entries) => {
            for (key, value) in entries {
                assert!(key.line <= lines + 1, "{key:?}");
                assert_lines(value, lines);
            }
        }
        _ => {}
    }
}
