//! The recovery session spec's text (Phase 7.6, steps 2 to 4): a session
//! spec of `plan_version` 1.7 that `plan validate` reads as READY, holding
//!
//! - `## Dependencies` with an entry condition `entry check` can decide
//!   (the parent's last commit, its subject quoted);
//! - `## Scope Fence`: the original's, or the missing steps' Files;
//! - `## Recovery Metadata`: `recovery_of`, `recovery_depth`,
//!   `missing_steps`, `entry_condition_override`, `parent_progress_file`;
//! - the original's `## Session Manifest`, or one made from the missing
//!   steps' manifests;
//! - the synthetic Step 0 (the sandbox pre-flight), then each missing step
//!   copied whole from the original, its Manifest block kept (a legacy
//!   step gets its synthesised manifest written out);
//! - `## Exit Condition`: the original's, or a trekplan's Verification as a
//!   checklist (without one, the missing steps' Verify commands).
//!
//! Pure: the caller reads the files and git, this builds the text.

use crate::plan::{Manifest, Plan, Step};

/// What the spec is built from.
pub(super) struct Inputs<'a> {
    pub plan: &'a Plan,
    /// The original plan's text, to copy steps and sections whole.
    pub source: &'a str,
    pub plan_path: &'a str,
    pub progress_path: &'a str,
    pub session: u32,
    /// The new depth (the parent's + 1).
    pub depth: u32,
    pub missing: &'a [u32],
    /// The parent's HEAD: full id and subject.
    pub head: &'a str,
    pub subject: &'a str,
}

/// A YAML (and JSON) double-quoted scalar.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

fn quoted_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", items.join(", "))
}

/// The synthetic Step 0: its Verify exits 77 when the sandbox will not let
/// the session write to the working tree (Sub-step D1, "Step 0 sentinel").
pub(super) const STEP_ZERO: &str = "### Step 0: Sandbox pre-flight
- **Files:** none
- **Changes:** none: check that the sandbox lets this session write to the working tree before any real work.
- **Verify:** `touch .voyage-preflight && rm .voyage-preflight || exit 77`
- **On failure:** escalate
- **Manifest:**
  ```yaml
  expected_paths: []
  min_file_count: 0
  commit_message_pattern: \"\"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  sandbox_preflight: true
  ```
";

/// A synthesised manifest written as the Manifest field of a step.
fn manifest_block(m: &Manifest) -> String {
    let must: Vec<String> = m
        .must_contain
        .iter()
        .map(|c| {
            format!(
                "{{path: {}, pattern: {}}}",
                quoted(&c.path),
                quoted(&c.pattern)
            )
        })
        .collect();
    let mut text = String::from("- **Manifest:**\n  ```yaml\n");
    text.push_str(&format!(
        "  expected_paths: {}\n",
        quoted_list(&m.expected_paths)
    ));
    text.push_str(&format!("  min_file_count: {}\n", m.min_file_count));
    text.push_str(&format!(
        "  commit_message_pattern: {}\n",
        quoted(&m.commit_message_pattern)
    ));
    text.push_str(&format!(
        "  bash_syntax_check: {}\n",
        quoted_list(&m.bash_syntax_check)
    ));
    text.push_str(&format!(
        "  forbidden_paths: {}\n",
        quoted_list(&m.forbidden_paths)
    ));
    text.push_str(&format!("  must_contain: [{}]\n", must.join(", ")));
    if m.memory_write {
        text.push_str("  memory_write: true\n");
    }
    text.push_str("  ```\n");
    text
}

/// Lines `from..to` (1-based, `to` exclusive; `None` to the end) of
/// `source`, leading and trailing blank lines dropped, ending with one
/// newline.
fn lines(source: &str, from: u32, to: Option<u32>) -> String {
    let take = to.map_or(usize::MAX, |t| t.saturating_sub(from) as usize);
    let picked: Vec<&str> = source
        .lines()
        .skip(from.saturating_sub(1) as usize)
        .take(take)
        .collect();
    let first = picked
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(picked.len());
    let mut text = picked.get(first..).unwrap_or_default().join("\n");
    text.truncate(text.trim_end().len());
    text.push('\n');
    text
}

/// The line of the first heading after `line` of level `level` or higher.
fn end_of(headings: &[(u8, u32)], line: u32, level: u8) -> Option<u32> {
    headings
        .iter()
        .find(|(l, at)| *at > line && *l <= level)
        .map(|(_, at)| *at)
}

/// A step copied whole; a synthesised manifest written out.
fn step_text(step: &Step, source: &str, headings: &[(u8, u32)]) -> String {
    let mut text = lines(source, step.line, end_of(headings, step.line, 3));
    if let Some(m) = step.manifest.as_ref().filter(|m| m.synthesized) {
        text.push_str(&manifest_block(m));
    }
    text
}

/// A `## name` section's body (after its heading) copied whole, up to the
/// next heading of level 3 or higher (a session spec's steps may follow
/// its Session Manifest with no heading between).
fn section_body(source: &str, headings: &[(u8, u32)], heading_line: u32) -> String {
    lines(source, heading_line + 1, end_of(headings, heading_line, 3))
}

fn path_list(paths: &[String]) -> String {
    if paths.is_empty() {
        return "none".into();
    }
    let items: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
    items.join(", ")
}

/// The title without a `Session N:` prefix or a `(recovery D)` suffix, so
/// a recovery of a recovery does not stack them.
fn base_title(plan: &Plan) -> String {
    let title = plan.title.clone().unwrap_or_else(|| "recovery".into());
    let title = match title.split_once(':') {
        Some((head, rest)) if head.trim_start().starts_with("Session ") => rest.trim().to_owned(),
        _ => title,
    };
    match title.rfind(" (recovery ") {
        Some(at) => title.get(..at).unwrap_or(&title).to_owned(),
        None => title,
    }
}

/// A Session Manifest made from the missing steps' manifests, for an
/// original that has none (a trekplan): their expected paths and commit
/// patterns, the fence's never-touch list as `scope_forbidden`.
fn session_manifest(steps: &[&Step], never: &[String]) -> String {
    let mut paths: Vec<String> = Vec::new();
    let mut patterns: Vec<String> = Vec::new();
    for m in steps.iter().filter_map(|s| s.manifest.as_ref()) {
        for p in &m.expected_paths {
            if !paths.contains(p) {
                paths.push(p.clone());
            }
        }
        let pattern = &m.commit_message_pattern;
        if !pattern.is_empty() && !patterns.contains(pattern) {
            patterns.push(pattern.clone());
        }
    }
    format!(
        "```yaml\nexpected_paths: {}\ncommit_message_patterns: {}\nscope_forbidden: {}\n```\n",
        quoted_list(&paths),
        quoted_list(&patterns),
        quoted_list(never)
    )
}

/// The entry condition: the parent's HEAD, its subject quoted so `entry
/// check` decides it from `git log` (left unquoted, and so undecided, when
/// the subject holds a quote or a backtick).
pub(super) fn entry_condition(head: &str, subject: &str) -> String {
    let short: String = head.chars().take(12).collect();
    let subject = subject.trim();
    if subject.is_empty() || subject.contains(['"', '`', '“', '”']) {
        format!("previous partial session committed at {short}")
    } else {
        format!("previous partial session committed at {short} (\"{subject}\" in git log)")
    }
}

/// The spec's text.
pub(super) fn render(i: &Inputs<'_>) -> String {
    let headings = crate::plan::heading_lines(i.source);
    let steps: Vec<&Step> = i.missing.iter().filter_map(|&n| i.plan.step(n)).collect();
    let session = i.plan.session.as_ref();
    let mut touch = session.map(|s| s.touch.clone()).unwrap_or_default();
    if touch.is_empty() {
        for step in &steps {
            for f in &step.files {
                if !touch.contains(&f.path) {
                    touch.push(f.path.clone());
                }
            }
        }
    }
    let never = session.map(|s| s.never_touch.clone()).unwrap_or_default();
    let numbers: Vec<String> = i.missing.iter().map(u32::to_string).collect();
    let override_text = format!("previous partial session committed at {}", i.head);

    let mut text = String::from("---\nplan_version: 1.7\n---\n");
    text.push_str(&format!(
        "# Session {}: {} (recovery {})\n\n",
        i.session,
        base_title(i.plan),
        i.depth
    ));
    text.push_str(&format!(
        "Recovery {} of session {}: only the steps the manifest audit found missing ({}), copied from `{}`.\n\n",
        i.depth,
        i.session,
        numbers.join(", "),
        i.plan_path
    ));
    text.push_str("## Dependencies\n\n");
    text.push_str(&format!(
        "Entry condition: {}\n\n",
        entry_condition(i.head, i.subject)
    ));
    text.push_str("## Scope Fence\n\n");
    text.push_str(&format!("- Touch: {}\n", path_list(&touch)));
    text.push_str(&format!("- Never touch: {}\n\n", path_list(&never)));
    text.push_str("## Recovery Metadata\n\n```yaml\n");
    text.push_str(&format!("recovery_of: {}\n", quoted(i.plan_path)));
    text.push_str(&format!("recovery_depth: {}\n", i.depth));
    text.push_str(&format!("missing_steps: [{}]\n", numbers.join(", ")));
    text.push_str(&format!(
        "entry_condition_override: {}\n",
        quoted(&override_text)
    ));
    text.push_str(&format!(
        "parent_progress_file: {}\n",
        quoted(i.progress_path)
    ));
    text.push_str("```\n\n");
    text.push_str("## Session Manifest\n\n");
    match session.and_then(|s| s.manifest_line) {
        Some(line) => text.push_str(&section_body(i.source, &headings, line)),
        None => text.push_str(&session_manifest(&steps, &never)),
    }
    text.push('\n');
    text.push_str("## Implementation Plan\n\n");
    text.push_str(STEP_ZERO);
    for step in &steps {
        text.push('\n');
        text.push_str(&step_text(step, i.source, &headings));
    }
    text.push_str("\n## Exit Condition\n\n");
    match session.and_then(|s| s.exit_condition_line) {
        Some(line) => text.push_str(&section_body(i.source, &headings, line)),
        None => {
            let criteria = i.plan.verification.iter().flat_map(|v| &v.criteria);
            let mut any = false;
            for c in criteria {
                any = true;
                if c.label.is_empty() {
                    text.push_str(&format!("- [ ] `{}`\n", c.command));
                } else {
                    text.push_str(&format!("- [ ] `{}` — {}\n", c.command, c.label));
                }
            }
            // No Verification: the missing steps' own Verify commands.
            if !any {
                for step in &steps {
                    if let Some(v) = &step.verify {
                        text.push_str(&format!(
                            "- [ ] `{}` — step {}'s Verify\n",
                            v.command, step.number
                        ));
                    }
                }
            }
        }
    }
    text
}
