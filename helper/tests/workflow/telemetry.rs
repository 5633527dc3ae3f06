//! OpenTelemetry: `workflow run` with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing
//! at [`Collector`], an OTLP/HTTP receiver on 127.0.0.1 that each test
//! starts and that records every request it gets. The spans and metrics are
//! decoded from the JSON bodies and checked against the run's own `--ci`
//! events: the tree of spans, their attributes and events, the exception
//! cut at 1,000 characters, `TRACEPARENT` in the commands', item sources'
//! and agents' environment, the report's totals on the root span, spans
//! left open by SIGTERM marked aborted. Without the variable the receiver
//! sees no connection at all; one that never answers delays the end of a
//! run by about 3 s, no more.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Dir, Run, collect, wait_until};
use crate::mock_api::{MockApi, Turn};

// ------------------------------------------------------------ the collector

/// What the collector does with a request.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// 200 with `{}`.
    Ok,
    /// Reads the request and never answers.
    Never,
}

/// One request the collector got.
#[derive(Debug, Clone)]
struct Request {
    path: String,
    /// Header names lower-cased.
    headers: HashMap<String, String>,
    body: Value,
    raw: String,
}

struct Collector {
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    connections: Arc<AtomicUsize>,
}

impl Collector {
    fn start(answer: Answer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let (seen, count) = (Arc::clone(&requests), Arc::clone(&connections));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || serve(stream, answer, &seen));
            }
        });
        Self {
            port,
            requests,
            connections,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// Every span of every `/v1/traces` request, checking the envelope.
    fn spans(&self) -> Vec<Value> {
        let mut spans = Vec::new();
        for request in self.requests().iter().filter(|r| r.path == "/v1/traces") {
            let resource_spans = request.body["resourceSpans"].as_array().unwrap();
            for rs in resource_spans {
                for scope in rs["scopeSpans"].as_array().unwrap() {
                    spans.extend(scope["spans"].as_array().unwrap().iter().cloned());
                }
            }
        }
        spans
    }

    /// The metrics of the last `/v1/metrics` request (they are cumulative),
    /// by name.
    fn metrics(&self) -> HashMap<String, Value> {
        let last = self
            .requests()
            .into_iter()
            .rfind(|r| r.path == "/v1/metrics")
            .expect("a metrics export");
        let mut out = HashMap::new();
        for rm in last.body["resourceMetrics"].as_array().unwrap() {
            for scope in rm["scopeMetrics"].as_array().unwrap() {
                for metric in scope["metrics"].as_array().unwrap() {
                    out.insert(metric["name"].as_str().unwrap().to_owned(), metric.clone());
                }
            }
        }
        out
    }
}

/// Reads requests off one connection (kept alive) and answers each.
fn serve(stream: TcpStream, answer: Answer, seen: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => head.push(line.trim_end().to_owned()),
            }
        }
        let path = head
            .first()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("/")
            .to_owned();
        let headers: HashMap<String, String> = head
            .iter()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let mut body = Vec::new();
        if let Some(length) = headers.get("content-length") {
            body.resize(length.parse().unwrap(), 0);
            reader.read_exact(&mut body).unwrap();
        } else if headers
            .get("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                reader.read_exact(&mut chunk).unwrap();
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        }
        let raw = String::from_utf8(body).unwrap();
        let parsed = serde_json::from_str(&raw).unwrap_or(Value::Null);
        seen.lock().unwrap().push(Request {
            path,
            headers,
            body: parsed,
            raw,
        });
        if answer == Answer::Never {
            std::thread::sleep(Duration::from_secs(3600));
            return;
        }
        let reply =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

// ---------------------------------------------------------------- helpers

/// An attribute's value, whatever its kind (`intValue` as a number).
fn attr(item: &Value, key: &str) -> Value {
    let Some(found) = item["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["key"] == key)
    else {
        return Value::Null;
    };
    let value = &found["value"];
    if let Some(i) = value.get("intValue") {
        return json!(i.as_str().unwrap().parse::<i64>().unwrap());
    }
    for kind in ["stringValue", "doubleValue", "boolValue"] {
        if let Some(v) = value.get(kind) {
            return v.clone();
        }
    }
    panic!("unknown value {value}")
}

fn named<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    let found: Vec<&Value> = spans.iter().filter(|s| s["name"] == name).collect();
    assert_eq!(found.len(), 1, "one span named {name:?} in {spans:#?}");
    found[0]
}

fn id(span: &Value) -> &str {
    span["spanId"].as_str().unwrap()
}

fn parent(span: &Value) -> &str {
    span["parentSpanId"].as_str().unwrap_or("")
}

/// The span events of `span` named `name`.
fn events<'a>(span: &'a Value, name: &str) -> Vec<&'a Value> {
    span["events"]
        .as_array()
        .map(|all| all.iter().filter(|e| e["name"] == name).collect())
        .unwrap_or_default()
}

fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len
        && text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// `workflow run --ci wf.yaml` with telemetry sent to `collector`.
fn run_traced(dir: &Dir, collector: &Collector, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = dir.ci_command("wf.yaml", args);
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .envs(env.iter().copied());
    let start = Instant::now();
    let output = cmd.output().unwrap();
    collect(&output, start.elapsed())
}

/// What the `--ci` stream says a step printed.
fn text_of(ran: &Run, index: i64) -> Vec<String> {
    ran.of("output:text")
        .iter()
        .filter(|e| e["index"] == index)
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

// ------------------------------------------------------------------ tests

/// A run of command steps: one root span, a span per top-level step (the
/// skipped one too) with the root as parent, a span per iteration of the
/// loop under the loop's span; each command and the loop's item source got
/// its step's span as `TRACEPARENT`; the failed step's error is an
/// exception event cut at 1,000 characters; no output line goes anywhere;
/// the root carries the report's totals; the five metrics' step ones count
/// the steps that ran.
#[test]
fn a_run_is_one_trace_of_its_steps_and_iterations() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    let long = "x".repeat(1200);
    dir.write(
        "wf.yaml",
        &format!(
            r#"goal: traced
steps:
  - name: skipped
    command: echo never
  - name: note
    message: a log line
  - name: show
    command: echo "SECRET-LINE $TRACEPARENT"
  - name: loop
    forEach: echo "$TRACEPARENT" > items-tp; printf 'a\nb\n'
    steps:
      - name: inner
        command: echo "item {{{{item}}}} $TRACEPARENT"
  - name: {long}
    command: exit 3
    continue_on_error: true
"#
        ),
    );
    let ran = run_traced(
        &dir,
        &collector,
        &["--from-step", "2"],
        &[("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=s%3Dcret")],
    );
    ran.status_is(0);
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);

    let requests = collector.requests();
    assert!(requests.iter().any(|r| r.path == "/v1/traces"));
    assert!(requests.iter().any(|r| r.path == "/v1/metrics"));
    for request in &requests {
        assert_eq!(request.headers["content-type"], "application/json");
        assert_eq!(
            request.headers["x-api-key"], "s=cret",
            "headers are percent-decoded"
        );
        assert!(
            !request.raw.contains("SECRET-LINE"),
            "an output line was exported: {}",
            request.raw
        );
        let resource = &request.body[if request.path == "/v1/traces" {
            "resourceSpans"
        } else {
            "resourceMetrics"
        }][0]["resource"];
        assert_eq!(attr(resource, "service.name"), "voyage-helper");
    }

    let spans = collector.spans();
    let trace = spans[0]["traceId"].as_str().unwrap().to_owned();
    assert!(is_hex(&trace, 32), "{trace}");
    for span in &spans {
        assert_eq!(span["traceId"], trace.as_str(), "{span}");
        assert!(is_hex(id(span), 16), "{span}");
    }
    let root = named(&spans, "voyage.run");
    assert_eq!(parent(root), "");
    assert_eq!(root["status"]["code"], 1);
    assert_eq!(attr(root, "voyage.goal"), "traced");
    assert_eq!(attr(root, "voyage.step_count"), 5);
    // The report's totals, as the report says them.
    let report = &ran.of("workflow:report")[0]["report"];
    assert_eq!(attr(root, "voyage.cost.total.usd"), report["totalCostUsd"]);
    assert_eq!(attr(root, "voyage.duration_ms"), report["durationMs"]);
    assert_eq!(
        attr(root, "voyage.tokens.input"),
        report["totalTokens"]["inputTokens"]
    );
    assert_eq!(
        attr(root, "voyage.tokens.output"),
        report["totalTokens"]["outputTokens"]
    );
    assert_eq!(attr(root, "voyage.overflow.calls"), report["overflowCalls"]);

    let steps: Vec<&Value> = spans.iter().filter(|s| parent(s) == id(root)).collect();
    let mut names: Vec<(i64, String)> = steps
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap();
            (
                attr(s, "voyage.step.index").as_i64().unwrap(),
                name.chars().take(8).collect(),
            )
        })
        .collect();
    names.sort();
    let names: Vec<(i64, &str)> = names.iter().map(|(i, n)| (*i, n.as_str())).collect();
    assert_eq!(
        names,
        [
            (0, "skipped"),
            (1, "note"),
            (2, "show"),
            (3, "loop"),
            (4, "xxxxxxxx")
        ]
    );
    let skipped = named(&spans, "skipped");
    assert_eq!(attr(skipped, "voyage.step.skipped"), true);
    let show = named(&spans, "show");
    assert_eq!(attr(show, "voyage.step.type"), "command");
    assert_eq!(attr(show, "voyage.cost.usd"), 0.0);
    assert_eq!(show["status"]["code"], 1);
    assert_eq!(attr(named(&spans, "note"), "voyage.step.type"), "log");

    // TRACEPARENT: the running step's span, in the run's trace.
    let wanted = |span: &Value| format!("00-{trace}-{}-01", id(span));
    assert_eq!(text_of(&ran, 2), [format!("SECRET-LINE {}", wanted(show))]);
    let looped = named(&spans, "loop");
    assert_eq!(attr(looped, "voyage.step.type"), "forEach");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("items-tp"))
            .unwrap()
            .trim(),
        wanted(looped),
        "the item source's TRACEPARENT"
    );
    assert_eq!(
        text_of(&ran, 3),
        [
            format!("item a {}", wanted(looped)),
            format!("item b {}", wanted(looped))
        ]
    );
    for (n, item) in [(1, "a"), (2, "b")] {
        let iteration = named(&spans, &format!("iteration {n}/2"));
        assert_eq!(parent(iteration), id(looped));
        assert_eq!(attr(iteration, "voyage.item"), item);
        assert_eq!(attr(iteration, "voyage.iteration"), n);
        assert_eq!(iteration["status"]["code"], 1);
    }

    // The failure: an exception event of at most 1,000 characters.
    let failed = steps
        .iter()
        .find(|s| attr(s, "voyage.step.index") == 4)
        .unwrap();
    assert_eq!(failed["status"]["code"], 2);
    let message = ran.of("step:error")[0]["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.chars().count() > 1000);
    let exception = events(failed, "exception");
    assert_eq!(exception.len(), 1, "{failed}");
    let said = attr(exception[0], "exception.message");
    let said = said.as_str().unwrap();
    assert_eq!(said.chars().count(), 1000);
    let kept: String = message.chars().take(999).collect();
    assert_eq!(said, format!("{kept}…"));
    assert_eq!(attr(exception[0], "exception.type"), "Error");
    assert_eq!(failed["status"]["message"], said);
    assert_eq!(attr(failed, "voyage.error.code"), "WORKFLOW_COMMAND_FAILED");
    for span in &spans {
        assert_eq!(attr(span, "voyage.aborted"), Value::Null, "{span}");
    }

    // Metrics: a duration per step that ran (4), one error.
    let metrics = collector.metrics();
    let duration = &metrics["voyage.step.duration"];
    assert_eq!(duration["unit"], "ms");
    let points = duration["histogram"]["dataPoints"].as_array().unwrap();
    let counted: u64 = points
        .iter()
        .map(|p| p["count"].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, 4, "{duration}");
    assert_eq!(duration["histogram"]["aggregationTemporality"], 2);
    let errors = &metrics["voyage.step.errors"]["sum"];
    assert_eq!(errors["isMonotonic"], true);
    let errors = errors["dataPoints"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["asInt"], "1");
    assert!(
        attr(&errors[0], "step_name")
            .as_str()
            .unwrap()
            .starts_with("xxx")
    );
    assert!(
        !metrics.contains_key("voyage.cost.usd"),
        "no agent, no cost"
    );
}

/// A `TRACEPARENT` in the helper's own environment makes the run's root a
/// child of that span, in that trace; commands get the run's step span.
#[test]
fn a_callers_traceparent_makes_the_run_its_child() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: child\nsteps:\n  - name: show\n    command: echo \"$TRACEPARENT\"\n",
    );
    let caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let ran = run_traced(
        &dir,
        &collector,
        &[],
        &[("TRACEPARENT", caller), ("OTEL_SERVICE_NAME", "flows")],
    );
    ran.status_is(0);
    let spans = collector.spans();
    let root = named(&spans, "voyage.run");
    assert_eq!(root["traceId"], "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(parent(root), "b7ad6b7169203331");
    let show = named(&spans, "show");
    assert_eq!(
        text_of(&ran, 0),
        [format!(
            "00-0af7651916cd43dd8448eb211c80319c-{}-01",
            id(show)
        )]
    );
    let requests = collector.requests();
    let traces = requests.iter().find(|r| r.path == "/v1/traces").unwrap();
    let resource = &traces.body["resourceSpans"][0]["resource"];
    assert_eq!(attr(resource, "service.name"), "flows");
}

/// Without `OTEL_EXPORTER_OTLP_ENDPOINT` nothing connects, even with a
/// signal's own endpoint set, and commands see the environment's
/// `TRACEPARENT` as it was (or none).
#[test]
fn without_the_endpoint_nothing_connects() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: quiet\nsteps:\n  - name: show\n    command: echo \"[$TRACEPARENT]\"\n",
    );
    let traces = format!("{}/v1/traces", collector.url());
    let ran = dir.ci_env(
        "wf.yaml",
        &[],
        &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &traces)],
    );
    ran.status_is(0);
    assert_eq!(text_of(&ran, 0), ["[]"]);
    let caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let ran = dir.ci_env("wf.yaml", &[], &[("TRACEPARENT", caller)]);
    assert_eq!(text_of(&ran, 0), [format!("[{caller}]")]);
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
    assert_eq!(collector.connections.load(Ordering::SeqCst), 0);
    assert!(collector.requests().is_empty());
}

/// A collector that takes the connection and never answers: the run still
/// ends about 3 s after its last step (the cap), says what was lost, and
/// exits as it would have.
#[test]
fn a_collector_that_never_answers_delays_the_end_by_about_3_s() {
    let collector = Collector::start(Answer::Never);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: stuck\nsteps:\n  - name: one\n    command: echo one\n",
    );
    let ran = run_traced(&dir, &collector, &[], &[]);
    ran.status_is(0);
    assert!(
        ran.elapsed < Duration::from_secs(6),
        "took {:?}",
        ran.elapsed
    );
    assert!(
        ran.stderr.contains("warning[WORKFLOW_TELEMETRY]"),
        "{}",
        ran.stderr
    );
    assert!(!collector.requests().is_empty(), "it did try");
}

/// `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` is warned about once, and http/json
/// is sent all the same.
#[test]
fn grpc_is_warned_about_once() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: proto\nsteps:\n  - name: one\n    command: 'true'\n",
    );
    let ran = run_traced(
        &dir,
        &collector,
        &[],
        &[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
        ],
    );
    ran.status_is(0);
    assert_eq!(
        ran.stderr.matches("warning[WORKFLOW_TELEMETRY]").count(),
        1,
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("http/json only"), "{}", ran.stderr);
    assert!(!collector.spans().is_empty());
}

/// SIGTERM while a loop's command runs: the run ends cancelled (exit 4),
/// the root span says so, and the step's and iteration's spans, left open,
/// end marked aborted.
#[test]
fn sigterm_ends_the_open_spans_marked_aborted() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: stopped\nsteps:\n  - name: first\n    command: 'true'\n  - name: wait\n    forEach: [x]\n    steps:\n      - name: sleeper\n        command: touch started; sleep 30\n  - name: never\n    command: 'true'\n",
    );
    let mut cmd = dir.ci_command("wf.yaml", &[]);
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let child = cmd.spawn().unwrap();
    let marker = dir.path().join("started");
    assert!(wait_until(Duration::from_secs(20), || marker.exists()));
    let pid = i32::try_from(child.id()).unwrap();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let output = child.wait_with_output().unwrap();
    let ran = collect(&output, start.elapsed());
    ran.status_is(4);
    let spans = collector.spans();
    let root = named(&spans, "voyage.run");
    assert_eq!(attr(root, "voyage.cancelled"), true);
    assert_eq!(
        attr(root, "voyage.aborted"),
        Value::Null,
        "a cancel is not an abort"
    );
    assert_ne!(root["status"]["code"], 1, "a cancelled run is not OK");
    let wait = named(&spans, "wait");
    assert_eq!(attr(wait, "voyage.aborted"), true);
    let iteration = named(&spans, "iteration 1/1");
    assert_eq!(parent(iteration), id(wait));
    assert_eq!(attr(iteration, "voyage.aborted"), true);
    let first = named(&spans, "first");
    assert_eq!(attr(first, "voyage.aborted"), Value::Null);
    assert!(spans.iter().all(|s| s["name"] != "never"));
}

// ------------------------------------------------------------ with agents

/// What the judge answers through the CLI's structured output tool.
fn verdict(pass: bool, feedback: &str) -> Turn {
    Turn::tool(
        "StructuredOutput",
        json!({"pass": pass, "reasoning": "checked", "feedback": feedback}),
    )
}

/// Agent steps with the real `claude` CLI against the mock API: a judged
/// prompt step that calls a tool, and a self-healing command. The step
/// spans name the provider and model and carry their steps' cost; tool
/// events name the tool without its input; healing and judge events tell
/// the loops; the cost metric by provider, the healing attempts and the
/// judge verdicts add up; the root carries the report's cost and tokens;
/// every agent process got its step's `TRACEPARENT`.
#[test]
fn agent_steps_carry_provider_model_cost_and_their_events() {
    let Some(real) =
        crate::common::tool_or_skip("claude", "npm install -g @anthropic-ai/claude-code")
    else {
        return;
    };
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        r#"goal: agents
steps:
  - name: ask
    prompt: Say hi.
    model: haiku
    llm_as_judge: true
  - name: heal
    command: test -f ready && echo ready || { echo "ready is missing"; exit 3; }
    self_healing: true
"#,
    );
    let mock = MockApi::start(vec![
        Turn::tool("Bash", json!({"command": "echo SECRET-INPUT"})),
        Turn::text("Hi."),
        verdict(false, "Say it louder."),
        Turn::text("HI."),
        verdict(true, ""),
        Turn::tool("Bash", json!({"command": "touch ready"})),
        Turn::text("Created the missing file."),
    ]);
    // A `claude` on PATH that notes its TRACEPARENT, then is the real CLI.
    let bin = tempfile::tempdir().unwrap();
    let seen = bin.path().join("traceparents");
    {
        use std::os::unix::fs::PermissionsExt;
        let shim = bin.path().join("claude");
        std::fs::write(
            &shim,
            format!(
                "#!/bin/sh\necho \"$TRACEPARENT\" >> '{}'\nexec '{}' \"$@\"\n",
                seen.display(),
                real.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = tempfile::tempdir().unwrap();
    let mut cmd = dir.ci_command("wf.yaml", &[]);
    crate::claude::offline(&mut cmd, &mock, home.path());
    let path = std::env::join_paths(
        std::iter::once(bin.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    cmd.env("PATH", path)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url());
    let start = Instant::now();
    let output = cmd.output().unwrap();
    let ran = collect(&output, start.elapsed());
    ran.status_is(0);

    let spans = collector.spans();
    let trace = spans[0]["traceId"].as_str().unwrap().to_owned();
    let ask = named(&spans, "ask");
    let heal = named(&spans, "heal");
    assert_eq!(attr(ask, "voyage.step.type"), "claude");
    assert_eq!(attr(ask, "voyage.provider"), "claude");
    assert_eq!(attr(ask, "voyage.model"), "haiku");
    assert_eq!(
        attr(heal, "voyage.provider"),
        Value::Null,
        "a command step names no provider"
    );

    let cost_of = |index: i64| -> f64 {
        ran.of("output:cost")
            .iter()
            .filter(|e| e["index"] == index)
            .map(|e| e["usd"].as_f64().unwrap())
            .sum()
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(cost_of(0) > 0.0 && cost_of(1) > 0.0);
    assert!(close(
        attr(ask, "voyage.cost.usd").as_f64().unwrap(),
        cost_of(0)
    ));
    assert!(close(
        attr(heal, "voyage.cost.usd").as_f64().unwrap(),
        cost_of(1)
    ));
    let root = named(&spans, "voyage.run");
    let report = &ran.of("workflow:report")[0]["report"];
    assert_eq!(attr(root, "voyage.cost.total.usd"), report["totalCostUsd"]);
    let tokens = &report["totalTokens"];
    assert_eq!(attr(root, "voyage.tokens.input"), tokens["inputTokens"]);
    assert_eq!(attr(root, "voyage.tokens.output"), tokens["outputTokens"]);
    assert_eq!(
        attr(root, "voyage.tokens.cache_creation"),
        tokens["cacheCreationTokens"]
    );
    assert_eq!(
        attr(root, "voyage.tokens.cache_read"),
        tokens["cacheReadTokens"]
    );
    let total: u64 = [
        "inputTokens",
        "outputTokens",
        "cacheCreationTokens",
        "cacheReadTokens",
    ]
    .iter()
    .map(|k| tokens[k].as_u64().unwrap())
    .sum();
    assert_eq!(attr(root, "voyage.tokens.total"), total);

    // Tool events: the name only.
    let tools: Vec<Value> = events(ask, "tool")
        .iter()
        .map(|e| attr(e, "tool"))
        .collect();
    assert_eq!(tools, [json!("Bash")]);
    assert_eq!(
        events(ask, "tool")[0]["attributes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    for request in collector.requests() {
        assert!(
            !request.raw.contains("SECRET-INPUT"),
            "a tool input was exported"
        );
    }
    let judged: Vec<(Value, Value, Value)> = events(ask, "judge")
        .iter()
        .map(|e| (attr(e, "verdict"), attr(e, "attempt"), attr(e, "feedback")))
        .collect();
    assert_eq!(
        judged,
        [
            (json!("fail"), json!(1), json!("Say it louder.")),
            (json!("pass"), json!(2), Value::Null)
        ]
    );
    let healed: Vec<(Value, Value, Value)> = events(heal, "healing")
        .iter()
        .map(|e| (attr(e, "phase"), attr(e, "attempt"), attr(e, "exitCode")))
        .collect();
    assert_eq!(
        healed,
        [
            (json!("attempt-failed"), json!(1), json!(3)),
            (json!("healed"), json!(2), Value::Null)
        ]
    );

    let metrics = collector.metrics();
    let cost = metrics["voyage.cost.usd"]["sum"]["dataPoints"]
        .as_array()
        .unwrap();
    assert_eq!(cost.len(), 1);
    assert_eq!(attr(&cost[0], "provider"), "claude");
    let all_cost: f64 = ran
        .of("output:cost")
        .iter()
        .map(|e| e["usd"].as_f64().unwrap())
        .sum();
    assert!(close(cost[0]["asDouble"].as_f64().unwrap(), all_cost));
    let verdicts: HashMap<String, String> = metrics["voyage.judge.verdicts"]["sum"]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                attr(p, "verdict").as_str().unwrap().to_owned(),
                p["asInt"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        HashMap::from([("fail".into(), "1".into()), ("pass".into(), "1".into())])
    );
    let attempts = &metrics["voyage.healing.attempts"]["histogram"]["dataPoints"][0];
    assert_eq!(attr(attempts, "outcome"), "healed");
    assert_eq!(attempts["count"], "1");
    assert_eq!(attempts["sum"], 2.0);

    // Four calls for `ask` (two attempts, two verdicts), one fix for `heal`.
    let parents: Vec<String> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let of = |span: &Value| format!("00-{trace}-{}-01", id(span));
    assert_eq!(parents, [of(ask), of(ask), of(ask), of(ask), of(heal)]);
}

/// A loop inside a loop's iteration reports its own iterations' endings
/// with the same numbers; the outer iteration's span still lasts until the
/// outer iteration's own end (here: both inner sleeps).
#[test]
fn an_inner_loop_does_not_end_the_outer_iteration_early() {
    let collector = Collector::start(Answer::Ok);
    let dir = Dir::new();
    dir.write(
        "wf.yaml",
        "goal: nested loops\nsteps:\n  - name: outer\n    forEach: [a, b]\n    steps:\n      - name: inner\n        forEach: [x, y]\n        command: sleep 0.1\n",
    );
    let ran = run_traced(&dir, &collector, &[], &[]);
    ran.status_is(0);
    let spans = collector.spans();
    let nanos = |span: &Value, key: &str| span[key].as_str().unwrap().parse::<u64>().unwrap();
    let first = named(&spans, "iteration 1/2");
    let second = named(&spans, "iteration 2/2");
    let lasted = nanos(first, "endTimeUnixNano") - nanos(first, "startTimeUnixNano");
    assert!(
        lasted >= 200_000_000,
        "iteration 1 lasted {lasted} ns, less than its two sleeps"
    );
    assert!(nanos(first, "endTimeUnixNano") <= nanos(second, "startTimeUnixNano"));
    assert_eq!(first["status"]["code"], 1);
    assert_eq!(second["status"]["code"], 1);
}
