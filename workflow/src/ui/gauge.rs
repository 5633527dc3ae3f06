//! The status bar's context gauge: how full the running agent session's
//! context window is (Executant's `buildGauge`). Pure arithmetic; the
//! status bar draws it.
//!
//! The window is 200,000 tokens, or 1,000,000 for a model whose name
//! carries `[1m]`. The percentage is floored (and capped at 100) so the bar
//! never overstates and never crosses a colour's threshold early: warn from
//! 70%, high from 90%.

/// Cells of the bar.
pub(super) const CELLS: usize = 10;
const WINDOW: u64 = 200_000;
const LONG_WINDOW: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Ok,
    Warn,
    High,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Gauge {
    pub percent: u64,
    /// Filled cells, of [`CELLS`].
    pub filled: usize,
    pub level: Level,
    /// `162.2k`, and the window's size, `200k` or `1M`.
    pub used: String,
    pub limit: String,
}

/// The context window of `model`.
pub(super) fn window(model: &str) -> u64 {
    if model.to_ascii_lowercase().contains("[1m]") {
        LONG_WINDOW
    } else {
        WINDOW
    }
}

impl Gauge {
    pub(super) fn new(tokens: u64, model: &str) -> Self {
        let size = window(model);
        let percent = (u128::from(tokens) * 100 / u128::from(size)).min(100);
        let percent = u64::try_from(percent).unwrap_or(100);
        let level = match percent {
            90.. => Level::High,
            70.. => Level::Warn,
            _ => Level::Ok,
        };
        Self {
            percent,
            filled: usize::try_from(percent / 10).unwrap_or(CELLS).min(CELLS),
            level,
            used: short(tokens),
            limit: short(size),
        }
    }
}

/// A token count as the bar says it: `950`, `162.2k`, `200k`, `1M`,
/// `1.5M` (tenths floored, a trailing `.0` dropped).
pub(super) fn short(n: u64) -> String {
    let (unit, suffix) = match n {
        1_000_000.. => (1_000_000, "M"),
        1_000.. => (1_000, "k"),
        _ => return n.to_string(),
    };
    let tenths = n / (unit / 10);
    if tenths.is_multiple_of(10) {
        format!("{}{suffix}", tenths / 10)
    } else {
        format!("{}.{}{suffix}", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_floored() {
        let g = Gauge::new(162_200, "sonnet");
        assert_eq!((g.percent, g.filled, g.level), (81, 8, Level::Warn));
        assert_eq!((g.used.as_str(), g.limit.as_str()), ("162.2k", "200k"));
        // 69.99% is still ok, 70% warns, 89.99% warns, 90% is high.
        assert_eq!(Gauge::new(139_999, "sonnet").level, Level::Ok);
        assert_eq!(Gauge::new(139_999, "sonnet").percent, 69);
        assert_eq!(Gauge::new(140_000, "sonnet").level, Level::Warn);
        assert_eq!(Gauge::new(179_999, "sonnet").level, Level::Warn);
        assert_eq!(Gauge::new(180_000, "sonnet").level, Level::High);
        // Past the window: capped.
        let over = Gauge::new(450_000, "opus");
        assert_eq!((over.percent, over.filled), (100, CELLS));
        assert_eq!(Gauge::new(0, "haiku").filled, 0);
        assert_eq!(Gauge::new(19_999, "haiku").filled, 0);
        assert_eq!(Gauge::new(20_000, "haiku").filled, 1);
    }

    #[test]
    fn a_1m_model_has_the_long_window() {
        let g = Gauge::new(162_200, "claude-sonnet-4-5[1m]");
        assert_eq!((g.percent, g.level), (16, Level::Ok));
        assert_eq!(g.limit, "1M");
        assert_eq!(window("sonnet[1M]"), 1_000_000);
        assert_eq!(window("sonnet"), 200_000);
    }

    #[test]
    fn counts_read_short() {
        assert_eq!(short(950), "950");
        assert_eq!(short(1_000), "1k");
        assert_eq!(short(162_249), "162.2k");
        assert_eq!(short(200_000), "200k");
        assert_eq!(short(1_000_000), "1M");
        assert_eq!(short(1_550_000), "1.5M");
    }
}
