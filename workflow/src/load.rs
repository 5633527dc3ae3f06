//! YAML text → [`Workflow`], with `{{var}}` placeholders filled in and every
//! rule of Executant's schema checked (its spec §1). Nested `workflow:` steps
//! stay unresolved here; [`super::resolve`] fills them in.
//!
//! Differences from Executant, on purpose:
//! - a var value, a `forEach` item or a nested step's var may be a number or
//!   a boolean (`port: 8080`); it is used as YAML reads it (`true`, `8080`;
//!   `007` reads as `7` and `1.50` as `1.5`: quote a value to keep its
//!   spelling). Executant
//!   refused these only because its schema library wanted strings.
//! - keys Executant drops silently (a typo like `continue_on_eror`) are
//!   warnings here, with their line.
//!
//! Every problem names the file, the step and the field, with a line.

use std::path::Path;

use super::code;
use super::model::{
    CommandTask, Expect, Items, LogTask, LoopTask, Origin, PromptTask, Task, Vars, Workflow,
    WorkflowTask,
};
use super::placeholder;
use super::yaml::{self, Key, Node, Value};
use crate::problem::{Problem, Severity};

/// Most items `repeat:` may ask for: each becomes a string in the model and
/// in the `workflow:start` event.
pub(super) const MAX_REPEAT: i128 = 100_000;

/// Longest `timeout_seconds:` accepted (a year): long enough for any step,
/// short enough that a deadline computed from it cannot overflow.
pub(super) const MAX_TIMEOUT_SECONDS: f64 = 31_536_000.0;
/// Keys a top-level document may have.
const TOP_KEYS: &[&str] = &["goal", "steps", "vars"];
/// Keys a step may have.
const STEP_KEYS: &[&str] = &[
    "name",
    "type",
    "prompt",
    "command",
    "message",
    "continue_on_error",
    "self_healing",
    "max_healing_attempts",
    "output",
    "llm_as_judge",
    "allowed_tools",
    "context",
    "forEach",
    "repeat",
    "concurrency",
    "steps",
    "timeout_seconds",
    "provider",
    "model",
    "agent",
    "workflow",
    "vars",
    "append_system_prompt",
    "expect",
];

/// The model Executant's loader stores on a prompt step without `model:`.
pub(super) const DEFAULT_MODEL: &str = "sonnet";

/// The most bytes a workflow file (or one it references) may have, and a
/// step's `context:` file. Workflows are a few kilobytes; the cap is there
/// so a wrong path costs a refusal, not the machine's memory.
pub(super) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// A loaded workflow and what the loader had to say about it.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub workflow: Workflow,
    pub warnings: Vec<Problem>,
}

/// Reads and loads the workflow file at `path`, with `given` vars (from
/// `--var`, or from the `vars:` of the step that references it).
pub(super) fn load_file(path: &Path, given: &[(String, String)]) -> Result<Loaded, Problem> {
    let source = crate::input_file::read_to_string(path, MAX_FILE_BYTES).map_err(|e| {
        Problem::new(
            e.code(code::INPUT),
            format!("cannot read the workflow file: {e}"),
        )
        .in_file(path)
    })?;
    let dir = path
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .unwrap_or(Path::new("."));
    load_source(source, path, dir, given)
}

/// Loads workflow `source` that came from `path` (used in messages).
pub fn load_source(
    source: String,
    path: &Path,
    dir: &Path,
    given: &[(String, String)],
) -> Result<Loaded, Problem> {
    let origin = Origin::Local {
        dir: dir.display().to_string(),
    };
    load_text(source, path, origin, given)
}

/// Loads workflow `source` fetched from `url` (the name in messages and its
/// `sourcePath`); its references resolve against the URL.
pub(super) fn load_remote(
    source: String,
    url: &str,
    given: &[(String, String)],
) -> Result<Loaded, Problem> {
    let origin = Origin::Remote {
        url: url.to_owned(),
    };
    load_text(source, Path::new(url), origin, given)
}

fn load_text(
    source: String,
    path: &Path,
    origin: Origin,
    given: &[(String, String)],
) -> Result<Loaded, Problem> {
    let doc = yaml::parse(&source).map_err(|e| {
        let problem = Problem::new(
            code::WORKFLOW_YAML_SYNTAX,
            format!("the file is not valid YAML: {}", e.message),
        )
        .in_file(path);
        match e.line {
            Some(line) => problem.at_line(line),
            None => problem,
        }
    })?;
    let mut loader = Loader {
        path,
        warnings: Vec::new(),
    };
    let (goal, vars, steps) = loader.top_level(&doc)?;
    let vars = loader.apply_contract(&vars, given, doc.line)?;
    let mut tasks = Vec::with_capacity(steps.len());
    let mut names: Vec<(String, u32)> = Vec::new();
    for node in steps {
        let task = loader.step(node, &vars, false)?;
        if let Some((_, first)) = names.iter().find(|(n, _)| n == task.name()) {
            return Err(loader.problem(
                code::WORKFLOW_DUPLICATE_STEP,
                node.line,
                format!(
                    "duplicate step name \"{}\" (first used on line {first}); top-level step names must be unique so --step and --from-step can find them",
                    task.name()
                ),
            ));
        }
        names.push((task.name().to_owned(), node.line));
        tasks.push(task);
    }
    Ok(Loaded {
        workflow: Workflow {
            goal,
            vars,
            tasks,
            source,
            origin,
            source_path: path.display().to_string(),
        },
        warnings: loader.warnings,
    })
}

/// A declared var: its name, its default (`None`: required), its line.
struct Declared {
    name: String,
    default: Option<String>,
    line: u32,
}

struct Loader<'p> {
    path: &'p Path,
    warnings: Vec<Problem>,
}

/// The fields of one step node, looked up by key.
struct Fields<'n> {
    entries: &'n [(Key, Node)],
}

impl<'n> Fields<'n> {
    fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }
}

impl Loader<'_> {
    fn problem(&self, code: &'static str, line: u32, message: String) -> Problem {
        let problem = Problem::new(code, message).in_file(self.path);
        if line > 0 {
            problem.at_line(line)
        } else {
            problem
        }
    }

    fn field_problem(&self, step: &str, field: &str, node: &Node, message: String) -> Problem {
        self.problem(
            code::WORKFLOW_INVALID_FIELD,
            node.line,
            format!("step \"{step}\", field `{field}`: {message}"),
        )
    }

    fn top_level<'d>(
        &mut self,
        doc: &'d Node,
    ) -> Result<(String, Vec<Declared>, &'d [Node]), Problem> {
        let Value::Map(entries) = &doc.value else {
            return Err(self.problem(
                code::WORKFLOW_NOT_A_MAPPING,
                doc.line,
                format!(
                    "a workflow file is a mapping with `goal:` and `steps:`, but this file holds {}",
                    doc.value.kind()
                ),
            ));
        };
        let fields = Fields { entries };
        self.warn_unknown(entries, TOP_KEYS, "the top level");
        let goal = match fields.get("goal") {
            Some(Node {
                value: Value::Str(s),
                ..
            }) => s.clone(),
            Some(node) => {
                return Err(self.problem(
                    code::WORKFLOW_INVALID_FIELD,
                    node.line,
                    format!("`goal` must be a string, found {}", node.value.kind()),
                ));
            }
            None => {
                return Err(self.problem(
                    code::WORKFLOW_MISSING_FIELD,
                    doc.line,
                    "the workflow has no `goal:` (a one-line description of what it does)".into(),
                ));
            }
        };
        let steps = match fields.get("steps") {
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => items.as_slice(),
            Some(node) => {
                return Err(self.problem(
                    code::WORKFLOW_INVALID_FIELD,
                    node.line,
                    format!(
                        "`steps` must be a list of steps, found {}",
                        node.value.kind()
                    ),
                ));
            }
            None => {
                return Err(self.problem(
                    code::WORKFLOW_MISSING_FIELD,
                    doc.line,
                    "the workflow has no `steps:` list".into(),
                ));
            }
        };
        let vars = match fields.get("vars") {
            None
            | Some(Node {
                value: Value::Null, ..
            }) => Vec::new(),
            Some(Node {
                value: Value::Map(entries),
                ..
            }) => {
                let mut declared = Vec::with_capacity(entries.len());
                for (key, node) in entries {
                    let default = match &node.value {
                        Value::Null => None,
                        Value::Seq(_) | Value::Map(_) => {
                            return Err(self.problem(
                                code::WORKFLOW_INVALID_FIELD,
                                node.line,
                                format!(
                                    "var `{}` must be a string (its default) or empty (required), found {}",
                                    key.text,
                                    node.value.kind()
                                ),
                            ));
                        }
                        scalar => scalar.scalar_text(),
                    };
                    declared.push(Declared {
                        name: key.text.clone(),
                        default,
                        line: key.line,
                    });
                }
                declared
            }
            Some(node) => {
                return Err(self.problem(
                    code::WORKFLOW_INVALID_FIELD,
                    node.line,
                    format!(
                        "`vars` must be a mapping of names to default values, found {}",
                        node.value.kind()
                    ),
                ));
            }
        };
        Ok((goal, vars, steps))
    }

    /// The var contract: every given var must be declared, every required
    /// var must be given; given values win over defaults.
    fn apply_contract(
        &self,
        declared: &[Declared],
        given: &[(String, String)],
        line: u32,
    ) -> Result<Vars, Problem> {
        for (name, _) in given {
            if !declared.iter().any(|d| &d.name == name) {
                let known: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
                let known = if known.is_empty() {
                    "it declares no vars".to_owned()
                } else {
                    format!("it declares: {}", known.join(", "))
                };
                return Err(self.problem(
                    code::WORKFLOW_UNDECLARED_VAR,
                    line,
                    format!(
                        "the workflow was given var `{name}` but does not declare it under `vars:` ({known})"
                    ),
                ));
            }
        }
        let mut vars = Vec::with_capacity(declared.len());
        let mut missing = Vec::new();
        for d in declared {
            let value = given
                .iter()
                .rev()
                .find(|(n, _)| *n == d.name)
                .map(|(_, v)| v.clone())
                .or_else(|| d.default.clone());
            match value {
                Some(v) => vars.push((d.name.clone(), v)),
                None => missing.push(d),
            }
        }
        if let Some(first) = missing.first() {
            let names: Vec<&str> = missing.iter().map(|d| d.name.as_str()).collect();
            return Err(self.problem(
                code::WORKFLOW_MISSING_VAR,
                first.line,
                format!(
                    "missing required var(s) {}: give each with --var NAME=VALUE (or in the `vars:` of the step that runs this workflow)",
                    names.join(", ")
                ),
            ));
        }
        Ok(Vars(vars))
    }

    fn warn_unknown(&mut self, entries: &[(Key, Node)], known: &[&str], place: &str) {
        for (key, _) in entries {
            if !known.contains(&key.text.as_str()) {
                let hint = closest(&key.text, known)
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                let mut warning = self.problem(
                    code::WORKFLOW_UNKNOWN_KEY,
                    key.line,
                    format!("unknown key `{}` in {place} is ignored{hint}", key.text),
                );
                warning.severity = Severity::Warning;
                self.warnings.push(warning);
            }
        }
    }

    /// One step; `in_loop` when it is a child of a `forEach`/`repeat`.
    fn step(&mut self, node: &Node, vars: &Vars, in_loop: bool) -> Result<Task, Problem> {
        let Value::Map(entries) = &node.value else {
            return Err(self.problem(
                code::WORKFLOW_INVALID_STEP,
                node.line,
                format!(
                    "a step is a mapping with at least `name:`, found {}",
                    node.value.kind()
                ),
            ));
        };
        let fields = Fields { entries };
        let name = match fields.get("name") {
            Some(Node {
                value: Value::Str(s),
                ..
            }) => s.clone(),
            Some(n) => {
                return Err(self.problem(
                    code::WORKFLOW_INVALID_FIELD,
                    n.line,
                    format!("a step's `name` must be a string, found {}", n.value.kind()),
                ));
            }
            None => {
                return Err(self.problem(
                    code::WORKFLOW_MISSING_FIELD,
                    node.line,
                    "this step has no `name:`".into(),
                ));
            }
        };
        self.warn_unknown(entries, STEP_KEYS, &format!("step \"{name}\""));
        let step = StepNode {
            name: &name,
            fields,
            line: node.line,
        };
        let continue_on_error = self.boolean(&step, "continue_on_error")?.unwrap_or(false);

        let for_each = step.fields.get("forEach");
        let repeat = step.fields.get("repeat");
        let children = step.fields.get("steps");
        let concurrency = step.fields.get("concurrency");
        if for_each.is_some() || repeat.is_some() {
            return self.loop_step(&step, vars, continue_on_error);
        }
        if let Some(n) = children {
            return Err(self.field_problem(
                &name,
                "steps",
                n,
                "`steps:` runs children once per item, so it needs `forEach:` or `repeat:`".into(),
            ));
        }
        if let Some(n) = concurrency {
            return Err(self.field_problem(
                &name,
                "concurrency",
                n,
                "`concurrency:` applies to loops only; add `forEach:` or `repeat:` or remove it"
                    .into(),
            ));
        }
        self.plain_step(&step, vars, continue_on_error, in_loop)
    }

    fn loop_step(
        &mut self,
        step: &StepNode<'_, '_>,
        vars: &Vars,
        continue_on_error: bool,
    ) -> Result<Task, Problem> {
        let name = step.name;
        let for_each = step.fields.get("forEach");
        let repeat = step.fields.get("repeat");
        if let (Some(_), Some(r)) = (for_each, repeat) {
            return Err(self.field_problem(
                name,
                "repeat",
                r,
                "a step cannot have both `repeat:` and `forEach:`; keep one".into(),
            ));
        }
        let items = if let Some(node) = for_each {
            match &node.value {
                Value::Str(command) => {
                    Items::Shell(self.substitute(name, "forEach", node, command, vars)?)
                }
                Value::Seq(list) => {
                    let mut items = Vec::with_capacity(list.len());
                    for item in list {
                        let Some(text) = item.value.scalar_text() else {
                            return Err(self.field_problem(
                                name,
                                "forEach",
                                item,
                                format!("every item must be a string, found {}", item.value.kind()),
                            ));
                        };
                        items.push(self.substitute(name, "forEach", item, &text, vars)?);
                    }
                    Items::List(items)
                }
                other => {
                    return Err(self.field_problem(
                        name,
                        "forEach",
                        node,
                        format!(
                            "must be a list of items or a shell command (a string), found {}",
                            other.kind()
                        ),
                    ));
                }
            }
        } else if let Some(node) = repeat {
            let count = self.positive_int(name, "repeat", node)?;
            if count > MAX_REPEAT {
                return Err(self.field_problem(
                    name,
                    "repeat",
                    node,
                    format!("at most {MAX_REPEAT} repetitions are supported, found {count}"),
                ));
            }
            Items::List((1..=count).map(|i| i.to_string()).collect())
        } else {
            return Err(self.problem(
                code::WORKFLOW_INVALID_STEP,
                step.line,
                format!("step \"{name}\" is not a loop"),
            ));
        };
        let concurrency = match step.fields.get("concurrency") {
            Some(node) => Some(
                u32::try_from(self.positive_int(name, "concurrency", node)?).map_err(|_| {
                    self.field_problem(name, "concurrency", node, "is too large".into())
                })?,
            ),
            None => None,
        };
        let inner = match step.fields.get("steps") {
            Some(node) => {
                for key in ["command", "prompt", "message"] {
                    if let Some(n) = step.fields.get(key) {
                        return Err(self.field_problem(
                            name,
                            key,
                            n,
                            format!(
                                "a loop with `steps:` runs its children; it cannot also have `{key}:` (move it into a child step)"
                            ),
                        ));
                    }
                }
                let Value::Seq(children) = &node.value else {
                    return Err(self.field_problem(
                        name,
                        "steps",
                        node,
                        format!("must be a list of steps, found {}", node.value.kind()),
                    ));
                };
                if children.is_empty() {
                    return Err(self.field_problem(
                        name,
                        "steps",
                        node,
                        "must list at least one step".into(),
                    ));
                }
                let mut inner = Vec::with_capacity(children.len());
                for child in children {
                    inner.push(self.step(child, vars, true)?);
                }
                inner
            }
            // The shorthand: the step itself, without its loop keys, is the
            // only child (and so shares the loop's continue_on_error).
            None => vec![self.plain_step(step, vars, continue_on_error, true)?],
        };
        Ok(Task::Loop(LoopTask {
            name: name.to_owned(),
            continue_on_error,
            for_each: items,
            inner,
            concurrency,
            line: step.line,
        }))
    }

    /// A step that is not a loop: command, prompt, log or workflow.
    fn plain_step(
        &mut self,
        step: &StepNode<'_, '_>,
        vars: &Vars,
        continue_on_error: bool,
        in_loop: bool,
    ) -> Result<Task, Problem> {
        let name = step.name;
        let kind = match step.fields.get("type") {
            Some(node) => match &node.value {
                Value::Str(t)
                    if ["prompt", "script", "command", "log", "workflow"].contains(&t.as_str()) =>
                {
                    t.clone()
                }
                other => {
                    return Err(self.field_problem(
                        name,
                        "type",
                        node,
                        format!(
                            "must be one of prompt, script, command, log, workflow; found {}",
                            other
                                .scalar_text()
                                .map_or_else(|| other.kind().to_owned(), |t| format!("\"{t}\""))
                        ),
                    ));
                }
            },
            None => {
                let has = |k| step.fields.get(k).is_some();
                if has("workflow") {
                    "workflow".into()
                } else if has("command") {
                    "script".into()
                } else if has("message") && !has("prompt") {
                    "log".into()
                } else {
                    "prompt".into()
                }
            }
        };
        let timeout = match step.fields.get("timeout_seconds") {
            Some(node) => Some(self.seconds(name, "timeout_seconds", node)?),
            None => None,
        };
        match kind.as_str() {
            "script" | "command" => {
                let command = self.required_text(step, "command", &kind)?;
                let (command_node, _) = command;
                let command =
                    self.substitute(name, "command", command_node, command.1.as_str(), vars)?;
                self.reject_on_kind(step, &kind, &["vars", "context", "expect"])?;
                Ok(Task::Command(CommandTask {
                    name: name.to_owned(),
                    command,
                    continue_on_error,
                    self_healing: self.boolean(step, "self_healing")?.unwrap_or(false),
                    max_healing_attempts: match step.fields.get("max_healing_attempts") {
                        Some(node) => Some(
                            u32::try_from(self.positive_int(name, "max_healing_attempts", node)?)
                                .unwrap_or(u32::MAX),
                        ),
                        None => None,
                    },
                    output: self.var_path(step, "output", vars)?,
                    timeout_seconds: timeout,
                    line: step.line,
                }))
            }
            "log" => {
                self.reject_on_kind(step, &kind, &["output", "vars", "context", "expect"])?;
                let (node, text) = match (step.fields.get("message"), step.fields.get("prompt")) {
                    (Some(n), _) => (Some(n), self.text(name, "message", n)?),
                    (None, Some(n)) => (Some(n), self.text(name, "prompt", n)?),
                    (None, None) => (None, name.to_owned()),
                };
                let message = match node {
                    Some(n) => self.substitute(name, "message", n, &text, vars)?,
                    None => text,
                };
                Ok(Task::Log(LogTask {
                    name: name.to_owned(),
                    message,
                    continue_on_error,
                    line: step.line,
                }))
            }
            "workflow" => {
                if in_loop {
                    // Named like every other field problem (step, field and
                    // the field's own line), so the editor lands on it.
                    let line = step.fields.get("workflow").map_or(step.line, |n| n.line);
                    return Err(self.problem(
                        code::WORKFLOW_NESTED_IN_LOOP,
                        line,
                        format!(
                            "step \"{name}\", field `workflow`: runs a nested workflow inside a forEach/repeat loop, which is not supported; run the loop inside the child workflow instead"
                        ),
                    ));
                }
                self.reject_on_kind(step, &kind, &["output", "context", "expect"])?;
                let (node, reference) = self.required_text(step, "workflow", &kind)?;
                let reference_line = node.line;
                let reference = self.substitute(name, "workflow", node, &reference, vars)?;
                let child_vars = match step.fields.get("vars") {
                    None => Vars::default(),
                    Some(Node {
                        value: Value::Map(entries),
                        ..
                    }) => {
                        let mut out = Vec::with_capacity(entries.len());
                        for (key, value) in entries {
                            let Some(text) = value.value.scalar_text() else {
                                return Err(self.field_problem(
                                    name,
                                    "vars",
                                    value,
                                    format!(
                                        "the value of `{}` must be a string, found {}",
                                        key.text,
                                        value.value.kind()
                                    ),
                                ));
                            };
                            let text = self.substitute(name, "vars", value, &text, vars)?;
                            out.push((key.text.clone(), text));
                        }
                        Vars(out)
                    }
                    Some(other) => {
                        return Err(self.field_problem(
                            name,
                            "vars",
                            other,
                            format!(
                                "must map the child's var names to values, found {}",
                                other.value.kind()
                            ),
                        ));
                    }
                };
                Ok(Task::Workflow(WorkflowTask {
                    name: name.to_owned(),
                    continue_on_error,
                    reference,
                    vars: child_vars,
                    workflow: None,
                    line: step.line,
                    reference_line,
                }))
            }
            _ => {
                self.reject_on_kind(step, &kind, &["vars"])?;
                let (node, prompt) = match step.fields.get("prompt") {
                    Some(n) => (n, self.text(name, "prompt", n)?),
                    None => {
                        return Err(self.problem(
                            code::WORKFLOW_MISSING_FIELD,
                            step.line,
                            format!(
                                "step \"{name}\" has type prompt but no `prompt:` (a step needs `command:`, `prompt:`, `message:` or `workflow:` to do something)"
                            ),
                        ));
                    }
                };
                let prompt = self.substitute(name, "prompt", node, &prompt, vars)?;
                let provider = match step.fields.get("provider") {
                    Some(node) => match &node.value {
                        Value::Str(p) if p == "claude" || p == "opencode" => Some(p.clone()),
                        other => {
                            return Err(self.field_problem(
                                name,
                                "provider",
                                node,
                                format!(
                                    "must be claude or opencode, found {}",
                                    other.scalar_text().unwrap_or_else(|| other.kind().into())
                                ),
                            ));
                        }
                    },
                    None => None,
                };
                let append = match step.fields.get("append_system_prompt") {
                    Some(n) => {
                        let text = self.text(name, "append_system_prompt", n)?;
                        Some(self.substitute(name, "append_system_prompt", n, &text, vars)?)
                    }
                    None => None,
                };
                let context_files = match step.fields.get("context") {
                    Some(node) => {
                        let names = self.string_list(name, "context", node)?;
                        let mut paths = Vec::with_capacity(names.len());
                        for var in names {
                            paths.push(self.resolve_var_path(name, "context", node, &var, vars)?);
                        }
                        paths
                    }
                    None => Vec::new(),
                };
                Ok(Task::Prompt(PromptTask {
                    name: name.to_owned(),
                    prompt,
                    continue_on_error,
                    llm_as_judge: self.boolean(step, "llm_as_judge")?.unwrap_or(false),
                    allowed_tools: match step.fields.get("allowed_tools") {
                        Some(node) => Some(self.string_list(name, "allowed_tools", node)?),
                        None => None,
                    },
                    context_files,
                    output: self.var_path(step, "output", vars)?,
                    timeout_seconds: timeout,
                    provider,
                    model: match step.fields.get("model") {
                        Some(n) => self.text(name, "model", n)?,
                        None => DEFAULT_MODEL.to_owned(),
                    },
                    model_given: step.fields.get("model").is_some(),
                    agent: match step.fields.get("agent") {
                        Some(n) => Some(self.text(name, "agent", n)?),
                        None => None,
                    },
                    append_system_prompt: append,
                    expect: match step.fields.get("expect") {
                        Some(node) => Some(Box::new(self.expect(name, node, vars)?)),
                        None => None,
                    },
                    line: step.line,
                }))
            }
        }
    }

    /// A prompt step's `expect:` mapping: `files`, `changed` (lists of
    /// paths), `command` (a string), `diff` (a boolean); `{{var}}`
    /// substituted in each.
    fn expect(&self, step: &str, node: &Node, vars: &Vars) -> Result<Expect, Problem> {
        let Value::Map(entries) = &node.value else {
            return Err(self.field_problem(
                step,
                "expect",
                node,
                format!(
                    "must be a mapping with any of files, changed, command, diff, attempts (e.g. `expect: {{files: [out.md], diff: true}}`), found {}",
                    node.value.kind()
                ),
            ));
        };
        let mut expect = Expect::default();
        for (key, value) in entries {
            let field = format!("expect.{}", key.text);
            match key.text.as_str() {
                "files" | "changed" => {
                    let mut paths = Vec::new();
                    for path in self.string_list(step, &field, value)? {
                        paths.push(self.substitute(step, &field, value, &path, vars)?);
                    }
                    if key.text == "files" {
                        expect.files = paths;
                    } else {
                        expect.changed = paths;
                    }
                }
                "command" => {
                    let text = self.text(step, &field, value)?;
                    expect.command = Some(self.substitute(step, &field, value, &text, vars)?);
                }
                "attempts" => {
                    let n = self.positive_int(step, &field, value)?;
                    expect.attempts = match u32::try_from(n) {
                        Ok(n) if n <= super::judge::MAX_ATTEMPTS => n,
                        _ => {
                            return Err(self.field_problem(
                                step,
                                &field,
                                value,
                                format!(
                                    "must be at most {}, found {n}",
                                    super::judge::MAX_ATTEMPTS
                                ),
                            ));
                        }
                    };
                }
                "diff" => match &value.value {
                    Value::Bool(b) => expect.diff = *b,
                    other => {
                        return Err(self.field_problem(
                            step,
                            &field,
                            value,
                            format!("must be true or false, found {}", other.kind()),
                        ));
                    }
                },
                other => {
                    return Err(self.field_problem(
                        step,
                        "expect",
                        value,
                        format!(
                            "has the key `{other}`, which it does not read; it reads files, changed, command, diff and attempts"
                        ),
                    ));
                }
            }
        }
        Ok(expect)
    }

    /// Refuses `keys` that make no sense on a step of `kind`.
    fn reject_on_kind(
        &self,
        step: &StepNode<'_, '_>,
        kind: &str,
        keys: &[&str],
    ) -> Result<(), Problem> {
        for key in keys {
            if let Some(node) = step.fields.get(key) {
                return Err(self.field_problem(
                    step.name,
                    key,
                    node,
                    format!("`{key}:` does not apply to a {kind} step"),
                ));
            }
        }
        Ok(())
    }

    fn required_text<'n>(
        &self,
        step: &StepNode<'_, 'n>,
        key: &str,
        kind: &str,
    ) -> Result<(&'n Node, String), Problem> {
        match step.fields.get(key) {
            Some(node) => Ok((node, self.text(step.name, key, node)?)),
            None => Err(self.problem(
                code::WORKFLOW_MISSING_FIELD,
                step.line,
                format!("step \"{}\" has type {kind} but no `{key}:`", step.name),
            )),
        }
    }

    fn text(&self, step: &str, field: &str, node: &Node) -> Result<String, Problem> {
        match &node.value {
            Value::Str(s) => Ok(s.clone()),
            other => Err(self.field_problem(
                step,
                field,
                node,
                format!("must be a string, found {}", other.kind()),
            )),
        }
    }

    fn boolean(&self, step: &StepNode<'_, '_>, field: &str) -> Result<Option<bool>, Problem> {
        match step.fields.get(field) {
            None => Ok(None),
            Some(Node {
                value: Value::Bool(b),
                ..
            }) => Ok(Some(*b)),
            Some(node) => Err(self.field_problem(
                step.name,
                field,
                node,
                format!("must be true or false, found {}", node.value.kind()),
            )),
        }
    }

    fn positive_int(&self, step: &str, field: &str, node: &Node) -> Result<i128, Problem> {
        match &node.value {
            Value::Int(n) if *n > 0 => Ok(*n),
            other => Err(self.field_problem(
                step,
                field,
                node,
                format!(
                    "must be a whole number greater than 0, found {}",
                    other.scalar_text().unwrap_or_else(|| other.kind().into())
                ),
            )),
        }
    }

    fn seconds(&self, step: &str, field: &str, node: &Node) -> Result<f64, Problem> {
        let value = match &node.value {
            Value::Int(n) => Some(*n as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        };
        match value {
            Some(v) if v > 0.0 && v <= MAX_TIMEOUT_SECONDS => Ok(v),
            _ => Err(self.field_problem(
                step,
                field,
                node,
                format!(
                    "must be a number of seconds greater than 0 and at most {MAX_TIMEOUT_SECONDS} (a year), found {}",
                    node.value
                        .scalar_text()
                        .unwrap_or_else(|| node.value.kind().into())
                ),
            )),
        }
    }

    fn string_list(&self, step: &str, field: &str, node: &Node) -> Result<Vec<String>, Problem> {
        let Value::Seq(items) = &node.value else {
            return Err(self.field_problem(
                step,
                field,
                node,
                format!("must be a list of strings, found {}", node.value.kind()),
            ));
        };
        items
            .iter()
            .map(|item| match &item.value {
                Value::Str(s) => Ok(s.clone()),
                other => Err(self.field_problem(
                    step,
                    field,
                    item,
                    format!("every entry must be a string, found {}", other.kind()),
                )),
            })
            .collect()
    }

    /// `output:` names a var whose value is the path.
    fn var_path(
        &self,
        step: &StepNode<'_, '_>,
        field: &str,
        vars: &Vars,
    ) -> Result<Option<String>, Problem> {
        let Some(node) = step.fields.get(field) else {
            return Ok(None);
        };
        let var = self.text(step.name, field, node)?;
        self.resolve_var_path(step.name, field, node, &var, vars)
            .map(Some)
    }

    fn resolve_var_path(
        &self,
        step: &str,
        field: &str,
        node: &Node,
        var: &str,
        vars: &Vars,
    ) -> Result<String, Problem> {
        let Some(value) = vars.get(var) else {
            return Err(self.problem(
                code::WORKFLOW_UNDEFINED_VAR,
                node.line,
                format!(
                    "step \"{step}\", field `{field}`: names the var \"{var}\", which is not declared; `{field}:` takes the name of a var holding a path, so add `{var}: <path>` under `vars:`"
                ),
            ));
        };
        self.substitute(step, field, node, value, vars)
    }

    fn substitute(
        &self,
        step: &str,
        field: &str,
        node: &Node,
        text: &str,
        vars: &Vars,
    ) -> Result<String, Problem> {
        let filled = placeholder::fill(text, vars);
        match placeholder::first_unknown(&filled) {
            None => Ok(filled),
            Some(unknown) => Err(self.problem(
                code::WORKFLOW_UNKNOWN_PLACEHOLDER,
                node.line,
                format!(
                    "step \"{step}\", field `{field}`: contains the unknown placeholder \"{{{{{unknown}}}}}\"; declare `{unknown}` under `vars:` (only {{{{item}}}} is filled in at run time)"
                ),
            )),
        }
    }
}

/// A step node while it is being read.
struct StepNode<'a, 'n> {
    name: &'a str,
    fields: Fields<'n>,
    line: u32,
}

/// The known key closest to a misspelt one, when it is close enough to be
/// a typo.
fn closest<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (strsim::levenshtein(word, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}
