//! The typed workflow: what [`super::load`] makes of a YAML file, what
//! [`super::resolve`] completes and what [`super::runner`] executes.
//!
//! It serialises in Executant's shape (camelCase, `type` tags `command`,
//! `claude`, `log`, `forEach`, `workflow`), because the `workflow:start`
//! event carries the whole tree and Executant consumers read it.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// Ordered `name → value` pairs (vars keep the order they were declared in:
/// substitution happens in that order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vars(pub Vec<(String, String)>);

impl Vars {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Serialize for Vars {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Where a workflow came from; relative `workflow:` references resolve
/// against `dir`, or against `url` for a fetched one (never the disk).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Origin {
    Local { dir: String },
    Remote { url: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workflow {
    pub goal: String,
    pub vars: Vars,
    pub tasks: Vec<Task>,
    /// The YAML text as written: what a person edits, and what a
    /// post-mortem of a failed run should quote.
    pub source: String,
    pub origin: Origin,
    pub source_path: String,
}

/// One step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Task {
    #[serde(rename = "command")]
    Command(CommandTask),
    #[serde(rename = "claude")]
    Prompt(PromptTask),
    #[serde(rename = "log")]
    Log(LogTask),
    #[serde(rename = "forEach")]
    Loop(LoopTask),
    #[serde(rename = "workflow")]
    Workflow(WorkflowTask),
}

impl Task {
    pub fn name(&self) -> &str {
        match self {
            Task::Command(t) => &t.name,
            Task::Prompt(t) => &t.name,
            Task::Log(t) => &t.name,
            Task::Loop(t) => &t.name,
            Task::Workflow(t) => &t.name,
        }
    }

    pub fn continue_on_error(&self) -> bool {
        match self {
            Task::Command(t) => t.continue_on_error,
            Task::Prompt(t) => t.continue_on_error,
            Task::Log(t) => t.continue_on_error,
            Task::Loop(t) => t.continue_on_error,
            Task::Workflow(t) => t.continue_on_error,
        }
    }

    /// The line of the step in its file.
    pub fn line(&self) -> u32 {
        match self {
            Task::Command(t) => t.line,
            Task::Prompt(t) => t.line,
            Task::Log(t) => t.line,
            Task::Loop(t) => t.line,
            Task::Workflow(t) => t.line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandTask {
    pub name: String,
    pub command: String,
    pub continue_on_error: bool,
    pub self_healing: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_healing_attempts: Option<u32>,
    /// The path (the value of the var `output:` names) the step's output is
    /// written to after it succeeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    #[serde(skip)]
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptTask {
    pub name: String,
    pub prompt: String,
    pub continue_on_error: bool,
    pub llm_as_judge: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_files: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub model: String,
    /// Whether the step wrote `model:` (else `model` is the loader's
    /// default, which only the claude provider takes).
    #[serde(skip)]
    pub model_given: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    /// `expect:`: what must be true once the agent has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<Box<Expect>>,
    #[serde(skip)]
    pub line: u32,
}

/// A prompt step's `expect:`: checked after the agent ends, so an agent
/// that reports success without doing the work fails its step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expect {
    /// Paths that must exist.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Paths whose content (or existence) must differ from before the step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// A shell command that must exit 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Whether the work tree (`git status` and `git diff`) must differ.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diff: bool,
    /// How many times the agent may try (1: the first miss fails the
    /// step); each retry is told what was not true.
    pub attempts: u32,
}

impl Default for Expect {
    fn default() -> Self {
        Self {
            files: Vec::new(),
            changed: Vec::new(),
            command: None,
            diff: false,
            attempts: 1,
        }
    }
}

#[cfg(test)]
impl PromptTask {
    /// A plain prompt step (`ask`, "say hi", sonnet) for unit tests.
    pub(crate) fn sample() -> Self {
        Self {
            name: "ask".into(),
            prompt: "say hi".into(),
            continue_on_error: false,
            llm_as_judge: false,
            allowed_tools: None,
            context_files: Vec::new(),
            output: None,
            timeout_seconds: None,
            provider: None,
            model: "sonnet".into(),
            model_given: false,
            agent: None,
            append_system_prompt: None,
            expect: None,
            line: 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogTask {
    pub name: String,
    pub message: String,
    pub continue_on_error: bool,
    #[serde(skip)]
    pub line: u32,
}

/// A `forEach` or `repeat` step: its children run once per item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopTask {
    pub name: String,
    pub continue_on_error: bool,
    pub for_each: Items,
    pub inner: Vec<Task>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    #[serde(skip)]
    pub line: u32,
}

/// Where a loop's items come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Items {
    /// A list from the file (`repeat: N` becomes `"1"` … `"N"`).
    List(Vec<String>),
    /// A shell command whose non-blank output lines are the items.
    Shell(String),
}

/// A `workflow:` step: another workflow file run as a nested run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowTask {
    pub name: String,
    pub continue_on_error: bool,
    /// The reference as written (after var substitution).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Vars passed to the child, already substituted against ours.
    pub vars: Vars,
    /// Filled in by [`super::resolve`] before anything runs.
    pub workflow: Option<Box<Workflow>>,
    #[serde(skip)]
    pub line: u32,
    /// The line of the `workflow:` field, where reference problems point.
    #[serde(skip)]
    pub reference_line: u32,
}
