//! `workflow::load::load_source`: any text as a workflow file, with and
//! without `--var` values.
//!
//! Checked beyond "no panic": a file that loads serialises (as the
//! `workflow:start` event does), every problem carries a code with the
//! area's prefix and names the file, and the same text loads the same way
//! twice.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::workflow::load_source;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.yaml");
    let given = [("who".to_owned(), "{{item}}".to_owned())];
    for vars in [&[][..], &given[..]] {
        let first = load_source(text.to_owned(), path, Path::new("."), vars);
        match &first {
            Ok(loaded) => {
                serde_json::to_string(&loaded.workflow).expect("a loaded workflow serialises");
                for warning in &loaded.warnings {
                    assert!(warning.code.starts_with("WORKFLOW_"), "{warning:?}");
                }
            }
            Err(problem) => {
                assert!(problem.code.starts_with("WORKFLOW_"), "{problem:?}");
                assert_eq!(problem.file.as_deref(), Some("fuzz.yaml"));
            }
        }
        let again = load_source(text.to_owned(), path, Path::new("."), vars);
        assert_eq!(
            first.as_ref().map(|l| &l.workflow),
            again.as_ref().map(|l| &l.workflow)
        );
    }
});
