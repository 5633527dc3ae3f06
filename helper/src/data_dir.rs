//! Where stats, events and user-wide profiles live (DESIGN.md, "Paths and
//! environment"): `$CLAUDE_PLUGIN_DATA`, else `$VOYAGE_DATA_DIR`, else
//! `$XDG_DATA_HOME/voyage`, else `~/.local/share/voyage`. Empty variables
//! count as unset. Nothing is created here.

use std::ffi::OsString;
use std::path::PathBuf;

/// The data directory for this environment, or `None` when not even `HOME`
/// is set.
pub(crate) fn resolve() -> Option<PathBuf> {
    resolve_from(|key| std::env::var_os(key))
}

/// [`resolve`] over any environment lookup (for tests).
pub(crate) fn resolve_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let get = |key: &str| env(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    get("CLAUDE_PLUGIN_DATA")
        .or_else(|| get("VOYAGE_DATA_DIR"))
        .or_else(|| get("XDG_DATA_HOME").map(|d| d.join("voyage")))
        .or_else(|| get("HOME").map(|h| h.join(".local/share/voyage")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |key| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn order_of_precedence() {
        let all = [
            ("CLAUDE_PLUGIN_DATA", "/c"),
            ("VOYAGE_DATA_DIR", "/v"),
            ("XDG_DATA_HOME", "/x"),
            ("HOME", "/h"),
        ];
        let leak: &'static [(&str, &str)] = Box::leak(Box::new(all));
        assert_eq!(resolve_from(env(leak)), Some("/c".into()));
        assert_eq!(resolve_from(env(&leak[1..])), Some("/v".into()));
        assert_eq!(resolve_from(env(&leak[2..])), Some("/x/voyage".into()));
        assert_eq!(
            resolve_from(env(&leak[3..])),
            Some("/h/.local/share/voyage".into())
        );
        assert_eq!(resolve_from(env(&[])), None);
        assert_eq!(
            resolve_from(env(&[("CLAUDE_PLUGIN_DATA", ""), ("HOME", "/h")])),
            Some("/h/.local/share/voyage".into())
        );
    }
}
