//! Where a command runs, as bash keeps it: `cd` and `pushd`/`popd` with a
//! known directory move the commands judged after them there, so that
//! `cd / && git clean -fdx` is judged as a `git clean` at `/`, and a
//! directory typed relative to it (`cd / && rm -r *`) as the path it names.
//!
//! A subshell, a stage of a pipeline of two or more, a background job, a
//! command substitution and a child shell keep their own place: a `cd` in
//! them is undone when they end ([`Scanner::subshell`]), as bash does. A
//! `cd` may fail (the directory may not be there), and bash then goes on
//! where it was: what follows it is in doubt ([`Scanner::cwd_doubt`]), so
//! relative writes there cannot be placed, unless `&&` after the `cd`
//! guards them. `CDPATH` (set in the command or the environment) may send a
//! relative `cd` elsewhere. `cd -P` (and every `cd` after `set -P` or `set
//! -o physical`) resolves links before `..`: its directory is kept as the
//! path for the file system to resolve (`./src/..`), which the run's scope
//! does, and a logical `..` after it is not followed. A directory the text
//! does not give (`cd "$DIR"`, `cd -`, `popd` of an unknown stack) forgets
//! where the command is. Until the first `cd`, it is the project
//! ([`None`]).

use crate::arg::Arg;
use crate::checks::rm;
use crate::paths;
use crate::scanner::Scanner;

/// Most places the shell may be in that are followed; past this, where it
/// is counts as unknown.
const MAX_PLACES: usize = 4;

/// Where the shell was when a list began ([`Scanner::start`]).
pub(super) struct Start {
    cwd: Option<String>,
    lost: bool,
    doubt: bool,
    or: Option<Vec<Option<String>>>,
}

/// What a subshell saves of its parent's place, to give it back.
struct Place {
    cwd: Option<String>,
    lost: bool,
    doubt: bool,
    or: Option<Vec<Option<String>>>,
    stack: Vec<Option<String>>,
    cd_seen: Option<bool>,
    descriptors: Vec<crate::descriptors::Opened>,
    physical: bool,
    resolved_later: bool,
}

impl Scanner<'_> {
    /// Runs `walk` as a subshell: where it moves is undone after it.
    pub(super) fn subshell<T>(&mut self, walk: impl FnOnce(&mut Self) -> T) -> T {
        let saved = Place {
            cwd: self.cwd.clone(),
            lost: self.cwd_lost,
            doubt: self.cwd_doubt,
            or: self.cwd_or.clone(),
            stack: self.dir_stack.clone(),
            cd_seen: self.cd_seen,
            descriptors: self.save_descriptors(),
            physical: self.physical,
            resolved_later: self.cwd_resolved_later,
        };
        let out = walk(self);
        self.cwd = saved.cwd;
        self.cwd_lost = saved.lost;
        self.cwd_doubt = saved.doubt;
        self.cwd_or = saved.or;
        self.dir_stack = saved.stack;
        self.cd_seen = saved.cd_seen;
        self.restore_descriptors(saved.descriptors);
        self.physical = saved.physical;
        self.cwd_resolved_later = saved.resolved_later;
        out
    }

    /// `cd ARGS`: moves [`Scanner::cwd`], in doubt until `&&` settles it.
    pub(super) fn change_dir(&mut self, args: &[Arg]) {
        let options: Vec<&Arg> = args
            .iter()
            .take_while(|a| a.exact && a.text.starts_with('-') && a.text != "-")
            .collect();
        // The last of `-L` and `-P` counts; without either, `set -P`.
        let physical = options
            .iter()
            .filter(|a| a.text != "--")
            .flat_map(|a| a.text.chars().rev())
            .find(|c| *c == 'P' || *c == 'L')
            .map_or(self.physical, |c| c == 'P');
        let dir = args.get(options.len());
        self.move_to(dir, physical);
    }

    /// `set -P`, `set -o physical` (and `+P`, `+o physical`): whether later
    /// `cd`s are physical. Options end at the first word that is none.
    pub(super) fn set_options(&mut self, args: &[Arg]) {
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let Some(text) = word.exact_text() else {
                return;
            };
            let on = match text.chars().next() {
                Some('-') if text != "-" && text != "--" => true,
                Some('+') if text != "+" => false,
                _ => return,
            };
            let letters = text.get(1..).unwrap_or_default();
            if letters.contains('P') {
                self.physical = on;
            }
            // `-o NAME`, also at the end of a cluster (`-eo physical`).
            if letters.contains('o')
                && let Some(name) = words.next()
                && name.is("physical")
            {
                self.physical = on;
            }
        }
    }

    /// `pushd ARGS`, `popd ARGS` and `dirs -c`: the directory stack.
    pub(super) fn dir_stack_call(&mut self, name: &str, args: &[Arg]) {
        let plain: Vec<&Arg> = args.iter().filter(|a| !a.is("--")).collect();
        let no_change = plain.iter().any(|a| a.is("-n"));
        match (name, plain.as_slice()) {
            ("pushd", [dir]) if !(dir.exact && (dir.text.starts_with(['+', '-']))) => {
                let here = self.cwd.clone();
                let before_lost = self.cwd_lost;
                self.move_to(Some(dir), false);
                // The stack keeps where the shell was; one that was
                // nowhere known pops to nowhere known.
                self.dir_stack.push(if before_lost {
                    None
                } else {
                    here.or(Some(".".into()))
                });
            }
            ("popd", []) => match self.dir_stack.pop() {
                Some(Some(dir)) => {
                    self.cwd = if dir == "." { None } else { Some(dir) };
                    self.cwd_lost = false;
                    self.cd_seen = Some(self.cwd_doubt);
                    self.cwd_doubt = true;
                    self.cwd_or = None;
                }
                // An empty stack: popd fails and the shell stays, but
                // which stack bash had the text may not show.
                Some(None) | None => self.lose_place(),
            },
            ("dirs", _) if plain.iter().any(|a| a.is("-c")) => self.dir_stack.clear(),
            ("dirs", _) => {}
            _ if no_change => {}
            // `pushd` alone swaps, `pushd +N`/`popd +N` rotate: where that
            // leads is not followed.
            _ => self.lose_place(),
        }
    }

    /// Moves to `dir` for a command that runs there or not at all
    /// (`env -C DIR CMD`): no doubt follows.
    pub(super) fn run_in(&mut self, dir: &Arg) {
        let doubt = self.cwd_doubt;
        self.move_to(Some(dir), false);
        if !self.cwd_lost {
            self.cwd_doubt = doubt && !(dir.text.starts_with('/') || dir.text.starts_with('~'));
            self.cwd_or = None;
        }
        self.cd_seen = None;
    }

    /// Forgets where the shell is.
    fn lose_place(&mut self) {
        self.cwd = None;
        self.cwd_lost = true;
        self.cwd_or = None;
        self.cd_seen = None;
    }

    /// Where the shell may be besides [`Scanner::cwd`] once a `cd` from
    /// here may fail: here, and where here may itself be. A relative `cd`
    /// from a place in doubt may land anywhere those places lead, which is
    /// not followed.
    fn places_if_it_fails(&self, anchored: bool) -> Option<Vec<Option<String>>> {
        if self.cwd_lost || (self.cwd_doubt && !anchored) {
            return None;
        }
        let mut places = if self.cwd_doubt {
            self.cwd_or.clone()?
        } else {
            Vec::new()
        };
        if !places.contains(&self.cwd) {
            places.push(self.cwd.clone());
        }
        (places.len() <= MAX_PLACES).then_some(places)
    }

    /// The shell may also be where `start` (saved earlier) left it: after
    /// a list whose `cd`s may not all have run.
    pub(super) fn may_be_back(&mut self, start: &Start) {
        if self.cwd_lost {
            return;
        }
        let now = if self.cwd_doubt {
            self.cwd_or.clone()
        } else {
            Some(Vec::new())
        };
        let then = match (start.lost, start.doubt) {
            (true, _) => None,
            (false, true) => start.or.clone().map(|mut places| {
                places.push(start.cwd.clone());
                places
            }),
            (false, false) => Some(vec![start.cwd.clone()]),
        };
        self.cwd_or = match (now, then) {
            (Some(mut places), Some(more)) => {
                for place in more {
                    if !places.contains(&place) && place != self.cwd {
                        places.push(place);
                    }
                }
                (places.len() <= MAX_PLACES).then_some(places)
            }
            _ => None,
        };
        self.cwd_doubt = true;
    }

    /// Where the shell is now, for [`Self::may_be_back`].
    pub(super) fn start(&self) -> Start {
        Start {
            cwd: self.cwd.clone(),
            lost: self.cwd_lost,
            doubt: self.cwd_doubt,
            or: self.cwd_or.clone(),
        }
    }

    /// Moves to `dir` (`None`: the home), as `cd` would.
    fn move_to(&mut self, dir: Option<&Arg>, physical: bool) {
        let Some(dir) = dir else {
            self.cwd_or = self.places_if_it_fails(true);
            self.cd_seen = Some(self.cwd_doubt);
            self.cwd = Some("~".to_owned());
            self.cwd_lost = false;
            self.cwd_doubt = true;
            self.cwd_resolved_later = false;
            return;
        };
        // `cd "$CLAUDE_PLUGIN_ROOT"`: the guard's own tree, kept by the
        // name the command spells it with, so a relative write there is
        // judged as one into it; a `..` after it loses the place.
        if known_path(dir).is_none()
            && !dir.taint.is_hostile()
            && !dir.text.split('/').any(|part| part == "..")
            && crate::paths::guard_spelling(&dir.text).is_some()
        {
            self.cwd_or = self.places_if_it_fails(true);
            self.cd_seen = Some(self.cwd_doubt);
            self.cwd = Some(dir.text.trim_matches('"').to_owned());
            self.cwd_lost = false;
            self.cwd_doubt = true;
            self.cwd_resolved_later = true;
            return;
        }
        let Some(text) = known_path(dir).filter(|text| *text != "-") else {
            self.lose_place();
            return;
        };
        let anchored = text.starts_with('/') || text.starts_with('~');
        // A relative `cd` goes through CDPATH first, unless it starts with
        // `.` or `..`; `cd -P` resolves links before `..`.
        let dotted =
            text == "." || text == ".." || text.starts_with("./") || text.starts_with("../");
        let searched = !anchored && !dotted && self.cdpath_set();
        let climbs = text.split('/').any(|part| part == "..");
        // From a directory a physical `cd` reached, a logical `..` climbs
        // from the name bash keeps for it, which the text does not give.
        let unplaced = !physical && climbs && self.cwd_resolved_later && !anchored;
        if searched || unplaced || (self.cwd_lost && !anchored) {
            self.lose_place();
            return;
        }
        let doubted_before = self.cwd_doubt && !anchored;
        let places = self.places_if_it_fails(anchored);
        let home = self.ctx.home.as_deref();
        self.cwd = if physical || (self.cwd_resolved_later && !anchored) {
            Some(join_unresolved(text, self.cwd.as_deref(), home))
        } else {
            resolve(text, self.cwd.as_deref(), home)
        };
        self.cwd_resolved_later = physical || (self.cwd_resolved_later && !anchored);
        self.cwd_or = places;
        self.cwd_lost = self.cwd.is_none();
        self.cd_seen = Some(doubted_before);
        self.cwd_doubt = true;
    }

    /// `CDPATH` is set, in the command or in this process's environment
    /// (the hook's, which the Bash tool's shell shares).
    fn cdpath_set(&self) -> bool {
        if let Some(values) = self.vars.get("CDPATH") {
            return values
                .iter()
                .any(|v| !v.first().exact_text().is_some_and(str::is_empty));
        }
        std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty())
    }

    /// After a pipeline joined to the next by an `&&` that every way
    /// through the list reaches: a `cd` that ended it succeeded for
    /// whatever runs after.
    pub(super) fn settle_cd(&mut self) {
        if let Some(doubted_before) = self.cd_seen.take() {
            self.cwd_doubt = doubted_before;
            if doubted_before {
                self.cwd_or = None;
            }
        }
    }
}

/// The text of `path` where it is known: exact, or `$HOME` (which reads as
/// `~`) with only known text after it.
pub(super) fn known_path(path: &Arg) -> Option<&str> {
    let home = path.text == "~" || path.text.starts_with("~/");
    (path.exact || (home && path.known_at() <= 1 && !path.taint.is_hostile()))
        .then_some(path.text.as_str())
}

/// `text`, a path, normalized (`~`-relative where it is under the home) and
/// seen from `cwd` (`None`: the project); `None` for `-` (the previous
/// directory). A path relative to the project stays relative (`./..`).
pub(super) fn resolve(text: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    if text == "-" {
        return None;
    }
    let anchored = text.starts_with('/') || text == "~" || text.starts_with("~/");
    let joined = match cwd {
        Some(cwd) if !anchored => format!("{cwd}/{text}"),
        _ => text.to_owned(),
    };
    Some(paths::normalize(&joined, home))
}

/// `text`, a directory, seen from `cwd` as [`resolve`] gives it, but with
/// its `..` parts kept for the file system to resolve after the links
/// before them (a physical `cd`): `.` and empty parts only are taken out.
fn join_unresolved(text: &str, cwd: Option<&str>, home: Option<&str>) -> String {
    let anchored = text.starts_with('/') || text == "~" || text.starts_with("~/");
    let (base, rest) = match cwd {
        _ if anchored => {
            // The anchor as `resolve` spells it (`~` for the home).
            let (root, rest) = match text.strip_prefix('~') {
                Some(rest) => ("~".to_owned(), rest),
                None => (paths::normalize("/", home), text),
            };
            (root, rest.to_owned())
        }
        Some(cwd) => (cwd.to_owned(), text.to_owned()),
        None => (".".to_owned(), text.to_owned()),
    };
    let mut out = base.trim_end_matches('/').to_owned();
    for part in rest.split('/').filter(|p| !p.is_empty() && *p != ".") {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() { "/".to_owned() } else { out }
}

/// Why deleting everything under `dir` (a path, seen from `cwd`) would
/// wreck a system, a user or more than the project: it is a root, home or
/// system directory, or the project's parent (`..`, `../..`: the folder of
/// every project beside it, and on up to `/`). `None` for any other place.
pub(super) fn too_wide(dir: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    let norm = resolve(dir, cwd, home)?;
    if rm::is_critical(&norm, home) {
        return Some(norm);
    }
    let above = norm
        .strip_prefix("./")
        .is_some_and(|up| up.split('/').all(|part| part == ".."));
    above.then(|| format!("{norm} (above the project)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_against_the_directory_moved_to() {
        let home = Some("/home/ann");
        let r = |path: &str, cwd: Option<&str>| resolve(path, cwd, home);
        assert_eq!(r("/", None).as_deref(), Some("/"));
        assert_eq!(r("/home/ann/", None).as_deref(), Some("~"));
        assert_eq!(r("..", Some("/tmp")).as_deref(), Some("/"));
        assert_eq!(r("*", Some("/")).as_deref(), Some("/*"));
        assert_eq!(r("build", None).as_deref(), Some("./build"));
        assert_eq!(r("-", Some("/")), None);
        let wide = |path: &str, cwd: Option<&str>| too_wide(path, cwd, home);
        assert_eq!(wide("/", None).as_deref(), Some("/"));
        assert_eq!(wide(".", Some("~")).as_deref(), Some("~"));
        assert_eq!(
            wide("../..", None).as_deref(),
            Some("./../.. (above the project)")
        );
        assert_eq!(wide("../other", None), None);
        assert_eq!(wide(".", None), None);
        assert_eq!(wide("/tmp/x", None), None);
    }
}
