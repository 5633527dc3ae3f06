//! voyage-workflow: `workflow run`, `validate`, `plan` and `refine` of
//! voyage-helper: YAML workflows in Executant's format, run step by step
//! with a typed event stream, and written from a description by an agent.
//! The helper's command line mounts [`Command`]; nothing else of the helper
//! is known here, and the shared pieces come from voyage-core.
//!
//! The pipeline follows Executant's design (its architecture seed and the
//! observed behaviour in `docs/maintainer/executant.md`):
//!
//! - [`load`] turns a YAML file ([`yaml`]) into the typed [`model`], filling
//!   `{{var}}` [`placeholder`]s and checking every schema rule;
//! - [`resolve`] loads nested `workflow:` references before anything runs,
//!   [`remote`] ones (and a top-level URL) fetched over http(s);
//! - [`runner`] produces [`event`]s for the steps — [`script`] steps (one
//!   [`shell`] run, or [`healing`] runs), [`loops`], [`nested`] workflows,
//!   [`prompt`] steps (graded by the [`judge`]) — filtered by [`filter`];
//! - every agent call is a [`call`] to a [`provider`] ([`claude`],
//!   [`opencode`]), the
//!   same for prompt steps, the judge, self-healing and the
//!   [`retrospective`] that analyses a fatal failure, and the report's
//!   efficiency [`suggestion`];
//! - [`consumers`] turn the events into NDJSON and a log file, [`live`] into
//!   the line view for people, [`ui`] into the full-screen one on a
//!   terminal, and [`telemetry`] (only when `OTEL_EXPORTER_OTLP_ENDPOINT` is
//!   set) into OpenTelemetry spans and metrics; [`interject`] queues the
//!   corrections a person sends to the next prompt step;
//! - [`generate`] writes workflows from a description or an instruction
//!   (`workflow plan`, `workflow refine`) through the same providers, and
//!   [`authoring`] is its I/O edge;
//! - [`command`] is the I/O edge that wires them together; [`cli`] holds
//!   the subcommands' flags, and [`settings`] what the environment asks
//!   (`VOYAGE_*`, then `EXECUTANT_*`), read once there.
//!
//! Modules depend on one another in layers, without cycles (a loop's
//! children and a nested workflow reach the runner through a function it
//! hands down, not an import):
//!
//! 1. the data: [`model`], [`yaml`], [`placeholder`], [`text`], [`filter`],
//!    [`event`], [`settings`], [`remote`], and [`step`] (where events go, the run's context, how a
//!    step ends); [`load`] and [`resolve`] above them;
//! 2. what a child process shares ([`child`], [`lines`]), the agent call
//!    ([`call`], [`answer`]), then the workers: [`shell`], [`claude`], [`opencode`],
//!    [`provider`], [`judge`], [`healing`], [`retrospective`], [`suggestion`], [`script`],
//!    [`prompt`], [`loops`], [`nested`];
//! 3. the [`runner`];
//! 4. the edge: [`consumers`], [`live`], [`ui`], [`command`], [`generate`],
//!    [`authoring`], [`cli`]; the [`telemetry`] consumer too (its
//!    [`Trace`](telemetry::Trace), which a step's [`Context`](step::Context)
//!    carries, belongs to layer 1); [`interject`] sits with the data (the
//!    prompt step reads its queue).
//!

// The docs link the private modules they describe: they are read with
// `cargo doc --document-private-items` (docs/maintainer/conventions.md,
// "Docs in the code").
#![allow(rustdoc::private_intra_doc_links)]
// The doc comments of clap's arguments are `--help` text, written for a
// terminal: `<slug>` there is a placeholder, not an HTML tag, and an
// indented line is an example, not Rust code.
#![allow(rustdoc::invalid_html_tags, rustdoc::invalid_rust_codeblocks)]
// The shared pieces, reached as `crate::problem`, `crate::proc`, … (the
// workflow's own `yaml` module reads documents through voyage-core's).
use voyage_core::{ansi, atomic_file, clock, git, input_file, problem, proc, schema};

mod answer;
mod authoring;
mod call;
mod child;
mod claude;
mod cli;
pub mod code;
mod command;
mod consumers;
mod event;
mod expect;
mod filter;
mod generate;
mod healing;
mod interject;
mod judge;
mod lines;
mod live;
mod load;
mod loops;
mod model;
mod nested;
mod opencode;
mod placeholder;
mod prompt;
mod provider;
mod remote;
mod resolve;
mod retrospective;
mod runner;
mod script;
mod settings;
mod shell;
mod step;
mod suggestion;
mod telemetry;
mod text;
mod ui;
mod yaml;

pub use claude::{QUOTED_LINES, Stream};
pub use cli::Command;
pub use command::exit_code;
pub use event::Event;
pub use interject::lines as interjection_lines;
pub use lines::LineSplitter;
pub use load::load_source;
pub use opencode::Stream as OpenCodeStream;
pub use remote::{host as url_host, join as join_url, to_raw as raw_url};
pub use telemetry::read_otel_env;
