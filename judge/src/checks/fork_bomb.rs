//! Fork bombs (trekexecute Phase 2.4, `:(){ :|:& };:`). In the syntax tree a
//! fork bomb is a function that calls itself in a pipeline or in the
//! background; the walker reports that ([`crate::walk`]). This file
//! adds a check on the raw text for when the parser rejects the command.

/// Why a self-calling function was reported.
pub(crate) fn detail(name: &str) -> String {
    format!("function {name} calls itself through a pipe or in the background")
}

/// The classic shape `NAME(){ NAME|NAME& };NAME`, blanks ignored.
pub(crate) fn looks_like(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = squeezed.find("(){") else {
        return false;
    };
    let name = squeezed.get(..open).unwrap_or_default();
    let name = name.rsplit([';', '&', '|']).next().unwrap_or_default();
    !name.is_empty() && squeezed.contains(&format!("{name}|{name}&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_shapes() {
        assert!(looks_like(":(){ :|:& };:"));
        assert!(looks_like("bomb() { bomb | bomb & }; bomb"));
        assert!(!looks_like("f() { echo hi; }; f"));
    }
}
