//! The seal of a run without namespaces: a seccomp filter that keeps every process of the run in its
//! process group, so that one `kill(-pgid)` reaches them all.
//!
//! Without a PID namespace, a process that calls `setsid` or `setpgid` leaves the group the grader
//! kills, and only a sweep of the run user's processes (a process cloned as that user to
//! `kill(-1)`, after every run) caught it; that sweep was a tenth of a millisecond of a run's CPU.
//! Under the filter both calls fail with `EPERM` (a program that wanted a session of its own goes
//! on in the run's), whatever the program's architecture: 64-bit, x32, or 32-bit (i386 on x86-64,
//! arm on aarch64), each with its own numbers. Every other system call is allowed. Where the filter
//! cannot be installed (a kernel without seccomp filters) the run is not sealed and the sweep stays.
//!
//! The program is a dozen classic BPF instructions, written here rather than with a filter
//! compiler: the ones we know of stop every system call of an architecture other than the one they
//! were built for, which would kill a 32-bit program at its first call.

use std::sync::OnceLock;

/// `struct seccomp_data`: where the system call's number and its architecture are.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;

/// `<linux/audit.h>`: the machine (ELF `EM_*`), 64-bit and little-endian flags.
const ARCH_64: u32 = 0x8000_0000;
const ARCH_LE: u32 = 0x4000_0000;

/// The x32 ABI's system calls are x86-64's numbers with this bit set, under the same architecture.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Each architecture a process here can make system calls in, and its numbers of the calls sealed.
#[cfg(target_arch = "x86_64")]
const ARCHITECTURES: [(u32, &[u32]); 2] = [
    (
        62 | ARCH_64 | ARCH_LE,
        &[
            libc::SYS_setsid as u32,
            libc::SYS_setpgid as u32,
            libc::SYS_setsid as u32 | X32_SYSCALL_BIT,
            libc::SYS_setpgid as u32 | X32_SYSCALL_BIT,
        ],
    ),
    // i386 (`int 0x80`): setsid 66, setpgid 57.
    (3 | ARCH_LE, &[66, 57]),
];
#[cfg(target_arch = "aarch64")]
const ARCHITECTURES: [(u32, &[u32]); 2] = [
    (183 | ARCH_64 | ARCH_LE, &[libc::SYS_setsid as u32, libc::SYS_setpgid as u32]),
    // 32-bit arm (EABI): setsid 66, setpgid 57.
    (40 | ARCH_LE, &[66, 57]),
];

fn statement(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter { code: code as u16, jt: 0, jf: 0, k }
}

fn jump_if_equal(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16, jt, jf, k }
}

/// The filter, built once; `None` on an architecture not listed above. For each architecture: if the
/// call's is it, load its number, fail each sealed call with `EPERM`, allow the rest; a call of an
/// architecture not listed (none can come) ends the process.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn filter() -> Option<&'static [libc::sock_filter]> {
    static FILTER: OnceLock<Vec<libc::sock_filter>> = OnceLock::new();
    let load = |offset| statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset);
    let ret = |action| statement(libc::BPF_RET | libc::BPF_K, action);
    let filter = FILTER.get_or_init(|| {
        let mut program = vec![load(ARCH_OFFSET)];
        for (arch, calls) in ARCHITECTURES {
            // The block: the number loaded, two instructions per sealed call, then allow.
            let block = 1 + 2 * calls.len() + 1;
            program.push(jump_if_equal(arch, 0, u8::try_from(block).expect("a short block")));
            program.push(load(NR_OFFSET));
            for &call in calls {
                program.push(jump_if_equal(call, 0, 1));
                program.push(ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
            }
            program.push(ret(libc::SECCOMP_RET_ALLOW));
        }
        program.push(ret(libc::SECCOMP_RET_KILL_PROCESS));
        program
    });
    Some(filter)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn filter() -> Option<&'static [libc::sock_filter]> {
    None
}

/// Installs `filter` on the calling process (and what it executes); true when it holds. The process
/// must have `no_new_privs` set.
///
/// # Safety
///
/// Callable between clone and exec: one system call, on the filter's memory.
pub(super) unsafe fn install(filter: &[libc::sock_filter]) -> bool {
    let Ok(len) = u16::try_from(filter.len()) else { return false };
    let program = libc::sock_fprog { len, filter: filter.as_ptr().cast_mut() };
    // SAFETY: the kernel copies the program it is pointed to, which lives for the call.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER as libc::c_long,
            0 as libc::c_long,
            &program as *const libc::sock_fprog,
        ) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 32-bit system call from this 64-bit process (`int 0x80`, i386 numbers): its result, or
    /// none where the kernel runs no 32-bit code (the process then gets SIGSEGV).
    #[cfg(target_arch = "x86_64")]
    unsafe fn call_i386(number: i64) -> i64 {
        let mut result = number;
        // SAFETY: int 0x80 takes its number in eax and returns in eax; setsid and setpgid(0, 0)
        // take no pointer (ebx and ecx, zero here, are the arguments).
        unsafe {
            // LLVM keeps rbx for itself: it is swapped with a zero around the call.
            std::arch::asm!(
                "xchg {zero}, rbx",
                "int 0x80",
                "xchg {zero}, rbx",
                zero = inout(reg) 0u64 => _,
                inout("rax") result,
                in("rcx") 0u64,
                options(nostack),
            );
        }
        result
    }

    /// A forked child under the filter: what `setsid` and `setpgid` return there, in each ABI.
    #[test]
    fn a_sealed_process_can_leave_neither_its_group_nor_its_session() {
        let Some(filter) = filter() else { return };
        // SAFETY: the child makes system calls only and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            // SAFETY: system calls only, then _exit.
            unsafe {
                // Not a group leader (the test's group): unsealed, both calls would succeed.
                let (group, session) = (libc::getpgid(0), libc::getsid(0));
                let mut code = 0;
                let refused = |rc: libc::c_int| rc == -1 && *libc::__errno_location() == libc::EPERM;
                if group == libc::getpid() || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    code = 1;
                } else if !install(filter) {
                    code = 2;
                } else if !refused(libc::setsid()) {
                    code = 3;
                } else if !refused(libc::setpgid(0, 0)) {
                    code = 4;
                } else if (libc::getpgid(0), libc::getsid(0)) != (group, session) {
                    code = 5;
                }
                #[cfg(target_arch = "x86_64")]
                if code == 0 {
                    let x32 = |call: libc::c_long| {
                        libc::syscall(call | X32_SYSCALL_BIT as i64, 0, 0) as libc::c_int
                    };
                    let (i386_setsid, i386_setpgid) = (66, 57);
                    // x32 may be off in this kernel (ENOSYS); sealed, it is EPERM before that.
                    if !refused(x32(libc::SYS_setsid)) || !refused(x32(libc::SYS_setpgid)) {
                        code = 6;
                    } else if call_i386(i386_setsid) != -i64::from(libc::EPERM)
                        || call_i386(i386_setpgid) != -i64::from(libc::EPERM)
                    {
                        code = 7;
                    } else if call_i386(20) != i64::from(libc::getpid()) {
                        // i386 getpid, allowed.
                        code = 8;
                    } else if (libc::getpgid(0), libc::getsid(0)) != (group, session) {
                        code = 5;
                    }
                }
                libc::_exit(code);
            }
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        // A kernel without 32-bit emulation answers int 0x80 with SIGSEGV: nothing more to check.
        if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV {
            return;
        }
        assert!(libc::WIFEXITED(status), "status {status}");
        let codes = "1: setup, 2: install, 3: setsid, 4: setpgid, 5: group, 6: x32, 7: i386, 8: i386 getpid";
        assert_eq!(libc::WEXITSTATUS(status), 0, "{codes}");
    }
}
