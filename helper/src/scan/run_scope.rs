//! The run's scope: while a `/trekexecute` run is in progress (its run
//! marker, [`crate::run_marker`], lives in the git directory of the tool
//! call's working tree), every write a tool call would make is held to the
//! run's rules on top of the denylist:
//!
//! - no write leaves the repository root (trekexecute Hard rule 15), except
//!   into `~/.claude/` and the device files a redirection uses; the memory
//!   directories `~/.claude/projects/*/memory/` only for a step whose
//!   manifest says `memory_write: true`;
//! - no write touches the session's Never-touch list (Hard rule 8), matched
//!   as the audits match plan paths ([`crate::audit::Matcher`]);
//! - no write touches a file outside the current step's `Files:` (Hard rule
//!   2), and between steps nothing in the repository is written;
//! - no write changes or removes the marker itself.
//!
//! Writes come from the engine ([`super::write_target`]): the path a file
//! tool names, or the targets the engine found in a Bash command, each
//! resolved against where the command stands ([`super::real_path`]: `..`,
//! `.` and links followed). A target the text cannot give (`> "$X"`) is
//! refused: where it lands cannot be checked. A marker that cannot be read
//! refuses every write; a stale one (its run no longer in progress) is
//! ignored, and named to the user when it alone would have refused one.

use std::path::Path;

use crate::audit::Matcher;
use crate::run_marker::{self, RunMarker};

use super::finding::{clip, one_line_text};
use super::paths;
use super::real_path;
use super::write_target::{WriteDir, WriteKind, WriteTarget};

/// What the run's scope says about one tool call's writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No run in progress here, or every write is inside its scope.
    Pass,
    /// Refused, with the hook's reason.
    Deny(String),
    /// A stale marker would have refused a write; it is ignored, and this
    /// line tells the user about it.
    Stale(String),
}

/// Longest piece of a command or path quoted in a reason.
const MAX_QUOTED: usize = 200;
/// Longest list of Files quoted in a reason.
const MAX_FILES_QUOTED: usize = 400;

/// Judges `writes`, made by a tool call running in `call_dir` (absolute),
/// against the run marker of the working tree holding `call_dir`. Every
/// reason is one line of at most [`super::hook::MAX_MESSAGE_CHARS`].
pub(crate) fn check(writes: &[WriteTarget], call_dir: &str, home: Option<&str>) -> Verdict {
    let one_line = |text: &str| clip(&one_line_text(text), super::hook::MAX_MESSAGE_CHARS);
    match judge(writes, call_dir, home) {
        Verdict::Pass => Verdict::Pass,
        Verdict::Deny(reason) => Verdict::Deny(one_line(&reason)),
        Verdict::Stale(note) => Verdict::Stale(one_line(&note)),
    }
}

fn judge(writes: &[WriteTarget], call_dir: &str, home: Option<&str>) -> Verdict {
    if writes.is_empty() {
        return Verdict::Pass;
    }
    let Some(location) = run_marker::locate(Path::new(call_dir)) else {
        return Verdict::Pass;
    };
    let marker_path = location.marker.display().to_string();
    let marker = match run_marker::read(&location.marker) {
        Ok(None) => return Verdict::Pass,
        Ok(Some(marker)) => marker,
        Err(e) => return Verdict::Deny(unreadable(&e.to_string(), &marker_path)),
    };
    if marker.schema_version != run_marker::SCHEMA_VERSION || !marker.repo_root.starts_with('/') {
        let why = format!(
            "the run marker {marker_path} is not a run marker this helper reads (schema_version {}, repo_root `{}`)",
            marker.schema_version,
            clip(&one_line_text(&marker.repo_root), MAX_QUOTED)
        );
        return Verdict::Deny(unreadable(&why, &marker_path));
    }
    let scope = Scope::new(&marker, &marker_path, home);
    let refused: Vec<String> = writes
        .iter()
        .filter_map(|w| scope.judge(w, call_dir))
        .collect();
    let Some(first) = refused.first() else {
        return Verdict::Pass;
    };
    if let Some(why) = marker.stale_reason() {
        return Verdict::Stale(stale(&marker_path, &why));
    }
    let mut reason = first.clone();
    if refused.len() > 1 {
        reason.push_str(&format!(
            " (and {} more refused write(s) in this call)",
            refused.len() - 1
        ));
    }
    Verdict::Deny(reason)
}

/// The reason for a marker that cannot be read.
fn unreadable(why: &str, marker: &str) -> String {
    format!(
        "voyage: blocked run-marker-unreadable (the run's scope cannot be read): {}, so no write can be checked against the run in progress. Safer: if no /trekexecute run is in progress, ask the user to remove the file (`rm {marker}`) or to start the next run (`trek start` replaces it); otherwise let the run end with `trek finish`.",
        one_line_text(why)
    )
}

/// The note for a stale marker.
fn stale(marker: &str, why: &str) -> String {
    format!(
        "voyage: ignored a stale run marker {marker} ({}); it would have refused this write. Remove it with `rm {marker}`, or the next `trek start` replaces it.",
        one_line_text(why)
    )
}

/// A marker, read and resolved once for all of a call's writes.
struct Scope<'m> {
    marker: &'m RunMarker,
    /// The marker file, its links followed.
    marker_path: String,
    /// `repo_root` as written and with its links followed.
    root_written: String,
    root: String,
    /// The home directory with its links followed, and as given (for `~`).
    home: Option<String>,
    home_given: Option<String>,
    files: Vec<Matcher>,
    never_touch: Vec<Matcher>,
}

impl<'m> Scope<'m> {
    fn new(marker: &'m RunMarker, marker_path: &str, home: Option<&str>) -> Self {
        let root_written = paths::normalize(&marker.repo_root, None);
        let real = |p: &str| real_path::resolve(p).unwrap_or_else(|| paths::normalize(p, None));
        Self {
            marker,
            marker_path: real(marker_path),
            root: real(&root_written),
            root_written,
            home: home.map(real),
            home_given: home.map(|h| h.trim_end_matches('/').to_owned()),
            files: marker.files.iter().map(|f| Matcher::new(f)).collect(),
            never_touch: marker.never_touch.iter().map(|f| Matcher::new(f)).collect(),
        }
    }

    /// Why `write` is refused, or `None` when the run's scope allows it.
    fn judge(&self, write: &WriteTarget, call_dir: &str) -> Option<String> {
        let shown = clip(&one_line_text(&write.spelled), MAX_QUOTED);
        let Some(text) = write.path.as_deref() else {
            return Some(unknown(&shown, "the path depends on what runs"));
        };
        // `-` is standard output to the programs that write files
        // (`wget -O -`, `curl -o -`).
        if text == "-" {
            return None;
        }
        let base = match &write.dir {
            WriteDir::Call => Some(call_dir.to_owned()),
            WriteDir::Moved(dir) => self.absolute(dir, call_dir),
            WriteDir::Unknown => None,
        };
        let joined = match base {
            Some(base) => self.absolute(text, &base),
            None if text.starts_with('/') || text.starts_with('~') => self.absolute(text, "/"),
            None => {
                return Some(unknown(
                    &shown,
                    "a `cd` before it goes where the command does not say",
                ));
            }
        };
        let Some(joined) = joined else {
            return Some(unknown(&shown, "the home directory is not known"));
        };
        let lexical = paths::normalize(&joined, None);
        if is_device(&lexical) {
            return None;
        }
        let (fixed, pattern) = if write.glob {
            match split_glob(&joined) {
                Some(split) => split,
                None => {
                    return Some(unknown(
                        &shown,
                        "its pattern could match `..` and climb out of any directory",
                    ));
                }
            }
        } else {
            (joined.clone(), String::new())
        };
        let Some(mut real) = real_path::resolve(&fixed) else {
            return Some(unknown(&shown, "its path holds a loop of symbolic links"));
        };
        if !pattern.is_empty() {
            real = format!("{}/{pattern}", real.trim_end_matches('/'));
        }
        if is_device(&real) {
            return None;
        }
        if real == self.marker_path
            || (write.kind == WriteKind::Remove && holds(&real, &self.marker_path))
        {
            return Some(format!(
                "voyage: blocked run-marker-write (the run's own guard): `{shown}` would change or remove the run marker {}, which holds this run's scope. Safer: leave it alone; `trek finish` removes it when the run ends.",
                self.marker_path
            ));
        }
        let Some(rel) = relative(&real, &self.root) else {
            return self.outside(write, &shown, &real);
        };
        let mut rels = vec![rel];
        for root in [&self.root_written, &self.root] {
            if let Some(r) = relative(&lexical, root)
                && !rels.contains(&r)
            {
                rels.push(r);
            }
        }
        self.inside(write, &shown, &rels)
    }

    /// `path` (`~/…`, absolute, or relative to `base`) as an absolute path;
    /// `None` when it needs the home and none is known.
    fn absolute(&self, path: &str, base: &str) -> Option<String> {
        if path == "~" || path.starts_with("~/") {
            let home = self.home_given.as_deref()?;
            return Some(format!("{home}{}", path.get(1..).unwrap_or_default()));
        }
        if path.starts_with('/') {
            return Some(path.to_owned());
        }
        Some(format!("{}/{path}", base.trim_end_matches('/')))
    }

    /// A write outside the repository root: refused unless it is in
    /// `~/.claude/` (its memory directories only with `memory_write`).
    fn outside(&self, write: &WriteTarget, shown: &str, real: &str) -> Option<String> {
        let in_claude = self
            .home
            .as_deref()
            .and_then(|home| relative(real, home))
            .filter(|rel| rel == ".claude" || rel.starts_with(".claude/"));
        if let Some(rel) = in_claude {
            let parts: Vec<&str> = rel.split('/').collect();
            // Removing a directory that holds memory directories removes
            // them too (`rm -r ~/.claude/projects`).
            let memory = matches!(parts.as_slice(), [_, "projects", _, "memory", ..])
                || (write.kind == WriteKind::Remove
                    && matches!(parts.as_slice(), [_] | [_, "projects"] | [_, "projects", _]));
            if !memory || self.marker.memory_write {
                return None;
            }
            let when = self.marker.step.map_or_else(
                || "while no step is in progress".to_owned(),
                |n| format!("and step {n}'s manifest does not declare memory_write: true"),
            );
            return Some(format!(
                "voyage: blocked run-memory-write (Hard rule 15: memory files need memory_write: true): `{shown}` writes {real}, in Claude Code's memory, {when}. Safer: leave the memory file alone and record what it should say as a finding for the final report."
            ));
        }
        Some(format!(
            "voyage: blocked run-outside-repo (Hard rule 15: no writes outside the repository): `{shown}` writes {real}, outside the repository root {}. Safer: write only inside the repository; outside it only ~/.claude/ is open (its projects/*/memory/ only to a step whose manifest says memory_write: true).",
            self.root
        ))
    }

    /// A write inside the repository: refused when it touches the
    /// Never-touch list, or a file outside the current step's Files.
    /// `rels`: the path relative to the root (resolved, and as written).
    fn inside(&self, write: &WriteTarget, shown: &str, rels: &[String]) -> Option<String> {
        let main = rels.first().map_or("", String::as_str);
        let named = if main.is_empty() { "." } else { main };
        for never in &self.never_touch {
            let plain = plain(&never.entry);
            let hit = rels.iter().any(|rel| {
                never.matches(rel)
                    || (write.kind == WriteKind::Remove && holds_rel(rel, &plain))
                    || (write.glob && Matcher::new(rel).matches(&plain))
            });
            if hit {
                return Some(format!(
                    "voyage: blocked run-never-touch (Hard rule 8: the session's Never-touch list): `{shown}` touches {named}, which the Never-touch entry `{}` covers. Safer: leave it alone whatever the step's Changes say, and record the change it seems to need as a finding for the final report.",
                    clip(&one_line_text(&never.entry), MAX_QUOTED)
                ));
            }
        }
        let Some(step) = self.marker.step else {
            return Some(format!(
                "voyage: blocked run-between-steps (Hard rule 2: only the step's Files): `{shown}` writes {named} while no step is in progress. Safer: call `trek step-begin N` first; the step's Files are open until its `trek step-done`."
            ));
        };
        let listed = rels
            .iter()
            .any(|rel| self.files.iter().any(|f| f.matches(rel)));
        let parent_of_listed = write.kind == WriteKind::Create
            && rels.iter().any(|rel| {
                self.files
                    .iter()
                    .any(|f| holds_rel(rel, &plain(&f.entry)) && plain(&f.entry) != *rel)
            });
        if listed || parent_of_listed {
            return None;
        }
        let files = if self.marker.files.is_empty() {
            "none".to_owned()
        } else {
            clip(
                &one_line_text(&self.marker.files.join(", ")),
                MAX_FILES_QUOTED,
            )
        };
        Some(format!(
            "voyage: blocked run-outside-step (Hard rule 2: only the step's Files): `{shown}` touches {named}, which is not in step {step}'s Files ({files}). Safer: leave the file alone and record the change it seems to need as a finding for the final report."
        ))
    }
}

/// The reason for a write whose target cannot be known.
fn unknown(shown: &str, why: &str) -> String {
    format!(
        "voyage: blocked run-unknown-target (the run's scope): the write target `{shown}` cannot be known before the command runs ({why}), so it cannot be checked against the run's scope. Safer: write the path out literally, relative to the repository or absolute."
    )
}

/// The device files a shell redirection writes: `/dev/null`,
/// `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/fd/N`.
fn is_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || path
        .strip_prefix("/dev/fd/")
        .is_some_and(|fd| !fd.is_empty() && !fd.contains('/'))
}

/// A glob target split into the directory before its first pattern part
/// (resolved like any path) and the pattern from there on; `None` when a
/// part of the pattern could match `..` (`.*` in shells that match dot
/// entries) and so climb anywhere.
fn split_glob(path: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    let first = parts
        .iter()
        .position(|p| p.contains(['*', '?', '[']))
        .unwrap_or(parts.len());
    let (fixed, pattern) = parts.split_at(first);
    // After a pattern part, `..` climbs from wherever the part matched,
    // which may be a link out of the repository.
    let climbs = pattern
        .iter()
        .any(|p| *p == ".." || (p.starts_with('.') && *p != "." && Matcher::new(p).matches("..")));
    if climbs {
        return None;
    }
    let fixed = fixed.join("/");
    let fixed = if fixed.is_empty() {
        "/".to_owned()
    } else {
        fixed
    };
    let pattern: Vec<&str> = pattern
        .iter()
        .copied()
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    Some((fixed, pattern.join("/")))
}

/// `path` relative to `root` (`""` for the root itself), or `None` when it
/// is not under it. Both absolute and normalised.
fn relative(path: &str, root: &str) -> Option<String> {
    if path == root {
        return Some(String::new());
    }
    if root == "/" {
        return path.strip_prefix('/').map(str::to_owned);
    }
    path.strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_owned)
}

/// `dir` is `path` or holds it (absolute paths).
fn holds(dir: &str, path: &str) -> bool {
    relative(path, dir).is_some()
}

/// `dir` (relative to the root, `""` the root) is `path` or holds it.
fn holds_rel(dir: &str, path: &str) -> bool {
    dir.is_empty() || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// A plan path entry as the matcher reads it: no `./`, no trailing `/`.
fn plain(entry: &str) -> String {
    entry
        .trim()
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_globs_and_relative_paths() {
        for dev in ["/dev/null", "/dev/stderr", "/dev/tty", "/dev/fd/3"] {
            assert!(is_device(dev), "{dev}");
        }
        for other in ["/dev/sda", "/dev/fd/", "/dev/fd/3/x", "/dev/nullx"] {
            assert!(!is_device(other), "{other}");
        }
        assert_eq!(
            split_glob("/r/src/*.o"),
            Some(("/r/src".into(), "*.o".into()))
        );
        assert_eq!(split_glob("/r/*/./x"), Some(("/r".into(), "*/x".into())));
        assert_eq!(split_glob("/*"), Some(("/".into(), "*".into())));
        assert_eq!(split_glob("/r/.*/x"), None);
        assert_eq!(split_glob("/r/.?"), None);
        assert_eq!(split_glob("/r/*/../x"), None);
        assert!(split_glob("/r/.git*").is_some());
        assert_eq!(relative("/r/a", "/r").as_deref(), Some("a"));
        assert_eq!(relative("/r", "/r").as_deref(), Some(""));
        assert_eq!(relative("/rx/a", "/r"), None);
        assert_eq!(relative("/a", "/").as_deref(), Some("a"));
        assert!(holds_rel("", "a") && holds_rel("src", "src/a") && !holds_rel("sr", "src/a"));
    }
}
