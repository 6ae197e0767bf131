//! The Markdown renderer of a [`Gradebook`]: `summary.md`, the class at a glance (statuses, the spread of
//! totals, each category, the cases most students fail), plus the figures the class page shares with it.

use std::fmt::Write as _;

use super::{CaseStat, Gradebook, Record, StudentStatus};
use crate::report::escape::markdown_inline;

/// Bins of the distribution of totals: 0-10%, 10-20%, ..., 90-100% (100% falls in the last, and so do
/// totals above 100% that bonus points make).
pub(super) const BINS: usize = 10;

/// Width in characters of the largest bin's bar.
const BAR_WIDTH: usize = 40;

/// Cases listed as the hardest.
const HARDEST: usize = 10;

/// Every status, in the order they are counted and shown.
pub(super) const STATUSES: [StudentStatus; 4] =
    [StudentStatus::Graded, StudentStatus::BuildError, StudentStatus::NoFiles, StudentStatus::GraderError];

/// A student's total as a percentage of the points available to them (0 when nothing is available).
/// Pending hand-graded categories count as 0 until graded, as they do in the total; bonus points can
/// take it above 100.
pub(super) fn percent_of_max(record: &Record) -> f64 {
    let max = record.max();
    if max > 0.0 {
        // Multiplying first keeps round totals (3 of 10) exact: 3 * 100 / 10 is 30, 3 / 10 * 100 is not.
        record.total() * 100.0 / max
    } else {
        0.0
    }
}

/// A student's total as a percentage of the points graded so far: hand-graded categories still
/// pending are left out of the max as they are of the total, so that a student awaiting a style
/// grade is not shown as failing it (as a spreadsheet's "ungraded is excluded"). The same as
/// [`percent_of_max`] once nothing is pending; `None` while nothing of theirs is graded at all.
pub(super) fn graded_percent(record: &Record) -> Option<f64> {
    if record.pending().is_empty() {
        return Some(percent_of_max(record));
    }
    let graded = graded_max(record);
    (graded > 0.0).then(|| record.total() * 100.0 / graded)
}

/// The points of a student's categories graded so far (bonus ones aside): what [`graded_percent`] is
/// a percentage of.
pub(super) fn graded_max(record: &Record) -> f64 {
    let graded: f64 = record.categories.iter().filter(|c| !c.bonus && c.score.is_some()).map(|c| c.max).sum();
    crate::points::round(graded)
}

/// Students with hand-graded categories still pending.
pub(super) fn pending_students(book: &Gradebook) -> usize {
    book.students.iter().filter(|s| !s.pending().is_empty()).count()
}

/// The bin of a percentage: `[10 i, 10 (i + 1))`, with 100% (and above) in the last.
pub(super) fn bin_of(percent: f64) -> usize {
    // The tolerance absorbs float noise of totals with two decimals, so 30% never lands in 20-30%.
    let bin = ((percent + 1e-9) / (100.0 / BINS as f64)).floor();
    if bin.is_nan() || bin < 0.0 {
        0
    } else {
        (bin as usize).min(BINS - 1)
    }
}

/// The label of bin `i`: `0-10%`, ..., `90-100%`.
pub(super) fn bin_label(i: usize) -> String {
    let step = 100 / BINS;
    format!("{}-{}%", i * step, (i + 1) * step)
}

/// The spread of a class's totals, as percentages of the points graded so far ([`graded_percent`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Distribution {
    /// Students per bin.
    pub bins: [usize; BINS],
    /// Of each bin's students, those with hand grades pending: shown apart, since their percent
    /// is of fewer points.
    pub pending: [usize; BINS],
    /// Students with nothing graded yet (every category pending by hand): in no bin.
    pub ungraded: usize,
    /// Mean, median, min, max and (population) standard deviation; `None` for a class with nobody
    /// in a bin.
    pub stats: Option<Stats>,
}

/// Summary statistics of percentages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Stats {
    /// Mean.
    pub mean: f64,
    /// Median (the mean of the middle two in an even class).
    pub median: f64,
    /// Lowest.
    pub min: f64,
    /// Highest.
    pub max: f64,
    /// Population standard deviation (the class is the whole population, not a sample).
    pub std_dev: f64,
}

impl Distribution {
    /// The distribution of the class's totals.
    pub(super) fn of(book: &Gradebook) -> Distribution {
        let mut percents = Vec::with_capacity(book.students.len());
        let (mut bins, mut pending, mut ungraded) = ([0; BINS], [0; BINS], 0);
        for student in &book.students {
            let Some(percent) = graded_percent(student) else {
                ungraded += 1;
                continue;
            };
            bins[bin_of(percent)] += 1;
            if !student.pending().is_empty() {
                pending[bin_of(percent)] += 1;
            }
            percents.push(percent);
        }
        percents.sort_by(f64::total_cmp);
        let stats = (!percents.is_empty()).then(|| {
            let n = percents.len() as f64;
            let mean = percents.iter().sum::<f64>() / n;
            let mid = percents.len() / 2;
            let median = if percents.len() % 2 == 0 {
                (percents[mid - 1] + percents[mid]) / 2.0
            } else {
                percents[mid]
            };
            let variance = percents.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / n;
            Stats {
                mean,
                median,
                min: percents[0],
                max: percents[percents.len() - 1],
                std_dev: variance.sqrt(),
            }
        });
        Distribution { bins, pending, ungraded, stats }
    }

    /// The largest bin's count (at least 1, so bars can be scaled to it).
    pub(super) fn peak(&self) -> usize {
        self.bins.iter().copied().max().unwrap_or(0).max(1)
    }
}

/// Students above 100% of the points graded so far (bonus points), whom the histogram counts in its
/// top bin.
pub(super) fn above_max(book: &Gradebook) -> usize {
    book.students.iter().filter(|s| graded_percent(s).is_some_and(|p| p > 100.0 + 1e-9)).count()
}

/// The sentence saying that `n` students above 100% are counted in the top bin; `None` for none.
pub(super) fn above_max_note(n: usize) -> Option<String> {
    let (who, are) = if n == 1 { ("student", "is") } else { ("students", "are") };
    (n > 0)
        .then(|| format!("{n} {who} above 100% with bonus points {are} counted in {}.", bin_label(BINS - 1)))
}

/// Students per status, every status listed (in [`STATUSES`] order).
pub(super) fn status_counts(book: &Gradebook) -> [(StudentStatus, usize); 4] {
    STATUSES.map(|status| (status, book.students.iter().filter(|s| s.status == status).count()))
}

/// The sentence saying how students with hand grades pending are counted in the spread of totals;
/// `None` when nobody has any pending.
pub(super) fn pending_note(book: &Gradebook, distribution: &Distribution) -> Option<String> {
    let n = pending_students(book);
    if n == 0 {
        return None;
    }
    let (who, have) = if n == 1 { ("student", "has") } else { ("students", "have") };
    let mut note = format!(
        "{n} {who} {have} hand grades pending: their percent is of the points graded so far (automated \
         points only, until their hand grades are in), while their total counts the pending categories as 0."
    );
    let ungraded = distribution.ungraded;
    if ungraded > 0 {
        let (who, is) = if ungraded == 1 { ("student", "is") } else { ("students", "are") };
        let _ = write!(note, " {ungraded} {who} with nothing graded yet {is} in no range.");
    }
    Some(note)
}

/// The sentence saying whom the cases' pass rates count: the students whose program was built.
pub(super) fn pass_rate_note(book: &Gradebook) -> String {
    let [(_, built), (_, build_errors), ..] = status_counts(book);
    let mut note = format!(
        "Pass rates are over the {built} {} whose build succeeded",
        if built == 1 { "student" } else { "students" }
    );
    if build_errors > 0 {
        let who = if build_errors == 1 { "student" } else { "students" };
        let _ = write!(
            note,
            "; of the {build_errors} {who} with a build error, only the cases their program still ran count"
        );
    }
    note.push('.');
    note
}

/// The cases from the lowest pass rate up; ties keep case order. Cases nobody ran say nothing about
/// their difficulty and come last.
pub(super) fn hardest_first(cases: &[CaseStat]) -> Vec<&CaseStat> {
    let mut sorted: Vec<&CaseStat> = cases.iter().collect();
    // Comparing passed/ran as cross products keeps the order exact (no float ties); the sort is stable.
    sorted.sort_by(|a, b| match (a.ran == 0, b.ran == 0) {
        (false, false) => (a.passed * b.ran).cmp(&(b.passed * a.ran)),
        (unran_a, unran_b) => unran_a.cmp(&unran_b),
    });
    sorted
}

/// A case's pass rate as a percentage with one decimal, `—` when nobody ran it.
pub(super) fn pass_percent(case: &CaseStat) -> String {
    if case.ran == 0 {
        "—".to_owned()
    } else {
        format!("{:.1}%", case.pass_rate() * 100.0)
    }
}

/// Renders `summary.md`: statuses, the distribution of totals, each category, the hardest cases.
pub fn render_summary(book: &Gradebook) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} ({}): class summary", inline(&book.title), inline(&book.assignment));
    out.push('\n');
    if let Some(banner) = &book.partial {
        let _ = writeln!(out, "**{}**\n", inline(banner));
    }

    let n = book.students.len();
    let counts = status_counts(book);
    let _ = writeln!(out, "{n} {}.", if n == 1 { "student" } else { "students" });
    out.push('\n');
    out.push_str("| Status | Students |\n|---|---:|\n");
    for (status, count) in counts {
        let _ = writeln!(out, "| {} | {count} |", status.word());
    }

    out.push_str(&download_section(book));

    out.push_str("\n## Totals (percent of the points graded so far)\n\n");
    let distribution = Distribution::of(book);
    match distribution.stats {
        Some(s) => {
            let _ = writeln!(
                out,
                "Mean {:.1}%, median {:.1}%, min {:.1}%, max {:.1}%, standard deviation {:.1}%.",
                s.mean, s.median, s.min, s.max, s.std_dev
            );
        }
        None => out.push_str("No students: no statistics.\n"),
    }
    // Said once here, so nobody reads totals awaiting hand grades as a class-wide failure.
    if let Some(note) = pending_note(book, &distribution) {
        let _ = writeln!(out, "\n{note}");
    }
    out.push_str("\n| Range | Students | Hand grades pending | |\n|---|---:|---:|---|\n");
    let peak = distribution.peak();
    for (i, &count) in distribution.bins.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {} | {count} | {} | {} |",
            bin_label(i),
            distribution.pending[i],
            "█".repeat(bar_length(count, peak))
        );
    }
    if let Some(note) = above_max_note(above_max(book)) {
        let _ = writeln!(out, "\n{note}");
    }

    out.push_str("\n## Categories\n\n");
    out.push_str(
        "| Category | Title | Mean | Available | Full marks | Pending |\n|---|---|---:|---:|---:|---:|\n",
    );
    for column in &book.columns {
        let scores: Vec<_> =
            book.students.iter().filter_map(|s| s.categories.iter().find(|c| c.id == column.id)).collect();
        let graded: Vec<_> = scores.iter().filter_map(|c| c.score.map(|score| (score, c.max))).collect();
        let mean = if graded.is_empty() {
            "—".to_owned()
        } else {
            format!("{:.2}", graded.iter().map(|(score, _)| score).sum::<f64>() / graded.len() as f64)
        };
        // Against the student's own max: a self-check's category may be worth less than the rubric says.
        let full = graded.iter().filter(|(score, max)| *score >= *max - 1e-9).count();
        let pending = if column.manual {
            scores.iter().filter(|c| c.score.is_none()).count().to_string()
        } else {
            "—".to_owned()
        };
        let title = match (column.manual, column.bonus) {
            (true, _) => format!("{} (by hand)", column.title),
            (false, true) => format!("{} (bonus, not in the max)", column.title),
            (false, false) => column.title.clone(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {mean} | {:.2} | {full} | {pending} |",
            cell(&column.id),
            cell(&title),
            column.points
        );
    }

    out.push_str("\n## Hardest cases\n\n");
    if book.cases.is_empty() {
        out.push_str("No cases.\n");
    } else {
        let _ = writeln!(out, "{}\n", pass_rate_note(book));
        out.push_str("| Case | Category | Hidden | Passed | Pass rate |\n|---|---|---|---:|---:|\n");
        for case in hardest_first(&book.cases).into_iter().take(HARDEST) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {}/{} | {} |",
                cell(&case.id),
                cell(&case.category),
                if case.hidden { "yes" } else { "no" },
                case.passed,
                case.ran,
                pass_percent(case)
            );
        }
    }
    out
}

/// What the class download said that the instructor should see: the late submissions (where the
/// download marks them) and the ids with several submissions, one of them graded (names from the
/// download escaped: they are the students').
fn download_section(book: &Gradebook) -> String {
    let mut out = String::new();
    if book.students.iter().any(|s| s.download.late.is_some()) {
        let late: Vec<&Record> = book.students.iter().filter(|s| s.download.late == Some(true)).collect();
        let (n, s) = (late.len(), if late.len() == 1 { "" } else { "s" });
        let _ = write!(out, "\n{n} submission{s} marked late by the download");
        match late.iter().find_map(|s| s.late_penalty) {
            Some(percent) => {
                let _ = writeln!(out, ", {percent}% of their points taken off (`[late] penalty`).");
            }
            None => out.push_str(" (the assignment has no `[late] penalty`: no points taken off).\n"),
        }
    }
    let several: Vec<&Record> = book.students.iter().filter(|s| !s.download.left_out.is_empty()).collect();
    if !several.is_empty() {
        out.push_str("\n## Several submissions under one id\n\n");
        out.push_str("One of each was graded; keep one in the download and re-run to grade another.\n\n");
        out.push_str("| Student | Graded | Left out |\n|---|---|---|\n");
        for s in several {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                markdown_inline(&s.id),
                markdown_inline(&s.origin),
                markdown_inline(&s.download.left_out.join(", "))
            );
        }
    }
    out
}

/// Characters of a bin's bar: proportional to the peak, at least one for a non-empty bin so it shows.
fn bar_length(count: usize, peak: usize) -> usize {
    if count == 0 {
        0
    } else {
        ((count * BAR_WIDTH + peak / 2) / peak).clamp(1, BAR_WIDTH)
    }
}

/// Text on one line: a line break in data would end a heading or a table row early.
fn inline(text: &str) -> String {
    text.split(['\r', '\n']).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Text for a table cell: on one line, with `|` escaped so it cannot split the cell.
fn cell(text: &str) -> String {
    inline(text).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::super::testing::columns;
    use super::*;

    /// A student named after their id.
    fn student(id: &str, status: StudentStatus, play: f64, style: Option<f64>) -> Record {
        super::super::testing::student(id, &format!("Student {id}"), status, play, style)
    }

    fn case(id: &str, category: &str, hidden: bool, passed: usize, ran: usize) -> CaseStat {
        CaseStat {
            id: id.to_owned(),
            title: format!("case {id}"),
            category: category.to_owned(),
            hidden,
            passed,
            ran,
        }
    }

    /// Three students of 10 points: 100%, 3 of the 8 graded (37.5%, style pending), 0% (build error).
    fn book() -> Gradebook {
        Gradebook {
            assignment: "connect4".to_owned(),
            title: "Connect Four".to_owned(),
            columns: columns(),
            students: vec![
                student("a1", StudentStatus::Graded, 8.0, Some(2.0)),
                student("b2", StudentStatus::Graded, 3.0, None),
                student("c3", StudentStatus::BuildError, 0.0, Some(0.0)),
            ],
            cases: vec![
                case("win-row", "play", false, 2, 3),
                case("full-board", "play", true, 0, 2),
                case("undo", "play", false, 1, 3),
            ],
            partial: None,
            similarity: None,
        }
    }

    fn empty() -> Gradebook {
        Gradebook { students: Vec::new(), ..book() }
    }

    #[test]
    fn percents_fall_in_the_right_bins() {
        assert_eq!(bin_of(0.0), 0);
        assert_eq!(bin_of(9.99), 0);
        assert_eq!(bin_of(10.0), 1);
        assert_eq!(bin_of(29.999_999_999_999_996), 3);
        assert_eq!(bin_of(99.9), 9);
        assert_eq!(bin_of(100.0), 9);
        assert_eq!(bin_of(-5.0), 0);
        assert_eq!(bin_label(0), "0-10%");
        assert_eq!(bin_label(9), "90-100%");
    }

    #[test]
    fn distribution_counts_and_statistics() {
        let d = Distribution::of(&book());
        assert_eq!(d.bins, [1, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
        assert_eq!(d.pending, [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(d.ungraded, 0);
        let s = d.stats.unwrap();
        assert!((s.mean - 137.5 / 3.0).abs() < 1e-9);
        assert_eq!((s.median, s.min, s.max), (37.5, 0.0, 100.0));
        let variance = [100.0_f64, 37.5, 0.0].iter().map(|p| (p - 137.5 / 3.0).powi(2)).sum::<f64>() / 3.0;
        assert!((s.std_dev - variance.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn even_class_median_is_the_middle_mean() {
        let mut book = book();
        book.students.push(student("d4", StudentStatus::Graded, 5.0, Some(1.0)));
        // 0, 37.5, 60, 100.
        assert_eq!(Distribution::of(&book).stats.unwrap().median, 48.75);
    }

    #[test]
    fn summary_gives_counts_statistics_and_bins() {
        let md = render_summary(&book());
        assert!(md.starts_with("# Connect Four (connect4): class summary\n"), "{md}");
        assert!(md.contains("3 students."), "{md}");
        assert!(md.contains("| graded | 2 |"), "{md}");
        assert!(md.contains("| build-error | 1 |"), "{md}");
        assert!(md.contains("| no-files | 0 |"), "{md}");
        assert!(md.contains("| grader-error | 0 |"), "{md}");
        assert!(
            md.contains("Mean 45.8%, median 37.5%, min 0.0%, max 100.0%, standard deviation 41.2%."),
            "{md}"
        );
        assert!(md.contains("## Totals (percent of the points graded so far)\n"), "{md}");
        assert!(
            md.contains(
                "1 student has hand grades pending: their percent is of the points graded so far (automated \
                 points only, until their hand grades are in), while their total counts the pending categories as 0."
            ),
            "{md}"
        );
        let full = "█".repeat(BAR_WIDTH);
        assert!(md.contains("| Range | Students | Hand grades pending | |\n"), "{md}");
        assert!(md.contains(&format!("| 0-10% | 1 | 0 | {full} |")), "{md}");
        assert!(md.contains("| 10-20% | 0 | 0 |  |"), "{md}");
        assert!(md.contains(&format!("| 30-40% | 1 | 1 | {full} |")), "{md}");
        assert!(md.contains(&format!("| 90-100% | 1 | 0 | {full} |")), "{md}");
    }

    #[test]
    fn a_student_awaiting_hand_grades_counts_on_the_points_graded_so_far() {
        let waiting = student("b2", StudentStatus::Graded, 8.0, None);
        assert_eq!(percent_of_max(&waiting), 80.0, "the total counts the pending category as 0");
        assert_eq!(graded_percent(&waiting), Some(100.0), "every automated point");
        let graded = student("a1", StudentStatus::Graded, 8.0, Some(0.5));
        assert_eq!(graded_percent(&graded), Some(percent_of_max(&graded)));
        // Nothing graded yet: a rubric graded all by hand, before any grade.
        let mut nothing = student("z9", StudentStatus::Graded, 0.0, None);
        nothing.categories.remove(0);
        assert_eq!(graded_percent(&nothing), None);

        let book = Gradebook { students: vec![waiting, graded, nothing], ..book() };
        let d = Distribution::of(&book);
        assert_eq!((d.bins[9], d.pending[9], d.ungraded), (1, 1, 1));
        assert_eq!(d.bins[8], 1);
        assert_eq!(pending_students(&book), 2);
        let note = pending_note(&book, &d).unwrap();
        assert!(note.starts_with("2 students have hand grades pending: "), "{note}");
        assert!(note.ends_with(" 1 student with nothing graded yet is in no range."), "{note}");
        assert_eq!(pending_note(&Gradebook { students: vec![graded_only()], ..book }, &d), None);
    }

    /// A student with every category graded.
    fn graded_only() -> Record {
        student("a1", StudentStatus::Graded, 8.0, Some(2.0))
    }

    #[test]
    fn the_pass_rates_say_they_are_over_the_built_students() {
        let md = render_summary(&book());
        assert!(
            md.contains(
                "## Hardest cases\n\nPass rates are over the 2 students whose build succeeded; of the 1 \
                 student with a build error, only the cases their program still ran count.\n\n| Case |"
            ),
            "{md}"
        );
        let built = Gradebook { students: vec![graded_only()], ..book() };
        assert_eq!(pass_rate_note(&built), "Pass rates are over the 1 student whose build succeeded.");
    }

    #[test]
    fn summary_gives_categories() {
        let md = render_summary(&book());
        // play: (8 + 3 + 0) / 3; one full mark. style: (2 + 0) / 2 graded, one full mark, one pending.
        assert!(md.contains("| play | Plays by the rules | 3.67 | 8.00 | 1 | — |"), "{md}");
        assert!(md.contains("| style | Code style (by hand) | 1.00 | 2.00 | 1 | 1 |"), "{md}");
    }

    #[test]
    fn summary_lists_the_lowest_pass_rates_first() {
        let md = render_summary(&book());
        let rows: Vec<&str> =
            md.split("## Hardest cases").nth(1).unwrap().lines().filter(|l| l.starts_with("| ")).collect();
        assert_eq!(
            rows,
            [
                "| Case | Category | Hidden | Passed | Pass rate |",
                "| full-board | play | yes | 0/2 | 0.0% |",
                "| undo | play | no | 1/3 | 33.3% |",
                "| win-row | play | no | 2/3 | 66.7% |",
            ]
        );
    }

    #[test]
    fn hardest_keeps_ten_and_puts_unrun_cases_last() {
        let mut cases: Vec<CaseStat> =
            (0..12).map(|i| case(&format!("k{i:02}"), "play", false, i, 12)).collect();
        cases.insert(0, case("never", "play", false, 0, 0));
        let order: Vec<&str> = hardest_first(&cases).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(order[0], "k00");
        assert_eq!(order[12], "never");
        let md = render_summary(&Gradebook { cases, ..book() });
        let listed =
            md.split("## Hardest cases").nth(1).unwrap().lines().filter(|l| l.starts_with("| k")).count();
        assert_eq!(listed, HARDEST);
        assert!(!md.contains("| never |"));
    }

    #[test]
    fn bars_scale_to_the_largest_bin() {
        assert_eq!(bar_length(0, 5), 0);
        assert_eq!(bar_length(5, 5), BAR_WIDTH);
        assert_eq!(bar_length(1, 1000), 1);
        assert_eq!(bar_length(250, 1000), 10);
    }

    #[test]
    fn table_cells_cannot_break_the_table() {
        let mut book = book();
        book.columns[0].title = "rows | columns\nand more".to_owned();
        let md = render_summary(&book);
        assert!(md.contains("| play | rows \\| columns and more |"), "{md}");
    }

    #[test]
    fn totals_above_the_max_fall_in_the_top_bin_and_are_said_to() {
        use super::super::testing::{cube_column, with_cube};
        let mut book = book();
        book.columns.push(cube_column());
        // a1: 10 + 3 bonus of 10 is 130%; b2: 3 + 5 bonus of the 8 graded (style pending) is 100%,
        // not above it.
        book.students[0] = with_cube(book.students[0].clone(), 3.0);
        book.students[1] = with_cube(book.students[1].clone(), 5.0);
        assert_eq!(percent_of_max(&book.students[0]), 130.0);
        assert_eq!(graded_percent(&book.students[1]), Some(100.0));
        assert_eq!(Distribution::of(&book).bins, [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        assert_eq!(above_max(&book), 1);
        let md = render_summary(&book);
        assert!(md.contains("max 130.0%"), "{md}");
        assert!(md.contains("1 student above 100% with bonus points is counted in 90-100%."), "{md}");
        assert!(
            md.contains("| cube | Doubling cube (bonus, not in the max) | 4.00 | 5.00 | 1 | — |"),
            "{md}"
        );
        assert_eq!(
            above_max_note(2).unwrap(),
            "2 students above 100% with bonus points are counted in 90-100%."
        );
        assert!(!render_summary(&self::book()).contains("above 100%"));
    }

    #[test]
    fn summary_counts_the_late_and_lists_the_ids_with_several_submissions() {
        let mut book = book();
        assert!(!render_summary(&book).contains("late") && !render_summary(&book).contains("Several"));
        book.students[0].download.late = Some(true);
        book.students[0].late_penalty = Some(10.0);
        book.students[1].download.late = Some(false);
        book.students[1].late_penalty = Some(10.0);
        book.students[2].origin = "c3/".to_owned();
        book.students[2].download.left_out = vec!["c3.c".to_owned(), "<b>c3</b>.zip".to_owned()];
        let md = render_summary(&book);
        assert!(
            md.contains("\n1 submission marked late by the download, 10% of their points taken off"),
            "{md}"
        );
        assert!(md.contains("## Several submissions under one id"), "{md}");
        assert!(md.contains("| c3 | c3/ | c3.c, &lt;b&gt;c3&lt;/b&gt;.zip |"), "{md}");
    }

    #[test]
    fn empty_class_renders() {
        let md = render_summary(&empty());
        assert!(md.contains("0 students."));
        assert!(md.contains("No students: no statistics."));
        assert!(md.contains("| 90-100% | 0 | 0 |  |"));
        assert!(md.contains("| play | Plays by the rules | — | 8.00 | 0 | — |"), "{md}");
        assert!(!md.contains("NaN"));
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(render_summary(&book()), render_summary(&book()));
    }
}
