//! Sandboxes kept for the runs of one student's submission and reset between them: the grader's side
//! (PID 1's is `serve`).
//!
//! A fresh sandbox per run costs the kernel several times what the run's program does (a copy of
//! the host's mounts, six namespaces made and torn down). A kept sandbox is built once per build of
//! a submission and serves its runs one at a time; PID 1 resets it after each (see `serve`), and the
//! grader hands it the next run only once PID 1 has said the reset is complete. A sandbox whose run
//! the grader had to stop (a time or output limit), whose reset failed or did not end within
//! [`KILL_GRACE`], or that saw any error is killed, never reused. Sandboxes are never shared between
//! two submissions: [`KeptSandboxes`] belongs to one grading and ends its sandboxes with it.

use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use super::*;
use crate::run::KILL_GRACE;

/// Whether gradings keep sandboxes for their runs (see [`set_sandbox_reuse`]).
static REUSE: AtomicBool = AtomicBool::new(true);

/// Makes gradings keep a sandbox per build of a submission and reset it between runs (`true`, the
/// default), or build a fresh one for every run (`false`, `--fresh-sandboxes`).
pub fn set_sandbox_reuse(reuse: bool) {
    REUSE.store(reuse, Ordering::Relaxed);
}

/// Whether gradings keep sandboxes for their runs.
pub fn sandbox_reuse() -> bool {
    REUSE.load(Ordering::Relaxed)
}

/// The sandboxes kept for the runs of one submission: made for one grading, never given to another;
/// those not in use end when it is dropped.
#[derive(Default)]
pub struct KeptSandboxes {
    pub(in crate::run) keeper: Arc<Keeper>,
}

impl std::fmt::Debug for KeptSandboxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptSandboxes").field("built", &self.built()).finish_non_exhaustive()
    }
}

impl KeptSandboxes {
    /// None yet.
    pub fn new() -> KeptSandboxes {
        KeptSandboxes::default()
    }

    /// None yet, and the sandboxes it builds are lent no inotify watch, as when all are lent out: each
    /// reset replaces the scratch tmpfs.
    #[cfg(test)]
    pub(in crate::run) fn without_watches() -> KeptSandboxes {
        KeptSandboxes { keeper: Arc::new(Keeper { without_watches: true, ..Keeper::default() }) }
    }

    /// How many sandboxes were built for this submission's runs (each serves many, one at a time).
    pub fn built(&self) -> usize {
        self.keeper.built.load(Ordering::Relaxed)
    }

    /// Of the resets that readied a sandbox for another run, how many replaced its writable places'
    /// tmpfs (the others found it untouched by the run before; see `serve`), and how many there were.
    pub fn scratches_replaced(&self) -> (usize, usize) {
        (self.keeper.replaced.load(Ordering::Relaxed), self.keeper.resets.load(Ordering::Relaxed))
    }
}

/// The idle sandboxes of one submission, ready or being reset.
#[derive(Default)]
pub(in crate::run) struct Keeper {
    idle: Mutex<Vec<KeptSandbox>>,
    built: AtomicUsize,
    /// Resets seen complete, and those of them that replaced the scratch tmpfs.
    resets: AtomicUsize,
    replaced: AtomicUsize,
    /// Its sandboxes are lent no watch, as when the [`WATCHES`] are spent (tests).
    without_watches: bool,
    /// The network namespace its sandboxes are born in, made with the first (see `netns`); none:
    /// each makes its own.
    network: OnceLock<Option<Arc<SubmissionNetwork>>>,
}

impl Keeper {
    /// A sandbox ready for a run with `key`: an idle one whose reset completes in time, else a new
    /// one.
    pub(in crate::run) fn ready_sandbox(&self, key: &Key) -> io::Result<KeptSandbox> {
        loop {
            let idle = {
                let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
                let at = idle.iter().position(|sandbox| sandbox.key == *key);
                at.map(|at| idle.swap_remove(at))
            };
            let Some(mut sandbox) = idle else { break };
            // A reset that fails or hangs: that sandbox ends (dropped), another is tried.
            if sandbox.await_ready(Some(KILL_GRACE)).is_ok() {
                self.resets.fetch_add(1, Ordering::Relaxed);
                self.replaced.fetch_add(usize::from(sandbox.scratch_replaced), Ordering::Relaxed);
                return Ok(sandbox);
            }
        }
        let watch = if self.without_watches { None } else { WatchLoan::take() };
        let network = self.network.get_or_init(|| SubmissionNetwork::new().map(Arc::new)).clone();
        let mut sandbox = KeptSandbox::start_by_maker(key.clone(), watch, network)?;
        self.built.fetch_add(1, Ordering::Relaxed);
        sandbox.await_ready(None)?;
        Ok(sandbox)
    }

    /// Keeps `sandbox`, whose run ended normally, for a later run; PID 1 is resetting it.
    pub(in crate::run) fn put_back(&self, sandbox: KeptSandbox) {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).push(sandbox);
    }
}

/// Whether a folder shown to runs at `path` lies below a kept sandbox's writable places (`/work`,
/// `/tmp`, `/dev/shm`), which a reset's new tmpfs would cover: such runs each get a sandbox of their
/// own (a build cache there makes every run pay for a fresh sandbox; `grader doctor` says so).
pub fn below_writable_places(path: &Path) -> bool {
    SCRATCH_PLACES.iter().any(|(_, at, _)| path.starts_with(std::ffi::OsStr::from_bytes(at.to_bytes())))
}

/// What a kept sandbox was built for: runs with other mounts or limits get another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::run) struct Key {
    mounts: Vec<Mount>,
    disk_bytes: u64,
    memory_bytes: u64,
    with_cgroup: bool,
}

impl Key {
    /// The key of a run; `None` for a run that must have a sandbox of its own: a compiler (its
    /// writable build folder is not reset), or a run shown a folder below a writable place (a
    /// build cache in `/tmp`), which the new tmpfs of a reset would cover.
    pub(in crate::run) fn of(limits: &Limits, mounts: &[Mount], with_cgroup: bool) -> Option<Key> {
        if mounts.iter().any(|mount| mount.writable || below_writable_places(&mount.path)) {
            return None;
        }
        let (disk_bytes, memory_bytes) = (limits.disk_bytes, limits.memory_bytes);
        Some(Key { mounts: mounts.to_vec(), disk_bytes, memory_bytes, with_cgroup })
    }

    /// Whether its runs have a cgroup each.
    pub(in crate::run) fn with_cgroup(&self) -> bool {
        self.with_cgroup
    }
}

/// A sandbox kept for runs: PID 1, its control socket, and what PID 1 reads while it lives.
pub(in crate::run) struct KeptSandbox {
    key: Key,
    pid: libc::pid_t,
    control: OwnedFd,
    /// CPU time of every process PID 1 reaped before the coming run, once it said it is ready.
    reaped: Option<Duration>,
    /// Whether its last reset replaced the scratch tmpfs, once it said it is ready.
    scratch_replaced: bool,
    /// One of the [`WATCHES`], where its PID 1 watches its scratch tmpfs (given back once PID 1 is
    /// reaped: see [`Reaper`]).
    watch: Option<WatchLoan>,
    launch: Option<LaunchOwner>,
}

// SAFETY: the launch is reached by PID 1 through its own pointer and by no thread of the grader;
// the sandbox moves between the grader's threads as a whole, used by one at a time.
unsafe impl Send for KeptSandbox {}

/// A request to the thread that builds kept sandboxes, and where its answer goes.
type BuildRequest =
    (Key, Option<WatchLoan>, Option<Arc<SubmissionNetwork>>, mpsc::Sender<io::Result<KeptSandbox>>);

impl KeptSandbox {
    /// Builds a sandbox on the one thread that builds them all, which lives as long as the grader:
    /// PID 1 dies with the thread that cloned it (`PR_SET_PDEATHSIG`), and a grading's threads end
    /// before the sandboxes they made are done with.
    fn start_by_maker(
        key: Key,
        watch: Option<WatchLoan>,
        network: Option<Arc<SubmissionNetwork>>,
    ) -> io::Result<KeptSandbox> {
        static MAKER: OnceLock<io::Result<mpsc::Sender<BuildRequest>>> = OnceLock::new();
        let maker = MAKER.get_or_init(|| {
            let (requests, incoming) = mpsc::channel::<BuildRequest>();
            std::thread::Builder::new().name("sandbox-maker".into()).spawn(move || {
                for (key, watch, network, answer) in incoming {
                    let _ = answer.send(KeptSandbox::start(key, watch, network.as_deref()));
                }
            })?;
            Ok(requests)
        });
        let maker = maker.as_ref().map_err(|error| io::Error::new(error.kind(), error.to_string()))?;
        let (answer, answered) = mpsc::channel();
        let gone = || io::Error::other("sandbox: the thread that builds kept sandboxes is gone");
        maker.send((key, watch, network, answer)).map_err(|_| gone())?;
        answered.recv().map_err(|_| gone())?
    }

    /// Builds a sandbox for runs with `key` (it says when it is ready; see [`Self::await_ready`]),
    /// whose PID 1 watches its scratch tmpfs if it is lent a `watch`, in `network` if one is given.
    fn start(
        key: Key,
        watch: Option<WatchLoan>,
        network: Option<&SubmissionNetwork>,
    ) -> io::Result<KeptSandbox> {
        let limits =
            Limits { disk_bytes: key.disk_bytes, memory_bytes: key.memory_bytes, ..Limits::default() };
        let mut plan = Plan::new(&limits, &key.mounts, key.with_cgroup, true)?;
        if let Some(scratch) = plan.kept.as_mut() {
            scratch.watch = watch.is_some();
        }
        let (control, theirs) = socket_pair()?;
        let null = File::options().read(true).write(true).open("/dev/null")?;
        let (n, c) = (null.as_raw_fd(), theirs.as_raw_fd());
        // 0-2 /dev/null until a run's stdio, 3 and 4 the control socket (3 becomes a run's status
        // pipe while it runs).
        let (pid, launch) = clone_init(plan, vec![n, n, n, c, c], None, network)?;
        drop((null, theirs));
        let sandbox = KeptSandbox {
            key,
            pid,
            control,
            reaped: None,
            scratch_replaced: false,
            watch,
            launch: Some(launch),
        };
        write_id_maps(pid).and_then(|()| send(&sandbox.control, b"go", &[]))?;
        Ok(sandbox)
    }

    /// Host pid of PID 1.
    pub(in crate::run) fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// The CPU time of what PID 1 reaped before the current run (zero before it says it is ready).
    pub(in crate::run) fn reaped_before(&self) -> Duration {
        self.reaped.unwrap_or_default()
    }

    /// Waits (at most `within`) until PID 1 says the sandbox is built or reset.
    fn await_ready(&mut self, within: Option<Duration>) -> io::Result<()> {
        if self.reaped.is_some() {
            return Ok(());
        }
        let millis = within.map_or(-1, |d| d.as_millis().min(i32::MAX as u128) as libc::c_int);
        let mut poll = libc::pollfd { fd: self.control.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        loop {
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            if ready > 0 {
                break;
            }
            if ready == 0 {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "sandbox: its reset did not end"));
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        let mut record = [0u8; 16];
        // SAFETY: `record` is valid for writes of its length.
        let n = unsafe { libc::recv(self.control.as_raw_fd(), record.as_mut_ptr().cast(), record.len(), 0) };
        let n = usize::try_from(n).map_err(|_| io::Error::last_os_error())?;
        match &record[..n] {
            [] => Err(io::Error::other("sandbox: PID 1 ended while it built the root")),
            [RECORD_READY, micros @ .., replaced] if n == READY_RECORD_LEN => {
                let micros = u64::from_le_bytes(micros.try_into().unwrap_or_default());
                self.reaped = Some(Duration::from_micros(micros));
                self.scratch_replaced = *replaced != 0;
                Ok(())
            }
            bytes => {
                parse_records(bytes)?;
                Err(io::Error::other("sandbox: garbled status record"))
            }
        }
    }

    /// Hands PID 1 a run: `program` (which must stay in place until the run's end is reported or
    /// PID 1 is reaped) and its descriptors, in the order PID 1 puts them (see `serve`).
    pub(in crate::run) fn order(&mut self, program: &ProgramStart, fds: &[RawFd]) -> io::Result<()> {
        self.reaped = None;
        let address = (program as *const ProgramStart as usize as u64).to_le_bytes();
        send(&self.control, &address, fds)
    }
}

impl Drop for KeptSandbox {
    fn drop(&mut self) {
        // Killing PID 1 ends every process of the sandbox at once; its launch is freed, and its
        // watch given back, once it is reaped, which the grading does not wait for.
        // SAFETY: kill has no memory-safety preconditions; `pid` is our unreaped child.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        Reaper::reap(Dying { pid: self.pid, launch: self.launch.take(), _watch: self.watch.take() });
    }
}

/// A killed sandbox's PID 1, and what must live until it is reaped.
struct Dying {
    pid: libc::pid_t,
    launch: Option<LaunchOwner>,
    _watch: Option<WatchLoan>,
}

// SAFETY: as for `KeptSandbox`: the launch is reached by PID 1 through its own pointer and by no
// thread of the grader; the reaper alone holds it once it is handed over.
unsafe impl Send for Dying {}

/// The one thread that reaps killed kept sandboxes. PID 1's exit tears its namespaces down, and the
/// end of a mount namespace waits for an RCU grace period: 10-25 ms of a grading's wall time per
/// sandbox when the grading reaped its own (a submission's two phases ended eight here), with no
/// CPU to show for it. Every process of the sandbox is dead or dying once PID 1 is killed; what the
/// reaper waits for is the kernel's bookkeeping. The grader waits for it before it exits
/// ([`await_reaped`]): nothing of its runs outlives it, and their CPU time is counted as its own.
struct Reaper;

/// Killed sandboxes not yet reaped, and a signal when none is left.
static UNREAPED: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

impl Reaper {
    /// Reaps `dying` on the reaper thread, or here where that thread cannot be had.
    fn reap(dying: Dying) {
        static REAPER: OnceLock<Option<mpsc::Sender<Dying>>> = OnceLock::new();
        let reaper = REAPER.get_or_init(|| {
            let (sender, incoming) = mpsc::channel::<Dying>();
            let reaper = std::thread::Builder::new().name("sandbox-reaper".into()).spawn(move || {
                for dying in incoming {
                    Reaper::reap_here(dying);
                    let mut unreaped = UNREAPED.0.lock().unwrap_or_else(PoisonError::into_inner);
                    *unreaped -= 1;
                    UNREAPED.1.notify_all();
                }
            });
            reaper.ok().map(|_| sender)
        });
        let Some(sender) = reaper else { return Reaper::reap_here(dying) };
        *UNREAPED.0.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        if let Err(refused) = sender.send(dying) {
            *UNREAPED.0.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
            Reaper::reap_here(refused.0);
        }
    }

    fn reap_here(mut dying: Dying) {
        kill_and_reap(dying.pid);
        drop(dying.launch.take());
    }
}

/// Waits until every kept sandbox killed so far has been reaped (see [`Reaper`]).
pub fn await_reaped() {
    let mut unreaped = UNREAPED.0.lock().unwrap_or_else(PoisonError::into_inner);
    while *unreaped > 0 {
        unreaped = UNREAPED.1.wait(unreaped).unwrap_or_else(PoisonError::into_inner);
    }
}

/// Kept sandboxes whose PID 1 watches its scratch tmpfs now, each with an inotify instance of the
/// grader's user (see `serve`). The kernel bounds a user's instances on the whole machine
/// (`fs.inotify.max_user_instances`, often 128) and other programs of that user (root's services)
/// need theirs: at most a quarter of them are lent to sandboxes at once; the rest replace their
/// tmpfs after every run, as all did before.
static WATCHES: AtomicUsize = AtomicUsize::new(0);

/// One of the [`WATCHES`], given back when dropped.
struct WatchLoan;

impl WatchLoan {
    /// One of the [`WATCHES`] if one is left.
    fn take() -> Option<WatchLoan> {
        static BUDGET: OnceLock<usize> = OnceLock::new();
        let budget = *BUDGET.get_or_init(|| {
            std::fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
                .ok()
                .and_then(|limit| limit.trim().parse::<usize>().ok())
                .map_or(0, |limit| limit / 4)
        });
        let lend = |lent: usize| (lent < budget).then_some(lent + 1);
        WATCHES.fetch_update(Ordering::Relaxed, Ordering::Relaxed, lend).is_ok().then_some(WatchLoan)
    }
}

impl Drop for WatchLoan {
    fn drop(&mut self) {
        WATCHES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A connected pair of `SOCK_SEQPACKET` sockets: records keep their bounds and carry descriptors.
fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is valid for two descriptors.
    let rc = unsafe {
        libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr())
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Sends one record with `fds` attached (`SCM_RIGHTS`).
fn send(socket: &impl AsFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let mut iov = libc::iovec { iov_base: bytes.as_ptr().cast_mut().cast(), iov_len: bytes.len() };
    let mut control = [0u64; 16];
    // SAFETY: a zeroed msghdr is valid; the buffers outlive the call; CMSG_* stay within `control`,
    // which has room for MOST_KEPT_FDS descriptors.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        if !fds.is_empty() {
            if fds.len() > MOST_KEPT_FDS {
                return Err(io::Error::other("sandbox: too many descriptors for one run"));
            }
            let length = std::mem::size_of_val(fds) as libc::c_uint;
            message.msg_control = control.as_mut_ptr().cast();
            message.msg_controllen = libc::CMSG_SPACE(length) as _;
            let header = libc::CMSG_FIRSTHDR(&message);
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(length) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(header).cast::<RawFd>(), fds.len());
        }
        let sent = libc::sendmsg(socket.as_fd().as_raw_fd(), &message, libc::MSG_NOSIGNAL);
        if sent != bytes.len() as isize {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
