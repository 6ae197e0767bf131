//! A run's processes as /proc shows them: which they are, and how long their threads waited for a
//! CPU, which a loaded machine imposes on a program and which is no time of the program's own.

use std::collections::HashMap;
use std::fs;
use std::time::{Duration, Instant};

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

/// CPU time of every process of the run whose top process is `top` (see [`run_processes`]), and of
/// the children they reaped (in a sandbox, PID 1 reaps orphans: its children's times count too).
pub(super) fn run_cpu_time(top: libc::pid_t, sandboxed: bool) -> Duration {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let times = |pid: libc::pid_t, fields: std::ops::Range<usize>| -> f64 {
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
        let Some((_, after)) = stat.rsplit_once(')') else { return 0.0 };
        // Fields after the command: state is the 3rd overall, utime the 14th ... cstime the 17th.
        let all: Vec<&str> = after.split_whitespace().collect();
        all.get(fields).unwrap_or_default().iter().filter_map(|f| f.parse::<f64>().ok()).sum()
    };
    // A process that ended meanwhile was reaped into its parent's children's times.
    let mut total: f64 = run_processes(top, sandboxed).into_iter().map(|pid| times(pid, 11..15)).sum();
    if sandboxed {
        total += times(top, 13..15);
    }
    Duration::from_secs_f64(total / ticks)
}

/// How often a run's CPU time, all its processes together, is read against its CPU limit.
const CPU_READ_EVERY: Duration = Duration::from_millis(100);

/// A run's CPU time, all its processes together, against its CPU limit. `RLIMIT_CPU` bounds each
/// process alone, in whole seconds: a program that forked spinning children had the limit once per
/// child, and a limit of a tenth of a second was a second.
pub(super) struct CpuWatch {
    top: libc::pid_t,
    sandboxed: bool,
    /// CPU time /proc counts for the top process that is not the run's (see `Running::reaped_before`).
    not_its_own: Duration,
    limit: Duration,
    next_read: Instant,
    /// The run's CPU time at the last reading.
    last: Duration,
}

impl CpuWatch {
    /// Watches the run whose top process is `top` (see [`run_processes`]), started at `started`.
    pub(super) fn new(
        top: libc::pid_t,
        sandboxed: bool,
        not_its_own: Duration,
        limit: Duration,
        started: Instant,
    ) -> CpuWatch {
        CpuWatch {
            top,
            sandboxed,
            not_its_own,
            limit,
            next_read: started + CPU_READ_EVERY,
            last: Duration::ZERO,
        }
    }

    /// True once the run has used more CPU time than its limit. /proc is read at most every
    /// [`CPU_READ_EVERY`]: most runs end before the first reading.
    pub(super) fn exceeded(&mut self, now: Instant) -> bool {
        if now < self.next_read {
            return false;
        }
        self.next_read = now + CPU_READ_EVERY;
        self.last = run_cpu_time(self.top, self.sandboxed).saturating_sub(self.not_its_own);
        self.last > self.limit
    }

    /// The run's CPU time at the last reading: what a run stopped here used (its sandbox, killed
    /// with it, reports none).
    pub(super) fn last_reading(&self) -> Duration {
        self.last
    }
}

/// A run's threads' waits on a run queue (ready, not running), and the run's CPU time, when read.
#[derive(Debug, Clone)]
pub(super) struct RunQueueWaits {
    waited: HashMap<libc::pid_t, Duration>,
    cpu: Duration,
    at: Instant,
}

impl RunQueueWaits {
    /// Nothing waited and no CPU used at `at`: a run's start.
    pub(super) fn none_at(at: Instant) -> RunQueueWaits {
        RunQueueWaits { waited: HashMap::new(), cpu: Duration::ZERO, at }
    }

    /// Nothing waited at `at`, when /proc counted `cpu` for the run's top process that is not the
    /// run's (see `Running::reaped_before`).
    pub(super) fn none_but(at: Instant, cpu: Duration) -> RunQueueWaits {
        RunQueueWaits { cpu, ..RunQueueWaits::none_at(at) }
    }

    /// The threads of the run whose top process is `top` (see [`run_processes`]), now. No waits
    /// where the kernel keeps no scheduler statistics (`/proc/<pid>/schedstat`).
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
        RunQueueWaits { waited, cpu: run_cpu_time(top, sandboxed), at: Instant::now() }
    }

    /// How long the machine kept the run from a CPU since `earlier`: the longest any one thread
    /// waited (a thread new since then, all its waiting), but no more than the time the run had less
    /// than a whole CPU. A run whose own processes crowd each other (a fork bomb) had its CPU: what
    /// it waited is its own doing.
    pub(super) fn starved_since(&self, earlier: &RunQueueWaits) -> Duration {
        let longest = self
            .waited
            .iter()
            .map(|(tid, &now)| now.saturating_sub(earlier.waited.get(tid).copied().unwrap_or_default()))
            .max()
            .unwrap_or_default();
        let short_of_a_cpu = self
            .at
            .saturating_duration_since(earlier.at)
            .saturating_sub(self.cpu.saturating_sub(earlier.cpu));
        longest.min(short_of_a_cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
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
        assert_eq!(waits.starved_since(&waits), Duration::ZERO);
        // 7 ms more of waiting over 10 ms with 1 ms of CPU: starved 7 ms. With 5 ms of CPU, only 5:
        // the run had its CPU the rest of the time, and what its threads waited was for each other.
        let later = |cpu_ms| RunQueueWaits {
            waited: waits.waited.iter().map(|(&t, &w)| (t, w + Duration::from_millis(7))).collect(),
            cpu: waits.cpu + Duration::from_millis(cpu_ms),
            at: waits.at + Duration::from_millis(10),
        };
        assert_eq!(later(1).starved_since(&waits), Duration::from_millis(7));
        assert_eq!(later(5).starved_since(&waits), Duration::from_millis(5));
    }

    #[test]
    fn a_run_whose_own_processes_crowd_each_other_is_not_starved() {
        // Eight spinning children per CPU: they wait for each other, not for the machine.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let script = format!("for i in $(seq {}); do (while :; do :; done) & done; wait", 8 * cpus);
        let mut shell = Command::new("/bin/sh").args(["-c", &script]).process_group(0).spawn().unwrap();
        let top = shell.id() as libc::pid_t;
        let start = RunQueueWaits::none_at(Instant::now());
        std::thread::sleep(Duration::from_millis(1500));
        let now = RunQueueWaits::read(top, false);
        // SAFETY: kill takes integers; the shell leads a process group of its own.
        unsafe { libc::kill(-top, libc::SIGKILL) };
        let _ = shell.wait();
        let longest = now.waited.values().max().copied().unwrap_or_default();
        if longest.is_zero() {
            eprintln!("skipped: no scheduler statistics here");
            return;
        }
        if now.cpu <= now.at.saturating_duration_since(start.at) {
            // A machine so busy that eight spinners a CPU had less than one: nothing to judge here.
            eprintln!("skipped: the run had less than a CPU ({:?})", now.cpu);
            return;
        }
        assert_eq!(now.starved_since(&start), Duration::ZERO, "its threads waited {longest:?}");
    }
}
