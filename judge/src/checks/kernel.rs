//! Changing the running kernel: a write to `/proc/sysrq-trigger` (one
//! letter reboots, powers off or crashes the machine at once, with no
//! shutdown) or to a setting under `/proc/sys/`, and `sysctl` setting a
//! value. Writes are recognised by their path, whatever writes them; the
//! scanner looks at every write target the command has ([`is_kernel_path`]).

use super::Hit;
use crate::arg::Arg;
use crate::rule;

/// Whether writing `path` changes the kernel: `/proc/sysrq-trigger`, under
/// `/proc/sys/`, and the same through `/proc/PID/root`-free spellings with
/// `//` or `/./` in them.
pub(crate) fn is_kernel_path(path: &str) -> bool {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    path.starts_with('/')
        && matches!(
            parts.as_slice(),
            ["proc", "sysrq-trigger"] | ["proc", "sys", _, ..]
        )
}

/// `sysctl -w KEY=VALUE`, `sysctl KEY=VALUE`, `sysctl -p [FILE]` (loads
/// settings from a file), `sysctl --system`.
pub(super) fn check_sysctl(args: &[Arg]) -> Option<Hit> {
    let sets = args.iter().any(|a| {
        a.exact
            && (matches!(
                a.text.as_str(),
                "-w" | "--write" | "-p" | "--load" | "--system"
            ) || a.text.starts_with("--load=")
                || (!a.text.starts_with('-') && a.text.contains('=')))
    });
    sets.then(|| {
        Hit::new(
            &rule::KERNEL,
            "sysctl changes a setting of the running kernel",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_paths_and_sysctl() {
        for path in [
            "/proc/sysrq-trigger",
            "/proc/sys/kernel/sysrq",
            "//proc/./sys/vm/x",
        ] {
            assert!(is_kernel_path(path), "{path}");
        }
        for path in [
            "/proc/cpuinfo",
            "proc/sys/x",
            "/proc/sys",
            "/tmp/proc/sys/x",
        ] {
            assert!(!is_kernel_path(path), "{path}");
        }
        let words = |l: &str| l.split_whitespace().map(Arg::literal).collect::<Vec<_>>();
        assert!(check_sysctl(&words("-w kernel.sysrq=1")).is_some());
        assert!(check_sysctl(&words("vm.swappiness=10")).is_some());
        assert!(check_sysctl(&words("-p")).is_some());
        assert!(check_sysctl(&words("-a")).is_none());
        assert!(check_sysctl(&words("kernel.sysrq")).is_none());
        assert!(check_sysctl(&words("-n vm.swappiness")).is_none());
    }
}
