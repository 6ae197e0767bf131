//! Records and reports built by hand for the gradebook's tests.

use super::{CaseOutcome, CategoryScore, Column, Record, StudentStatus};

/// The rubric: `play` (8, automated) and `style` (2, by hand).
pub fn columns() -> Vec<Column> {
    vec![
        Column {
            id: "play".to_owned(),
            title: "Plays by the rules".to_owned(),
            points: 8.0,
            manual: false,
            bonus: false,
        },
        Column {
            id: "style".to_owned(),
            title: "Code style".to_owned(),
            points: 2.0,
            manual: true,
            bonus: false,
        },
    ]
}

/// A student with `play` points and a `style` grade (`None`: pending), who passed case `c1` when
/// they have any `play` point.
pub fn student(id: &str, name: &str, status: StudentStatus, play: f64, style: Option<f64>) -> Record {
    let category = |id: &str, score, max| CategoryScore {
        id: id.to_owned(),
        score,
        max,
        manual: id == "style",
        bonus: false,
        comment: None,
    };
    Record {
        id: id.to_owned(),
        name: Some(name.to_owned()),
        origin: format!("subs/{id}"),
        key: "k".to_owned(),
        status,
        automated: play,
        note: None,
        categories: vec![category("play", Some(play), 8.0), category("style", style, 2.0)],
        cases: vec![CaseOutcome { id: "c1".to_owned(), passed: play > 0.0, status: "passed".to_owned() }],
        download: Default::default(),
        late_penalty: None,
    }
}

/// A bonus category `cube` of 5 points, for [`with_cube`].
pub fn cube_column() -> Column {
    Column {
        id: "cube".to_owned(),
        title: "Doubling cube".to_owned(),
        points: 5.0,
        manual: false,
        bonus: true,
    }
}

/// The student with `cube` bonus points too (in their automated points, as a report totals them).
pub fn with_cube(mut record: Record, cube: f64) -> Record {
    record.automated += cube;
    record.categories.push(CategoryScore {
        id: "cube".to_owned(),
        score: Some(cube),
        max: 5.0,
        manual: false,
        bonus: true,
        comment: None,
    });
    record
}
