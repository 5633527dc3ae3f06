//! YAML front matter (`yaml::front_matter::split` and `parse`) and a brief's
//! phase signals (`brief::Brief::parse`, which `profile resolve` reads), on
//! arbitrary text.
//!
//! Checked beyond "no panic": a block `split` finds lies inside the text and
//! starts on line 2; an error's line, when given, is at least 1; an effort
//! outside low, standard and high is always reported.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::brief::Brief;
use voyage_helper::internals::yaml::front_matter::{parse, split};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(Some(block)) = split(text) {
        assert_eq!(block.first_line, 2);
        assert!(block.yaml.len() <= text.len());
    }
    if let Err(e) = parse::<serde_json::Value>(text) {
        assert!(e.line().is_none_or(|l| l >= 1));
    }
    let b = Brief::parse(text, true);
    if b.problems.iter().all(|p| p.code != "BRIEF_INVALID_EFFORT") {
        for signal in &b.phase_signals {
            if let Some(e) = &signal.effort {
                assert!(["low", "standard", "high"].contains(&e.as_str()), "{e}");
            }
        }
    }
});
