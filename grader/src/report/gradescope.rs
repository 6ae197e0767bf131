//! The Gradescope renderer of a [`Report`]: the `results.json` an autograder leaves in
//! `/autograder/results/`, one test per case. Hidden cases show only that they exist, their
//! category and their points; visible ones their verdict and first difference, in Markdown.

use serde::Serialize;

use super::{CaseReport, Report};
use crate::load::Visibility;

/// Gradescope's `results.json`.
#[derive(Debug, Serialize)]
struct Results {
    score: f64,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    visibility: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<Test>,
}

/// One entry of `tests`.
#[derive(Debug, Serialize)]
struct Test {
    name: String,
    number: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    output_format: &'static str,
    tags: Vec<String>,
    visibility: &'static str,
}

/// A visible case's output: what happened and where the output first differs.
fn case_output(case: &CaseReport, report: &Report) -> String {
    let mut out = String::new();
    if let Some(note) = &case.note {
        out.push_str(note);
        out.push_str("\n\n");
    }
    if let Some(block) = super::plain_first_difference(case, report) {
        out.push_str(&super::markdown_fence(&block));
    }
    out
}

/// Renders `results.json` for a grading.
///
/// The top-level `score` is the report's, bonus points included (Gradescope takes it over the sum of
/// the tests'). A test of a bonus case has `max_score` 0 and says its points in its name, so that the
/// tests' `max_score`s, which Gradescope adds up where it shows a maximum, stay the report's
/// `max_score`; a test's `score` above its `max_score` is accepted as extra credit.
pub fn render_gradescope(report: &Report) -> String {
    let report = &report.student_view();
    let tests = report
        .cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let hidden = case.visibility == Visibility::Hidden;
            let bonus = report.is_bonus(&case.category);
            // A hidden case's id is already `<category>/hidden-<n>` in the student view.
            let mut name = if hidden { case.id.clone() } else { format!("{}: {}", case.id, case.title) };
            let mut tags = vec![case.category.clone()];
            if bonus {
                name.push_str(&format!(" (bonus, up to {:.2} extra points)", case.max_score));
                tags.push("bonus".to_owned());
            }
            Test {
                name,
                number: (i + 1).to_string(),
                score: case.score,
                max_score: if bonus { 0.0 } else { case.max_score },
                status: if case.full_marks() { "passed" } else { "failed" },
                output: if hidden || case.full_marks() { String::new() } else { case_output(case, report) },
                output_format: "md",
                tags,
                visibility: "visible",
            }
        })
        .collect();
    let mut output = String::new();
    for build in &report.builds {
        if build.status == super::BuildStatus::Error {
            output.push_str(&format!(
                "**The `{}` build failed:**\n\n```text\n{}\n```\n\n",
                build.recipe,
                build.log.trim_end()
            ));
        }
    }
    if let Some(probe) = &report.probe {
        output.push_str(&format!("**{}:**\n\n", probe.title));
        for line in &probe.lines {
            output.push_str(&format!("- {line}\n"));
        }
        output.push('\n');
    }
    if let Some(bonus) = report.bonus_phrase() {
        output.push_str(&format!(
            "Score {:.2} of {:.2} points, {bonus} (an optional part, beyond the maximum).\n\n",
            report.score, report.max_score
        ));
    }
    if !report.pending.is_empty() {
        let pending: Vec<String> =
            report.pending.iter().map(|p| format!("{} ({} points)", p.title, p.points)).collect();
        output.push_str(&format!("Graded by hand later: {}.\n", pending.join(", ")));
    }
    let millis: u64 = report.cases.iter().filter_map(|c| c.time_ms).sum();
    let results = Results {
        score: report.score,
        execution_time: millis.div_ceil(1000),
        output,
        output_format: "md",
        visibility: "visible",
        stdout_visibility: "hidden",
        tests,
    };
    serde_json::to_string_pretty(&results).expect("a results file always serialises")
}

/// The `results.json` of a grading that could not be done: no points, and why, so that Gradescope
/// shows the student a message instead of a broken autograder.
pub fn render_gradescope_failure(message: &str) -> String {
    let results = Results {
        score: 0.0,
        execution_time: 0,
        output: format!("The autograder could not grade this submission:\n\n```text\n{message}\n```\n"),
        output_format: "md",
        visibility: "visible",
        stdout_visibility: "hidden",
        tests: Vec::new(),
    };
    serde_json::to_string_pretty(&results).expect("a results file always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonus_tests_add_to_the_score_and_nothing_to_the_maximum() {
        let results: serde_json::Value =
            serde_json::from_str(&render_gradescope(&crate::report::test_support::bonus_report())).unwrap();
        assert_eq!(results["score"], 7.5);
        let tests = results["tests"].as_array().unwrap();
        let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
        let score: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
        assert_eq!((score, max), (7.5, 5.0), "the tests add up to the report's score and maximum");

        let double = &tests[1];
        assert_eq!(double["name"], "cube/double: title of cube/double (bonus, up to 2.50 extra points)");
        assert_eq!((double["score"].as_f64(), double["max_score"].as_f64()), (Some(2.5), Some(0.0)));
        assert_eq!(double["tags"], serde_json::json!(["cube", "bonus"]));
        assert_eq!(double["status"], "passed");
        assert_eq!(tests[2]["status"], "failed");
        assert_eq!(tests[0]["tags"], serde_json::json!(["play"]));
        assert!(
            results["output"].as_str().unwrap().contains("Score 7.50 of 5.00 points, including 2.50 of 5.00"),
            "{results}"
        );
    }
}
