//! The problem codes of `plan strategy` and the `wave` commands. The
//! `/trekexecute` command matches on them to say what the user can do.

crate::problem::codes! {
    WAVE_NOT_A_REPO => "not inside a git work tree, or git is not available",
    WAVE_LINKED_WORKTREE => "run from a linked worktree: the multi-session path runs only from the main checkout",
    WAVE_DIRTY_TREE => "the main checkout has uncommitted or untracked changes (outside .claude/trekplan-sessions/)",
    WAVE_IGNORE_PROBE => "`git check-ignore` failed on the plan: a failed probe is not an answer",
    WAVE_PLAN_COMMIT => "committing the untracked plan failed",
    WAVE_SCOPE_OVERLAP => "two sessions of one wave touch the same files",
    WAVE_IN_FLIGHT => "wave.json exists: a wave is awaiting its sessions",
    WAVE_KEPT => "earlier session work was kept: a worktree with changes or an unmerged branch",
    WAVE_LEFTOVERS => "a session branch or worktree of this wave is left from an earlier attempt",
    WAVE_WORKTREE_ADD => "`git worktree add` failed",
    WAVE_COPY => "the project files could not be copied into a worktree",
    WAVE_PROJECT_OUTSIDE => "the project directory's path relative to the repository is empty or outside it",
    WAVE_NONE_LEFT => "every wave of the plan is merged",
    WAVE_RUNNING => "a session of the wave is still running",
    WAVE_FAILED => "a session of the wave ended badly (failed, stopped, partial, blocked, unreadable)",
    WAVE_MERGE_CONFLICT => "a session branch conflicts with the merged state (the merge was aborted)",
    WAVE_MERGE_REFUSED => "git refused to start a merge (local changes or untracked files in the way)",
    WAVE_NO_STRATEGY => "the plan has no Execution Strategy",
    WAVE_GIT => "a git call failed",
}
