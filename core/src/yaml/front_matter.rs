//! YAML front matter at the top of a Markdown file: a first line `---`, the
//! YAML, and a closing line `---` (or `...`). Plans, briefs and the
//! `NEXT-SESSION-PROMPT.local.md` handover carry one; this is the only place
//! that finds it, and the YAML is read with the crate's one parser
//! ([`super::options`]), with lines of the whole file.

use serde::de::DeserializeOwned;
use thiserror::Error;

use super::{Node, YamlError};

/// The front matter's YAML text, the 1-based file line it starts on, and
/// the Markdown after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    pub yaml: &'a str,
    pub first_line: u32,
    /// The rest of the file after the closing line.
    pub body: &'a str,
    /// The 1-based file line `body` starts on.
    pub body_line: u32,
}

/// Why front matter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrontMatterError {
    #[error("front matter opened with --- is never closed")]
    Unclosed,
    #[error("front matter is not valid here: {}", .0.message)]
    Invalid(YamlError),
}

impl FrontMatterError {
    /// The 1-based line of the file the error points at, if known.
    pub fn line(&self) -> Option<u32> {
        match self {
            Self::Unclosed => Some(1),
            Self::Invalid(e) => e.line,
        }
    }
}

/// Finds the front matter block. `Ok(None)` when the file has none.
///
/// The delimiter lines may carry trailing spaces or tabs, as CommonMark
/// readers (pulldown-cmark) accept them; a byte-order mark is skipped.
pub fn split(text: &str) -> Result<Option<Block<'_>>, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((first, rest)) = text.split_once('\n') else {
        return Ok(None);
    };
    if !is_delimiter(first, false) {
        return Ok(None);
    }
    let mut offset = 0;
    let mut line = 2u32;
    for l in rest.split_inclusive('\n') {
        if is_delimiter(l, true) {
            let yaml = rest.get(..offset).unwrap_or_default();
            let body = rest.get(offset + l.len()..).unwrap_or_default();
            return Ok(Some(Block {
                yaml,
                first_line: 2,
                body,
                body_line: line.saturating_add(1),
            }));
        }
        offset += l.len();
        line = line.saturating_add(1);
    }
    Err(FrontMatterError::Unclosed)
}

/// `---` (or, closing, `...`) with nothing after it but blanks.
fn is_delimiter(line: &str, closing: bool) -> bool {
    let bare = line.trim_end_matches(['\n', '\r', ' ', '\t']);
    bare == "---" || (closing && bare == "...")
}

/// Parses the front matter into `T`. `Ok(None)` when the file has none; an
/// empty block parses as an empty mapping would (so `T` should tolerate
/// that, e.g. an `Option` or a struct with defaults).
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<Option<T>, FrontMatterError> {
    let Some(block) = split(text)? else {
        return Ok(None);
    };
    let yaml = if block.yaml.trim().is_empty() {
        "{}"
    } else {
        block.yaml
    };
    super::from_str_at::<T>(yaml, block.first_line)
        .map(Some)
        .map_err(FrontMatterError::Invalid)
}

impl Block<'_> {
    /// The front matter as a tree with file lines.
    pub fn tree(&self) -> Result<Node, YamlError> {
        super::parse_at(self.yaml, self.first_line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn finds_the_block() {
        let text = "---\na: 1\n---\n# Title\n";
        assert_eq!(
            split(text).unwrap(),
            Some(Block {
                yaml: "a: 1\n",
                first_line: 2,
                body: "# Title\n",
                body_line: 4,
            })
        );
        assert_eq!(split("# no front matter\n").unwrap(), None);
        assert_eq!(split("---").unwrap(), None);
        assert_eq!(
            split("---\na: 1\n").unwrap_err(),
            FrontMatterError::Unclosed
        );
        assert_eq!(
            split("---\r\na: 1\r\n...\r\n").unwrap().unwrap().yaml,
            "a: 1\r\n"
        );
        let spaced = split("--- \na: 1\n---\t\nbody").unwrap().unwrap();
        assert_eq!((spaced.yaml, spaced.body), ("a: 1\n", "body"));
        assert_eq!(split("---\n---").unwrap().unwrap().body, "");
    }

    #[test]
    fn parses_with_lines_in_the_file() {
        let map: BTreeMap<String, String> = parse("---\na: x\n---\n").unwrap().unwrap();
        assert_eq!(map.get("a").map(String::as_str), Some("x"));
        let err = parse::<BTreeMap<String, String>>("---\na: x\nb: [\n---\n").unwrap_err();
        assert!(matches!(err, FrontMatterError::Invalid(_)), "{err:?}");
        assert!(err.line().is_some_and(|l| l >= 3), "{err:?}");
        let empty: BTreeMap<String, String> = parse("---\n---\nbody").unwrap().unwrap();
        assert!(empty.is_empty());
    }
}
