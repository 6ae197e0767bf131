//! The Gradescope renderer of a [`Report`]: the `results.json` an autograder leaves in
//! `/autograder/results/`, one test per case. Hidden cases show only that they exist, their
//! category and their points; visible ones their verdict and first difference, in Markdown.
//!
//! Every output is declared `md`, which Gradescope renders to HTML: text a student controls (notes,
//! their program's lines) is escaped as Markdown that holds no HTML, and blocks (compiler messages,
//! first differences) go in fences longer than any run of backticks inside them.
//!
//! Gradescope adds up the tests' points where it shows them. A report's case points are each rounded
//! to hundredths, and so are its totals, which are sums taken before rounding: 52 rounded cases can
//! miss the total by several hundredths. So the tests' points are apportioned (largest remainder, in
//! hundredths) to add up exactly to the report's score and maximum.

use serde::Serialize;

use super::escape::markdown_inline;
use super::{markdown_fence, CaseReport, Report};
use crate::load::Visibility;

/// When Gradescope shows students the tests of hidden cases (a test's `visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HiddenVisibility {
    /// Always (the verdict and points only, as every student-facing format shows a hidden case).
    #[default]
    Visible,
    /// Never: instructors alone see them.
    Hidden,
    /// Once the assignment's due date has passed.
    AfterDueDate,
    /// Once the instructor publishes the grades.
    AfterPublished,
}

impl HiddenVisibility {
    /// Every value, in the order the command line lists them.
    pub const ALL: [HiddenVisibility; 4] = [
        HiddenVisibility::Visible,
        HiddenVisibility::Hidden,
        HiddenVisibility::AfterDueDate,
        HiddenVisibility::AfterPublished,
    ];

    /// Gradescope's name of it, as `results.json` and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            HiddenVisibility::Visible => "visible",
            HiddenVisibility::Hidden => "hidden",
            HiddenVisibility::AfterDueDate => "after_due_date",
            HiddenVisibility::AfterPublished => "after_published",
        }
    }

    /// The value Gradescope names so, if any.
    pub fn from_name(name: &str) -> Option<HiddenVisibility> {
        HiddenVisibility::ALL.into_iter().find(|v| v.name() == name)
    }

    /// When students see the hidden tests, in words ("are shown after the due date").
    fn when(self) -> &'static str {
        match self {
            HiddenVisibility::Visible => "are shown",
            HiddenVisibility::Hidden => "are not shown",
            HiddenVisibility::AfterDueDate => "are shown after the due date",
            HiddenVisibility::AfterPublished => "are shown once the grades are published",
        }
    }
}

/// How `results.json` is written.
#[derive(Debug, Clone, Copy, Default)]
pub struct GradescopeOptions {
    /// When students see the tests of hidden cases.
    pub hidden_visibility: HiddenVisibility,
}

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

/// Hundredths of a point.
fn hundredths(points: f64) -> i64 {
    (points * 100.0).round() as i64
}

/// Splits `total` among shares in proportion to `weights` (Hamilton's largest-remainder method):
/// each share gets the whole part of its quota, and what is left goes one by one to the largest
/// remainders (ties to the larger weight, then the earlier share). A zero weight gets nothing.
/// `None` when every weight is zero and `total` is not.
fn apportion(weights: &[i64], total: i64) -> Option<Vec<i64>> {
    let sum: i128 = weights.iter().map(|&w| i128::from(w.max(0))).sum();
    if sum == 0 {
        return (total == 0).then(|| vec![0; weights.len()]);
    }
    let quotas: Vec<(i64, i128)> = weights
        .iter()
        .map(|&w| {
            let exact = i128::from(w.max(0)) * i128::from(total);
            (exact.div_euclid(sum) as i64, exact.rem_euclid(sum))
        })
        .collect();
    let mut shares: Vec<i64> = quotas.iter().map(|q| q.0).collect();
    let left = total - shares.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| quotas[b].1.cmp(&quotas[a].1).then(weights[b].cmp(&weights[a])).then(a.cmp(&b)));
    for &i in order.iter().take(usize::try_from(left).unwrap_or(0)) {
        shares[i] += 1;
    }
    Some(shares)
}

/// Each case's `(score, max_score)` in hundredths, adding up exactly to the report's score and
/// maximum. A bonus case's maximum is 0 (its points are beyond the maximum). Non-bonus cases share
/// the points earned in proportion to their scores and the points lost in proportion to their
/// losses, so a case at full marks stays at full marks and a case that earned nothing stays at 0;
/// bonus cases share what the bonus categories earned. Each case moves a hundredth or two at most.
fn test_points(report: &Report) -> Vec<(i64, i64)> {
    let bonus: Vec<bool> = report.cases.iter().map(|c| report.is_bonus(&c.category)).collect();
    let score = |c: &CaseReport| hundredths(c.score);
    let max = |c: &CaseReport| hundredths(c.max_score);
    let rounded: Vec<(i64, i64)> = report
        .cases
        .iter()
        .zip(&bonus)
        .map(|(c, &bonus)| (score(c), if bonus { 0 } else { max(c) }))
        .collect();
    let total = hundredths(report.score);
    let maximum = hundredths(report.max_score);
    let bonus_earned: i64 = report.categories.iter().filter(|c| c.bonus).map(|c| hundredths(c.score)).sum();
    let earned = (total - bonus_earned).clamp(0, maximum.max(0));
    let bonus_earned = total - earned;

    let (plain, extra): (Vec<usize>, Vec<usize>) = (0..report.cases.len()).partition(|&i| !bonus[i]);
    let pick = |indices: &[usize], f: &dyn Fn(&CaseReport) -> i64| -> Vec<i64> {
        indices.iter().map(|&i| f(&report.cases[i])).collect()
    };
    let scores = apportion(&pick(&plain, &score), earned).or_else(|| apportion(&pick(&plain, &max), earned));
    let losses = apportion(&pick(&plain, &|c| (max(c) - score(c)).max(0)), maximum - earned)
        .or_else(|| apportion(&pick(&plain, &max), maximum - earned));
    let extras = apportion(&pick(&extra, &score), bonus_earned)
        .or_else(|| apportion(&pick(&extra, &max), bonus_earned));
    let (Some(scores), Some(losses), Some(extras)) = (scores, losses, extras) else {
        // Nothing to share the totals among (no case at all): the rounded points as they are.
        return rounded;
    };
    let mut points = rounded;
    for (k, &i) in plain.iter().enumerate() {
        points[i] = (scores[k], scores[k] + losses[k]);
    }
    for (k, &i) in extra.iter().enumerate() {
        points[i] = (extras[k], 0);
    }
    points
}

/// Renders `results.json` for a grading, with every hidden test visible to students (verdict and
/// points only): [`render_gradescope_with`] with the default options.
pub fn render_gradescope(report: &Report) -> String {
    render_gradescope_with(report, &GradescopeOptions::default())
}

/// Renders `results.json` for a grading.
///
/// The top-level `score` is the report's, bonus points included (Gradescope takes it over the sum of
/// the tests'), and the tests' points add up to it and to the report's `max_score` exactly (see
/// [`test_points`]). A test of a bonus case has `max_score` 0 and says its points in its name, so
/// that the tests' `max_score`s, which Gradescope adds up where it shows a maximum, stay the
/// report's `max_score`; a test's `score` above its `max_score` is accepted as extra credit. The
/// tests of hidden cases have the visibility of `options`.
pub fn render_gradescope_with(report: &Report, options: &GradescopeOptions) -> String {
    let report = &report.student_view();
    let points = test_points(report);
    let tests = report
        .cases
        .iter()
        .zip(&points)
        .enumerate()
        .map(|(i, (case, &(score, max_score)))| {
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
                score: score as f64 / 100.0,
                max_score: max_score as f64 / 100.0,
                status: if case.full_marks() { "passed" } else { "failed" },
                output: if hidden || case.full_marks() { String::new() } else { case_output(case, report) },
                output_format: "md",
                tags,
                visibility: if hidden { options.hidden_visibility.name() } else { "visible" },
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
    let hidden: Vec<(&CaseReport, &(i64, i64))> =
        report.cases.iter().zip(&points).filter(|(c, _)| c.visibility == Visibility::Hidden).collect();
    if options.hidden_visibility != HiddenVisibility::Visible && !hidden.is_empty() {
        let worth: i64 = hidden.iter().map(|(_, p)| p.1).sum();
        let when = options.hidden_visibility.when();
        output.push_str(&format!(
            "{} hidden tests ({:.2} points) {when}.\n\n",
            hidden.len(),
            worth as f64 / 100.0
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

    #[test]
    fn largest_remainders_share_a_total_exactly() {
        // Three cases of 26.67 for a total of 80.00: one gives a hundredth back.
        assert_eq!(apportion(&[2667, 2667, 2667], 8000), Some(vec![2667, 2667, 2666]));
        // The remainders decide, not the size: quotas 99.9, 249.75 and 649.35.
        assert_eq!(apportion(&[100, 250, 650], 999), Some(vec![100, 250, 649]));
        assert_eq!(apportion(&[0, 300, 0], 301), Some(vec![0, 301, 0]), "a zero weight gets nothing");
        assert_eq!(apportion(&[0, 0], 0), Some(vec![0, 0]));
        assert_eq!(apportion(&[0, 0], 5), None);
        assert_eq!(apportion(&[], 0), Some(vec![]));
    }

    /// A report of 7 cases of 80/7 points each (11.43 rounded), six passed and one at half marks.
    fn sevenths() -> Report {
        use crate::points::round;
        use crate::report::test_support::case;
        use crate::report::CaseStatus;
        let seventh = 80.0 / 7.0;
        let mut report = crate::report::test_support::bonus_report();
        report.cases = (0..7)
            .map(|i| {
                let (status, score) =
                    if i == 3 { (CaseStatus::Failed, seventh / 2.0) } else { (CaseStatus::Passed, seventh) };
                CaseReport {
                    max_score: round(seventh),
                    ..case(&format!("play/{i}"), "play", status, round(score))
                }
            })
            .collect();
        report.categories.truncate(1);
        report.categories[0].max_score = 80.0;
        report.score = round(seventh * 6.5);
        report.max_score = 80.0;
        report
    }

    fn sums(results: &serde_json::Value) -> (i64, i64) {
        let tests = results["tests"].as_array().unwrap();
        let cents = |key: &str| tests.iter().map(|t| (t[key].as_f64().unwrap() * 100.0).round() as i64).sum();
        (cents("score"), cents("max_score"))
    }

    #[test]
    fn the_tests_points_add_up_to_the_reports_score_and_maximum_exactly() {
        let report = sevenths();
        let rounded: f64 = report.cases.iter().map(|c| c.max_score).sum();
        assert!((rounded - 80.01).abs() < 1e-9, "the rounded cases alone make {rounded}");
        let results: serde_json::Value = serde_json::from_str(&render_gradescope(&report)).unwrap();
        assert_eq!(sums(&results), (7429, 8000), "{results:#}");
        assert_eq!(results["score"], 74.29);
        for (test, case) in results["tests"].as_array().unwrap().iter().zip(&report.cases) {
            let (score, max) = (test["score"].as_f64().unwrap(), test["max_score"].as_f64().unwrap());
            assert!((max - case.max_score).abs() <= 0.011 && (score - case.score).abs() <= 0.011, "{test}");
            // Full marks stay full marks; the case at half marks stays below.
            assert_eq!(test["status"] == "passed", score == max, "{test}");
        }
        // Bonus points go to the bonus tests, whose maxima stay 0.
        let results: serde_json::Value =
            serde_json::from_str(&render_gradescope(&crate::report::test_support::bonus_report())).unwrap();
        assert_eq!(sums(&results), (750, 500));
    }

    #[test]
    fn hidden_tests_take_the_chosen_visibility_and_visible_ones_stay_visible() {
        let mut report = sevenths();
        report.cases[5].visibility = Visibility::Hidden;
        report.cases[6].visibility = Visibility::Hidden;
        for visibility in HiddenVisibility::ALL {
            assert_eq!(HiddenVisibility::from_name(visibility.name()), Some(visibility));
            let options = GradescopeOptions { hidden_visibility: visibility };
            let results: serde_json::Value =
                serde_json::from_str(&render_gradescope_with(&report, &options)).unwrap();
            let tests = results["tests"].as_array().unwrap();
            let shown: Vec<&str> = tests.iter().map(|t| t["visibility"].as_str().unwrap()).collect();
            let hidden = visibility.name();
            assert_eq!(shown, ["visible", "visible", "visible", "visible", "visible", hidden, hidden]);
            let output = results["output"].as_str().unwrap();
            if visibility == HiddenVisibility::AfterDueDate {
                assert!(
                    output.contains("2 hidden tests (22.86 points) are shown after the due date."),
                    "{output}"
                );
            }
            assert_eq!(output.contains("hidden tests"), visibility != HiddenVisibility::Visible, "{output}");
        }
        assert_eq!(HiddenVisibility::from_name("after-due-date"), None);
    }
}
