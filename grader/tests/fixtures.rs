//! Grades every fixture: each correct one scores full marks, each bug loses points in exactly the
//! categories its defect belongs to (one defect costs once, where it belongs), each report is a
//! snapshot, and each assignment's defect-cost table is what the fixtures really cost.

mod common;

use std::collections::BTreeSet;

use common::{all_fixtures, bug_fixtures, defect_table, grade_fixture, grade_fixtures, losing, plain_text};
use grader::compare::Normalization;
use grader::report::{BuildStatus, CaseStatus};

/// Grades every bug fixture of an assignment, checks the categories it loses, snapshots its report.
fn check_bugs(assignment: &str, bugs: &[(&str, &[&str])]) {
    let listed: BTreeSet<String> = bugs.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(bug_fixtures(assignment), listed, "every bug fixture has its expectation and vice versa");
    assert!(listed.len() >= 8);
    let names: Vec<&str> = bugs.iter().map(|(name, _)| *name).collect();
    for ((name, categories), report) in bugs.iter().zip(grade_fixtures(assignment, &names)) {
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
    assert!(report.cases.len() >= 50);
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::Passed && c.leniency.is_empty()));
    let pending: Vec<(&str, f64)> = report.pending.iter().map(|p| (p.id.as_str(), p.points)).collect();
    assert_eq!(pending, [("style", 10.0), ("survey", 10.0)]);
}

#[test]
fn each_trouble_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "trouble",
        &[
            // Whole games run the student's playerTurn with our other functions: a function's defect
            // costs in its own category, never again in playerTurn.
            ("bug-capture-not-home", &["movePiece"]),
            ("bug-checkwin-zero", &["checkWin"]),
            // A rule defect in a helper that both printMoves and movePiece use shows in both.
            ("bug-finish-no-inner-moves", &["movePiece", "printMoves"]),
            ("bug-land-on-own", &["movePiece", "printMoves"]),
            ("bug-leave-home-any-roll", &["movePiece", "printMoves"]),
            // Only the cases that `show` what movePiece prints see the debug line.
            ("bug-move-prints", &["movePiece"]),
            ("bug-no-exact-finish", &["movePiece", "printMoves"]),
            // Only a game can show it.
            ("bug-no-extra-roll", &["playerTurn"]),
            ("bug-passes-start", &["movePiece", "printMoves"]),
            ("bug-start-square", &["movePiece", "printMoves"]),
            // Whole programs forgive spacing; only the function-level cases see the %7s.
            ("bug-status-width", &["printStatus"]),
            // printMoves only asks about the player's own pieces: only movePiece is handed another's.
            ("bug-target-any-colour", &["movePiece"]),
        ],
    );
}

fn category_score(report: &grader::report::Report, id: &str) -> (f64, f64) {
    let c = report.categories.iter().find(|c| c.id == id).unwrap();
    (c.score, c.max_score)
}

#[test]
fn checkwin_always_zero_keeps_at_most_a_third_of_checkwin() {
    let report = grade_fixture("trouble", "bug-checkwin-zero");
    let (score, max) = category_score(&report, "checkWin");
    assert!(score <= max / 3.0, "{}", plain_text(&report));
}

#[test]
fn the_move_list_may_come_in_any_order() {
    let report = grade_fixture("trouble", "any-move-order");
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
}

#[test]
fn a_stub_submission_earns_the_compile_points_and_nothing_else() {
    let report = grade_fixture("trouble", "stub-functions");
    assert_eq!(category_score(&report, "compile"), (15.0, 15.0), "{}", plain_text(&report));
    assert_eq!(report.score, 15.0, "{}", plain_text(&report));
}

#[test]
fn a_missing_line_break_before_each_header_is_a_presentation_error_of_player_turn() {
    let report = grade_fixture("trouble", "trivia-no-header-blank-line");
    assert_eq!(losing(&report), BTreeSet::from(["playerTurn"]), "{}", plain_text(&report));
    let (score, max) = category_score(&report, "playerTurn");
    assert!(score >= 0.9 * max - 1e-9, "{}", plain_text(&report));
    for case in report.cases.iter().filter(|c| c.category == "playerTurn") {
        assert_eq!(
            (case.status, &case.leniency[..]),
            (CaseStatus::Passed, &[Normalization::AllWhitespace][..])
        );
        assert_eq!(case.forgiven[0].what, "missing line break", "{}", case.id);
        assert!(case.forgiven[0].expected.starts_with("---- "), "{:?}", case.forgiven);
    }
    insta::assert_snapshot!("trouble-trivia-no-header-blank-line", plain_text(&report));
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
        let note = case.note.as_deref().unwrap();
        assert!(note.contains("presentation error, 90% of the case's points"), "{note}");
        assert!(note.contains("missing space"), "{note}");
    }
    insta::assert_snapshot!("trouble-trivia-spacing", plain_text(&report));
}

#[test]
fn a_self_check_scores_the_visible_cases_at_their_real_weight() {
    let full = grade_fixture("trouble", "bug-land-on-own");
    let options = grader::grade::GradeOptions {
        visible_only: true,
        ..grader::grade::GradeOptions::new(common::cache())
    };
    let path = common::repo().join("fixtures/trouble/bug-land-on-own");
    let check = grader::grade::grade(common::assignment("trouble"), &path, &options).unwrap();
    for case in &check.cases {
        let same = full.cases.iter().find(|c| c.id == case.id).unwrap();
        assert_eq!((case.score, case.max_score), (same.score, same.max_score), "{}", case.id);
    }
    let hidden = check.hidden.as_ref().unwrap();
    assert!((check.max_score + hidden.points - full.max_score).abs() < 0.02);
    assert_eq!(check.cases.len() + hidden.cases, full.cases.len());
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
            // Rule defects cost in their rule's category: games and the unit cases of that rule.
            ("bug-bar-not-forced", &["entry"]),
            ("bug-bear-off-early", &["bearoff"]),
            ("bug-bear-off-exact-only", &["bearoff"]),
            // Only the driver's `effects` cases see it: the whole program plays correctly.
            ("bug-check-moves-checkers", &["functions"]),
            ("bug-lands-on-two", &["basic"]),
            ("bug-no-hit", &["entry"]),
            // Red moves backwards in every game: every game derails.
            ("bug-red-wrong-way", &["basic", "entry", "bearoff", "invalid", "termination", "functions"]),
            ("bug-same-die-twice", &["basic"]),
            // Games draw the board with our print_board: only the board category sees the drawing.
            ("bug-six-checkers-drawn", &["board"]),
            ("bug-wrong-entry-point", &["entry"]),
        ],
    );
}

#[test]
fn a_late_second_prompt_costs_only_termination() {
    let report = grade_fixture("backgammon", "prompt-after-read");
    assert_eq!(losing(&report), BTreeSet::from(["termination"]), "{}", plain_text(&report));
    let (score, max) = category_score(&report, "termination");
    assert!(score > 0.9 * max, "one local difference in one case: {}", plain_text(&report));
}

#[test]
fn checks_that_change_globals_lose_at_most_half_of_functions() {
    let report = grade_fixture("backgammon", "checks-change-globals");
    assert_eq!(losing(&report), BTreeSet::from(["functions"]), "{}", plain_text(&report));
    let (score, max) = category_score(&report, "functions");
    assert!(score >= max / 2.0, "{}", plain_text(&report));
    let case = report.cases.iter().find(|c| c.id == "functions/checks-change-nothing").unwrap();
    assert_eq!(case.status, CaseStatus::Failed);
    let actual = case.divergence.as_ref().unwrap().actual.as_deref().unwrap();
    assert!(actual.starts_with("check_move changed the_board_white["), "{actual}");
    insta::assert_snapshot!("backgammon-checks-change-globals", plain_text(&report));
}

#[test]
fn a_message_typo_costs_at_most_five_points_in_the_category_of_messages() {
    let report = grade_fixture("backgammon", "message-typo");
    assert_eq!(losing(&report), BTreeSet::from(["invalid"]), "{}", plain_text(&report));
    assert!(report.score >= report.max_score - 5.0, "{}", plain_text(&report));
    let lenient: Vec<&str> =
        report.cases.iter().filter(|c| !c.leniency.is_empty()).map(|c| c.category.as_str()).collect();
    assert!(lenient.iter().all(|&c| c == "invalid") && !lenient.is_empty(), "{lenient:?}");
}

#[test]
fn backgammon_board_spacing_is_free_but_message_spacing_is_not() {
    let report = grade_fixture("backgammon", "trivia-board-spacing");
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.iter().all(|c| c.leniency.is_empty()));

    // The same program with one space too few in a message: a presentation error, charged once, by
    // the category that grades the messages.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(common::repo().join("fixtures/backgammon/trivia-board-spacing")).unwrap() {
        let path = entry.unwrap().path();
        let text =
            std::fs::read_to_string(&path).unwrap().replace("Rolling dice:  %d %d", "Rolling dice: %d %d");
        std::fs::write(dir.path().join(path.file_name().unwrap()), text).unwrap();
    }
    let options = grader::grade::GradeOptions::new(common::cache());
    let report = grader::grade::grade(common::assignment("backgammon"), dir.path(), &options).unwrap();
    for case in &report.cases {
        assert_eq!(case.status, CaseStatus::Passed, "{}", case.id);
        assert_eq!(case.leniency.is_empty(), case.category != "invalid", "{}", case.id);
    }
    assert_eq!(losing(&report), BTreeSet::from(["invalid"]));
    assert!(report.score >= report.max_score - 1.0 - 1e-9, "a tenth of invalid: {}", report.score);
}

/// Every format of a fixture's grading: text and Markdown as snapshots, the others checked against
/// the report.
fn check_formats(assignment: &str, name: &str, report: &grader::report::Report) {
    common::check_formats(report);
    insta::with_settings!({ snapshot_suffix => format!("{assignment}-{name}"), prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("report", plain_text(report));
        insta::assert_snapshot!("markdown", grader::report::render_markdown(report));
    });
}

/// The section of `cases/<id>/README.md` that holds the defect-cost table.
const TABLE_START: &str = "<!-- defect-costs:start (generated by grader/tests/fixtures.rs; UPDATE_DEFECT_TABLES=1 rewrites it) -->\n";
const TABLE_END: &str = "<!-- defect-costs:end -->";

/// Grades every fixture of the assignment and checks that its README's table says what they cost.
fn check_defect_table(assignment: &str) {
    let names = all_fixtures(assignment);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let reports: Vec<(String, grader::report::Report)> = names
        .iter()
        .zip(grade_fixtures(assignment, &names))
        .map(|(name, report)| {
            check_formats(assignment, name, &report);
            (name.to_string(), report)
        })
        .collect();
    let table = defect_table(assignment, &reports);
    let path = common::repo().join("cases").join(assignment).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = readme.split_once(TABLE_START).expect("the README has a defect-cost section");
    let (current, after) = rest.split_once(TABLE_END).expect("the section is closed");
    if current != table {
        if std::env::var_os("UPDATE_DEFECT_TABLES").is_some() {
            std::fs::write(&path, format!("{before}{TABLE_START}{table}{TABLE_END}{after}")).unwrap();
        } else {
            panic!(
                "cases/{assignment}/README.md's defect-cost table is stale; rerun with UPDATE_DEFECT_TABLES=1.\n\
                 Expected:\n{table}"
            );
        }
    }
}

#[test]
fn the_trouble_defect_cost_table_is_true() {
    check_defect_table("trouble");
}

#[test]
fn the_backgammon_defect_cost_table_is_true() {
    check_defect_table("backgammon");
}

#[test]
fn the_correct_checkers_submissions_score_full_marks() {
    for name in ["correct", "correct-loops-at-eof"] {
        let report = grade_fixture("checkers", name);
        assert_eq!(report.max_score, 100.0, "15 + 20 + 20 + 25 + 20");
        assert_eq!(report.score, report.max_score, "{name}:\n{}", plain_text(&report));
        assert!(report.cases.len() >= 30);
        assert!(report.cases.iter().all(|c| c.status == CaseStatus::Passed && c.leniency.is_empty()));
        let hidden = report.cases.iter().filter(|c| c.visibility == grader::load::Visibility::Hidden).count();
        assert!(hidden >= 10 && hidden < report.cases.len() - 10, "{hidden} hidden cases");
    }
}

#[test]
fn a_program_that_prints_forever_at_end_of_input_is_stopped_by_the_transcript_not_a_time_limit() {
    let report = grade_fixture("checkers", "correct-loops-at-eof");
    for case in &report.cases {
        // Stopped as soon as its output went well past the transcript: no wall or CPU limit waited for.
        assert_eq!(case.limit, Some(grader::run::Limit::Output), "{}", case.id);
        let note = case.note.as_deref().unwrap_or_default();
        assert!(note.starts_with("ended after the complete transcript (printed far more"), "{note}");
        assert!(case.time_ms.unwrap() < 1000, "{}: {:?} ms", case.id, case.time_ms);
    }
}

#[test]
fn each_checkers_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "checkers",
        &[
            // The rule categories leave the drawing out and lose nothing; one case of kings keeps it to
            // see crowned men drawn as R and W, which a program that never reprints cannot show.
            ("bug-board-not-reprinted", &["board", "kings"]),
            // A consistent program on an upside-down board: every move typed in the handout's
            // coordinates is refused or misplayed, so every game derails.
            ("bug-colours-swapped", &["board", "stepping", "jumps", "validation", "kings"]),
            ("bug-error-text", &["validation"]),
            ("bug-jump-over-own", &["validation"]),
            ("bug-jumped-not-removed", &["jumps"]),
            ("bug-king-no-backward-jump", &["kings"]),
            ("bug-men-move-backwards", &["validation"]),
            ("bug-no-bounds-check", &["validation"]),
            ("bug-no-kings", &["kings"]),
            ("bug-step-two", &["validation"]),
        ],
    );
}

#[test]
fn a_checkers_program_for_another_term_loses_only_the_case_where_the_rules_differ() {
    for (name, case) in
        [("other-forced-jumps", "jumps/no-forced-jumps"), ("other-multiple-jumps", "jumps/no-multiple-jumps")]
    {
        let report = grade_fixture("checkers", name);
        let failed: Vec<&str> =
            report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
        assert_eq!(failed, [case], "{name}:\n{}", plain_text(&report));
        assert_eq!(losing(&report), BTreeSet::from(["jumps"]));
    }
}

#[test]
fn a_checkers_board_never_reprinted_costs_the_board_and_the_one_case_of_kings_that_draws_them() {
    let report = grade_fixture("checkers", "bug-board-not-reprinted");
    let failed: BTreeSet<&str> = report
        .cases
        .iter()
        .filter(|c| c.status != CaseStatus::Passed && c.category != "board")
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(failed, BTreeSet::from(["kings/shown-as-capitals"]), "{}", plain_text(&report));
}

#[test]
fn the_checkers_board_of_the_specs_earlier_draft_scores_full_marks() {
    // One more leading space on every line of the board, as an earlier draft of the spec showed.
    let dir = tempfile::tempdir().unwrap();
    let source =
        std::fs::read_to_string(common::repo().join("fixtures/checkers/correct/checkers.c")).unwrap();
    let mut shifted = source.clone();
    for (line, wider) in [
        (r#"printf(" |");"#, r#"printf("  |");"#),
        (r#"printf(" ");"#, r#"printf("  ");"#),
        (r#"printf("%d|", y);"#, r#"printf(" %d|", y);"#),
    ] {
        assert!(source.contains(line), "{line}");
        shifted = shifted.replace(line, wider);
    }
    std::fs::write(dir.path().join("checkers.c"), shifted).unwrap();
    let options = grader::grade::GradeOptions::new(common::cache());
    let report = grader::grade::grade(common::assignment("checkers"), dir.path(), &options).unwrap();
    assert_eq!(report.score, report.max_score, "{}", plain_text(&report));
    assert!(report.cases.iter().all(|c| c.leniency.is_empty()));
}

#[test]
fn the_wording_of_the_checkers_error_message_is_graded_once() {
    let report = grade_fixture("checkers", "bug-error-text");
    let failed: Vec<&str> =
        report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(failed, ["validation/message"], "{}", plain_text(&report));
    assert!(report.score >= report.max_score - 5.0, "{}", plain_text(&report));
}

#[test]
fn the_checkers_defect_cost_table_is_true() {
    check_defect_table("checkers");
}

/// What the Turkish draughts probe shows for a program in the handout's conventions.
const DRAUGHTS_HANDOUT_PROBE: [&str; 6] = [
    "functions: the four defined",
    "pieces: the handout's enum",
    "orientation: white starts on rows 5-6",
    "coordinates: 0-based",
    "capture sequences: the final square",
    "king captures: land on any vacant square beyond the piece taken",
];

#[test]
fn turkish_draughts_programs_in_any_convention_keep_every_rules_point() {
    const FIRST_LANDING: &str = "capture sequences: the first landing, move() finishing the sequence";
    const RIGHT_BEHIND: (usize, &str) = (5, "king captures: land right behind the piece taken");
    /// The probe lines that differ from the handout's: their index and text.
    type Differs<'a> = &'a [(usize, &'a str)];
    // (fixture, the probe lines that differ, the conventions case it costs)
    let programs: [(&str, Differs, Option<&str>); 16] = [
        ("correct", &[], None),
        // A rule the handout never states: no case depends on it.
        ("variant-king-turns-back", &[], None),
        ("variant-undeclared-function", &[], None),
        ("variant-display-blank-lines", &[], None),
        ("variant-prints-inside", &[], None),
        ("variant-first-landing", &[(4, FIRST_LANDING)], None),
        (
            "variant-long-landing-ends-call",
            &[(4, "capture sequences: the first landing, move() finishing the sequence; a king's long landing ends the call")],
            None,
        ),
        ("variant-one-jump-per-call", &[(4, "capture sequences: one jump per call")], None),
        // Men and kings in two conventions: the probe finds each kind's, and the driver plays each
        // piece in its own. A man that stops where its sequence turns is gone on with from there.
        (
            "variant-straight-sequences",
            &[(
                4,
                "capture sequences: men: the first landing, move() finishing the sequence as far as it goes \
                 straight (a turn ends the call); kings: one jump per call",
            )],
            None,
        ),
        (
            "variant-men-finish-kings-one-jump",
            &[(
                4,
                "capture sequences: men: the final square or the first landing, move() finishing the sequence; \
                 kings: one jump per call",
            )],
            None,
        ),
        // Rule 6 read as "the king lands right behind the piece it takes": one case of conventions.
        ("variant-king-lands-behind", &[RIGHT_BEHIND], Some("conventions/king-landing")),
        // Such a program names the piece it takes, and so lands right behind it.
        (
            "variant-captured-square",
            &[(4, "capture sequences: the square of the piece taken, one jump per call"), RIGHT_BEHIND],
            Some("conventions/king-landing"),
        ),
        (
            "variant-characters",
            &[(1, "pieces: the characters w b W B and '-' for empty, players white as 'w', black as 'b'")],
            Some("conventions/pieces"),
        ),
        ("variant-white-on-top", &[(2, "orientation: white starts on rows 1-2")], Some("conventions/orientation")),
        ("variant-one-based", &[(3, "coordinates: 1-based")], Some("conventions/coordinates")),
        (
            "variant-transposed",
            &[(2, "orientation: the board transposed, white on columns 5-6")],
            Some("conventions/orientation"),
        ),
    ];
    let names: Vec<&str> = programs.iter().map(|(name, _, _)| *name).collect();
    for ((name, differs, costs), report) in
        programs.into_iter().zip(grade_fixtures("turkish-draughts", &names))
    {
        let text = plain_text(&report);
        assert_eq!(report.max_score, 100.0, "10 + 5 + 15 + 15 + 15 + 15 + 10 + 10 + 5");
        assert!(report.cases.len() >= 40);
        let mut probe: Vec<String> = DRAUGHTS_HANDOUT_PROBE.iter().map(|l| l.to_string()).collect();
        for &(line, found) in differs {
            probe[line] = found.to_owned();
        }
        let shown = report.probe.as_ref().expect("the conventions probe ran");
        assert_eq!((&shown.lines, &shown.failure), (&probe, &None), "{name}");
        // Shown in the text report too, under its title.
        assert!(text.contains(&format!("{}:\n    {}\n", shown.title, probe[0])), "{text}");
        let failed: Vec<&str> =
            report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
        assert_eq!(failed, costs.into_iter().collect::<Vec<_>>(), "{name}:\n{text}");
        let lost = report.max_score - report.score;
        assert!(lost < 1.26, "one convention costs a quarter of the 5 points: {name} lost {lost}");
    }
}

#[test]
fn a_function_called_before_any_declaration_is_a_warning_in_the_report_not_a_build_error() {
    let report = grade_fixture("turkish-draughts", "variant-undeclared-function");
    let build = &report.builds[0];
    assert_eq!(build.status, BuildStatus::Ok);
    let warning = "draughts.c:356:18: warning: implicit declaration of function 'check_end_of_game'";
    assert!(build.log.contains(warning), "{}", build.log);
    // Named as the student and the repository know the files, not by this machine's folders.
    assert!(!build.log.contains(common::repo().to_str().unwrap()), "{}", build.log);
    assert!(plain_text(&report).contains(warning));
    assert_eq!(report.score, report.max_score);
}

#[test]
fn each_turkish_draughts_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "turkish-draughts",
        &[
            // Capture sequences are found right but the captured pieces stay: `max-capture` reads
            // only single squares after a capture, so only `captures` sees them.
            ("bug-captured-left", &["captures"]),
            // The content of the display is right: only its layout costs, 2 of display's 5 points (see
            // below).
            ("bug-display-spaced", &["display"]),
            // Row labels in words after the symbols: read as the board they show, so that only the
            // layout costs, not initial-board's rows too.
            ("bug-display-row-labels", &["display"]),
            // A grid of '+-+' borders and '|' between squares: its rows read, the borders not.
            ("bug-display-bordered", &["display"]),
            // fallbacks.c stands in for the missing function: the three others are graded in full.
            ("bug-no-display-board", &["display", "initial-board"]),
            // The boards are right: only the values cost.
            ("bug-junk-returns", &["return-codes"]),
            // Nothing is done: every case asks for evidence that something is (a refusal beside a move
            // that must be made, a value beside a different one), so nothing is earned anywhere.
            (
                "bug-does-nothing",
                &[
                    "captures",
                    "conventions",
                    "display",
                    "end-of-game",
                    "initial-board",
                    "king-moves",
                    "man-moves",
                    "max-capture",
                    "return-codes",
                ],
            ),
            // Kings that cannot capture at a distance: every max-capture case with a king refuses one
            // it can make, so the refusals there are evidence of the rule, not of the defect.
            ("bug-king-captures-adjacent", &["captures"]),
            ("bug-king-one-square", &["king-moves"]),
            // A king passing its own man, in the convention that names the piece taken: the driver asks
            // for the square the king was sent to, not for its own man (which it would refuse), so the
            // case about it costs; the convention costs its one case, as variant-captured-square's.
            ("bug-king-passes-own", &["conventions", "king-moves"]),
            // A king that never moves: no-diagonal also asks for a move along its row.
            ("bug-king-never-moves", &["king-moves"]),
            ("bug-man-moves-backward", &["man-moves"]),
            // A white man that cannot step right: only the case of sideways steps asks it to; the
            // other plain-move cases step forward, and max-capture refuses a capture on both sides.
            ("bug-man-no-step-right", &["man-moves"]),
            // A partial rule keeps the max-capture cases about one piece's own sequences.
            ("bug-max-capture-moving-piece-only", &["max-capture"]),
            ("bug-no-block-win", &["end-of-game"]),
            ("bug-no-crowning", &["king-moves"]),
            ("bug-no-max-capture", &["max-capture"]),
            // The same in the first-landing convention: after its first landing the program chooses
            // its own captures, and no case but max-capture's gives it a choice.
            ("bug-no-max-capture-first-landing", &["max-capture"]),
            ("bug-opponent-piece", &["return-codes"]),
        ],
    );
}

#[test]
fn a_right_turkish_draughts_board_in_another_layout_keeps_three_of_the_five_display_points() {
    for name in ["bug-display-spaced", "bug-display-row-labels"] {
        let report = grade_fixture("turkish-draughts", name);
        let text = plain_text(&report);
        assert_eq!(category_score(&report, "display"), (3.0, 5.0), "{name}:\n{text}");
        assert_eq!(report.score, 98.0, "{name}:\n{text}");
        for case in report.cases.iter().filter(|c| c.category == "display") {
            assert_eq!(case.status, CaseStatus::Passed, "{}", case.id);
            let layout = "the board's header, row labels, spacing and borders";
            assert_eq!(case.lenient_rewrite.as_deref(), Some(layout), "{}", case.id);
            // The header and the eight rows, first where the board's first row is expected.
            let forgiven: Vec<_> =
                case.forgiven.iter().map(|f| (f.what.as_str(), f.count, f.expected_line)).collect();
            assert_eq!(forgiven, [(layout, 9, 3)], "{}", case.id);
            let note = case.note.as_deref().unwrap();
            assert!(note.starts_with("presentation error, 60% of the case's points: matched only when ignoring the board's header"), "{note}");
        }
    }
}

#[test]
fn the_turkish_draughts_display_rung_reads_headers_labels_spacing_and_borders_never_a_wrong_board() {
    let assignment = common::assignment("turkish-draughts");
    let case = assignment.cases.iter().find(|c| c.id == "display/kings").unwrap();
    let expected =
        std::fs::read_to_string(common::repo().join("cases/turkish-draughts/display/kings.stdout")).unwrap();
    let (echo, rows): (Vec<&str>, Vec<&str>) = expected.lines().partition(|l| l.starts_with("> "));
    assert_eq!(rows.len(), 8);
    let spaced = |row: &str, sep: &str| row.chars().map(String::from).collect::<Vec<_>>().join(sep);
    type Layout = Box<dyn Fn(usize, &str) -> String>;
    // (what it shows, a line before the rows, each row, a line after the rows)
    let layouts: Vec<(&str, Option<&str>, Layout, Option<&str>)> = vec![
        ("row numbers", None, Box::new(|i, r| format!("{i} {r}")), None),
        ("one-based labels with a colon", None, Box::new(|i, r| format!("{}: {r}", i + 1)), None),
        ("labels with a parenthesis", None, Box::new(|i, r| format!("{i}) {r}")), None),
        ("labels in words after the row", Some("01234567"), Box::new(|i, r| format!("{r}  {i}.satır")), None),
        ("labels on both sides", None, Box::new(|i, r| format!("{i} {r} {i}")), None),
        (
            "spaced cells under a header",
            Some("  0 1 2 3 4 5 6 7"),
            Box::new(move |i, r| format!("{i} {}", spaced(r, " "))),
            None,
        ),
        (
            "a one-based header",
            Some("   1 2 3 4 5 6 7 8"),
            Box::new(move |i, r| format!("{} {}", i + 1, spaced(r, " "))),
            None,
        ),
        ("tabs", None, Box::new(move |_, r| spaced(r, "\t")), None),
        (
            "ascii borders",
            Some("+-+-+-+-+-+-+-+-+"),
            Box::new(move |_, r| format!("|{}|", spaced(r, "|"))),
            Some("+-+-+-+-+-+-+-+-+"),
        ),
        (
            "a line of dashes",
            Some("  -----------------"),
            Box::new(move |i, r| format!("{i} | {} |", spaced(r, " "))),
            Some("  -----------------"),
        ),
        (
            "box drawing",
            Some("┌─┬─┬─┬─┬─┬─┬─┬─┐"),
            Box::new(move |_, r| format!("│{}│", spaced(r, "│"))),
            Some("└─┴─┴─┴─┴─┴─┴─┴─┘"),
        ),
    ];
    let show = |rows: &[String], before: Option<&str>, row: &Layout, after: Option<&str>| {
        let mut out: String = echo.iter().map(|l| format!("{l}\n")).collect();
        out.extend(before.map(|l| format!("{l}\n")));
        out.extend(rows.iter().enumerate().map(|(i, r)| format!("{}\n", row(i, r))));
        out.extend(after.map(|l| format!("{l}\n")));
        out
    };
    let right: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    let mut wrong = right.clone();
    wrong[4] = wrong[4].replace('W', "B");
    let compare = |actual: &str| {
        grader::compare::compare(
            expected.as_bytes(),
            actual.as_bytes(),
            &case.compare,
            grader::compare::Extent::Whole,
        )
    };
    for (what, before, row, after) in &layouts {
        let c = compare(&show(&right, *before, row, *after));
        assert_eq!((c.matched, c.credit), (true, 0.6), "{what}:\n{}", show(&right, *before, row, *after));
        let c = compare(&show(&wrong, *before, row, *after));
        assert_eq!(c.credit, 0.0, "a wrong board with {what}");
        let c = compare(&show(&right[..7], *before, row, *after));
        assert_eq!(c.credit, 0.0, "seven rows with {what}");
    }
    // The handout's layout costs nothing, blank lines and trailing spaces included.
    let c = compare(&show(&right, Some(""), &(Box::new(|_, r: &str| format!("{r}  ")) as Layout), Some("")));
    assert_eq!((c.matched, c.credit, c.lenient_rewrite), (true, 1.0, None));
}

#[test]
fn a_missing_required_function_costs_its_own_cases_and_is_named_in_the_report() {
    let report = grade_fixture("turkish-draughts", "bug-no-display-board");
    let probe = report.probe.as_ref().unwrap();
    assert_eq!(probe.lines[0], "functions: missing display_board");
    let failed: Vec<&str> =
        report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(
        failed,
        [
            "display/kings",
            "display/sparse",
            "display/start",
            "initial-board/position-shown",
            "initial-board/start-shown"
        ],
        "{}",
        plain_text(&report)
    );
}

#[test]
fn a_turkish_draughts_program_that_does_nothing_earns_nothing() {
    let report = grade_fixture("turkish-draughts", "bug-does-nothing");
    let text = plain_text(&report);
    let passed: Vec<&str> =
        report.cases.iter().filter(|c| c.status == CaseStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(passed, Vec::<&str>::new(), "{text}");
    assert_eq!(report.score, 0.0, "{text}");
    // Nothing it does is read as the handout's conventions either.
    let probe = &report.probe.as_ref().unwrap().lines;
    assert_eq!(probe[1], "pieces: not seen (neither init_board nor move() set a piece)");
    assert_eq!(probe[2], "orientation: white men not found on two full rows after init_board");
    assert_eq!(probe[4], "capture sequences: not detected (taken as the final square)");
}

#[test]
fn a_king_passing_its_own_man_costs_the_case_about_it_in_any_capture_convention() {
    let report = grade_fixture("turkish-draughts", "bug-king-passes-own");
    let failed: Vec<&str> =
        report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(
        failed,
        ["conventions/king-landing", "king-moves/blocked-by-a-piece"],
        "{}",
        plain_text(&report)
    );
}

#[test]
fn blocking_is_graded_apart_from_elimination() {
    let report = grade_fixture("turkish-draughts", "bug-no-block-win");
    let failed: Vec<&str> =
        report.cases.iter().filter(|c| c.status != CaseStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(failed, ["end-of-game/black-blocked", "end-of-game/white-blocked"], "{}", plain_text(&report));
}

#[test]
fn the_turkish_draughts_defect_cost_table_is_true() {
    check_defect_table("turkish-draughts");
}

#[test]
fn the_correct_backgammon_ai_submission_plays_every_game_legally_and_its_strength_has_an_interval() {
    let report = grade_fixture("backgammon-ai", "correct");
    assert_eq!(report.builds[0].status, BuildStatus::Ok, "{}", plain_text(&report));
    for category in report.categories.iter().filter(|c| c.id != "strength") {
        assert_eq!(category.score, category.max_score, "{}: {}", category.id, plain_text(&report));
    }
    // No game leaves the report silently: each has its end, and a correct program finishes them all.
    for case in report.cases.iter().filter(|c| c.kind == grader::load::CaseKind::Interactive) {
        assert!(!case.game_ends.is_empty(), "{}", case.id);
        for end in &case.game_ends {
            assert_eq!(end.status, grader::report::GameStatus::Finished, "{}: {end:?}", case.id);
            assert!(end.how.contains("ended at `quit`"), "{}: {end:?}", case.id);
        }
    }
    let strength = report.cases.iter().find(|c| c.category == "strength").unwrap();
    let note = strength.note.as_deref().unwrap();
    assert!(note.contains("against the random player") && note.contains("95% interval"), "{note}");
    assert!(strength.score > 0.0, "a heuristic AI beats the random player: {note}");
}

#[test]
fn each_backgammon_ai_bug_loses_points_exactly_in_its_categories() {
    check_bugs(
        "backgammon-ai",
        &[
            ("bug-accepts-illegal", &["illegal-plays"]),
            // A rule wrong in the program's rules costs where the AI plays by them and where the
            // grader's plays are judged by them (its legal higher-die plays refused, for two dice).
            ("bug-bear-off-outside", &["legal-play", "illegal-plays"]),
            // A crash in every game leaves no game whole: what needs whole games loses them.
            ("bug-crash-midgame", &["protocol", "results", "strength", "cube"]),
            // Stray lines cost once, in protocol's quiet case, wherever they come: on every move, or
            // only when the AI rolls a double (which only the fair dice of that case bring).
            ("bug-debug-stdout", &["protocol"]),
            ("bug-debug-on-doubles", &["protocol"]),
            ("bug-doubles-two-moves", &["legal-play", "illegal-plays"]),
            ("bug-no-gammons", &["results"]),
            // Set up with `setup`, the grader's lower die is offered where only the higher may be
            // played, and the AI put where it must play the higher.
            ("bug-no-higher-die", &["legal-play", "illegal-plays"]),
            ("bug-position-drift", &["protocol"]),
            // The state after every refusal is asked for.
            ("bug-refusal-not-undone", &["illegal-plays"]),
            ("bug-slow", &["protocol"]),
            // Four of the handout's coding requirements broken: style alone, each violation listed.
            ("bug-style", &["style"]),
        ],
    );
}

#[test]
fn a_backgammon_ai_program_without_setup_loses_exactly_the_cases_that_set_positions_up() {
    let report = grade_fixture("backgammon-ai", "no-setup");
    let assignment = common::assignment("backgammon-ai");
    let set_up: Vec<&str> = assignment
        .cases
        .iter()
        .filter(|c| {
            c.scenario.as_ref().is_some_and(|s| s.get("setup").and_then(toml::Value::as_bool) == Some(true))
        })
        .map(|c| c.id.as_str())
        .collect();
    assert!(set_up.len() >= 4, "{set_up:?}");
    let failed: Vec<&str> =
        report.cases.iter().filter(|c| c.score < c.max_score).map(|c| c.id.as_str()).collect();
    assert_eq!(failed, set_up, "{}", plain_text(&report));
    for case in report.cases.iter().filter(|c| c.score < c.max_score) {
        assert_eq!(case.score, 0.0, "{}", case.id);
        assert!(case.games.iter().all(|g| g.problem.contains("to `setup`")), "{}: {:?}", case.id, case.games);
    }
}

#[test]
fn the_strength_of_a_weak_ai_is_a_measurement_not_a_lottery() {
    // Other dice (`grade --seed`) move a weak AI's strength score by at most 5 points; the interval
    // the report gives is at most 5 points wide each way; the same seed plays the same games.
    let strength = |seed: Option<u64>| {
        let options = grader::grade::GradeOptions {
            only: vec![glob::Pattern::new("strength/*").unwrap()],
            dice_seed: seed,
            ..grader::grade::GradeOptions::new(common::cache())
        };
        let path = common::repo().join("fixtures/backgammon-ai/weak-ai");
        let report = grader::grade::grade(common::assignment("backgammon-ai"), &path, &options).unwrap();
        assert_eq!(report.dice_seed, seed);
        let case = report.cases.into_iter().next().unwrap();
        (case.score, case.note.unwrap())
    };
    // Each grading is one long game of games on one core: all at once, they share the cores.
    let (scores, again) = std::thread::scope(|scope| {
        let seeds: Vec<_> = (1..=8).map(|n| scope.spawn(move || strength(Some(n)))).collect();
        let again = scope.spawn(|| strength(Some(3)));
        let scores: Vec<(f64, String)> = seeds.into_iter().map(|s| s.join().unwrap()).collect();
        (scores, again.join().unwrap())
    });
    let (low, high) = scores.iter().fold((f64::MAX, f64::MIN), |(l, h), (s, _)| (l.min(*s), h.max(*s)));
    assert!(high - low <= 5.0, "{scores:#?}");
    assert!(low < 10.0, "a weak AI does not earn full marks on every dice: {scores:#?}");
    for (_, note) in &scores {
        let interval = note.split("95% interval ").nth(1).unwrap();
        let (from, to) = interval.split_once('-').unwrap();
        let percent = |t: &str| t.split('%').next().unwrap().parse::<f64>().unwrap();
        let (from, to) = (percent(from), percent(to));
        // 10 points of score over the 15 points of win rate between 50% and 65%: at most ±5% is at
        // most ±3.3 points of score.
        assert!(to - from <= 10.0, "{note}");
    }
    assert_eq!(again, scores[2], "the same seed plays the same games");
    // The figure the assignment's README gives comes from here, not from memory.
    let readme = std::fs::read_to_string(common::repo().join("cases/backgammon-ai/README.md")).unwrap();
    let said = format!("scores {low:.2} to {high:.2} over `--seed 1` to `8`");
    assert!(readme.replace('\n', " ").replace("  ", " ").contains(&said), "the README should say: {said}");
}

#[test]
fn a_backgammon_ai_program_without_the_optional_cube_loses_only_the_bonus() {
    let report = grade_fixture("backgammon-ai", "no-cube");
    let correct = grade_fixture("backgammon-ai", "correct");
    assert_eq!(losing(&report), BTreeSet::from(["cube"]), "{}", plain_text(&report));
    let cube = report.categories.iter().find(|c| c.id == "cube").unwrap();
    assert!(cube.bonus && cube.score == 0.0, "{cube:?}");
    // The bonus is not part of the maximum: without it the rest earns every point there is.
    let strength =
        |r: &grader::report::Report| r.categories.iter().find(|c| c.id == "strength").unwrap().score;
    assert_eq!(report.max_score, 95.0);
    assert_eq!(report.score, 95.0 - (10.0 - strength(&report)), "{}", plain_text(&report));
    assert_eq!(correct.score, 100.0 - (10.0 - strength(&correct)), "the correct program earns the bonus too");
}

#[test]
fn the_backgammon_ai_defect_cost_table_is_true() {
    check_defect_table("backgammon-ai");
}
