//! A run's processes as /proc shows them: which they are, and how long their threads waited for a
//! CPU, which a loaded machine imposes on a program and which is no time of the program's own.

use std::collections::HashMap;
use std::fs;
use std::time::Duration;

/// Processes read at most: a fork bomb's tree is busy long before it is all read.
const MOST_PROCESSES_READ: usize = 256;

/// Every process of the run whose top process (a sandbox's PID 1, or the program) is `top`: the
/// program and its descendants (in a sandbox, every descendant of PID 1, orphans included; PID 1
/// itself is the grader's, not the run's). At most [`MOST_PROCESSES_READ`].
pub(super) fn run_processes(top: libc::pid_t, sandboxed: bool) -> Vec<libc::pid_t> {
    let mut pids: Vec<libc::pid_t> = if sandboxed { Vec::new() } else { vec![top] };
    let mut parents = vec![top];
    while let Some(parent) = parents.pop() {
        if pids.len() >= MOST_PROCESSES_READ {
            break;
        }
        let Ok(children) = fs::read_to_string(format!("/proc/{parent}/task/{parent}/children")) else {
            continue;
        };
        for child in children.split_whitespace().filter_map(|p| p.parse().ok()) {
            pids.push(child);
            parents.push(child);
        }
    }
    pids
}

/// The time waiting for a CPU a run's time limit (wall, or an answer's) is extended by at most, in
/// multiples of the limit.
pub(super) const MOST_EXTENSION: u32 = 10;

/// How long each thread of a run had waited on a run queue (ready, not running) when it was read.
#[derive(Debug, Clone, Default)]
pub(super) struct RunQueueWaits {
    waited: HashMap<libc::pid_t, Duration>,
}

impl RunQueueWaits {
    /// The threads of the run whose top process is `top` (see [`run_processes`]), now. Empty where
    /// the kernel keeps no scheduler statistics (`/proc/<pid>/schedstat`).
    pub(super) fn read(top: libc::pid_t, sandboxed: bool) -> RunQueueWaits {
        let mut waited = HashMap::new();
        for pid in run_processes(top, sandboxed) {
            let Ok(threads) = fs::read_dir(format!("/proc/{pid}/task")) else { continue };
            for thread in threads.flatten() {
                let Ok(tid) = thread.file_name().to_string_lossy().parse::<libc::pid_t>() else { continue };
                let Ok(stat) = fs::read_to_string(thread.path().join("schedstat")) else { continue };
                // "time on a CPU, time waiting on a run queue, time slices", in nanoseconds.
                if let Some(wait) = stat.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok()) {
                    waited.insert(tid, Duration::from_nanos(wait));
                }
            }
        }
        RunQueueWaits { waited }
    }

    /// The longest any one thread has waited for a CPU since `earlier` (a thread new since then, all
    /// its waiting): the delay a loaded machine put on the thread that was to answer, at most.
    pub(super) fn longest_since(&self, earlier: &RunQueueWaits) -> Duration {
        self.waited
            .iter()
            .map(|(tid, &now)| now.saturating_sub(earlier.waited.get(tid).copied().unwrap_or_default()))
            .max()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_program_and_its_children_are_found_and_their_threads_read() {
        let mut shell = Command::new("/bin/sh").args(["-c", "sleep 30 & sleep 30 & wait"]).spawn().unwrap();
        let top = shell.id() as libc::pid_t;
        let mut found = Vec::new();
        for _ in 0..200 {
            found = run_processes(top, false);
            if found.len() == 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let waits = RunQueueWaits::read(top, false);
        // SAFETY: kill takes integers; the shell's children die with their sleeps' ends anyway.
        for pid in &found {
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
        let _ = shell.wait();
        assert_eq!(found.len(), 3, "the shell and its two sleeps: {found:?}");
        assert_eq!(found[0], top);
        if std::path::Path::new("/proc/self/schedstat").exists() {
            assert_eq!(waits.waited.len(), 3, "one thread each");
        }
        // Nothing has waited since a reading of the same moment.
        assert_eq!(waits.longest_since(&waits), Duration::ZERO);
        let later = RunQueueWaits {
            waited: waits.waited.iter().map(|(&t, &w)| (t, w + Duration::from_millis(7))).collect(),
        };
        assert_eq!(later.longest_since(&waits), Duration::from_millis(7));
    }
}
