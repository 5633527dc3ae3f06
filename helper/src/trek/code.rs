//! The problem codes of `trek`.

crate::problem::codes! {
    TREK_USAGE => "the arguments of `trek start` do not make a run (no plan, two modes, a bad number)",
    TREK_PLAN_NOT_FOUND => "the plan file (or the project's plan.md) does not exist",
    TREK_NOT_A_PLAN => "the file is neither a trekplan nor a session spec",
    TREK_NOT_A_REPO => "a run needs a git work tree with at least one commit",
    TREK_NO_RUN => "no run marker here: `trek start` has not run in this work tree, or the run ended",
    TREK_STALE_RUN => "the run marker's run is no longer in progress",
    TREK_MARKER => "the run marker cannot be read or written",
    TREK_NO_SUCH_STEP => "the step is not one of this run's steps",
    TREK_STEP_STATE => "the step is not in the state this call needs (begin it before it is done)",
    TREK_INNER => "an operation the façade runs could not give the answer it needs",
    TREK_SESSION_PLACE => "a `--session N` run was started outside session N's worktree, or given a plan path other than the worktree's copy",
    TREK_GATE => "the main-merge gate answer is missing or not confirm/decline",
    TREK_RUN_BRANCH => "the run's run branch is not checked out: its steps go on only there",
    TREK_GATE_UNATTENDED => "the main-merge gate is a person's: a Claude Code session nobody watches (claude -p, the SDKs) cannot answer it",
}
