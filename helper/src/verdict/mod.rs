//! `voyage-helper verdict`: the executor skill's reply, built from a log.
//!
//! The executor skill (seed: "How to work", steps 2 to 5, and "Output
//! format") maps a run to PASS / FAIL / TIMEOUT / ERROR, finds the tool's own
//! aggregate line and its failures, and judges `expect:`. Everything there
//! that needs no model happens here, reading the log once ([`lines`]) through
//! one recogniser per runner format ([`runners`]), choosing among them
//! ([`recognizer::pick`]), weighing the exit code against what the
//! runners counted ([`signals`]: never greener than either), judging what
//! can be judged ([`expect`]) and rendering the reply ([`reply`]).
//!
//! - [`model`]: what the caller told about the run ([`Input`]);
//! - [`ops`]: the reply built from it ([`build`]), as the command line,
//!   `run` and `trek` call it; [`cli`]: the flags (or stdin's labels)
//!   mapped to it, and the reply printed.

mod cli;
mod expect;
mod failure;
mod lines;
mod model;
mod ops;
mod recognizer;
mod reply;
mod runners;
mod signals;

pub(crate) use cli::{Options, VerdictArgs, execute};
pub use expect::{Counted, RunFacts, RunKind, judge};
pub use lines::MAX_LINE_BYTES;
pub use model::Input;
pub(crate) use model::Unwritten;
pub(crate) use ops::EMPTY_LOG;
pub use ops::build;
pub use reply::MAX_LINES;
pub(crate) use reply::{Reply, Verdict};
pub use runners::{Counts, Findings, scan};
