//! UTC timestamps for file names and records, and durations in words,
//! without a calendar crate.
//!
//! Only the proleptic Gregorian calendar in UTC is needed, which is a short
//! piece of integer arithmetic (Howard Hinnant's `civil_from_days`).

use std::time::{SystemTime, UNIX_EPOCH};

/// A broken-down UTC time, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl UtcTime {
    /// The current time. A clock before 1970 counts as 1970.
    pub fn now() -> Self {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Self::from_unix(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    /// Converts seconds since the Unix epoch.
    pub fn from_unix(secs: i64) -> Self {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        // rem is in 0..86400, so these fit.
        let rem = u32::try_from(rem).unwrap_or(0);
        Self {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// `20260914T101500Z`: the form used in log file names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2026-09-14T10:15:00Z`: RFC 3339, for records.
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// `45s`, `3m 12s`, `1h 05m`.
pub fn duration_words(ms: u64) -> String {
    let total = (ms + 500) / 1000;
    if total < 60 {
        return format!("{total}s");
    }
    let (minutes, seconds) = (total / 60, total % 60);
    if minutes < 60 {
        return format!("{minutes}m {seconds:02}s");
    }
    format!("{}h {:02}m", minutes / 60, minutes % 60)
}

/// `0.4s` under ten seconds, then as [`duration_words`]: `12s`, `3m 05s`.
pub fn short_duration(ms: u64) -> String {
    if ms < 10_000 {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    } else {
        duration_words(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(UtcTime::from_unix(0).compact(), "19700101T000000Z");
        // 2026-09-14T10:15:00Z
        assert_eq!(
            UtcTime::from_unix(1_789_380_900).rfc3339(),
            "2026-09-14T10:15:00Z"
        );
        // a leap day
        assert_eq!(
            UtcTime::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(UtcTime::from_unix(-1).rfc3339(), "1969-12-31T23:59:59Z");
    }
}
