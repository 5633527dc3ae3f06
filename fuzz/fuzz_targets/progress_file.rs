//! A progress file as the helper reads it (`progress::file::parse`), then,
//! when it parses, a run of step changes chosen by the same bytes.
//!
//! Checked beyond "no panic": the typed fast path of reads (`conforms`)
//! never accepts what the schema refuses; every document a refused change
//! leaves is the one before it, and every document an applied change
//! produces still validates against the `progress` schema (what the writers
//! would write, they may write).

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::progress::{
    CODES, Progress, StepStatus, StepUpdate, apply, conforms, parse,
};
use voyage_helper::internals::schema;

fuzz_target!(|data: &[u8]| {
    // The last 8 bytes pick the changes; the rest is the file.
    let split = data.len().saturating_sub(8);
    let (file, moves) = data.split_at(split);
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
        && conforms(&value)
        && serde_json::from_value::<Progress>(value.clone()).is_ok()
    {
        assert!(schema::check("progress", &value, &CODES).is_empty(), "{value}");
    }
    let Ok(mut progress) = parse(text) else {
        return;
    };
    for &m in moves {
        let status = StepStatus::SETTABLE[usize::from(m % 6)];
        let update = StepUpdate {
            step: u32::from(m / 6 % 8) + 1,
            status: Some(status),
            ..StepUpdate::default()
        };
        let before: Progress = progress.clone();
        match apply(&mut progress, &update, "2026-11-30T10:15:00Z") {
            Ok(_) => {
                let problems = schema::check("progress", &progress.to_value(), &CODES);
                assert!(problems.is_empty(), "{problems:?}");
            }
            Err(_) => assert_eq!(progress, before),
        }
    }
});
