//! Values followed through the shell's own data flow: every command the
//! denylist corpus (`tests/data/denylist.jsonl`) expects blocked stays
//! blocked when it is held in a variable and run through `eval` or
//! `bash -c`, when it comes after unrelated assignments, when it is a
//! function's body, when its words are put in an array that is run whole or
//! passed as a function's or `sh -c`'s arguments, and when any one of its
//! arguments is held in a variable, an array or `read` from a here-string
//! first.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use serde_json::Value;
use voyage_helper::internals::scan::{Context, Decision, judge_command};

fn blocked_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/denylist.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|v| v["expect"] == "block")
        .map(|v| v["command"].as_str().unwrap().to_owned())
        .collect()
}

/// `text` as one single-quoted shell word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A word written so that the shell reads it back as `text`: bare when it
/// is plain (so a glob stays a glob), else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^~*?".contains(c));
    if plain { text.to_owned() } else { quote(text) }
}

/// The words of a command line that is one simple command of plain or
/// quoted words (no expansion, operator or redirection); `None` otherwise.
/// Written apart from the engine: quotes and backslashes only.
fn simple_words(line: &str) -> Option<Vec<String>> {
    if line.contains(|c| ";|&<>()$`\n{}[]#!".contains(c)) {
        return None;
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    (words.len() >= 2).then_some(words)
}

/// Every way of wrapping `line` this test tries.
fn wrappings(line: &str) -> Vec<String> {
    let mut out = vec![
        format!("v={}; eval \"$v\"", quote(line)),
        format!("v={}; bash -c \"$v\"", quote(line)),
        format!("OUT=build; n=3\n{line}"),
        format!("run_it() {{\n{line}\n}}\nrun_it"),
    ];
    let Some(words) = simple_words(line) else {
        return out;
    };
    // Leading assignments and reserved words mean something only where they
    // are written: held in a variable they are plain words, and the command
    // is another one.
    let assignment = |word: &str| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let leading = words.iter().take_while(|w| assignment(w)).count();
    if leading > 0 || ["coproc", "time"].contains(&words[0].as_str()) {
        return out;
    }
    let all: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
    out.push(format!("a=({}); \"${{a[@]}}\"", all.join(" ")));
    // Through positional parameters: a function, and `sh -c`.
    out.push(format!("f() {{ \"$@\"; }}; f {}", all.join(" ")));
    out.push(format!("sh -c '\"$0\" \"$@\"' {}", all.join(" ")));
    out.push(format!(
        "a=({}); a+=({}); \"${{a[@]}}\"",
        all[0],
        all[1..].join(" ")
    ));
    for i in 1..words.len() {
        let with = |use_: &str| {
            let mut line = all.clone();
            line[i] = use_.to_owned();
            line.join(" ")
        };
        let word = &words[i];
        // A glob is only a glob unquoted.
        let unquoted = word.contains(['*', '?']);
        let held = if unquoted { "$v" } else { "\"$v\"" };
        out.push(format!("v={}; {}", shell_word(word), with(held)));
        out.push(format!("w=({}); {}", shell_word(word), with("\"${w[0]}\"")));
        if !word.contains([' ', '\t']) {
            out.push(format!("read -r v <<< {}; {}", quote(word), with(held)));
        }
    }
    out
}

#[test]
fn blocked_commands_stay_blocked_through_variables() {
    let ctx = Context {
        home: Some("/home/user".into()),
    };
    let mut tried = 0;
    let mut unblocked = Vec::new();
    for line in blocked_lines() {
        for wrapped in wrappings(&line) {
            tried += 1;
            if judge_command(&wrapped, &ctx).decision() != Decision::Block {
                unblocked.push(format!("{line:?} as {wrapped:?}"));
            }
        }
    }
    assert!(tried > 1000, "only {tried} wrappings");
    assert!(
        unblocked.is_empty(),
        "{} of {tried} wrappings unblocked:\n{}",
        unblocked.len(),
        unblocked.join("\n")
    );
}

#[test]
fn the_word_splitter_reads_quotes() {
    assert_eq!(
        simple_words(r#"rm -rf "a b" 'c d' e\ f"#).unwrap(),
        ["rm", "-rf", "a b", "c d", "e f"]
    );
    assert_eq!(simple_words("rm -rf /; ls"), None);
    assert_eq!(simple_words("rm 'unclosed"), None);
}
