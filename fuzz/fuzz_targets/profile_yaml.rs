//! A custom profile file (`profile::custom::parse`), on arbitrary text.
//!
//! Checked beyond "no panic": a profile that parses has a model for every
//! phase and at least one parallel agent.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::profile::{PHASES, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = parse("fuzz", text, "fuzz.yaml") {
        for phase in PHASES {
            assert!(p.model_for(phase).is_some(), "{phase}");
        }
        assert!(p.parallel_agents >= 1);
    }
});
