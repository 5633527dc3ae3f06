//! Bash's arithmetic and the array subscripts it expands: the places where
//! bash expands text a second time, after the word that held it was
//! expanded once. An arithmetic expression written in the command (`$((
//! T ))`, `$[ T ]`, `(( T ))`, `for (( … ))`, a subscript, a substring's
//! offset and length) is expanded as inside double quotes, where single
//! quotes are plain characters (`$(( '$(cmd)' ))` runs cmd). Evaluating
//! it then expands each array subscript in the text once more and
//! evaluates each variable it names in turn, so text that reached it as
//! data (`x='a[$(cmd)]'; echo $(( x ))`, `let 'a[$(cmd)]=1'`) runs cmd.
//! The builtins that take a variable's name (`printf -v`, `unset`, `read`,
//! `test -v`, `[[ -v ]]`, `declare` and kin, a nameref's target,
//! `${!name}`) evaluate its subscript the same way.

use crate::arg::Arg;
use crate::getopt::{self, Spec};
use crate::scanner::Scanner;
use crate::vars::Value;

/// How many variables deep a value is followed as arithmetic (`i=j;
/// j='a[$(cmd)]'; (( i ))`).
const MAX_FOLLOWED_DEPTH: usize = 4;
/// Most variables followed for one expression.
const MAX_FOLLOWED_NAMES: usize = 64;
/// Most subscripts expanded for one expression.
const MAX_SUBSCRIPTS: usize = 64;

/// `read`'s options (the names come after them; `-a NAME` is one).
const READ: Spec = Spec::new("adinNptu", &[]).posix();
/// `wait`'s options (`-p NAME` takes the name).
const WAIT: Spec = Spec::new("p", &[]).posix();

impl Scanner<'_> {
    /// An arithmetic expression as written in the command: its
    /// substitutions judged as those of a double-quoted word, then the
    /// text it expands to evaluated ([`Self::evaluate`]).
    pub(super) fn arithmetic(&mut self, source: &str) {
        if !source.contains(['$', '`']) {
            self.evaluate(source, true);
            return;
        }
        for expanded in self.expand_quoted(source) {
            self.evaluate(&expanded.text, expanded.exact);
        }
    }

    /// The key of an indexed array's compound assignment (`a=([KEY]=v)`,
    /// `declare -a a=([KEY]=v)`, `a+=(…)`): bash expands KEY, then expands
    /// what that gave once more before it evaluates it, so a value holding
    /// a substitution runs it (`n='$(cmd)'; a=([$n]=1)` runs cmd, where
    /// `a[$n]=1` does not; checked against bash 5.2). What the second
    /// expansion runs counts only when it blocks, as in [`Self::evaluate`].
    pub(super) fn compound_key(&mut self, source: &str) {
        if !source.contains(['$', '`']) {
            self.evaluate(source, true);
            return;
        }
        for expanded in self.expand_quoted(source) {
            if expanded.exact && expanded.text.contains(['$', '`']) {
                self.blocks_from(|s| {
                    s.inside("array subscript", |s| s.arithmetic(&expanded.text));
                });
            } else if expanded.exact {
                self.evaluate(&expanded.text, true);
            } else {
                self.refuse_hostile(
                    expanded.taint,
                    std::slice::from_ref(&expanded),
                    "expands it as an array subscript",
                );
            }
        }
    }

    /// Bash's evaluation of arithmetic text already expanded (`let`'s
    /// arguments, the operands of `[[ -eq ]]`, a value given to a `declare
    /// -i` variable, an expression's expansion): each array subscript in it
    /// is expanded once more, and each variable it names has its values
    /// evaluated in turn. Only text fully known is searched for subscripts
    /// (the parts only known at run time were judged where they were
    /// written); what the second expansion runs counts only when it blocks,
    /// as for any text judged as code in case it is code.
    pub(super) fn evaluate(&mut self, text: &str, exact: bool) {
        let mut pending = vec![(text.to_owned(), exact, 0)];
        let mut seen: Vec<String> = Vec::new();
        let mut expanded = 0;
        while let Some((text, exact, depth)) = pending.pop() {
            if depth > MAX_FOLLOWED_DEPTH {
                continue;
            }
            if exact {
                for sub in subscripts(&text) {
                    if expanded >= MAX_SUBSCRIPTS {
                        break;
                    }
                    expanded += 1;
                    if !sub.contains(['$', '`']) {
                        continue;
                    }
                    let values =
                        self.blocks_from(|s| s.inside("array subscript", |s| s.expand_quoted(sub)));
                    for value in values {
                        pending.push((value.text.into_string(), value.exact, depth + 1));
                    }
                }
            }
            for name in identifiers(&text) {
                if seen.iter().any(|s| s == name) || seen.len() >= MAX_FOLLOWED_NAMES {
                    continue;
                }
                seen.push(name.to_owned());
                let values: Vec<String> = self
                    .variable_values(name)
                    .iter()
                    .flat_map(Value::elements)
                    .filter_map(|a| a.exact_text().map(str::to_owned))
                    .collect();
                for value in values {
                    pending.push((value, true, depth + 1));
                }
            }
        }
    }

    /// A variable's name as a builtin takes it (`printf -v NAME`, `unset
    /// NAME`, `declare NAME=…`): a subscript in it is expanded and evaluated
    /// ([`Self::evaluate`]). A name only known at run time was judged where
    /// it was written; one from a download or a decoder is refused.
    pub(super) fn name_taken(&mut self, name: &Arg) {
        if !name.text.contains('[') {
            return;
        }
        if !name.exact {
            self.refuse_hostile(
                name.taint,
                std::slice::from_ref(name),
                "expands it as an array subscript",
            );
            return;
        }
        self.evaluate(&name.text, true);
    }

    /// The names the builtin `name` takes among `args` (their subscripts
    /// evaluated, [`Self::name_taken`]): `printf -v NAME`, `unset NAME…`,
    /// `read NAME…` and `read -a NAME`, `wait -p NAME`, `test -v NAME` and
    /// `[ -v NAME ]`,
    /// and the declaration builtins' `NAME` and `NAME=VALUE` (a nameref's
    /// target too: `declare -n r='a[…]'` evaluates it at each use).
    pub(super) fn names_taken(&mut self, name: &str, args: &[Arg]) {
        let names: Vec<Arg> = match name {
            "printf" => printf_names(args),
            "unset" => {
                let functions = args
                    .iter()
                    .take_while(|a| a.text.starts_with('-'))
                    .any(|a| a.text.contains('f'));
                if functions {
                    Vec::new()
                } else {
                    args.iter()
                        .filter(|a| !a.text.starts_with('-'))
                        .cloned()
                        .collect()
                }
            }
            "read" => {
                let parsed = getopt::parse(args, &READ);
                let mut names: Vec<Arg> = args.get(parsed.rest..).unwrap_or_default().to_vec();
                for (opt, value) in &parsed.opts {
                    if *opt == getopt::Opt::Short('a')
                        && let Some(value) = value
                    {
                        names.push(Arg::literal(value));
                    }
                }
                names
            }
            // `wait -n -p NAME`: NAME gets the id of the job that ended.
            "wait" => getopt::parse(args, &WAIT)
                .values(Some('p'), None)
                .into_iter()
                .map(Arg::literal)
                .collect(),
            "test" | "[" => args
                .windows(2)
                .filter(|w| w.first().is_some_and(|o| o.is("-v") || o.is("-R")))
                .filter_map(|w| w.get(1).cloned())
                .collect(),
            "declare" | "typeset" | "local" | "export" | "readonly" => args
                .iter()
                .filter(|a| !a.text.starts_with(['-', '+']))
                .flat_map(|a| {
                    let (variable, value) = split_assignment(&a.text);
                    let mut out = vec![Arg {
                        text: variable.into(),
                        ..a.clone()
                    }];
                    // `declare -n r='a[…]'`: the target's subscript.
                    if let Some(value) = value.filter(|v| v.contains('[')) {
                        out.push(Arg {
                            text: value.into(),
                            ..a.clone()
                        });
                    }
                    out
                })
                .collect(),
            _ => Vec::new(),
        };
        for name in &names {
            self.name_taken(name);
        }
    }

    /// The values of variable `name` the command set (through a nameref
    /// to the variable it names); none when it never set it.
    pub(super) fn variable_values(&self, name: &str) -> &[Value] {
        if self.namerefs.is_empty() {
            return self.vars.get(name).unwrap_or_default();
        }
        self.vars
            .get(&self.nameref_target(name))
            .unwrap_or_default()
    }

    /// Runs `walk`, keeping only the blocks it finds: for text judged as
    /// code in case it is code, where a warning would be a guess.
    pub(super) fn blocks_from<T>(&mut self, walk: impl FnOnce(&mut Self) -> T) -> T {
        let start = self.judgement.findings.len();
        let out = walk(self);
        let found: Vec<_> = self.judgement.findings.drain(start..).collect();
        for finding in found {
            if finding.rule.severity == crate::rule::Severity::Block {
                self.judgement.push(finding);
            }
        }
        out
    }
}

/// `printf -v NAME` and `printf -vNAME`: the name.
fn printf_names(args: &[Arg]) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if !word.exact || !word.text.starts_with('-') || word.text == "--" {
            break;
        }
        if word.text == "-v" {
            out.extend(words.next().cloned());
        } else if let Some(name) = word.text.strip_prefix("-v") {
            out.push(Arg {
                text: name.into(),
                ..word.clone()
            });
        }
    }
    out
}

/// `NAME=VALUE` (or `NAME+=VALUE`) as a declaration builtin reads it: the
/// name, its subscript whole (`a[x=1]=2` is `a[x=1]`), and the value.
pub(super) fn split_assignment(text: &str) -> (&str, Option<&str>) {
    let name_end = match (text.find('['), text.find('=')) {
        (Some(open), equals) if equals.is_none_or(|e| open < e) => {
            closing_bracket(text, open).map_or(text.len(), |close| close + 1)
        }
        (_, Some(equals)) => equals,
        (_, None) => text.len(),
    };
    let name = text.get(..name_end).unwrap_or(text);
    let rest = text.get(name_end..).unwrap_or_default();
    let value = rest.strip_prefix("+=").or_else(|| rest.strip_prefix('='));
    (name.trim_end_matches('+'), value)
}

/// The byte offset of the `]` that closes the `[` at `open`.
fn closing_bracket(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.get(open..)?.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The subscripts of the array references in arithmetic text: what is
/// between `name[` and its closing `]`, outermost only (an inner one is
/// found when the outer one's expansion is evaluated; inside an unclosed
/// one, each closed one counts). One pass, so that long text of unclosed
/// brackets costs no more than its length.
fn subscripts(text: &str) -> Vec<&str> {
    // The closed ones so far, in order, none inside another.
    let mut closed: Vec<(usize, usize)> = Vec::new();
    // The brackets open: where, and whether a name comes before.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut before = None;
    for (i, c) in text.char_indices() {
        match c {
            '[' => {
                let named = before.is_some_and(|b: char| b.is_ascii_alphanumeric() || b == '_');
                open.push((i, named));
            }
            ']' => {
                if let Some((at, true)) = open.pop() {
                    while closed.last().is_some_and(|(inner, _)| *inner > at) {
                        closed.pop();
                    }
                    closed.push((at, i));
                }
            }
            _ => {}
        }
        before = Some(c);
    }
    closed
        .into_iter()
        .take(MAX_SUBSCRIPTS)
        .filter_map(|(at, end)| text.get(at + 1..end))
        .collect()
}

/// The names of variables an arithmetic expression reads.
pub(super) fn identifiers(expr: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in expr
        .char_indices()
        .chain(std::iter::once((expr.len(), ' ')))
    {
        let word = c.is_ascii_alphanumeric() || c == '_';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(from), false) => {
                if let Some(name) = expr.get(from..i)
                    && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    // Not `$x` (already expanded) nor a base prefix (`16#ff`).
                    && !expr.get(..from).is_some_and(|b| b.ends_with(['$', '#']))
                {
                    out.push(name);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Decision;

    fn judged(command: &str) -> (Decision, Vec<&'static str>) {
        crate::judged(command, Some("/home/ann"))
    }

    #[test]
    fn names_and_subscripts_are_read_as_bash_reads_them() {
        assert_eq!(split_assignment("a=1"), ("a", Some("1")));
        assert_eq!(split_assignment("a+=1"), ("a", Some("1")));
        assert_eq!(split_assignment("a[x=1]=2"), ("a[x=1]", Some("2")));
        assert_eq!(split_assignment("a[$(f)]"), ("a[$(f)]", None));
        assert_eq!(split_assignment("r=a[1]"), ("r", Some("a[1]")));
        assert_eq!(subscripts("a[1] + b[c[2]] + [3]"), ["1", "c[2]"]);
        assert_eq!(subscripts("a[$(x)"), Vec::<&str>::new());
        assert_eq!(subscripts("a[b[c] + d[1]"), ["c", "1"]);
        assert_eq!(identifiers("x + $y + 16#ff + a[i]"), ["x", "a", "i"]);
    }

    /// Every builtin that takes a variable's name evaluates its subscript
    /// (checked against bash 5.2 with a stand-in for `rm`).
    #[test]
    fn subscripts_of_names_given_to_builtins_run() {
        for command in [
            "printf -v 'a[$(rm -rf ~)]' x",
            "printf -v'a[$(rm -rf ~)]' x",
            "a=(); unset 'a[$(rm -rf ~)]'",
            "unset -v 'a[$(rm -rf ~)]'",
            "test -v 'a[$(rm -rf ~)]'",
            "[ -v 'a[$(rm -rf ~)]' ]",
            "[[ -v 'a[$(rm -rf ~)]' ]]",
            "x='a[$(rm -rf ~)]'; [[ -v $x ]]",
            "read 'a[$(rm -rf ~)]' <<< x",
            "read -r -a 'a[$(rm -rf ~)]' <<< x",
            "declare 'a[$(rm -rf ~)]=1'",
            "f() { local 'a[$(rm -rf ~)]=1'; }; f",
            "typeset -A 'a[$(rm -rf ~)]=1'",
            "export 'a[$(rm -rf ~)]=1'",
            "readonly 'a[$(rm -rf ~)]=1'",
            "sleep 1 & wait -n -p 'a[$(rm -rf ~)]'",
            "wait -p'a[$(rm -rf ~)]' -n",
            "declare -n r='a[$(rm -rf ~)]'; echo $r",
            "x='a[$(rm -rf ~)]'; echo ${!x}",
            "x='a[$(rm -rf ~)]'; echo \"${!x:-}\"",
            "x='a[$(rm -rf ~)]'; echo \"${!x#a}\"",
            "x='$(rm -rf ~)'; printf -v \"a[$x]\" 1",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Block, "{command}: {rules:?}");
            assert!(rules.contains(&"rm-critical-path"), "{command}: {rules:?}");
        }
    }

    /// Arithmetic reads text as inside double quotes: single quotes hide
    /// nothing; offsets, lengths, keys and indexes are arithmetic too.
    #[test]
    fn arithmetic_runs_what_its_text_holds() {
        for command in [
            "echo $(( '$(rm -rf ~)' ))",
            "echo $[ '$(rm -rf ~)' ]",
            "(( '$(rm -rf ~)' ))",
            "echo $(( \"$(rm -rf ~)\" ))",
            "for (( i='$(rm -rf ~)'; 0; )); do :; done",
            "y='a[$(rm -rf ~)]'; echo $(( $y ))",
            "x='a[$(rm -rf ~)]'; s=abc; echo ${s:x}",
            "x='a[$(rm -rf ~)]'; s=abc; echo ${s:0:x}",
            "s=abc; echo ${s:'$(rm -rf ~)'}",
            "x='a[$(rm -rf ~)]'; a=(1 2); echo ${a[@]:x}",
            "x='a[$(rm -rf ~)]'; b[x]=1",
            "x='a[$(rm -rf ~)]'; b=([x]=1)",
            "x='a[$(rm -rf ~)]'; case 1 in $((x))) ;; esac",
            "i=j; j='a[$(rm -rf ~)]'; (( i ))",
            "n='$(rm -rf ~)'; a=([$n]=1)",
            "n='$(rm -rf ~)'; a=([\"$n\"]=1)",
            "n='1+`rm -rf ~`'; a+=([$n]=1)",
            "n='$(rm -rf ~)'; declare -a c=([$n]=1)",
            "n='$(rm -rf ~)'; f() { local -a e=([$n]=1); }; f",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Block, "{command}: {rules:?}");
            assert!(rules.contains(&"rm-critical-path"), "{command}: {rules:?}");
        }
    }

    /// Look-alikes: subscripts and arithmetic without code, and text bash
    /// never evaluates a second time.
    #[test]
    fn plain_subscripts_and_arithmetic_stay_allowed() {
        for command in [
            "printf -v 'a[0]' '%s' x",
            "printf -v \"a[$i]\" '%s' x",
            "unset 'a[1]'",
            "unset -f 'f'",
            "[[ -v a[1] ]] && echo set",
            "test -v HOME",
            "read -r 'a[0]' <<< x",
            "declare -A m; m[key]=1; declare \"m[$k]=2\"",
            "echo $(( '1' + 2 ))",
            "echo $(( $(date +%s) - 60 ))",
            "s=abcdef; echo ${s:1:2}",
            "x='$(rm -rf ~)'; echo \"$x\"",
            "let 'n = 1 + 2'",
            "declare -n r=a; a=1; echo $r",
            "n='$(rm -rf ~)'; b[$n]=1",
            "n=2; a=([$n]=x [1]=y)",
            "sleep 1 & wait -n -p 'ids[0]'",
            "wait -n -p pid",
        ] {
            let (decision, rules) = judged(command);
            assert_eq!(decision, Decision::Allow, "{command}: {rules:?}");
        }
    }
}
