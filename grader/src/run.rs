//! The run stage: spawn an untrusted student program under limits and report precisely what happened.
//!
//! Every run gets a fresh temporary working directory, a cleared environment, its own process group
//! and rlimits set between `fork` and `exec`. One thread writes stdin, one thread per output pipe
//! captures at most [`Limits::output_bytes`], and a waiter thread reaps the program while the caller
//! waits with a wall-clock timeout. Whatever the program does (loop, flood, crash, leave children in
//! the background) ends as a [`RunOutcome`]; a [`RunError`] means the grader itself could not work.
//!
//! Unix (Linux) only.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// `PATH` given to the program unless the request sets its own.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How long the output readers may take to see end-of-file once the process group has been killed.
/// Longer means a grandchild that left the group (`setsid`) still holds a pipe: we stop waiting.
const READER_GRACE: Duration = Duration::from_secs(2);

/// How long a killed program may take to die (to be reaped) before the grader gives up on it.
const KILL_GRACE: Duration = Duration::from_secs(10);

/// Size of one read from an output pipe.
const CHUNK: usize = 64 * 1024;

/// Resource limits for one run of a student program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time after which the whole process group is killed
    /// ([`Termination::TimedOut`] with `cpu: false`).
    pub wall: Duration,
    /// CPU time (user + system) of the program, enforced by the kernel through `RLIMIT_CPU`, which
    /// counts whole seconds: the limit is rounded up to the next second, and the kernel sends
    /// `SIGXCPU` there and `SIGKILL` one second later ([`Termination::TimedOut`] with `cpu: true`).
    pub cpu: Duration,
    /// Address-space limit (`RLIMIT_AS`) in bytes; `None` leaves it as it is (the JVM reserves far
    /// more address space than it uses, so Java programs usually need `None`).
    pub memory_bytes: Option<u64>,
    /// Bytes captured from each of stdout and stderr. More stdout kills the program
    /// ([`Termination::OutputLimit`]); more stderr is silently discarded.
    pub output_bytes: usize,
    /// Process limit (`RLIMIT_NPROC`); `None` leaves it as it is. The kernel counts every process of
    /// the user, not only this run's, and does not apply the limit to root.
    pub processes: Option<u64>,
    /// Largest file the program may write (`RLIMIT_FSIZE`), in bytes; beyond it a write fails and the
    /// program gets `SIGXFSZ`.
    pub file_size_bytes: u64,
    /// Highest number of open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: u64,
}

impl Default for Limits {
    /// Conservative limits for a console program of the course: 10 s wall, 5 s CPU, 512 MiB of
    /// address space, 1 MiB of output, 16 MiB files, 64 descriptors, processes unlimited.
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(10),
            cpu: Duration::from_secs(5),
            memory_bytes: Some(512 * 1024 * 1024),
            output_bytes: 1024 * 1024,
            processes: None,
            file_size_bytes: 16 * 1024 * 1024,
            open_files: 64,
        }
    }
}

/// What to run, with what, under which limits.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'a> {
    /// The program and its arguments; `argv[0]` must be an absolute path (the program runs in a
    /// fresh temporary directory, so a relative path would be ambiguous).
    pub argv: &'a [OsString],
    /// The program's whole environment, apart from `PATH`, `HOME` (the working directory) and
    /// `LANG=C`, which are added unless set here.
    pub env: &'a BTreeMap<String, String>,
    /// Bytes fed to the program's stdin, which is then closed.
    pub stdin: &'a [u8],
    /// Limits of this run.
    pub limits: &'a Limits,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Termination {
    /// The program exited on its own with this exit code.
    Exited(i32),
    /// The program was killed by a signal it did not cause through a limit (a crash, an abort).
    Signaled {
        /// The signal number, for example 11.
        signal: i32,
        /// The signal's name, for example `SIGSEGV`.
        name: String,
    },
    /// The program ran out of time: CPU time when `cpu` is true, otherwise wall-clock time.
    TimedOut {
        /// True when the CPU time limit ended the run, false for the wall-clock limit.
        cpu: bool,
    },
    /// The program wrote more than [`Limits::output_bytes`] to stdout and was killed.
    OutputLimit,
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Exited(code) => write!(f, "exited with code {code}"),
            Termination::Signaled { signal, name } => {
                write!(f, "killed by {name} (signal {signal})")
            }
            Termination::TimedOut { cpu: true } => f.write_str("exceeded the CPU time limit"),
            Termination::TimedOut { cpu: false } => f.write_str("exceeded the wall-clock time limit"),
            Termination::OutputLimit => f.write_str("exceeded the output limit"),
        }
    }
}

/// Everything observed about one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// How the run ended.
    pub termination: Termination,
    /// The captured stdout: at most [`Limits::output_bytes`] bytes, exactly as written.
    pub stdout: Vec<u8>,
    /// The captured stderr: its first [`Limits::output_bytes`] bytes, exactly as written.
    pub stderr: Vec<u8>,
    /// Wall-clock time from spawning the program to its end.
    pub wall_time: Duration,
    /// CPU time (user + system) of the program and the children it waited for.
    pub cpu_time: Duration,
    /// Peak resident set size of the program (or of its largest waited-for child), in KiB.
    pub peak_memory_kb: u64,
}

/// A failure of the grader itself; whatever the student's program does is a [`RunOutcome`].
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The request names no program.
    #[error("no program to run: argv is empty")]
    EmptyArgv,
    /// `argv[0]` is not an absolute path.
    #[error("program path {0} is not absolute")]
    RelativeProgram(PathBuf),
    /// The temporary working directory could not be created.
    #[error("cannot create a temporary working directory")]
    TempDir(#[source] io::Error),
    /// The program could not be started (missing, not executable, or the limits could not be set).
    #[error("cannot start {program}")]
    Spawn {
        /// The program that was to run.
        program: PathBuf,
        /// Why it could not start.
        #[source]
        source: io::Error,
    },
    /// A helper thread (stdin writer, output reader, waiter) could not be started.
    #[error("cannot start a helper thread for the run")]
    Thread(#[source] io::Error),
    /// Waiting for the program failed.
    #[error("cannot wait for process {pid}")]
    Wait {
        /// The program's process id.
        pid: i32,
        /// Why waiting failed.
        #[source]
        source: io::Error,
    },
    /// The program did not die within 10 s of `SIGKILL` (stuck in the kernel).
    #[error("process {pid} did not die within {} s of SIGKILL", KILL_GRACE.as_secs())]
    Unkillable {
        /// The program's process id.
        pid: i32,
    },
}

/// Runs one program under `request.limits` and reports how it ended and what it wrote.
///
/// Blocks until the program has ended (or been killed) and no process of its group is left; never
/// longer than about `limits.wall` plus a few seconds. Student failures (crashes, timeouts, floods,
/// non-zero exits) are `Ok`.
///
/// # Errors
///
/// Only failures of the grader itself: an empty or relative `argv`, no temporary directory, a
/// program that cannot be started, no helper thread, or a program that survives `SIGKILL`.
pub fn run(request: &RunRequest) -> Result<RunOutcome, RunError> {
    let (program, args) = request.argv.split_first().ok_or(RunError::EmptyArgv)?;
    let program = Path::new(program);
    if !program.is_absolute() {
        return Err(RunError::RelativeProgram(program.to_owned()));
    }
    let workdir = tempfile::Builder::new().prefix("grader-run-").tempdir().map_err(RunError::TempDir)?;
    let outcome = supervise(request, program, args, workdir.path());
    remove_workdir(workdir);
    outcome
}

/// Spawns the program in `workdir` and watches it to the end.
fn supervise(
    request: &RunRequest,
    program: &Path,
    args: &[OsString],
    workdir: &Path,
) -> Result<RunOutcome, RunError> {
    let limits = request.limits;
    let confinement = Confinement::new(limits);
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(environment(request.env, workdir))
        .current_dir(workdir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: the closure runs in the child between fork and exec, where only async-signal-safe
    // functions may be called. `confine` makes raw system calls only, on a `Copy` value captured
    // before the fork: it allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(move || confine(&confinement));
    }

    let start = Instant::now();
    let mut child =
        command.spawn().map_err(|source| RunError::Spawn { program: program.to_owned(), source })?;
    // The program leads its own group, so its pid is the group id.
    let pid = child.id() as libc::pid_t;
    let group = Arc::new(Group { pgid: pid, reaped: Mutex::new(false) });
    // From here on, leaving this function early in any way must not leave the program running.
    let _guard = KillOnDrop(Arc::clone(&group));
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // Dropping a `Child` neither waits nor kills: the waiter thread alone reaps the program.
    drop(child);

    let exits = spawn_waiter(&group)?;
    let overflowed = Arc::new(AtomicBool::new(false));
    let stdout = spawn_reader(
        "run-stdout",
        stdout,
        limits.output_bytes,
        Some((Arc::clone(&group), Arc::clone(&overflowed))),
    )?;
    let stderr = spawn_reader("run-stderr", stderr, limits.output_bytes, None)?;
    spawn_writer(stdin, request.stdin)?;

    let mut timed_out = false;
    // No `start + wall`: a huge wall limit ("none") must not overflow the Instant.
    let exit = match exits.recv_timeout(limits.wall.saturating_sub(start.elapsed())) {
        Ok(exit) => exit,
        Err(RecvTimeoutError::Timeout) => {
            timed_out = true;
            collect_after_kill(&group, &exits)?
        }
        Err(RecvTimeoutError::Disconnected) => Err(waiter_vanished()),
    }
    .map_err(|source| RunError::Wait { pid, source })?;

    // The waiter killed the group before reaping, so the pipes close unless a process escaped the
    // group and holds them: give the readers a bounded time, then take what they have.
    let drain_deadline = Instant::now() + READER_GRACE;
    let stdout = stdout.finish(drain_deadline);
    let stderr = stderr.finish(drain_deadline);

    let cpu_time = duration_of(exit.rusage.ru_utime) + duration_of(exit.rusage.ru_stime);
    // Decided only now: a reader may notice the stdout overflow after the program has exited.
    let termination = if overflowed.load(Ordering::SeqCst) {
        Termination::OutputLimit
    } else if timed_out {
        Termination::TimedOut { cpu: false }
    } else {
        termination_of(exit.status, cpu_time, limits.cpu)
    };
    Ok(RunOutcome {
        termination,
        stdout,
        stderr,
        wall_time: exit.at.saturating_duration_since(start),
        cpu_time,
        peak_memory_kb: u64::try_from(exit.rusage.ru_maxrss).unwrap_or(0),
    })
}

/// The program's environment: defaults for `PATH`, `HOME` and `LANG`, overridden by the request.
fn environment(requested: &BTreeMap<String, String>, workdir: &Path) -> BTreeMap<OsString, OsString> {
    let mut env = BTreeMap::new();
    env.insert(OsString::from("PATH"), OsString::from(DEFAULT_PATH));
    env.insert(OsString::from("HOME"), workdir.as_os_str().to_owned());
    env.insert(OsString::from("LANG"), OsString::from("C"));
    for (name, value) in requested {
        env.insert(OsString::from(name), OsString::from(value));
    }
    env
}

/// Maps a wait status to a termination, telling CPU-limit kills from crashes.
fn termination_of(status: libc::c_int, cpu_time: Duration, cpu_limit: Duration) -> Termination {
    if libc::WIFEXITED(status) {
        return Termination::Exited(libc::WEXITSTATUS(status));
    }
    // Without WUNTRACED or WCONTINUED, a status that is not an exit is a death by signal.
    let signal = libc::WTERMSIG(status);
    // SIGXCPU comes at the soft CPU limit; a program that catches or ignores it gets SIGKILL at the
    // hard one, a second later. That second also covers rusage lagging behind the kernel's limit
    // clock (observed up to half a second on a loaded virtual machine).
    if signal == libc::SIGXCPU || (signal == libc::SIGKILL && cpu_time >= cpu_limit) {
        return Termination::TimedOut { cpu: true };
    }
    Termination::Signaled { signal, name: signal_name(signal) }
}

/// The conventional name of a Linux signal (`SIGSEGV`), `SIGRTMIN+n` for real-time ones.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGPWR => "SIGPWR",
        libc::SIGSYS => "SIGSYS",
        _ if (libc::SIGRTMIN()..=libc::SIGRTMAX()).contains(&signal) => {
            return format!("SIGRTMIN+{}", signal - libc::SIGRTMIN());
        }
        _ => return format!("SIG{signal}"),
    };
    name.to_owned()
}

/// The rlimits to set in the child, computed before the fork (nothing may allocate after it).
#[derive(Debug, Clone, Copy)]
struct Confinement {
    cpu_seconds: u64,
    memory_bytes: Option<u64>,
    processes: Option<u64>,
    file_size_bytes: u64,
    open_files: u64,
    parent: libc::pid_t,
}

impl Confinement {
    fn new(limits: &Limits) -> Self {
        // RLIMIT_CPU counts whole seconds (and Linux turns a soft limit of 0 into 1 anyway).
        let whole = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0);
        Confinement {
            cpu_seconds: whole.max(1),
            memory_bytes: limits.memory_bytes,
            processes: limits.processes,
            file_size_bytes: limits.file_size_bytes,
            open_files: limits.open_files,
            parent: std::process::id() as libc::pid_t,
        }
    }
}

/// Runs in the child between fork and exec: async-signal-safe system calls only.
fn confine(plan: &Confinement) -> io::Result<()> {
    // SAFETY: prctl and getppid have no memory-safety preconditions. Dying with the grader keeps a
    // killed grader (Ctrl-C) from leaving the program running unsupervised.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        // The grader may have died before the line above took effect.
        if libc::getppid() != plan.parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    // SAFETY: close_range has no memory-safety preconditions. Descriptors that some library of the
    // grader opened without O_CLOEXEC must not leak into the program; on kernels before 5.11 the
    // call fails and we carry on (Rust itself opens everything close-on-exec).
    unsafe {
        libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
    }
    let cpu = plan.cpu_seconds;
    lower_limit(libc::RLIMIT_CPU as libc::c_int, cpu, cpu.saturating_add(1))?;
    if let Some(bytes) = plan.memory_bytes {
        lower_limit(libc::RLIMIT_AS as libc::c_int, bytes, bytes)?;
    }
    if let Some(count) = plan.processes {
        lower_limit(libc::RLIMIT_NPROC as libc::c_int, count, count)?;
    }
    let fsize = plan.file_size_bytes;
    lower_limit(libc::RLIMIT_FSIZE as libc::c_int, fsize, fsize)?;
    lower_limit(libc::RLIMIT_NOFILE as libc::c_int, plan.open_files, plan.open_files)?;
    lower_limit(libc::RLIMIT_CORE as libc::c_int, 0, 0)
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

/// A limit in the kernel's type; one too large to represent there is no limit at all.
#[allow(clippy::unnecessary_fallible_conversions)] // rlim_t is 32 bits on some targets
fn to_rlim(value: u64) -> libc::rlim_t {
    libc::rlim_t::try_from(value).unwrap_or(libc::RLIM_INFINITY)
}

/// The program's process group, and whether its leader has been reaped.
///
/// While the leader is an unreaped zombie its pid (the group id) cannot be reused, so a kill sent
/// under the lock while `reaped` is false can never reach an unrelated process.
struct Group {
    pgid: libc::pid_t,
    reaped: Mutex<bool>,
}

impl Group {
    /// Kills every process of the group at once, unless the leader is already reaped (then the
    /// waiter has killed the group itself, just before reaping).
    fn kill(&self) {
        let reaped = lock(&self.reaped);
        if !*reaped {
            kill_group(self.pgid);
        }
    }
}

/// Kills the group when dropped: no early return may leave the program running.
struct KillOnDrop(Arc<Group>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.0.kill();
    }
}

/// Sends SIGKILL to every process of the group `pgid`.
fn kill_group(pgid: libc::pid_t) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid addresses a process group.
    // ESRCH (the group is already empty) is fine.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Locks a mutex, ignoring poisoning: the data (a flag, captured bytes) is valid after any panic.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The end of the program as seen by the waiter.
struct Exit {
    status: libc::c_int,
    rusage: libc::rusage,
    at: Instant,
}

/// Starts the thread that waits for the program to end, kills its group and reaps it.
fn spawn_waiter(group: &Arc<Group>) -> Result<Receiver<io::Result<Exit>>, RunError> {
    let (sender, receiver) = mpsc::channel();
    let waited = Arc::clone(group);
    let spawned = thread::Builder::new().name("run-waiter".into()).spawn(move || {
        // The receiver is gone only when `run` has already returned an error.
        let _ = sender.send(wait_for(&waited));
    });
    match spawned {
        Ok(_) => Ok(receiver),
        Err(error) => {
            // Nobody else will reap the program: kill it and reap it here.
            group.kill();
            let _ = wait_for(group);
            Err(RunError::Thread(error))
        }
    }
}

/// Waits for the group leader to end, kills what is left of its group, then reaps the leader.
fn wait_for(group: &Group) -> io::Result<Exit> {
    // First wait without reaping (WNOWAIT): the zombie keeps the group id reserved while the group
    // is killed below, and the stdout reader or the timeout may kill it concurrently.
    let ended = loop {
        // SAFETY: a zeroed siginfo_t is a valid value; waitid only writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is valid for writes for the duration of the call.
        let rc = unsafe {
            libc::waitid(libc::P_PID, group.pgid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
        };
        if rc == 0 {
            break Ok(Instant::now());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            break Err(error);
        }
    };
    let mut reaped = lock(&group.reaped);
    // Background children must neither survive the run nor hold the output pipes open. (Should
    // waitid have failed, killing is still the safer choice.)
    kill_group(group.pgid);
    let result = ended.and_then(|at| reap(group.pgid, at));
    // Whatever the result, the group id must not be used again.
    *reaped = true;
    result
}

/// Reaps the ended (zombie) process `pid`, with its wait status and resource usage.
fn reap(pid: libc::pid_t, at: Instant) -> io::Result<Exit> {
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage (integers only) is a valid value.
    let mut rusage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `rusage` are valid for writes for the duration of the call.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut rusage) };
        if rc == pid {
            return Ok(Exit { status, rusage, at });
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// After the wall-clock limit: kills the group and collects the waiter's result, within bounds.
fn collect_after_kill(
    group: &Group,
    exits: &Receiver<io::Result<Exit>>,
) -> Result<io::Result<Exit>, RunError> {
    let give_up = Instant::now() + KILL_GRACE;
    loop {
        group.kill();
        let now = Instant::now();
        if now >= give_up {
            return Err(RunError::Unkillable { pid: group.pgid });
        }
        let wait = (give_up - now).min(Duration::from_secs(1));
        match exits.recv_timeout(wait) {
            Ok(exit) => return Ok(exit),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(Err(waiter_vanished())),
        }
    }
}

/// The error for a waiter thread that ended without sending a result (it cannot panic in practice).
fn waiter_vanished() -> io::Error {
    io::Error::other("the waiter thread ended without a result")
}

/// Bytes captured from one pipe so far.
#[derive(Default)]
struct Capture {
    bytes: Vec<u8>,
    /// Set when `run` has taken the bytes: the reader then stops.
    taken: bool,
}

/// A reader thread's shared capture and its completion signal.
struct Reader {
    capture: Arc<Mutex<Capture>>,
    /// Disconnected when the thread has ended; nothing is ever sent.
    done: Receiver<()>,
}

impl Reader {
    /// Waits for the reader to reach end-of-file until `deadline`, then takes what it captured.
    fn finish(self, deadline: Instant) -> Vec<u8> {
        let _ = self.done.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        let mut capture = lock(&self.capture);
        capture.taken = true;
        std::mem::take(&mut capture.bytes)
    }
}

/// Starts a thread that captures the first `cap` bytes of `pipe`. With `overflow`, reading more
/// than `cap` bytes sets the flag, kills the group and stops; without, the excess is discarded.
fn spawn_reader<R: Read + Send + 'static>(
    name: &str,
    pipe: Option<R>,
    cap: usize,
    overflow: Option<(Arc<Group>, Arc<AtomicBool>)>,
) -> Result<Reader, RunError> {
    let capture = Arc::new(Mutex::new(Capture::default()));
    let (done_sender, done) = mpsc::channel::<()>();
    let shared = Arc::clone(&capture);
    thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _done = done_sender;
            if let Some(pipe) = pipe {
                capture_pipe(pipe, cap, &shared, overflow.as_ref());
            }
        })
        .map_err(RunError::Thread)?;
    Ok(Reader { capture, done })
}

/// The body of a reader thread (see [`spawn_reader`]).
fn capture_pipe<R: Read>(
    mut pipe: R,
    cap: usize,
    capture: &Mutex<Capture>,
    overflow: Option<&(Arc<Group>, Arc<AtomicBool>)>,
) {
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let read = match pipe.read(&mut buffer) {
            Ok(0) => return,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let mut capture = lock(capture);
        if capture.taken {
            // `run` stopped waiting; closing our end makes a straggler's writes fail.
            return;
        }
        let room = cap.saturating_sub(capture.bytes.len());
        capture.bytes.extend_from_slice(&buffer[..read.min(room)]);
        if read > room {
            if let Some((group, flag)) = overflow {
                flag.store(true, Ordering::SeqCst);
                drop(capture);
                group.kill();
                return;
            }
        }
    }
}

/// Starts a thread that writes `bytes` to the program's stdin and closes it. A program that exits
/// or closes stdin early makes the write fail (EPIPE), which is fine. The thread is not joined: if
/// a process escaped the group and keeps stdin open without reading, it blocks until that ends.
fn spawn_writer<W: Write + Send + 'static>(pipe: Option<W>, bytes: &[u8]) -> Result<(), RunError> {
    let Some(mut pipe) = pipe else { return Ok(()) };
    if bytes.is_empty() {
        // Dropping the pipe closes it: the program sees end-of-file at once.
        return Ok(());
    }
    let bytes = bytes.to_vec();
    thread::Builder::new()
        .name("run-stdin".into())
        .spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
        .map(drop)
        .map_err(RunError::Thread)
}

/// A `timeval` from rusage as a `Duration` (negative fields, which the kernel never gives, as 0).
fn duration_of(time: libc::timeval) -> Duration {
    let seconds = u64::try_from(time.tv_sec).unwrap_or(0);
    let micros = u64::try_from(time.tv_usec).unwrap_or(0);
    Duration::from_secs(seconds) + Duration::from_micros(micros)
}

/// Removes the working directory, first making every directory in it writable again so that a
/// program that ran `chmod 000` on a folder cannot make the grader leave it behind. Best effort: a
/// failure here must not hide the outcome of the run.
fn remove_workdir(workdir: tempfile::TempDir) {
    let path = workdir.path().to_owned();
    if workdir.close().is_err() {
        make_writable(&path);
        let _ = fs::remove_dir_all(&path);
    }
}

/// Gives the owner full access to `dir` and every directory below it (symlinks are not followed).
fn make_writable(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            make_writable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            wall: Duration::from_secs(10),
            cpu: Duration::from_secs(10),
            memory_bytes: Some(512 * 1024 * 1024),
            output_bytes: 1024 * 1024,
            processes: None,
            file_size_bytes: 1024 * 1024,
            open_files: 64,
        }
    }

    fn argv(script: &str) -> Vec<OsString> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    /// Runs `script` with `/bin/sh -c`; the grader itself must not fail.
    fn run_sh_with(
        script: &str,
        stdin: &[u8],
        env: &BTreeMap<String, String>,
        limits: &Limits,
    ) -> RunOutcome {
        let argv = argv(script);
        let request = RunRequest { argv: &argv, env, stdin, limits };
        run(&request).expect("the grader itself must not fail")
    }

    fn run_sh(script: &str, stdin: &[u8], limits: &Limits) -> RunOutcome {
        run_sh_with(script, stdin, &BTreeMap::new(), limits)
    }

    fn text(bytes: &[u8]) -> &str {
        std::str::from_utf8(bytes).expect("test output is UTF-8")
    }

    /// True while `pid` is a live (not zombie) process running `command`.
    fn is_running(pid: i32, command: &str) -> bool {
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // "pid (comm) state ...": comm may contain spaces, so split at the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            return false;
        };
        let comm = head.split_once('(').map_or("", |(_, comm)| comm);
        let state = tail.trim_start().chars().next();
        comm == command && !matches!(state, Some('Z' | 'X'))
    }

    /// Polls until `pid` is no longer running `command`, for at most `within`.
    fn dies_within(pid: i32, command: &str, within: Duration) -> bool {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if !is_running(pid, command) {
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        !is_running(pid, command)
    }

    #[test]
    fn a_normal_exit_reports_its_code_and_exact_output() {
        let outcome = run_sh("printf 'hello\\nworld\\n'; echo oops >&2; exit 3", b"", &limits());
        assert_eq!(outcome.termination, Termination::Exited(3));
        assert_eq!(outcome.stdout, b"hello\nworld\n");
        assert_eq!(outcome.stderr, b"oops\n");
        assert!(outcome.peak_memory_kb > 0);
        assert!(outcome.wall_time < Duration::from_secs(5));
    }

    #[test]
    fn stdin_is_delivered_and_echoed_back() {
        let input = b"first line\nsecond line\nno newline at the end";
        let outcome = run_sh("cat", input, &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert_eq!(outcome.stdout, input);
    }

    #[test]
    fn a_program_that_never_reads_a_large_stdin_does_not_hang_the_grader() {
        let input = vec![b'x'; 1024 * 1024];
        let started = Instant::now();
        let outcome = run_sh("echo ignored", &input, &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert_eq!(outcome.stdout, b"ignored\n");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_program_that_reads_part_of_stdin_and_exits_is_fine() {
        let input = vec![b'y'; 1024 * 1024];
        let outcome = run_sh("head -c 5", &input, &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert_eq!(outcome.stdout, b"yyyyy");
    }

    #[test]
    fn a_silent_infinite_loop_times_out_on_the_wall_clock() {
        let limits = Limits { wall: Duration::from_secs(1), cpu: Duration::from_secs(30), ..limits() };
        let started = Instant::now();
        let outcome = run_sh("while :; do :; done", b"", &limits);
        let elapsed = started.elapsed();
        assert_eq!(outcome.termination, Termination::TimedOut { cpu: false });
        assert!(outcome.stdout.is_empty());
        assert!(outcome.wall_time >= limits.wall, "{:?}", outcome.wall_time);
        // Generous: the machine may be loaded; the point is that the grader does not wait longer.
        assert!(elapsed < limits.wall + Duration::from_secs(2), "{elapsed:?}");
    }

    #[test]
    fn a_sleeping_program_times_out_quickly_on_the_wall_clock() {
        let limits = Limits { wall: Duration::from_secs(1), ..limits() };
        let started = Instant::now();
        let outcome = run_sh("echo before; sleep 100", b"", &limits);
        assert_eq!(outcome.termination, Termination::TimedOut { cpu: false });
        // Output written before the timeout is kept, for prefix comparison.
        assert_eq!(outcome.stdout, b"before\n");
        assert!(started.elapsed() < Duration::from_secs(4));
        assert!(outcome.cpu_time < Duration::from_secs(1));
    }

    #[test]
    fn a_cpu_hog_is_stopped_by_the_cpu_limit() {
        // A wide wall limit: on a loaded machine one second of CPU can take many seconds of wall.
        let limits = Limits { wall: Duration::from_secs(30), cpu: Duration::from_secs(1), ..limits() };
        let outcome = run_sh("while :; do :; done", b"", &limits);
        assert_eq!(outcome.termination, Termination::TimedOut { cpu: true });
        // On a virtual machine under load the kernel's CPU-limit clock can run up to about half a
        // second ahead of the rusage it reports afterwards: only check that the time is plausible.
        assert!(outcome.cpu_time >= limits.cpu / 2, "{:?}", outcome.cpu_time);
        assert!(outcome.wall_time < limits.wall);
    }

    #[test]
    fn a_cpu_hog_that_ignores_sigxcpu_is_killed_at_the_hard_limit() {
        let limits = Limits { wall: Duration::from_secs(30), cpu: Duration::from_secs(1), ..limits() };
        let outcome = run_sh("trap '' XCPU; while :; do :; done", b"", &limits);
        assert_eq!(outcome.termination, Termination::TimedOut { cpu: true });
        assert!(outcome.cpu_time >= limits.cpu, "{:?}", outcome.cpu_time);
    }

    #[test]
    fn an_output_flood_hits_the_output_limit_quickly() {
        let limits = Limits { output_bytes: 64 * 1024, ..limits() };
        let started = Instant::now();
        let outcome = run_sh("yes", b"", &limits);
        assert_eq!(outcome.termination, Termination::OutputLimit);
        assert_eq!(outcome.stdout.len(), limits.output_bytes);
        assert!(outcome.stdout.chunks(2).all(|pair| pair == b"y\n"));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn stderr_beyond_the_cap_is_truncated_but_not_a_failure() {
        let limits = Limits { output_bytes: 1000, ..limits() };
        let outcome = run_sh("head -c 200000 /dev/zero | tr '\\0' e >&2; echo done", b"", &limits);
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert_eq!(outcome.stdout, b"done\n");
        assert_eq!(outcome.stderr, vec![b'e'; 1000]);
    }

    #[test]
    fn crashes_are_reported_with_the_signal_number_and_name() {
        for (signal, name) in [(11, "SIGSEGV"), (6, "SIGABRT"), (8, "SIGFPE")] {
            let short = name.trim_start_matches("SIG");
            let outcome = run_sh(&format!("kill -{short} $$"), b"", &limits());
            assert_eq!(outcome.termination, Termination::Signaled { signal, name: name.to_owned() });
        }
    }

    #[test]
    fn a_background_child_is_killed_and_does_not_hang_the_run() {
        let started = Instant::now();
        let outcome = run_sh("sleep 100 & echo $!; exit 0", b"", &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid: i32 = text(&outcome.stdout).trim().parse().expect("the script prints a pid");
        assert!(dies_within(pid, "sleep", Duration::from_secs(3)), "sleep {pid} survived the run");
        // SAFETY: kill with signal 0 only checks for existence. A zombie (not reaped by the
        // container's init) still exists; /proc tells us it is dead, so accept ESRCH or a zombie.
        let exists = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!exists || !is_running(pid, "sleep"));
    }

    #[test]
    fn a_grandchild_that_escaped_the_group_does_not_hang_the_run() {
        // setsid puts the sleep in a session of its own, out of reach of the group kill, still
        // holding stdout open. The outer shell waits until the escapee has written its pid.
        let script = "setsid sh -c 'echo $$ > escapee; exec sleep 30' & \
                      while [ ! -s escapee ]; do sleep 0.05; done; cat escapee";
        let started = Instant::now();
        let outcome = run_sh(script, b"", &limits());
        let elapsed = started.elapsed();
        let pid: Option<i32> = text(&outcome.stdout).trim().parse().ok();
        if let Some(pid) = pid {
            // SAFETY: kill has no memory-safety preconditions; clean up the escapee ourselves.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert!(pid.is_some(), "stdout: {:?}", outcome.stdout);
        assert!(elapsed < READER_GRACE + Duration::from_secs(4), "{elapsed:?}");
    }

    #[test]
    fn non_utf8_output_is_kept_as_bytes() {
        let outcome = run_sh("printf '\\377\\376\\000abc\\n'", b"", &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        assert_eq!(outcome.stdout, b"\xff\xfe\x00abc\n");
    }

    #[test]
    fn the_environment_holds_only_the_requested_variables_and_the_defaults() {
        let env = BTreeMap::from([("GRADER_SEED".to_owned(), "42".to_owned())]);
        let outcome = run_sh_with("env | sort", b"", &env, &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        let lines: Vec<&str> = text(&outcome.stdout).lines().collect();
        let home = lines.iter().find_map(|line| line.strip_prefix("HOME=")).expect("HOME is set");
        // dash exports PWD itself; everything else comes from the grader.
        let expected = [
            "GRADER_SEED=42".to_owned(),
            format!("HOME={home}"),
            "LANG=C".to_owned(),
            format!("PATH={DEFAULT_PATH}"),
            format!("PWD={home}"),
        ];
        assert_eq!(lines, expected);

        let env = BTreeMap::from([
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("PATH".to_owned(), "/bin".to_owned()),
        ]);
        let outcome = run_sh_with("echo \"$LANG $PATH\"", b"", &env, &limits());
        assert_eq!(outcome.stdout, b"C.UTF-8 /bin\n");
    }

    #[test]
    fn the_working_directory_is_a_fresh_temp_dir_that_is_gone_afterwards() {
        // The script also makes a folder it cannot write to, which must not defeat the clean-up.
        let script = "pwd; ls -A | wc -l; echo data > made-here; mkdir -p locked/in; chmod 000 locked";
        let first = run_sh(script, b"", &limits());
        let second = run_sh(script, b"", &limits());
        let mut dirs = Vec::new();
        for outcome in [&first, &second] {
            assert_eq!(outcome.termination, Termination::Exited(0));
            let mut lines = text(&outcome.stdout).lines();
            let dir = PathBuf::from(lines.next().expect("pwd"));
            assert_eq!(lines.next().map(str::trim), Some("0"), "the directory starts empty");
            assert!(dir.starts_with(std::env::temp_dir()), "{}", dir.display());
            assert!(!dir.exists(), "{} was left behind", dir.display());
            dirs.push(dir);
        }
        assert_ne!(dirs[0], dirs[1]);
    }

    #[test]
    fn writing_past_the_file_size_limit_fails_without_harming_the_grader() {
        let limits = Limits { file_size_bytes: 4096, ..limits() };
        let script = "head -c 100000 /dev/zero > big; echo \"status $?\"; wc -c < big";
        let outcome = run_sh(script, b"", &limits);
        assert_eq!(outcome.termination, Termination::Exited(0));
        // head dies of SIGXFSZ (25): the shell reports 128 + 25; the file stops at the limit.
        assert_eq!(text(&outcome.stdout), "status 153\n4096\n");
    }

    #[test]
    fn the_rlimits_are_applied_to_the_program() {
        let limits = Limits {
            cpu: Duration::from_millis(1500),
            memory_bytes: Some(300 * 1024 * 1024),
            processes: Some(1000),
            file_size_bytes: 123_456,
            open_files: 32,
            ..limits()
        };
        let outcome = run_sh("cat /proc/self/limits", b"", &limits);
        assert_eq!(outcome.termination, Termination::Exited(0));
        let table = text(&outcome.stdout);
        let row = |name: &str| -> Vec<String> {
            let line = table
                .lines()
                .find(|line| line.starts_with(name))
                .unwrap_or_else(|| panic!("no {name} in {table}"));
            line[name.len()..].split_whitespace().take(2).map(str::to_owned).collect()
        };
        assert_eq!(row("Max cpu time"), ["2", "3"]);
        assert_eq!(row("Max address space"), ["314572800", "314572800"]);
        assert_eq!(row("Max processes"), ["1000", "1000"]);
        assert_eq!(row("Max file size"), ["123456", "123456"]);
        assert_eq!(row("Max open files"), ["32", "32"]);
        assert_eq!(row("Max core file size"), ["0", "0"]);
    }

    #[test]
    fn requests_the_grader_cannot_serve_are_errors() {
        let env = BTreeMap::new();
        let limits = limits();
        let request = |argv| RunRequest { argv, env: &env, stdin: b"", limits: &limits };
        assert!(matches!(run(&request(&[])), Err(RunError::EmptyArgv)));
        let relative = [OsString::from("bin/sh")];
        assert!(matches!(run(&request(&relative)), Err(RunError::RelativeProgram(_))));
        let missing = [OsString::from("/nonexistent/program")];
        assert!(matches!(run(&request(&missing)), Err(RunError::Spawn { .. })));
    }

    #[test]
    fn signal_names_follow_the_usual_spelling() {
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
        assert_eq!(signal_name(libc::SIGXCPU), "SIGXCPU");
        assert_eq!(signal_name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
        assert_eq!(
            Termination::Signaled { signal: 11, name: "SIGSEGV".into() }.to_string(),
            "killed by SIGSEGV (signal 11)"
        );
    }
}
