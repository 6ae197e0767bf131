//! The rlimits-only start: the program in a process group of its own, under rlimits.
//!
//! The program's process is cloned with `CLONE_VM | CLONE_VFORK`, as glibc's `posix_spawn` does: it
//! shares the grader's memory until its `exec`, and the calling thread waits until then. A `fork`
//! (which `std::process::Command` needs for the rlimits) copies the page tables of the whole grader,
//! and that copy was most of the CPU a run cost the grader. Between the clone and the exec the child
//! makes system calls only, on data prepared before the clone, on a stack of its own; every signal
//! stays blocked until every disposition it inherited is back to the default, so no handler of the
//! grader's runs in it.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use super::exec::{c_bytes, pipe, reset_signal_dispositions, ChildStack, ExecImage};
use super::Rlimits;

/// `<linux/keyctl.h>`: join a new session keyring (anonymous, given no name).
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// Bytes of the child's stack before its exec: it makes system calls only.
const STACK_BYTES: usize = 64 * 1024;

/// A started program: the leader of its own process group, and our ends of its pipes.
pub(super) struct Started {
    pub pid: libc::pid_t,
    pub stdin: File,
    pub stdout: File,
    pub stderr: File,
    /// Every process of the run stays in the group (see `seal`): killing the group kills the run.
    pub sealed: bool,
}

/// Everything the child reads, prepared before the clone; it outlives the child's life before exec.
struct Plan {
    image: ExecImage,
    workdir: CString,
    rlimits: Rlimits,
    parent: libc::pid_t,
    /// The run user (and group) to become: a root grader's runs; none keeps the grader's user.
    user: Option<u32>,
    /// The program's stdin, stdout and stderr (our other ends stay here).
    stdio: [RawFd; 3],
    /// The signal mask to restore before the exec: the caller's, from before every signal was blocked.
    mask: libc::sigset_t,
    /// The errno of a child that failed before or at its exec (0: it exec'd).
    failure: AtomicI32,
    /// How the process is sealed; `sealed` says whether it is.
    seal: Seal,
    sealed: AtomicBool,
}

/// How the started process comes under the seal (see `seal`).
#[derive(Clone, Copy)]
enum Seal {
    /// It inherits the filter of the thread that starts it, and makes its group with the cookie.
    Inherited([u32; 2]),
    /// It makes its group, then installs the filter itself.
    Install(&'static [libc::sock_filter]),
    /// No filter can be had here: the run is not sealed.
    None,
}

impl Seal {
    /// The calling thread's way: inherited where the thread is sealed.
    fn of_this_thread() -> Seal {
        match (super::seal::this_thread_sealed(), super::seal::cookie(), super::seal::filter()) {
            (true, Some(cookie), _) => Seal::Inherited(cookie),
            (_, _, Some(filter)) => Seal::Install(filter),
            _ => Seal::None,
        }
    }
}

/// This process's id, asked of the kernel once (glibc asks it at every call).
fn grader_pid() -> libc::pid_t {
    static PID: std::sync::OnceLock<libc::pid_t> = std::sync::OnceLock::new();
    *PID.get_or_init(|| std::process::id() as libc::pid_t)
}

/// Starts `image` in `workdir` under `rlimits`, as the run user `user` when given.
pub(super) fn start(
    image: ExecImage,
    workdir: &Path,
    rlimits: Rlimits,
    user: Option<u32>,
) -> io::Result<Started> {
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let workdir = c_bytes(workdir.as_os_str())?;
    let mut plan = Plan {
        image,
        workdir,
        rlimits,
        parent: grader_pid(),
        user,
        stdio: [stdin_r.as_raw_fd(), stdout_w.as_raw_fd(), stderr_w.as_raw_fd()],
        // SAFETY: a zeroed sigset_t is a valid (empty) set; it is overwritten below.
        mask: unsafe { std::mem::zeroed() },
        failure: AtomicI32::new(0),
        seal: Seal::of_this_thread(),
        sealed: AtomicBool::new(false),
    };
    let stack = ChildStack::new(STACK_BYTES);
    let top = stack.top();
    // SAFETY: `all` is initialised by sigfillset; pthread_sigmask writes the old mask into the plan.
    // The clone shares our memory (CLONE_VM) and this thread waits until the child has exec'd or
    // exited (CLONE_VFORK), so the plan and the stack outlive every use the child makes of them.
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut plan.mask);
        let pid = libc::clone(
            child,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&plan as *const Plan).cast_mut().cast(),
        );
        libc::pthread_sigmask(libc::SIG_SETMASK, &plan.mask, std::ptr::null_mut());
        pid
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    let failure = plan.failure.load(Ordering::SeqCst);
    if failure != 0 {
        // SAFETY: waitpid on our own child, which has exited.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        return Err(io::Error::from_raw_os_error(failure));
    }
    drop((stdin_r, stdout_w, stderr_w));
    Ok(Started {
        pid,
        stdin: File::from(stdin_w),
        stdout: File::from(stdout_r),
        stderr: File::from(stderr_r),
        sealed: plan.sealed.load(Ordering::SeqCst),
    })
}

/// The child: signals, descriptors, group, limits, user, then exec. Leaves errno in the plan on failure.
extern "C" fn child(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `start` passes its plan, alive until this process has exec'd or exited (CLONE_VFORK).
    let plan = unsafe { &*plan.cast::<Plan>() };
    // SAFETY: between clone and exec: system calls only, on the plan's data.
    let errno = unsafe { prepare(plan) }.err().and_then(|e| e.raw_os_error()).unwrap_or(libc::EINVAL);
    plan.failure.store(errno, Ordering::SeqCst);
    // SAFETY: _exit ends this process without running anything of the grader's.
    unsafe { libc::_exit(127) }
}

/// Returns only on failure.
unsafe fn prepare(plan: &Plan) -> io::Result<()> {
    // SAFETY: system calls on the plan's data and on local values.
    unsafe {
        // Handlers of the grader's would run here on its memory, and what it ignores would stay
        // ignored after exec.
        reset_signal_dispositions();
        // Descriptors to 0-2 without clobbering one another: first copies above them all (closed
        // at exec), then down.
        let mut high = [0 as RawFd; 3];
        for (copy, &fd) in high.iter_mut().zip(&plan.stdio) {
            *copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3);
            if *copy < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        for (target, &fd) in high.iter().enumerate() {
            if libc::dup2(fd, target as RawFd) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        let grouped = match plan.seal {
            Seal::Inherited(cookie) => super::seal::join_own_group(cookie),
            Seal::Install(_) | Seal::None => libc::setpgid(0, 0) == 0,
        };
        if !grouped || libc::chdir(plan.workdir.as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        confine(&plan.rlimits, plan.parent, plan.user)?;
        let sealed = match plan.seal {
            Seal::Inherited(_) => true,
            // Last, once this process has its group (and no_new_privs, which the filter needs).
            Seal::Install(filter) => super::seal::install(filter),
            Seal::None => false,
        };
        plan.sealed.store(sealed, Ordering::SeqCst);
        // An unsealed program could reach the grader's session keyring, which it inherits (and,
        // as its possessor, write there, whoever it is): it gets an empty one of its own, which
        // dies with the run's processes. A sealed one reaches no keyring at all (see `seal`).
        if !sealed
            && libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>())
                < 0
        {
            let error = io::Error::last_os_error();
            // A kernel without keyrings has none to share.
            if error.raw_os_error() != Some(libc::ENOSYS) {
                return Err(error);
            }
        }
        if libc::pthread_sigmask(libc::SIG_SETMASK, &plan.mask, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
        plan.image.exec();
        Err(io::Error::last_os_error())
    }
}

/// Dies with the grader, no new privileges, no leaked descriptors, the rlimits, and the run user.
///
/// # Safety
///
/// Runs between clone and exec: system calls only.
unsafe fn confine(rlimits: &Rlimits, parent: libc::pid_t, user: Option<u32>) -> io::Result<()> {
    // SAFETY: prctl and getppid have no memory-safety preconditions. Dying with the grader keeps a
    // killed grader (Ctrl-C) from leaving the program running unsupervised.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        // The grader may have died before the line above took effect.
        if libc::getppid() != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: close_range has no memory-safety preconditions. Descriptors that some library of the
    // grader opened without O_CLOEXEC must not leak into the program; on kernels before 5.11 the
    // call fails and we carry on (Rust itself opens everything close-on-exec).
    unsafe {
        libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
    }
    // The rlimits first, while the process may still set hard limits above its current ones.
    rlimits.apply()?;
    // The kernel prefers the program (and its children) to anything else when memory runs out.
    // A CLONE_VFORK child's setting stays its own, never the grader's with whom it shares memory.
    // SAFETY: open, write and close on a static path and buffer.
    unsafe {
        let oom = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if oom >= 0 {
            libc::write(oom, b"1000".as_ptr().cast(), 4);
            libc::close(oom);
        }
    }
    if let Some(id) = user {
        let id = id as libc::c_long;
        // Raw system calls: glibc's setuid synchronises every thread of the process through signals,
        // which a child between clone and exec must not rely on. Groups, then gid, then uid: each
        // later step needs the privilege the earlier ones still had.
        // SAFETY: setgroups with an empty list, setresgid and setresuid take no pointers that outlive
        // the call.
        unsafe {
            if libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                || libc::syscall(libc::SYS_setresgid, id, id, id) != 0
                || libc::syscall(libc::SYS_setresuid, id, id, id) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}
