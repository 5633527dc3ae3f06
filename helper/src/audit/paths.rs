//! Paths as manifests write them: relative to the repository root, checked
//! to stay inside it, and matched against changed files the way a git
//! pathspec matches (a plain path names itself and everything under it; `*`,
//! `?` and `[…]` are wildcards that also cross `/`).

use std::path::{Path, PathBuf};

/// The path under `root`, or `None` when it would leave the repository
/// (absolute, climbing with `..`, or under `~/`): the rule `plan validate`
/// refuses a plan by, [`crate::plan::in_repository`].
pub fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = rel.trim();
    (!rel.is_empty() && crate::plan::in_repository(rel)).then(|| root.join(rel))
}

/// A forbidden-path entry, ready to match changed paths.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub entry: String,
    plain: String,
    glob: Option<regex::Regex>,
}

impl Matcher {
    pub fn new(entry: &str) -> Self {
        let plain = entry
            .trim()
            .trim_start_matches("./")
            .trim_end_matches('/')
            .to_owned();
        let glob = plain
            .contains(['*', '?', '['])
            .then(|| glob_regex(&plain))
            .flatten();
        Self {
            entry: entry.to_owned(),
            plain,
            glob,
        }
    }

    /// `path` (relative to the root, as git prints it) is this entry or
    /// under it.
    pub fn matches(&self, path: &str) -> bool {
        if let Some(glob) = &self.glob {
            return glob.is_match(path);
        }
        if self.plain.is_empty() || self.plain == "." {
            return true;
        }
        path == self.plain
            || path
                .strip_prefix(self.plain.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

/// A git-style wildcard pattern as an anchored regex: `*` any run of
/// characters, `?` one, `[…]` a class; a match may also be a directory
/// that holds the path.
fn glob_regex(glob: &str) -> Option<regex::Regex> {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => {
                let mut class = String::from("[");
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                }
                let mut closed = false;
                for d in chars.by_ref() {
                    if d == ']' {
                        closed = true;
                        break;
                    }
                    if d == '\\' || d == '[' {
                        class.push('\\');
                    }
                    class.push(d);
                }
                if !closed {
                    return None;
                }
                class.push(']');
                out.push_str(&class);
            }
            other => out.push_str(&regex::escape(&other.to_string())),
        }
    }
    out.push_str("(/.*)?$");
    regex::Regex::new(&out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_repository() {
        let root = Path::new("/r");
        assert_eq!(inside(root, "a/b.txt"), Some(PathBuf::from("/r/a/b.txt")));
        assert_eq!(inside(root, "./a"), Some(PathBuf::from("/r/./a")));
        for bad in ["../x", "/etc/passwd", "a/../../x", ""] {
            assert_eq!(inside(root, bad), None, "{bad}");
        }
    }

    #[test]
    fn matching_like_a_pathspec() {
        let m = |e: &str, p: &str| Matcher::new(e).matches(p);
        assert!(m("Cargo.lock", "Cargo.lock"));
        assert!(m("src/secret/", "src/secret/key.rs"));
        assert!(m("./src/secret", "src/secret/key.rs"));
        assert!(!m("src/secret", "src/secretive.rs"));
        assert!(m("*.lock", "Cargo.lock"));
        assert!(m("*.lock", "sub/yarn.lock"));
        assert!(m("migrations/*", "migrations/001/up.sql"));
        assert!(m("file?.txt", "file1.txt"));
        assert!(m("[ab].txt", "b.txt"));
        assert!(!m("[!ab].txt", "b.txt"));
        assert!(!m("*.lock", "lock.txt"));
    }
}
