//! Resource limits of a run: the one place their defaults live, and the rlimits set in the child.

use std::fmt;
use std::io;
use std::time::Duration;

/// Resource limits for one run of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time after which every process of the run is killed.
    pub wall: Duration,
    /// CPU time (user + system) of the run, all its processes together: the grader reads it every
    /// tenth of a second and stops the run past the limit (`procs::CpuWatch`). The kernel backs it
    /// per process through `RLIMIT_CPU`, which counts whole seconds: rounded up to the next second,
    /// `SIGXCPU` there and `SIGKILL` one second later.
    pub cpu: Duration,
    /// Memory in bytes: the run's cgroup limit where cgroups are used, otherwise the address-space
    /// limit (`RLIMIT_AS`), which counts reservations too (a JVM needs far more of it than it uses).
    pub memory_bytes: u64,
    /// Bytes captured from each of stdout and stderr. More stdout kills the program; more stderr is
    /// dropped from the middle (its head and tail are kept).
    pub output_bytes: usize,
    /// Processes (and threads) of the run: the cgroup's `pids.max`, or `RLIMIT_NPROC` counted in the
    /// run's own user namespace. Without namespaces the kernel counts every process of the user.
    pub processes: u64,
    /// Largest file the program may write (`RLIMIT_FSIZE`), in bytes; beyond it a write fails and the
    /// program gets `SIGXFSZ`.
    pub file_size_bytes: u64,
    /// Size of the run's private filesystem (its working directory and `/tmp`), all files together.
    pub disk_bytes: u64,
    /// Highest number of open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Whether memory falls back to `RLIMIT_AS` where there is no cgroup. A JVM reserves far more
    /// address space than it uses and fails to start under that limit: its runs
    /// (`address-space-limit = false`) are bounded by `RLIMIT_DATA` instead, which counts the
    /// private writable memory a process has committed (its heap, its threads' stacks, memory
    /// allocated outside the heap).
    pub address_space_limit: bool,
    /// The stack's size (`RLIMIT_STACK`), or `None` to keep the grader's. Judges give a problem
    /// package's programs a stack as large as their memory: deep recursion is an accepted answer.
    pub stack_bytes: Option<u64>,
}

const MIB: u64 = 1024 * 1024;

impl Default for Limits {
    /// Limits for a console program of the course: 10 s wall, 5 s CPU, 512 MiB of memory, 1 MiB of
    /// output, 64 processes, 16 MiB files, 64 MiB of disk, 64 descriptors.
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(10),
            cpu: Duration::from_secs(5),
            memory_bytes: 512 * MIB,
            output_bytes: MIB as usize,
            processes: 64,
            file_size_bytes: 16 * MIB,
            disk_bytes: 64 * MIB,
            open_files: 64,
            address_space_limit: true,
            stack_bytes: None,
        }
    }
}

impl Limits {
    /// Limits of a compiler run: 120 s wall and CPU, 2 GiB of memory, 1 MiB of messages, 64 processes
    /// (gcc runs cc1, as, ld), 256 MiB files and 512 MiB of disk for its temporary files.
    pub fn compiler() -> Limits {
        Limits {
            wall: Duration::from_secs(120),
            cpu: Duration::from_secs(120),
            memory_bytes: 2048 * MIB,
            output_bytes: MIB as usize,
            processes: 64,
            file_size_bytes: 256 * MIB,
            disk_bytes: 512 * MIB,
            open_files: 1024,
            address_space_limit: true,
            stack_bytes: None,
        }
    }
}

/// The limit that ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// Wall-clock time.
    Wall,
    /// CPU time.
    Cpu,
    /// Memory (the cgroup's out-of-memory killer).
    Memory,
    /// Standard output size.
    Output,
    /// Process count (a fork or thread creation failed at the limit, and the run was then killed).
    Processes,
    /// File size or disk space (`SIGXFSZ`).
    Disk,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Wall => "wall-clock time",
            Limit::Cpu => "CPU time",
            Limit::Memory => "memory",
            Limit::Output => "output",
            Limit::Processes => "process",
            Limit::Disk => "file size",
        })
    }
}

/// The rlimits to set in the child, computed before the fork (nothing may allocate after it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rlimits {
    cpu_seconds: u64,
    address_space: Option<u64>,
    data: Option<u64>,
    processes: u64,
    file_size: u64,
    open_files: u64,
    stack: Option<u64>,
}

impl Rlimits {
    /// The rlimits for `limits`; `with_cgroup` when a cgroup bounds memory and processes instead.
    pub(crate) fn new(limits: &Limits, with_cgroup: bool) -> Self {
        // RLIMIT_CPU counts whole seconds (and Linux turns a soft limit of 0 into 1 anyway).
        let whole = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0);
        Rlimits {
            cpu_seconds: whole.max(1),
            address_space: (!with_cgroup && limits.address_space_limit).then_some(limits.memory_bytes),
            // A JVM must reserve more address space than it uses, but what it commits (its heap,
            // and memory outside the heap that a program may allocate without bound) is private
            // writable memory, which `RLIMIT_DATA` counts.
            data: (!with_cgroup && !limits.address_space_limit).then_some(limits.memory_bytes),
            // With a cgroup, `pids.max` bounds processes; `RLIMIT_NPROC` stays at the inherited hard
            // limit, which `pids.max` is kept below, so that a refused fork shows in its events.
            processes: if with_cgroup { u64::MAX } else { limits.processes },
            file_size: limits.file_size_bytes,
            open_files: limits.open_files,
            stack: limits.stack_bytes,
        }
    }

    /// Sets the limits on the calling process: async-signal-safe system calls only.
    pub(crate) fn apply(&self) -> io::Result<()> {
        let cpu = self.cpu_seconds;
        lower_limit(libc::RLIMIT_CPU as libc::c_int, cpu, cpu.saturating_add(1))?;
        if let Some(bytes) = self.address_space {
            lower_limit(libc::RLIMIT_AS as libc::c_int, bytes, bytes)?;
        }
        if let Some(bytes) = self.data {
            lower_limit(libc::RLIMIT_DATA as libc::c_int, bytes, bytes)?;
        }
        lower_limit(libc::RLIMIT_NPROC as libc::c_int, self.processes, self.processes)?;
        lower_limit(libc::RLIMIT_FSIZE as libc::c_int, self.file_size, self.file_size)?;
        lower_limit(libc::RLIMIT_NOFILE as libc::c_int, self.open_files, self.open_files)?;
        if let Some(bytes) = self.stack {
            lower_limit(libc::RLIMIT_STACK as libc::c_int, bytes, bytes)?;
        }
        lower_limit(libc::RLIMIT_CORE as libc::c_int, 0, 0)
    }
}

/// Sets a resource limit, never above the current hard limit (which only root could raise).
fn lower_limit(resource: libc::c_int, soft: u64, hard: u64) -> io::Result<()> {
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only into `current`, a valid rlimit. `as _` adapts the resource to
    // the integer type this libc uses for it.
    if unsafe { libc::getrlimit(resource as _, &mut current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let hard = to_rlim(hard).min(current.rlim_max);
    let wanted = libc::rlimit { rlim_cur: to_rlim(soft).min(hard), rlim_max: hard };
    // SAFETY: setrlimit only reads `wanted`, a valid rlimit.
    if unsafe { libc::setrlimit(resource as _, &wanted) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// This process's hard `RLIMIT_NPROC`, which every program it starts inherits as a ceiling.
pub fn hard_process_limit() -> u64 {
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only into `current`, a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NPROC as _, &mut current) } != 0
        || current.rlim_max == libc::RLIM_INFINITY
    {
        return u64::MAX;
    }
    #[allow(clippy::useless_conversion)] // rlim_t is 32 bits on some targets
    u64::from(current.rlim_max)
}

/// A limit in the kernel's type; one too large to represent there is no limit at all.
#[allow(clippy::unnecessary_fallible_conversions)] // rlim_t is 32 bits on some targets
fn to_rlim(value: u64) -> libc::rlim_t {
    libc::rlim_t::try_from(value).unwrap_or(libc::RLIM_INFINITY)
}
