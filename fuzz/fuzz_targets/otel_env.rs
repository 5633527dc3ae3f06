//! The OpenTelemetry environment (`workflow::telemetry::config`): any text
//! as `OTEL_EXPORTER_OTLP_ENDPOINT`, the header and resource-attribute
//! lists, the protocol and `TRACEPARENT`, one per line.
//!
//! Checked beyond "no panic": a `traceparent` that is accepted is written
//! back with the same version, trace id and span id, and a header's value
//! never appears in a warning.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::workflow::read_otel_env;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let endpoint = lines.next().unwrap_or_default().to_owned();
    let headers = lines.next().unwrap_or_default().to_owned();
    let resource = lines.next().unwrap_or_default().to_owned();
    let protocol = lines.next().unwrap_or_default().to_owned();
    let traceparent = lines.next().unwrap_or_default().to_owned();
    let env = |name: &str| {
        Some(match name {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => endpoint.clone(),
            "OTEL_EXPORTER_OTLP_HEADERS" => headers.clone(),
            "OTEL_RESOURCE_ATTRIBUTES" => resource.clone(),
            "OTEL_EXPORTER_OTLP_PROTOCOL" => protocol.clone(),
            "TRACEPARENT" => traceparent.clone(),
            _ => return None,
        })
    };
    let (on, warnings, parent) = read_otel_env(env);
    if let Some(parent) = parent {
        assert!(on);
        let given = traceparent.trim();
        assert_eq!(parent.len(), 55);
        assert_eq!(
            parent.get(3..53),
            given.get(3..53),
            "{given:?} became {parent:?}"
        );
    }
    for (_, value) in headers.split(',').filter_map(|e| e.split_once('=')) {
        let value = value.trim();
        // Warnings quote the endpoint and the protocol, which may hold it.
        if value.len() >= 8 && !endpoint.contains(value) && !protocol.contains(value) {
            assert!(
                warnings.iter().all(|w| !w.contains(value)),
                "a header value in {warnings:?}"
            );
        }
    }
});
