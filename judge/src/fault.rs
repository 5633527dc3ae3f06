//! A panic on demand inside the judge, for the helper's tests that prove a
//! panicking scan is refused as unscannable rather than crashing the hook:
//! `VOYAGE_FAULT=scan` with the `fault-injection` feature. Without the
//! feature it is nothing.

/// Panics when `VOYAGE_FAULT` names `place`; without the feature, nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn panic_at(_place: &'static str) {}

/// Panics when `VOYAGE_FAULT` names `place`.
#[cfg(feature = "fault-injection")]
pub(crate) fn panic_at(place: &'static str) {
    if std::env::var("VOYAGE_FAULT").is_ok_and(|p| p == place) {
        panic!("fault injected at {place}");
    }
}
