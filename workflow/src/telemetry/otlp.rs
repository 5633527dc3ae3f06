//! The OTLP messages we send, in the JSON encoding of their protobuf
//! definitions (OTLP/HTTP with `Content-Type: application/json`): field
//! names in lowerCamelCase, trace and span ids as hex strings, enums as
//! numbers, 64-bit integers as decimal strings.
//!
//! Only what the runner's spans and five metrics use is here: attributes of
//! four kinds, spans with events and a status, cumulative sums and
//! explicit-bucket histograms.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Int(i64),
    Double(f64),
    Bool(bool),
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Value::Str(s) => map.serialize_entry("stringValue", s)?,
            Value::Int(i) => map.serialize_entry("intValue", &i.to_string())?,
            Value::Double(d) => map.serialize_entry("doubleValue", d)?,
            Value::Bool(b) => map.serialize_entry("boolValue", b)?,
        }
        map.end()
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<u64> for Value {
    fn from(i: u64) -> Self {
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}

impl From<u32> for Value {
    fn from(i: u32) -> Self {
        Value::Int(i64::from(i))
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Int(i64::from(i))
    }
}

impl From<f64> for Value {
    fn from(d: f64) -> Self {
        Value::Double(d)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

/// One attribute (`KeyValue`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Attr {
    pub key: String,
    pub value: Value,
}

pub(crate) fn attr(key: &str, value: impl Into<Value>) -> Attr {
    Attr {
        key: key.to_owned(),
        value: value.into(),
    }
}

/// Sets `key` in `attrs`, replacing an earlier value.
pub(crate) fn set(attrs: &mut Vec<Attr>, key: &str, value: impl Into<Value>) {
    let value = value.into();
    match attrs.iter_mut().find(|a| a.key == key) {
        Some(existing) => existing.value = value,
        None => attrs.push(Attr {
            key: key.to_owned(),
            value,
        }),
    }
}

/// `SPAN_KIND_INTERNAL`: the run's spans are work inside one process.
const KIND_INTERNAL: u8 = 1;

/// A span's status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    Unset = 0,
    Ok = 1,
    Error = 2,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Status {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(serialize_with = "code")]
    pub code: Code,
}

fn code<S: Serializer>(code: &Code, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u8(*code as u8)
}

/// One finished span.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Span {
    pub trace_id: String,
    pub span_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_span_id: String,
    pub name: String,
    pub kind: u8,
    #[serde(serialize_with = "decimal")]
    pub start_time_unix_nano: u64,
    #[serde(serialize_with = "decimal")]
    pub end_time_unix_nano: u64,
    pub attributes: Vec<Attr>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SpanEvent>,
    pub status: Status,
}

impl Span {
    pub(crate) const KIND: u8 = KIND_INTERNAL;
}

/// Something that happened at one moment of a span (a tool call, an
/// exception).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpanEvent {
    #[serde(serialize_with = "decimal")]
    pub time_unix_nano: u64,
    pub name: String,
    pub attributes: Vec<Attr>,
}

/// `AGGREGATION_TEMPORALITY_CUMULATIVE`: every export gives the totals
/// since the run started.
const CUMULATIVE: u8 = 2;

/// One metric with its data points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Metric {
    pub name: &'static str,
    pub description: &'static str,
    pub unit: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<Sum>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Histogram>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Sum {
    pub data_points: Vec<NumberPoint>,
    pub aggregation_temporality: u8,
    pub is_monotonic: bool,
}

impl Sum {
    /// A monotonic cumulative sum (a counter).
    pub(crate) fn counter(data_points: Vec<NumberPoint>) -> Self {
        Self {
            data_points,
            aggregation_temporality: CUMULATIVE,
            is_monotonic: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Histogram {
    pub data_points: Vec<HistogramPoint>,
    pub aggregation_temporality: u8,
}

impl Histogram {
    pub(crate) fn cumulative(data_points: Vec<HistogramPoint>) -> Self {
        Self {
            data_points,
            aggregation_temporality: CUMULATIVE,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NumberPoint {
    pub attributes: Vec<Attr>,
    #[serde(serialize_with = "decimal")]
    pub start_time_unix_nano: u64,
    #[serde(serialize_with = "decimal")]
    pub time_unix_nano: u64,
    #[serde(flatten)]
    pub value: Number,
}

/// A data point's number: `asInt` (a decimal string) or `asDouble`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Double(f64),
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Number::Int(i) => map.serialize_entry("asInt", &i.to_string())?,
            Number::Double(d) => map.serialize_entry("asDouble", d)?,
        }
        map.end()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistogramPoint {
    pub attributes: Vec<Attr>,
    #[serde(serialize_with = "decimal")]
    pub start_time_unix_nano: u64,
    #[serde(serialize_with = "decimal")]
    pub time_unix_nano: u64,
    #[serde(serialize_with = "decimal")]
    pub count: u64,
    pub sum: f64,
    #[serde(serialize_with = "decimals")]
    pub bucket_counts: Vec<u64>,
    pub explicit_bounds: Vec<f64>,
    pub min: f64,
    pub max: f64,
}

fn decimal<S: Serializer>(n: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(n)
}

fn decimals<S: Serializer>(ns: &[u64], serializer: S) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(ns.len()))?;
    for n in ns {
        seq.serialize_element(&n.to_string())?;
    }
    seq.end()
}

/// Who made the data (`InstrumentationScope`).
#[derive(Debug, Clone, Serialize)]
struct Scope {
    name: &'static str,
    version: &'static str,
}

const SCOPE: Scope = Scope {
    name: "voyage-helper.workflow",
    version: env!("CARGO_PKG_VERSION"),
};

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Resource {
    pub attributes: Vec<Attr>,
}

impl Resource {
    pub(crate) fn new(pairs: &[(String, String)]) -> Self {
        Self {
            attributes: pairs.iter().map(|(k, v)| attr(k, v.as_str())).collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TracesRequest<'a> {
    resource_spans: [ResourceSpans<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans<'a> {
    resource: &'a Resource,
    scope_spans: [ScopeSpans<'a>; 1],
}

#[derive(Serialize)]
struct ScopeSpans<'a> {
    scope: Scope,
    spans: &'a [Span],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetricsRequest<'a> {
    resource_metrics: [ResourceMetrics<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceMetrics<'a> {
    resource: &'a Resource,
    scope_metrics: [ScopeMetrics<'a>; 1],
}

#[derive(Serialize)]
struct ScopeMetrics<'a> {
    scope: Scope,
    metrics: &'a [Metric],
}

/// The body of a POST to `/v1/traces`.
pub(crate) fn traces_body(resource: &Resource, spans: &[Span]) -> Vec<u8> {
    let request = TracesRequest {
        resource_spans: [ResourceSpans {
            resource,
            scope_spans: [ScopeSpans {
                scope: SCOPE,
                spans,
            }],
        }],
    };
    serde_json::to_vec(&request).unwrap_or_default()
}

/// The body of a POST to `/v1/metrics`.
pub(crate) fn metrics_body(resource: &Resource, metrics: &[Metric]) -> Vec<u8> {
    let request = MetricsRequest {
        resource_metrics: [ResourceMetrics {
            resource,
            scope_metrics: [ScopeMetrics {
                scope: SCOPE,
                metrics,
            }],
        }],
    };
    serde_json::to_vec(&request).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_span_in_the_json_encoding() {
        let span = Span {
            trace_id: "0af7651916cd43dd8448eb211c80319c".into(),
            span_id: "b7ad6b7169203331".into(),
            parent_span_id: String::new(),
            name: "voyage.run".into(),
            kind: Span::KIND,
            start_time_unix_nano: 1,
            end_time_unix_nano: 2,
            attributes: vec![
                attr("s", "x"),
                attr("i", 3i64),
                attr("d", 0.5),
                attr("b", true),
            ],
            events: vec![SpanEvent {
                time_unix_nano: 2,
                name: "tool".into(),
                attributes: vec![attr("tool", "Read")],
            }],
            status: Status {
                message: String::new(),
                code: Code::Ok,
            },
        };
        let body: serde_json::Value = serde_json::from_slice(&traces_body(
            &Resource::new(&[("service.name".into(), "v".into())]),
            &[span],
        ))
        .unwrap();
        let wanted = json!({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "v"}}]},
            "scopeSpans": [{
                "scope": {"name": "voyage-helper.workflow", "version": env!("CARGO_PKG_VERSION")},
                "spans": [{
                    "traceId": "0af7651916cd43dd8448eb211c80319c",
                    "spanId": "b7ad6b7169203331",
                    "name": "voyage.run",
                    "kind": 1,
                    "startTimeUnixNano": "1",
                    "endTimeUnixNano": "2",
                    "attributes": [
                        {"key": "s", "value": {"stringValue": "x"}},
                        {"key": "i", "value": {"intValue": "3"}},
                        {"key": "d", "value": {"doubleValue": 0.5}},
                        {"key": "b", "value": {"boolValue": true}}
                    ],
                    "events": [{"timeUnixNano": "2", "name": "tool",
                                "attributes": [{"key": "tool", "value": {"stringValue": "Read"}}]}],
                    "status": {"code": 1}
                }]
            }]
        }]});
        assert_eq!(body, wanted);
    }

    #[test]
    fn metrics_in_the_json_encoding() {
        let metrics = [
            Metric {
                name: "n",
                description: "d",
                unit: "1",
                sum: Some(Sum::counter(vec![NumberPoint {
                    attributes: vec![],
                    start_time_unix_nano: 1,
                    time_unix_nano: 2,
                    value: Number::Int(4),
                }])),
                histogram: None,
            },
            Metric {
                name: "h",
                description: "d",
                unit: "ms",
                sum: None,
                histogram: Some(Histogram::cumulative(vec![HistogramPoint {
                    attributes: vec![],
                    start_time_unix_nano: 1,
                    time_unix_nano: 2,
                    count: 1,
                    sum: 7.0,
                    bucket_counts: vec![0, 1],
                    explicit_bounds: vec![5.0],
                    min: 7.0,
                    max: 7.0,
                }])),
            },
        ];
        let body: serde_json::Value =
            serde_json::from_slice(&metrics_body(&Resource::new(&[]), &metrics)).unwrap();
        let got = &body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"];
        assert_eq!(
            got[0]["sum"],
            json!({"dataPoints": [{"attributes": [], "startTimeUnixNano": "1", "timeUnixNano": "2", "asInt": "4"}],
                   "aggregationTemporality": 2, "isMonotonic": true})
        );
        assert_eq!(
            got[1]["histogram"]["dataPoints"][0]["bucketCounts"],
            json!(["0", "1"])
        );
        assert_eq!(got[1]["histogram"]["dataPoints"][0]["count"], json!("1"));
    }
}
