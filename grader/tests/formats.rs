//! The CI formats of real gradings: JUnit XML that parses with the right counts, and the Markdown step
//! summary as a snapshot.

mod common;

use std::collections::BTreeSet;

use common::{grade_fixture, junit_suites as suites, losing};
use grader::report::{render_junit, render_markdown, Report};

/// The Markdown summary without what changes from run to run (none is expected: it holds no times or
/// machine paths, and this checks that it stays so).
fn stable_markdown(report: &Report) -> String {
    let markdown = render_markdown(report);
    let repo = common::repo().canonicalize().unwrap();
    assert!(!markdown.contains(&*repo.to_string_lossy()), "a machine path in the summary:\n{markdown}");
    markdown
}

#[test]
fn the_correct_trouble_submission_passes_every_junit_case() {
    let report = grade_fixture("trouble", "correct");
    let suites = suites(&render_junit(&report));
    let names: Vec<&str> = suites.iter().map(|s| s.0.as_str()).collect();
    let categories: Vec<&str> = report.categories.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(names, categories, "one suite per automated category, in rubric order");
    assert_eq!(suites.iter().map(|s| s.1).sum::<usize>(), report.cases.len());
    assert!(suites.iter().all(|s| s.2 == 0 && s.3 == 0), "{suites:?}");
    insta::assert_snapshot!("markdown-trouble-correct", stable_markdown(&report));
}

#[test]
fn a_trouble_bug_fails_junit_cases_only_where_it_loses_points() {
    let report = grade_fixture("trouble", "bug-land-on-own");
    let xml = render_junit(&report);
    let suites = suites(&xml);
    let failing: BTreeSet<&str> = suites.iter().filter(|s| s.2 + s.3 > 0).map(|s| s.0.as_str()).collect();
    assert_eq!(failing, losing(&report));
    assert!(suites.iter().all(|s| s.3 == 0), "no build or grader errors: {suites:?}");
    // Neither the hidden cases' ids nor their first differences reach the XML (unless a visible case
    // shows the same line in its own).
    let (hidden, visible): (Vec<_>, Vec<_>) =
        report.cases.iter().partition(|c| c.visibility == grader::load::Visibility::Hidden);
    let lines = |case: &grader::report::CaseReport| -> Vec<String> {
        let d = case.divergence.as_ref();
        d.into_iter().flat_map(|d| [d.expected.clone(), d.actual.clone()]).flatten().collect()
    };
    let shown_by_visible = |line: &str| {
        visible
            .iter()
            .any(|c| lines(c).iter().any(|l| l == line) || c.diff.as_ref().is_some_and(|d| d.contains(line)))
    };
    let mut checked = 0;
    for case in hidden {
        assert!(!xml.contains(&case.id), "{}", case.id);
        for line in lines(case).into_iter().filter(|l| !l.trim().is_empty() && !shown_by_visible(l)) {
            assert!(!xml.contains(&line), "{line:?} of hidden {}", case.id);
            checked += 1;
        }
    }
    assert!(checked > 0, "the fixture fails some hidden case on a line no visible case shows");
    insta::assert_snapshot!("markdown-trouble-bug-land-on-own", stable_markdown(&report));
}

#[test]
fn on_github_actions_the_markdown_format_also_annotates_the_failures_on_stderr() {
    let cache = tempfile::tempdir().unwrap();
    let grade = |github: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .args([
                "grade",
                "fixtures/trouble/bug-land-on-own",
                "--assignment",
                "trouble",
                "--format",
                "markdown",
            ])
            .current_dir(common::repo())
            .env("GRADER_CACHE_DIR", cache.path())
            .env("GITHUB_ACTIONS", github)
            .output()
            .expect("the grader runs")
    };
    let on_github = grade("true");
    assert!(on_github.status.success());
    let stderr = String::from_utf8(on_github.stderr).unwrap();
    let commands: Vec<&str> = stderr.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 7, "one error per failing case:\n{stderr}");
    assert!(commands.contains(&"::error title=printMoves/hidden-1::failed: 0.00 / 0.80 points"), "{stderr}");
    assert!(String::from_utf8(on_github.stdout).unwrap().starts_with("## Trouble on the course template"));
    let elsewhere = grade("false");
    assert!(!String::from_utf8(elsewhere.stderr).unwrap().contains("::error"));
}
