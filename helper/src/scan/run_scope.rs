//! The run's scope: while a `/trekexecute` run is in progress (its run
//! marker, [`crate::run_marker`], lives in the git directory of the run's
//! working tree), every write a tool call would make is held to the run's
//! rules on top of the denylist:
//!
//! - no write leaves the repository root (trekexecute Hard rule 15), except
//!   into `~/.claude/` and the device files a redirection uses; the memory
//!   directories `~/.claude/projects/*/memory/` only for a step whose
//!   manifest says `memory_write: true`;
//! - no write touches the session's Never-touch list (Hard rule 8), matched
//!   as the audits match plan paths ([`crate::audit::Matcher`]);
//! - no write touches a file outside the current step's `Files:` (Hard rule
//!   2), and between steps nothing in the repository is written;
//! - no write changes or removes what holds the run: the marker, the
//!   progress file and the plan.
//!
//! Which runs judge a call: every live run whose tree the call writes into
//! (found from each written path, walking up past nested repositories and
//! submodules to every enclosing work tree), and the run of the directories
//! the call belongs to (its cwd and Claude Code's project directory, also
//! walked up), which alone refuses writes outside its root. So a `cd` into
//! a nested repository, a submodule or out of the repository changes
//! nothing: the marker is found from what is written, not from where.
//!
//! Writes come from the engine ([`super::write_target`]): the path a file
//! tool names, or the targets the engine found in a Bash command, each
//! resolved against where the command stands ([`super::real_path`]: `..`,
//! `.` and links followed), so a write through a link lands where the link
//! points and is judged there. A link in the step's Files is the step's
//! file, not its target: resolving an entry follows the links in the
//! directories above its last part only, so the link may be removed or
//! replaced, but its target stays as closed as any other path, whoever
//! made the link. A link the command makes is judged by what it points to
//! ([`judge_link`]). A file with other hard links is writable only when
//! the step names it. A target the text cannot give (`> "$X"`) is refused:
//! where it lands cannot be checked.
//!
//! The guard fails closed: a marker that cannot be read, or whose progress
//! file is missing, unreadable or no longer `in_progress`, refuses every
//! write until the helper ends the run (`trek finish`, or `voyage-helper
//! trek release` run by the user); the agent cannot call the latter.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::audit::Matcher;
use crate::run_marker::{self, RunMarker};

use super::finding::{clip, one_line_text};
use super::paths;
use super::real_path;
use super::write_target::{Link, WriteDir, WriteKind, WriteTarget};

/// What the run's scope says about one tool call's writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No run in progress here, or every write is inside its scope; with
    /// the run the call belongs to when it is to run fenced.
    Pass(Option<Fenced>),
    /// Refused, with the hook's reason.
    Deny(String),
}

/// The live run a fenced call belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fenced {
    pub marker: std::path::PathBuf,
    /// The directories (relative to the run's root) of step files this call
    /// visibly writes, where its fence lets files be made and replaced.
    pub dirs: Vec<String>,
}

/// Where a tool call comes from, for finding the runs that judge it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    /// The directory the call runs in (absolute).
    pub call_dir: &'a str,
    /// Claude Code's project directory (`CLAUDE_PROJECT_DIR`), if known.
    pub project_dir: Option<&'a str>,
    /// The home directory, for `~`.
    pub home: Option<&'a str>,
    /// The call is a Bash call that runs inside the kernel fence of the run
    /// it belongs to: a write target the text cannot give is left to the
    /// kernel instead of refused, and the run is found even when the call
    /// writes nothing visible.
    pub fenced: bool,
}

/// Longest piece of a command or path quoted in a reason.
const MAX_QUOTED: usize = 200;
/// Longest list of Files quoted in a reason.
const MAX_FILES_QUOTED: usize = 400;

/// Judges `writes`, made by a tool call from `origin`, against every live
/// run they concern; `ends_run` says the call runs `trek release`, which
/// only the user may. Every reason is one line of at most
/// [`super::hook::MAX_MESSAGE_CHARS`].
pub(crate) fn check(writes: &[WriteTarget], ends_run: bool, origin: &Origin<'_>) -> Verdict {
    match judge(writes, ends_run, origin) {
        Verdict::Pass(fenced) => Verdict::Pass(fenced),
        Verdict::Deny(reason) => Verdict::Deny(clip(
            &one_line_text(&reason),
            super::hook::MAX_MESSAGE_CHARS,
        )),
    }
}

/// A write target placed in the file system, or why it cannot be.
enum Placed {
    /// Nothing to judge (`-`, a device file).
    Harmless,
    /// Where it lands cannot be known: refused by the run the call belongs
    /// to.
    Unknown(String),
    Path(Place),
    /// One of these, as a `cd` before it succeeded or failed
    /// ([`WriteDir::InDoubt`]); the reason is for when they are judged
    /// apart.
    Either(Vec<Place>, String),
}

/// Where one write lands.
struct Place {
    /// The target as spelled, for messages.
    shown: String,
    /// Absolute, `.` and `..` taken out as text.
    lexical: String,
    /// Absolute, links followed (a glob's pattern part appended as text).
    real: String,
}

fn judge(writes: &[WriteTarget], ends_run: bool, origin: &Origin<'_>) -> Verdict {
    if writes.is_empty() && !ends_run && !origin.fenced {
        return Verdict::Pass(None);
    }
    let fs = real_path::Lookups::default();
    let placed: Vec<(&WriteTarget, Placed)> = writes
        .iter()
        .map(|w| {
            if origin.fenced && in_fenced_temp(w) {
                return (w, Placed::Harmless);
            }
            (w, place_target(w, origin.call_dir, origin.home, &fs))
        })
        .collect();
    // The directories whose runs decide, and every path written.
    let own: Vec<&str> = std::iter::once(origin.call_dir)
        .chain(origin.project_dir.filter(|d| d.starts_with('/')))
        .collect();
    let mut searched: Vec<String> = own.iter().map(|d| (*d).to_owned()).collect();
    for (_, placed) in &placed {
        let places = match placed {
            Placed::Path(place) => std::slice::from_ref(place),
            Placed::Either(places, _) => places.as_slice(),
            Placed::Harmless | Placed::Unknown(_) => &[],
        };
        for place in places {
            searched.push(place.real.clone());
            searched.push(place.lexical.clone());
        }
    }
    // The call's own runs first, so that their reasons lead; each marker
    // once, however it was reached.
    let mut markers: Vec<std::path::PathBuf> = Vec::new();
    let mut seen = BTreeSet::new();
    for location in run_marker::locate_all(searched.iter().map(Path::new)) {
        let text = location.marker.display().to_string();
        let key = fs.resolve(&text).unwrap_or(text);
        if seen.insert(key) {
            markers.push(location.marker);
        }
    }
    let mut refused = Vec::new();
    let mut fenced: Option<Fenced> = None;
    for marker_file in &markers {
        let marker_path = marker_file.display().to_string();
        let marker = match run_marker::read(marker_file) {
            Ok(None) => continue,
            Ok(Some(marker)) => marker,
            Err(e) => return Verdict::Deny(unreadable(&e.to_string(), &marker_path)),
        };
        if marker.schema_version != run_marker::SCHEMA_VERSION || !marker.repo_root.starts_with('/')
        {
            let why = format!(
                "the run marker {marker_path} is not a run marker this helper reads (schema_version {}, repo_root `{}`)",
                marker.schema_version,
                clip(&one_line_text(&marker.repo_root), MAX_QUOTED)
            );
            return Verdict::Deny(unreadable(&why, &marker_path));
        }
        if let Some(why) = marker.stale_reason() {
            return Verdict::Deny(unreadable(
                &format!("the run marker {marker_path} is live but {why}"),
                &marker_path,
            ));
        }
        let scope = Scope::new(&marker, &marker_path, origin.home, &fs);
        let belongs = own.iter().any(|dir| scope.covers(dir));
        let fence_here = origin.fenced && belongs && fenced.is_none();
        if fence_here {
            fenced = Some(Fenced {
                marker: marker_file.clone(),
                dirs: Vec::new(),
            });
        }
        if ends_run && belongs {
            refused.push(format!(
                "voyage: blocked run-release (the run's own guard): `trek release` ends the run in progress ({}) without its checks; only the user may run it, in a terminal. Safer: go on with the run, or end it with `trek finish`.",
                marker.plan
            ));
        }
        for (write, placed) in &placed {
            match placed {
                Placed::Harmless => {}
                Placed::Unknown(reason) if belongs && !origin.fenced => {
                    refused.push(reason.clone());
                }
                Placed::Unknown(_) => {}
                // Refused when it is refused wherever it lands; where it
                // may be allowed, it is a target the text cannot know.
                Placed::Either(places, reason) => {
                    let reasons: Vec<Option<String>> = places
                        .iter()
                        .map(|place| scope.judge(write, place, belongs))
                        .collect();
                    match reasons.iter().position(Option::is_none) {
                        None => refused.extend(reasons.into_iter().flatten().take(1)),
                        Some(_)
                            if reasons.iter().any(Option::is_some) && belongs && !origin.fenced =>
                        {
                            refused.push(reason.clone());
                        }
                        Some(_) if fence_here && !write.glob => {
                            let allowed = places.iter().zip(&reasons).filter(|(_, r)| r.is_none());
                            for (place, _) in allowed {
                                open_dir(&mut fenced, &scope, place);
                            }
                        }
                        Some(_) => {}
                    }
                }
                Placed::Path(place) => {
                    if let Some(reason) = scope.judge(write, place, belongs) {
                        refused.push(reason);
                        continue;
                    }
                    if let Some(link) = &write.link
                        && scope.covers(&place.real)
                        && let Some(reason) = judge_link(&scope, write, place, link, origin)
                    {
                        refused.push(reason);
                        continue;
                    }
                    if fence_here && !write.glob {
                        open_dir(&mut fenced, &scope, place);
                    }
                }
            }
        }
    }
    let Some(first) = refused.first() else {
        return Verdict::Pass(fenced);
    };
    let mut reason = first.clone();
    if refused.len() > 1 {
        reason.push_str(&format!(
            " (and {} more refused write(s) in this call)",
            refused.len() - 1
        ));
    }
    Verdict::Deny(reason)
}

/// A step file the call writes where the text shows it: its directory
/// lets files be made and replaced in the fence (`sed -i` writes a new
/// file and renames it over).
fn open_dir(fenced: &mut Option<Fenced>, scope: &Scope<'_>, place: &Place) {
    if let Some(dir) = relative(&place.real, &scope.root)
        .and_then(|rel| rel.rsplit_once('/').map(|(dir, _)| dir.to_owned()))
        && let Some(fenced) = fenced.as_mut()
        && !fenced.dirs.contains(&dir)
    {
        fenced.dirs.push(dir);
    }
}

/// Where `write`, made from `call_dir`, lands.
fn place_target(
    write: &WriteTarget,
    call_dir: &str,
    home: Option<&str>,
    fs: &real_path::Lookups,
) -> Placed {
    let shown = clip(&one_line_text(&write.spelled), MAX_QUOTED);
    let Some(text) = write.path.as_deref() else {
        return Placed::Unknown(unknown(&shown, "the path depends on what runs"));
    };
    // `-` is standard output to the programs that write files
    // (`wget -O -`, `curl -o -`).
    if text == "-" {
        return Placed::Harmless;
    }
    let home = home.map(|h| h.trim_end_matches('/'));
    let base = match &write.dir {
        WriteDir::Call => Some(call_dir.to_owned()),
        WriteDir::Moved(dir) => absolute(dir, call_dir, home),
        WriteDir::Unknown => None,
        WriteDir::InDoubt(dirs) => return place_in_doubt(write, dirs, call_dir, home, fs),
    };
    let joined = match base {
        Some(base) => absolute(text, &base, home),
        None if text.starts_with('/') || text.starts_with('~') => absolute(text, "/", home),
        None => {
            return Placed::Unknown(unknown(
                &shown,
                "a `cd` before it goes where the command does not say, or may fail",
            ));
        }
    };
    let Some(mut joined) = joined else {
        return Placed::Unknown(unknown(&shown, "the home directory is not known"));
    };
    if write.git_dir {
        joined = git_dir_of(&joined, fs);
    }
    let lexical = paths::normalize(&joined, None);
    if is_device(&lexical) {
        return Placed::Harmless;
    }
    // Above 2, a descriptor the text did not open: whatever file it is.
    if descriptor(&lexical).is_some() {
        return Placed::Unknown(unknown(
            &shown,
            "it reopens a file descriptor the command does not open",
        ));
    }
    let (fixed, pattern) = if write.glob {
        match split_glob(&joined) {
            Some(split) => split,
            None => {
                return Placed::Unknown(unknown(
                    &shown,
                    "its pattern could match `..` and climb out of any directory",
                ));
            }
        }
    } else {
        (joined.clone(), String::new())
    };
    // Removing or relinking a link changes the link, not what it points
    // at: only the directories above it are followed.
    let resolved = if write.kind == WriteKind::Remove && pattern.is_empty() {
        fs.resolve_above(&fixed)
    } else {
        fs.resolve(&fixed)
    };
    let Some(mut real) = resolved else {
        return Placed::Unknown(unknown(&shown, "its path holds a loop of symbolic links"));
    };
    if !pattern.is_empty() {
        real = format!("{}/{pattern}", real.trim_end_matches('/'));
    }
    if is_device(&real) {
        return Placed::Harmless;
    }
    Placed::Path(Place {
        shown,
        lexical,
        real,
    })
}

/// `write`, made after a `cd` that may have failed, placed from each of
/// `dirs`: one place wherever they agree, else each (a link the command
/// makes, or a target that cannot be placed from one of them, cannot be
/// judged apart).
fn place_in_doubt(
    write: &WriteTarget,
    dirs: &[WriteDir],
    call_dir: &str,
    home: Option<&str>,
    fs: &real_path::Lookups,
) -> Placed {
    let shown = clip(&one_line_text(&write.spelled), MAX_QUOTED);
    let why = unknown(
        &shown,
        "a `cd` before it goes where the command does not say, or may fail",
    );
    if write.link.is_some() {
        return Placed::Unknown(why);
    }
    let mut places: Vec<Place> = Vec::new();
    for dir in dirs {
        let one = WriteTarget {
            dir: match dir {
                WriteDir::InDoubt(_) => WriteDir::Unknown,
                other => other.clone(),
            },
            ..write.clone()
        };
        match place_target(&one, call_dir, home, fs) {
            Placed::Path(place) => {
                if !places.iter().any(|p| p.real == place.real) {
                    places.push(place);
                }
            }
            _ => return Placed::Unknown(why),
        }
    }
    match places.len() {
        1 => places
            .pop()
            .map_or(Placed::Unknown(why.clone()), Placed::Path),
        _ => Placed::Either(places, why),
    }
}

/// The git directory a git command that runs in DIR writes, for the
/// target `DIR/.git` ([`WriteTarget::git_dir`]): the nearest `.git` at or
/// above DIR, as git finds it, a `gitdir:` file (a linked work tree, a
/// submodule) followed; the target as it is when there is none (git then
/// finds no repository, and writes nothing).
fn git_dir_of(target: &str, fs: &real_path::Lookups) -> String {
    let dir = target.strip_suffix("/.git").unwrap_or(target);
    let Some(mut at) = fs.resolve(if dir.is_empty() { "/" } else { dir }) else {
        return target.to_owned();
    };
    loop {
        let candidate = format!("{}/.git", at.trim_end_matches('/'));
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.is_file() => {
                let text = std::fs::read_to_string(&candidate).unwrap_or_default();
                return match text.lines().next().and_then(|l| l.strip_prefix("gitdir:")) {
                    Some(path) if path.trim().starts_with('/') => path.trim().to_owned(),
                    Some(path) => format!("{}/{}", at.trim_end_matches('/'), path.trim()),
                    None => candidate,
                };
            }
            Ok(_) => return candidate,
            Err(_) => {}
        }
        match at.rsplit_once('/') {
            Some((parent, _)) if at != "/" => {
                at = if parent.is_empty() {
                    "/".to_owned()
                } else {
                    parent.to_owned()
                };
            }
            _ => return target.to_owned(),
        }
    }
}

/// Why a link made at `place`, inside the run's tree, is refused: what it
/// points to must be writable by the step, since every later write
/// through the link lands there (`ln -sf ../README.md src/a.sh`, then a
/// write to `src/a.sh`).
fn judge_link(
    scope: &Scope<'_>,
    write: &WriteTarget,
    place: &Place,
    link: &Link,
    origin: &Origin<'_>,
) -> Option<String> {
    let shown = format!(
        "{} (a link to {})",
        place.shown,
        link.to.as_deref().unwrap_or("?")
    );
    let Some(to) = link.to.as_deref() else {
        return Some(unknown(
            &shown,
            "what the link points to depends on what runs",
        ));
    };
    // A symbolic link's target is read from the link's own directory; a
    // hard link's (and `ln -sr`'s) from where the command stands.
    let dir = if !link.from_here {
        let parent = place.lexical.rsplit_once('/').map_or("", |(dir, _)| dir);
        WriteDir::Moved(if parent.is_empty() {
            "/".into()
        } else {
            parent.into()
        })
    } else {
        write.dir.clone()
    };
    let target = WriteTarget {
        path: Some(to.to_owned()),
        spelled: shown.clone(),
        glob: false,
        dir,
        kind: WriteKind::Write,
        link: None,
        git_dir: false,
    };
    match place_target(&target, origin.call_dir, origin.home, scope.fs) {
        Placed::Harmless => None,
        Placed::Unknown(reason) | Placed::Either(_, reason) => Some(reason),
        Placed::Path(mut to_place) => {
            to_place.shown = shown;
            scope.judge(&target, &to_place, true)
        }
    }
}

/// `path` (`~/…`, absolute, or relative to `base`) as an absolute path;
/// `None` when it needs the home and none is known.
fn absolute(path: &str, base: &str, home: Option<&str>) -> Option<String> {
    if path == "~" || path.starts_with("~/") {
        return Some(format!("{}{}", home?, path.get(1..).unwrap_or_default()));
    }
    if path.starts_with('/') {
        return Some(path.to_owned());
    }
    Some(format!("{}/{path}", base.trim_end_matches('/')))
}

/// The reason for a marker that cannot be read, or a run whose state
/// cannot be trusted.
fn unreadable(why: &str, marker: &str) -> String {
    format!(
        "voyage: blocked run-marker-unreadable (the run's scope cannot be trusted): {}, so no write can be checked against the run in progress. Safer: stop here and tell the user; they resume the run (/trekexecute --resume), or end it in a terminal with `voyage-helper trek release` (run marker {marker}).",
        one_line_text(why)
    )
}

/// A marker, read and resolved once for all of a call's writes.
struct Scope<'m> {
    marker: &'m RunMarker,
    /// The file system as this call found it.
    fs: &'m real_path::Lookups,
    /// The files that hold the run, their links followed: the marker, the
    /// progress file and the plan.
    guarded: Vec<(String, &'static str)>,
    /// `repo_root` as written and with its links followed.
    root_written: String,
    root: String,
    /// The home directory with its links followed.
    home: Option<String>,
    /// The step's Files as written, and resolved relative to the real
    /// root with the links above each entry's last part followed (never a
    /// link the entry names: that would open its target).
    files: Vec<Matcher>,
    files_real: Vec<Matcher>,
    /// The regular files the step names one by one (not a directory,
    /// pattern or link), as device and inode: a hard link may be written
    /// only through them.
    named_inodes: Vec<(u64, u64)>,
    never_touch: Vec<Matcher>,
}

impl<'m> Scope<'m> {
    fn new(
        marker: &'m RunMarker,
        marker_path: &str,
        home: Option<&str>,
        fs: &'m real_path::Lookups,
    ) -> Self {
        let root_written = paths::normalize(&marker.repo_root, None);
        let real = |p: &str| fs.resolve(p).unwrap_or_else(|| paths::normalize(p, None));
        let root = real(&root_written);
        let guarded = vec![
            (real(marker_path), "the run marker"),
            (real(&marker.progress), "the run's progress file"),
            (real(&marker.plan), "the plan being executed"),
        ];
        let resolved =
            |entry: &str, link: Follow| resolve_entry(entry, &root_written, &root, fs, link);
        // A Never-touch entry protects the link it names and what the link
        // points to: closing more is safe.
        let mut never_touch: Vec<Matcher> =
            marker.never_touch.iter().map(|f| Matcher::new(f)).collect();
        for link in [Follow::Link, Follow::Through] {
            never_touch.extend(
                marker
                    .never_touch
                    .iter()
                    .filter_map(|f| resolved(f, link))
                    .map(|f| Matcher::new(&f)),
            );
        }
        let named_inodes = marker
            .files
            .iter()
            .filter(|f| !f.ends_with('/') && !f.contains(['*', '?', '[']))
            .filter_map(|f| {
                let path = format!("{root_written}/{}", plain(f));
                std::fs::symlink_metadata(fs.resolve_above(&path)?).ok()
            })
            .filter(|meta| meta.is_file())
            .map(|meta| (meta.dev(), meta.ino()))
            .collect();
        Self {
            marker,
            fs,
            guarded,
            home: home.map(real),
            files: marker.files.iter().map(|f| Matcher::new(f)).collect(),
            files_real: marker
                .files
                .iter()
                .filter_map(|f| resolved(f, Follow::Link))
                .map(|f| Matcher::new(&f))
                .collect(),
            named_inodes,
            never_touch,
            root,
            root_written,
        }
    }

    /// `dir` (absolute) is inside this run's tree.
    fn covers(&self, dir: &str) -> bool {
        let lexical = paths::normalize(dir, None);
        let real = self.fs.resolve(&lexical).unwrap_or_else(|| lexical.clone());
        relative(&real, &self.root).is_some() || relative(&lexical, &self.root_written).is_some()
    }

    /// Why `write`, landing at `place`, is refused, or `None` when the
    /// run's scope allows it. `belongs`: the call is this run's, so a write
    /// outside its root is refused too.
    fn judge(&self, write: &WriteTarget, place: &Place, belongs: bool) -> Option<String> {
        let shown = &place.shown;
        for (held, what) in &self.guarded {
            if place.real == *held
                || place.lexical == *held
                || (write.kind == WriteKind::Remove && holds(&place.real, held))
            {
                return Some(format!(
                    "voyage: blocked run-marker-write (the run's own guard): `{shown}` would change or remove {what} {held}, which holds this run's scope. Safer: leave it alone; the helper updates it, and `trek finish` ends the run."
                ));
            }
        }
        let Some(rel) = relative(&place.real, &self.root) else {
            return if belongs {
                self.outside(write, shown, &place.real)
            } else {
                None
            };
        };
        let mut rels = vec![rel];
        for root in [&self.root_written, &self.root] {
            if let Some(r) = relative(&place.lexical, root)
                && !rels.contains(&r)
            {
                rels.push(r);
            }
        }
        self.inside(write, place, &rels)
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
    fn inside(&self, write: &WriteTarget, place: &Place, rels: &[String]) -> Option<String> {
        let shown = &place.shown;
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
        let files = || {
            if self.marker.files.is_empty() {
                "none".to_owned()
            } else {
                clip(
                    &one_line_text(&self.marker.files.join(", ")),
                    MAX_FILES_QUOTED,
                )
            }
        };
        // A git command's own directory: staging, commits and refs are the
        // helper's, whatever the step.
        if write.git_dir && !self.files.iter().any(|f| f.matches(main)) {
            let (id, whose) = match self.marker.step {
                Some(step) => (
                    "run-outside-step",
                    format!("which is not in step {step}'s Files ({})", files()),
                ),
                None => (
                    "run-between-steps",
                    "while no step is in progress".to_owned(),
                ),
            };
            return Some(format!(
                "voyage: blocked {id} (Hard rule 2: only the step's Files): `{shown}` writes the repository's git directory {named} (its index, refs, objects or config), {whose}. Safer: leave staging and commits to the helper (`trek step-done` stages the step's Files and makes the checkpoint commit); to undo a change to a step file, rewrite it with Edit or Write."
            ));
        }
        let Some(step) = self.marker.step else {
            return Some(format!(
                "voyage: blocked run-between-steps (Hard rule 2: only the step's Files): `{shown}` writes {named} while no step is in progress. Safer: call `trek step-begin N` first; the step's Files are open until its `trek step-done`."
            ));
        };
        // Only where the write really lands counts: a write through a link
        // in the Files is judged by the link's target, which naming the
        // link does not open.
        let entries = || self.files.iter().chain(&self.files_real);
        let listed = entries().any(|f| f.matches(main));
        let parent_of_listed = write.kind == WriteKind::Create
            && entries().any(|f| holds_rel(main, &plain(&f.entry)) && plain(&f.entry) != main);
        let other_link = write.kind != WriteKind::Remove && self.hard_link_elsewhere(&place.real);
        if (listed || parent_of_listed) && !other_link {
            return None;
        }
        if listed {
            return Some(format!(
                "voyage: blocked run-outside-step (Hard rule 2: only the step's Files): `{shown}` writes {named}, a file with other hard links, which step {step} does not name one by one: writing it changes them too. Safer: leave the file alone and record the change it seems to need as a finding for the final report."
            ));
        }
        let files = files();
        Some(format!(
            "voyage: blocked run-outside-step (Hard rule 2: only the step's Files): `{shown}` touches {named}, which is not in step {step}'s Files ({files}). Safer: leave the file alone and record the change it seems to need as a finding for the final report."
        ))
    }

    /// `real` is a regular file with more than one hard link, and not one
    /// of the files the step names one by one.
    fn hard_link_elsewhere(&self, real: &str) -> bool {
        std::fs::symlink_metadata(real).is_ok_and(|meta| {
            meta.is_file()
                && meta.nlink() > 1
                && !self.named_inodes.contains(&(meta.dev(), meta.ino()))
        })
    }
}

/// `write` is a name `mktemp` makes up in the temporary directory, which
/// for a fenced call is the run's own (`TMPDIR`), open to it: the judge,
/// which cannot see `TMPDIR`, placed it in `/tmp`.
fn in_fenced_temp(write: &WriteTarget) -> bool {
    write.path.as_deref().is_some_and(|path| {
        path.strip_prefix("/tmp/")
            .is_some_and(|name| !name.contains('/') && name.contains(&"X".repeat(3)))
    })
}

/// The reason for a write whose target cannot be known.
fn unknown(shown: &str, why: &str) -> String {
    format!(
        "voyage: blocked run-unknown-target (the run's scope): the write target `{shown}` cannot be known before the command runs ({why}), so it cannot be checked against the run's scope. Safer: write the path out literally, relative to the repository or absolute."
    )
}

/// The device files a shell redirection writes: `/dev/null`, `/dev/tty`,
/// and the shell's own standard streams (`/dev/stdout`, `/dev/fd/2`), which
/// the judge leaves as they are only where the command did not open them
/// on a file (it reads `exec 1>f; echo x > /dev/stdout` as a write of f).
fn is_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || descriptor(path).is_some_and(|fd| fd <= 2)
}

/// The descriptor a path reopens (`/dev/fd/N`, `/proc/self/fd/N`).
fn descriptor(path: &str) -> Option<u32> {
    ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
        .filter(|fd| !fd.is_empty() && fd.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|fd| fd.parse().ok())
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

/// Whether resolving an entry follows a link its last part names.
#[derive(Debug, Clone, Copy)]
enum Follow {
    /// The entry is the link: only the directories above it are followed.
    Link,
    /// The entry is what the link points to.
    Through,
}

/// A Files or Never-touch entry with the links in its fixed part
/// followed (the last part's only with [`Follow::Through`]), relative to
/// the real root (a directory entry keeps its trailing `/`); `None` when it
/// resolves outside the root or through a loop.
fn resolve_entry(
    entry: &str,
    root_written: &str,
    root: &str,
    fs: &real_path::Lookups,
    follow: Follow,
) -> Option<String> {
    let text = plain(entry);
    let dir = entry.trim().ends_with('/');
    let (fixed, pattern) = split_glob(&format!("{root_written}/{text}"))?;
    // With a pattern, the fixed part holds only directories above it.
    let real = match follow {
        Follow::Link if pattern.is_empty() => fs.resolve_above(&fixed)?,
        _ => fs.resolve(&fixed)?,
    };
    let mut rel = relative(&real, root)?;
    if !pattern.is_empty() {
        rel = if rel.is_empty() {
            pattern
        } else {
            format!("{rel}/{pattern}")
        };
    }
    if dir {
        rel.push('/');
    }
    Some(rel)
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
        for dev in [
            "/dev/null",
            "/dev/stderr",
            "/dev/tty",
            "/dev/fd/2",
            "/proc/self/fd/1",
        ] {
            assert!(is_device(dev), "{dev}");
        }
        for other in [
            "/dev/sda",
            "/dev/fd/",
            "/dev/fd/3",
            "/dev/fd/3/x",
            "/dev/nullx",
        ] {
            assert!(!is_device(other), "{other}");
        }
        assert_eq!(descriptor("/dev/fd/10"), Some(10));
        assert_eq!(descriptor("/proc/self/fd/x"), None);
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

    #[test]
    fn a_git_command_writes_the_git_directory_git_finds() -> Result<(), Box<dyn std::error::Error>>
    {
        let tmp = tempfile::tempdir()?;
        let fs = real_path::Lookups::default();
        let root = fs
            .resolve(&tmp.path().display().to_string())
            .ok_or("no root")?;
        std::fs::create_dir_all(format!("{root}/repo/.git"))?;
        std::fs::create_dir_all(format!("{root}/repo/src/deep"))?;
        // A linked work tree (or a submodule): `.git` is a file naming it.
        std::fs::create_dir_all(format!("{root}/wt/src"))?;
        std::fs::write(
            format!("{root}/wt/.git"),
            "gitdir: ../repo/.git/worktrees/wt\n",
        )?;
        std::fs::create_dir_all(format!("{root}/plain"))?;
        let dir = |rel: &str| git_dir_of(&format!("{root}/{rel}/.git"), &fs);
        assert_eq!(dir("repo"), format!("{root}/repo/.git"));
        assert_eq!(dir("repo/src/deep"), format!("{root}/repo/.git"));
        assert_eq!(
            dir("wt/src"),
            format!("{root}/wt/../repo/.git/worktrees/wt")
        );
        // No repository above: git finds none, and the target stays (where
        // the temporary directory is itself in no repository).
        let none = format!("{root}/plain/.git");
        let in_a_repository = std::path::Path::new(&root)
            .ancestors()
            .any(|dir| dir.join(".git").exists());
        if !in_a_repository {
            assert_eq!(git_dir_of(&none, &fs), none);
        }
        Ok(())
    }
}
