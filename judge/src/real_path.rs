//! A path as the kernel will find it when the command opens it: `.`, `..`
//! and repeated slashes resolved, and every symbolic link in the part of
//! the path that exists followed, so that a link inside the repository
//! pointing out of it counts as outside. The part that does not exist yet
//! (the file a write creates, the directories `mkdir -p` makes) cannot hold
//! a link, and is taken as written. No `canonicalize`: that fails on a path
//! that does not exist, and a write usually creates one.

use std::collections::VecDeque;
use std::fs;

/// Links followed in one path before giving up, as Linux does (ELOOP).
const MAX_LINKS: usize = 40;

/// What one path is, as far as resolving goes.
#[derive(Debug, Clone)]
enum Kind {
    Missing,
    Plain,
    Link(String),
}

/// Looks at each path once: one tool call's paths share most of their
/// directories (the repository's, the marker's, the home's), and the file
/// system is taken to stand still for the length of one judgement.
#[derive(Debug, Default)]
pub struct Lookups {
    seen: std::cell::RefCell<std::collections::HashMap<String, Kind>>,
}

impl Lookups {
    fn kind(&self, path: &str) -> Kind {
        if let Some(kind) = self.seen.borrow().get(path) {
            return kind.clone();
        }
        let kind = match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => match fs::read_link(path) {
                Ok(target) => Kind::Link(target.to_string_lossy().into_owned()),
                Err(_) => Kind::Missing,
            },
            Ok(_) => Kind::Plain,
            Err(_) => Kind::Missing,
        };
        self.seen.borrow_mut().insert(path.to_owned(), kind.clone());
        kind
    }

    /// The module's `resolve`, with what was looked at kept for the next
    /// path.
    pub fn resolve(&self, path: &str) -> Option<String> {
        resolve_with(path, &|p| self.kind(p))
    }

    /// `path` with the links in the directories above its last part
    /// followed, and the last part kept as written: the path of a link
    /// itself, not of what it points to. What removing or relinking a path
    /// changes, and what naming a path in a step's Files opens. A last
    /// part of `.` or `..` names a directory reached through it, so such
    /// a path is resolved whole.
    pub fn resolve_above(&self, path: &str) -> Option<String> {
        // A trailing `/` makes the kernel follow the last part too.
        match path.rsplit_once('/') {
            Some((parent, name)) if !matches!(name, "" | "." | "..") => {
                let parent = self.resolve(if parent.is_empty() { "/" } else { parent })?;
                Some(format!("{}/{name}", parent.trim_end_matches('/')))
            }
            _ => self.resolve(path),
        }
    }
}

/// `path`, absolute, with its links followed; `None` for a path that is not
/// absolute or has a loop of links (no write through it can succeed, and
/// where it would go cannot be said).
#[cfg(test)]
fn resolve(path: &str) -> Option<String> {
    Lookups::default().resolve(path)
}

fn resolve_with(path: &str, kind_of: &dyn Fn(&str) -> Kind) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let mut pending: VecDeque<String> = parts(path).collect();
    let mut done: Vec<String> = Vec::new();
    let mut exists = true;
    let mut links = 0;
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "." => {}
            // Above `/`, `..` stays at `/`. Once a part is missing, the rest
            // is text: the kernel would refuse the path anyway.
            ".." => {
                done.pop();
            }
            _ => {
                done.push(part);
                if !exists {
                    continue;
                }
                let here = join(&done);
                match kind_of(&here) {
                    Kind::Link(target) => {
                        links += 1;
                        if links > MAX_LINKS {
                            return None;
                        }
                        done.pop();
                        if target.starts_with('/') {
                            done.clear();
                        }
                        for (i, p) in parts(&target).enumerate() {
                            pending.insert(i, p);
                        }
                    }
                    Kind::Plain => {}
                    Kind::Missing => exists = false,
                }
            }
        }
    }
    Some(join(&done))
}

/// The non-empty parts of a path.
fn parts(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/').filter(|p| !p.is_empty()).map(str::to_owned)
}

fn join(parts: &[String]) -> String {
    if parts.is_empty() {
        return "/".to_owned();
    }
    let mut out = String::new();
    for part in parts {
        out.push('/');
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_the_existing_part_are_followed() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let root = resolve(&dir.path().display().to_string()).ok_or("no root")?;
        fs::create_dir_all(format!("{root}/repo/src"))?;
        fs::create_dir_all(format!("{root}/out"))?;
        std::os::unix::fs::symlink(format!("{root}/out"), format!("{root}/repo/abs"))?;
        std::os::unix::fs::symlink("../out", format!("{root}/repo/rel"))?;
        std::os::unix::fs::symlink("loop", format!("{root}/repo/loop"))?;
        let r = |p: &str| resolve(&format!("{root}/{p}"));
        assert_eq!(
            r("repo/src/new.rs"),
            Some(format!("{root}/repo/src/new.rs"))
        );
        assert_eq!(r("repo//./src/../x"), Some(format!("{root}/repo/x")));
        assert_eq!(r("repo/abs/f"), Some(format!("{root}/out/f")));
        assert_eq!(r("repo/rel/f"), Some(format!("{root}/out/f")));
        // The kernel takes `..` after a link from where the link leads.
        assert_eq!(r("repo/abs/../repo/y"), Some(format!("{root}/repo/y")));
        let parent = root.rsplit_once('/').map_or("", |(p, _)| p);
        assert_eq!(r("repo/rel/../../z"), Some(format!("{parent}/z")));
        assert_eq!(r("repo/missing/../../w"), Some(format!("{root}/w")));
        assert_eq!(r("repo/loop/x"), None);
        assert_eq!(resolve("/../.."), Some("/".into()));
        assert_eq!(resolve("rel"), None);
        // The link itself: only the directories above it are followed.
        let above = |p: &str| Lookups::default().resolve_above(&format!("{root}/{p}"));
        assert_eq!(above("repo/rel"), Some(format!("{root}/repo/rel")));
        assert_eq!(above("repo/rel/f"), Some(format!("{root}/out/f")));
        assert_eq!(above("repo/loop"), Some(format!("{root}/repo/loop")));
        assert_eq!(above("repo/loop/x"), None);
        assert_eq!(above("repo/rel/.."), Some(root.clone()));
        assert_eq!(above("repo/rel/"), Some(format!("{root}/out")));
        assert_eq!(Lookups::default().resolve_above("/"), Some("/".into()));
        Ok(())
    }
}
