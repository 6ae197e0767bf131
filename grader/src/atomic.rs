//! Atomic file writes for every output the grader keeps (class files, hand grades): a reader (a
//! teaching assistant's spreadsheet, a `grader review`, a web server) sees the old file or the new
//! one, never half of one. Owned by no stage, so that the batch and the gradebook both use it without
//! importing each other.

use std::path::{Path, PathBuf};

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// What the system said.
    #[source]
    pub source: std::io::Error,
}

/// Writes a file atomically: a temporary file in the same folder, renamed over the target. The file
/// gets the mode any new file gets (0666 less the umask: 0644 under the usual 022), not the 0600 of a
/// temporary file, so that teaching assistants and a web server can read a class's outputs.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    use std::os::unix::fs::PermissionsExt;
    let err = |source| WriteError { path: path.to_owned(), source };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut file = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(err)?;
    std::io::Write::write_all(&mut file, bytes).map_err(err)?;
    file.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}
