//! Class stage: what a class's gradings add up to. Each graded student leaves a small [`Record`] on disk;
//! a [`Gradebook`] is built from the records of one or several output folders (a whole class, or the
//! partitions of one merged) and rendered as `gradebook.csv`, `summary.md` and `class.html`.

mod feedback;
mod feedback_html;
mod html;
mod items;
mod manual;
mod summary;

use serde::{Deserialize, Serialize};

pub use feedback::{render_feedback, render_ungraded_feedback};
pub use feedback_html::render_feedback_html;
pub use html::render_class_html;
// The similarity page is built the same way: one self-contained file under the same policy.
pub(crate) use html::{escape as escape_html, page_head};
pub use items::{points_with_items, RubricItem, RubricItems, RUBRIC_ITEMS_FILE};
pub use manual::{HandGradesLock, ManualGrade, ManualGrades, ManualGradesError, HAND_GRADES_FILE};
pub use summary::render_summary;

use crate::load::{Assignment, Visibility};
use crate::report::{escape, Report};
use crate::roster::Facts;

/// Where a student's files go inside a batch's output folder: `students/<id>/`.
pub const STUDENTS_DIR: &str = "students";
/// A student's record, read back by re-runs and by `grader merge`.
pub const RECORD_FILE: &str = "record.json";
/// A student's full report.
pub const REPORT_FILE: &str = "report.json";
/// A student's feedback, to hand to them.
pub const FEEDBACK_FILE: &str = "feedback.md";
/// The same feedback as a page of its own, which the class page links to.
pub const FEEDBACK_HTML_FILE: &str = "feedback.html";
/// What a batch was asked to do: assignment, partition, the whole roster (to name gaps on merge).
pub const BATCH_FILE: &str = "batch.json";

/// How a student's grading went, as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StudentStatus {
    /// Every build succeeded and every case ran (whatever its verdict).
    Graded,
    /// A build failed: the cases that needed it scored nothing.
    BuildError,
    /// The submission holds no file the assignment takes.
    NoFiles,
    /// The grader could not grade it (an unreadable archive, a failure of the grader's own); `note`
    /// says why. The rest of the class is graded.
    GraderError,
}

impl StudentStatus {
    /// The word used in the gradebook and the class page.
    pub fn word(self) -> &'static str {
        match self {
            StudentStatus::Graded => "graded",
            StudentStatus::BuildError => "build-error",
            StudentStatus::NoFiles => "no-files",
            StudentStatus::GraderError => "grader-error",
        }
    }
}

/// One category of one student: automated points, or a hand grade (or none yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryScore {
    /// Category id.
    pub id: String,
    /// Points earned; `None` for a hand-graded category without a grade yet (pending).
    pub score: Option<f64>,
    /// Points available.
    pub max: f64,
    /// Graded by hand.
    pub manual: bool,
    /// A bonus (extra credit): its points count in the total but not in the max. Records written
    /// before bonus categories existed have none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bonus: bool,
    /// The grader's comment, for a hand-graded category.
    pub comment: Option<String>,
}

/// One case of one student, for the class's pass rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseOutcome {
    /// Case id.
    pub id: String,
    /// Passed with full points.
    pub passed: bool,
    /// What happened (`failed`, `timeout`, ...), as in the report.
    pub status: String,
}

impl CaseOutcome {
    /// The student's program ran the case: it was built, and the grader did not fail.
    pub fn ran(&self) -> bool {
        // The words of `CaseStatus::BuildError` and `CaseStatus::Error` as the record stores them.
        !matches!(self.status.as_str(), "build_error" | "error")
    }
}

/// What one student's grading leaves for the class: enough for the gradebook, the summary and the
/// class page without the full report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The student's id as the layout gives it (a Moodle or Canvas user id, a folder name).
    pub id: String,
    /// The student's name, where the layout gives one.
    pub name: Option<String>,
    /// Where the submission came from, relative to the batch's root.
    pub origin: String,
    /// Hash of everything the grading depends on: a re-run with the same key reuses this record.
    pub key: String,
    /// How it went.
    pub status: StudentStatus,
    /// The automated points as the report totals them (the categories' shown scores are rounded, and
    /// their sum may differ from it by a hundredth).
    pub automated: f64,
    /// One line on what went wrong, if anything.
    pub note: Option<String>,
    /// Every rubric category, in rubric order (automated and hand-graded).
    pub categories: Vec<CategoryScore>,
    /// Every case, in case order (empty when nothing could run).
    pub cases: Vec<CaseOutcome>,
    /// What the class download said beyond the files: the late mark, files renamed or left out, other
    /// submissions under the same id.
    #[serde(default, skip_serializing_if = "Facts::is_empty")]
    pub download: Facts,
    /// The assignment's late penalty in percent (`[late] penalty`), when it has one: taken off the
    /// total of a submission marked late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_penalty: Option<f64>,
}

impl Record {
    /// Points earned: automated points (bonus points included) plus the hand grades given so far,
    /// less the late penalty.
    pub fn total(&self) -> f64 {
        crate::points::round(self.total_before_penalty() - self.penalty())
    }

    /// Points earned before any late penalty.
    pub fn total_before_penalty(&self) -> f64 {
        let manual: f64 = self.categories.iter().filter(|c| c.manual).filter_map(|c| c.score).sum();
        crate::points::round(self.automated + manual)
    }

    /// Points taken off for lateness: the assignment's percentage of the points earned (never of a
    /// negative total), when the download marks the submission late.
    pub fn penalty(&self) -> f64 {
        match (self.download.late, self.late_penalty) {
            (Some(true), Some(percent)) => {
                crate::points::round(self.total_before_penalty().max(0.0) * percent / 100.0)
            }
            _ => 0.0,
        }
    }

    /// The sentence a class's row shows: why it was not graded, and the other submissions under its
    /// id, if any.
    pub fn row_note(&self) -> Option<String> {
        let several = (!self.download.left_out.is_empty()).then(|| {
            format!(
                "{} submissions under this id: {} graded; left out: {}",
                self.download.left_out.len() + 1,
                self.origin,
                self.download.left_out.join(", ")
            )
        });
        match (&self.note, several) {
            (Some(note), Some(several)) => Some(format!("{note}; {several}")),
            (note, several) => note.clone().or(several),
        }
    }

    /// Points available over every category but the bonus ones: the total may exceed it.
    pub fn max(&self) -> f64 {
        crate::points::round(self.categories.iter().filter(|c| !c.bonus).map(|c| c.max).sum())
    }

    /// The words after a total that has bonus points in it: `including 3.00 of 5.00 bonus points`;
    /// `None` when the rubric has no bonus category.
    pub fn bonus_phrase(&self) -> Option<String> {
        let bonus: Vec<&CategoryScore> = self.categories.iter().filter(|c| c.bonus).collect();
        let earned: f64 = bonus.iter().filter_map(|c| c.score).sum();
        let available: f64 = bonus.iter().map(|c| c.max).sum();
        (!bonus.is_empty()).then(|| crate::points::bonus_phrase(earned, available))
    }

    /// Hand-graded categories without a grade yet.
    pub fn pending(&self) -> Vec<&str> {
        self.categories.iter().filter(|c| c.score.is_none()).map(|c| c.id.as_str()).collect()
    }

    /// The record of a report: every category, hand-graded ones pending until [`Record::apply_manual`].
    pub fn from_report(
        assignment: &Assignment,
        report: &Report,
        id: &str,
        name: Option<&str>,
        origin: &str,
        key: &str,
    ) -> Record {
        let status = if report.builds.iter().any(|b| b.status == crate::report::BuildStatus::Error) {
            StudentStatus::BuildError
        } else {
            StudentStatus::Graded
        };
        let categories = assignment
            .categories
            .iter()
            .map(|c| {
                let automated = report.categories.iter().find(|r| r.id == c.id);
                CategoryScore {
                    id: c.id.clone(),
                    score: automated.map(|r| r.score),
                    max: automated.map_or(c.points, |r| r.max_score),
                    manual: c.manual,
                    bonus: c.bonus,
                    comment: None,
                }
            })
            .collect();
        let cases = report
            .cases
            .iter()
            .map(|c| CaseOutcome {
                id: c.id.clone(),
                passed: c.full_marks(),
                status: serde_json::to_value(c.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            })
            .collect();
        Record {
            id: id.to_owned(),
            name: name.map(str::to_owned),
            origin: origin.to_owned(),
            key: key.to_owned(),
            status,
            automated: report.score,
            note: None,
            categories,
            cases,
            download: Facts::default(),
            late_penalty: None,
        }
    }

    /// The record of a student who could not be graded: every category at 0 (hand-graded ones
    /// pending), no case.
    pub fn ungraded(
        assignment: &Assignment,
        id: &str,
        name: Option<&str>,
        origin: &str,
        key: &str,
        status: StudentStatus,
        note: String,
    ) -> Record {
        let categories = assignment
            .categories
            .iter()
            .map(|c| CategoryScore {
                id: c.id.clone(),
                score: (!c.manual).then_some(0.0),
                max: c.points,
                manual: c.manual,
                bonus: c.bonus,
                comment: None,
            })
            .collect();
        Record {
            id: id.to_owned(),
            name: name.map(str::to_owned),
            origin: origin.to_owned(),
            key: key.to_owned(),
            status,
            automated: 0.0,
            note: Some(note),
            categories,
            cases: Vec::new(),
            download: Facts::default(),
            late_penalty: None,
        }
    }

    /// Puts the hand grades given for this student into its hand-graded categories.
    pub fn apply_manual(&mut self, grades: &ManualGrades) {
        for category in &mut self.categories {
            if let Some(grade) = grades.get(&self.id, &category.id) {
                category.score = Some(grade.points);
                category.comment = grades.shown_comment(&category.id, grade);
            }
        }
    }
}

/// A rubric category, as a column of the gradebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Category id.
    pub id: String,
    /// What it grades.
    pub title: String,
    /// Points available.
    pub points: f64,
    /// Graded by hand.
    pub manual: bool,
    /// A bonus (extra credit): not in the max.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bonus: bool,
}

impl Column {
    /// The column's header in `gradebook.csv`: its id, with ` (bonus)` for a bonus category, so that a
    /// spreadsheet's reader sees why the totals can pass the max.
    pub fn header(&self) -> String {
        if self.bonus {
            format!("{} (bonus)", self.id)
        } else {
            self.id.clone()
        }
    }
}

/// The rubric's categories as the gradebook's columns, in rubric order.
pub fn columns(assignment: &Assignment) -> Vec<Column> {
    assignment
        .categories
        .iter()
        .map(|c| Column {
            id: c.id.clone(),
            title: c.title.clone(),
            points: c.points,
            manual: c.manual,
            bonus: c.bonus,
        })
        .collect()
}

/// One case across the class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseStat {
    /// Case id.
    pub id: String,
    /// What it checks.
    pub title: String,
    /// Its category.
    pub category: String,
    /// Hidden from students.
    pub hidden: bool,
    /// Students who passed it.
    pub passed: usize,
    /// Students whose program ran it: a case that a build error (or the grader's own failure) kept
    /// from running says nothing about the case, and is not counted.
    pub ran: usize,
}

impl CaseStat {
    /// The share of the students who ran it that passed it, 0 to 1 (0 when nobody ran it).
    pub fn pass_rate(&self) -> f64 {
        if self.ran == 0 {
            0.0
        } else {
            self.passed as f64 / self.ran as f64
        }
    }
}

/// A class's grades: the columns, one row per student (sorted by id), and each case's pass counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradebook {
    /// Assignment id.
    pub assignment: String,
    /// Assignment title.
    pub title: String,
    /// The rubric's categories, in rubric order.
    pub columns: Vec<Column>,
    /// One record per student, sorted by id.
    pub students: Vec<Record>,
    /// Every case of the assignment, in case order.
    pub cases: Vec<CaseStat>,
    /// When the class files hold only part of the class (a batch stopped by a signal, `--only` on a
    /// folder without the others' gradings): the banner that says so under their title.
    pub partial: Option<String>,
    /// The similarity analysis written beside the class files (`similarity.html`), which the class
    /// page links to with these numbers.
    pub similarity: Option<crate::similarity::report::Summary>,
}

/// Ids in the order a reader expects: runs of digits by their value (`plant-2` before `plant-10`),
/// the rest as text; ids equal that way (`a01`, `a1`) by their text.
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(text: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = text.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &text[start..i]));
                start = i;
            }
        }
        out
    }
    let (x, y) = (chunks(a), chunks(b));
    for ((x_digits, x), (y_digits, y)) in x.iter().zip(&y) {
        let order = if *x_digits && *y_digits {
            let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
            x.len().cmp(&y.len()).then_with(|| x.cmp(y))
        } else {
            x.cmp(y)
        };
        if order != std::cmp::Ordering::Equal {
            return order;
        }
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

impl Gradebook {
    /// The gradebook of these records.
    pub fn new(assignment: &Assignment, mut students: Vec<Record>) -> Gradebook {
        students.sort_by(|a, b| natural_order(&a.id, &b.id));
        let columns = columns(assignment);
        let mut cases: Vec<CaseStat> = assignment
            .cases
            .iter()
            .map(|c| CaseStat {
                id: c.id.clone(),
                title: c.title.clone(),
                category: c.category.clone(),
                hidden: c.visibility == Visibility::Hidden,
                passed: 0,
                ran: 0,
            })
            .collect();
        for student in &students {
            for outcome in student.cases.iter().filter(|o| o.ran()) {
                if let Some(stat) = cases.iter_mut().find(|c| c.id == outcome.id) {
                    stat.ran += 1;
                    stat.passed += usize::from(outcome.passed);
                }
            }
        }
        Gradebook {
            assignment: assignment.id.clone(),
            title: assignment.title.clone(),
            columns,
            students,
            cases,
            partial: None,
            similarity: None,
        }
    }

    /// `gradebook.csv`: `id,name,total,max,<category>...,pending,status,late,note`, one row per
    /// student; a pending hand-graded category is an empty cell and is named in `pending`. A bonus
    /// category's column is headed `<id> (bonus)`: its points are in `total` but not in `max`. `late`
    /// is `yes`, `no`, or empty where the download marks nothing; when the assignment has a late
    /// penalty, `late penalty` (points taken off) and `total before penalty` follow it. `note` says why
    /// a student was not graded and names other submissions under their id.
    ///
    /// Every text cell goes through `spreadsheet_text` (a student's id or name could be a formula, or
    /// hold a terminal's escape sequence); the numbers are ours and stay numbers.
    pub fn to_csv(&self) -> String {
        let penalties = self.students.iter().any(|s| s.late_penalty.is_some());
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["id".to_owned(), "name".to_owned(), "total".to_owned(), "max".to_owned()];
        header.extend(self.columns.iter().map(|c| spreadsheet_text(&c.header())));
        header.extend(["pending".to_owned(), "status".to_owned(), "late".to_owned()]);
        if penalties {
            header.extend(["late penalty".to_owned(), "total before penalty".to_owned()]);
        }
        header.push("note".to_owned());
        writer.write_record(&header).expect("writing to memory");
        for s in &self.students {
            let mut row = vec![
                spreadsheet_text(&s.id),
                spreadsheet_text(s.name.as_deref().unwrap_or_default()),
                format!("{:.2}", s.total()),
                format!("{:.2}", s.max()),
            ];
            row.extend(self.columns.iter().map(|column| {
                s.categories
                    .iter()
                    .find(|c| c.id == column.id)
                    .and_then(|c| c.score)
                    .map_or_else(String::new, |score| format!("{score:.2}"))
            }));
            row.push(spreadsheet_text(&s.pending().join(" ")));
            row.push(s.status.word().to_owned());
            row.push(s.download.late.map_or("", |late| if late { "yes" } else { "no" }).to_owned());
            if penalties {
                let late = s.download.late == Some(true) && s.late_penalty.is_some();
                row.push(if late { format!("{:.2}", s.penalty()) } else { String::new() });
                row.push(if late { format!("{:.2}", s.total_before_penalty()) } else { String::new() });
            }
            row.push(spreadsheet_text(&s.row_note().unwrap_or_default()));
            writer.write_record(&row).expect("writing to memory");
        }
        String::from_utf8(writer.into_inner().expect("writing to memory")).expect("CSV of UTF-8 text")
    }
}

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list for CSV
/// injection, with NUL from ASVS): `=HYPERLINK(...)` as a student's name would become a link, or
/// worse, in the instructor's spreadsheet.
const FORMULA_STARTS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\0'];

/// A text cell of a CSV file the grader writes (`gradebook.csv`, `hand-grades.csv`, the exports) as a
/// spreadsheet and a terminal must read it. Control characters are written visibly, as in every
/// report ([`escape`]): `cat gradebook.csv` runs no escape sequence of a student's folder name. This
/// is one-way: read back, such a cell is its visible form. Then a cell that starts like a formula
/// gets a `'` in front, which spreadsheets take to mean "text" and do not show. So does one that
/// already starts with `'`, so that [`from_spreadsheet_text`] can always take the quote off again.
pub(crate) fn spreadsheet_text(text: &str) -> String {
    formula_quoted(escape::inert(text, escape::ONE_LINE))
}

/// A cell of several lines (a hand grade's comment) as [`spreadsheet_text`] writes a line, but with
/// its line feeds and tabs: a spreadsheet shows them inside the cell, and they move no cursor out of
/// it. A Windows line break is kept as a line feed, not shown as `\r`.
pub(crate) fn spreadsheet_lines(text: &str) -> String {
    formula_quoted(escape::inert(&text.replace("\r\n", "\n"), escape::BLOCK))
}

/// `text` with a `'` in front when it starts like a formula or with a `'` (see [`spreadsheet_text`]).
fn formula_quoted(text: String) -> String {
    if text.starts_with(FORMULA_STARTS) || text.starts_with('\'') {
        format!("'{text}")
    } else {
        text
    }
}

/// The text under a cell that [`spreadsheet_text`] quoted (`'=1+1` is `=1+1`); any other text as it is.
pub(crate) fn from_spreadsheet_text(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) || rest.starts_with('\'') => rest,
        _ => cell,
    }
}

/// What the renderers' tests share: students of a two-category rubric (`play` 8 points, `style` 2
/// points by hand).
#[cfg(test)]
mod testing;

#[cfg(test)]
mod tests;
