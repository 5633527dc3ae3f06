//! The JSON Schemas of the formats the helper reads and writes, embedded so
//! the binary can print them (`voyage-helper schema NAME`) and, in later
//! areas, validate against them. The files in `schemas/` are the source.

/// Every schema by name: the file name without `.schema.json`.
pub const SCHEMAS: &[(&str, &str)] = &[
    (
        "hook-pre-tool-use-output",
        include_str!("../../schemas/hook-pre-tool-use-output.schema.json"),
    ),
    ("plan", include_str!("../../schemas/plan.schema.json")),
    (
        "run-block",
        include_str!("../../schemas/run-block.schema.json"),
    ),
    (
        "scan-command",
        include_str!("../../schemas/scan-command.schema.json"),
    ),
    (
        "scan-plan",
        include_str!("../../schemas/scan-plan.schema.json"),
    ),
    (
        "verdict-reply",
        include_str!("../../schemas/verdict-reply.schema.json"),
    ),
];

/// The schema called `name`.
pub fn find(name: &str) -> Option<&'static str> {
    SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The names, for help and error messages.
pub fn names() -> Vec<&'static str> {
    SCHEMAS.iter().map(|(n, _)| *n).collect()
}
