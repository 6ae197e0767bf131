//! Per-run control groups: a process count and a memory bound that hold for root too.
//!
//! `RLIMIT_NPROC` does not apply to root and `RLIMIT_AS` stops a JVM from starting, so where the grader
//! may create cgroups (root, or a delegated subtree), each run gets its own with `pids.max` and a memory
//! limit, and the events files tell afterwards which of them the run hit. Both hierarchies are served:
//! cgroup v2 (one unified tree) and v1 (one tree per controller, as on hosts in hybrid mode).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

const ROOT: &str = "/sys/fs/cgroup";

/// Where this machine lets the grader create cgroups with the `pids` and `memory` controllers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v2: run cgroups are created below this directory.
    V2(PathBuf),
    /// cgroup v1: one parent directory per controller.
    V1 {
        /// Parent of run cgroups in the `pids` tree.
        pids: PathBuf,
        /// Parent of run cgroups in the `memory` tree.
        memory: PathBuf,
    },
}

impl Hierarchy {
    /// The hierarchy this process may use, probed once (by creating and removing a test cgroup).
    pub fn usable() -> Option<&'static Hierarchy> {
        static PROBED: OnceLock<Option<Hierarchy>> = OnceLock::new();
        PROBED.get_or_init(probe).as_ref()
    }

    /// A short description for `grader doctor`.
    pub fn describe(&self) -> String {
        match self {
            Hierarchy::V2(dir) => format!("cgroup v2 below {}", dir.display()),
            Hierarchy::V1 { pids, memory } => {
                format!("cgroup v1: pids below {}, memory below {}", pids.display(), memory.display())
            }
        }
    }
}

/// The cgroup path of this process in the hierarchy whose `/proc/self/cgroup` line matches `wanted`
/// (`""` for v2's `0::/path`, or a controller name for v1).
fn own_path(wanted: &str) -> Option<PathBuf> {
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = if wanted.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == wanted)
        };
        matches.then(|| PathBuf::from(path.trim_start_matches('/')))
    })
}

fn probe() -> Option<Hierarchy> {
    let v1 = || -> Option<Hierarchy> {
        let pids = Path::new(ROOT).join("pids").join(own_path("pids")?);
        let memory = Path::new(ROOT).join("memory").join(own_path("memory")?);
        let hierarchy = Hierarchy::V1 { pids, memory };
        try_create(&hierarchy).then_some(hierarchy)
    };
    let v2 = || -> Option<Hierarchy> {
        let base = Path::new(ROOT).join(own_path("")?);
        let controllers = fs::read_to_string(base.join("cgroup.controllers")).ok()?;
        let has = |name: &str| controllers.split_whitespace().any(|c| c == name);
        if !(has("pids") && has("memory")) {
            return None;
        }
        // Children get the controllers only if this cgroup passes them down; enabling them fails
        // while this cgroup holds processes (the "no internal processes" rule) unless it is a root.
        let subtree = fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
        if !(subtree.contains("pids") && subtree.contains("memory")) {
            fs::write(base.join("cgroup.subtree_control"), "+pids +memory").ok()?;
        }
        let hierarchy = Hierarchy::V2(base);
        try_create(&hierarchy).then_some(hierarchy)
    };
    // A v1 `pids` mount means the controllers live there (hybrid hosts): prefer it.
    if Path::new(ROOT).join("pids").is_dir() {
        v1().or_else(v2)
    } else {
        v2().or_else(v1)
    }
}

fn try_create(hierarchy: &Hierarchy) -> bool {
    let limits = CgroupLimits { processes: 8, memory_bytes: 64 << 20 };
    RunCgroup::create(hierarchy, &limits).is_ok()
}

/// What a run cgroup bounds.
#[derive(Debug, Clone, Copy)]
pub struct CgroupLimits {
    /// `pids.max`: processes and threads together.
    pub processes: u64,
    /// Memory (and, where the kernel accounts it, memory plus swap) in bytes.
    pub memory_bytes: u64,
}

/// A cgroup (v2) or a pair of cgroups (v1) made for one run, removed when dropped.
#[derive(Debug)]
pub struct RunCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each directory, opened before the fork so the child can join by writing "0".
    procs: Vec<File>,
    v2: bool,
}

impl RunCgroup {
    /// Creates the run's cgroup(s) with their limits.
    pub fn create(hierarchy: &Hierarchy, limits: &CgroupLimits) -> io::Result<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("grader-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let mut cgroup = RunCgroup { dirs: Vec::new(), procs: Vec::new(), v2: false };
        match hierarchy {
            Hierarchy::V2(base) => {
                cgroup.v2 = true;
                let dir = cgroup.make(base, &name)?;
                write(&dir.join("pids.max"), &limits.processes.to_string())?;
                write(&dir.join("memory.max"), &limits.memory_bytes.to_string())?;
                // Without swap the limit is the limit; kernels without swap accounting lack the file.
                let _ = write(&dir.join("memory.swap.max"), "0");
            }
            Hierarchy::V1 { pids, memory } => {
                let dir = cgroup.make(pids, &name)?;
                write(&dir.join("pids.max"), &limits.processes.to_string())?;
                let dir = cgroup.make(memory, &name)?;
                write(&dir.join("memory.limit_in_bytes"), &limits.memory_bytes.to_string())?;
                let _ = write(&dir.join("memory.memsw.limit_in_bytes"), &limits.memory_bytes.to_string());
            }
        }
        for dir in &cgroup.dirs {
            cgroup.procs.push(OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?);
        }
        Ok(cgroup)
    }

    fn make(&mut self, parent: &Path, name: &str) -> io::Result<PathBuf> {
        let dir = parent.join(name);
        fs::create_dir(&dir)?;
        self.dirs.push(dir.clone());
        Ok(dir)
    }

    /// The descriptors a child writes "0" into to join.
    pub fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// True when the kernel killed a process of the run for memory.
    pub fn memory_exhausted(&self) -> bool {
        if self.v2 {
            return event_count(&self.dirs[0].join("memory.events"), "oom_kill") > 0;
        }
        let memory = &self.dirs[1];
        // `oom_kill` in memory.oom_control exists from Linux 4.13; failcnt counts reclaim attempts at
        // the limit, which a program that stays just under it can also cause, so only as a fallback.
        let control = memory.join("memory.oom_control");
        match fs::read_to_string(&control) {
            Ok(text) if text.contains("oom_kill ") => event_count(&control, "oom_kill") > 0,
            _ => read_number(&memory.join("memory.failcnt")) > 0,
        }
    }

    /// True when a fork or clone of the run failed at `pids.max`.
    pub fn processes_exhausted(&self) -> bool {
        event_count(&self.dirs[0].join("pids.events"), "max") > 0
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        self.procs.clear();
        for dir in self.dirs.iter().rev() {
            // The last processes of the run may take a moment to leave after SIGKILL.
            for attempt in 0..50 {
                match fs::remove_dir(dir) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound && attempt < 49 => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    _ => break,
                }
            }
        }
    }
}

fn write(path: &Path, value: &str) -> io::Result<()> {
    OpenOptions::new().write(true).open(path)?.write_all(value.as_bytes())
}

fn read_number(path: &Path) -> u64 {
    fs::read_to_string(path).ok().and_then(|text| text.trim().parse().ok()).unwrap_or(0)
}

/// The value of `key` in a flat keyed file (`key value` lines), 0 when absent.
fn event_count(path: &Path, key: &str) -> u64 {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(name, _)| *name == key)
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0)
}
