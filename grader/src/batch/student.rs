//! One student of a batch: graded, or their up-to-date record reused, and what the download says of
//! them put in their record.

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

/// Grades one student (or reuses an up-to-date record) and writes their report and record; `None`
/// when the batch was asked to stop while grading them (left to the next run, nothing written).
pub(super) fn grade_student(
    assignment: &Assignment,
    entry: &Entry,
    assignment_key: &str,
    options: &BatchOptions,
) -> Result<Option<(Record, bool)>, BatchError> {
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
            return Ok(Some((record, true)));
        }
    }
    let name = entry.name.as_deref();
    let mut report = None;
    let mut record = match &entry.files {
        Err(message) => Record::ungraded(
            assignment,
            &entry.id,
            name,
            &entry.origin,
            &key,
            StudentStatus::GraderError,
            message.clone(),
        ),
        Ok(files) if files.is_empty() => {
            let patterns: Vec<String> =
                assignment.submission_files.iter().map(|p| p.as_str().to_owned()).collect();
            let note = format!("no file matching {} in {}", patterns.join(" or "), entry.origin);
            Record::ungraded(assignment, &entry.id, name, &entry.origin, &key, StudentStatus::NoFiles, note)
        }
        Ok(files) => {
            let submission = Submission { path: PathBuf::from(&entry.origin), files: files.clone() };
            match grade::grade_submission(assignment, &submission, &options.grade) {
                Ok(mut graded) => {
                    graded.submission_notes = entry.facts.notes.clone();
                    let record =
                        Record::from_report(assignment, &graded, &entry.id, name, &entry.origin, &key);
                    report = Some(graded);
                    record
                }
                Err(e) => Record::ungraded(
                    assignment,
                    &entry.id,
                    name,
                    &entry.origin,
                    &key,
                    StudentStatus::GraderError,
                    format!("the grader could not grade it: {e}"),
                ),
            }
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
