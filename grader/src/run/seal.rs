//! The seal of a run without namespaces: a seccomp filter that keeps every process of the run in its
//! process group, so that one `kill(-pgid)` reaches them all.
//!
//! Without a PID namespace, a process that calls `setsid` or `setpgid` leaves the group the grader
//! kills, and only a sweep of the run user's processes (a process cloned as that user to
//! `kill(-1)`, after every run) caught it; that sweep was a tenth of a millisecond of a run's CPU.
//! Under the filter both calls fail with `EPERM` (a program that wanted a session of its own goes
//! on in the run's), so the group's kill is the whole run's. Where the filter cannot be installed
//! (a kernel without seccomp filters, an architecture seccompiler does not know) the run is not
//! sealed and the sweep stays.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};

/// The x32 ABI's system calls are x86-64's numbers with this bit set, under the same architecture.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: i64 = 0x4000_0000;

/// The filter, built once; `None` where this architecture has none. System calls of another
/// architecture (i386's `int 0x80`) end the process: seccompiler checks the architecture first.
pub(super) fn filter() -> Option<&'static BpfProgram> {
    static FILTER: OnceLock<Option<BpfProgram>> = OnceLock::new();
    FILTER
        .get_or_init(|| {
            let arch = TargetArch::try_from(std::env::consts::ARCH).ok()?;
            let mut rules = BTreeMap::new();
            for call in [libc::SYS_setsid, libc::SYS_setpgid] {
                rules.insert(call, Vec::new());
                #[cfg(target_arch = "x86_64")]
                rules.insert(call | X32_SYSCALL_BIT, Vec::new());
            }
            let errno = SeccompAction::Errno(libc::EPERM as u32);
            let filter = SeccompFilter::new(rules, SeccompAction::Allow, errno, arch).ok()?;
            BpfProgram::try_from(filter).ok()
        })
        .as_ref()
}

/// Installs `filter` on the calling process (and what it executes); true when it holds.
///
/// # Safety
///
/// Callable between clone and exec: it makes system calls only, on the filter's memory.
pub(super) unsafe fn install(filter: &BpfProgram) -> bool {
    seccompiler::apply_filter(filter).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A forked child under the filter: what `setsid` and `setpgid` return there.
    #[test]
    fn a_sealed_process_can_leave_neither_its_group_nor_its_session() {
        let Some(filter) = filter() else { return };
        // SAFETY: the child makes system calls only and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            // SAFETY: system calls only, then _exit.
            unsafe {
                let mut code = 0;
                if libc::setpgid(0, 0) != 0 || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    code = 1;
                } else if !install(filter) {
                    code = 2;
                } else if libc::setsid() != -1 || *libc::__errno_location() != libc::EPERM {
                    code = 3;
                } else if libc::setpgid(0, 0) != -1 || *libc::__errno_location() != libc::EPERM {
                    code = 4;
                } else if libc::getpgid(0) != libc::getpid() {
                    code = 5;
                }
                libc::_exit(code);
            }
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "status {status}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "1: setup, 2: install, 3: setsid, 4: setpgid, 5: group");
    }
}
