//! The working folders of runs without namespaces: an empty folder for every run, and nothing of one
//! run's folder reaches the next.
//!
//! The folders are made below one parent per grader process that only the grader may write (root's
//! is mode 0711: a run user can enter its own folder by path but neither list nor change the
//! parent), so no program can put a link where a later run's folder will be. A folder is handed to
//! its run user through a descriptor opened without following links (`fchown`), and emptied as that
//! user (see `users::as_user`) once every process of the user is dead; nothing is done as root
//! through a path a program could have touched. (A sandbox's working folder is a tmpfs inside it:
//! none is made on the host.)
//!
//! A root grader keeps each run user's folder for that user's next run, once emptied, when it is
//! exactly as it was given: empty, private, the same size and inode flags, no extended attributes
//! (ACLs are some), its times set again. A folder made and removed for every run cost an ext4
//! journal's work twice per run (a tenth of what a run cost the grader, and most of its wall time
//! where the disk discards freed blocks). A folder its program changed in any other way is removed
//! and the next run gets a new one. A folder made for a grader's own user (not root) serves one
//! run: that user is the grader's, and nothing could be proven of it.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use super::users;

/// A run's working folder, emptied when dropped, and removed unless kept for its user's next run.
#[derive(Debug)]
pub struct Workdir {
    path: PathBuf,
    /// The run user that owns it (a root grader's run), who empties it, and how it was given.
    owner: Option<(u32, AsGiven)>,
    /// Whether it may serve its user's next run (see [`Workdir::never_keep`]).
    keep: bool,
}

/// What a run user's folder was like when it was given, beyond being empty and the user's with mode
/// 0700: what a program could change and leave behind for a later run of the same user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AsGiven {
    /// The folder's size: a directory grown by many entries keeps its size when emptied (ext4).
    size: u64,
    /// The inode flags (`chattr`), or `None` where the file system has none.
    flags: Option<libc::c_long>,
}

/// Run users' folders kept for their next run, emptied and found as given.
static KEPT: Mutex<Option<HashMap<u32, (PathBuf, AsGiven)>>> = Mutex::new(None);

fn kept() -> std::sync::MutexGuard<'static, Option<HashMap<u32, (PathBuf, AsGiven)>>> {
    KEPT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The parent of this process's working folders, made once and removed at exit.
fn parent() -> io::Result<&'static Path> {
    static PARENT: OnceLock<PathBuf> = OnceLock::new();
    if let Some(parent) = PARENT.get() {
        return Ok(parent);
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // A root grader's run users reach their folders by path, and their files are removed as them:
    // every folder above must be open to others. A private temporary folder (TMPDIR) is not.
    let mut base = std::env::temp_dir();
    if root && !super::nobody_can_enter(&base) {
        base = PathBuf::from("/tmp");
    }
    let made = tempfile::Builder::new()
        .prefix("grader-runs-")
        .permissions(fs::Permissions::from_mode(if root { 0o711 } else { 0o700 }))
        .tempdir_in(base)?
        .keep();
    let mut fresh = false;
    let parent = PARENT.get_or_init(|| {
        fresh = true;
        made.clone()
    });
    if fresh {
        // SAFETY: `remove_parent` takes no arguments and ignores every error.
        unsafe { libc::atexit(remove_parent) };
    } else {
        let _ = fs::remove_dir(&made);
    }
    Ok(parent)
}

/// Removes the kept folders that no run uses (they are empty).
fn remove_kept() {
    if let Some(folders) = kept().take() {
        for (path, _) in folders.into_values() {
            let _ = fs::remove_dir(path);
        }
    }
}

/// Gradings under way (see [`KeptFolders`]).
static HOLDERS: AtomicUsize = AtomicUsize::new(0);

/// Held by a grading while it runs programs: when the last grading under way ends, the folders kept
/// for run users are removed, so that a grading leaves no folder behind, even in a process that
/// goes on (a test, a server); a batch's gradings overlap, and keep them from one student to the
/// next.
#[derive(Debug)]
pub struct KeptFolders(());

impl KeptFolders {
    /// Counts a grading under way until the value is dropped.
    pub fn hold() -> KeptFolders {
        HOLDERS.fetch_add(1, Ordering::SeqCst);
        KeptFolders(())
    }
}

impl Drop for KeptFolders {
    fn drop(&mut self) {
        if HOLDERS.fetch_sub(1, Ordering::SeqCst) == 1 {
            remove_kept();
        }
    }
}

/// Removes the kept folders (empty) and then the (then empty) parent folder as the grader exits.
extern "C" fn remove_parent() {
    remove_kept();
    if let Ok(parent) = parent() {
        let _ = fs::remove_dir(parent);
    }
}

impl Workdir {
    /// An empty folder for one run, owned by `owner` (a run user) when given: that user's folder
    /// from its last run when it was kept, else a new one.
    pub fn create(owner: Option<u32>) -> io::Result<Workdir> {
        if let Some(uid) = owner {
            if let Some((path, as_given)) = kept().as_mut().and_then(|folders| folders.remove(&uid)) {
                return Ok(Workdir { path, owner: Some((uid, as_given)), keep: true });
            }
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = parent()?.join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
        fs::DirBuilder::new().mode(0o700).create(&path)?;
        let mut workdir = Workdir { path, owner: None, keep: true };
        if let Some(uid) = owner {
            // The folder is new and its parent is the grader's alone: no program has touched it.
            users::give_to(&workdir.path, uid)?;
            let folder = open_folder(&workdir.path)?;
            let size = folder.metadata()?.size();
            workdir.owner = Some((uid, AsGiven { size, flags: inode_flags(&folder) }));
        }
        Ok(workdir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the folder when dropped, whatever it is like: a process of its user may have survived
    /// the run (see `Leased::release`) and could still write to it.
    pub fn never_keep(&mut self) {
        self.keep = false;
    }

    /// True when the (emptied) `folder` is as it was given to `uid`; then its times are set again,
    /// so that none a program set reaches the next run.
    fn is_as_given(folder: &File, uid: u32, as_given: AsGiven, found_empty: bool) -> bool {
        let Ok(meta) = folder.metadata() else { return false };
        let private = meta.uid() == uid && meta.gid() == uid && meta.mode() == libc::S_IFDIR | 0o700;
        if !private || meta.size() != as_given.size || inode_flags(folder) != as_given.flags {
            return false;
        }
        // SAFETY: flistxattr with a null buffer and size 0 only returns the size the names need.
        let attributes = unsafe { libc::flistxattr(folder.as_raw_fd(), std::ptr::null_mut(), 0) };
        if attributes != 0 || !(found_empty || is_empty(folder)) {
            return false;
        }
        // SAFETY: futimens with a null array sets both times to now on a descriptor we own.
        unsafe { libc::futimens(folder.as_raw_fd(), std::ptr::null()) == 0 }
    }
}

/// True when the folder holds nothing but `.` and `..`, read from its start through `folder`.
fn is_empty(folder: &File) -> bool {
    let fd = folder.as_raw_fd();
    // SAFETY: lseek on a descriptor we own.
    if unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } != 0 {
        return false;
    }
    let mut buffer = [0u64; 512];
    loop {
        // SAFETY: getdents64 writes at most the buffer's length into it.
        let read = unsafe {
            libc::syscall(libc::SYS_getdents64, fd, buffer.as_mut_ptr(), std::mem::size_of_val(&buffer))
        };
        let Ok(read) = usize::try_from(read) else { return false };
        if read == 0 {
            return true;
        }
        // SAFETY: the kernel wrote `read` bytes of `struct linux_dirent64` records.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), read) };
        let mut at = 0;
        while at + 19 < bytes.len() {
            // d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), then the name, NUL-ended.
            let length = usize::from(u16::from_ne_bytes([bytes[at + 16], bytes[at + 17]]));
            if length <= 19 || at + length > bytes.len() {
                return false;
            }
            let name = bytes[at + 19..at + length].split(|&b| b == 0).next().unwrap_or_default();
            if name != b"." && name != b".." {
                return false;
            }
            at += length;
        }
    }
}

/// Opens a folder of the grader's parent, never through a link.
fn open_folder(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// The folder's inode flags, or `None` where the file system keeps none.
fn inode_flags(folder: &File) -> Option<libc::c_long> {
    let mut flags: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS writes the flags (an int, whatever its name says) into `flags`.
    let rc = unsafe { libc::ioctl(folder.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) };
    (rc == 0).then_some(flags)
}

impl Drop for Workdir {
    fn drop(&mut self) {
        // What the program left is removed as its own user; then the folder is kept for the user's
        // next run if it is as given, else its name is removed from the parent only the grader may
        // write.
        let contents = || users::remove_entries(&self.path, |_| true);
        match self.owner {
            Some((uid, as_given)) => {
                // Most programs leave nothing: their folder is found empty through the descriptor
                // that checks it, and nothing is removed.
                let folder = open_folder(&self.path).ok();
                let found_empty = folder.as_ref().is_some_and(is_empty);
                if !found_empty {
                    users::as_user(uid, contents);
                }
                let unchanged = |folder: File| Self::is_as_given(&folder, uid, as_given, found_empty);
                if self.keep && folder.is_some_and(unchanged) {
                    let path = std::mem::take(&mut self.path);
                    kept().get_or_insert_with(HashMap::new).insert(uid, (path, as_given));
                    return;
                }
            }
            None => contents(),
        }
        if fs::remove_dir(&self.path).is_err() {
            // A folder whose mode its program changed: its own user may change it back.
            let retry = || {
                users::remove_tree(&self.path);
            };
            match self.owner {
                Some((uid, _)) => users::as_user(uid, retry),
                None => retry(),
            }
            let _ = fs::remove_dir(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::users::RunUser;
    use std::time::{Duration, SystemTime};

    /// A run user's folder after `change` made as that user: kept for the user's next run (its path
    /// comes back, empty and with its times set again) or not (a new folder comes).
    fn kept_after(uid: u32, change: impl FnOnce(&Path)) -> bool {
        let first = Workdir::create(Some(uid)).unwrap();
        let path = first.path().to_owned();
        users::as_user(uid, || change(&path));
        drop(first);
        let next = Workdir::create(Some(uid)).unwrap();
        let kept = next.path() == path;
        if kept {
            assert_eq!(fs::read_dir(&path).unwrap().count(), 0, "a kept folder is empty");
            let meta = fs::metadata(&path).unwrap();
            let age = SystemTime::now().duration_since(meta.modified().unwrap()).unwrap_or_default();
            assert!(age < Duration::from_secs(60), "a kept folder's times are set again");
        } else {
            assert!(!path.exists(), "{} was left behind", path.display());
        }
        kept
    }

    #[test]
    fn a_run_users_folder_is_kept_only_as_it_was_given() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: run users' folders are kept for a root grader only");
            return;
        }
        // Held, so that no other test's grading, ending, removes the folders this one keeps.
        let _held = KeptFolders::hold();
        let user = RunUser::take().unwrap();
        let uid = user.uid();
        let xattr = |path: &Path, name: &std::ffi::CStr| {
            let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: setxattr reads the two C strings and the 3-byte value.
            unsafe { libc::setxattr(path.as_ptr(), name.as_ptr(), b"hi!".as_ptr().cast(), 3, 0) }
        };
        assert!(kept_after(uid, |_| ()), "an untouched folder is kept");
        // What a program leaves inside is removed, and the folder then serves again.
        assert!(kept_after(uid, |path| {
            fs::write(path.join("left"), "data").unwrap();
            fs::create_dir_all(path.join("deep/er")).unwrap();
            File::open(path).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        }));
        // What could carry a message to a later run of the same user is not kept.
        assert!(
            !kept_after(uid, |path| fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap())
        );
        // Where the file system keeps extended attributes (ext4, tmpfs, xfs: the folders' usual homes).
        let mut has_xattrs = true;
        let kept_with_xattr = kept_after(uid, |path| {
            if xattr(path, c"user.note") != 0 {
                let error = io::Error::last_os_error();
                assert_eq!(error.raw_os_error(), Some(libc::EOPNOTSUPP), "{error}");
                has_xattrs = false;
            }
        });
        assert!(!has_xattrs || !kept_with_xattr, "a folder holding an extended attribute was kept");
        assert!(!kept_after(uid, |path| {
            // Enough entries to grow the folder, which stays grown once emptied.
            for i in 0..2000 {
                fs::write(path.join(format!("a-rather-long-file-name-to-grow-the-folder-{i}")), "").unwrap();
            }
        }));
        let mut folder = Workdir::create(Some(uid)).unwrap();
        folder.never_keep();
        let path = folder.path().to_owned();
        drop(folder);
        assert!(!path.exists(), "a folder that must not be kept is removed");
        user.put_back();
    }

    #[test]
    fn a_folder_is_empty_only_without_any_entry_whatever_came_and_went() {
        let dir = tempfile::tempdir().unwrap();
        let open = || open_folder(dir.path()).unwrap();
        let folder = open();
        assert!(is_empty(&folder));
        // More entries than one read of the folder returns, then all but the last one removed.
        let names: Vec<PathBuf> = (0..600).map(|i| dir.path().join(format!("entry-{i:04}"))).collect();
        for name in &names {
            fs::write(name, "").unwrap();
        }
        assert!(!is_empty(&open()));
        for name in &names[..599] {
            fs::remove_file(name).unwrap();
        }
        assert!(!is_empty(&open()));
        // The same descriptor is read again from its start each time.
        assert!(!is_empty(&folder));
        fs::remove_file(&names[599]).unwrap();
        assert!(is_empty(&folder) && is_empty(&open()));
        fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(!is_empty(&folder));
    }
}
