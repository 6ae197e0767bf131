//! Hand grades: what an instructor gives the `manual = true` categories, read from `--manual` files
//! and kept with the class's outputs (`hand-grades.csv`), so that a re-run or a merge without
//! `--manual` keeps every grade until a newer one replaces it.
//!
//! The file is written as every CSV of the grader is (see `spreadsheet_text`): a comment or an id
//! that starts like a formula gets a `'`, which reading takes off again, so an instructor's comment
//! reads back as typed; control characters are written visibly and read back in that form.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::items::RubricItems;
use super::{from_spreadsheet_text, spreadsheet_lines, spreadsheet_text};
use crate::load::Assignment;
use crate::report::escape;

/// The hand grades kept in a class's output folder, in the `--manual` format: a re-run reads them
/// back, and an instructor may edit them and pass the file again.
pub const HAND_GRADES_FILE: &str = "hand-grades.csv";

/// The lock file beside the hand grades: whoever reads them to write them back holds it.
const LOCK_FILE: &str = ".hand-grades.lock";

/// An exclusive hold on a class's hand grades (`flock` on a lock file in its folder), from reading
/// them to writing them back: two teaching assistants saving at once in `grader review`, or a review
/// and a `grader batch` in the same folder, never lose each other's grade. Released when dropped.
#[derive(Debug)]
pub struct HandGradesLock {
    _file: std::fs::File,
}

impl HandGradesLock {
    /// Waits for the hold on `folder`'s hand grades.
    pub fn take(folder: &Path) -> std::io::Result<HandGradesLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(folder.join(LOCK_FILE))?;
        // SAFETY: a valid descriptor, owned by `file` for as long as the hold lives.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(HandGradesLock { _file: file })
    }
}

/// One hand grade of `--manual grades.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct ManualGrade {
    /// The points given.
    pub points: f64,
    /// The grader's comment, if any.
    pub comment: Option<String>,
    /// Who gave it (the name a teaching assistant gave `grader review`), if known.
    pub ta: Option<String>,
    /// The rubric items it applies, by id within its category.
    pub items: Vec<String>,
    /// Where it was read: the file and its 1-based line.
    pub source: (PathBuf, usize),
}

impl ManualGrade {
    /// A short fingerprint of what the grade says (points, comment, grader, items): a save names the
    /// grade it replaces by it, so that no grade given meanwhile is overwritten silently. `""` for
    /// no grade.
    pub fn version(grade: Option<&ManualGrade>) -> String {
        let Some(grade) = grade else { return String::new() };
        let mut hasher = blake3::Hasher::new();
        let points = crate::points::round(grade.points).to_string();
        for part in [&points, grade.comment.as_deref().unwrap_or(""), grade.ta.as_deref().unwrap_or("")] {
            hasher.update(part.as_bytes());
            hasher.update(&[0]);
        }
        hasher.update(grade.items.join(" ").as_bytes());
        hasher.finalize().to_hex()[..16].to_owned()
    }
}

/// The hand grades of `--manual grades.csv` (`id,category,points,comment`), by student and category.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManualGrades {
    /// By the student's [`shown_id`] and the category.
    grades: BTreeMap<(String, String), ManualGrade>,
    /// The rubric items the grades may apply (the [`super::RUBRIC_ITEMS_FILE`] beside the grades).
    rubric: RubricItems,
}

/// A student's id as `gradebook.csv` shows it (control characters visible, no quote): what an
/// instructor copies from there into a hand-grades file, and what the grades are kept and matched
/// under. It differs from the id only for an id holding a control character (a hostile folder name),
/// and it is safe to print.
fn shown_id(id: &str) -> String {
    escape::inert(id, escape::ONE_LINE)
}

/// A bad line of a hand-grades file.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {message}", path.display())]
pub struct ManualGradesError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ManualGrades {
    /// Reads `id,category,points,comment,ta,items` lines (the last three optional; a header line
    /// `id,...` is skipped); checks that each category is a hand-graded one of the assignment, the
    /// points are within it, and each item (ids separated by spaces) is one of the category's in the
    /// [`super::RUBRIC_ITEMS_FILE`] beside the file.
    pub fn read(path: &Path, assignment: &Assignment) -> Result<ManualGrades, ManualGradesError> {
        let rubric = match path.parent() {
            Some(folder) => RubricItems::stored(folder, assignment)?,
            None => RubricItems::default(),
        };
        let error = |line: usize, message: String| ManualGradesError { path: path.to_owned(), line, message };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| error(0, e.to_string()))?;
        let mut grades = BTreeMap::new();
        for (i, row) in reader.records().enumerate() {
            let row = row.map_err(|e| error(i + 1, e.to_string()))?;
            let line = row.position().map_or(i + 1, |p| p.line() as usize);
            if i == 0 && row.get(0) == Some("id") {
                continue;
            }
            if row.len() < 3 || row.len() > 6 {
                return Err(error(
                    line,
                    format!("expected id,category,points[,comment[,ta[,items]]], got {} fields", row.len()),
                ));
            }
            // An id copied from `gradebook.csv` may carry the quote that kept a spreadsheet from
            // running it: the student's id is what is under it.
            let (id, category, points) = (shown_id(from_spreadsheet_text(&row[0])), &row[1], &row[2]);
            let Some(column) = assignment.category(category) else {
                return Err(error(line, format!("no category `{category}` in {}", assignment.id)));
            };
            if !column.manual {
                return Err(error(
                    line,
                    format!("category `{category}` is graded automatically, not by hand"),
                ));
            }
            let points: f64 =
                points.parse().ok().filter(|p: &f64| (0.0..=column.points).contains(p)).ok_or_else(|| {
                    error(line, format!("points `{points}` are not a number 0..{}", column.points))
                })?;
            // The quote `to_csv` put before a comment that starts like a formula comes off too.
            let comment = row.get(3).map(from_spreadsheet_text).filter(|c| !c.is_empty()).map(str::to_owned);
            let ta = row.get(4).map(from_spreadsheet_text).filter(|t| !t.is_empty()).map(str::to_owned);
            let items: Vec<String> = row.get(5).unwrap_or("").split_whitespace().map(str::to_owned).collect();
            if let Some(unknown) = items.iter().find(|item| rubric.get(category, item).is_none()) {
                return Err(error(
                    line,
                    format!("no rubric item `{unknown}` of {category} in {}", super::RUBRIC_ITEMS_FILE),
                ));
            }
            let grade = ManualGrade { points, comment, ta, items, source: (path.to_owned(), line) };
            if grades.insert((id.clone(), category.to_owned()), grade).is_some() {
                return Err(error(line, format!("a second grade for {id} in {category}")));
            }
        }
        Ok(ManualGrades { grades, rubric })
    }

    /// The hand grades kept in `folder` (a class's outputs), or none when it has no
    /// [`HAND_GRADES_FILE`].
    pub fn stored(folder: &Path, assignment: &Assignment) -> Result<ManualGrades, ManualGradesError> {
        let path = folder.join(HAND_GRADES_FILE);
        if path.is_file() {
            ManualGrades::read(&path, assignment)
        } else {
            Ok(ManualGrades { grades: BTreeMap::new(), rubric: RubricItems::stored(folder, assignment)? })
        }
    }

    /// Writes the grades into `folder`'s [`HAND_GRADES_FILE`] and their rubric items into its
    /// [`super::RUBRIC_ITEMS_FILE`] (each only when it has something, or the file is there), atomically.
    pub fn write(&self, folder: &Path) -> Result<(), crate::atomic::WriteError> {
        let path = folder.join(HAND_GRADES_FILE);
        if !self.is_empty() || path.exists() {
            crate::atomic::write(&path, self.to_csv().as_bytes())?;
        }
        let path = RubricItems::path(folder);
        if !self.rubric.is_empty() || path.exists() {
            crate::atomic::write(&path, self.rubric.to_csv().as_bytes())?;
        }
        Ok(())
    }

    /// The rubric items the grades may apply.
    pub fn rubric(&self) -> &RubricItems {
        &self.rubric
    }

    /// The rubric items, to add or edit one (then [`ManualGrades::rescore`] the grades that have it).
    pub fn rubric_mut(&mut self) -> &mut RubricItems {
        &mut self.rubric
    }

    /// Gives (or replaces) the grade of `id` in `category`.
    pub fn set(&mut self, id: &str, category: &str, grade: ManualGrade) {
        self.grades.insert((shown_id(id), category.to_owned()), grade);
    }

    /// Takes back the grade of `id` in `category`, if there is one: the category is pending again.
    pub fn remove(&mut self, id: &str, category: &str) -> Option<ManualGrade> {
        self.grades.remove(&(shown_id(id), category.to_owned()))
    }

    /// Every grade: the student's id (as shown), the category and the grade.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &ManualGrade)> {
        self.grades.iter().map(|((id, category), grade)| (id.as_str(), category.as_str(), grade))
    }

    /// After the item `item` of `category` changed its points from `before` to `after`: every grade
    /// that applies it, its points moved by the change (the grader's own adjustment kept, within the
    /// category's `max`). Returns the ids of the students whose grade changed.
    pub fn rescore(&mut self, category: &str, item: &str, max: f64, before: f64, after: f64) -> Vec<String> {
        let mut changed = Vec::new();
        for ((id, graded), grade) in &mut self.grades {
            if graded != category || !grade.items.iter().any(|i| i == item) {
                continue;
            }
            let others: f64 = grade
                .items
                .iter()
                .filter(|i| *i != item)
                .filter_map(|i| self.rubric.get(category, i))
                .map(|i| i.points)
                .sum();
            let points = super::items::rescored(max, grade.points, others + before, others + after);
            if points != grade.points {
                grade.points = points;
                changed.push(id.clone());
            }
        }
        changed
    }

    /// What a student's report and feedback show for a grade: each rubric item it applies on a line
    /// in turn (`-2.00: no header comment`), then the grader's comment, separated by `; `.
    pub fn shown_comment(&self, category: &str, grade: &ManualGrade) -> Option<String> {
        let mut lines: Vec<String> = grade
            .items
            .iter()
            .filter_map(|id| self.rubric.get(category, id))
            .map(|item| item.line())
            .collect();
        lines.extend(grade.comment.clone());
        (!lines.is_empty()).then(|| lines.join("; "))
    }

    /// The grade of one student in one category, if given.
    pub fn get(&self, id: &str, category: &str) -> Option<&ManualGrade> {
        self.grades.get(&(shown_id(id), category.to_owned()))
    }

    /// How many grades (student and category) there are.
    pub fn len(&self) -> usize {
        self.grades.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.grades.is_empty()
    }

    /// These grades with `newer` over them: a grade of `newer` replaces this one's for the same
    /// student and category, and every other grade of either is kept.
    pub fn overlaid(&self, newer: &ManualGrades) -> ManualGrades {
        let mut grades = self.grades.clone();
        grades.extend(newer.grades.iter().map(|(k, v)| (k.clone(), v.clone())));
        ManualGrades { grades, rubric: self.rubric.overlaid(&newer.rubric) }
    }

    /// The grades of several class folders together (the partitions of one class); a student and
    /// category graded differently in two of them is an error naming both files and lines.
    pub fn combined(all: &[ManualGrades]) -> Result<ManualGrades, String> {
        let mut grades: BTreeMap<(String, String), ManualGrade> = BTreeMap::new();
        let mut rubric = RubricItems::default();
        for one in all {
            for item in one.rubric.all() {
                match rubric.get(&item.category, &item.id) {
                    Some(kept) if kept != item => {
                        return Err(format!(
                            "the rubric item {} of {} differs between the folders merged: make them alike in their {}",
                            item.id,
                            item.category,
                            super::RUBRIC_ITEMS_FILE
                        ))
                    }
                    Some(_) => {}
                    None => rubric.push(item.clone()),
                }
            }
            for (key, grade) in &one.grades {
                match grades.get(key) {
                    Some(kept)
                        if (kept.points, &kept.comment, &kept.items)
                            != (grade.points, &grade.comment, &grade.items) =>
                    {
                        return Err(format!(
                            "the hand grade of {} in {} differs between {}:{} and {}:{}: pass the one to \
                             keep with --manual",
                            key.0,
                            key.1,
                            kept.source.0.display(),
                            kept.source.1,
                            grade.source.0.display(),
                            grade.source.1
                        ))
                    }
                    Some(_) => {}
                    None => {
                        grades.insert(key.clone(), grade.clone());
                    }
                }
            }
        }
        Ok(ManualGrades { grades, rubric })
    }

    /// Checks that every grade names a student of the class (`roster`: each id with its name, if
    /// known): a typo, or a name where the id belongs, would otherwise be dropped without a word. The
    /// error names the file and line of the first such grade and, where it can, the id meant.
    pub fn check_students(&self, roster: &[(String, Option<String>)]) -> Result<(), ManualGradesError> {
        // Compared and named as shown: the grades are kept under that form, and the message is printed.
        let roster: Vec<(String, Option<String>)> = roster
            .iter()
            .map(|(id, name)| {
                (shown_id(id), name.as_deref().map(|name| escape::inert(name, escape::ONE_LINE)))
            })
            .collect();
        let known: std::collections::BTreeSet<&str> = roster.iter().map(|(id, _)| id.as_str()).collect();
        let mut unknown: Vec<(&(String, String), &ManualGrade)> =
            self.grades.iter().filter(|((id, _), _)| !known.contains(id.as_str())).collect();
        unknown.sort_by(|a, b| a.1.source.cmp(&b.1.source));
        let Some(((id, _), grade)) = unknown.first() else { return Ok(()) };
        let by_name = roster.iter().find(|(_, name)| {
            name.as_deref().is_some_and(|name| name.trim().eq_ignore_ascii_case(id.trim()))
        });
        let nearest = roster
            .iter()
            .map(|(known, _)| (strsim::levenshtein(known, id), known))
            .filter(|(distance, _)| *distance <= 2)
            .min();
        let hint = match (by_name, nearest) {
            (Some((real, _)), _) => format!(": `{id}` is the name of student `{real}`; write the id"),
            (None, Some((_, near))) => format!(": did you mean `{near}`?"),
            (None, None) => String::new(),
        };
        let more = match unknown.len() {
            1 => String::new(),
            n => format!(" ({} more grades name no student)", n - 1),
        };
        Err(ManualGradesError {
            path: grade.source.0.clone(),
            line: grade.source.1,
            message: format!("no student `{id}` in the class{hint}{more}"),
        })
    }

    /// The grades as a `--manual` file (with its header): ids as in `gradebook.csv`, comments quoted
    /// alike when they start like a formula, the points a number.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(["id", "category", "points", "comment", "ta", "items"]);
        for ((id, category), grade) in &self.grades {
            let points = crate::points::round(grade.points).to_string();
            let comment = grade.comment.as_deref().map(spreadsheet_lines).unwrap_or_default();
            let ta = grade.ta.as_deref().map(spreadsheet_text).unwrap_or_default();
            let items = grade.items.join(" ");
            let _ = writer.write_record([
                spreadsheet_text(id).as_str(),
                category,
                &points,
                &comment,
                &ta,
                &items,
            ]);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trouble() -> Assignment {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        crate::load::load_assignment(&root, "trouble").unwrap()
    }

    fn grades(dir: &Path, name: &str, text: &str) -> ManualGrades {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        ManualGrades::read(&path, &trouble()).unwrap()
    }

    fn roster() -> Vec<(String, Option<String>)> {
        vec![
            ("10019".to_owned(), Some("Xavier Dupont".to_owned())),
            ("tina".to_owned(), None),
            ("ada".to_owned(), Some("Ada Lovelace".to_owned())),
        ]
    }

    #[test]
    fn a_grade_that_names_no_student_is_an_error_naming_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let read = grades(dir.path(), "g.csv", "id,category,points\nada,style,5\nXavier Dupont,style,7\n");
        let err = read.check_students(&roster()).unwrap_err().to_string();
        assert!(err.ends_with("g.csv:3: no student `Xavier Dupont` in the class: `Xavier Dupont` is the name of student `10019`; write the id"), "{err}");
        let read = grades(dir.path(), "h.csv", "tinna,style,5\nnobody-at-all,survey,1\n");
        let err = read.check_students(&roster()).unwrap_err().to_string();
        assert!(err.ends_with("h.csv:1: no student `tinna` in the class: did you mean `tina`? (1 more grades name no student)"), "{err}");
        assert!(grades(dir.path(), "i.csv", "tina,style,5\n").check_students(&roster()).is_ok());
    }

    #[test]
    fn newer_grades_replace_older_ones_and_the_rest_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = grades(dir.path(), "old.csv", "ada,style,5,ok\ntina,style,4\n");
        let new = grades(dir.path(), "new.csv", "ada,style,9,better\n");
        let both = old.overlaid(&new);
        assert_eq!(both.len(), 2);
        assert_eq!(
            both.get("ada", "style").map(|g| (g.points, g.comment.as_deref())),
            Some((9.0, Some("better")))
        );
        assert_eq!(both.get("tina", "style").map(|g| g.points), Some(4.0));
        // Written back and read again, nothing changes.
        std::fs::write(dir.path().join(HAND_GRADES_FILE), both.to_csv()).unwrap();
        let stored = ManualGrades::stored(dir.path(), &trouble()).unwrap();
        assert_eq!(
            stored.get("ada", "style").map(|g| (g.points, g.comment.clone())),
            Some((9.0, Some("better".into())))
        );
        assert_eq!(stored.len(), 2);
    }

    #[test]
    fn two_partitions_that_disagree_on_a_grade_are_an_error_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let a = grades(dir.path(), "a.csv", "ada,style,5\n");
        let b = grades(dir.path(), "b.csv", "tina,style,5\nada,style,6\n");
        let same = grades(dir.path(), "c.csv", "ada,style,5\n");
        assert_eq!(ManualGrades::combined(&[a.clone(), same]).unwrap().len(), 1);
        let err = ManualGrades::combined(&[a, b]).unwrap_err();
        assert!(err.contains("a.csv:1 and ") && err.contains("b.csv:2"), "{err}");
    }
}
