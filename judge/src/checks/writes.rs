//! Which paths a program writes, so that redirections and programs alike
//! are held to [`crate::paths`] and to a run's scope: the programs
//! and where they write are the table of [`super::writers`]; this module
//! hands its rows to the scanner, which records each target
//! ([`crate::write_target`]) and judges it against the protected
//! paths, as written, from where a `cd` moved the command, and through a
//! link the command made earlier (`ln -s .git/hooks h; echo x >
//! h/pre-commit`).

use super::writers::{self, CURL, WGET};
use crate::arg::Arg;
use crate::cwd;
use crate::getopt;
use crate::paths::{self, Write};
use crate::rule::Rule;
use crate::scanner::Scanner;
use crate::write_target::{Link, WriteDir};

/// The programs that extract an archive into a directory (a tree the
/// writers table records as [`Write::Remove`]).
const EXTRACTORS: &[&str] = &[
    "tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zz", "cpio", "jar", "unrar",
];

/// The names under an extraction directory that are protected in some
/// directory an archive may be extracted into (`.git`, `.claude`,
/// `~/.claude`).
const ARCHIVE_REACHES: &[&str] = &["hooks/x", "config", "settings.json", "plugins/x"];

/// Links followed from one write, as a chain (`ln -s a b; ln -s b c`).
const MAX_LINKS: usize = 8;

/// The paths `name` writes with `args`, and how.
pub(crate) fn targets(name: &str, args: &[Arg]) -> Vec<(Arg, Write)> {
    writers::find(name, args)
        .into_iter()
        .map(|f| (f.target, f.write))
        .collect()
}

/// The files `curl -O URL` (`--remote-name`) and `wget URL` (without `-O`)
/// save a download to: the last part of each URL's path, in the working
/// directory. A URL ending in `/` gives a name the text does not show.
pub(crate) fn remote_names(name: &str, args: &[Arg]) -> Vec<String> {
    let p = match name {
        "curl" => getopt::parse(args, &CURL),
        "wget" => getopt::parse(args, &WGET),
        _ => return Vec::new(),
    };
    let named_by_url = match name {
        "curl" => p.has("O", &["remote-name", "remote-name-all"]),
        _ => p.values(Some('O'), Some("output-document")).is_empty(),
    };
    if !named_by_url {
        return Vec::new();
    }
    p.operands
        .iter()
        .filter_map(|a| {
            let (_, rest) = a.exact_text()?.split_once("://")?;
            let path = rest.split(['?', '#']).next()?;
            let file = path.rsplit_once('/').map_or("", |(_, file)| file);
            // A URL without a file name: wget saves `index.html`, curl 8
            // `curl_response` (older curl refuses).
            Some(match (file, name) {
                ("", "wget") => "index.html".to_owned(),
                ("", _) => "curl_response".to_owned(),
                _ => file.to_owned(),
            })
        })
        .collect()
}

impl Scanner<'_> {
    /// Judges a write of `target` by the command `words`.
    pub(crate) fn write_target(&mut self, words: &[Arg], target: &Arg, write: Write) {
        self.record_write(target, write);
        // git writing its own configuration (`git config --global k v`) is
        // judged by what the key does (the git checks), not as a write of
        // a protected file; a run's scope still holds it.
        let by_git = words
            .first()
            .is_some_and(|w| w.text == "git" || w.text.ends_with("/git"))
            && words.iter().any(|w| w.text == "config");
        for (file, _) in self.landing(target) {
            if let Some((rule, detail)) = self.protected(&file.text, write)
                && !(by_git && rule.id == "git-config-write")
            {
                self.report(rule, words, detail);
            }
        }
    }

    /// Judges every path the program `name` writes.
    pub(crate) fn program_writes(&mut self, name: &str, words: &[Arg], args: &[Arg]) {
        for found in writers::find(name, args) {
            self.write_target(words, &found.target, found.write);
            if EXTRACTORS.contains(&name) && found.write == Write::Remove {
                self.extracted_into(words, &found.target);
            }
            if let Some(link) = found.link {
                self.record_link(link);
                self.link_made(words);
            }
            if found.git_dir {
                self.record_git_dir(words);
            }
        }
    }

    /// An archive extracted into `dir` writes whatever names the archive
    /// holds, so into a git directory or a `.claude` directory it may be
    /// their hooks or settings (`tar -xf x.tar -C .git` installs hooks as
    /// `cp x .git/hooks/` does). Judged as a write of each protected name
    /// such a directory holds, from where the command moved and through
    /// its links; a project directory holds none of them.
    fn extracted_into(&mut self, words: &[Arg], dir: &Arg) {
        if !dir.exact {
            return;
        }
        let dir = dir.text.trim_end_matches('/');
        let dir = if dir.is_empty() { "/" } else { dir };
        for child in ARCHIVE_REACHES {
            let path = format!("{dir}/{child}");
            if let Some((rule, detail)) = self.protected(&path, Write::Replace) {
                let detail = format!("the archive may hold {child}: {detail}");
                self.report(rule, words, detail);
                return;
            }
        }
    }

    /// The protected-path rule a write of `path` breaks, with why: the
    /// path as written, the path a `cd` or `pushd` earlier in the command
    /// makes of a relative one (`cd .git/hooks && echo x > pre-commit`),
    /// and the path a link the command made earlier leads to.
    pub(crate) fn protected(&self, path: &str, write: Write) -> Option<(&'static Rule, String)> {
        let home = self.ctx.home.as_deref();
        if let Some(hit) = paths::check(path, write, home) {
            return Some(hit);
        }
        let here = (!self.cwd_lost).then_some(self.cwd.as_deref()).flatten();
        if here.is_none() && self.links.is_empty() {
            return None;
        }
        let mut seen = cwd::resolve(path, here, home)?;
        if here.is_some()
            && let Some((rule, detail)) = paths::check(&seen, write, home)
        {
            return Some((rule, format!("{detail} (where the command moved with cd)")));
        }
        for _ in 0..MAX_LINKS {
            let (link, through) = self.through_link(&seen)?;
            if let Some((rule, detail)) = paths::check(&through, write, home) {
                return Some((
                    rule,
                    format!("{detail}, reached through the link {link} the command made"),
                ));
            }
            seen = through;
        }
        None
    }

    /// `path` (normalized, [`cwd::resolve`]) with a link the command made
    /// earlier replaced by where it leads: the link and the new path.
    fn through_link(&self, path: &str) -> Option<(String, String)> {
        self.links.iter().rev().find_map(|(at, to)| {
            let rest = path.strip_prefix(at.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| (at.clone(), format!("{to}{rest}")))
        })
    }

    /// The link recorded last was just made: it is kept for the writes
    /// after it ([`Self::protected`]), and what it points to is judged as
    /// a write too, since every later write through it lands there (`ln
    /// -s ~/.ssh k`, `ln .git/config c`).
    pub(crate) fn link_made(&mut self, words: &[Arg]) {
        let home = self.ctx.home.as_deref();
        let Some(last) = self.judgement.writes.last() else {
            return;
        };
        let (Some(path), Some(link)) = (last.path.as_deref(), last.link.as_ref()) else {
            return;
        };
        let Some((at, to)) = link_place(path, &last.dir, home).and_then(|at| {
            let to = link_target(&at, link, &last.dir, home)?;
            Some((at, to))
        }) else {
            return;
        };
        let path = path.to_owned();
        let hit = paths::check(&to, Write::Replace, home);
        self.links.push((at, to));
        if let Some((rule, detail)) = hit {
            self.report(
                rule,
                words,
                format!("{detail}: the link {path} leads there, so writes through it land there"),
            );
        }
    }
}

/// Where a link at `path`, made from `dir`, sits, normalized.
fn link_place(path: &str, dir: &WriteDir, home: Option<&str>) -> Option<String> {
    let from = match dir {
        WriteDir::Call => None,
        WriteDir::Moved(d) => Some(d.as_str()),
        // After a `cd` that may fail the link is in one of several places;
        // the write through it is judged where it lands.
        WriteDir::Unknown | WriteDir::InDoubt(_) => return None,
    };
    cwd::resolve(path, from, home)
}

/// Where the link at `at` (normalized) leads, normalized: a symbolic link's
/// relative target is read from the link's own directory, a hard link's
/// (and `ln -sr`'s) from where the command stood.
fn link_target(at: &str, link: &Link, dir: &WriteDir, home: Option<&str>) -> Option<String> {
    let to = link.to.as_deref()?;
    if link.from_here {
        return link_place(to, dir, home);
    }
    let parent = at.rsplit_once('/').map_or(".", |(parent, _)| parent);
    let parent = if parent.is_empty() { "/" } else { parent };
    cwd::resolve(to, Some(parent), home)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<Arg> = words.map(Arg::literal).collect();
        targets(name, &args)
            .into_iter()
            .map(|(a, _)| a.text.into_string())
            .collect()
    }

    #[test]
    fn write_targets() {
        assert_eq!(paths("tee -a a b"), ["a", "b"]);
        assert_eq!(paths("dd if=/dev/zero of=/dev/sda bs=1M"), ["/dev/sda"]);
        assert_eq!(paths("cp -r a b dest/"), ["dest/a", "dest/b"]);
        assert_eq!(paths("cp -t dir a b"), ["dir/a", "dir/b"]);
        assert_eq!(
            paths("ln -sf /dev/null ~/.bash_history"),
            ["~/.bash_history"]
        );
        assert_eq!(paths("mv a b"), ["a", "b"]);
        assert_eq!(paths("sed -i s/a/b/ f1 f2"), ["f1", "f2"]);
        assert_eq!(paths("sed -e s/a/b/ -i f1"), ["f1"]);
        assert!(paths("sed s/a/b/ f1").is_empty());
        assert_eq!(paths("curl -fsSL -o out.sh https://x"), ["out.sh"]);
        assert_eq!(paths("wget -qO- https://x"), ["-"]);
        assert_eq!(paths("truncate -s 0 f"), ["f"]);
    }

    fn rules(command: &str) -> Vec<&'static str> {
        let ctx = crate::scanner::Context {
            home: Some("/home/ann".into()),
        };
        crate::engine::judge_command(command, &ctx)
            .findings
            .iter()
            .map(|f| f.rule.id)
            .collect()
    }

    /// An archive extracted into a git or `.claude` directory may hold
    /// their hooks and settings; into the project or elsewhere it is an
    /// ordinary extraction.
    #[test]
    fn an_archive_extracted_into_a_hooks_parent_is_a_hooks_write() {
        for (command, rule) in [
            ("tar -xf h.tar -C .git", "git-hooks-write"),
            ("cd .git && tar xf /tmp/h.tar", "git-hooks-write"),
            ("unzip -o h.zip -d .git/modules/sub/", "git-hooks-write"),
            ("tar -xzf c.tgz -C .claude", "claude-config-write"),
            ("bsdtar -xf p.tar -C ~/.claude", "claude-config-write"),
        ] {
            assert!(
                rules(command).contains(&rule),
                "{command}: {:?}",
                rules(command)
            );
        }
        for command in [
            "tar xzf archive.tar.gz",
            "tar -xf a.tar -C vendor",
            "unzip x.zip -d /tmp/x",
            "tar -xzf node.tgz -C ~/opt",
            "rm -r .git",
        ] {
            assert!(rules(command).is_empty(), "{command}: {:?}", rules(command));
        }
    }

    /// A relative write after `cd`/`pushd` is judged where it lands, and
    /// so is a write through a link the command made, and the link itself.
    #[test]
    fn writes_are_judged_where_they_land() {
        for (command, rule) in [
            ("cd .git/hooks && echo x > pre-commit", "git-hooks-write"),
            (
                "cd .git/hooks; cp ../../h.sh post-checkout",
                "git-hooks-write",
            ),
            ("cd .git && printf '[core]' >> config", "git-config-write"),
            (
                "cd \"$CLAUDE_PLUGIN_ROOT\" && echo '{}' > hooks/hooks.json",
                "guard-files-write",
            ),
            (
                "pushd ${CLAUDE_PLUGIN_DATA}/bin; cp /tmp/x voyage-helper",
                "guard-files-write",
            ),
            (
                "pushd .git/hooks >/dev/null; tee pre-push < h",
                "git-hooks-write",
            ),
            (
                "cd ~ && echo 'alias ls=rm' >> .bashrc",
                "shell-config-write",
            ),
            (
                "cd .claude && sed -i s/a/b/ settings.json",
                "claude-config-write",
            ),
            (
                "cd .git/hooks && python3 -c \"open('pre-commit','w')\"",
                "git-hooks-write",
            ),
            (
                "ln -s .git/hooks h; echo x > h/pre-commit",
                "git-hooks-write",
            ),
            (
                "ln -s .git g && echo x > g/hooks/pre-commit",
                "git-hooks-write",
            ),
            ("ln -s .git g && echo x >> g/config", "git-config-write"),
            (
                "ln -s ~/.ssh k; cp id.pub k/authorized_keys",
                "credentials-write",
            ),
            (
                "mkdir d && cd d && ln -s ../.git g && echo x > g/hooks/x",
                "git-hooks-write",
            ),
            (
                "ln -s ~ h; ln -s h/.ssh s; echo x > s/config",
                "credentials-write",
            ),
            ("ln .git/config c", "git-config-write"),
            ("ln -s \"$HOME/.ssh\" keys", "credentials-write"),
        ] {
            assert!(
                rules(command).contains(&rule),
                "{command}: {:?}",
                rules(command)
            );
        }
        for command in [
            "cd src && echo x > config",
            "cd build && echo x > hooks",
            "ln -s ../README.md docs/readme.md; echo x > docs/readme.md",
            "ln -s build/out o && echo x > o/hooks",
            "cd .git && git log --oneline > ../log.txt",
            "cd docs; pushd sub; popd; echo x > config",
            "cd \"$CLAUDE_PLUGIN_ROOT\" && cat hooks/hooks.json",
            "cd \"$CLAUDE_PLUGIN_ROOT\" && cd - && echo x > notes.txt",
        ] {
            assert_eq!(rules(command), Vec::<&str>::new(), "{command}");
        }
    }

    #[test]
    fn remote_names_come_from_the_url() {
        let names = |line: &str| {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or_default();
            let args: Vec<Arg> = words.map(Arg::literal).collect();
            remote_names(name, &args)
        };
        assert_eq!(names("wget -q https://x.invalid/a/i.sh?v=1"), ["i.sh"]);
        assert_eq!(names("curl -fsSLO https://x.invalid/i.sh"), ["i.sh"]);
        assert_eq!(names("curl --remote-name https://x.invalid/i.sh"), ["i.sh"]);
        assert!(names("curl -fsSL https://x.invalid/i.sh").is_empty());
        assert!(names("wget -O f https://x.invalid/i.sh").is_empty());
        assert_eq!(names("wget https://x.invalid/"), ["index.html"]);
        assert_eq!(names("wget https://x.invalid"), ["index.html"]);
        assert_eq!(names("curl -O https://x.invalid/a/"), ["curl_response"]);
    }
}
