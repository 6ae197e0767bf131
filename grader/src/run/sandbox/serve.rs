//! PID 1 of a kept sandbox: it serves the runs of one submission one after another and resets what
//! a run can leave behind before the next. Raw system calls only, as everywhere on the child side.
//!
//! Per run: an order arrives over the control socket (descriptor 4): the address of a
//! [`ProgramStart`] in the memory PID 1 shares with the grader, and the run's descriptors (stdio,
//! its status pipe, its cgroups) as `SCM_RIGHTS`. PID 1 starts the program, waits for its end, kills
//! and reaps every other process of the namespace (when `wait4` says there is no child left, no
//! process but PID 1 is left: orphans are its children), reports the end on the run's status pipe,
//! and resets: a new tmpfs for the writable places (the old one, with every file, link and inode
//! number of the run, detached) unless the run left it untouched (below), a new IPC namespace
//! (System V objects and POSIX message queues, their ids counted from zero again), the PID counter
//! set back (the next program is PID 2 again), the hostname set again, the programs' user's
//! keyrings emptied (user, user session and persistent). Then it says `ready` with the CPU time of
//! all it reaped so far, which the grader subtracts, and whether the tmpfs was replaced. A step
//! that fails ends PID 1 with an error record: the grader never reuses a sandbox whose reset it did
//! not see complete.
//!
//! Untouched: PID 1 watches the tmpfs's root and its three folders with inotify from the moment it
//! has made them. Whatever a process does there raises an event on one of them: every file, folder,
//! link, socket or device is made in one of the four first (`IN_CREATE`); a file without a name
//! (`O_TMPFILE`, which takes an inode number) is opened there (`IN_OPEN`); a folder's mode, times,
//! flags, extended attributes or ACLs change only through a call on it (`IN_ATTRIB`) or a descriptor
//! opened on it (`IN_OPEN`); and an overflowing queue says so. So an empty queue once every process
//! of the run is reaped shows the tmpfs as it was made (files, modes, times, attributes, free space,
//! the inode numbers of what was made), and replacing it (four unmounts and four mounts, most of a
//! reset's cost) would give the next run nothing different but two traces of a few bits (see the
//! sandbox section of docs/operators.md): inode numbers drawn by creates that then failed for want of kernel
//! memory, and the kernel's cache of names looked up and missing. Any event, or no watch, replaces it: the grader lends watches to at most a
//! quarter of its user's inotify instances at once (see `kept`), and a watch that cannot be made
//! (the instances spent by others) is none.

use super::*;

/// PID 1's part once the root is built; never returns.
pub(super) unsafe fn serve(launch: &Launch) -> ! {
    let plan = &launch.plan;
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let Some(scratch) = &plan.kept else { fail(S_SYNC) };
        new_scratch(plan, scratch, false);
        let mut watch = if scratch.watch { watch_scratch() } else { -1 };
        let mut replaced = false;
        // Programs can write nowhere but the scratch tmpfs, whatever they own (an unprivileged
        // grader's programs are the user that owns the root's tmpfs).
        check(
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                std::ptr::null(),
            ),
            S_REMOUNT,
        );
        loop {
            say_ready(replaced);
            let program = receive();
            let child = clone_program(plan, program);
            libc::close(0);
            libc::close(1);
            libc::close(2);
            for fd in FIRST_CGROUP_FD..program.cgroups_end {
                libc::close(fd);
            }
            let record = wait_for(child);
            // Nothing of the run outlives it: kill every other process and reap them all. The
            // kernel applies kill(-1) under the lock forks take, and a process with SIGKILL
            // pending cannot fork. (No EINTR: PID 1 blocks every signal.)
            loop {
                libc::kill(-1, libc::SIGKILL);
                if libc::wait4(-1, std::ptr::null_mut(), libc::__WALL, std::ptr::null_mut()) < 0 {
                    break;
                }
            }
            // The proof that none is left: PID 1 has no child (orphans become its children). Read
            // from /proc, not errno: PID 1 shares the errno of the grader's thread that cloned it,
            // which goes on making system calls.
            if !has_no_child() {
                fail(S_REAP);
            }
            libc::write(3, record.as_ptr().cast(), record.len());
            // From here on a failure is said over the control socket.
            libc::dup2(4, 3);
            replaced = reset(plan, scratch, &mut watch);
        }
    }
}

/// True when `/proc` lists no child of PID 1.
unsafe fn has_no_child() -> bool {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let fd = libc::open(c"/proc/1/task/1/children".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let mut byte = [0u8; 1];
        let read = libc::read(fd, byte.as_mut_ptr().cast(), 1);
        libc::close(fd);
        read == 0
    }
}

/// Tells the grader the sandbox is ready for a run, with the CPU time of every process PID 1 has
/// reaped (the runs before), which the grader's view of the next run's CPU leaves out, and whether
/// the last reset replaced the writable places' tmpfs.
unsafe fn say_ready(replaced: bool) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        let reaped = micros(usage.ru_utime).saturating_add(micros(usage.ru_stime));
        let mut record = [0u8; READY_RECORD_LEN];
        record[0] = RECORD_READY;
        record[1..9].copy_from_slice(&reaped.to_le_bytes());
        record[9] = u8::from(replaced);
        if libc::write(4, record.as_ptr().cast(), record.len()) != record.len() as isize {
            fail(S_SYNC);
        }
    }
}

/// Waits for the next order and puts its descriptors in place: 0-2 stdio, 3 the run's status pipe,
/// 5.. its cgroups. The grader closing the control socket ends PID 1, and the sandbox with it.
unsafe fn receive() -> &'static ProgramStart {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them. The order's
    // address is the grader's, which keeps it until the run's end is reported.
    unsafe {
        let mut address = [0u8; 8];
        let mut iov = libc::iovec { iov_base: address.as_mut_ptr().cast(), iov_len: address.len() };
        let mut control = [0u64; 16];
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = std::mem::size_of_val(&control) as _;
        // (No EINTR: PID 1 blocks every signal.)
        let received = libc::recvmsg(4, &mut message, 0);
        if received == 0 {
            libc::_exit(0);
        }
        let header = libc::CMSG_FIRSTHDR(&message);
        if received != 8
            || message.msg_flags & libc::MSG_CTRUNC != 0
            || header.is_null()
            || (*header).cmsg_level != libc::SOL_SOCKET
            || (*header).cmsg_type != libc::SCM_RIGHTS
        {
            fail(S_ORDER);
        }
        let count = ((*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / size_of::<RawFd>();
        let program = &*(u64::from_le_bytes(address) as usize as *const ProgramStart);
        let cgroups = (program.cgroups_end - FIRST_CGROUP_FD).max(0) as usize;
        if count != 4 + cgroups || count > MOST_KEPT_FDS {
            fail(S_ORDER);
        }
        let fds = libc::CMSG_DATA(header).cast::<RawFd>();
        // Above every target first, so that no descriptor clobbers another.
        let mut high = [0 as RawFd; MOST_KEPT_FDS];
        for (i, slot) in high.iter_mut().enumerate().take(count) {
            let fd = fds.add(i).read_unaligned();
            *slot = libc::fcntl(fd, libc::F_DUPFD, 64);
            if *slot < 0 {
                fail(S_ORDER);
            }
            libc::close(fd);
        }
        for (i, &fd) in high.iter().enumerate().take(count) {
            let target = if i < 4 { i as RawFd } else { FIRST_CGROUP_FD + (i - 4) as RawFd };
            if libc::dup2(fd, target) < 0 {
                fail(S_ORDER);
            }
            libc::close(fd);
        }
        program
    }
}

/// Everything a run could leave for the next, replaced or set again (see the module's comment);
/// true when the writable places' tmpfs was replaced, false when the run left it untouched.
unsafe fn reset(plan: &Plan, scratch: &Scratch, watch: &mut RawFd) -> bool {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let replace = !untouched(*watch);
        if replace {
            if *watch >= 0 {
                libc::close(*watch);
            }
            new_scratch(plan, scratch, true);
            *watch = if scratch.watch { watch_scratch() } else { -1 };
        }
        check(libc::unshare(libc::CLONE_NEWIPC), S_IPC);
        write_ipc_limits(plan);
        let fd = libc::open(c"/proc/sys/kernel/ns_last_pid".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 || libc::write(fd, b"1".as_ptr().cast(), 1) != 1 {
            fail(S_PIDS);
        }
        libc::close(fd);
        let host = c"sandbox";
        check(libc::sethostname(host.as_ptr(), host.to_bytes().len()), S_HOSTNAME);
        clear_keyrings(plan);
        replace
    }
}

/// The lowest descriptor of the watch: above the ones an order puts in place (0-4 and the
/// cgroups', up to [`MOST_KEPT_FDS`]), below where `receive` parks them (64).
const WATCH_FD_FLOOR: RawFd = 32;

/// An inotify descriptor watching the scratch tmpfs's root and folders for every event, made
/// after PID 1's own changes to them (see the module's comment); -1 where none can be had.
unsafe fn watch_scratch() -> RawFd {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        let made = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
        if made < 0 {
            return -1;
        }
        let watch = libc::fcntl(made, libc::F_DUPFD_CLOEXEC, WATCH_FD_FLOOR);
        libc::close(made);
        if watch < 0 {
            return -1;
        }
        let folders = std::iter::once(SCRATCH).chain(SCRATCH_PLACES.iter().map(|(folder, _, _)| *folder));
        for folder in folders {
            if libc::inotify_add_watch(watch, folder.as_ptr(), libc::IN_ALL_EVENTS | libc::IN_DONT_FOLLOW) < 0
            {
                libc::close(watch);
                return -1;
            }
        }
        watch
    }
}

/// True when `watch` holds no event: nothing happened in the scratch tmpfs since it was made.
/// Read from the queue's length, not errno (PID 1 shares the grader thread's errno).
unsafe fn untouched(watch: RawFd) -> bool {
    if watch < 0 {
        return false;
    }
    let mut queued: libc::c_int = -1;
    // SAFETY: FIONREAD writes one int to a valid address.
    unsafe { libc::ioctl(watch, libc::FIONREAD, &mut queued) == 0 && queued == 0 }
}

/// Empties the keyrings of the programs' user that outlive its processes, each one per user
/// namespace, which the sandbox keeps: the user keyring, the user session keyring and the
/// persistent keyring (`KEYCTL_GET_PERSISTENT`, kept three days after its last use): a key added
/// there would be the next run's to read. (The session keyring a program inherits from PID 1 is the
/// grader's, of another user namespace: the kernel gives it only its `other` permissions, none.)
/// PID 1 takes the user's identity for it (a root grader's PID 1 is root; an unprivileged one's is
/// the programs' user already), keeping root as its saved id to come back.
unsafe fn clear_keyrings(plan: &Plan) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them. Raw calls
    // change this process's ids only (see `program`).
    unsafe {
        let id = INSIDE_ID as libc::c_long;
        if plan.drop_to_inside_id {
            check(libc::syscall(libc::SYS_setresuid, id, id, 0 as libc::c_long) as libc::c_int, S_KEYS);
        }
        // <linux/keyctl.h>: the user and user session keyrings, the process keyring; the commands
        // to find, clear and reach the persistent keyring.
        const USER_KEYRINGS: [libc::c_long; 2] = [-4, -5];
        const PROCESS_KEYRING: libc::c_long = -2;
        const GET_KEYRING_ID: libc::c_long = 0;
        const CLEAR: libc::c_long = 7;
        const GET_PERSISTENT: libc::c_long = 22;
        // The persistent keyring first: reaching it links it into PID 1's own process keyring, which
        // no program can reach (it is made if there is none, once per sandbox). A kernel without
        // persistent keyrings refuses, and has none to empty.
        let persistent = libc::syscall(libc::SYS_keyctl, GET_PERSISTENT, -1 as libc::c_long, PROCESS_KEYRING);
        if persistent > 0 && libc::syscall(libc::SYS_keyctl, CLEAR, persistent) != 0 {
            fail(S_KEYS);
        }
        for keyring in USER_KEYRINGS {
            // Without creating one that is not there.
            let serial = libc::syscall(libc::SYS_keyctl, GET_KEYRING_ID, keyring, 0 as libc::c_long);
            if serial > 0 && libc::syscall(libc::SYS_keyctl, CLEAR, serial) != 0 {
                fail(S_KEYS);
            }
        }
        if plan.drop_to_inside_id {
            let root = 0 as libc::c_long;
            check(libc::syscall(libc::SYS_setresuid, root, root, root) as libc::c_int, S_KEYS);
        }
    }
}

/// Mounts a new tmpfs at [`SCRATCH`] and binds its folders at the writable places, after detaching
/// the last run's (`replace`).
unsafe fn new_scratch(plan: &Plan, scratch: &Scratch, replace: bool) {
    // SAFETY: child side of the clone: raw system calls on buffers that outlive them.
    unsafe {
        if replace {
            for (_, at, _) in SCRATCH_PLACES {
                check(libc::umount2(at.as_ptr(), libc::MNT_DETACH), S_DETACH);
            }
            check(libc::umount2(SCRATCH.as_ptr(), libc::MNT_DETACH), S_DETACH);
        }
        check(
            libc::mount(
                c"tmpfs".as_ptr(),
                SCRATCH.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                scratch.options.as_ptr().cast(),
            ),
            S_TMPFS,
        );
        for (i, (folder, at, mode)) in SCRATCH_PLACES.iter().enumerate() {
            check(libc::mkdir(folder.as_ptr(), *mode), S_DIR);
            check(libc::chmod(folder.as_ptr(), *mode), S_DIR);
            // The working folder is the program's own (see `Step::Chown`).
            if i == 0 && plan.drop_to_inside_id {
                check(libc::chown(folder.as_ptr(), INSIDE_ID, INSIDE_ID), S_CHOWN);
            }
            check(
                libc::mount(folder.as_ptr(), at.as_ptr(), std::ptr::null(), libc::MS_BIND, std::ptr::null()),
                S_BIND,
            );
        }
    }
}
