//! What `execve` needs, prepared before a clone: the child of a clone may not allocate.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

/// The stack a cloned child runs on until its exec. Left uninitialised: the child writes before it
/// reads, and zeroing 64 KiB for every run was a measurable share of what a run cost the grader.
pub(super) struct ChildStack(Box<[std::mem::MaybeUninit<u8>]>);

impl ChildStack {
    pub(super) fn new(bytes: usize) -> ChildStack {
        ChildStack(Box::new_uninit_slice(bytes))
    }

    /// The top of the stack, 16-byte aligned, for `clone` (stacks grow down on every target we run on).
    pub(super) fn top(&self) -> *mut libc::c_void {
        let end = self.0.as_ptr() as usize + self.0.len();
        (end & !15) as *mut libc::c_void
    }
}

/// A program, its arguments and its environment as C strings and NULL-terminated pointer arrays.
pub(super) struct ExecImage {
    pub program: CString,
    /// Owners of the strings that `argv` and `envp` point into.
    _strings: Vec<CString>,
    pub argv: Vec<*const libc::c_char>,
    pub envp: Vec<*const libc::c_char>,
}

impl ExecImage {
    /// `argv[0]` is the program; `env` the whole environment.
    pub fn new(argv: &[OsString], env: &[(OsString, OsString)]) -> io::Result<ExecImage> {
        let program = argv.first().ok_or_else(|| io::Error::other("empty argv"))?;
        let args: Vec<CString> = argv.iter().map(|a| c_bytes(a)).collect::<io::Result<_>>()?;
        let vars: Vec<CString> = env
            .iter()
            .map(|(k, v)| {
                let mut pair = k.as_bytes().to_vec();
                pair.push(b'=');
                pair.extend_from_slice(v.as_bytes());
                CString::new(pair).map_err(|_| io::Error::other("NUL byte in the environment"))
            })
            .collect::<io::Result<_>>()?;
        let pointers = |strings: &[CString]| {
            strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect::<Vec<_>>()
        };
        let (argv, envp) = (pointers(&args), pointers(&vars));
        Ok(ExecImage {
            program: c_bytes(program)?,
            // Moving a CString does not move its heap buffer: the pointers stay valid.
            _strings: args.into_iter().chain(vars).collect(),
            argv,
            envp,
        })
    }

    /// Replaces the calling process; returns only on failure (errno says why).
    ///
    /// # Safety
    ///
    /// Async-signal-safe: callable between a clone and an exec.
    pub unsafe fn exec(&self) {
        // SAFETY: the pointers are NULL-terminated arrays of C strings that `self` owns.
        unsafe {
            libc::execve(self.program.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr());
        }
    }
}

/// The kernel's `struct sigaction` (glibc's differs, and glibc refuses its own internal signals).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    restorer: usize,
    mask: u64,
}

/// Gives every signal its default disposition, as a freshly started program expects: the grader
/// ignores SIGPIPE (as every Rust program does), and dispositions other than handlers survive exec.
///
/// # Safety
///
/// Async-signal-safe (raw system calls): callable between a clone and an exec. The caller's signals
/// must be blocked while a handler of the grader's might otherwise run on shared memory.
pub(super) unsafe fn reset_signal_dispositions() {
    let default = KernelSigaction { handler: libc::SIG_DFL, flags: 0, restorer: 0, mask: 0 };
    for signal in 1..=64 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let mut old = KernelSigaction { handler: libc::SIG_DFL, flags: 0, restorer: 0, mask: 0 };
        // SAFETY: rt_sigaction reads and writes the two structs, sized by the last argument.
        unsafe {
            let read = libc::syscall(
                libc::SYS_rt_sigaction,
                signal,
                std::ptr::null::<KernelSigaction>(),
                &mut old as *mut KernelSigaction,
                8usize,
            );
            if read == 0 && old.handler != libc::SIG_DFL {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    &default as *const KernelSigaction,
                    std::ptr::null_mut::<KernelSigaction>(),
                    8usize,
                );
            }
        }
    }
}

/// A C string of an OS string (an error for an inner NUL byte).
pub(super) fn c_bytes(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL byte in a path"))
}

/// Creates a pipe whose ends are close-on-exec: (read, write).
pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is valid for two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 returned two fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
