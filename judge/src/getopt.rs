//! Reading a program's options the way GNU getopt does, so that every
//! spelling of a flag counts: clusters (`-rf`, `-fr`), separate flags
//! (`-r -f`), long names and their unique abbreviations (`--rec`, `--force`),
//! `--name=value`, options after operands, and `--` to end options.
//!
//! Only words the engine knows exactly are read as options; a computed word
//! (`$FLAGS`) is an operand.

use crate::arg::Arg;

/// What a program accepts.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spec {
    /// Short options that take a value (`-n 5`, `-n5`).
    pub short_with_value: &'static str,
    /// Long options, with whether each takes a value.
    pub long: &'static [(&'static str, bool)],
    /// GNU order: options may follow operands. False for programs whose
    /// first operand starts another command (`sudo`, `xargs`, `timeout`).
    pub permute: bool,
}

impl Spec {
    pub(super) const fn new(
        short_with_value: &'static str,
        long: &'static [(&'static str, bool)],
    ) -> Self {
        Self {
            short_with_value,
            long,
            permute: true,
        }
    }

    /// Options stop at the first operand.
    pub(super) const fn posix(mut self) -> Self {
        self.permute = false;
        self
    }

    /// The long option `given` names: an exact name, else the one known
    /// name it is a prefix of. Unknown and ambiguous names stay as given.
    fn resolve(&self, given: &str) -> (String, bool) {
        if let Some((name, value)) = self.long.iter().find(|(n, _)| *n == given) {
            return ((*name).to_owned(), *value);
        }
        let mut matches = self.long.iter().filter(|(n, _)| n.starts_with(given));
        match (matches.next(), matches.next()) {
            (Some((name, value)), None) if !given.is_empty() => ((*name).to_owned(), *value),
            _ => (given.to_owned(), false),
        }
    }
}

/// One option as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Opt {
    Short(char),
    /// The full name (abbreviations resolved), without `--`.
    Long(String),
}

/// The options and operands of one command line.
#[derive(Debug, Clone, Default)]
pub(super) struct Parsed<'a> {
    /// Every option in order, with its value if it took one.
    pub opts: Vec<(Opt, Option<&'a str>)>,
    pub operands: Vec<&'a Arg>,
    /// Index in the input of the first word after the options, for programs
    /// that run the rest as a command (only with [`Spec::posix`]).
    pub rest: usize,
}

impl<'a> Parsed<'a> {
    pub(super) fn has_short(&self, c: char) -> bool {
        self.opts.iter().any(|(o, _)| *o == Opt::Short(c))
    }

    pub(super) fn has_long(&self, name: &str) -> bool {
        self.opts
            .iter()
            .any(|(o, _)| matches!(o, Opt::Long(n) if n == name))
    }

    /// True when any of the short letters or long names is present.
    pub(super) fn has(&self, shorts: &str, longs: &[&str]) -> bool {
        shorts.chars().any(|c| self.has_short(c)) || longs.iter().any(|l| self.has_long(l))
    }

    /// The spelling of the first matching option, for messages.
    pub(super) fn spelling(&self, shorts: &str, longs: &[&str]) -> Option<String> {
        self.opts.iter().find_map(|(o, _)| match o {
            Opt::Short(c) if shorts.contains(*c) => Some(format!("-{c}")),
            Opt::Long(n) if longs.contains(&n.as_str()) => Some(format!("--{n}")),
            _ => None,
        })
    }

    /// Values of a short or long option, in order.
    pub(super) fn values(&self, short: Option<char>, long: Option<&str>) -> Vec<&'a str> {
        self.opts
            .iter()
            .filter(|(o, _)| match o {
                Opt::Short(c) => Some(*c) == short,
                Opt::Long(n) => Some(n.as_str()) == long,
            })
            .filter_map(|(_, v)| *v)
            .collect()
    }
}

/// Reads `args` (the words after the program name) by `spec`.
pub(super) fn parse<'a>(args: &'a [Arg], spec: &Spec) -> Parsed<'a> {
    let mut parsed = Parsed {
        rest: args.len(),
        ..Parsed::default()
    };
    let mut i = 0;
    let mut options_over = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        let text = arg.text.as_str();
        if options_over || !arg.exact || text == "-" || !text.starts_with('-') {
            if !spec.permute && !options_over {
                parsed.rest = i - 1;
                return parsed;
            }
            parsed.operands.push(arg);
            continue;
        }
        if text == "--" {
            options_over = true;
            if !spec.permute {
                parsed.rest = i;
                return parsed;
            }
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (given, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let (name, takes_value) = spec.resolve(given);
            let value = match inline {
                Some(v) => Some(v),
                None if takes_value => {
                    let v = args.get(i).map(|a| a.text.as_str());
                    i += 1;
                    v
                }
                None => None,
            };
            parsed.opts.push((Opt::Long(name), value));
            continue;
        }
        let cluster = text.get(1..).unwrap_or_default();
        for (at, c) in cluster.char_indices() {
            if spec.short_with_value.contains(c) {
                let attached = cluster.get(at + c.len_utf8()..).unwrap_or_default();
                let value = if attached.is_empty() {
                    let v = args.get(i).map(|a| a.text.as_str());
                    i += 1;
                    v
                } else {
                    Some(attached)
                };
                parsed.opts.push((Opt::Short(c), value));
                break;
            }
            parsed.opts.push((Opt::Short(c), None));
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    const RM: Spec = Spec::new(
        "",
        &[
            ("recursive", false),
            ("force", false),
            ("interactive", true),
            ("no-preserve-root", false),
        ],
    );

    #[test]
    fn clusters_longs_abbreviations_and_late_options() {
        for line in [
            "-rf x",
            "-fr x",
            "-r -f x",
            "x -r -f",
            "--recursive --force x",
            "--rec --f x",
            "-r --force x",
        ] {
            let args = words(line);
            let p = parse(&args, &RM);
            assert!(p.has("rR", &["recursive"]), "{line}");
            assert!(p.has("f", &["force"]), "{line}");
            assert_eq!(p.operands.len(), 1, "{line}");
        }
        let args = words("-- -rf");
        let p = parse(&args, &RM);
        assert!(p.opts.is_empty());
        assert_eq!(p.operands[0].text, "-rf");
    }

    #[test]
    fn values_inline_attached_and_separate() {
        const S: Spec = Spec::new("n", &[("lines", true)]);
        let args = words("-n5 -n 6 --lines=7 --lin 8 x");
        let p = parse(&args, &S);
        assert_eq!(p.values(Some('n'), None), ["5", "6"]);
        assert_eq!(p.values(None, Some("lines")), ["7", "8"]);
        assert_eq!(p.operands.len(), 1);
    }

    #[test]
    fn posix_order_stops_at_the_first_operand() {
        const SUDO: Spec = Spec::new("u", &[("user", true)]).posix();
        let args = words("-u root rm -rf /");
        let p = parse(&args, &SUDO);
        assert_eq!(p.rest, 2);
        let args = words("-- rm");
        assert_eq!(parse(&args, &SUDO).rest, 1);
    }

    #[test]
    fn computed_words_are_operands() {
        let args = vec![Arg {
            text: "-$X".into(),
            ..Arg::default()
        }];
        let p = parse(&args, &RM);
        assert!(p.opts.is_empty());
        assert_eq!(p.operands.len(), 1);
    }
}
