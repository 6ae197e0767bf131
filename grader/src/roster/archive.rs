//! Reading a student's files within caps: from their folder, from an archive in memory, and the
//! unpacking of a whole class's archive to a scratch folder.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::{is_archive, is_noise, list, ArchiveCaps};
use crate::build::{show_bytes, CapError, SourceFile};

/// The files of a student's folder: the top-level ones the assignment takes; else those of its one
/// archive or its one sub-folder.
pub(super) fn folder_files(
    dir: &Path,
    patterns: &[glob::Pattern],
    caps: ArchiveCaps,
) -> Result<Vec<SourceFile>, String> {
    let mut tree = Tree::default();
    gather(dir, Path::new(""), patterns, &mut tree, &mut Budget { caps, entries: 0, bytes: 0 }, 0)?;
    let files = pick(&tree, patterns);
    if !files.is_empty() {
        return Ok(files);
    }
    let archives: Vec<&PathBuf> =
        tree.archives.iter().filter(|p| p.parent() == Some(Path::new(""))).collect();
    match archives.as_slice() {
        [archive] => read_archive(&dir.join(archive), caps).map(|tree| pick(&tree, patterns)),
        _ => Ok(Vec::new()),
    }
}

/// Files by their path relative to a submission's top, and the archives seen.
#[derive(Debug, Default)]
pub(super) struct Tree {
    files: BTreeMap<PathBuf, Vec<u8>>,
    archives: Vec<PathBuf>,
}

/// What a student's folder has used of the caps so far.
struct Budget {
    caps: ArchiveCaps,
    /// Entries seen.
    entries: usize,
    /// Bytes read.
    bytes: u64,
}

/// Reads the files of a folder that the assignment takes into a tree, noting its archives, within the
/// caps (a submission folder is no more trusted than an archive: a student may hand in a dump).
fn gather(
    dir: &Path,
    rel: &Path,
    patterns: &[glob::Pattern],
    tree: &mut Tree,
    budget: &mut Budget,
    depth: usize,
) -> Result<(), String> {
    if depth > 8 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names: Vec<(String, PathBuf, std::fs::FileType)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_noise(&name) {
            names.push((name, entry.path(), entry.file_type().map_err(|e| e.to_string())?));
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, path, kind) in names {
        budget.entries += 1;
        if budget.entries > budget.caps.entries {
            return Err(CapError::Entries { cap: budget.caps.entries }.to_string());
        }
        let rel = rel.join(&name);
        if kind.is_dir() {
            gather(&path, &rel, patterns, tree, budget, depth + 1)?;
        } else if kind.is_file() && is_archive(&path) {
            tree.archives.push(rel);
        } else if kind.is_file() && takes_name(patterns, &name) {
            let content = read_file(&path, &rel.to_string_lossy(), budget.caps, &mut budget.bytes)?;
            tree.files.insert(rel, content);
        }
        // Symbolic links and devices are nobody's source file.
    }
    Ok(())
}

/// Reads the file at `path` (`name` in messages) within the caps, after `used` bytes of others.
pub(super) fn read_file(
    path: &Path,
    name: &str,
    caps: ArchiveCaps,
    used: &mut u64,
) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    caps.read(name, file, used).map_err(|e| e.to_string())
}

/// Whether a file of this name may be one the assignment takes: its name matches a plain pattern
/// (`*.c`) or the last part of a pattern with folders (`*.java` of `**/*.java`).
fn takes_name(patterns: &[glob::Pattern], name: &str) -> bool {
    patterns.iter().any(|p| match p.as_str().rsplit_once('/') {
        Some((_, last)) => glob::Pattern::new(last).is_ok_and(|last| last.matches(name)),
        None => p.matches(name),
    })
}

/// The files the assignment takes. For plain patterns (`*.c`): at the shallowest depth where there
/// are any, by name: a submission zipped with its folder (`project/main.c`) is as good as one
/// zipped flat. For patterns with folders (`**/*.java`): the whole tree, names keeping their folders
/// (`src/game/Board.java`), as `grade` reads a folder (a project's packages are folders); from the
/// shallowest folder below which the patterns match anything, for a project zipped with its folder.
pub(super) fn pick(tree: &Tree, patterns: &[glob::Pattern]) -> Vec<SourceFile> {
    if patterns.iter().any(|p| p.as_str().contains('/')) {
        return pick_tree(tree, patterns);
    }
    let matching: Vec<(&PathBuf, &Vec<u8>)> = tree
        .files
        .iter()
        .filter(|(path, _)| {
            path.file_name().is_some_and(|n| patterns.iter().any(|p| p.matches(&n.to_string_lossy())))
        })
        .collect();
    let Some(depth) = matching.iter().map(|(p, _)| p.components().count()).min() else {
        return Vec::new();
    };
    let at_depth: Vec<&(&PathBuf, &Vec<u8>)> =
        matching.iter().filter(|(p, _)| p.components().count() == depth).collect();
    // Several folders at that depth (two versions of the project): only the first, by name.
    let folder = at_depth[0].0.parent().map(Path::to_owned);
    let mut files: Vec<SourceFile> = at_depth
        .iter()
        .filter(|(p, _)| p.parent().map(Path::to_owned) == folder)
        .map(|(p, content)| SourceFile {
            name: p.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            content: (*content).clone(),
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// [`pick`] for patterns with folders: every file whose path below the root matches, from the
/// tree's top if anything matches there, else from the shallowest folder (the first by name) below
/// which something does.
fn pick_tree(tree: &Tree, patterns: &[glob::Pattern]) -> Vec<SourceFile> {
    let options = glob::MatchOptions { require_literal_separator: true, ..glob::MatchOptions::new() };
    let below = |root: &Path| -> Vec<SourceFile> {
        tree.files
            .iter()
            .filter_map(|(path, content)| {
                let rel = path.strip_prefix(root).ok()?;
                let name = rel.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
                patterns
                    .iter()
                    .any(|p| p.matches_with(&name, options))
                    .then(|| SourceFile { name, content: content.clone() })
            })
            .collect()
    };
    let mut roots: Vec<&Path> = tree.files.keys().flat_map(|p| p.ancestors().skip(1)).collect();
    roots.sort_by(|a, b| a.components().count().cmp(&b.components().count()).then(a.cmp(b)));
    roots.dedup();
    for root in roots {
        let mut files = below(root);
        if !files.is_empty() {
            files.sort_by(|a, b| a.name.cmp(&b.name));
            return files;
        }
    }
    Vec::new()
}

/// A path inside an archive that stays inside it: relative, no `..`; `None` otherwise.
fn safe_path(path: &Path) -> Option<PathBuf> {
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!clean.as_os_str().is_empty()).then_some(clean)
}

/// An entry of an archive: its checked path relative to the archive, or (`Err`) its path as written
/// when that climbs out of the archive or is absolute.
type EntryPath = Result<PathBuf, PathBuf>;

/// Calls `visit` with every regular file of a `.zip` or `.tar.gz`, by its checked relative path (or
/// the path written, for an entry that climbs out: `visit` says what that means), and with every
/// folder entry (no reader: an empty student folder is still a student). More than `entries`
/// entries is an error.
fn each_entry(
    path: &Path,
    entries: usize,
    mut visit: impl FnMut(EntryPath, Option<&mut dyn Read>) -> Result<(), String>,
) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let too_many = || format!("the archive holds more than {entries} entries");
    if path.to_string_lossy().to_lowercase().ends_with(".zip") {
        let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a readable zip: {e}"))?;
        if zip.len() > entries {
            return Err(too_many());
        }
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
            if entry.is_symlink() {
                continue;
            }
            let rel = entry.enclosed_name().and_then(|name| safe_path(&name));
            let rel = rel.ok_or_else(|| PathBuf::from(entry.name()));
            if entry.is_dir() {
                visit(rel, None)?;
            } else {
                visit(rel, Some(&mut entry))?;
            }
        }
    } else {
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
        let all = archive.entries().map_err(|e| format!("not a readable .tar.gz: {e}"))?;
        for (count, entry) in all.enumerate() {
            if count >= entries {
                return Err(too_many());
            }
            let mut entry = entry.map_err(|e| format!("not a readable .tar.gz: {e}"))?;
            let kind = entry.header().entry_type();
            if !kind.is_file() && !kind.is_dir() {
                continue;
            }
            let name = entry.path().map_err(|e| e.to_string())?.into_owned();
            let rel = safe_path(&name).ok_or(name);
            if kind.is_dir() {
                visit(rel, None)?;
            } else {
                visit(rel, Some(&mut entry))?;
            }
        }
    }
    Ok(())
}

/// Why an entry was not taken from an archive: its path climbs out of it.
fn outside(written: &Path) -> String {
    format!("the archive holds a path outside itself: {}", written.display())
}

/// Reads a `.zip` or `.tar.gz` into memory within the caps; a path escaping it is an error.
pub(super) fn read_archive(path: &Path, caps: ArchiveCaps) -> Result<Tree, String> {
    let mut tree = Tree::default();
    let mut used = 0u64;
    each_entry(path, caps.entries, |rel, reader| {
        let rel = rel.map_err(|written| outside(&written))?;
        let Some(reader) = reader else { return Ok(()) };
        if rel.components().any(|c| is_noise(&c.as_os_str().to_string_lossy())) {
            return Ok(());
        }
        let content = caps.read(&rel.to_string_lossy(), reader, &mut used).map_err(|e| e.to_string())?;
        if is_archive(&rel) {
            tree.archives.push(rel.clone());
        }
        tree.files.insert(rel, content);
        Ok(())
    })?;
    Ok(tree)
}

/// Caps of a whole class's archive, unpacked to disk: far larger than one student's.
pub(super) const CLASS_ARCHIVE_CAPS: ArchiveCaps =
    ArchiveCaps { entries: 200_000, file_bytes: 64 << 20, total_bytes: 8 << 30 };

/// A class archive unpacked: the folder to read as the class root, and the students (by the name of
/// their folder or file in it) who had an entry left out, with why.
pub(super) struct Unpacked {
    pub top: PathBuf,
    pub refused: BTreeMap<String, String>,
}

/// Unpacks a class archive into `dest` within `caps`, each entry at its checked path (folders too,
/// so that an empty student folder is a student as it is in a class folder), and finds the folder
/// to take as the class root: the archive's one top folder when it wraps the class (it holds
/// folders, or files named by a course platform).
///
/// An entry that climbs out of the archive (`bob/../../x.c`, `/etc/x`) or is larger than a class
/// archive's file cap is left out, and belongs to a student as a written path says: the first folder
/// or file it names below the root. That student's name is put in the root (an empty folder or file,
/// if nothing else of theirs is there) so that the roster finds them as usual, and is returned with
/// the reason, to make their row an error: one student's upload never refuses the whole class.
pub(super) fn unpack_class(path: &Path, dest: &Path, caps: ArchiveCaps) -> Result<Unpacked, String> {
    let mut total = 0u64;
    // Each entry left out: its path as written, and why.
    let mut left_out: Vec<(PathBuf, String)> = Vec::new();
    each_entry(path, caps.entries, |rel, reader| {
        let rel = match rel {
            Ok(rel) => rel,
            Err(written) => {
                if reader.is_some() {
                    left_out.push((written.clone(), outside(&written)));
                }
                return Ok(());
            }
        };
        let target = dest.join(&rel);
        let Some(reader) = reader else {
            return std::fs::create_dir_all(&target)
                .map_err(|e| format!("cannot write {}: {e}", target.display()));
        };
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let mut out =
            std::fs::File::create(&target).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        let copied =
            std::io::copy(&mut reader.take(caps.file_bytes + 1), &mut out).map_err(|e| e.to_string())?;
        if copied > caps.file_bytes {
            drop(out);
            std::fs::remove_file(&target).map_err(|e| format!("cannot remove {}: {e}", target.display()))?;
            let why = format!(
                "the class archive's {} is larger than {} unpacked",
                rel.display(),
                show_bytes(caps.file_bytes)
            );
            left_out.push((rel, why));
            return Ok(());
        }
        total += copied;
        if total > caps.total_bytes {
            return Err(format!("the archive unpacks to more than {}", show_bytes(caps.total_bytes)));
        }
        Ok(())
    })?;
    let tops = list(dest).map_err(|e| e.to_string())?;
    let wraps_the_class = |folder: &Path| {
        list(folder).is_ok_and(|inner| {
            inner.iter().any(|(name, p)| p.is_dir() || (p.is_file() && super::layout::is_platform_file(name)))
        })
    };
    let top = match tops.as_slice() {
        [(_, only)] if only.is_dir() && wraps_the_class(only) => only.clone(),
        _ => dest.to_owned(),
    };
    let wrapper = top.strip_prefix(dest).ok().map(|w| w.as_os_str().to_owned()).filter(|w| !w.is_empty());
    let mut refused = BTreeMap::new();
    for (written, why) in left_out {
        let mut names: Vec<&std::ffi::OsStr> = written
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect();
        if names.len() > 1 && wrapper.as_deref() == Some(names[0]) {
            names.remove(0);
        }
        // An entry that names nobody (a bare `..`) is only left out.
        let Some(student) = names.first() else { continue };
        let place = top.join(student);
        if std::fs::symlink_metadata(&place).is_err() {
            let made = if names.len() > 1 {
                std::fs::create_dir(&place)
            } else {
                std::fs::File::create(&place).map(drop)
            };
            made.map_err(|e| format!("cannot write {}: {e}", place.display()))?;
        }
        refused.entry(student.to_string_lossy().into_owned()).or_insert(why);
    }
    Ok(Unpacked { top, refused })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns() -> Vec<glob::Pattern> {
        vec![glob::Pattern::new("*.c").unwrap(), glob::Pattern::new("*.h").unwrap()]
    }

    #[test]
    fn paths_that_climb_out_of_an_archive_are_refused() {
        assert_eq!(safe_path(Path::new("a/./b.c")), Some(PathBuf::from("a/b.c")));
        assert_eq!(safe_path(Path::new("../b.c")), None);
        assert_eq!(safe_path(Path::new("a/../../b.c")), None);
        assert_eq!(safe_path(Path::new("/etc/passwd")), None);
    }

    #[test]
    fn a_file_over_the_cap_in_a_class_archive_is_its_students_error_and_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class.zip");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&class).unwrap());
        for (name, bytes) in
            [("alice/main.c", &b"small"[..]), ("bob/main.c", &[b' '; 11][..]), ("bob/game.h", b"")]
        {
            writer.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut writer, bytes).unwrap();
        }
        writer.finish().unwrap();
        let dest = dir.path().join("unpacked");
        std::fs::create_dir(&dest).unwrap();
        let caps = ArchiveCaps { entries: 10, file_bytes: 10, total_bytes: 100 };
        let unpacked = unpack_class(&class, &dest, caps).unwrap();
        assert_eq!(unpacked.top, dest);
        assert_eq!(
            unpacked.refused,
            BTreeMap::from([(
                "bob".to_owned(),
                "the class archive's bob/main.c is larger than 10 bytes unpacked".to_owned()
            )])
        );
        assert!(!dest.join("bob/main.c").exists() && dest.join("bob/game.h").exists());

        // The whole class's cap is the class's.
        let dest = dir.path().join("too-much");
        std::fs::create_dir(&dest).unwrap();
        let caps = ArchiveCaps { entries: 10, file_bytes: 10, total_bytes: 4 };
        let err = unpack_class(&class, &dest, caps).map(|_| ()).unwrap_err();
        assert_eq!(err, "the archive unpacks to more than 4 bytes");
    }

    #[test]
    fn a_folder_of_platform_files_zipped_in_one_top_folder_is_the_class() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class.zip");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&class).unwrap());
        for name in ["download/smith_7_8_main.c", "download/jones_LATE_9_10_main.c"] {
            writer.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        }
        writer.finish().unwrap();
        let dest = dir.path().join("unpacked");
        std::fs::create_dir(&dest).unwrap();
        let unpacked = unpack_class(&class, &dest, ArchiveCaps::default()).unwrap();
        assert_eq!(unpacked.top, dest.join("download"));
    }

    #[test]
    fn the_shallowest_files_the_assignment_takes_are_picked() {
        let mut tree = Tree::default();
        tree.files.insert("project/main.c".into(), b"int main;".to_vec());
        tree.files.insert("project/game.h".into(), b"".to_vec());
        tree.files.insert("project/old/main.c".into(), b"old".to_vec());
        tree.files.insert("README.md".into(), b"".to_vec());
        let names: Vec<String> = pick(&tree, &patterns()).into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["game.h", "main.c"]);
    }
}
