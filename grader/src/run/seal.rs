//! The seal of a run without namespaces: a seccomp filter that keeps every process of the run in its
//! process group, so that one `kill(-pgid)` reaches them all.
//!
//! Without a PID namespace, a process that calls `setsid` or `setpgid` leaves the group the grader
//! kills, and only a sweep of the run user's processes (a process cloned as that user to
//! `kill(-1)`, after every run) caught it; that sweep was a tenth of a millisecond of a run's CPU.
//! Under the filter both calls fail with `EPERM` (a program that wanted a session of its own goes
//! on in the run's), and so do the kernel's keyrings (`add_key`, `request_key`, `keyctl`: the run
//! user's keyrings outlive its processes, a channel to its next run that no student program needs),
//! whatever the program's architecture: 64-bit, x32, or 32-bit (i386 on x86-64,
//! arm on aarch64), each with its own numbers. Every other system call is allowed. Where the filter
//! cannot be installed (a kernel without seccomp filters) the run is not sealed and the sweep stays.
//!
//! A filter installed in each run's process cost the run more than anything else the grader does
//! for it without namespaces: the kernel compiles the filter anew for every process that installs
//! it, and frees it as the process is reaped (on the grader's thread), 30 to 50 us a run. So a case
//! runner seals its own thread once ([`seal_this_thread`]) and every process it starts inherits the
//! one filter. Such a process must still make its own group before its exec: the filter lets one
//! `setpgid` through, the one whose arguments carry in their upper halves (which the kernel drops,
//! as `pid_t` is 32 bits) a cookie of 64 random bits drawn once per grader process
//! ([`join_own_group`]); so does the grader's own `keyctl`, which empties a run user's keyrings
//! ([`keyctl`]; see `users`). A program cannot learn it: it lives in the grader's memory, which the
//! process sharing it before its exec leaves at the exec, and in the kernel, which shows a filter
//! only to `CAP_SYS_ADMIN`.
//!
//! The program is a few dozen classic BPF instructions, written here rather than with a filter
//! compiler: the ones we know of stop every system call of an architecture other than the one they
//! were built for, which would kill a 32-bit program at its first call.

use std::cell::Cell;
use std::sync::OnceLock;

/// `struct seccomp_data`: where the system call's number, its architecture and its arguments are.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;
const ARGS_OFFSET: u32 = 16;

/// The upper 32 bits of argument `index` (both architectures here are little-endian).
const fn upper_half_of_argument(index: u32) -> u32 {
    ARGS_OFFSET + 8 * index + 4
}

/// `<linux/audit.h>`: the machine (ELF `EM_*`), 64-bit and little-endian flags.
const ARCH_64: u32 = 0x8000_0000;
const ARCH_LE: u32 = 0x4000_0000;

/// The x32 ABI's system calls are x86-64's numbers with this bit set, under the same architecture.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// An architecture a process here can make system calls in: its numbers of the calls sealed, and
/// those of them that pass with the cookie (then, when there is a cookie, the filter decides those
/// calls before it comes to the sealed ones).
struct Architecture {
    arch: u32,
    sealed: &'static [u32],
    with_cookie: &'static [u32],
}

#[cfg(target_arch = "x86_64")]
const ARCHITECTURES: [Architecture; 2] = [
    Architecture {
        arch: 62 | ARCH_64 | ARCH_LE,
        sealed: &[
            libc::SYS_setsid as u32,
            libc::SYS_setpgid as u32,
            libc::SYS_add_key as u32,
            libc::SYS_request_key as u32,
            libc::SYS_keyctl as u32,
            libc::SYS_setsid as u32 | X32_SYSCALL_BIT,
            libc::SYS_setpgid as u32 | X32_SYSCALL_BIT,
            libc::SYS_add_key as u32 | X32_SYSCALL_BIT,
            libc::SYS_request_key as u32 | X32_SYSCALL_BIT,
            libc::SYS_keyctl as u32 | X32_SYSCALL_BIT,
        ],
        with_cookie: &[libc::SYS_setpgid as u32, libc::SYS_keyctl as u32],
    },
    // i386 (`int 0x80`): setsid 66, setpgid 57, add_key 286, request_key 287, keyctl 288; 32-bit
    // arguments have no upper halves.
    Architecture { arch: 3 | ARCH_LE, sealed: &[66, 57, 286, 287, 288], with_cookie: &[] },
];
#[cfg(target_arch = "aarch64")]
const ARCHITECTURES: [Architecture; 2] = [
    Architecture {
        arch: 183 | ARCH_64 | ARCH_LE,
        sealed: &[
            libc::SYS_setsid as u32,
            libc::SYS_setpgid as u32,
            libc::SYS_add_key as u32,
            libc::SYS_request_key as u32,
            libc::SYS_keyctl as u32,
        ],
        with_cookie: &[libc::SYS_setpgid as u32, libc::SYS_keyctl as u32],
    },
    // 32-bit arm (EABI): setsid 66, setpgid 57, add_key 309, request_key 310, keyctl 311.
    Architecture { arch: 40 | ARCH_LE, sealed: &[66, 57, 309, 310, 311], with_cookie: &[] },
];

fn statement(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter { code: code as u16, jt: 0, jf: 0, k }
}

fn jump_if_equal(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16, jt, jf, k }
}

/// The two upper halves `setpgid`'s arguments carry to pass the filter: random, drawn once per
/// process, neither of them zero (so that no plain call carries half of it). `None` where the
/// kernel has no random bytes to give: the filter then lets no `setpgid` through.
pub(super) fn cookie() -> Option<[u32; 2]> {
    static COOKIE: OnceLock<Option<[u32; 2]>> = OnceLock::new();
    *COOKIE.get_or_init(|| {
        let mut bytes = [0u8; 8];
        let mut filled = 0;
        while filled < bytes.len() {
            // SAFETY: getrandom writes at most the given length into the buffer's unfilled part.
            let got =
                unsafe { libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0) };
            match got {
                n if n > 0 => filled += n as usize,
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                // No threads are sealed then (see `seal_this_thread`): each run installs the
                // filter itself, after making its group.
                _ => return None,
            }
        }
        let [a, b, c, d, e, f, g, h] = bytes;
        Some([u32::from_ne_bytes([a, b, c, d]) | 1, u32::from_ne_bytes([e, f, g, h]) | 1])
    })
}

/// The filter, built once; `None` on an architecture not listed above. For each architecture: if the
/// call's is it, load its number; `setpgid` with the cookie is allowed; each sealed call fails with
/// `EPERM`; the rest is allowed. A call of an architecture not listed (none can come) ends the
/// process.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn filter() -> Option<&'static [libc::sock_filter]> {
    static FILTER: OnceLock<Vec<libc::sock_filter>> = OnceLock::new();
    let load = |offset| statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset);
    let ret = |action| statement(libc::BPF_RET | libc::BPF_K, action);
    let refuse = || ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32);
    let filter = FILTER.get_or_init(|| {
        let mut program = vec![load(ARCH_OFFSET)];
        for architecture in ARCHITECTURES {
            let mut block = vec![load(NR_OFFSET)];
            for &call in architecture.with_cookie {
                let Some([first, second]) = cookie() else { break };
                // Not this call: on to the next (the number is still loaded). Both upper halves
                // the cookie's: allowed; anything else: refused.
                block.extend([
                    jump_if_equal(call, 0, 6),
                    load(upper_half_of_argument(0)),
                    jump_if_equal(first, 0, 3),
                    load(upper_half_of_argument(1)),
                    jump_if_equal(second, 0, 1),
                    ret(libc::SECCOMP_RET_ALLOW),
                    refuse(),
                ]);
            }
            for &call in architecture.sealed {
                block.push(jump_if_equal(call, 0, 1));
                block.push(refuse());
            }
            block.push(ret(libc::SECCOMP_RET_ALLOW));
            program.push(jump_if_equal(
                architecture.arch,
                0,
                u8::try_from(block.len()).expect("a short block"),
            ));
            program.extend(block);
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

/// Installs `filter` on the calling thread (and what it starts from then on); true when it holds.
/// The thread must have `no_new_privs` set, or `CAP_SYS_ADMIN`.
///
/// The kernel is asked not to turn on its mitigation of speculative store bypass for the thread
/// (kernels before 5.16 did, by default, for every filtered thread, and a program's user code then
/// ran slower): the seal keeps processes in a group, it guards nothing against side channels.
///
/// # Safety
///
/// Callable between clone and exec: system calls only, on the filter's memory.
pub(super) unsafe fn install(filter: &[libc::sock_filter]) -> bool {
    let Ok(len) = u16::try_from(filter.len()) else { return false };
    let program = libc::sock_fprog { len, filter: filter.as_ptr().cast_mut() };
    let with = |flags: libc::c_ulong| {
        // SAFETY: the kernel copies the program it is pointed to, which lives for the call.
        unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER as libc::c_long,
                flags as libc::c_long,
                &program as *const libc::sock_fprog,
            ) == 0
        }
    };
    // Kernels before 4.17 know no such flag (EINVAL): without it, then.
    with(libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW) || with(0)
}

thread_local! {
    /// Whether this thread is under the filter, so that what it starts inherits it.
    static THREAD_SEALED: Cell<bool> = const { Cell::new(false) };
}

/// Puts the calling thread under the filter, once; true when it is (now or already). Every process
/// the thread starts from then on is sealed from its start, and makes its group with
/// [`join_own_group`]; the thread itself can no longer leave its group or session (the grader
/// never does), nor, where it is not root, gain privileges by an exec. For threads that start
/// runs without namespaces and nothing else (the case runners of such gradings).
pub(crate) fn seal_this_thread() -> bool {
    if THREAD_SEALED.get() {
        return true;
    }
    let Some(filter) = filter() else { return false };
    if cookie().is_none() {
        return false;
    }
    // SAFETY: install makes system calls on the filter, which lives for ever; prctl has no
    // memory-safety preconditions. Root installs it as it is; another user needs no_new_privs.
    let sealed = unsafe {
        install(filter) || (libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && install(filter))
    };
    THREAD_SEALED.set(sealed);
    sealed
}

/// Whether the calling thread is under the filter (see [`seal_this_thread`]).
pub(super) fn this_thread_sealed() -> bool {
    THREAD_SEALED.get()
}

/// Makes the calling process the leader of a group of its own, under the filter inherited from a
/// sealed thread: `setpgid(0, 0)` with `cookie` (from [`cookie`], read before the clone) in the
/// upper halves of its arguments. True when it did.
///
/// # Safety
///
/// Callable between clone and exec: one system call.
pub(super) unsafe fn join_own_group(cookie: [u32; 2]) -> bool {
    // SAFETY: setpgid takes no pointers; the kernel keeps the lower 32 bits of each argument.
    unsafe { libc::syscall(libc::SYS_setpgid, carrying(cookie[0]), carrying(cookie[1])) == 0 }
}

/// `keyctl(command, first, second)` through the filter, with the cookie (from [`cookie`], read
/// before any clone) in the upper halves of its first two arguments, which the kernel drops (both
/// are 32-bit values). Where the calling thread is not sealed, the cookie changes nothing.
///
/// # Safety
///
/// Callable between clone and exit: one system call, on integers.
pub(super) unsafe fn keyctl(cookie: Option<[u32; 2]>, command: u32, first: i32, second: i32) -> libc::c_long {
    let [upper0, upper1] = cookie.unwrap_or([0, 0]);
    let lower = |value: u32| libc::c_long::from(value as i32) & 0xffff_ffff;
    // SAFETY: keyctl on integers; the commands used take no pointers.
    unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            carrying(upper0) | lower(command),
            carrying(upper1) | lower(first as u32),
            libc::c_long::from(second),
        )
    }
}

/// An argument of 0 that carries `half` of the cookie in its upper 32 bits.
fn carrying(half: u32) -> libc::c_long {
    (i64::from(half) << 32) as libc::c_long
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
    fn a_sealed_process_can_leave_neither_its_group_nor_its_session_nor_reach_a_keyring() {
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
                } else if !refused(libc::syscall(
                    libc::SYS_add_key,
                    c"user".as_ptr(),
                    c"k".as_ptr(),
                    c"v".as_ptr(),
                    1,
                    -2,
                ) as libc::c_int)
                    || !refused(libc::syscall(libc::SYS_keyctl, 0, -4, 0) as libc::c_int)
                    || !refused(libc::syscall(libc::SYS_request_key, c"user".as_ptr(), c"k".as_ptr(), 0, 0)
                        as libc::c_int)
                {
                    code = 9;
                } else if keyctl(cookie(), 0, -4, 0) <= 0 {
                    // The grader's own keyctl, with the cookie: the user keyring's id.
                    code = 10;
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
        let codes =
            "1: setup, 2: install, 3: setsid, 4: setpgid, 5: group, 6: x32, 7: i386, 8: i386 getpid, \
                     9: a keyring call, 10: keyctl with the cookie";
        assert_eq!(libc::WEXITSTATUS(status), 0, "{codes}");
    }

    /// `setpgid(0, 0)` with the cookie in the x32 ABI, where there is one.
    #[cfg(target_arch = "x86_64")]
    unsafe fn x32_setpgid(cookie: [u32; 2]) -> Option<libc::c_long> {
        let x32 = libc::SYS_setpgid | X32_SYSCALL_BIT as libc::c_long;
        // SAFETY: setpgid takes no pointers.
        Some(unsafe { libc::syscall(x32, carrying(cookie[0]), carrying(cookie[1])) })
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn x32_setpgid(_: [u32; 2]) -> Option<libc::c_long> {
        None
    }

    /// A sealed thread's processes: sealed from their start (as are theirs); only `setpgid(0, 0)`
    /// with the whole cookie, in the native ABI, makes a group; `setsid` is refused throughout.
    #[test]
    fn what_a_sealed_thread_starts_joins_its_own_group_with_the_cookie_alone() {
        let status = std::thread::spawn(|| {
            assert!(seal_this_thread(), "the thread is sealed");
            assert!(seal_this_thread(), "and says so again, without a second filter");
            let cookie = cookie().expect("a cookie");
            // SAFETY: the child makes system calls only and leaves with _exit.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0);
            if pid == 0 {
                // SAFETY: system calls only, then _exit.
                unsafe {
                    let refused = |rc: libc::c_long| rc == -1 && *libc::__errno_location() == libc::EPERM;
                    let setpgid = |first: u32, second: u32| {
                        libc::syscall(libc::SYS_setpgid, carrying(first), carrying(second))
                    };
                    let group = libc::getpgid(0);
                    let code = if group == libc::getpid() {
                        1
                    } else if !refused(libc::setsid() as libc::c_long) {
                        2
                    } else if !refused(libc::setpgid(0, 0) as libc::c_long) {
                        3
                    } else if !refused(setpgid(cookie[0], 0))
                        || !refused(setpgid(0, cookie[1]))
                        || !refused(setpgid(cookie[0], cookie[1] ^ 2))
                    {
                        4
                    } else if x32_setpgid(cookie).is_some_and(|rc| !refused(rc)) {
                        5
                    } else if libc::getpgid(0) != group {
                        6
                    } else if !join_own_group(cookie) || libc::getpgid(0) != libc::getpid() {
                        7
                    } else {
                        // Its own child: sealed too, and the cookie is the only way out.
                        let grandchild = libc::fork();
                        if grandchild == 0 {
                            let ok = refused(libc::setsid() as libc::c_long)
                                && refused(libc::setpgid(0, 0) as libc::c_long)
                                && libc::getpgid(0) == libc::getppid();
                            libc::_exit(if ok { 0 } else { 1 });
                        }
                        let mut status = 0;
                        libc::waitpid(grandchild, &mut status, 0);
                        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                            0
                        } else {
                            8
                        }
                    };
                    libc::_exit(code);
                }
            }
            let mut status = 0;
            // SAFETY: waiting for our own child.
            assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
            status
        })
        .join()
        .expect("the sealed thread ends");
        assert!(libc::WIFEXITED(status), "status {status}");
        let codes = "1: setup, 2: setsid, 3: setpgid, 4: part of the cookie, 5: x32 with the cookie, \
                     6: group, 7: the cookie, 8: grandchild";
        assert_eq!(libc::WEXITSTATUS(status), 0, "{codes}");
        // The test's own thread is not sealed.
        assert!(!this_thread_sealed());
    }
}
