//! A stats record as it arrives: one JSON object (seed Phase 9), which gets
//! a `ts` when it has none and is then checked against its schema
//! (`schemas/stats-record.schema.json`) before it is written.

use serde_json::{Map, Value};

use super::code;
use crate::problem::Problem;

/// The most bytes one record may have.
pub(super) const MAX_RECORD_BYTES: usize = 1024 * 1024;

/// Parses `input` as one JSON object. `what` names it in messages
/// ("record", "payload"); the codes say which rule failed.
pub fn parse_object(input: &[u8], what: &str) -> Result<Map<String, Value>, Problem> {
    if input.len() > MAX_RECORD_BYTES {
        return Err(Problem::new(
            code::STATS_TOO_LARGE,
            format!("{what} is larger than {MAX_RECORD_BYTES} bytes"),
        ));
    }
    match serde_json::from_slice::<Value>(input) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(Problem::new(
            code::STATS_NOT_OBJECT,
            format!(
                "{what}-not-object: a {what} must be one JSON object, not {}",
                kind(&other)
            ),
        )),
        Err(e) => Err(Problem::new(
            code::STATS_NOT_JSON,
            format!("{what}-not-json: {e}"),
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How a schema violation of a record is coded.
const CODES: crate::schema::Codes = crate::schema::Codes {
    missing_key: code::STATS_BAD_RECORD,
    not_object: code::STATS_NOT_OBJECT,
    other: code::STATS_BAD_RECORD,
    tagged: &[],
};

/// Checks `record`, `ts` added, against the schema `stats-record`: the
/// keys the helper reads back must have the types it reads. The first
/// violation is the refusal, naming the key and what it must be.
pub(super) fn check(record: &Map<String, Value>) -> Result<(), Problem> {
    if record.contains_key("event") {
        return Err(Problem::new(
            code::STATS_BAD_RECORD,
            "record-not-valid (schema stats-record): `event` marks a lifecycle event, which `voyage-helper event emit \
             --event NAME` records; a stats record has no `event` key",
        )
        .at_pointer("/event"));
    }
    let value = Value::Object(record.clone());
    let Some(problem) = crate::schema::check("stats-record", &value, &CODES)
        .into_iter()
        .next()
    else {
        return Ok(());
    };
    let key = problem
        .pointer
        .as_deref()
        .map_or("", |p| p.trim_start_matches('/'));
    let expected = if key == "ts" {
        "must be a time in RFC 3339, e.g. 2026-12-01T09:30:00Z".to_owned()
    } else {
        problem.message.clone()
    };
    let found = value
        .pointer(problem.pointer.as_deref().unwrap_or(""))
        .map_or_else(String::new, |v| format!(", not {}", clipped(v)));
    let message = if key == "ts" {
        format!("record-not-valid (schema stats-record): `ts` {expected}{found}")
    } else {
        format!("record-not-valid (schema stats-record): `{key}`: {expected}")
    };
    Err(Problem { message, ..problem })
}

/// `value` as JSON, cut to a length a message can show.
fn clipped(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or_default()),
        None => text,
    }
}

/// `record` with `ts` first: its own when it has one, otherwise `now`.
pub fn with_ts(record: Map<String, Value>, now: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let ts = record
        .get("ts")
        .cloned()
        .unwrap_or_else(|| Value::String(now.to_owned()));
    out.insert("ts".into(), ts);
    out.extend(record.into_iter().filter(|(k, _)| k != "ts"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(record: &str) -> String {
        let map = parse_object(record.as_bytes(), "record").unwrap();
        let problem = check(&with_ts(map, "2026-12-01T09:30:00Z")).unwrap_err();
        assert_eq!(problem.code, "STATS_BAD_RECORD", "{record}");
        problem.to_string()
    }

    #[test]
    fn records_are_checked_against_their_schema() {
        for good in [
            "{}",
            r#"{"plan":"a.md","plan_type":"plan","mode":"execute","result":"completed","steps_total":3,"steps_passed":3,"steps_failed":0,"steps_skipped":0,"failed_at_step":null,"profile":"premium","phase_models":{},"profile_source":"default"}"#,
            r#"{"ts":"2026-01-01T00:00:00.123+02:00","writer":7,"anything":["of the caller's"]}"#,
        ] {
            let map = parse_object(good.as_bytes(), "record").unwrap();
            assert!(
                check(&with_ts(map, "2026-12-01T09:30:00Z")).is_ok(),
                "{good}"
            );
        }
        assert_eq!(
            refusal(r#"{"steps_passed":"three"}"#),
            r#"record-not-valid (schema stats-record): `steps_passed`: "three" is not of type "integer" (at /steps_passed)"#
        );
        assert!(refusal(r#"{"result":"done"}"#).contains("`result`: \"done\" is not one of"));
        assert!(
            refusal(r#"{"failed_at_step":-1}"#)
                .contains("`failed_at_step`: -1 is less than the minimum of 0")
        );
        assert_eq!(
            refusal(r#"{"ts":"yesterday"}"#),
            r#"record-not-valid (schema stats-record): `ts` must be a time in RFC 3339, e.g. 2026-12-01T09:30:00Z, not "yesterday" (at /ts)"#
        );
        assert!(refusal(r#"{"ts":5}"#).contains(", not 5 (at /ts)"));
        assert!(refusal(r#"{"event":"main-merge-gate"}"#).contains("event emit"));
    }

    #[test]
    fn objects_only() {
        assert!(parse_object(b"{\"a\":1}", "record").is_ok());
        assert_eq!(
            parse_object(b"[1]", "record").unwrap_err().code,
            "STATS_NOT_OBJECT"
        );
        assert_eq!(
            parse_object(b"{", "record").unwrap_err().code,
            "STATS_NOT_JSON"
        );
        assert_eq!(
            parse_object(b"", "payload").unwrap_err().code,
            "STATS_NOT_JSON"
        );
        assert!(
            parse_object(b"nope", "payload")
                .unwrap_err()
                .message
                .starts_with("payload-not-json")
        );
    }

    #[test]
    fn ts_is_added_or_kept() {
        let rec = parse_object(b"{\"plan\":\"p\"}", "record").unwrap();
        let out = with_ts(rec, "2026-11-30T10:15:00Z");
        assert_eq!(out["ts"], "2026-11-30T10:15:00Z");
        let rec = parse_object(b"{\"ts\":\"then\",\"a\":1}", "record").unwrap();
        assert_eq!(with_ts(rec, "now")["ts"], "then");
    }
}
