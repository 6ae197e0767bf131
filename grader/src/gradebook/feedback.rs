//! The feedback a student is handed after a class grading (`students/<id>/feedback.md`): their
//! points by category (hand grades and comments included), what failed in the cases they can see,
//! and only the verdict of the hidden ones.
//!
//! What a student controls (their id and name, from a class download's folder names; their
//! program's output; notes quoting it) is escaped as Markdown holding no HTML ([`markdown_inline`])
//! or fenced ([`fenced`]): a Markdown viewer renders HTML, and an LMS may too. The instructor's own
//! text (titles, hand-grading comments) keeps its Markdown, only kept inside its table cell, its
//! control characters shown.

use std::fmt::Write as _;

use super::{Column, Record};
use crate::load::Visibility;
use crate::report::escape::{inert, markdown_inline, BLOCK_LINE};
use crate::report::{BuildStatus, CaseStatus, Report};

/// Compiler lines shown at most: the first errors are the ones to fix.
const MAX_LOG_LINES: usize = 40;

/// A table cell's text from the instructor: `|` and line breaks would break the row, and a control
/// character (a hand-grading comment pasted from a terminal, or from a hostile file) is shown, not
/// run by whatever shows the feedback.
fn cell(text: &str) -> String {
    inert(&text.replace(['\n', '\r'], " "), BLOCK_LINE).replace('|', "\\|")
}

use crate::report::markdown_fence as fenced;

fn verdict(status: CaseStatus) -> &'static str {
    match status {
        CaseStatus::Passed => "passed",
        CaseStatus::Failed => "wrong output",
        CaseStatus::Timeout => "timed out",
        CaseStatus::Crashed => "crashed",
        CaseStatus::OutputLimit => "printed too much",
        CaseStatus::LimitExceeded => "over a limit",
        CaseStatus::BuildError => "not built",
        CaseStatus::Error => "not run (a grader problem, not yours)",
    }
}

/// The heading and the category table every feedback opens with.
fn points_table(title: &str, record: &Record, columns: &[Column]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {title}\n");
    let who = record.name.as_deref().map_or_else(|| record.id.clone(), |n| format!("{} ({n})", record.id));
    let pending = record.pending();
    let pending = if pending.is_empty() {
        String::new()
    } else {
        format!(", still to be graded by hand: {}", pending.join(", "))
    };
    let bonus = record.bonus_phrase().map_or_else(String::new, |b| format!(" ({b})"));
    let _ = writeln!(
        out,
        "**{}**: {:.2} / {:.2} points{bonus}{pending}\n",
        markdown_inline(&who),
        record.total(),
        record.max()
    );
    if let (Some(true), Some(percent)) = (record.download.late, record.late_penalty) {
        let _ = writeln!(
            out,
            "Handed in late: {percent}% of the {:.2} points earned taken off ({:.2} points).\n",
            record.total_before_penalty(),
            record.penalty()
        );
    } else if record.download.late == Some(true) {
        out.push_str("Handed in late.\n\n");
    }
    out.push_str("| category | points | |\n|---|---:|---|\n");
    for column in columns {
        let Some(score) = record.categories.iter().find(|c| c.id == column.id) else { continue };
        let points = score.score.map_or_else(|| "pending".to_owned(), |s| format!("{s:.2}"));
        let note = match (&score.comment, column.manual, column.bonus) {
            (Some(comment), _, _) => cell(comment),
            (None, true, _) => "graded by hand".to_owned(),
            (None, false, true) => "bonus: optional, beyond the maximum".to_owned(),
            (None, false, false) => String::new(),
        };
        let _ = writeln!(out, "| {} | {points} / {:.2} | {note} |", cell(&column.title), score.max);
    }
    out.push('\n');
    out
}

/// The files graded and what the class download said about them (a file renamed back, an online
/// text or another submission left out), as a list; nothing when there is neither.
fn submission_section(files: &[String], record: &Record) -> String {
    let mut out = String::new();
    if files.is_empty() && record.download.notes.is_empty() {
        return out;
    }
    out.push_str("## Your submission\n\n");
    if !files.is_empty() {
        let names: Vec<String> = files.iter().map(|f| markdown_inline(f)).collect();
        let _ = writeln!(out, "- files graded: {}", names.join(", "));
    }
    for note in &record.download.notes {
        let _ = writeln!(out, "- {}", markdown_inline(note));
    }
    out.push('\n');
    out
}

/// The feedback of a student who could not be graded: their points (hand grades included) and why.
pub fn render_ungraded_feedback(title: &str, record: &Record, columns: &[Column]) -> String {
    let mut out = points_table(title, record, columns);
    out.push_str(&submission_section(&[], record));
    let why = record.note.as_deref().unwrap_or("no report");
    let _ = writeln!(out, "Your submission could not be graded automatically: {}.", markdown_inline(why));
    out
}

/// Renders a student's feedback from their report and record (the record carries the hand grades).
pub fn render_feedback(report: &Report, record: &Record, columns: &[Column]) -> String {
    let report = &report.student_view();
    let mut out = points_table(&report.title, record, columns);
    out.push_str(&submission_section(&report.submission_files, record));
    let mut hints_shown: Vec<String> = Vec::new();
    for (i, build) in report.builds.iter().enumerate() {
        if build.status == BuildStatus::Error || !build.log.trim().is_empty() {
            let what = if build.status == BuildStatus::Error { "failed" } else { "succeeded with warnings" };
            let _ = writeln!(out, "## Build `{}` {what}\n", build.recipe);
            // Recipes that compile the same files fail alike: a student reads the messages and the
            // hint once.
            let earlier = report.builds[..i].iter().find(|b| b.status == build.status && b.log == build.log);
            if let Some(earlier) = earlier.filter(|_| !build.log.trim().is_empty()) {
                let _ = writeln!(out, "The same messages as build `{}`.\n", earlier.recipe);
                continue;
            }
            if let Some(hint) = build.hint_to_show(&report.assignment).filter(|h| !hints_shown.contains(h)) {
                let _ = writeln!(out, "**Hint:** {}\n", markdown_inline(&hint));
                hints_shown.push(hint);
            }
            let lines: Vec<&str> = build.log.lines().take(MAX_LOG_LINES).collect();
            out.push_str(&fenced(&lines.join("\n")));
            out.push('\n');
        }
    }
    if let Some(probe) = &report.probe {
        let _ = writeln!(out, "## {}\n", probe.title);
        for line in &probe.lines {
            let _ = writeln!(out, "- {}", markdown_inline(line));
        }
        if let Some(failure) = &probe.failure {
            let _ = writeln!(out, "- not found: {}", markdown_inline(failure));
        }
        out.push('\n');
    }

    let failing: Vec<_> =
        report.cases.iter().filter(|c| c.status != CaseStatus::Passed || c.score < c.max_score).collect();
    let _ =
        writeln!(out, "## Cases: {} of {} passed\n", report.cases.len() - failing.len(), report.cases.len());
    // Passing cases are counted per category, not listed: what a student reads is what to fix.
    for category in &report.categories {
        let of: Vec<_> = report.cases.iter().filter(|c| c.category == category.id).collect();
        let passed = of.iter().filter(|c| c.full_marks()).count();
        let _ = writeln!(out, "- {}: {passed} of {} cases passed", cell(&category.title), of.len());
    }
    if !failing.is_empty() {
        out.push_str("\n### What to look at\n\n");
    }
    for case in failing {
        let bonus = if report.is_bonus(&case.category) { " bonus" } else { "" };
        if case.visibility == Visibility::Hidden {
            let _ = writeln!(
                out,
                "- ✘ hidden case in {} ({:.2} / {:.2}{bonus}): {}",
                cell(&case.category),
                case.score,
                case.max_score,
                verdict(case.status)
            );
            continue;
        }
        let _ = writeln!(
            out,
            "- ✘ `{}` {} ({:.2} / {:.2}{bonus}): {}",
            case.id,
            cell(&case.title),
            case.score,
            case.max_score,
            verdict(case.status)
        );
        if let Some(note) = &case.note {
            let _ = writeln!(out, "  - {}", markdown_inline(note));
        }
        if let Some(block) = crate::report::plain_first_difference(case, report) {
            out.push_str(&fenced(&block).lines().map(|l| format!("    {l}\n")).collect::<String>());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{columns, cube_column, student, with_cube};
    use super::super::StudentStatus;
    use super::*;
    use crate::report::test_support::{hostile_report, outside_fences, HOSTILE};

    /// Fails when `markdown` holds HTML, a fence of the student's or a control character outside its
    /// own fences.
    fn assert_inert(markdown: &str) {
        for line in outside_fences(markdown) {
            assert!(!line.contains("<img") && !line.contains("<script") && !line.contains("```"), "{line:?}");
        }
        assert!(!markdown.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{markdown:?}");
    }

    #[test]
    fn an_id_with_html_is_escaped_in_feedback() {
        let record =
            student("<img src=x onerror=alert(1)>", "**Ada** | `x`", StudentStatus::Graded, 2.0, None);
        let feedback = render_feedback(&hostile_report(), &record, &columns());
        assert_inert(&feedback);
        assert!(
            feedback.contains(
                r"**&lt;img src=x onerror=alert(1)&gt; (\*\*Ada\*\* \| \`x\`)**: 2.00 / 10.00 points"
            ),
            "{feedback}"
        );
    }

    #[test]
    fn student_output_in_feedback_is_escaped_or_fenced() {
        let record = student("a1", "Ada", StudentStatus::Graded, 2.0, None);
        let feedback = render_feedback(&hostile_report(), &record, &columns());
        assert_inert(&feedback);
        let escaped = r"\\e\[2J\\e\]0;pwned\\x07\\r&lt;img src=x onerror=alert(1)&gt; \`\`\` \| \\u{9b}31m";
        assert!(feedback.contains(&format!("\n- {escaped}\n")), "the probe's line: {feedback}");
        assert!(
            feedback.contains(&format!("\n  - exited with status 3; {escaped}\n")),
            "the note: {feedback}"
        );
        assert!(
            feedback.contains("\n````text\nmain.c:9:1: error: expected ';' \\e[2J"),
            "the log: {feedback}"
        );
        assert!(feedback.contains("\n    ````text\n    game 1: an illegal move \\e[2J"), "{feedback}");
    }

    #[test]
    fn the_reason_a_student_was_not_graded_is_escaped() {
        let mut record = student("=1+1", "Bo", StudentStatus::GraderError, 0.0, None);
        record.note = Some(format!("an unreadable archive `{HOSTILE}`</p><script>alert(1)</script>"));
        let feedback = render_ungraded_feedback("Demo", &record, &columns());
        assert_inert(&feedback);
        assert!(feedback.contains("&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;."), "{feedback}");
    }

    #[test]
    fn feedback_lists_the_files_graded_and_what_the_download_said() {
        let mut record = student("a1", "Ada", StudentStatus::Graded, 2.0, None);
        record.download.notes = vec!["`backgammon-1.h` was taken as `backgammon.h`".to_owned()];
        let mut report = hostile_report();
        report.submission_files = vec!["main.c".to_owned(), "main_old.c".to_owned()];
        let feedback = render_feedback(&report, &record, &columns());
        assert!(
            feedback.contains(
                "## Your submission\n\n- files graded: main.c, main\\_old.c\n- \\`backgammon-1.h\\` was taken as \\`backgammon.h\\`\n"
            ),
            "{feedback}"
        );
        // Not graded: the notes still say why files were left out.
        let mut record = student("a1", "Ada", StudentStatus::NoFiles, 0.0, None);
        record.download.notes = vec!["the online text was left out".to_owned()];
        let feedback = render_ungraded_feedback("Demo", &record, &columns());
        assert!(feedback.contains("## Your submission\n\n- the online text was left out\n"), "{feedback}");
    }

    #[test]
    fn feedback_gives_a_failed_builds_hint_before_its_messages() {
        let record = student("a1", "Ada", StudentStatus::BuildError, 0.0, None);
        let mut report = hostile_report();
        report.builds[1].log = "/usr/bin/ld: main.o: in function `main':\nmain.c:(.text+0x1): undefined reference to `movePiece'\n\
             main.c:(.text+0x9): undefined reference to `movePiece'\nmain.c:(.text+0xf): undefined reference to `initBoard'\n"
            .to_owned();
        let feedback = render_feedback(&report, &record, &columns());
        let hint = "**Hint:** 2 names the assignment's code uses are not defined by the submission \
                    (movePiece, initBoard): is it a submission of \\`demo\\`?";
        assert!(feedback.contains(&format!("## Build `driver` failed\n\n{hint}")), "{feedback}");
    }

    #[test]
    fn feedback_gives_the_same_messages_and_the_same_hint_once() {
        let record = student("a1", "Ada", StudentStatus::BuildError, 0.0, None);
        let mut report = hostile_report();
        let missing = "main.c:(.text+0x1): undefined reference to `movePiece'\n";
        for build in &mut report.builds {
            build.status = BuildStatus::Error;
            build.log = missing.to_owned();
        }
        let mut third = report.builds[0].clone();
        third.recipe = "style".to_owned();
        third.log = format!("style.c:1: another message\n{missing}");
        report.builds.push(third);
        let feedback = render_feedback(&report, &record, &columns());
        assert_eq!(feedback.matches("**Hint:**").count(), 1, "{feedback}");
        assert_eq!(feedback.matches("undefined reference to").count(), 2, "{feedback}");
        let second = &report.builds[1].recipe;
        let first = &report.builds[0].recipe;
        assert!(
            feedback
                .contains(&format!("## Build `{second}` failed\n\nThe same messages as build `{first}`.\n")),
            "{feedback}"
        );
    }

    #[test]
    fn feedback_shows_a_late_penalty_apart_from_the_points() {
        let mut record = student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0));
        record.download.late = Some(true);
        record.late_penalty = Some(10.0);
        let feedback = render_feedback(&hostile_report(), &record, &columns());
        assert!(feedback.contains("**a1 (Ada)**: 9.00 / 10.00 points\n"), "{feedback}");
        assert!(
            feedback.contains("Handed in late: 10% of the 10.00 points earned taken off (1.00 points).\n"),
            "{feedback}"
        );
    }

    #[test]
    fn feedback_names_the_bonus_in_the_total_its_row_and_its_failures() {
        let record = with_cube(student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0)), 2.5);
        let columns = [columns(), vec![cube_column()]].concat();
        let feedback = render_feedback(&crate::report::test_support::bonus_report(), &record, &columns);
        assert!(
            feedback.contains("**a1 (Ada)**: 12.50 / 10.00 points (including 2.50 of 5.00 bonus points)\n"),
            "{feedback}"
        );
        assert!(
            feedback.contains("| Doubling cube | 2.50 / 5.00 | bonus: optional, beyond the maximum |"),
            "{feedback}"
        );
        assert!(
            feedback.contains("- ✘ `cube/take` title of cube/take (0.00 / 2.50 bonus): wrong output"),
            "{feedback}"
        );
    }
}
