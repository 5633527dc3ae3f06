//! Where a progress file lives (seed Phase 3, "Progress file setup").
//!
//! | invocation | file |
//! |---|---|
//! | `--project DIR` | `DIR/progress.json` |
//! | `--project DIR --session N` | `DIR/progress-session-N.json` |
//! | plan `PLAN` | `dirname(PLAN)/.trekexecute-progress-SLUG.json` |
//! | plan `PLAN --session N` | `dirname(PLAN)/.trekexecute-progress-SLUG-session-N.json` |
//!
//! SLUG is the plan's file name without its extension. Separate files per
//! session keep parallel sessions from conflicting when their work merges.

use std::path::{Path, PathBuf};

/// The progress file for a plan, a project, and optionally one session.
pub(crate) fn progress_path(
    plan: Option<&Path>,
    project: Option<&Path>,
    session: Option<u32>,
) -> Option<PathBuf> {
    let suffix = session.map(|n| format!("-session-{n}")).unwrap_or_default();
    if let Some(dir) = project {
        return Some(dir.join(format!("progress{suffix}.json")));
    }
    let plan = plan?;
    let slug = plan.file_stem()?.to_string_lossy();
    let dir = match plan.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(dir.join(format!(".trekexecute-progress-{slug}{suffix}.json")))
}

/// The plan of a project: `DIR/plan.md` (seed Phase 1, `--project`).
pub(super) fn project_plan(project: &Path) -> PathBuf {
    project.join("plan.md")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table() {
        let p = |plan: Option<&str>, project: Option<&str>, session| {
            progress_path(plan.map(Path::new), project.map(Path::new), session)
                .map(|p| p.display().to_string())
        };
        assert_eq!(p(None, Some("proj/"), None).unwrap(), "proj/progress.json");
        assert_eq!(
            p(Some("x/plan.md"), Some("proj"), Some(2)).unwrap(),
            "proj/progress-session-2.json"
        );
        assert_eq!(
            p(Some(".claude/plans/auth-refactor.md"), None, None).unwrap(),
            ".claude/plans/.trekexecute-progress-auth-refactor.json"
        );
        assert_eq!(
            p(Some("auth.v2.md"), None, Some(3)).unwrap(),
            "./.trekexecute-progress-auth.v2-session-3.json"
        );
        assert_eq!(p(None, None, None), None);
        assert_eq!(p(Some("/"), None, None), None);
    }
}
