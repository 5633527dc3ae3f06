//! The run's five metrics, aggregated in memory and exported as cumulative
//! totals (each export says everything since the run started, so a lost
//! export loses nothing the next one does not repeat):
//!
//! | metric | kind | unit | attributes |
//! |---|---|---|---|
//! | `voyage.step.duration` | histogram | ms | `step_name`, `step_type`, `status` (`complete`, `error`) |
//! | `voyage.step.errors` | counter | 1 | `step_name`, `step_type` |
//! | `voyage.cost.usd` | counter (double) | USD | `provider` |
//! | `voyage.healing.attempts` | histogram | 1 | `outcome` (`healed`, `exhausted`) |
//! | `voyage.judge.verdicts` | counter | 1 | `verdict` (`pass`, `fail`) |

use std::collections::BTreeMap;

use super::otlp::{self, Histogram, HistogramPoint, Metric, Number, NumberPoint, Sum};

/// One of the five instruments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Instrument {
    StepDuration,
    StepErrors,
    CostUsd,
    HealingAttempts,
    JudgeVerdicts,
}

/// What an instrument is, for its export.
struct Descriptor {
    name: &'static str,
    description: &'static str,
    unit: &'static str,
    /// `Some`: a histogram with these bucket bounds; `None`: a counter.
    bounds: Option<&'static [f64]>,
    /// A counter of whole numbers (`asInt`) rather than of amounts.
    whole: bool,
}

/// OpenTelemetry's default bounds, which suit milliseconds.
const DURATION_BOUNDS: &[f64] = &[
    0.0, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 750.0, 1000.0, 2500.0, 5000.0, 7500.0,
    10000.0,
];
/// Attempts are small counts (5 by default, at most a few dozen).
const ATTEMPT_BOUNDS: &[f64] = &[1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0];

impl Instrument {
    const ALL: [Instrument; 5] = [
        Instrument::StepDuration,
        Instrument::StepErrors,
        Instrument::CostUsd,
        Instrument::HealingAttempts,
        Instrument::JudgeVerdicts,
    ];

    fn descriptor(self) -> Descriptor {
        match self {
            Instrument::StepDuration => Descriptor {
                name: "voyage.step.duration",
                description: "Wall-clock duration of each top-level workflow step",
                unit: "ms",
                bounds: Some(DURATION_BOUNDS),
                whole: false,
            },
            Instrument::StepErrors => Descriptor {
                name: "voyage.step.errors",
                description: "Top-level steps that ended in an error",
                unit: "1",
                bounds: None,
                whole: true,
            },
            Instrument::CostUsd => Descriptor {
                name: "voyage.cost.usd",
                description: "API cost the agent CLIs reported",
                unit: "USD",
                bounds: None,
                whole: false,
            },
            Instrument::HealingAttempts => Descriptor {
                name: "voyage.healing.attempts",
                description: "Runs a self-healing step took to reach its outcome",
                unit: "1",
                bounds: Some(ATTEMPT_BOUNDS),
                whole: false,
            },
            Instrument::JudgeVerdicts => Descriptor {
                name: "voyage.judge.verdicts",
                description: "LLM-as-judge evaluations, by verdict",
                unit: "1",
                bounds: None,
                whole: true,
            },
        }
    }
}

/// The attributes of a data point, as ordered pairs (the series' key).
pub(crate) type Labels = Vec<(&'static str, String)>;

#[derive(Debug, Clone, Default, PartialEq)]
struct Point {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    /// Per bucket, for histograms (one more than the bounds).
    buckets: Vec<u64>,
}

/// Every series of every instrument, since `start`.
#[derive(Debug, Clone)]
pub(crate) struct Metrics {
    start: u64,
    series: BTreeMap<(Instrument, Labels), Point>,
}

impl Metrics {
    /// Empty metrics whose totals start at `start` (Unix nanoseconds).
    pub(crate) fn new(start: u64) -> Self {
        Self {
            start,
            series: BTreeMap::new(),
        }
    }

    /// Adds `value` to a counter, or records it in a histogram.
    pub(crate) fn record(&mut self, instrument: Instrument, labels: Labels, value: f64) {
        if !value.is_finite() {
            return;
        }
        let bounds = instrument.descriptor().bounds;
        let point = self
            .series
            .entry((instrument, labels))
            .or_insert_with(|| Point {
                min: value,
                max: value,
                buckets: vec![0; bounds.map_or(0, |b| b.len() + 1)],
                ..Point::default()
            });
        point.count += 1;
        point.sum += value;
        point.min = point.min.min(value);
        point.max = point.max.max(value);
        if let Some(bounds) = bounds {
            // OTLP's buckets: (-inf, b0], (b0, b1], …, (bn, +inf).
            let at = bounds
                .iter()
                .position(|b| value <= *b)
                .unwrap_or(bounds.len());
            if let Some(bucket) = point.buckets.get_mut(at) {
                *bucket += 1;
            }
        }
    }

    /// Whether anything was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// The totals so far, as OTLP metrics stamped `now`.
    pub(crate) fn snapshot(&self, now: u64) -> Vec<Metric> {
        let mut out = Vec::new();
        for instrument in Instrument::ALL {
            let descriptor = instrument.descriptor();
            let points = self
                .series
                .iter()
                .filter(|((i, _), _)| *i == instrument)
                .map(|((_, labels), point)| (labels_to_attrs(labels), point));
            let (sum, histogram) = match descriptor.bounds {
                Some(bounds) => {
                    let points: Vec<HistogramPoint> = points
                        .map(|(attributes, p)| HistogramPoint {
                            attributes,
                            start_time_unix_nano: self.start,
                            time_unix_nano: now,
                            count: p.count,
                            sum: p.sum,
                            bucket_counts: p.buckets.clone(),
                            explicit_bounds: bounds.to_vec(),
                            min: p.min,
                            max: p.max,
                        })
                        .collect();
                    if points.is_empty() {
                        continue;
                    }
                    (None, Some(Histogram::cumulative(points)))
                }
                None => {
                    let points: Vec<NumberPoint> = points
                        .map(|(attributes, p)| NumberPoint {
                            attributes,
                            start_time_unix_nano: self.start,
                            time_unix_nano: now,
                            value: if descriptor.whole {
                                Number::Int(p.sum as i64)
                            } else {
                                Number::Double(p.sum)
                            },
                        })
                        .collect();
                    if points.is_empty() {
                        continue;
                    }
                    (Some(Sum::counter(points)), None)
                }
            };
            out.push(Metric {
                name: descriptor.name,
                description: descriptor.description,
                unit: descriptor.unit,
                sum,
                histogram,
            });
        }
        out
    }
}

fn labels_to_attrs(labels: &Labels) -> Vec<otlp::Attr> {
    labels
        .iter()
        .map(|(k, v)| otlp::attr(k, v.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_histograms_add_up() {
        let mut m = Metrics::new(1);
        assert!(m.is_empty() && m.snapshot(2).is_empty());
        let step = |status: &str| {
            vec![
                ("step_name", "a".to_owned()),
                ("step_type", "command".to_owned()),
                ("status", status.to_owned()),
            ]
        };
        m.record(Instrument::StepDuration, step("complete"), 3.0);
        m.record(Instrument::StepDuration, step("complete"), 30.0);
        m.record(Instrument::StepDuration, step("error"), 20_000.0);
        m.record(
            Instrument::CostUsd,
            vec![("provider", "claude".into())],
            0.25,
        );
        m.record(
            Instrument::CostUsd,
            vec![("provider", "claude".into())],
            0.5,
        );
        m.record(
            Instrument::JudgeVerdicts,
            vec![("verdict", "fail".into())],
            1.0,
        );
        m.record(Instrument::CostUsd, vec![], f64::NAN);
        let all = m.snapshot(2);
        let names: Vec<_> = all.iter().map(|x| x.name).collect();
        assert_eq!(
            names,
            [
                "voyage.step.duration",
                "voyage.cost.usd",
                "voyage.judge.verdicts"
            ]
        );
        let duration = all[0].histogram.as_ref().unwrap();
        assert_eq!(duration.data_points.len(), 2);
        let complete = &duration.data_points[0];
        assert_eq!(
            (complete.count, complete.sum, complete.min, complete.max),
            (2, 33.0, 3.0, 30.0)
        );
        assert_eq!(complete.bucket_counts.iter().sum::<u64>(), 2);
        assert_eq!(complete.bucket_counts[1], 1, "3 ms is in (0, 5]");
        assert_eq!(complete.bucket_counts[4], 1, "30 ms is in (25, 50]");
        let error = &duration.data_points[1];
        assert_eq!(
            *error.bucket_counts.last().unwrap(),
            1,
            "20 s is past the last bound"
        );
        let cost = all[1].sum.as_ref().unwrap();
        assert_eq!(cost.data_points[0].value, Number::Double(0.75));
        let verdicts = all[2].sum.as_ref().unwrap();
        assert_eq!(verdicts.data_points[0].value, Number::Int(1));
    }
}
