//! The CLI tests: each subcommand group of `voyage-helper` run as a user
//! runs it, the real binary on files in temp dirs, one module per group.
//!
//! One test binary for all of them (not one per file): each binary links
//! the whole library, so a few binaries build and link in a fraction of the
//! time. Shared builders are in `../common/`.

#[path = "../common/mod.rs"]
mod common;

mod areas;
mod audit;
mod criteria;
mod delayed;
mod entry;
mod gate;
mod hook_input;
mod hook_run;
mod input_limits;
mod module_graph;
mod output_errors;
mod plan;
mod plan_completable;
mod plan_dry_run;
mod plan_examples;
mod plan_fill;
mod plan_fixtures;
mod profile;
mod progress;
mod progress_git;
mod recovery;
mod regressions;
mod report;
mod rule_examples;
mod run;
mod run_files;
mod run_full_disk;
mod run_links;
mod run_writers;
mod safety_doc;
mod scan;
mod scan_corpus;
mod schemas;
mod scope_fence;
mod state;
mod stats;
mod toplevel;
mod trek;
mod trek_branch;
mod trek_faults;
mod trek_finish_faults;
mod trek_printed;
mod trek_scope_record;
mod trek_verify;
mod verdict;
mod verdict_fixtures;
mod waves;
