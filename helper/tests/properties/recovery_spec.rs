//! The recovery spec writer (Phase 7.6) never panics, whatever the plan and
//! whichever steps are missing, and on every valid plan of the fixtures
//! its text reads back as a session spec with no error: Step 0 and
//! exactly the missing steps, so the spec passes `plan validate`.

#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use std::path::Path;

use proptest::prelude::*;
use voyage_helper::internals::plan::parse;
use voyage_helper::internals::recovery::spec_text;

fn plans(sub: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/plans")
        .join(sub);
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    out.sort();
    out
}

#[test]
fn every_valid_plan_gives_a_spec_that_validates() {
    for source in plans("valid") {
        let plan = parse(&source, "plan.md").unwrap();
        let numbers: Vec<u32> = plan
            .steps
            .iter()
            .map(|s| s.number)
            .filter(|&n| n != 0)
            .collect();
        // Every step missing, then every other one (gaps).
        let every_other: Vec<u32> = numbers.iter().copied().step_by(2).collect();
        for missing in [numbers.clone(), every_other] {
            let text = spec_text(&source, &missing).unwrap();
            let spec = parse(&text, "spec.md").unwrap();
            let errors: Vec<String> = spec
                .errors()
                .map(|p| format!("{}: {}", p.code, p.message))
                .collect();
            assert!(errors.is_empty(), "{errors:?}\n{text}");
            let steps: Vec<u32> = spec.steps.iter().map(|s| s.number).collect();
            let mut expected = vec![0];
            expected.extend(&missing);
            assert_eq!(steps, expected, "{text}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn any_plan_and_any_missing_steps(index in 0usize..64, cut in 0.0f64..1.0, missing in proptest::collection::vec(0u32..12, 0..6)) {
        let mut all = plans("valid");
        all.extend(plans("invalid"));
        let source = &all[index % all.len()];
        let mut end = ((source.len() as f64) * cut) as usize;
        while !source.is_char_boundary(end) { end -= 1; }
        let _ = spec_text(&source[..end], &missing);
        let _ = spec_text(source, &missing);
    }
}
