//! Caps on what one submission may hold (files, bytes), and reading a file within them.

use std::io::Read;

/// Caps on what one submission may hold, as files in a folder or entries of an archive, so that a
/// zip bomb, a dumped home folder or one file of gigabytes costs nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveCaps {
    /// Entries (files and folders) at most.
    pub entries: usize,
    /// Bytes of one (unpacked) file at most.
    pub file_bytes: u64,
    /// Bytes of all (unpacked) files together at most.
    pub total_bytes: u64,
}

impl Default for ArchiveCaps {
    fn default() -> Self {
        ArchiveCaps { entries: 2000, file_bytes: 8 << 20, total_bytes: 64 << 20 }
    }
}

/// A number of bytes as a reader says it: `8 MiB`, else `1000 bytes`.
pub(crate) fn show_bytes(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Why a file of a submission was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CapError {
    /// One file is larger than [`ArchiveCaps::file_bytes`].
    #[error("{name} is larger than {}, the cap on one file of a submission", show_bytes(*cap))]
    File {
        /// The file, as the submission names it.
        name: String,
        /// The cap.
        cap: u64,
    },
    /// The files read so far, this one included, are larger than [`ArchiveCaps::total_bytes`].
    #[error("with {name} the files are larger than {}, the cap on a submission's files together", show_bytes(*cap))]
    Total {
        /// The file that went over.
        name: String,
        /// The cap.
        cap: u64,
    },
    /// More files than [`ArchiveCaps::entries`].
    #[error("more than {cap} files, the cap on one submission: is it a submission?")]
    Entries {
        /// The cap.
        cap: usize,
    },
    /// The file could not be read.
    #[error("cannot read {name}: {error}")]
    Io {
        /// The file.
        name: String,
        /// What the system said.
        error: std::io::Error,
    },
}

impl ArchiveCaps {
    /// Reads one file (`name` in messages) within the caps: at most [`file_bytes`](Self::file_bytes),
    /// and at most what `used` (the bytes of the files read before it, which this adds to) leaves of
    /// [`total_bytes`](Self::total_bytes). It never reads more than one byte past a cap, however large
    /// the file (a sparse file of terabytes, a zip bomb, `/dev/zero`).
    pub(crate) fn read(&self, name: &str, reader: impl Read, used: &mut u64) -> Result<Vec<u8>, CapError> {
        let left = self.total_bytes.saturating_sub(*used);
        let cap = self.file_bytes.min(left);
        let mut content = Vec::new();
        reader
            .take(cap + 1)
            .read_to_end(&mut content)
            .map_err(|error| CapError::Io { name: name.to_owned(), error })?;
        let size = content.len() as u64;
        if size > self.file_bytes {
            return Err(CapError::File { name: name.to_owned(), cap: self.file_bytes });
        }
        if size > left {
            return Err(CapError::Total { name: name.to_owned(), cap: self.total_bytes });
        }
        *used += size;
        Ok(content)
    }
}
