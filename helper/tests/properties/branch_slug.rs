//! A plan's file name becomes a component of its session branches
//! (`trek/SLUG/session-N`): whatever the name, the component is one git
//! accepts, and a name that already is one is kept as it is.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use proptest::prelude::*;
use voyage_helper::internals::orders::{ref_safe, sha256_hex};

/// git check-ref-format's rules for one component, as far as a slug can
/// break them.
fn valid_component(c: &str) -> bool {
    !c.is_empty()
        && !c.starts_with('.')
        && !c.ends_with(".lock")
        && !c.contains("..")
        && !c.contains("@{")
        && !c.contains('/')
        && !c
            .chars()
            .any(|ch| ch.is_control() || " ~^:?*[\\".contains(ch))
}

proptest! {
    #[test]
    fn every_slug_becomes_a_valid_component(slug in ".{0,40}") {
        let out = ref_safe(&slug);
        prop_assert!(valid_component(&out), "{slug:?} -> {out:?}");
        prop_assert_eq!(ref_safe(&out), out.clone());
    }

    #[test]
    fn plain_slugs_are_kept(slug in "[a-z0-9][a-z0-9_-]{0,30}") {
        prop_assert_eq!(ref_safe(&slug), slug);
    }

    #[test]
    fn the_plan_hash_is_64_hex_digits(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let h = sha256_hex(&data);
        prop_assert_eq!(h.len(), 64);
        prop_assert!(h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    }
}
