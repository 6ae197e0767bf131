//! Class grading: every student of a class root through the pipeline, in parallel and in two phases
//! (every student's visible cases, then every student's hidden ones: see `phases`), each leaving its
//! report and record on disk as soon as it is graded; then the class's gradebook, summary and page,
//! built from the records on disk (so partial outputs of several machines merge into the same files).
//!
//! A re-run reuses a student's record when the key (grader version, assignment folder, the student's
//! files) is unchanged; every file is written atomically, so an interrupted run leaves whole files
//! and resumes where it stopped. SIGINT or SIGTERM ([`StopFlag`]) stops a batch cleanly: no new
//! student, those under way left to the next run, the class files of the students graded so far
//! marked as partial.

mod interrupt;
mod out_folder;
mod partition;
mod phases;
mod progress;
mod student;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::grade::GradeOptions;
use crate::gradebook::{
    self, Gradebook, ManualGrades, ManualGradesError, Record, StudentStatus, BATCH_FILE, FEEDBACK_FILE,
    HAND_GRADES_FILE, RECORD_FILE, REPORT_FILE, STUDENTS_DIR,
};
use crate::load::Assignment;
use crate::report::Report;
use crate::roster::{self, ArchiveCaps, Entry};
use crate::run;

pub use interrupt::{exit_code_of, signal_name, StopFlag};
pub(crate) use out_folder::refuse_out_inside;
pub use partition::Partition;
use progress::Progress;
use student::{begin_student, describe, finish_student, Begun};

/// What a batch was asked to do, written to `batch.json` so that `grader merge` can check partial
/// outputs belong together and name the students none of them graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchInfo {
    /// Assignment id.
    pub assignment: String,
    /// The share graded, if not all.
    pub partition: Option<Partition>,
    /// Every student id of the class root, sorted.
    pub roster: Vec<String>,
    /// The grader's version.
    pub grader_version: String,
    /// The class folder (absolute), where `grader similarity` finds the submissions again; absent in
    /// outputs of older graders, and in a merge of shares graded from different folders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
    /// The assignment's folder (absolute), where `export` finds its rubric again when the class was
    /// graded with `--assignment PATH` rather than an id under the cases folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment_dir: Option<PathBuf>,
    /// The banner of class files that hold only part of the class (see [`Gradebook::partial`]), kept
    /// so that class files written again later (a hand grade saved in `grader review`) keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
}

/// How to grade a class.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Where the outputs go.
    pub out: PathBuf,
    /// Programs run at once (CPU slots); one student more than this is graded at a time, so that a
    /// student's own work between runs (building, writing files) leaves no slot idle.
    pub jobs: usize,
    /// Grade only this share of the class.
    pub partition: Option<Partition>,
    /// Hand grades to merge.
    pub manual: ManualGrades,
    /// Re-grade students whose record is up to date.
    pub force: bool,
    /// Grade only these students (by id), even when up to date; the class files keep the others'
    /// records as they are. Empty: every student of the share.
    pub only: Vec<String>,
    /// Set when the batch is asked to stop (SIGINT, SIGTERM).
    pub stop: StopFlag,
    /// Caps on students' archives.
    pub caps: ArchiveCaps,
    /// How each student is graded.
    pub grade: GradeOptions,
    /// After grading (unless stopped), the similarity analysis of the class with these settings, its
    /// files written beside the class files, which link to them. Not with a partition: the analysis
    /// needs the whole class.
    pub similarity: Option<crate::similarity::Settings>,
}

/// What a batch did, for its last line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// Students in the root.
    pub roster: usize,
    /// Students in the share graded.
    pub selected: usize,
    /// Graded now.
    pub graded: usize,
    /// Up to date, reused.
    pub reused: usize,
    /// Of the students in the class files, how many by status.
    pub statuses: BTreeMap<String, usize>,
    /// Students in the class files (fewer than `selected` when the batch was stopped, or `--only`
    /// graded a class whose others have no grading yet).
    pub in_class_files: usize,
    /// The signal that stopped the batch before every student was graded.
    pub interrupted: Option<i32>,
    /// What the roster found that the instructor must look at (several submissions under one id),
    /// said on stderr as found, and in `summary.md`.
    pub warnings: Vec<String>,
    /// The hand grades now in the outputs: kept from an earlier run, and given now with `--manual`.
    pub hand_grades: HandGradesKept,
}

/// The hand grades a batch or a merge left in its outputs' [`HAND_GRADES_FILE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandGradesKept {
    /// Grades of earlier runs that `--manual` did not replace.
    pub kept: usize,
    /// Grades given now with `--manual`.
    pub given: usize,
}

/// A batch that could not run at all (one student's problems never are).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The class root cannot be read.
    #[error(transparent)]
    Roster(#[from] roster::RosterError),
    /// A hand-grades file that cannot be used (a grade naming no student of the class).
    #[error(transparent)]
    Manual(#[from] ManualGradesError),
    /// The assignment's base code, needed to compare the class, cannot be read.
    #[error(transparent)]
    Load(#[from] crate::load::LoadError),
    /// An output cannot be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The output folder holds another assignment's grading.
    #[error("{} holds a grading of `{found}`, not `{expected}`: choose another --out", path.display())]
    OtherAssignment {
        /// The output folder.
        path: PathBuf,
        /// Its assignment.
        found: String,
        /// The one asked for.
        expected: String,
    },
    /// Partial outputs that cannot be merged.
    #[error("{0}")]
    Merge(String),
    /// The output folder is inside the class folder: the next run would take it for a student.
    #[error(
        "the output folder {} is inside the class folder {}: choose an --out outside it",
        out.display(),
        root.display()
    )]
    OutInsideClass {
        /// The output folder, as given.
        out: PathBuf,
        /// The class folder, as given.
        root: PathBuf,
    },
    /// `--only` names ids the class does not have.
    #[error("no student {} in {} (its ids: {known})", unknown.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", "), root.display())]
    UnknownStudents {
        /// The ids not found.
        unknown: Vec<String>,
        /// The class.
        root: PathBuf,
        /// A few ids it has, for the eye.
        known: String,
    },
}

/// Writes a file atomically (see [`crate::atomic::write`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BatchError> {
    Ok(crate::atomic::write(path, bytes)?)
}

impl From<crate::atomic::WriteError> for BatchError {
    fn from(e: crate::atomic::WriteError) -> BatchError {
        BatchError::Write { path: e.path, source: e.source }
    }
}

/// A folder name for a student id: ids come from file names, but keep them to one safe component.
pub fn student_dir_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_alphanumeric() || "-_.@+".contains(c) { c } else { '_' })
        .collect::<String>()
        .trim_start_matches('.')
        .to_owned()
}

/// Hash of everything in the assignment's folder and the shared one: a change to any case re-grades.
pub(crate) fn assignment_key(assignment: &Assignment) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    let common = assignment.dir.parent().map(|p| p.join("common"));
    for dir in std::iter::once(assignment.dir.clone()).chain(common) {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name().into_iter().flatten() {
            if entry.file_type().is_file() {
                let rel = entry.path().strip_prefix(&dir).unwrap_or(entry.path());
                hasher.update(rel.to_string_lossy().as_bytes());
                hasher.update(&[0]);
                hasher.update(&std::fs::read(entry.path()).unwrap_or_default());
                hasher.update(&[0]);
            }
        }
    }
    hasher.finalize().to_hex().to_string()
}

pub(crate) fn student_key(assignment_key: &str, entry: &Entry) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(assignment_key.as_bytes());
    match &entry.files {
        Ok(files) => {
            for file in files {
                hasher.update(&(file.name.len() as u64).to_le_bytes());
                hasher.update(file.name.as_bytes());
                hasher.update(&(file.content.len() as u64).to_le_bytes());
                hasher.update(&file.content);
            }
        }
        Err(message) => {
            hasher.update(b"error");
            hasher.update(message.as_bytes());
        }
    }
    hasher.finalize().to_hex()[..32].to_owned()
}

fn read_record(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Grades every student of `root` (or the share `options.partition` names, or the students
/// `options.only` names) into `options.out`, then writes the class's files from the records there.
pub fn run_batch(
    assignment: &Assignment,
    root: &Path,
    options: &BatchOptions,
) -> Result<BatchOutcome, BatchError> {
    refuse_out_inside(root, &options.out)?;
    if options.similarity.is_some() {
        // The base code is read before anyone is graded: comparing the class would fail at the end.
        assignment.similarity_base.files()?;
    }
    let entries = roster::discover(root, &assignment.submission_files, options.caps)?;
    let roster_ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    let unknown: Vec<String> = options.only.iter().filter(|id| !roster_ids.contains(id)).cloned().collect();
    if !unknown.is_empty() {
        let mut known = roster_ids.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
        if roster_ids.len() > 8 {
            known.push_str(", ...");
        }
        return Err(BatchError::UnknownStudents { unknown, root: root.to_owned(), known });
    }
    let warnings: Vec<String> = entries
        .iter()
        .filter(|e| !e.facts.left_out.is_empty())
        .map(|e| {
            let left_out: Vec<String> = e.facts.left_out.iter().map(|o| format!("`{o}`")).collect();
            format!(
                "{} submissions under the id `{}`: `{}` is graded; left out: {} (keep one and re-run to grade another)",
                e.facts.left_out.len() + 1,
                e.id,
                e.origin,
                left_out.join(", ")
            )
        })
        .collect();
    for warning in &warnings {
        // Said before the grading, not only at its end: the instructor can stop and fix the download.
        eprintln!("warning: {}", crate::report::escape::inert(warning, &[]));
    }
    // A hand grade for nobody is refused before anyone is graded: it would be dropped silently.
    let named: Vec<(String, Option<String>)> =
        entries.iter().map(|e| (e.id.clone(), e.name.clone())).collect();
    options.manual.check_students(&named)?;
    let total = entries.len();
    // Read before the entries go to their graders; analysed once they are graded.
    let similarity = options
        .similarity
        .map(|settings| (crate::similarity::submissions_of(entries.iter().cloned()), settings));
    let share: Vec<Entry> = entries
        .into_iter()
        .enumerate()
        .filter(|(i, e)| options.partition.is_none_or(|p| p.contains(&e.id, *i, total)))
        .map(|(_, e)| e)
        .collect();
    let selected: Vec<&Entry> =
        share.iter().filter(|e| options.only.is_empty() || options.only.contains(&e.id)).collect();

    let info_path = options.out.join(BATCH_FILE);
    if let Some(found) =
        std::fs::read(&info_path).ok().and_then(|b| serde_json::from_slice::<BatchInfo>(&b).ok())
    {
        if found.assignment != assignment.id {
            return Err(BatchError::OtherAssignment {
                path: options.out.clone(),
                found: found.assignment,
                expected: assignment.id.clone(),
            });
        }
    }
    let info = BatchInfo {
        assignment: assignment.id.clone(),
        partition: options.partition,
        roster: roster_ids,
        grader_version: env!("CARGO_PKG_VERSION").to_owned(),
        root: std::path::absolute(root).ok().map(|r| r.canonicalize().unwrap_or(r)),
        assignment_dir: Some(assignment.dir.clone()),
        partial: None,
    };
    write_atomic(&info_path, &serde_json::to_vec_pretty(&info).expect("serialisable"))?;

    let key = assignment_key(assignment);
    let progress = Progress::new(selected.len());
    let (failures, graded, reused) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    // The students whose record this run wrote or found up to date.
    let done: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let first_error: Mutex<Option<BatchError>> = Mutex::new(None);
    run::set_slot_count(options.jobs);
    let workers = phases::Workers::new(options, &progress);
    // A student's seconds in the first phase, added to those of the second.
    let begun: Vec<Mutex<Option<(Begun, f64)>>> = selected.iter().map(|_| Mutex::new(None)).collect();
    let keep_error = |e: BatchError| {
        first_error.lock().expect("no panic holds it").get_or_insert(e);
        false
    };
    // Each student's line shows the total the gradebook will: with the hand grades kept and given.
    let hand = hand_grades(assignment, std::slice::from_ref(&options.out), &options.manual)?;
    let count_done = |entry: &Entry, record: &Record, was_reused: bool, seconds: f64| {
        if matches!(record.status, StudentStatus::GraderError | StudentStatus::NoFiles) {
            failures.fetch_add(1, Ordering::SeqCst);
        }
        (if was_reused { &reused } else { &graded }).fetch_add(1, Ordering::SeqCst);
        done.lock().expect("no panic holds it").insert(entry.id.clone());
        let running = workers.running.load(Ordering::SeqCst);
        let mut shown = record.clone();
        shown.apply_manual(&hand);
        progress.finished(&shown, was_reused, running, failures.load(Ordering::SeqCst), seconds);
    };

    // The first phase: every student's visible cases (and builds, and probe).
    let begun_count = AtomicUsize::new(0);
    workers.each(selected.len(), |at| {
        let entry = selected[at];
        let started = Instant::now();
        // A bug of the grader's own while grading one student is that student's row.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run::cancelled_by(Some(options.stop.runs()), || begin_student(assignment, entry, &key, options))
        }))
        .unwrap_or_else(|panic| Ok(Begun::Ungraded(grader_failed(assignment, entry, &*panic))));
        match outcome {
            Ok(Begun::UpToDate(record)) => count_done(entry, &record, true, started.elapsed().as_secs_f64()),
            Ok(begun_now) => {
                *begun[at].lock().expect("no panic holds it") =
                    Some((begun_now, started.elapsed().as_secs_f64()));
                progress.begun(begun_count.fetch_add(1, Ordering::SeqCst) + 1);
            }
            Err(e) => return keep_error(e),
        }
        true
    });
    // The second phase: every student's hidden cases, once no visible run is under way. A batch
    // asked to stop leaves those it had begun to the next run.
    if options.stop.signal().is_none() {
        let to_finish = begun.iter().filter(|b| b.lock().expect("no panic holds it").is_some()).count();
        if to_finish > 0 {
            progress.say(&format!("visible cases run for {to_finish} students; now their hidden cases"));
        }
        workers.each(selected.len(), |at| {
            let Some((begun_then, seconds)) = begun[at].lock().expect("no panic holds it").take() else {
                return true;
            };
            let entry = selected[at];
            let started = Instant::now();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run::cancelled_by(Some(options.stop.runs()), || {
                    finish_student(assignment, entry, &key, options, begun_then)
                })
            }))
            .unwrap_or_else(|panic| {
                let record = grader_failed(assignment, entry, &*panic);
                let path = options.out.join(STUDENTS_DIR).join(student_dir_name(&entry.id)).join(RECORD_FILE);
                write_atomic(&path, &serde_json::to_vec_pretty(&record).expect("serialisable"))
                    .map(|()| Some((record, false)))
            });
            match outcome {
                Ok(Some((record, was_reused))) => {
                    count_done(entry, &record, was_reused, seconds + started.elapsed().as_secs_f64())
                }
                // Graded while a signal asked to stop: left to the next run.
                Ok(None) => {}
                Err(e) => return keep_error(e),
            }
            true
        });
    }
    progress.finish();
    if let Some(e) = first_error.into_inner().expect("no panic holds it") {
        return Err(e);
    }
    let done = done.into_inner().expect("no panic holds it");
    let interrupted = options.stop.signal().filter(|_| done.len() < selected.len());

    // The class files: every student graded now, and of the others of the share those whose record
    // is as they left it (`--only`) or up to date (a stopped run).
    let mut ids = done;
    for entry in &share {
        if ids.contains(&entry.id) {
            continue;
        }
        let record =
            read_record(&options.out.join(STUDENTS_DIR).join(student_dir_name(&entry.id)).join(RECORD_FILE));
        let kept = record.is_some_and(|r| {
            r.id == entry.id && (!options.only.is_empty() || r.key == student_key(&key, entry))
        });
        if kept {
            ids.insert(entry.id.clone());
        }
    }
    let partial = (ids.len() < share.len()).then(|| match interrupted {
        Some(signal) => format!(
            "Partial: {} of {} students graded (stopped by {}); re-run the same command to resume.",
            ids.len(),
            share.len(),
            signal_name(signal)
        ),
        None => format!(
            "Partial: {} of {} students have a grading here; run `grader batch` without --only to grade the others.",
            ids.len(),
            share.len()
        ),
    });
    if let (Some((submissions, settings)), None) = (&similarity, interrupted) {
        crate::similarity::write(assignment, submissions, settings, &options.out)?;
    }
    let folders = std::slice::from_ref(&options.out);
    let (manual, hand_grades) = keep_hand_grades(assignment, folders, &options.out, &options.manual)?;
    if partial.is_some() {
        let info = BatchInfo { partial: partial.clone(), ..info };
        write_atomic(&info_path, &serde_json::to_vec_pretty(&info).expect("serialisable"))?;
    }
    let book = write_class(assignment, folders, &options.out, Some(&ids), &manual, partial, None)?;
    let mut statuses = BTreeMap::new();
    for record in &book.students {
        *statuses.entry(record.status.word().to_owned()).or_insert(0) += 1;
    }
    Ok(BatchOutcome {
        roster: total,
        selected: selected.len(),
        graded: graded.into_inner(),
        reused: reused.into_inner(),
        statuses,
        in_class_files: book.students.len(),
        interrupted,
        warnings,
        hand_grades,
    })
}

/// The record of a student on whom the grader itself failed (a bug of the grader's, caught as a
/// panic): that student's row says so, and the class goes on.
fn grader_failed(assignment: &Assignment, entry: &Entry, panic: &(dyn std::any::Any + Send)) -> Record {
    let what = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    let note = format!("the grader failed on this submission (a bug of the grader's): {what}");
    let mut record = Record::ungraded(
        assignment,
        &entry.id,
        entry.name.as_deref(),
        &entry.origin,
        "",
        StudentStatus::GraderError,
        note,
    );
    describe(&mut record, entry, assignment);
    record
}

/// The hand grades kept in `folders` (earlier runs, or the partitions merged), with `given` over them.
fn hand_grades(
    assignment: &Assignment,
    folders: &[PathBuf],
    given: &ManualGrades,
) -> Result<ManualGrades, BatchError> {
    let stored =
        folders.iter().map(|f| ManualGrades::stored(f, assignment)).collect::<Result<Vec<_>, _>>()?;
    let stored = ManualGrades::combined(&stored).map_err(BatchError::Merge)?;
    Ok(stored.overlaid(given))
}

/// The hand grades of a class: those kept in `folders` (earlier runs, or the partitions merged),
/// with `given` over them; written into `out`'s [`HAND_GRADES_FILE`], so that the next run without
/// `--manual` keeps them.
fn keep_hand_grades(
    assignment: &Assignment,
    folders: &[PathBuf],
    out: &Path,
    given: &ManualGrades,
) -> Result<(ManualGrades, HandGradesKept), BatchError> {
    std::fs::create_dir_all(out).map_err(|source| BatchError::Write { path: out.to_owned(), source })?;
    // Held while the grades are read and written back: a `grader review` saving into the same
    // folder waits, and neither loses the other's grade.
    let _hold = crate::gradebook::HandGradesLock::take(out)
        .map_err(|source| BatchError::Write { path: out.join(HAND_GRADES_FILE), source })?;
    let all = hand_grades(assignment, folders, given)?;
    all.write(out)?;
    let kept = HandGradesKept { kept: all.len() - given.len(), given: given.len() };
    Ok((all, kept))
}

/// Reads the records under the output folders (only `ids`' when given), merges the hand grades,
/// writes each student's feedback into `out` (only `feedback_of`'s when given: the one student whose
/// hand grade changed) and the class's files (with the `partial` banner, when they hold only part of
/// the class); refuses a student graded in two folders.
pub fn write_class(
    assignment: &Assignment,
    folders: &[PathBuf],
    out: &Path,
    ids: Option<&BTreeSet<String>>,
    manual: &ManualGrades,
    partial: Option<String>,
    feedback_of: Option<&str>,
) -> Result<Gradebook, BatchError> {
    let mut records: BTreeMap<String, (Record, PathBuf)> = BTreeMap::new();
    for folder in folders {
        let students = folder.join(STUDENTS_DIR);
        let Ok(entries) = std::fs::read_dir(&students) else { continue };
        for entry in entries.flatten() {
            let Some(mut record) = read_record(&entry.path().join(RECORD_FILE)) else { continue };
            if ids.is_some_and(|ids| !ids.contains(&record.id)) {
                continue;
            }
            if let Some((_, other)) = records.get(&record.id) {
                return Err(BatchError::Merge(format!(
                    "{} was graded in both {} and {}: the partitions overlap",
                    record.id,
                    other.display(),
                    folder.display()
                )));
            }
            record.apply_manual(manual);
            records.insert(record.id.clone(), (record, entry.path()));
        }
    }
    let columns = gradebook::columns(assignment);
    for (record, from) in records.values().filter(|(r, _)| feedback_of.is_none_or(|id| r.id == id)) {
        let target = out.join(STUDENTS_DIR).join(student_dir_name(&record.id));
        if target != *from {
            for file in [RECORD_FILE, REPORT_FILE] {
                if let Ok(bytes) = std::fs::read(from.join(file)) {
                    write_atomic(&target.join(file), &bytes)?;
                }
            }
        }
        let feedback = match std::fs::read(from.join(REPORT_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Report>(&b).ok())
        {
            Some(report) => gradebook::render_feedback(&report, record, &columns),
            None => gradebook::render_ungraded_feedback(&assignment.title, record, &columns),
        };
        write_atomic(&target.join(FEEDBACK_FILE), feedback.as_bytes())?;
        let page = gradebook::render_feedback_html(&feedback);
        write_atomic(&target.join(gradebook::FEEDBACK_HTML_FILE), page.as_bytes())?;
    }
    let mut book = Gradebook::new(assignment, records.into_values().map(|(r, _)| r).collect());
    book.partial = partial;
    book.similarity = crate::similarity::report::Summary::read(out);
    write_atomic(&out.join("gradebook.csv"), book.to_csv().as_bytes())?;
    write_atomic(&out.join("summary.md"), gradebook::render_summary(&book).as_bytes())?;
    let href =
        |id: &str| format!("{STUDENTS_DIR}/{}/{}", student_dir_name(id), gradebook::FEEDBACK_HTML_FILE);
    // The page shows each row's note: there, the other submissions under a student's id too.
    let mut page = book.clone();
    for student in &mut page.students {
        student.note = student.row_note();
    }
    write_atomic(&out.join("class.html"), gradebook::render_class_html(&page, &href).as_bytes())?;
    Ok(book)
}

/// What `grader merge` found beyond the merged files: the students no partial output graded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOutcome {
    /// Students merged.
    pub students: usize,
    /// Ids of the class root that no folder graded, sorted.
    pub missing: Vec<String>,
    /// Partitions (of those the folders name) that no folder holds.
    pub missing_partitions: Vec<String>,
    /// The hand grades in the merged outputs.
    pub hand_grades: HandGradesKept,
}

/// Merges the outputs of several batches (partitions of one class) into `out`.
pub fn merge(
    assignment: &Assignment,
    folders: &[PathBuf],
    out: &Path,
    manual: &ManualGrades,
) -> Result<MergeOutcome, BatchError> {
    let mut infos = Vec::new();
    for folder in folders {
        let path = folder.join(BATCH_FILE);
        let info: BatchInfo =
            std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).ok_or_else(|| {
                BatchError::Merge(format!(
                    "{} is not a batch's output (no readable {BATCH_FILE})",
                    folder.display()
                ))
            })?;
        if info.assignment != assignment.id {
            return Err(BatchError::Merge(format!(
                "{} graded `{}`, not `{}`",
                folder.display(),
                info.assignment,
                assignment.id
            )));
        }
        infos.push(info);
    }
    let named: Vec<(String, Option<String>)> = infos
        .iter()
        .flat_map(|i| i.roster.iter().map(|id| (id.clone(), None)))
        .chain(roster_names(folders))
        .collect();
    manual.check_students(&named)?;
    let (manual, hand_grades) = keep_hand_grades(assignment, folders, out, manual)?;
    let book = write_class(assignment, folders, out, None, &manual, None, None)?;
    let graded: BTreeSet<&str> = book.students.iter().map(|r| r.id.as_str()).collect();
    let roster: BTreeSet<&str> = infos.iter().flat_map(|i| i.roster.iter().map(String::as_str)).collect();
    let missing: Vec<String> = roster.difference(&graded).map(|s| s.to_string()).collect();
    let mut missing_partitions = Vec::new();
    if let Some(n) = infos.iter().find_map(|i| {
        i.partition.map(|p| match p {
            Partition::Hash { n, .. } | Partition::Slice { n, .. } => n,
        })
    }) {
        let held: BTreeSet<String> =
            infos.iter().filter_map(|i| i.partition.map(|p| p.to_string())).collect();
        let kind = infos.iter().find_map(|i| i.partition).map(|p| match p {
            Partition::Hash { .. } => "hash",
            Partition::Slice { .. } => "slice",
        });
        for k in 1..=n {
            let name = format!("{}:{k}/{n}", kind.unwrap_or("hash"));
            if !held.contains(&name) {
                missing_partitions.push(name);
            }
        }
    }
    let info = BatchInfo {
        assignment: assignment.id.clone(),
        partition: None,
        roster: roster.iter().map(|s| s.to_string()).collect(),
        grader_version: env!("CARGO_PKG_VERSION").to_owned(),
        // The shares' folder when they all name the same one.
        root: infos
            .first()
            .and_then(|first| first.root.clone())
            .filter(|r| infos.iter().all(|i| i.root.as_ref() == Some(r))),
        assignment_dir: Some(assignment.dir.clone()),
        partial: None,
    };
    write_atomic(&out.join(BATCH_FILE), &serde_json::to_vec_pretty(&info).expect("serialisable"))?;
    Ok(MergeOutcome { students: book.students.len(), missing, missing_partitions, hand_grades })
}

/// The students' names the records under `folders` know, for a hand grade that names one.
fn roster_names(folders: &[PathBuf]) -> Vec<(String, Option<String>)> {
    let mut named = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder.join(STUDENTS_DIR)) else { continue };
        for entry in entries.flatten() {
            if let Some(record) = read_record(&entry.path().join(RECORD_FILE)) {
                named.push((record.id, record.name));
            }
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_readable_as_any_new_file_is_not_private_to_the_grader() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gradebook.csv");
        write_atomic(&path, b"id\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask, "umask {umask:o}");
    }

    #[test]
    fn student_folders_are_one_safe_component() {
        assert_eq!(student_dir_name("12345"), "12345");
        assert_eq!(student_dir_name("../etc"), "_etc");
        assert_eq!(student_dir_name("a/b c"), "a_b_c");
    }
}
