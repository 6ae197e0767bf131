//! Confinement of one run: namespaces and a private root where the kernel allows them, rlimits always.
//!
//! In a namespace sandbox the grader `clone`s a child into new user, mount, PID, network, IPC, UTS and
//! cgroup namespaces (a root grader lends it an empty network namespace instead: see `netns`). The
//! child shares the grader's memory (`CLONE_VM`) on a stack of its own, so that no run copies the
//! grader's page tables. That child is PID 1 of its namespace: it builds a root on a size-limited
//! tmpfs (mounted over `/sys` in its own mount namespace) with the system directories bound read-only
//! and the run's own paths ([`Mount`]) bound at their own paths, and `pivot_root`s into it. Then it
//! says it is ready over a status pipe and waits for the grader's word (the grader takes a CPU slot
//! first), forks the program as an unprivileged user (inside uid 1000; outside the grader's uid, or
//! `nobody` when the grader is root), reaps everything, and reports the program's end. When PID 1
//! exits the kernel kills whatever is left, so nothing outlives a run: `setsid` and double forks do
//! not help. Between `clone` and `exec` only raw system calls run, on data prepared before the clone
//! and kept until PID 1 is reaped (the grader is multi-threaded: nothing may allocate or take a lock
//! there).
//!
//! Where namespaces are not allowed the program runs under rlimits only, in its own process group.

use std::ffi::CString;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::cgroup::{CgroupLimits, Hierarchy, RunCgroup};
use super::exec::{c_bytes, pipe, reset_signal_dispositions, ExecImage};
use super::netns::Lease;
use super::Limits;

/// How well runs are contained on this machine, from the strongest level down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Containment {
    /// Rlimits, a process group and `no_new_privs` only: the program runs as the grader's user and
    /// sees what that user may see; processes and memory are bounded only by rlimits (which do not
    /// bound root's process count).
    RlimitsOnly,
    /// Namespaces and a private root; processes bounded by `RLIMIT_NPROC` counted inside the user
    /// namespace, memory by `RLIMIT_AS`.
    NamespacesWithoutCgroups,
    /// Namespaces, a private root, and a cgroup per run bounding processes and memory.
    Full,
}

impl Containment {
    /// Every level, weakest first.
    pub const ALL: [Containment; 3] =
        [Containment::RlimitsOnly, Containment::NamespacesWithoutCgroups, Containment::Full];

    /// The strongest level this machine supports, probed once per process by running `/bin/true`.
    pub fn available() -> Containment {
        static PROBED: OnceLock<Containment> = OnceLock::new();
        *PROBED.get_or_init(|| {
            if namespaces_work() {
                if Hierarchy::usable().is_some() {
                    Containment::Full
                } else {
                    Containment::NamespacesWithoutCgroups
                }
            } else {
                Containment::RlimitsOnly
            }
        })
    }

    /// The level's name as the report and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            Containment::Full => "full",
            Containment::NamespacesWithoutCgroups => "namespaces-without-cgroups",
            Containment::RlimitsOnly => "rlimits-only",
        }
    }

    /// The level spelled `name`, if any.
    pub fn from_name(name: &str) -> Option<Containment> {
        Containment::ALL.into_iter().find(|level| level.name() == name)
    }
}

impl fmt::Display for Containment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why namespaces are not available, for `grader doctor` (None when they work).
pub fn namespace_problem() -> Option<String> {
    static PROBLEM: OnceLock<Option<String>> = OnceLock::new();
    PROBLEM.get_or_init(probe_namespaces).clone()
}

fn namespaces_work() -> bool {
    namespace_problem().is_none()
}

fn probe_namespaces() -> Option<String> {
    let limits = Limits { wall: std::time::Duration::from_secs(10), ..Limits::default() };
    let argv = [std::ffi::OsString::from("/bin/true")];
    let env = std::collections::BTreeMap::new();
    let request = super::RunRequest {
        argv: &argv,
        env: &env,
        stdin: b"",
        limits: &limits,
        mounts: &[],
        containment: Containment::NamespacesWithoutCgroups,
    };
    match super::run(&request) {
        Ok(outcome) if outcome.termination == super::Termination::Exited(0) => None,
        Ok(outcome) => Some(format!("/bin/true in a namespace sandbox {}", outcome.termination)),
        Err(error) => Some(super::error_chain(&error)),
    }
}

/// A path of the host made visible inside the sandbox at the same path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// An absolute path, a file or a directory.
    pub path: PathBuf,
    /// Whether the run may write there (a compiler's output folder); read-only otherwise.
    pub writable: bool,
}

impl Mount {
    /// A read-only mount of `path`.
    pub fn read_only(path: impl Into<PathBuf>) -> Mount {
        Mount { path: path.into(), writable: false }
    }
}

/// System directories bound read-only into every sandbox (or recreated as the symlinks they are).
const SYSTEM_PATHS: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/// Devices bound into `/dev`.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The uid and gid of the program inside the user namespace.
const INSIDE_ID: u32 = 1000;

/// `nobody`/`nogroup`, the ids root's runs get outside (and, without namespaces, run as).
pub(super) const NOBODY: u32 = 65534;

/// The working directory inside, also `HOME`.
pub const INSIDE_WORKDIR: &str = "/work";

/// Makes `path` usable by the unprivileged user that runs programs in a sandbox: when the grader is
/// root, it becomes owned by `nobody` (writable) or readable by all (read-only); otherwise nothing
/// changes.
pub fn prepare_for_program(path: &Path, writable: bool) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    if writable {
        std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY))
    } else {
        let meta = std::fs::metadata(path)?;
        let mode = meta.permissions().mode();
        let readable = if meta.is_dir() || mode & 0o100 != 0 { 0o555 } else { 0o444 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | readable))
    }
}

/// Lets the unprivileged users of programs pass through a folder of the grader's by path, without
/// listing it: when the grader is root, its mode becomes 0711. Otherwise nothing changes.
pub fn open_for_passage(dir: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))
}

/// Makes a file of a sealed build folder readable by root alone (a submission's source, which no
/// program needs). Nothing changes when the grader is not root.
pub fn keep_from_programs(path: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)),
        _ => Ok(()),
    }
}

/// Makes a finished build folder readable, and no longer writable, by the user that runs programs:
/// when the grader is root, every entry goes back to root and gains read (and search) permission for
/// all. Otherwise nothing changes. A program could otherwise rewrite the cached executable that the
/// next gradings of the same files run.
pub fn seal_for_programs(dir: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(io::Error::other)?;
        std::os::unix::fs::lchown(entry.path(), Some(0), Some(0))?;
        if !entry.path_is_symlink() {
            prepare_for_program(entry.path(), false)?;
        }
    }
    Ok(())
}

/// Whether a root grader's programs, which run as users that own nothing when there are no
/// namespaces, can enter `path`: every folder from `/` down must be open to others (the mode's
/// `o+x`; a folder of `nobody`'s counts as open too). ACLs are not read.
pub fn nobody_can_enter(path: &Path) -> bool {
    let Ok(path) = path.canonicalize() else { return false };
    path.ancestors().all(|dir| {
        std::fs::metadata(dir).is_ok_and(|meta| {
            use std::os::unix::fs::MetadataExt;
            meta.mode() & 0o001 != 0 || meta.uid() == NOBODY
        })
    })
}

/// Where each sandbox mounts its root's tmpfs, in its own mount namespace: over the host's `/sys`,
/// which every Linux system has and which no sandbox shows. The host's view does not change and no
/// folder is made or removed on its disk for a run. A path the run binds must not lie below it:
/// the tmpfs would hide it (see `Plan::new`).
pub(super) const MOUNT_POINT: &str = "/sys";

/// One step of building the root, in order, as prepared C strings.
enum Step {
    Dir {
        path: CString,
        mode: libc::mode_t,
    },
    Symlink {
        target: CString,
        path: CString,
    },
    /// A bind mount; `file` creates an empty file as the mount point instead of a directory.
    Bind {
        source: CString,
        path: CString,
        file: bool,
        remount: Option<libc::c_ulong>,
    },
    Chown {
        path: CString,
    },
}

/// Everything the child needs, prepared before the clone.
pub(super) struct Plan {
    root: CString,
    tmpfs_options: CString,
    /// The steps every sandbox begins with, then this run's own.
    shared_steps: &'static [Step],
    steps: Vec<Step>,
    proc_dir: CString,
    /// [`INSIDE_WORKDIR`], where the program starts.
    workdir: CString,
    /// What the program's process executes.
    image: ExecImage,
    rlimits: super::Rlimits,
    /// Whether the program must switch to [`INSIDE_ID`] (the grader is root; its init is uid 0).
    drop_to_inside_id: bool,
    /// The stack the program's process runs on between its clone and its exec: it shares PID 1's
    /// memory (`CLONE_VM`), so that starting it copies no page table of the grader's.
    program_stack: Vec<u8>,
    /// The System V IPC limits of the sandbox's own IPC namespace: files of `/proc/sys/kernel`
    /// and what to write there.
    ipc_limits: Vec<(CString, CString)>,
}

/// The System V IPC limits of a sandbox whose memory limit is `memory_bytes`: shared memory (which
/// no rlimit counts once detached, and a cgroup only where there is one) at most that in all, and a
/// few small message queues and semaphore sets. The kernel's defaults allow terabytes and half a
/// gigabyte of queues. They hold for the sandbox's IPC namespace alone, which dies with the run.
fn ipc_limits(memory_bytes: u64) -> Result<Vec<(CString, CString)>, std::ffi::NulError> {
    let page = 4096;
    [
        ("shmmax", memory_bytes.to_string()),
        ("shmall", memory_bytes.div_ceil(page).to_string()),
        ("shmmni", "64".to_owned()),
        ("msgmni", "16".to_owned()),
        ("msgmnb", "16384".to_owned()),
        // Semaphores per set, in all, per call, and sets.
        ("sem", "32 1024 32 64".to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| Ok((CString::new(format!("/proc/sys/kernel/{name}"))?, CString::new(value)?)))
    .collect()
}

/// Bytes of the program's stack before its exec: `program` makes raw system calls only.
const PROGRAM_STACK_BYTES: usize = 64 * 1024;

/// What the status pipe carries: a setup failure, readiness (below), or the program's end.
const RECORD_ERROR: u8 = b'E';
const RECORD_EXIT: u8 = b'X';
/// The root is built: PID 1 waits for the grader's word to start the program.
const RECORD_READY: u8 = b'R';

/// The steps of the child's setup, for error messages.
const STEPS: &[&str] = &[
    "wait for the grader",
    "join the cgroup",
    "make mounts private",
    "mount the tmpfs root",
    "create a directory",
    "create a symlink",
    "bind-mount a path",
    "remount read-only",
    "mount /proc",
    "pivot_root",
    "detach the old root",
    "set the hostname",
    "fork the program",
    "set an rlimit",
    "switch to the unprivileged user",
    "set no_new_privs",
    "enter the working directory",
    "execute the program",
    "change an owner",
    "restore the signal mask",
    "hide the grader's command line",
];
const S_SYNC: u32 = 0;
const S_CGROUP: u32 = 1;
const S_PRIVATE: u32 = 2;
const S_TMPFS: u32 = 3;
const S_DIR: u32 = 4;
const S_SYMLINK: u32 = 5;
const S_BIND: u32 = 6;
const S_REMOUNT: u32 = 7;
const S_PROC: u32 = 8;
const S_PIVOT: u32 = 9;
const S_DETACH: u32 = 10;
const S_HOSTNAME: u32 = 11;
const S_FORK: u32 = 12;
const S_RLIMIT: u32 = 13;
const S_USER: u32 = 14;
const S_NNP: u32 = 15;
const S_CHDIR: u32 = 16;
const S_EXEC: u32 = 17;
const S_CHOWN: u32 = 18;
const S_SIGMASK: u32 = 19;
const S_HIDE: u32 = 20;

fn c_path(path: &Path) -> io::Result<CString> {
    c_bytes(path.as_os_str())
}

/// Where an absolute inside path is before `pivot_root`: below [`MOUNT_POINT`].
fn under(inside: &Path) -> PathBuf {
    Path::new(MOUNT_POINT).join(inside.strip_prefix("/").unwrap_or(inside))
}

/// Mount flags of the filesystem holding `path`, as `MS_*` flags a read-only remount must keep (a user
/// namespace may not clear nosuid, nodev, noexec or the atime flags of a mount it did not make).
fn locked_flags(path: &Path) -> io::Result<libc::c_ulong> {
    let c = c_path(path)?;
    // SAFETY: a zeroed statvfs is a valid value; statvfs writes only into it.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid C string and `stat` is valid for writes.
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(pairs.iter().filter(|(st, _)| stat.f_flag & st != 0).fold(0, |acc, (_, ms)| acc | ms))
}

/// Steps in the making, with the folders they create (an ancestor is created once).
struct Steps {
    steps: Vec<Step>,
    made: std::collections::BTreeSet<PathBuf>,
}

impl Steps {
    /// Creates `inside` (an absolute path inside the sandbox) and its missing ancestors; `/` is the
    /// tmpfs itself. The ancestors get 0755, `inside` gets `mode`.
    fn dir(&mut self, inside: &Path, mode: libc::mode_t) -> io::Result<()> {
        let mut chain: Vec<&Path> = inside.ancestors().filter(|p| p.parent().is_some()).collect();
        chain.reverse();
        for (i, p) in chain.iter().enumerate() {
            if self.made.insert(p.to_path_buf()) {
                let m = if i + 1 == chain.len() { mode } else { 0o755 };
                self.steps.push(Step::Dir { path: c_path(&under(p))?, mode: m });
            }
        }
        Ok(())
    }

    /// The steps every sandbox begins with: the system folders, the devices and the usual links of
    /// `/dev`, `/tmp` and `/dev/shm`. Made once per process (they ask the host about a dozen paths)
    /// and shared by every run.
    fn shared() -> io::Result<&'static Steps> {
        static SHARED: OnceLock<Steps> = OnceLock::new();
        if let Some(shared) = SHARED.get() {
            return Ok(shared);
        }
        let made = Steps::system()?;
        Ok(SHARED.get_or_init(|| made))
    }

    fn system() -> io::Result<Steps> {
        let mut steps = Steps { steps: Vec::new(), made: std::collections::BTreeSet::new() };
        for system in SYSTEM_PATHS {
            let path = Path::new(system);
            let Ok(meta) = std::fs::symlink_metadata(path) else { continue };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(path)?;
                steps.steps.push(Step::Symlink { target: c_path(&target)?, path: c_path(&under(path))? });
            } else if meta.is_dir() {
                steps.dir(path, 0o755)?;
                let flags = locked_flags(path)? | libc::MS_NOSUID | libc::MS_NODEV;
                steps.steps.push(Step::Bind {
                    source: c_path(path)?,
                    path: c_path(&under(path))?,
                    file: false,
                    remount: Some(flags),
                });
            }
        }
        steps.dir(Path::new("/dev"), 0o755)?;
        for device in DEVICES {
            let host = Path::new("/dev").join(device);
            if host.exists() {
                let flags = locked_flags(&host)? | libc::MS_NOSUID | libc::MS_NOEXEC;
                steps.steps.push(Step::Bind {
                    source: c_path(&host)?,
                    path: c_path(&under(&host))?,
                    file: true,
                    remount: Some(flags),
                });
            }
        }
        for (name, target) in [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ] {
            let path = under(&Path::new("/dev").join(name));
            steps.steps.push(Step::Symlink { target: CString::new(target)?, path: c_path(&path)? });
        }
        // /tmp and /dev/shm are sticky and world-writable, as on any system.
        steps.dir(Path::new("/tmp"), 0o1777)?;
        steps.dir(Path::new("/dev/shm"), 0o1777)?;
        Ok(steps)
    }
}

impl Plan {
    /// Prepares the sandbox of one run, whose tmpfs root is mounted over [`MOUNT_POINT`] (in the
    /// sandbox's own mount namespace).
    pub(super) fn new(
        argv: &[std::ffi::OsString],
        env: &[(std::ffi::OsString, std::ffi::OsString)],
        limits: &Limits,
        mounts: &[Mount],
        with_cgroup: bool,
    ) -> io::Result<Plan> {
        let shared = Steps::shared()?;
        let mut steps = Steps { steps: Vec::new(), made: shared.made.clone() };
        steps.dir(Path::new(INSIDE_WORKDIR), 0o700)?;
        steps.steps.push(Step::Chown { path: c_path(&under(Path::new(INSIDE_WORKDIR)))? });
        let root = Path::new(MOUNT_POINT);
        for mount in mounts {
            if mount.path.starts_with(root) {
                return Err(io::Error::other(format!(
                    "sandbox: {} cannot be shown to a program: it lies below {}, where sandboxes mount their root",
                    mount.path.display(),
                    root.display()
                )));
            }
            let meta = std::fs::metadata(&mount.path)?;
            let inside = &mount.path;
            if meta.is_dir() {
                steps.dir(inside, 0o755)?;
            } else if let Some(parent) = inside.parent() {
                steps.dir(parent, 0o755)?;
            }
            let remount = (!mount.writable).then(|| locked_flags(&mount.path)).transpose()?;
            steps.steps.push(Step::Bind {
                source: c_path(&mount.path)?,
                path: c_path(&under(inside))?,
                file: !meta.is_dir(),
                remount: remount.map(|flags| flags | libc::MS_NOSUID | libc::MS_NODEV),
            });
        }
        steps.dir(Path::new("/proc"), 0o555)?;

        let size = limits.disk_bytes.max(1 << 20);
        Ok(Plan {
            root: c_path(root)?,
            tmpfs_options: CString::new(format!("size={size},nr_inodes=16384,mode=755"))?,
            proc_dir: c_path(&under(Path::new("/proc")))?,
            workdir: CString::new(INSIDE_WORKDIR)?,
            shared_steps: &shared.steps,
            steps: steps.steps,
            image: ExecImage::new(argv, env)?,
            rlimits: super::Rlimits::new(limits, with_cgroup),
            // SAFETY: geteuid has no preconditions.
            drop_to_inside_id: unsafe { libc::geteuid() } == 0,
            program_stack: vec![0; PROGRAM_STACK_BYTES],
            // A memory cgroup counts shared memory and queues already: six /proc writes saved a run.
            ipc_limits: if with_cgroup { Vec::new() } else { ipc_limits(limits.memory_bytes)? },
        })
    }
}

/// A namespace sandbox that has been started.
pub(super) struct Spawned {
    /// Host pid of the sandbox's PID 1; killing it ends every process of the run.
    pub pid: libc::pid_t,
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
    /// The status pipe: setup errors, readiness and the program's end.
    pub status: File,
    /// The grader's word to start the program, once the sandbox is ready (see [`Spawned::start`]).
    start: Option<File>,
    pub cgroup: Option<RunCgroup>,
    /// What PID 1 reads while it lives: to be freed only once it has been reaped.
    pub launch: LaunchOwner,
}

/// Owns a [`Launch`] that PID 1 reads through a raw pointer while it lives: held as a raw pointer
/// here too (a `Box` would claim unique access while PID 1 reads it), freed on drop.
pub(super) struct LaunchOwner(std::ptr::NonNull<Launch>);

impl Drop for LaunchOwner {
    fn drop(&mut self) {
        // SAFETY: made by Box::into_raw in `spawn`, freed only here, once.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

/// Everything PID 1 reads during its life. PID 1 shares the grader's memory (`CLONE_VM`), so this
/// must stay in place, owned by the run, until PID 1 has been reaped; a PID 1 that could not be
/// reaped keeps it for good (see `Running`'s drop).
pub(super) struct Launch {
    plan: Plan,
    /// The descriptors PID 1 keeps, in the order it moves them to 0, 1, 2...
    wanted: Vec<RawFd>,
    /// PID 1's stack.
    stack: Vec<u8>,
    /// The cloning thread's signal mask, which the program gets back: every signal is blocked from
    /// the clone on, so that no handler of the grader's runs on the memory PID 1 shares with it.
    mask: libc::sigset_t,
    /// The network namespace the sandbox was born in, when lent (it goes back once PID 1 is reaped).
    network: Option<Lease>,
}

/// Bytes of PID 1's stack: it makes system calls only, with small frames.
const INIT_STACK_BYTES: usize = 128 * 1024;

/// Descriptors PID 1 may keep (stdio, status, sync, cgroup files).
const MOST_KEPT_FDS: usize = 16;

/// The first of the descriptors (the cgroups' `cgroup.procs`) that the program writes to join.
const FIRST_CGROUP_FD: RawFd = 5;

/// Starts the sandbox: clone, write the user namespace maps, release the child.
pub(super) fn spawn(plan: Plan, limits: &Limits, want_cgroup: bool) -> io::Result<Spawned> {
    let cgroup = match (want_cgroup, Hierarchy::usable()) {
        (true, Some(hierarchy)) => {
            let cg_limits = CgroupLimits {
                // Below this process's hard `RLIMIT_NPROC` (which the program inherits and only a
                // process with CAP_SYS_RESOURCE could raise; the kernel checks it first, at the same
                // count), so that `pids.max` refuses forks first and its events tell the process limit.
                processes: limits.processes.min(super::limits::hard_process_limit().saturating_sub(1)),
                memory_bytes: limits.memory_bytes.saturating_add(limits.disk_bytes),
            };
            Some(RunCgroup::take(hierarchy, &cg_limits)?)
        }
        (true, None) => return Err(io::Error::other("cgroups are not available on this machine")),
        (false, _) => None,
    };
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let (status_r, status_w) = pipe()?;
    let (sync_r, sync_w) = pipe()?;
    let cgroup_fds = cgroup.as_ref().map(RunCgroup::procs_fds).unwrap_or_default();
    // The child's descriptors, moved to fixed numbers in the child: 0-2 stdio, 3 status, 4 sync,
    // 5.. (FIRST_CGROUP_FD) the cgroups' procs files.
    let mut wanted: Vec<RawFd> = vec![
        stdin_r.as_raw_fd(),
        stdout_w.as_raw_fd(),
        stderr_w.as_raw_fd(),
        status_w.as_raw_fd(),
        sync_r.as_raw_fd(),
    ];
    wanted.extend(&cgroup_fds);
    if wanted.len() > MOST_KEPT_FDS {
        return Err(io::Error::other("sandbox: too many descriptors to hand to PID 1"));
    }
    let network = Lease::take();
    let lent = network.is_some();
    let launch = Box::new(Launch {
        plan,
        wanted,
        stack: vec![0; INIT_STACK_BYTES],
        // SAFETY: a zeroed sigset_t is a valid (empty) set; it is overwritten below.
        mask: unsafe { std::mem::zeroed() },
        network,
    });
    let raw: *mut Launch = Box::into_raw(launch);
    // From here on the launch is reached through `raw` only, and freed by its owner.
    let launch = LaunchOwner(std::ptr::NonNull::new(raw).expect("Box::into_raw is never null"));
    // SAFETY: `raw` points to the live launch; the stack's buffer does not move.
    let top = unsafe { ((*raw).stack.as_mut_ptr() as usize + (*raw).stack.len()) & !15 };

    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_NEWCGROUP
        | if lent { 0 } else { libc::CLONE_NEWNET };
    // PID 1 shares this address space (CLONE_VM): a copy of the grader's page tables, as a fork
    // makes, cost more CPU than anything else in a run, and each copy made every core running the
    // grader flush its TLB. It runs `init` on its own stack, reading only `launch`, which the run
    // keeps until PID 1 is reaped; it never returns (it ends in `_exit`). It shares this thread's
    // errno too: it fails a system call only when the setup of this run fails, and then this thread
    // reports the run as failed whatever errno it reads. Every signal is blocked from the clone on.
    let clone = || {
        // SAFETY: `all` is initialised by sigfillset; the old mask is written into the launch, which
        // PID 1 reads only after the clone; both pointers come from `raw`.
        unsafe {
            let mask = &raw mut (*raw).mask;
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, mask);
            let flags = flags | libc::CLONE_VM | libc::SIGCHLD;
            let pid = libc::clone(init_entry, top as *mut libc::c_void, flags, raw.cast());
            let cloned = if pid < 0 { Err(io::Error::last_os_error()) } else { Ok(pid) };
            libc::pthread_sigmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
            cloned
        }
    };
    // A lent network namespace: this thread enters it to clone, so the sandbox is born there.
    // SAFETY: a read of the launch's field through the raw pointer the clone also uses.
    let pid = match unsafe { &(*raw).network } {
        Some(lease) => lease.enter_for(clone)??,
        None => clone()?,
    };
    drop((stdin_r, stdout_w, stderr_w, status_w, sync_r));
    let mut sync = File::from(sync_w);
    let released = write_id_maps(pid).and_then(|()| io::Write::write_all(&mut sync, b"go"));
    if let Err(error) = released {
        kill_and_reap(pid);
        return Err(error);
    }
    Ok(Spawned {
        pid,
        stdin: File::from(stdin_w),
        stdout: File::from(stdout_r),
        stderr: File::from(stderr_r),
        status: File::from(status_r),
        start: Some(sync),
        cgroup,
        launch,
    })
}

impl Spawned {
    /// Waits until the sandbox's root is built, calls `admit` (which may wait, for a CPU slot), then
    /// lets PID 1 start the program. On an error the sandbox is killed and reaped.
    pub(super) fn start(&mut self, admit: &mut dyn FnMut()) -> io::Result<()> {
        let started = self.await_ready().and_then(|()| {
            admit();
            let mut start = self.start.take().ok_or_else(|| io::Error::other("sandbox: started twice"))?;
            io::Write::write_all(&mut start, b"!")
        });
        if started.is_err() {
            kill_and_reap(self.pid);
        }
        started
    }

    fn await_ready(&mut self) -> io::Result<()> {
        let mut first = [0u8; 1];
        loop {
            match self.status.read(&mut first) {
                Ok(0) => return Err(io::Error::other("sandbox: PID 1 ended while it built the root")),
                Ok(_) => break,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        if first[0] == RECORD_READY {
            return Ok(());
        }
        // A setup failure: the record that begins with this byte says which step.
        let mut bytes = first.to_vec();
        self.status.read_to_end(&mut bytes)?;
        parse_records(&bytes)?;
        Err(io::Error::other("sandbox: garbled status record"))
    }
}

/// Kills our unreaped child `pid` and reaps it.
pub(super) fn kill_and_reap(pid: libc::pid_t) {
    // SAFETY: kill and waitpid have no memory-safety preconditions; `pid` is our unreaped child.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), libc::__WALL);
    }
}

/// Maps the child's user namespace: inside uid/gid [`INSIDE_ID`] is the grader's own user, or
/// `nobody` when the grader is root (then root stays root inside, for the setup, and the program
/// switches to [`INSIDE_ID`]).
fn write_id_maps(pid: libc::pid_t) -> io::Result<()> {
    // SAFETY: these getters have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let (uid_map, gid_map) = if uid == 0 {
        (format!("0 0 1\n{INSIDE_ID} {NOBODY} 1\n"), format!("0 0 1\n{INSIDE_ID} {NOBODY} 1\n"))
    } else {
        // An unprivileged user may map only itself, and only after giving up setgroups.
        std::fs::write(proc.join("setgroups"), "deny")?;
        (format!("{INSIDE_ID} {uid} 1\n"), format!("{INSIDE_ID} {gid} 1\n"))
    };
    std::fs::write(proc.join("uid_map"), uid_map)?;
    std::fs::write(proc.join("gid_map"), gid_map)
}

/// Reads the status pipe to its end: `Ok(Some(status, rusage))` when the program ended, `Ok(None)`
/// when the sandbox was killed before it could say, `Err` when the setup failed.
pub(super) fn read_status(mut status: File) -> io::Result<Option<ProgramEnd>> {
    let mut bytes = Vec::new();
    status.read_to_end(&mut bytes)?;
    parse_records(&bytes)
}

/// The records of the status pipe: see [`read_status`].
fn parse_records(bytes: &[u8]) -> io::Result<Option<ProgramEnd>> {
    let mut end = None;
    let mut rest = bytes;
    while let Some((&kind, tail)) = rest.split_first() {
        match kind {
            RECORD_READY => rest = tail,
            RECORD_ERROR if tail.len() >= 8 => {
                let step = u32::from_le_bytes(tail[..4].try_into().unwrap_or_default());
                let errno = i32::from_le_bytes(tail[4..8].try_into().unwrap_or_default());
                let what = STEPS.get(step as usize).copied().unwrap_or("set up");
                let cause = io::Error::from_raw_os_error(errno);
                return Err(io::Error::new(cause.kind(), format!("sandbox: cannot {what}: {cause}")));
            }
            RECORD_EXIT if tail.len() >= 28 => {
                let field = |at: usize| u64::from_le_bytes(tail[at..at + 8].try_into().unwrap_or_default());
                end = Some(ProgramEnd {
                    status: i32::from_le_bytes(tail[..4].try_into().unwrap_or_default()),
                    user_micros: field(4),
                    system_micros: field(12),
                    max_rss_kb: field(20),
                });
                rest = &tail[28..];
            }
            _ => return Err(io::Error::other("sandbox: garbled status record")),
        }
    }
    Ok(end)
}

/// The program's end as PID 1 saw it.
#[derive(Debug, Clone, Copy)]
pub(super) struct ProgramEnd {
    pub status: libc::c_int,
    pub user_micros: u64,
    pub system_micros: u64,
    pub max_rss_kb: u64,
}

// ---------------------------------------------------------------------------------------------
// The child side. Everything below runs between clone and exec: raw system calls only.

/// Writes an error record for `step` with the current errno and exits.
unsafe fn fail(step: u32) -> ! {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let errno = *libc::__errno_location();
        let mut record = [0u8; 9];
        record[0] = RECORD_ERROR;
        record[1..5].copy_from_slice(&step.to_le_bytes());
        record[5..9].copy_from_slice(&errno.to_le_bytes());
        libc::write(3, record.as_ptr().cast(), record.len());
        libc::_exit(127)
    }
}

unsafe fn check(rc: libc::c_int, step: u32) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        if rc != 0 {
            fail(step);
        }
    }
}

/// PID 1 of the sandbox: arranges descriptors, waits for the id maps, builds the root, forks the
/// program and reaps until it has ended.
extern "C" fn init_entry(launch: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `spawn` passes the run's launch, which outlives PID 1; `init` never returns.
    unsafe { init(&*launch.cast::<Launch>()) }
}

unsafe fn init(launch: &Launch) -> ! {
    let plan = &launch.plan;
    let wanted = launch.wanted.as_slice();
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        // A handler of the grader's (its crash handlers) must not run here, on its memory, and what
        // the grader ignores (SIGPIPE) must not stay ignored in the program.
        reset_signal_dispositions();
        let mut kept = [0 as RawFd; MOST_KEPT_FDS];
        let scratch = &mut kept[..wanted.len()];
        // Move the descriptors we keep to 0..n without clobbering one another: first above them all.
        let n = wanted.len() as RawFd;
        for (i, &fd) in wanted.iter().enumerate() {
            let high = libc::fcntl(fd, libc::F_DUPFD, n + 16);
            if high < 0 {
                libc::_exit(126);
            }
            scratch[i] = high;
        }
        for (i, &fd) in scratch.iter().enumerate() {
            if libc::dup2(fd, i as RawFd) < 0 {
                libc::_exit(126);
            }
        }
        // Every other descriptor of the grader (other runs' pipes among them) must go.
        libc::syscall(libc::SYS_close_range, n as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint);
        // The grader's death ends the sandbox.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);

        // Wait until the grader has written the id maps (or died: then read returns 0).
        let mut go = [0u8; 2];
        if libc::read(4, go.as_mut_ptr().cast(), 2) != 2 {
            fail(S_SYNC);
        }

        check(
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ),
            S_PRIVATE,
        );
        check(
            libc::mount(
                c"tmpfs".as_ptr(),
                plan.root.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                plan.tmpfs_options.as_ptr().cast(),
            ),
            S_TMPFS,
        );
        for step in plan.shared_steps.iter().chain(&plan.steps) {
            match step {
                Step::Dir { path, mode } => {
                    check(libc::mkdir(path.as_ptr(), *mode), S_DIR);
                    // mkdir applies the umask; the mode must be exact (sticky /tmp).
                    check(libc::chmod(path.as_ptr(), *mode), S_DIR);
                }
                Step::Symlink { target, path } => {
                    check(libc::symlink(target.as_ptr(), path.as_ptr()), S_SYMLINK)
                }
                Step::Bind { source, path, file, remount } => {
                    if *file {
                        let fd = libc::open(
                            path.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                            0o644,
                        );
                        if fd < 0 {
                            fail(S_BIND);
                        }
                        libc::close(fd);
                    }
                    check(
                        libc::mount(
                            source.as_ptr(),
                            path.as_ptr(),
                            std::ptr::null(),
                            libc::MS_BIND | libc::MS_REC,
                            std::ptr::null(),
                        ),
                        S_BIND,
                    );
                    if let Some(flags) = remount {
                        let flags = flags | libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
                        check(
                            libc::mount(
                                std::ptr::null(),
                                path.as_ptr(),
                                std::ptr::null(),
                                flags,
                                std::ptr::null(),
                            ),
                            S_REMOUNT,
                        );
                    }
                }
                Step::Chown { path } => {
                    if plan.drop_to_inside_id {
                        check(libc::chown(path.as_ptr(), INSIDE_ID, INSIDE_ID), S_CHOWN);
                    }
                }
            }
        }
        check(
            libc::mount(
                c"proc".as_ptr(),
                plan.proc_dir.as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ),
            S_PROC,
        );
        check(libc::chdir(plan.root.as_ptr()), S_PIVOT);
        check(libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int, S_PIVOT);
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH), S_DETACH);
        check(libc::chdir(c"/".as_ptr()), S_PIVOT);
        let host = c"sandbox";
        check(libc::sethostname(host.as_ptr(), host.to_bytes().len()), S_HOSTNAME);
        // The IPC namespace's own limits. The kernel lets only the namespace's root user set them
        // (no capability will do): a root grader's init, never its programs. An unprivileged
        // grader's init is the programs' own user, not root, and kernels before 5.19 share the limits
        // with the host: the write is refused, and only a memory cgroup bounds shared memory.
        for (file, value) in &plan.ipc_limits {
            let fd = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, value.as_ptr().cast(), value.to_bytes().len());
                libc::close(fd);
            }
        }
        // PID 1 shares the grader's memory, so its command line would be the grader's (the cases'
        // folder among its arguments): the program reads an empty one.
        check(
            libc::mount(
                c"/dev/null".as_ptr(),
                c"/proc/1/cmdline".as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ),
            S_HIDE,
        );

        // Ready: the grader starts the program when it has a CPU slot for it (or has died: then the
        // read returns 0, and PID 1's end takes the sandbox with it).
        if libc::write(3, [RECORD_READY].as_ptr().cast(), 1) != 1 {
            fail(S_SYNC);
        }
        let mut start = [0u8; 1];
        if libc::read(4, start.as_mut_ptr().cast(), 1) != 1 {
            fail(S_SYNC);
        }
        libc::close(4);

        // The program's process shares this one's memory until its exec (CLONE_VM), and this one
        // waits until then (CLONE_VFORK): no copy of the grader's page tables, which a fork of a
        // copy of the grader would make again. Its stack is the plan's, its top 16-byte aligned.
        let stack = plan.program_stack.as_ptr() as usize + plan.program_stack.len();
        let child = libc::clone(
            program_entry,
            (stack & !15) as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (launch as *const Launch).cast_mut().cast(),
        );
        if child < 0 {
            fail(S_FORK);
        }
        // Only the program holds the stdio pipes now: their ends close when it (and its children) do.
        libc::close(0);
        libc::close(1);
        libc::close(2);
        // The program has joined the run's cgroups (see `program`): PID 1 needs them no more.
        for fd in FIRST_CGROUP_FD..n {
            libc::close(fd);
        }
        loop {
            let mut status: libc::c_int = 0;
            let mut usage: libc::rusage = std::mem::zeroed();
            let pid = libc::wait4(-1, &mut status, libc::__WALL, &mut usage);
            if pid == child {
                // Its children were reaped by it or by us; the rusage of the program covers those it waited for.
                let mut record = [0u8; 29];
                record[0] = RECORD_EXIT;
                record[1..5].copy_from_slice(&status.to_le_bytes());
                let micros = |t: libc::timeval| {
                    (t.tv_sec as u64).saturating_mul(1_000_000).saturating_add(t.tv_usec as u64)
                };
                record[5..13].copy_from_slice(&micros(usage.ru_utime).to_le_bytes());
                record[13..21].copy_from_slice(&micros(usage.ru_stime).to_le_bytes());
                record[21..29].copy_from_slice(&(usage.ru_maxrss as u64).to_le_bytes());
                libc::write(3, record.as_ptr().cast(), record.len());
                // Exiting kills every other process of the namespace.
                libc::_exit(0);
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(125);
            }
        }
    }
}

/// Where the program's process starts (glibc's `clone` calls it with the plan).
extern "C" fn program_entry(launch: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `init` passes the launch, which outlives this process's life before exec (PID 1
    // waits for the exec: CLONE_VFORK); `program` makes raw system calls only and never returns.
    unsafe { program(&*launch.cast::<Launch>()) }
}

/// The program's process: limits, an unprivileged user, then exec.
unsafe fn program(launch: &Launch) -> ! {
    let plan = &launch.plan;
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        // The status pipe closes at exec: PID 1 alone reports the end.
        libc::fcntl(3, libc::F_SETFD, libc::FD_CLOEXEC);
        // The program alone joins the run's cgroups, never PID 1: PID 1 shares the grader's memory,
        // and the OOM killer, choosing among a cgroup's processes, would kill the grader with it
        // (when the run's memory is in files that belong to no process, PID 1 scores highest).
        for fd in FIRST_CGROUP_FD..launch.wanted.len() as RawFd {
            if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                fail(S_CGROUP);
            }
            libc::close(fd);
        }
        // And the kernel prefers it (and its children) to anything else when memory runs out.
        // A CLONE_VFORK child's setting stays its own, never the grader's with whom it shares memory.
        let oom = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if oom >= 0 {
            libc::write(oom, b"1000".as_ptr().cast(), 4);
            libc::close(oom);
        }
        if plan.rlimits.apply().is_err() {
            fail(S_RLIMIT);
        }
        if plan.drop_to_inside_id {
            // Raw system calls: glibc's wrappers would signal the grader's other threads (which
            // do not exist here) to change their ids too, and wait for them forever.
            let id = INSIDE_ID as libc::c_long;
            check(
                libc::syscall(libc::SYS_setgroups, 0 as libc::c_long, std::ptr::null::<libc::gid_t>())
                    as libc::c_int,
                S_USER,
            );
            check(libc::syscall(libc::SYS_setresgid, id, id, id) as libc::c_int, S_USER);
            check(libc::syscall(libc::SYS_setresuid, id, id, id) as libc::c_int, S_USER);
        }
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), S_NNP);
        check(libc::chdir(plan.workdir.as_ptr()), S_CHDIR);
        check(libc::pthread_sigmask(libc::SIG_SETMASK, &launch.mask, std::ptr::null_mut()), S_SIGMASK);
        plan.image.exec();
        fail(S_EXEC)
    }
}
