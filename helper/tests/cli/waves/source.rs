//! Hard rules 12 and 13, read from the source: no git argument that forces
//! or silently resolves is ever written in the wave and orders code or in
//! the git wrapper — no `--force`, no `-f` (on `worktree remove` or
//! anywhere), no `branch -D`, no `reset --hard`, no `clean -f`, no
//! `-X theirs/ours` or `--strategy-option`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

fn sources() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The git wrapper is voyage-core's, beside the helper's crate.
    let mut files = vec![src.join("../../core/src/git.rs")];
    for area in ["wave", "orders"] {
        for entry in fs::read_dir(src.join(area)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every string literal of `text` (plain `"…"`; the code has no raw
/// strings holding git arguments).
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut in_comment = false;
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        if in_comment {
            if c == '\n' {
                in_comment = false;
            }
            prev = c;
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            in_comment = true;
            continue;
        }
        if c == '\'' && prev != '\\' {
            // A char literal such as '"' must not open a string.
            let rest: String = chars.clone().take(3).collect();
            if rest.starts_with("\"'") {
                chars.next();
                chars.next();
                prev = '\'';
                continue;
            }
        }
        if c == '"' {
            let mut lit = String::new();
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        if let Some(e) = chars.next() {
                            lit.push(e);
                        }
                    }
                    '"' => break,
                    _ => lit.push(d),
                }
            }
            out.push(lit);
        }
        prev = c;
    }
    out
}

/// Whether `arg`, one git argument as the code writes it, forces or
/// resolves silently.
fn forcing(arg: &str) -> bool {
    let exact = [
        "-f", "-D", "--hard", "reset", "clean", "theirs", "ours", "-s", "-X",
    ];
    exact.contains(&arg)
        || arg.starts_with("--force")
        || arg.starts_with("-X")
        || arg.starts_with("--strategy")
        || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('f') && arg.len() <= 4)
}

#[test]
fn no_forcing_git_argument_is_ever_written() {
    let files = sources();
    assert!(files.len() > 10, "{files:?}");
    let mut found = Vec::new();
    let mut seen_args = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for lit in literals(&text) {
            if forcing(&lit) {
                found.push(format!("{}: {lit:?}", file.display()));
            }
            if ["worktree", "branch", "merge"].contains(&lit.as_str()) {
                seen_args += 1;
            }
        }
    }
    assert!(found.is_empty(), "forcing git arguments: {found:#?}");
    // The reader sees the git calls at all.
    assert!(seen_args >= 5, "{seen_args}");
}

#[test]
fn forcing_arguments_are_recognised() {
    for arg in [
        "--force",
        "-f",
        "-D",
        "--hard",
        "clean",
        "-Xtheirs",
        "-X",
        "ours",
        "--strategy-option=theirs",
        "-fd",
    ] {
        assert!(forcing(arg), "{arg}");
    }
    for arg in [
        "-d",
        "-q",
        "--no-ff",
        "--no-edit",
        "remove",
        "--porcelain",
        "-z",
        "--format=%(refname)%00",
    ] {
        assert!(!forcing(arg), "{arg}");
    }
}

#[test]
fn the_reader_finds_a_forbidden_argument_where_there_is_one() {
    let text = "git(root, &[\"worktree\", \"remove\", \"--force\", &p]); // \"-D\" in a comment\n";
    let lits = literals(text);
    assert_eq!(lits, ["worktree", "remove", "--force"]);
}

#[test]
fn every_git_call_goes_through_the_wrapper() {
    for file in sources() {
        if file.ends_with("git.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("Command::new") && !text.contains("process::Command"),
            "{} spawns a process itself",
            file.display()
        );
    }
}
