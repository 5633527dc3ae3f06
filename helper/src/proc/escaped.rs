//! Descendants of a command that left its process group: an agent CLI runs
//! its tools in sessions of their own (`setsid`), so stopping the group on a
//! timeout or an interrupt would leave them running. They are found by
//! walking `/proc` (Linux); elsewhere none are found and only the group is
//! stopped.
//!
//! A process is named by its pid and start time, so a pid the kernel hands
//! out again between the walk and the signal is never signalled.

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// One process found in `/proc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub pid: i32,
    parent: i32,
    group: i32,
    /// Clock ticks after boot: with the pid, the process's identity.
    start: u64,
}

/// Every living descendant of the processes in `roots` (pids) whose process
/// group is not `group`.
pub fn outside_group(roots: &[i32], group: i32) -> Vec<Process> {
    let all = processes();
    let mut found: Vec<Process> = Vec::new();
    let mut frontier: Vec<i32> = roots.to_vec();
    while let Some(parent) = frontier.pop() {
        for child in all.iter().filter(|p| p.parent == parent) {
            if found.iter().any(|f| f.pid == child.pid) || roots.contains(&child.pid) {
                continue;
            }
            found.push(*child);
            frontier.push(child.pid);
        }
    }
    found.retain(|p| p.group != group);
    found
}

/// Whether the process found is still running (not gone, not a zombie, not
/// replaced by another holding the same pid).
pub fn is_alive(process: &Process) -> bool {
    read_process(process.pid).is_some_and(|now| now.start == process.start)
}

/// Sends `signal` to each process that is still the one that was found.
pub fn signal_all(processes: &[Process], signal: Signal) {
    for p in processes.iter().filter(|p| is_alive(p)) {
        let _ = kill(Pid::from_raw(p.pid), signal);
    }
}

/// Reaps those of `processes` that ended as our children (the subreaper
/// makes orphans ours), so they do not stay zombies until we exit.
pub fn reap(processes: &[Process]) {
    for p in processes {
        let _ = waitpid(Pid::from_raw(p.pid), Some(WaitPidFlag::WNOHANG));
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read_process)
        .collect()
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn processes() -> Vec<Process> {
    Vec::new()
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn read_process(pid: i32) -> Option<Process> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn read_process(_pid: i32) -> Option<Process> {
    None
}

/// `/proc/PID/stat`: `pid (comm) state ppid pgrp session … starttime …`.
/// The command name may hold spaces and parentheses, so fields are counted
/// from the last `)`. A zombie is left out: it cannot be stopped.
fn parse_stat(pid: i32, stat: &str) -> Option<Process> {
    let after = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    if *fields.first()? == "Z" {
        return None;
    }
    Some(Process {
        pid,
        parent: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let stat =
            "4242 (a (b) c) S 17 4242 17 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200";
        assert_eq!(
            parse_stat(4242, stat),
            Some(Process {
                pid: 4242,
                parent: 17,
                group: 4242,
                start: 987654
            })
        );
        assert_eq!(
            parse_stat(1, "1 (zombie) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"),
            None
        );
        assert_eq!(parse_stat(1, "1 (short) S 0"), None);
        assert_eq!(parse_stat(1, "no parenthesis"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_in_a_session_of_its_own_is_found_and_stopped() {
        use std::process::{Command, Stdio};
        // sh (our child, its own group) starts `sleep` in a new session via
        // setsid and prints its pid.
        let mut sh = Command::new("sh")
            .args(["-c", "setsid sleep 30 & echo $!; wait"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let sleeper: i32 = line.trim().parse().unwrap();
        let shell = i32::try_from(sh.id()).unwrap();
        let our_group = nix::unistd::getpgrp().as_raw();

        let found = outside_group(&[shell], our_group);
        assert!(found.iter().any(|p| p.pid == sleeper), "{found:?}");
        signal_all(&found, Signal::SIGKILL);
        // sh's `wait` returns once the sleeper is dead, and has reaped it.
        sh.wait().unwrap();
        assert_eq!(read_process(sleeper), None);
    }
}
