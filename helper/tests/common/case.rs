//! A small builder for CLI tests that read as the contract: the input, the
//! arguments, and every stream that comes back.
//!
//! Each case runs the real `voyage-helper` binary in a fresh temp directory
//! with the developer's environment cleared ([`super::env::helper`]) and
//! `HOME`/`XDG_DATA_HOME` pointed into that directory, so nothing of the
//! developer's machine leaks in.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use tempfile::TempDir;

pub struct Case {
    pub dir: TempDir,
    args: Vec<String>,
    stdin: Vec<u8>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
}

/// What one run returned, with its streams decoded.
pub struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// The value of the first `LABEL: value` line of stdout.
    pub fn field(&self, label: &str) -> Option<&str> {
        let prefix = format!("{label}: ");
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
    }

    pub fn log_path(&self) -> PathBuf {
        PathBuf::from(self.field("LOG").expect("a LOG: line"))
    }
}

impl Case {
    pub fn new(args: &[&str]) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            args: args.iter().map(|s| (*s).to_owned()).collect(),
            stdin: Vec::new(),
            cwd: None,
            env: Vec::new(),
        }
    }

    #[must_use]
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Self {
        self.stdin = input.as_ref().to_vec();
        self
    }

    /// Sets an environment variable for the run.
    #[must_use]
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.env.push((
            key.to_owned(),
            value.as_ref().to_string_lossy().into_owned(),
        ));
        self
    }

    /// Runs in `sub` below the case's directory (created).
    #[must_use]
    pub fn cwd(mut self, sub: &str) -> Self {
        let dir = self.dir.path().join(sub);
        std::fs::create_dir_all(&dir).unwrap();
        self.cwd = Some(dir);
        self
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn command(&self) -> Command {
        self.command_with(&self.args, &self.stdin)
    }

    /// The command with other arguments and stdin (same directory and env).
    pub fn command_with(&self, args: &[String], stdin: &[u8]) -> Command {
        let cwd = self
            .cwd
            .clone()
            .unwrap_or_else(|| self.dir.path().to_path_buf());
        let mut cmd = Command::from_std(super::env::helper(&cwd, self.dir.path()));
        cmd.env("XDG_DATA_HOME", self.dir.path().join("data"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .write_stdin(stdin.to_vec());
        cmd
    }

    /// Runs the case; stderr must be empty unless `allow_stderr`.
    pub fn run(&self) -> Ran {
        Self::ran(&self.command().output().unwrap())
    }

    /// Runs other arguments in the same directory and environment.
    pub fn run_with(&self, args: &[&str]) -> Ran {
        self.run_with_stdin(args, b"")
    }

    /// Runs other arguments with this stdin.
    pub fn run_with_stdin(&self, args: &[&str], stdin: &[u8]) -> Ran {
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        Self::ran(&self.command_with(&args, stdin).output().unwrap())
    }

    fn ran(out: &Output) -> Ran {
        Ran {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout.clone()).unwrap(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}
