//! The human renderer of a [`Report`]: a summary table, then what went wrong where, coloured with ANSI
//! styles that the caller strips when the output is not a terminal.
//!
//! Every piece of text a student controls (the submission's path, compiler messages, their program's
//! output, notes quoting it) goes through [`safe`] or [`safe_block_line`] first: on a terminal an
//! escape sequence in it would run (clear the screen, set the title, hide lines), and anstream passes
//! it through as if it were our own colour.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};

use super::escape::{self, BLOCK_LINE, ONE_LINE};
use super::{BuildStatus, CaseReport, CaseStatus, Report};

const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const PARTIAL: Style = AnsiColor::Yellow.on_default().bold();
const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();

/// Lines of a successful build's compiler warnings shown.
const MAX_WARNING_LINES: usize = 12;

/// Games of an interactive case whose problem is printed, with the lines exchanged before it.
const MAX_GAMES_SHOWN: usize = 3;

/// Failing cases whose diff is printed: the first ones are what a student fixes first.
const MAX_DIFFS: usize = 3;

/// How much a text report says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Verbosity {
    /// The score, and one line per failing case.
    Quiet,
    /// Builds, categories, and what went wrong where.
    #[default]
    Normal,
    /// Also every passing case with its time and memory, whole compiler logs, and how to reproduce each
    /// failure.
    Verbose,
}

/// What a text report includes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// The unified diff of the first failing cases, and a command reproducing each failure (a
    /// self-check: the student runs it on the machine that graded).
    pub diffs: bool,
    /// How much is said.
    pub verbosity: Verbosity,
}

/// Renders a report for people.
pub fn render_text(report: &Report, options: TextOptions) -> String {
    if options.verbosity == Verbosity::Quiet {
        return render_quiet(report);
    }
    let verbose = options.verbosity == Verbosity::Verbose;
    let diffs = options.diffs;
    let mut out = String::new();
    let mut scope = if report.visible_only { " (visible cases only)".to_owned() } else { String::new() };
    if !report.only.is_empty() {
        scope.push_str(&format!(" (only the cases matching {})", report.only.join(", ")));
    }
    let _ = writeln!(out, "{BOLD}{}{BOLD:#} — {}{scope}", report.title, safe(&report.submission));
    if !report.submission_files.is_empty() {
        let _ = writeln!(out, "files: {}", safe(&report.submission_files.join(", ")));
    }
    for note in &report.submission_notes {
        let _ = writeln!(out, "note: {}", safe(note));
    }
    if let Some(seed) = report.dice_seed {
        let _ = writeln!(out, "interactive games rolled with other dice: --seed {seed}");
    }
    // Only a weaker sandbox is worth a line: the JSON report always names the level.
    if report.containment != crate::run::Containment::Full {
        let user = if report.programs_ran_as_grader {
            "; they ran as the grader's own user, which is not root, and could reach all it can"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{FAIL}containment: {}{FAIL:#} (programs were not fully contained{user}; see `grader doctor`)",
            report.containment
        );
    }
    for build in &report.builds {
        let (style, word) = match build.status {
            BuildStatus::Ok => (PASS, "ok"),
            BuildStatus::Error => (FAIL, "error"),
        };
        let cached = if build.cached { " (cached)" } else { "" };
        let warnings = build.log.lines().filter(|l| l.contains(": warning: ")).count();
        let warnings = match (build.status, warnings) {
            (BuildStatus::Ok, 1) => ", 1 warning".to_owned(),
            (BuildStatus::Ok, n) if n > 1 => format!(", {n} warnings"),
            _ => String::new(),
        };
        let _ = writeln!(out, "build {}: {style}{word}{style:#}{warnings}{cached}", build.recipe);
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
            BuildStatus::Ok if verbose => usize::MAX,
            BuildStatus::Ok => MAX_WARNING_LINES,
        };
        let (lines, _) = linker_view(&build.log);
        if let Some(hint) = build.hint_to_show(&report.assignment) {
            let _ = writeln!(out, "    {BOLD}hint:{BOLD:#} {}", safe(&hint));
        }
        for line in lines.iter().take(shown) {
            let _ = writeln!(out, "    {}", compiler_colours(&safe_block_line(line)));
        }
        if lines.len() > shown {
            let _ = writeln!(
                out,
                "    {DIM}... {} more lines (all of them with --verbose or in --format json){DIM:#}",
                lines.len() - shown
            );
        }
    }
    if let Some(probe) = &report.probe {
        let _ = writeln!(out, "{}:", probe.title);
        for line in &probe.lines {
            let _ = writeln!(out, "    {}", safe(line));
        }
        if let Some(failure) = &probe.failure {
            let _ = writeln!(out, "    {FAIL}not found{FAIL:#}: {}", safe(failure));
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
    // The cases column is as wide as its widest entry, so that the titles line up.
    let counts: Vec<String> =
        report.categories.iter().map(|c| format!("{}/{} cases", c.passed, c.cases)).collect();
    let count_width = counts.iter().map(String::len).chain(["graded by hand".len()]).max().unwrap_or(0);
    for (c, count) in report.categories.iter().zip(&counts) {
        let style = score_style(c.score, c.max_score);
        let bonus =
            if c.bonus { format!(" {BOLD}(bonus, beyond the maximum){BOLD:#}") } else { String::new() };
        let _ = writeln!(
            out,
            "  {:<width$}  {style}{:>6.2}{style:#} / {:>6.2}   {count:>count_width$}  {DIM}{}{DIM:#}{bonus}",
            c.id, c.score, c.max_score, c.title
        );
    }
    for p in &report.pending {
        let given = p.given.as_ref().map_or_else(|| "—".to_owned(), |g| format!("{:.2}", g.points));
        let comment = p
            .given
            .as_ref()
            .and_then(|g| g.comment.as_deref())
            .map_or_else(String::new, |c| format!(": {}", safe(c)));
        let _ = writeln!(
            out,
            "  {:<width$}  {:>6} / {:>6.2}   {:>count_width$}  {DIM}{}{DIM:#}{comment}",
            p.id, given, p.points, "graded by hand", p.title
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
        let _ = writeln!(out, "{FAIL}BILD{FAIL:#} {n} case{s} not run: {}", safe(reason));
    }
    let with_diff = if diffs { MAX_DIFFS } else { 0 };
    for (i, case) in failing.iter().enumerate() {
        let bonus = report.is_bonus(&case.category);
        render_case(&mut out, case, bonus, i < with_diff, diffs || verbose, &report.cases_root);
    }
    if verbose {
        render_passed(&mut out, report);
    }
    if failing.iter().filter(|c| c.diff.is_some()).count() > with_diff && diffs {
        let _ = writeln!(
            out,
            "{DIM}(diffs shown for the first {MAX_DIFFS} cases; `--case ID` runs one case and shows its diff){DIM:#}"
        );
    }

    let pending = report.hand_points_pending();
    render_run_summary(&mut out, report);
    let style = score_style(report.score, report.max_score);
    // A grading that left cases out (a self-check, `--case`, a student pack's withheld cases) never
    // claims a grade.
    if report.visible_only || !report.only.is_empty() || report.hidden.is_some() {
        // A self-check never claims a grade: it says what it ran and what it left out.
        let _ = write!(
            out,
            "\n{BOLD}{}:{BOLD:#} {style}{:.2}{style:#} / {:.2} points",
            if report.only.is_empty() { "Visible cases" } else { "Selected cases" },
            report.score,
            report.max_score
        );
        if let Some(bonus) = report.bonus_phrase() {
            let _ = write!(out, " ({bonus})");
        }
        let mut left_out = Vec::new();
        if let Some(hidden) = &report.hidden {
            left_out.push(hidden.describe());
        }
        if pending > 0.0 {
            let unit = if format!("{pending:.0}") == "1" { "point" } else { "points" };
            left_out.push(format!("{pending:.0} {unit} graded by hand"));
        }
        if !report.only.is_empty() {
            let _ = write!(out, "\n{DIM}This is not a grade: only the cases selected by --case ran.{DIM:#}");
        } else if !left_out.is_empty() {
            // "1 hidden case worth 7.50 points is graded", "20 hidden cases ... are graded".
            let one = left_out.len() == 1 && left_out[0].starts_with("1 ");
            let _ = write!(
                out,
                "\n{DIM}This is not your grade: {} {} graded only by your instructor.{DIM:#}",
                left_out.join(" and "),
                if one { "is" } else { "are" }
            );
        }
    } else if let Some((total, of)) = report.total_with_hand_grades() {
        // The total the gradebook has: the automated points and the hand grades given.
        let _ = write!(
            out,
            "\n{BOLD}Score:{BOLD:#} {style}{total:.2}{style:#} / {of:.2} with the hand grades ({:.2} / {:.2} automated{})",
            report.score,
            report.max_score,
            report.late_phrase()
        );
        if let Some(bonus) = report.bonus_phrase() {
            let _ = write!(out, " ({bonus})");
        }
        if pending > 0.0 {
            let _ = write!(out, "; {pending:.0} of them graded by hand, not given yet");
        }
    } else {
        let _ = write!(
            out,
            "\n{BOLD}Score:{BOLD:#} {style}{:.2}{style:#} / {:.2}",
            report.score, report.max_score
        );
        if let Some(bonus) = report.bonus_phrase() {
            let _ = write!(out, " ({bonus})");
        }
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

/// A compiler message line in gcc's own colours (the log is stored without them, so that every
/// format gets plain text): the location bold, `error:` red, `warning:` magenta, `note:` cyan.
fn compiler_colours(line: &str) -> String {
    const KINDS: [(&str, Style); 4] = [
        (" fatal error: ", AnsiColor::Red.on_default().bold()),
        (" error: ", AnsiColor::Red.on_default().bold()),
        (" warning: ", AnsiColor::Magenta.on_default().bold()),
        (" note: ", AnsiColor::Cyan.on_default().bold()),
    ];
    for (kind, style) in KINDS {
        if let Some(at) = line.find(kind) {
            let (location, rest) = line.split_at(at);
            let message = &rest[kind.len()..];
            let kind = kind.trim();
            return format!("{BOLD}{location}{BOLD:#} {style}{kind}{style:#} {message}");
        }
    }
    line.to_owned()
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

fn status_word(case: &CaseReport) -> (Style, &'static str) {
    match case.status {
        CaseStatus::Passed if case.full_marks() => (PASS, "PASS"),
        CaseStatus::Passed => (PARTIAL, "PART"),
        CaseStatus::Failed => (FAIL, "FAIL"),
        CaseStatus::Timeout => (FAIL, "TIME"),
        CaseStatus::Crashed => (FAIL, "CRSH"),
        CaseStatus::OutputLimit => (FAIL, "FLOD"),
        CaseStatus::BuildError => (FAIL, "BILD"),
        CaseStatus::LimitExceeded => (FAIL, "LIMT"),
        CaseStatus::Error => (FAIL, "ERR "),
    }
}

/// `--quiet`: one line per failed build with its first error, one line per case that lost points
/// (the cases a failed build kept from running counted on one line), then the score.
fn render_quiet(report: &Report) -> String {
    let mut out = String::new();
    for build in report.builds.iter().filter(|b| b.status == crate::report::BuildStatus::Error) {
        let not_run = report
            .cases
            .iter()
            .filter(|c| {
                c.status == CaseStatus::BuildError
                    && c.note.as_deref().is_some_and(|n| n.contains(&format!("`{}`", build.recipe)))
            })
            .count();
        let lines = || build.log.lines().map(str::trim).filter(|l| !l.is_empty());
        let first =
            lines().find(|l| l.contains("error")).or_else(|| lines().next()).unwrap_or("no compiler message");
        let _ = writeln!(
            out,
            "{FAIL}BILD{FAIL:#} the `{}` build failed ({not_run} cases not run): {}",
            build.recipe,
            safe(first)
        );
    }
    for case in report
        .cases
        .iter()
        .filter(|c| c.score < c.max_score || c.status != CaseStatus::Passed)
        .filter(|c| c.status != CaseStatus::BuildError)
    {
        let (style, word) = status_word(case);
        let bonus = if report.is_bonus(&case.category) { ", bonus" } else { "" };
        let _ = writeln!(
            out,
            "{style}{word}{style:#} {} ({:.2} / {:.2}{bonus})",
            case.id, case.score, case.max_score
        );
    }
    let style = score_style(report.score, report.max_score);
    let what = if report.visible_only { "Visible cases" } else { "Score" };
    let bonus = report.bonus_phrase().map_or_else(String::new, |b| format!(" ({b})"));
    match report.total_with_hand_grades() {
        Some((total, of)) => {
            let _ = writeln!(
                out,
                "{BOLD}{what}:{BOLD:#} {style}{total:.2}{style:#} / {of:.2} with the hand grades ({:.2} / {:.2} \
                 automated{}){bonus}",
                report.score,
                report.max_score,
                report.late_phrase()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{BOLD}{what}:{BOLD:#} {style}{:.2}{style:#} / {:.2}{bonus}",
                report.score, report.max_score
            );
        }
    }
    out
}

/// One line on what ran: cases passed, the programs' CPU time and the slowest case.
fn render_run_summary(out: &mut String, report: &Report) {
    let ran: Vec<&CaseReport> = report.cases.iter().filter(|c| c.cpu_ms.is_some()).collect();
    if ran.is_empty() {
        return;
    }
    let passed = report.cases.iter().filter(|c| c.full_marks()).count();
    let cpu: u64 = ran.iter().filter_map(|c| c.cpu_ms).sum();
    let _ = write!(
        out,
        "\n{DIM}{passed} of {} cases passed; the programs used {:.2} s of CPU",
        report.cases.len(),
        cpu as f64 / 1000.0
    );
    if let Some(slowest) = ran.iter().max_by_key(|c| c.time_ms.unwrap_or(0)) {
        let _ = write!(out, ", the slowest case {} ms ({})", slowest.time_ms.unwrap_or(0), slowest.id);
    }
    let _ = writeln!(out, "{DIM:#}");
    if let Some(package) = &report.package {
        let style = if package.verdict == crate::report::JudgeVerdict::AC { PASS } else { FAIL };
        let _ = writeln!(
            out,
            "{DIM}verdict{DIM:#} {style}{}{style:#}{DIM}; time limit {} s of CPU per run ({}){DIM:#}",
            package.verdict, package.time_limit_seconds, package.time_limit_source
        );
    }
}

/// `--verbose`: the passing cases too, with what each run cost.
fn render_passed(out: &mut String, report: &Report) {
    let passed: Vec<&CaseReport> = report.cases.iter().filter(|c| c.full_marks()).collect();
    if passed.is_empty() {
        return;
    }
    let width = passed.iter().map(|c| c.id.len()).max().unwrap_or(0);
    out.push('\n');
    for case in passed {
        let (style, word) = status_word(case);
        let _ = writeln!(
            out,
            "{style}{word}{style:#} {:<width$}  {DIM}{:>6.2} pts  {}{DIM:#}",
            case.id,
            case.max_score,
            run_cost(case)
        );
    }
}

/// `12 ms, 3 ms CPU, 1.2 MiB`: what a run took, as far as it is known.
fn run_cost(case: &CaseReport) -> String {
    let mut parts = Vec::new();
    if let Some(ms) = case.time_ms {
        parts.push(format!("{ms} ms"));
    }
    if let Some(ms) = case.cpu_ms {
        parts.push(format!("{ms} ms CPU"));
    }
    if let Some(kb) = case.peak_memory_kb.filter(|&kb| kb > 0) {
        parts.push(format!("{:.1} MiB", kb as f64 / 1024.0));
    }
    parts.join(", ")
}

fn render_case(
    out: &mut String,
    case: &CaseReport,
    bonus: bool,
    diffs: bool,
    reproduce: bool,
    cases_root: &str,
) {
    // The cases folder as the report has it: the grading machine's own path for the instructor
    // (`--cases` anywhere), `cases` in a student's view (see `Report::student_view`).
    let root = if cases_root.is_empty() { "cases" } else { cases_root.trim_end_matches('/') };
    let (style, word) = status_word(case);
    // A student who left out the optional part reads that these losses cost nothing.
    let bonus = if bonus { ", bonus" } else { "" };
    let verdict = case.verdict.map(|v| format!(" {v}")).unwrap_or_default();
    let _ = writeln!(
        out,
        "{style}{word}{style:#} {} {DIM}({:.2} / {:.2}{bonus}){DIM:#}{verdict}  {}",
        case.id, case.score, case.max_score, case.title
    );
    if let Some(note) = &case.note {
        let _ = writeln!(out, "     {}", safe(note));
    }
    for problem in case.games.iter().take(MAX_GAMES_SHOWN) {
        let _ = writeln!(out, "     game {}: {}", problem.game, safe(&problem.problem));
        for line in &problem.exchange {
            let _ = writeln!(out, "       {DIM}{}{DIM:#}", safe(line));
        }
        if let Some(stderr) = &problem.stderr {
            let _ = writeln!(out, "       stderr of game {}:", problem.game);
            for line in stderr.lines() {
                let _ = writeln!(out, "         {DIM}{}{DIM:#}", safe(line));
            }
        }
    }
    if case.games.len() > MAX_GAMES_SHOWN {
        let _ = writeln!(out, "     {DIM}... and {} more games{DIM:#}", case.games.len() - MAX_GAMES_SHOWN);
    }
    if let Some(d) = &case.divergence {
        let _ = writeln!(
            out,
            "     first difference at line {} of the output (line {} of the expected output):",
            d.line, d.expected_line
        );
        let expected_hidden = case.disclosure == crate::load::Disclosure::Output;
        let lines = LinePair::new(d.expected.as_deref(), d.actual.as_deref());
        let expected = if expected_hidden { "(not shown for this case)".to_owned() } else { lines.expected };
        let _ = writeln!(out, "       expected: {expected}");
        let _ = writeln!(out, "       actual:   {}", lines.actual);
        if let (false, Some(column), Some(what)) = (expected_hidden, lines.marker, lines.what) {
            let _ = writeln!(out, "                 {}{FAIL}^{FAIL:#} {what}", " ".repeat(column));
        }
    }
    if let Some(input) = &case.input {
        match input.consumed {
            Some(0) => {
                let _ = writeln!(out, "     input: {root}/{} (nothing read yet)", input.path);
            }
            Some(n) => {
                let s = if n == 1 { "" } else { "s" };
                let _ = writeln!(
                    out,
                    "     input: {root}/{} ({n} line{s} read by then; the last ones:)",
                    input.path
                );
                let width = input.last.last().map_or(1, |(n, _)| n.to_string().len());
                for (n, line) in &input.last {
                    let _ = writeln!(out, "       {DIM}{n:>width$} |{DIM:#} {}", visible(line, false).text);
                }
            }
            None => {
                let _ = writeln!(out, "     input: {root}/{}", input.path);
            }
        }
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
                let _ = writeln!(out, "     {style}{}{style:#}", safe_block_line(line));
            }
        }
    }
    if let Some(stderr) = &case.stderr {
        let _ = writeln!(out, "     stderr: {}", safe(stderr.lines().next().unwrap_or("")));
    }
    if let (true, Some(command)) = (reproduce, &case.reproduce) {
        let _ = writeln!(out, "     reproduce: {}", safe(command));
    }
}

/// The cases folder as a report names it to its reader: as given when relative (`grader-pack/cases`,
/// the same on the reader's machine), else `cases` (an absolute folder of the grading machine means
/// nothing to a student; a student pack keeps its cases in `cases/`).
fn shown_cases_root(report_root: &str) -> &str {
    if report_root.is_empty() || std::path::Path::new(report_root).is_absolute() {
        "cases"
    } else {
        report_root.trim_end_matches('/')
    }
}

/// A failing case's first difference as plain lines for a student (inside a Markdown code block):
/// the two lines one above the other with the difference marked, the input read by then, and the
/// command that runs the case again. `None` when there is nothing to show.
pub fn plain_first_difference(case: &CaseReport, report: &Report) -> Option<String> {
    let root = shown_cases_root(&report.cases_root);
    let mut out = String::new();
    if let Some(problem) = case.games.first() {
        let _ = writeln!(out, "game {}: {}", problem.game, safe(&problem.problem));
        for line in &problem.exchange {
            let _ = writeln!(out, "  {}", safe(line));
        }
        if case.games.len() > 1 {
            let _ = writeln!(out, "({} more games went wrong)", case.games.len() - 1);
        }
    }
    if let Some(d) = &case.divergence {
        let _ = writeln!(
            out,
            "first difference at line {} of your output (line {} of the expected output):",
            d.line, d.expected_line
        );
        let lines = LinePair::new(d.expected.as_deref(), d.actual.as_deref());
        if case.disclosure == crate::load::Disclosure::Output {
            let _ = writeln!(out, "  yours:    {}", lines.actual);
            let _ = writeln!(out, "  (the expected output of this case is not shown)");
        } else {
            let _ = writeln!(out, "  expected: {}", lines.expected);
            let _ = writeln!(out, "  yours:    {}", lines.actual);
            if let (Some(column), Some(what)) = (lines.marker, lines.what) {
                let _ = writeln!(out, "            {}^ {what}", " ".repeat(column));
            }
        }
    }
    if let Some(input) = &case.input {
        match input.consumed {
            Some(n) if n > 0 => {
                let s = if n == 1 { "" } else { "s" };
                let _ =
                    writeln!(out, "input: {root}/{} ({n} line{s} read by then; the last ones:)", input.path);
                let width = input.last.last().map_or(1, |(n, _)| n.to_string().len());
                for (n, line) in &input.last {
                    let _ = writeln!(out, "  {n:>width$} | {}", visible(line, false).text);
                }
            }
            _ => {
                let _ = writeln!(out, "input: {root}/{}", input.path);
            }
        }
        let cases = if root == "cases" { String::new() } else { format!("--cases {root} ") };
        let _ =
            writeln!(out, "run it again: grader {cases}check -a {} --case {} .", report.assignment, case.id);
    }
    (!out.is_empty()).then_some(out)
}

/// An expected and an actual line as shown one above the other: quoted, control characters escaped,
/// whitespace made visible when whitespace is the difference, and a marker under the first difference.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LinePair {
    pub(crate) expected: String,
    pub(crate) actual: String,
    /// Column (within the shown actual line) of the first differing character.
    pub(crate) marker: Option<usize>,
    /// What differs there, in words.
    pub(crate) what: Option<&'static str>,
}

impl LinePair {
    pub(crate) fn new(expected: Option<&str>, actual: Option<&str>) -> LinePair {
        let (Some(expected), Some(actual)) = (expected, actual) else {
            let end = |line: Option<&str>, what: &str| {
                line.map_or_else(|| what.to_owned(), |l| visible(l, false).text)
            };
            return LinePair {
                expected: end(expected, "(end of the expected output)"),
                actual: end(actual, "(end of output)"),
                marker: None,
                what: None,
            };
        };
        let e: Vec<char> = expected.chars().collect();
        let a: Vec<char> = actual.chars().collect();
        let first = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
        let what = match (e.get(first), a.get(first)) {
            (Some(x), Some(y)) if x.is_whitespace() && y.is_whitespace() => {
                Some("different whitespace (tab or space)")
            }
            (Some(x), Some(y)) if x.to_lowercase().eq(y.to_lowercase()) => Some("letter case"),
            (Some(x), Some(_)) if x.is_whitespace() => Some("missing whitespace"),
            (Some(_), Some(y)) if y.is_whitespace() => Some("extra whitespace"),
            (Some(_), Some(_)) => Some("differs from here"),
            (None, Some(_)) if a[first..].iter().all(|c| c.is_whitespace()) => Some("trailing whitespace"),
            (None, Some(_)) => Some("extra text at the end of the line"),
            (Some(_), None) if e[first..].iter().all(|c| c.is_whitespace()) => {
                Some("missing trailing whitespace")
            }
            (Some(_), None) => Some("the line ends early"),
            (None, None) => None,
        };
        // Whitespace is drawn only when it is what differs: otherwise the lines read as they print.
        let squash = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
        let show_whitespace = squash(expected) == squash(actual)
            || e.get(first).is_some_and(|c| c.is_whitespace())
            || a.get(first).is_some_and(|c| c.is_whitespace());
        let shown_expected = visible(expected, show_whitespace);
        let shown_actual = visible(actual, show_whitespace);
        let marker = what.map(|_| shown_actual.columns.get(first).copied().unwrap_or(shown_actual.width));
        LinePair { expected: shown_expected.text, actual: shown_actual.text, marker, what }
    }
}

/// A line as shown between quotes, and where each of its characters starts.
pub(crate) struct Visible {
    pub(crate) text: String,
    /// Column of each character of the line within `text`.
    columns: Vec<usize>,
    /// Column just past the last character.
    width: usize,
}

/// Quotes a line, escaping control characters as [`safe`] does (`\t`, `\e`), and with `whitespace`
/// draws spaces as `·` and tabs as `→` so that they can be told apart.
pub(crate) fn visible(line: &str, whitespace: bool) -> Visible {
    let mut text = String::from("\"");
    let mut columns = Vec::with_capacity(line.len());
    let mut width = 1;
    let mut one = String::new();
    for c in line.chars() {
        columns.push(width);
        one.clear();
        match c {
            ' ' if whitespace => one.push('·'),
            '\t' if whitespace => one.push('→'),
            c => escape::push(&mut one, c, ONE_LINE),
        }
        width += one.chars().count();
        text.push_str(&one);
    }
    text.push('"');
    Visible { text, columns, width }
}

/// One line of text a student controls as the report shows it: every control character written
/// visibly (`\e`, `\x07`, `\r`, `\t`, `\n`), so that it can neither act on the terminal nor forge a
/// line of the report.
fn safe(text: &str) -> String {
    escape::inert(text, ONE_LINE)
}

/// A line of a block (a compiler's message, a line of a diff) as the report shows it: as [`safe`]
/// but tabs kept, which only move the cursor and line up the source that gcc quotes.
fn safe_block_line(line: &str) -> String {
    escape::inert(line, BLOCK_LINE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(report: &Report, verbosity: Verbosity) -> String {
        let text = render_text(report, TextOptions { diffs: false, verbosity });
        anstream::adapter::strip_str(&text).to_string()
    }

    /// The rendering as a terminal gets it, colours and all, with diffs.
    fn raw(report: &Report, verbosity: Verbosity) -> String {
        render_text(report, TextOptions { diffs: true, verbosity })
    }

    /// [`crate::report::test_support::HOSTILE`] as a report shows it.
    const ESCAPED: &str = r"\e[2J\e]0;pwned\x07\r<img src=x onerror=alert(1)> ``` | \u{9b}31m";

    /// Fails unless every ESC in `raw` starts one of our colours (`ESC [ digits ; m`) and no other
    /// control character than line feed and tab is left.
    fn assert_only_our_colours(raw: &str) {
        for (at, c) in raw.char_indices() {
            match c {
                '\n' | '\t' => {}
                '\x1b' => {
                    let rest = &raw[at + 1..];
                    let sequence = &rest[..rest.find('m').map_or(rest.len(), |end| end + 1)];
                    let colour = sequence.strip_prefix('[').and_then(|s| s.strip_suffix('m'));
                    assert!(
                        colour.is_some_and(|p| p.chars().all(|c| c.is_ascii_digit() || c == ';')),
                        "ESC {sequence:?} at {at} is not one of our colours:\n{raw}"
                    );
                }
                c if c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c) => {
                    panic!("{c:?} at {at} reaches the terminal raw:\n{raw}")
                }
                _ => {}
            }
        }
    }

    #[test]
    fn escape_sequences_in_a_build_log_are_shown_not_run() {
        let text = raw(&crate::report::test_support::hostile_report(), Verbosity::Normal);
        assert_only_our_colours(&text);
        let text = anstream::adapter::strip_str(&text).to_string();
        assert!(text.contains(&format!("    main.c:9:1: error: expected ';' {ESCAPED}\n")), "{text}");
        assert!(text.contains(&format!("    main.c:3:5: warning: unused {ESCAPED}\n")), "{text}");
    }

    #[test]
    fn student_text_reaches_the_terminal_only_escaped_in_every_part_of_a_report() {
        let report = crate::report::test_support::hostile_report();
        for verbosity in [Verbosity::Quiet, Verbosity::Normal, Verbosity::Verbose] {
            assert_only_our_colours(&raw(&report, verbosity));
            assert_only_our_colours(&render_text(&report, TextOptions { diffs: false, verbosity }));
        }
        let text = anstream::adapter::strip_str(&raw(&report, Verbosity::Verbose)).to_string();
        for shown in [
            format!("Demo — students/{ESCAPED}\n"),
            format!("\n    {ESCAPED}\n"),
            format!("\n     exited with status 3; {ESCAPED}\n"),
            format!("\n     game 1: an illegal move {ESCAPED}\n"),
            format!("\n       < {ESCAPED}\n"),
            format!("\n       actual:   \"{ESCAPED}\"\n"),
            format!("\n     +{ESCAPED}\n"),
            format!("\n     stderr: {ESCAPED}\n"),
            format!("\n     reproduce: cd 'students/{ESCAPED}' && ./prog\n"),
        ] {
            assert!(text.contains(&shown), "{shown:?} missing from:\n{text}");
        }
    }

    #[test]
    fn tabs_stay_in_build_logs_and_diffs_and_are_shown_in_one_line_fields() {
        let mut report = crate::report::test_support::hostile_report();
        report.cases[0].note = Some("a\tb".to_owned());
        let text = anstream::adapter::strip_str(&raw(&report, Verbosity::Normal)).to_string();
        assert!(text.contains(&format!("\n        3 |\tputs(\"{ESCAPED}\");\n")), "{text}");
        assert!(text.contains("\n     +\tindented\n"), "{text}");
        assert!(text.contains("\n     a\\tb\n"), "{text}");
    }

    #[test]
    fn a_line_break_in_a_submission_path_or_a_note_cannot_forge_a_line_of_the_report() {
        let mut report = crate::report::test_support::bonus_report();
        report.submission = "students/ada\nScore: 100.00 / 5.00".to_owned();
        report.cases[2].note = Some("wrong\r\nScore: 5.00 / 5.00".to_owned());
        let text = plain(&report, Verbosity::Normal);
        assert_eq!(text.lines().filter(|l| l.starts_with("Score")).count(), 1, "{text}");
        assert!(text.contains(r"Demo — students/ada\nScore: 100.00 / 5.00"), "{text}");
        assert!(text.contains(r"     wrong\r\nScore: 5.00 / 5.00"), "{text}");
    }

    #[test]
    fn a_bonus_category_is_marked_and_its_points_are_named_in_the_total() {
        let report = crate::report::test_support::bonus_report();
        let text = plain(&report, Verbosity::Normal);
        let cube = text.lines().find(|l| l.trim_start().starts_with("cube")).unwrap();
        assert!(cube.contains("2.50 /   5.00") && cube.ends_with("(bonus, beyond the maximum)"), "{text}");
        let play = text.lines().find(|l| l.trim_start().starts_with("play")).unwrap();
        assert!(!play.contains("bonus"), "{text}");
        assert!(text.contains("FAIL cube/take (0.00 / 2.50, bonus)"), "{text}");
        assert!(text.contains("Score: 7.50 / 5.00 (including 2.50 of 5.00 bonus points)"), "{text}");

        let quiet = plain(&report, Verbosity::Quiet);
        assert_eq!(
            quiet,
            "FAIL cube/take (0.00 / 2.50, bonus)\nScore: 7.50 / 5.00 (including 2.50 of 5.00 bonus points)\n"
        );
    }

    #[test]
    fn a_self_check_names_hidden_bonus_points_apart() {
        let mut report = crate::report::test_support::bonus_report();
        report.visible_only = true;
        report.hidden = Some(crate::report::HiddenCases { cases: 2, points: 1.5, bonus_points: 2.0 });
        let text = plain(&report, Verbosity::Normal);
        assert!(
            text.contains("Visible cases: 7.50 / 5.00 points (including 2.50 of 5.00 bonus points)"),
            "{text}"
        );
        assert!(text.contains("2 hidden cases worth 1.50 points (and 2.00 bonus points)"), "{text}");
    }

    #[test]
    fn compiler_messages_keep_their_words_under_colours() {
        let line = "main.c:3:5: error: expected ';' before 'return'";
        let coloured = compiler_colours(line);
        assert_ne!(coloured, line);
        assert_eq!(anstream::adapter::strip_str(&coloured).to_string(), line);
        assert_eq!(compiler_colours("   3 |     return 0"), "   3 |     return 0");
    }

    #[test]
    fn a_doubled_space_is_drawn_and_marked() {
        let pair = LinePair::new(Some("Red moves 3"), Some("Red moves  3"));
        assert_eq!(pair.expected, "\"Red·moves·3\"");
        assert_eq!(pair.actual, "\"Red·moves··3\"");
        assert_eq!(pair.marker, Some(11));
        assert_eq!(pair.what, Some("extra whitespace"));
    }

    #[test]
    fn a_tab_for_a_space_is_named() {
        let pair = LinePair::new(Some("a b"), Some("a\tb"));
        assert_eq!(pair.actual, "\"a→b\"");
        assert_eq!(pair.what, Some("different whitespace (tab or space)"));
        assert_eq!(pair.marker, Some(2));
    }

    #[test]
    fn trailing_whitespace_is_visible() {
        let pair = LinePair::new(Some("end"), Some("end  "));
        assert_eq!(pair.actual, "\"end··\"");
        assert_eq!((pair.marker, pair.what), (Some(4), Some("trailing whitespace")));
    }

    #[test]
    fn words_that_differ_keep_their_spaces_plain() {
        let pair = LinePair::new(Some("Red wins"), Some("Blue wins"));
        assert_eq!(pair.actual, "\"Blue wins\"");
        assert_eq!((pair.marker, pair.what), (Some(1), Some("differs from here")));
        let pair = LinePair::new(Some("red wins"), Some("Red wins"));
        assert_eq!(pair.what, Some("letter case"));
    }

    #[test]
    fn a_missing_line_is_the_end_of_output() {
        let pair = LinePair::new(Some("Board:"), None);
        assert_eq!((pair.expected.as_str(), pair.actual.as_str()), ("\"Board:\"", "(end of output)"));
        assert_eq!(pair.marker, None);
    }

    #[test]
    fn control_characters_are_escaped_and_columns_follow() {
        let pair = LinePair::new(Some("\u{1b}[1mX"), Some("\u{1b}[1mY"));
        assert_eq!(pair.actual, "\"\\e[1mY\"");
        assert_eq!(pair.marker, Some(6));
    }
}
