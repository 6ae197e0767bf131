//! Per-run control groups: a process count and a memory bound that hold for root too.
//!
//! `RLIMIT_NPROC` does not apply to root and `RLIMIT_AS` stops a JVM from starting, so where the grader
//! may create cgroups (root, or a delegated subtree), each run gets its own with `pids.max` and a memory
//! limit, and the events files tell afterwards which of them the run hit. Both hierarchies are served:
//! cgroup v2 (one unified tree) and v1 (one tree per controller, as on hosts in hybrid mode).
//!
//! Making and removing a cgroup costs the kernel more than a short run's program does, so a cgroup
//! that its run left empty and clean (no event counted: counters cannot be reset) goes to a pool
//! for the next run. The pool is emptied when the grader exits; cgroups that a killed grader left
//! are removed by the next grader that probes the hierarchy.

use std::cell::Cell;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use super::pool::Pool;

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

    /// The folders where run cgroups are made: one in v2, one per controller in v1.
    fn parents(&self) -> Vec<&PathBuf> {
        match self {
            Hierarchy::V2(base) => vec![base],
            Hierarchy::V1 { pids, memory } => vec![pids, memory],
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
    let hierarchy = if Path::new(ROOT).join("pids").is_dir() { v1().or_else(v2) } else { v2().or_else(v1) };
    if let Some(hierarchy) = &hierarchy {
        remove_left_behind(hierarchy);
    }
    hierarchy
}

/// Removes the run cgroups of graders that are gone (killed before they could empty their pool).
/// A cgroup that still holds a process stays: the kernel refuses to remove it.
fn remove_left_behind(hierarchy: &Hierarchy) {
    for parent in hierarchy.parents() {
        let Ok(entries) = fs::read_dir(parent) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(owner) = name.to_str().and_then(|n| n.strip_prefix("grader-")?.split_once('-')) else {
                continue;
            };
            let gone =
                owner.0.parse::<u32>().is_ok_and(|pid| !Path::new("/proc").join(pid.to_string()).exists());
            if gone && owner.1.parse::<u64>().is_ok() {
                let _ = fs::remove_dir(entry.path());
            }
        }
    }
}

fn try_create(hierarchy: &Hierarchy) -> bool {
    let limits = CgroupLimits { processes: 8, memory_bytes: 64 << 20 };
    RunCgroup::create(hierarchy, &limits).is_ok()
}

/// What a run cgroup bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CgroupLimits {
    /// `pids.max`: processes and threads together.
    pub processes: u64,
    /// Memory (and, where the kernel accounts it, memory plus swap) in bytes.
    pub memory_bytes: u64,
}

/// A cgroup (v2) or a pair of cgroups (v1) for one run: back to the pool when dropped if the run
/// left it empty and clean, removed otherwise.
#[derive(Debug)]
pub struct RunCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each directory, opened before the fork so the child can join by writing "0".
    procs: Vec<File>,
    /// The files read after every run, opened once: opening them by path cost a tenth of the
    /// grader's own CPU per run (long paths through the cgroup file system, three per run).
    counters: Counters,
    v2: bool,
    limits: CgroupLimits,
    /// The event counts read during the run (`None`: not read yet), which decide whether it may go
    /// back to the pool.
    process_events: Cell<Option<u64>>,
    memory_events: Cell<Option<u64>>,
}

/// The files of a run cgroup that are read after every run, each read again from its start.
#[derive(Debug, Default)]
struct Counters {
    /// `pids.current`.
    processes: Option<File>,
    /// `pids.events`.
    process_events: Option<File>,
    /// `memory.events` (v2) or `memory.oom_control` (v1).
    memory_events: Option<File>,
}

impl Counters {
    fn open(dirs: &[PathBuf], v2: bool) -> Counters {
        let open = |dir: Option<&PathBuf>, name: &str| dir.and_then(|dir| File::open(dir.join(name)).ok());
        let memory = if v2 { (dirs.first(), "memory.events") } else { (dirs.get(1), "memory.oom_control") };
        Counters {
            processes: open(dirs.first(), "pids.current"),
            process_events: open(dirs.first(), "pids.events"),
            memory_events: open(memory.0, memory.1),
        }
    }
}

/// The whole text of a cgroup file opened before, read again from its start (the kernel writes it
/// anew for every read from offset 0); empty when it cannot be read.
fn read_again(file: Option<&File>) -> String {
    let Some(file) = file else { return String::new() };
    let mut text = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        match file.read_at(&mut chunk, text.len() as u64) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return String::new(),
        }
    }
    String::from_utf8(text).unwrap_or_default()
}

/// Cgroups that runs left empty and with no event counted, ready for the next run.
static POOL: Pool<RunCgroup> = Pool::new();

/// Removes the pooled cgroups as the grader exits.
extern "C" fn empty_pool() {
    POOL.drain().into_iter().for_each(RunCgroup::remove);
}

impl RunCgroup {
    /// A cgroup with these limits for one run: a pooled one when there is one, else a new one.
    pub fn take(hierarchy: &Hierarchy, limits: &CgroupLimits) -> io::Result<RunCgroup> {
        if let Some(cgroup) = POOL.take() {
            if cgroup.limits == *limits {
                return Ok(cgroup);
            }
            // A v1 memory limit below what the cgroup still has charged is refused: then a new one.
            let mut cgroup = cgroup;
            match cgroup.set_limits(limits) {
                Ok(()) => {
                    cgroup.limits = *limits;
                    return Ok(cgroup);
                }
                Err(_) => cgroup.remove(),
            }
        }
        Self::create(hierarchy, limits)
    }

    /// Creates the run's cgroup(s) with their limits.
    pub fn create(hierarchy: &Hierarchy, limits: &CgroupLimits) -> io::Result<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("grader-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let mut cgroup = RunCgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            counters: Counters::default(),
            v2: matches!(hierarchy, Hierarchy::V2(_)),
            limits: *limits,
            process_events: Cell::new(None),
            memory_events: Cell::new(None),
        };
        match hierarchy {
            Hierarchy::V2(base) => {
                cgroup.make(base, &name)?;
            }
            Hierarchy::V1 { pids, memory } => {
                cgroup.make(pids, &name)?;
                cgroup.make(memory, &name)?;
            }
        }
        cgroup.set_limits(limits)?;
        for dir in &cgroup.dirs {
            cgroup.procs.push(OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?);
        }
        cgroup.counters = Counters::open(&cgroup.dirs, cgroup.v2);
        Ok(cgroup)
    }

    fn set_limits(&self, limits: &CgroupLimits) -> io::Result<()> {
        let (processes, memory) = (limits.processes.to_string(), limits.memory_bytes.to_string());
        write(&self.dirs[0].join("pids.max"), &processes)?;
        if self.v2 {
            write(&self.dirs[0].join("memory.max"), &memory)?;
            // Without swap the limit is the limit; kernels without swap accounting lack the file.
            let _ = write(&self.dirs[0].join("memory.swap.max"), "0");
        } else {
            // memory+swap may not go below memory: raise it first when the limit grows.
            let memsw = self.dirs[1].join("memory.memsw.limit_in_bytes");
            let _ = write(&memsw, &memory);
            write(&self.dirs[1].join("memory.limit_in_bytes"), &memory)?;
            let _ = write(&memsw, &memory);
        }
        Ok(())
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
        self.memory_event_count() > 0
    }

    fn memory_event_count(&self) -> u64 {
        if let Some(count) = self.memory_events.get() {
            return count;
        }
        let events = read_again(self.counters.memory_events.as_ref());
        let count = if self.v2 {
            key_value(&events, "oom_kill").unwrap_or(0)
        } else {
            // `oom_kill` in memory.oom_control exists from Linux 4.13; failcnt counts reclaim attempts
            // at the limit, which a program that stays just under it can also cause, so only as a
            // fallback.
            match key_value(&events, "oom_kill") {
                Some(count) => count,
                None => read_number(&self.dirs[1].join("memory.failcnt")),
            }
        };
        self.memory_events.set(Some(count));
        count
    }

    /// True when a fork or clone of the run failed at `pids.max`.
    pub fn processes_exhausted(&self) -> bool {
        self.process_event_count() > 0
    }

    fn process_event_count(&self) -> u64 {
        if let Some(count) = self.process_events.get() {
            return count;
        }
        let count = key_value(&read_again(self.counters.process_events.as_ref()), "max").unwrap_or(0);
        self.process_events.set(Some(count));
        count
    }

    /// True when the next run may use this cgroup: no process is left in it and its run counted no
    /// event (the counters would tell the next run's verdict otherwise).
    fn reusable(&self) -> bool {
        let current = read_again(self.counters.processes.as_ref());
        self.procs.len() == self.dirs.len()
            && current.trim() == "0"
            && self.process_event_count() == 0
            && self.memory_event_count() == 0
    }

    /// Removes the cgroup(s) now, whatever they saw.
    fn remove(mut self) {
        self.remove_dirs();
    }

    fn remove_dirs(&mut self) {
        self.procs.clear();
        self.counters = Counters::default();
        for dir in self.dirs.drain(..).rev() {
            // The last processes of the run may take a moment to leave after SIGKILL.
            for attempt in 0..50 {
                match fs::remove_dir(&dir) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound && attempt < 49 => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    _ => break,
                }
            }
        }
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        if self.dirs.is_empty() {
            return;
        }
        if !self.reusable() {
            return self.remove_dirs();
        }
        let pooled = RunCgroup {
            dirs: std::mem::take(&mut self.dirs),
            procs: std::mem::take(&mut self.procs),
            counters: std::mem::take(&mut self.counters),
            v2: self.v2,
            limits: self.limits,
            process_events: Cell::new(None),
            memory_events: Cell::new(None),
        };
        POOL.put(pooled, empty_pool);
    }
}

fn write(path: &Path, value: &str) -> io::Result<()> {
    OpenOptions::new().write(true).open(path)?.write_all(value.as_bytes())
}

fn read_number(path: &Path) -> u64 {
    fs::read_to_string(path).ok().and_then(|text| text.trim().parse().ok()).unwrap_or(0)
}

/// The value of `key` in a flat keyed text (`key value` lines).
fn key_value(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(name, _)| *name == key)
        .and_then(|(_, value)| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cgroups_of_a_grader_that_is_gone_are_removed_and_no_others() {
        let Some(hierarchy) = Hierarchy::usable() else {
            eprintln!("skipped: no cgroups here");
            return;
        };
        let mut child = std::process::Command::new("/bin/true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let parents = hierarchy.parents();
        let left = |parent: &PathBuf| parent.join(format!("grader-{gone}-7"));
        let ours = |parent: &PathBuf| parent.join(format!("grader-{}-999999999", std::process::id()));
        let other = |parent: &PathBuf| parent.join(format!("grader-{gone}-x"));
        for parent in &parents {
            for dir in [left(parent), ours(parent), other(parent)] {
                fs::create_dir(dir).unwrap();
            }
        }
        remove_left_behind(hierarchy);
        for parent in &parents {
            assert!(!left(parent).exists(), "{}", left(parent).display());
            for kept in [ours(parent), other(parent)] {
                assert!(kept.exists(), "{}", kept.display());
                fs::remove_dir(kept).unwrap();
            }
        }
    }
}
