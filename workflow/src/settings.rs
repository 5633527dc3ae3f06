//! The user's settings for a workflow run that come from the environment
//! (docs/guide/configuration.md), read once, at the edge
//! ([`Settings::from_env`] in `workflow run`), and handed down as values: the
//! `VOYAGE_*` name first, Executant's `EXECUTANT_*` name as its fallback, so
//! that an Executant user's environment keeps working.

use std::ffi::OsString;

/// The Claude Code CLI's limit on answers that miss the JSON Schema (its own
/// variable, which every call inherits).
pub(super) const STRUCTURED_RETRIES_VAR: &str = "MAX_STRUCTURED_OUTPUT_RETRIES";

/// What the environment asks of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Settings {
    /// The provider of prompt steps that name none: `VOYAGE_PROVIDER`, else
    /// `EXECUTANT_PROVIDER` (an empty value counts as unset).
    pub provider: Option<String>,
    /// The retrospective's model: `VOYAGE_MODEL` when set, else
    /// `EXECUTANT_MODEL`; `None` (or empty) means the default.
    pub model: Option<String>,
    /// The OpenCode agent of calls that name none: `VOYAGE_AGENT`, else
    /// `EXECUTANT_AGENT` (empty: unset).
    pub agent: Option<String>,
    /// Who grades judged steps: `VOYAGE_JUDGE_PROVIDER`, else
    /// `EXECUTANT_JUDGE_PROVIDER`; `None` means claude, Executant's default.
    pub judge_provider: Option<String>,
    /// Whether a failed run may get a retrospective: `VOYAGE_RETROSPECTIVE=0`
    /// or `EXECUTANT_RETROSPECTIVE=0` turn it off.
    pub retrospective: bool,
    /// Whether the run writes a log file: `VOYAGE_LOG=0` or
    /// `EXECUTANT_LOG=0` turn it off.
    pub log: bool,
    /// The live view's width: `COLUMNS` when the shell exports it, else 80
    /// (asking the terminal itself would take an `ioctl`, which needs unsafe
    /// code; a narrower guess only shortens the live view's lines).
    pub width: usize,
    /// Whether the user set [`STRUCTURED_RETRIES_VAR`] for the CLI: then
    /// calls with a JSON Schema leave it as chosen (else they get 2).
    pub structured_retries_chosen: bool,
    /// The deadline of one remote workflow download: `VOYAGE_FETCH_TIMEOUT`
    /// (seconds, a positive number), else 30 s.
    pub fetch_timeout: std::time::Duration,
    /// Whether a successful run's report gets an efficiency suggestion:
    /// `VOYAGE_REPORT_SUGGESTION=1` or `EXECUTANT_REPORT_SUGGESTION=1`.
    pub report_suggestion: bool,
    /// The guard: the hook command every claude agent of the run is
    /// started with (`<this binary> hook pre-tool-use`), or `None` when
    /// `VOYAGE_WORKFLOW_GUARD=off` (or `0`) turns it off.
    pub guard_hook: Option<String>,
}

/// The variable that turns the guard off (`off` or `0`).
pub(crate) const GUARD_VAR: &str = "VOYAGE_WORKFLOW_GUARD";

/// The hook command of the running binary, quoted for `sh -c` (which is
/// how Claude Code runs a command hook). Only `voyage-helper` runs a
/// workflow, so the running binary is the helper whose hook judges.
fn guard_hook() -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "voyage-helper".to_owned());
    format!("{} hook pre-tool-use", voyage_core::shell::quote(&exe))
}

impl Default for Settings {
    /// The settings of an empty environment.
    fn default() -> Self {
        Self::from_lookup(|_| None)
    }
}

impl Settings {
    /// The settings of this process's environment.
    pub(super) fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// The settings of any environment lookup (for tests).
    pub(super) fn from_lookup(env: impl Fn(&str) -> Option<OsString>) -> Self {
        // Only text counts, as `std::env::var` reads it.
        let text = |name: &str| env(name).and_then(|v| v.into_string().ok());
        let non_empty = |name: &str| text(name).filter(|v| !v.is_empty());
        let is_zero = |name: &str| text(name).is_some_and(|v| v == "0");
        let is_one = |name: &str| text(name).is_some_and(|v| v == "1");
        Self {
            provider: non_empty("VOYAGE_PROVIDER").or_else(|| non_empty("EXECUTANT_PROVIDER")),
            model: text("VOYAGE_MODEL")
                .or_else(|| text("EXECUTANT_MODEL"))
                .filter(|m| !m.is_empty()),
            agent: non_empty("VOYAGE_AGENT").or_else(|| non_empty("EXECUTANT_AGENT")),
            judge_provider: non_empty("VOYAGE_JUDGE_PROVIDER")
                .or_else(|| non_empty("EXECUTANT_JUDGE_PROVIDER")),
            retrospective: !is_zero("VOYAGE_RETROSPECTIVE") && !is_zero("EXECUTANT_RETROSPECTIVE"),
            log: ["VOYAGE_LOG", "EXECUTANT_LOG"]
                .iter()
                .all(|name| env(name).is_none_or(|v| v != "0")),
            width: text("COLUMNS")
                .and_then(|c| c.parse().ok())
                .filter(|c| *c > 0)
                .unwrap_or(80),
            structured_retries_chosen: env(STRUCTURED_RETRIES_VAR).is_some(),
            fetch_timeout: text("VOYAGE_FETCH_TIMEOUT")
                .and_then(|t| t.trim().parse::<f64>().ok())
                .filter(|t| t.is_finite() && *t > 0.0 && *t < 86_400.0)
                .map_or(
                    super::remote::DEFAULT_TIMEOUT,
                    std::time::Duration::from_secs_f64,
                ),
            report_suggestion: is_one("VOYAGE_REPORT_SUGGESTION")
                || is_one("EXECUTANT_REPORT_SUGGESTION"),
            guard_hook: (!text(GUARD_VAR)
                .is_some_and(|v| v.eq_ignore_ascii_case("off") || v == "0"))
            .then(guard_hook),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        Settings::from_lookup(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn voyage_names_first_then_executant() {
        let s = settings(&[
            ("VOYAGE_PROVIDER", "claude"),
            ("EXECUTANT_PROVIDER", "opencode"),
        ]);
        assert_eq!(s.provider.as_deref(), Some("claude"));
        let s = settings(&[("VOYAGE_PROVIDER", ""), ("EXECUTANT_PROVIDER", "opencode")]);
        assert_eq!(s.provider.as_deref(), Some("opencode"));
        // A set but empty VOYAGE_MODEL means the default, as it always did.
        let s = settings(&[("VOYAGE_MODEL", ""), ("EXECUTANT_MODEL", "haiku")]);
        assert_eq!(s.model, None);
        let s = settings(&[("EXECUTANT_MODEL", "haiku")]);
        assert_eq!(s.model.as_deref(), Some("haiku"));
        let s = settings(&[("VOYAGE_AGENT", ""), ("EXECUTANT_AGENT", "plan")]);
        assert_eq!(s.agent.as_deref(), Some("plan"));
        let s = settings(&[("VOYAGE_JUDGE_PROVIDER", "opencode")]);
        assert_eq!(s.judge_provider.as_deref(), Some("opencode"));
        assert_eq!(Settings::default().judge_provider, None);
    }

    #[test]
    fn switches_and_width() {
        assert_eq!(Settings::default(), settings(&[]));
        let d = Settings::default();
        assert!(d.retrospective && d.log);
        assert_eq!(d.width, 80);
        assert!(!settings(&[("EXECUTANT_RETROSPECTIVE", "0")]).retrospective);
        assert!(!settings(&[("VOYAGE_LOG", "0")]).log);
        assert!(settings(&[("VOYAGE_LOG", "1")]).log);
        assert_eq!(settings(&[("COLUMNS", "120")]).width, 120);
        assert_eq!(settings(&[("COLUMNS", "0")]).width, 80);
        assert_eq!(d.fetch_timeout.as_secs(), 30);
        assert!(!d.report_suggestion);
        assert!(settings(&[("EXECUTANT_REPORT_SUGGESTION", "1")]).report_suggestion);
        assert!(settings(&[("VOYAGE_REPORT_SUGGESTION", "1")]).report_suggestion);
        assert!(!settings(&[("VOYAGE_REPORT_SUGGESTION", "yes")]).report_suggestion);
        let hook = d.guard_hook.unwrap();
        assert!(hook.ends_with(" hook pre-tool-use"), "{hook}");
        assert_eq!(settings(&[(GUARD_VAR, "off")]).guard_hook, None);
        assert_eq!(settings(&[(GUARD_VAR, "0")]).guard_hook, None);
        assert!(settings(&[(GUARD_VAR, "on")]).guard_hook.is_some());
        let t = settings(&[("VOYAGE_FETCH_TIMEOUT", "0.5")]).fetch_timeout;
        assert_eq!(t.as_millis(), 500);
        for bad in ["0", "-1", "soon", "NaN"] {
            assert_eq!(
                settings(&[("VOYAGE_FETCH_TIMEOUT", bad)])
                    .fetch_timeout
                    .as_secs(),
                30
            );
        }
    }
}
