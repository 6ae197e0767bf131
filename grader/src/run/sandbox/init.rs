//! The child side of a sandbox: PID 1 and the program's process between clone and exec, which make raw
//! system calls only, on data prepared before the clone.

use super::*;

/// Writes an error record for `step` with the current errno and exits.
pub(super) unsafe fn fail(step: u32) -> ! {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let errno = *libc::__errno_location();
        let mut record = [0u8; 9];
        record[0] = RECORD_ERROR;
        record[1..5].copy_from_slice(&step.to_le_bytes());
        record[5..9].copy_from_slice(&errno.to_le_bytes());
        libc::write(3, record.as_ptr().cast(), record.len());
        libc::_exit(127)
    }
}

pub(super) unsafe fn check(rc: libc::c_int, step: u32) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        if rc != 0 {
            fail(step);
        }
    }
}

/// PID 1 of the sandbox: arranges descriptors, waits for the id maps, builds the root, forks the
/// program and reaps until it has ended.
pub(super) extern "C" fn init_entry(launch: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `spawn` passes the run's launch, which outlives PID 1; `init` never returns.
    unsafe { init(&*launch.cast::<Launch>()) }
}

pub(super) unsafe fn init(launch: &Launch) -> ! {
    let plan = &launch.plan;
    let wanted = launch.wanted.as_slice();
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        // A handler of the grader's (its crash handlers) must not run here, on its memory, and what
        // the grader ignores (SIGPIPE) must not stay ignored in the program.
        reset_signal_dispositions();
        let mut kept = [0 as RawFd; MOST_KEPT_FDS];
        let scratch = &mut kept[..wanted.len()];
        // Move the descriptors we keep to 0..n without clobbering one another: first above them all.
        let n = wanted.len() as RawFd;
        for (i, &fd) in wanted.iter().enumerate() {
            let high = libc::fcntl(fd, libc::F_DUPFD, n + 16);
            if high < 0 {
                libc::_exit(126);
            }
            scratch[i] = high;
        }
        for (i, &fd) in scratch.iter().enumerate() {
            if libc::dup2(fd, i as RawFd) < 0 {
                libc::_exit(126);
            }
        }
        // Every other descriptor of the grader (other runs' pipes among them) must go.
        libc::syscall(libc::SYS_close_range, n as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint);
        // The grader's death ends the sandbox.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);

        // Wait until the grader has written the id maps (or died: then read returns 0).
        let mut go = [0u8; 2];
        if libc::read(4, go.as_mut_ptr().cast(), 2) != 2 {
            fail(S_SYNC);
        }

        check(
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ),
            S_PRIVATE,
        );
        check(
            libc::mount(
                c"tmpfs".as_ptr(),
                plan.root.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                plan.tmpfs_options.as_ptr().cast(),
            ),
            S_TMPFS,
        );
        for step in plan.shared_steps.iter().chain(&plan.steps) {
            match step {
                Step::Dir { path, mode } => {
                    check(libc::mkdir(path.as_ptr(), *mode), S_DIR);
                    // mkdir applies the umask; the mode must be exact (sticky /tmp).
                    check(libc::chmod(path.as_ptr(), *mode), S_DIR);
                }
                Step::Symlink { target, path } => {
                    check(libc::symlink(target.as_ptr(), path.as_ptr()), S_SYMLINK)
                }
                Step::Bind { source, path, file, remount } => {
                    if *file {
                        let fd = libc::open(
                            path.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                            0o644,
                        );
                        if fd < 0 {
                            fail(S_BIND);
                        }
                        libc::close(fd);
                    }
                    check(
                        libc::mount(
                            source.as_ptr(),
                            path.as_ptr(),
                            std::ptr::null(),
                            libc::MS_BIND | libc::MS_REC,
                            std::ptr::null(),
                        ),
                        S_BIND,
                    );
                    if let Some(flags) = remount {
                        let flags = flags | libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
                        check(
                            libc::mount(
                                std::ptr::null(),
                                path.as_ptr(),
                                std::ptr::null(),
                                flags,
                                std::ptr::null(),
                            ),
                            S_REMOUNT,
                        );
                    }
                }
                Step::Chown { path } => {
                    if plan.drop_to_inside_id {
                        check(libc::chown(path.as_ptr(), INSIDE_ID, INSIDE_ID), S_CHOWN);
                    }
                }
            }
        }
        check(
            libc::mount(
                c"proc".as_ptr(),
                plan.proc_dir.as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                plan.proc_options.as_ref().map_or(std::ptr::null(), |options| options.as_ptr().cast()),
            ),
            S_PROC,
        );
        check(libc::chdir(plan.root.as_ptr()), S_PIVOT);
        check(libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int, S_PIVOT);
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH), S_DETACH);
        check(libc::chdir(c"/".as_ptr()), S_PIVOT);
        let host = c"sandbox";
        check(libc::sethostname(host.as_ptr(), host.to_bytes().len()), S_HOSTNAME);
        write_ipc_limits(plan);
        // PID 1 shares the grader's memory, so its command line would be the grader's (the cases'
        // folder among its arguments): the program reads an empty one.
        check(
            libc::mount(
                c"/dev/null".as_ptr(),
                c"/proc/1/cmdline".as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ),
            S_HIDE,
        );

        if plan.kept.is_some() {
            serve(launch);
        }
        let Some(program) = &launch.program else { fail(S_SYNC) };

        // Ready: the grader starts the program when it has a CPU slot for it (or has died: then the
        // read returns 0, and PID 1's end takes the sandbox with it).
        if libc::write(3, [RECORD_READY].as_ptr().cast(), 1) != 1 {
            fail(S_SYNC);
        }
        let mut start = [0u8; 1];
        if libc::read(4, start.as_mut_ptr().cast(), 1) != 1 {
            fail(S_SYNC);
        }
        libc::close(4);

        let child = clone_program(plan, program);
        // Only the program holds the stdio pipes now: their ends close when it (and its children) do.
        libc::close(0);
        libc::close(1);
        libc::close(2);
        // The program has joined the run's cgroups (see `program`): PID 1 needs them no more.
        for fd in FIRST_CGROUP_FD..n {
            libc::close(fd);
        }
        let record = wait_for(child);
        libc::write(3, record.as_ptr().cast(), record.len());
        // Exiting kills every other process of the namespace.
        libc::_exit(0);
    }
}

/// The IPC namespace's own limits. The kernel lets only the namespace's root user set them (no
/// capability will do): a root grader's init, never its programs. An unprivileged grader's init is
/// the programs' own user, not root, and kernels before 5.19 share the limits with the host: the
/// write is refused, and only a memory cgroup bounds shared memory.
pub(super) unsafe fn write_ipc_limits(plan: &Plan) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        for (file, value) in &plan.ipc_limits {
            let fd = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, value.as_ptr().cast(), value.to_bytes().len());
                libc::close(fd);
            }
        }
    }
}

/// Starts the program's process. It shares this one's memory until its exec (CLONE_VM), and this
/// one waits until then (CLONE_VFORK): no copy of the grader's page tables, which a fork of a copy
/// of the grader would make again. Its stack is the start's, its top 16-byte aligned.
pub(super) unsafe fn clone_program(plan: &Plan, program: &ProgramStart) -> libc::pid_t {
    // What `program_entry` reads: on this stack, which lives on until the exec (CLONE_VFORK).
    let args = ProgramArgs { plan, program };
    let stack = program.stack.top();
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let child = libc::clone(
            program_entry,
            stack,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&args as *const ProgramArgs).cast_mut().cast(),
        );
        if child < 0 {
            fail(S_FORK);
        }
        child
    }
}

/// Reaps until the program `child` has ended (orphans of the run too, which PID 1 inherits), and
/// returns its end as a status record.
pub(super) unsafe fn wait_for(child: libc::pid_t) -> [u8; 29] {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        loop {
            let mut status: libc::c_int = 0;
            let mut usage: libc::rusage = std::mem::zeroed();
            let pid = libc::wait4(-1, &mut status, libc::__WALL, &mut usage);
            if pid == child {
                // Its children were reaped by it or by us; the rusage of the program covers those it waited for.
                let mut record = [0u8; 29];
                record[0] = RECORD_EXIT;
                record[1..5].copy_from_slice(&status.to_le_bytes());
                record[5..13].copy_from_slice(&micros(usage.ru_utime).to_le_bytes());
                record[13..21].copy_from_slice(&micros(usage.ru_stime).to_le_bytes());
                record[21..29].copy_from_slice(&(usage.ru_maxrss as u64).to_le_bytes());
                return record;
            }
            // (No EINTR: PID 1 blocks every signal; its errno is the grader thread's anyway.)
            if pid < 0 {
                libc::_exit(125);
            }
        }
    }
}

/// A `timeval` in microseconds.
pub(super) fn micros(t: libc::timeval) -> u64 {
    (t.tv_sec as u64).saturating_mul(1_000_000).saturating_add(t.tv_usec as u64)
}

/// What the program's process reads before its exec.
pub(super) struct ProgramArgs<'a> {
    plan: &'a Plan,
    program: &'a ProgramStart,
}

/// Where the program's process starts (glibc's `clone` calls it with its [`ProgramArgs`]).
pub(super) extern "C" fn program_entry(args: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `clone_program` passes its arguments, which outlive this process's life before exec
    // (PID 1 waits for the exec: CLONE_VFORK); `program` makes raw system calls only and never returns.
    unsafe {
        let args = &*args.cast::<ProgramArgs>();
        program(args.plan, args.program)
    }
}

/// The program's process: limits, an unprivileged user, then exec.
pub(super) unsafe fn program(plan: &Plan, start: &ProgramStart) -> ! {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        // The program alone joins the run's cgroups, never PID 1: PID 1 shares the grader's memory,
        // and the OOM killer, choosing among a cgroup's processes, would kill the grader with it
        // (when the run's memory is in files that belong to no process, PID 1 scores highest).
        for fd in FIRST_CGROUP_FD..start.cgroups_end {
            if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                fail(S_CGROUP);
            }
            libc::close(fd);
        }
        // The cgroups' names (`grader-<pid>-<n>`: how many cgroups this grader has made, which
        // depends on the limits other runs hit) are nothing for the program to read: a cgroup
        // namespace rooted where it now is shows each as `/` in `/proc/self/cgroup`.
        if start.cgroups_end > FIRST_CGROUP_FD {
            check(libc::unshare(libc::CLONE_NEWCGROUP), S_CGROUP);
        }
        // Every descriptor above stdio (the status pipe, a kept sandbox's control socket) closes at
        // exec: PID 1 alone reports the end.
        libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
        // And the kernel prefers it (and its children) to anything else when memory runs out.
        // A CLONE_VFORK child's setting stays its own, never the grader's with whom it shares memory.
        let oom = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if oom >= 0 {
            libc::write(oom, b"1000".as_ptr().cast(), 4);
            libc::close(oom);
        }
        if start.rlimits.apply().is_err() {
            fail(S_RLIMIT);
        }
        if plan.drop_to_inside_id {
            // Raw system calls: glibc's wrappers would signal the grader's other threads (which
            // do not exist here) to change their ids too, and wait for them forever.
            let id = INSIDE_ID as libc::c_long;
            check(
                libc::syscall(libc::SYS_setgroups, 0 as libc::c_long, std::ptr::null::<libc::gid_t>())
                    as libc::c_int,
                S_USER,
            );
            check(libc::syscall(libc::SYS_setresgid, id, id, id) as libc::c_int, S_USER);
            check(libc::syscall(libc::SYS_setresuid, id, id, id) as libc::c_int, S_USER);
        }
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), S_NNP);
        check(libc::chdir(plan.workdir.as_ptr()), S_CHDIR);
        check(libc::pthread_sigmask(libc::SIG_SETMASK, &start.mask, std::ptr::null_mut()), S_SIGMASK);
        start.image.exec();
        fail(S_EXEC)
    }
}
