//! What `plan fill` promises on any text, checked by the fuzz target
//! `plan_fill` and the property test `plan_no_panic` alike: it never
//! panics; it only adds lines (the source with the reported insertions
//! spliced in is the result, a last line without its end given one); each
//! step it filled then has all six keys by the parser's own reading; and
//! filling the result again adds nothing.

#![allow(clippy::expect_used)]

use voyage_helper::internals::plan::{fill_text, parse};

/// Checks the promises on `source`.
pub(crate) fn check(source: &str) {
    let Some(filled) = fill_text(source) else {
        return;
    };
    if filled.inserts.is_empty() {
        assert_eq!(filled.text, source, "nothing added, yet the text changed");
        return;
    }
    let eol = if source
        .split_inclusive('\n')
        .next()
        .is_some_and(|l| l.ends_with("\r\n"))
    {
        "\r\n"
    } else {
        "\n"
    };
    let mut inserts = filled.inserts.clone();
    inserts.sort_by_key(|(after, _)| *after);
    let mut spliced = String::new();
    let mut next = inserts.iter().peekable();
    for (i, line) in source.split_inclusive('\n').enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        spliced.push_str(line);
        while let Some((_, lines)) = next.next_if(|(after, _)| *after <= n) {
            if !spliced.ends_with('\n') {
                spliced.push_str(eol);
            }
            for l in lines {
                spliced.push_str(l);
                spliced.push_str(eol);
            }
        }
    }
    assert!(
        next.peek().is_none(),
        "an insertion after the last line: {inserts:?}"
    );
    assert_eq!(filled.text, spliced, "more than lines were added");

    if let Ok(plan) = parse(&filled.text, "plan.md")
        && plan.strict
    {
        // A problem names its step by number: of two steps with one
        // number, which one it means cannot be told.
        let once = |n: u32| plan.steps.iter().filter(|s| s.number == n).count() == 1;
        for problem in plan.problems.iter().filter(|p| p.step.is_some_and(once)) {
            let missing = matches!(
                problem.code,
                "PLAN_MISSING_MANIFEST" | "PLAN_MANIFEST_MISSING_KEY"
            );
            assert!(
                !(missing && problem.step.is_some_and(|s| filled.filled.contains(&s))),
                "a filled step still lacks keys: {problem:?}\n{}",
                filled.text
            );
        }
    }
    let again = fill_text(&filled.text).expect("the filled text is a plan");
    assert!(
        again.inserts.is_empty(),
        "a second fill added {:?}\n{}",
        again.inserts,
        filled.text
    );
}
