//! Where a batch may write: never inside the class folder it reads, where the next run would take
//! its `students/` for a student.

use std::path::{Path, PathBuf};

use super::BatchError;

/// Refuses an output folder inside a class folder: its `students/` would be a student of the next
/// run. Both are compared as absolute paths with links and `..` resolved as the system will when
/// the output folder is made (it need not exist yet).
pub(crate) fn refuse_out_inside(root: &Path, out: &Path) -> Result<(), BatchError> {
    if !root.is_dir() {
        return Ok(());
    }
    let Ok(class) = root.canonicalize() else { return Ok(()) };
    if resolved(out).starts_with(&class) {
        return Err(BatchError::OutInsideClass { out: out.to_owned(), root: root.to_owned() });
    }
    Ok(())
}

/// `path` made absolute, each `..` taken after resolving the links before it, and its longest
/// existing part with its links resolved.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
    let mut walked = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::ParentDir => {
                walked = real(&walked);
                walked.pop();
            }
            std::path::Component::CurDir => {}
            other => walked.push(other),
        }
    }
    let mut existing = walked.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else { break };
        rest.push(name.to_owned());
        existing = parent;
    }
    let mut full = real(existing);
    full.extend(rest.iter().rev());
    full
}
