//! The workflow generator behind `workflow plan` and `workflow refine`:
//! a description (or a file and an instruction) in, a workflow file that
//! loads out, in three passes through the environment's
//! [`Provider`] (Executant's generator, architecture seed `src/plan.ts`):
//!
//! 1. **research**: an agent that may only read (Read, Grep, Glob) looks at
//!    the project in the current directory for what the workflow will
//!    need: build and test commands, layout, conventions;
//! 2. **decompose**: a call without tools writes the workflow, answering
//!    `{"yaml": "…"}` through a JSON Schema, shown the format's own schema
//!    (`schemas/workflow.schema.json`), the research notes and, for refine,
//!    the current file and the instruction. The YAML must load as `workflow
//!    validate` loads a file (the loader, nested references, the schema);
//!    if it does not, the problems go back to the next attempt;
//! 3. **judge**: a reader checks a draft that loads against what was asked;
//!    a rejection sends its feedback to the next attempt too. A judge that
//!    cannot answer lets the draft through.
//!
//! At most [`MAX_ATTEMPTS`] drafts in all. Every pass gets the same short
//! note on how a good workflow is built, as its appended system prompt.
//! `fast` skips research and the judge. Progress goes to the `say`
//! callback, one line per event, while the passes run; nothing here writes
//! a file (the caller does, atomically, and only on success).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::call::{Call, Permissions};
use super::code;
use super::command::schema_problems;
use super::event::{Event, tool_argument};
use super::load::load_source;
use super::provider::Provider;
use super::remote::Fetcher;
use super::resolve;
use super::step::{Context, Emit, Failure, StepError};
use super::text::tail;

/// Drafts, the first included.
pub(super) const MAX_ATTEMPTS: u32 = 3;
/// How much of the research notes the drafting pass is shown (their end).
const NOTES_CHARS: usize = 16_000;
/// How much of a rejected draft the next attempt is shown.
const DRAFT_CHARS: usize = 24_000;
/// Problems quoted back to the next attempt.
const SHOWN_PROBLEMS: usize = 20;
const READING_TOOLS: [&str; 3] = ["Read", "Grep", "Glob"];
/// What the drafting pass answers.
const DRAFT_SCHEMA: &str = r#"{"type":"object","properties":{"yaml":{"type":"string"},"summary":{"type":"string"}},"required":["yaml"],"additionalProperties":false}"#;
/// What the judge answers.
const VERDICT_SCHEMA: &str = r#"{"type":"object","properties":{"pass":{"type":"boolean"},"feedback":{"type":"string"}},"required":["pass","feedback"],"additionalProperties":false}"#;

/// How good workflows are built: every pass's appended system prompt.
const METHOD: &str = "You design workflows for voyage-helper, a runner of YAML workflows in \
Executant's format. A good workflow works in small steps, each one doing one thing and each \
one checked: understand before changing, change in small increments, and after every change \
run the project's own build and tests as command steps, so that a failure stops the run where \
it happened. Use prompt steps for work that needs judgement and command steps for anything a \
shell can do. Give every prompt step a precise, self-contained task, name the files it \
concerns, and say how it will be checked. Prefer the project's real commands, found by \
reading it, over guesses.";

/// What to write.
pub(super) enum Ask<'a> {
    /// A new workflow for this description.
    Plan { description: &'a str },
    /// The workflow `current` (the file's text) changed as `instruction`
    /// says.
    Refine {
        current: &'a str,
        instruction: &'a str,
    },
}

/// The request: what to write, where it will live (nested references are
/// checked from its directory), and whether to skip research and judge.
pub(super) struct Job<'a> {
    pub ask: Ask<'a>,
    pub target: &'a Path,
    pub fast: bool,
}

/// A workflow that loads.
#[derive(Debug)]
pub(super) struct Draft {
    pub yaml: String,
    pub goal: String,
    pub steps: usize,
    pub attempts: u32,
    pub cost_usd: f64,
    /// The judge's last objection, when the attempts ran out on a draft
    /// that loads but that it still rejected.
    pub concerns: Option<String>,
}

/// Why no workflow came out.
#[derive(Debug)]
pub(super) enum Failed {
    /// Every draft was invalid; the last one's problems.
    Invalid {
        problems: Vec<String>,
        cost_usd: f64,
    },
    /// An agent call failed (its CLI missing, an API error, a timeout).
    Agent(Failure),
    /// A stopping signal arrived.
    Cancelled,
}

/// Runs the passes for `job`, saying what happens through `say`.
pub(super) fn generate(
    job: &Job<'_>,
    ctx: &Context,
    say: &(dyn Fn(&str) + Sync),
) -> Result<Draft, Failed> {
    let wanted = ctx.settings.provider.as_deref().unwrap_or("claude");
    let provider = Provider::named(wanted).ok_or_else(|| {
        Failed::Agent(Failure::failed(
            code::WORKFLOW_NO_PROVIDER,
            format!(
                "VOYAGE_PROVIDER (or EXECUTANT_PROVIDER) names {wanted}, which this version of \
                 voyage-helper cannot run (it runs: {})",
                Provider::ALL.map(Provider::name).join(", ")
            ),
        ))
    })?;
    let model = ctx.settings.model.as_deref().or(match provider {
        Provider::Claude => Some("sonnet"),
        Provider::OpenCode => None,
    });
    let passes = Passes {
        provider,
        model,
        ctx,
        say,
        cost: Mutex::new(0.0),
    };
    let notes = if job.fast {
        String::new()
    } else {
        say(&format!(
            "researching the project with {} …",
            provider.name()
        ));
        passes.research(&job.ask)?
    };
    let mut feedback: Option<Feedback> = None;
    let mut last_problems = Vec::new();
    for attempt in 1..=MAX_ATTEMPTS {
        say(&format!(
            "drafting the workflow (attempt {attempt} of {MAX_ATTEMPTS}) …"
        ));
        let answer = passes.draft(&job.ask, &notes, feedback.as_ref(), attempt)?;
        let Some(yaml) = answer else {
            let problem = "the answer held no JSON object with the workflow as its \"yaml\" string";
            say(&format!("attempt {attempt}: {problem}"));
            last_problems = vec![problem.to_owned()];
            feedback = Some(Feedback::Invalid {
                draft: String::new(),
                problems: last_problems.clone(),
            });
            continue;
        };
        let (goal, steps) = match check(&yaml, job.target, ctx) {
            Ok(found) => found,
            Err(problems) => {
                say(&format!(
                    "attempt {attempt} does not load: {}{}",
                    problems.first().map_or("", String::as_str),
                    match problems.len() {
                        0 | 1 => String::new(),
                        n => format!(" (and {} more)", n - 1),
                    }
                ));
                last_problems.clone_from(&problems);
                feedback = Some(Feedback::Invalid {
                    draft: yaml,
                    problems,
                });
                continue;
            }
        };
        say(&format!(
            "attempt {attempt} loads: \"{goal}\", {steps} steps"
        ));
        let mut concerns = None;
        if !job.fast {
            say("reviewing the draft …");
            if let Some(objection) = passes.review(&job.ask, &yaml, attempt)? {
                if attempt < MAX_ATTEMPTS {
                    say(&format!("the review asks for changes: {objection}"));
                    feedback = Some(Feedback::Rejected {
                        draft: yaml,
                        objection,
                    });
                    continue;
                }
                say(&format!(
                    "the review still objects, and no attempt is left: {objection}"
                ));
                concerns = Some(objection);
            }
        }
        return Ok(Draft {
            yaml,
            goal,
            steps,
            attempts: attempt,
            cost_usd: passes.cost(),
            concerns,
        });
    }
    Err(Failed::Invalid {
        problems: last_problems,
        cost_usd: passes.cost(),
    })
}

/// What the next attempt is told about the last one.
enum Feedback {
    /// It did not load: the draft and its problems.
    Invalid {
        draft: String,
        problems: Vec<String>,
    },
    /// It loaded, but the judge rejected it.
    Rejected { draft: String, objection: String },
}

/// The three passes on one provider and model.
struct Passes<'a> {
    provider: Provider,
    model: Option<&'a str>,
    ctx: &'a Context,
    say: &'a (dyn Fn(&str) + Sync),
    cost: Mutex<f64>,
}

impl Passes<'_> {
    fn cost(&self) -> f64 {
        *self.cost.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One call: its words and structured answer, its cost counted, its
    /// tool calls said.
    fn ask(
        &self,
        name: &str,
        prompt: &str,
        tools: Option<&[String]>,
        schema: Option<&str>,
    ) -> Result<Heard, Failed> {
        let call = Call {
            name,
            prompt,
            model: self.model,
            allowed_tools: tools,
            append_system_prompt: Some(METHOD),
            agent: None,
            permissions: Permissions::Default,
            json_schema: schema,
            timeout_seconds: None,
        };
        let heard = Listener {
            say: self.say,
            cost: &self.cost,
            texts: Mutex::new(Vec::new()),
            structured: Mutex::new(None),
        };
        match self.provider.call(&call, self.ctx, &heard) {
            Ok(()) => {}
            Err(StepError::Cancelled) => return Err(Failed::Cancelled),
            Err(StepError::Failed(failure)) => return Err(Failed::Agent(failure)),
        }
        Ok(Heard {
            texts: heard
                .texts
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
            structured: heard
                .structured
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
        })
    }

    fn research(&self, ask: &Ask<'_>) -> Result<String, Failed> {
        let tools = reading_tools();
        let heard = self.ask("plan:research", &research_prompt(ask), Some(&tools), None)?;
        let notes = heard.texts.join("\n");
        Ok(tail(&notes, NOTES_CHARS).to_owned())
    }

    /// A draft's YAML, if the answer held one.
    fn draft(
        &self,
        ask: &Ask<'_>,
        notes: &str,
        feedback: Option<&Feedback>,
        attempt: u32,
    ) -> Result<Option<String>, Failed> {
        let prompt = draft_prompt(ask, notes, feedback);
        let name = format!("plan:draft-{attempt}");
        let heard = self.ask(&name, &prompt, Some(&[]), Some(DRAFT_SCHEMA))?;
        Ok(heard
            .structured
            .as_ref()
            .and_then(yaml_of)
            .or_else(|| salvage(&heard.texts.join("\n"), yaml_of)))
    }

    /// The judge's objection to a draft, or `None` when it passes (or
    /// could not say).
    fn review(&self, ask: &Ask<'_>, yaml: &str, attempt: u32) -> Result<Option<String>, Failed> {
        let tools = reading_tools();
        let name = format!("plan:review-{attempt}");
        let prompt = review_prompt(ask, yaml);
        let heard = self.ask(&name, &prompt, Some(&tools), Some(VERDICT_SCHEMA))?;
        let verdict = heard
            .structured
            .as_ref()
            .and_then(verdict_of)
            .or_else(|| salvage(&heard.texts.join("\n"), verdict_of));
        match verdict {
            Some((true, _)) => Ok(None),
            Some((false, feedback)) => Ok(Some(if feedback.is_empty() {
                "the reviewer rejected the draft without saying why".to_owned()
            } else {
                feedback
            })),
            None => {
                (self.say)("the review gave no verdict; the draft goes through unreviewed");
                Ok(None)
            }
        }
    }
}

fn reading_tools() -> Vec<String> {
    READING_TOOLS.iter().map(|t| (*t).to_owned()).collect()
}

/// What one call said.
struct Heard {
    texts: Vec<String>,
    structured: Option<Value>,
}

/// Takes a call's events: keeps its words and structured answer, adds up
/// its cost, and says each tool it uses.
struct Listener<'a> {
    say: &'a (dyn Fn(&str) + Sync),
    cost: &'a Mutex<f64>,
    texts: Mutex<Vec<String>>,
    structured: Mutex<Option<Value>>,
}

impl Emit for Listener<'_> {
    fn emit(&self, event: Event) {
        match event {
            Event::OutputText { text, .. } => self
                .texts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(text),
            Event::OutputStructured { data } => {
                *self
                    .structured
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(data);
            }
            Event::OutputCost { usd, .. } => {
                *self.cost.lock().unwrap_or_else(PoisonError::into_inner) += usd;
            }
            // The claude CLI's structured answer arrives as a tool call;
            // it is the answer, not a step of the work.
            Event::OutputTool { tool, .. } if tool == "StructuredOutput" => {}
            Event::OutputTool { tool, input, .. } => {
                let argument = tool_argument(&tool, &input);
                (self.say)(&format!("  {tool} {}", super::text::head(&argument, 120)));
            }
            _ => {}
        }
    }
}

/// Checks a draft as `workflow validate` checks a file that would live at
/// `target`: the loader (with no `--var`), its nested references, the
/// schema. Its goal and number of steps, or every problem as a line.
pub(super) fn check(
    yaml: &str,
    target: &Path,
    ctx: &Context,
) -> Result<(String, usize), Vec<String>> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let render = |problem: &crate::problem::Problem| {
        let mut out = Vec::new();
        let _ = problem.render_text(&mut out);
        String::from_utf8_lossy(&out).trim_end().to_owned()
    };
    let mut loaded =
        load_source(yaml.to_owned(), target, dir, &[]).map_err(|problem| vec![render(&problem)])?;
    let fetcher = Fetcher {
        timeout: ctx.settings.fetch_timeout,
    };
    resolve::resolve(&mut loaded, &fetcher).map_err(|problem| vec![render(&problem)])?;
    let problems: Vec<String> = schema_problems(target, yaml).iter().map(render).collect();
    if problems.is_empty() {
        Ok((loaded.workflow.goal.clone(), loaded.workflow.tasks.len()))
    } else {
        Err(problems)
    }
}

fn yaml_of(value: &Value) -> Option<String> {
    value
        .get("yaml")
        .and_then(Value::as_str)
        .filter(|y| !y.trim().is_empty())
        .map(str::to_owned)
}

fn verdict_of(value: &Value) -> Option<(bool, String)> {
    Some((
        value.get("pass")?.as_bool()?,
        value
            .get("feedback")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    ))
}

/// The first JSON object in `text` that `read` accepts.
fn salvage<T>(text: &str, read: impl Fn(&Value) -> Option<T>) -> Option<T> {
    text.match_indices('{').find_map(|(at, _)| {
        let rest = text.get(at..)?;
        let value = serde_json::Deserializer::from_str(rest)
            .into_iter::<Value>()
            .next()?
            .ok()?;
        read(&value)
    })
}

/// The task, in the words each prompt uses.
fn task_words(ask: &Ask<'_>) -> String {
    match ask {
        Ask::Plan { description } => {
            format!("The workflow to write:\n\"\"\"\n{description}\n\"\"\"")
        }
        Ask::Refine {
            current,
            instruction,
        } => format!(
            "The workflow file as it is now:\n```yaml\n{current}\n```\n\nThe change to make:\n\
             \"\"\"\n{instruction}\n\"\"\""
        ),
    }
}

fn research_prompt(ask: &Ask<'_>) -> String {
    format!(
        "Someone wants a YAML workflow that an automated runner will carry out in the project in \
         the current directory. Before it is written, study the project for what the workflow \
         will need, reading files rather than guessing: the commands that build, test and lint \
         it; where the code the task concerns lives; conventions a change must follow; anything \
         that would make a step fail. Do not change anything.\n\n{}\n\nAnswer with short notes: \
         facts and exact commands, no plan.",
        task_words(ask)
    )
}

fn draft_prompt(ask: &Ask<'_>, notes: &str, feedback: Option<&Feedback>) -> String {
    let mut prompt = String::new();
    let _ = write!(
        prompt,
        "Write a workflow file for voyage-helper (Executant's format).\n\n{}\n\n",
        task_words(ask)
    );
    if !notes.trim().is_empty() {
        let _ = write!(
            prompt,
            "Notes from a look at the project:\n\"\"\"\n{notes}\n\"\"\"\n\n"
        );
    }
    let _ = write!(
        prompt,
        "The file is YAML with a `goal:` (one line), optional `vars:` (give each var a \
         default value) and `steps:`. Each step has a unique `name:` and one of `command:` (a \
         shell line), `prompt:` (a task for an agent), `message:` (a line to log), `forEach:` \
         or `repeat:` with child `steps:`, or `workflow:` (another file). For example:\n\
         ```yaml\ngoal: Add a --version flag\nsteps:\n  - name: implement\n    prompt: |\n      \
         Add a --version flag to the CLI in src/cli.rs that prints the crate version.\n    \
         llm_as_judge: true\n  - name: test\n    command: cargo test\n    self_healing: true\n\
         ```\nThe YAML document must follow this JSON Schema:\n{}\n\n",
        crate::schema::find("workflow").unwrap_or("{}")
    );
    match feedback {
        Some(Feedback::Invalid { draft, problems }) => {
            let _ = write!(
                prompt,
                "Your previous draft could not be loaded. Fix every problem listed and keep \
                 the rest.\nProblems:\n"
            );
            for problem in problems.iter().take(SHOWN_PROBLEMS) {
                let _ = writeln!(prompt, "- {problem}");
            }
            if !draft.is_empty() {
                let _ = write!(
                    prompt,
                    "The previous draft:\n```yaml\n{}\n```\n\n",
                    tail(draft, DRAFT_CHARS)
                );
            }
        }
        Some(Feedback::Rejected { draft, objection }) => {
            let _ = write!(
                prompt,
                "A reviewer rejected your previous draft:\n\"\"\"\n{objection}\n\"\"\"\nThe \
                 previous draft:\n```yaml\n{}\n```\nAddress every point.\n\n",
                tail(draft, DRAFT_CHARS)
            );
        }
        None => {}
    }
    prompt.push_str(
        "Answer with a JSON object whose \"yaml\" string is the whole workflow file, and an \
         optional one-sentence \"summary\".",
    );
    prompt
}

fn review_prompt(ask: &Ask<'_>, yaml: &str) -> String {
    format!(
        "You review a workflow file before it runs. Judge whether it does what was asked, with \
         each step small, precise and checked, and whether its commands exist in the project in \
         the current directory (read files to check; change nothing).\n\n{}\n\nThe draft:\n\
         ```yaml\n{yaml}\n```\n\nAnswer with pass true when it is ready to run; else pass false \
         and feedback: what exactly to change, as instructions.",
        task_words(ask)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn answers_are_read_from_structured_data_or_words() {
        assert_eq!(
            yaml_of(&json!({"yaml": "goal: x\n"})).as_deref(),
            Some("goal: x\n")
        );
        assert_eq!(yaml_of(&json!({"yaml": "  "})), None);
        assert_eq!(yaml_of(&json!({"yaml": 3})), None);
        let words = "Here: {not json} then {\"yaml\": \"goal: y\"}";
        assert_eq!(salvage(words, yaml_of).as_deref(), Some("goal: y"));
        assert_eq!(
            verdict_of(&json!({"pass": false, "feedback": "more"})),
            Some((false, "more".into()))
        );
        assert_eq!(verdict_of(&json!({"pass": "no"})), None);
    }

    #[test]
    fn the_draft_prompt_carries_the_task_the_schema_and_the_feedback() {
        let ask = Ask::Refine {
            current: "goal: old\nsteps: []\n",
            instruction: "add a test step",
        };
        let plain = draft_prompt(&ask, "", None);
        assert!(plain.contains("goal: old"), "{plain}");
        assert!(plain.contains("add a test step"));
        assert!(
            plain.contains("\"$schema\""),
            "the format's schema is shown"
        );
        assert!(!plain.contains("Notes from"));
        let again = draft_prompt(
            &Ask::Plan {
                description: "ship it",
            },
            "cargo test runs the tests",
            Some(&Feedback::Invalid {
                draft: "goal: x".into(),
                problems: vec!["error[WORKFLOW_MISSING_FIELD]: no steps".into()],
            }),
        );
        assert!(again.contains("ship it"));
        assert!(again.contains("cargo test runs the tests"));
        assert!(again.contains("- error[WORKFLOW_MISSING_FIELD]: no steps\n"));
        assert!(again.contains("```yaml\ngoal: x\n```"));
        let rejected = draft_prompt(
            &Ask::Plan { description: "d" },
            "",
            Some(&Feedback::Rejected {
                draft: "goal: z".into(),
                objection: "no tests".into(),
            }),
        );
        assert!(rejected.contains("rejected your previous draft:\n\"\"\"\nno tests"));
    }

    #[test]
    fn the_schemas_are_json() {
        for schema in [DRAFT_SCHEMA, VERDICT_SCHEMA] {
            let value: Value = serde_json::from_str(schema).unwrap();
            assert_eq!(value["type"], "object");
        }
    }
}
