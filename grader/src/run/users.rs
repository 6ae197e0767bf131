//! Run users at `rlimits-only`: a root grader gives each run a user of its own and, after the run,
//! leaves nothing of that user behind.
//!
//! Without namespaces the kernel tells runs apart only by their user. So, as `isolate` does with its
//! box users, a root grader runs every program and compiler as a user of [`RUN_UIDS`] (group id the
//! same number), leased to one run at a time: no run can signal, trace or read what another run's
//! user made. A lease is held across processes with an exclusive `flock` on a file in a folder only
//! root may enter, so two graders on one machine never share a user; a user that `/etc/passwd`
//! names, or whose lock another grader holds, is skipped. When the run ends, every process of the
//! user is dead: a sealed run's (see `seal`) cannot leave the process group the grader kills; an
//! unsealed one's are killed by [`RunUser::scrub`] with one `kill(-1)` from a process that is that
//! user (the kernel signals all of them under one lock, so none forks away). The scrub removes
//! what the user made in the world-writable folders (as that user, never as root: a link planted
//! there can only lead to what the user itself may remove) and its System V IPC objects. POSIX
//! shared memory and message queues are files in `/dev/shm` and `/dev/mqueue`, removed with the
//! rest. The user's keyrings are emptied by the sweep's killer (see [`clear_keyrings`]), after
//! every run that was not sealed and when a grader leases the user (a crashed grader's leftovers).

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

/// The users runs are given: `isolate`'s habit of a documented range of ids that no account uses.
pub const RUN_UIDS: std::ops::Range<u32> = 61000..62000;

/// Where the lease locks live: a folder only root may enter.
const LOCK_DIR: &str = "/run/grader-run-users";

/// World-writable places every user may create files in, cleared of a run user's files after its
/// run (with their world-writable sub-folders, such as `/tmp/.X11-unix`).
const PLACES: &[&str] = &["/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock"];

/// A place whose modification time is this close to a run's start is scanned whatever its time
/// says: the kernel stamps folders from a coarse clock (a tick, up to 10 ms), so a change made within
/// the same tick as an earlier one may leave the time as it was. Two ticks at the slowest clock: a
/// grader's first runs come within this margin of its own folder's making in `/tmp`, and each
/// scanned all of `/tmp` (80 runs at 100 ms, where a shared `/tmp` may hold thousands of entries).
const CLOCK_MARGIN: Duration = Duration::from_millis(20);

/// The margin for a time of whole seconds: a file system that stamps whole seconds (ext4 with small
/// inodes) or two (FAT) gives a change later in that span the same time.
const WHOLE_SECONDS_MARGIN: Duration = Duration::from_millis(2020);

/// A run user leased to this process: the lock is held while the value lives.
#[derive(Debug)]
pub struct RunUser {
    uid: u32,
    _lock: File,
}

/// Leased users between runs, and the next id to try.
struct Leases {
    idle: Vec<RunUser>,
    next: u32,
}

static LEASES: Mutex<Leases> = Mutex::new(Leases { idle: Vec::new(), next: RUN_UIDS.start });

/// Every run user this process has leased, in the order leased.
static LEASED_HERE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The run users this process has leased so far: what it must leave nothing of. Another grader on
/// the same machine leases others (see [`RunUser::take`]).
pub fn leased_by_this_process() -> Vec<u32> {
    LEASED_HERE.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

impl RunUser {
    /// A run user for one run: one this process used before (scrubbed then), or a new lease,
    /// scrubbed first (a grader that was killed may have left its runs' traces).
    ///
    /// # Errors
    ///
    /// When the lock folder cannot be made safely or every user of [`RUN_UIDS`] is taken.
    pub fn take() -> io::Result<RunUser> {
        let mut leases = LEASES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(user) = leases.idle.pop() {
            return Ok(user);
        }
        let dir = lock_dir()?;
        for _ in RUN_UIDS {
            let uid = leases.next;
            leases.next = if uid + 1 >= RUN_UIDS.end { RUN_UIDS.start } else { uid + 1 };
            if is_account(uid) {
                continue;
            }
            let lock = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(dir.join(uid.to_string()))?;
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                continue;
            }
            LEASED_HERE.lock().unwrap_or_else(PoisonError::into_inner).push(uid);
            let user = RunUser { uid, _lock: lock };
            drop(leases);
            user.scrub(&Snapshot::everything(), false)?;
            return Ok(user);
        }
        Err(io::Error::other(format!(
            "every run user ({}-{}) is in use by other graders",
            RUN_UIDS.start,
            RUN_UIDS.end - 1
        )))
    }

    /// The user (and group) id.
    pub fn uid(&self) -> u32 {
        self.uid
    }

    /// Kills every process of the user and empties its keyrings. No process of the user can start
    /// once it returns: only the user's own processes could have started one.
    ///
    /// # Errors
    ///
    /// When some process survives, or a keyring could not be emptied.
    pub fn kill_processes(&self) -> io::Result<()> {
        // A process of the user that itself keeps signalling all of the user's processes may kill a
        // killer before its sweep: then another try, and at last a sweep of /proc as root.
        for _ in 0..5 {
            match kill_all(self.uid) {
                Ok(()) => return Ok(()),
                // Every process is dead, but a keyring could not be emptied: no sweep would do better.
                Err(error) if error.kind() == io::ErrorKind::PermissionDenied => return Err(error),
                Err(_) => {}
            }
        }
        kill_listed(self.uid)?;
        // No process of the user is left to kill a killer: this one lives to empty the keyrings.
        kill_all(self.uid)
    }

    /// Gives the user back for a later run of this process, once [`RunUser::scrub`] succeeded.
    pub fn put_back(self) {
        LEASES.lock().unwrap_or_else(PoisonError::into_inner).idle.push(self);
    }

    /// Kills every process of the user (unless `processes_killed`: see
    /// [`RunUser::kill_processes`]), then removes its files from the world-writable places that
    /// changed since `before`, and its System V IPC objects.
    ///
    /// # Errors
    ///
    /// When the processes could not be killed (then the user must not serve another run).
    pub fn scrub(&self, before: &Snapshot, processes_killed: bool) -> io::Result<()> {
        if !processes_killed {
            self.kill_processes()?;
        }
        let changed = before.changed();
        if !changed.is_empty() {
            as_user(self.uid, || changed.iter().for_each(|dir| remove_owned(dir, self.uid)));
        }
        remove_ipc(self.uid);
        Ok(())
    }
}

/// True when the user database names `uid`: a real account, never a run user.
fn is_account(uid: u32) -> bool {
    let mut entry: libc::passwd = unsafe_zeroed();
    let mut buffer = vec![0 as libc::c_char; 4096];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; the buffer's length is passed.
    let rc = unsafe { libc::getpwuid_r(uid, &mut entry, buffer.as_mut_ptr(), buffer.len(), &mut found) };
    rc == 0 && !found.is_null()
}

fn unsafe_zeroed<T>() -> T {
    // SAFETY: used for C structs of integers and pointers only, for which zero is valid.
    unsafe { std::mem::zeroed() }
}

/// The lock folder, made once: root's, mode 0700, not a link.
fn lock_dir() -> io::Result<&'static Path> {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    if let Some(dir) = DIR.get() {
        return Ok(dir);
    }
    let dir = Path::new(LOCK_DIR);
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(io::Error::new(error.kind(), format!("{LOCK_DIR}: {error}"))),
    }
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != 0 || meta.mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{LOCK_DIR} must be a folder of root's that nobody else may enter (mode 0700)"
        )));
    }
    Ok(DIR.get_or_init(|| dir.to_owned()))
}

/// Kills every process whose real or saved user is `uid`, from a process of that user: the kernel's
/// `kill(-1)` signals them all while holding the task list, so a fork cannot slip past it.
fn kill_all(uid: u32) -> io::Result<()> {
    // The killer's stack lies in this thread's frame, unused while this thread waits for it (no
    // allocation, no zeroing: the killer writes before it reads).
    let mut stack = [std::mem::MaybeUninit::<u8>::uninit(); 16 * 1024];
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    // Read here: the killer makes system calls only.
    let mut args = KillerArgs { uid, cookie: super::seal::cookie() };
    // It shares our memory, descriptor table and file-system context rather than copying them: it
    // only makes raw system calls, and this thread waits for it to exit (CLONE_VFORK).
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_FILES | libc::CLONE_FS | libc::SIGCHLD;
    // SAFETY: the child shares our memory until it exits (CLONE_VM | CLONE_VFORK: this thread waits),
    // reads only `args` and makes raw system calls on its own stack.
    let pid = unsafe {
        libc::clone(killer, top as *mut libc::c_void, flags, {
            let args: *mut KillerArgs = &mut args;
            args.cast()
        })
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    while unsafe { libc::waitpid(pid, &mut status, libc::__WALL) } < 0 {
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(io::Error::last_os_error());
        }
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 4 {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("cannot empty the keyrings of run user {uid}"),
        ))
    } else {
        Err(io::Error::other(format!("cannot kill the processes of run user {uid}")))
    }
}

/// Kills, as root, every process that /proc lists as `uid`'s, until none is left (at most a second).
fn kill_listed(uid: u32) -> io::Result<()> {
    for _ in 0..100 {
        let mut found = false;
        for entry in fs::read_dir("/proc")?.flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<libc::pid_t>() else { continue };
            if entry.metadata().is_ok_and(|meta| meta.uid() == uid) {
                found = true;
                // SAFETY: kill takes integers.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        if !found {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(io::Error::other(format!("processes of run user {uid} survive SIGKILL")))
}

/// What the killer reads: the user, and the seal's cookie (its `keyctl` calls pass the filter of a
/// sealed thread, which it inherits).
struct KillerArgs {
    uid: u32,
    cookie: Option<[u32; 2]>,
}

/// The killer: becomes the user, signals every process it may signal (all the user's), then empties
/// the user's keyrings that outlive its processes (see [`clear_keyrings`]).
extern "C" fn killer(args: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `kill_all` passes a pointer to its arguments, alive until this process exits; raw
    // system calls only (glibc's setuid would wait for the grader's other threads).
    unsafe {
        let args = &*args.cast::<KillerArgs>();
        let id = args.uid as libc::c_long;
        if libc::syscall(libc::SYS_setgroups, 0 as libc::c_long, std::ptr::null::<libc::gid_t>()) != 0
            || libc::syscall(libc::SYS_setresgid, id, id, id) != 0
            || libc::syscall(libc::SYS_setresuid, id, id, id) != 0
        {
            libc::_exit(2);
        }
        // One sweep: a fork either finished before it (the child is signalled too) or fails, its
        // parent having a fatal signal pending.
        if libc::kill(-1, libc::SIGKILL) != 0 && *libc::__errno_location() != libc::ESRCH {
            libc::_exit(3);
        }
        if !clear_keyrings(args.cookie) {
            libc::_exit(4);
        }
        libc::_exit(0)
    }
}

/// Empties the keyrings of the calling process's user that outlive its processes: the user keyring,
/// the user session keyring and the persistent keyring (`KEYCTL_GET_PERSISTENT`, kept three days
/// after its last use). Only the user may (root can clear none of them), so the killer does it, once
/// every process of the user is dead: a sealed run cannot reach a keyring at all (see `seal`), so a
/// run that goes without the sweep leaves nothing there either. False when one could not be
/// emptied; a kernel without keyrings (or without persistent ones) has nothing to empty.
///
/// # Safety
///
/// Raw system calls only: called between clone and exit.
unsafe fn clear_keyrings(cookie: Option<[u32; 2]>) -> bool {
    // <linux/keyctl.h>: the user and user session keyrings, the process keyring; the commands to
    // find, clear and reach the persistent keyring.
    const USER_KEYRINGS: [i32; 2] = [-4, -5];
    const PROCESS_KEYRING: i32 = -2;
    const GET_KEYRING_ID: u32 = 0;
    const CLEAR: u32 = 7;
    const GET_PERSISTENT: u32 = 22;
    // SAFETY: keyctl on integers.
    unsafe {
        let keyctl = |command, first, second| super::seal::keyctl(cookie, command, first, second);
        // Reached through this process's own keyring, which dies with it.
        let persistent = keyctl(GET_PERSISTENT, -1, PROCESS_KEYRING);
        if persistent > 0 && keyctl(CLEAR, persistent as i32, 0) != 0 {
            return false;
        }
        USER_KEYRINGS.into_iter().all(|keyring| {
            let serial = keyctl(GET_KEYRING_ID, keyring, 0);
            serial <= 0 || keyctl(CLEAR, serial as i32, 0) == 0
        })
    }
}

/// Runs `work` on this thread with the file-system identity of `uid` (and group `uid`): the
/// kernel checks every path it touches as that user, with no capability of root's. Only this
/// thread changes (`setfsuid` is per thread), and only for the call.
pub(super) fn as_user<R>(uid: u32, work: impl FnOnce() -> R) -> R {
    // SAFETY: setfsuid and setfsgid take integers; raw calls act on this thread alone.
    unsafe {
        libc::syscall(libc::SYS_setfsgid, uid as libc::c_long);
        libc::syscall(libc::SYS_setfsuid, uid as libc::c_long);
    }
    let result = work();
    // SAFETY: as above; back to root's identity (the real and saved ids never changed).
    unsafe {
        libc::syscall(libc::SYS_setfsuid, 0 as libc::c_long);
        libc::syscall(libc::SYS_setfsgid, 0 as libc::c_long);
    }
    result
}

/// Removes the entries of `dir` that `uid` owns, whole, as that user (see [`as_user`]).
fn remove_owned(dir: &Path, uid: u32) {
    remove_entries(dir, |meta| meta.uid() == uid);
}

/// Removes the entries of `dir` that `which` selects, folders whole.
pub(super) fn remove_entries(dir: &Path, which: impl Fn(&fs::Metadata) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if !which(&meta) {
            continue;
        }
        let path = entry.path();
        if meta.is_dir() {
            remove_tree(&path);
        } else {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Gives a folder the grader made for a run (its working folder, a compiler's build folder) to the
/// run user, through a descriptor opened without following links.
pub(super) fn give_to(path: &Path, uid: u32) -> io::Result<()> {
    let dir = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    // SAFETY: fchown on a descriptor we own.
    if unsafe { libc::fchown(dir.as_raw_fd(), uid, uid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Removes a folder and everything in it, making folders writable first where the owner closed
/// them (`chmod 000`). Never follows a link (std's `remove_dir_all` works through descriptors).
pub(super) fn remove_tree(path: &Path) {
    if fs::remove_dir_all(path).is_ok() {
        return;
    }
    open_up(path);
    let _ = fs::remove_dir_all(path);
}

/// Gives the owner full access to `dir` and the folders below it. Called as the run user (or by a
/// grader whose programs are its own user): a link planted below can only lead to what that user
/// may change anyway.
fn open_up(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            open_up(&entry.path());
        }
    }
}

/// Removes the System V shared memory, semaphores and message queues that `uid` owns or made.
fn remove_ipc(uid: u32) {
    for (kind, file) in [(Ipc::Shm, "shm"), (Ipc::Sem, "sem"), (Ipc::Msg, "msg")] {
        // One system call says whether the machine holds any object of the kind (mostly none):
        // the table is read only then.
        if !kind.any_exist() {
            continue;
        }
        let Ok(text) = fs::read_to_string(Path::new("/proc/sysvipc").join(file)) else { continue };
        for id in owned_ipc_ids(&text, uid) {
            // SAFETY: IPC_RMID takes no buffer; an id gone meanwhile is an error we ignore.
            unsafe {
                match kind {
                    Ipc::Shm => libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    Ipc::Sem => libc::semctl(id, 0, libc::IPC_RMID),
                    Ipc::Msg => libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                };
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Ipc {
    Shm,
    Sem,
    Msg,
}

/// The kernel's `struct shm_info`, which `shmctl(SHM_INFO)` fills (the libc crate lacks it).
#[repr(C)]
struct ShmInfo {
    used_ids: libc::c_int,
    shm_tot: libc::c_ulong,
    shm_rss: libc::c_ulong,
    shm_swp: libc::c_ulong,
    swap_attempts: libc::c_ulong,
    swap_successes: libc::c_ulong,
}

/// `shmctl`'s command for [`ShmInfo`].
const SHM_INFO: libc::c_int = 14;

impl Ipc {
    /// Whether any object of this kind exists in the grader's IPC namespace (true when unsure).
    fn any_exist(self) -> bool {
        // SAFETY: each call fills the struct passed, sized for it, and reads nothing else.
        unsafe {
            match self {
                Ipc::Shm => {
                    let mut info: ShmInfo = std::mem::zeroed();
                    let rc = libc::shmctl(0, SHM_INFO, (&mut info as *mut ShmInfo).cast());
                    rc < 0 || info.used_ids > 0
                }
                Ipc::Sem => {
                    let mut info: libc::seminfo = std::mem::zeroed();
                    let rc = libc::semctl(0, 0, libc::SEM_INFO, &mut info as *mut libc::seminfo);
                    rc < 0 || info.semusz > 0
                }
                Ipc::Msg => {
                    let mut info: libc::msginfo = std::mem::zeroed();
                    let rc = libc::msgctl(0, libc::MSG_INFO, (&mut info as *mut libc::msginfo).cast());
                    rc < 0 || info.msgpool > 0
                }
            }
        }
    }
}

/// The ids of the objects in a `/proc/sysvipc` table whose owner or creator is `uid`.
fn owned_ipc_ids(table: &str, uid: u32) -> Vec<libc::c_int> {
    let mut lines = table.lines();
    let Some(header) = lines.next() else { return Vec::new() };
    let columns: Vec<&str> = header.split_whitespace().collect();
    let at = |name: &str| columns.iter().position(|c| *c == name);
    let (Some(id), Some(owner), Some(creator)) =
        (at("shmid").or(at("semid")).or(at("msqid")), at("uid"), at("cuid"))
    else {
        return Vec::new();
    };
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let is = |i: usize| fields.get(i).and_then(|f| f.parse::<u32>().ok()) == Some(uid);
            (is(owner) || is(creator)).then(|| fields.get(id)?.parse().ok()).flatten()
        })
        .collect()
}

/// The modification times of the world-writable places when a run started: a place whose time has
/// not moved since holds nothing new.
#[derive(Debug, Clone)]
pub struct Snapshot {
    at: SystemTime,
    times: BTreeMap<PathBuf, Option<SystemTime>>,
}

impl Snapshot {
    /// The places as they are now.
    pub fn now() -> Snapshot {
        let at = SystemTime::now();
        let times = places().iter().map(|dir| (dir.clone(), modified(dir))).collect();
        Snapshot { at, times }
    }

    /// A snapshot that marks every place as changed.
    fn everything() -> Snapshot {
        Snapshot { at: SystemTime::now(), times: places().iter().map(|dir| (dir.clone(), None)).collect() }
    }

    /// The places to scan: changed since the snapshot, or changed so shortly before it that the
    /// folder's coarse clock may not show a later change (see [`CLOCK_MARGIN`]).
    fn changed(&self) -> Vec<PathBuf> {
        let since = |margin| self.at.checked_sub(margin).unwrap_or(SystemTime::UNIX_EPOCH);
        let whole_seconds = |time: SystemTime| {
            time.duration_since(SystemTime::UNIX_EPOCH).is_ok_and(|t| t.subsec_nanos() == 0)
        };
        self.times
            .iter()
            .filter(|(dir, &then)| match then {
                None => true,
                Some(then) => {
                    let margin = if whole_seconds(then) { WHOLE_SECONDS_MARGIN } else { CLOCK_MARGIN };
                    then >= since(margin) || modified(dir) != Some(then)
                }
            })
            .map(|(dir, _)| dir.clone())
            .collect()
    }
}

fn modified(dir: &Path) -> Option<SystemTime> {
    fs::symlink_metadata(dir).and_then(|meta| meta.modified()).ok()
}

/// The world-writable places of this machine and their world-writable sub-folders, found once.
fn places() -> &'static [PathBuf] {
    static PLACES_FOUND: OnceLock<Vec<PathBuf>> = OnceLock::new();
    PLACES_FOUND.get_or_init(|| {
        let mut found = Vec::new();
        for place in PLACES {
            let place = Path::new(place);
            if !fs::symlink_metadata(place).is_ok_and(|meta| meta.is_dir()) {
                continue;
            }
            found.push(place.to_owned());
            for entry in fs::read_dir(place).into_iter().flatten().flatten() {
                // The entry's type comes with the listing: only folders are looked at further (a
                // shared /tmp may hold thousands of files).
                if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    continue;
                }
                if entry.metadata().is_ok_and(|meta| meta.is_dir() && meta.mode() & 0o002 != 0) {
                    found.push(entry.path());
                }
            }
        }
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipc_tables_give_the_ids_a_user_owns_or_made() {
        let table =
            "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid\n\
                     0   32769   600   1024   10   10   0   61000   61000   0   0\n\
                     0   32770   600   1024   10   10   0   0   0   61000   61000\n\
                     0   32771   600   1024   10   10   0   0   0   0   0\n";
        assert_eq!(owned_ipc_ids(table, 61000), vec![32769, 32770]);
        assert_eq!(owned_ipc_ids(table, 61001), Vec::<libc::c_int>::new());
        assert_eq!(owned_ipc_ids("", 61000), Vec::<libc::c_int>::new());
    }

    #[test]
    fn a_run_users_shared_memory_is_removed_and_no_other() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: only root may give a segment to another user");
            return;
        }
        let uid = RUN_UIDS.end - 1;
        // SAFETY: shmget and shmctl on segments this test makes; IPC_STAT fills a shmid_ds.
        let (theirs, ours) = unsafe {
            let make = || libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600);
            let (theirs, ours) = (make(), make());
            assert!(theirs >= 0 && ours >= 0);
            let mut stat: libc::shmid_ds = std::mem::zeroed();
            assert_eq!(libc::shmctl(theirs, libc::IPC_STAT, &mut stat), 0);
            stat.shm_perm.uid = uid;
            assert_eq!(libc::shmctl(theirs, libc::IPC_SET, &mut stat), 0);
            (theirs, ours)
        };
        assert!(Ipc::Shm.any_exist());
        remove_ipc(uid);
        // SAFETY: IPC_STAT of a removed segment fails; of a live one, fills the struct.
        let exists = |id| unsafe {
            let mut stat: libc::shmid_ds = std::mem::zeroed();
            libc::shmctl(id, libc::IPC_STAT, &mut stat) == 0
        };
        assert!(!exists(theirs), "the run user's segment is left");
        assert!(exists(ours), "a segment of another user was removed");
        // SAFETY: removing the test's own segment.
        unsafe { libc::shmctl(ours, libc::IPC_RMID, std::ptr::null_mut()) };
    }

    /// Runs `work` in a child process that is `uid`, and returns its exit status.
    fn as_child_of(uid: u32, work: impl Fn() -> i32) -> i32 {
        // SAFETY: the child makes raw system calls only, then exits; the parent waits for it.
        unsafe {
            let child = libc::fork();
            assert!(child >= 0);
            if child == 0 {
                let id = uid as libc::c_long;
                if libc::syscall(libc::SYS_setresgid, id, id, id) != 0
                    || libc::syscall(libc::SYS_setresuid, id, id, id) != 0
                {
                    libc::_exit(100);
                }
                libc::_exit(work());
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(child, &mut status, 0), child);
            assert!(libc::WIFEXITED(status));
            libc::WEXITSTATUS(status)
        }
    }

    #[test]
    fn the_sweep_empties_a_run_users_keyrings_the_persistent_one_too() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: only root may become a run user");
            return;
        }
        let uid = RUN_UIDS.end - 2;
        // <linux/keyctl.h>: the user and process keyrings; the commands to reach the persistent
        // keyring and to read a keyring's list of keys.
        const USER_KEYRING: libc::c_long = -4;
        const PROCESS_KEYRING: libc::c_long = -2;
        const GET_PERSISTENT: libc::c_long = 22;
        const READ: libc::c_long = 11;
        let persistent = || unsafe {
            libc::syscall(libc::SYS_keyctl, GET_PERSISTENT, -1 as libc::c_long, PROCESS_KEYRING)
        };
        // A run (unsealed, as where no filter can be had) that saves a key in each.
        let planted = as_child_of(uid, || unsafe {
            let add = |keyring: libc::c_long| {
                libc::syscall(
                    libc::SYS_add_key,
                    c"user".as_ptr(),
                    c"planted".as_ptr(),
                    c"x".as_ptr(),
                    1,
                    keyring,
                ) > 0
            };
            let persistent = persistent();
            i32::from(!add(USER_KEYRING)) + 2 * i32::from(persistent > 0 && !add(persistent))
        });
        assert_eq!(planted, 0, "the test could not plant its keys");
        kill_all(uid).unwrap();
        // Bytes of key ids each keyring lists: none.
        let listed = as_child_of(uid, || unsafe {
            let mut keys = [0i32; 16];
            let size = std::mem::size_of_val(&keys);
            let mut read = |keyring: libc::c_long| {
                libc::syscall(libc::SYS_keyctl, READ, keyring, keys.as_mut_ptr(), size)
            };
            let persistent = persistent();
            let in_persistent = if persistent > 0 { read(persistent) } else { 0 };
            (read(USER_KEYRING) + in_persistent) as i32
        });
        assert_eq!(listed, 0, "keys left in the run user's keyrings");
    }

    #[test]
    fn a_place_changed_during_a_run_or_just_before_it_is_scanned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_owned();
        let old = SystemTime::now() - Duration::from_secs(60);
        let file = File::open(&path).unwrap();
        file.set_modified(old).unwrap();
        let snapshot =
            Snapshot { at: SystemTime::now(), times: BTreeMap::from([(path.clone(), modified(&path))]) };
        assert!(snapshot.changed().is_empty(), "an untouched place is not scanned");
        fs::write(path.join("new"), "x").unwrap();
        assert_eq!(snapshot.changed(), vec![path.clone()]);
        // Changed within the margin before the run: scanned even if its time has not moved.
        let recent =
            Snapshot { at: SystemTime::now(), times: BTreeMap::from([(path.clone(), modified(&path))]) };
        assert_eq!(recent.changed(), vec![path.clone()]);
        // A second and a half before the run: past the margin, unless the time is of whole
        // seconds, which a coarser file system would give a change later in that second too.
        let whole = SystemTime::UNIX_EPOCH
            + Duration::from_secs(
                SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs(),
            );
        for (then, scanned) in [(whole + Duration::from_nanos(1), false), (whole, true)] {
            file.set_modified(then).unwrap();
            let snapshot = Snapshot {
                at: then + Duration::from_millis(1500),
                times: BTreeMap::from([(path.clone(), modified(&path))]),
            };
            assert_eq!(snapshot.changed().len(), usize::from(scanned), "{then:?}");
        }
    }
}
