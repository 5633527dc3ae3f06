//! Profiles and the composition rule (area `profile/`; seed
//! "Profile (v4.1)", "Composition rule (v5.1)"): `profile resolve`.
//!
//! - [`model`]: a profile, the phases and effort words.
//! - [`builtin`]: economy, balanced, premium (the default), fable.
//! - [`custom`]: `voyage-profiles/NAME.yaml` in the project or data dir.
//! - the brief's `phase_signals` come from the `brief` area's model.
//! - [`resolve`]: flag → env → plan → default, then brief > profile.
//! - [`ops`]: a phase resolved ([`resolve_phase`]) and the profile of a
//!   stats record, as the command line and the other areas call them;
//!   [`cli`]: the flags, mapped to them, and the text form.

mod builtin;
mod cli;
pub(crate) mod code;
mod custom;
mod model;
mod ops;
mod resolve;

pub(crate) use cli::{Command, PROFILE_ENV};
pub use custom::{check_name, parse};
pub use model::PHASES;
pub(crate) use ops::{Request, for_record, resolve_phase};
pub(crate) use resolve::{Choice, ProfileSource};
