//! Grades every Trouble fixture: the correct one scores full marks, each bug loses points in exactly the
//! categories its defect belongs to, and each report is a snapshot.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use grader::build::BuildCache;
use grader::grade::{grade, GradeOptions};
use grader::load::{load_assignment, Assignment};
use grader::report::{render_text, BuildStatus, CaseStatus, Report};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn trouble() -> &'static Assignment {
    static ASSIGNMENT: OnceLock<Assignment> = OnceLock::new();
    ASSIGNMENT.get_or_init(|| load_assignment(&repo().join("cases"), "trouble").expect("cases/trouble loads"))
}

/// One build cache for the whole test binary, so that each fixture is compiled once.
fn cache() -> &'static tempfile::TempDir {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    CACHE.get_or_init(|| tempfile::tempdir().unwrap())
}

fn grade_fixture(name: &str) -> Report {
    let options = GradeOptions { visible_only: false, cache: BuildCache::new(cache().path()) };
    // A path relative to the repository keeps the snapshots free of this machine's folders.
    let path = PathBuf::from("fixtures/trouble").join(name);
    let mut report = grade(trouble(), &repo().join(&path), &options).expect("grading works");
    report.submission = path.display().to_string();
    report
}

/// Categories in which the report has fewer points than available.
fn losing(report: &Report) -> BTreeSet<&str> {
    report.categories.iter().filter(|c| c.score < c.max_score).map(|c| c.id.as_str()).collect()
}

fn plain_text(report: &Report) -> String {
    anstream::adapter::strip_str(&render_text(report, false)).to_string()
}

#[test]
fn the_correct_submission_scores_full_marks() {
    let report = grade_fixture("correct");
    assert_eq!(report.max_score, 80.0, "15 + 8 + 10 + 8 + 10 + 14 + 15 automated points");
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.len() >= 40);
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::Passed && c.leniency.is_empty()));
    let pending: Vec<(&str, f64)> = report.pending.iter().map(|p| (p.id.as_str(), p.points)).collect();
    assert_eq!(pending, [("style", 10.0), ("survey", 10.0)]);
}

/// (fixture, the categories its bug must cost points in)
const BUGS: &[(&str, &[&str])] = &[
    ("bug-capture-not-home", &["movePiece", "playerTurn"]),
    ("bug-checkwin-zero", &["checkWin", "playerTurn"]),
    ("bug-finish-no-inner-moves", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-home-last", &["printMoves", "playerTurn"]),
    ("bug-land-on-own", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-leave-home-any-roll", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-move-prints", &["movePiece", "playerTurn"]),
    ("bug-no-exact-finish", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-no-extra-roll", &["playerTurn"]),
    ("bug-passes-start", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-start-square", &["movePiece", "printMoves", "playerTurn"]),
    ("bug-status-width", &["printStatus"]),
];

#[test]
fn every_bug_fixture_has_a_test_and_every_test_a_fixture() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(repo().join("fixtures/trouble"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bug-"))
        .collect();
    let listed: BTreeSet<String> = BUGS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(on_disk, listed);
    assert!(listed.len() >= 8);
}

#[test]
fn each_bug_loses_points_exactly_in_its_categories() {
    for (name, categories) in BUGS {
        let report = grade_fixture(name);
        let expected: BTreeSet<&str> = categories.iter().copied().collect();
        assert_eq!(losing(&report), expected, "{name}:\n{}", plain_text(&report));
        assert!(report.score < report.max_score);
        insta::with_settings!({ snapshot_suffix => *name, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("bug", plain_text(&report));
        });
    }
}

#[test]
fn a_submission_that_does_not_compile_is_a_build_error_in_every_case() {
    let report = grade_fixture("does-not-compile");
    assert_eq!(report.score, 0.0);
    assert!(report.builds.iter().all(|b| b.status == BuildStatus::Error));
    assert!(report.builds[0].log.contains("error"), "the compiler's message is in the report");
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::BuildError));
    insta::assert_snapshot!("does-not-compile", plain_text(&report));
}

#[test]
fn trivia_costs_what_the_rubric_says_and_is_reported_as_such() {
    let report = grade_fixture("trivia-spacing");
    let turn = report.categories.iter().find(|c| c.id == "playerTurn").unwrap();
    assert_eq!(turn.score, 13.5, "a prompt without its space keeps 90% of playerTurn");
    assert_eq!(losing(&report), BTreeSet::from(["playerTurn"]), "the extra blank lines cost nothing");
    for case in report.cases.iter().filter(|c| c.category == "playerTurn") {
        assert_eq!(case.status, CaseStatus::Passed);
        assert_eq!(case.leniency, [grader::compare::Normalization::AllWhitespace]);
        assert!(case.note.as_deref().unwrap().contains("matched only when ignoring all whitespace"));
    }
    insta::assert_snapshot!("trivia-spacing", plain_text(&report));
}
