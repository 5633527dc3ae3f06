//! The workflow's view of a YAML document: the crate's tree with lines
//! ([`voyage_core::yaml`]), read with the crate's one set of options (YAML 1.2
//! booleans, as Executant's js-yaml 4 reads a workflow).
//!
//! The loader does not deserialize straight into typed structs: it needs the
//! line of each step and field for its messages, the keys it does not know
//! (to warn about them), and the scalar a user actually wrote (to accept
//! `port: 8080` where Executant's schema library refused a number). So
//! [`parse`] builds the tree and [`super::load`] walks it.

pub(super) use voyage_core::yaml::{Key, Node, Value, YamlError};

/// Parses one workflow document.
pub(super) fn parse(source: &str) -> Result<Node, YamlError> {
    voyage_core::yaml::parse(source)
}
