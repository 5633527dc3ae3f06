//! What `criteria run` and `entry check` read from a plan: a criterion's
//! command line (the allowlist, over the denylist engine's shell parser)
//! and an entry condition's words. Neither may panic, and a command the
//! allowlist accepts holds no command substitution.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::criteria::{allowlisted, read_entry_condition};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if allowlisted(text).is_ok() {
        assert!(!text.contains("$(") && !text.contains('`'), "{text:?}");
    }
    let _ = read_entry_condition(text);
});
