//! Tests of the report struct: what hidden cases disclose, totals, bonus points and JSON.

use super::*;
use crate::compare::Forgiven;

fn failing_case(id: &str, visibility: Visibility, disclosure: Disclosure) -> CaseReport {
    let forgiven = Forgiven {
        what: "missing space".into(),
        count: 2,
        unit: crate::compare::Unit::Place,
        expected_line: 3,
        expected: "SECRET LINE".into(),
    };
    CaseReport {
        id: id.into(),
        title: format!("{id} checks SECRET TITLE"),
        category: "moves".into(),
        visibility,
        disclosure,
        kind: CaseKind::Transcript,
        status: CaseStatus::Failed,
        signal: None,
        limit: None,
        score: 1.0,
        max_score: 2.0,
        leniency: Vec::new(),
        lenient_rewrite: None,
        note: Some(format!("presentation error: {}", forgiven.describe())),
        forgiven: vec![forgiven],
        partial: None,
        time_ms: Some(3),
        cpu_ms: Some(1),
        peak_memory_kb: Some(100),
        divergence: Some(Divergence {
            line: 3,
            expected_line: 3,
            expected: Some("SECRET LINE".into()),
            actual: Some("mine".into()),
        }),
        diff: Some("-SECRET LINE\n+mine\n".into()),
        stderr: Some("debug".into()),
        input: Some(InputContext {
            path: "cases/a/b.stdin".into(),
            consumed: Some(1),
            last: vec![(1, "x".into())],
        }),
        reproduce: Some("env -i prog".into()),
        games: Vec::new(),
        game_ends: Vec::new(),
        verdict: None,
    }
}

fn report(cases: Vec<CaseReport>) -> Report {
    Report {
        package: None,
        grader_version: "0".into(),
        assignment: "a".into(),
        title: "A".into(),
        submission: "s".into(),
        submission_files: Vec::new(),
        submission_notes: Vec::new(),
        visible_only: false,
        only: Vec::new(),
        cases_root: "cases".into(),
        containment: Containment::Full,
        programs_ran_as_grader: false,
        dice_seed: None,
        score: 0.0,
        max_score: 0.0,
        hidden: None,
        pending: Vec::new(),
        late_points: 0.0,
        builds: Vec::new(),
        probe: None,
        categories: Vec::new(),
        cases,
    }
}

#[test]
fn students_see_of_a_hidden_case_only_its_category_verdict_and_points() {
    let full = report(vec![
        failing_case("visible", Visibility::Visible, Disclosure::Diff),
        failing_case("captures/secret", Visibility::Hidden, Disclosure::Diff),
    ]);
    let view = full.student_view();
    assert_eq!(view.cases[0], full.cases[0]);
    let hidden = &view.cases[1];
    assert_eq!((hidden.id.as_str(), hidden.title.as_str()), ("moves/hidden-1", HIDDEN_CASE_TITLE));
    assert_eq!((hidden.status, hidden.score, hidden.max_score), (CaseStatus::Failed, 1.0, 2.0));
    let json = render_json(&Report { cases: vec![hidden.clone()], ..view.clone() });
    assert!(!json.contains("SECRET") && !json.contains("captures/secret"), "{json}");
}

#[test]
fn an_output_only_case_never_shows_an_expected_line() {
    let view = report(vec![failing_case("v", Visibility::Visible, Disclosure::Output)]).student_view();
    let json = render_json(&view);
    assert!(!json.contains("SECRET LINE"), "{json}");
    let case = &view.cases[0];
    assert_eq!(case.divergence.as_ref().unwrap().actual.as_deref(), Some("mine"));
    assert_eq!(
        case.note.as_deref(),
        Some("presentation error: missing space (2 places, first at expected line 3)")
    );
    assert!(case.input.is_some());
}

#[test]
fn a_verdict_only_case_keeps_its_status_and_points() {
    let view = report(vec![failing_case("v", Visibility::Visible, Disclosure::Verdict)]).student_view();
    let case = &view.cases[0];
    assert_eq!((case.id.as_str(), case.status, case.score), ("v", CaseStatus::Failed, 1.0));
    assert!(case.note.is_none() && case.divergence.is_none() && case.diff.is_none() && case.input.is_none());
    assert!(case.stderr.is_none() && case.reproduce.is_none());
}

#[test]
fn a_failing_bonus_case_does_not_fail_the_report_but_any_other_does() {
    let mut report = test_support::bonus_report();
    assert!(report.all_passed(), "only the bonus case cube/take failed");
    assert_eq!(report.bonus_points(), (2.5, 5.0));
    assert_eq!(report.bonus_phrase().as_deref(), Some("including 2.50 of 5.00 bonus points"));
    report.cases[0].status = CaseStatus::Failed;
    assert!(!report.all_passed());
}

#[test]
fn a_report_without_bonus_categories_says_nothing_of_bonus() {
    let mut report = test_support::bonus_report();
    report.categories[1].bonus = false;
    assert!(!report.all_passed());
    assert_eq!(report.bonus_points(), (0.0, 0.0));
    assert_eq!(report.bonus_phrase(), None);
    let json = render_json(&report);
    assert!(!json.contains("bonus"), "{json}");
}

#[test]
fn the_bonus_flag_survives_json_and_the_student_view_and_old_reports_still_load() {
    let report = test_support::bonus_report();
    let json = render_json(&report.student_view());
    assert!(json.contains("\"bonus\": true"), "{json}");
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report.student_view());
    assert!(back.categories[1].bonus && back.is_bonus("cube") && !back.is_bonus("play"));

    // A report written before bonus categories existed: no `bonus` keys anywhere.
    let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
    old["categories"][1].as_object_mut().unwrap().remove("bonus");
    let old: Report = serde_json::from_value(old).unwrap();
    assert!(!old.categories[1].bonus);
}

/// A case forgiven by the rubric's costly rewrite, as `grade` reports it.
fn rewritten_case(disclosure: Disclosure) -> CaseReport {
    let forgiven = Forgiven {
        what: "the board's labels".into(),
        count: 9,
        unit: crate::compare::Unit::Line,
        expected_line: 3,
        expected: "SECRET ROW".into(),
    };
    CaseReport {
        lenient_rewrite: Some("the board's labels".into()),
        note: Some(format!("presentation error, 60%: matched only when ignoring {}", forgiven.describe())),
        forgiven: vec![forgiven],
        disclosure,
        ..test_support::case("display/start", "display", CaseStatus::Passed, 3.0)
    }
}

#[test]
fn a_rewrite_forgiven_survives_json_and_the_student_view_and_old_reports_still_load() {
    let full = report(vec![rewritten_case(Disclosure::Diff)]);
    let json = render_json(&full);
    assert!(
        json.contains("\"lenient_rewrite\": \"the board's labels\"") && json.contains("\"unit\": \"line\"")
    );
    assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), full);

    // Students who may not see expected lines see where, not what.
    let view = report(vec![rewritten_case(Disclosure::Output)]).student_view();
    let note = view.cases[0].note.as_deref().unwrap();
    assert!(note.ends_with("ignoring the board's labels (9 lines, first at expected line 3)"), "{note}");

    // Reports of other cases, and of earlier versions, have neither key.
    let plain = render_json(&report(vec![failing_case("v", Visibility::Visible, Disclosure::Diff)]));
    assert!(!plain.contains("lenient_rewrite") && !plain.contains("\"unit\""), "{plain}");
    let mut old: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert!(old["cases"][0]["forgiven"][0].as_object_mut().unwrap().remove("unit").is_none());
    let old: Report = serde_json::from_value(old).unwrap();
    assert_eq!(
        (old.cases[0].lenient_rewrite.as_deref(), old.cases[0].forgiven[0].unit),
        (None, crate::compare::Unit::Place)
    );
}

#[test]
fn hidden_bonus_cases_are_counted_apart() {
    let plain = HiddenCases { cases: 1, points: 2.5, bonus_points: 0.0 };
    assert_eq!(plain.describe(), "1 hidden case worth 2.50 points");
    assert!(!serde_json::to_string(&plain).unwrap().contains("bonus"));
    let with_bonus = HiddenCases { cases: 3, points: 2.5, bonus_points: 5.0 };
    assert_eq!(with_bonus.describe(), "3 hidden cases worth 2.50 points (and 5.00 bonus points)");
    let old: HiddenCases = serde_json::from_str(r#"{"cases": 2, "points": 1.0}"#).unwrap();
    assert_eq!(old.bonus_points, 0.0);
}

#[test]
fn a_fence_is_longer_than_any_backtick_run_inside() {
    assert_eq!(markdown_fence("a ````` b"), "``````text\na ````` b\n``````\n");
    assert_eq!(markdown_fence("plain\n"), "```text\nplain\n```\n");
}

#[test]
fn a_json_report_holds_no_raw_control_character_and_reads_back_the_same() {
    let report = test_support::hostile_report();
    let json = render_json(&report);
    assert!(!json.chars().any(|c| c.is_control() && c != '\n'), "{json:?}");
    assert!(json.contains(r"\u001b[2J\u001b]0;pwned\u0007\r<img src=x onerror=alert(1)> ``` | \u009b31m"));
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    let marks = Report { submission: "a\u{7f}b\u{202e}c".to_owned(), ..report };
    assert!(render_json(&marks).contains(r#""submission": "a\u007fb\u202ec","#));
}

#[test]
fn a_fence_shows_control_characters_and_keeps_tabs_and_lines() {
    assert_eq!(markdown_fence("\x1b[2J```\r\n\tnext\x07"), "````text\n\\e[2J```\\r\n\tnext\\x07\n````\n");
}

#[test]
fn a_class_report_shows_the_gradebooks_total_with_hand_grades_and_the_late_penalty() {
    // 70 of 80 automated; style 6 of 10 given, survey 10 pending; 7.60 off for lateness.
    let mut report = report(Vec::new());
    (report.score, report.max_score) = (70.0, 80.0);
    report.pending = ["style", "survey"]
        .iter()
        .map(|id| PendingCategory { id: (*id).into(), title: "t".into(), points: 10.0, given: None })
        .collect();
    assert_eq!(report.total_with_hand_grades(), None, "nothing given, nothing taken off");
    report.pending[0].given = Some(HandGrade { points: 6.0, comment: Some("no function comments".into()) });
    report.late_points = 7.6;
    assert_eq!(report.total_with_hand_grades(), Some((68.4, 100.0)));
    let styled = render_text(&report, TextOptions { diffs: false, verbosity: Verbosity::Normal });
    // Without the terminal's styles.
    let mut text = String::new();
    let mut rest = styled.as_str();
    while let Some(at) = rest.find('\x1b') {
        text.push_str(&rest[..at]);
        rest = rest[at..].split_once('m').map_or("", |(_, after)| after);
    }
    text.push_str(rest);
    assert!(
        text.contains(
            "Score: 68.40 / 100.00 with the hand grades (70.00 / 80.00 automated; 7.60 off for lateness); 10 of them graded by hand, not given yet"
        ),
        "{text}"
    );
    assert!(text.contains("6.00 /  10.00   graded by hand  t: no function comments"), "{text}");
    let markdown = render_markdown(&report);
    assert!(
        markdown.contains(
            ": 68.40 / 100.00 points with the hand grades (70.00 / 80.00 automated; 7.60 off for lateness)"
        ),
        "{markdown}"
    );
    // Kept through JSON; an older report without them still loads.
    let back: Report = serde_json::from_str(&render_json(&report)).unwrap();
    assert_eq!((back.late_points, back.pending[0].given.clone()), (7.6, report.pending[0].given.clone()));
}
