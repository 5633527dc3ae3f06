//! `{{name}}` placeholders: filled from vars at load time, `{{item}}` at run
//! time.
//!
//! Filling is a literal replacement of each var's `{{name}}`, in the order
//! the vars were declared, as Executant does; so a var whose value holds
//! another placeholder is filled only when the var it names comes later.

use super::model::Vars;

/// The placeholder filled in per loop iteration rather than at load.
pub(super) const ITEM: &str = "item";

/// `text` with every declared var's `{{name}}` replaced by its value.
pub(super) fn fill(text: &str, vars: &Vars) -> String {
    if !text.contains("{{") {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for (name, value) in &vars.0 {
        let token = format!("{{{{{name}}}}}");
        if out.contains(&token) {
            out = out.replace(&token, value);
        }
    }
    out
}

/// The name in the first `{{word}}` left in `text` other than `{{item}}`
/// (ASCII word characters only, as Executant's `\w` matches them).
pub(super) fn first_unknown(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = rest.get(start + 2..)?;
        let word_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let word = after.get(..word_len)?;
        if word_len > 0 && after.get(word_len..)?.starts_with("}}") && word != ITEM {
            return Some(word);
        }
        // Retry one byte on: in `{{{x}}}` the placeholder starts at the
        // second brace.
        rest = rest.get(start + 1..)?;
    }
    None
}

/// `text` with every `{{item}}` replaced by `item`.
pub(super) fn fill_item(text: &str, item: &str) -> String {
    text.replace("{{item}}", item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        Vars(
            pairs
                .iter()
                .map(|(a, b)| ((*a).into(), (*b).into()))
                .collect(),
        )
    }

    #[test]
    fn fills_in_declaration_order() {
        // `a` holds `{{b}}`, and `b` comes later: resolved.
        let v = vars(&[("a", "x{{b}}"), ("b", "y")]);
        assert_eq!(fill("{{a}}", &v), "xy");
        // The other way round the leftover token stays (Executant's quirk).
        let v = vars(&[("b", "y"), ("a", "x{{b}}")]);
        assert_eq!(fill("{{a}}", &v), "x{{b}}");
        assert_eq!(first_unknown(&fill("{{a}}", &v)), Some("b"));
    }

    #[test]
    fn only_word_placeholders_other_than_item_are_unknown() {
        assert_eq!(first_unknown("{{item}} {{ spaced }} {{a-b}} {{}}"), None);
        assert_eq!(first_unknown("$((1+1)) {{item}}{{name}}"), Some("name"));
        assert_eq!(first_unknown("{{{x}}}"), Some("x"));
        assert_eq!(first_unknown("{{é1}}"), None);
    }

    #[test]
    fn values_are_literal() {
        let v = vars(&[("a", "$1 $& \\n")]);
        assert_eq!(fill("<{{a}}>", &v), "<$1 $& \\n>");
        assert_eq!(fill_item("{{item}}/{{item}}", "x"), "x/x");
    }
}
