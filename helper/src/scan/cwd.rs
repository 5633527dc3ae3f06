//! Where a command runs: `cd` and `pushd` with a known directory move the
//! commands judged after them there, so that `cd / && git clean -fdx` is
//! judged as a `git clean` at `/`, and a directory typed relative to it
//! (`cd / && rm -r *`) as the path it names.
//!
//! Deliberately sticky: a `cd` in a subshell, a pipeline stage or a child
//! shell (`(cd /); git clean -f`) is taken to last too. Judging a later
//! command as if it ran there can only make the judgement stricter, and a
//! command that moves to `/` and then runs a mass delete elsewhere is rare.
//! A directory the text does not give (`cd "$DIR"`, `cd -`) forgets where
//! the command is; until the first `cd`, it is the project ([`None`]).

use super::arg::Arg;
use super::checks::rm;
use super::paths;
use super::scanner::Scanner;

impl Scanner<'_> {
    /// `cd ARGS` or `pushd ARGS`: moves [`Scanner::cwd`].
    pub(super) fn change_dir(&mut self, args: &[Arg]) {
        // -L, -P, -e, -@ and `--` come before the directory.
        let dir = args
            .iter()
            .find(|a| !(a.exact && a.text.starts_with('-') && a.text != "-"));
        let known = dir.map(|dir| known_path(dir).filter(|text| *text != "-"));
        self.cwd_lost = match known {
            None => false,
            Some(None) => true,
            Some(Some(text)) => self.cwd_lost && !(text.starts_with('/') || text.starts_with('~')),
        };
        self.cwd = match dir {
            None => Some("~".to_owned()),
            Some(dir) => known_path(dir)
                .and_then(|text| resolve(text, self.cwd.as_deref(), self.ctx.home.as_deref())),
        };
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
