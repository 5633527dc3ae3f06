//! The plugin's launcher, `plugin/bin/voyage-helper`: how it finds the helper
//! binary, builds it once under a lock, never loops back into itself, and
//! never leaves Claude Code's hooks waiting on a build (they answer at once
//! and the build runs in the background).
//!
//! Every run gets a cleared environment and an explicit `PATH` made of
//! directories holding just the programs that run needs, so the host's own
//! `cargo` or `voyage-helper` can never leak in. The "helpers" here are small
//! scripts; none of these tests needs the real helper binary.

// Test code: a panic here is a failed assertion (clippy.toml allows this
// inside #[test] fns, but not in the helpers they share).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use tempfile::TempDir;
use voyage_tests::{
    COMMAND_TIMEOUT as TIMEOUT, launcher, launcher_version, link_tools, repo_root, run, sh_quote,
    text, write_executable,
};

/// What the launcher and the fake scripts call besides shell builtins.
const TOOLS: &[&str] = &[
    "sh", "cat", "mkdir", "rm", "rmdir", "sleep", "readlink", "ls", "mv", "chmod", "head", "tr",
    "sed", "find", "touch",
];

/// A fake helper: answers `--version` as the launcher's version; otherwise
/// prints a tag, each argument on its own line, then stdin; exits with
/// `code`.
fn fake_helper(tag: &str, code: i32) -> String {
    format!(
        "#!/bin/sh\n[ \"$*\" = --version ] && {{ echo 'voyage-helper {version}'; exit 0; }}\n\
         printf '%s\\n' {tag}\nfor a in \"$@\"; do printf 'arg<%s>\\n' \"$a\"; done\n\
         printf 'stdin<'; cat; printf '>\\n'\nexit {code}\n",
        tag = sh_quote(tag),
        version = launcher_version().unwrap(),
    )
}

/// A scratch area: `tools/` with the programs from [`TOOLS`], and helpers to
/// lay out plugin roots and PATHs inside it.
struct Scratch {
    dir: TempDir,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        link_tools(&dir.path().join("tools"), TOOLS).unwrap();
        Scratch { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn tools(&self) -> PathBuf {
        self.path("tools")
    }

    /// A copy of the repository's launcher at `<name>/plugin/bin/voyage-helper`;
    /// returns the plugin root.
    fn plugin_root(&self, name: &str) -> PathBuf {
        let root = self.path(name);
        let text = fs::read_to_string(launcher()).unwrap();
        write_executable(&root.join("plugin/bin/voyage-helper"), &text).unwrap();
        root
    }

    /// A PATH value made of the given directories, then `tools/`.
    fn path_var(&self, dirs: &[&Path]) -> String {
        let mut all: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
        all.push(self.tools());
        std::env::join_paths(all).unwrap().into_string().unwrap()
    }
}

/// The launcher at `path`, with nothing but `PATH` in its environment.
fn launch(path: &Path, path_var: &str) -> Command {
    let mut cmd = Command::new(path);
    cmd.env_clear().env("PATH", path_var);
    cmd
}

fn stderr_lines(out: &Output) -> Vec<String> {
    text(&out.stderr).lines().map(str::to_string).collect()
}

#[test]
fn voyage_helper_variable_passes_arguments_stdin_and_exit_code_through() {
    let s = Scratch::new();
    let fake = s.path("fake/helper");
    write_executable(&fake, &fake_helper("fake", 42)).unwrap();

    let mut cmd = launch(&launcher(), &s.path_var(&[]));
    cmd.env("VOYAGE_HELPER", &fake).args([
        "plan",
        "two words",
        "",
        "$HOME *",
        "line\nbreak",
        "--json",
    ]);
    let out = run(cmd, "from stdin\nsecond line");

    assert_eq!(out.status.code(), Some(42), "stderr: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "fake\narg<plan>\narg<two words>\narg<>\narg<$HOME *>\narg<line\nbreak>\narg<--json>\n\
         stdin<from stdin\nsecond line>\n"
    );
    assert_eq!(text(&out.stderr), "", "the launcher itself stays silent");
}

#[test]
fn voyage_helper_variable_that_is_not_executable_fails_with_127() {
    let s = Scratch::new();
    let plain = s.path("plain-file");
    fs::write(&plain, "not a program").unwrap();
    let missing = s.path("does/not/exist");
    let directory = s.tools();

    for target in [&plain, &missing, &directory] {
        let mut cmd = launch(&launcher(), &s.path_var(&[]));
        cmd.env("VOYAGE_HELPER", target).arg("--help");
        let out = run(cmd, "");
        assert_eq!(out.status.code(), Some(127), "{}", target.display());
        assert!(out.stdout.is_empty());
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "one line on stderr: {lines:?}");
        assert!(lines[0].contains("VOYAGE_HELPER"), "{lines:?}");
        assert!(
            lines[0].contains(&target.display().to_string()),
            "{lines:?}"
        );
    }
}

#[test]
fn voyage_helper_variable_pointing_at_the_launcher_does_not_loop() {
    let s = Scratch::new();
    let mut cmd = launch(&launcher(), &s.path_var(&[]));
    cmd.env("VOYAGE_HELPER", launcher());
    let out = run(cmd, "");
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(stderr_lines(&out).len(), 1);
}

#[test]
fn release_build_in_the_plugin_root_is_used() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    write_executable(
        &root.join("target/release/voyage-helper"),
        &fake_helper("release", 0),
    )
    .unwrap();

    let mut cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
    // An empty VOYAGE_HELPER counts as unset.
    cmd.env("VOYAGE_HELPER", "").args(["a b", "c"]);
    let out = run(cmd, "in");
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "release\narg<a b>\narg<c>\nstdin<in>\n");
    assert!(out.stderr.is_empty());
}

#[test]
fn launcher_reached_through_symlinks_finds_its_own_plugin_root() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    write_executable(
        &root.join("target/release/voyage-helper"),
        &fake_helper("release", 0),
    )
    .unwrap();
    // ~/bin/voyage-helper -> an absolute link -> a relative link -> the launcher.
    fs::create_dir_all(s.path("links")).unwrap();
    std::os::unix::fs::symlink("../plugin/plugin/bin/voyage-helper", s.path("links/rel")).unwrap();
    fs::create_dir_all(s.path("home/bin")).unwrap();
    std::os::unix::fs::symlink(s.path("links/rel"), s.path("home/bin/voyage-helper")).unwrap();

    let out = run(
        launch(&s.path("home/bin/voyage-helper"), &s.path_var(&[])),
        "",
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "release\nstdin<>\n");

    // Invoked by bare name through PATH, as a person would.
    let mut cmd = Command::new("sh");
    cmd.env_clear()
        .env("PATH", s.path_var(&[&s.path("home/bin")]))
        .args(["-c", "voyage-helper x"]);
    let out = run(cmd, "");
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "release\narg<x>\nstdin<>\n");
}

#[test]
fn path_lookup_skips_the_launcher_itself() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let bin_dir = root.join("plugin/bin");
    // A symlink to the launcher in another PATH directory is the launcher too.
    fs::create_dir_all(s.path("alias")).unwrap();
    std::os::unix::fs::symlink(bin_dir.join("voyage-helper"), s.path("alias/voyage-helper"))
        .unwrap();
    write_executable(
        &s.path("installed/voyage-helper"),
        &fake_helper("installed", 3),
    )
    .unwrap();

    let path_var = s.path_var(&[&bin_dir, &s.path("alias"), &s.path("installed")]);
    let mut cmd = launch(&bin_dir.join("voyage-helper"), &path_var);
    cmd.args(["hook", "pre-tool-use"]);
    let out = run(cmd, "{\"tool\":\"Bash\"}");
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "installed\narg<hook>\narg<pre-tool-use>\nstdin<{\"tool\":\"Bash\"}>\n"
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn only_the_launcher_on_path_and_no_cargo_fails_with_127_naming_both_routes() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let bin_dir = root.join("plugin/bin");
    let out = run(
        launch(&bin_dir.join("voyage-helper"), &s.path_var(&[&bin_dir])),
        "",
    );
    assert_eq!(out.status.code(), Some(127));
    assert!(out.stdout.is_empty());
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "one line on stderr: {lines:?}");
    let install = format!("cargo install --locked --path {}/helper", root.display());
    assert!(lines[0].starts_with("voyage-helper: "), "{lines:?}");
    assert!(lines[0].contains(&install), "{lines:?}");
    assert!(lines[0].contains("rustup.rs"), "{lines:?}");
}

#[test]
fn two_launcher_copies_on_path_do_not_hand_off_to_each_other_forever() {
    let s = Scratch::new();
    let one = s.plugin_root("one").join("plugin/bin");
    let two = s.plugin_root("two").join("plugin/bin");
    let path_var = s.path_var(&[&one, &two]);
    let out = run(launch(&one.join("voyage-helper"), &path_var), "");
    assert_eq!(
        out.status.code(),
        Some(127),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(stderr_lines(&out).len(), 1);
}

/// A fake `cargo` that records each call in `log`, prints progress on its
/// stdout (which must not reach the launcher's), takes a second, honours
/// `--target-dir`, and then "builds" a helper (or fails with `fail_with`).
fn fake_cargo(s: &Scratch, log: &Path, fail_with: Option<i32>) -> PathBuf {
    let build = match fail_with {
        Some(code) => format!("echo 'error: could not compile' >&2\nexit {code}\n"),
        None => format!(
            "mkdir -p \"$target/release\"\n\
             printf '%s\\n' {helper} >\"$target/release/voyage-helper.part\"\n\
             chmod 755 \"$target/release/voyage-helper.part\"\n\
             mv \"$target/release/voyage-helper.part\" \"$target/release/voyage-helper\"\n",
            helper = sh_quote(&fake_helper("built", 0))
        ),
    };
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >>{log}\n\
         target=\nprev=\nfor a in \"$@\"; do [ \"$prev\" = --target-dir ] && target=$a; prev=$a; done\n\
         echo '   Compiling voyage-helper (on stdout: the launcher must move it)'\nsleep 1\n{build}",
        log = sh_quote(&log.display().to_string()),
    );
    let dir = s.path("cargo-bin");
    write_executable(&dir.join("cargo"), &script).unwrap();
    dir
}

fn calls(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A plugin root with a `Cargo.toml` (the launcher builds only a workspace)
/// and the repository's build script, which the launcher builds through.
fn buildable_root(s: &Scratch) -> PathBuf {
    let root = s.plugin_root("plugin");
    fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
    let script = fs::read_to_string(repo_root().join("scripts/build-helper.sh")).unwrap();
    write_executable(&root.join("scripts/build-helper.sh"), &script).unwrap();
    root
}

/// A fake C compiler answering `-print-file-name=libc.a` with `answer`, the
/// way the build script asks whether glibc's static library is there, and
/// a `uname` saying Linux (the only system the script links statically on),
/// so the test means the same on any host.
fn fake_cc(s: &Scratch, answer: &str) -> PathBuf {
    let dir = s.path(&format!("cc-{}", answer.len()));
    let script = format!("#!/bin/sh\nprintf '%s\\n' {}\n", sh_quote(answer));
    write_executable(&dir.join("cc"), &script).unwrap();
    write_executable(&dir.join("uname"), "#!/bin/sh\necho Linux\n").unwrap();
    dir
}

#[test]
fn concurrent_first_calls_build_once_and_both_succeed() {
    let s = Scratch::new();
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let cargo_dir = fake_cargo(&s, &log, None);
    let path_var = s.path_var(&[&cargo_dir]);
    let launcher = root.join("plugin/bin/voyage-helper");

    let children: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|arg| {
            launch(&launcher, &path_var)
                .arg(arg)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();

    for (out, arg) in outs.iter().zip(["first", "second"]) {
        assert!(out.status.success(), "stderr: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("built\narg<{arg}>\nstdin<>\n"));
        for line in stderr_lines(out) {
            assert!(
                line.starts_with("voyage-helper: ") || line.starts_with("   Compiling"),
                "unexpected stderr line {line:?}"
            );
        }
    }
    let made = calls(&log);
    assert_eq!(made.len(), 1, "cargo ran once: {made:?}");
    // No C compiler on this PATH: the usual dynamically linked build.
    assert_eq!(
        made[0],
        format!(
            "build --release --locked -p voyage-helper --manifest-path {root}/scripts/../Cargo.toml --target-dir {root}/target",
            root = root.display()
        ),
    );
    let all_stderr: String = outs.iter().map(|o| text(&o.stderr)).collect();
    assert_eq!(all_stderr.matches("building").count(), 1, "{all_stderr}");
    assert!(
        !root.join("target/.voyage-build.lock").exists(),
        "the lock is released"
    );

    // Later calls find the binary without cargo.
    let out = run(launch(&launcher, &s.path_var(&[])), "");
    assert!(out.status.success());
    assert_eq!(calls(&log).len(), 1);
}

#[test]
fn stale_build_lock_of_a_dead_process_is_taken_over() {
    let s = Scratch::new();
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let cargo_dir = fake_cargo(&s, &log, None);

    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let lock = root.join("target/.voyage-build.lock");
    fs::create_dir_all(&lock).unwrap();
    fs::write(lock.join("pid"), format!("{dead_pid}\n")).unwrap();

    let mut cmd = launch(
        &root.join("plugin/bin/voyage-helper"),
        &s.path_var(&[&cargo_dir]),
    );
    cmd.arg("go");
    let out = run(cmd, "");
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "built\narg<go>\nstdin<>\n");
    assert!(text(&out.stderr).contains("stale"), "{}", text(&out.stderr));
    assert_eq!(calls(&log).len(), 1);
    assert!(!lock.exists(), "the lock is released");
}

#[test]
fn failed_build_exits_with_cargos_status_and_releases_the_lock() {
    let s = Scratch::new();
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let cargo_dir = fake_cargo(&s, &log, Some(101));

    let out = run(
        launch(
            &root.join("plugin/bin/voyage-helper"),
            &s.path_var(&[&cargo_dir]),
        ),
        "",
    );
    assert_eq!(out.status.code(), Some(101));
    assert!(out.stdout.is_empty());
    let failures: Vec<String> = stderr_lines(&out)
        .into_iter()
        .filter(|l| l.starts_with("voyage-helper: ") && l.contains("failed"))
        .collect();
    assert_eq!(failures.len(), 1, "{}", text(&out.stderr));
    assert!(!root.join("target/.voyage-build.lock").exists());
    assert_eq!(calls(&log).len(), 1);
}

#[test]
fn build_links_statically_only_when_the_toolchain_has_a_static_libc() {
    let s = Scratch::new();
    let libc = s.path("libc.a");
    fs::write(&libc, "").unwrap();
    let with = fake_cc(&s, &libc.display().to_string());
    // What gcc prints for a library it does not have: the bare name.
    let without = fake_cc(&s, "libc.a");

    for (cc_dir, expect_static) in [(with, true), (without, false)] {
        let root = buildable_root(&s);
        fs::remove_dir_all(root.join("target")).ok();
        let log = s.path("cargo.log");
        fs::remove_file(&log).ok();
        let cargo_dir = fake_cargo(&s, &log, None);
        let out = run(
            launch(
                &root.join("plugin/bin/voyage-helper"),
                &s.path_var(&[&cargo_dir, &cc_dir]),
            ),
            "",
        );
        assert!(out.status.success(), "stderr: {}", text(&out.stderr));
        let made = calls(&log);
        assert_eq!(made.len(), 1, "{made:?}");
        let call = &made[0];
        if expect_static {
            assert!(
                call.starts_with("rustc --release --locked -p voyage-helper --bin voyage-helper "),
                "{call}"
            );
            assert!(
                call.ends_with(" -- -C target-feature=+crt-static -C relocation-model=static"),
                "{call}"
            );
        } else {
            assert!(call.starts_with("build --release "), "{call}");
            assert!(!call.contains("crt-static"), "{call}");
        }
        assert!(
            call.contains(&format!("--target-dir {}/target", root.display())),
            "{call}"
        );
    }
}

/// A static link can fail even with libc.a there (a toolchain without
/// libgcc_eh): the script says so and builds the dynamic helper instead.
#[test]
fn a_failed_static_build_falls_back_to_the_dynamic_one() {
    let s = Scratch::new();
    let libc = s.path("libc.a");
    fs::write(&libc, "").unwrap();
    let cc_dir = fake_cc(&s, &libc.display().to_string());
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let working = fake_cargo(&s, &log, None);
    // In front of the working fake: `cargo rustc` fails, the rest is passed on.
    let picky = s.path("picky-cargo");
    write_executable(
        &picky.join("cargo"),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = rustc ]; then printf '%s\\n' \"$*\" >>{log}; \
             echo 'error: linking with `cc` failed' >&2; exit 101; fi\nexec {real} \"$@\"\n",
            log = sh_quote(&log.display().to_string()),
            real = sh_quote(&working.join("cargo").display().to_string()),
        ),
    )
    .unwrap();
    let out = run(
        launch(
            &root.join("plugin/bin/voyage-helper"),
            &s.path_var(&[&picky, &cc_dir]),
        ),
        "",
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "built\nstdin<>\n");
    let made = calls(&log);
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(made[0].starts_with("rustc "), "{made:?}");
    assert!(made[1].starts_with("build --release "), "{made:?}");
    assert!(
        text(&out.stderr).contains("the static build failed; building a dynamically linked helper"),
        "{}",
        text(&out.stderr)
    );
}

/// Waits until `path` exists (a background build's product), or fails.
fn wait_for(path: &Path) {
    let deadline = std::time::Instant::now() + TIMEOUT;
    while !path.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The build's lock is released just after the binary lands.
    let lock = path
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join(".voyage-build.lock");
    while lock.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the build lock stayed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn hook_call(mode: Option<&str>) -> String {
    let mode = mode.map_or(String::new(), |m| format!("\"permission_mode\": \"{m}\", "));
    format!(
        "{{\"session_id\": \"s\", {mode}\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Bash\", \"tool_input\": {{\"command\": \"rm -rf /\"}}}}"
    )
}

fn decision(out: &Output) -> (String, String) {
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)));
    let specific = &reply["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PreToolUse");
    (
        specific["permissionDecision"].as_str().unwrap().to_owned(),
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[test]
fn the_guard_with_no_binary_yet_answers_at_once_failing_closed_and_builds_in_the_background() {
    let s = Scratch::new();
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let cargo_dir = fake_cargo(&s, &log, None);
    let path_var = s.path_var(&[&cargo_dir]);
    let launcher = root.join("plugin/bin/voyage-helper");
    let bin = root.join("target/release/voyage-helper");

    // A person can answer: ask. The fake cargo takes a second; the answer
    // comes before the build ends.
    let mut cmd = launch(&launcher, &path_var);
    cmd.args(["hook", "pre-tool-use"]);
    let out = run(cmd, &hook_call(Some("default")));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let (answer, reason) = decision(&out);
    assert_eq!(answer, "ask");
    assert!(reason.contains("still being built"), "{reason}");
    assert!(reason.contains("voyage-build.log"), "{reason}");
    assert!(!bin.exists(), "the answer did not wait for the build");
    wait_for(&bin);
    assert_eq!(calls(&log).len(), 1, "one background build");

    // No person to ask (bypass mode, or no mode at all): deny.
    for mode in [Some("bypassPermissions"), Some("dontAsk"), None] {
        let s = Scratch::new();
        let root = buildable_root(&s);
        let cargo_dir = fake_cargo(&s, &s.path("cargo.log"), None);
        let mut cmd = launch(
            &root.join("plugin/bin/voyage-helper"),
            &s.path_var(&[&cargo_dir]),
        );
        cmd.args(["hook", "pre-tool-use"]);
        let out = run(cmd, &hook_call(mode));
        assert_eq!(decision(&out).0, "deny", "{mode:?}");
        wait_for(&root.join("target/release/voyage-helper"));
    }
}

#[test]
fn the_guard_with_no_binary_and_no_cargo_denies_and_names_the_install() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let mut cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
    cmd.args(["hook", "pre-tool-use"]);
    let out = run(cmd, &hook_call(None));
    assert_eq!(out.status.code(), Some(0));
    let (answer, reason) = decision(&out);
    assert_eq!(answer, "deny");
    assert!(reason.contains("cargo install --locked --path"), "{reason}");
}

#[test]
fn session_start_builds_in_the_background_when_missing_or_stale_and_is_silent_otherwise() {
    let s = Scratch::new();
    let root = buildable_root(&s);
    let log = s.path("cargo.log");
    let cargo_dir = fake_cargo(&s, &log, None);
    let path_var = s.path_var(&[&cargo_dir]);
    let launcher = root.join("plugin/bin/voyage-helper");
    let bin = root.join("target/release/voyage-helper");
    let session_start = || {
        let mut cmd = launch(&launcher, &path_var);
        cmd.args(["hook", "session-start"]);
        run(
            cmd,
            "{\"hook_event_name\": \"SessionStart\", \"source\": \"startup\"}",
        )
    };

    // Missing: one line to the user, the build in the background.
    let out = session_start();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = reply["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("building voyage-helper in the background"),
        "{message}"
    );
    wait_for(&bin);
    assert_eq!(calls(&log).len(), 1);

    // Built and up to date: silent, no build, the binary not even run.
    fs::create_dir_all(root.join("helper/src")).unwrap();
    fs::write(root.join("Cargo.lock"), "").unwrap();
    let mut touch = Command::new("touch");
    touch
        .args(["-d", "2020-01-01"])
        .arg(root.join("helper/src"))
        .arg(root.join("Cargo.lock"));
    assert!(touch.status().unwrap().success());
    let out = session_start();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert_eq!(calls(&log).len(), 1);

    // The plugin's source changed after the build: rebuilt in the background.
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(root.join("helper/src/lib.rs"), "// changed\n").unwrap();
    let out = session_start();
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        reply["systemMessage"]
            .as_str()
            .unwrap()
            .contains("rebuilding"),
        "{reply}"
    );
    let deadline = std::time::Instant::now() + TIMEOUT;
    while calls(&log).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no rebuild");
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for(&bin);
}

/// Data directory names of every awkward kind: quotes of both sorts, spaces,
/// shell syntax that must stay text, newlines (also a last one), non-ASCII.
const ODD_DATA_DIRS: &[&str] = &[
    "plain",
    "with space/and 'single' quotes",
    "'",
    "''",
    "ends with a quote'",
    "\"double\" $HOME `echo no` $(echo no) \\back\\slash",
    "x'; touch CANARY; echo '",
    "new\nline",
    "last newline\n",
    "*?[glob] ~tilde ! # &|;<>",
    "donn\u{e9}es \u{2603}",
];

/// The session-start hook with `CLAUDE_ENV_FILE` and `CLAUDE_PLUGIN_DATA`
/// as given (unset when `None`), the rest of the environment as `cmd` has it.
fn session_start_with(mut cmd: Command, env_file: Option<&Path>, data: Option<&str>) -> Output {
    if let Some(file) = env_file {
        cmd.env("CLAUDE_ENV_FILE", file);
    }
    if let Some(data) = data {
        cmd.env("CLAUDE_PLUGIN_DATA", data);
    }
    cmd.args(["hook", "session-start"]);
    run(
        cmd,
        "{\"hook_event_name\": \"SessionStart\", \"source\": \"startup\"}",
    )
}

/// What `VOYAGE_DATA_DIR` is after `shell` sources `env_file`, as Claude
/// Code does before a Bash call (`CLAUDE_PLUGIN_DATA` stays unset there:
/// another plugin's scripts read that name).
fn sourced_data_dir(s: &Scratch, shell: &str, env_file: &Path) -> String {
    let mut cmd = Command::new(voyage_tests::find_on_path(shell).unwrap());
    cmd.env_clear()
        .env("PATH", s.path_var(&[]))
        .env("CLAUDE_ENV_FILE", env_file)
        .current_dir(s.dir.path())
        .args([
            "-c",
            ". \"$CLAUDE_ENV_FILE\"; test -z \"${CLAUDE_PLUGIN_DATA+set}\" && printf %s \"$VOYAGE_DATA_DIR\"",
        ]);
    let out = run(cmd, "");
    assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The shells a Bash call may source the file with: `sh`, and `bash` when
/// the host has it.
fn shells() -> Vec<&'static str> {
    let mut all = vec!["sh"];
    if voyage_tests::find_on_path("bash").is_some() {
        all.push("bash");
    }
    all
}

#[test]
fn session_start_hands_any_data_dir_to_later_bash_calls_through_the_env_file() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    for (i, name) in ODD_DATA_DIRS.iter().enumerate() {
        let data = format!("{}/{name}", s.dir.path().display());
        let env_file = s.path(&format!("env-{i}.sh"));
        let cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
        let out = session_start_with(cmd, Some(&env_file), Some(&data));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).contains("systemMessage"),
            "the hook's reply is unchanged: {}",
            text(&out.stdout)
        );
        for shell in shells() {
            assert_eq!(
                sourced_data_dir(&s, shell, &env_file),
                data,
                "{shell}, {name:?}"
            );
        }
        assert!(!s.path("CANARY").exists(), "{name:?} ran as a command");
    }
}

#[test]
fn session_start_writes_the_data_dir_in_every_branch_of_the_launcher() {
    let data = "/data dir/it's";
    let check = |s: &Scratch, out: &Output, env_file: &Path, what: &str| {
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        assert_eq!(sourced_data_dir(s, "sh", env_file), data, "{what}");
    };

    // VOYAGE_HELPER names the binary: silent.
    let s = Scratch::new();
    let fake = s.path("fake/helper");
    write_executable(&fake, &fake_helper("fake", 0)).unwrap();
    let mut cmd = launch(&launcher(), &s.path_var(&[]));
    cmd.env("VOYAGE_HELPER", &fake);
    let out = session_start_with(cmd, Some(&s.path("env.sh")), Some(data));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    check(&s, &out, &s.path("env.sh"), "VOYAGE_HELPER");

    // The plugin's own build exists and is current: silent.
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    write_executable(
        &root.join("target/release/voyage-helper"),
        &fake_helper("release", 0),
    )
    .unwrap();
    let cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
    let out = session_start_with(cmd, Some(&s.path("env.sh")), Some(data));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    check(&s, &out, &s.path("env.sh"), "built");

    // An installed helper on PATH and no build of the plugin's own.
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    write_executable(
        &s.path("installed/voyage-helper"),
        &fake_helper("installed", 0),
    )
    .unwrap();
    let cmd = launch(
        &root.join("plugin/bin/voyage-helper"),
        &s.path_var(&[&s.path("installed")]),
    );
    let out = session_start_with(cmd, Some(&s.path("env.sh")), Some(data));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    check(&s, &out, &s.path("env.sh"), "on PATH");

    // No binary yet: the build starts in the background.
    let s = Scratch::new();
    let root = buildable_root(&s);
    let cargo_dir = fake_cargo(&s, &s.path("cargo.log"), None);
    let cmd = launch(
        &root.join("plugin/bin/voyage-helper"),
        &s.path_var(&[&cargo_dir]),
    );
    let out = session_start_with(cmd, Some(&s.path("env.sh")), Some(data));
    assert!(
        text(&out.stdout).contains("building"),
        "{}",
        text(&out.stdout)
    );
    check(&s, &out, &s.path("env.sh"), "building");
    wait_for(&root.join("target/release/voyage-helper"));
    // The background build's own run of the launcher adds nothing.
    assert_eq!(
        fs::read_to_string(s.path("env.sh"))
            .unwrap()
            .lines()
            .count(),
        1
    );

    // No binary and no cargo.
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
    let out = session_start_with(cmd, Some(&s.path("env.sh")), Some(data));
    assert!(
        text(&out.stdout).contains("no cargo"),
        "{}",
        text(&out.stdout)
    );
    check(&s, &out, &s.path("env.sh"), "no cargo");
}

#[test]
fn session_start_adds_the_line_once_and_keeps_what_the_file_had() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let hook = |env_file: &Path, data: &str| {
        let cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
        let out = session_start_with(cmd, Some(env_file), Some(data));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    for (i, name) in ["one", "new\nline"].iter().enumerate() {
        let data = format!("/d/{name}");
        // Another hook's line, without its last newline.
        let env_file = s.path(&format!("env-{i}.sh"));
        fs::write(&env_file, "export OTHER='kept'").unwrap();
        for _ in 0..3 {
            hook(&env_file, &data);
        }
        let after = fs::read_to_string(&env_file).unwrap();
        let line = format!("export VOYAGE_DATA_DIR={}\n", sh_quote(&data));
        assert_eq!(after, format!("export OTHER='kept'\n{line}"), "{name:?}");

        // A data dir that changed (another session start) is appended and wins.
        hook(&env_file, "/d/later");
        assert_eq!(sourced_data_dir(&s, "sh", &env_file), "/d/later");
        let mut cmd = Command::new("sh");
        cmd.env_clear()
            .env("PATH", s.path_var(&[]))
            .args(["-c", ". \"$1\"; printf %s \"$OTHER\"", "sh"])
            .arg(&env_file);
        assert_eq!(text(&run(cmd, "").stdout), "kept");
    }
}

#[test]
fn session_start_without_both_variables_or_a_writable_file_changes_nothing() {
    let s = Scratch::new();
    let root = s.plugin_root("plugin");
    let hook = |env_file: Option<&Path>, data: Option<&str>| {
        let cmd = launch(&root.join("plugin/bin/voyage-helper"), &s.path_var(&[]));
        session_start_with(cmd, env_file, data)
    };
    let plain = hook(None, None);
    assert_eq!(plain.status.code(), Some(0));

    // Missing or empty variables: no file written.
    let env_file = s.path("env.sh");
    for (file, data) in [
        (Some(env_file.as_path()), None),
        (Some(env_file.as_path()), Some("")),
        (None, Some("/d")),
    ] {
        let out = hook(file, data);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, plain.stdout);
        assert!(!env_file.exists(), "{file:?} {data:?}");
    }
    let out = hook(Some(Path::new("")), Some("/d"));
    assert_eq!(out.stdout, plain.stdout);

    // A file that cannot be written never fails the hook nor changes its reply.
    fs::create_dir_all(s.path("a-directory")).unwrap();
    for file in [s.path("a-directory"), s.path("no/such/dir/env.sh")] {
        let out = hook(Some(&file), Some("/d"));
        assert_eq!(out.status.code(), Some(0), "{}", file.display());
        assert_eq!(out.stdout, plain.stdout, "{}", file.display());
        assert_eq!(text(&out.stderr), text(&plain.stderr), "{}", file.display());
    }
    assert!(!s.path("no").exists());
}
