//! The problem codes of `report`: why it could not report (exit 2).

crate::problem::codes! {
    REPORT_PROGRESS => "the progress file cannot be read or breaks its schema",
    REPORT_PLAN_UNREADABLE => "the --plan given cannot be read or is not a plan",
    REPORT_PROFILE => "the profile for the stats record cannot be resolved (the record says so)",
}
