//! YAML front matter at the top of a Markdown file: a first line `---`, the
//! YAML, and a closing line `---` (or `...`). Briefs, plans and the
//! `NEXT-SESSION-PROMPT.local.md` handover carry one.
//!
//! Parsing is `serde-saphyr` with its default budget (no alias bombs, bounded
//! nesting); errors carry the line in the whole file.

use serde::de::DeserializeOwned;
use thiserror::Error;

/// The front matter's YAML text and the 1-based file line it starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    pub yaml: &'a str,
    pub first_line: u64,
}

/// Why front matter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrontMatterError {
    #[error("front matter opened with --- is never closed")]
    Unclosed,
    #[error("front matter is not valid here: {message}")]
    Invalid { line: Option<u64>, message: String },
}

impl FrontMatterError {
    /// The 1-based line of the file the error points at, if known.
    pub fn line(&self) -> Option<u64> {
        match self {
            Self::Unclosed => Some(1),
            Self::Invalid { line, .. } => *line,
        }
    }
}

/// Finds the front matter block. `Ok(None)` when the file has none.
pub fn split(text: &str) -> Result<Option<Block<'_>>, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok(None);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            let yaml = rest.get(..offset).unwrap_or("");
            return Ok(Some(Block {
                yaml,
                first_line: 2,
            }));
        }
        offset += line.len();
    }
    Err(FrontMatterError::Unclosed)
}

/// Parses the front matter into `T`. `Ok(None)` when the file has none; an
/// empty block parses as YAML `null` would (so `T` should tolerate that, e.g.
/// an `Option` or a struct with defaults).
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<Option<T>, FrontMatterError> {
    let Some(block) = split(text)? else {
        return Ok(None);
    };
    if block.yaml.trim().is_empty() {
        return serde_saphyr::from_str::<T>("{}")
            .map(Some)
            .map_err(|e| invalid(&e, block.first_line));
    }
    serde_saphyr::from_str::<T>(block.yaml)
        .map(Some)
        .map_err(|e| invalid(&e, block.first_line))
}

fn invalid(error: &serde_saphyr::Error, first_line: u64) -> FrontMatterError {
    let line = error
        .location()
        .map(|l| l.line())
        .filter(|l| *l > 0)
        .map(|l| l + first_line - 1);
    // The library's message may span lines with a source excerpt; keep the
    // first, the rest is shown by the line number.
    let message = error.to_string();
    let message = message.lines().next().unwrap_or("").trim().to_owned();
    FrontMatterError::Invalid { line, message }
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
                first_line: 2
            })
        );
        assert_eq!(split("# no front matter\n").unwrap(), None);
        assert_eq!(
            split("---\na: 1\n").unwrap_err(),
            FrontMatterError::Unclosed
        );
        assert_eq!(
            split("---\r\na: 1\r\n...\r\n").unwrap().unwrap().yaml,
            "a: 1\r\n"
        );
    }

    #[test]
    fn parses_with_lines_in_the_file() {
        let map: BTreeMap<String, String> = parse("---\na: x\n---\n").unwrap().unwrap();
        assert_eq!(map.get("a").map(String::as_str), Some("x"));
        let err = parse::<BTreeMap<String, String>>("---\na: x\nb: [\n---\n").unwrap_err();
        assert!(matches!(err, FrontMatterError::Invalid { .. }), "{err:?}");
        let empty: BTreeMap<String, String> = parse("---\n---\nbody").unwrap().unwrap();
        assert!(empty.is_empty());
    }
}
