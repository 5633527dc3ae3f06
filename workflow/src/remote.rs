//! Remote workflows: `workflow run URL` and `workflow: URL` steps, fetched
//! over http(s) before anything runs (Executant's `remote-workflow.ts`).
//!
//! - GitHub blob pages (`github.com/O/R/blob/REF/PATH`) and gist pages
//!   (`gist.github.com/U/ID`) are rewritten to their raw files; every other
//!   URL is fetched as given.
//! - `gh auth token` is asked for, best effort, only when the URL's host is
//!   one of GitHub's raw hosts ([`RAW_HOSTS`]) over https, and the token goes only
//!   there; an HTTP 401, 403 or 404 from GitHub hints at `gh auth login`.
//! - A reference inside a remote workflow is joined to that workflow's URL,
//!   whatever it looks like (`/x.yaml` is the same host's root, never the
//!   local disk): see [`join`].
//! - A download has a deadline ([`Fetcher::timeout`]) and the same size cap
//!   as a file on disk; both end in a coded problem, never a hang.
//!
//! Nothing here runs for a local file: the HTTP client is built on the
//! first fetch.

use std::ffi::OsStr;
use std::sync::OnceLock;
use std::time::Duration;

use super::code;
use super::load::MAX_FILE_BYTES;
use crate::problem::Problem;

/// The hosts a GitHub token may be sent to.
pub(super) const RAW_HOSTS: [&str; 2] = ["raw.githubusercontent.com", "gist.githubusercontent.com"];

/// How long a download may take by default, connection to last byte.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long `gh auth token` may take before we go on without a token.
const GH_TIMEOUT: Duration = Duration::from_secs(5);

/// Whether `reference` is an http(s) URL.
pub(super) fn is_url(reference: &str) -> bool {
    scheme(reference)
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"))
}

/// The scheme of a reference that looks like a URL (`https://…`).
pub(super) fn scheme(reference: &str) -> Option<&str> {
    let (scheme, _) = reference.split_once("://")?;
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    (first_ok && rest_ok).then_some(scheme)
}

/// An http(s) URL cut into the parts joining needs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts<'u> {
    scheme: &'u str,
    authority: &'u str,
    /// From the first `/` after the authority (empty when there is none),
    /// without the query and fragment.
    path: &'u str,
    /// `?…` and/or `#…`, as written (empty when there is none).
    rest: &'u str,
}

fn parts(url: &str) -> Option<Parts<'_>> {
    let (scheme, after) = url.split_once("://")?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, tail) = after.split_at(end);
    let cut = tail.find(['?', '#']).unwrap_or(tail.len());
    let (path, rest) = tail.split_at(cut);
    Some(Parts {
        scheme,
        authority,
        path,
        rest,
    })
}

/// The host of a URL, lower-cased, without user info or port.
pub fn host(url: &str) -> String {
    let Some(p) = parts(url) else {
        return String::new();
    };
    let host = p.authority.rsplit_once('@').map_or(p.authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        // An IPv6 literal keeps its colons.
        Some(v6) => v6.split_once(']').map_or(v6, |(h, _)| h),
        None => host.split_once(':').map_or(host, |(h, _)| h),
    };
    host.to_ascii_lowercase()
}

/// A GitHub blob or gist page URL as the URL of its raw file; any other URL
/// unchanged.
pub fn to_raw(url: &str) -> String {
    let Some(p) = parts(url) else {
        return url.to_owned();
    };
    let segments: Vec<&str> = p.path.split('/').filter(|s| !s.is_empty()).collect();
    match (host(url).as_str(), segments.as_slice()) {
        ("github.com" | "www.github.com", [owner, repo, "blob", rest @ ..]) if !rest.is_empty() => {
            format!(
                "https://raw.githubusercontent.com/{owner}/{repo}/{}",
                rest.join("/")
            )
        }
        ("gist.github.com", [user, id]) => {
            format!("https://gist.githubusercontent.com/{user}/{id}/raw")
        }
        _ => url.to_owned(),
    }
}

/// `reference` read in a workflow fetched from `base`: a URL as it is (a
/// GitHub page rewritten to raw), anything else joined to `base` as a
/// browser would (RFC 3986, section 5.2), so even `/etc/x.yaml` names a
/// file on `base`'s host. `None` for a reference with a scheme other than
/// http(s).
pub fn join(base: &str, reference: &str) -> Option<String> {
    if is_url(reference) {
        return Some(to_raw(reference));
    }
    if scheme(reference).is_some() {
        return None;
    }
    let base = parts(base)?;
    let origin = format!("{}://{}", base.scheme, base.authority);
    if let Some(network) = reference.strip_prefix("//") {
        return Some(format!("{}://{network}", base.scheme));
    }
    let cut = reference.find(['?', '#']).unwrap_or(reference.len());
    let (path, rest) = reference.split_at(cut);
    let merged = if path.starts_with('/') {
        path.to_owned()
    } else if path.is_empty() {
        base.path.to_owned()
    } else {
        let dir = base.path.rsplit_once('/').map_or("", |(dir, _)| dir);
        format!("{dir}/{path}")
    };
    Some(format!("{origin}{}{rest}", without_dots(&merged)))
}

/// A path with its `.` and `..` segments applied (RFC 3986, 5.2.4).
fn without_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." | ".." => {
                if *segment == ".." {
                    out.pop();
                }
                // A trailing `.` or `..` leaves a directory: keep its slash.
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// How downloads are made.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fetcher {
    /// The deadline of one download, connection to last byte.
    pub timeout: Duration,
}

impl Fetcher {
    /// Downloads the workflow at `url` (already rewritten to raw) as text.
    pub(super) fn fetch(&self, url: &str) -> Result<String, Problem> {
        let host = host(url);
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("voyage-helper/", env!("CARGO_PKG_VERSION")))
            .build();
        let agent = ureq::Agent::new_with_config(config);
        let mut request = agent.get(url);
        let token = wants_token(url).then(github_token).flatten();
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let failed = |code: &'static str, why: String| {
            Problem::new(code, format!("cannot fetch the workflow {url}: {why}"))
        };
        let mut response = request.call().map_err(|e| self.problem(url, &e))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let hint = if is_github(&host) && matches!(status, 401 | 403 | 404) {
                "; if it is private, run `gh auth login` so that its token goes with the request"
            } else {
                ""
            };
            return Err(failed(
                code::WORKFLOW_FETCH_FAILED,
                format!("HTTP {status} from {host}{hint}"),
            ));
        }
        response
            .body_mut()
            .with_config()
            .limit(MAX_FILE_BYTES)
            .read_to_string()
            .map_err(|e| self.problem(url, &e))
    }

    fn problem(&self, url: &str, error: &ureq::Error) -> Problem {
        let (code, why) = match error {
            ureq::Error::Timeout(_) => (
                code::WORKFLOW_FETCH_TIMEOUT,
                format!(
                    "no complete answer within {} s (VOYAGE_FETCH_TIMEOUT sets the limit)",
                    self.timeout.as_secs_f64()
                ),
            ),
            ureq::Error::BodyExceedsLimit(_) => (
                code::WORKFLOW_TOO_LARGE,
                format!(
                    "it is larger than the {} MiB a workflow may have",
                    MAX_FILE_BYTES >> 20
                ),
            ),
            other => (code::WORKFLOW_FETCH_FAILED, other.to_string()),
        };
        Problem::new(code, format!("cannot fetch the workflow {url}: {why}"))
    }
}

/// Whether a request to `url` may carry the GitHub token: over https, to
/// one of GitHub's raw hosts, and nowhere else.
fn wants_token(url: &str) -> bool {
    scheme(url).is_some_and(|s| s.eq_ignore_ascii_case("https"))
        && RAW_HOSTS.contains(&host(url).as_str())
}

fn is_github(host: &str) -> bool {
    matches!(
        host,
        "github.com"
            | "www.github.com"
            | "gist.github.com"
            | "raw.githubusercontent.com"
            | "gist.githubusercontent.com"
    )
}

/// `gh auth token`, once per process; `None` when `gh` is missing, not
/// logged in, slow or says anything odd. Never an error: a public file
/// needs no token.
fn github_token() -> Option<String> {
    static TOKEN: OnceLock<Option<String>> = OnceLock::new();
    TOKEN.get_or_init(ask_gh).clone()
}

fn ask_gh() -> Option<String> {
    use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};
    let argv = [OsStr::new("gh"), OsStr::new("auth"), OsStr::new("token")];
    // gh's complaints are not ours to show: they go to a scratch file.
    let errors = tempfile::tempfile().ok()?;
    let mut said = Vec::new();
    let job = Job {
        argv: &argv,
        cwd: None,
        timeout: Some(GH_TIMEOUT),
        leftovers: Leftovers::Stop,
        stderr: Stderr::File(&errors),
        env: &[],
        input: None,
        stop: None,
        stop_with_us: false,
    };
    let outcome = supervise(job, &mut |chunk| {
        if said.len() < 4096 {
            said.extend_from_slice(chunk);
        }
    })
    .ok()?;
    if outcome.ending != Ending::Exited(0) {
        return None;
    }
    let token = String::from_utf8(said).ok()?;
    let token = token.trim();
    let printable = !token.is_empty() && token.chars().all(|c| c.is_ascii_graphic());
    printable.then(|| token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_pages_become_raw_urls() {
        assert_eq!(
            to_raw("https://github.com/o/r/blob/main/flows/a.yaml"),
            "https://raw.githubusercontent.com/o/r/main/flows/a.yaml"
        );
        assert_eq!(
            to_raw("https://github.com/o/r/blob/v1/a.yaml?plain=1#L3"),
            "https://raw.githubusercontent.com/o/r/v1/a.yaml"
        );
        assert_eq!(
            to_raw("https://gist.github.com/someone/abc123"),
            "https://gist.githubusercontent.com/someone/abc123/raw"
        );
        for other in [
            "https://github.com/o/r",
            "https://github.com/o/r/tree/main/a.yaml",
            "https://example.com/o/r/blob/main/a.yaml",
            "http://127.0.0.1:8080/w.yaml",
        ] {
            assert_eq!(to_raw(other), other);
        }
    }

    #[test]
    fn hosts_are_found_without_user_or_port() {
        assert_eq!(
            host("https://u:p@Raw.GitHubUserContent.com:443/x"),
            "raw.githubusercontent.com"
        );
        assert_eq!(host("http://127.0.0.1:9/x"), "127.0.0.1");
        assert_eq!(host("http://[::1]:9/x"), "::1");
        assert!(RAW_HOSTS.contains(&host("https://gist.githubusercontent.com/u/i/raw").as_str()));
        assert!(
            !RAW_HOSTS.contains(&host("https://raw.githubusercontent.com.evil.example/x").as_str())
        );
    }

    #[test]
    fn the_token_goes_only_to_githubs_raw_hosts_over_https() {
        assert!(wants_token(
            "https://raw.githubusercontent.com/o/r/main/a.yaml"
        ));
        assert!(wants_token("https://gist.githubusercontent.com/u/i/raw"));
        for other in [
            "http://raw.githubusercontent.com/o/r/main/a.yaml",
            "https://github.com/o/r/blob/main/a.yaml",
            "https://raw.githubusercontent.com.evil.example/a.yaml",
            "https://evil.example/raw.githubusercontent.com/a.yaml",
            "http://127.0.0.1:8080/w.yaml",
        ] {
            assert!(!wants_token(other), "{other}");
        }
    }

    #[test]
    fn references_join_to_the_url_never_to_the_disk() {
        let base = "https://h.example/flows/main.yaml?ref=1";
        assert_eq!(
            join(base, "child.yaml").as_deref(),
            Some("https://h.example/flows/child.yaml")
        );
        assert_eq!(
            join(base, "./sub/../c.yaml").as_deref(),
            Some("https://h.example/flows/c.yaml")
        );
        assert_eq!(
            join(base, "../../../up.yaml").as_deref(),
            Some("https://h.example/up.yaml")
        );
        assert_eq!(
            join(base, "/etc/passwd").as_deref(),
            Some("https://h.example/etc/passwd")
        );
        assert_eq!(
            join(base, "//other.example/x.yaml").as_deref(),
            Some("https://other.example/x.yaml")
        );
        assert_eq!(
            join(base, "c.yaml?v=2").as_deref(),
            Some("https://h.example/flows/c.yaml?v=2")
        );
        assert_eq!(
            join(base, "https://github.com/o/r/blob/main/x.yaml").as_deref(),
            Some("https://raw.githubusercontent.com/o/r/main/x.yaml")
        );
        assert_eq!(join(base, "ftp://h.example/x.yaml"), None);
        assert_eq!(
            join("http://h:1", "a.yaml").as_deref(),
            Some("http://h:1/a.yaml")
        );
    }

    #[test]
    fn url_schemes_are_recognised() {
        assert_eq!(scheme("https://x/y.yaml"), Some("https"));
        assert_eq!(scheme("git+ssh://x"), Some("git+ssh"));
        assert_eq!(scheme("./child.yaml"), None);
        assert_eq!(scheme("dir/a://b"), None);
        assert!(is_url("HTTP://x/y") && is_url("https://x") && !is_url("ftp://x"));
    }
}
