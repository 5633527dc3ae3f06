//! `workflow run` and `workflow validate`: YAML workflows in Executant's
//! format, run step by step with a typed event stream.
//!
//! The pipeline follows Executant's design (its architecture seed and the
//! observed behaviour in `research/executant/spec.md`):
//!
//! - [`load`] turns a YAML file ([`yaml`]) into the typed [`model`], filling
//!   `{{var}}` [`placeholder`]s and checking every schema rule;
//! - [`resolve`] loads nested `workflow:` references before anything runs;
//! - [`runner`] produces [`event`]s for the steps — [`script`] steps (one
//!   [`shell`] run, or [`healing`] runs), [`loops`], [`nested`] workflows,
//!   prompt steps through a [`provider`] ([`claude`], graded by the
//!   [`judge`]) — filtered by [`filter`]; what they share is in [`step`],
//!   what their child processes share in [`child`] and [`lines`];
//! - [`consumers`] turn the events into NDJSON and a log file, [`live`] into
//!   the view for people;
//! - [`command`] is the I/O edge that wires them together.
//!
//! A fatal failure of a workflow with agent steps gets a [`retrospective`].
//! The OpenCode provider and the terminal UI come in later releases; the
//! step dispatch and the events already have their place.

pub mod child;
pub mod claude;
pub mod command;
pub mod consumers;
pub mod event;
pub mod filter;
pub mod healing;
pub mod judge;
pub mod lines;
pub mod live;
pub mod load;
pub mod loops;
pub mod model;
pub mod nested;
pub mod placeholder;
pub mod provider;
pub mod resolve;
pub mod retrospective;
pub mod runner;
pub mod script;
pub mod shell;
pub mod step;
pub mod text;
pub mod yaml;
