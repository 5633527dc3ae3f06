//! The report of a file validator (`progress validate`, `state validate`;
//! schema `validation-report`), and its exit code: 0 valid, 1 problems found,
//! 2 the file could not be read.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::exit;
use crate::problem::Problem;

/// The flags of a file validator (`progress validate`, `state validate`).
/// Its help is the subcommand's doc comment.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ValidateArgs {
    /// Print the report as one JSON object (schema validation-report).
    #[arg(long)]
    pub json: bool,
    /// The file to check.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

impl ValidateArgs {
    /// Checks the file with `validate_file` and prints the report.
    pub(crate) fn execute(
        &self,
        validate_file: fn(&Path) -> ValidationReport,
        out: &mut impl Write,
    ) -> io::Result<u8> {
        validate_file(&self.file).print(self.json, out)
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ValidationReport {
    pub file: String,
    pub valid: bool,
    pub problems: Vec<Problem>,
    /// The file could not be read at all (exit 2, not 1).
    #[serde(skip)]
    pub unreadable: bool,
}

impl ValidationReport {
    /// A report on `file`; every problem gets the file name if it has none.
    pub(crate) fn new(file: &Path, problems: Vec<Problem>) -> Self {
        let problems: Vec<Problem> = problems
            .into_iter()
            .map(|p| p.in_file_if_none(file))
            .collect();
        Self {
            file: file.display().to_string(),
            valid: problems.is_empty(),
            problems,
            unreadable: false,
        }
    }

    /// The file could not be read: one problem, exit 2.
    pub(crate) fn unreadable(file: &Path, problem: Problem) -> Self {
        Self {
            unreadable: true,
            ..Self::new(file, vec![problem])
        }
    }

    pub(crate) fn exit_code(&self) -> u8 {
        if self.unreadable {
            exit::CANNOT_CHECK
        } else if self.valid {
            exit::OK
        } else {
            exit::NOT_OK
        }
    }

    /// `--json`: the report on stdout. Text: `FILE: valid` on stdout, or
    /// each problem as `error[CODE]: …` on stdout and a closing count line.
    /// Returns the exit code, or the error writing the report.
    pub(crate) fn print(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        self.write(json, out)?;
        Ok(self.exit_code())
    }

    fn write(&self, json: bool, out: &mut impl Write) -> io::Result<()> {
        if json {
            serde_json::to_writer_pretty(&mut *out, self)?;
            writeln!(out)?;
        } else if self.valid {
            writeln!(out, "{}: valid", self.file)?;
        } else {
            for problem in &self.problems {
                problem.render_text(out)?;
            }
            let n = self.problems.len();
            writeln!(
                out,
                "{}: {n} problem{}",
                self.file,
                if n == 1 { "" } else { "s" }
            )?;
        }
        out.flush()
    }
}
