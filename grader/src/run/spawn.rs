//! The spawn API: a running, confined program with its pipes, to be killed, polled and reaped.
//!
//! [`spawn`] starts a program at the requested [`Containment`]: in a namespace sandbox (the program's
//! end comes over a status pipe from the sandbox's PID 1, and killing PID 1 ends everything), or under
//! rlimits in a process group of its own. [`Running`] hands out the pipes and a `pidfd` to poll, so
//! one thread can supervise a run without blocking on any single stream: the batch [`super::run`] and
//! the line-by-line [`super::Interactive`] are both built on it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::time::{Duration, Instant};

use super::cgroup::RunCgroup;
use super::exec::pipe;
use super::exec::ExecImage;
use super::group;
use super::sandbox::{
    self, Containment, Keeper, KeptSandbox, KeptSandboxes, Key, LaunchOwner, Mount, Plan, ProgramEnd,
    ProgramStart,
};
use super::users::{give_to, RunUser, Snapshot};
use super::workdir::Workdir;
use super::{Limits, Rlimits, RunError};

/// `PATH` given to the program unless the request sets its own.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How long a killed program may take to die (to be reaped) before the grader gives up on it.
pub const KILL_GRACE: Duration = Duration::from_secs(10);

/// What to start, with what, under which limits.
#[derive(Debug, Clone, Copy)]
pub struct SpawnRequest<'a> {
    /// The program and its arguments; `argv[0]` must be an absolute path.
    pub argv: &'a [OsString],
    /// The program's environment, apart from `PATH`, `HOME` (the working directory) and `LANG=C`,
    /// which are added unless set here.
    pub env: &'a BTreeMap<String, String>,
    /// Limits of this run.
    pub limits: &'a Limits,
    /// Host paths the program may see (in a sandbox; outside one it sees everything its user may).
    pub mounts: &'a [Mount],
    /// How to contain the program.
    pub containment: Containment,
}

/// How the program was started, and so how it is killed and how its end is learnt.
enum Backend {
    /// A namespace sandbox: `pid` is its PID 1, which shares our memory and reads `launch`.
    Sandbox { status: Option<File>, cgroup: Option<RunCgroup>, launch: Option<LaunchOwner> },
    /// A run in a kept sandbox: `pid` is its PID 1, which outlives the run (see [`KeptRun`]).
    Kept(KeptRun),
    /// A process group led by `pid`; `sealed`: no process of the run can leave it (see `seal`).
    Group { sealed: bool },
}

/// A run in a sandbox kept for its submission's runs.
struct KeptRun {
    /// The run's status pipe: the program's end (then PID 1 closes it).
    status: Option<File>,
    cgroup: Option<RunCgroup>,
    /// The sandbox, back to its keeper once the run has ended normally.
    sandbox: Option<KeptSandbox>,
    keeper: std::sync::Arc<Keeper>,
    /// What PID 1 reads to start the program: kept until the end is reported or PID 1 is reaped.
    program: Option<Box<ProgramStart>>,
    /// The grader killed PID 1 (a limit): the sandbox is not reused.
    spoiled: std::cell::Cell<bool>,
    /// CPU time of what PID 1 had reaped before this run.
    reaped_before: Duration,
}

/// A started program. Dropping it kills every process of the run and reaps it.
pub struct Running {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    backend: Backend,
    reaped: bool,
    /// The program's stdin; dropping it closes the program's input.
    pub stdin: Option<File>,
    /// The program's stdout.
    pub stdout: Option<File>,
    /// The program's stderr.
    pub stderr: Option<File>,
    started: Instant,
    cpu_limit: Duration,
    /// What a run without namespaces holds until every process of it is gone (see `Leased`).
    leased: Option<Leased>,
}

/// A run without namespaces: its working folder and, for a root grader, its run user, with the
/// world-writable places as they were at its start. Released (the user's processes killed, its
/// files and IPC objects removed, the folder removed) once the program has been reaped.
struct Leased {
    workdir: Workdir,
    user: Option<(RunUser, Snapshot)>,
    /// Every process of the run user has been killed (see `Running::kill`).
    killed: std::cell::Cell<bool>,
}

impl Leased {
    /// Leaves nothing of the run: the user's processes and traces, then its folder. A user that
    /// could not be scrubbed serves no other run.
    fn release(self) {
        let Leased { mut workdir, user, killed } = self;
        let scrubbed = user.map(|(user, before)| user.scrub(&before, killed.get()).map(|()| user));
        if matches!(scrubbed, Some(Err(_))) {
            workdir.never_keep();
        }
        drop(workdir);
        if let Some(Ok(user)) = scrubbed {
            user.put_back();
        }
    }
}

/// The end of a run as the kernel reported it.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    /// The program's wait status, or `None` when the sandbox was killed before the program ended.
    pub status: Option<libc::c_int>,
    /// CPU time of the program and the children it waited for.
    pub cpu_time: Duration,
    /// Peak resident set size in KiB.
    pub peak_memory_kb: u64,
    /// When the end was seen.
    pub at: Instant,
}

/// The program's environment: defaults for `PATH`, `HOME` and `LANG`, overridden by the request.
fn environment(requested: &BTreeMap<String, String>, home: &Path) -> Vec<(OsString, OsString)> {
    let mut env = BTreeMap::new();
    env.insert(OsString::from("PATH"), OsString::from(DEFAULT_PATH));
    env.insert(OsString::from("HOME"), home.as_os_str().to_owned());
    env.insert(OsString::from("LANG"), OsString::from("C"));
    for (name, value) in requested {
        env.insert(OsString::from(name), OsString::from(value));
    }
    env.into_iter().collect()
}

/// Whether the grader runs as root, asked of the kernel once.
fn is_root() -> bool {
    static ROOT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: geteuid has no preconditions.
    *ROOT.get_or_init(|| unsafe { libc::geteuid() } == 0)
}

fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open has no memory-safety preconditions.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// A `pidfd` of our unreaped child `pid`; when none can be had, the child is killed and reaped.
fn pidfd_open_or_reap(pid: libc::pid_t) -> io::Result<OwnedFd> {
    pidfd_open(pid).inspect_err(|_| sandbox::kill_and_reap(pid))
}

/// Starts a program; see [`SpawnRequest`].
///
/// # Errors
///
/// Failures of the grader: an empty or relative `argv`, no working directory, a sandbox or a program
/// that cannot be started.
pub fn spawn(request: &SpawnRequest) -> Result<Running, RunError> {
    spawn_admitted(request, &mut || {})
}

/// Starts a program as [`spawn`] does, calling `admit` just before the program itself starts: after
/// its sandbox is built, which takes the kernel a while and waits for it in places. A caller that
/// waits for a CPU slot in `admit` holds it for the program alone. The program's clock (its wall
/// limit) starts after `admit`.
///
/// # Errors
///
/// As [`spawn`]'s.
pub fn spawn_admitted(request: &SpawnRequest, admit: &mut dyn FnMut()) -> Result<Running, RunError> {
    spawn_kept_or_admitted(request, None, admit)
}

/// Whether [`spawn_kept_or_admitted`] would run the program in one of `keep`'s sandboxes (one kept
/// for the submission, reused or built for it) rather than in a sandbox or as a run user of its own.
pub(super) fn would_keep(request: &SpawnRequest, keep: Option<&KeptSandboxes>) -> bool {
    let with_cgroup = request.containment == Containment::Full;
    request.containment != Containment::RlimitsOnly
        && keep.is_some()
        && Key::of(request.limits, request.mounts, with_cgroup).is_some()
}

/// [`spawn_admitted`], in a sandbox of `keep`'s when the run may have one (see `sandbox::kept`).
pub(super) fn spawn_kept_or_admitted(
    request: &SpawnRequest,
    keep: Option<&KeptSandboxes>,
    admit: &mut dyn FnMut(),
) -> Result<Running, RunError> {
    let (program, _) = request.argv.split_first().ok_or(RunError::EmptyArgv)?;
    let program = Path::new(program);
    if !program.is_absolute() {
        return Err(RunError::RelativeProgram(program.to_owned()));
    }
    if !program.is_file() {
        let source = io::Error::new(io::ErrorKind::NotFound, "no such file");
        return Err(RunError::Spawn { program: program.to_owned(), source });
    }
    let spawn_error = |source| RunError::Spawn { program: program.to_owned(), source };
    if request.containment == Containment::RlimitsOnly {
        // Without namespaces, root's runs would read whatever root can (the hidden cases) and one
        // user's processes could reach another's: each runs as a run user of its own.
        let user = if is_root() { Some(RunUser::take().map_err(RunError::TempDir)?) } else { None };
        let uid = user.as_ref().map(RunUser::uid);
        let workdir = Workdir::create(uid).map_err(RunError::TempDir)?;
        // After the folder: making the first one makes its parent in /tmp, whose change would have
        // this run's user's files looked for there (see `Snapshot::changed`).
        let user = user.map(|user| (user, Snapshot::now()));
        let leased = Leased { workdir, user, killed: std::cell::Cell::new(false) };
        let mut writable = request.mounts.iter().filter(|mount| mount.writable);
        if let Some(Err(error)) = uid.map(|uid| writable.try_for_each(|mount| give_to(&mount.path, uid))) {
            leased.release();
            return Err(spawn_error(error));
        }
        admit();
        match spawn_in_group(request, leased.workdir.path(), uid) {
            Ok(mut running) => {
                running.leased = Some(leased);
                return Ok(running);
            }
            Err(error) => {
                leased.release();
                return Err(spawn_error(error));
            }
        }
    }
    let with_cgroup = request.containment == Containment::Full;
    if let (Some(keep), Some(key)) = (keep, Key::of(request.limits, request.mounts, with_cgroup)) {
        // Where no kept sandbox can be built (a kernel without a /proc option it needs), the run
        // gets a sandbox of its own.
        if let Ok(sandbox) = keep.keeper.ready_sandbox(&key) {
            return spawn_in_kept_sandbox(request, sandbox, &keep.keeper, &key, admit).map_err(spawn_error);
        }
    }
    spawn_in_sandbox(request, with_cgroup, admit).map_err(spawn_error)
}

fn spawn_in_kept_sandbox(
    request: &SpawnRequest,
    mut sandbox: KeptSandbox,
    keeper: &std::sync::Arc<Keeper>,
    key: &Key,
    admit: &mut dyn FnMut(),
) -> io::Result<Running> {
    let mut reaped_before = sandbox.reaped_before();
    let cgroup = sandbox::run_cgroup(request.limits, key.with_cgroup())?;
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let (status_r, status_w) = pipe()?;
    let cgroup_fds = cgroup.as_ref().map(RunCgroup::procs_fds).unwrap_or_default();
    let env = environment(request.env, Path::new(sandbox::INSIDE_WORKDIR));
    let mut program =
        Box::new(ProgramStart::new(request.argv, &env, request.limits, key.with_cgroup(), cgroup_fds.len())?);
    // The program gets this thread's signal mask, as in a sandbox of its own.
    // SAFETY: a null new set only reads the mask into `program.mask`.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, std::ptr::null(), &mut program.mask) };
    let mut fds = vec![stdin_r.as_raw_fd(), stdout_w.as_raw_fd(), stderr_w.as_raw_fd(), status_w.as_raw_fd()];
    fds.extend(&cgroup_fds);
    admit();
    // A sandbox that could not take its order is dropped: killed, never reused; a new one takes it.
    if sandbox.order(&program, &fds).is_err() {
        drop(sandbox);
        sandbox = keeper.ready_sandbox(key)?;
        reaped_before = sandbox.reaped_before();
        sandbox.order(&program, &fds)?;
    }
    let started = Instant::now();
    drop((stdin_r, stdout_w, stderr_w, status_w));
    let pidfd = status_r.try_clone()?;
    Ok(Running {
        pid: sandbox.pid(),
        pidfd,
        backend: Backend::Kept(KeptRun {
            status: Some(File::from(status_r)),
            cgroup,
            sandbox: Some(sandbox),
            keeper: keeper.clone(),
            program: Some(program),
            spoiled: std::cell::Cell::new(false),
            reaped_before,
        }),
        reaped: false,
        stdin: Some(File::from(stdin_w)),
        stdout: Some(File::from(stdout_r)),
        stderr: Some(File::from(stderr_r)),
        started,
        cpu_limit: request.limits.cpu,
        leased: None,
    })
}

fn spawn_in_sandbox(
    request: &SpawnRequest,
    with_cgroup: bool,
    admit: &mut dyn FnMut(),
) -> io::Result<Running> {
    let env = environment(request.env, Path::new(sandbox::INSIDE_WORKDIR));
    let plan = Plan::new(request.limits, request.mounts, with_cgroup, false)?;
    let mut spawned = sandbox::spawn(plan, request.argv, &env, request.limits, with_cgroup)?;
    spawned.start(admit)?;
    let started = Instant::now();
    let pidfd = pidfd_open_or_reap(spawned.pid)?;
    Ok(Running {
        pid: spawned.pid,
        pidfd,
        backend: Backend::Sandbox {
            status: Some(spawned.status),
            cgroup: spawned.cgroup,
            launch: Some(spawned.launch),
        },
        reaped: false,
        stdin: Some(spawned.stdin),
        stdout: Some(spawned.stdout),
        stderr: Some(spawned.stderr),
        started,
        cpu_limit: request.limits.cpu,
        leased: None,
    })
}

fn spawn_in_group(request: &SpawnRequest, workdir: &Path, user: Option<u32>) -> io::Result<Running> {
    let image = ExecImage::new(request.argv, &environment(request.env, workdir))?;
    let started = Instant::now();
    let rlimits = Rlimits::new(request.limits, false);
    let program = group::start(image, workdir, rlimits, user).map_err(|e| match e.kind() {
        io::ErrorKind::PermissionDenied if user.is_some() => io::Error::new(
            e.kind(),
            format!(
                "{e}: the grader is root without namespaces, so programs run as users of their own, and \
                 every folder above the program must be open to others (use a build cache outside /root: \
                 GRADER_CACHE_DIR or --cache-dir)"
            ),
        ),
        _ => e,
    })?;
    let pidfd = pidfd_open_or_reap(program.pid)?;
    Ok(Running {
        pid: program.pid,
        pidfd,
        backend: Backend::Group { sealed: program.sealed },
        reaped: false,
        stdin: Some(program.stdin),
        stdout: Some(program.stdout),
        stderr: Some(program.stderr),
        started,
        cpu_limit: request.limits.cpu,
        leased: None,
    })
}

impl Running {
    /// The descriptor that becomes readable when the program (or the sandbox's PID 1) has ended.
    pub fn pidfd(&self) -> RawFd {
        self.pidfd.as_raw_fd()
    }

    /// The host pid of the run's top process: a sandbox's PID 1, or the program.
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// True for a namespace sandbox.
    pub fn is_sandboxed(&self) -> bool {
        matches!(self.backend, Backend::Sandbox { .. } | Backend::Kept(_))
    }

    /// CPU time that `/proc` counts for the run's top process but that is not the run's: what a
    /// kept sandbox's PID 1 reaped in the runs before.
    pub(super) fn reaped_before(&self) -> Duration {
        match &self.backend {
            Backend::Kept(run) => run.reaped_before,
            _ => Duration::ZERO,
        }
    }

    /// The run's cgroup, if it has one.
    fn cgroup(&self) -> Option<&RunCgroup> {
        match &self.backend {
            Backend::Sandbox { cgroup, .. } => cgroup.as_ref(),
            Backend::Kept(run) => run.cgroup.as_ref(),
            Backend::Group { .. } => None,
        }
    }

    /// When the program was started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The run's CPU limit.
    pub(super) fn cpu_limit(&self) -> Duration {
        self.cpu_limit
    }

    /// True when the run's cgroup saw a process fail to start at the process limit.
    pub(super) fn hit_process_limit(&self) -> bool {
        self.cgroup().is_some_and(RunCgroup::processes_exhausted)
    }

    /// True when the run's cgroup killed a process for memory.
    pub(super) fn hit_memory_limit(&self) -> bool {
        self.cgroup().is_some_and(RunCgroup::memory_exhausted)
    }

    /// Kills every process of the run (a no-op once it has been reaped).
    pub fn kill(&self) {
        if self.reaped {
            return;
        }
        // SAFETY: kill has no memory-safety preconditions. The pid (and so the group id) cannot be
        // reused before we reap it, which has not happened yet.
        unsafe {
            match &self.backend {
                Backend::Sandbox { .. } => libc::kill(self.pid, libc::SIGKILL),
                // PID 1 kills the rest of a run that has ended; one stopped before is stopped with
                // its sandbox, which then serves no other run.
                Backend::Kept(run) => {
                    if self.has_ended() {
                        return;
                    }
                    run.spoiled.set(true);
                    libc::kill(self.pid, libc::SIGKILL)
                }
                Backend::Group { .. } => libc::kill(-self.pid, libc::SIGKILL),
            };
        }
        // A run user's processes outside the group (`setsid`) die now too: they would hold the
        // output pipes open until the reader's grace ran out. Once is enough: no process of the
        // user can start after it. A sealed group holds every process of the run: its kill did.
        if let Some(Leased { user: Some((user, _)), killed, .. }) = &self.leased {
            if !killed.get() {
                let sealed = matches!(self.backend, Backend::Group { sealed: true });
                killed.set(sealed || user.kill_processes().is_ok());
            }
        }
    }

    /// A sandbox's status pipe, readable once PID 1 reports the program's end (or PID 1 is gone):
    /// what is left after that is the kernel tearing the sandbox down. `None` outside a sandbox.
    pub fn end_report_fd(&self) -> Option<RawFd> {
        match &self.backend {
            Backend::Sandbox { status: Some(status), .. } => Some(status.as_raw_fd()),
            Backend::Kept(KeptRun { status: Some(status), .. }) => Some(status.as_raw_fd()),
            _ => None,
        }
    }

    /// True once the program (the sandbox's PID 1, or the group's leader) has ended.
    pub fn has_ended(&self) -> bool {
        let mut poll = libc::pollfd { fd: self.pidfd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, no waiting.
        unsafe { libc::poll(&mut poll, 1, 0) > 0 }
    }

    /// Waits for the end, kills whatever is left of the run, and reaps it. Killing first (with
    /// `kill`) makes this return within [`KILL_GRACE`].
    ///
    /// # Errors
    ///
    /// When waiting fails, the program survives `SIGKILL`, or a sandbox's setup failed.
    pub fn wait(&mut self) -> Result<Ended, RunError> {
        let give_up = Instant::now() + KILL_GRACE;
        loop {
            let mut poll = libc::pollfd { fd: self.pidfd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut poll, 1, 1000) };
            if ready > 0 {
                break;
            }
            if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return Err(RunError::Wait { pid: self.pid, source: io::Error::last_os_error() });
            }
            if Instant::now() >= give_up {
                return Err(RunError::Unkillable { pid: self.pid });
            }
        }
        let at = Instant::now();
        if matches!(self.backend, Backend::Kept(_)) {
            return self.end_kept_run(at);
        }
        // Background children of a group must neither survive nor hold the pipes open; a sandbox's
        // PID 1 took its namespace with it.
        self.kill();
        let mut status: libc::c_int = 0;
        // SAFETY: a zeroed rusage (integers only) is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: `status` and `usage` are valid for writes.
            let rc = unsafe { libc::wait4(self.pid, &mut status, libc::__WALL, &mut usage) };
            if rc == self.pid {
                break;
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                self.reaped = true;
                return Err(RunError::Wait { pid: self.pid, source: error });
            }
        }
        self.reaped = true;
        if let Some(leased) = self.leased.take() {
            leased.release();
        }
        match &mut self.backend {
            Backend::Group { .. } => Ok(Ended {
                status: Some(status),
                cpu_time: duration_of(usage.ru_utime) + duration_of(usage.ru_stime),
                peak_memory_kb: u64::try_from(usage.ru_maxrss).unwrap_or(0),
                at,
            }),
            Backend::Kept(_) => Err(RunError::Wait { pid: self.pid, source: io::Error::other("a kept run") }),
            Backend::Sandbox { status: pipe, .. } => {
                let end = match pipe.take() {
                    Some(pipe) => {
                        sandbox::read_status(pipe).map_err(|source| RunError::Sandbox { source })?
                    }
                    None => None,
                };
                if end.is_none() && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) != 0 {
                    let code = libc::WEXITSTATUS(status);
                    return Err(RunError::Sandbox {
                        source: io::Error::other(format!("the sandbox's init exited with status {code}")),
                    });
                }
                Ok(match end {
                    Some(ProgramEnd { status, user_micros, system_micros, max_rss_kb }) => Ended {
                        status: Some(status),
                        cpu_time: Duration::from_micros(user_micros.saturating_add(system_micros)),
                        peak_memory_kb: max_rss_kb,
                        at,
                    },
                    None => Ended { status: None, cpu_time: Duration::ZERO, peak_memory_kb: 0, at },
                })
            }
        }
    }
}

impl Running {
    /// The end of a run in a kept sandbox, once its status pipe is readable: the record PID 1 wrote,
    /// then the sandbox back to its keeper, or killed when the grader stopped the run or anything
    /// failed.
    fn end_kept_run(&mut self, at: Instant) -> Result<Ended, RunError> {
        let Backend::Kept(run) = &mut self.backend else { unreachable!("a kept run") };
        self.reaped = true;
        let end = run.status.take().map(sandbox::read_status).transpose().map(Option::flatten);
        // Without the end's record PID 1 is gone, or about to be: its sandbox with it.
        let keep = !run.spoiled.get() && matches!(end, Ok(Some(_)));
        match run.sandbox.take() {
            Some(sandbox) if keep => run.keeper.put_back(sandbox),
            // Dropped: PID 1 killed and reaped, before the program it may still read is freed.
            sandbox => drop(sandbox),
        }
        drop(run.program.take());
        let end = end.map_err(|source| RunError::Sandbox { source })?;
        Ok(match end {
            Some(ProgramEnd { status, user_micros, system_micros, max_rss_kb }) => Ended {
                status: Some(status),
                cpu_time: Duration::from_micros(user_micros.saturating_add(system_micros)),
                peak_memory_kb: max_rss_kb,
                at,
            },
            None => Ended { status: None, cpu_time: Duration::ZERO, peak_memory_kb: 0, at },
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.wait();
        }
        if !self.reaped {
            // A PID 1 that survived SIGKILL may still read its launch, in our memory: it stays.
            if let Backend::Sandbox { launch, .. } = &mut self.backend {
                std::mem::forget(launch.take());
            }
            // The same for a kept sandbox's PID 1 and the program it may read.
            if let Backend::Kept(run) = &mut self.backend {
                std::mem::forget(run.sandbox.take());
                std::mem::forget(run.program.take());
            }
            // A program that survived may still write in its folder and hold its user: they stay
            // out of use.
            if let Some(leased) = self.leased.take() {
                std::mem::forget(leased);
            }
        }
    }
}

/// A `timeval` from rusage as a `Duration` (negative fields, which the kernel never gives, as 0).
fn duration_of(time: libc::timeval) -> Duration {
    let seconds = u64::try_from(time.tv_sec).unwrap_or(0);
    let micros = u64::try_from(time.tv_usec).unwrap_or(0);
    Duration::from_secs(seconds) + Duration::from_micros(micros)
}
