//! The GitHub renderers of a [`Report`]: Markdown for a workflow's step summary
//! (`$GITHUB_STEP_SUMMARY`), and workflow commands that annotate the run with its failures. Hidden
//! cases show only their verdict, category and points.

use std::fmt::Write as _;

use super::escape::{markdown_html as html, markdown_inline as inline};
use super::junit::status_word;
use super::{bounded, BuildStatus, CaseReport, CaseStatus, PendingCategory, Report};
use crate::load::Visibility;
use crate::run::Containment;

/// Bytes of the whole summary: GitHub refuses a step summary over 1 MiB, and other steps may add theirs.
const MAX_SUMMARY: usize = 512 * 1024;

/// Bytes of one fenced block (a build log, a diff).
const MAX_BLOCK: usize = 16 * 1024;

/// Bytes of one annotation's message, before escaping.
const MAX_ANNOTATION: usize = 4096;

/// Renders a report as Markdown for a GitHub Actions step summary, at most [`MAX_SUMMARY`] bytes.
pub fn render_markdown(report: &Report) -> String {
    // A step summary is read by students: only what they may see.
    let report = &report.student_view();
    let mut out = String::new();
    let scope = if report.visible_only { " (visible cases only)" } else { "" };
    let bonus = report.bonus_phrase().map_or_else(String::new, |b| format!(" ({b})"));
    match report.total_with_hand_grades() {
        Some((total, of)) => {
            let _ = writeln!(
                out,
                "## {}: {total:.2} / {of:.2} points with the hand grades ({:.2} / {:.2} automated{}){bonus}{scope}\n",
                inline(&report.title),
                report.score,
                report.max_score,
                report.late_phrase()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "## {}: {:.2} / {:.2} points{bonus}{scope}\n",
                inline(&report.title),
                report.score,
                report.max_score
            );
        }
    }
    let _ = writeln!(out, "Submission: {}\n", inline(&report.submission));
    if report.containment != Containment::Full {
        let user = if report.programs_ran_as_grader {
            "; they ran as the grader's own user, which is not root, and could reach all it can"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "**Containment: {}** (programs were not fully contained{user}; see `grader doctor`)\n",
            report.containment
        );
    }
    out.push_str("| category | points | cases passed | what it grades |\n|---|---:|---:|---|\n");
    for c in &report.categories {
        let bonus = if c.bonus { " (bonus)" } else { "" };
        let _ = writeln!(
            out,
            "| {}{bonus} | {:.2} / {:.2} | {} / {} | {} |",
            inline(&c.id),
            c.score,
            c.max_score,
            c.passed,
            c.cases,
            inline(&c.title)
        );
    }
    out.push('\n');
    let (given, pending): (Vec<&PendingCategory>, Vec<&PendingCategory>) =
        report.pending.iter().partition(|p| p.given.is_some());
    if !given.is_empty() {
        out.push_str("Graded by hand:\n\n");
        for p in given {
            let grade = p.given.as_ref().expect("partitioned by it");
            let comment = grade.comment.as_deref().map_or_else(String::new, |c| format!(" ({})", inline(c)));
            let _ = writeln!(
                out,
                "- {}: {:.2} / {:.2}: {}{comment}",
                inline(&p.id),
                grade.points,
                p.points,
                inline(&p.title)
            );
        }
        out.push('\n');
    }
    if !pending.is_empty() {
        out.push_str("Graded by hand, not in the points above:\n\n");
        for p in pending {
            let _ = writeln!(out, "- {} ({:.2} points): {}", inline(&p.id), p.points, inline(&p.title));
        }
        out.push('\n');
    }

    // Everything below may be long: each part goes in whole while it fits, and the self-check's
    // caveat, written last, always has its room.
    let caveat = self_check_caveat(report);
    let mut summary = Budget { out, limit: MAX_SUMMARY.saturating_sub(caveat.len() + 256), left_out: 0 };
    for part in build_parts(report) {
        summary.push(part);
    }
    if let Some(probe) = &report.probe {
        let mut part = format!("### {}\n\n", inline(&probe.title));
        if !probe.lines.is_empty() {
            part.push_str(&fenced("text", &probe.lines.join("\n")));
            part.push('\n');
        }
        if let Some(failure) = &probe.failure {
            let _ = writeln!(part, "Not found: {}\n", inline(failure));
        }
        summary.push(part);
    }
    for part in failing_parts(report) {
        summary.push(part);
    }
    let Budget { mut out, left_out, .. } = summary;
    if left_out > 0 {
        let _ = writeln!(
            out,
            "*The summary stops here, {left_out} sections short: it is kept under {} KiB. The JSON \
             report (`--format json`) has everything.*\n",
            MAX_SUMMARY / 1024
        );
    }
    out.push_str(&caveat);
    // Only a rubric of thousands of categories could pass the cap here; cut rather than be refused.
    bounded(&out, MAX_SUMMARY)
}

/// A summary filling up to a size: parts that do not fit are counted, not cut.
struct Budget {
    out: String,
    limit: usize,
    left_out: usize,
}

impl Budget {
    fn push(&mut self, part: String) {
        if self.left_out == 0 && self.out.len() + part.len() <= self.limit {
            self.out.push_str(&part);
        } else {
            // Once one part is left out the next are too, so that the summary never skips ahead.
            self.left_out += 1;
        }
    }
}

/// The warning that a self-check is not a grade, naming what it left out; empty for a grading.
fn self_check_caveat(report: &Report) -> String {
    if !report.visible_only {
        return String::new();
    }
    let mut left_out = Vec::new();
    if let Some(hidden) = &report.hidden {
        left_out.push(hidden.describe());
    }
    let pending = report.hand_points_pending();
    if pending > 0.0 {
        left_out.push(format!("{pending:.2} points graded by hand"));
    }
    let mut caveat = String::from("> **This is not your grade.** It counts only the cases you can see");
    if left_out.is_empty() {
        caveat.push_str(".\n");
    } else {
        let _ = writeln!(caveat, "; {} are left out.", left_out.join(" and "));
    }
    caveat
}

/// One part per build: a failed one with its whole log (open), a good one with its warnings
/// (collapsed). Recipes that compile the same files fail with the same messages: shown once.
fn build_parts(report: &Report) -> Vec<String> {
    let mut parts = Vec::new();
    for (i, build) in report.builds.iter().enumerate() {
        let cached = if build.cached { " (cached)" } else { "" };
        let same_as = report.builds[..i]
            .iter()
            .find(|b| b.status == build.status && !b.log.trim().is_empty() && b.log == build.log);
        let part = match (build.status, same_as) {
            (BuildStatus::Error, None) => format!(
                "**Build {} failed.**{cached}\n\n<details open><summary>Compiler messages</summary>\n\n{}\n</details>\n\n",
                inline(&build.recipe),
                fenced("text", build.log.trim_end())
            ),
            (BuildStatus::Error, Some(earlier)) => format!(
                "**Build {} failed**{cached} with the same messages as build {}.\n\n",
                inline(&build.recipe),
                inline(&earlier.recipe)
            ),
            (BuildStatus::Ok, _) if build.log.trim().is_empty() => {
                format!("Build {}: ok{cached}\n\n", inline(&build.recipe))
            }
            (BuildStatus::Ok, _) => {
                let lines = build.log.trim_end().lines().count();
                format!(
                    "<details><summary>Build {}: ok{cached}, with compiler warnings ({lines} line{})</summary>\n\n{}\n</details>\n\n",
                    html(&build.recipe),
                    if lines == 1 { "" } else { "s" },
                    fenced("text", build.log.trim_end())
                )
            }
        };
        parts.push(part);
    }
    parts
}

/// The failing cases: those a build kept from running in one line per reason, each visible failure
/// with its note, first difference and diff, then the hidden ones by verdict and points.
fn failing_parts(report: &Report) -> Vec<String> {
    let failing: Vec<&CaseReport> = report.cases.iter().filter(|c| !c.full_marks()).collect();
    if failing.is_empty() {
        return Vec::new();
    }
    let mut parts = vec![format!("### Failing cases ({})\n\n", failing.len())];
    let (not_built, failing): (Vec<&CaseReport>, Vec<&CaseReport>) =
        failing.into_iter().partition(|c| c.status == CaseStatus::BuildError);
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for case in &not_built {
        // A hidden case's note is not shown, even the grader's own words.
        let reason = match case.visibility {
            Visibility::Visible => case.note.as_deref().unwrap_or("a build failed"),
            Visibility::Hidden => "a build failed",
        };
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((reason, 1)),
        }
    }
    if !reasons.is_empty() {
        let mut part = String::new();
        for (reason, n) in reasons {
            let s = if n == 1 { "" } else { "s" };
            let _ = writeln!(part, "- {n} case{s} not run: {}", inline(reason));
        }
        part.push('\n');
        parts.push(part);
    }
    let (visible, hidden): (Vec<&CaseReport>, Vec<&CaseReport>) =
        failing.into_iter().partition(|c| c.visibility == Visibility::Visible);
    parts.extend(visible.into_iter().map(|case| visible_failure(case, report)));
    if !hidden.is_empty() {
        let mut part = String::from("Hidden cases that lost points:\n\n");
        for case in hidden {
            let _ = writeln!(
                part,
                "- {}: {}, {:.2} / {:.2} {}",
                inline(&case.id),
                status_word(case),
                case.score,
                case.max_score,
                points_word(report, case)
            );
        }
        part.push('\n');
        parts.push(part);
    }
    parts
}

/// A visible failing case: its verdict, note, first difference, and its diff and standard error
/// collapsed.
fn visible_failure(case: &CaseReport, report: &Report) -> String {
    let mut part = format!("#### {}: {}\n\n", inline(&case.id), inline(&case.title));
    let _ = write!(part, "**{}**", verdict(case));
    let _ = writeln!(part, ", {:.2} / {:.2} {}", case.score, case.max_score, points_word(report, case));
    if let Some(note) = &case.note {
        let _ = writeln!(part, "\n{}", inline(note));
    }
    part.push('\n');
    if let Some(block) = super::plain_first_difference(case, report) {
        part.push_str(&fenced("text", &block));
        part.push('\n');
    }
    if let Some(diff) = &case.diff {
        let _ = write!(part, "<details><summary>Diff</summary>\n\n{}\n</details>\n\n", fenced("diff", diff));
    }
    if let Some(stderr) = &case.stderr {
        let _ = write!(
            part,
            "<details><summary>Standard error</summary>\n\n{}\n</details>\n\n",
            fenced("text", stderr)
        );
    }
    part
}

/// `points`, or `bonus points` for a case of a bonus category: what it lost costs nothing.
fn points_word(report: &Report, case: &CaseReport) -> &'static str {
    if report.is_bonus(&case.category) {
        "bonus points"
    } else {
        "points"
    }
}

/// The verdict of a visible case, with the signal or limit that ended its run.
fn verdict(case: &CaseReport) -> String {
    match (case.status, &case.signal, case.limit) {
        (CaseStatus::Crashed, Some(signal), _) => format!("crashed ({})", inline(signal)),
        (_, _, Some(limit)) => format!("{} ({limit})", status_word(case)),
        _ => status_word(case).to_owned(),
    }
}

/// A fenced code block of `content`, cut to [`MAX_BLOCK`] bytes, its fence longer than any run of
/// backticks inside so that nothing in it can close it, and its control characters but tabs and line
/// feeds written visibly (`\e`, `\r`): terminal escapes in a program's output would otherwise vanish
/// or garble the page, and are often why it did not match.
fn fenced(info: &str, content: &str) -> String {
    let content = bounded(&super::escape::inert(content, super::escape::BLOCK), MAX_BLOCK);
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{info}\n{}\n{fence}\n", content.trim_end_matches('\n'))
}

/// Renders GitHub workflow commands for a report: an `::error` per failed build, an `::error` for
/// each of the first `max` failing cases (a build's failure is not repeated for every case it kept
/// from running; a bonus case's is a `::notice`), and a `::notice` counting the failing cases left out.
pub fn render_github_annotations(report: &Report, max: usize) -> String {
    let report = &report.student_view();
    let mut out = String::new();
    for (i, build) in report.builds.iter().enumerate() {
        let repeated =
            report.builds[..i].iter().any(|b| b.status == BuildStatus::Error && b.log == build.log);
        if build.status == BuildStatus::Error && !repeated {
            let title = format!("Build {} failed", build.recipe);
            annotate(&mut out, "error", &title, build.log.trim_end());
        }
    }
    let failing: Vec<&CaseReport> =
        report.cases.iter().filter(|c| !c.full_marks() && c.status != CaseStatus::BuildError).collect();
    for case in failing.iter().take(max) {
        let points = format!(
            "{}: {:.2} / {:.2} {}",
            status_word(case),
            case.score,
            case.max_score,
            points_word(report, case)
        );
        // An optional part left undone is no error of a complete submission.
        let command = if report.is_bonus(&case.category) { "notice" } else { "error" };
        if case.visibility == Visibility::Hidden {
            annotate(&mut out, command, &case.id, &points);
            continue;
        }
        let mut message = format!("{}\n{points}", case.title);
        if let Some(note) = &case.note {
            let _ = write!(message, "\n{note}");
        }
        if let Some(block) = super::plain_first_difference(case, report) {
            let _ = write!(message, "\n{}", block.trim_end());
        }
        annotate(&mut out, command, &format!("{}: {}", case.id, status_word(case)), &message);
    }
    if failing.len() > max {
        let more = failing.len() - max;
        let s = if more == 1 { "" } else { "s" };
        annotate(
            &mut out,
            "notice",
            "More failing cases",
            &format!("{more} more failing case{s} not annotated: the step summary lists them"),
        );
    }
    out
}

/// One workflow command line: `::error title=...::message`.
fn annotate(out: &mut String, command: &str, title: &str, message: &str) {
    let message = bounded(message, MAX_ANNOTATION);
    let _ = writeln!(out, "::{command} title={}::{}", escape_property(title), escape_data(&message));
}

/// A command's message as GitHub reads it back: `%`, carriage return and line feed percent-encoded,
/// other control characters visible (an escape sequence would colour the log).
fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => super::escape::push(&mut out, c, super::escape::BLOCK_LINE),
        }
    }
    out
}

/// A command's property value: as a message, and `:` and `,` too, which end a property.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Divergence;
    use crate::report::{BuildReport, CategoryReport, HiddenCases, PendingCategory, ProbeReport};

    const SECRET: &str = "the hidden transcript's secret line";
    const HOSTILE: &str =
        "``````````</details><script>alert(1)</script> | a & b\x1b[31m\0 [x](http://e.vil) **";

    fn case(id: &str, category: &str, status: CaseStatus, score: f64) -> CaseReport {
        crate::report::test_support::case(id, category, status, score)
    }

    #[test]
    fn a_bonus_category_is_marked_and_its_failures_are_only_notices() {
        let report = crate::report::test_support::bonus_report();
        let markdown = render_markdown(&report);
        assert!(
            markdown.starts_with("## Demo: 7.50 / 5.00 points (including 2.50 of 5.00 bonus points)\n"),
            "{markdown}"
        );
        assert!(markdown.contains("| cube (bonus) | 2.50 / 5.00 | 1 / 2 | title of cube |"), "{markdown}");
        assert!(markdown.contains("| play | 5.00 / 5.00 | 1 / 1 | title of play |"), "{markdown}");
        assert!(markdown.contains("**failed**, 0.00 / 2.50 bonus points"), "{markdown}");

        let annotations = render_github_annotations(&report, 10);
        assert!(annotations.starts_with("::notice title=cube/take%3A failed::"), "{annotations}");
        assert!(!annotations.contains("::error"), "{annotations}");
    }

    /// A self-check of two categories with `|` in their titles: a visible pass, a visible failure
    /// full of hostile text (a run of ten backticks among it, 5 MiB of diff), a hidden failure whose
    /// expected line is a secret, a crash; a build with warnings; a probe.
    fn hostile_report() -> Report {
        let mut failing = case("moves/hostile", "moves", CaseStatus::Failed, 3.0);
        failing.note = Some(format!("the program printed {HOSTILE}"));
        failing.divergence = Some(Divergence {
            line: 7,
            expected_line: 6,
            expected: Some("Red moves".to_owned()),
            actual: Some(HOSTILE.to_owned()),
        });
        failing.diff = Some(format!("-Red moves\n+{HOSTILE}\n{}", "+flood\n".repeat((5 << 20) / 7)));
        failing.stderr = Some(HOSTILE.to_owned());
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
        let mut crashed = case("board/crash", "board", CaseStatus::Crashed, 0.0);
        crashed.signal = Some("SIGSEGV".to_owned());
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
            visible_only: true,
            containment: Containment::Full,
            programs_ran_as_grader: false,
            dice_seed: None,
            score: 8.0,
            max_score: 20.0,
            hidden: Some(HiddenCases { cases: 3, points: 7.5, bonus_points: 0.0 }),
            pending: vec![PendingCategory {
                id: "style".to_owned(),
                title: "Style".to_owned(),
                points: 10.0,
                given: None,
            }],
            late_points: 0.0,
            builds: vec![BuildReport {
                recipe: "game".to_owned(),
                status: BuildStatus::Ok,
                cached: true,
                log: format!("main.c:3: warning: {HOSTILE}\n"),
                seconds: 0.2,
                hint: None,
            }],
            probe: Some(ProbeReport {
                title: "How the board is indexed".to_owned(),
                lines: vec!["row-major".to_owned()],
                failure: None,
            }),
            categories: vec![
                CategoryReport {
                    id: "moves".to_owned(),
                    title: "Moves | all of them".to_owned(),
                    score: 8.0,
                    max_score: 15.0,
                    passed: 1,
                    cases: 3,
                    bonus: false,
                },
                CategoryReport {
                    id: "board".to_owned(),
                    title: "Board\nsecond line".to_owned(),
                    score: 0.0,
                    max_score: 5.0,
                    passed: 0,
                    cases: 1,
                    bonus: false,
                },
            ],
            cases: vec![case("moves/plain", "moves", CaseStatus::Passed, 5.0), failing, hidden, crashed],
        }
    }

    use crate::report::test_support::outside_fences as outside_code;

    #[test]
    fn fences_are_balanced_and_longer_than_any_backtick_run_inside() {
        let markdown = render_markdown(&hostile_report());
        outside_code(&markdown);
        assert!(markdown.contains("```````````text\n"), "an eleven-backtick fence around ten backticks");
    }

    #[test]
    fn student_text_outside_code_cannot_open_html_links_or_cells() {
        let markdown = render_markdown(&hostile_report());
        for line in outside_code(&markdown) {
            for tag in ["<script", "</details><script", "<b>", "[x](http"] {
                assert!(!line.contains(tag), "{line:?} carries {tag}");
            }
            assert!(!line.contains('\x1b') && !line.contains('\0'), "{line:?}");
        }
        assert!(markdown.contains(r"Demo \| &lt;b&gt;game&lt;/b&gt;"), "{markdown}");
        assert!(markdown.contains(r"the program printed \`\`\`"));
    }

    #[test]
    fn the_table_has_a_row_per_category_with_pipes_and_newlines_escaped() {
        let markdown = render_markdown(&hostile_report());
        let rows: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).skip(2).collect();
        assert_eq!(
            rows,
            [
                "| moves | 8.00 / 15.00 | 1 / 3 | Moves \\| all of them |",
                "| board | 0.00 / 5.00 | 0 / 1 | Board second line |"
            ]
        );
    }

    #[test]
    fn a_hidden_case_shows_only_its_verdict_category_and_points() {
        let report = hostile_report();
        let markdown = render_markdown(&report);
        assert!(!markdown.contains(SECRET) && !markdown.contains("secret-case-name"), "{markdown}");
        assert!(markdown.contains("\n- moves/hidden-1: failed, 0.00 / 5.00 points\n"), "{markdown}");
        let annotations = render_github_annotations(&report, 10);
        assert!(!annotations.contains("secret"), "{annotations}");
        assert!(
            annotations.contains("\n::error title=moves/hidden-1::failed: 0.00 / 5.00 points\n"),
            "{annotations}"
        );
    }

    #[test]
    fn a_self_check_says_it_is_not_a_grade_and_what_it_left_out() {
        let markdown = render_markdown(&hostile_report());
        assert!(markdown.ends_with(
            "> **This is not your grade.** It counts only the cases you can see; 3 hidden cases worth 7.50 points \
             and 10.00 points graded by hand are left out.\n"
        ), "{markdown}");
        let mut graded = hostile_report();
        graded.visible_only = false;
        assert!(!render_markdown(&graded).contains("not your grade"));
    }

    #[test]
    fn a_huge_report_stays_under_the_cap_and_still_ends_with_the_caveat() {
        let mut report = hostile_report();
        let mut flood = report.cases[1].clone();
        flood.diff = Some("+flood\n".repeat(64 << 10));
        for i in 0..200 {
            let mut copy = flood.clone();
            copy.id = format!("moves/flood-{i}");
            report.cases.push(copy);
        }
        let markdown = render_markdown(&report);
        assert!(markdown.len() <= MAX_SUMMARY, "{} bytes", markdown.len());
        assert!(markdown.contains("The summary stops here"));
        assert!(markdown.contains("[... cut: "));
        assert!(markdown.ends_with("are left out.\n"));
        outside_code(&markdown);
    }

    #[test]
    fn a_failed_build_shows_its_log_open_and_its_cases_in_one_line() {
        let mut report = hostile_report();
        report.builds[0].status = BuildStatus::Error;
        report.builds.push(BuildReport { recipe: "driver".to_owned(), ..report.builds[0].clone() });
        let mut not_built = case("board/not-built", "board", CaseStatus::BuildError, 0.0);
        not_built.note = Some("the `game` build failed".to_owned());
        report.cases = vec![not_built.clone(), not_built];
        let markdown = render_markdown(&report);
        assert!(markdown.contains("**Build game failed.** (cached)\n\n<details open><summary>Compiler messages</summary>\n\n```````````text\nmain.c:3: warning: "), "{markdown}");
        assert!(markdown.contains("**Build driver failed** (cached) with the same messages as build game."));
        assert!(markdown.contains("- 2 cases not run: the \\`game\\` build failed\n"), "{markdown}");
        let annotations = render_github_annotations(&report, 10);
        assert_eq!(annotations.lines().count(), 1, "{annotations}");
        assert!(annotations
            .starts_with("::error title=Build game failed::main.c:3: warning: ``````````</details>"));
    }

    #[test]
    fn student_text_everywhere_in_a_summary_stays_text() {
        let markdown = render_markdown(&crate::report::test_support::hostile_report());
        for line in outside_code(&markdown) {
            assert!(!line.contains("<img") && !line.contains("```"), "{line:?}");
        }
        assert!(!markdown.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{markdown:?}");
        assert!(markdown.contains(r"Submission: students/\\e\[2J\\e\]0;pwned\\x07\\r&lt;img src=x onerror=alert(1)&gt; \`\`\` \| \\u{9b}31m"), "{markdown}");
        assert!(markdown.contains("````text\nmain.c:9:1: error: expected ';' \\e[2J"), "{markdown}");
    }

    #[test]
    fn annotation_messages_and_titles_are_escaped_as_github_reads_them() {
        assert_eq!(escape_data("50% done\r\nnext: a,b\x1b[0m"), "50%25 done%0D%0Anext: a,b\\e[0m");
        assert_eq!(escape_property("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext%3A a%2Cb");
        let mut report = hostile_report();
        report.cases[1].note = Some("100% wrong,\nreally".to_owned());
        report.cases[1].divergence = None;
        report.cases[1].title = "Moves: all, 50%".to_owned();
        let annotations = render_github_annotations(&report, 1);
        assert_eq!(
            annotations,
            "::error title=moves/hostile%3A failed::Moves: all, 50%25%0Afailed: 3.00 / 5.00 points%0A100%25 wrong,%0Areally\n\
             ::notice title=More failing cases::2 more failing cases not annotated: the step summary lists them\n"
        );
    }
}
