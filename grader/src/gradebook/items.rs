//! Rubric items: named deductions and additions of a hand-graded category, made once and applied to
//! any student with one click (as Gradescope's rubrics are), kept beside the hand grades in the
//! class's outputs (`rubric-items.csv`). A grade names the items it applies; editing an item changes
//! the points of every grade that has it.

use std::path::{Path, PathBuf};

use super::manual::ManualGradesError;
use super::{from_spreadsheet_text, spreadsheet_text};
use crate::load::Assignment;

/// The rubric items of a class, in its output folder beside [`super::HAND_GRADES_FILE`].
pub const RUBRIC_ITEMS_FILE: &str = "rubric-items.csv";

/// One rubric item.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RubricItem {
    /// The hand-graded category it belongs to.
    pub category: String,
    /// Its id within the category (a number the review gives), what grades name it by.
    pub id: String,
    /// Points it adds (a deduction is negative).
    pub points: f64,
    /// What it says, to the student too.
    pub title: String,
}

impl RubricItem {
    /// The line a student's feedback shows for it: `-2.00: no header comment`.
    pub fn line(&self) -> String {
        format!("{:+.2}: {}", crate::points::round(self.points), self.title)
    }
}

/// The rubric items of a class, by category in the order they were made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RubricItems {
    items: Vec<RubricItem>,
}

impl RubricItems {
    /// Reads `category,item,points,title` lines (after a header); each category must be a hand-graded
    /// one of the assignment, each item id once per category.
    pub fn read(path: &Path, assignment: &Assignment) -> Result<RubricItems, ManualGradesError> {
        let error = |line: usize, message: String| ManualGradesError { path: path.to_owned(), line, message };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| error(0, e.to_string()))?;
        let mut items = RubricItems::default();
        for (i, row) in reader.records().enumerate() {
            let row = row.map_err(|e| error(i + 2, e.to_string()))?;
            let line = row.position().map_or(i + 2, |p| p.line() as usize);
            if row.len() != 4 {
                return Err(error(
                    line,
                    format!("expected category,item,points,title, got {} fields", row.len()),
                ));
            }
            let category = &row[0];
            if !assignment.category(category).is_some_and(|c| c.manual) {
                return Err(error(
                    line,
                    format!("no hand-graded category `{category}` in {}", assignment.id),
                ));
            }
            let points: f64 = row[2]
                .parse()
                .ok()
                .filter(|p: &f64| p.is_finite())
                .ok_or_else(|| error(line, format!("points `{}` are not a number", &row[2])))?;
            // An id is a word: grades name items by ids separated by spaces, and no id starts like a
            // spreadsheet formula.
            let id = &row[1];
            if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(error(line, format!("item `{id}` is not an id of letters, digits, `-` and `_`")));
            }
            if items.get(category, &row[1]).is_some() {
                return Err(error(line, format!("a second item `{}` in {category}", &row[1])));
            }
            items.items.push(RubricItem {
                category: category.to_owned(),
                id: row[1].to_owned(),
                points,
                title: from_spreadsheet_text(&row[3]).to_owned(),
            });
        }
        Ok(items)
    }

    /// The items kept in `folder`, or none when it has no [`RUBRIC_ITEMS_FILE`].
    pub fn stored(folder: &Path, assignment: &Assignment) -> Result<RubricItems, ManualGradesError> {
        let path = folder.join(RUBRIC_ITEMS_FILE);
        if path.is_file() {
            RubricItems::read(&path, assignment)
        } else {
            Ok(RubricItems::default())
        }
    }

    /// The item `id` of `category`.
    pub fn get(&self, category: &str, id: &str) -> Option<&RubricItem> {
        self.items.iter().find(|item| item.category == category && item.id == id)
    }

    /// The items of `category`, in the order they were made.
    pub fn of<'a>(&'a self, category: &'a str) -> impl Iterator<Item = &'a RubricItem> + 'a {
        self.items.iter().filter(move |item| item.category == category)
    }

    /// Every item.
    pub fn all(&self) -> &[RubricItem] {
        &self.items
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Adds an item to `category` under the next free number; returns it.
    pub fn add(&mut self, category: &str, points: f64, title: &str) -> RubricItem {
        let next = self.of(category).filter_map(|item| item.id.parse::<u64>().ok()).max().unwrap_or(0) + 1;
        let item = RubricItem {
            category: category.to_owned(),
            id: next.to_string(),
            points,
            title: title.to_owned(),
        };
        self.items.push(item.clone());
        item
    }

    /// Adds an item as it is (one read elsewhere).
    pub(super) fn push(&mut self, item: RubricItem) {
        self.items.push(item);
    }

    /// Changes the item `id` of `category`; returns the item as it was, or `None` when there is none.
    pub fn edit(&mut self, category: &str, id: &str, points: f64, title: &str) -> Option<RubricItem> {
        let item = self.items.iter_mut().find(|item| item.category == category && item.id == id)?;
        let before = item.clone();
        item.points = points;
        item.title = title.to_owned();
        Some(before)
    }

    /// The sum of the points of `ids` in `category` (unknown ids count nothing).
    pub fn sum(&self, category: &str, ids: &[String]) -> f64 {
        ids.iter().filter_map(|id| self.get(category, id)).map(|item| item.points).sum()
    }

    /// These items with `newer`'s over them (same category and id: `newer`'s).
    pub fn overlaid(&self, newer: &RubricItems) -> RubricItems {
        let mut items = self.clone();
        for item in &newer.items {
            match items.items.iter_mut().find(|i| i.category == item.category && i.id == item.id) {
                Some(kept) => *kept = item.clone(),
                None => items.items.push(item.clone()),
            }
        }
        items
    }

    /// The file: `category,item,points,title`, titles quoted as every CSV cell of the grader is.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(["category", "item", "points", "title"]);
        for item in &self.items {
            let points = crate::points::round(item.points).to_string();
            let _ = writer.write_record([
                item.category.as_str(),
                &item.id,
                &points,
                &spreadsheet_text(&item.title),
            ]);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// Where they are kept in `folder`.
    pub fn path(folder: &Path) -> PathBuf {
        folder.join(RUBRIC_ITEMS_FILE)
    }
}

/// The points of a hand grade made of rubric items: the category's full points, plus its items' sum,
/// kept within the category; then the grader's own adjustment, kept within it again. A category is
/// graded from its full points down, as Gradescope's negative scoring is.
pub fn points_with_items(max: f64, items: f64, adjustment: f64) -> f64 {
    crate::points::round(((max + items).clamp(0.0, max) + adjustment).clamp(0.0, max))
}

/// The points of a grade whose items' sum went from `before` to `after` (an item edited): the
/// adjustment the grader made over the items is kept.
pub fn rescored(max: f64, points: f64, before: f64, after: f64) -> f64 {
    let adjustment = points - (max + before).clamp(0.0, max);
    points_with_items(max, after, adjustment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_start_from_full_points_and_stay_within_the_category() {
        assert_eq!(points_with_items(10.0, -2.0, 0.0), 8.0);
        assert_eq!(points_with_items(10.0, -12.0, 0.0), 0.0);
        assert_eq!(points_with_items(10.0, 3.0, 0.0), 10.0);
        assert_eq!(points_with_items(10.0, -2.0, -1.5), 6.5);
    }

    #[test]
    fn an_edited_item_moves_every_grade_by_its_change_and_keeps_the_graders_adjustment() {
        // 8 from a -2 item, then 1 more taken off by hand: 7. The item becomes -3: 6.
        assert_eq!(rescored(10.0, 7.0, -2.0, -3.0), 6.0);
        // Items beyond the category's points: the adjustment is over what they left (0).
        assert_eq!(rescored(10.0, 1.0, -12.0, -9.0), 2.0);
    }

    #[test]
    fn items_are_numbered_per_category_and_read_back_as_written() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let trouble = crate::load::load_assignment(&root, "trouble").unwrap();
        let mut items = RubricItems::default();
        assert_eq!(items.add("style", -2.0, "=no header comment").id, "1");
        assert_eq!(items.add("style", 1.0, "clear names").id, "2");
        assert_eq!(items.add("survey", -10.0, "not handed in").id, "1");
        let before = items.edit("style", "2", 0.5, "clear names, well chosen").unwrap();
        assert_eq!(before.points, 1.0);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(RubricItems::path(dir.path()), items.to_csv()).unwrap();
        let read = RubricItems::stored(dir.path(), &trouble).unwrap();
        assert_eq!(read, items);
        assert_eq!(read.sum("style", &["1".into(), "2".into()]), -1.5);
        assert_eq!(read.get("style", "1").unwrap().line(), "-2.00: =no header comment");
        std::fs::write(RubricItems::path(dir.path()), "category,item,points,title\ncompile,1,-2,x\n")
            .unwrap();
        let err = RubricItems::stored(dir.path(), &trouble).unwrap_err().to_string();
        assert!(err.ends_with("rubric-items.csv:2: no hand-graded category `compile` in trouble"), "{err}");
        std::fs::write(RubricItems::path(dir.path()), "category,item,points,title\nstyle,=cmd,-2,x\n")
            .unwrap();
        let err = RubricItems::stored(dir.path(), &trouble).unwrap_err().to_string();
        assert!(
            err.ends_with("rubric-items.csv:2: item `=cmd` is not an id of letters, digits, `-` and `_`"),
            "{err}"
        );
    }
}
