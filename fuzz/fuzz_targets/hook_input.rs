//! The PreToolUse hook on arbitrary bytes as its stdin: `hook::answer`
//! reads them leniently (any depth, lone surrogates, invalid UTF-8, a
//! byte-order mark) and never panics; the answer renders as nothing or one
//! JSON line. Seed it with real hook inputs to reach the Bash judgement.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::scan::Context;
use voyage_helper::internals::scan::hook;

fuzz_target!(|data: &[u8]| {
    let ctx = Context {
        home: Some("/home/fuzz".into()),
    };
    let answer = hook::answer(data, &ctx);
    assert_eq!(answer, hook::answer(data, &ctx), "not deterministic");
    let mut printed = Vec::new();
    hook::render(&answer, &mut printed).expect("rendering into a Vec");
    assert!(printed.is_empty() || printed.iter().filter(|&&b| b == b'\n').count() == 1);
});
