//! The working folders of runs without namespaces: each run starts in an empty folder of its own.
//!
//! Making and removing a folder on a journaled disk costs more than a short run's program, and
//! waits for the journal while the run holds its CPU slot. So a folder that its run left as it got
//! it (empty, mode 0700) serves the next run; any other is removed, whatever the program did to it.
//! The folders kept are removed when the grader exits. (A sandbox's working folder is a tmpfs inside
//! it: none is made on the host.)

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::pool::Pool;

/// Folders left empty by their runs, for the next ones.
static POOL: Pool<PathBuf> = Pool::new();

/// The mode a working folder is made with, and must still have to be used again.
const MODE: u32 = 0o700;

/// A run's working folder: back to the pool or removed when dropped.
#[derive(Debug)]
pub struct Workdir {
    path: PathBuf,
}

impl Workdir {
    /// An empty folder for one run: a pooled one, or a new one in the temp folder.
    pub fn take() -> io::Result<Workdir> {
        if let Some(path) = POOL.take() {
            return Ok(Workdir { path });
        }
        let dir = tempfile::Builder::new()
            .prefix("grader-run-")
            .permissions(fs::Permissions::from_mode(MODE))
            .tempdir()?;
        Ok(Workdir { path: dir.keep() })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the folder now, never to be used again.
    pub fn discard(mut self) {
        remove(&std::mem::take(&mut self.path));
    }
}

/// Removes the pooled folders as the grader exits.
extern "C" fn empty_pool() {
    for path in POOL.drain() {
        let _ = fs::remove_dir(path);
    }
}

/// True when the folder is as a new one: a folder (not a symlink), mode [`MODE`], nothing in it.
fn as_new(path: &Path) -> bool {
    let kept_mode = fs::symlink_metadata(path)
        .is_ok_and(|meta| meta.is_dir() && meta.permissions().mode() & 0o7777 == MODE);
    kept_mode && fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let path = std::mem::take(&mut self.path);
        if path.as_os_str().is_empty() {
            return;
        }
        if as_new(&path) {
            POOL.put(path, empty_pool);
        } else {
            remove(&path);
        }
    }
}

/// Removes the folder, first making every folder in it writable again so that a program that ran
/// `chmod 000` on a folder cannot make the grader leave it behind. Best effort.
fn remove(path: &Path) {
    if fs::remove_dir(path).is_ok() {
        return;
    }
    if fs::remove_dir_all(path).is_err() {
        make_writable(path);
        let _ = fs::remove_dir_all(path);
    }
}

/// Gives the owner full access to `dir` and every directory below it (symlinks are not followed).
fn make_writable(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            make_writable(&entry.path());
        }
    }
}
