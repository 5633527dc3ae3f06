//! `workflow run` / `workflow validate`: loading a workflow file, spec §1 of
//! `docs/maintainer/executant.md` row by row (the rows that apply to steps
//! without an agent), through the real binary on files in temp dirs.
//!
//! Every refused file exits 2 and says where: the file, the step, the field
//! and a line (`error[CODE]: step "x", field `y`: … (wf.yaml:7)`); `workflow
//! validate` refuses it the same way.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use crate::common::{Dir, copy_examples, examples};
use serde_json::Value;

/// Writes `yaml` as `wf.yaml` and runs it with `--ci`.
fn run(yaml: &str, args: &[&str]) -> crate::common::Run {
    let dir = Dir::new();
    dir.write("wf.yaml", yaml);
    dir.ci("wf.yaml", args)
}

/// `yaml` must be refused at load: exit 2 from `workflow run` (no event on
/// stdout) and from `workflow validate`, both with `error[code]` on the
/// location `wf.yaml:line` and every fragment in the message. Returns the
/// run's stderr.
#[track_caller]
fn refused(yaml: &str, args: &[&str], code: &str, line: u32, fragments: &[&str]) -> String {
    let dir = Dir::new();
    dir.write("wf.yaml", yaml);
    let ran = dir.ci("wf.yaml", args);
    ran.status_is(2);
    assert!(ran.events.is_empty(), "nothing runs: {:?}", ran.briefs());
    let error = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("error["))
        .unwrap_or_else(|| panic!("an error line on stderr: {}", ran.stderr));
    assert!(
        error.starts_with(&format!("error[{code}]: ")),
        "code {code}: {error}"
    );
    assert!(
        error.ends_with(&format!("(wf.yaml:{line})")),
        "file and line wf.yaml:{line}: {error}"
    );
    for fragment in fragments {
        assert!(error.contains(fragment), "{fragment:?} in: {error}");
    }
    // `workflow validate` refuses it the same way, on stdout.
    let mut validate = vec!["workflow", "validate"];
    let vars: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--var")
        .flat_map(|w| ["--var", w[1]])
        .collect();
    validate.extend(vars);
    validate.push("wf.yaml");
    let checked = dir.plain(&validate);
    assert_eq!(checked.status, 2, "validate: {}", checked.stdout);
    assert!(
        checked.stdout.lines().any(|l| l == error),
        "validate reports the same error:\n{}\nrun said:\n{error}",
        checked.stdout
    );
    ran.stderr
}

fn task_types(start: &Value) -> Vec<&str> {
    start["workflow"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect()
}

// ---------------------------------------------------------------- §1.3 types

#[test]
fn type_inference_follows_executant_order() {
    let dir = Dir::new();
    dir.write("child.yaml", "goal: child\nsteps: []\n");
    dir.write(
        "wf.yaml",
        r#"goal: inference
steps:
  - name: workflow beats command
    workflow: ./child.yaml
    command: echo not run
  - name: command beats message
    command: echo ran
    message: not a log
  - name: message alone is a log
    message: hello
  - name: message and prompt is a prompt
    message: m
    prompt: p
  - name: typed log falls back to prompt
    type: log
    prompt: from the prompt field
  - name: typed log falls back to its name
    type: log
  - name: script is command
    type: script
    command: echo s
  - name: command is command
    type: command
    command: echo c
"#,
    );
    let ran = dir.ci("wf.yaml", &["--step", "2"]);
    ran.status_is(0);
    let start = &ran.events[0];
    assert_eq!(
        task_types(start),
        [
            "workflow", "command", "log", "claude", "log", "log", "command", "command"
        ]
    );
    let tasks = &start["workflow"]["tasks"];
    assert_eq!(tasks[2]["message"], "hello");
    assert_eq!(tasks[4]["message"], "from the prompt field");
    assert_eq!(tasks[5]["message"], "typed log falls back to its name");
    assert_eq!(tasks[3]["prompt"], "p");
    assert_eq!(tasks[3]["model"], "sonnet", "the loader's default model");
    assert_eq!(
        ran.texts(),
        ["ran"],
        "only --step 2 ran: {:?}",
        ran.briefs()
    );
}

#[test]
fn a_step_with_only_a_name_is_a_prompt_without_a_prompt() {
    refused(
        "goal: g\nsteps:\n  - name: lonely\n",
        &[],
        "WORKFLOW_MISSING_FIELD",
        3,
        &["step \"lonely\"", "type prompt", "`prompt:`"],
    );
}

#[test]
fn an_explicit_type_needs_its_field_and_a_known_name() {
    refused(
        "goal: g\nsteps:\n  - name: a\n    type: command\n    message: hi\n",
        &[],
        "WORKFLOW_MISSING_FIELD",
        3,
        &["step \"a\"", "type command", "`command:`"],
    );
    refused(
        "goal: g\nsteps:\n  - name: a\n    type: shell\n    command: echo\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        4,
        &["step \"a\"", "field `type`", "\"shell\""],
    );
}

// ----------------------------------------------------------------- §1.4 vars

#[test]
fn var_defaults_fill_placeholders_and_the_cli_overrides_them() {
    let yaml = r#"goal: vars
vars:
  greeting: Hello
  who: world
steps:
  - name: greet
    message: "{{greeting}}, {{who}}!"
  - name: echo
    command: echo "{{who}}"
"#;
    let ran = run(yaml, &[]);
    ran.status_is(0);
    assert_eq!(ran.texts(), ["Hello, world!", "world"]);
    assert_eq!(ran.of("log")[0]["text"], "$ echo \"world\"");

    let ran = run(yaml, &["--var", "who=CLI"]);
    ran.status_is(0);
    assert_eq!(ran.texts(), ["Hello, CLI!", "CLI"]);
    assert_eq!(
        ran.events[0]["workflow"]["vars"],
        serde_json::json!({"greeting": "Hello", "who": "CLI"})
    );

    // Repeated: the last one wins; a value may hold `=`.
    let ran = run(yaml, &["--var", "who=first", "--var", "who=a=b"]);
    ran.status_is(0);
    assert_eq!(ran.texts(), ["Hello, a=b!", "a=b"]);
}

#[test]
fn a_var_given_but_not_declared_is_refused() {
    let stderr = refused(
        "goal: g\nvars:\n  who: world\nsteps: []\n",
        &["--var", "nope=1"],
        "WORKFLOW_UNDECLARED_VAR",
        1,
        &["`nope`", "does not declare it", "it declares: who"],
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    refused(
        "goal: g\nsteps: []\n",
        &["--var", "nope=1"],
        "WORKFLOW_UNDECLARED_VAR",
        1,
        &["`nope`", "it declares no vars"],
    );
}

#[test]
fn required_vars_must_be_given() {
    let yaml = "goal: g\nvars:\n  region:\n  size: big\n  zone:\nsteps:\n  - name: show\n    command: echo {{region}} {{size}} {{zone}}\n";
    refused(
        yaml,
        &[],
        "WORKFLOW_MISSING_VAR",
        3,
        &["missing required var(s) region, zone", "--var"],
    );
    refused(
        yaml,
        &["--var", "region=eu"],
        "WORKFLOW_MISSING_VAR",
        5,
        &["missing required var(s) zone"],
    );
    let ran = run(yaml, &["--var", "region=eu", "--var", "zone=b"]);
    ran.status_is(0);
    assert_eq!(ran.texts(), ["eu big b"]);
}

#[test]
fn numeric_and_boolean_values_are_accepted_as_written() {
    // Executant refuses these (its schema library wants strings); we use
    // the text YAML shows, a documented difference.
    let ran = run(
        r#"goal: numbers
vars:
  port: 8080
  debug: true
  ratio: 1.5
steps:
  - name: show
    command: echo "{{port}} {{debug}} {{ratio}}"
  - name: each
    forEach: [1, 2.5, false]
    command: echo "item {{item}}"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(
        ran.texts(),
        ["8080 true 1.5", "item 1", "item 2.5", "item false"]
    );
    assert_eq!(ran.events[0]["workflow"]["vars"]["port"], "8080");
}

// --------------------------------------------------------- §1.4 placeholders

#[test]
fn an_unknown_placeholder_names_the_step_the_field_and_the_line() {
    let cases: &[(&str, &str, &str, u32)] = &[
        (
            "goal: g\nsteps:\n  - name: build\n    command: echo {{nope}}\n",
            "build",
            "command",
            4,
        ),
        (
            "goal: g\nsteps:\n  - name: say\n\n    message: \"hi {{nope}}\"\n",
            "say",
            "message",
            5,
        ),
        (
            "goal: g\nsteps:\n  - name: ask\n    prompt: \"do {{nope}}\"\n",
            "ask",
            "prompt",
            4,
        ),
        (
            "goal: g\nsteps:\n  - name: each\n    forEach:\n      - a\n      - \"{{nope}}\"\n    command: echo {{item}}\n",
            "each",
            "forEach",
            6,
        ),
        (
            "goal: g\nsteps:\n  - name: each\n    forEach: \"ls {{nope}}\"\n    command: echo {{item}}\n",
            "each",
            "forEach",
            4,
        ),
        (
            "goal: g\nsteps:\n  - name: nest\n    workflow: \"{{nope}}.yaml\"\n",
            "nest",
            "workflow",
            4,
        ),
        (
            "goal: g\nsteps:\n  - name: nest\n    workflow: child.yaml\n    vars:\n      x: \"{{nope}}\"\n",
            "nest",
            "vars",
            6,
        ),
        (
            "goal: g\nvars:\n  out: \"{{nope}}/x.txt\"\nsteps:\n  - name: save\n    command: echo\n    output: out\n",
            "save",
            "output",
            7,
        ),
        (
            "goal: g\nsteps:\n  - name: outer\n    forEach: [a]\n    steps:\n      - name: inner\n        command: echo {{item}} {{nope}}\n",
            "inner",
            "command",
            7,
        ),
    ];
    for (yaml, step, field, line) in cases {
        refused(
            yaml,
            &[],
            "WORKFLOW_UNKNOWN_PLACEHOLDER",
            *line,
            &[
                &format!("step \"{step}\""),
                &format!("field `{field}`"),
                "\"{{nope}}\"",
            ],
        );
    }
}

#[test]
fn placeholders_fill_in_declaration_order() {
    // A var holding another placeholder resolves only when the var it names
    // is declared later (Executant's literal replace, in order).
    let later = "goal: g\nvars:\n  path: \"{{root}}/bin\"\n  root: /opt\nsteps:\n  - name: show\n    command: echo {{path}}\n";
    let ran = run(later, &[]);
    ran.status_is(0);
    assert_eq!(ran.texts(), ["/opt/bin"]);

    let earlier = "goal: g\nvars:\n  root: /opt\n  path: \"{{root}}/bin\"\nsteps:\n  - name: show\n    command: echo {{path}}\n";
    refused(
        earlier,
        &[],
        "WORKFLOW_UNKNOWN_PLACEHOLDER",
        7,
        &["step \"show\"", "field `command`", "\"{{root}}\""],
    );
}

#[test]
fn values_are_inserted_literally_and_only_word_placeholders_count() {
    let ran = run(
        r#"goal: g
vars:
  money: "$1 $& \\n"
steps:
  - name: "greet {{money}}"
    command: "printf '%s|%s|%s\n' '{{money}}' '{{ spaced }}' '{{a-b}}'"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(ran.texts(), ["$1 $& \\n|{{ spaced }}|{{a-b}}"]);
    // Names are not substituted.
    assert_eq!(ran.of("step:start")[0]["name"], "greet {{money}}");
}

#[test]
fn item_is_left_for_run_time() {
    // Outside a loop nothing fills it: the text stays as written.
    let ran = run(
        r#"goal: g
steps:
  - name: plain
    command: echo "{{item}}"
  - name: looped
    forEach: [a, b]
    steps:
      - name: "show {{item}}"
        message: "got {{item}}"
"#,
        &[],
    );
    ran.status_is(0);
    assert_eq!(ran.texts(), ["{{item}}", "got a", "got b"]);
    let looped = &ran.events[0]["workflow"]["tasks"][1];
    assert_eq!(looped["inner"][0]["name"], "show {{item}}");
    assert_eq!(looped["inner"][0]["message"], "got {{item}}");
}

// ----------------------------------------------------------- unknown keys

#[test]
fn unknown_keys_are_warned_with_their_line_not_fatal() {
    let yaml = r#"goal: g
eval_criteria: ignored
steps:
  - name: typo
    command: echo ok
    continue_on_eror: true
"#;
    let ran = run(yaml, &[]);
    ran.status_is(0);
    let warnings: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning["))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning[WORKFLOW_UNKNOWN_KEY]: unknown key `eval_criteria` in the top level is ignored (wf.yaml:2)",
            "warning[WORKFLOW_UNKNOWN_KEY]: unknown key `continue_on_eror` in step \"typo\" is ignored (did you mean `continue_on_error`?) (wf.yaml:6)",
        ],
        "{}",
        ran.stderr
    );
    assert_eq!(ran.texts(), ["ok"]);
    // The typo really is ignored: the step is not continue_on_error.
    assert_eq!(
        ran.events[0]["workflow"]["tasks"][0]["continueOnError"],
        false
    );

    let dir = Dir::new();
    dir.write("wf.yaml", yaml);
    let checked = dir.plain(&["workflow", "validate", "--json", "wf.yaml"]);
    assert_eq!(checked.status, 0, "{}", checked.stdout);
    let report: Value = serde_json::from_str(&checked.stdout).unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(report["warnings"].as_array().unwrap().len(), 2);
    assert_eq!(report["warnings"][1]["code"], "WORKFLOW_UNKNOWN_KEY");
    assert_eq!(report["warnings"][1]["line"], 6);
}

// ------------------------------------------------------------ names, loops

#[test]
fn top_level_names_are_unique_children_need_not_be() {
    refused(
        "goal: g\nsteps:\n  - name: a\n    message: one\n  - name: b\n    message: two\n  - name: a\n    message: three\n",
        &[],
        "WORKFLOW_DUPLICATE_STEP",
        7,
        &["duplicate step name \"a\"", "first used on line 3"],
    );
    let ran = run(
        "goal: g\nsteps:\n  - name: loop\n    repeat: 1\n    steps:\n      - name: same\n        message: one\n      - name: same\n        message: two\n",
        &[],
    );
    ran.status_is(0);
    assert_eq!(ran.texts(), ["one", "two"]);
}

#[test]
fn loop_rules_are_enforced() {
    let cases: &[(&str, &str, &str, u32, &str)] = &[
        (
            "goal: g\nsteps:\n  - name: both\n    forEach: [a]\n    repeat: 2\n    command: echo\n",
            "both",
            "repeat",
            5,
            "both `repeat:` and `forEach:`",
        ),
        (
            "goal: g\nsteps:\n  - name: orphans\n    steps:\n      - name: c\n        message: hi\n",
            "orphans",
            "steps",
            5,
            "needs `forEach:` or `repeat:`",
        ),
        (
            "goal: g\nsteps:\n  - name: fast\n    concurrency: 2\n    command: echo\n",
            "fast",
            "concurrency",
            4,
            "loops only",
        ),
        (
            "goal: g\nsteps:\n  - name: mixed\n    repeat: 2\n    command: echo\n    steps:\n      - name: c\n        message: hi\n",
            "mixed",
            "command",
            5,
            "cannot also have `command:`",
        ),
        (
            "goal: g\nsteps:\n  - name: mixed\n    repeat: 2\n    message: hi\n    steps:\n      - name: c\n        message: hi\n",
            "mixed",
            "message",
            5,
            "cannot also have `message:`",
        ),
        (
            "goal: g\nsteps:\n  - name: none\n    repeat: 0\n    message: hi\n",
            "none",
            "repeat",
            4,
            "greater than 0",
        ),
        (
            "goal: g\nsteps:\n  - name: lazy\n    repeat: 2\n    concurrency: 0\n    message: hi\n",
            "lazy",
            "concurrency",
            5,
            "greater than 0",
        ),
        (
            "goal: g\nsteps:\n  - name: empty\n    repeat: 2\n    steps: []\n",
            "empty",
            "steps",
            5,
            "at least one step",
        ),
        (
            "goal: g\nsteps:\n  - name: odd\n    forEach: {a: b}\n    message: hi\n",
            "odd",
            "forEach",
            4,
            "a list of items or a shell command",
        ),
        (
            "goal: g\nsteps:\n  - name: deep\n    forEach:\n      - [a, b]\n    message: hi\n",
            "deep",
            "forEach",
            5,
            "every item must be a string",
        ),
    ];
    for (yaml, step, field, line, why) in cases {
        refused(
            yaml,
            &[],
            "WORKFLOW_INVALID_FIELD",
            *line,
            &[
                &format!("step \"{step}\""),
                &format!("field `{field}`"),
                why,
            ],
        );
    }
}

#[test]
fn workflow_steps_are_refused_inside_loops() {
    // As a child of `steps:`, and as the shorthand loop's own body.
    refused(
        "goal: g\nsteps:\n  - name: outer\n    forEach: [a]\n    steps:\n      - name: nest\n        workflow: child.yaml\n",
        &[],
        "WORKFLOW_NESTED_IN_LOOP",
        7,
        &[
            "step \"nest\"",
            "field `workflow`",
            "inside a forEach/repeat loop",
        ],
    );
    refused(
        "goal: g\nsteps:\n  - name: each\n    repeat: 2\n    workflow: child.yaml\n",
        &[],
        "WORKFLOW_NESTED_IN_LOOP",
        5,
        &["step \"each\"", "field `workflow`"],
    );
}

// ------------------------------------------------------- fields by kind

#[test]
fn fields_that_do_not_apply_to_a_kind_are_refused() {
    let cases: &[(&str, &str, &str, u32, &str)] = &[
        (
            "goal: g\nvars:\n  out: o.txt\nsteps:\n  - name: note\n    message: hi\n    output: out\n",
            "note",
            "output",
            7,
            "does not apply to a log step",
        ),
        (
            "goal: g\nvars:\n  out: o.txt\nsteps:\n  - name: nest\n    workflow: c.yaml\n    output: out\n",
            "nest",
            "output",
            7,
            "does not apply to a workflow step",
        ),
        (
            "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    vars:\n      a: b\n",
            "cmd",
            "vars",
            6,
            "does not apply to a script step",
        ),
        (
            "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    continue_on_error: \"yes\"\n",
            "cmd",
            "continue_on_error",
            5,
            "true or false",
        ),
        (
            "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    timeout_seconds: 0\n",
            "cmd",
            "timeout_seconds",
            5,
            "greater than 0",
        ),
        (
            // Beyond a year: a deadline that far would overflow the clock.
            "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    timeout_seconds: 1e20\n",
            "cmd",
            "timeout_seconds",
            5,
            "at most 31536000",
        ),
        (
            "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    timeout_seconds: soon\n",
            "cmd",
            "timeout_seconds",
            5,
            "number of seconds",
        ),
        (
            "goal: g\nsteps:\n  - name: cmd\n    command: [echo, hi]\n",
            "cmd",
            "command",
            4,
            "must be a string",
        ),
        (
            "goal: g\nsteps:\n  - name: ask\n    prompt: p\n    provider: gemini\n",
            "ask",
            "provider",
            5,
            "claude or opencode",
        ),
    ];
    for (yaml, step, field, line, why) in cases {
        refused(
            yaml,
            &[],
            "WORKFLOW_INVALID_FIELD",
            *line,
            &[
                &format!("step \"{step}\""),
                &format!("field `{field}`"),
                why,
            ],
        );
    }
    refused(
        "goal: g\nsteps:\n  - name: save\n    command: echo\n    output: result\n",
        &[],
        "WORKFLOW_UNDEFINED_VAR",
        5,
        &[
            "step \"save\"",
            "field `output`",
            "\"result\"",
            "not declared",
        ],
    );
}

#[test]
fn the_document_itself_is_checked() {
    refused(
        "steps: []\n",
        &[],
        "WORKFLOW_MISSING_FIELD",
        1,
        &["`goal:`"],
    );
    refused("goal: g\n", &[], "WORKFLOW_MISSING_FIELD", 1, &["`steps:`"]);
    refused(
        "goal: g\nsteps:\n  name: a\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        3,
        &["`steps` must be a list"],
    );
    refused(
        "goal: g\nvars: [a]\nsteps: []\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        2,
        &["`vars` must be a mapping"],
    );
    refused(
        "goal: g\nvars:\n  a: [x]\nsteps: []\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        3,
        &["var `a`"],
    );
    refused(
        "goal: g\nsteps:\n  - name: a\n    command: \"unterminated\n",
        &[],
        "WORKFLOW_YAML_SYNTAX",
        4,
        &["not valid YAML"],
    );
    refused(
        "goal: g\nsteps:\n  - just a string\n",
        &[],
        "WORKFLOW_INVALID_STEP",
        3,
        &["a step is a mapping"],
    );
    refused(
        "goal: g\nsteps:\n  - command: echo\n",
        &[],
        "WORKFLOW_MISSING_FIELD",
        3,
        &["no `name:`"],
    );
}

#[test]
fn an_empty_step_list_is_a_valid_run() {
    let ran = run("goal: nothing\nsteps: []\n", &[]);
    ran.status_is(0);
    assert_eq!(
        ran.briefs(),
        ["workflow:start", "workflow:report", "workflow:complete"]
    );
    assert!(ran.last().get("lastOutput").is_none());
}

#[test]
fn a_missing_file_exits_2_and_a_malformed_var_flag_exits_1() {
    let dir = Dir::new();
    let ran = dir.ci("absent.yaml", &[]);
    ran.status_is(2);
    assert!(
        ran.stderr.starts_with("error[WORKFLOW_UNREADABLE]: "),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("absent.yaml"), "{}", ran.stderr);

    dir.write("wf.yaml", "goal: g\nvars:\n  a: b\nsteps: []\n");
    for bad in ["novalue", "=x"] {
        let ran = dir.ci("wf.yaml", &["--var", bad]);
        ran.status_is(1);
        assert!(ran.events.is_empty());
        assert!(
            ran.stderr.starts_with("error[WORKFLOW_BAD_VAR]: "),
            "{}",
            ran.stderr
        );
    }
}

// ------------------------------------------------------- workflow validate

#[test]
fn validate_reports_a_valid_file_in_text_and_json() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: Check me\nsteps:\n  - name: a\n    message: hi\n  - name: b\n    command: echo\n",
    );
    let text = dir.plain(&["workflow", "validate", "wf.yaml"]);
    assert_eq!(text.status, 0, "{}", text.stdout);
    assert_eq!(text.stdout, "valid: wf.yaml (2 steps, 0 warnings)\n");

    let json = dir.plain(&["workflow", "validate", "--json", "wf.yaml"]);
    assert_eq!(json.status, 0);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        report,
        serde_json::json!({
            "file": "wf.yaml",
            "valid": true,
            "goal": "Check me",
            "steps": 2,
            "errors": [],
            "warnings": []
        })
    );
    // Validating runs nothing and writes no log.
    assert!(!dir.path().join(".claude").exists());
}

#[test]
fn validate_reports_an_invalid_file_in_text_and_json() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: g\nsteps:\n  - name: a\n    command: echo {{who}}\n",
    );
    let text = dir.plain(&["workflow", "validate", "wf.yaml"]);
    assert_eq!(text.status, 2);
    assert_eq!(
        text.stdout,
        "error[WORKFLOW_UNKNOWN_PLACEHOLDER]: step \"a\", field `command`: contains the unknown placeholder \"{{who}}\"; declare `who` under `vars:` (only {{item}} is filled in at run time) (wf.yaml:4)\n"
    );
    let json = dir.plain(&["workflow", "validate", "--json", "wf.yaml"]);
    assert_eq!(json.status, 2);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["valid"], false);
    assert_eq!(report["steps"], 0);
    assert_eq!(report["goal"], Value::Null);
    let error = &report["errors"][0];
    assert_eq!(error["code"], "WORKFLOW_UNKNOWN_PLACEHOLDER");
    assert_eq!(error["file"], "wf.yaml");
    assert_eq!(error["line"], 4);

    // A var given to validate counts as it would for run.
    dir.write(
        "wf.yaml",
        "goal: g\nvars:\n  who:\nsteps:\n  - name: a\n    command: echo {{who}}\n",
    );
    assert_eq!(dir.plain(&["workflow", "validate", "wf.yaml"]).status, 2);
    let given = dir.plain(&["workflow", "validate", "--var", "who=me", "wf.yaml"]);
    assert_eq!(given.status, 0, "{}", given.stdout);
}

#[test]
fn validate_loads_nested_references() {
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: g\nsteps:\n  - name: nest\n    workflow: ./missing.yaml\n",
    );
    let text = dir.plain(&["workflow", "validate", "wf.yaml"]);
    assert_eq!(text.status, 2);
    assert!(
        text.stdout
            .starts_with("error[WORKFLOW_REFERENCE_NOT_FOUND]: step \"nest\", field `workflow`: \"./missing.yaml\" does not exist"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.ends_with("(wf.yaml:4)\n"), "{}", text.stdout);
}

#[test]
fn every_example_workflow_validates() {
    let mut seen = 0;
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        seen += 1;
        let dir = Dir::new();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        copy_examples(dir.path());
        let text = dir.plain(&["workflow", "validate", &name]);
        let json = dir.plain(&["workflow", "validate", "--json", &name]);
        let report: Value = serde_json::from_str(&json.stdout).unwrap();
        if name == "nested-child.yaml" {
            // A child with a required var: valid only when it is given.
            assert_eq!(text.status, 2, "{name}: {}", text.stdout);
            assert_eq!(report["errors"][0]["code"], "WORKFLOW_MISSING_VAR");
            let given = dir.plain(&["workflow", "validate", "--var", "target=x", &name]);
            assert_eq!(given.status, 0, "{name}: {}", given.stdout);
        } else {
            assert_eq!(text.status, 0, "{name}: {}", text.stdout);
            assert!(text.stdout.starts_with("valid: "), "{}", text.stdout);
            assert_eq!(report["valid"], true, "{name}");
            assert_eq!(report["warnings"], serde_json::json!([]), "{name}");
        }
    }
    assert!(seen >= 6, "the examples are there ({seen})");
}

/// `expect:` is a mapping of files, changed, command and diff on a prompt
/// step; anything else is refused where it is written, and a command step
/// cannot have it.
#[test]
fn expect_is_checked_at_load() {
    let ok = run(
        "goal: g\nvars:\n  out: notes.md\nsteps:\n  - name: stop\n    command: exit 3\n  - name: write\n    prompt: write\n    expect:\n      files: ['{{out}}']\n      changed: [a.md]\n      command: test -s {{out}}\n      diff: true\n",
        &[],
    );
    // The first step fails, so no agent starts; the start event shows the
    // second step as loaded.
    ok.status_is(1);
    let start = &ok.events[0];
    assert_eq!(
        start["workflow"]["tasks"][1]["expect"],
        serde_json::json!({"files": ["notes.md"], "changed": ["a.md"], "command": "test -s notes.md", "diff": true, "attempts": 1}),
        "{start}"
    );
    refused(
        "goal: g\nsteps:\n  - name: write\n    prompt: write\n    expect: notes.md\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        5,
        &[
            "step \"write\", field `expect`: must be a mapping with any of files, changed, command, diff",
        ],
    );
    refused(
        "goal: g\nsteps:\n  - name: write\n    prompt: write\n    expect:\n      exists: [a.md]\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        6,
        &[
            "has the key `exists`, which it does not read; it reads files, changed, command, diff and attempts",
        ],
    );
    refused(
        "goal: g\nsteps:\n  - name: write\n    prompt: write\n    expect:\n      diff: yes please\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        6,
        &["field `expect.diff`: must be true or false"],
    );
    refused(
        "goal: g\nsteps:\n  - name: write\n    prompt: write\n    expect:\n      attempts: 9\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        6,
        &["field `expect.attempts`: must be at most 5, found 9"],
    );
    refused(
        "goal: g\nsteps:\n  - name: cmd\n    command: echo\n    expect:\n      diff: true\n",
        &[],
        "WORKFLOW_INVALID_FIELD",
        6,
        &["`expect:` does not apply to a script step"],
    );
}
