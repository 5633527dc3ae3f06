//! `run`'s stdin label block: `Labels::parse`, then `Request::from_labels`
//! against a real temporary directory, then the log slug of the command.
//!
//! Checked beyond "no panic": the documented shape of a label value (trimmed),
//! of a valid request (non-empty command, timeout within bounds, an existing
//! directory) and of a slug (docs/maintainer/run-contract.md §4).

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::run::{Labels, MAX_TIMEOUT_SECS, Request, slug};

/// The directory relative `cwd:` values are glued onto, with a few entries
/// so that some relative values exist.
static PWD: LazyLock<(tempfile::TempDir, PathBuf)> = LazyLock::new(|| {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for sub in ["sub", "sub/deeper", "a b", "-"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("a subdirectory");
    }
    let path = dir.path().to_path_buf();
    (dir, path)
});

fn check_slug(command: &str) {
    let s = slug(command);
    assert!(!s.is_empty(), "empty slug for {command:?}");
    assert!(s.chars().count() <= 40, "slug too long: {s:?}");
    assert!(
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
        "slug {s:?} has a character outside [A-Za-z0-9._-]"
    );
    assert!(!s.starts_with('-') && !s.ends_with('-'), "slug {s:?}");
    assert!(!s.contains("--"), "slug {s:?} has a run of dashes");
}

fn check_value(value: Option<&Vec<u8>>) {
    if let Some(v) = value {
        assert_eq!(v.trim_ascii(), v.as_slice(), "untrimmed value {v:?}");
        assert!(!v.contains(&b'\n'), "value spans lines: {v:?}");
    }
}

fn check(data: &[u8], pwd: &Path) {
    let labels = Labels::parse(data);
    check_value(labels.command.as_ref());
    check_value(labels.cwd.as_ref());
    check_value(labels.timeout.as_ref());
    check_value(labels.expect_exit.as_ref());

    match Request::from_labels(&labels, pwd) {
        Ok(request) => {
            assert!(!request.command.is_empty());
            assert!((1..=MAX_TIMEOUT_SECS).contains(&request.timeout_secs));
            assert!(request.cwd.is_dir(), "{}", request.cwd.display());
        }
        Err(e) => {
            // The reason is printed on one line of the block.
            let reason = e.to_string();
            assert!(!reason.is_empty());
        }
    }

    if let Some(command) = &labels.command {
        check_slug(&String::from_utf8_lossy(command));
    }
    check_slug(&String::from_utf8_lossy(data));
}

fuzz_target!(|data: &[u8]| {
    check(data, &PWD.1);
});
