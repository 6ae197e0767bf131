//! A network namespace for the sandboxes kept for one submission's runs (a root grader only): they
//! are born in it; no other submission's sandbox ever is.
//!
//! Every sandbox needs a network namespace of its own kind: empty, its loopback down. Making one
//! costs the kernel about 0.3 ms, and about as much again to tear it down; a pool that lent empty
//! ones from run to run cost nothing per run, but carried the namespace's counters
//! (`/proc/net/snmp`: a send with the loopback down counts a route not found, 16 bits a counter a
//! run) from one student's run to another's. So a root grader makes one for the sandboxes kept for
//! one phase of one submission's runs (`KeptSandboxes`), which share it: what one of its runs
//! counts there, a later run of the same submission and the same visibility reads. The thread that
//! clones a sandbox enters the namespace, clones without `CLONE_NEWNET` (so the sandbox is born
//! there), and goes back to its own. A program cannot change it: it belongs to the grader's user
//! namespace, where the program has no capability. An unprivileged grader cannot enter a namespace
//! from inside a new user namespace's setup, so each of its sandboxes makes its own, as does every
//! sandbox made for one run.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::OnceLock;

/// A network namespace made for one submission's kept sandboxes.
#[derive(Debug)]
pub(super) struct SubmissionNetwork {
    namespace: OwnedFd,
}

/// The grader's own network namespace, where a root grader can make others; `None` for another user.
fn home() -> Option<&'static OwnedFd> {
    static HOME: OnceLock<Option<OwnedFd>> = OnceLock::new();
    HOME.get_or_init(|| {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        File::open("/proc/thread-self/ns/net").ok().map(OwnedFd::from)
    })
    .as_ref()
}

impl SubmissionNetwork {
    /// An empty network namespace for one submission's kept sandboxes, or `None` where the grader
    /// cannot enter one (not root, or a machine that refuses): then each sandbox makes its own.
    pub(super) fn new() -> Option<SubmissionNetwork> {
        let home = home()?;
        // SAFETY: unshare and setns act on this thread's namespaces only; the descriptor is valid.
        unsafe {
            if libc::unshare(libc::CLONE_NEWNET) != 0 {
                return None;
            }
            let made = File::open("/proc/thread-self/ns/net");
            if libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                // This thread would stay in the new namespace: the process must not go on like that.
                panic!("cannot return to the grader's network namespace: {}", io::Error::last_os_error());
            }
            made.ok().map(|made| SubmissionNetwork { namespace: made.into() })
        }
    }

    /// Runs `clone` with this thread in the namespace, then brings the thread back home.
    ///
    /// # Errors
    ///
    /// When the thread cannot enter the namespace (then `clone` is not called).
    pub(super) fn enter_for<T>(&self, clone: impl FnOnce() -> T) -> io::Result<T> {
        let home = home().ok_or_else(|| io::Error::other("no network namespace of the grader's"))?;
        // SAFETY: setns on valid descriptors; it moves this thread only.
        unsafe {
            if libc::setns(self.namespace.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            let result = clone();
            if libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                panic!("cannot return to the grader's network namespace: {}", io::Error::last_os_error());
            }
            Ok(result)
        }
    }
}
