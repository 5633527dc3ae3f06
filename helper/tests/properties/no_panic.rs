//! No input makes the helper panic (docs/maintainer/conventions.md,
//! "Output and exit codes").
//!
//! The parsers of outside input run here on random bytes and on "soup":
//! random pieces glued together from what each parser looks for (runner
//! keywords, labels, escape sequences, CRs, invalid UTF-8), so that the
//! interesting branches are reached without a fuzzer. The same entry points
//! have cargo-fuzz targets under `fuzz/` for longer runs. Beyond "no panic",
//! only documented bounds are asserted. Case counts are small: the whole file
//! runs in a few seconds.

// A failed unwrap in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::Path;

use proptest::prelude::*;
use voyage_helper::internals::ansi::clean;
use voyage_helper::internals::run::{
    Labels, LineTally, MAX_TIMEOUT_SECS, Request, TAIL_MAX_CHARS, slug,
};
use voyage_helper::internals::verdict::{
    Counted, Findings, Input, MAX_LINE_BYTES, MAX_LINES, RunFacts, RunKind, build, judge, scan,
};

/// `FailureList` keeps this many failures in full and only counts the rest.
const KEPT_FAILURES: usize = 64;
/// `Failure` caps a field at 240 characters, then adds `…`.
const MAX_FIELD_CHARS: usize = 240 + 1;

/// What the runner recognisers look for, whole and in pieces.
const RUNNER_WORDS: &[&str] = &[
    // cargo test and nextest
    "test result: ",
    "test result: FAILED. 1 passed; 2 failed",
    "test result: ok.",
    "test ",
    " ... FAILED",
    "---- x stdout ----",
    "---- ",
    " stdout ----",
    "failures:",
    "thread '",
    "' panicked at ",
    "thread 't' (12) panicked at src/lib.rs:1:2:",
    "thread 't' panicked at 'boom', src/lib.rs:3:4",
    "Error: ",
    "error[E0308]: mismatched types",
    "error: could not compile `x`",
    "error: ",
    "  --> src/main.rs:1:1",
    "        FAIL [   0.008s] (3/7) cart tests::t",
    "SIGSEGV [ 1s] ",
    "TRY 2 FAIL [",
    "  stderr ───",
    "  stdout ───",
    "     Summary [   0.037s] 7 tests run: 4 passed, 3 failed, 0 skipped",
    // go test
    "--- FAIL: ",
    "--- FAIL: TestX (0.00s)",
    "FAIL\t",
    "ok  \t",
    "# pkg",
    "x.go:1:2: undefined",
    "panic: ",
    "\t/src/runtime/panic.go:1 +0x1",
    "\t/a/b.go:7 +0x2",
    "    ",
    // jest, vitest, mocha, rspec
    "Tests:",
    "● ",
    " FAIL ",
    "FAIL ",
    "PASS ",
    "at ",
    "    at Object.<anonymous> (a.js:1:2)",
    "Tests  1 failed",
    "❯ ",
    "⎯⎯⎯",
    "  1 passing (3ms)",
    "  2 failing",
    "  1) ",
    "Failures:",
    "3 examples, 1 failure",
    "1 example, ",
    "# ./spec/x_spec.rb:1",
    // node --test, TAP
    "TAP version 13",
    "not ok ",
    "not ok 1 - name # todo",
    "ok 1 - x",
    "...",
    "  error: |-",
    "  error: 'boom'",
    "  stack: |-",
    "failureType: 'subtestsFailed'",
    "# fail 1",
    "# pass 0",
    "ℹ fail 0",
    "ℹ pass 3",
    "✖ ",
    "✖ name (1.5ms)",
    "✔ ",
    "▶ ",
    "﹣ ",
    // pytest
    "=",
    "==== FAILURES ====",
    "==== ERRORS ====",
    "=== 1 failed, 2 passed in 0.12s ===",
    "____ test_x ____",
    "E   assert 1 == 2",
    "a.py:3: AssertionError",
    "FAILED ",
    "FAILED t.py::T::test_x - boom",
    "ERROR ",
    " - ",
    "::",
    // tsc, eslint, generic
    "Found 2 errors",
    "a.ts(1,2): error TS2322: x",
    "a.ts:1:2 - error TS2322: y",
    "error TS",
    "/src/a.js",
    "  1:2  error  Unexpected  no-undef",
    "✖ 3 problems",
    "tests: 3 passed, 1 failed, 2 skipped",
    " passed, ",
    "0",
    "18446744073709551616",
    "(",
    ")",
    ": ",
    ":",
    " ",
];

/// What the label parsers and the `expect:` judge look for.
const LABEL_WORDS: &[&str] = &[
    "command:",
    "cwd:",
    "timeout:",
    "expect-exit:",
    "Command:",
    "log:",
    "LOG:",
    "exit:",
    "EXIT:",
    "duration:",
    "status:",
    "STATUS: ",
    "reason:",
    "expect:",
    "ok",
    "timeout",
    "error",
    "nonzero",
    "0",
    "05",
    "255",
    "256",
    "86400",
    "86401",
    "99999999999999999999999",
    "-1",
    "sub",
    "/",
    "\\",
    "C:",
    "..",
    "all green",
    "passes",
    "fails",
    "exit code 3",
    "exits with status 300",
    "it returns an exit code 999",
    "not",
    "but",
    "without warnings",
    "don't",
    "true",
    "echo a b",
    "é",
    "***",
    " ",
    "\t",
];

/// Bytes that stress line and escape handling.
const RAW_PIECES: &[&[u8]] = &[
    b"\n",
    b"\n",
    b"\r",
    b"\r\n",
    b"\r\r\n",
    b"\t",
    b"  ",
    b"\x1b",
    b"\x1b[",
    b"\x1b[31m",
    b"\x1b[0m",
    b"\x1b[1;2;3",
    b"\x1b]8;;file:///x\x07",
    b"\x1b]0;title",
    b"\x1b\\",
    b"\x1b(B",
    b"\x1b( ",
    b"\x1b\x1b",
    b"\x07",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xc3\xa9",
    b"\xe2\x9c",
    b"\xe2\x9c\x96",
    b"\xf0\x9f\x98",
    b"\xed\xa0\x80",
    b"\xe2\x80\xa8",
];

/// Random pieces from `words` and [`RAW_PIECES`], with random bytes between.
fn soup(words: &'static [&'static str], pieces: usize) -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec()),
        3 => proptest::sample::select(RAW_PIECES).prop_map(<[u8]>::to_vec),
        2 => proptest::collection::vec(any::<u8>(), 0..12),
        1 => "[a-zA-Z0-9 ._/-]{0,12}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..pieces).prop_map(|v| v.concat())
}

fn random_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..2048)
}

fn run_facts() -> impl Strategy<Value = RunFacts> {
    (
        prop_oneof![
            Just(RunKind::Finished),
            Just(RunKind::TimedOut),
            Just(RunKind::Error)
        ],
        prop_oneof![Just(0), Just(1), Just(124), any::<i32>()],
        0usize..100,
    )
        .prop_map(|(kind, exit, failures)| RunFacts {
            kind,
            exit,
            failures,
            counted: match failures % 3 {
                0 => Counted::Nothing,
                1 => Counted::NoTests,
                _ => Counted::Failed(failures as u64),
            },
        })
}

// ---- run: labels, request, slug -------------------------------------------

fn check_slug(command: &str) {
    let s = slug(command);
    assert!(!s.is_empty());
    assert!(s.chars().count() <= 40, "{s:?}");
    assert!(
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
        "{s:?}"
    );
    assert!(!s.starts_with('-') && !s.ends_with('-'), "{s:?}");
    assert!(!s.contains("--"), "{s:?}");
}

fn check_run_labels(input: &[u8], pwd: &Path) {
    let labels = Labels::parse(input);
    for value in [
        &labels.command,
        &labels.cwd,
        &labels.timeout,
        &labels.expect_exit,
    ]
    .into_iter()
    .flatten()
    {
        assert_eq!(value.trim_ascii(), value.as_slice());
        assert!(!value.contains(&b'\n'));
    }
    if let Ok(request) = Request::from_labels(&labels, pwd) {
        assert!(!request.command.is_empty());
        assert!((1..=MAX_TIMEOUT_SECS).contains(&request.timeout_secs));
        assert!(request.cwd.is_dir());
    }
    if let Some(command) = &labels.command {
        check_slug(&String::from_utf8_lossy(command));
    }
    check_slug(&String::from_utf8_lossy(input));
}

fn pwd() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    dir
}

// ---- run: the line tally --------------------------------------------------

fn tally_in_chunks(output: &[u8], cuts: &[usize]) -> LineTally {
    let mut tally = LineTally::new();
    let mut rest = output;
    for &cut in cuts {
        let (head, tail) = rest.split_at(cut.min(rest.len()));
        tally.feed(head);
        rest = tail;
    }
    tally.feed(rest);
    tally
}

fn check_tally(output: &[u8], cuts: &[usize]) {
    let chunked = tally_in_chunks(output, cuts);
    let newlines = output.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(chunked.lines(), newlines);
    if let Some(tail) = chunked.tail() {
        assert!(tail.chars().count() <= TAIL_MAX_CHARS);
        assert!(!tail.is_empty());
    }
    let whole = tally_in_chunks(output, &[]);
    assert_eq!(whole.tail(), chunked.tail());
}

// ---- verdict: the log scan ------------------------------------------------

/// Hands a log out in small pieces, with an `Interrupted` error first.
struct Choppy<'a> {
    data: &'a [u8],
    step: usize,
    interrupted: bool,
}

impl Read for Choppy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupted = !self.interrupted;
        if self.interrupted {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = self.step.min(buf.len()).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        buf.get_mut(..n).unwrap().copy_from_slice(head);
        self.data = rest;
        Ok(n)
    }
}

fn check_findings(f: &Findings) {
    let items = f.failures.items();
    assert!(items.len() <= KEPT_FAILURES, "{} kept", items.len());
    assert!(f.failures.total() >= items.len());
    let mut names = HashSet::new();
    for failure in items {
        // Two errors at one position (tsc, gcc) share a name, not a message.
        assert!(
            names.insert((&failure.name, &failure.message)),
            "{:?} twice with {:?}",
            failure.name,
            failure.message
        );
        assert!(failure.name.chars().count() <= MAX_FIELD_CHARS);
        assert!(failure.message.chars().count() <= MAX_FIELD_CHARS);
        if let Some(frame) = &failure.frame {
            assert!(!frame.is_empty());
            assert!(frame.chars().count() <= MAX_FIELD_CHARS);
        }
    }
    for line in [&f.summary, &f.last_line].into_iter().flatten() {
        assert!(line.chars().count() <= MAX_LINE_BYTES);
        assert!(!line.contains(['\n', '\u{1b}']), "{line:?}");
    }
}

fn check_scan(log: &[u8], step: usize) -> Findings {
    let whole = scan(log).unwrap();
    check_findings(&whole);
    let choppy = scan(Choppy {
        data: log,
        step,
        interrupted: false,
    })
    .unwrap();
    assert_eq!(whole.runner, choppy.runner);
    assert_eq!(whole.summary, choppy.summary);
    assert_eq!(whole.last_line, choppy.last_line);
    assert_eq!(whole.failures.items(), choppy.failures.items());
    assert_eq!(whole.failures.total(), choppy.failures.total());
    whole
}

// ---- verdict: labels, judge, reply ----------------------------------------

fn check_verdict_labels(input: &[u8], log: &[u8], run: RunFacts) {
    let labels = Input::parse_labels(input);
    for value in [
        &labels.exit,
        &labels.duration,
        &labels.status,
        &labels.reason,
        &labels.expect,
    ]
    .into_iter()
    .flatten()
    {
        // The label reader trims ASCII whitespace only (judge's labels::read):
        // a value may end in a Unicode space, never in an ASCII one.
        assert_eq!(value.trim_ascii(), value);
        assert!(!value.contains('\n'));
    }
    if let Some(expect) = &labels.expect {
        assert!(!judge(expect, run).render().is_empty());
    }
    assert!(
        !judge(&String::from_utf8_lossy(input), run)
            .render()
            .is_empty()
    );

    // The whole reply, with the log pointed at a file we wrote.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.log");
    std::fs::write(&path, log).unwrap();
    let reply = build(&Input {
        log: Some(path),
        ..labels
    });
    let lines = reply.lines();
    assert!(lines.len() <= MAX_LINES, "{} lines", lines.len());
    let mut text = Vec::new();
    reply.render_text(&mut text).unwrap();
    assert_eq!(
        String::from_utf8(text).unwrap().lines().count(),
        lines.len()
    );
    let mut json = Vec::new();
    reply.render_json(&mut json).unwrap();
    assert_eq!(json.iter().filter(|&&b| b == b'\n').count(), 1);
}

// ---- verdict: ANSI stripping ----------------------------------------------

fn check_clean(raw: &[u8]) {
    let cleaned = clean(raw);
    assert!(!cleaned.contains('\u{1b}'), "{cleaned:?}");
    assert_eq!(cleaned.trim_end(), cleaned);
    assert_eq!(clean(cleaned.as_bytes()), cleaned);
}

/// What the Claude Code CLI's stream-json lines are made of.
const STREAM_WORDS: &[&str] = &[
    "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"usage\":{\"input_tokens\":1},\"content\":[",
    "{\"type\":\"text\",\"text\":\"hi\"}",
    "{\"type\":\"tool_use\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}",
    "]}}",
    "{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"total_cost_usd\":0.5,",
    "\"usage\":{\"cache_read_input_tokens\":18446744073709551615,\"output_tokens\":-1},",
    "\"structured_output\":{\"a\":[1]},\"errors\":[\"x\",2],\"result\":\"boom\"}",
    "{\"type\":\"system\",\"subtype\":\"init\"}",
    "\n",
    "\r\n",
    "\u{1b}[31m",
    "not json",
    "\"",
    "{",
    "}",
];

/// The claude provider's reading of its CLI's output, in chunks cut at
/// `cuts`: every event serialises, the failure message starts with the
/// step and the code, and the chunking changes nothing.
fn check_claude_stream(output: &[u8], cuts: &[usize]) {
    use std::sync::Mutex;
    use voyage_helper::internals::workflow::{LineSplitter, QUOTED_LINES, Stream};

    let read = |cuts: &[usize]| {
        let events = Mutex::new(Vec::new());
        let mut stream = Stream::default();
        let mut lines = LineSplitter::with_limit(1 << 12);
        let mut rest = output;
        for &cut in cuts {
            let (piece, after) = rest.split_at(cut.min(rest.len()));
            lines.feed(piece, &mut |line| stream.line(&line, &events));
            rest = after;
        }
        lines.feed(rest, &mut |line| stream.line(&line, &events));
        lines.finish(&mut |line| stream.line(&line, &events));
        let events: Vec<String> = events
            .into_inner()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        let quoted = stream.quoted().to_vec();
        (events, stream.failure("s", 2), quoted)
    };
    let (events, failure, quoted) = read(cuts);
    assert!(failure.starts_with("Step \"s\": claude exited with code 2"));
    assert!(
        quoted.len() <= QUOTED_LINES,
        "{} lines quoted",
        quoted.len()
    );
    assert!(failure.ends_with(&quoted.iter().map(|l| format!("\n{l}")).collect::<String>()));
    assert_eq!(read(&[]), (events, failure, quoted));
}

/// Pieces of the OpenCode CLI's `--format json` output.
const OPENCODE_WORDS: &[&str] = &[
    "{\"type\":\"text\",\"part\":{\"type\":\"text\",\"text\":\"hi {\\\"a\\\": 1}\"}}",
    "{\"type\":\"text\",\"part\":{\"synthetic\":true,\"text\":\"x\"}}",
    "{\"type\":\"tool_use\",\"part\":{\"tool\":\"bash\",\"state\":{\"input\":{\"command\":\"ls\"}}}}",
    "{\"type\":\"step_finish\",\"part\":{\"cost\":1e308,\"tokens\":{\"input\":18446744073709551615,\"output\":-1,\"cache\":{\"read\":18446744073709551615,\"write\":\"x\"}}}}",
    "{\"type\":\"error\",\"error\":{\"name\":\"APIError\",\"data\":{\"message\":\"boom\"}}}",
    "{\"type\":\"error\",\"error\":[1]}",
    "{\"type\":\"step_start\",\"part\":{}}",
    "{\"type\":\"done\"}",
    "\n",
    "\r\n",
    "\u{1b}[31m",
    "not json",
    "\"",
    "{",
    "}",
];

/// The opencode provider's reading of its CLI's output, in chunks cut at
/// `cuts`, as a structured call or not: every event serialises, the
/// failure message starts with the step and the code, and the chunking
/// changes nothing.
fn check_opencode_stream(output: &[u8], cuts: &[usize], structured: bool) {
    use std::sync::Mutex;
    use voyage_helper::internals::workflow::{LineSplitter, OpenCodeStream, QUOTED_LINES};

    let read = |cuts: &[usize]| {
        let events = Mutex::new(Vec::new());
        let mut stream = OpenCodeStream::new(structured);
        let mut lines = LineSplitter::with_limit(1 << 12);
        let mut rest = output;
        for &cut in cuts {
            let (piece, after) = rest.split_at(cut.min(rest.len()));
            lines.feed(piece, &mut |line| stream.line(&line, &events));
            rest = after;
        }
        lines.feed(rest, &mut |line| stream.line(&line, &events));
        lines.finish(&mut |line| stream.line(&line, &events));
        stream.finish(&events);
        let events: Vec<String> = events
            .into_inner()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        let quoted = stream.quoted().to_vec();
        (events, stream.failure("s", 2), quoted)
    };
    let (events, failure, quoted) = read(cuts);
    assert!(failure.starts_with("Step \"s\": opencode exited with code 2"));
    assert!(
        quoted.len() <= QUOTED_LINES,
        "{} lines quoted",
        quoted.len()
    );
    assert!(failure.ends_with(&quoted.iter().map(|l| format!("\n{l}")).collect::<String>()));
    assert_eq!(read(&[]), (events, failure, quoted));
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn run_labels_random(input in random_bytes()) {
        check_run_labels(&input, pwd().path());
    }

    #[test]
    fn run_labels_soup(lines in proptest::collection::vec(soup(LABEL_WORDS, 8), 0..12)) {
        check_run_labels(&lines.join(&b'\n'), pwd().path());
    }

    #[test]
    fn slug_any_text(command in any::<String>()) {
        check_slug(&command);
    }

    #[test]
    fn tally_random(output in random_bytes(), cuts in proptest::collection::vec(0usize..64, 0..16)) {
        check_tally(&output, &cuts);
    }

    #[test]
    fn tally_soup(output in soup(RUNNER_WORDS, 64), cuts in proptest::collection::vec(0usize..64, 0..16)) {
        check_tally(&output, &cuts);
    }

    #[test]
    fn scan_random(log in random_bytes(), step in 1usize..40) {
        check_scan(&log, step);
    }

    #[test]
    fn scan_soup(log in soup(RUNNER_WORDS, 160), step in 1usize..40) {
        check_scan(&log, step);
    }

    #[test]
    fn verdict_labels_random(input in random_bytes(), log in random_bytes(), run in run_facts()) {
        check_verdict_labels(&input, &log, run);
    }

    #[test]
    fn verdict_labels_soup(
        lines in proptest::collection::vec(soup(LABEL_WORDS, 8), 0..12),
        log in soup(RUNNER_WORDS, 120),
        run in run_facts(),
    ) {
        check_verdict_labels(&lines.join(&b'\n'), &log, run);
    }

    #[test]
    fn clean_random(raw in random_bytes()) {
        check_clean(&raw);
    }

    #[test]
    fn clean_soup(raw in soup(RUNNER_WORDS, 64)) {
        check_clean(&raw);
    }

    #[test]
    fn claude_stream_random(output in random_bytes(), cuts in proptest::collection::vec(0usize..64, 0..16)) {
        check_claude_stream(&output, &cuts);
    }

    #[test]
    fn claude_stream_soup(output in soup(STREAM_WORDS, 64), cuts in proptest::collection::vec(0usize..64, 0..16)) {
        check_claude_stream(&output, &cuts);
    }

    #[test]
    fn opencode_stream_random(output in random_bytes(), cuts in proptest::collection::vec(0usize..64, 0..16), structured in any::<bool>()) {
        check_opencode_stream(&output, &cuts, structured);
    }

    #[test]
    fn opencode_stream_soup(output in soup(OPENCODE_WORDS, 64), cuts in proptest::collection::vec(0usize..64, 0..16), structured in any::<bool>()) {
        check_opencode_stream(&output, &cuts, structured);
    }

    #[test]
    fn workflow_urls_soup(base in soup(URL_WORDS, 12), reference in soup(URL_WORDS, 8)) {
        check_workflow_url(&String::from_utf8_lossy(&base), &String::from_utf8_lossy(&reference));
    }

    #[test]
    fn interjection_lines_any_bytes(data in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b' '), Just(b'\r'), any::<u8>()], 0..200), cut in 0usize..201) {
        check_interjection_lines(&data, cut);
    }
}

/// The checks of fuzz target `interject_lines`: only complete lines, no
/// blank message, and two reads at any cut give the messages of one.
#[allow(clippy::indexing_slicing)] // a failed index is a failed check here
fn check_interjection_lines(data: &[u8], cut: usize) {
    use voyage_helper::internals::workflow::interjection_lines;
    let (messages, used) = interjection_lines(data);
    assert!(used == 0 || data[used - 1] == b'\n');
    assert!(!data[used..].contains(&b'\n'));
    assert!(
        messages
            .iter()
            .all(|m| !m.trim().is_empty() && !m.contains('\n'))
    );
    let cut = cut.min(data.len());
    let (first, used_first) = interjection_lines(&data[..cut]);
    let (second, _) = interjection_lines(&data[used_first..]);
    let pieces: Vec<String> = first.into_iter().chain(second).collect();
    assert_eq!(pieces, messages);
}

/// Pieces of URLs and references, for the remote workflow URL functions.
const URL_WORDS: &[&str] = &[
    "https://",
    "http://",
    "HTTPS://",
    "ftp://",
    "//",
    "/",
    "./",
    "../",
    ".",
    "..",
    "github.com",
    "gist.github.com",
    "raw.githubusercontent.com",
    "blob",
    "main",
    "@",
    ":",
    "[::1]",
    "?",
    "#",
    "%2e",
    "a.yaml",
];

/// The checks of fuzz target `workflow_url`: raw twice is raw once, and a
/// reference joined to an http(s) base is an http(s) URL or refused.
fn check_workflow_url(base: &str, reference: &str) {
    use voyage_helper::internals::workflow::{join_url, raw_url, url_host};
    let raw = raw_url(base);
    assert_eq!(raw_url(&raw), raw);
    let _ = url_host(base);
    let lower = base.to_ascii_lowercase();
    if (lower.starts_with("http://") || lower.starts_with("https://"))
        && let Some(joined) = join_url(base, reference)
    {
        let joined = joined.to_ascii_lowercase();
        assert!(
            joined.starts_with("http://") || joined.starts_with("https://"),
            "{joined}"
        );
    }
}

// ---- fixed adversarial inputs ---------------------------------------------

/// The inputs no random generator is likely to reach: sizes and repetitions.
fn adversarial() -> Vec<(&'static str, Vec<u8>)> {
    let many_failures: Vec<u8> = (0..1000)
        .flat_map(|i| {
            format!("---- t{i} stdout ----\nthread 't{i}' panicked at a.rs:1:1:\n").into_bytes()
        })
        .chain(*b"test result: FAILED. 0 passed; 1000 failed\n")
        .collect();
    let long_name = format!(
        "--- FAIL: {} (0.00s)\n    {}\n",
        "n".repeat(10_000),
        "m".repeat(10_000)
    );
    vec![
        ("empty", Vec::new()),
        ("one huge line", b"test result: ".repeat(100_000)),
        (
            "huge line then a summary",
            [vec![b'x'; 300_000], b"\ntest result: ok.\n".to_vec()].concat(),
        ),
        ("CR-only lines", b"50%\r".repeat(50_000)),
        ("only newlines", vec![b'\n'; 200_000]),
        ("only blanks", b" \t".repeat(50_000)),
        ("NUL bytes", vec![0; 70_000]),
        ("invalid UTF-8", b"\xff\xfe\xc3".repeat(30_000)),
        (
            "split multibyte",
            b"\xe2\x9c\x96 x (1ms)\n\xe2\x9c".repeat(10_000),
        ),
        (
            "unterminated CSI",
            [b"\x1b[".to_vec(), vec![b'1'; 100_000]].concat(),
        ),
        (
            "unterminated OSC",
            [b"\x1b]8;;".to_vec(), vec![b'x'; 100_000]].concat(),
        ),
        ("escape soup", b"\x1b\x1b[\x1b]\x1b(\x1b ".repeat(20_000)),
        ("many failures", many_failures),
        ("long failure names", long_name.into_bytes()),
        (
            "many TAP failures",
            b"TAP version 13\n"
                .iter()
                .copied()
                .chain(b"not ok 1 - x\n  error: |-\n".repeat(5_000))
                .collect(),
        ),
        (
            "pytest sections",
            b"==== FAILURES ====\n"
                .iter()
                .copied()
                .chain(b"____ t ____\nE x\nFAILED a.py::t - y\n".repeat(5_000))
                .collect(),
        ),
    ]
}

#[test]
fn adversarial_inputs() {
    let dir = pwd();
    for (name, input) in adversarial() {
        eprintln!("{name}");
        check_run_labels(&input, dir.path());
        check_tally(&input, &[1, 4096, 3, 65_536]);
        check_clean(&input);
        let findings = check_scan(&input, 4093);
        if name == "many failures" {
            assert_eq!(findings.failures.total(), 1000);
        }
        check_verdict_labels(
            &input,
            &input,
            RunFacts {
                kind: RunKind::Finished,
                exit: 1,
                failures: 3,
                counted: Counted::Failed(3),
            },
        );
    }
}

#[test]
fn labels_with_huge_values() {
    let dir = pwd();
    let huge = "9".repeat(100_000);
    let input = format!(
        "command: {huge}\ncwd: {huge}\ntimeout: {huge}\nexpect-exit: {huge}\nexit: {huge}\nexpect: exit code {huge}\n"
    );
    check_run_labels(input.as_bytes(), dir.path());
    let input = format!("exit: {huge}\nexpect: exits {huge}\n");
    check_verdict_labels(
        input.as_bytes(),
        b"ok\n",
        RunFacts {
            kind: RunKind::Finished,
            exit: 0,
            failures: 0,
            counted: Counted::Nothing,
        },
    );
}
