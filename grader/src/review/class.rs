//! The class a review serves, and its saves: records, reports and hand grades are read from the
//! class's output folder at each request (another teaching assistant, a `grader batch` or an edited
//! CSV may have changed them); a save goes through the gradebook's files under their lock and writes
//! the class's outputs again at once. Plain functions, no HTTP: the API and the pages call them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::split::Split;
use crate::batch::{self, BatchInfo};
use crate::build::SourceFile;
use crate::gradebook::{
    self, natural_order, HandGradesLock, ManualGrade, ManualGrades, Record, RubricItem, BATCH_FILE,
    REPORT_FILE, STUDENTS_DIR,
};
use crate::load::Assignment;
use crate::report::Report;

/// The longest comment or rubric item title a save takes, in characters.
const MAX_TEXT: usize = 10_000;

/// A graded class under review.
#[derive(Debug)]
pub struct Class {
    /// The class's output folder (of `batch` or `merge`).
    pub folder: PathBuf,
    /// Its assignment.
    pub assignment: Assignment,
    /// Which teaching assistant grades which student, if the class is split.
    pub split: Split,
    /// The banner of class files that hold only part of the class, kept when they are written again.
    partial: Option<String>,
    /// Each student's files as the class folder has them now, read once at start.
    submissions: BTreeMap<String, Submission>,
    /// Why no student's files can be shown, if so (the class folder is gone).
    files_note: Option<String>,
}

/// One student's files as the review found them.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The files the assignment takes, or why they could not be read.
    pub files: Result<Vec<SourceFile>, String>,
    /// The files differ from those graded (the record's key is not theirs).
    pub changed: bool,
}

/// A hand grade as the review shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradeView {
    /// Points given.
    pub points: f64,
    /// The grader's comment.
    pub comment: Option<String>,
    /// Who gave it.
    pub ta: Option<String>,
    /// The rubric items it applies.
    pub items: Vec<String>,
    /// What a save that replaces it names (see [`ManualGrade::version`]).
    pub version: String,
}

impl GradeView {
    fn of(grade: &ManualGrade) -> GradeView {
        GradeView {
            points: grade.points,
            comment: grade.comment.clone(),
            ta: grade.ta.clone(),
            items: grade.items.clone(),
            version: ManualGrade::version(Some(grade)),
        }
    }
}

/// One student of the class list (`GET /api/students`).
#[derive(Debug, Clone, Serialize)]
pub struct StudentRow {
    /// Id, as the class page shows it.
    pub id: String,
    /// Name, if known.
    pub name: Option<String>,
    /// Points with the hand grades given and the late penalty.
    pub total: f64,
    /// Points available.
    pub max: f64,
    /// How the grading went (`graded`, `build-error`, ...).
    pub status: String,
    /// Marked late by the download, if it says.
    pub late: Option<bool>,
    /// Hand-graded categories without a grade yet.
    pub pending: Vec<String>,
    /// The hand grades given, by category.
    pub hand: BTreeMap<String, GradeView>,
    /// The teaching assistant the class's split gives the student to, if any.
    pub assigned_to: Option<String>,
    /// Why it was not graded, other submissions under the id.
    pub note: Option<String>,
}

/// A hand-graded category of the rubric, with its items.
#[derive(Debug, Clone, Serialize)]
pub struct HandCategory {
    /// Category id.
    pub id: String,
    /// What it grades.
    pub title: String,
    /// Points available.
    pub points: f64,
    /// Its rubric items.
    pub items: Vec<RubricItem>,
}

/// What the review knows of the class at a request.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The students, in the class page's order.
    pub rows: Vec<StudentRow>,
    /// The hand-graded categories.
    pub categories: Vec<HandCategory>,
}

/// Why a save was not made; each is a 4xx of the API but [`SaveError::Io`].
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// No such student.
    #[error("no student `{0}` in the class")]
    UnknownStudent(String),
    /// Bad input: an unknown category or item, points out of range, no name.
    #[error("{0}")]
    Invalid(String),
    /// Someone saved the grade since the page was loaded.
    #[error("{} saved a grade of {} in {} meanwhile; yours was not saved", .current.ta.as_deref().unwrap_or("someone"), .id, .category)]
    Conflict {
        /// The student.
        id: String,
        /// The category.
        category: String,
        /// The grade there now.
        current: Box<GradeView>,
    },
    /// The files could not be written.
    #[error("{0}")]
    Io(String),
}

/// A hand grade to save (`POST /api/hand-grades`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradeChange {
    /// The student.
    pub id: String,
    /// The hand-graded category.
    pub category: String,
    /// Points, 0 to the category's; when absent, the category's points with its items applied.
    #[serde(default)]
    pub points: Option<f64>,
    /// A comment for the student.
    #[serde(default)]
    pub comment: Option<String>,
    /// Who grades.
    pub ta: String,
    /// The rubric items applied, by id.
    #[serde(default)]
    pub items: Vec<String>,
    /// The version of the grade this one replaces (`""` or absent: there is none yet).
    #[serde(default)]
    pub replaces: Option<String>,
}

/// A hand grade to take back (`DELETE /api/hand-grades`): given to the wrong student, say.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradeWithdrawal {
    /// The student.
    pub id: String,
    /// The hand-graded category.
    pub category: String,
    /// Who takes it back.
    pub ta: String,
    /// The version of the grade taken back: one saved since is not taken back.
    pub replaces: String,
}

/// A rubric item to make or change (`POST /api/rubric-items`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemChange {
    /// The hand-graded category.
    pub category: String,
    /// The item to change; absent to make a new one.
    #[serde(default)]
    pub item: Option<String>,
    /// Points it adds (negative: a deduction).
    pub points: f64,
    /// What it says.
    pub title: String,
    /// Who makes it.
    pub ta: String,
}

/// What a save did.
#[derive(Debug, Clone, Serialize)]
pub struct Saved {
    /// The grade saved (a grade save), or the item (an item save).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grade: Option<GradeView>,
    /// The item made or changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<RubricItem>,
    /// The students whose grades changed.
    pub students: Vec<String>,
}

impl Class {
    /// Opens the class in `folder`: its assignment (given), its split, and each student's files from
    /// the class folder `batch.json` names.
    pub fn open(folder: &Path, assignment: Assignment, split: Split) -> Class {
        let info: Option<BatchInfo> =
            std::fs::read(folder.join(BATCH_FILE)).ok().and_then(|b| serde_json::from_slice(&b).ok());
        let partial = info.as_ref().and_then(|i| i.partial.clone());
        let root = info.and_then(|i| i.root);
        let (submissions, files_note) = match &root {
            Some(root) if root.exists() => {
                match crate::roster::discover(root, &assignment.submission_files, Default::default()) {
                    Ok(entries) => {
                        let key = batch::assignment_key(&assignment);
                        let records: BTreeMap<String, String> = crate::export::read_records(folder)
                            .unwrap_or_default()
                            .into_iter()
                            .map(|r| (r.id, r.key))
                            .collect();
                        let submissions = entries
                            .into_iter()
                            .map(|entry| {
                                let changed = records
                                    .get(&entry.id)
                                    .is_some_and(|graded| *graded != batch::student_key(&key, &entry));
                                (entry.id.clone(), Submission { files: entry.files, changed })
                            })
                            .collect();
                        (submissions, None)
                    }
                    Err(e) => (BTreeMap::new(), Some(e.to_string())),
                }
            }
            Some(root) => (BTreeMap::new(), Some(format!("the class folder {} is gone", root.display()))),
            None => {
                (BTreeMap::new(), Some("batch.json does not say which class folder was graded".to_owned()))
            }
        };
        Class { folder: folder.to_owned(), assignment, split, partial, submissions, files_note }
    }

    /// The students and hand grades as the folder has them now.
    pub fn snapshot(&self) -> Result<Snapshot, SaveError> {
        let mut records =
            crate::export::read_records(&self.folder).map_err(|e| SaveError::Io(e.to_string()))?;
        records.sort_by(|a, b| natural_order(&a.id, &b.id));
        let grades = self.grades()?;
        let rows = records.into_iter().map(|record| self.row(record, &grades)).collect();
        let categories = self
            .assignment
            .categories
            .iter()
            .filter(|c| c.manual)
            .map(|c| HandCategory {
                id: c.id.clone(),
                title: c.title.clone(),
                points: c.points,
                items: grades.rubric().of(&c.id).cloned().collect(),
            })
            .collect();
        Ok(Snapshot { rows, categories })
    }

    fn grades(&self) -> Result<ManualGrades, SaveError> {
        ManualGrades::stored(&self.folder, &self.assignment).map_err(|e| SaveError::Io(e.to_string()))
    }

    fn row(&self, mut record: Record, grades: &ManualGrades) -> StudentRow {
        record.apply_manual(grades);
        let hand = record
            .categories
            .iter()
            .filter(|c| c.manual)
            .filter_map(|c| grades.get(&record.id, &c.id).map(|g| (c.id.clone(), GradeView::of(g))))
            .collect();
        StudentRow {
            name: record.name.clone(),
            total: record.total(),
            max: record.max(),
            status: record.status.word().to_owned(),
            late: record.download.late,
            pending: record.pending().into_iter().map(str::to_owned).collect(),
            hand,
            assigned_to: self.split.ta_of(&record.id).map(str::to_owned),
            note: record.row_note(),
            id: record.id,
        }
    }

    /// A student's full report, if the folder has one.
    pub fn report(&self, id: &str) -> Option<Report> {
        let path = self.folder.join(STUDENTS_DIR).join(batch::student_dir_name(id)).join(REPORT_FILE);
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// A student's files, or why they cannot be shown.
    pub fn files(&self, id: &str) -> Result<&Submission, String> {
        if let Some(note) = &self.files_note {
            return Err(note.clone());
        }
        self.submissions
            .get(id)
            .ok_or_else(|| "the class folder no longer has this student's submission".to_owned())
    }

    /// Saves a hand grade, unless another was saved since the one it replaces; then writes the class's
    /// outputs again (gradebook, summary, class page, the student's feedback).
    pub fn save_grade(&self, change: GradeChange) -> Result<Saved, SaveError> {
        let ta = checked_name(&change.ta)?;
        let category = self.hand_category(&change.category)?;
        let comment = change.comment.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned);
        if comment.as_ref().is_some_and(|c| c.chars().count() > MAX_TEXT) {
            return Err(SaveError::Invalid(format!("a comment of at most {MAX_TEXT} characters")));
        }
        let _hold = self.hold()?;
        let record = self.record(&change.id)?;
        let mut grades = self.grades()?;
        if let Some(unknown) = change.items.iter().find(|i| grades.rubric().get(&category.id, i).is_none()) {
            return Err(SaveError::Invalid(format!("no rubric item `{unknown}` in {}", category.id)));
        }
        let points = match change.points {
            Some(points) => points,
            None => gradebook::points_with_items(
                category.points,
                grades.rubric().sum(&category.id, &change.items),
                0.0,
            ),
        };
        if !(0.0..=category.points).contains(&points) {
            return Err(SaveError::Invalid(format!(
                "points {points} are not within 0..{} of {}",
                category.points, category.id
            )));
        }
        let current = grades.get(&record.id, &category.id);
        if ManualGrade::version(current) != change.replaces.clone().unwrap_or_default() {
            // Nothing given yet, and the caller thought there was: their grade replaces nothing.
            if let Some(current) = current {
                return Err(SaveError::Conflict {
                    id: record.id.clone(),
                    category: category.id.clone(),
                    current: Box::new(GradeView::of(current)),
                });
            }
        }
        // Each item once, in the order given.
        let mut items: Vec<String> = Vec::new();
        for item in &change.items {
            if !items.contains(item) {
                items.push(item.clone());
            }
        }
        let grade = ManualGrade {
            points: crate::points::round(points),
            comment,
            ta: Some(ta),
            items,
            source: (self.folder.join(gradebook::HAND_GRADES_FILE), 0),
        };
        grades.set(&record.id, &category.id, grade.clone());
        self.write(&grades, Some(&record.id))?;
        Ok(Saved { grade: Some(GradeView::of(&grade)), item: None, students: vec![record.id.clone()] })
    }

    /// Takes a hand grade back (the category is pending again), unless another was saved since the
    /// one named; then writes the class's outputs again.
    pub fn withdraw_grade(&self, change: GradeWithdrawal) -> Result<Saved, SaveError> {
        checked_name(&change.ta)?;
        let _hold = self.hold()?;
        let record = self.record(&change.id)?;
        let mut grades = self.grades()?;
        let Some(current) = grades.get(&record.id, &change.category) else {
            return Err(SaveError::Invalid(format!(
                "{} has no hand grade in {} to take back",
                record.id, change.category
            )));
        };
        if ManualGrade::version(Some(current)) != change.replaces {
            return Err(SaveError::Conflict {
                id: record.id.clone(),
                category: change.category.clone(),
                current: Box::new(GradeView::of(current)),
            });
        }
        grades.remove(&record.id, &change.category);
        self.write(&grades, Some(&record.id))?;
        Ok(Saved { grade: None, item: None, students: vec![record.id.clone()] })
    }

    /// Makes a rubric item, or changes one and with it the points of every grade that applies it;
    /// then writes the class's outputs again.
    pub fn save_item(&self, change: ItemChange) -> Result<Saved, SaveError> {
        checked_name(&change.ta)?;
        let category = self.hand_category(&change.category)?;
        let title = change.title.trim();
        if title.is_empty() || title.chars().count() > MAX_TEXT || title.contains(['\n', '\r']) {
            return Err(SaveError::Invalid("an item's title is one line of text".to_owned()));
        }
        if !change.points.is_finite() || change.points.abs() > category.points {
            return Err(SaveError::Invalid(format!(
                "an item of {} adds or takes off at most {} points",
                category.id, category.points
            )));
        }
        let _hold = self.hold()?;
        let mut grades = self.grades()?;
        let (item, students) = match &change.item {
            None => (grades.rubric_mut().add(&category.id, change.points, title), Vec::new()),
            Some(id) => {
                let before = grades
                    .rubric_mut()
                    .edit(&category.id, id, change.points, title)
                    .ok_or_else(|| SaveError::Invalid(format!("no rubric item `{id}` in {}", category.id)))?;
                let students =
                    grades.rescore(&category.id, id, category.points, before.points, change.points);
                let item = grades.rubric().get(&category.id, id).cloned().expect("just edited");
                (item, students)
            }
        };
        self.write(&grades, None)?;
        Ok(Saved { grade: None, item: Some(item), students })
    }

    /// The hand-graded category `id` of the rubric.
    fn hand_category(&self, id: &str) -> Result<&crate::load::Category, SaveError> {
        self.assignment
            .category(id)
            .filter(|c| c.manual)
            .ok_or_else(|| SaveError::Invalid(format!("no hand-graded category `{id}`")))
    }

    /// The record of the student `id`, as the folder has it now.
    fn record(&self, id: &str) -> Result<Record, SaveError> {
        let records = crate::export::read_records(&self.folder).map_err(|e| SaveError::Io(e.to_string()))?;
        records.into_iter().find(|r| r.id == id).ok_or_else(|| SaveError::UnknownStudent(id.to_owned()))
    }

    fn hold(&self) -> Result<HandGradesLock, SaveError> {
        HandGradesLock::take(&self.folder)
            .map_err(|e| SaveError::Io(format!("cannot lock the hand grades: {e}")))
    }

    /// Writes the grades, then the class's files with them (only `id`'s feedback when given).
    fn write(&self, grades: &ManualGrades, id: Option<&str>) -> Result<(), SaveError> {
        let io = |e: batch::BatchError| SaveError::Io(e.to_string());
        grades.write(&self.folder).map_err(|e| io(e.into()))?;
        let folders = std::slice::from_ref(&self.folder);
        batch::write_class(&self.assignment, folders, &self.folder, None, grades, self.partial.clone(), id)
            .map_err(io)?;
        Ok(())
    }
}

/// A teaching assistant's name: one line of text, not empty.
fn checked_name(name: &str) -> Result<String, SaveError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(SaveError::Invalid("say who grades: `ta`, a name of one line".to_owned()));
    }
    Ok(name.to_owned())
}
