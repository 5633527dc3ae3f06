//! A fast reader for the small YAML that manifests are written in, with the
//! full parser (serde-saphyr) behind it.
//!
//! A 10,000-step plan has 10,000 manifests, and a general YAML parser costs
//! tens of microseconds to set up per document. Nearly every manifest is a
//! mapping of plain keys to flow lists (`[a, b]`), block lists of scalars or
//! `{path, pattern}` mappings, quoted or plain strings and integers. This
//! reader handles exactly that and answers `None` for anything else (anchors,
//! tags, multi-line scalars, comments, escapes it does not know, scalars
//! whose type is unclear), so the caller falls back to the full parser:
//! it is never a second YAML dialect. A property test checks that whenever
//! it answers, it answers what serde-saphyr does.
//!
//! It answers with a [`Node`] that borrows its strings from the text, not a
//! `serde_json::Value`: building a `Value` costs an allocation per key and
//! string and a hashed map per mapping, which was most of the time spent on
//! manifests. The full parser's `Value` converts into a `Node` too, so the
//! manifest checks read one type either way.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// A YAML value: strings borrowed from the text where they can be.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Str(Cow<'a, str>),
    /// A decimal integer of 0 or more.
    Int(u64),
    List(Vec<Node<'a>>),
    /// Keys are unique and in document order (as in a `Value` with
    /// `preserve_order`).
    Map(Vec<(Cow<'a, str>, Node<'a>)>),
    /// Any other scalar the full parser read: null, booleans, negative or
    /// fractional numbers.
    Other(Value),
}

impl<'a> Node<'a> {
    /// The value of `key` when this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Self::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Int(n) => Some(*n),
            Self::Other(v) => v.as_u64(),
            _ => None,
        }
    }

    /// The full parser's answer as a node.
    pub fn from_value(value: Value) -> Node<'static> {
        match value {
            Value::String(s) => Node::Str(Cow::Owned(s)),
            Value::Number(n) => match n.as_u64() {
                Some(n) => Node::Int(n),
                None => Node::Other(Value::Number(n)),
            },
            Value::Array(items) => Node::List(items.into_iter().map(Node::from_value).collect()),
            Value::Object(map) => Node::Map(
                map.into_iter()
                    .map(|(k, v)| (Cow::Owned(k), Node::from_value(v)))
                    .collect(),
            ),
            other => Node::Other(other),
        }
    }

    /// The node as the full parser would have answered it.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Str(s) => Value::String(s.to_string()),
            Self::Int(n) => Value::Number(Number::from(*n)),
            Self::List(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Self::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<_, _>>(),
            ),
            Self::Other(v) => v.clone(),
        }
    }
}

/// Mappings larger than this are left to the full parser: the duplicate-key
/// check here is a linear scan, which is the fastest way for a manifest's
/// six keys but not for hundreds.
const MAX_KEYS: usize = 32;

/// The document, or `None` when it is outside the subset.
pub fn parse(text: &str) -> Option<Node<'_>> {
    // Characters that start YAML features this reader does not know, and
    // the characters YAML does not allow unquoted. Manifests are nearly
    // always ASCII, which one pass over the bytes settles.
    let outside = |b: u8| {
        matches!(
            b,
            b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b'\t' | b'\r'
        )
    };
    let allowed = if text.is_ascii() {
        text.bytes()
            .all(|b| (b == b'\n' || (b' '..=b'~').contains(&b)) && !outside(b))
    } else {
        !text.bytes().any(outside) && text.chars().all(plain_printable)
    };
    if !allowed {
        return None;
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        // An empty document is null, not an empty mapping.
        return None;
    }
    let mut map = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if line.starts_with(' ') || line.starts_with('-') {
            return None;
        }
        let (key, rest) = key_value(line)?;
        i += 1;
        let value = if rest.is_empty() {
            let start = i;
            while lines.get(i).is_some_and(|l| l.starts_with(' ')) {
                i += 1;
            }
            block_list(lines.get(start..i)?)?
        } else {
            inline(rest)?
        };
        insert(&mut map, key, value)?;
    }
    Some(Node::Map(map))
}

/// Adds a key to a mapping; `None` for a duplicate key (YAML forbids it) or
/// a mapping too large for this reader.
fn insert<'a>(
    map: &mut Vec<(Cow<'a, str>, Node<'a>)>,
    key: &'a str,
    value: Node<'a>,
) -> Option<()> {
    if map.len() >= MAX_KEYS || map.iter().any(|(k, _)| k == key) {
        return None;
    }
    map.push((Cow::Borrowed(key), value));
    Some(())
}

/// Characters YAML allows anywhere without question: no control characters,
/// no byte-order mark, no Unicode line separators, no non-characters.
fn plain_printable(c: char) -> bool {
    c == '\n'
        || matches!(c, ' '..='~')
        || (c >= '\u{a0}'
            && !matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            ))
}

/// `key: rest` with a plain key.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    let key = key.trim();
    let simple = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with('-');
    if !simple || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim()))
}

/// `- item` lines, all at one indentation; an item is a scalar, a flow
/// value, or a block mapping (`- path: x` then `  pattern: y`).
fn block_list<'a>(lines: &[&'a str]) -> Option<Node<'a>> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let first = *lines.first()?;
    let base = indent(first);
    let mut items = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if indent(line) != base {
            return None;
        }
        let item = line.trim_start().strip_prefix("- ")?.trim();
        i += 1;
        if item.starts_with(['[', '{', '"', '\'']) || !item.contains(": ") {
            items.push(inline(item)?);
            continue;
        }
        // A block mapping: this line and the deeper ones after it.
        let mut map = Vec::new();
        let (k, v) = key_value(item)?;
        insert(&mut map, k, scalar_or_flow(v)?)?;
        while let Some(more) = lines.get(i).filter(|l| indent(l) > base) {
            if indent(more) != base + 2 {
                return None;
            }
            let (k, v) = key_value(more.trim_start())?;
            insert(&mut map, k, scalar_or_flow(v)?)?;
            i += 1;
        }
        items.push(Node::Map(map));
    }
    Some(Node::List(items))
}

fn scalar_or_flow(text: &str) -> Option<Node<'_>> {
    if text.is_empty() { None } else { inline(text) }
}

/// A value on one line: `[…]`, `{…}`, a quoted string or a plain scalar.
fn inline(text: &str) -> Option<Node<'_>> {
    let text = text.trim();
    if let Some(body) = text.strip_prefix('[') {
        let body = body.strip_suffix(']')?;
        let mut items = Vec::new();
        split_flow(body, |part| {
            items.push(flow_item(part)?);
            Some(())
        })?;
        return Some(Node::List(items));
    }
    if let Some(body) = text.strip_prefix('{') {
        let body = body.strip_suffix('}')?;
        let mut map = Vec::new();
        split_flow(body, |part| {
            let (k, v) = part.split_once(':')?;
            let k = k.trim();
            if k.is_empty() || !k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                return None;
            }
            if !v.starts_with(' ') {
                return None;
            }
            insert(&mut map, k, scalar(v.trim(), true)?)
        })?;
        return Some(Node::Map(map));
    }
    scalar(text, false)
}

/// An item of a flow list: a scalar or a flow mapping (no nested lists).
fn flow_item(text: &str) -> Option<Node<'_>> {
    let text = text.trim();
    if text.starts_with('{') {
        inline(text)
    } else {
        scalar(text, true)
    }
}

/// Hands each item of a flow collection's body (split at top-level commas)
/// to `item`; `None` for nested lists, unbalanced quotes, an empty item
/// before a comma, or when `item` says `None`. An empty body has no items,
/// and a trailing comma is allowed. Every delimiter is ASCII, so the body
/// is walked byte by byte.
fn split_flow<'a>(body: &'a str, mut item: impl FnMut(&'a str) -> Option<()>) -> Option<()> {
    let bytes = body.as_bytes();
    let (mut start, mut depth, mut quote) = (0, 0u32, None::<u8>);
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        match (quote, c) {
            // An escape: the next character cannot close the string.
            (Some(b'"'), b'\\') => i += 1,
            (Some(q), c) if c == q => {
                // '' inside single quotes is an escaped quote.
                if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'{') => depth += 1,
            (None, b'}') => depth = depth.checked_sub(1)?,
            (None, b'[' | b']') => return None,
            (None, b',') if depth == 0 => {
                let part = body.get(start..i)?;
                if part.trim().is_empty() {
                    return None;
                }
                item(part)?;
                start = i + 1;
            }
            (None, _) => {}
        }
        i += 1;
    }
    if quote.is_some() || depth != 0 {
        return None;
    }
    let last = body.get(start..)?;
    if !last.trim().is_empty() {
        item(last)?;
    }
    Some(())
}

/// A scalar: double- or single-quoted, or plain. Plain scalars that YAML
/// would read as something other than a string or a decimal integer (floats,
/// booleans, null, octal, `yes`) are left to the full parser.
fn scalar(text: &str, in_flow: bool) -> Option<Node<'_>> {
    if let Some(body) = text.strip_prefix('"') {
        return double_quoted(body.strip_suffix('"')?).map(Node::Str);
    }
    if let Some(body) = text.strip_prefix('\'') {
        let body = body.strip_suffix('\'')?;
        if !body.contains('\'') {
            return Some(Node::Str(Cow::Borrowed(body)));
        }
        if body.replace("''", "").contains('\'') {
            return None;
        }
        return Some(Node::Str(Cow::Owned(body.replace("''", "'"))));
    }
    if text.is_empty()
        || colon_space(text)
        || text.ends_with(':')
        || text.starts_with(['-', '?', ':', ',', '[', ']', '{', '}', '"', '\''])
        || (in_flow && text.contains([',', '[', ']', '{', '}']))
    {
        return None;
    }
    if text.chars().all(|c| c.is_ascii_digit()) {
        if text.len() > 1 && text.starts_with('0') {
            return None;
        }
        return text.parse::<u64>().ok().map(Node::Int);
    }
    const WORDS: [&str; 10] = [
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
    ];
    let special = WORDS.iter().any(|w| text.eq_ignore_ascii_case(w))
        || text.starts_with(['+', '.'])
        || text.chars().next().is_some_and(|c| c.is_ascii_digit())
            && text
                .chars()
                .all(|c| c.is_ascii_digit() || "._eE+-xob".contains(c));
    if special {
        return None;
    }
    Some(Node::Str(Cow::Borrowed(text)))
}

/// Whether `text` holds `: ` (a mapping indicator in a plain scalar); a
/// byte search, cheaper on short text than a substring searcher.
fn colon_space(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b':', bytes).any(|i| bytes.get(i + 1) == Some(&b' '))
}

/// The escapes of double-quoted YAML that plan authors write; any other
/// escape sends the document to the full parser.
fn double_quoted(body: &str) -> Option<Cow<'_, str>> {
    if !body.contains(['\\', '"']) {
        return Some(Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '/' => out.push('/'),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                _ => return None,
            },
            '"' => return None,
            c => out.push(c),
        }
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn full(text: &str) -> Option<Value> {
        serde_saphyr::from_str::<Value>(text).ok()
    }

    #[test]
    fn the_manifest_shapes_plans_use() {
        let text = "expected_paths:\n  - src/format.rs\n  - src/lib.rs\nmin_file_count: 2\ncommit_message_pattern: \"^feat\\\\(format\\\\): add output format type$\"\nbash_syntax_check: []\nforbidden_paths: [Cargo.lock]\nmust_contain:\n  - path: src/lib.rs\n    pattern: \"pub mod format\"\n  - {path: src/main.rs, pattern: \"--json\"}\n";
        let fast = parse(text).unwrap().to_value();
        assert_eq!(Some(fast.clone()), full(text));
        assert_eq!(
            fast["commit_message_pattern"],
            "^feat\\(format\\): add output format type$"
        );
    }

    #[test]
    fn outside_the_subset_is_left_to_the_full_parser() {
        for text in [
            "a: [x\n",
            "a: 1.5\n",
            "a: yes\n",
            "a: &x 1\nb: *x\n",
            "a: |\n  text\n",
            "a: \"\\u00e9\"\n",
            "a: [[1]]\n",
            "a: x # note\n",
            "a: 1\na: 2\n",
        ] {
            assert!(parse(text).is_none(), "{text:?}");
        }
    }

    fn scalar_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z/._-]{1,12}",
            "[0-9]{1,4}",
            "\"[a-z ^$\\\\()/:.-]{0,12}\"",
            "'[a-z ^$()/:.-]{0,12}'",
            Just("null".to_owned()),
            Just("1.5".to_owned()),
            Just("~".to_owned()),
            Just("\"a\\\\(b\"".to_owned()),
            Just("x: y".to_owned()),
        ]
    }

    fn document() -> impl Strategy<Value = String> {
        let value = prop_oneof![
            scalar_text(),
            proptest::collection::vec(scalar_text(), 0..4)
                .prop_map(|v| format!("[{}]", v.join(", "))),
            proptest::collection::vec(scalar_text(), 1..4)
                .prop_map(|v| v.iter().map(|s| format!("\n  - {s}")).collect::<String>()),
            (scalar_text(), scalar_text())
                .prop_map(|(a, b)| format!("\n  - {{path: {a}, pattern: {b}}}")),
            (scalar_text(), scalar_text())
                .prop_map(|(a, b)| format!("\n  - path: {a}\n    pattern: {b}")),
        ];
        proptest::collection::vec(("[a-z_]{1,8}", value), 1..6)
            .prop_map(|kv| kv.iter().map(|(k, v)| format!("{k}: {v}\n")).collect())
    }

    proptest! {
        #[test]
        fn whenever_it_answers_it_agrees_with_the_full_parser(text in document()) {
            if let Some(fast) = parse(&text) {
                prop_assert_eq!(Some(fast.to_value()), full(&text), "{}", text);
            }
        }
    }
}
