//! The working folders of runs without namespaces: a new, empty folder for every run, never used
//! again once a program has run in it.
//!
//! The folders are made below one parent per grader process that only the grader may write (root's
//! is mode 0711: a run user can enter its own folder by path but neither list nor change the
//! parent), so no program can put a link where a later run's folder will be. A folder is handed to
//! its run user through a descriptor opened without following links (`fchown`), and emptied as that
//! user (see `users::as_user`) once every process of the user is dead; only the empty folder's name
//! is then removed by the grader, from the parent nobody else can write. Nothing is done as root
//! through a path a program could have touched. (A sandbox's working folder is a tmpfs inside it:
//! none is made on the host.)

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::users;

/// A run's working folder, removed when dropped.
#[derive(Debug)]
pub struct Workdir {
    path: PathBuf,
    /// The run user that owns it (a root grader's run), who empties it.
    owner: Option<u32>,
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

/// Removes the (then empty) parent folder as the grader exits.
extern "C" fn remove_parent() {
    if let Ok(parent) = parent() {
        let _ = fs::remove_dir(parent);
    }
}

impl Workdir {
    /// A new, empty folder for one run, owned by `owner` (a run user) when given.
    pub fn create(owner: Option<u32>) -> io::Result<Workdir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = parent()?.join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
        fs::DirBuilder::new().mode(0o700).create(&path)?;
        let mut workdir = Workdir { path, owner: None };
        if let Some(uid) = owner {
            // The folder is new and its parent is the grader's alone: no program has touched it.
            users::give_to(&workdir.path, uid)?;
            workdir.owner = owner;
        }
        Ok(workdir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        // What the program left is removed as its own user; then the empty folder, from the parent
        // that only the grader may write.
        let contents = || users::remove_entries(&self.path, |_| true);
        match self.owner {
            Some(uid) => users::as_user(uid, contents),
            None => contents(),
        }
        if fs::remove_dir(&self.path).is_err() {
            // A folder whose mode its program changed: its own user may change it back.
            let retry = || {
                users::remove_tree(&self.path);
            };
            match self.owner {
                Some(uid) => users::as_user(uid, retry),
                None => retry(),
            }
            let _ = fs::remove_dir(&self.path);
        }
    }
}
