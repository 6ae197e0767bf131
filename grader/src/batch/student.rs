//! One student of a batch, in the class's two phases (visible cases, then hidden ones): graded, or
//! their up-to-date record reused, and what the download says of them put in their record.

use std::path::PathBuf;

use super::{read_record, student_dir_name, student_key, write_atomic, BatchError, BatchOptions};
use crate::build::Submission;
use crate::grade;
use crate::gradebook::{Record, StudentStatus, RECORD_FILE, REPORT_FILE, STUDENTS_DIR};
use crate::load::Assignment;
use crate::report::Report;
use crate::roster::Entry;

/// Puts in a record what the download says of the student beyond the files (their name, where the
/// submission is, the late mark and what was renamed or left out) and the assignment's late
/// penalty; says whether anything changed.
pub(super) fn describe(record: &mut Record, entry: &Entry, assignment: &Assignment) -> bool {
    let before = (record.name.clone(), record.origin.clone(), record.download.clone(), record.late_penalty);
    record.name = entry.name.clone();
    record.origin = entry.origin.clone();
    record.download = entry.facts.clone();
    record.late_penalty = assignment.late_penalty;
    before != (record.name.clone(), record.origin.clone(), record.download.clone(), record.late_penalty)
}

/// A student after the batch's first phase.
pub(super) enum Begun<'a> {
    /// Their record was up to date (and now says what the download says of them): nothing to run.
    UpToDate(Record),
    /// Nothing to run: no files, or their files could not be read or graded (the record says why).
    Ungraded(Record),
    /// Built, probed and their visible cases run; their hidden cases wait for the second phase.
    Started(grade::Started<'a>),
}

/// The first phase for one student: reuses an up-to-date record, or builds the submission and runs
/// its visible cases (see `grade::start`). Nothing of a grading is written before the second phase.
pub(super) fn begin_student<'a>(
    assignment: &'a Assignment,
    entry: &Entry,
    assignment_key: &str,
    options: &'a BatchOptions,
) -> Result<Begun<'a>, BatchError> {
    let dir = options.out.join(STUDENTS_DIR).join(student_dir_name(&entry.id));
    let key = student_key(assignment_key, entry);
    if !options.force && options.only.is_empty() {
        if let Some(mut record) =
            read_record(&dir.join(RECORD_FILE)).filter(|r| r.key == key && r.id == entry.id)
        {
            // The same files, but a download that says other things of them (a late mark, a
            // submission left out): the record and the report say what it says now.
            if describe(&mut record, entry, assignment) {
                write_atomic(
                    &dir.join(RECORD_FILE),
                    &serde_json::to_vec_pretty(&record).expect("serialisable"),
                )?;
                let report = std::fs::read(dir.join(REPORT_FILE))
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Report>(&b).ok());
                if let Some(mut report) = report {
                    report.submission_notes = entry.facts.notes.clone();
                    write_atomic(&dir.join(REPORT_FILE), crate::report::render_json(&report).as_bytes())?;
                }
            }
            return Ok(Begun::UpToDate(record));
        }
    }
    let name = entry.name.as_deref();
    let ungraded =
        |status, note| Record::ungraded(assignment, &entry.id, name, &entry.origin, &key, status, note);
    Ok(match &entry.files {
        Err(message) => Begun::Ungraded(ungraded(StudentStatus::GraderError, message.clone())),
        Ok(files) if files.is_empty() => {
            let patterns: Vec<String> =
                assignment.submission_files.iter().map(|p| p.as_str().to_owned()).collect();
            let note = format!("no file matching {} in {}", patterns.join(" or "), entry.origin);
            Begun::Ungraded(ungraded(StudentStatus::NoFiles, note))
        }
        Ok(files) => {
            let submission = Submission { path: PathBuf::from(&entry.origin), files: files.clone() };
            match grade::start(assignment, &submission, &options.grade) {
                Ok(started) => Begun::Started(started),
                Err(e) => Begun::Ungraded(ungraded(
                    StudentStatus::GraderError,
                    format!("the grader could not grade it: {e}"),
                )),
            }
        }
    })
}

/// The second phase for one student: runs their hidden cases and writes their report and record;
/// `None` when the batch was asked to stop while grading them (left to the next run, nothing
/// written). The flag says whether the record was up to date.
pub(super) fn finish_student(
    assignment: &Assignment,
    entry: &Entry,
    assignment_key: &str,
    options: &BatchOptions,
    begun: Begun<'_>,
) -> Result<Option<(Record, bool)>, BatchError> {
    let dir = options.out.join(STUDENTS_DIR).join(student_dir_name(&entry.id));
    let (mut record, report) = match begun {
        Begun::UpToDate(record) => return Ok(Some((record, true))),
        Begun::Ungraded(record) => (record, None),
        Begun::Started(started) => {
            let mut graded = started.finish();
            graded.submission_notes = entry.facts.notes.clone();
            let key = student_key(assignment_key, entry);
            let name = entry.name.as_deref();
            (Record::from_report(assignment, &graded, &entry.id, name, &entry.origin, &key), Some(graded))
        }
    };
    if options.stop.signal().is_some() {
        // Its programs may have had the signal too (a job scheduler signals every process): a
        // grading that overlapped it is not trusted.
        return Ok(None);
    }
    describe(&mut record, entry, assignment);
    match &report {
        Some(report) => write_atomic(&dir.join(REPORT_FILE), crate::report::render_json(report).as_bytes())?,
        // A report of an earlier grading of other files would be misleading now.
        None => {
            let _ = std::fs::remove_file(dir.join(REPORT_FILE));
        }
    }
    write_atomic(&dir.join(RECORD_FILE), &serde_json::to_vec_pretty(&record).expect("serialisable"))?;
    Ok(Some((record, false)))
}
