//! Briefs: the front matter of a `brief.md` (trekexecute "Composition rule"):
//! `brief_version` and, per phase, the signals `effort` (low, standard,
//! high) and an optional `model`. `brief validate` checks it.
//!
//! - [`model`]: the front matter as values ([`Brief`]), parsed and checked;
//! - [`ops`]: a brief read from disk ([`load`]), as `brief validate` and
//!   `profile` call it; [`cli`]: the flags, and the report printed.

mod cli;
pub(crate) mod code;
mod model;
mod ops;

pub(crate) use cli::Command;
pub use model::Brief;
pub(crate) use ops::{load, read};
