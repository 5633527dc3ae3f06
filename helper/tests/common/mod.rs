//! Builders shared by every test binary under `helper/tests/` (each one
//! includes this folder as its `common` module).
//!
//! - [`case`]: [`Case`], a CLI case that reads as the contract (input,
//!   arguments, every stream that comes back);
//! - [`workflow`]: [`Dir`], workflow files in a temp dir and `--ci` runs
//!   whose every event is checked against the event schema;
//! - [`env`]: the binary with nothing of the developer's environment;
//! - [`generated`]: the parts of a page generated from data;
//! - [`printed`]: calls a reply prints, run as printed through `sh -c`;
//! - [`repo`]: real git repositories in temp dirs;
//! - [`schema`]: output checked against `schemas/`;
//! - [`wait`]: waiting for something observable, with a deadline;
//! - [`skip`]: a test that cannot run here says so.
//!
//! Each binary uses part of it (hence `dead_code`); `pub` items are
//! reachable only within each test binary.

#![allow(dead_code, unreachable_pub, unused_imports)]

pub mod case;
pub mod env;
pub mod generated;
pub mod printed;
pub mod repo;
pub mod schema;
pub mod skip;
pub mod wait;
pub mod workflow;

pub use case::{Case, Ran};
pub use schema::assert_schema;
pub use skip::{skip, tool_or_skip};
pub use wait::{ended, pid_in, wait_until};
pub use workflow::{Dir, Run, brief, collect, copy_examples, elide_duration, examples, fixtures};
