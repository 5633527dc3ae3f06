//! The workflow runner's tests: `voyage-helper workflow …` loading, running
//! and nesting YAML workflows with the real `sh`, and prompt steps run by
//! the real `claude` and `opencode` CLIs against [`mock_api`], a scripted
//! Messages API on 127.0.0.1. Shared builders are in `../common/`.

#[path = "../common/mod.rs"]
mod common;

mod claude;
mod load;
mod mock_api;
mod nested;
mod opencode;
mod plan;
mod remote;
mod run;
mod telemetry;
mod tui;
