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

use serde_json::{Map, Number, Value};

/// The document as JSON, or `None` when it is outside the subset.
pub fn parse(text: &str) -> Option<Value> {
    if text.contains(['#', '&', '*', '!', '|', '>', '%', '@', '`', '\t', '\r'])
        || !text.chars().all(plain_printable)
    {
        return None;
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        // An empty document is null, not an empty mapping.
        return None;
    }
    let mut map = Map::new();
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
        if map.insert(key.to_owned(), value).is_some() {
            return None;
        }
    }
    Some(Value::Object(map))
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
fn block_list(lines: &[&str]) -> Option<Value> {
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
        let mut map = Map::new();
        let (k, v) = key_value(item)?;
        map.insert(k.to_owned(), scalar_or_flow(v)?);
        while let Some(more) = lines.get(i).filter(|l| indent(l) > base) {
            if indent(more) != base + 2 {
                return None;
            }
            let (k, v) = key_value(more.trim_start())?;
            if map.insert(k.to_owned(), scalar_or_flow(v)?).is_some() {
                return None;
            }
            i += 1;
        }
        items.push(Value::Object(map));
    }
    Some(Value::Array(items))
}

fn scalar_or_flow(text: &str) -> Option<Value> {
    if text.is_empty() { None } else { inline(text) }
}

/// A value on one line: `[…]`, `{…}`, a quoted string or a plain scalar.
fn inline(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Some(body) = text.strip_prefix('[') {
        let body = body.strip_suffix(']')?;
        let parts = split_flow(body)?;
        return parts
            .iter()
            .map(|p| flow_item(p))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    if let Some(body) = text.strip_prefix('{') {
        let body = body.strip_suffix('}')?;
        let mut map = Map::new();
        for part in split_flow(body)? {
            let (k, v) = part.split_once(':')?;
            let k = k.trim();
            if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            if !v.starts_with(' ') {
                return None;
            }
            if map.insert(k.to_owned(), scalar(v.trim(), true)?).is_some() {
                return None;
            }
        }
        return Some(Value::Object(map));
    }
    scalar(text, false)
}

/// An item of a flow list: a scalar or a flow mapping (no nested lists).
fn flow_item(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.starts_with('{') {
        inline(text)
    } else {
        scalar(text, true)
    }
}

/// Splits a flow collection's body at top-level commas; `None` for nested
/// lists or unbalanced quotes. An empty body is an empty list.
fn split_flow(body: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let (mut start, mut depth, mut quote) = (0, 0u32, None::<char>);
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => {
                // '' inside single quotes is an escaped quote.
                if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth = depth.checked_sub(1)?,
            (None, '[' | ']') => return None,
            (None, ',') if depth == 0 => {
                parts.push(body.get(start..i)?);
                start = i + 1;
            }
            (None, _) => {}
        }
    }
    if quote.is_some() || depth != 0 {
        return None;
    }
    let last = body.get(start..)?;
    if !last.trim().is_empty() {
        parts.push(last);
    } else if !parts.is_empty() {
        // A trailing comma is allowed; an empty item in the middle is not.
    }
    if parts.iter().any(|p| p.trim().is_empty()) {
        return None;
    }
    Some(parts)
}

/// A scalar: double- or single-quoted, or plain. Plain scalars that YAML
/// would read as something other than a string or a decimal integer (floats,
/// booleans, null, octal, `yes`) are left to the full parser.
fn scalar(text: &str, in_flow: bool) -> Option<Value> {
    if let Some(body) = text.strip_prefix('"') {
        return double_quoted(body.strip_suffix('"')?).map(Value::String);
    }
    if let Some(body) = text.strip_prefix('\'') {
        let body = body.strip_suffix('\'')?;
        if body.replace("''", "").contains('\'') {
            return None;
        }
        return Some(Value::String(body.replace("''", "'")));
    }
    if text.is_empty()
        || text.contains(": ")
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
        return text
            .parse::<u64>()
            .ok()
            .map(|n| Value::Number(Number::from(n)));
    }
    let lower = text.to_ascii_lowercase();
    let special = matches!(
        lower.as_str(),
        "null" | "~" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
    ) || lower.starts_with('+')
        || lower.starts_with('.')
        || text.chars().next().is_some_and(|c| c.is_ascii_digit())
            && text
                .chars()
                .all(|c| c.is_ascii_digit() || "._eE+-xob".contains(c));
    if special {
        return None;
    }
    Some(Value::String(text.to_owned()))
}

/// The escapes of double-quoted YAML that plan authors write; any other
/// escape sends the document to the full parser.
fn double_quoted(body: &str) -> Option<String> {
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
    Some(out)
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
        let fast = parse(text).unwrap();
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
            assert_eq!(parse(text), None, "{text:?}");
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
                prop_assert_eq!(Some(fast), full(&text), "{}", text);
            }
        }
    }
}
