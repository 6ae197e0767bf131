//! Empty network namespaces, made once and lent to one sandbox at a time (a root grader only).
//!
//! A new network namespace for every run cost about a tenth of the grader's CPU per case, and more on
//! kernel threads tearing it down. A root grader keeps the empty namespaces its runs are done with
//! and lends each to the next run: the cloning thread enters the namespace, clones the sandbox
//! without `CLONE_NEWNET` (so the sandbox is born in it), and goes back to its own. One run at a time
//! per namespace, so that two students' programs never share one; nothing of a run is left in it,
//! since every process of the run is dead before the namespace is lent again, and a program cannot
//! change it: it belongs to the grader's user namespace, where the program has no capability (its
//! loopback stays down). An unprivileged grader cannot enter a namespace from inside a new user
//! namespace's setup, so it makes a new one per run as before.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The grader's own network namespace, and the empty ones not lent out.
struct Pool {
    home: OwnedFd,
    free: Mutex<Vec<OwnedFd>>,
}

/// The pool, when this grader may lend namespaces: it is root and it can make and enter one.
fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        let home = File::open("/proc/thread-self/ns/net").ok()?;
        let pool = Pool { home: home.into(), free: Mutex::new(Vec::new()) };
        // Make one now: a machine that refuses gets no pool and new namespaces per run.
        let first = make(&pool.home).ok()?;
        pool.free.lock().unwrap_or_else(PoisonError::into_inner).push(first);
        Some(pool)
    })
    .as_ref()
}

/// Makes an empty network namespace and returns to `home`.
fn make(home: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: unshare and setns act on this thread's namespaces only; the descriptor is valid.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNET) != 0 {
            return Err(io::Error::last_os_error());
        }
        let made = File::open("/proc/thread-self/ns/net");
        if libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
            // This thread would stay in the new namespace: the process must not go on like that.
            panic!("cannot return to the grader's network namespace: {}", io::Error::last_os_error());
        }
        Ok(made?.into())
    }
}

/// A network namespace lent to one run; it goes back to the pool when dropped (after the run's PID 1
/// has been reaped).
pub(super) struct Lease {
    namespace: Option<OwnedFd>,
}

impl Lease {
    /// A namespace for a new sandbox, or `None`: then the sandbox makes its own (`CLONE_NEWNET`).
    pub fn take() -> Option<Lease> {
        let pool = pool()?;
        let reused = pool.free.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let namespace = match reused {
            Some(namespace) => namespace,
            None => make(&pool.home).ok()?,
        };
        Some(Lease { namespace: Some(namespace) })
    }

    /// Runs `clone` with this thread in the lent namespace, then brings the thread back home.
    ///
    /// # Errors
    ///
    /// When the thread cannot enter the namespace (then `clone` is not called).
    pub fn enter_for<T>(&self, clone: impl FnOnce() -> T) -> io::Result<T> {
        let (Some(pool), Some(namespace)) = (pool(), &self.namespace) else {
            return Err(io::Error::other("no network namespace lent"));
        };
        // SAFETY: setns on valid descriptors; it moves this thread only.
        unsafe {
            if libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            let result = clone();
            if libc::setns(pool.home.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                panic!("cannot return to the grader's network namespace: {}", io::Error::last_os_error());
            }
            Ok(result)
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(pool), Some(namespace)) = (pool(), self.namespace.take()) {
            pool.free.lock().unwrap_or_else(PoisonError::into_inner).push(namespace);
        }
    }
}
