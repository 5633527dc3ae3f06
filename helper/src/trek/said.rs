//! What the areas say on stderr while `trek` calls them: held while the
//! call runs, then passed on each line once per process however many
//! calls print it (the budget warning, say, which every area that reads
//! the budget gives).

use std::io;

use crate::problem;

/// Runs `f`, then prints each diagnostic it gave that this process has
/// not printed yet.
pub(super) fn passing_on<T>(f: impl FnOnce() -> T) -> T {
    let (value, lines) = problem::holding(f);
    pass_on(&lines);
    value
}

/// Why a call whose diagnostics were held ([`problem::holding`]) refused: its problem, else what it
/// printed on stderr, else its exit code.
pub(super) fn why(refusal: Option<&crate::problem::Problem>, said: &[String], code: u8) -> String {
    match refusal {
        Some(p) => p.message.clone(),
        None if !said.is_empty() => said.join("; "),
        None => format!("it exited {code}"),
    }
}

/// Runs a report writer into a string, passing its diagnostics on; returns
/// the text and the writer's exit code.
pub(super) fn text_of(f: impl FnOnce(&mut Vec<u8>) -> io::Result<u8>) -> (String, u8) {
    let mut out = Vec::new();
    // Writing into memory does not fail; a writer's own error is an exit 2.
    let code = passing_on(|| f(&mut out)).unwrap_or(crate::exit::CANNOT_CHECK);
    (String::from_utf8_lossy(&out).into_owned(), code)
}

/// Prints each diagnostic line not printed yet by this process.
pub(super) fn pass_on(lines: &[String]) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut said) = SAID.lock() else {
        return;
    };
    for line in lines {
        if !said.contains(line) {
            said.push(line.clone());
            problem::eprint_line(line);
        }
    }
}
