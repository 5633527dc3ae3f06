//! `plan::fill::fill_text`, the filler of `plan fill`, on the text (lossy
//! UTF-8), checked for what it promises (`helper/tests/common/fill_check.rs`,
//! shared with the property test `plan_no_panic`): only lines added, each
//! filled step complete by the parser's reading, a second fill adding
//! nothing.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../helper/tests/common/fill_check.rs"]
mod fill_check;

fuzz_target!(|data: &[u8]| {
    fill_check::check(&String::from_utf8_lossy(data));
});
