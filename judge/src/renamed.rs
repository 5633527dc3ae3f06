//! Programs copied or linked under another name earlier in the command
//! (`cp /bin/rm ./x && ./x -rf ~`, `ln -s "$(command -v rm)" x; ./x -rf ~`,
//! `install -m755 /usr/bin/rm ./x`): the judge remembers which program a
//! path now holds and judges a later run of that path as that program.
//!
//! A copy of a file the command names by its path in the project
//! (`cp build/app ./app`) is the project's own program, as before; a copy
//! of a file the text does not name (`cp "$p" x`) is judged, when run, as
//! each program a computed command word is judged as, and only a block
//! found so stands (running an unknown build of the project is no alarm).
//! A file the command wrote with text it cannot know (`cat /bin/rm > x`)
//! is judged the same way when run. Not followed: `busybox --install`'s
//! links.
//!
//! An alias defined earlier in the command (`alias x=rm`) is expanded
//! where a later command names it. bash expands aliases in a `-c` string
//! only once `expand_aliases` is on and only on a later line, but Claude
//! Code's shell turns the option on, and a guard that expands one line
//! early only refuses a command that names its purpose.

use crate::arg::Arg;
use crate::flow::Flow;
use crate::program::{Program, program};
use crate::scanner::Scanner;

/// Options of `cp`, `ln`, `install` and `mv` that take a value.
const VALUED: &[&str] = &[
    "-t", "-S", "-m", "-o", "-g", "--suffix", "--mode", "--owner", "--group",
];

/// The program a copy of `source` holds: `Some(name)` for a program named
/// by its absolute path or found by `which`/`command -v`/`type -P`,
/// `None` for a file the text does not name; no answer for the project's
/// own file.
fn source_program(source: &Arg) -> Option<Option<String>> {
    if !source.exact {
        let text = source.text.trim_matches(['"', '\'']);
        for finder in [
            "$(which ",
            "$(command -v ",
            "$(type -P ",
            "$(type -p ",
            "`which ",
        ] {
            if let Some(name) = text
                .strip_prefix(finder)
                .and_then(|r| r.strip_suffix([')', '`']))
                .map(str::trim)
                .filter(|n| !n.is_empty() && !n.contains([' ', '$', '/']))
            {
                return Some(Some(name.to_owned()));
            }
        }
    }
    match program(source) {
        Program::Named(name) if source.text.starts_with(['/', '~']) || !source.exact => {
            Some(Some(name))
        }
        Program::Named(_) | Program::Local => None,
        Program::Computed => Some(None),
    }
}

/// `path` as the judge keys it: `./x` and `x` are the same file.
fn key(path: &str) -> String {
    let path = path.trim_start_matches("./");
    path.trim_end_matches('/').to_owned()
}

impl Scanner<'_> {
    /// `cp`, `ln`, `install`, `mv`: what each destination holds now.
    pub(super) fn note_copies(&mut self, name: &str, args: &[Arg]) {
        if name == "install" && args.iter().any(|a| a.is("-d") || a.is("--directory")) {
            return;
        }
        let mut operands = Vec::new();
        let mut target_dir = None;
        let mut words = args.iter();
        let mut options = true;
        while let Some(word) = words.next() {
            let text = word.text.as_str();
            if options && word.exact && text == "--" {
                options = false;
            } else if options && word.exact && text.starts_with('-') && text.len() > 1 {
                if let Some(dir) = text.strip_prefix("--target-directory=") {
                    target_dir = Some(dir.to_owned());
                } else if text == "-t" || text == "--target-directory" {
                    target_dir = words.next().and_then(Arg::exact_text).map(str::to_owned);
                } else if VALUED.contains(&text) {
                    words.next();
                }
            } else {
                operands.push(word.clone());
            }
        }
        let (sources, dest) = match &target_dir {
            Some(dir) => (operands.as_slice(), Some(dir.clone())),
            None => match operands.split_last() {
                Some((dest, sources)) => (sources, dest.exact_text().map(str::to_owned)),
                None => return,
            },
        };
        let Some(dest) = dest else {
            return;
        };
        let into_dir =
            target_dir.is_some() || sources.len() > 1 || dest.ends_with('/') || dest == ".";
        for source in sources {
            let held = match source.exact_text().map(key) {
                Some(path)
                    if let Some((_, held)) =
                        self.renamed.iter().rev().find(|(p, _)| *p == path) =>
                {
                    Some(held.clone())
                }
                _ => source_program(source),
            };
            let base = source
                .text
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            let mut places = vec![format!("{}/{base}", dest.trim_end_matches('/'))];
            if !into_dir {
                places.push(dest.clone());
            }
            if name == "mv"
                && let Some(path) = source.exact_text().map(key)
            {
                self.renamed.retain(|(p, _)| *p != path);
            }
            for place in places {
                let place = key(&place);
                self.renamed.retain(|(p, _)| *p != place);
                if let Some(held) = &held {
                    self.renamed.push((place, held.clone()));
                }
            }
        }
    }

    /// Runs `argv`, whose command word is a path the command put a program
    /// in earlier; `None` when it is no such path.
    pub(super) fn run_renamed(&mut self, argv: &[Arg], stdin: &Flow) -> Option<Flow> {
        let (first, args) = argv.split_first()?;
        let path = first.exact_text().filter(|p| p.contains('/')).map(key)?;
        let (_, held) = self.renamed.iter().rev().find(|(p, _)| *p == path)?.clone();
        // Without the record while the program runs, so a copy cannot loop.
        let renamed = std::mem::take(&mut self.renamed);
        let out = match held {
            Some(name) => {
                let mut as_program = vec![Arg::literal(&name)];
                as_program.extend(args.iter().cloned());
                self.inside(&format!("{path} (a copy of {name})"), |s| {
                    s.call(&as_program, stdin)
                })
            }
            None => {
                self.judge_as_suspects(
                    args,
                    stdin,
                    &format!("{path} is a copy of a program the text does not name"),
                );
                Flow::unknown()
            }
        };
        self.renamed = renamed;
        Some(out)
    }

    /// Runs `argv`, whose command word is an alias the command defined
    /// earlier, as the alias's words followed by its arguments; `None`
    /// when it is no alias.
    pub(super) fn run_alias(&mut self, argv: &[Arg], stdin: &Flow) -> Option<Flow> {
        let (first, args) = argv.split_first()?;
        let name = first.exact_text()?;
        let (_, value) = self.aliases.iter().rev().find(|(a, _)| a == name)?.clone();
        let mut words: Vec<Arg> = value.split_whitespace().map(Arg::literal).collect();
        words.extend(args.iter().cloned());
        // Without the alias while its words run: `alias ls='ls -F'`.
        let aliases = std::mem::take(&mut self.aliases);
        let out = self.inside(&format!("alias {name}"), |s| s.call(&words, stdin));
        self.aliases = aliases;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Context, Decision, judge_command};

    fn decision(command: &str) -> Decision {
        judge_command(command, &Context::default()).decision()
    }

    #[test]
    fn a_program_keeps_its_rules_under_another_name() {
        for command in [
            "cp /bin/rm ./x && ./x -rf ~",
            "ln -s \"$(command -v rm)\" x; ./x -rf ~",
            "install -m755 /usr/bin/rm ./x && ./x -rf ~",
            "cp -t /tmp /bin/rm && /tmp/rm -rf ~",
            "cp /bin/rm a; mv a b; ./b -rf ~",
            "cp \"$P\" ./tool && ./tool -rf ~",
            "alias x=rm\nx -rf ~",
        ] {
            assert_eq!(decision(command), Decision::Block, "{command}");
        }
        for command in [
            "cp target/release/app ./app && ./app --version",
            "cp /bin/rm ./x && ./x notes.txt",
            "cp /bin/rm x; cp build/x x; ./x -rf ~/.cache/old",
            "cp \"$P\" ./tool && ./tool --help",
            "alias ls='ls -F'\nls",
        ] {
            assert_ne!(decision(command), Decision::Block, "{command}");
        }
    }
}
