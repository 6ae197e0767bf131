//! The human renderer of a [`Report`]: a summary table, then what went wrong where, coloured with ANSI
//! styles that the caller strips when the output is not a terminal.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};

use super::{BuildStatus, CaseReport, CaseStatus, Report};

const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const PARTIAL: Style = AnsiColor::Yellow.on_default().bold();
const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();

/// Lines of a successful build's compiler warnings shown.
const MAX_WARNING_LINES: usize = 12;

/// Failing cases whose diff is printed: the first ones are what a student fixes first.
const MAX_DIFFS: usize = 3;

/// Renders a report for people; `diffs` adds the unified diff of the first failing cases.
pub fn render_text(report: &Report, diffs: bool) -> String {
    let mut out = String::new();
    let scope = if report.visible_only { " (visible cases only)" } else { "" };
    let _ = writeln!(out, "{BOLD}{}{BOLD:#} — {}{scope}", report.title, report.submission);
    // Only a weaker sandbox is worth a line: the JSON report always names the level.
    if report.containment != crate::run::Containment::Full {
        let _ = writeln!(
            out,
            "{FAIL}containment: {}{FAIL:#} (programs were not fully contained; see `grader doctor`)",
            report.containment
        );
    }
    for build in &report.builds {
        let (style, word) = match build.status {
            BuildStatus::Ok => (PASS, "ok"),
            BuildStatus::Error => (FAIL, "error"),
        };
        let cached = if build.cached { " (cached)" } else { "" };
        let _ = writeln!(out, "build {}: {style}{word}{style:#}{cached}", build.recipe);
        // Recipes that compile the same student files fail with the same messages: print them once.
        if let Some(earlier) = report.builds.iter().take_while(|b| b.recipe != build.recipe).find(|b| {
            b.status == BuildStatus::Error && build.status == BuildStatus::Error && b.log == build.log
        }) {
            let _ = writeln!(out, "    (the same messages as build {})", earlier.recipe);
            continue;
        }
        // A failed build's whole log; a good build's warnings too (an undeclared function is one),
        // cut short: they are advice, not the grade.
        let shown = match build.status {
            BuildStatus::Error => usize::MAX,
            BuildStatus::Ok => MAX_WARNING_LINES,
        };
        let (lines, missing) = linker_view(&build.log);
        if !missing.is_empty() {
            let s = if missing.len() == 1 { "" } else { "s" };
            let _ = writeln!(
                out,
                "    {BOLD}hint:{BOLD:#} {} name{s} the assignment's code uses {} not defined by the submission ({}): \
                 is it a submission of `{}`? (`grader list` names the assignments)",
                missing.len(),
                if missing.len() == 1 { "is" } else { "are" },
                missing.join(", "),
                report.assignment
            );
        }
        for line in lines.iter().take(shown) {
            let _ = writeln!(out, "    {line}");
        }
        if lines.len() > shown {
            let _ = writeln!(out, "    {DIM}... {} more lines{DIM:#}", lines.len() - shown);
        }
    }
    if let Some(probe) = &report.probe {
        let _ = writeln!(out, "{}:", probe.title);
        for line in &probe.lines {
            let _ = writeln!(out, "    {line}");
        }
        if let Some(failure) = &probe.failure {
            let _ = writeln!(out, "    {FAIL}not found{FAIL:#}: {failure}");
        }
    }

    out.push('\n');
    let width = report
        .categories
        .iter()
        .map(|c| c.id.len())
        .chain(report.pending.iter().map(|p| p.id.len()))
        .max()
        .unwrap_or(0);
    for c in &report.categories {
        let style = score_style(c.score, c.max_score);
        let _ = writeln!(
            out,
            "  {:<width$}  {style}{:>6.2}{style:#} / {:>6.2}   {}/{} cases  {DIM}{}{DIM:#}",
            c.id, c.score, c.max_score, c.passed, c.cases, c.title
        );
    }
    for p in &report.pending {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>6} / {:>6.2}   graded by hand  {DIM}{}{DIM:#}",
            p.id, "—", p.points, p.title
        );
    }

    let failing: Vec<&CaseReport> =
        report.cases.iter().filter(|c| c.score < c.max_score || c.status != CaseStatus::Passed).collect();
    if !failing.is_empty() {
        out.push('\n');
    }
    // Cases that could not run because a build failed: one line per failed build, not one per case
    // (the compiler's messages are above).
    let (not_built, failing): (Vec<&CaseReport>, Vec<&CaseReport>) =
        failing.into_iter().partition(|c| c.status == CaseStatus::BuildError);
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for case in &not_built {
        let reason = case.note.as_deref().unwrap_or("a build failed");
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((reason, 1)),
        }
    }
    for (reason, n) in reasons {
        let s = if n == 1 { "" } else { "s" };
        let _ = writeln!(out, "{FAIL}BILD{FAIL:#} {n} case{s} not run: {reason}");
    }
    let with_diff = if diffs { MAX_DIFFS } else { 0 };
    for (i, case) in failing.iter().enumerate() {
        render_case(&mut out, case, i < with_diff);
    }
    if failing.iter().filter(|c| c.diff.is_some()).count() > with_diff && diffs {
        let _ = writeln!(
            out,
            "{DIM}(diffs shown for the first {MAX_DIFFS} cases; all are in --format json){DIM:#}"
        );
    }

    let pending: f64 = report.pending.iter().map(|p| p.points).sum();
    let style = score_style(report.score, report.max_score);
    if report.visible_only {
        // A self-check never claims a grade: it says what it ran and what it left out.
        let _ = write!(
            out,
            "\n{BOLD}Visible cases:{BOLD:#} {style}{:.2}{style:#} / {:.2} points",
            report.score, report.max_score
        );
        let mut left_out = Vec::new();
        if let Some(hidden) = &report.hidden {
            left_out.push(format!(
                "{} hidden case{} worth {:.2} points",
                hidden.cases,
                if hidden.cases == 1 { "" } else { "s" },
                hidden.points
            ));
        }
        if pending > 0.0 {
            left_out.push(format!("{pending:.0} points graded by hand"));
        }
        if !left_out.is_empty() {
            let _ = write!(
                out,
                "\n{DIM}This is not your grade: {} are graded only by your instructor.{DIM:#}",
                left_out.join(" and ")
            );
        }
    } else {
        let _ = write!(
            out,
            "\n{BOLD}Score:{BOLD:#} {style}{:.2}{style:#} / {:.2}",
            report.score, report.max_score
        );
        if pending > 0.0 {
            let _ = write!(out, " automated; {pending:.0} more points graded by hand");
        }
    }
    out.push('\n');
    out
}

/// A build log as shown: the linker's `undefined reference to `NAME'` lines once per name (a
/// submission of another assignment repeats them for every use), and the names, in order.
fn linker_view(log: &str) -> (Vec<&str>, Vec<&str>) {
    let mut missing: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for line in log.lines() {
        let name = line
            .split_once("undefined reference to `")
            .and_then(|(_, rest)| rest.split_once('\''))
            .map(|(name, _)| name);
        match name {
            Some(name) if missing.contains(&name) => {}
            Some(name) => {
                missing.push(name);
                lines.push(line);
            }
            None => lines.push(line),
        }
    }
    (lines, missing)
}

fn score_style(score: f64, max: f64) -> Style {
    if score >= max {
        PASS
    } else if score > 0.0 {
        PARTIAL
    } else {
        FAIL
    }
}

fn render_case(out: &mut String, case: &CaseReport, diffs: bool) {
    let (style, word) = match case.status {
        CaseStatus::Passed => (PARTIAL, "PART"),
        CaseStatus::Failed => (FAIL, "FAIL"),
        CaseStatus::Timeout => (FAIL, "TIME"),
        CaseStatus::Crashed => (FAIL, "CRSH"),
        CaseStatus::OutputLimit => (FAIL, "FLOD"),
        CaseStatus::BuildError => (FAIL, "BILD"),
        CaseStatus::LimitExceeded => (FAIL, "LIMT"),
        CaseStatus::Error => (FAIL, "ERR "),
    };
    let _ = writeln!(
        out,
        "{style}{word}{style:#} {} {DIM}({:.2} / {:.2}){DIM:#}  {}",
        case.id, case.score, case.max_score, case.title
    );
    if let Some(note) = &case.note {
        let _ = writeln!(out, "     {note}");
    }
    if let Some(d) = &case.divergence {
        let shown = |line: &Option<String>| match line {
            Some(l) => format!("{l:?}"),
            None => "(end of output)".to_owned(),
        };
        let _ = writeln!(
            out,
            "     first difference at line {} of the output (line {} of the expected transcript):",
            d.line, d.expected_line
        );
        let _ = writeln!(out, "       expected: {}", shown(&d.expected));
        let _ = writeln!(out, "       actual:   {}", shown(&d.actual));
    }
    if diffs {
        if let Some(diff) = &case.diff {
            for line in diff.lines() {
                let style = match line.as_bytes().first() {
                    Some(b'+') => AnsiColor::Green.on_default(),
                    Some(b'-') => AnsiColor::Red.on_default(),
                    Some(b'@') => AnsiColor::Cyan.on_default(),
                    _ => Style::new(),
                };
                let _ = writeln!(out, "     {style}{line}{style:#}");
            }
        }
    }
    if let Some(stderr) = &case.stderr {
        let _ = writeln!(out, "     stderr: {}", stderr.lines().next().unwrap_or(""));
    }
}
