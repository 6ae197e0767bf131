//! Class stage, after the gradebook: a batch's grades and feedback in the layouts a course platform
//! imports. Canvas: the gradebook's import CSV, and a zip of feedback files named as its "Re-Upload
//! Submissions" expects (each file after the student's submission it answers). Moodle: the
//! assignment's offline grading worksheet, and a zip of feedback files as its "Upload multiple
//! feedback files in a zip" expects (`Full Name_participant_assignfeedback_file_...`). A spreadsheet:
//! the gradebook with the byte-order mark Excel needs to read UTF-8.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::batch::{student_dir_name, write_atomic, BatchError};
use crate::gradebook::{ManualGrades, Record, FEEDBACK_FILE, RECORD_FILE, STUDENTS_DIR};
use crate::load::Assignment;

/// The course platform an export is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Platform {
    /// Canvas LMS: gradebook import CSV, feedback for "Re-Upload Submissions".
    Canvas,
    /// Moodle: the assignment's grading worksheet, feedback files in a zip.
    Moodle,
    /// A spreadsheet: `gradebook.csv` with a UTF-8 byte-order mark, without which Excel reads the
    /// file in the machine's legacy code page and garbles names such as `Zoë`.
    Excel,
}

/// What to export, and where.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The platform.
    pub platform: Platform,
    /// Where the files go.
    pub out: PathBuf,
    /// Canvas: the gradebook column of the assignment, as Canvas names it in its own export
    /// (`Backgammon project (123456)`); the import then fills that column instead of adding one.
    pub column: Option<String>,
    /// Moodle: the time written as the grades' last change (`YYYY-MM-DD HH:MM`), after which a
    /// grade changed in Moodle is not overwritten by the import; default: now.
    pub modified: Option<String>,
}

/// What an export wrote, and whom it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOutcome {
    /// The files written.
    pub files: Vec<PathBuf>,
    /// Students exported.
    pub students: usize,
    /// Students left out, each with why (an id the platform does not know, such as a folder name).
    pub left_out: Vec<(String, String)>,
    /// Students exported whose hand grades are still pending (their grade lacks those points).
    pub pending: Vec<String>,
}

/// The records of a batch's (or a merge's) output folder, sorted by id.
///
/// # Errors
///
/// [`BatchError::Merge`] when the folder holds no graded student.
pub fn read_records(class: &Path) -> Result<Vec<Record>, BatchError> {
    let students = class.join(STUDENTS_DIR);
    let entries = std::fs::read_dir(&students).map_err(|_| {
        BatchError::Merge(format!(
            "{} is not a batch's output (no {STUDENTS_DIR}/ folder): export reads what `grader batch` wrote",
            class.display()
        ))
    })?;
    let mut records: Vec<Record> = entries
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join(RECORD_FILE)).ok())
        .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
        .collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(records)
}

/// Writes the export of the class in `class` (a batch's output folder, graded for `assignment`), its
/// hand grades included.
///
/// # Errors
///
/// The folder is not a batch's output, or a file cannot be written.
pub fn export(
    class: &Path,
    assignment: &Assignment,
    options: &ExportOptions,
) -> Result<ExportOutcome, BatchError> {
    let mut records = read_records(class)?;
    // The hand grades live beside the records (`hand-grades.csv`), as the gradebook reads them.
    let manual = ManualGrades::stored(class, assignment)?;
    for record in &mut records {
        record.apply_manual(&manual);
    }
    let mut left_out = Vec::new();
    let mut exported: Vec<(&Record, String)> = Vec::new();
    for record in &records {
        match platform_name(options.platform, record) {
            Ok(name) => exported.push((record, name)),
            Err(why) => left_out.push((record.id.clone(), why)),
        }
    }
    let pending =
        exported.iter().filter(|(r, _)| !r.pending().is_empty()).map(|(r, _)| r.id.clone()).collect();
    let (grades_name, zip_name, grades) = match options.platform {
        Platform::Excel => return spreadsheet(class, records.len(), options),
        Platform::Canvas => {
            ("canvas-grades.csv", "canvas-feedback.zip", canvas_csv(&exported, options.column.as_deref()))
        }
        Platform::Moodle => {
            let modified = options.modified.clone().unwrap_or_else(now_utc);
            ("moodle-grades.csv", "moodle-feedback.zip", moodle_csv(&exported, &modified))
        }
    };
    let grades_path = options.out.join(grades_name);
    write_atomic(&grades_path, grades.as_bytes())?;
    let zip_path = options.out.join(zip_name);
    write_atomic(&zip_path, &feedback_zip(class, &exported)?)?;
    Ok(ExportOutcome { files: vec![grades_path, zip_path], students: exported.len(), left_out, pending })
}

/// The class's `gradebook.csv` with a UTF-8 byte-order mark, as `gradebook-excel.csv`.
fn spreadsheet(class: &Path, students: usize, options: &ExportOptions) -> Result<ExportOutcome, BatchError> {
    let source = class.join("gradebook.csv");
    let csv = std::fs::read(&source).map_err(|e| {
        BatchError::Merge(format!("cannot read {}: {e} (it is what `grader batch` writes)", source.display()))
    })?;
    let path = options.out.join("gradebook-excel.csv");
    write_atomic(&path, &[b"\xEF\xBB\xBF".as_slice(), &csv].concat())?;
    Ok(ExportOutcome { files: vec![path], students, left_out: Vec::new(), pending: Vec::new() })
}

/// The file name prefix that ties a feedback file to its student on `platform` (Canvas: the one of
/// the student's submitted file, `name_[LATE_]user_attachment_`; Moodle: `Full
/// Name_participant_assignfeedback_file_`), or why this student cannot be exported there.
fn platform_name(platform: Platform, record: &Record) -> Result<String, String> {
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match platform {
        Platform::Excel => Ok(String::new()),
        Platform::Canvas => {
            // Canvas reads the first two all-digit words of the name as user and attachment ids.
            let first = record.origin.split(", ").next().unwrap_or("");
            let file = first.rsplit('/').next().unwrap_or(first);
            let words: Vec<&str> = file.split('_').collect();
            let digits: Vec<usize> = (0..words.len()).filter(|&i| numeric(words[i])).take(2).collect();
            match digits.as_slice() {
                [user, attachment] if words[*user] == record.id => {
                    Ok(format!("{}_", words[..=*attachment].join("_")))
                }
                _ => Err(format!(
                    "not from a Canvas download (`{}` names no user and attachment id)",
                    record.origin
                )),
            }
        }
        Platform::Moodle => {
            if !numeric(&record.id) {
                return Err(format!(
                    "`{}` is not a Moodle participant id (not from a Moodle download)",
                    record.id
                ));
            }
            // Moodle splits the name at underscores (a full name must not hold one) and reads the
            // plugin the file is for after the participant id.
            let name = record.name.as_deref().unwrap_or("Student").replace('_', " ");
            Ok(format!("{name}_{}_assignfeedback_file_", record.id))
        }
    }
}

/// A CSV cell of student text, as `gradebook.csv` writes it: no spreadsheet opening the file runs it
/// as a formula, and no terminal printing it runs an escape sequence.
fn cell(text: &str) -> String {
    crate::gradebook::spreadsheet_text(text)
}

/// Canvas's gradebook import: `Student,ID,SIS User ID,SIS Login ID,Section,<column>`, a `Points
/// Possible` row, then one row per student (matched by the Canvas user id).
fn canvas_csv(exported: &[(&Record, String)], column: Option<&str>) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let max = exported.first().map_or(0.0, |(r, _)| r.max());
    let column = column.map_or_else(|| "Grader".to_owned(), str::to_owned);
    let _ = writer.write_record(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", &column]);
    let _ = writer.write_record(["Points Possible", "", "", "", "", &format!("{max:.2}")]);
    for (record, _) in exported {
        let name = record.name.as_deref().unwrap_or("");
        let _ = writer.write_record([&cell(name), &record.id, "", "", "", &format!("{:.2}", record.total())]);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Moodle's offline grading worksheet, with the columns its upload reads: `Identifier`
/// (`Participant N`), `Grade`, `Last modified (grade)` and `Feedback comments`, and the name and
/// maximum for the person reading it.
fn moodle_csv(exported: &[(&Record, String)], modified: &str) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let _ = writer.write_record([
        "Identifier",
        "Full name",
        "Grade",
        "Maximum Grade",
        "Last modified (grade)",
        "Feedback comments",
    ]);
    for (record, _) in exported {
        let categories: Vec<String> = record
            .categories
            .iter()
            .map(|c| match c.score {
                Some(score) => format!("{} {score:.2}/{:.2}", c.id, c.max),
                None => format!("{} pending/{:.2}", c.id, c.max),
            })
            .collect();
        let comment = format!(
            "{:.2} / {:.2} ({}); the feedback file has every case.",
            record.total(),
            record.max(),
            categories.join(", ")
        );
        let _ = writer.write_record([
            format!("Participant {}", record.id),
            cell(record.name.as_deref().unwrap_or("")),
            format!("{:.2}", record.total()),
            format!("{:.2}", record.max()),
            modified.to_owned(),
            comment,
        ]);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Each exported student's feedback (the HTML page when the batch wrote one, else the Markdown),
/// named with the student's platform prefix, in one zip.
fn feedback_zip(class: &Path, exported: &[(&Record, String)]) -> Result<Vec<u8>, BatchError> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let zip_error = |e: zip::result::ZipError| BatchError::Write {
        path: class.to_owned(),
        source: std::io::Error::other(e.to_string()),
    };
    let options = zip::write::SimpleFileOptions::default().unix_permissions(0o644);
    for (record, prefix) in exported {
        let dir = class.join(STUDENTS_DIR).join(student_dir_name(&record.id));
        let html = dir.join(FEEDBACK_FILE).with_extension("html");
        let (path, extension) = if html.is_file() { (html, "html") } else { (dir.join(FEEDBACK_FILE), "md") };
        let Ok(bytes) = std::fs::read(&path) else { continue };
        zip.start_file(format!("{prefix}feedback.{extension}"), options).map_err(zip_error)?;
        zip.write_all(&bytes).map_err(|source| BatchError::Write { path: path.clone(), source })?;
    }
    let cursor = zip.finish().map_err(zip_error)?;
    Ok(cursor.into_inner())
}

/// Now, as `YYYY-MM-DD HH:MM` in UTC (Moodle reads it with `strtotime`).
fn now_utc() -> String {
    chrono::Utc::now().format("%Y-%m-%d %H:%M").to_string()
}
