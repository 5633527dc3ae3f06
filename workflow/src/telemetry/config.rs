//! What the environment asks of telemetry, in OpenTelemetry's own variable
//! names, read once when a run starts. Telemetry is on only when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not
//! `true`); everything else refines it:
//!
//! | variable | what it does |
//! |---|---|
//! | `OTEL_EXPORTER_OTLP_ENDPOINT` | base URL; `/v1/traces` and `/v1/metrics` are added |
//! | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `…_METRICS_ENDPOINT` | the full URL of one signal |
//! | `OTEL_EXPORTER_OTLP_HEADERS`, `…_TRACES_HEADERS`, `…_METRICS_HEADERS` | `key=value,…` (percent-encoded) sent with every request |
//! | `OTEL_EXPORTER_OTLP_PROTOCOL` (and per signal) | only `http/json` is spoken; `grpc` gets a warning |
//! | `OTEL_SERVICE_NAME` | `service.name`, default `voyage-helper` |
//! | `OTEL_RESOURCE_ATTRIBUTES` | `key=value,…` more resource attributes |
//! | `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER` | `none` turns one signal off |
//! | `OTEL_METRIC_EXPORT_INTERVAL` | milliseconds between metric exports during a run (default 60000) |
//! | `TRACEPARENT` | the caller's span: the run's root span becomes its child |

use std::time::Duration;

use super::ids::{self, Parent};

/// The `service.name` when `OTEL_SERVICE_NAME` names none.
pub(crate) const DEFAULT_SERVICE: &str = "voyage-helper";

/// How telemetry is set up for a run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Config {
    /// Where spans go (`None`: `OTEL_TRACES_EXPORTER=none`).
    pub traces: Option<Endpoint>,
    /// Where metrics go (`None`: `OTEL_METRICS_EXPORTER=none`).
    pub metrics: Option<Endpoint>,
    /// The resource's attributes, `service.name` first.
    pub resource: Vec<(String, String)>,
    /// How often metrics are exported while a run lasts.
    pub metric_interval: Duration,
    /// The caller's span, from `TRACEPARENT`.
    pub parent: Option<Parent>,
}

/// One signal's URL and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// What the environment says: the config when telemetry is on, and
/// warnings either way (a protocol we do not speak, a malformed entry).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Read {
    pub config: Option<Config>,
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads the environment through `env`; `None` values and empty ones
    /// count as unset.
    pub(crate) fn from_lookup(env: impl Fn(&str) -> Option<String>) -> Read {
        let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let mut warnings = Vec::new();
        let Some(base) = get("OTEL_EXPORTER_OTLP_ENDPOINT") else {
            return Read::default();
        };
        if get("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Read::default();
        }
        let base = base.trim().to_owned();
        if !is_http(&base) {
            warnings.push(format!(
                "OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL (\"{base}\"); telemetry is off for this run"
            ));
            return Read {
                config: None,
                warnings,
            };
        }
        let protocols = [
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        ];
        // One warning, however many variables ask for another protocol.
        if let Some((name, asked)) = protocols.iter().find_map(|name| {
            get(name)
                .map(|v| v.trim().to_ascii_lowercase())
                .filter(|v| v != "http/json" && v != "http/protobuf")
                .map(|v| (*name, v))
        }) {
            warnings.push(format!(
                "{name}={asked}: voyage-helper exports OTLP over http/json only; it sends that to {base}"
            ));
        }
        let common = pairs(
            get("OTEL_EXPORTER_OTLP_HEADERS"),
            "OTEL_EXPORTER_OTLP_HEADERS",
            &mut warnings,
        );
        let mut signal = |kind: &str, path: &str| -> Option<Endpoint> {
            let upper = kind.to_ascii_uppercase();
            if get(&format!("OTEL_{upper}_EXPORTER"))
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("none"))
            {
                return None;
            }
            let own = format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT");
            let url = match get(&own).map(|u| u.trim().to_owned()) {
                Some(url) if is_http(&url) => url,
                Some(url) => {
                    warnings.push(format!(
                        "{own} is not an http(s) URL (\"{url}\"); {kind} go to {base} instead"
                    ));
                    join(&base, path)
                }
                None => join(&base, path),
            };
            let own_headers = format!("OTEL_EXPORTER_OTLP_{upper}_HEADERS");
            let mut all = common.clone();
            for (key, value) in pairs(get(&own_headers), &own_headers, &mut warnings) {
                // The signal's own value wins over the common one.
                all.retain(|(k, _)| !k.eq_ignore_ascii_case(&key));
                all.push((key, value));
            }
            Some(Endpoint { url, headers: all })
        };
        let traces = signal("traces", "v1/traces");
        let metrics = signal("metrics", "v1/metrics");

        let mut resource = vec![(
            "service.name".to_owned(),
            get("OTEL_SERVICE_NAME")
                .map_or_else(|| DEFAULT_SERVICE.to_owned(), |s| s.trim().to_owned()),
        )];
        let extra = pairs(
            get("OTEL_RESOURCE_ATTRIBUTES"),
            "OTEL_RESOURCE_ATTRIBUTES",
            &mut warnings,
        );
        let named_service = get("OTEL_SERVICE_NAME").is_some();
        for (key, value) in extra {
            match key.as_str() {
                // OTEL_SERVICE_NAME, when set, wins over the list.
                "service.name" if named_service => {}
                "service.name" => {
                    if let Some(first) = resource.first_mut() {
                        first.1 = value;
                    }
                }
                _ => {
                    resource.retain(|(k, _)| *k != key);
                    resource.push((key, value));
                }
            }
        }
        if !resource.iter().any(|(k, _)| k == "service.version") {
            resource.push((
                "service.version".to_owned(),
                env!("CARGO_PKG_VERSION").to_owned(),
            ));
        }
        let metric_interval = get("OTEL_METRIC_EXPORT_INTERVAL")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(Duration::from_secs(60), Duration::from_millis);
        let parent = get("TRACEPARENT").and_then(|t| ids::parse_traceparent(&t));
        Read {
            config: Some(Config {
                traces,
                metrics,
                resource,
                metric_interval,
                parent,
            }),
            warnings,
        }
    }

    /// Reads this process's environment.
    pub(crate) fn from_env() -> Read {
        Self::from_lookup(|name| std::env::var(name).ok())
    }
}

fn is_http(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    ["http://", "https://"]
        .iter()
        .any(|scheme| lower.len() > scheme.len() && lower.starts_with(scheme))
}

/// `base` with a signal's path added, as the OTLP exporter specification
/// says for the common endpoint (one slash between them).
fn join(base: &str, path: &str) -> String {
    format!("{}/{path}", base.trim_end_matches('/'))
}

/// The entries of a W3C-Baggage-like `key=value,…` list (headers, resource
/// attributes), percent-decoded and trimmed; an entry without `=` or with
/// an empty key is left out with a warning, which never quotes a value (a
/// header's is often a secret).
fn pairs(list: Option<String>, name: &str, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let Some(list) = list else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    for entry in list.split(',').filter(|e| !e.trim().is_empty()) {
        match entry.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                out.push((decode(key.trim()), decode(value.trim())));
            }
            _ => skipped += 1,
        }
    }
    if skipped > 0 {
        warnings.push(format!(
            "{name}: {skipped} entr{} without key=value left out",
            if skipped == 1 { "y" } else { "ies" }
        ));
    }
    out
}

/// Percent-decoding (`%20` → space); a `%` not followed by two hex digits
/// stays as it is.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |at: usize| bytes.get(at).and_then(|c| (*c as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Read {
        Config::from_lookup(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn off_unless_the_endpoint_is_set() {
        assert_eq!(read(&[]), Read::default());
        assert_eq!(
            read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]),
            Read::default()
        );
        // A signal's own endpoint alone does not turn it on.
        assert_eq!(
            read(&[(
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://h:4318/v1/traces"
            )]),
            Read::default()
        );
        let disabled = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ]);
        assert_eq!(disabled, Read::default());
        let bad = read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "h:4318")]);
        assert!(bad.config.is_none());
        assert_eq!(bad.warnings.len(), 1);
    }

    #[test]
    fn urls_headers_and_the_resource() {
        let r = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318/"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://m/x"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%3Db,x = y ,broken"),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "X=z"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "service.name=ignored,deployment.environment=ci%20box",
            ),
            ("OTEL_SERVICE_NAME", "flows"),
        ]);
        let c = r.config.unwrap();
        let traces = c.traces.unwrap();
        assert_eq!(traces.url, "http://h:4318/v1/traces");
        assert_eq!(
            traces.headers,
            [("api-key".into(), "a=b".into()), ("X".into(), "z".into())]
        );
        let metrics = c.metrics.unwrap();
        assert_eq!(metrics.url, "https://m/x");
        assert_eq!(
            metrics.headers,
            [("api-key".into(), "a=b".into()), ("x".into(), "y".into())]
        );
        assert_eq!(c.resource[0], ("service.name".into(), "flows".into()));
        assert!(
            c.resource
                .contains(&("deployment.environment".into(), "ci box".into()))
        );
        assert!(c.resource.iter().any(|(k, _)| k == "service.version"));
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(
            !r.warnings[0].contains("a=b"),
            "a header's value is never shown"
        );
    }

    #[test]
    fn defaults_protocols_and_switches() {
        let r = read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318")]);
        let c = r.config.unwrap();
        assert_eq!(
            c.resource[0],
            ("service.name".into(), DEFAULT_SERVICE.into())
        );
        assert_eq!(c.metric_interval, Duration::from_secs(60));
        assert!(r.warnings.is_empty());
        let grpc = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
        ]);
        assert_eq!(grpc.warnings.len(), 1);
        assert!(grpc.warnings[0].contains("http/json only"));
        let none = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
            ("OTEL_METRICS_EXPORTER", "none"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "500"),
            (
                "TRACEPARENT",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
        ])
        .config
        .unwrap();
        assert!(none.metrics.is_none() && none.traces.is_some());
        assert_eq!(none.metric_interval, Duration::from_millis(500));
        assert!(none.parent.is_some());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(decode("a%20b%zz%4"), "a b%zz%4");
        assert_eq!(decode("%E2%9C%93"), "✓");
    }
}
