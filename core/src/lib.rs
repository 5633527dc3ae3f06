//! voyage-core: the pieces every part of Voyage shares, with no knowledge of
//! plans, runs or workflows. The helper's areas and the workflow runner are
//! built on it; the shell-command judge (`voyage-judge`) is not, so that it
//! stays usable on its own.
//!
//! - [`problem`]: the one problem type and its rendering; [`codes!`]
//!   declares an area's codes.
//! - [`input_file`]: the one reader of files and stdin from outside, with
//!   its size limits and refusals.
//! - [`atomic_file`]: the atomic writer (temporary file, fsync, rename);
//!   [`own_file`]: opening our own files without following a link.
//! - [`proc`]: the one place that spawns, supervises and signals processes;
//!   [`git`]: every git call, through it.
//! - [`yaml`]: the YAML and front-matter reader.
//! - [`schema`]: the embedded JSON Schemas of `schemas/`, and validation
//!   against them.
//! - [`shell`]: words quoted for a POSIX shell, so a printed call runs as
//!   printed.
//! - [`ansi`]: text as a terminal shows it; [`clock`]: UTC times and
//!   durations in words; [`exit`]: the exit codes.
//! - [`fault`]: the kill points and panic places of the fault-injection
//!   tests (empty without the `fault-injection` feature).
//!
//! Like the helper, it makes no stability promise: it exists for the crates
//! of this workspace.

// The docs link the private modules they describe (read with
// `cargo doc --document-private-items`).
#![allow(rustdoc::private_intra_doc_links)]

pub mod ansi;
pub mod atomic_file;
pub mod clock;
pub mod exit;
pub mod fault;
pub mod git;
pub mod input_file;
pub mod own_file;
pub mod problem;
pub mod proc;
pub mod schema;
pub mod shell;
pub mod yaml;
