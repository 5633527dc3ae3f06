//! Expanding a shell word the way bash would, as far as that is possible
//! without running anything: quotes and escapes removed, `$'…'` decoded,
//! braces expanded, `~` and `$HOME` read as home, and each command
//! substitution judged as code and, where it only prints literals
//! (`$(echo rm)`), replaced by what it prints. Whatever depends on run time
//! stays visible in the [`Arg`] as not exact.

use brush_parser::ParserOptions;
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr,
    ParameterTransformOp, SpecialParameter, SubstringMatchKind, TildeExpr, WordPiece,
    WordPieceWithSource,
};

use crate::arg::{Arg, Taint};
use crate::flow::Flow;
use crate::rule;
use crate::scanner::Scanner;
use crate::vars::Value;

/// Most words one brace expression may expand to; the rest are dropped.
pub(super) const MAX_BRACE_WORDS: usize = 64;
/// Most `{` in a word that is brace-expanded. brush-parser's brace grammar
/// backtracks exponentially on runs of unbalanced braces; real brace
/// expressions have one or two.
pub(super) const MAX_BRACES: usize = 6;

/// Most words one word may become through the values of the variables in
/// it (one per combination); the rest are dropped.
pub(super) const MAX_VARIANTS: usize = 16;

/// One field of a word being built.
#[derive(Debug, Clone)]
struct Field {
    text: String,
    exact: bool,
    glob: bool,
    known_from: usize,
    taint: Taint,
    /// Something other than an unquoted expansion made it (literal text,
    /// quotes): it stays a field even when empty.
    real: bool,
}

impl Field {
    fn new() -> Self {
        Self {
            text: String::new(),
            exact: true,
            glob: false,
            known_from: 0,
            taint: Taint::default(),
            real: false,
        }
    }

    fn push_arg(&mut self, arg: &Arg) {
        if !arg.exact {
            self.exact = false;
            self.known_from = self.text.len() + arg.known_at();
        }
        self.text.push_str(&arg.text);
        self.glob |= arg.glob;
        self.taint = self.taint.union(arg.taint);
        self.real = true;
    }

    fn kept(&self) -> bool {
        self.real || !self.text.is_empty()
    }

    fn into_arg(self) -> Arg {
        Arg {
            known_from: if self.exact {
                0
            } else {
                crate::arg::offset(self.known_from)
            },
            text: self.text.into(),
            exact: self.exact,
            glob: self.glob,
            taint: self.taint,
            content: None,
        }
    }
}

/// What an expansion puts into a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Insert {
    /// One value (`$X`, `$(cmd)`), split into fields when unquoted.
    One(Arg),
    /// Several fields (`"${a[@]}"`).
    Fields(Vec<Arg>),
}

impl Insert {
    /// True when the insert may add no text at all.
    fn may_be_empty(&self) -> bool {
        match self {
            Self::One(arg) => !arg.exact || arg.text.is_empty(),
            Self::Fields(items) => items.is_empty(),
        }
    }
}

/// One way a word can expand: the fields made so far and the one being made.
#[derive(Debug, Clone)]
struct Variant {
    done: Vec<Field>,
    current: Field,
}

impl Variant {
    fn end_field(&mut self) {
        let field = std::mem::replace(&mut self.current, Field::new());
        if field.kept() {
            self.done.push(field);
        }
    }

    fn insert(&mut self, insert: &Insert, quoted: bool, ifs: &str) {
        match insert {
            Insert::One(arg) if quoted => self.current.push_arg(arg),
            Insert::One(arg) => self.split_into(arg, ifs),
            Insert::Fields(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.end_field();
                        self.current.real |= quoted;
                    }
                    if quoted {
                        self.current.push_arg(item);
                    } else {
                        self.split_into(item, ifs);
                    }
                }
            }
        }
    }

    /// An unquoted value: split on `ifs`, the first piece joining the field
    /// being made and the last one left open.
    fn split_into(&mut self, arg: &Arg, ifs: &str) {
        for (i, piece) in arg.text.split(|c| ifs.contains(c)).enumerate() {
            if i > 0 {
                self.end_field();
            }
            if piece.is_empty() {
                continue;
            }
            // Unknown parts keep their source spelling (`$X`, `$(cmd)`,
            // `~` for `$HOME`): a piece without one is known text.
            let known = arg.exact || !piece.contains(['$', '`', '~']);
            let part = Arg {
                text: piece.into(),
                exact: known,
                glob: is_pattern(piece),
                known_from: if known {
                    0
                } else {
                    crate::arg::offset(piece.len())
                },
                taint: arg.taint,
                content: None,
            };
            self.current.push_arg(&part);
        }
    }

    fn finish(mut self) -> Vec<Arg> {
        self.end_field();
        self.done.into_iter().map(Field::into_arg).collect()
    }
}

/// Builds one word from its pieces: every variant it can expand to.
#[derive(Debug)]
struct Builder {
    variants: Vec<Variant>,
    /// Unquoted expansions are split into fields (not so on the right of
    /// an assignment).
    splits: bool,
}

impl Builder {
    fn new() -> Self {
        Self {
            variants: vec![Variant {
                done: Vec::new(),
                current: Field::new(),
            }],
            splits: true,
        }
    }

    fn known(&mut self, text: &str) {
        for variant in &mut self.variants {
            variant.current.text.push_str(text);
            variant.current.real = true;
        }
    }

    fn unknown(&mut self, source: &str, taint: Taint) {
        let arg = Arg::unknown(source, taint);
        for variant in &mut self.variants {
            variant.current.push_arg(&arg);
        }
    }

    fn glob(&mut self) {
        for variant in &mut self.variants {
            variant.current.glob = true;
        }
    }

    fn quoted(&mut self) {
        for variant in &mut self.variants {
            variant.current.real = true;
        }
    }

    /// True when the field being made is an option cluster (`-r…`), where a
    /// value that is empty at run time joins the letters around it.
    fn in_option(&self) -> bool {
        self.variants
            .iter()
            .any(|v| v.current.text.starts_with('-'))
    }

    /// True when the field being made ends with `/` (`"$HOME/$D"`).
    fn after_slash(&self) -> bool {
        self.variants.iter().any(|v| v.current.text.ends_with('/'))
    }

    /// One copy of the word per insert (capped at [`MAX_VARIANTS`]).
    fn fork(&mut self, inserts: &[Insert], quoted: bool, ifs: &str) {
        let mut out = Vec::new();
        'all: for variant in &self.variants {
            for insert in inserts {
                if out.len() >= MAX_VARIANTS {
                    break 'all;
                }
                let mut copy = variant.clone();
                copy.insert(insert, quoted || !self.splits, ifs);
                out.push(copy);
            }
        }
        if !out.is_empty() {
            self.variants = out;
        }
    }

    fn finish(self) -> Vec<Vec<Arg>> {
        self.variants.into_iter().map(Variant::finish).collect()
    }
}

impl Scanner<'_> {
    /// The fields `word` (its source text) expands to, with each variable
    /// at its first value (see [`Scanner::expand_all`]).
    pub(super) fn expand(&mut self, word: &str) -> Vec<Arg> {
        self.expand_all(word).into_iter().next().unwrap_or_default()
    }

    /// Every list of fields `word` can expand to: one per value of the
    /// variables in it (at least one, at most [`MAX_VARIANTS`]).
    pub(super) fn expand_all(&mut self, word: &str) -> Vec<Vec<Arg>> {
        if is_plain(word) {
            // Most words of a long line: one field, the word itself.
            return vec![vec![Arg::literal(word)]];
        }
        let braces = brace_alternatives(word);
        if let [one] = braces.as_slice() {
            return self.expand_one(one);
        }
        // Brace words are fields side by side; their variants are taken
        // together, the n-th of each.
        let each: Vec<Vec<Vec<Arg>>> = braces.iter().map(|b| self.expand_one(b)).collect();
        let count = each.iter().map(Vec::len).max().unwrap_or(1);
        (0..count)
            .map(|n| {
                each.iter()
                    .flat_map(|variants| variants.get(n).or(variants.first()).cloned())
                    .flatten()
                    .collect()
            })
            .collect()
    }

    /// The values `word` can give as the right side of an assignment, where
    /// bash neither splits nor globs: one word per variant.
    pub(super) fn expand_value(&mut self, word: &str) -> Vec<Arg> {
        let mut builder = Builder {
            splits: false,
            ..Builder::new()
        };
        match parse_word(word) {
            Some(pieces) => self.pieces(word, &pieces, false, true, &mut builder),
            None => self.unparsable_word(word, &mut builder),
        }
        builder
            .finish()
            .into_iter()
            .map(|fields| {
                fields
                    .into_iter()
                    .reduce(|a, b| crate::vars::concat(&a, &b))
                    .unwrap_or_else(|| Arg::literal(""))
            })
            .collect()
    }

    /// The text of a here-document body, with the substitutions of an
    /// unquoted one judged. Where variables give it several values, they
    /// are all in the text, one after the other, so that a shell reading it
    /// is judged on each.
    pub(super) fn expand_heredoc(&mut self, body: &str, expands: bool) -> Arg {
        if !expands {
            return Arg::literal(body);
        }
        join_variants(self.expand_quoted(body))
    }

    /// Every text `text` can expand to when bash expands it as inside
    /// double quotes, where quotes are plain characters (a here-document's
    /// body, an arithmetic expression): one per value of the variables in
    /// it.
    pub(super) fn expand_quoted(&mut self, text: &str) -> Vec<Arg> {
        let mut builder = Builder::new();
        match word::parse_heredoc(&spelled_for_parser(text, false), &ParserOptions::default()) {
            Ok(pieces) => self.pieces(text, &pieces, true, false, &mut builder),
            Err(_) => self.unparsable_word(text, &mut builder),
        }
        builder.finish().into_iter().flatten().collect()
    }

    /// Judges the substitutions in `text` (a default value, an arithmetic
    /// expression, an array index), whose value does not matter.
    pub(super) fn embedded(&mut self, text: &str) {
        if !text.contains(['$', '`']) {
            return;
        }
        let mut builder = Builder::new();
        match parse_word(text) {
            Some(pieces) => self.pieces(text, &pieces, false, false, &mut builder),
            None => self.unparsable_word(text, &mut builder),
        }
    }

    fn expand_one(&mut self, raw: &str) -> Vec<Vec<Arg>> {
        let mut builder = Builder::new();
        if is_plain(raw) {
            // What brush-parser's word parser would return (one text piece,
            // no glob), without its cost: most words of a long line are such.
            builder.known(raw);
            return builder.finish();
        }
        match parse_word(raw) {
            Some(pieces) => self.pieces(raw, &pieces, false, true, &mut builder),
            None => self.unparsable_word(raw, &mut builder),
        }
        builder.finish()
    }

    fn unparsable_word(&mut self, raw: &str, builder: &mut Builder) {
        if raw.contains("$(") || raw.contains('`') {
            self.report_text(
                &rule::UNSCANNABLE,
                raw,
                "a word with a substitution the parser cannot read".into(),
            );
        }
        builder.unknown(raw, Taint::OPAQUE);
    }

    /// Adds `pieces` to `b`; `ends_word`: nothing follows them in the word.
    fn pieces(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        quoted: bool,
        ends_word: bool,
        b: &mut Builder,
    ) {
        for (i, piece) in pieces.iter().enumerate() {
            let last = ends_word && i + 1 == pieces.len();
            let source = raw.get(piece.start_index..piece.end_index).unwrap_or("$?");
            match &piece.piece {
                // A `${` the parser read as text is an expansion it has no
                // grammar for (bash's "bad substitution", or one newer
                // than the parser): only known at run time.
                WordPiece::Text(text)
                    if text == "$"
                        && pieces.get(i + 1).is_some_and(|next| {
                            raw.get(next.start_index..)
                                .is_some_and(|r| r.starts_with('{'))
                        }) =>
                {
                    b.unknown(source, Taint::OPAQUE);
                }
                WordPiece::Text(text) => {
                    if !quoted && is_pattern(text) {
                        b.glob();
                    }
                    b.known(text);
                }
                WordPiece::SingleQuotedText(text) => b.known(text),
                WordPiece::AnsiCQuotedText(text) => match ansi_c(text) {
                    Some(decoded) => b.known(&decoded),
                    None => b.unknown(source, Taint::OPAQUE),
                },
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    b.quoted();
                    self.pieces(raw, inner, true, last, b);
                }
                WordPiece::TildeExpansion(tilde) => match tilde {
                    TildeExpr::Home => b.known("~"),
                    TildeExpr::UserHome(user) => b.known(&format!("~{user}")),
                    TildeExpr::WorkingDir
                    | TildeExpr::OldWorkingDir
                    | TildeExpr::NthDirFromTopOfDirStack { .. }
                    | TildeExpr::NthDirFromBottomOfDirStack { .. } => {
                        b.unknown(source, Taint::default());
                    }
                },
                WordPiece::ParameterExpansion(expr) => {
                    self.parameter(expr);
                    let mut inserts = match self.parameter_values(expr, source) {
                        Some(inserts) => inserts,
                        None if is_home(expr) => {
                            vec![Insert::One(Arg::unknown("~", Taint::default()))]
                        }
                        None => vec![Insert::One(Arg::unknown(source, Taint::OPAQUE))],
                    };
                    // `-r${EMPTY}f` and `"$HOME/$DIR"`: what is unknown may
                    // be empty, joining the letters of a flag or leaving a
                    // path's parent.
                    if (b.in_option() || (last && b.after_slash()))
                        && inserts.iter().any(Insert::may_be_empty)
                        && !inserts.iter().any(|i| *i == Insert::One(Arg::literal("")))
                    {
                        inserts.push(Insert::One(Arg::literal("")));
                    }
                    let ifs = self.vars.ifs();
                    b.fork(&inserts, quoted, &ifs);
                }
                WordPiece::CommandSubstitution(body)
                | WordPiece::BackquotedCommandSubstitution(body) => {
                    let flow = self.nested(body, "$(...)", &Flow::inherited());
                    match flow.literal_text() {
                        Some(out) if flow.taint == Taint::default() => {
                            let value = Arg::literal(out.trim_end_matches('\n'));
                            let ifs = self.vars.ifs();
                            b.fork(&[Insert::One(value)], quoted, &ifs);
                        }
                        _ => b.unknown(source, flow.taint.union(Taint::OPAQUE)),
                    }
                }
                WordPiece::EscapeSequence(escape) => b.known(&unescape(escape, quoted)),
                WordPiece::ArithmeticExpression(expr) => {
                    self.arithmetic(&expr.value);
                    // bash reads `$(( cmd ) )` as a substitution when it is
                    // no arithmetic; judge the text as code too.
                    self.blocks_only(&expr.value, "$(( ... ))");
                    b.unknown(source, Taint::default());
                }
            }
        }
    }

    /// The values a parameter expansion can give, where the command set the
    /// variable (`None`: only known at run time).
    fn parameter_values(&mut self, expr: &ParameterExpr, source: &str) -> Option<Vec<Insert>> {
        let normal;
        let expr = match without_empty_pattern(expr) {
            Some(plain) => {
                normal = plain;
                &normal
            }
            None => expr,
        };
        match expr {
            ParameterExpr::Parameter {
                parameter,
                indirect: false,
            } => self.variable(parameter),
            // `${!n}`: the variable whose name `n` holds.
            ParameterExpr::Parameter {
                parameter,
                indirect: true,
            } => {
                let names = self.variable(parameter)?;
                let mut out = Vec::new();
                for name in &names {
                    let target = match name {
                        Insert::One(arg) => arg
                            .exact_text()
                            .and_then(|n| self.variable(&Parameter::Named(n.to_owned()))),
                        Insert::Fields(_) => None,
                    };
                    match target {
                        Some(values) => out.extend(values),
                        None => out.push(Insert::One(Arg::unknown(source, Taint::OPAQUE))),
                    }
                }
                Some(out)
            }
            ParameterExpr::UseDefaultValues {
                parameter,
                indirect: false,
                default_value,
                ..
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                indirect: false,
                default_value,
                ..
            } => {
                let mut out = self
                    .variable(parameter)
                    .unwrap_or_else(|| vec![Insert::One(Arg::unknown(source, Taint::OPAQUE))]);
                if out.iter().any(Insert::may_be_empty) {
                    let default = self.expand_value(default_value.as_deref().unwrap_or(""));
                    if let (ParameterExpr::AssignDefaultValues { .. }, Parameter::Named(name)) =
                        (expr, parameter)
                    {
                        // Assigned only when unset or empty: it may not happen.
                        self.vars.branching += 1;
                        let values = default.iter().cloned().map(Value::Scalar).collect();
                        self.vars.assign(name, values, false);
                        self.vars.branching -= 1;
                    }
                    out.extend(default.into_iter().map(Insert::One));
                }
                Some(out)
            }
            ParameterExpr::UseAlternativeValue {
                parameter,
                indirect: false,
                alternative_value,
                ..
            } => {
                let set = self.variable(parameter);
                let mut out: Vec<Insert> = self
                    .expand_value(alternative_value.as_deref().unwrap_or(""))
                    .into_iter()
                    .map(Insert::One)
                    .collect();
                if set.is_none_or(|values| values.iter().any(Insert::may_be_empty)) {
                    out.push(Insert::One(Arg::literal("")));
                }
                Some(out)
            }
            ParameterExpr::RemoveSmallestSuffixPattern {
                parameter,
                indirect: false,
                pattern,
            } => self.transformed(source, parameter, pattern.as_deref(), |text, p| {
                trim_pattern(text, p, End::Suffix, false)
            }),
            ParameterExpr::RemoveLargestSuffixPattern {
                parameter,
                indirect: false,
                pattern,
            } => self.transformed(source, parameter, pattern.as_deref(), |text, p| {
                trim_pattern(text, p, End::Suffix, true)
            }),
            ParameterExpr::RemoveSmallestPrefixPattern {
                parameter,
                indirect: false,
                pattern,
            } => self.transformed(source, parameter, pattern.as_deref(), |text, p| {
                trim_pattern(text, p, End::Prefix, false)
            }),
            ParameterExpr::RemoveLargestPrefixPattern {
                parameter,
                indirect: false,
                pattern,
            } => self.transformed(source, parameter, pattern.as_deref(), |text, p| {
                trim_pattern(text, p, End::Prefix, true)
            }),
            ParameterExpr::ReplaceSubstring {
                parameter,
                indirect: false,
                pattern,
                replacement,
                match_kind,
            } => {
                let replacement = self.literal_operand(replacement.as_deref().unwrap_or(""))?;
                self.transformed(source, parameter, Some(pattern), |text, p| {
                    replace(text, p, &replacement, match_kind)
                })
            }
            ParameterExpr::Substring {
                parameter,
                indirect: false,
                offset,
                length,
            } => {
                let offset = offset.value.trim().parse::<i64>().ok()?;
                let length = match length {
                    Some(l) => Some(l.value.trim().parse::<i64>().ok()?),
                    None => None,
                };
                self.transformed(source, parameter, None, |text, _| {
                    substring(text, offset, length)
                })
            }
            // `${x~~}` and `${x~}`, read as `^^` and `^` ([`spelled_for_parser`]).
            ParameterExpr::UppercasePattern {
                parameter,
                indirect: false,
                pattern: None,
            } if source.ends_with("~~}") => self.transformed(source, parameter, None, |text, _| {
                Some(toggle_case(text, true))
            }),
            ParameterExpr::UppercaseFirstChar {
                parameter,
                indirect: false,
                pattern: None,
            } if source.ends_with("~}") => self.transformed(source, parameter, None, |text, _| {
                Some(toggle_case(text, false))
            }),
            ParameterExpr::UppercasePattern {
                parameter,
                indirect: false,
                pattern: None,
            }
            | ParameterExpr::Transform {
                parameter,
                indirect: false,
                op: ParameterTransformOp::ToUpperCase,
            } => self.transformed(source, parameter, None, |text, _| Some(text.to_uppercase())),
            ParameterExpr::Transform {
                parameter,
                indirect: false,
                op: ParameterTransformOp::ToLowerCase,
            } => self.transformed(source, parameter, None, |text, _| Some(text.to_lowercase())),
            // `${x^}`, `${x,}`, `${x@u}`: the first character only.
            ParameterExpr::UppercaseFirstChar {
                parameter,
                indirect: false,
                pattern: None,
            }
            | ParameterExpr::Transform {
                parameter,
                indirect: false,
                op: ParameterTransformOp::CapitalizeInitial,
            } => self.transformed(source, parameter, None, |text, _| {
                let mut chars = text.chars();
                Some(
                    chars
                        .next()
                        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect()),
                )
            }),
            ParameterExpr::LowercaseFirstChar {
                parameter,
                indirect: false,
                pattern: None,
            } => self.transformed(source, parameter, None, |text, _| {
                let mut chars = text.chars();
                Some(
                    chars
                        .next()
                        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect()),
                )
            }),
            ParameterExpr::LowercasePattern {
                parameter,
                indirect: false,
                pattern: None,
            } => self.transformed(source, parameter, None, |text, _| Some(text.to_lowercase())),
            _ => None,
        }
    }

    /// An operand of a parameter operator (a pattern, a replacement) when
    /// it is known text.
    fn literal_operand(&mut self, raw: &str) -> Option<String> {
        match self.expand_value(raw).as_slice() {
            [one] => one.exact_text().map(str::to_owned),
            _ => None,
        }
    }

    /// The values of `parameter` (spelled `source`) with `op` applied to
    /// each, where the variable and the operand (`pattern`) are known;
    /// `None` otherwise.
    fn transformed(
        &mut self,
        source: &str,
        parameter: &Parameter,
        pattern: Option<&str>,
        op: impl Fn(&str, &str) -> Option<String>,
    ) -> Option<Vec<Insert>> {
        let pattern = match pattern {
            Some(raw) => self.literal_operand(raw)?,
            None => String::new(),
        };
        // A value it cannot apply to stays only known at run time.
        let apply = |arg: &Arg| -> Arg {
            arg.exact_text()
                .filter(|t| t.len() <= MAX_TRANSFORMED_BYTES)
                .and_then(|text| op(text, &pattern))
                .map_or_else(
                    || Arg::unknown(source, Taint::OPAQUE),
                    |out| Arg::literal(&out),
                )
        };
        let inserts = self
            .variable(parameter)?
            .iter()
            .map(|insert| match insert {
                Insert::One(arg) => Insert::One(apply(arg)),
                Insert::Fields(items) => Insert::Fields(items.iter().map(apply).collect()),
            })
            .collect();
        Some(inserts)
    }

    /// The values of a variable the command set, as inserts.
    fn variable(&self, parameter: &Parameter) -> Option<Vec<Insert>> {
        let name = match parameter {
            Parameter::Named(name)
            | Parameter::NamedWithIndex { name, .. }
            | Parameter::NamedWithAllIndices { name, .. } => name,
            Parameter::Positional(n) => {
                let known = self.vars.positional.as_ref()?;
                // One past the list is empty to bash; taken as unknown, as
                // what the caller may still pass.
                let value = match n.checked_sub(1) {
                    None => known.zero.clone()?,
                    Some(i) => known.args.get(usize::try_from(i).ok()?).cloned()?,
                };
                return Some(vec![Insert::One(value)]);
            }
            Parameter::Special(special) => {
                let known = self.vars.positional.as_ref()?;
                return match special {
                    SpecialParameter::AllPositionalParameters { .. } => {
                        Some(vec![Insert::Fields(known.args.clone())])
                    }
                    SpecialParameter::PositionalParameterCount => Some(vec![Insert::One(
                        Arg::literal(&known.args.len().to_string()),
                    )]),
                    SpecialParameter::ShellName => known.zero.clone().map(|z| vec![Insert::One(z)]),
                    SpecialParameter::LastExitStatus
                    | SpecialParameter::CurrentOptionFlags
                    | SpecialParameter::ProcessId
                    | SpecialParameter::LastBackgroundProcessId => None,
                };
            }
        };
        // `declare -n r=c`: `$r` is `$c` as it is when expanded.
        let values = self.variable_values(name);
        if values.is_empty() {
            return (name == "IFS" && matches!(parameter, Parameter::Named(_)))
                .then(|| vec![Insert::One(Arg::literal(crate::vars::DEFAULT_IFS))]);
        }
        let inserts = match parameter {
            Parameter::Named(_) => values.iter().map(|v| Insert::One(v.first())).collect(),
            Parameter::NamedWithIndex { index, .. } => match index.trim().parse::<usize>() {
                Ok(n) => values.iter().map(|v| Insert::One(v.element(n))).collect(),
                // An index only known at run time: any element.
                Err(_) => values
                    .iter()
                    .flat_map(Value::elements)
                    .map(Insert::One)
                    .collect(),
            },
            Parameter::NamedWithAllIndices { .. } => values
                .iter()
                .map(|v| Insert::Fields(v.elements()))
                .collect(),
            Parameter::Positional(_) | Parameter::Special(_) => return None,
        };
        Some(inserts)
    }

    /// Judges the code inside a parameter expansion's operands.
    fn parameter(&mut self, expr: &ParameterExpr) {
        let (parameter, texts): (Option<&Parameter>, Vec<&str>) = match expr {
            ParameterExpr::Parameter { parameter, .. }
            | ParameterExpr::ParameterLength { parameter, .. }
            | ParameterExpr::Transform { parameter, .. } => (Some(parameter), vec![]),
            ParameterExpr::UseDefaultValues {
                parameter,
                default_value: value,
                ..
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                default_value: value,
                ..
            }
            | ParameterExpr::IndicateErrorIfNullOrUnset {
                parameter,
                error_message: value,
                ..
            }
            | ParameterExpr::UseAlternativeValue {
                parameter,
                alternative_value: value,
                ..
            }
            | ParameterExpr::RemoveSmallestSuffixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveLargestSuffixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveSmallestPrefixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::RemoveLargestPrefixPattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::UppercaseFirstChar {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::UppercasePattern {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::LowercaseFirstChar {
                parameter,
                pattern: value,
                ..
            }
            | ParameterExpr::LowercasePattern {
                parameter,
                pattern: value,
                ..
            } => (Some(parameter), value.iter().map(String::as_str).collect()),
            // The offset and the length are arithmetic.
            ParameterExpr::Substring {
                parameter,
                offset,
                length,
                ..
            } => {
                self.arithmetic(&offset.value);
                if let Some(length) = length {
                    self.arithmetic(&length.value);
                }
                (Some(parameter), vec![])
            }
            ParameterExpr::ReplaceSubstring {
                parameter,
                pattern,
                replacement,
                match_kind: _,
                ..
            } => {
                let mut texts = vec![pattern.as_str()];
                texts.extend(replacement.iter().map(String::as_str));
                (Some(parameter), texts)
            }
            ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
                (None, vec![])
            }
        };
        for text in texts {
            self.embedded(text);
        }
        // `${!x}`, `${!x:-…}`, …: x's value names a variable, whose
        // subscript runs (`x='a[$(cmd)]'`).
        if let Some(parameter) = indirect_parameter(expr) {
            let names: Vec<Arg> = self
                .variable(parameter)
                .unwrap_or_default()
                .into_iter()
                .flat_map(|insert| match insert {
                    Insert::One(arg) => vec![arg],
                    Insert::Fields(items) => items,
                })
                .collect();
            for name in &names {
                self.name_taken(name);
            }
        }
        // `${x@P}` expands the value as a prompt: its `$(…)` run.
        if let ParameterExpr::Transform {
            parameter,
            op: ParameterTransformOp::PromptExpand,
            ..
        } = expr
        {
            self.prompt_expanded(parameter);
        }
        if let Some(parameter) = parameter {
            match parameter {
                // An indexed array's subscript is arithmetic.
                Parameter::NamedWithIndex { index, .. } => self.arithmetic(index),
                Parameter::Positional(_)
                | Parameter::Special(_)
                | Parameter::Named(_)
                | Parameter::NamedWithAllIndices { .. } => {}
            }
        }
    }
}

impl Scanner<'_> {
    /// `${x@P}`: each value of `x` the command set is expanded as a prompt
    /// is, its substitutions run; a value only known at run time is code
    /// nobody can check.
    fn prompt_expanded(&mut self, parameter: &Parameter) {
        let values: Vec<Arg> = self
            .variable(parameter)
            .unwrap_or_default()
            .into_iter()
            .flat_map(|insert| match insert {
                Insert::One(arg) => vec![arg],
                Insert::Fields(items) => items,
            })
            .collect();
        if values.is_empty() || values.iter().any(|v| !v.exact) {
            self.report_text(
                &rule::OPAQUE,
                &format!("${{{}@P}}", parameter_name(parameter)),
                "prompt expansion runs any $(…) in a value only known at run time".into(),
            );
        }
        for value in values.iter().filter(|v| v.exact) {
            self.substitutions_in(&value.text, "${…@P}");
        }
    }
}

/// The parameter of an indirect expansion (`${!x}`, `${!x:-…}`, …).
fn indirect_parameter(expr: &ParameterExpr) -> Option<&Parameter> {
    match expr {
        ParameterExpr::Parameter {
            parameter,
            indirect,
        }
        | ParameterExpr::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Substring {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::Transform {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => indirect.then_some(parameter),
        ParameterExpr::ParameterLength { .. }
        | ParameterExpr::VariableNames { .. }
        | ParameterExpr::MemberKeys { .. } => None,
    }
}

/// A case operator with an empty pattern (`${x^^}`, which brush-parser
/// reads as the pattern `""`) as the same operator without one: bash
/// applies both to every character.
fn without_empty_pattern(expr: &ParameterExpr) -> Option<ParameterExpr> {
    let (ParameterExpr::UppercasePattern {
        parameter,
        indirect,
        pattern: Some(empty),
    }
    | ParameterExpr::UppercaseFirstChar {
        parameter,
        indirect,
        pattern: Some(empty),
    }
    | ParameterExpr::LowercasePattern {
        parameter,
        indirect,
        pattern: Some(empty),
    }
    | ParameterExpr::LowercaseFirstChar {
        parameter,
        indirect,
        pattern: Some(empty),
    }) = expr
    else {
        return None;
    };
    if !empty.is_empty() {
        return None;
    }
    let (parameter, indirect, pattern) = (parameter.clone(), *indirect, None);
    Some(match expr {
        ParameterExpr::UppercasePattern { .. } => ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            pattern,
        },
        ParameterExpr::UppercaseFirstChar { .. } => ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            pattern,
        },
        ParameterExpr::LowercasePattern { .. } => ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            pattern,
        },
        _ => ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            pattern,
        },
    })
}

fn parameter_name(parameter: &Parameter) -> String {
    match parameter {
        Parameter::Named(name)
        | Parameter::NamedWithIndex { name, .. }
        | Parameter::NamedWithAllIndices { name, .. } => name.clone(),
        Parameter::Positional(n) => n.to_string(),
        Parameter::Special(_) => "?".into(),
    }
}

/// Longest value a parameter operator (`${X%…}`, `${X/…/…}`) is applied
/// to; a longer one is only known at run time.
const MAX_TRANSFORMED_BYTES: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Prefix,
    Suffix,
}

/// Whether `text` matches the glob `pattern` (`*` and `?`; a `[` makes the
/// pattern unknown, `None`).
fn glob_match(pattern: &str, text: &str) -> Option<bool> {
    if pattern.contains(['[', '\\']) {
        return None;
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Classic two-pointer matching with one backtrack point per `*`.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || Some(&c) == t.get(ti) => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return Some(false),
            },
        }
    }
    while p.get(pi) == Some(&'*') {
        pi += 1;
    }
    Some(pi == p.len())
}

/// `${X#p}`, `${X##p}`, `${X%p}`, `${X%%p}`: `text` with the shortest or
/// longest match of `pattern` at one end removed.
fn trim_pattern(text: &str, pattern: &str, end: End, longest: bool) -> Option<String> {
    let cuts: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let mut order: Vec<usize> = match end {
        End::Prefix => cuts.clone(),
        End::Suffix => cuts.iter().rev().copied().collect(),
    };
    if longest {
        order.reverse();
    }
    for cut in order {
        let (part, kept) = match end {
            End::Prefix => (text.get(..cut)?, text.get(cut..)?),
            End::Suffix => (text.get(cut..)?, text.get(..cut)?),
        };
        if glob_match(pattern, part)? {
            return Some(kept.to_owned());
        }
    }
    Some(text.to_owned())
}

/// `${X/p/r}`, `${X//p/r}`, `${X/#p/r}`, `${X/%p/r}` with a literal `p`.
fn replace(text: &str, pattern: &str, with: &str, kind: &SubstringMatchKind) -> Option<String> {
    if pattern.contains(['*', '?', '[', '\\']) {
        return None;
    }
    if pattern.is_empty() {
        return Some(text.to_owned());
    }
    Some(match kind {
        SubstringMatchKind::FirstOccurrence => text.replacen(pattern, with, 1),
        SubstringMatchKind::Anywhere => text.replace(pattern, with),
        SubstringMatchKind::Prefix => match text.strip_prefix(pattern) {
            Some(rest) => format!("{with}{rest}"),
            None => text.to_owned(),
        },
        SubstringMatchKind::Suffix => match text.strip_suffix(pattern) {
            Some(rest) => format!("{rest}{with}"),
            None => text.to_owned(),
        },
    })
}

/// `${X:offset}` and `${X:offset:length}` (negative counts from the end).
fn substring(text: &str, offset: i64, length: Option<i64>) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let count = i64::try_from(chars.len()).ok()?;
    let start = if offset < 0 { count + offset } else { offset };
    if !(0..=count).contains(&start) {
        return Some(String::new());
    }
    let end = match length {
        None => count,
        Some(l) if l < 0 => count + l,
        Some(l) => start.saturating_add(l).min(count),
    };
    if end < start {
        return None;
    }
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    Some(chars.get(start..end)?.iter().collect())
}

/// Longest text [`join_variants`] makes; past it only the first variant is
/// kept.
const MAX_JOINED_BYTES: usize = 1 << 16;

/// The variants of one piece of text as one text, each on its own line.
fn join_variants(variants: Vec<Arg>) -> Arg {
    let total: usize = variants.iter().map(|v| v.text.len() + 1).sum();
    let mut variants = variants.into_iter();
    let first = variants.next().unwrap_or_default();
    if total > MAX_JOINED_BYTES {
        return first;
    }
    variants.fold(first, |joined, next| {
        crate::vars::concat(&crate::vars::concat(&joined, &Arg::literal("\n")), &next)
    })
}

/// A word of characters that mean nothing to bash's word expansion (no
/// quote, escape, `$`, backquote, tilde, brace, glob or blank): its one field
/// is its text.
fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./,:=@%+-".contains(&b))
}

/// brush-parser's word parser, or `None` where it fails or would panic:
/// it unwraps the number of `~N`, `~+N` and `~-N`, which overflows past 19
/// digits.
fn parse_word(raw: &str) -> Option<Vec<WordPieceWithSource>> {
    let huge_tilde = raw.match_indices('~').any(|(at, _)| {
        let rest = raw.get(at + 1..).unwrap_or_default();
        let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        digits.chars().take_while(char::is_ascii_digit).count() >= 19
    });
    if huge_tilde {
        return None;
    }
    word::parse(&spelled_for_parser(raw, true), &ParserOptions::default()).ok()
}

/// `raw` as brush-parser can read it: bash's case-toggle operators
/// (`${x~}`, `${x~~}`), which it has no grammar for, spelled as the
/// case operators of the same length (`${x^}`, `${x^^}`), so that every
/// piece keeps its place in `raw`; [`Scanner::parameter_values`] reads the
/// operator back from the source. Only the expansions of this word are
/// respelled: not text in single quotes (when `quotes` count: in a
/// here-document's body they are plain characters), nor the code of a
/// substitution, whose own words are respelled when they are expanded.
fn spelled_for_parser(raw: &str, quotes: bool) -> std::borrow::Cow<'_, str> {
    if !raw.contains("${") || !raw.contains('~') {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut bytes = raw.as_bytes().to_vec();
    let mut i = 0;
    let mut double = false;
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        i += match (b, next) {
            (b'\\', _) => 2,
            (b'\'', _) if quotes && !double => skip_quoted(&bytes, i + 1, b'\'') + 1,
            (b'$', Some(b'\'')) if quotes && !double => skip_quoted(&bytes, i + 2, b'\'') + 2,
            (b'"', _) if quotes => {
                double = !double;
                1
            }
            (b'`', _) => skip_quoted(&bytes, i + 1, b'`') + 1,
            (b'$', Some(b'(')) => skip_parens(&bytes, i + 1) + 1,
            (b'$', Some(b'{')) => {
                toggle_to_caret(&mut bytes, i + 2);
                2
            }
            _ => 1,
        };
    }
    // Only ASCII `~` became ASCII `^`: still UTF-8.
    String::from_utf8(bytes).map_or(std::borrow::Cow::Borrowed(raw), std::borrow::Cow::Owned)
}

/// How many bytes from `from` the quoted text closed by `quote` takes,
/// its closing quote included (a backslash escapes the next byte, but in
/// single quotes).
fn skip_quoted(bytes: &[u8], from: usize, quote: u8) -> usize {
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        if b == b'\\' && quote != b'\'' {
            i += 2;
            continue;
        }
        i += 1;
        if b == quote {
            break;
        }
    }
    i.saturating_sub(from)
}

/// How many bytes the parenthesised text opening at `open` takes, its
/// closing parenthesis included.
fn skip_parens(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    i.saturating_sub(open)
}

/// Longest subscript [`toggle_to_caret`] looks through.
const MAX_SUBSCRIPT_SCAN: usize = 256;

/// In `${NAME~…}` (NAME starting at `at`), `~` and `~~` become `^` and
/// `^^`.
fn toggle_to_caret(bytes: &mut [u8], at: usize) {
    let mut i = at;
    if bytes.get(i) == Some(&b'!') {
        i += 1;
    }
    let name_start = i;
    while bytes
        .get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        i += 1;
    }
    if i == name_start && bytes.get(i).is_some_and(|b| b"@*#?-$!0".contains(b)) {
        i += 1;
    }
    if i == name_start {
        return;
    }
    // A subscript is looked at within a bound, so that text of many
    // unclosed ones costs no more than its length (past it, the operator
    // stays unread: only known at run time).
    if bytes.get(i) == Some(&b'[') {
        let window = bytes.get(i..).unwrap_or_default();
        let window = window.get(..MAX_SUBSCRIPT_SCAN).unwrap_or(window);
        match window.iter().position(|b| *b == b']') {
            Some(close) => i += close + 1,
            None => return,
        }
    }
    for _ in 0..2 {
        match bytes.get_mut(i) {
            Some(b) if *b == b'~' => *b = b'^',
            _ => break,
        }
        i += 1;
    }
}

/// `${x~}` and `${x~~}`: the case of the first character, or of every
/// one, turned over.
fn toggle_case(text: &str, all: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        if i > 0 && !all {
            out.push(c);
        } else if c.is_uppercase() {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
    }
    out
}

/// The longest run of ASCII digits in `text`.
pub(super) fn longest_digit_run(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// True when `text` holds a glob: `*`, `?`, or a `[` closed by a `]`.
pub(super) fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?'])
        || text
            .find('[')
            .is_some_and(|open| text.get(open + 1..).is_some_and(|rest| rest.contains(']')))
}

fn is_home(expr: &ParameterExpr) -> bool {
    matches!(
        expr,
        ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        } if name == "HOME"
    )
}

/// The text of an escape sequence (`\x`) outside or inside double quotes.
fn unescape(escape: &str, quoted: bool) -> String {
    let mut chars = escape.chars();
    let (Some('\\'), Some(c)) = (chars.next(), chars.next()) else {
        return escape.to_owned();
    };
    match c {
        '\n' => String::new(),
        '$' | '`' | '"' | '\\' => c.to_string(),
        _ if quoted => escape.to_owned(),
        _ => c.to_string(),
    }
}

/// The words a brace expression (`{rm,-rf,/}`, `{a..c}`) expands to. Words
/// with quotes, escapes or `$` are left whole: only plain text is expanded.
fn brace_alternatives(word: &str) -> Vec<String> {
    let plain = !word.contains(['\'', '"', '\\', '$', '`']);
    let opens = word.matches('{').count();
    // brush-parser unwraps the numbers of `{1..N}`, which overflow i64.
    if !plain
        || opens == 0
        || opens > MAX_BRACES
        || opens != word.matches('}').count()
        || longest_digit_run(word) >= 18
    {
        return vec![word.to_owned()];
    }
    match word::parse_brace_expansions(word, &ParserOptions::default()) {
        Ok(Some(pieces)) => {
            let mut out = vec![String::new()];
            for piece in &pieces {
                out = product(&out, &alternatives(piece));
            }
            out.truncate(MAX_BRACE_WORDS);
            out
        }
        Ok(None) | Err(_) => vec![word.to_owned()],
    }
}

fn alternatives(piece: &BraceExpressionOrText) -> Vec<String> {
    match piece {
        BraceExpressionOrText::Text(text) => vec![text.clone()],
        BraceExpressionOrText::Expr(members) => {
            let mut out = Vec::new();
            for member in members {
                match member {
                    BraceExpressionMember::NumberSequence {
                        start,
                        end,
                        increment,
                    } => {
                        let step = usize::try_from(increment.unsigned_abs().max(1)).unwrap_or(1);
                        let (lo, hi) = (*start.min(end), *start.max(end));
                        let mut n = lo;
                        while n <= hi && out.len() < MAX_BRACE_WORDS {
                            out.push(n.to_string());
                            n = n.saturating_add(i64::try_from(step).unwrap_or(1));
                            if n == i64::MAX {
                                break;
                            }
                        }
                    }
                    BraceExpressionMember::CharSequence {
                        start,
                        end,
                        increment: _,
                    } => {
                        let (lo, hi) = ((*start).min(*end), (*start).max(*end));
                        out.extend((lo..=hi).take(MAX_BRACE_WORDS).map(|c| c.to_string()));
                    }
                    BraceExpressionMember::Child(children) => {
                        let mut words = vec![String::new()];
                        for child in children {
                            words = product(&words, &alternatives(child));
                        }
                        out.extend(words);
                    }
                }
                out.truncate(MAX_BRACE_WORDS);
            }
            out
        }
    }
}

fn product(heads: &[String], tails: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for head in heads {
        for tail in tails {
            if out.len() >= MAX_BRACE_WORDS {
                return out;
            }
            out.push(format!("{head}{tail}"));
        }
    }
    out
}

/// Decodes the body of `$'…'`; `None` for an escape it does not know.
pub(super) fn ansi_c(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escape = chars.next()?;
        let simple = match escape {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            continue;
        }
        let (radix, max) = match escape {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            'c' => {
                let ctl = chars.next()?;
                out.push(char::from_u32(u32::from(ctl) & 0x1f)?);
                continue;
            }
            _ => return None,
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(escape);
        }
        while digits.len() < max + usize::from(radix == 8) {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        let code = u32::from_str_radix(&digits, radix).ok()?;
        out.push(char::from_u32(code)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::Context;

    fn fields(word: &str) -> Vec<(String, bool)> {
        let ctx = Context::default();
        let mut scanner = Scanner::new(&ctx);
        scanner
            .expand(word)
            .into_iter()
            .map(|a| (a.text.into_string(), a.exact))
            .collect()
    }

    fn one(word: &str) -> String {
        let f = fields(word);
        assert_eq!(f.len(), 1, "{word}: {f:?}");
        f.into_iter().next().map(|(t, _)| t).unwrap_or_default()
    }

    /// The shortcut for plain words gives what the word parser gives.
    #[test]
    fn plain_words_expand_as_the_parser_would() {
        let ctx = Context::default();
        for word in [
            "a",
            "rm",
            "-rf",
            "/",
            "a=b",
            "x.y/z,w:1@2%3+4",
            "--force-with-lease=x",
            "_",
        ] {
            assert!(is_plain(word), "{word}");
            let mut scanner = Scanner::new(&ctx);
            let mut builder = Builder::new();
            let pieces = parse_word(word).unwrap_or_default();
            scanner.pieces(word, &pieces, false, true, &mut builder);
            assert_eq!(vec![scanner.expand(word)], builder.finish(), "{word}");
        }
        for word in [
            "", "~", "a*", "[a]", "{a,b}", "$x", "'a'", "a\\b", "a b", "a`b`", "!x", "#x",
        ] {
            assert!(!is_plain(word), "{word}");
        }
    }

    #[test]
    fn quotes_and_escapes_come_off() {
        assert_eq!(one(r#""r""m""#), "rm");
        assert_eq!(one("r''m"), "rm");
        assert_eq!(one(r"\rm"), "rm");
        assert_eq!(one(r#""a\$b\x""#), r"a$b\x");
        assert_eq!(one(r"$'\x72\155'"), "rm");
        assert_eq!(one("~/.ssh"), "~/.ssh");
        assert_eq!(one("$HOME/.ssh"), "~/.ssh");
        assert_eq!(fields("$X"), [("$X".to_owned(), false)]);
    }

    #[test]
    fn literal_substitutions_are_replaced_and_split() {
        assert_eq!(fields("$(echo rm)"), [("rm".to_owned(), true)]);
        assert_eq!(fields("`printf rm`").len(), 1);
        assert_eq!(
            fields("$(echo rm -rf)"),
            [("rm".to_owned(), true), ("-rf".to_owned(), true)]
        );
        assert_eq!(fields("\"$(echo a b)\""), [("a b".to_owned(), true)]);
        assert_eq!(fields("$(date)"), [("$(date)".to_owned(), false)]);
    }

    #[test]
    fn braces_expand() {
        assert_eq!(
            fields("{rm,-rf,/}"),
            [
                ("rm".to_owned(), true),
                ("-rf".to_owned(), true),
                ("/".to_owned(), true)
            ]
        );
        assert_eq!(fields("a{1..3}").len(), 3);
        assert_eq!(fields("{a..z}{a..z}").len(), MAX_BRACE_WORDS);
        assert_eq!(fields("'{a,b}'").len(), 1);
        assert_eq!(fields("{1..99999999999999999999999}").len(), 1);
        assert_eq!(fields("{-{{{{{{{{{{{{{{{{{{{{").len(), 1);
        assert_eq!(
            fields("~+99999999999999999999999"),
            [("~+99999999999999999999999".to_owned(), false)]
        );
    }

    #[test]
    fn parameter_operators_on_known_values() {
        assert_eq!(glob_match("a*c", "abbc"), Some(true));
        assert_eq!(glob_match("a?c", "abc"), Some(true));
        assert_eq!(glob_match("a*d", "abc"), Some(false));
        assert_eq!(glob_match("[a]", "a"), None);
        assert_eq!(
            trim_pattern("a/b/c", "*/", End::Prefix, false).as_deref(),
            Some("b/c")
        );
        assert_eq!(
            trim_pattern("a/b/c", "*/", End::Prefix, true).as_deref(),
            Some("c")
        );
        assert_eq!(
            trim_pattern("a.b.c", ".*", End::Suffix, false).as_deref(),
            Some("a.b")
        );
        assert_eq!(
            trim_pattern("a.b.c", ".*", End::Suffix, true).as_deref(),
            Some("a")
        );
        let any = SubstringMatchKind::Anywhere;
        assert_eq!(replace("-xrxf", "x", "", &any).as_deref(), Some("-rf"));
        assert_eq!(replace("a", "*", "", &any), None);
        assert_eq!(substring("xxrm", 2, None).as_deref(), Some("rm"));
        assert_eq!(substring("rmxx", 0, Some(2)).as_deref(), Some("rm"));
        assert_eq!(substring("xrm", -2, None).as_deref(), Some("rm"));
        assert_eq!(substring("abc", 9, None).as_deref(), Some(""));
    }

    /// bash's case toggles, which brush-parser has no grammar for, and a
    /// `${` it cannot read, which is no literal text.
    #[test]
    fn case_toggles_and_unread_expansions() {
        assert_eq!(toggle_case("rM -Rf", true), "Rm -rF");
        assert_eq!(toggle_case("Rm", false), "rm");
        assert_eq!(
            spelled_for_parser("${x~~}a~${y[1]~}${!z~~}", true),
            "${x^^}a~${y[1]^}${!z^^}"
        );
        assert_eq!(spelled_for_parser("~/${HOME}/~", true), "~/${HOME}/~");
        // Quoted text and the code of a substitution keep their spelling.
        let kept = r#"'${x~}'$'${x~}'"$(echo ${x~})"`echo ${x~}`"\${x~}""#;
        assert_eq!(spelled_for_parser(kept, true), kept);
        assert_eq!(spelled_for_parser(r#""${x~}""#, true), r#""${x^}""#);
        assert_eq!(spelled_for_parser("'${x~}'", false), "'${x^}'");

        let ctx = Context::default();
        let mut scanner = Scanner::new(&ctx);
        scanner
            .vars
            .assign("x", vec![Value::Scalar(Arg::literal("RM -RF /"))], false);
        scanner
            .vars
            .assign("y", vec![Value::Scalar(Arg::literal("Rm"))], false);
        let texts = |scanner: &mut Scanner<'_>, word: &str| -> Vec<(String, bool)> {
            scanner
                .expand(word)
                .into_iter()
                .map(|a| (a.text.into_string(), a.exact))
                .collect()
        };
        let known = |words: &[&str]| -> Vec<(String, bool)> {
            words.iter().map(|w| ((*w).to_owned(), true)).collect()
        };
        assert_eq!(texts(&mut scanner, "${x~~}"), known(&["rm", "-rf", "/"]));
        assert_eq!(texts(&mut scanner, "\"${y~}\""), known(&["rm"]));
        assert_eq!(texts(&mut scanner, "${y~~}"), known(&["rM"]));
        assert_eq!(texts(&mut scanner, "${y^}"), known(&["Rm"]));
        assert_eq!(
            texts(&mut scanner, "${y~~[a-z]}"),
            [("${y~~[a-z]}".to_owned(), false)]
        );
        assert_eq!(fields("${x%%}}"), fields("${x%%}}"));
        assert!(fields("${x|y}").iter().all(|(_, exact)| !exact));
    }

    #[test]
    fn ansi_c_escapes() {
        assert_eq!(ansi_c(r"\x72\x6d").as_deref(), Some("rm"));
        assert_eq!(ansi_c(r"\u0072m").as_deref(), Some("rm"));
        assert_eq!(ansi_c(r"a\tb\n").as_deref(), Some("a\tb\n"));
        assert_eq!(ansi_c(r"\q"), None);
        assert_eq!(ansi_c("\\"), None);
    }
}
