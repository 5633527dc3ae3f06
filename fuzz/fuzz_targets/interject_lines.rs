//! The `--interject-file`'s messages from any bytes
//! (`workflow::interject::lines`), as a prompt step reads the file.
//!
//! Checked beyond "no panic": only complete lines are taken (the bytes
//! used end at a newline, or none are used), no message is blank or holds
//! a newline, and reading the bytes in two pieces at any cut gives the same
//! messages as reading them at once (what appending while the run goes
//! does).

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::workflow::interjection_lines;

fuzz_target!(|data: &[u8]| {
    let (messages, used) = interjection_lines(data);
    assert!(used <= data.len());
    if used > 0 {
        assert_eq!(data.get(used - 1), Some(&b'\n'), "a line taken without its newline");
    }
    assert!(!data.get(used..).unwrap_or_default().contains(&b'\n'), "a complete line left");
    for message in &messages {
        assert!(!message.trim().is_empty() && !message.contains('\n'), "{message:?}");
    }
    // Appended in two pieces: the first read takes its complete lines, the
    // second the rest from where the first stopped.
    let cut = usize::from(data.first().copied().unwrap_or_default()) % (data.len() + 1);
    let (first, used_first) = interjection_lines(data.get(..cut).unwrap_or_default());
    let (second, _) = interjection_lines(data.get(used_first..).unwrap_or_default());
    let pieces: Vec<String> = first.into_iter().chain(second).collect();
    assert_eq!(pieces, messages, "reading in pieces changed the messages");
});
