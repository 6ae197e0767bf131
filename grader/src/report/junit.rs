//! The JUnit XML renderer of a [`Report`], for CI pipelines: one test suite per automated rubric
//! category, one test case per case. Hidden cases show only their verdict, category and points;
//! visible failures their note, first difference and a bounded diff.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::{bounded, BuildStatus, CaseReport, CaseStatus, Report};
use crate::load::Visibility;

/// Bytes of text kept per case (failure body and standard error together): a CI page with a hundred
/// failing cases stays readable, and the JSON report has everything.
const MAX_CASE_BODY: usize = 4096;

/// Bytes of the program's standard error kept per case, out of [`MAX_CASE_BODY`].
const MAX_CASE_STDERR: usize = 1024;

/// Renders a report as JUnit XML.
pub fn render_junit(report: &Report) -> String {
    // CI pages are read by students: only what they may see.
    let report = &report.student_view();
    let mut junit = quick_junit::Report::new(xml_text(&report.title));
    // Categories in rubric order; a case of a category the rubric does not list (not expected) still
    // gets a suite, after the others, rather than vanishing.
    let mut categories: Vec<&str> = report.categories.iter().map(|c| c.id.as_str()).collect();
    for case in &report.cases {
        if !categories.contains(&case.category.as_str()) {
            categories.push(&case.category);
        }
    }
    let mut total_time = Duration::ZERO;
    for category in categories {
        let suite = category_suite(report, category);
        total_time += suite.time.unwrap_or_default();
        junit.add_test_suite(suite);
    }
    junit.set_time(total_time);
    junit.to_string().expect("a JUnit report always serialises to a string")
}

/// The suite of one category: its cases, its points and the report's totals as properties.
fn category_suite(report: &Report, category: &str) -> TestSuite {
    let mut suite = TestSuite::new(xml_text(category));
    if let Some(c) = report.categories.iter().find(|c| c.id == category) {
        suite.add_property(Property::new("title", xml_text(&c.title)));
        suite.add_property(Property::new("score", points(c.score)));
        suite.add_property(Property::new("max_score", points(c.max_score)));
        suite.add_property(Property::new("passed", c.passed.to_string()));
        if c.bonus {
            suite.add_property(Property::new("bonus", "true"));
        }
    }
    // The report has no properties of its own in JUnit: every suite carries the totals, so that a
    // CI page showing one suite still shows the grade it belongs to.
    suite.add_property(Property::new("assignment", xml_text(&report.assignment)));
    suite.add_property(Property::new("submission", xml_text(&report.submission)));
    suite.add_property(Property::new("total_score", points(report.score)));
    suite.add_property(Property::new("total_max_score", points(report.max_score)));
    if report.categories.iter().any(|c| c.bonus) {
        // The bonus points inside `total_score`, which `total_max_score` does not count.
        suite.add_property(Property::new("total_bonus_score", points(report.bonus_points().0)));
    }
    let pending: f64 = report.pending.iter().map(|p| p.points).sum();
    suite.add_property(Property::new("pending_points", points(pending)));
    suite.add_property(Property::new("visible_only", report.visible_only.to_string()));
    if let Some(hidden) = &report.hidden {
        suite.add_property(Property::new("hidden_cases_not_run", hidden.cases.to_string()));
        suite.add_property(Property::new("hidden_points_not_run", points(hidden.points)));
        if hidden.bonus_points > 0.0 {
            suite.add_property(Property::new("hidden_bonus_points_not_run", points(hidden.bonus_points)));
        }
    }
    suite.add_property(Property::new("containment", report.containment.to_string()));
    suite.add_property(Property::new("grader_version", xml_text(&report.grader_version)));

    let mut time = Duration::ZERO;
    for case in report.cases.iter().filter(|c| c.category == category) {
        let test_case = if case.visibility == Visibility::Hidden {
            hidden_case(report, case)
        } else {
            visible_case(report, case)
        };
        time += test_case.time.unwrap_or_default();
        suite.add_test_case(test_case);
    }
    suite.set_time(time);
    suite
}

/// Points as written everywhere in this report: two decimals.
fn points(value: f64) -> String {
    format!("{value:.2}")
}

/// One word (or two) for a status; `partial` for a match that kept only part of the points.
pub(super) fn status_word(case: &CaseReport) -> &'static str {
    match case.status {
        CaseStatus::Passed if case.full_marks() => "passed",
        CaseStatus::Passed => "partial",
        CaseStatus::Failed => "failed",
        CaseStatus::Timeout => "timed out",
        CaseStatus::Crashed => "crashed",
        CaseStatus::OutputLimit => "output limit",
        CaseStatus::LimitExceeded => "limit exceeded",
        CaseStatus::BuildError => "build error",
        CaseStatus::Error => "grader error",
    }
}

/// The machine-readable `type` of a non-success: the status as the JSON report spells it.
fn status_type(case: &CaseReport) -> &'static str {
    match case.status {
        CaseStatus::Passed => "partial",
        CaseStatus::Failed => "failed",
        CaseStatus::Timeout => "timeout",
        CaseStatus::Crashed => "crashed",
        CaseStatus::OutputLimit => "output_limit",
        CaseStatus::LimitExceeded => "limit_exceeded",
        CaseStatus::BuildError => "build_error",
        CaseStatus::Error => "error",
    }
}

/// The test case's status with no text but the verdict and the points.
fn bare_status(report: &Report, case: &CaseReport) -> TestCaseStatus {
    if case.full_marks() {
        return TestCaseStatus::success();
    }
    // A build error or the grader's own failure is not a wrong answer: JUnit's `error`.
    let kind = match case.status {
        CaseStatus::BuildError | CaseStatus::Error => NonSuccessKind::Error,
        _ => NonSuccessKind::Failure,
    };
    let mut status = TestCaseStatus::non_success(kind);
    status.set_message(format!(
        "{}: {} / {} {}",
        status_word(case),
        points(case.score),
        points(case.max_score),
        if report.is_bonus(&case.category) { "bonus points" } else { "points" }
    ));
    status.set_type(status_type(case));
    status
}

/// The `classname` of every case of a category: assignment and category, as a dotted path.
fn classname(report: &Report, case: &CaseReport) -> String {
    xml_text(&format!("{}.{}", report.assignment, case.category))
}

/// A test case with the fields every case shows: classname, time and points.
fn common_case(report: &Report, case: &CaseReport, name: String, status: TestCaseStatus) -> TestCase {
    let mut test_case = TestCase::new(name, status);
    test_case.set_classname(classname(report, case));
    if let Some(ms) = case.time_ms {
        test_case.set_time(Duration::from_millis(ms));
    }
    test_case.add_property(Property::new("score", points(case.score)));
    test_case.add_property(Property::new("max_score", points(case.max_score)));
    test_case
}

/// A hidden case: its verdict, category and points only.
fn hidden_case(report: &Report, case: &CaseReport) -> TestCase {
    common_case(report, case, xml_text(&case.id), bare_status(report, case))
}

/// A visible case: for a failure, what happened and where the output first differs.
fn visible_case(report: &Report, case: &CaseReport) -> TestCase {
    let mut status = bare_status(report, case);
    let mut stderr = None;
    if !case.full_marks() {
        let kept_stderr = case.stderr.as_deref().map(|s| bounded(&xml_text(s), MAX_CASE_STDERR));
        let stderr_len = kept_stderr.as_ref().map_or(0, String::len);
        status.set_description(bounded(&failure_body(report, case), MAX_CASE_BODY - stderr_len));
        stderr = kept_stderr;
    }
    let mut test_case = common_case(report, case, xml_text(&case.id), status);
    test_case.add_property(Property::new("title", xml_text(&case.title)));
    if let Some(stderr) = stderr {
        test_case.set_system_err(stderr);
    }
    test_case
}

/// The text of a visible case's failure: the note, the first difference, the failed build's messages
/// or the diff; already made safe for XML.
fn failure_body(report: &Report, case: &CaseReport) -> String {
    let mut body = String::new();
    if let Some(note) = &case.note {
        body.push_str(note);
        body.push('\n');
    }
    if let Some(block) = super::plain_first_difference(case, report) {
        body.push('\n');
        body.push_str(&block);
    }
    if case.status == CaseStatus::BuildError {
        for log in failed_build_logs(report, case) {
            body.push('\n');
            body.push_str(log.trim_end());
            body.push('\n');
        }
    }
    if let Some(diff) = &case.diff {
        body.push('\n');
        body.push_str(diff);
    }
    xml_text(&body)
}

/// The logs of the failed builds a case could not run for: the one its note names (the grader writes
/// "the `game` build failed"), else every failed build; the same log only once.
fn failed_build_logs<'r>(report: &'r Report, case: &CaseReport) -> Vec<&'r str> {
    let failed: Vec<_> = report.builds.iter().filter(|b| b.status == BuildStatus::Error).collect();
    let note = case.note.as_deref().unwrap_or("");
    let named: Vec<_> = failed.iter().filter(|b| note.contains(&format!("`{}`", b.recipe))).collect();
    let chosen = if named.is_empty() { failed.iter().collect() } else { named };
    let mut logs: Vec<&str> = Vec::new();
    for build in chosen {
        if !logs.contains(&build.log.as_str()) {
            logs.push(&build.log);
        }
    }
    logs
}

/// `text` with every character XML 1.0 forbids (C0 controls but tab, line feed and carriage return;
/// U+FFFE, U+FFFF), and every other control character but line feed, written visibly (`\x07`, `\e`,
/// `\r`, `\t`, `\u{fffe}`). quick-junit would drop the forbidden ones silently, and ANSI escapes,
/// carriage returns and tabs with them; a stray escape or a tab for a space is often exactly why an
/// output does not match, so it stays in sight.
fn xml_text(text: &str) -> String {
    super::escape::inert(text, &['\n'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Divergence;
    use crate::report::{BuildReport, CategoryReport};
    use crate::run::Containment;

    const SECRET: &str = "the hidden transcript's secret line";

    /// A report with two categories: `moves` (a visible pass, a visible failure full of hostile text,
    /// a hidden failure whose expected line is a secret) and `board` (a partial pass, a build error).
    fn hostile_report() -> Report {
        let case = crate::report::test_support::case;
        let hostile =
            "bell\x07 nul\0 esc\x1b[31m ]]> </testcase> <script>alert(1)</script> & \u{fffd} \u{ffff} cr\r";
        let mut failing = case("moves/hostile", "moves", CaseStatus::Failed, 3.0);
        failing.note = Some(format!("the program printed {hostile}"));
        failing.divergence = Some(Divergence {
            line: 7,
            expected_line: 6,
            expected: Some("Red moves".to_owned()),
            actual: Some(hostile.to_owned()),
        });
        failing.diff = Some(format!("-Red moves\n+{hostile}\n{}", "+flood\n".repeat((5 << 20) / 7)));
        failing.stderr = Some(format!("{hostile}\n{}", "é".repeat(4000)));
        let mut hidden = case("moves/secret-case-name", "moves", CaseStatus::Failed, 0.0);
        hidden.visibility = Visibility::Hidden;
        hidden.title = format!("title {SECRET}");
        hidden.note = Some(format!("note {SECRET}"));
        hidden.divergence = Some(Divergence {
            line: 1,
            expected_line: 1,
            expected: Some(SECRET.to_owned()),
            actual: Some("nope".to_owned()),
        });
        hidden.diff = Some(format!("-{SECRET}\n+nope\n"));
        hidden.stderr = Some(SECRET.to_owned());
        let mut partial = case("board/spacing", "board", CaseStatus::Passed, 4.5);
        partial.note = Some("a presentation error".to_owned());
        let mut not_built = case("board/not-built", "board", CaseStatus::BuildError, 0.0);
        not_built.note = Some("the `driver` build failed".to_owned());
        not_built.time_ms = None;
        Report {
            package: None,
            only: Vec::new(),
            cases_root: "cases".into(),
            grader_version: "0.1.0".to_owned(),
            assignment: "demo".to_owned(),
            title: "Demo | <b>game</b>".to_owned(),
            submission: "students/ada".to_owned(),
            submission_files: vec!["main.c".to_owned()],
            submission_notes: Vec::new(),
            visible_only: false,
            containment: Containment::Full,
            programs_ran_as_grader: false,
            dice_seed: None,
            score: 12.5,
            max_score: 20.0,
            hidden: None,
            pending: Vec::new(),
            late_points: 0.0,
            builds: vec![BuildReport {
                recipe: "driver".to_owned(),
                status: BuildStatus::Error,
                cached: false,
                log: "main.c:3: error: expected ';' before '}' <token>\n".to_owned(),
                seconds: 0.2,
                hint: None,
            }],
            probe: None,
            categories: vec![
                CategoryReport {
                    id: "moves".to_owned(),
                    title: "Moves | <i>all</i>".to_owned(),
                    score: 8.0,
                    max_score: 15.0,
                    passed: 1,
                    cases: 3,
                    bonus: false,
                },
                CategoryReport {
                    id: "board".to_owned(),
                    title: "Board".to_owned(),
                    score: 4.5,
                    max_score: 10.0,
                    passed: 1,
                    cases: 2,
                    bonus: false,
                },
            ],
            cases: vec![
                case("moves/plain", "moves", CaseStatus::Passed, 5.0),
                failing,
                hidden,
                partial,
                not_built,
            ],
        }
    }

    fn attribute<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> &'a str {
        node.attribute(name).unwrap_or_else(|| panic!("{name} on {node:?}"))
    }

    #[test]
    fn a_bonus_suite_says_so_and_every_suite_names_the_bonus_in_the_total() {
        let xml = render_junit(&crate::report::test_support::bonus_report());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let suites: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testsuite")).collect();
        let property = |suite: roxmltree::Node<'_, '_>, name: &str| {
            properties(suite).into_iter().find(|(n, _)| n == name).map(|(_, v)| v)
        };
        let (play, cube) = (suites[0], suites[1]);
        assert_eq!(attribute(cube, "name"), "cube");
        assert_eq!(property(cube, "bonus").as_deref(), Some("true"));
        assert_eq!(property(play, "bonus"), None);
        for suite in [play, cube] {
            assert_eq!(property(suite, "total_score").as_deref(), Some("7.50"));
            assert_eq!(property(suite, "total_max_score").as_deref(), Some("5.00"));
            assert_eq!(property(suite, "total_bonus_score").as_deref(), Some("2.50"));
        }
        let failure = doc.descendants().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(attribute(failure, "message"), "failed: 0.00 / 2.50 bonus points");
    }

    fn properties(node: roxmltree::Node<'_, '_>) -> Vec<(String, String)> {
        node.children()
            .filter(|n| n.has_tag_name("properties"))
            .flat_map(|p| p.children().filter(|n| n.has_tag_name("property")))
            .map(|p| (attribute(p, "name").to_owned(), attribute(p, "value").to_owned()))
            .collect()
    }

    #[test]
    fn hostile_output_still_makes_well_formed_xml_with_the_right_counts() {
        let xml = render_junit(&hostile_report());
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let root = doc.root_element();
        assert!(root.has_tag_name("testsuites"));
        assert_eq!(attribute(root, "tests"), "5");
        assert_eq!(attribute(root, "failures"), "3");
        assert_eq!(attribute(root, "errors"), "1");
        let suites: Vec<_> = root.children().filter(|n| n.has_tag_name("testsuite")).collect();
        let summary: Vec<_> = suites
            .iter()
            .map(|s| {
                (
                    attribute(*s, "name"),
                    attribute(*s, "tests"),
                    attribute(*s, "failures"),
                    attribute(*s, "errors"),
                )
            })
            .collect();
        assert_eq!(summary, [("moves", "3", "2", "0"), ("board", "2", "1", "1")]);
        let cases: Vec<(&str, &str)> = suites
            .iter()
            .flat_map(|s| s.children().filter(|n| n.has_tag_name("testcase")))
            .map(|c| (attribute(c, "name"), attribute(c, "classname")))
            .collect();
        assert_eq!(
            cases,
            [
                ("moves/plain", "demo.moves"),
                ("moves/hostile", "demo.moves"),
                ("moves/hidden-1", "demo.moves"),
                ("board/spacing", "demo.board"),
                ("board/not-built", "demo.board"),
            ]
        );
    }

    #[test]
    fn points_are_properties_of_each_case_and_totals_of_each_suite() {
        let xml = render_junit(&hostile_report());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        for suite in doc.descendants().filter(|n| n.has_tag_name("testsuite")) {
            let props = properties(suite);
            assert!(props.contains(&("total_score".to_owned(), "12.50".to_owned())), "{props:?}");
            assert!(props.contains(&("total_max_score".to_owned(), "20.00".to_owned())), "{props:?}");
            assert!(props.iter().any(|(name, _)| name == "max_score"));
        }
        let hostile = doc.descendants().find(|n| n.attribute("name") == Some("moves/hostile")).unwrap();
        let props = properties(hostile);
        assert!(props.contains(&("score".to_owned(), "3.00".to_owned())));
        assert!(props.contains(&("max_score".to_owned(), "5.00".to_owned())));
        assert_eq!(attribute(hostile, "time"), "1.500");
        let failure = hostile.children().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(attribute(failure, "message"), "failed: 3.00 / 5.00 points");
    }

    #[test]
    fn a_partial_pass_is_a_failure_and_a_build_error_an_error() {
        let xml = render_junit(&hostile_report());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let case = |name: &str| doc.descendants().find(|n| n.attribute("name") == Some(name)).unwrap();
        let partial = case("board/spacing").children().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(attribute(partial, "message"), "partial: 4.50 / 5.00 points");
        let error = case("board/not-built").children().find(|n| n.has_tag_name("error")).unwrap();
        assert_eq!(attribute(error, "message"), "build error: 0.00 / 5.00 points");
        // The compiler's messages are where a student looks: in the case that could not run.
        assert!(error.text().unwrap().contains("expected ';' before '}' <token>"));
        assert!(case("moves/plain").children().all(|n| !n.is_element() || n.has_tag_name("properties")));
    }

    #[test]
    fn control_characters_stay_visible_and_markup_stays_text() {
        let xml = render_junit(&hostile_report());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let hostile = doc.descendants().find(|n| n.attribute("name") == Some("moves/hostile")).unwrap();
        let body = hostile.children().find(|n| n.has_tag_name("failure")).unwrap().text().unwrap();
        assert!(
            body.contains(r"the program printed bell\x07 nul\x00 esc\e[31m ]]> </testcase> <script>"),
            "{body}"
        );
        assert!(body.contains("\u{fffd} \\u{ffff} cr\\r"), "{body}");
        assert!(!xml.contains("<script>"));
        assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
    }

    #[test]
    fn each_case_body_is_bounded_and_says_it_was_cut() {
        let xml = render_junit(&hostile_report());
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let hostile = doc.descendants().find(|n| n.attribute("name") == Some("moves/hostile")).unwrap();
        let body = hostile.children().find(|n| n.has_tag_name("failure")).unwrap().text().unwrap();
        let stderr = hostile.children().find(|n| n.has_tag_name("system-err")).unwrap().text().unwrap();
        assert!(body.len() + stderr.len() <= MAX_CASE_BODY, "{} + {}", body.len(), stderr.len());
        assert!(body.contains("[... cut: "), "{body}");
        assert!(stderr.contains("[... cut: "), "{stderr}");
        assert!(xml.len() < 64 * 1024, "5 MiB of diff left {} bytes", xml.len());
    }

    #[test]
    fn a_hidden_case_shows_only_its_verdict_category_and_points() {
        let xml = render_junit(&hostile_report());
        assert!(!xml.contains(SECRET), "{xml}");
        assert!(!xml.contains("secret-case-name"));
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let hidden = doc.descendants().find(|n| n.attribute("name") == Some("moves/hidden-1")).unwrap();
        let failure = hidden.children().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(attribute(failure, "message"), "failed: 0.00 / 5.00 points");
        assert_eq!(failure.text(), None);
        assert!(hidden.children().all(|n| !n.has_tag_name("system-err")));
    }

    #[test]
    fn the_xml_text_of_forbidden_characters_is_visible() {
        assert_eq!(
            xml_text("a\0b\x08c\x0bd\x0ce\x0ef\x1fg\th\ni\rj\x7fk\u{fffe}"),
            r"a\x00b\x08c\x0bd\x0ce\x0ef\x1fg\th
i\rj\x7fk\u{fffe}"
        );
    }

    #[test]
    fn every_control_character_anywhere_still_makes_parsable_xml() {
        let all: String =
            ('\0'..='\x1f').chain('\x7f'..='\u{9f}').chain(['\u{fffe}', '\u{ffff}', '\u{202e}']).collect();
        let mut report = hostile_report();
        report.title = format!("title {all}");
        report.assignment = format!("demo {all}");
        report.submission = format!("students/{all}");
        report.grader_version = all.clone();
        report.categories[0].title = all.clone();
        for case in &mut report.cases {
            case.id = format!("{}{all}", case.id);
            case.title = all.clone();
            case.category = format!("{}{all}", case.category);
            case.stderr = Some(all.clone());
        }
        report.categories[0].id = report.cases[0].category.clone();
        let xml = render_junit(&report);
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        assert_eq!(attribute(doc.root_element(), "tests"), "5");
        let err = doc.descendants().find(|n| n.has_tag_name("system-err")).unwrap().text().unwrap();
        assert!(
            err.starts_with("\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\t\n\\x0b\\x0c\\r\\x0e"),
            "{err}"
        );
        assert!(err.contains(r"\x1a\e\x1c") && err.ends_with(r"\u{9f}\u{fffe}\u{ffff}\u{202e}"), "{err}");
    }

    #[test]
    fn bounded_text_is_cut_on_a_character_boundary() {
        let text = "é".repeat(100);
        let cut = bounded(&text, 101);
        assert!(cut.len() <= 101);
        assert!(cut.starts_with("éé"));
        assert_eq!(bounded("short", 101), "short");
    }
}
