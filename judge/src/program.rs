//! Which program a command word names. `/bin/rm` and `~/bin/rm` are `rm`;
//! `./rm` is a local file, not `rm`; a word only known at run time (`$CMD`,
//! `$(which rm)`, `r?`) is computed, and judged as what it could be.

use crate::arg::Arg;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Program {
    /// A program found by name or by absolute path: its file name.
    Named(String),
    /// A path relative to the working directory: the project's own file.
    Local,
    /// Known only at run time.
    Computed,
}

pub(super) fn program(word: &Arg) -> Program {
    let text = word.text.as_str();
    let slash = text.rfind('/');
    let base = slash.map_or(text, |i| text.get(i + 1..).unwrap_or_default());
    let base_known = match slash {
        _ if word.exact => true,
        // `$HOME/bin/tool`, `$(go env GOPATH)/bin/tool`: the name is known.
        Some(i) => i >= word.known_at(),
        None => false,
    };
    if !base_known || base.is_empty() || (word.glob && crate::word::is_pattern(base)) {
        return Program::Computed;
    }
    match slash {
        None => Program::Named(base.to_owned()),
        Some(_) if text.starts_with('/') || text.starts_with('~') || !word.exact => {
            Program::Named(base.to_owned())
        }
        Some(_) => Program::Local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_paths_and_computed_words() {
        let named = |s: &str| Program::Named(s.to_owned());
        assert_eq!(program(&Arg::literal("rm")), named("rm"));
        assert_eq!(program(&Arg::literal("/bin/rm")), named("rm"));
        assert_eq!(program(&Arg::literal("~/bin/rm")), named("rm"));
        assert_eq!(program(&Arg::literal("./rm")), Program::Local);
        assert_eq!(program(&Arg::literal("scripts/rm")), Program::Local);
        let home_bin = Arg {
            text: "~/bin/tool".into(),
            exact: false,
            known_from: 1,
            ..Arg::default()
        };
        assert_eq!(program(&home_bin), named("tool"));
        let var = Arg {
            text: "$CMD".into(),
            exact: false,
            known_from: 4,
            ..Arg::default()
        };
        assert_eq!(program(&var), Program::Computed);
        let glob = Arg {
            glob: true,
            ..Arg::literal("/bin/r?")
        };
        assert_eq!(program(&glob), Program::Computed);
    }
}
