//! The autonomy gate (area `gate/`; seed Phase 1 `--gates`,
//! Phase 2.6 Step 3, Phase 8 "Main-merge gate", "High-effort behavior"):
//! `voyage-helper gate --state S --event E [--gates G] [--effort X]`.
//!
//! - [`mode`]: open / adaptive / closed, and flag → brief → default.
//! - [`machine`]: the states × events table.
//! - [`ops`]: the decision ([`decide`]), as the command line and `trek`
//!   call it; [`cli`]: the flags, mapped to it, and the text form.
//!
//! The gate only decides; the caller asks the operator when told to pause.
//! On `--event begin` it also records the `gates_mode_flag_override` event
//! when an explicit flag beat a different brief signal (once per run, since
//! `begin` is sent once).

mod cli;
pub(crate) mod code;
mod machine;
mod mode;
mod ops;

pub(crate) use cli::GateArgs;
pub use machine::{Event, State};
pub use mode::{Effort, GatesFlag};
pub(crate) use ops::decide;
