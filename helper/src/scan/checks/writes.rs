//! Which paths a program writes, so that redirections and programs alike
//! are held to [`crate::scan::paths`]: `tee`, `dd of=`, `cp`, `mv`,
//! `install`, `ln`, `rsync`, `truncate`, `shred`, `rm`, `unlink`, `touch`,
//! `sed -i`, `curl -o`, `wget -O`, `sudoedit`, and the directories `mkdir`
//! creates (which only a run's scope judges).

use crate::scan::arg::Arg;
use crate::scan::getopt::{self, Spec};
use crate::scan::paths::{self, Write};
use crate::scan::scanner::Scanner;

const CP: Spec = Spec::new(
    "StZ",
    &[
        ("target-directory", true),
        ("suffix", true),
        ("backup", false),
        ("no-target-directory", false),
        ("recursive", false),
        ("force", false),
        ("archive", false),
        ("context", false),
    ],
);
const INSTALL: Spec = Spec::new(
    "StgmoCZ",
    &[
        ("target-directory", true),
        ("group", true),
        ("mode", true),
        ("owner", true),
        ("suffix", true),
        ("directory", false),
    ],
);
const TEE: Spec = Spec::new("", &[("append", false), ("output-error", false)]);
const TRUNCATE: Spec = Spec::new("sr", &[("size", true), ("reference", true)]);
const SHRED: Spec = Spec::new(
    "ns",
    &[
        ("iterations", true),
        ("size", true),
        ("random-source", true),
    ],
);
const SED: Spec = Spec::new(
    "ef",
    &[
        ("expression", true),
        ("file", true),
        ("in-place", false),
        ("line-length", true),
    ],
);
const CURL: Spec = Spec::new(
    "odHAeEuUXrwxyYzbcKQmTtF",
    &[
        ("output", true),
        ("data", true),
        ("header", true),
        ("user-agent", true),
        ("request", true),
        ("url", true),
        ("user", true),
        ("config", true),
        ("max-time", true),
        ("output-dir", true),
        ("remote-name", false),
    ],
);
const WGET: Spec = Spec::new(
    "OoaPUetTw",
    &[
        ("output-document", true),
        ("output-file", true),
        ("directory-prefix", true),
        ("user-agent", true),
        ("header", true),
    ],
);

/// The paths `name` writes with `args`, and how.
pub(crate) fn targets(name: &str, args: &[Arg]) -> Vec<(Arg, Write)> {
    let all = |spec: &Spec, write: Write| -> Vec<(Arg, Write)> {
        getopt::parse(args, spec)
            .operands
            .into_iter()
            .map(|a| (a.clone(), write))
            .collect()
    };
    match name {
        "tee" => {
            let p = getopt::parse(args, &TEE);
            let write = if p.has("a", &["append"]) {
                Write::Append
            } else {
                Write::Replace
            };
            p.operands.into_iter().map(|a| (a.clone(), write)).collect()
        }
        "dd" => args
            .iter()
            .filter_map(|a| a.text.strip_prefix("of="))
            .map(|path| (Arg::derived(path), Write::Replace))
            .collect(),
        "cp" | "install" | "ln" | "rsync" | "scp" => {
            let spec = if name == "install" { &INSTALL } else { &CP };
            let p = getopt::parse(args, spec);
            let mut dirs: Vec<Arg> = p
                .values(Some('t'), Some("target-directory"))
                .into_iter()
                .map(Arg::derived)
                .collect();
            if name == "install" && p.has("d", &["directory"]) {
                dirs.extend(p.operands.iter().map(|a| (*a).clone()));
            } else if dirs.is_empty() {
                let last = match (name, p.operands.len()) {
                    ("ln", 1) => None,
                    (_, n) if n >= 2 => p.operands.last().map(|a| (*a).clone()),
                    _ => None,
                };
                dirs.extend(last);
            }
            let write = if name == "ln" {
                Write::Remove
            } else {
                Write::Replace
            };
            dirs.into_iter().map(|a| (a, write)).collect()
        }
        "mv" => all(&CP, Write::Remove),
        "rm" | "unlink" | "rmdir" => all(&Spec::new("", &[]), Write::Remove),
        "shred" => all(&SHRED, Write::Remove),
        "truncate" => all(&TRUNCATE, Write::Replace),
        "touch" => all(
            &Spec::new("dtr", &[("date", true), ("reference", true)]),
            Write::Modify,
        ),
        "sed" | "gsed" => {
            let p = getopt::parse(args, &SED);
            let in_place = p.has_long("in-place")
                || args.iter().any(|a| {
                    a.exact
                        && a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('i')
                });
            if !in_place {
                return Vec::new();
            }
            let scripted = p.has("ef", &["expression", "file"]);
            p.operands
                .into_iter()
                .skip(usize::from(!scripted))
                .map(|a| (a.clone(), Write::Modify))
                .collect()
        }
        "curl" => getopt::parse(args, &CURL)
            .values(Some('o'), Some("output"))
            .into_iter()
            .map(|p| (Arg::derived(p), Write::Replace))
            .collect(),
        "wget" => getopt::parse(args, &WGET)
            .values(Some('O'), Some("output-document"))
            .into_iter()
            .map(|p| (Arg::derived(p), Write::Replace))
            .collect(),
        "sudoedit" => all(&Spec::new("ugCDhpRT", &[]), Write::Modify),
        "mkdir" => all(
            &Spec::new("m", &[("mode", true), ("context", true)]),
            Write::Create,
        ),
        _ => Vec::new(),
    }
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
        if let Some((rule, detail)) = paths::check(&target.text, write, self.ctx.home.as_deref()) {
            self.report(rule, words, detail);
        }
    }

    /// Judges every path the program `name` writes.
    pub(crate) fn program_writes(&mut self, name: &str, words: &[Arg], args: &[Arg]) {
        for (target, write) in targets(name, args) {
            self.write_target(words, &target, write);
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
        assert_eq!(paths("cp -r a b dest/"), ["dest/"]);
        assert_eq!(paths("cp -t dir a b"), ["dir"]);
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
