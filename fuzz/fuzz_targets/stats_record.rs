//! What the stats writers and `stats show` read: a record or payload
//! (`stats::record::parse_object`), the event record built from it, and a
//! whole stats file (`stats::summary::summarize_reader`).
//!
//! Checked beyond "no panic": a parsed record gets exactly one `ts`, first;
//! an event record's `not_exportable` lists only payload keys; the summary's
//! counts never exceed the file's lines.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::stats;

fuzz_target!(|data: &[u8]| {
    if let Ok(map) = stats::parse_object(data, "record") {
        let with = stats::with_ts(map.clone(), "now");
        assert_eq!(with.keys().next().map(String::as_str), Some("ts"));
        assert_eq!(with.len(), map.len() + usize::from(!map.contains_key("ts")));
        let rec = stats::record("e", map.clone(), "now");
        for key in rec["not_exportable"].as_array().into_iter().flatten() {
            assert!(map.contains_key(key.as_str().unwrap_or("")));
        }
    }
    let lines = data.split(|b| *b == b'\n').count() as u64;
    if let Ok(s) = stats::summarize_reader("k", Path::new("f"), data) {
        assert!(s.records + s.bad_lines <= lines);
        assert!(s.runs <= s.records);
    }
});
