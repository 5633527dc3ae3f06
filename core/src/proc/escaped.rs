//! Processes a command started that left its process group: an agent CLI
//! runs its tools in sessions of their own (`setsid`), daemons fork twice,
//! so stopping the group on a timeout or an interrupt would leave them
//! running. On Linux they are found in `/proc` two ways: every command gets
//! a mark in its environment ([`MARK_VAR`]) that its descendants inherit,
//! whoever their parent is by now; and the leader's descendants are walked,
//! for those that cleared their environment. Elsewhere none are found and
//! only the group is stopped.
//!
//! A process is named by its pid and start time, so a pid the kernel hands
//! out again is never signalled or reaped by mistake.

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// The variable that marks a supervised command's processes.
pub(crate) const MARK_VAR: &str = "VOYAGE_JOB";

/// A mark no other command of any helper process carries: our pid and a
/// count.
pub(crate) fn new_mark() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{}.{n}", std::process::id())
}

/// One process found in `/proc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Process {
    pub pid: i32,
    parent: i32,
    group: i32,
    /// Clock ticks after boot: with the pid, the process's identity.
    start: u64,
    zombie: bool,
}

/// The living processes outside `group` that carry `mark`, or descend from
/// `leader` (give it only while the leader is unreaped: its pid cannot have
/// been handed out again then).
pub(crate) fn find(mark: &str, leader: Option<i32>, group: i32) -> Vec<Process> {
    let all: Vec<Process> = processes().into_iter().filter(|p| !p.zombie).collect();
    let mut found: Vec<Process> = all
        .iter()
        .filter(|p| has_mark(p.pid, mark))
        .copied()
        .collect();
    if let Some(leader) = leader {
        let mut visited = vec![leader];
        let mut frontier = vec![leader];
        while let Some(parent) = frontier.pop() {
            for child in all.iter().filter(|p| p.parent == parent) {
                if visited.contains(&child.pid) {
                    continue;
                }
                visited.push(child.pid);
                frontier.push(child.pid);
                if !found.contains(child) {
                    found.push(*child);
                }
            }
        }
    }
    found.retain(|p| p.group != group && p.pid != leader.unwrap_or(0));
    found
}

/// Whether the process found is still running (not gone, not a zombie, not
/// replaced by another holding the same pid).
pub(crate) fn is_alive(process: &Process) -> bool {
    read_process(process.pid).is_some_and(|now| now.start == process.start && !now.zombie)
}

/// Sends `signal` to each process that is still the one that was found.
pub(crate) fn signal_all(processes: &[Process], signal: Signal) {
    for p in processes.iter().filter(|p| is_alive(p)) {
        let _ = kill(Pid::from_raw(p.pid), signal);
    }
}

/// Reaps those of `processes` that ended as our children (the subreaper
/// makes orphans ours), so they do not stay zombies until we exit. Only a
/// zombie that is still the process found, and ours, is waited for.
pub(crate) fn reap(processes: &[Process]) {
    let us = i32::try_from(std::process::id()).unwrap_or(0);
    for p in processes {
        if read_process(p.pid)
            .is_some_and(|now| now.zombie && now.start == p.start && now.parent == us)
        {
            let _ = waitpid(Pid::from_raw(p.pid), Some(WaitPidFlag::WNOHANG));
        }
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

/// Whether `pid`'s environment holds `MARK_VAR=mark` (unreadable: no; a
/// process of another user cannot be ours).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn has_mark(pid: i32, mark: &str) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("{MARK_VAR}={mark}");
    environ
        .split(|b| *b == 0)
        .any(|entry| entry == wanted.as_bytes())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn has_mark(_pid: i32, _mark: &str) -> bool {
    false
}

/// `/proc/PID/stat`: `pid (comm) state ppid pgrp session … starttime …`.
/// The command name may hold spaces and parentheses, so fields are counted
/// from the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<Process> {
    let after = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    Some(Process {
        pid,
        parent: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        zombie: *fields.first()? == "Z",
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
                start: 987654,
                zombie: false,
            })
        );
        let zombie = parse_stat(1, "1 (z) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5").unwrap();
        assert!(zombie.zombie);
        assert_eq!(parse_stat(1, "1 (short) S 0"), None);
        assert_eq!(parse_stat(1, "no parenthesis"), None);
    }

    #[test]
    fn marks_differ() {
        assert_ne!(new_mark(), new_mark());
    }

    /// sh (our child, in our group) starts two processes in sessions of
    /// their own: one stays its child, the other's parent exits at once
    /// (a double fork), so only the mark can find it.
    #[cfg(target_os = "linux")]
    #[test]
    fn marked_and_descended_processes_outside_the_group_are_found_and_stopped() {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mark = new_mark();
        let mut sh = Command::new("sh")
            .args([
                "-c",
                "setsid sleep 30 & echo $!; setsid sh -c 'sleep 30 & echo $!' ; wait",
            ])
            .env(MARK_VAR, &mark)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(sh.stdout.take().unwrap());
        let mut pids = Vec::new();
        for _ in 0..2 {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            pids.push(line.trim().parse::<i32>().unwrap());
        }
        let shell = i32::try_from(sh.id()).unwrap();
        let our_group = nix::unistd::getpgrp().as_raw();
        // `echo $!` runs as soon as the child is forked, possibly before it
        // has called setsid: until then it is still in our group, where a
        // stop reaches it with the group. Wait for both to have left, and
        // to be `sleep`: while a process is in the middle of exec its
        // environment (the mark) cannot be read.
        let left_the_group = |pid: i32| {
            read_process(pid).is_some_and(|p| p.group != our_group)
                && std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c.trim() == "sleep")
        };
        for pid in &pids {
            let left = (0..500).any(|_| {
                if left_the_group(*pid) {
                    return true;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
                false
            });
            assert!(left, "{pid} never left the group");
        }

        let found = find(&mark, Some(shell), our_group);
        for pid in &pids {
            assert!(found.iter().any(|p| p.pid == *pid), "{pid} in {found:?}");
        }
        assert!(
            !found.iter().any(|p| p.pid == shell),
            "the leader is not listed"
        );
        signal_all(&found, Signal::SIGKILL);
        sh.wait().unwrap();
        for p in found.iter().filter(|p| pids.contains(&p.pid)) {
            let gone = (0..200).any(|_| {
                reap(std::slice::from_ref(p));
                std::thread::sleep(std::time::Duration::from_millis(10));
                !is_alive(p)
            });
            assert!(gone, "{p:?} still running");
        }
    }
}
