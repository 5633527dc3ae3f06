//! A failure on demand inside the judge's scan thread, for the helper's
//! tests that prove a scan that fails never lets the call through:
//! `VOYAGE_FAULT=scan` (a panic), `alloc:scan` (an allocation that fails)
//! or `abort:scan` (an abort), with the `fault-injection` feature, as
//! core/src/fault.rs does for the hook. Without the feature it is nothing.

/// Fails as `VOYAGE_FAULT` says at `place`; without the feature, nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn fail_at(_place: &'static str) {}

/// Panics when `VOYAGE_FAULT` names `place`, makes an allocation fail
/// when it is `alloc:PLACE`, aborts when it is `abort:PLACE`.
#[cfg(feature = "fault-injection")]
pub(crate) fn fail_at(place: &'static str) {
    let Ok(fault) = std::env::var("VOYAGE_FAULT") else {
        return;
    };
    if fault == place {
        panic!("fault injected at {place}");
    }
    if fault.strip_prefix("alloc:") == Some(place) {
        // More than any machine has: the allocator returns null.
        std::hint::black_box(Vec::<u8>::with_capacity(1 << 62));
    }
    if fault.strip_prefix("abort:") == Some(place) {
        std::process::abort();
    }
}
