//! A stats record as it arrives: one JSON object (seed Phase 9), which gets
//! a `ts` when it has none.

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
