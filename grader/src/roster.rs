//! Roster stage of class grading: who handed in what, from the layouts course platforms hand out.
//!
//! A class root is a folder (or a `.zip` / `.tar.gz` of one) holding, in any mix:
//! - a folder per student: named by the student (a classroom organisation's clone-all), or a Moodle
//!   download's `Full Name_12345_assignsubmission_file_` (id `12345`, name `Full Name`); the same
//!   student's `..._assignsubmission_onlinetext_` folder (text typed into Moodle) is no submission
//!   of files: it is left out, and their report says so;
//! - loose files whose names carry the student: a flat Moodle download's
//!   `Full Name_12345_assignsubmission_file_main.c`, Canvas's `lastname_12345_678_main.c` (also
//!   `lastname_LATE_12345_678_main.c`, kept as a late mark; a resubmitted `main-1.c` is taken as
//!   `main.c`, the highest number being the latest);
//! - a loose source file or archive per student, named by the student (`alice.c`, `bob.zip`).
//!
//! A student's files are the ones the assignment takes, at the top of their folder, or else in the one
//! archive or the one sub-folder it holds. Archives are read in memory, never unpacked to disk, with
//! caps on their size and number of entries; an entry whose path climbs out (`../`) or is absolute is
//! refused. A problem with one student's files is that student's (an error in its [`Entry`]), never
//! the class's: in a class archive too, such an entry is left out and its student's row is the error.
//!
//! Several submissions under one id (`tina/`, `tina.c`, `tina.zip`) are one student: one of them is
//! graded (one with files the assignment takes before one without; then a folder, an archive,
//! a platform's loose files, a loose file; then by name), and the others are named in the entry
//! ([`Entry::left_out`]) for the batch to say loudly.

mod archive;
mod layout;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::build::SourceFile;
use archive::{folder_files, pick, read_archive, read_file, unpack_class, CLASS_ARCHIVE_CAPS};
use layout::{canvas_original, moodle_folder, platform_file, Platform};

/// The caps of a student's files are those of any submission (`grader grade` reads a folder within
/// them too).
pub use crate::build::ArchiveCaps;

/// A student's files, or why they could not be read.
type Files = Result<Vec<SourceFile>, String>;

/// One student's submission as the layout gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The id the layout gives (a Moodle or Canvas user id, else the folder or file name).
    pub id: String,
    /// The student's name, where the layout gives one.
    pub name: Option<String>,
    /// Where it came from, relative to the root (several places for a platform's loose files,
    /// comma-separated).
    pub origin: String,
    /// The files the assignment takes, sorted by name; or why they could not be read.
    pub files: Result<Vec<SourceFile>, String>,
    /// What the download says beyond the files: the late mark, what was renamed or left out.
    pub facts: Facts,
}

/// What a class download says of a student beyond their files, kept in their record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// Marked late by the layout (Canvas's `_LATE_`); `None` where the layout marks nothing (Moodle,
    /// folders, loose files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<bool>,
    /// Sentences for the student's report: a file taken under the name it was handed in as, an online
    /// text left out, the other submissions under the same id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Other submissions found under the same id and not graded, by where they are in the root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

impl Facts {
    /// Nothing to say.
    pub fn is_empty(&self) -> bool {
        *self == Facts::default()
    }
}

/// A class root that cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum RosterError {
    /// The root or one of its folders cannot be listed.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The root is an archive that cannot be read.
    #[error("cannot read the archive {}: {message}", path.display())]
    Archive {
        /// The archive.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// Lists the submissions under a class root, one per id, sorted by id.
pub fn discover(
    root: &Path,
    patterns: &[glob::Pattern],
    caps: ArchiveCaps,
) -> Result<Vec<Entry>, RosterError> {
    let pieces = if is_archive(root) && root.is_file() {
        // Unpacked to a scratch folder that lives until every file has been read into memory.
        let scratch =
            tempfile::tempdir().map_err(|source| RosterError::Io { path: root.to_owned(), source })?;
        let unpacked = unpack_class(root, scratch.path(), CLASS_ARCHIVE_CAPS)
            .map_err(|message| RosterError::Archive { path: root.to_owned(), message })?;
        let mut pieces = pieces_of(&unpacked.top, patterns, caps)?;
        let archive = root.file_name().unwrap_or_default().to_string_lossy();
        for piece in &mut pieces {
            // A platform's student has one place per file.
            if let Some(why) = piece.places.iter().find_map(|name| unpacked.refused.get(name)) {
                piece.files = Err(why.clone());
            }
            for place in &mut piece.places {
                *place = format!("{archive}:{place}");
            }
        }
        pieces
    } else {
        pieces_of(root, patterns, caps)?
    };
    Ok(entries_of(pieces, patterns))
}

/// What a piece of a class root is: its shape decides which of one id's several submissions is
/// graded (the lowest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    /// A folder.
    Folder,
    /// An archive.
    Archive,
    /// A course platform's loose files of one student.
    PlatformFiles,
    /// A loose source file.
    File,
    /// A Moodle online text: never a submission of files.
    OnlineText,
}

/// One folder, archive or loose file of a class root (or a platform's loose files of one student).
#[derive(Debug)]
struct Piece {
    id: String,
    name: Option<String>,
    /// Its names in the root.
    places: Vec<String>,
    shape: Shape,
    files: Files,
    late: Option<bool>,
    notes: Vec<String>,
}

/// The pieces of a class folder, in name order.
fn pieces_of(root: &Path, patterns: &[glob::Pattern], caps: ArchiveCaps) -> Result<Vec<Piece>, RosterError> {
    let mut pieces = Vec::new();
    // A platform's loose files of one student, gathered by platform and id.
    let mut platform: BTreeMap<(Platform, String), PlatformFiles> = BTreeMap::new();
    for (name, path) in list(root)? {
        if path.is_dir() {
            let (id, student, shape) = match moodle_folder(&name) {
                Some(m) if m.online_text => (m.id, Some(m.name), Shape::OnlineText),
                Some(m) => (m.id, Some(m.name), Shape::Folder),
                None => (name.clone(), None, Shape::Folder),
            };
            let files =
                if shape == Shape::OnlineText { Ok(Vec::new()) } else { folder_files(&path, patterns, caps) };
            pieces.push(Piece::new(id, student, name, shape, files));
        } else if let Some(file) = platform_file(&name) {
            if file.online_text {
                pieces.push(Piece::new(file.id, Some(file.name), name, Shape::OnlineText, Ok(Vec::new())));
                continue;
            }
            let slot = platform.entry((file.platform, file.id.clone())).or_insert_with(|| PlatformFiles {
                name: file.name.clone(),
                late: None,
                places: Vec::new(),
                files: Ok(Vec::new()),
            });
            slot.places.push(name.clone());
            slot.late = match (slot.late, file.late) {
                (Some(a), Some(b)) => Some(a || b),
                (a, b) => a.or(b),
            };
            let read = read_platform_file(&path, &name, &file, patterns, caps);
            match (&mut slot.files, read) {
                (Ok(all), Ok(files)) => all.extend(files),
                (Ok(_), Err(e)) => slot.files = Err(format!("{name}: {e}")),
                (Err(_), _) => {}
            }
        } else if is_archive(&path) {
            let (id, student) = student_of(stem(&name));
            let files = read_archive(&path, caps).map(|tree| pick(&tree, patterns));
            pieces.push(Piece::new(id, student, name, Shape::Archive, files));
        } else if patterns.iter().any(|p| p.matches(&name)) {
            let (id, student) = student_of(stem(&name));
            let files = read_file(&path, &name, caps, &mut 0)
                .map(|content| vec![SourceFile { name: name.clone(), content }]);
            pieces.push(Piece::new(id, student, name, Shape::File, files));
        }
    }
    for ((_, id), gathered) in platform {
        let (files, notes) = match gathered.files {
            Ok(versions) => {
                let (files, notes) = latest_versions(versions);
                (Ok(files), notes)
            }
            Err(e) => (Err(e), Vec::new()),
        };
        pieces.push(Piece {
            id,
            name: Some(gathered.name),
            places: gathered.places,
            shape: Shape::PlatformFiles,
            files,
            late: gathered.late,
            notes,
        });
    }
    Ok(pieces)
}

/// The file a platform's name gives (`file`), at `path`: under the name it was handed in as; an
/// archive's files under their own names (only an upload is renamed).
fn read_platform_file(
    path: &Path,
    name: &str,
    file: &layout::PlatformFile,
    patterns: &[glob::Pattern],
    caps: ArchiveCaps,
) -> Result<Vec<Version>, String> {
    if is_archive(path) {
        return read_archive(path, caps).map(|tree| {
            pick(&tree, patterns)
                .into_iter()
                .map(|f| Version { given: f.name.clone(), n: 0, file: f })
                .collect()
        });
    }
    let (original, n) = match file.platform {
        Platform::Canvas => canvas_original(&file.file),
        Platform::Moodle => (file.file.clone(), 0),
    };
    if !patterns.iter().any(|p| p.matches(&original)) {
        return Ok(Vec::new());
    }
    read_file(path, name, caps, &mut 0).map(|content| {
        vec![Version { given: file.file.clone(), n, file: SourceFile { name: original, content } }]
    })
}

/// A platform's loose files of one student, as gathered.
struct PlatformFiles {
    name: String,
    late: Option<bool>,
    places: Vec<String>,
    files: Result<Vec<Version>, String>,
}

/// A file of a platform's download, named as it was handed in (`main.c` for Canvas's `main-2.c`).
struct Version {
    /// The name the platform gives it.
    given: String,
    /// Which resubmission it is (Canvas's `-2`): the highest is the latest; 0 for the first.
    n: u64,
    file: SourceFile,
}

impl Piece {
    fn new(id: String, name: Option<String>, place: String, shape: Shape, files: Files) -> Piece {
        Piece { id, name, places: vec![place], shape, files, late: None, notes: Vec::new() }
    }

    /// Where it is in the root, as the report says it.
    fn origin(&self) -> String {
        self.places.join(", ")
    }

    /// Whether it holds files the assignment takes.
    fn has_files(&self) -> bool {
        self.files.as_ref().is_ok_and(|f| !f.is_empty())
    }
}

/// A student's files under the names they were handed in as, the latest of each name (Canvas's
/// highest resubmission number), and a sentence for each file renamed or left out.
fn latest_versions(versions: Vec<Version>) -> (Vec<SourceFile>, Vec<String>) {
    let mut by_name: BTreeMap<String, Vec<Version>> = BTreeMap::new();
    for version in versions {
        by_name.entry(version.file.name.clone()).or_default().push(version);
    }
    let mut taken = Vec::new();
    let mut notes = Vec::new();
    for (original, mut versions) in by_name {
        versions.sort_by(|a, b| a.n.cmp(&b.n).then(a.given.cmp(&b.given)));
        let latest = versions.pop().expect("one version at least");
        let others: Vec<String> = versions.iter().map(|v| format!("`{}`", v.given)).collect();
        let others = if others.is_empty() {
            String::new()
        } else {
            format!(" (the latest; left out: {})", others.join(", "))
        };
        if latest.n > 0 {
            notes.push(format!(
                "`{}` was taken as `{original}`: Canvas renames a file handed in again under a name it \
                 already had{others}",
                latest.given
            ));
        } else if !others.is_empty() {
            notes.push(format!("`{}` was taken as `{original}`{others}", latest.given));
        }
        taken.push(latest.file);
    }
    (taken, notes)
}

/// One entry per id: a Moodle online text joins its student as a note; of several submissions, one
/// is graded and the others are named.
fn entries_of(pieces: Vec<Piece>, patterns: &[glob::Pattern]) -> Vec<Entry> {
    let mut by_id: BTreeMap<String, Vec<Piece>> = BTreeMap::new();
    for piece in pieces {
        by_id.entry(piece.id.clone()).or_default().push(piece);
    }
    let wanted: Vec<&str> = patterns.iter().map(glob::Pattern::as_str).collect();
    let mut entries = Vec::new();
    for (id, mut pieces) in by_id {
        let (texts, mut submissions): (Vec<Piece>, Vec<Piece>) =
            pieces.drain(..).partition(|p| p.shape == Shape::OnlineText);
        submissions.sort_by(|a, b| {
            b.has_files().cmp(&a.has_files()).then(a.shape.cmp(&b.shape)).then(a.origin().cmp(&b.origin()))
        });
        let mut others = submissions.split_off(submissions.len().min(1));
        let mut graded = submissions.pop().unwrap_or_else(|| {
            // Only an online text: a student without files, whom the gradebook still lists.
            let text = &texts[0];
            Piece::new(id.clone(), text.name.clone(), text.origin(), Shape::OnlineText, Ok(Vec::new()))
        });
        let mut notes = std::mem::take(&mut graded.notes);
        for text in &texts {
            notes.push(format!(
                "the online text `{}` was left out: this assignment takes files ({}), not text typed into Moodle",
                text.origin(),
                wanted.join(", ")
            ));
        }
        let mut left_out: Vec<String> = others.iter().map(Piece::origin).collect();
        left_out.sort();
        if !left_out.is_empty() {
            let list: Vec<String> = left_out.iter().map(|o| format!("`{o}`")).collect();
            notes.push(format!(
                "{} submissions under the id `{id}`: `{}` was graded, {} left out",
                others.len() + 1,
                graded.origin(),
                list.join(", ")
            ));
        }
        // A name any of them gives.
        let name = graded
            .name
            .take()
            .or_else(|| others.iter_mut().find_map(|p| p.name.take()))
            .or_else(|| texts.iter().find_map(|t| t.name.clone()));
        entries.push(Entry {
            id,
            name,
            origin: graded.origin(),
            files: graded.files,
            facts: Facts { late: graded.late, notes, left_out },
        });
    }
    entries
}

/// The id and name a folder's or file's name gives.
fn student_of(name: &str) -> (String, Option<String>) {
    match moodle_folder(name) {
        Some(m) => (m.id, Some(m.name)),
        None => (name.to_owned(), None),
    }
}

fn is_archive(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    name.ends_with(".zip") || name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// A name without an archive's extension.
fn stem(name: &str) -> &str {
    let lower = name.to_lowercase();
    for ext in [".tar.gz", ".tgz", ".zip"] {
        if lower.ends_with(ext) {
            return &name[..name.len() - ext.len()];
        }
    }
    Path::new(name).file_stem().and_then(|s| s.to_str()).unwrap_or(name)
}

/// Names a platform or an operating system adds that are nobody's submission.
fn is_noise(name: &str) -> bool {
    name.starts_with('.') || name == "__MACOSX" || name == "Thumbs.db"
}

fn list(dir: &Path) -> Result<Vec<(String, PathBuf)>, RosterError> {
    let err = |source| RosterError::Io { path: dir.to_owned(), source };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let entry = entry.map_err(err)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_noise(&name) {
            names.push((name, entry.path()));
        }
    }
    names.sort();
    Ok(names)
}
