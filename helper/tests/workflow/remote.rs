//! Remote workflows: `workflow run URL` and `workflow: URL` steps, served by
//! [`Server`], a small HTTP/1.1 server on 127.0.0.1 that each test starts
//! with the files it needs, and that records every request it gets.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{Dir, Run};

/// What the server answers on one path.
#[derive(Clone)]
enum Reply {
    /// 200 with this body.
    File(String),
    /// This status with a short body.
    Status(u16),
    /// The request is read, and nothing is ever answered.
    Hang,
    /// 200 with a body of this many bytes.
    Huge(usize),
}

struct Server {
    port: u16,
    /// The head of every request, in the order received, lower-cased.
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Serves `routes` (path → reply; anything else is a 404) until the
    /// test process ends.
    fn start(routes: &[(&str, Reply)]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes: Arc<HashMap<String, Reply>> = Arc::new(
            routes
                .iter()
                .map(|(p, r)| ((*p).to_owned(), r.clone()))
                .collect(),
        );
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (routes, seen) = (Arc::clone(&routes), Arc::clone(&seen));
                std::thread::spawn(move || answer(stream, &routes, &seen));
            }
        });
        Self { port, requests }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn answer(stream: TcpStream, routes: &HashMap<String, Reply>, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    seen.lock().unwrap().push(head.to_ascii_lowercase());
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut out = stream;
    let reply = routes.get(&path).cloned().unwrap_or(Reply::Status(404));
    let _ = match reply {
        Reply::File(body) => write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
        Reply::Status(code) => write!(
            out,
            "HTTP/1.1 {code} Nope\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope"
        ),
        Reply::Hang => {
            std::thread::sleep(Duration::from_secs(120));
            Ok(())
        }
        Reply::Huge(size) => {
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
            );
            let chunk = vec![b'#'; 64 * 1024];
            let mut left = size;
            while left > 0 {
                let n = left.min(chunk.len());
                if out.write_all(&chunk[..n]).is_err() {
                    break;
                }
                left -= n;
            }
            Ok(())
        }
    };
}

/// `workflow run --ci URL` in `dir`, with no proxy in the way.
fn run_url(dir: &Dir, url: &str, env: &[(&str, &str)]) -> Run {
    let mut cmd = dir.ci_command(url, &[]);
    for proxy in [
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ] {
        cmd.env_remove(proxy);
    }
    cmd.envs(env.iter().copied());
    let start = std::time::Instant::now();
    let output = cmd.output().unwrap();
    crate::common::workflow::collect(&output, start.elapsed())
}

/// The first `error[…]` line of stderr, checked to carry `code`.
#[track_caller]
fn error_line(ran: &Run, code: &str) -> String {
    ran.status_is(2);
    let line = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("error["))
        .unwrap_or_else(|| panic!("no error line: {}", ran.stderr))
        .to_owned();
    assert!(line.starts_with(&format!("error[{code}]: ")), "{line}");
    line
}

#[test]
fn a_url_runs_in_the_current_directory_and_its_references_stay_remote() {
    let server = Server::start(&[
        (
            "/flows/main.yaml",
            Reply::File(
                "goal: remote main\nsteps:\n  - name: where\n    command: pwd\n  - name: child\n    workflow: sub/child.yaml\n  - name: rooted\n    workflow: /top.yaml\n"
                    .into(),
            ),
        ),
        (
            "/flows/sub/child.yaml",
            Reply::File("goal: c\nsteps:\n  - name: hi\n    command: echo child from the server\n".into()),
        ),
        (
            "/top.yaml",
            Reply::File("goal: t\nsteps:\n  - name: top\n    command: echo top from the server\n".into()),
        ),
    ]);
    let dir = Dir::new();
    // The same names on the disk: a remote workflow must never read them.
    dir.write(
        "sub/child.yaml",
        "goal: l\nsteps:\n  - name: hi\n    command: echo LOCAL\n",
    );
    dir.write(
        "flows/sub/child.yaml",
        "goal: l\nsteps:\n  - name: hi\n    command: echo LOCAL\n",
    );
    dir.write(
        "top.yaml",
        "goal: l\nsteps:\n  - name: top\n    command: echo LOCAL\n",
    );
    let url = server.url("/flows/main.yaml");
    let ran = run_url(&dir, &url, &[("VOYAGE_LOG", "1")]);
    ran.status_is(0);
    let texts = ran.texts();
    let here = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(texts[0], here.display().to_string(), "{texts:?}");
    assert!(
        texts.iter().any(|t| t == "child from the server"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "top from the server"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("LOCAL")), "{texts:?}");
    let start = &ran.of("workflow:start")[0]["workflow"];
    assert_eq!(start["sourcePath"], url.as_str());
    assert_eq!(start["origin"]["kind"], "remote");
    assert_eq!(start["origin"]["url"], url.as_str());
    // The log goes below the current directory, the run's directory.
    let logs = std::fs::read_dir(dir.path().join(".claude/voyage.local/logs")).unwrap();
    assert_eq!(logs.count(), 1);
    let mut asked: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    // The two siblings are fetched at the same time, in either order.
    asked[1..].sort();
    assert_eq!(
        asked,
        [
            "get /flows/main.yaml",
            "get /flows/sub/child.yaml",
            "get /top.yaml"
        ]
        .map(String::from),
        "one request per file, the top one first"
    );
}

#[test]
fn a_missing_remote_reference_fails_before_any_step_without_reading_the_disk() {
    let server = Server::start(&[(
        "/w.yaml",
        Reply::File("goal: g\nsteps:\n  - name: first\n    command: echo ran\n  - name: gone\n    workflow: gone.yaml\n".into()),
    )]);
    let dir = Dir::new();
    dir.write(
        "gone.yaml",
        "goal: l\nsteps:\n  - name: x\n    command: echo LOCAL\n",
    );
    let url = server.url("/w.yaml");
    let ran = run_url(&dir, &url, &[]);
    let line = error_line(&ran, "WORKFLOW_FETCH_FAILED");
    assert!(ran.events.is_empty(), "{:?}", ran.briefs());
    for fragment in [
        "step \"gone\", field `workflow`",
        &format!(
            "cannot fetch the workflow {}: HTTP 404 from 127.0.0.1",
            server.url("/gone.yaml")
        ),
        &format!("({url}:6)"),
    ] {
        assert!(line.contains(fragment), "{fragment:?} in {line}");
    }
    assert!(
        !line.contains("gh auth login"),
        "the hint is GitHub's only: {line}"
    );
}

#[test]
fn a_top_level_url_that_fails_is_a_coded_error_not_a_missing_file() {
    let server = Server::start(&[("/500.yaml", Reply::Status(500))]);
    let dir = Dir::new();
    for (path, status) in [("/missing.yaml", 404), ("/500.yaml", 500)] {
        let url = server.url(path);
        let ran = run_url(&dir, &url, &[]);
        let line = error_line(&ran, "WORKFLOW_FETCH_FAILED");
        assert!(
            line.contains(&format!("{url}: HTTP {status} from 127.0.0.1")),
            "{line}"
        );
        assert!(!ran.stderr.contains("No such file"), "{}", ran.stderr);
    }
    // Nothing listens on a closed port: a connection error, coded the same.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/w.yaml",
        closed.local_addr().unwrap().port()
    );
    drop(closed);
    error_line(&run_url(&dir, &url, &[]), "WORKFLOW_FETCH_FAILED");
    // Another scheme is refused by name, not looked for on the disk.
    let line = error_line(
        &run_url(&dir, "ftp://127.0.0.1/w.yaml", &[]),
        "WORKFLOW_REMOTE_UNSUPPORTED",
    );
    assert!(line.contains("is a ftp URL"), "{line}");
}

#[test]
fn a_download_that_hangs_or_grows_too_large_stops_with_a_code() {
    let server = Server::start(&[
        ("/hang.yaml", Reply::Hang),
        ("/huge.yaml", Reply::Huge(16 * 1024 * 1024 + 1)),
    ]);
    let dir = Dir::new();
    let ran = run_url(
        &dir,
        &server.url("/hang.yaml"),
        &[("VOYAGE_FETCH_TIMEOUT", "0.5")],
    );
    let line = error_line(&ran, "WORKFLOW_FETCH_TIMEOUT");
    assert!(line.contains("within 0.5 s"), "{line}");
    let line = error_line(
        &run_url(&dir, &server.url("/huge.yaml"), &[]),
        "WORKFLOW_TOO_LARGE",
    );
    assert!(line.contains("16 MiB"), "{line}");
}

#[test]
fn the_github_token_is_never_asked_for_or_sent_to_another_host() {
    let server = Server::start(&[(
        "/w.yaml",
        Reply::File("goal: g\nsteps:\n  - name: a\n    command: echo ok\n".into()),
    )]);
    let dir = Dir::new();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let asked = dir.path().join("gh-was-asked");
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\ntouch '{}'\necho sekrit-token\n",
            asked.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&gh).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&gh, perms).unwrap();
    let path = format!("{}:{}", bin.display(), dir.path_without_agents());
    let ran = run_url(&dir, &server.url("/w.yaml"), &[("PATH", &path)]);
    ran.status_is(0);
    assert!(!asked.exists(), "gh is asked only for GitHub's raw hosts");
    for request in server.requests() {
        assert!(!request.contains("authorization"), "{request}");
        assert!(!request.contains("sekrit"), "{request}");
    }
}

#[test]
fn a_local_workflow_may_run_a_remote_one_and_validate_reads_urls() {
    let server = Server::start(&[
        (
            "/lib/child.yaml",
            Reply::File(
                "goal: c\nvars:\n  who:\nsteps:\n  - name: hi\n    command: echo hello {{who}}\n"
                    .into(),
            ),
        ),
        ("/bad.yaml", Reply::File("goal: g\nsteps: 3\n".into())),
    ]);
    let dir = Dir::new();
    let child = server.url("/lib/child.yaml");
    dir.write(
        "wf.yaml",
        &format!("goal: g\nsteps:\n  - name: remote\n    workflow: {child}\n    vars:\n      who: remote\n"),
    );
    let ran = dir.ci("wf.yaml", &[]);
    ran.status_is(0);
    assert!(
        ran.texts().iter().any(|t| t == "hello remote"),
        "{:?}",
        ran.texts()
    );

    let valid = dir.plain(&[
        "workflow",
        "validate",
        "--json",
        &server.url("/lib/child.yaml"),
        "--var",
        "who=x",
    ]);
    assert_eq!(valid.status, 0, "{}", valid.stderr);
    let report: serde_json::Value = serde_json::from_str(&valid.stdout).unwrap();
    assert_eq!(report["valid"], true);
    let invalid = dir.plain(&["workflow", "validate", &server.url("/bad.yaml")]);
    assert_eq!(invalid.status, 2, "{}", invalid.stdout);
    assert!(
        invalid.stdout.contains(&server.url("/bad.yaml")),
        "{}",
        invalid.stdout
    );
}
