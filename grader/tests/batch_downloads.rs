//! Class downloads as course platforms hand them out, read as an instructor expects: Moodle's online
//! texts and flat downloads, Canvas's resubmitted file names and late marks, several submissions
//! under one id, a class zipped; and what a batch says of each student's files in their report.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use grader::batch::{self, BatchOptions};
use grader::gradebook::StudentStatus;
use grader::roster::{discover, ArchiveCaps, Entry};

fn patterns() -> Vec<glob::Pattern> {
    vec![glob::Pattern::new("*.c").unwrap(), glob::Pattern::new("*.h").unwrap()]
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn fixture(assignment: &str, name: &str, file: &str) -> Vec<u8> {
    std::fs::read(common::repo().join("fixtures").join(assignment).join(name).join(file)).unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names of an entry's files.
fn names(entry: &Entry) -> Vec<&str> {
    entry.files.as_ref().unwrap().iter().map(|f| f.name.as_str()).collect()
}

/// A batch of `assignment` into `out`, running only the cases matching `cases`.
fn options(out: &Path, cases: &str) -> BatchOptions {
    let mut grade = grader::grade::GradeOptions::new(common::cache());
    grade.only = vec![glob::Pattern::new(cases).unwrap()];
    common::batch_options(out, grade)
}

/// `gradebook.csv` as rows of cells, keyed by the header's names.
fn gradebook(out: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(out.join("gradebook.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    reader
        .records()
        .map(|row| header.iter().cloned().zip(row.unwrap().iter().map(str::to_owned)).collect())
        .collect()
}

#[test]
fn a_moodle_onlinetext_folder_is_not_a_student() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("Zoe Martin_10017_assignsubmission_file_/main.c"), b"int main;");
    write(&root.join("Zoe Martin_10017_assignsubmission_onlinetext_/onlinetext.html"), b"<p>see main.c</p>");
    // A student who only typed text: a row without files, with the reason.
    write(&root.join("Yan Wu_10018_assignsubmission_onlinetext_/onlinetext.html"), b"<p>int main;</p>");
    let entries = discover(root, &patterns(), ArchiveCaps::default()).unwrap();
    let ids: Vec<(&str, Option<&str>)> = entries.iter().map(|e| (e.id.as_str(), e.name.as_deref())).collect();
    assert_eq!(ids, [("10017", Some("Zoe Martin")), ("10018", Some("Yan Wu"))]);
    assert_eq!(names(&entries[0]), ["main.c"]);
    assert_eq!(entries[0].origin, "Zoe Martin_10017_assignsubmission_file_");
    assert_eq!(
        entries[0].facts.notes,
        ["the online text `Zoe Martin_10017_assignsubmission_onlinetext_` was left out: this assignment \
          takes files (*.c, *.h), not text typed into Moodle"]
    );
    assert!(entries[0].facts.left_out.is_empty(), "an online text is no other submission");
    assert!(names(&entries[1]).is_empty());
    assert!(entries[1].facts.notes[0].contains("online text"), "{:?}", entries[1].facts);
}

#[test]
fn a_flat_moodle_download_gives_the_id_the_name_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("Xavier Dupont_10019_assignsubmission_file_main.c"), b"int main;");
    write(&root.join("Xavier Dupont_10019_assignsubmission_file_game.h"), b"");
    write(&root.join("Xavier Dupont_10019_assignsubmission_onlinetext_onlinetext.html"), b"");
    write(&root.join("Wen Li_10020_assignsubmission_file_main.c"), b"int main;");
    let entries = discover(root, &patterns(), ArchiveCaps::default()).unwrap();
    let ids: Vec<(&str, Option<&str>)> = entries.iter().map(|e| (e.id.as_str(), e.name.as_deref())).collect();
    assert_eq!(ids, [("10019", Some("Xavier Dupont")), ("10020", Some("Wen Li"))]);
    assert_eq!(names(&entries[0]), ["game.h", "main.c"]);
    assert_eq!(entries[0].facts.late, None, "Moodle's names carry no late mark");
    assert!(entries[0].facts.notes[0].contains("online text"), "{:?}", entries[0].facts);
}

#[test]
fn a_canvas_resubmission_is_taken_under_the_name_it_was_handed_in_as() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("smith_7_80_main.c"), b"first");
    write(&root.join("smith_7_81_main-1.c"), b"second");
    write(&root.join("smith_7_82_main-2.c"), b"latest");
    write(&root.join("smith_7_83_game-1.h"), b"header");
    let entries = discover(root, &patterns(), ArchiveCaps::default()).unwrap();
    assert_eq!(entries.len(), 1);
    let files: Vec<(&str, &[u8])> =
        entries[0].files.as_ref().unwrap().iter().map(|f| (f.name.as_str(), f.content.as_slice())).collect();
    assert_eq!(files, [("game.h", &b"header"[..]), ("main.c", b"latest")]);
    assert_eq!(
        entries[0].facts.notes,
        [
            "`game-1.h` was taken as `game.h`: Canvas renames a file handed in again under a name it already had",
            "`main-2.c` was taken as `main.c`: Canvas renames a file handed in again under a name it already \
             had (the latest; left out: `main.c`, `main-1.c`)",
        ]
    );
    assert_eq!(entries[0].facts.late, Some(false));
}

#[test]
fn a_canvas_resubmitted_header_builds_and_a_late_mark_costs_the_penalty() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    // The correct backgammon submission, its header handed in twice; a second student late.
    for (n, file) in ["backgammon.c", "board.c", "moves.c"].iter().enumerate() {
        write(&root.join(format!("smith_7_{n}_{file}")), &fixture("backgammon", "correct", file));
        write(&root.join(format!("jones_LATE_9_{n}_{file}")), &fixture("backgammon", "correct", file));
    }
    write(&root.join("smith_7_5_backgammon-1.h"), &fixture("backgammon", "correct", "backgammon.h"));
    write(&root.join("jones_LATE_9_5_backgammon.h"), &fixture("backgammon", "correct", "backgammon.h"));
    let mut assignment = common::assignment("backgammon").clone();
    assignment.late_penalty = Some(10.0);
    let out = dir.path().join("out");
    batch::run_batch(&assignment, &root, &options(&out, "basic/first-turn")).unwrap();
    let rows = gradebook(&out);
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!((row("7")["status"].as_str(), row("7")["late"].as_str()), ("graded", "no"));
    let full: f64 = row("7")["total"].parse().unwrap();
    assert!(full > 0.0, "{:?}", row("7"));
    assert_eq!(row("7")["late penalty"], "");
    assert_eq!((row("9")["status"].as_str(), row("9")["late"].as_str()), ("graded", "yes"));
    assert_eq!(row("9")["total before penalty"].parse::<f64>().unwrap(), full);
    let penalty: f64 = row("9")["late penalty"].parse().unwrap();
    assert_eq!(penalty, (full * 10.0).round() / 100.0);
    assert_eq!(row("9")["total"].parse::<f64>().unwrap(), ((full - penalty) * 100.0).round() / 100.0);

    let report: serde_json::Value = serde_json::from_str(&read(&out.join("students/7/report.json"))).unwrap();
    assert_eq!(
        report["submission_files"],
        serde_json::json!(["backgammon.c", "backgammon.h", "board.c", "moves.c"])
    );
    assert!(report["submission_notes"][0]
        .as_str()
        .unwrap()
        .contains("`backgammon-1.h` was taken as `backgammon.h`"));
    let feedback = read(&out.join("students/9/feedback.md"));
    assert!(feedback.contains("Handed in late: 10% of the "), "{feedback}");
    let summary = read(&out.join("summary.md"));
    assert!(
        summary.contains("1 submission marked late by the download, 10% of their points taken off"),
        "{summary}"
    );
}

#[test]
fn colliding_ids_are_one_student_and_the_batch_says_which_submission_it_graded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    write(&root.join("tina/main.c"), &fixture("trouble", "correct", "main.c"));
    write(&root.join("tina.c"), &fixture("trouble", "bug-checkwin-zero", "main.c"));
    let zip = root.join("tina.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&zip).unwrap());
    writer.start_file("main.c", zip::write::SimpleFileOptions::default()).unwrap();
    writer.write_all(&fixture("trouble", "does-not-compile", "main.c")).unwrap();
    writer.finish().unwrap();
    // An empty folder loses to a file that holds a submission.
    write(&root.join("ugo.c"), &fixture("trouble", "correct", "main.c"));
    std::fs::create_dir_all(root.join("ugo")).unwrap();

    let out = dir.path().join("out");
    let outcome =
        batch::run_batch(common::assignment("trouble"), &root, &options(&out, "checkWin/*")).unwrap();
    assert_eq!((outcome.roster, outcome.graded), (2, 2));
    assert_eq!(
        outcome.warnings,
        [
            "3 submissions under the id `tina`: `tina` is graded; left out: `tina.c`, `tina.zip` (keep one and \
             re-run to grade another)",
            "2 submissions under the id `ugo`: `ugo.c` is graded; left out: `ugo` (keep one and re-run to grade \
             another)",
        ]
    );
    let rows = gradebook(&out);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, ["tina", "ugo"]);
    assert_eq!(rows[0]["note"], "3 submissions under this id: tina graded; left out: tina.c, tina.zip");
    assert_eq!(rows[0]["status"], "graded");
    let summary = read(&out.join("summary.md"));
    assert!(summary.contains("## Several submissions under one id"), "{summary}");
    assert!(summary.contains("| tina | tina | tina.c, tina.zip |"), "{summary}");
    let page = read(&out.join("class.html"));
    assert!(page.contains("3 submissions under this id: tina graded; left out: tina.c, tina.zip"), "{page}");
    let feedback = read(&out.join("students/tina/feedback.md"));
    assert!(feedback.contains("3 submissions under the id \\`tina\\`"), "{feedback}");
    assert!(!out.join("students/tina-2").exists() && !out.join("students/tina-3").exists());
}

/// Writes the same class as a folder and as a zip (with its folder entries, as `zip -r` writes them).
fn class_both_ways(dir: &Path) -> (PathBuf, PathBuf) {
    let folder = dir.join("class");
    write(&folder.join("alice/main.c"), b"int main;");
    std::fs::create_dir_all(folder.join("empty")).unwrap();
    write(&folder.join("Bo Li_42_assignsubmission_file_/main.c"), b"int main;");
    std::fs::create_dir_all(folder.join("Cy Ng_43_assignsubmission_file_")).unwrap();
    let zipped = dir.join("class.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&zipped).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for entry in walkdir::WalkDir::new(&folder).min_depth(1).sort_by_file_name() {
        let entry = entry.unwrap();
        let name = entry.path().strip_prefix(&folder).unwrap().to_string_lossy().into_owned();
        if entry.file_type().is_dir() {
            writer.add_directory(name, options).unwrap();
        } else {
            writer.start_file(name, options).unwrap();
            writer.write_all(&std::fs::read(entry.path()).unwrap()).unwrap();
        }
    }
    writer.finish().unwrap();
    (folder, zipped)
}

#[test]
fn an_empty_student_is_the_same_row_whether_the_class_is_a_folder_or_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, zipped) = class_both_ways(dir.path());
    let seen = |root: &Path| -> Vec<(String, usize)> {
        discover(root, &patterns(), ArchiveCaps::default())
            .unwrap()
            .iter()
            .map(|e| (e.id.clone(), e.files.as_ref().unwrap().len()))
            .collect()
    };
    let expected = [("42", 1), ("43", 0), ("alice", 1), ("empty", 0)].map(|(id, n)| (id.to_owned(), n));
    assert_eq!(seen(&folder), expected);
    assert_eq!(seen(&zipped), expected);
}

#[test]
fn a_wrong_assignments_hint_and_the_files_taken_are_in_every_report_of_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    // Checkers handed in for Trouble: the linker names Trouble's functions it lacks.
    write(&root.join("wrong/checkers.c"), &fixture("checkers", "correct", "checkers.c"));
    // A stray old copy beside the real file.
    write(&root.join("stray/main.c"), &fixture("trouble", "correct", "main.c"));
    write(&root.join("stray/main_old.c"), &fixture("trouble", "correct", "main.c"));
    let out = dir.path().join("out");
    batch::run_batch(common::assignment("trouble"), &root, &options(&out, "checkWin/*")).unwrap();

    let report: grader::report::Report =
        serde_json::from_str(&read(&out.join("students/wrong/report.json"))).unwrap();
    let hint = report.builds.iter().find_map(|b| b.hint.clone()).expect("a build with a hint");
    assert!(
        hint.contains("not defined by the submission") && hint.contains("is it a submission of `trouble`?"),
        "{hint}"
    );
    let feedback = read(&out.join("students/wrong/feedback.md"));
    assert!(
        feedback.contains("**Hint:** ") && feedback.contains("is it a submission of \\`trouble\\`?"),
        "{feedback}"
    );
    assert!(feedback.contains("- files graded: checkers.c\n"), "{feedback}");

    let report: grader::report::Report =
        serde_json::from_str(&read(&out.join("students/stray/report.json"))).unwrap();
    assert_eq!(report.submission_files, ["main.c", "main_old.c"]);
    assert_eq!(
        report.builds.iter().find(|b| b.status == grader::report::BuildStatus::Error).map(|_| ()),
        Some(())
    );
    let text = grader::report::render_text(&report, grader::report::TextOptions::default());
    assert!(
        anstream::adapter::strip_str(&text).to_string().contains("\nfiles: main.c, main_old.c\n"),
        "{text}"
    );
    let feedback = read(&out.join("students/stray/feedback.md"));
    assert!(feedback.contains("- files graded: main.c, main\\_old.c\n"), "{feedback}");
    let record: serde_json::Value =
        serde_json::from_str(&read(&out.join("students/stray/record.json"))).unwrap();
    assert_eq!(record["status"], "build-error");
}

#[test]
fn an_out_folder_inside_the_class_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    write(&root.join("alice/main.c"), b"int main;");
    for out in [root.join("graded"), root.join("alice/deeper/graded"), root.clone()] {
        let err = batch::run_batch(common::assignment("trouble"), &root, &options(&out, "checkWin/*"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&out.display().to_string()) && err.contains(&root.display().to_string()),
            "{err}"
        );
        assert!(err.contains("is inside the class folder"), "{err}");
        assert!(!out.join("gradebook.csv").exists());
    }
    // Through a path that climbs back in.
    let sneaky = dir.path().join("elsewhere/../class/graded");
    assert!(batch::run_batch(common::assignment("trouble"), &root, &options(&sneaky, "checkWin/*")).is_err());
    // Beside it is fine.
    let beside = dir.path().join("graded");
    batch::run_batch(common::assignment("trouble"), &root, &options(&beside, "checkWin/*")).unwrap();
    let rows = gradebook(&beside);
    assert_eq!((rows.len(), rows[0]["id"].as_str()), (1, "alice"));
    assert_eq!(rows[0]["status"], StudentStatus::BuildError.word());
}

#[test]
fn only_regrades_the_students_named_and_keeps_the_others_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    write(&root.join("ada/main.c"), &fixture("trouble", "correct", "main.c"));
    write(&root.join("bob/main.c"), &fixture("trouble", "bug-checkwin-zero", "main.c"));
    let out = dir.path().join("out");
    let assignment = common::assignment("trouble");
    batch::run_batch(assignment, &root, &options(&out, "checkWin/*")).unwrap();
    let before = gradebook(&out);

    // Both hand in again; only Ada is regraded: Bob's row stays as it was.
    write(&root.join("ada/main.c"), &fixture("trouble", "bug-checkwin-zero", "main.c"));
    write(&root.join("bob/main.c"), &fixture("trouble", "correct", "main.c"));
    let mut only = options(&out, "checkWin/*");
    only.only = vec!["ada".to_owned()];
    let outcome = batch::run_batch(assignment, &root, &only).unwrap();
    assert_eq!((outcome.selected, outcome.graded, outcome.reused, outcome.in_class_files), (1, 1, 0, 2));
    let after = gradebook(&out);
    assert_eq!(after[1], before[1], "Bob kept as he was");
    assert_eq!(after[0]["total"], before[1]["total"], "Ada now scores what Bob's old file scored");
    assert!(!read(&out.join("summary.md")).contains("Partial"));

    // An id the class does not have is refused, naming it.
    only.only = vec!["carol".to_owned()];
    let err = batch::run_batch(assignment, &root, &only).unwrap_err().to_string();
    assert!(err.contains("no student `carol`") && err.contains("ada, bob"), "{err}");

    // On a fresh output folder, the class files say they hold part of the class.
    let fresh = dir.path().join("fresh");
    let mut only = options(&fresh, "checkWin/*");
    only.only = vec!["bob".to_owned()];
    batch::run_batch(assignment, &root, &only).unwrap();
    assert_eq!(gradebook(&fresh).len(), 1);
    assert!(read(&fresh.join("summary.md")).contains("Partial: 1 of 2 students have a grading here"));
}

#[test]
fn a_download_that_says_more_of_the_same_files_is_read_again_without_grading_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    write(&root.join("smith_7_80_main.c"), &fixture("trouble", "correct", "main.c"));
    let out = dir.path().join("out");
    let assignment = common::assignment("trouble");
    batch::run_batch(assignment, &root, &options(&out, "checkWin/*")).unwrap();
    assert_eq!(gradebook(&out)[0]["late"], "no");

    // The same file, now marked late and beside another submission under the same id.
    std::fs::rename(root.join("smith_7_80_main.c"), root.join("smith_LATE_7_80_main.c")).unwrap();
    write(&root.join("7.c"), b"int main;");
    let outcome = batch::run_batch(assignment, &root, &options(&out, "checkWin/*")).unwrap();
    assert_eq!((outcome.graded, outcome.reused), (0, 1));
    let row = &gradebook(&out)[0];
    assert_eq!((row["late"].as_str(), row["status"].as_str()), ("yes", "graded"));
    assert!(row["note"].contains("left out: 7.c"), "{row:?}");
    let report: grader::report::Report =
        serde_json::from_str(&read(&out.join("students/7/report.json"))).unwrap();
    assert!(report.submission_notes.iter().any(|n| n.contains("`7.c`")), "{:?}", report.submission_notes);
}
