//! The one YAML reader of the crate: workflow files, custom profiles, plan
//! manifests and Session Manifests, and the front matter of plans, briefs
//! and the handover prompt all go through here.
//!
//! - [`options`] is the parser's configuration, set once: serde-saphyr's
//!   default budget and alias limits (no alias bombs, bounded nesting and
//!   size) and YAML 1.2 booleans, so `yes`, `no`, `on` and `off` are strings
//!   everywhere, as Executant's js-yaml 4 reads them.
//! - [`from_str`] deserializes into any type; [`parse`] builds a [`Node`]
//!   tree whose every node and key knows its line (and its byte span), for
//!   callers that point at a key or keep the scalar as written.
//! - [`YamlError`] is the one error: the parser's sentence and the line and
//!   column it points at (a tab in the indentation named as such, with its
//!   line). Each area turns it into its own problem code.
//! - [`front_matter`] finds the `---` … `---` block at the top of a Markdown
//!   file and reads it with the same parser.
//!
//! Lines are 1-based lines of the file: YAML embedded in a larger file (a
//! front matter, a fenced manifest) is read with the line it starts on, so
//! nothing downstream adds offsets by hand.

mod error;
pub mod front_matter;
mod tree;

pub use error::YamlError;
pub use tree::Key;
pub use tree::{Node, Value};

use serde::de::DeserializeOwned;
use serde_saphyr::Spanned;

/// The parser's options, the same for every reader.
pub fn options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    // The default budget and alias limits stay on (written out so that a
    // change of the library's defaults shows here): they are what keeps an
    // alias bomb or a deeply nested document from exhausting memory.
    options.budget = Some(serde_saphyr::Budget::default());
    options.alias_limits = serde_saphyr::options::AliasLimits::default();
    // YAML 1.2 booleans only, as Executant's js-yaml 4 reads them: with the
    // parser's default (YAML 1.1) `forEach: [se, no, dk]` gave the item
    // "false", `vars: {answer: yes}` the value "true", and `message: on` was
    // refused as a boolean.
    options.strict_booleans = true;
    options
}

/// Deserializes a whole YAML document.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    from_str_at(text, 1)
}

/// [`from_str`] for YAML that starts on line `first_line` of its file:
/// error lines are lines of the file.
pub fn from_str_at<T: DeserializeOwned>(text: &str, first_line: u32) -> Result<T, YamlError> {
    serde_saphyr::from_str_with_options::<T>(text, options()).map_err(|e| {
        YamlError::from_parser(&e, first_line).blame_tab(error::numbered(text, first_line))
    })
}

/// Parses one YAML document into a tree with lines.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    parse_at(text, 1)
}

/// [`parse`] for YAML that starts on line `first_line` of its file: every
/// node's line, and an error's, is a line of the file.
pub fn parse_at(text: &str, first_line: u32) -> Result<Node, YamlError> {
    match serde_saphyr::from_str_with_options::<Spanned<Value>>(text, options()) {
        Ok(spanned) => {
            let mut node = Node::from_spanned(spanned);
            if first_line != 1 {
                node.shift(first_line.saturating_sub(1));
            }
            Ok(node)
        }
        Err(e) => {
            Err(YamlError::from_parser(&e, first_line).blame_tab(error::numbered(text, first_line)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_yaml_1_2_everywhere() {
        let v: serde_json::Value = from_str("a: yes\nb: off\nc: true\nd: False\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": "yes", "b": "off", "c": true, "d": false})
        );
    }

    #[test]
    fn embedded_yaml_has_file_lines() {
        let err = from_str_at::<serde_json::Value>("a: 1\nb: [\n", 10).unwrap_err();
        assert!(err.line.is_some_and(|l| l >= 11), "{err:?}");
        let node = parse_at("a: 1\nb: 2\n", 10).unwrap();
        let Value::Map(entries) = &node.value else {
            panic!("{node:?}")
        };
        assert_eq!(entries[1].0.line, 11);
        assert_eq!(entries[1].1.line, 11);
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        assert!(from_str::<serde_json::Value>(&bomb).is_err());
        assert!(parse(&bomb).is_err());
    }
}
