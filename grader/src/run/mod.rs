//! The run stage: run an untrusted program confined and under limits, and report precisely what happened.
//!
//! [`spawn`] starts a program in a [`Containment`] (a namespace sandbox with a private root where the
//! machine allows it) and hands back a [`Running`] program; [`run`] feeds it its stdin, captures its
//! output within byte limits, enforces the wall-clock limit and says how it ended, all from one thread
//! polling the pipes and a `pidfd`; [`Interactive`] gives a referee line-by-line access instead.
//! Whatever the program does (loop, flood, crash, fork, leave children behind) ends as a
//! [`RunOutcome`]; a [`RunError`] means the grader itself could not work.
//!
//! Linux only.

mod cancel;
mod cgroup;
mod exec;
pub(crate) mod gate;
mod group;
mod interactive;
mod limits;
mod netns;
mod pair;
mod pipes;
mod pool;
mod procs;
mod sandbox;
mod seal;
mod slots;
mod spawn;
mod users;
mod workdir;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(crate) use cancel::current as cancel_of_this_thread;
pub use cancel::{cancelled, cancelled_by, CancelRuns};
pub use cgroup::Hierarchy;
pub use interactive::{Interactive, LineRead};
pub(crate) use limits::Rlimits;
pub use limits::{hard_process_limit, Limit, Limits};
pub use pair::{run_pair, PairOutcome};
pub use pipes::Capture;
pub use sandbox::{
    await_reaped, below_writable_places, keep_from_programs, locate_program, namespace_problem,
    nobody_can_enter, open_for_passage, prepare_for_program, sandbox_reuse, seal_for_programs,
    set_sandbox_reuse, toolchain_folder, Containment, KeptSandboxes, Located, Mount, INSIDE_WORKDIR,
};
pub(crate) use seal::seal_this_thread;
pub use slots::{cores, cpu_slot_count, cpu_slot_free, keeping_slot, set_slot_count, Slot};
pub use spawn::{spawn, spawn_admitted, Ended, Running, SpawnRequest, DEFAULT_PATH, KILL_GRACE};
pub use users::{leased_by_this_process, RUN_UIDS};
pub use workdir::KeptFolders;

use pipes::{drain, feed, set_nonblocking, set_pipe_size, Drained};

/// How long the output pipes may stay open once the program has ended (a grandchild that left the
/// process group holds them): then we stop reading. A sandbox never needs it.
const READER_GRACE: Duration = Duration::from_secs(2);

/// Bytes kept from the end of stderr when it is longer than the limit.
const STDERR_TAIL: usize = 16 * 1024;

/// How long a run first waits for its program's end alone, without reading its output (see `run`).
const QUIET_START: Duration = Duration::from_millis(50);

/// What the output pipes are asked to hold (the kernel's default is 64 KiB), so that the output of
/// most programs fits there until they end.
const OUTPUT_PIPE_BYTES: usize = 256 * 1024;

/// What to run, with what, under which limits.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'a> {
    /// The program and its arguments; `argv[0]` must be an absolute path.
    pub argv: &'a [OsString],
    /// The program's environment (see [`SpawnRequest::env`]).
    pub env: &'a BTreeMap<String, String>,
    /// Bytes fed to the program's stdin, which is then closed.
    pub stdin: &'a [u8],
    /// Limits of this run.
    pub limits: &'a Limits,
    /// Host paths the program may see inside a sandbox.
    pub mounts: &'a [Mount],
    /// How to contain the program.
    pub containment: Containment,
    /// The sandboxes kept for the runs of this submission, when the run may use one of them instead
    /// of a sandbox of its own (see [`KeptSandboxes`]); a compiler's run never does.
    pub keep: Option<&'a KeptSandboxes>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
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
    /// The program was stopped at a limit.
    Killed {
        /// Which limit.
        limit: Limit,
    },
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Exited(code) => write!(f, "exited with code {code}"),
            Termination::Signaled { signal, name } => write!(f, "killed by {name} (signal {signal})"),
            Termination::Killed { limit } => write!(f, "stopped at the {limit} limit"),
        }
    }
}

/// Everything observed about one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// How the run ended.
    pub termination: Termination,
    /// The captured stdout: at most the output limit, exactly as written.
    pub stdout: Vec<u8>,
    /// The captured stderr: its head and tail within the output limit, with a line saying how much
    /// was left out between them.
    pub stderr: Vec<u8>,
    /// Wall-clock time from spawning the program to its end.
    pub wall_time: Duration,
    /// CPU time (user + system) of the program and the children it waited for.
    pub cpu_time: Duration,
    /// Peak resident set size of the program (or of its largest waited-for child), in KiB.
    pub peak_memory_kb: u64,
    /// A process of the run was killed for memory (a compiler's child, say), whatever the end.
    pub memory_exhausted: bool,
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
    /// The program could not be started (missing, not executable, or the sandbox failed).
    #[error("cannot start {program}")]
    Spawn {
        /// The program that was to run.
        program: PathBuf,
        /// Why it could not start.
        #[source]
        source: io::Error,
    },
    /// The sandbox's setup failed after the program's process was created.
    #[error("the sandbox failed")]
    Sandbox {
        /// What failed.
        #[source]
        source: io::Error,
    },
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

/// An error and its causes on one line (`a: b: c`).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A capture of stderr within the output limit: its head, and a tail of up to [`STDERR_TAIL`] bytes.
fn stderr_capture(limits: &Limits) -> Capture {
    let tail = STDERR_TAIL.min(limits.output_bytes / 4);
    Capture::new(limits.output_bytes - tail, tail)
}

/// Runs one program under `request.limits` and reports how it ended and what it wrote.
///
/// Blocks until the program has ended (or been killed) and no process of it is left; never longer
/// than about `limits.wall` plus a few seconds. Student failures (crashes, timeouts, floods, non-zero
/// exits) are `Ok`.
///
/// # Errors
///
/// Only failures of the grader itself (see [`RunError`]).
pub fn run(request: &RunRequest) -> Result<RunOutcome, RunError> {
    let limits = request.limits;
    if cancelled() {
        // Its grading is being discarded: not started (see `cancel`).
        return Ok(RunOutcome {
            termination: Termination::Killed { limit: Limit::Wall },
            stdout: Vec::new(),
            stderr: Vec::new(),
            wall_time: Duration::ZERO,
            cpu_time: Duration::ZERO,
            peak_memory_kb: 0,
            memory_exhausted: false,
        });
    }
    let spawn_request = SpawnRequest {
        argv: request.argv,
        env: request.env,
        limits,
        mounts: request.mounts,
        containment: request.containment,
    };
    // A core to run on, taken once the sandbox is built (sandboxes being built are bounded too);
    // an idle program gives it back (see `slots`). A run in a sandbox kept for its submission takes
    // its core first and gives it back once the sandbox is back with its keeper: so the runs that
    // wait for a core hold no sandbox, and the one given back serves the next run. Taken the other
    // way round, every run waiting held one, and a submission had eight built for 54 runs. (Where no
    // kept sandbox can be built, the run's own is then built under its core.)
    let kept = spawn::would_keep(&spawn_request, request.keep);
    // A run without a sandbox to build (`rlimits-only`) takes its core first too.
    let builds_sandbox = !kept && request.containment != Containment::RlimitsOnly;
    let mut setup = builds_sandbox.then(slots::Slot::acquire_setup);
    let mut slot = (!builds_sandbox).then(slots::Slot::acquire);
    let mut running = spawn::spawn_kept_or_admitted(&spawn_request, request.keep, &mut || {
        if slot.is_none() {
            slot = Some(slots::Slot::acquire());
        }
        if let Some(setup) = setup.as_mut() {
            setup.release();
        }
    })?;
    drop(setup);
    let mut slot = slot.unwrap_or_else(slots::Slot::acquire);
    let mut idle = slots::IdleWatch::new(running.pid(), running.is_sandboxed(), running.reaped_before());
    let mut cpu = procs::CpuWatch::new(
        running.pid(),
        running.is_sandboxed(),
        running.reaped_before(),
        limits.cpu,
        running.started(),
    );
    let mut stdin = running.stdin.take();
    let mut stdout = running.stdout.take();
    let mut stderr = running.stderr.take();
    for pipe in [&stdin, &stdout, &stderr].into_iter().flatten() {
        set_nonblocking(pipe).map_err(|source| RunError::Wait { pid: 0, source })?;
    }
    for pipe in [&stdout, &stderr].into_iter().flatten() {
        set_pipe_size(pipe, OUTPUT_PIPE_BYTES);
    }
    let mut written = 0;
    if let Some(pipe) = stdin.as_mut() {
        if request.stdin.len() > pipes::DEFAULT_PIPE_BYTES {
            set_pipe_size(pipe, request.stdin.len());
        }
        // Closing once all is written (at once when there is nothing): the program sees end-of-file.
        if feed(pipe, request.stdin, &mut written) {
            stdin = None;
        }
    }
    let mut out = Capture::new(limits.output_bytes, 0);
    let mut err = stderr_capture(limits);
    let mut buffer = pipes::ReadBuffer::take();
    let mut deadline = running.started().checked_add(limits.wall);
    // At first the run waits for the program's end (and feeds its input) without reading its output,
    // which the enlarged pipes hold: a short program then costs one wake-up, not one per write it
    // makes (most print line by line). A program that fills a pipe sooner waits for the rest of
    // this window; after it, every pipe is read as it fills.
    let quiet_until = running.started() + QUIET_START;
    // The limit the grader stopped the run at: its wall time, or its CPU time all processes together.
    let mut stopped_at: Option<Limit> = None;
    let mut overflowed = false;
    let mut ended_at: Option<Instant> = None;

    loop {
        let now = Instant::now();
        if ended_at.is_none() && running.has_ended() {
            ended_at = Some(now);
            // A group's leader is gone: kill the rest so the pipes close.
            running.kill();
        }
        if let Some(at) = ended_at {
            if (stdout.is_none() && stderr.is_none()) || now >= at + READER_GRACE {
                break;
            }
        } else if stopped_at.is_none() && cpu.exceeded(now) {
            stopped_at = Some(Limit::Cpu);
            running.kill();
        } else if stopped_at.is_none() && cancelled() {
            // Its grading is being discarded (see `cancel`).
            stopped_at = Some(Limit::Wall);
            running.kill();
        } else if stopped_at != Some(Limit::Cpu) && deadline.is_some_and(|d| now >= d) {
            // The time the run's threads were ready but waited for a CPU (a machine busy with
            // other work) is not the program's: its limit moves by as much, up to ten times over.
            let waited = procs::RunQueueWaits::read(running.pid(), running.is_sandboxed())
                .starved_since(&procs::RunQueueWaits::none_but(running.started(), running.reaped_before()));
            let most = limits.wall * procs::MOST_EXTENSION;
            let extended = running.started().checked_add(limits.wall + waited.min(most));
            if extended.is_some_and(|e| e > now) {
                deadline = extended;
                continue;
            }
            stopped_at = Some(Limit::Wall);
            running.kill();
            ended_at = Some(now);
            continue;
        }
        let quiet = ended_at.is_none() && now < quiet_until;
        let outputs = if quiet { [None, None] } else { [stdout.as_ref(), stderr.as_ref()] };
        let mut fds = Vec::with_capacity(4);
        fds.push(libc::pollfd { fd: running.pidfd(), events: libc::POLLIN, revents: 0 });
        // While the run holds a slot, a sandbox's report of the program's end wakes it: the slot
        // goes back then, not once the kernel has torn the sandbox down (which waits for RCU grace
        // periods more than it computes).
        // A kept sandbox's run keeps its slot until the sandbox is back (see above).
        let end_report =
            running.end_report_fd().filter(|_| !kept && slot.is_held() && ended_at.is_none()).map(|fd| {
                fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
                fds.len() - 1
            });
        let [out_pipe, err_pipe] = outputs;
        for (pipe, events) in
            [(out_pipe, libc::POLLIN), (err_pipe, libc::POLLIN), (stdin.as_ref(), libc::POLLOUT)]
        {
            if let Some(file) = pipe {
                fds.push(libc::pollfd { fd: std::os::fd::AsRawFd::as_raw_fd(file), events, revents: 0 });
            }
        }
        let wait = match ended_at {
            Some(at) => (at + READER_GRACE).saturating_duration_since(now),
            None => deadline.map_or(Duration::from_secs(1), |d| d.saturating_duration_since(now)),
        };
        let wait = if quiet { wait.min(quiet_until - now) } else { wait };
        // While it holds a slot, the run is checked for idleness every tenth of a second.
        let most = if slot.is_held() { 100 } else { 1000 };
        let millis = wait.as_millis().clamp(1, most) as libc::c_int;
        // SAFETY: `fds` is a valid array of pollfd for the duration of the call.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if end_report.is_some_and(|at| fds[at].revents != 0) {
            slot.release();
        }

        if let Some(pipe) = stdin.as_mut() {
            if feed(pipe, request.stdin, &mut written) {
                stdin = None;
            }
        }
        if quiet {
            continue;
        }
        if let Some(pipe) = stdout.as_mut() {
            if let Drained::Closed = drain(pipe, &mut out, &mut buffer) {
                stdout = None;
            }
            if out.overflowed() && !overflowed {
                overflowed = true;
                running.kill();
            }
        }
        if let Some(pipe) = stderr.as_mut() {
            if let Drained::Closed = drain(pipe, &mut err, &mut buffer) {
                stderr = None;
            }
        }
        if slot.is_held() && ended_at.is_none() && idle.is_idle() {
            slot.release_idle();
        }
    }
    // A sandbox built for this run alone is torn down in `wait`, mostly waiting for the kernel: its
    // core goes back first. Any other run's is kept through the comparison (see `slots`).
    if !kept && running.is_sandboxed() {
        slot.release();
    }
    drop(stdin);
    let ended = running.wait()?;
    drop(slot);
    let termination = termination_of(&running, &ended, stopped_at, overflowed);
    Ok(RunOutcome {
        termination,
        stdout: out.into_head(),
        stderr: err.into_bytes(),
        wall_time: ended.at.saturating_duration_since(running.started()),
        cpu_time: ended.cpu_time.max(cpu.last_reading()),
        peak_memory_kb: ended.peak_memory_kb,
        memory_exhausted: running.hit_memory_limit(),
    })
}

/// How the run ended, telling limit kills from crashes.
/// `stopped_at`: the time limit the grader killed the run at, if it did (the wall's, or the CPU's of
/// all its processes together).
fn termination_of(
    running: &Running,
    ended: &Ended,
    stopped_at: Option<Limit>,
    overflowed: bool,
) -> Termination {
    let killed = |limit| Termination::Killed { limit };
    // Decided in this order: the output limit is the grader's own kill; the others are seen after.
    if overflowed {
        return killed(Limit::Output);
    }
    // A process of the run killed for memory is the run's verdict, whatever its program did next
    // (timed out waiting for the child, exited with an error): the cause, not a symptom.
    if running.hit_memory_limit() {
        return killed(Limit::Memory);
    }
    let kill_at_process_limit = running.hit_process_limit();
    if let Some(limit) = stopped_at {
        return killed(if kill_at_process_limit { Limit::Processes } else { limit });
    }
    let Some(status) = ended.status else {
        // The sandbox ended without the program's status: only a kill of ours does that.
        return killed(Limit::Wall);
    };
    if libc::WIFEXITED(status) {
        return Termination::Exited(libc::WEXITSTATUS(status));
    }
    let signal = libc::WTERMSIG(status);
    // SIGXCPU comes at the soft CPU limit; a program that catches or ignores it gets SIGKILL at the
    // hard one, a second later. That second also covers rusage lagging behind the kernel's limit
    // clock (observed up to half a second on a loaded virtual machine).
    if signal == libc::SIGXCPU || (signal == libc::SIGKILL && ended.cpu_time >= running.cpu_limit()) {
        return killed(if kill_at_process_limit { Limit::Processes } else { Limit::Cpu });
    }
    if signal == libc::SIGXFSZ {
        return killed(Limit::Disk);
    }
    Termination::Signaled { signal, name: signal_name(signal) }
}

/// The conventional name of a Linux signal (`SIGSEGV`), `SIGRTMIN+n` for real-time ones.
pub fn signal_name(signal: i32) -> String {
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

#[cfg(test)]
mod kept_tests;
#[cfg(test)]
mod tests;
