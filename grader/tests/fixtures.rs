//! Grades every fixture: each correct one scores full marks, each bug loses points in exactly the
//! categories its defect belongs to, and each report is a snapshot.

mod common;

use std::collections::BTreeSet;

use common::{bug_fixtures, grade_fixture, losing, plain_text};
use grader::compare::Normalization;
use grader::report::{BuildStatus, CaseStatus};

/// Grades every bug fixture of an assignment, checks the categories it loses, snapshots its report.
fn check_bugs(assignment: &str, bugs: &[(&str, &[&str])]) {
    let listed: BTreeSet<String> = bugs.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(bug_fixtures(assignment), listed, "every bug fixture has its expectation and vice versa");
    assert!(listed.len() >= 8);
    for (name, categories) in bugs {
        let report = grade_fixture(assignment, name);
        let expected: BTreeSet<&str> = categories.iter().copied().collect();
        assert_eq!(losing(&report), expected, "{assignment}/{name}:\n{}", plain_text(&report));
        insta::with_settings!({ snapshot_suffix => format!("{assignment}-{name}"), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("report", plain_text(&report));
        });
    }
}

#[test]
fn the_correct_trouble_submission_scores_full_marks() {
    let report = grade_fixture("trouble", "correct");
    assert_eq!(report.max_score, 80.0, "15 + 8 + 10 + 8 + 10 + 14 + 15 automated points");
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.len() >= 40);
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::Passed && c.leniency.is_empty()));
    let pending: Vec<(&str, f64)> = report.pending.iter().map(|p| (p.id.as_str(), p.points)).collect();
    assert_eq!(pending, [("style", 10.0), ("survey", 10.0)]);
}

#[test]
fn each_trouble_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "trouble",
        &[
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
            // Whole programs forgive spacing; only the function-level cases see the %7s.
            ("bug-status-width", &["printStatus"]),
        ],
    );
}

#[test]
fn a_trouble_submission_that_does_not_compile_is_a_build_error_in_every_case() {
    let report = grade_fixture("trouble", "does-not-compile");
    assert_eq!(report.score, 0.0);
    assert!(report.builds.iter().all(|b| b.status == BuildStatus::Error));
    assert!(report.builds[0].log.contains("error"), "the compiler's message is in the report");
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::BuildError));
    insta::assert_snapshot!("trouble-does-not-compile", plain_text(&report));
}

#[test]
fn trivia_costs_what_the_rubric_says_and_is_reported_as_such() {
    let report = grade_fixture("trouble", "trivia-spacing");
    let turn = report.categories.iter().find(|c| c.id == "playerTurn").unwrap();
    assert_eq!(turn.score, 13.5, "a prompt without its space keeps 90% of playerTurn");
    assert_eq!(losing(&report), BTreeSet::from(["playerTurn"]), "the extra blank lines cost nothing");
    for case in report.cases.iter().filter(|c| c.category == "playerTurn") {
        assert_eq!(case.status, CaseStatus::Passed);
        assert_eq!(case.leniency, [Normalization::AllWhitespace]);
        assert!(case.note.as_deref().unwrap().contains("matched only when ignoring all whitespace"));
    }
    insta::assert_snapshot!("trouble-trivia-spacing", plain_text(&report));
}

#[test]
fn the_correct_backgammon_submission_scores_full_marks() {
    let report = grade_fixture("backgammon", "correct");
    assert_eq!(report.max_score, 100.0);
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.len() >= 40);
    assert!(report.pending.is_empty());
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::Passed && c.leniency.is_empty()));
}

#[test]
fn each_backgammon_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "backgammon",
        &[
            ("bug-bar-not-forced", &["entry", "invalid", "functions"]),
            ("bug-bear-off-early", &["bearoff", "invalid", "functions"]),
            ("bug-bear-off-exact-only", &["bearoff", "functions"]),
            // Only the driver sees it: the whole program plays correctly.
            ("bug-check-moves-checkers", &["functions"]),
            ("bug-lands-on-two", &["basic", "invalid", "functions"]),
            ("bug-no-hit", &["entry", "invalid"]),
            // Red moves in every game.
            ("bug-red-wrong-way", &["basic", "entry", "bearoff", "invalid", "termination", "functions"]),
            ("bug-same-die-twice", &["basic"]),
            // Every transcript draws the board, and games stack six or more on a point.
            ("bug-six-checkers-drawn", &["board", "basic", "entry", "bearoff"]),
            ("bug-wrong-entry-point", &["entry", "invalid", "functions"]),
        ],
    );
}

#[test]
fn a_check_function_that_moves_checkers_is_named_in_the_report() {
    let report = grade_fixture("backgammon", "bug-check-moves-checkers");
    let case = report.cases.iter().find(|c| c.id == "functions/check-move-opening").unwrap();
    assert_eq!(case.status, CaseStatus::Failed);
    let actual = case.divergence.as_ref().unwrap().actual.as_deref().unwrap();
    assert!(actual.starts_with("check_move changed the_board_white["), "{actual}");
}

#[test]
fn backgammon_board_spacing_is_free_but_message_spacing_is_not() {
    let report = grade_fixture("backgammon", "trivia-board-spacing");
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.iter().all(|c| c.leniency.is_empty()));

    // The same program with one space too few in a message: every whole-program case needs leniency.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(common::repo().join("fixtures/backgammon/trivia-board-spacing")).unwrap() {
        let path = entry.unwrap().path();
        let text =
            std::fs::read_to_string(&path).unwrap().replace("Rolling dice:  %d %d", "Rolling dice: %d %d");
        std::fs::write(dir.path().join(path.file_name().unwrap()), text).unwrap();
    }
    let options = grader::grade::GradeOptions { visible_only: false, cache: common::cache() };
    let report = grader::grade::grade(common::assignment("backgammon"), dir.path(), &options).unwrap();
    for case in &report.cases {
        let transcript = case.kind == grader::load::CaseKind::Transcript;
        assert_eq!(case.status, CaseStatus::Passed, "{}", case.id);
        assert_eq!(case.leniency.is_empty(), !transcript, "{}", case.id);
    }
    assert!(report.score < report.max_score);
}
