//! Custom profiles: `voyage-profiles/NAME.yaml` (or `.yml`) in the project,
//! then in the data directory. Checked against the `profile` schema; the
//! phases a file leaves out come from the built-in it `extends` (premium by
//! default).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::builtin::{self, DEFAULT_PROFILE};
use super::code;
use super::model::Profile;
use crate::problem::Problem;
use crate::schema;

/// The folder custom profiles live in.
pub(super) const FOLDER: &str = "voyage-profiles";
/// The most bytes a profile file may have.
pub(super) const MAX_FILE_BYTES: u64 = 256 * 1024;

const CODES: schema::Codes = schema::Codes {
    missing_key: code::PROFILE_BAD_VALUE,
    not_object: code::PROFILE_NOT_MAPPING,
    other: code::PROFILE_BAD_VALUE,
    tagged: code::ALL,
};

/// `Ok` when `name` can name a file: 1 to 64 of `[A-Za-z0-9_-]`.
pub fn check_name(name: &str) -> Result<(), Problem> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(Problem::new(
            code::PROFILE_BAD_NAME,
            format!("profile name '{name}' must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -"),
        ))
    }
}

/// The files that may hold profile `name`, in the order they are tried.
pub(super) fn candidates(name: &str, project: &Path, data_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![project.join(FOLDER)];
    dirs.extend(data_dir.map(|d| d.join(FOLDER)));
    dirs.iter()
        .flat_map(|d| {
            [
                d.join(format!("{name}.yaml")),
                d.join(format!("{name}.yml")),
            ]
        })
        .collect()
}

/// Finds and reads profile `name`; `Ok(None)` when no file holds it.
pub(super) fn load(
    name: &str,
    project: &Path,
    data_dir: Option<&Path>,
) -> Result<Option<Profile>, Vec<Problem>> {
    check_name(name).map_err(|p| vec![p])?;
    let Some(path) = candidates(name, project, data_dir)
        .into_iter()
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let text = crate::input_file::read_to_string(&path, MAX_FILE_BYTES).map_err(|e| {
        let message = match e {
            crate::input_file::InputError::TooLarge { .. } => e.to_string(),
            _ => format!("cannot read: {e}"),
        };
        vec![Problem::new(e.code(code::INPUT), message).in_file(&path)]
    })?;
    parse(name, &text, &path.display().to_string())
        .map(Some)
        .map_err(|ps| ps.into_iter().map(|p| p.in_file(&path)).collect())
}

/// Parses a profile file's text (`origin` names it in the result).
pub fn parse(name: &str, text: &str, origin: &str) -> Result<Profile, Vec<Problem>> {
    let value: Value = if text.trim().is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        crate::yaml::from_str(text).map_err(|e| vec![yaml_problem(&e)])?
    };
    let problems = schema::check("profile", &value, &CODES);
    if !problems.is_empty() {
        return Err(problems);
    }
    let base_name = value
        .get("extends")
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_PROFILE);
    let Some(mut profile) = builtin::find(base_name) else {
        return Err(vec![Problem::new(
            code::PROFILE_BAD_EXTENDS,
            format!("unknown built-in profile '{base_name}'"),
        )]);
    };
    profile.name = name.to_owned();
    profile.origin = origin.to_owned();
    profile.description = value
        .get("description")
        .and_then(Value::as_str)
        .map_or_else(|| format!("custom, extends {base_name}"), str::to_owned);
    if let Some(models) = value.get("phase_models").and_then(Value::as_object) {
        for (phase, model) in models {
            if let Some(model) = model.as_str() {
                profile.phase_models.insert(phase.clone(), model.to_owned());
            }
        }
    }
    if let Some(n) = value.get("parallel_agents").and_then(Value::as_u64) {
        profile.parallel_agents = u32::try_from(n).unwrap_or(profile.parallel_agents);
    }
    Ok(profile)
}

/// The profile area's one conversion from a YAML error.
fn yaml_problem(e: &crate::yaml::YamlError) -> Problem {
    Problem::new(
        code::PROFILE_NOT_YAML,
        format!("not valid YAML: {}", e.message),
    )
    .at(e.line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_gaps_from_what_it_extends() {
        let p = parse(
            "team",
            "extends: economy\nphase_models:\n  execute: sonnet\n",
            "f",
        )
        .unwrap();
        assert_eq!(p.model_for("execute"), Some("sonnet"));
        assert_eq!(p.model_for("plan"), Some("sonnet"));
        assert_eq!(p.parallel_agents, 1);
        let p = parse("empty", "", "f").unwrap();
        assert_eq!(p.model_for("review"), Some("opus"));
    }

    #[test]
    fn refuses_what_the_schema_refuses() {
        let code = |text: &str| parse("x", text, "f").unwrap_err()[0].code;
        assert_eq!(code("phase_models:\n  deploy: opus\n"), "PROFILE_BAD_PHASE");
        assert_eq!(code("extends: gold\n"), "PROFILE_BAD_EXTENDS");
        assert_eq!(code("parallel_agents: 0\n"), "PROFILE_BAD_VALUE");
        assert_eq!(code("- a list\n"), "PROFILE_NOT_MAPPING");
        assert_eq!(code("a: [\n"), "PROFILE_NOT_YAML");
        assert!(check_name("../etc").is_err());
    }
}
