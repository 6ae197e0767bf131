//! Publishing an assignment: a student pack (its folder without the hidden cases, for `grader check`)
//! and a Gradescope autograder zip (every case, this grader, `setup.sh` and `run_autograder`).
//!
//! A pack is written to a staging folder inside the output folder, loaded back and searched for
//! anything of a hidden case (ids, lines of expected output only hidden cases have) before it is
//! moved into place, so that a leaking pack is never left behind. Each hidden case leaves a
//! placeholder in `withheld/` (category and weight, no input, no output): without it a self-check
//! would share each category's points among the visible cases alone, and claim a grade.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::load::{self, Assignment, Case, LoadError, Visibility};

mod gradescope;

pub use gradescope::{write_gradescope_bundle, BundleOptions, GradescopeBundle};

/// The folder of a pack's assignment that holds one placeholder per hidden case.
pub const WITHHELD_DIR: &str = "withheld";

/// How a problem package's pack names the placeholder of a hidden case, in the case's own group:
/// `withheld-1.in`, empty.
pub const PACKAGE_PLACEHOLDER: &str = "withheld-";

/// Whether a case of a pack is a placeholder of a hidden case.
fn is_placeholder(case: &Case) -> bool {
    case.id.starts_with(&format!("{WITHHELD_DIR}/"))
        || (case.package.is_some()
            && case.path.file_name().is_some_and(|n| n.to_string_lossy().starts_with(PACKAGE_PLACEHOLDER)))
}

/// The marker of the defect-cost table that `grader/tests/fixtures.rs` generates in an assignment's
/// README: the table comes from gradings with the hidden cases, so students do not get it.
const DEFECT_TABLE_MARKER: &str = "<!-- defect-costs:start";

/// Lines of a hidden transcript at least this long (trimmed) are searched for in a pack; shorter
/// ones (`> dump`, a board row) occur anywhere.
const DISTINCTIVE_LINE_CHARS: usize = 20;

/// Why a pack or a bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The assignment does not load.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The output folder holds something and `--force` was not given.
    #[error(
        "{} exists and is not empty: choose another folder, or pass --force to replace its cases/{id}/ \
         and README.md",
        path.display()
    )]
    OutputNotEmpty {
        /// The output folder.
        path: PathBuf,
        /// The assignment id.
        id: String,
    },
    /// The output lies inside the folders being published.
    #[error("{} is inside {}, which is being published: choose a place outside it", path.display(), source_dir.display())]
    OutputInsideSource {
        /// The output.
        path: PathBuf,
        /// The published folder that holds it.
        source_dir: PathBuf,
    },
    /// The assignment folder already has a `withheld/` folder, where placeholders would go.
    #[error("{} exists: a pack puts its placeholders for hidden cases there; rename that folder", path.display())]
    WithheldFolderTaken {
        /// The folder.
        path: PathBuf,
    },
    /// A file that students would get names a hidden case or quotes its expected output.
    #[error("{}: {what}; students must not get it: change the file, or make the case visible", path.display())]
    Leak {
        /// The file of the assignment folder.
        path: PathBuf,
        /// What of which hidden case it holds.
        what: String,
    },
    /// The grader binary to put in a bundle cannot be read.
    #[error("cannot read the grader binary {}", path.display())]
    GraderBinary {
        /// The binary.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A file cannot be read or written.
    #[error("cannot write {}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The zip cannot be written.
    #[error("cannot write the zip {}", path.display())]
    Zip {
        /// The zip.
        path: PathBuf,
        /// What the zip writer said.
        source: zip::result::ZipError,
    },
    /// The pack, loaded back, is not what was meant (a bug of the grader, never left on disk).
    #[error("the pack of {id} does not check out: {message}")]
    Verify {
        /// The assignment id.
        id: String,
        /// What differs.
        message: String,
    },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> PackError + '_ {
    move |source| PackError::Io { path: path.to_owned(), source }
}

/// What happened to the assignment's own `README.md` in a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadmeFate {
    /// The assignment has none.
    Absent,
    /// Copied as it is.
    Copied,
    /// Copied without these sections (their headings), which come from gradings with hidden cases.
    Filtered(Vec<String>),
    /// Left out: even filtered, it names a hidden case or quotes its output.
    Dropped(String),
}

/// A student pack that was written.
#[derive(Debug, Clone)]
pub struct StudentPack {
    /// The output folder.
    pub dir: PathBuf,
    /// The assignment's folder in it (`DIR/cases/<id>`).
    pub assignment_dir: PathBuf,
    /// Visible cases, all in the pack.
    pub visible_cases: usize,
    /// Hidden cases, each a placeholder in `withheld/`.
    pub withheld_cases: usize,
    /// Files of the assignment folder copied (placeholders and `cases/common` not counted).
    pub files: usize,
    /// Whether `cases/common` (shared driver files) was copied.
    pub common: bool,
    /// What became of the assignment's README.
    pub readme: ReadmeFate,
}

/// One file of an assignment folder.
struct SourceFile<'a> {
    /// Path relative to the assignment folder, `/`-separated.
    rel: String,
    path: PathBuf,
    /// The case it belongs to (its `.toml` or a sidecar), if any.
    case: Option<&'a Case>,
}

/// Every file of an assignment folder, sorted, with the case each belongs to.
fn inventory(assignment: &Assignment) -> Result<Vec<SourceFile<'_>>, PackError> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&assignment.dir).sort_by_file_name() {
        let entry = entry.map_err(|e| PackError::Io {
            path: e.path().map_or_else(|| assignment.dir.clone(), Path::to_owned),
            source: e.into_io_error().unwrap_or_else(|| io::Error::other("a loop of symbolic links")),
        })?;
        // A symbolic link to a file counts as the file; one to a folder is not followed.
        if !entry.path().is_file() {
            continue;
        }
        let rel = relative(&assignment.dir, entry.path())?;
        let case = owning_case(assignment, &rel);
        files.push(SourceFile { rel, path: entry.path().to_owned(), case });
    }
    Ok(files)
}

/// `path` relative to `dir`, `/`-separated; file names that are not UTF-8 are refused (a zip and
/// a README could not name them).
fn relative(dir: &Path, path: &Path) -> Result<String, PackError> {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/")).ok_or_else(|| PackError::Io {
        path: path.to_owned(),
        source: io::Error::new(io::ErrorKind::InvalidData, "the file name is not UTF-8"),
    })
}

/// The case a file belongs to: the one with the longest id such that the file is `<id>.<anything>`
/// (its `.toml`, `.stdin`, `.stdout`, `.env` or any other sidecar).
fn owning_case<'a>(assignment: &'a Assignment, rel: &str) -> Option<&'a Case> {
    // A case's files share its file's path without the extension: `<id>` for a case file, a
    // package's `data/<group>/<name>` for its `.in`.
    let stem = |case: &Case| -> String {
        let path = case.path.with_extension("");
        relative(&assignment.dir, &path).unwrap_or_else(|_| case.id.clone())
    };
    assignment
        .cases
        .iter()
        .map(|case| (case, stem(case)))
        .filter(|(_, stem)| rel.strip_prefix(stem.as_str()).is_some_and(|rest| rest.starts_with('.')))
        .max_by_key(|(_, stem)| stem.len())
        .map(|(case, _)| case)
}

/// Files named by the build recipes (`{assignment}/driver.c`), relative to the assignment folder.
fn recipe_files(assignment: &Assignment) -> BTreeSet<String> {
    let args = assignment
        .builds
        .values()
        .flat_map(|recipe| recipe.commands.iter().flatten().chain(&recipe.run).chain(recipe.env.values()));
    args.filter_map(|arg| arg.strip_prefix("{assignment}/")).map(str::to_owned).collect()
}

/// Whether a recipe uses the shared folder `cases/common` (`{common}`).
fn uses_common(assignment: &Assignment) -> bool {
    assignment.builds.values().flat_map(|r| r.commands.iter().flatten()).any(|arg| arg.contains("{common}"))
}

/// The shared folder beside an assignment's own.
fn common_dir(assignment: &Assignment) -> PathBuf {
    assignment.dir.parent().unwrap_or(&assignment.dir).join("common")
}

/// What students must not find in a pack: hidden case ids, and lines of expected output that only
/// hidden cases have.
struct Secrets {
    /// (text, the hidden case it comes from, what it is)
    needles: Vec<(String, String, &'static str)>,
    matcher: Option<regex::bytes::Regex>,
}

impl Secrets {
    fn of(assignment: &Assignment, files: &[SourceFile]) -> Result<Secrets, PackError> {
        // Everything a visible case file holds is public anyway: a hidden line found there is no secret.
        let mut public = Vec::new();
        for file in files.iter().filter(|f| f.case.is_some_and(|c| c.visibility == Visibility::Visible)) {
            public.extend(fs::read(&file.path).map_err(io_error(&file.path))?);
            public.push(b'\n');
        }
        let public = String::from_utf8_lossy(&public);
        let mut needles = Vec::new();
        for case in assignment.cases.iter().filter(|c| c.visibility == Visibility::Hidden) {
            needles.push((case.id.clone(), case.id.clone(), "names the hidden case"));
            let transcript = match fs::read(case.stdout_path()) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
                Err(source) => return Err(PackError::Io { path: case.stdout_path(), source }),
            };
            let distinctive: BTreeSet<&str> = transcript
                .lines()
                .map(str::trim)
                .filter(|line| line.chars().count() >= DISTINCTIVE_LINE_CHARS && !public.contains(line))
                .collect();
            for line in distinctive {
                needles.push((
                    line.to_owned(),
                    case.id.clone(),
                    "quotes the expected output of the hidden case",
                ));
            }
        }
        // Longest first, so that a match names the most telling needle.
        needles.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        let matcher = if needles.is_empty() {
            None
        } else {
            let alternatives: Vec<String> = needles.iter().map(|(text, ..)| regex::escape(text)).collect();
            let pattern = alternatives.join("|");
            let built = regex::bytes::RegexBuilder::new(&pattern).size_limit(1 << 28).build();
            Some(built.map_err(|e| PackError::Verify {
                id: assignment.id.clone(),
                message: format!("cannot search for the hidden cases' lines: {e}"),
            })?)
        };
        Ok(Secrets { needles, matcher })
    }

    /// What of a hidden case `bytes` hold, in words, if anything.
    fn found_in(&self, bytes: &[u8]) -> Option<String> {
        let found = self.matcher.as_ref()?.find(bytes)?;
        let text = String::from_utf8_lossy(found.as_bytes());
        let (needle, case, what) = self.needles.iter().find(|(needle, ..)| *needle == text)?;
        Some(if needle == case { format!("{what} `{case}`") } else { format!("{what} `{case}`: {needle:?}") })
    }
}

/// Drops the level-2 sections of a README that hold a defect-cost table (generated from gradings
/// with the hidden cases). Returns the text and the headings dropped.
fn without_graded_sections(text: &str) -> (String, Vec<String>) {
    let mut sections: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.split_inclusive('\n') {
        if line.starts_with("## ") {
            sections.push(Vec::new());
        }
        sections.last_mut().expect("one section at least").push(line);
    }
    let mut kept = String::new();
    let mut dropped = Vec::new();
    for (index, section) in sections.iter().enumerate() {
        let graded = section.iter().any(|line| line.contains(DEFECT_TABLE_MARKER));
        if graded && index > 0 {
            dropped.push(section[0].trim_start_matches('#').trim().to_owned());
        } else {
            kept.extend(section.iter().copied());
        }
    }
    (kept, dropped)
}

/// The README students get in place of the assignment's, and what became of it.
fn student_readme(text: &str, secrets: &Secrets) -> (Option<String>, ReadmeFate) {
    let (filtered, dropped) = without_graded_sections(text);
    if filtered.contains(DEFECT_TABLE_MARKER) {
        let why = "it holds a defect-cost table outside a section of its own";
        return (None, ReadmeFate::Dropped(why.to_owned()));
    }
    if let Some(what) = secrets.found_in(filtered.as_bytes()) {
        return (None, ReadmeFate::Dropped(format!("it {what}")));
    }
    let fate = if dropped.is_empty() { ReadmeFate::Copied } else { ReadmeFate::Filtered(dropped) };
    (Some(filtered), fate)
}

/// Refuses an output inside one of the folders being published.
fn refuse_inside(output: &Path, published: &[PathBuf]) -> Result<(), PackError> {
    // The output may not exist yet: its nearest existing ancestor tells where it will be.
    let existing = output.ancestors().find(|a| a.exists()).unwrap_or(Path::new("."));
    let resolved = existing.canonicalize().map_err(io_error(existing))?;
    let resolved = resolved.join(output.strip_prefix(existing).unwrap_or(Path::new("")));
    for dir in published {
        if let Ok(dir) = dir.canonicalize() {
            if resolved.starts_with(&dir) {
                return Err(PackError::OutputInsideSource { path: output.to_owned(), source_dir: dir });
            }
        }
    }
    Ok(())
}

/// Copies a file, creating its folder.
fn copy_file(from: &Path, to: &Path) -> Result<(), PackError> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    fs::copy(from, to).map_err(io_error(to))?;
    Ok(())
}

/// Writes a file, creating its folder.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), PackError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    fs::write(path, bytes).map_err(io_error(path))
}

/// Copies a folder's files (the shared `cases/common`), following no symbolic link to a folder.
fn copy_tree(from: &Path, to: &Path) -> Result<(), PackError> {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.map_err(|e| PackError::Io {
            path: from.to_owned(),
            source: e.into_io_error().unwrap_or_else(|| io::Error::other("a loop of symbolic links")),
        })?;
        if entry.path().is_file() {
            let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
            copy_file(entry.path(), &to.join(rel))?;
        }
    }
    Ok(())
}

/// The placeholder of a hidden case: its category and weight, nothing to run or compare.
fn placeholder(case: &Case) -> String {
    let category = toml::Value::String(case.category.clone());
    format!(
        "# A hidden case of the real grading, withheld from this pack: no input, no expected output,\n\
         # never run (`withheld = true`). It is here so that every visible case is worth what it is\n\
         # worth in the real grading, and the self-check can say what it leaves out.\n\
         title = \"Hidden case (withheld)\"\n\
         category = {category}\n\
         weight = {:?}\n\
         visibility = \"hidden\"\n\
         withheld = true\n",
        case.weight
    )
}

/// A file-name-safe form of a category id.
fn file_safe(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Writes a student pack of assignment `id` into `out`: `out/cases/<id>/` (the assignment folder
/// without its hidden cases' files, a placeholder per hidden case in `withheld/`, the README without
/// what comes from hidden gradings), `out/cases/common/` when the recipes use it, and
/// `out/README.md` telling students how to run `grader check`.
///
/// `out` must be empty or missing unless `force`; with `force`, its `cases/<id>/`, `cases/common/`
/// and `README.md` are replaced and anything else in it is kept. The pack is loaded back and
/// searched for anything of the hidden cases before it is put in place.
///
/// # Errors
///
/// A malformed assignment, an output folder that is not empty (without `force`) or inside the
/// cases, a file students would get that names a hidden case or quotes its output, a disk error.
pub fn write_student_pack(
    cases_root: &Path,
    id: &str,
    out: &Path,
    force: bool,
) -> Result<StudentPack, PackError> {
    let assignment = load::load(cases_root, id)?;
    let id = assignment.id.as_str();
    let package = assignment.package.is_some();
    if assignment.package.as_ref().is_some_and(|p| p.time_limit_source == load::package::INFERRED) {
        return Err(PackError::Verify {
            id: id.to_owned(),
            message: "the package states no time limit, and a pack has no accepted submission to infer it \
                      from: run `grader bless` first, which keeps it in .timelimit"
                .to_owned(),
        });
    }
    let common = uses_common(&assignment).then(|| common_dir(&assignment)).filter(|dir| dir.is_dir());
    refuse_inside(out, &[assignment.dir.clone(), common_dir(&assignment)])?;
    if out.exists() {
        let mut entries = fs::read_dir(out).map_err(io_error(out))?;
        if entries.next().is_some() && !force {
            return Err(PackError::OutputNotEmpty { path: out.to_owned(), id: id.to_owned() });
        }
    }
    let withheld_source = assignment.dir.join(WITHHELD_DIR);
    if withheld_source.exists() {
        return Err(PackError::WithheldFolderTaken { path: withheld_source });
    }
    fs::create_dir_all(out).map_err(io_error(out))?;

    let files = inventory(&assignment)?;
    let secrets = Secrets::of(&assignment, &files)?;
    // Staged inside `out`, so that moving it into place is a rename; dropped on any error.
    let staging = tempfile::Builder::new().prefix(".pack-").tempdir_in(out).map_err(io_error(out))?;
    let staged_cases = staging.path().join("cases");
    let staged = staged_cases.join(id);
    fs::create_dir_all(&staged).map_err(io_error(&staged))?;

    let mut readme = ReadmeFate::Absent;
    let mut copied = 0;
    // A package's solutions and generators (which make the hidden inputs) stay with the course.
    let kept_back =
        |rel: &str| package && (rel.starts_with("submissions/") || rel.starts_with("generators/"));
    for file in files
        .iter()
        .filter(|f| f.case.is_none_or(|c| c.visibility == Visibility::Visible) && !kept_back(&f.rel))
    {
        let target = staged.join(&file.rel);
        if file.rel == "README.md" {
            let text = fs::read_to_string(&file.path).map_err(io_error(&file.path))?;
            let (kept, fate) = student_readme(&text, &secrets);
            readme = fate;
            if let Some(kept) = kept {
                write_file(&target, kept.as_bytes())?;
                copied += 1;
            }
            continue;
        }
        copy_file(&file.path, &target)?;
        copied += 1;
    }
    let hidden: Vec<&Case> = assignment.cases.iter().filter(|c| c.visibility == Visibility::Hidden).collect();
    let mut numbers: BTreeMap<&str, usize> = BTreeMap::new();
    let mut folders: BTreeMap<String, usize> = BTreeMap::new();
    for case in &hidden {
        if package {
            // An empty input in the case's own group: the same category, the same share of its points.
            let folder =
                case.path.parent().map(|p| relative(&assignment.dir, p)).transpose()?.unwrap_or_default();
            let n = folders.entry(folder.clone()).or_insert(0);
            *n += 1;
            write_file(&staged.join(folder).join(format!("{PACKAGE_PLACEHOLDER}{n}.in")), b"")?;
            continue;
        }
        let n = numbers.entry(case.category.as_str()).or_insert(0);
        *n += 1;
        let name = format!("{}-{n}", file_safe(&case.category));
        let base = staged.join(WITHHELD_DIR).join(name);
        write_file(&base.with_extension("toml"), placeholder(case).as_bytes())?;
    }
    if let Some(common) = &common {
        copy_tree(common, &staged_cases.join("common"))?;
    }

    verify_pack(&assignment, &staged_cases, &secrets)?;

    let out_cases = out.join("cases");
    fs::create_dir_all(&out_cases).map_err(io_error(&out_cases))?;
    let mut moves = vec![(staged.clone(), out_cases.join(id))];
    if common.is_some() {
        moves.push((staged_cases.join("common"), out_cases.join("common")));
    }
    for (from, to) in moves {
        if to.exists() {
            fs::remove_dir_all(&to).map_err(io_error(&to))?;
        }
        fs::rename(&from, &to).map_err(io_error(&to))?;
    }
    write_pack_readme(out)?;
    Ok(StudentPack {
        dir: out.to_owned(),
        assignment_dir: out_cases.join(id),
        visible_cases: assignment.cases.len() - hidden.len(),
        withheld_cases: hidden.len(),
        files: copied,
        common: common.is_some(),
        readme,
    })
}

/// Loads the staged pack back and checks it: the same visible cases, one placeholder for each
/// hidden case (same category and weight), every file the recipes name, and no file holding an id
/// or a distinctive line of a hidden case.
fn verify_pack(source: &Assignment, staged_cases: &Path, secrets: &Secrets) -> Result<(), PackError> {
    let fail = |message: String| PackError::Verify { id: source.id.clone(), message };
    let pack = load::load_assignment(staged_cases, &source.id)
        .map_err(|e| fail(format!("it does not load: {e}")))?;
    let visible = |a: &Assignment| -> Vec<String> {
        a.cases.iter().filter(|c| c.visibility == Visibility::Visible).map(|c| c.id.clone()).collect()
    };
    if visible(&pack) != visible(source) {
        return Err(fail(format!("its visible cases are {:?}, not {:?}", visible(&pack), visible(source))));
    }
    let hidden_shares = |a: &Assignment| -> Vec<(String, String)> {
        let mut shares: Vec<(String, String)> = a
            .cases
            .iter()
            .filter(|c| c.visibility == Visibility::Hidden)
            .map(|c| (c.category.clone(), format!("{:?}", c.weight)))
            .collect();
        shares.sort();
        shares
    };
    let stray: Vec<&str> = pack
        .cases
        .iter()
        .filter(|c| c.visibility == Visibility::Hidden && !is_placeholder(c))
        .map(|c| c.id.as_str())
        .collect();
    if !stray.is_empty() || hidden_shares(&pack) != hidden_shares(source) {
        return Err(fail(format!(
            "its hidden cases are not exactly one placeholder per hidden case (outside {WITHHELD_DIR}/: {stray:?})"
        )));
    }
    for file in recipe_files(source) {
        if !pack.dir.join(&file).exists() {
            return Err(fail(format!("it lacks {file}, which a build recipe names")));
        }
    }
    for entry in walkdir::WalkDir::new(staged_cases) {
        let entry = entry.map_err(|e| fail(e.to_string()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let bytes = fs::read(entry.path()).map_err(io_error(entry.path()))?;
        if let Some(what) = secrets.found_in(&bytes) {
            // Report the file where the instructor can fix it, in the assignment folder.
            let rel = entry.path().strip_prefix(staged_cases).unwrap_or(entry.path());
            let original = source.dir.parent().unwrap_or(&source.dir).join(rel);
            return Err(PackError::Leak { path: original, what: format!("it {what}") });
        }
    }
    Ok(())
}

/// Writes `out/README.md`: how to self-check with the pack, for every assignment in `out/cases`.
fn write_pack_readme(out: &Path) -> Result<(), PackError> {
    let cases = out.join("cases");
    let ids = load::assignment_ids(&cases)?;
    let mut text = String::from(
        "# Self-check pack\n\n\
         The public cases of the assignments below, for `grader check`: it builds your program as the\n\
         real grading does, runs it on these cases, and shows the first line where your output differs\n\
         from the expected one, with a diff.\n\n\
         The hidden cases are not here. The real grading runs them too, so a self-check that passes\n\
         is not a grade: it tells what each visible case is worth and how many hidden cases and points\n\
         it leaves out (the placeholders in `cases/<id>/withheld/` hold only that).\n\n\
         You need `grader` and what the assignment builds with (`gcc` for the C assignments, a JDK for\n\
         Java), on Linux. `grader` is one program: download it where your course publishes it, make it\n\
         executable (`chmod +x grader`) and put it on your PATH. Then, from the folder holding your\n\
         submission's files:\n\n",
    );
    for id in &ids {
        let title = load::load_assignment(&cases, id).map(|a| a.title).unwrap_or_default();
        text.push_str(&format!(
            "- {title} (`{id}`):\n\n  ```sh\n  grader check -a {id} . --cases path/to/this/pack/cases\n  ```\n\n"
        ));
    }
    text.push_str(
        "(`.` is your submission's folder; give its path to run from elsewhere.) Or set the cases\n\
         folder once:\n\n\
         ```sh\n\
         export GRADER_CASES=path/to/this/pack/cases\n\
         grader check -a ID path/to/your/submission\n\
         ```\n\n\
         `grader list --cases path/to/this/pack/cases` lists the cases; `cases/<id>/README.md`, where\n\
         there is one, says what the cases exercise. Exit status 0 means every visible case passed.\n",
    );
    write_file(&out.join("README.md"), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_with_a_defect_table_is_dropped_and_the_rest_kept() {
        let text = "# cases/x\n\nintro\n\n## Scenarios\n\nkeys\n\n## What each defect costs\n\n\
                    <!-- defect-costs:start (generated) -->\n| a | b |\n<!-- defect-costs:end -->\n\n\
                    ## Later\n\nmore\n";
        let (kept, dropped) = without_graded_sections(text);
        assert_eq!(dropped, ["What each defect costs"]);
        assert_eq!(kept, "# cases/x\n\nintro\n\n## Scenarios\n\nkeys\n\n## Later\n\nmore\n");
    }

    #[test]
    fn a_placeholder_keeps_category_and_weight_only() {
        let assignment =
            load::load_assignment(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"), "trouble")
                .expect("trouble loads");
        let case =
            assignment.cases.iter().find(|c| c.visibility == Visibility::Hidden).expect("a hidden case");
        let text = placeholder(case);
        assert!(text.contains(&format!("category = \"{}\"", case.category)), "{text}");
        assert!(text.contains("visibility = \"hidden\""));
        assert!(!text.contains(&case.id) && !text.contains(&case.title));
    }
}
