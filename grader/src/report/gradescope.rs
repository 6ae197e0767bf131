//! The Gradescope renderer of a [`Report`]: the `results.json` an autograder leaves in
//! `/autograder/results/`, one test per case. Hidden cases show only that they exist, their
//! category and their points; visible ones their verdict and first difference, in Markdown.
//!
//! Every output is declared `md`, which Gradescope renders to HTML: text a student controls (notes,
//! their program's lines) is escaped as Markdown that holds no HTML, and blocks (compiler messages,
//! first differences) go in fences longer than any run of backticks inside them.

use serde::Serialize;

use super::escape::markdown_inline;
use super::{markdown_fence, CaseReport, Report};
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
        out.push_str(&markdown_inline(note));
        out.push_str("\n\n");
    }
    if let Some(block) = super::plain_first_difference(case, report) {
        out.push_str(&markdown_fence(&block));
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
            // A fixed ``` fence would end at the first ``` in the student's source, quoted by gcc.
            output.push_str(&format!(
                "**The `{}` build failed:**\n\n{}\n",
                build.recipe,
                markdown_fence(build.log.trim_end())
            ));
        }
    }
    if let Some(probe) = &report.probe {
        output.push_str(&format!("**{}:**\n\n", markdown_inline(&probe.title)));
        for line in &probe.lines {
            output.push_str(&format!("- {}\n", markdown_inline(line)));
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
        output: format!("The autograder could not grade this submission:\n\n{}", markdown_fence(message)),
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
    use crate::report::test_support::{hostile_report, outside_fences};

    #[test]
    fn student_text_in_results_json_is_markdown_without_html_or_open_fences() {
        let results: serde_json::Value = serde_json::from_str(&render_gradescope(&hostile_report())).unwrap();
        assert_eq!(results["output_format"], "md");
        let tests = results["tests"].as_array().unwrap();
        let mut outputs = vec![results["output"].as_str().unwrap()];
        outputs.extend(tests.iter().map(|t| t["output"].as_str().unwrap()));
        for output in outputs {
            for line in outside_fences(output) {
                assert!(!line.contains("<img") && !line.contains("```"), "{line:?} in {output}");
            }
            assert!(!output.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{output:?}");
        }
        let top = results["output"].as_str().unwrap();
        // gcc quotes the student's ``` in its message: the fence is one backtick longer.
        assert!(
            top.contains(
                "**The `driver` build failed:**\n\n````text\nmain.c:9:1: error: expected ';' \\e[2J"
            ),
            "{top}"
        );
        let probe = r"- \\e\[2J\\e\]0;pwned\\x07\\r&lt;img src=x onerror=alert(1)&gt; \`\`\` \| \\u{9b}31m";
        assert!(top.contains(&format!("{probe}\n")), "{top}");
        let failing = tests[0]["output"].as_str().unwrap();
        assert!(
            failing.starts_with(r"exited with status 3; \\e\[2J\\e\]0;pwned\\x07\\r&lt;img "),
            "{failing}"
        );
    }

    #[test]
    fn a_failure_message_cannot_close_its_block() {
        let message = "archive `x`\n```\n<script>alert(1)</script>\x1b[2J";
        let results: serde_json::Value = serde_json::from_str(&render_gradescope_failure(message)).unwrap();
        let output = results["output"].as_str().unwrap();
        assert_eq!(outside_fences(output), ["The autograder could not grade this submission:", ""]);
        assert!(output.ends_with("<script>alert(1)</script>\\e[2J\n````\n"), "{output}");
    }

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
