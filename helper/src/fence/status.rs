//! `scope status`: whether this kernel can hold a step's scope, and what
//! the fence of the run here leaves open right now.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::grants::{self, Grant, Held, Inputs};
use super::kernel::{self, MIN_ABI, Support};
use super::wrap;
use crate::run_marker;

/// What `scope status` reports.
#[derive(Debug, Serialize)]
pub(crate) struct Status {
    /// The kernel fence holds a step's scope here.
    pub held: bool,
    /// The Landlock ABI whose write rights the fence uses (0: none).
    pub abi: u32,
    /// The kernel's own Landlock ABI, when it has one.
    pub kernel_abi: Option<u32>,
    pub min_abi: u32,
    /// Why the fence does not hold, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
    /// The run in progress here, if any.
    pub run: Option<Run>,
    /// The table of caches: open to every fenced call where they exist.
    pub caches: Vec<Cache>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Run {
    pub marker: String,
    pub plan: String,
    pub step: Option<u32>,
    pub open: Vec<Grant>,
    pub held_back: Vec<Held>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Cache {
    pub name: &'static str,
    pub path: String,
    pub exists: bool,
}

/// The status from `dir`.
pub(crate) fn status(dir: &Path) -> Status {
    let Support { abi, why_not } = kernel::support();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let env = |name: &str| std::env::var(name).ok();
    let run = run_marker::locate(dir).and_then(|location| {
        let marker = run_marker::read(&location.marker).ok()??;
        let tmp = wrap::run_tmp(&std::env::temp_dir(), &location.marker);
        let logs = Path::new(&marker.repo_root).join(crate::run::LOG_SUBDIR);
        let fence = grants::build(&Inputs {
            marker: &marker,
            marker_path: &location.marker,
            tmp: &tmp,
            logs: &logs,
            call_dirs: &[],
            home: home.as_deref(),
            env: &env,
        });
        Some(Run {
            marker: location.marker.display().to_string(),
            plan: marker.plan.clone(),
            step: marker.step,
            open: fence.grants,
            held_back: fence.held,
        })
    });
    let caches = grants::caches(home.as_deref(), &env)
        .into_iter()
        .map(|(name, path)| Cache {
            name,
            exists: path.is_dir(),
            path: path.display().to_string(),
        })
        .collect();
    Status {
        held: why_not.is_none(),
        abi,
        // Last: it restricts this process (from making block devices).
        kernel_abi: kernel::kernel_abi(),
        min_abi: MIN_ABI,
        why_not,
        run,
        caches,
    }
}

/// The status as text.
pub(crate) fn render(status: &Status) -> String {
    let mut text = if status.held {
        format!(
            "Kernel fence: holds each step's scope (the kernel's Landlock ABI {}; the fence uses the write rights of ABI {}).\n",
            status.kernel_abi.unwrap_or(status.abi),
            status.abi
        )
    } else {
        format!(
            "Kernel fence: not available, so a run's scope is judged from the text of each command, not held: {}.\n",
            status.why_not.as_deref().unwrap_or("unknown")
        )
    };
    match &status.run {
        None => text.push_str("Run: none in progress here.\n"),
        Some(run) => {
            let step = run
                .step
                .map_or_else(|| "between steps".to_owned(), |n| format!("step {n}"));
            text.push_str(&format!(
                "Run: {} ({step}; marker {}).\nOpen to a fenced command:\n",
                run.plan, run.marker
            ));
            for grant in &run.open {
                let rights = match grant.rights {
                    grants::Rights::File => "file   ",
                    grants::Rights::Entries => "entries",
                    grants::Rights::Tree => "tree   ",
                };
                text.push_str(&format!("  {rights} {}  ({})\n", grant.path, grant.why));
            }
            if !run.held_back.is_empty() {
                text.push_str("Held back:\n");
                for held in &run.held_back {
                    text.push_str(&format!("  {}  ({})\n", held.path, held.why));
                }
            }
        }
    }
    text.push_str("Caches open to every fenced command where they exist:\n");
    for cache in &status.caches {
        let mark = if cache.exists { "" } else { " (absent)" };
        text.push_str(&format!("  {:<15} {}{mark}\n", cache.name, cache.path));
    }
    text
}
