//! Where stats, events and user-wide profiles live
//! (docs/guide/configuration.md): `$CLAUDE_PLUGIN_DATA`, else `$VOYAGE_DATA_DIR`, else
//! `$XDG_DATA_HOME/voyage`, else `~/.local/share/voyage`. Empty variables
//! count as unset. Nothing is created here.
//!
//! A `trek` run records the directory it started with when a variable
//! named it ([`named`]); its later calls [`adopt`] it, so an operator who
//! answers the gate from a shell (where neither variable is set) writes
//! the run's stats beside its events instead of in the fallback.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The data directory of the run this process works for, once adopted.
static ADOPTED: OnceLock<PathBuf> = OnceLock::new();

/// The data directory for this environment, or `None` when not even `HOME`
/// is set.
pub(crate) fn resolve() -> Option<PathBuf> {
    resolve_from(|key| std::env::var_os(key), ADOPTED.get())
}

/// The directory `$CLAUDE_PLUGIN_DATA` or `$VOYAGE_DATA_DIR` names, if one
/// does: what a run records for its later calls.
pub(crate) fn named() -> Option<PathBuf> {
    named_from(|key| std::env::var_os(key))
}

/// Uses `dir` for the rest of this process wherever no variable names a
/// directory (the first call wins).
pub(crate) fn adopt(dir: PathBuf) {
    let _ = ADOPTED.set(dir);
}

fn named_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let get = |key: &str| env(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    get("CLAUDE_PLUGIN_DATA").or_else(|| get("VOYAGE_DATA_DIR"))
}

/// [`resolve`] over any environment lookup and adopted directory (for
/// tests).
pub(crate) fn resolve_from(
    env: impl Fn(&str) -> Option<OsString>,
    adopted: Option<&PathBuf>,
) -> Option<PathBuf> {
    let get = |key: &str| env(key).filter(|v| !v.is_empty()).map(PathBuf::from);
    named_from(&env)
        .or_else(|| adopted.cloned())
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
        assert_eq!(resolve_from(env(leak), None), Some("/c".into()));
        assert_eq!(resolve_from(env(&leak[1..]), None), Some("/v".into()));
        assert_eq!(
            resolve_from(env(&leak[2..]), None),
            Some("/x/voyage".into())
        );
        assert_eq!(
            resolve_from(env(&leak[3..]), None),
            Some("/h/.local/share/voyage".into())
        );
        assert_eq!(resolve_from(env(&[]), None), None);
        // A run's directory beats the fallbacks, never a variable.
        let run = PathBuf::from("/run");
        assert_eq!(
            resolve_from(env(&leak[2..]), Some(&run)),
            Some("/run".into())
        );
        assert_eq!(resolve_from(env(&leak[1..]), Some(&run)), Some("/v".into()));
        assert_eq!(
            resolve_from(env(&[("CLAUDE_PLUGIN_DATA", ""), ("HOME", "/h")]), None),
            Some("/h/.local/share/voyage".into())
        );
    }
}
