//! Lifecycle events (seed Phase 8, "Main-merge gate"; "High-effort
//! behavior"): what is known, what may leave the machine.
//!
//! An event lands in a stats file as
//! `{ts, event, known_event, payload, not_exportable}`. Unknown names are
//! recorded too (`known_event: false`), so a newer command never loses an
//! event to an older helper. Payload keys outside [`EXPORT_ALLOWLIST`] stay
//! in the file but are listed in `not_exportable`, so an exporter (such as
//! OpenTelemetry) drops them by omission: free text and paths stay local.

use serde_json::{Map, Value};

/// The lifecycle events the executor emits.
pub(super) const KNOWN_EVENTS: &[&str] = &[
    // The terminal boundary was reached; the operator is asked (always).
    "main-merge-gate",
    // The operator confirmed the main-merge step.
    "main-merge-approved",
    // The operator held the run for review; it is recorded as partial.
    "main-merge-declined",
    // An explicit --gates flag beat the brief's effort signal.
    "gates_mode_flag_override",
    // With gates closed: a wave's merge-back paused, then was confirmed or held.
    "wave-merge-gate",
    "wave-merge-approved",
    "wave-merge-declined",
    // With gates closed: a boundary halted the run for the operator.
    "gates-halt",
];

/// Payload keys that may be exported: small, fixed vocabularies and counts,
/// never paths or free text.
pub(super) const EXPORT_ALLOWLIST: &[&str] = &[
    "wave",
    "wave_count",
    "session",
    "step",
    "steps_total",
    "steps_passed",
    "steps_failed",
    "result",
    "status",
    "mode",
    "plan_type",
    "reason",
    "gates",
    "effort",
    "phase",
    "profile",
    // Who answered the main-merge gate: operator (a shell) or user (asked
    // in an interactive session).
    "answered_by",
];

/// The most characters an event name may have.
pub(super) const MAX_NAME_CHARS: usize = 64;

pub(super) fn is_known(name: &str) -> bool {
    KNOWN_EVENTS.contains(&name)
}

/// `Ok` when `name` is 1 to 64 of `[A-Za-z0-9_.:-]`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "event name '{name}' must be 1 to {MAX_NAME_CHARS} characters of A-Z, a-z, 0-9, _ - . :"
        ))
    }
}

/// The record for one event.
pub fn record(name: &str, payload: Map<String, Value>, now: &str) -> Map<String, Value> {
    let not_exportable: Vec<Value> = payload
        .keys()
        .filter(|k| !EXPORT_ALLOWLIST.contains(&k.as_str()))
        .map(|k| Value::String(k.clone()))
        .collect();
    let mut rec = Map::new();
    rec.insert("ts".into(), Value::String(now.to_owned()));
    rec.insert("event".into(), Value::String(name.to_owned()));
    rec.insert("known_event".into(), Value::Bool(is_known(name)));
    rec.insert("payload".into(), Value::Object(payload));
    rec.insert("not_exportable".into(), Value::Array(not_exportable));
    rec
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn override_keys_stay_local() {
        let payload = json!({"flag": "--gates", "signal_effort": "high"})
            .as_object()
            .unwrap()
            .clone();
        let rec = record("gates_mode_flag_override", payload, "t");
        assert_eq!(rec["known_event"], true);
        assert_eq!(rec["not_exportable"], json!(["flag", "signal_effort"]));
        assert_eq!(rec["payload"]["flag"], "--gates");
    }

    #[test]
    fn names() {
        assert!(check_name("main-merge-gate").is_ok());
        assert!(check_name("x.y:z_1").is_ok());
        for bad in ["", "a b", "a/b", "é", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(!is_known("made-up"));
    }
}
