//! A YAML document as a plain tree whose every node knows its line.
//!
//! Readers that point at a key or field in their messages (the workflow
//! loader, plan manifests, briefs) do not deserialize straight into typed
//! structs: they need the line of each key and value, the keys they do not
//! know (to warn about them), and the scalar a user actually wrote (to
//! accept `port: 8080` where Executant's schema library refused a number, or
//! to read `plan_version: 1.10` as written). The lines come from the
//! parser's own spans, never from scanning the text for `key:`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

/// A node and the line it starts on (1-based; 0 when the parser gave none).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub line: u32,
    /// The byte range of the node in the parsed text, when the parser gave
    /// one (see [`Node::source`]).
    pub span: Option<(usize, usize)>,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Keys in document order; a key that is not a string is kept as its
    /// text.
    Map(Vec<(Key, Node)>),
}

/// A mapping key and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub line: u32,
    pub text: String,
}

impl Node {
    pub(super) fn from_spanned(spanned: Spanned<Value>) -> Self {
        Node {
            line: line_of(spanned.referenced.line()),
            span: span_of(&spanned.referenced),
            value: spanned.value,
        }
    }

    /// Adds `lines` to the line of this node and of everything in it (for
    /// YAML embedded further down a file).
    pub(super) fn shift(&mut self, lines: u32) {
        if self.line > 0 {
            self.line = self.line.saturating_add(lines);
        }
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.shift(lines)),
            Value::Map(entries) => {
                for (key, node) in entries {
                    if key.line > 0 {
                        key.line = key.line.saturating_add(lines);
                    }
                    node.shift(lines);
                }
            }
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {}
        }
    }

    /// The entry of mapping key `key`, when this is a mapping that has it.
    pub fn entry(&self, key: &str) -> Option<(&Key, &Node)> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.text == key)
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// The value of mapping key `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The text this node was parsed from, when `text` is the document it
    /// came from and the parser gave a span: a scalar as written, quotes
    /// included (`1.10` stays `1.10`).
    pub fn source<'a>(&self, text: &'a str) -> Option<&'a str> {
        let (start, len) = self.span?;
        text.get(start..start.checked_add(len)?)
    }
}

fn line_of(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

fn span_of(location: &Location) -> Option<(usize, usize)> {
    let span = location.span();
    let start = usize::try_from(span.byte_offset()?).ok()?;
    let len = usize::try_from(span.byte_len()?).ok()?;
    Some((start, len))
}

impl Value {
    /// What a person calls this kind of value, for "expected …, found …".
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "nothing",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "a number",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The text of a scalar the way YAML would print it back; `None` for
    /// null, lists and mappings.
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Null | Value::Seq(_) | Value::Map(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Spanned::<Value>::deserialize(deserializer).map(Node::from_spanned)
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let text = match &spanned.value {
            Value::Null => String::new(),
            other => other
                .scalar_text()
                .unwrap_or_else(|| "<complex key>".into()),
        };
        Ok(Key {
            line: line_of(spanned.referenced.line()),
            text,
        })
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i128::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Key>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    #[test]
    fn every_node_knows_its_line() {
        let doc = parse("goal: g\nsteps:\n  - name: a\n    command: echo hi\n").unwrap();
        let Value::Map(top) = &doc.value else {
            panic!("not a map: {doc:?}")
        };
        let (key, steps) = &top[1];
        assert_eq!((key.text.as_str(), key.line), ("steps", 2));
        let Value::Seq(items) = &steps.value else {
            panic!("not a list")
        };
        assert_eq!(items[0].line, 3);
        let Value::Map(step) = &items[0].value else {
            panic!("not a map")
        };
        assert_eq!(step[1].0.text, "command");
        assert_eq!(step[1].1.line, 4);
        assert_eq!(step[1].1.value, Value::Str("echo hi".into()));
    }

    #[test]
    fn scalars_keep_their_kind() {
        let doc = parse("a: 8080\nb: true\nc:\nd: 1.5\ne: '8080'\nf: no\ng: on\n").unwrap();
        let Value::Map(top) = doc.value else { panic!() };
        let kinds: Vec<_> = top.iter().map(|(_, n)| n.value.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                Value::Int(8080),
                Value::Bool(true),
                Value::Null,
                Value::Float(1.5),
                Value::Str("8080".into()),
                // YAML 1.1 spellings are text (YAML 1.2, as Executant).
                Value::Str("no".into()),
                Value::Str("on".into())
            ]
        );
    }

    #[test]
    fn syntax_errors_carry_a_line() {
        let err = parse("goal: g\nsteps: [\n  - a\n").unwrap_err();
        assert!(err.line.is_some(), "{err:?}");
        assert!(!err.message.is_empty());
    }
}
