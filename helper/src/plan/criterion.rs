//! Criteria: the commands a plan's `## Verification` (trekplans) or
//! `## Exit Condition` (session specs) asks to pass, read the way the
//! criteria runner reads them (trekexecute Phase 7).
//!
//! Two forms count: a bullet whose first backticked span is the command, and
//! a fence tagged `bash`, `sh`, `shell` or `console`, each command line of
//! which is a criterion (in `console` fences, the lines after `$ `).

use serde::Serialize;

use super::markdown::Block;

/// One command to run, with the words that describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Criterion {
    pub command: String,
    /// The rest of the bullet (e.g. "the whole suite passes"); empty for
    /// fence lines.
    pub label: String,
    pub line: u32,
    pub form: CriterionForm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CriterionForm {
    Bullet,
    Fence,
}

/// Fence tags whose content is run as shell.
pub(super) const SHELL_TAGS: [&str; 4] = ["bash", "sh", "shell", "console"];

/// The lines of the section's outermost list items that do not start with
/// a command in backticks: prose in a list of checks, which the runner
/// skips, and which its author most likely meant as a check.
pub(super) fn unread_items(blocks: &[Block]) -> Vec<u32> {
    let items = blocks.iter().filter_map(|block| match block {
        Block::Text(t) => t.item.map(|depth| (depth, t)),
        _ => None,
    });
    let Some(outer) = items.clone().map(|(depth, _)| depth).min() else {
        return Vec::new();
    };
    items
        .filter(|(depth, t)| {
            *depth == outer
                && t.first_span().is_none_or(|(at, command)| {
                    !t.text.get(..at).unwrap_or_default().trim().is_empty()
                        || command.trim().is_empty()
                })
        })
        .map(|(_, t)| t.line)
        .collect()
}

/// Reads the criteria in `blocks` (one section's content).
pub(super) fn read(blocks: &[Block]) -> Vec<Criterion> {
    let mut out = Vec::new();
    for block in blocks {
        match block {
            Block::Text(t) if t.item.is_some() => {
                if let Some((at, command)) = t.first_span() {
                    // Only when the code span leads the bullet (after an
                    // optional task box), not a path mentioned in passing.
                    let before = t.text.get(..at).unwrap_or_default().trim();
                    if before.is_empty() && !command.trim().is_empty() {
                        let after = t.text.get(at + command.len() + 2..).unwrap_or_default();
                        out.push(Criterion {
                            command: command.trim().to_owned(),
                            label: after
                                .trim()
                                .trim_start_matches(['—', '-', '–', ':'])
                                .trim()
                                .to_owned(),
                            line: t.line,
                            form: CriterionForm::Bullet,
                        });
                    }
                }
            }
            Block::Code {
                info,
                text,
                content_line,
                ..
            } => {
                let tag = info.split_whitespace().next().unwrap_or_default();
                if SHELL_TAGS.contains(&tag) {
                    out.extend(fence_commands(text, *content_line, tag == "console"));
                }
            }
            _ => {}
        }
    }
    out
}

/// The commands of a shell fence: one per line, `\` continuations joined,
/// comments and blank lines skipped; in a console fence only `$ ` lines.
fn fence_commands(text: &str, first_line: u32, console: bool) -> Vec<Criterion> {
    let mut out = Vec::new();
    let mut pending: Option<(String, u32)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = first_line + u32::try_from(i).unwrap_or(0);
        let trimmed = raw.trim();
        let (text, starts) = match &mut pending {
            Some((acc, _)) => {
                acc.push(' ');
                (trimmed, false)
            }
            None => {
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                if console {
                    match trimmed
                        .strip_prefix("$ ")
                        .or_else(|| trimmed.strip_prefix('$'))
                    {
                        Some(cmd) => (cmd.trim(), true),
                        None => continue,
                    }
                } else {
                    (trimmed, true)
                }
            }
        };
        let (body, continues) = match text.strip_suffix('\\') {
            Some(b) => (b.trim_end(), true),
            None => (text, false),
        };
        if starts {
            pending = Some((body.to_owned(), line));
        } else if let Some((acc, _)) = &mut pending {
            acc.push_str(body);
        }
        if !continues && let Some((command, line)) = pending.take() {
            out.push(Criterion {
                command: command.trim().to_owned(),
                label: String::new(),
                line,
                form: CriterionForm::Fence,
            });
        }
    }
    if let Some((command, line)) = pending {
        out.push(Criterion {
            command: command.trim().to_owned(),
            label: String::new(),
            line,
            form: CriterionForm::Fence,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::markdown::blocks;

    #[test]
    fn bullets_and_fences() {
        let src = "- `cargo test` — the whole suite passes\n- run `x` later\n- [ ] `make` passes\n\n```bash\n# setup\nbash a.sh \\\n  --fast\n\nbash b.sh\n```\n\n```console\n$ cargo fmt --check\nok\n```\n\n```\nuntagged\n```\n";
        let got: Vec<(String, String, u32)> = read(&blocks(src, 1))
            .into_iter()
            .map(|c| (c.command, c.label, c.line))
            .collect();
        assert_eq!(
            got,
            [
                ("cargo test".into(), "the whole suite passes".into(), 1),
                ("make".into(), "passes".into(), 3),
                ("bash a.sh --fast".into(), String::new(), 7),
                ("bash b.sh".into(), String::new(), 10),
                ("cargo fmt --check".into(), String::new(), 14),
            ]
        );
    }
}
