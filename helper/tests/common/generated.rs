//! The parts of a page generated from data, between `<!-- NAME:begin … -->`
//! and `<!-- NAME:end -->` markers: a test renders each part from its data
//! and fails when the page says otherwise; `VOYAGE_BLESS=1` rewrites the
//! page instead. Used by the integration tests (safety.md) and, through
//! `#[path]`, by the helper's unit tests (plan-format.md), whose data is
//! not public.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

/// `text` with what lies between the `name` markers replaced by `body`.
pub fn with_block(text: &str, name: &str, body: &str) -> Result<String, String> {
    let begin = format!("<!-- {name}:begin");
    let end = format!("<!-- {name}:end -->");
    let start = text
        .find(&begin)
        .ok_or_else(|| format!("no `{begin}` marker"))?;
    let line_end = text[start..]
        .find('\n')
        .ok_or_else(|| format!("nothing after `{begin}`"))?;
    let after_begin = start + line_end + 1;
    let stop = text
        .find(&end)
        .ok_or_else(|| format!("no `{end}` marker"))?;
    if after_begin > stop {
        return Err(format!("{name}: markers out of order"));
    }
    Ok(format!("{}{body}{}", &text[..after_begin], &text[stop..]))
}

/// Compares `page` with each `(name, body)` block in place, or with
/// `VOYAGE_BLESS=1` writes it so; a stale page fails, naming `bless`, the
/// command that rewrites it.
pub fn check_blocks(page: &Path, blocks: &[(&str, String)], bless: &str) {
    let on_disk = std::fs::read_to_string(page).unwrap();
    let mut generated = on_disk.clone();
    for (name, body) in blocks {
        generated = with_block(&generated, name, body)
            .unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    }
    if std::env::var_os("VOYAGE_BLESS").is_some() {
        std::fs::write(page, &generated).unwrap();
        return;
    }
    let stale: Vec<&str> = blocks
        .iter()
        .filter(|(name, body)| with_block(&on_disk, name, body).ok().as_ref() != Some(&on_disk))
        .map(|(name, _)| *name)
        .collect();
    assert!(
        stale.is_empty(),
        "{}'s generated blocks {stale:?} are stale: run `{bless}` and commit the result",
        page.display()
    );
}
