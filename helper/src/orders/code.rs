//! The problem codes of `orders …` and of the wave commands that read and
//! write the orders directory (`wave prepare`, `wave collect`).

crate::problem::codes! {
    ORDERS_PLAN_ABSOLUTE => "--plan is absolute: the orders name the plan relative to the main checkout",
    ORDERS_PLAN_OUTSIDE => "the plan is not inside the main checkout (or the relative path is empty)",
    ORDERS_PLAN_UNREADABLE => "the plan cannot be read or is not a plan",
    ORDERS_NO_STRATEGY => "the plan has no Execution Strategy, or no such wave",
    ORDERS_OTHER_PLAN => "the orders directory belongs to another plan",
    ORDERS_PLAN_CHANGED => "the plan's content changed since the orders were written (its sha256 differs)",
    ORDERS_OTHER_BRANCH => "another branch is checked out than the one the wave was prepared on",
    ORDERS_OTHER_WAVE => "wave.json is for another wave than --wave",
    ORDERS_NO_WAVE => "no wave.json: no wave awaits its sessions",
    ORDERS_WAVE_IN_FLIGHT => "wave.json exists: a wave is awaiting its sessions",
    ORDERS_BROKEN_FILE => "wave.json or merged-waves.json is not the JSON the orders write",
    ORDERS_IO => "a file of the orders directory cannot be read or written",
    ORDERS_GIT => "git failed or is not available",
}
