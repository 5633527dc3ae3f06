//! [`Vars`]: the shell variables a command sets for itself (`X=rm`,
//! `a=(-rf /)`, `read c <<< …`, `for c in …`), so that a later `$X` is judged
//! by the values it can have instead of as text only known at run time.
//!
//! A variable may hold several values: one per branch that set it (`if …;
//! then D=/; else D=build; fi`), or per loop value. Every use is judged by
//! each of them ([`crate::word`] builds one word per value). A variable the
//! command never sets comes from the environment and stays unknown, except
//! `IFS`, which bash resets at start-up.

use std::collections::HashMap;

use crate::arg::{Arg, Taint};

/// Most values one variable keeps; past this, one more value that is only
/// known at run time stands for the rest.
pub(super) const MAX_VALUES: usize = 8;

/// bash's `IFS` when nothing set it.
pub(super) const DEFAULT_IFS: &str = " \t\n";

/// One value a variable can hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    Scalar(Arg),
    /// An indexed array: its elements in order.
    Array(Vec<Arg>),
}

impl Value {
    /// A value only known at run time, spelled `source`.
    pub(super) fn unknown(source: &str, taint: Taint) -> Self {
        Self::Scalar(Arg::unknown(source, taint.union(Taint::OPAQUE)))
    }

    /// What `$name` gives: the scalar, or an array's first element.
    pub(super) fn first(&self) -> Arg {
        match self {
            Self::Scalar(arg) => arg.clone(),
            Self::Array(items) => items.first().cloned().unwrap_or_else(|| Arg::literal("")),
        }
    }

    /// What `${name[@]}` gives: every element (a scalar is one).
    pub(super) fn elements(&self) -> Vec<Arg> {
        match self {
            Self::Scalar(arg) => vec![arg.clone()],
            Self::Array(items) => items.clone(),
        }
    }

    /// What `${name[index]}` gives for a known numeric index.
    pub(super) fn element(&self, index: usize) -> Arg {
        match self {
            Self::Scalar(arg) if index == 0 => arg.clone(),
            Self::Scalar(_) => Arg::literal(""),
            Self::Array(items) => items
                .get(index)
                .cloned()
                .unwrap_or_else(|| Arg::literal("")),
        }
    }

    fn append(&self, tail: &Self) -> Self {
        match (self, tail) {
            (Self::Array(head), tail) => {
                let mut items = head.clone();
                items.extend(tail.elements());
                Self::Array(items)
            }
            (Self::Scalar(head), Self::Scalar(tail)) => Self::Scalar(concat(head, tail)),
            (Self::Scalar(head), Self::Array(tail)) => {
                let mut items = vec![head.clone()];
                items.extend(tail.iter().cloned());
                Self::Array(items)
            }
        }
    }
}

/// `head` followed by `tail`, as one word.
pub(super) fn concat(head: &Arg, tail: &Arg) -> Arg {
    let mut text = head.text.clone();
    text.push_str(&tail.text);
    let known_from = if tail.exact {
        head.known_at()
    } else {
        head.text.len() + tail.known_at()
    };
    Arg {
        text,
        exact: head.exact && tail.exact,
        glob: head.glob || tail.glob,
        known_from: if head.exact && tail.exact {
            0
        } else {
            crate::arg::offset(known_from)
        },
        taint: head.taint.union(tail.taint),
        content: None,
    }
}

/// `$0` and `$1`, `$2`… where the command set them: a function call,
/// `sh -c CODE ARG0 ARG1…`, `set -- …`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Positional {
    pub zero: Option<Arg>,
    pub args: Vec<Arg>,
}

#[derive(Debug, Default)]
pub(super) struct Vars {
    values: HashMap<String, Vec<Value>>,
    /// The positional parameters, where known (`None`: the caller's, unknown).
    pub positional: Option<Positional>,
    /// How many conditional or repeated parts of the command enclose the
    /// walk: an assignment there may or may not happen, so it adds a value
    /// instead of replacing the old ones.
    pub branching: usize,
}

impl Vars {
    /// The values `name` can have; `None` when the command never set it.
    pub(super) fn get(&self, name: &str) -> Option<&[Value]> {
        self.values.get(name).map(Vec::as_slice)
    }

    /// Takes out what `name` holds (`None`: never set), to [`Self::put`]
    /// back later.
    pub(super) fn take(&mut self, name: &str) -> Option<Vec<Value>> {
        self.values.remove(name)
    }

    /// Puts back what [`Self::take`] took out.
    pub(super) fn put(&mut self, name: &str, values: Option<Vec<Value>>) {
        match values {
            Some(values) => {
                self.values.insert(name.to_owned(), values);
            }
            None => {
                self.values.remove(name);
            }
        }
    }

    /// Records `name = each of values` (`+=` when `append`).
    pub(super) fn assign(&mut self, name: &str, values: Vec<Value>, append: bool) {
        if values.is_empty() {
            return;
        }
        let source = format!("${name}");
        let old = self.values.remove(name);
        let mut new: Vec<Value> = match (&old, append) {
            (Some(old), true) => old
                .iter()
                .flat_map(|head| values.iter().map(|tail| head.append(tail)))
                .collect(),
            (None, true) => values
                .iter()
                .map(|tail| Value::unknown(&source, Taint::default()).append(tail))
                .collect(),
            (_, false) => values,
        };
        if self.branching > 0 {
            // The assignment may not run: the old values (or the
            // environment's, unknown) stay possible.
            let before = old.unwrap_or_else(|| vec![Value::unknown(&source, Taint::default())]);
            for value in before.into_iter().rev() {
                new.insert(0, value);
            }
        }
        let mut kept: Vec<Value> = Vec::new();
        for value in new {
            if !kept.contains(&value) {
                kept.push(value);
            }
        }
        if kept.len() > MAX_VALUES {
            kept.truncate(MAX_VALUES - 1);
            kept.push(Value::unknown(&source, Taint::default()));
        }
        self.values.insert(name.to_owned(), kept);
    }

    /// The characters unquoted expansions are split on: those of every
    /// value `IFS` may have together, bash's default standing for one that
    /// cannot be known (its value at start-up, or a computed one).
    pub(super) fn ifs(&self) -> String {
        let Some(values) = self.get("IFS") else {
            return DEFAULT_IFS.to_owned();
        };
        let mut chars = String::new();
        for value in values {
            // A value it cannot know: bash's default (IFS at start-up).
            for c in value.first().exact_text().unwrap_or(DEFAULT_IFS).chars() {
                if !chars.contains(c) {
                    chars.push(c);
                }
            }
        }
        chars
    }
}

/// `text` split into fields on the characters of `ifs`, as bash splits an
/// unquoted expansion (empty fields dropped).
pub(super) fn split<'t>(text: &'t str, ifs: &str) -> Vec<&'t str> {
    text.split(|c| ifs.contains(c))
        .filter(|piece| !piece.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(text: &str) -> Value {
        Value::Scalar(Arg::literal(text))
    }

    #[test]
    fn straight_line_assignments_replace_and_branches_add() {
        let mut vars = Vars::default();
        vars.assign("D", vec![scalar("build")], false);
        vars.assign("D", vec![scalar("/")], false);
        assert_eq!(vars.get("D"), Some(&[scalar("/")][..]));
        vars.branching = 1;
        vars.assign("D", vec![scalar("out")], false);
        assert_eq!(vars.get("D"), Some(&[scalar("/"), scalar("out")][..]));
        vars.assign("N", vec![scalar("rm")], false);
        let values = vars.get("N").unwrap_or_default();
        assert_eq!(values.len(), 2);
        assert!(!values[0].first().exact, "unset stays possible");
    }

    #[test]
    fn appends_and_caps() {
        let mut vars = Vars::default();
        vars.assign("F", vec![scalar("-r")], false);
        vars.assign("F", vec![scalar("f")], true);
        assert_eq!(vars.get("F"), Some(&[scalar("-rf")][..]));
        vars.assign("A", vec![Value::Array(vec![Arg::literal("rm")])], false);
        vars.assign("A", vec![Value::Array(vec![Arg::literal("-rf")])], true);
        assert_eq!(
            vars.get("A"),
            Some(&[Value::Array(vec![Arg::literal("rm"), Arg::literal("-rf")])][..])
        );
        vars.branching = 1;
        for i in 0..20 {
            vars.assign("X", vec![scalar(&i.to_string())], false);
        }
        let values = vars.get("X").unwrap_or_default();
        assert_eq!(values.len(), MAX_VALUES);
        assert!(!values[MAX_VALUES - 1].first().exact);
    }

    #[test]
    fn ifs_and_split() {
        let mut vars = Vars::default();
        assert_eq!(vars.ifs(), DEFAULT_IFS);
        assert_eq!(split(" rm  -rf\t/ ", DEFAULT_IFS), ["rm", "-rf", "/"]);
        vars.assign("IFS", vec![scalar(",")], false);
        assert_eq!(split("rm,-rf,/", &vars.ifs()), ["rm", "-rf", "/"]);
    }
}
