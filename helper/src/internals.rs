//! What the integration tests (`helper/tests/`) and the fuzz targets
//! (`fuzz/fuzz_targets/`) call below the command line, and nothing else.
//!
//! For tests and fuzzing only: no stability promise, hidden from the docs.
//! Each submodule is an area, re-exporting from that area's own re-exports,
//! so a test sees what another area would see and no more.

/// The executor's command runner: labels, request, log name, output tally.
pub mod run {
    pub use crate::run::{Labels, LineTally, MAX_TIMEOUT_SECS, Request, TAIL_MAX_CHARS, slug};
}

/// The executor's reply built from a log.
pub mod verdict {
    pub use crate::verdict::{
        Counted, Counts, Findings, Input, MAX_LINE_BYTES, MAX_LINES, RunFacts, RunKind, build,
        judge, scan,
    };
}

/// The plan reader and `plan fill`'s filler.
pub mod plan {
    pub use crate::plan::{FillText, fill_text, parse};
}

/// The criteria runner's allowlist and the entry-condition reader.
pub mod criteria {
    pub use crate::criteria::{Reading, allowlisted, read_entry_condition};
}

/// The brief reader.
pub mod brief {
    pub use crate::brief::Brief;
}

/// The denylist engine, its renderings and the PreToolUse hook.
pub mod scan {
    pub use crate::scan::{
        Context, Decision, Judgement, MAX_EXCERPT_CHARS, RULES, WriteDir, WriteKind, WriteTarget,
        examples, find, judge_command, render_json, render_text,
    };

    /// The `hook pre-tool-use` answer.
    pub mod hook {
        pub use crate::scan::hook::{Answer, answer, outcome, render};
    }
}

/// State files: the checks of `state validate`.
pub mod state {
    pub use crate::state::{check_prompt, validate_text};
}

/// The progress file: reading, checking, step changes.
pub mod progress {
    pub use crate::progress::{CODES, Progress, StepStatus, StepUpdate, apply, conforms, parse};
}

/// The recovery spec writer (Phase 7.6).
pub mod recovery {
    pub use crate::recovery::spec_text;
}

/// The audits' parsers: manifest paths and the git log they read.
pub mod audit {
    pub use crate::audit::{Commit, Matcher, inside, parse_log};
}

/// Stats records and events.
pub mod stats {
    pub use crate::stats::{check_name, parse_object, record, summarize_reader, with_ts};
}

/// The autonomy gate's words.
pub mod fence {
    pub use crate::fence::{ExecutorCall, executor_call, is_helper_call, quote};
}

pub mod gate {
    pub use crate::gate::{Effort, Event, GatesFlag, State};
}

/// Custom profiles.
pub mod profile {
    pub use crate::profile::{PHASES, check_name, parse};
}

/// Workflow loading, remote workflow URLs, the providers' streams and the
/// interjection file's lines.
pub mod workflow {
    pub use crate::workflow::{
        Event, LineSplitter, OpenCodeStream, QUOTED_LINES, Stream, interjection_lines, join_url,
        load_source, raw_url, read_otel_env, url_host,
    };
}

/// The YAML and front-matter reader.
pub mod yaml {
    pub use crate::yaml::{Node, Value, from_str, parse};

    /// Front matter.
    pub mod front_matter {
        pub use crate::yaml::front_matter::{parse, split};
    }
}

/// The ANSI cleaner.
pub mod ansi {
    pub use crate::ansi::clean;
}

/// The embedded JSON Schemas.
pub mod schema {
    pub use crate::schema::check;
}

/// The session orders: the branch component made of a plan's slug, and the
/// plan hash.
pub mod orders {
    pub use crate::orders::{ref_safe, sha256_hex};
}

/// The run marker a `/trekexecute` run leaves for the PreToolUse hook.
pub mod run_marker {
    pub use crate::run_marker::{
        FILE_NAME, Location, ReadError, RunMarker, SCHEMA_VERSION, locate, read,
    };
}

/// Each `trek` phase as a call in this process (no command line).
pub mod trek {
    pub use crate::trek::phases::{Replied, finish, release, start, step_begin, step_done};
}
