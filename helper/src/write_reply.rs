//! What the writers print (schema `write-reply`): `{"written": true, "path":
//! …}` or `{"written": false, "code": …, "reason": …}`.
//!
//! `stats append` and `event emit` always print it, for a script that reads
//! `written` and shows `reason`; `write --atomic` and `state write` print it
//! with `--json`. `trek finish` writes its records in process and puts a
//! refused write's reply in its own text (`stats: not written: …`).

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::problem::Problem;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct WriteReply {
    pub written: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_event: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl WriteReply {
    pub(crate) fn written(path: &Path) -> Self {
        Self {
            written: true,
            path: Some(path.display().to_string()),
            ..Self::default()
        }
    }

    /// A refusal; the reason is the problem's text on one line.
    pub(crate) fn refused(problem: &Problem) -> Self {
        let reason = problem.to_string().replace(['\n', '\r'], " ");
        Self {
            written: false,
            code: Some(problem.code),
            reason: Some(reason),
            ..Self::default()
        }
    }

    /// One line of JSON.
    pub(crate) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        writeln!(out)
    }
}
