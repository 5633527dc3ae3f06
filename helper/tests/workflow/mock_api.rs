//! A scripted mock of the Anthropic Messages API, so that tests can run the
//! real `claude` CLI offline and assert on both what it prints and what it
//! sent.
//!
//! It is deliberately small and std-only (plus `serde_json`, already a
//! dev-dependency): a [`TcpListener`] on `127.0.0.1:0`, one thread per
//! connection, HTTP/1.1 with keep-alive. Point the CLI at it with
//! `ANTHROPIC_BASE_URL=<MockApi::url()>` and `ANTHROPIC_API_KEY=anything`.
//!
//! What it answers:
//!
//! - `POST /v1/messages` (any query string; the CLI sends `?beta=true`): the
//!   next [`Turn`] of the script. With `"stream": true` (what the CLI always
//!   sends) the reply is a server-sent event stream in the real API's event
//!   order; otherwise one JSON message. An error turn answers its HTTP status
//!   with Anthropic's error body, for as many requests as it says.
//! - side requests (see [`is_side_request`]) get a canned reply and do not
//!   use up a turn;
//! - `HEAD` anything and `GET /`: 200 with an empty body (the CLI
//!   pre-connects with `HEAD /`);
//! - anything else: 404 in Anthropic's error format.
//!
//! Once the turns run out every main request gets the text
//! [`EXHAUSTED`], so a CLI that asks more than the test expected shows up
//! in its output rather than hanging.
//!
//! Every request is recorded ([`MockApi::requests`]) with its parsed JSON
//! body, so a test can check the model, the system prompt, the prompt text,
//! the tool list and the tool results the CLI sent.

#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// The text every main request gets once the script has no turns left.
pub const EXHAUSTED: &str = "(mock: script exhausted)";

/// The text a side request (title generation, quota probe) gets.
pub const SIDE_REPLY: &str = "(mock: side reply)";

/// The token counts of one reply. The real API sends them twice: in
/// `message_start` (with `output_tokens` at its start value, 1) and, final,
/// in `message_delta`; the mock does the same, so a client that reads
/// either place sees what the real one would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation_input: u64,
    pub cache_read_input: u64,
}

impl Default for Usage {
    fn default() -> Self {
        Self {
            input: 100,
            output: 10,
            cache_creation_input: 0,
            cache_read_input: 0,
        }
    }
}

impl Usage {
    pub fn new(input: u64, output: u64, cache_creation_input: u64, cache_read_input: u64) -> Self {
        Self {
            input,
            output,
            cache_creation_input,
            cache_read_input,
        }
    }

    fn json(self, output: u64) -> Value {
        json!({
            "input_tokens": self.input,
            "cache_creation_input_tokens": self.cache_creation_input,
            "cache_read_input_tokens": self.cache_read_input,
            "output_tokens": output,
        })
    }
}

/// An HTTP error reply in Anthropic's format.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub status: u16,
    /// `invalid_request_error`, `overloaded_error`, `api_error`, …
    pub kind: String,
    pub message: String,
}

/// One scripted reply to a main-loop request.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    /// A text block, sent first when there are tool calls too.
    pub text: Option<String>,
    /// Tool calls as (name, input); any of them makes `stop_reason`
    /// `tool_use`.
    pub tools: Vec<(String, Value)>,
    /// When set, the turn is this HTTP error instead of a message.
    pub error: Option<ApiError>,
    /// How many requests an error turn answers before the next turn
    /// (so it can cover the client's retries). Ignored for messages.
    pub times: u32,
    pub usage: Usage,
}

impl Turn {
    /// A reply of one text block.
    pub fn text(text: &str) -> Self {
        Self {
            text: Some(text.to_owned()),
            times: 1,
            ..Self::default()
        }
    }

    /// A reply of one tool call.
    pub fn tool(name: &str, input: Value) -> Self {
        Self {
            times: 1,
            ..Self::default()
        }
        .and_tool(name, input)
    }

    /// Adds another tool call (parallel calls are one reply).
    pub fn and_tool(mut self, name: &str, input: Value) -> Self {
        self.tools.push((name.to_owned(), input));
        self
    }

    /// Puts a text block before the tool calls.
    pub fn with_text(mut self, text: &str) -> Self {
        self.text = Some(text.to_owned());
        self
    }

    /// An HTTP error with Anthropic's error body, answering one request.
    pub fn error(status: u16, kind: &str, message: &str) -> Self {
        Self {
            error: Some(ApiError {
                status,
                kind: kind.to_owned(),
                message: message.to_owned(),
            }),
            times: 1,
            ..Self::default()
        }
    }

    /// Repeats an error turn for `n` requests.
    pub fn times(mut self, n: u32) -> Self {
        self.times = n.max(1);
        self
    }

    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// One request the mock received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The path without its query string.
    pub path: String,
    /// The parsed JSON body; `Value::Null` when there was none or it was not
    /// JSON.
    pub body: Value,
    /// Header names are lower-cased.
    pub headers: Vec<(String, String)>,
    /// A `/v1/messages` request that was answered without using up a turn.
    pub side: bool,
}

impl Request {
    /// A `POST /v1/messages` that took a turn (or would have, once the
    /// script ran out).
    pub fn is_main(&self) -> bool {
        self.method == "POST" && self.path == "/v1/messages" && !self.side
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `system` field as one string: the API accepts a string or a list
    /// of text blocks, and the CLI sends the list.
    pub fn system_text(&self) -> String {
        match &self.body["system"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// The names in `tools`, in order.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every text the user turns of `messages` carry: plain string content,
    /// `text` blocks and the text of `tool_result` blocks, in order. What a
    /// test means by "the prompt the mock received".
    pub fn user_texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for message in self.body["messages"].as_array().into_iter().flatten() {
            if message["role"] != "user" {
                continue;
            }
            match &message["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(blocks) => {
                    for block in blocks {
                        collect_texts(block, &mut out);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The `tool_result` blocks of the user turns, in order.
    pub fn tool_results(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for message in self.body["messages"].as_array().into_iter().flatten() {
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    out.push(block.clone());
                }
            }
        }
        out
    }
}

fn collect_texts(block: &Value, out: &mut Vec<String>) {
    match block["type"].as_str() {
        Some("text") => {
            if let Some(text) = block["text"].as_str() {
                out.push(text.to_owned());
            }
        }
        Some("tool_result") => match &block["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(inner) => {
                for b in inner {
                    collect_texts(b, out);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Whether a `/v1/messages` body is side traffic rather than a step of the
/// conversation. Only tool-less requests can be: the CLI's own calls around
/// the conversation (a quota probe with `max_tokens: 1`, a session title
/// with `output_config.format`) carry no tools, while every main-loop
/// request does, unless the CLI was told to offer none. So a tool-less
/// request is side traffic when it has one of those marks, or when an
/// earlier request did carry tools (the conversation is known to have
/// tools, so this one is not part of it).
pub fn is_side_request(body: &Value, earlier_had_tools: bool) -> bool {
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if has_tools {
        return false;
    }
    body["max_tokens"].as_u64().is_some_and(|m| m <= 1)
        || !body["output_config"]["format"].is_null()
        || earlier_had_tools
}

struct State {
    turns: Vec<Turn>,
    /// The turn the next main request takes.
    next: usize,
    /// How many requests the current error turn has answered.
    answered: u32,
    earlier_had_tools: bool,
    /// Whether tool-less requests may be side traffic (the claude CLI's);
    /// off for a client known to make none.
    side_requests: bool,
    messages: u64,
    tool_ids: u64,
    requests: Vec<Request>,
    /// Clones of the open connections, so that `Drop` can shut them down
    /// and their threads (blocked reading the next keep-alive request)
    /// return.
    streams: Vec<TcpStream>,
}

/// What a main request is answered with, taken from the script under the
/// lock and built outside it.
enum Reply {
    Message {
        id: String,
        content: Vec<Value>,
        stop_reason: &'static str,
        usage: Usage,
    },
    Error(ApiError),
}

/// A running mock; stops when dropped.
pub struct MockApi {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl MockApi {
    /// Starts the mock on a free port of 127.0.0.1 with `turns` as its
    /// script.
    pub fn start(turns: Vec<Turn>) -> Self {
        Self::start_with(turns, true)
    }

    /// Starts the mock for a client that makes no side requests (the
    /// OpenCode CLI given a session title): every `/v1/messages` takes a
    /// turn, with or without tools.
    pub fn without_side_requests(turns: Vec<Turn>) -> Self {
        Self::start_with(turns, false)
    }

    fn start_with(turns: Vec<Turn>, side_requests: bool) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            turns,
            next: 0,
            answered: 0,
            earlier_had_tools: false,
            side_requests,
            messages: 0,
            tool_ids: 0,
            requests: Vec::new(),
            streams: Vec::new(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || accept(&listener, &state, &stop))
        };
        Self {
            addr,
            state,
            stop,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.state).requests.clone()
    }

    /// The requests that took (or asked for) a turn, in order.
    pub fn main_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::is_main)
            .collect()
    }

    /// The tool results the CLI sent back, as text, in order: the last
    /// main request carries the whole conversation, so it holds them all.
    pub fn tool_result_texts(&self) -> Vec<String> {
        self.main_requests()
            .last()
            .map(Request::tool_results)
            .unwrap_or_default()
            .iter()
            .map(|v| match &v["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }

    /// How many turns have been fully used.
    pub fn turns_used(&self) -> usize {
        lock(&self.state).next
    }

    /// The requests, one short line each, for assertion messages.
    pub fn summary(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "{} {}{}",
                    r.method,
                    r.path,
                    if r.side { " (side)" } else { "" }
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // `accept` blocks; a connection of our own wakes it to see the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        for stream in lock(&self.state).streams.drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// A poisoned lock only means another connection's thread panicked; the
/// recorded data is still what the test wants to see.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn accept(listener: &TcpListener, state: &Arc<Mutex<State>>, stop: &AtomicBool) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if let Ok(clone) = stream.try_clone() {
            lock(state).streams.push(clone);
        }
        let state = Arc::clone(state);
        std::thread::spawn(move || {
            // An I/O error just ends this connection: the client hung up.
            let _ = serve(stream, &state);
        });
    }
}

/// One parsed HTTP request.
struct Incoming {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// Serves requests on one connection until the client closes it (the CLI
/// keeps connections alive and reuses them, so this loops).
fn serve(stream: TcpStream, state: &Arc<Mutex<State>>) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader)? {
        let close = request
            .headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        respond(&request, &mut writer, state)?;
        writer.flush()?;
        if close {
            break;
        }
    }
    Ok(())
}

/// Reads the request line, the headers and the body (by `Content-Length`,
/// or chunked). `None` when the client closed the connection between
/// requests.
fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Incoming>> {
    let mut line = String::new();
    // Tolerate stray blank lines between keep-alive requests.
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size_text = line.trim().split(';').next().unwrap_or("0");
            let size = usize::from_str_radix(size_text, 16).unwrap_or(0);
            if size == 0 {
                // Trailers, up to the blank line.
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let mut chunk = vec![0; size];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else if let Some(length) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0; length];
        reader.read_exact(&mut body)?;
    }
    Ok(Some(Incoming {
        method,
        target,
        headers,
        body,
    }))
}

fn respond(
    request: &Incoming,
    out: &mut impl Write,
    state: &Arc<Mutex<State>>,
) -> std::io::Result<()> {
    let path = request
        .target
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned();
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let mut record = Request {
        method: request.method.clone(),
        path: path.clone(),
        body: body.clone(),
        headers: request.headers.clone(),
        side: false,
    };
    match (request.method.as_str(), path.as_str()) {
        ("HEAD", _) | ("GET", "/") => {
            lock(state).requests.push(record);
            write_response(out, 200, "application/json", b"")
        }
        ("POST", "/v1/messages") => {
            let stream = body["stream"].as_bool().unwrap_or(false);
            let model = body["model"].as_str().unwrap_or("claude-mock").to_owned();
            let reply = {
                let mut st = lock(state);
                let side = st.side_requests && is_side_request(&body, st.earlier_had_tools);
                if body["tools"].as_array().is_some_and(|t| !t.is_empty()) {
                    st.earlier_had_tools = true;
                }
                record.side = side;
                st.requests.push(record);
                if side {
                    side_reply(&mut st, &body)
                } else {
                    next_reply(&mut st)
                }
            };
            match reply {
                Reply::Error(error) => {
                    let json = json!({
                        "type": "error",
                        "error": {"type": error.kind, "message": error.message},
                    });
                    write_response(
                        out,
                        error.status,
                        "application/json",
                        json.to_string().as_bytes(),
                    )
                }
                Reply::Message {
                    id,
                    content,
                    stop_reason,
                    usage,
                } => {
                    if stream {
                        let sse = sse_body(&id, &model, &content, stop_reason, usage);
                        write_response(out, 200, "text/event-stream", sse.as_bytes())
                    } else {
                        let json = json!({
                            "id": id,
                            "type": "message",
                            "role": "assistant",
                            "model": model,
                            "content": content,
                            "stop_reason": stop_reason,
                            "stop_sequence": null,
                            "usage": usage.json(usage.output),
                        });
                        write_response(out, 200, "application/json", json.to_string().as_bytes())
                    }
                }
            }
        }
        _ => {
            lock(state).requests.push(record);
            let json = json!({
                "type": "error",
                "error": {"type": "not_found_error", "message": format!("mock: no route for {} {path}", request.method)},
            });
            write_response(out, 404, "application/json", json.to_string().as_bytes())
        }
    }
}

/// The canned reply to side traffic: JSON when the request asked for
/// structured output (a title request wants an object back), else text.
fn side_reply(st: &mut State, body: &Value) -> Reply {
    st.messages += 1;
    let text = if body["output_config"]["format"].is_null() {
        SIDE_REPLY.to_owned()
    } else {
        json!({"title": "Mock session title"}).to_string()
    };
    Reply::Message {
        id: format!("msg_mock_side_{:03}", st.messages),
        content: vec![json!({"type": "text", "text": text})],
        stop_reason: "end_turn",
        usage: Usage::new(10, 5, 0, 0),
    }
}

/// Takes the next turn of the script (an error turn stays current for its
/// `times` requests).
fn next_reply(st: &mut State) -> Reply {
    let Some(turn) = st.turns.get(st.next).cloned() else {
        st.messages += 1;
        return Reply::Message {
            id: format!("msg_mock_{:03}", st.messages),
            content: vec![json!({"type": "text", "text": EXHAUSTED})],
            stop_reason: "end_turn",
            usage: Usage::default(),
        };
    };
    if let Some(error) = turn.error {
        st.answered += 1;
        if st.answered >= turn.times.max(1) {
            st.next += 1;
            st.answered = 0;
        }
        return Reply::Error(error);
    }
    st.next += 1;
    st.messages += 1;
    let mut content = Vec::new();
    if let Some(text) = turn.text {
        content.push(json!({"type": "text", "text": text}));
    }
    for (name, input) in turn.tools.iter() {
        st.tool_ids += 1;
        content.push(json!({
            "type": "tool_use",
            "id": format!("toolu_mock_{}", st.tool_ids),
            "name": name,
            "input": input,
        }));
    }
    Reply::Message {
        id: format!("msg_mock_{:03}", st.messages),
        stop_reason: if turn.tools.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        },
        content,
        usage: turn.usage,
    }
}

/// The server-sent events of one reply, in the real API's order:
/// `message_start` (full usage but `output_tokens: 1`), then per block
/// `content_block_start`, its deltas, `content_block_stop`, then
/// `message_delta` (stop reason and final usage) and `message_stop`. Each
/// block's payload is split into two deltas so that a client which only
/// handles one delta per block would be caught.
fn sse_body(id: &str, model: &str, content: &[Value], stop_reason: &str, usage: Usage) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str("event: ");
        out.push_str(name);
        out.push_str("\ndata: ");
        out.push_str(&data.to_string());
        out.push_str("\n\n");
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": usage.json(1),
        }}),
    );
    event("ping", json!({"type": "ping"}));
    for (index, block) in content.iter().enumerate() {
        let (start, payload, delta_kind, key) = if block["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                block["input"].to_string(),
                "input_json_delta",
                "partial_json",
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                block["text"].as_str().unwrap_or_default().to_owned(),
                "text_delta",
                "text",
            )
        };
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        );
        for piece in halves(&payload) {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": delta_kind, key: piece}}),
            );
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": usage.json(usage.output)}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}

/// `s` split in two at a character boundary near its middle (one piece for
/// a string of at most one character).
fn halves(s: &str) -> Vec<&str> {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    match (s.get(..mid), s.get(mid..)) {
        (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => vec![a, b],
        _ => vec![s],
    }
}

fn write_response(
    out: &mut impl Write,
    status: u16,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    };
    // Content-Length rather than chunked: the whole reply is known up
    // front, the CLI's HTTP client reads an event stream either way, and a
    // length keeps the connection reusable without any chunk framing.
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nrequest-id: req_mock\r\nconnection: keep-alive\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body)
}
