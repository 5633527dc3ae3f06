//! `workflow::opencode::Stream`: any bytes as the OpenCode CLI's
//! `--format json` output, cut into lines by `workflow::lines::LineSplitter`
//! in chunks the first byte chooses, read as a structured call's (the
//! second byte's low bit).
//!
//! Checked beyond "no panic": every event is one the provider may produce
//! and serialises; the events and the failure message do not depend on how
//! the output was chunked; the failure message names the step and the exit
//! code first.

#![no_main]

use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::workflow::{Event, LineSplitter, OpenCodeStream};

fn read(output: &[u8], chunk: usize, structured: bool) -> (Vec<String>, String) {
    let events = Mutex::new(Vec::new());
    let mut stream = OpenCodeStream::new(structured);
    let mut lines = LineSplitter::with_limit(1 << 16);
    for piece in output.chunks(chunk.max(1)) {
        lines.feed(piece, &mut |line| stream.line(&line, &events));
    }
    lines.finish(&mut |line| stream.line(&line, &events));
    stream.finish(&events);
    let events: Vec<String> = events
        .into_inner()
        .expect("not poisoned")
        .iter()
        .map(|e: &Event| serde_json::to_string(e).expect("an event serialises"))
        .collect();
    (events, stream.failure("s", 1))
}

fuzz_target!(|data: &[u8]| {
    let [first, second, output @ ..] = data else {
        return;
    };
    let structured = second & 1 == 1;
    let (events, failure) = read(output, usize::from(*first) + 1, structured);
    for event in &events {
        let kind: serde_json::Value = serde_json::from_str(event).expect("valid JSON");
        let kind = kind["type"].as_str().expect("a type").to_owned();
        assert!(
            [
                "output:context",
                "output:text",
                "output:tool",
                "output:cost",
                "output:usage",
                "output:structured"
            ]
            .contains(&kind.as_str()),
            "{kind}"
        );
    }
    assert!(failure.starts_with("Step \"s\": opencode exited with code 1"));
    assert_eq!(read(output, output.len().max(1), structured), (events, failure));
});
