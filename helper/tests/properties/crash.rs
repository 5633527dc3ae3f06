//! Crash safety: writers killed with SIGKILL at random moments, thousands of
//! times, never leave a broken file. After every kill the file is exactly
//! the old document or the new one — complete, valid, nothing in between.
//!
//! The kill moments are spread over a writer's whole life (start-up, read,
//! check, temp file, fsync, rename): each delay is drawn uniformly from zero
//! to a little over how long an undisturbed run takes on this machine, with
//! a fixed seed so a failure can be replayed.
//!
//! A writer killed between creating its temporary file and the rename
//! leaves that file behind; after the kills, one more successful write of
//! the same file sweeps them all up.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so a failing kill
/// sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

fn helper() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("voyage-helper"));
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

fn progress_doc(steps: u32, marker: &str) -> Value {
    let steps: serde_json::Map<String, Value> = (1..=steps)
        .map(|n| {
            (
                n.to_string(),
                json!({"status": "pending", "attempts": 0, "error": null,
                       "completed_at": null, "commit": null}),
            )
        })
        .collect();
    json!({
        "schema_version": "1", "plan": "plan.md", "plan_type": "plan",
        "plan_version": "1.7", "started_at": marker, "updated_at": marker,
        "mode": "execute", "total_steps": steps.len(), "current_step": 0,
        "status": "in_progress", "steps": steps, "iterations_remaining": 25,
        "entry_condition_checked": false, "exit_condition_checked": false,
        "plan_verification": null, "summary": null
    })
}

/// Runs `cmd` with `stdin`, killing it after `delay` (if still running).
/// Returns whether it was killed before it finished, as its exit status
/// says (a writer that finished just before the kill counts as finished).
///
/// The short sleeps are the kill timer: the child is checked every 50 µs
/// until the moment to kill it comes.
fn run_and_kill(mut cmd: Command, stdin: &[u8], delay: Duration) -> bool {
    let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
    if let Some(mut input) = child.stdin.take() {
        // The writer may be dead before it reads: ignore a broken pipe.
        let _ = input.write_all(stdin);
    }
    let deadline = Instant::now() + delay;
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if Instant::now() >= deadline {
            child.kill().unwrap(); // SIGKILL
            let status = child.wait().unwrap();
            return status.signal() == Some(nix::sys::signal::Signal::SIGKILL as i32);
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// The range kill delays are drawn from, kept where about half the writers
/// are killed whatever the machine's speed at the moment: it shrinks after
/// a writer that finished first and grows after one that was killed. (A
/// window measured once at the start let a loaded machine, or a cold first
/// run, leave too few kills to mean anything.) At balance it is about
/// twice a run, so the kills land anywhere in a run.
struct Window {
    micros: f64,
}

impl Window {
    fn new(first: Duration) -> Self {
        Self {
            micros: first.as_micros() as f64,
        }
    }

    fn delay(&self, rng: &mut Rng) -> Duration {
        Duration::from_micros(rng.below((self.micros as u64).max(1)))
    }

    fn learn(&mut self, killed: bool) {
        let factor = if killed { 1.05 } else { 0.95 };
        self.micros = (self.micros * factor).clamp(50.0, 10_000_000.0);
    }
}

fn undisturbed(cmd: impl Fn() -> Command, stdin: &[u8]) -> Duration {
    let start = Instant::now();
    for _ in 0..3 {
        let mut c = cmd();
        let mut child = c.stdin(Stdio::piped()).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin);
        child.wait().unwrap();
    }
    start.elapsed() / 3
}

/// The temporary files of the atomic write in `dir`.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".voyage-tmp."))
        .collect()
}

/// Ages what the killed writers left past the sweep's grace for dead
/// writers, writes `path` once more undisturbed, and checks that nothing
/// is left. Returns how many files were left before.
fn one_more_write_sweeps(dir: &Path, path: &Path) -> usize {
    let left = temp_files(dir);
    let long_ago = SystemTime::now() - Duration::from_secs(60);
    for file in &left {
        let f = fs::File::options().write(true).open(file).unwrap();
        f.set_modified(long_ago).unwrap();
    }
    let bytes = fs::read(path).unwrap();
    let mut child = helper()
        .args(["write", "--atomic"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(fs::read(path).unwrap(), bytes);
    assert_eq!(temp_files(dir), Vec::<PathBuf>::new(), "stale files remain");
    left.len()
}

#[test]
fn write_atomic_killed_at_random_moments_leaves_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.json");
    let docs: Vec<Vec<u8>> = ["A", "B"]
        .iter()
        .map(|m| serde_json::to_vec_pretty(&progress_doc(60, m)).unwrap())
        .collect();
    fs::write(&path, &docs[0]).unwrap();
    let cmd = || {
        let mut c = helper();
        c.args(["write", "--atomic", "--schema", "progress"])
            .arg(&path);
        c
    };
    let mut window = Window::new(undisturbed(cmd, &docs[1]) * 2);
    let mut rng = Rng(0x5eed_0001);
    let mut current = 0;
    let mut killed = 0;
    for round in 0..1000 {
        let next = 1 - current;
        let was_killed = run_and_kill(cmd(), &docs[next], window.delay(&mut rng));
        window.learn(was_killed);
        killed += u32::from(was_killed);
        let now = fs::read(&path).unwrap();
        if now == docs[next] {
            current = next;
        } else {
            assert_eq!(
                now, docs[current],
                "round {round}: neither the old nor the new document"
            );
        }
    }
    assert!(killed > 100, "only {killed} writers were killed mid-run");
    let left = one_more_write_sweeps(dir.path(), &path);
    eprintln!("{killed} writers killed, {left} temporary files left and swept");
}

#[test]
fn progress_step_killed_at_random_moments_leaves_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.json");
    let steps = 200;
    let mut doc = progress_doc(steps, "t");
    doc["iterations_remaining"] = json!(1_000_000);
    fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let cmd = |n: u32, status: &str, p: &Path| {
        let mut c = helper();
        c.args([
            "progress",
            "step",
            &n.to_string(),
            "--status",
            status,
            "--file",
        ])
        .arg(p);
        c
    };
    // Time an undisturbed run on a copy, as the window's first guess.
    let probe = dir.path().join("probe.json");
    fs::copy(&path, &probe).unwrap();
    let start = Instant::now();
    for n in 1..=3 {
        cmd(n, "in_progress", &probe).status().unwrap();
    }
    let mut window = Window::new(start.elapsed() / 3 * 2);

    // 600 rewrites, each killed at a random moment or allowed to finish.
    // Each asks for the next legal change of the current step (attempt,
    // fail, retry, ... up to three attempts, then the next step); a killed
    // change is simply asked for again by the next round.
    let mut rng = Rng(0x5eed_0002);
    let mut old: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let (mut killed, mut landed, mut n) = (0, 0, 1);
    for round in 0..600 {
        let key = n.to_string();
        let record = &old["steps"][&key];
        let status = match (
            record["status"].as_str().unwrap(),
            record["attempts"].as_u64().unwrap(),
        ) {
            ("in_progress", 3) => {
                n += 1;
                "in_progress"
            }
            ("in_progress", _) => "failed",
            _ => "in_progress",
        };
        let key = n.to_string();
        let was_killed = run_and_kill(cmd(n, status, &path), b"", window.delay(&mut rng));
        window.learn(was_killed);
        killed += u32::from(was_killed);
        let now: Value = serde_json::from_slice(&fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("round {round}: not a complete document: {e}"));
        if now == old {
            continue; // killed before the rename
        }
        // The new document: step n changed, and only the run's bookkeeping
        // besides.
        assert_eq!(
            now["steps"][&key]["status"], status,
            "round {round}, step {n}"
        );
        for (k, v) in now["steps"].as_object().unwrap() {
            if *k != key {
                assert_eq!(
                    v, &old["steps"][k],
                    "round {round}: step {n} touched step {k}"
                );
            }
        }
        for (k, v) in now.as_object().unwrap() {
            let bookkeeping = [
                "steps",
                "updated_at",
                "current_step",
                "iterations_remaining",
            ];
            if !bookkeeping.contains(&k.as_str()) {
                assert_eq!(v, &old[k], "round {round}: step {n} changed {k}");
            }
        }
        landed += 1;
        old = now;
    }
    assert!(
        killed > 50,
        "only {killed} of 600 writers were killed mid-run"
    );
    assert!(landed > 20, "only {landed} of 600 changes landed");
    let left = one_more_write_sweeps(dir.path(), &path);
    eprintln!("{killed} writers killed, {landed} changes landed, {left} temporary files swept");
    // Whatever the kills left, the file still validates.
    let status = helper()
        .args(["progress", "validate"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
}
