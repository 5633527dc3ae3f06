//! Which paths a program writes, so that redirections and programs alike
//! are held to [`crate::paths`] and to a run's scope: the programs
//! and where they write are the table of [`super::writers`]; this module
//! hands its rows to the scanner, which records each target
//! ([`crate::write_target`]) and judges it against the protected
//! paths.

use super::writers::{self, CURL, WGET};
use crate::arg::Arg;
use crate::getopt;
use crate::paths::{self, Write};
use crate::scanner::Scanner;

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
        for (file, _) in self.landing(target) {
            if let Some((rule, detail)) = paths::check(&file.text, write, self.ctx.home.as_deref())
            {
                self.report(rule, words, detail);
            }
        }
    }

    /// Judges every path the program `name` writes.
    pub(crate) fn program_writes(&mut self, name: &str, words: &[Arg], args: &[Arg]) {
        for found in writers::find(name, args) {
            self.write_target(words, &found.target, found.write);
            if let Some(link) = found.link {
                self.record_link(link);
            }
            if found.git_dir {
                self.record_git_dir(words);
            }
        }
    }
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
            .map(|(a, _)| a.text)
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
