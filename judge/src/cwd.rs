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
//! relative `cd` elsewhere; `cd -P` through `..` resolves links first; a
//! directory the text does not give (`cd "$DIR"`, `cd -`, `popd` of an
//! unknown stack) forgets where the command is. Until the first `cd`, it
//! is the project ([`None`]).

use crate::arg::Arg;
use crate::checks::rm;
use crate::paths;
use crate::scanner::Scanner;

/// What a subshell saves of its parent's place, to give it back.
struct Place {
    cwd: Option<String>,
    lost: bool,
    doubt: bool,
    stack: Vec<Option<String>>,
    cd_seen: Option<bool>,
}

impl Scanner<'_> {
    /// Runs `walk` as a subshell: where it moves is undone after it.
    pub(super) fn subshell<T>(&mut self, walk: impl FnOnce(&mut Self) -> T) -> T {
        let saved = Place {
            cwd: self.cwd.clone(),
            lost: self.cwd_lost,
            doubt: self.cwd_doubt,
            stack: self.dir_stack.clone(),
            cd_seen: self.cd_seen,
        };
        let out = walk(self);
        self.cwd = saved.cwd;
        self.cwd_lost = saved.lost;
        self.cwd_doubt = saved.doubt;
        self.dir_stack = saved.stack;
        self.cd_seen = saved.cd_seen;
        out
    }

    /// `cd ARGS`: moves [`Scanner::cwd`], in doubt until `&&` settles it.
    pub(super) fn change_dir(&mut self, args: &[Arg]) {
        let options: Vec<&Arg> = args
            .iter()
            .take_while(|a| a.exact && a.text.starts_with('-') && a.text != "-")
            .collect();
        let physical = options
            .iter()
            .any(|a| a.text != "--" && a.text.contains('P'));
        let dir = args.get(options.len());
        self.move_to(dir, physical);
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
        }
        self.cd_seen = None;
    }

    /// Forgets where the shell is.
    fn lose_place(&mut self) {
        self.cwd = None;
        self.cwd_lost = true;
        self.cd_seen = None;
    }

    /// Moves to `dir` (`None`: the home), as `cd` would.
    fn move_to(&mut self, dir: Option<&Arg>, physical: bool) {
        let Some(dir) = dir else {
            self.cd_seen = Some(self.cwd_doubt);
            self.cwd = Some("~".to_owned());
            self.cwd_lost = false;
            self.cwd_doubt = true;
            return;
        };
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
        let climbs = physical && text.split('/').any(|part| part == "..");
        if searched || climbs || (self.cwd_lost && !anchored) {
            self.lose_place();
            return;
        }
        let doubted_before = self.cwd_doubt && !anchored;
        self.cwd = resolve(text, self.cwd.as_deref(), self.ctx.home.as_deref());
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
        }
    }
}

/// The text of `path` where it is known: exact, or `$HOME` (which reads as
/// `~`) with only known text after it.
pub(super) fn known_path(path: &Arg) -> Option<&str> {
    let home = path.text == "~" || path.text.starts_with("~/");
    (path.exact || (home && path.known_from <= 1 && !path.taint.is_hostile()))
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
