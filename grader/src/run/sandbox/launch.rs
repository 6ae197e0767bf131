//! Starting a sandbox: the clone of its PID 1, the user namespace's maps, and the records PID 1
//! sends back over its status pipe (setup failures, readiness, the program's end).

use super::*;

/// What the status pipe carries: a setup failure, readiness (below), or the program's end.
pub(super) const RECORD_ERROR: u8 = b'E';
pub(super) const RECORD_EXIT: u8 = b'X';
/// The root is built: PID 1 waits for the grader's word to start the program.
pub(super) const RECORD_READY: u8 = b'R';
/// A kept sandbox's readiness (see `serve`): the kind, the CPU time of what PID 1 reaped before
/// (microseconds, 8 bytes), whether its last reset replaced the writable places' tmpfs (1 byte).
pub(super) const READY_RECORD_LEN: usize = 10;

/// The steps of the child's setup, for error messages.
pub(super) const STEPS: &[&str] = &[
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
    "receive a run's order",
    "kill the run's last processes",
    "make a new IPC namespace",
    "set the PID counter back",
    "empty the user's keyrings",
];
pub(super) const S_SYNC: u32 = 0;
pub(super) const S_CGROUP: u32 = 1;
pub(super) const S_PRIVATE: u32 = 2;
pub(super) const S_TMPFS: u32 = 3;
pub(super) const S_DIR: u32 = 4;
pub(super) const S_SYMLINK: u32 = 5;
pub(super) const S_BIND: u32 = 6;
pub(super) const S_REMOUNT: u32 = 7;
pub(super) const S_PROC: u32 = 8;
pub(super) const S_PIVOT: u32 = 9;
pub(super) const S_DETACH: u32 = 10;
pub(super) const S_HOSTNAME: u32 = 11;
pub(super) const S_FORK: u32 = 12;
pub(super) const S_RLIMIT: u32 = 13;
pub(super) const S_USER: u32 = 14;
pub(super) const S_NNP: u32 = 15;
pub(super) const S_CHDIR: u32 = 16;
pub(super) const S_EXEC: u32 = 17;
pub(super) const S_CHOWN: u32 = 18;
pub(super) const S_SIGMASK: u32 = 19;
pub(super) const S_HIDE: u32 = 20;
pub(super) const S_ORDER: u32 = 21;
pub(super) const S_REAP: u32 = 22;
pub(super) const S_IPC: u32 = 23;
pub(super) const S_PIDS: u32 = 24;
pub(super) const S_KEYS: u32 = 25;

/// A namespace sandbox that has been started.
pub(in crate::run) struct Spawned {
    /// Host pid of the sandbox's PID 1; killing it ends every process of the run.
    pub pid: libc::pid_t,
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
    /// The status pipe: setup errors, readiness and the program's end.
    pub status: File,
    /// The grader's word to start the program, once the sandbox is ready (see [`Spawned::start`]).
    pub(super) start: Option<File>,
    pub cgroup: Option<RunCgroup>,
    /// What PID 1 reads while it lives: to be freed only once it has been reaped.
    pub launch: LaunchOwner,
}

/// Owns a [`Launch`] that PID 1 reads through a raw pointer while it lives: held as a raw pointer
/// here too (a `Box` would claim unique access while PID 1 reads it), freed on drop.
pub(in crate::run) struct LaunchOwner(std::ptr::NonNull<Launch>);

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
    pub(super) plan: Plan,
    /// The descriptors PID 1 keeps, in the order it moves them to 0, 1, 2...
    pub(super) wanted: Vec<RawFd>,
    /// PID 1's stack.
    pub(super) stack: ChildStack,
    /// The program of a sandbox made for one run; a kept sandbox gets one per run (see `kept`).
    pub(super) program: Option<ProgramStart>,
}

/// Bytes of PID 1's stack: it makes system calls only, with small frames.
pub(super) const INIT_STACK_BYTES: usize = 128 * 1024;

/// Descriptors PID 1 may keep (stdio, status, sync, cgroup files).
pub(super) const MOST_KEPT_FDS: usize = 16;

/// The first of the descriptors (the cgroups' `cgroup.procs`) that the program writes to join.
pub(super) const FIRST_CGROUP_FD: RawFd = 5;

/// The cgroup of one run with its limits, when `want`ed.
pub(in crate::run) fn run_cgroup(limits: &Limits, want: bool) -> io::Result<Option<RunCgroup>> {
    match (want, Hierarchy::usable()) {
        (true, Some(hierarchy)) => {
            let cg_limits = CgroupLimits {
                // Below this process's hard `RLIMIT_NPROC` (which the program inherits and only a
                // process with CAP_SYS_RESOURCE could raise; the kernel checks it first, at the same
                // count), so that `pids.max` refuses forks first and its events tell the process limit.
                processes: limits.processes.min(super::super::limits::hard_process_limit().saturating_sub(1)),
                memory_bytes: limits.memory_bytes.saturating_add(limits.disk_bytes),
            };
            Ok(Some(RunCgroup::take(hierarchy, &cg_limits)?))
        }
        (true, None) => Err(io::Error::other("cgroups are not available on this machine")),
        (false, _) => Ok(None),
    }
}

/// Starts the sandbox of one run: clone, write the user namespace maps, release the child.
pub(in crate::run) fn spawn(
    plan: Plan,
    argv: &[std::ffi::OsString],
    env: &[(std::ffi::OsString, std::ffi::OsString)],
    limits: &Limits,
    want_cgroup: bool,
) -> io::Result<Spawned> {
    let cgroup = run_cgroup(limits, want_cgroup)?;
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
    let program = ProgramStart::new(argv, env, limits, want_cgroup, cgroup_fds.len())?;
    let (pid, launch) = clone_init(plan, wanted, Some(program), None)?;
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

/// Clones a sandbox's PID 1 in its namespaces, handing it `wanted` (see [`Launch::wanted`]); it
/// waits for the id maps, then builds its root. It is born in `network` where one is given (a kept
/// sandbox of a root grader: the submission's), else in a network namespace of its own.
pub(super) fn clone_init(
    plan: Plan,
    wanted: Vec<RawFd>,
    program: Option<ProgramStart>,
    network: Option<&SubmissionNetwork>,
) -> io::Result<(libc::pid_t, LaunchOwner)> {
    let launch = Box::new(Launch { plan, wanted, stack: ChildStack::new(INIT_STACK_BYTES), program });
    let raw: *mut Launch = Box::into_raw(launch);
    // From here on the launch is reached through `raw` only, and freed by its owner.
    let launch = LaunchOwner(std::ptr::NonNull::new(raw).expect("Box::into_raw is never null"));
    // SAFETY: `raw` points to the live launch; the stack's buffer does not move.
    let top = unsafe { (*raw).stack.top() };

    // Never a namespace another submission's sandbox was in (see `netns`).
    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_NEWCGROUP
        | if network.is_some() { 0 } else { libc::CLONE_NEWNET };
    // PID 1 shares this address space (CLONE_VM): a copy of the grader's page tables, as a fork
    // makes, cost more CPU than anything else in a run, and each copy made every core running the
    // grader flush its TLB. It runs `init` on its own stack, reading only `launch`, which the run
    // keeps until PID 1 is reaped; it never returns (it ends in `_exit`). It shares this thread's
    // errno too: it fails a system call only when the setup of this run fails, and then this thread
    // reports the run as failed whatever errno it reads. Every signal is blocked from the clone on.
    let clone = || {
        // SAFETY: `all` is initialised by sigfillset; the old mask is written into the launch's
        // program (or a local), which PID 1 reads only after the clone; pointers come from `raw`.
        unsafe {
            let mut unused: libc::sigset_t = std::mem::zeroed();
            let mask = match &mut (*raw).program {
                Some(program) => &raw mut program.mask,
                None => &raw mut unused,
            };
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, mask);
            let flags = flags | libc::CLONE_VM | libc::SIGCHLD;
            let pid = libc::clone(init_entry, top, flags, raw.cast());
            let cloned = if pid < 0 { Err(io::Error::last_os_error()) } else { Ok(pid) };
            libc::pthread_sigmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
            cloned
        }
    };
    // The submission's network namespace: this thread enters it to clone, so the sandbox is born there.
    let pid = match network {
        Some(network) => network.enter_for(clone)??,
        None => clone()?,
    };
    Ok((pid, launch))
}

impl Spawned {
    /// Waits until the sandbox's root is built, calls `admit` (which may wait, for a CPU slot), then
    /// lets PID 1 start the program. On an error the sandbox is killed and reaped.
    pub(in crate::run) fn start(&mut self, admit: &mut dyn FnMut()) -> io::Result<()> {
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
pub(in crate::run) fn kill_and_reap(pid: libc::pid_t) {
    // SAFETY: kill and waitpid have no memory-safety preconditions; `pid` is our unreaped child.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), libc::__WALL);
    }
}

/// Maps the child's user namespace: inside uid/gid [`INSIDE_ID`] is the grader's own user, or
/// `nobody` when the grader is root (then root stays root inside, for the setup, and the program
/// switches to [`INSIDE_ID`]).
pub(super) fn write_id_maps(pid: libc::pid_t) -> io::Result<()> {
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
pub(in crate::run) fn read_status(mut status: File) -> io::Result<Option<ProgramEnd>> {
    let mut bytes = Vec::new();
    status.read_to_end(&mut bytes)?;
    parse_records(&bytes)
}

/// The records of the status pipe: see [`read_status`].
pub(super) fn parse_records(bytes: &[u8]) -> io::Result<Option<ProgramEnd>> {
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
pub(in crate::run) struct ProgramEnd {
    pub status: libc::c_int,
    pub user_micros: u64,
    pub system_micros: u64,
    pub max_rss_kb: u64,
}
