//! `grader batch` and `grader merge` on a class made of fixtures in every layout the roster reads:
//! each student scores what grading them alone scores, a broken or hostile submission is that
//! student's row and nobody else's, a re-run reuses every record, hand grades merge, and partitions
//! merged give the full run's class files byte for byte.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use grader::batch::{self, BatchOptions, Partition};
use grader::grade::GradeOptions;
use grader::gradebook::{ManualGrades, StudentStatus};
use grader::roster::ArchiveCaps;

const ASSIGNMENT: &str = "trouble";

/// A zip of (name in the archive, bytes).
fn zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        writer.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap();
}

/// A .tar.gz of (name in the archive, bytes).
fn tar_gz(path: &Path, entries: &[(&str, &[u8])]) {
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, *bytes).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap();
}

/// A .tar.gz whose entry names are written as given, even absolute or climbing (which
/// `tar::Builder` refuses to write).
fn tar_gz_raw(path: &Path, entries: &[(&str, &[u8])]) {
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, *bytes).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap();
}

fn fixture_main(name: &str) -> Vec<u8> {
    std::fs::read(common::repo().join("fixtures").join(ASSIGNMENT).join(name).join("main.c")).unwrap()
}

/// Writes the class under `root` and returns its students, sorted by id.
fn make_class(root: &Path) -> Vec<Student> {
    for name in ["correct", "bug-checkwin-zero", "does-not-compile", "trivia-spacing"] {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("main.c"), fixture_main(name)).unwrap();
        std::fs::write(dir.join("README.md"), "not a source").unwrap();
    }
    let moodle = root.join("Ada Lovelace_12345_assignsubmission_file_");
    std::fs::create_dir_all(&moodle).unwrap();
    std::fs::write(moodle.join("main.c"), fixture_main("correct")).unwrap();
    std::fs::write(root.join("hopper_LATE_777_888_main.c"), fixture_main("bug-no-extra-roll")).unwrap();
    zip(
        &root.join("zipped.zip"),
        &[("project/main.c", &fixture_main("bug-status-width")), ("project/notes.txt", b"")],
    );
    tar_gz(&root.join("tarred.tar.gz"), &[("main.c", &fixture_main("bug-land-on-own"))]);
    zip(&root.join("escaper.zip"), &[("../../escaped.c", b"int main(void) { return 0; }")]);
    std::fs::create_dir_all(root.join("nothing")).unwrap();
    std::fs::write(root.join(".DS_Store"), "").unwrap();
    vec![
        ("12345", Some("correct"), StudentStatus::Graded),
        ("777", Some("bug-no-extra-roll"), StudentStatus::Graded),
        ("bug-checkwin-zero", Some("bug-checkwin-zero"), StudentStatus::Graded),
        ("correct", Some("correct"), StudentStatus::Graded),
        ("does-not-compile", Some("does-not-compile"), StudentStatus::BuildError),
        ("escaper", None, StudentStatus::GraderError),
        ("nothing", None, StudentStatus::NoFiles),
        ("tarred", Some("bug-land-on-own"), StudentStatus::Graded),
        ("trivia-spacing", Some("trivia-spacing"), StudentStatus::Graded),
        ("zipped", Some("bug-status-width"), StudentStatus::Graded),
    ]
}

fn options(out: &Path, partition: Option<Partition>, manual: ManualGrades) -> BatchOptions {
    BatchOptions { partition, manual, ..common::batch_options(out, GradeOptions::new(common::cache())) }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The class files of an output folder.
fn class_files(out: &Path) -> [String; 3] {
    ["gradebook.csv", "summary.md", "class.html"].map(|f| read(&out.join(f)))
}

/// A student of the class: the id in the outputs, the fixture it holds (if any), its status.
type Student = (&'static str, Option<&'static str>, StudentStatus);

/// The class graded once for all the tests of this binary.
struct Class {
    _dir: tempfile::TempDir,
    root: PathBuf,
    out: PathBuf,
    students: Vec<Student>,
}

fn graded_class() -> (&'static PathBuf, &'static PathBuf, &'static Vec<Student>) {
    static CLASS: std::sync::OnceLock<Class> = std::sync::OnceLock::new();
    let class = CLASS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("class");
        let out = dir.path().join("out");
        std::fs::create_dir_all(&root).unwrap();
        let students = make_class(&root);
        let outcome = batch::run_batch(
            common::assignment(ASSIGNMENT),
            &root,
            &options(&out, None, ManualGrades::default()),
        )
        .unwrap();
        assert_eq!(
            (outcome.roster, outcome.selected, outcome.graded),
            (students.len(), students.len(), students.len())
        );
        Class { _dir: dir, root, out, students }
    });
    (&class.root, &class.out, &class.students)
}

#[test]
fn every_layout_gives_its_students_and_each_scores_as_graded_alone() {
    let (_, out, students) = graded_class();
    let csv = read(&out.join("gradebook.csv"));
    let mut rows = csv.lines();
    let header = rows.next().unwrap();
    assert!(
        header.starts_with("id,name,total,max,compile,style,")
            && header.ends_with(",pending,status,late,note"),
        "{header}"
    );
    let rows: Vec<Vec<&str>> = rows.map(|r| r.split(',').collect()).collect();
    let ids: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    // In the order a reader expects: `777` before `12345`.
    let mut students: Vec<_> = students.iter().collect();
    students.sort_by(|a, b| grader::gradebook::natural_order(a.0, b.0));
    assert_eq!(ids, students.iter().map(|s| s.0).collect::<Vec<_>>());
    assert_eq!(ids[..2], ["777", "12345"]);
    for ((id, fixture, status), row) in students.iter().copied().zip(&rows) {
        assert_eq!(row[row.len() - 3], status.word(), "{id}");
        // Canvas marks its late files; the other layouts mark nothing.
        assert_eq!(row[row.len() - 2], if *id == "777" { "yes" } else { "" }, "{id}");
        let total: f64 = row[2].parse().unwrap();
        let expected = fixture.map_or(0.0, |f| common::grade_fixture(ASSIGNMENT, f).score);
        assert_eq!(total, expected, "{id}: in the batch, alone");
        // The hand-graded categories are pending for everyone.
        assert_eq!(row[row.len() - 4], "style survey", "{id}");
    }
    let names: BTreeSet<(&str, &str)> =
        rows.iter().map(|r| (r[0], r[1])).filter(|(_, n)| !n.is_empty()).collect();
    assert_eq!(names, BTreeSet::from([("12345", "Ada Lovelace"), ("777", "hopper")]));
}

#[test]
fn a_hostile_archive_is_its_students_row_and_escapes_nowhere() {
    let (root, out, _) = graded_class();
    let record: serde_json::Value =
        serde_json::from_str(&read(&out.join("students/escaper/record.json"))).unwrap();
    let note = record["note"].as_str().unwrap();
    assert!(note.contains("path outside itself: ../../escaped.c"), "{note}");
    assert!(!root.parent().unwrap().join("escaped.c").exists() && !root.join("escaped.c").exists());
    let feedback = read(&out.join("students/escaper/feedback.md"));
    assert!(feedback.contains("could not be graded automatically"), "{feedback}");
}

#[test]
fn feedback_shows_hidden_cases_by_verdict_only() {
    let (_, out, _) = graded_class();
    let assignment = common::assignment(ASSIGNMENT);
    let hidden: Vec<&str> = assignment
        .cases
        .iter()
        .filter(|c| c.visibility == grader::load::Visibility::Hidden)
        .map(|c| c.id.as_str())
        .collect();
    assert!(!hidden.is_empty());
    for student in ["correct", "bug-checkwin-zero", "zipped"] {
        let feedback = read(&out.join("students").join(student).join("feedback.md"));
        for id in &hidden {
            assert!(!feedback.contains(id), "{student}'s feedback names the hidden case {id}");
        }
    }
    let feedback = read(&out.join("students/bug-checkwin-zero/feedback.md"));
    assert!(feedback.contains("✘ `checkWin/"), "{feedback}");
    assert!(feedback.contains("✘ hidden case in checkWin (0.00 / "), "{feedback}");
    assert!(feedback.contains("first difference at line"), "{feedback}");
    assert!(feedback.contains("run it again: grader check -a trouble --case checkWin/"), "{feedback}");
    // Passing cases are counted, not listed.
    let feedback = read(&out.join("students/correct/feedback.md"));
    assert!(feedback.contains("## Cases: 55 of 55 passed") && !feedback.contains('✘'), "{feedback}");
}

#[test]
fn the_class_page_links_every_student_to_their_feedback() {
    let (_, out, students) = graded_class();
    let html = read(&out.join("class.html"));
    for (id, ..) in students {
        assert!(html.contains(&format!("href=\"students/{id}/feedback.html\"")), "{id}");
        // The page beside the Markdown, rendered from it.
        let markdown = read(&out.join("students").join(id).join("feedback.md"));
        let page = read(&out.join("students").join(id).join("feedback.html"));
        let heading = markdown.lines().next().unwrap().trim_start_matches("# ");
        assert!(page.contains(&format!("<h1>{heading}</h1>")), "{id}: {page}");
    }
    let summary = read(&out.join("summary.md"));
    assert!(summary.contains("10"), "{summary}");
}

#[test]
fn a_rerun_reuses_every_record_and_writes_the_same_class_files() {
    let (root, out, students) = graded_class();
    let copy = tempfile::tempdir().unwrap();
    let rerun_out = copy.path().join("out");
    common::copy_tree(out, &rerun_out);
    let outcome = batch::run_batch(
        common::assignment(ASSIGNMENT),
        root,
        &options(&rerun_out, None, ManualGrades::default()),
    )
    .unwrap();
    assert_eq!((outcome.graded, outcome.reused), (0, students.len()));
    assert_eq!(class_files(&rerun_out), class_files(out));
}

#[test]
fn hand_grades_merge_into_the_gradebook_and_the_feedback_without_regrading() {
    let (root, out, students) = graded_class();
    let dir = tempfile::tempdir().unwrap();
    let manual_path = dir.path().join("grades.csv");
    std::fs::write(
        &manual_path,
        "id,category,points,comment\n12345,style,7,\"clear names, but no header comment\"\n",
    )
    .unwrap();
    let manual = ManualGrades::read(&manual_path, common::assignment(ASSIGNMENT)).unwrap();
    let graded_out = dir.path().join("out");
    common::copy_tree(out, &graded_out);
    let first =
        batch::run_batch(common::assignment(ASSIGNMENT), root, &options(&graded_out, None, manual.clone()))
            .unwrap();
    assert_eq!((first.selected, first.graded), (students.len(), 0));
    let again =
        batch::run_batch(common::assignment(ASSIGNMENT), root, &options(&graded_out, None, manual)).unwrap();
    assert_eq!(again.graded, 0, "hand grades do not make a student stale");
    let csv = read(&graded_out.join("gradebook.csv"));
    let row = csv.lines().find(|l| l.starts_with("12345,")).unwrap();
    assert!(row.starts_with("12345,Ada Lovelace,87.00,100.00,15.00,7.00,"), "{row}");
    assert!(row.ends_with(",survey,graded,,"), "{row}");
    let feedback = read(&graded_out.join("students/12345/feedback.md"));
    assert!(feedback.contains("| 7.00 / 10.00 | clear names, but no header comment |"), "{feedback}");

    let bad = dir.path().join("bad.csv");
    for (text, message) in [
        ("12345,compile,3\n", "graded automatically"),
        ("12345,style,11\n", "not a number 0..10"),
        ("12345,nope,1\n", "no category `nope`"),
        ("12345,style,1\n12345,style,2\n", "a second grade"),
    ] {
        std::fs::write(&bad, text).unwrap();
        let err = ManualGrades::read(&bad, common::assignment(ASSIGNMENT)).unwrap_err().to_string();
        assert!(err.contains(message) && err.contains("bad.csv:"), "{err}");
    }
}

#[test]
fn hand_grades_are_kept_by_reruns_and_merges_until_replaced() {
    let (root, out, _) = graded_class();
    let assignment = common::assignment(ASSIGNMENT);
    let dir = tempfile::tempdir().unwrap();
    let grades = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        ManualGrades::read(&path, assignment).unwrap()
    };
    let row = |folder: &Path, id: &str| {
        read(&folder.join("gradebook.csv"))
            .lines()
            .find(|l| l.starts_with(&format!("{id},")))
            .unwrap()
            .to_owned()
    };
    let graded_out = dir.path().join("out");
    common::copy_tree(out, &graded_out);
    let first = grades("first.csv", "12345,style,7,first\n12345,survey,10\ncorrect,style,9\n");
    let outcome = batch::run_batch(assignment, root, &options(&graded_out, None, first)).unwrap();
    assert_eq!((outcome.hand_grades.given, outcome.hand_grades.kept), (3, 0));
    let with_hand = row(&graded_out, "12345");
    assert!(with_hand.starts_with("12345,Ada Lovelace,97.00,100.00,"), "{with_hand}");

    // A re-run without --manual keeps every grade, in the gradebook and in the feedback.
    let outcome =
        batch::run_batch(assignment, root, &options(&graded_out, None, ManualGrades::default())).unwrap();
    assert_eq!((outcome.hand_grades.given, outcome.hand_grades.kept), (0, 3));
    assert_eq!(row(&graded_out, "12345"), with_hand);
    assert!(read(&graded_out.join("students/12345/feedback.md")).contains("| first |"));

    // A newer grade replaces its own, and only its own.
    let newer = grades("newer.csv", "12345,style,5,second look\n");
    let outcome = batch::run_batch(assignment, root, &options(&graded_out, None, newer)).unwrap();
    assert_eq!((outcome.hand_grades.given, outcome.hand_grades.kept), (1, 2));
    assert!(
        row(&graded_out, "12345").starts_with("12345,Ada Lovelace,95.00,"),
        "{}",
        row(&graded_out, "12345")
    );
    let stored = read(&graded_out.join(grader::gradebook::HAND_GRADES_FILE));
    assert!(stored.contains("12345,style,5,second look") && stored.contains("correct,style,9"), "{stored}");

    // Partitions graded with the grades keep them through the merge, without --manual there.
    let parts: Vec<PathBuf> = (1..=2).map(|k| dir.path().join(format!("part-{k}"))).collect();
    for (k, part) in parts.iter().enumerate() {
        let partition: Partition = format!("slice:{}/2", k + 1).parse().unwrap();
        let given = grades("first.csv", "12345,style,7,first\n12345,survey,10\ncorrect,style,9\n");
        batch::run_batch(assignment, root, &options(part, Some(partition), given)).unwrap();
    }
    let merged = dir.path().join("merged");
    let outcome = batch::merge(assignment, &parts, &merged, &ManualGrades::default()).unwrap();
    assert_eq!(outcome.hand_grades.kept, 3);
    assert!(row(&merged, "12345").starts_with("12345,Ada Lovelace,97.00,"), "{}", row(&merged, "12345"));
}

#[test]
fn a_hand_grade_for_no_student_of_the_class_is_refused_before_grading() {
    let (root, out, _) = graded_class();
    let assignment = common::assignment(ASSIGNMENT);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grades.csv");
    std::fs::write(&path, "id,category,points\n12345,style,7\nAda Lovelace,survey,10\n").unwrap();
    let manual = ManualGrades::read(&path, assignment).unwrap();
    let graded_out = dir.path().join("out");
    common::copy_tree(out, &graded_out);
    let err = batch::run_batch(assignment, root, &options(&graded_out, None, manual.clone()))
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("grades.csv:3: no student `Ada Lovelace` in the class: `Ada Lovelace` is the name of student `12345`; write the id"),
        "{err}"
    );
    let err =
        batch::merge(assignment, &[graded_out], &dir.path().join("merged"), &manual).unwrap_err().to_string();
    assert!(err.contains("grades.csv:3: no student `Ada Lovelace`"), "{err}");
    // From the command line: exit 2, naming the file and line.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["batch", "-a", ASSIGNMENT, "--manual"])
        .arg(&path)
        .arg("--out")
        .arg(dir.path().join("cli-out"))
        .arg(root)
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("grades.csv:3: no student `Ada Lovelace`"));
}

#[test]
fn partitions_merged_equal_the_full_run_and_gaps_and_overlaps_are_named() {
    let (root, out, students) = graded_class();
    let assignment = common::assignment(ASSIGNMENT);
    let dir = tempfile::tempdir().unwrap();
    for kind in ["hash", "slice"] {
        let parts: Vec<PathBuf> = (1..=3).map(|k| dir.path().join(format!("{kind}-{k}"))).collect();
        let mut graded = 0;
        for (k, part) in parts.iter().enumerate() {
            let partition: Partition = format!("{kind}:{}/3", k + 1).parse().unwrap();
            let outcome =
                batch::run_batch(assignment, root, &options(part, Some(partition), ManualGrades::default()))
                    .unwrap();
            graded += outcome.selected;
        }
        assert_eq!(graded, students.len(), "{kind}: the shares cover the class once");
        let merged = dir.path().join(format!("{kind}-merged"));
        let outcome = batch::merge(assignment, &parts, &merged, &ManualGrades::default()).unwrap();
        assert_eq!((outcome.students, outcome.missing.len()), (students.len(), 0));
        assert_eq!(class_files(&merged), class_files(out), "{kind}: merged differs from the full run");

        let gap = dir.path().join(format!("{kind}-gap"));
        let outcome = batch::merge(assignment, &parts[..2], &gap, &ManualGrades::default()).unwrap();
        assert_eq!(outcome.missing_partitions, [format!("{kind}:3/3")]);
        assert!(!outcome.missing.is_empty());
    }
    let err = batch::merge(
        assignment,
        &[out.clone(), dir.path().join("hash-1")],
        &dir.path().join("both"),
        &ManualGrades::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("the partitions overlap"), "{err}");
}

#[test]
fn an_output_folder_of_another_assignment_is_refused() {
    let (root, out, _) = graded_class();
    let err =
        batch::run_batch(common::assignment("checkers"), root, &options(out, None, ManualGrades::default()))
            .unwrap_err()
            .to_string();
    assert!(err.contains("holds a grading of `trouble`, not `checkers`"), "{err}");
}

#[test]
fn archives_over_their_caps_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    std::fs::create_dir_all(&root).unwrap();
    zip(&root.join("big.zip"), &[("main.c", &vec![b' '; 5000])]);
    let many: Vec<(String, Vec<u8>)> = (0..20).map(|i| (format!("f{i}.c"), Vec::new())).collect();
    let many_refs: Vec<(&str, &[u8])> = many.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    zip(&root.join("many.zip"), &many_refs);
    let caps = ArchiveCaps { entries: 10, file_bytes: 1000, total_bytes: 4000 };
    let patterns = vec![glob::Pattern::new("*.c").unwrap()];
    let entries = grader::roster::discover(&root, &patterns, caps).unwrap();
    let errors: Vec<(&str, String)> =
        entries.iter().map(|e| (e.id.as_str(), e.files.clone().unwrap_err())).collect();
    assert!(errors[0].1.contains("larger than 1000 bytes"), "{errors:?}");
    assert!(errors[1].1.contains("more than 10 entries"), "{errors:?}");
}

#[test]
fn a_class_handed_over_as_one_zip_is_unpacked_and_read_like_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class.zip");
    zip(
        &class,
        &[
            ("download/alice/main.c", b"int main(void) { return 0; }"),
            ("download/Bo Li_42_assignsubmission_file_/main.c", b"int main(void) { return 1; }"),
            ("download/smith_7_8_main.c", b"int main(void) { return 2; }"),
        ],
    );
    let patterns = vec![glob::Pattern::new("*.c").unwrap()];
    let entries = grader::roster::discover(&class, &patterns, ArchiveCaps::default()).unwrap();
    let found: Vec<(&str, Option<&str>, &str)> =
        entries.iter().map(|e| (e.id.as_str(), e.name.as_deref(), e.origin.as_str())).collect();
    assert_eq!(
        found,
        [
            ("42", Some("Bo Li"), "class.zip:Bo Li_42_assignsubmission_file_"),
            ("7", Some("smith"), "class.zip:smith_7_8_main.c"),
            ("alice", None, "class.zip:alice"),
        ]
    );
    assert!(entries.iter().all(|e| e.files.as_ref().is_ok_and(|f| f.len() == 1)));
}

/// A file name no other test uses, for an entry that tries to climb out of the unpack folder.
fn escapee(dir: &tempfile::TempDir) -> String {
    format!("escaped-{}.c", dir.path().file_name().unwrap().to_string_lossy())
}

/// Where an entry `../NAME` or `bob/../../NAME` of a class archive would land: beside the scratch
/// folder it is unpacked to (in the temp folder), beside the archive, or in the current folder.
fn assert_nowhere(dir: &tempfile::TempDir, name: &str) {
    for place in [std::env::temp_dir(), dir.path().to_owned(), dir.path().parent().unwrap().to_owned()] {
        assert!(!place.join(name).exists(), "{} was written", place.join(name).display());
    }
    assert!(!Path::new(name).exists(), "{name} was written in the current folder");
}

#[test]
fn an_entry_climbing_out_of_a_class_archive_is_its_students_error_and_the_others_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let name = escapee(&dir);
    let patterns = vec![glob::Pattern::new("*.c").unwrap()];
    let zipped = dir.path().join("class.zip");
    let (under_bob, loose) = (format!("bob/../../{name}"), format!("../{name}"));
    zip(
        &zipped,
        &[
            ("alice/main.c", b"int main(void) { return 0; }"),
            ("bob/main.c", b"int main(void) { return 1; }"),
            (&under_bob, b"int main(void) { return 2; }"),
            (&loose, b"int main(void) { return 3; }"),
            ("carol/main.c", b"int main(void) { return 4; }"),
        ],
    );
    let entries = grader::roster::discover(&zipped, &patterns, ArchiveCaps::default()).unwrap();
    let found: Vec<(&str, Result<usize, &str>)> = entries
        .iter()
        .map(|e| (e.id.as_str(), e.files.as_ref().map(Vec::len).map_err(String::as_str)))
        .collect();
    let stem = name.strip_suffix(".c").unwrap();
    let outside = |written: &str| format!("the archive holds a path outside itself: {written}");
    assert_eq!(
        found,
        [
            ("alice", Ok(1)),
            // Bob's other file does not make up for it: his row is the error, as for his own zip.
            ("bob", Err(outside(&under_bob).as_str())),
            ("carol", Ok(1)),
            // A loose file is the student its name gives, as at the top of the archive.
            (stem, Err(outside(&loose).as_str())),
        ]
    );
    assert_nowhere(&dir, &name);

    // Wrapped in one top folder, as a .tar.gz, an absolute path: the student is still the first
    // folder below the wrapper that the path names.
    let tarred = dir.path().join("class.tar.gz");
    let absolute = format!("/download/dave/{name}");
    tar_gz_raw(
        &tarred,
        &[
            ("download/alice/main.c", b"int main(void) { return 0; }"),
            (&format!("download/dave/../../../{name}"), b""),
            (&absolute, b""),
            ("download/erin/main.c", b"int main(void) { return 0; }"),
        ],
    );
    let entries = grader::roster::discover(&tarred, &patterns, ArchiveCaps::default()).unwrap();
    let found: Vec<(&str, &str, bool)> =
        entries.iter().map(|e| (e.id.as_str(), e.origin.as_str(), e.files.is_ok())).collect();
    assert_eq!(
        found,
        [
            ("alice", "class.tar.gz:alice", true),
            ("dave", "class.tar.gz:dave", false),
            ("erin", "class.tar.gz:erin", true)
        ]
    );
    assert!(entries[1].files.as_ref().unwrap_err().contains("../../../"), "{:?}", entries[1].files);
    assert_nowhere(&dir, &name);
    assert!(!Path::new("/download").exists());
}

#[test]
fn a_class_zip_with_an_entry_climbing_out_grades_everyone_else_and_makes_that_row_a_grader_error() {
    let dir = tempfile::tempdir().unwrap();
    let name = escapee(&dir);
    let class = dir.path().join("class.zip");
    let climbing = format!("bob/../../{name}");
    zip(
        &class,
        &[
            ("alice/main.c", &fixture_main("correct")),
            ("bob/main.c", &fixture_main("correct")),
            (&climbing, b"int main(void) { return 0; }"),
            ("carol/main.c", &fixture_main("bug-checkwin-zero")),
        ],
    );
    let out = dir.path().join("out");
    let mut options = options(&out, None, ManualGrades::default());
    // A few cases are enough to tell graded from not.
    options.grade.only = vec![glob::Pattern::new("checkWin/*").unwrap()];
    let outcome = batch::run_batch(common::assignment(ASSIGNMENT), &class, &options).unwrap();
    assert_eq!((outcome.roster, outcome.graded), (3, 3));
    let csv = read(&out.join("gradebook.csv"));
    let statuses: Vec<(&str, &str)> = csv
        .lines()
        .skip(1)
        .map(|row| (row.split(',').next().unwrap(), row.rsplit(',').nth(2).unwrap()))
        .collect();
    assert_eq!(statuses, [("alice", "graded"), ("bob", "grader-error"), ("carol", "graded")]);
    let record: serde_json::Value =
        serde_json::from_str(&read(&out.join("students/bob/record.json"))).unwrap();
    let note = record["note"].as_str().unwrap();
    assert!(note.contains(&format!("path outside itself: {climbing}")), "{note}");
    assert_nowhere(&dir, &name);
}

#[test]
fn a_class_exports_to_canvas_and_moodle_in_the_layouts_they_import() {
    let (_, out, students) = graded_class();
    let dir = tempfile::tempdir().unwrap();
    let names = |zip_path: &Path| -> Vec<String> {
        let mut archive = zip::ZipArchive::new(std::fs::File::open(zip_path).unwrap()).unwrap();
        (0..archive.len()).map(|i| archive.by_index(i).unwrap().name().to_owned()).collect()
    };
    let export = |platform, column: Option<&str>| {
        let options = grader::export::ExportOptions {
            platform,
            out: dir.path().to_owned(),
            column: column.map(str::to_owned),
            modified: Some("2026-11-26 13:00".into()),
        };
        grader::export::export(out, common::assignment(ASSIGNMENT), &options).unwrap()
    };

    // Canvas: the user id from the download's file name, the feedback named after the submission.
    let canvas = export(grader::export::Platform::Canvas, Some("Trouble (4242)"));
    assert_eq!(canvas.students, 1);
    assert_eq!(canvas.left_out.len(), students.len() - 1, "{:?}", canvas.left_out);
    let csv = read(&dir.path().join("canvas-grades.csv"));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "Student,ID,SIS User ID,SIS Login ID,Section,Trouble (4242)");
    assert_eq!(lines[1], "Points Possible,,,,,100.00");
    assert!(lines[2].starts_with("hopper,777,,,,"), "{csv}");
    assert_eq!(names(&dir.path().join("canvas-feedback.zip")), ["hopper_LATE_777_888_feedback.html"]);

    // Moodle: the worksheet's columns its upload reads, and the feedback plugin's file names.
    let moodle = export(grader::export::Platform::Moodle, None);
    let csv = read(&dir.path().join("moodle-grades.csv"));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("Identifier,Full name,Grade,Maximum Grade,Last modified (grade),Feedback comments")
    );
    let ada = csv.lines().find(|l| l.starts_with("Participant 12345,")).unwrap();
    assert!(ada.starts_with("Participant 12345,Ada Lovelace,80.00,100.00,2026-11-26 13:00,"), "{ada}");
    assert!(ada.contains("style pending/10.00"), "{ada}");
    assert!(moodle.pending.contains(&"12345".to_owned()));
    let zipped = names(&dir.path().join("moodle-feedback.zip"));
    assert!(
        zipped.contains(&"Ada Lovelace_12345_assignfeedback_file_feedback.html".to_owned()),
        "{zipped:?}"
    );
    // A spreadsheet: the gradebook, with the byte-order mark Excel needs to read UTF-8.
    export(grader::export::Platform::Excel, None);
    let excel = std::fs::read(dir.path().join("gradebook-excel.csv")).unwrap();
    assert_eq!(&excel[..3], b"\xEF\xBB\xBF");
    assert_eq!(&excel[3..], std::fs::read(out.join("gradebook.csv")).unwrap().as_slice());
    // Ids that are folder names are no Moodle participant: left out, each with why.
    let (id, why) = moodle.left_out.iter().find(|(id, _)| id == "correct").unwrap();
    assert!(why.contains("not a Moodle participant id"), "{id}: {why}");
}

#[test]
fn one_students_report_is_shown_again_by_id() {
    let (_, out, _) = graded_class();
    let shown = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["show", "--format", "json"])
        .arg(out)
        .arg("12345")
        .output()
        .unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let report: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(report["score"], 80.0);
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("show")
        .arg(out)
        .arg("12346")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no student `12346`"));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nearest: 12345"));
}

#[test]
fn a_java_project_with_packages_is_read_whole_in_every_layout_as_grade_reads_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    let project: [(&str, &[u8]); 4] = [
        ("src/main/java/game/Main.java", b"package game;\nimport game.model.Colour;\n"),
        ("src/main/java/game/model/Colour.java", b"package game.model;\n"),
        ("src/main/java/game/ai/Player.java", b"package game.ai;\n"),
        ("README.md", b"notes"),
    ];
    for (name, bytes) in project {
        let path = root.join("folder").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    zip(&root.join("zipped.zip"), &project);
    let wrapped: Vec<(String, &[u8])> =
        project.iter().map(|(n, b)| (format!("my-project/{n}"), *b)).collect();
    let wrapped: Vec<(&str, &[u8])> = wrapped.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    zip(&root.join("wrapped.zip"), &wrapped);

    let patterns: Vec<glob::Pattern> =
        ["**/*.java", "**/*.jar"].iter().map(|p| glob::Pattern::new(p).unwrap()).collect();
    let alone = grader::build::Submission::collect(&root.join("folder"), &patterns).unwrap();
    let names =
        |files: &[grader::build::SourceFile]| files.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&alone.files),
        [
            "src/main/java/game/Main.java",
            "src/main/java/game/ai/Player.java",
            "src/main/java/game/model/Colour.java"
        ]
    );
    let entries = grader::roster::discover(&root, &patterns, ArchiveCaps::default()).unwrap();
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["folder", "wrapped", "zipped"]);
    for entry in &entries {
        let files = entry.files.as_ref().unwrap();
        // Every package, under the names `grade` gives them (a wrapping folder's name aside).
        let expected: Vec<String> = names(&alone.files)
            .into_iter()
            .map(|n| if entry.id == "wrapped" { format!("my-project/{n}") } else { n })
            .collect();
        assert_eq!(names(files), expected, "{}", entry.id);
    }

    // A pattern that names a folder finds the project below a wrapping folder too.
    let under_src = vec![glob::Pattern::new("src/**/*.java").unwrap()];
    let entries = grader::roster::discover(&root, &under_src, ArchiveCaps::default()).unwrap();
    let wrapped = entries.iter().find(|e| e.id == "wrapped").unwrap();
    assert_eq!(names(wrapped.files.as_ref().unwrap()), names(&alone.files));
}
