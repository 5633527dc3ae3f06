//! Trace and span ids, and the W3C `traceparent` text that carries them to
//! child processes (`00-<trace id>-<span id>-01`).
//!
//! Ids come from a generator seeded once from the operating system's random
//! source (`/dev/urandom`, 32 bytes), then stepped as a SplitMix64 sequence:
//! ids only need to be unique and unguessable enough not to collide across
//! runs, and reading the device once keeps a span's cost to a few
//! arithmetic operations.

use std::fmt::Write as _;
use std::io::Read;

/// A 128-bit trace id, never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TraceId(pub u128);

/// A 64-bit span id, never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SpanId(pub u64);

impl TraceId {
    /// 32 lowercase hex digits, as OTLP/JSON and `traceparent` write it.
    pub(crate) fn hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

impl SpanId {
    /// 16 lowercase hex digits.
    pub(crate) fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The `traceparent` of a span: version 00, sampled.
pub(crate) fn traceparent(trace: TraceId, span: SpanId) -> String {
    let mut text = String::with_capacity(55);
    let _ = write!(text, "00-{:032x}-{:016x}-01", trace.0, span.0);
    text
}

/// A `traceparent` found in our own environment: the caller's trace, which
/// the run joins as a child of the caller's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parent {
    pub trace: TraceId,
    pub span: SpanId,
}

/// Reads a `traceparent` value (W3C Trace Context, level 1): `None` for
/// anything malformed, as the recommendation says to ignore it then.
pub(crate) fn parse_traceparent(text: &str) -> Option<Parent> {
    let text = text.trim();
    let mut parts = text.split('-');
    let (version, trace, span, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let lower_hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !lower_hex(version, 2) || version == "ff" || !lower_hex(flags, 2) {
        return None;
    }
    // Version 00 has exactly four fields; a later version may add more.
    if version == "00" && parts.next().is_some() {
        return None;
    }
    if !lower_hex(trace, 32) || !lower_hex(span, 16) {
        return None;
    }
    let trace = u128::from_str_radix(trace, 16).ok().filter(|t| *t != 0)?;
    let span = u64::from_str_radix(span, 16).ok().filter(|s| *s != 0)?;
    Some(Parent {
        trace: TraceId(trace),
        span: SpanId(span),
    })
}

/// The generator of a run's ids.
#[derive(Debug, Clone)]
pub(crate) struct Ids {
    state: u64,
}

impl Ids {
    /// A generator seeded from `/dev/urandom` (or, where that cannot be
    /// read, from the randomly keyed hasher the standard library seeds from
    /// the same source).
    pub(crate) fn from_os() -> Self {
        let mut seed = [0u8; 8];
        let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut seed));
        let state = match read {
            Ok(()) => u64::from_le_bytes(seed),
            Err(_) => {
                use std::hash::{BuildHasher, Hasher};
                let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
                hasher.write_u32(std::process::id());
                hasher.finish()
            }
        };
        Self { state }
    }

    /// A generator with a fixed seed (for tests).
    #[cfg(test)]
    pub(crate) fn seeded(state: u64) -> Self {
        Self { state }
    }

    /// The next 64 random bits, never zero.
    pub(crate) fn next_u64(&mut self) -> u64 {
        loop {
            self.state = self.state.wrapping_add(GOLDEN);
            let value = mix(self.state);
            if value != 0 {
                return value;
            }
        }
    }

    pub(crate) fn span(&mut self) -> SpanId {
        SpanId(self.next_u64())
    }

    pub(crate) fn trace(&mut self) -> TraceId {
        TraceId((u128::from(self.next_u64()) << 64) | u128::from(self.next_u64()))
    }
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: a bijection of 64-bit values that scatters
/// neighbouring inputs.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The span id of the item numbered `n` under `key`: distinct numbers give
/// distinct ids (the mix is a bijection), and zero is never given.
pub(crate) fn keyed(key: u64, n: u64) -> SpanId {
    let id = mix(key.wrapping_add(n.wrapping_add(1).wrapping_mul(GOLDEN)));
    SpanId(if id == 0 { 1 } else { id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_round_trips() {
        let (trace, span) = (
            TraceId(0x0af7_6519_16cd_43dd_8448_eb21_1c80_319c),
            SpanId(0xb7ad_6b71_6920_3331),
        );
        let text = traceparent(trace, span);
        assert_eq!(
            text,
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        );
        assert_eq!(parse_traceparent(&text), Some(Parent { trace, span }));
    }

    #[test]
    fn malformed_traceparents_are_ignored() {
        for bad in [
            "",
            "00",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333x-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad:?}");
        }
        // A later version may carry more fields.
        assert!(
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-zz")
                .is_some()
        );
    }

    #[test]
    fn ids_are_never_zero_and_do_not_repeat() {
        let mut ids = Ids::seeded(0u64.wrapping_sub(GOLDEN));
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            assert!(seen.insert(ids.next_u64()));
        }
        assert!(!seen.contains(&0));
        let keyed_ids: std::collections::HashSet<_> = (0..10_000).map(|n| keyed(42, n)).collect();
        assert_eq!(keyed_ids.len(), 10_000);
        assert_eq!(Ids::seeded(7).trace().hex().len(), 32);
        assert_eq!(SpanId(1).hex(), "0000000000000001");
    }
}
