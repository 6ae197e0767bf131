//! The plan of a sandbox's root: every mount, folder and link PID 1 makes, prepared before the clone.

use super::*;

/// Where each sandbox mounts its root's tmpfs, in its own mount namespace: over the host's `/sys`,
/// which every Linux system has and which no sandbox shows. The host's view does not change and no
/// folder is made or removed on its disk for a run. A path the run binds must not lie below it:
/// the tmpfs would hide it (see `Plan::new`).
pub(super) const MOUNT_POINT: &str = "/sys";

/// One step of building the root, in order, as prepared C strings.
pub(super) enum Step {
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
pub(in crate::run) struct Plan {
    pub(super) root: CString,
    pub(super) tmpfs_options: CString,
    /// The steps every sandbox begins with, then this run's own.
    pub(super) shared_steps: &'static [Step],
    pub(super) steps: Vec<Step>,
    pub(super) proc_dir: CString,
    /// The options of `/proc`: a kept sandbox hides its PID 1 from programs (`hidepid`), whose
    /// counters grow with every run.
    pub(super) proc_options: Option<CString>,
    /// [`INSIDE_WORKDIR`], where the program starts.
    pub(super) workdir: CString,
    /// Whether the program must switch to [`INSIDE_ID`] (the grader is root; its init is uid 0).
    pub(super) drop_to_inside_id: bool,
    /// The System V IPC limits of the sandbox's own IPC namespace: files of `/proc/sys/kernel`
    /// and what to write there.
    pub(super) ipc_limits: Vec<(CString, CString)>,
    /// A sandbox kept for several runs (see `kept`): its root is read-only and its writable places
    /// are a tmpfs of their own, made again after every run.
    pub(super) kept: Option<Scratch>,
}

/// The writable places of a kept sandbox: one tmpfs mounted at [`SCRATCH`] and its folders bound at
/// `/work`, `/tmp` and `/dev/shm`, so that all of them are replaced at once after a run.
pub(super) struct Scratch {
    /// The tmpfs's mount options (its size is the run's disk limit).
    pub(super) options: CString,
    /// Whether PID 1 watches it with inotify, so that a reset after a run that left it untouched
    /// keeps it (see `serve`); the grader lends a sandbox a watch from a bounded budget.
    pub(super) watch: bool,
}

/// Where a kept sandbox mounts the tmpfs of its writable places (not listable by programs).
pub(super) const SCRATCH: &std::ffi::CStr = c"/.scratch";

/// The folders of the scratch tmpfs, where they are bound, and their modes.
pub(super) const SCRATCH_PLACES: [(&std::ffi::CStr, &std::ffi::CStr, libc::mode_t); 3] = [
    (c"/.scratch/work", c"/work", 0o700),
    (c"/.scratch/tmp", c"/tmp", 0o1777),
    (c"/.scratch/shm", c"/dev/shm", 0o1777),
];

/// What the program's process of one run needs between its clone and its exec, prepared before.
pub(in crate::run) struct ProgramStart {
    /// What it executes.
    pub(super) image: ExecImage,
    pub(super) rlimits: Rlimits,
    /// The signal mask it gets back: the cloning thread's (see `Launch::mask`).
    pub(in crate::run) mask: libc::sigset_t,
    /// The descriptors from [`FIRST_CGROUP_FD`] up to this one are the cgroups it joins.
    pub(super) cgroups_end: RawFd,
    /// The stack it runs on between its clone and its exec: it shares PID 1's memory (`CLONE_VM`),
    /// so that starting it copies no page table of the grader's.
    pub(super) stack: ChildStack,
}

impl ProgramStart {
    /// The start of `argv` with `env` under `limits`, joining `cgroups` cgroups.
    pub(in crate::run) fn new(
        argv: &[std::ffi::OsString],
        env: &[(std::ffi::OsString, std::ffi::OsString)],
        limits: &Limits,
        with_cgroup: bool,
        cgroups: usize,
    ) -> io::Result<ProgramStart> {
        Ok(ProgramStart {
            image: ExecImage::new(argv, env)?,
            rlimits: Rlimits::new(limits, with_cgroup),
            // SAFETY: a zeroed sigset_t is a valid (empty) set; it is overwritten before the clone.
            mask: unsafe { std::mem::zeroed() },
            cgroups_end: FIRST_CGROUP_FD + cgroups as RawFd,
            stack: ChildStack::new(PROGRAM_STACK_BYTES),
        })
    }
}

/// The System V IPC limits of a sandbox whose memory limit is `memory_bytes`: shared memory (which
/// no rlimit counts once detached, and a cgroup only where there is one) at most that in all, and a
/// few small message queues and semaphore sets. The kernel's defaults allow terabytes and half a
/// gigabyte of queues. They hold for the sandbox's IPC namespace alone, which dies with the run.
pub(super) fn ipc_limits(memory_bytes: u64) -> Result<Vec<(CString, CString)>, std::ffi::NulError> {
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
pub(super) const PROGRAM_STACK_BYTES: usize = 64 * 1024;

pub(super) fn c_path(path: &Path) -> io::Result<CString> {
    c_bytes(path.as_os_str())
}

/// Where an absolute inside path is before `pivot_root`: below [`MOUNT_POINT`].
pub(super) fn under(inside: &Path) -> PathBuf {
    Path::new(MOUNT_POINT).join(inside.strip_prefix("/").unwrap_or(inside))
}

/// Mount flags of the filesystem holding `path`, as `MS_*` flags a read-only remount must keep (a user
/// namespace may not clear nosuid, nodev, noexec or the atime flags of a mount it did not make).
pub(super) fn locked_flags(path: &Path) -> io::Result<libc::c_ulong> {
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
pub(super) struct Steps {
    pub(super) steps: Vec<Step>,
    pub(super) made: std::collections::BTreeSet<PathBuf>,
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
    pub(in crate::run) fn new(
        limits: &Limits,
        mounts: &[Mount],
        with_cgroup: bool,
        kept: bool,
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
        if kept {
            steps.dir(Path::new("/.scratch"), 0o700)?;
        }

        let size = limits.disk_bytes.max(1 << 20);
        Ok(Plan {
            root: c_path(root)?,
            tmpfs_options: CString::new(format!("size={size},nr_inodes=16384,mode=755"))?,
            proc_dir: c_path(&under(Path::new("/proc")))?,
            proc_options: kept.then(|| c"hidepid=ptraceable".to_owned()),
            workdir: CString::new(INSIDE_WORKDIR)?,
            shared_steps: &shared.steps,
            steps: steps.steps,
            // SAFETY: geteuid has no preconditions.
            drop_to_inside_id: unsafe { libc::geteuid() } == 0,
            // A memory cgroup counts shared memory and queues already: six /proc writes saved a run.
            ipc_limits: if with_cgroup { Vec::new() } else { ipc_limits(limits.memory_bytes)? },
            kept: kept
                .then(|| CString::new(format!("size={size},nr_inodes=16384,mode=700")))
                .transpose()?
                .map(|options| Scratch { options, watch: false }),
        })
    }
}
