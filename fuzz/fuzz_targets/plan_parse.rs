//! `plan::parse::parse` and `brief::Brief::parse`, on any text.
//!
//! Checked beyond "no panic": every problem's line is within the file, and
//! the manifest YAML fast path agrees with the full parser whenever it
//! answers.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::brief::Brief;
use voyage_helper::plan::parse::parse;
use voyage_helper::plan::yaml_lite;

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
    if let Some(fast) = yaml_lite::parse(&text) {
        let full: Option<serde_json::Value> = serde_saphyr::from_str(&text).ok();
        assert_eq!(Some(fast.to_value()), full, "yaml fast path disagrees on {text:?}");
    }
});
