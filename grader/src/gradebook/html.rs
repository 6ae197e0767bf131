//! The HTML renderer of a [`Gradebook`]: `class.html`, one self-contained page (inline style, inline SVG,
//! no script, no external resource) with the spread of totals, each case's pass rate and every student.

use std::fmt::Write as _;

use super::summary::{
    above_max, above_max_note, bin_label, hardest_first, pass_percent, percent_of_max, status_counts,
    Distribution, BINS,
};
use super::{Gradebook, Record};

/// The page's style: plain, printable, readable without it.
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.pending{color:#8a5a00;font-style:italic}
.status-graded{color:#176117}.status-build-error,.status-no-files,.status-grader-error{color:#a11}
.note{display:block;color:#555;font-size:.85em}
svg text{font-size:12px;fill:#1b1b1b}
.hist-bar{fill:#4a78b5}.axis{stroke:#555;stroke-width:1}
.rate-track{fill:#e4e4e4}.rate-fill{fill:#4a78b5}
figure{margin:0}figcaption{color:#555;font-size:.9em}
";

/// Histogram geometry, in SVG user units.
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 20.0;
const BOTTOM: f64 = 52.0;

/// Width of a case's pass-rate bar, in SVG user units.
const RATE_BAR: f64 = 100.0;

/// Renders `class.html`: one self-contained page with the histogram of totals, the cases from the
/// lowest pass rate, and one row per student whose id links to `feedback_href(id)`.
///
/// Every piece of data is HTML-escaped; an href that would name a URL scheme (`javascript:`) is made a
/// relative path instead, so a hostile student id cannot run anything.
pub fn render_class_html(book: &Gradebook, feedback_href: &dyn Fn(&str) -> String) -> String {
    let title = format!("{} ({}): class results", book.title, book.assignment);
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));

    let n = book.students.len();
    let statuses: Vec<String> =
        status_counts(book).iter().map(|(status, count)| format!("{count} {}", status.word())).collect();
    let _ = writeln!(
        out,
        "<p>{n} {}: {}.</p>",
        if n == 1 { "student" } else { "students" },
        escape(&statuses.join(", "))
    );

    histogram(&mut out, book);
    cases(&mut out, book);
    students(&mut out, book, feedback_href);

    out.push_str("</body>\n</html>\n");
    out
}

/// The histogram of totals (percent of max, ten bins) as inline SVG, with its statistics.
fn histogram(out: &mut String, book: &Gradebook) {
    let distribution = Distribution::of(book);
    let peak = distribution.peak();
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let slot = plot_width / BINS as f64;
    let bottom = TOP + plot_height;

    let described: Vec<String> = distribution
        .bins
        .iter()
        .enumerate()
        .map(|(i, &count)| format!("{}: {count}", bin_label(i)))
        .collect();
    let label =
        format!("Histogram of totals as percent of max, students per range: {}", described.join(", "));

    out.push_str("<section>\n<h2>Totals</h2>\n<figure>\n");
    let _ = writeln!(
        out,
        "<svg width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        escape(&label)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&label));
    // Axes: the baseline, and the count axis with its two ends (0 and the peak).
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"></line>",
        WIDTH - RIGHT
    );
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\"></line>"
    );
    let _ =
        writeln!(out, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>", LEFT - 6.0, bottom + 4.0);
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{peak}</text>",
        LEFT - 6.0,
        TOP + 4.0
    );
    for (i, &count) in distribution.bins.iter().enumerate() {
        let height = plot_height * count as f64 / peak as f64;
        let x = LEFT + slot * i as f64 + slot * 0.1;
        let y = bottom - height;
        let centre = LEFT + slot * (i as f64 + 0.5);
        let range = bin_label(i);
        let students = if count == 1 { "student" } else { "students" };
        let _ = writeln!(
            out,
            "<rect class=\"hist-bar\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{height:.1}\"><title>{}</title></rect>",
            slot * 0.8,
            escape(&format!("{range}: {count} {students}"))
        );
        let _ = writeln!(
            out,
            "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{count}</text>",
            y - 4.0
        );
        let _ = writeln!(
            out,
            "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 16.0,
            escape(&range)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">Total, percent of max</text>",
        LEFT + plot_width / 2.0,
        HEIGHT - 8.0
    );
    // The count axis's name, turned to run along it.
    let (cx, cy) = (14.0, TOP + plot_height / 2.0);
    let _ = writeln!(
        out,
        "<text x=\"{cx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {cx:.1} {cy:.1})\">Students</text>"
    );
    out.push_str("</svg>\n");
    let mut caption = match distribution.stats {
        Some(s) => format!(
            "Mean {:.1}%, median {:.1}%, min {:.1}%, max {:.1}%, standard deviation {:.1}%.",
            s.mean, s.median, s.min, s.max, s.std_dev
        ),
        None => "No students.".to_owned(),
    };
    // Said where it applies, so nobody reads totals awaiting hand grades as failures.
    if book.students.iter().any(|s| !s.pending().is_empty()) {
        caption.push_str(" Pending hand-graded categories count as 0 until graded.");
    }
    if let Some(note) = above_max_note(above_max(book)) {
        caption.push(' ');
        caption.push_str(&note);
    }
    let _ = writeln!(out, "<figcaption>{}</figcaption>\n</figure>\n</section>", escape(&caption));
}

/// The cases from the lowest pass rate (the ones most students fail first).
fn cases(out: &mut String, book: &Gradebook) {
    out.push_str("<section>\n<h2>Cases, lowest pass rate first</h2>\n");
    if book.cases.is_empty() {
        out.push_str("<p>No cases.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<table class=\"cases\">\n<thead>\n<tr><th>Case</th><th>Title</th><th>Category</th><th>Hidden</th>\
         <th class=\"num\">Passed</th><th class=\"num\">Pass rate</th><th>Bar</th></tr>\n</thead>\n<tbody>\n",
    );
    for case in hardest_first(&book.cases) {
        let fill = RATE_BAR * case.pass_rate();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}/{}</td><td class=\"num\">{}</td>\
             <td><svg width=\"{RATE_BAR}\" height=\"10\" viewBox=\"0 0 {RATE_BAR} 10\" aria-hidden=\"true\">\
             <rect class=\"rate-track\" width=\"{RATE_BAR}\" height=\"10\"></rect>\
             <rect class=\"rate-fill\" width=\"{fill:.1}\" height=\"10\"></rect></svg></td></tr>",
            escape(&case.id),
            escape(&case.title),
            escape(&case.category),
            if case.hidden { "yes" } else { "no" },
            case.passed,
            case.ran,
            escape(&pass_percent(case))
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// One row per student: id (linked to their feedback), name, total, each category, status.
fn students(out: &mut String, book: &Gradebook, feedback_href: &dyn Fn(&str) -> String) {
    out.push_str("<section>\n<h2>Students</h2>\n");
    if book.students.is_empty() {
        out.push_str("<p>No students.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<table class=\"students\">\n<thead>\n<tr><th>Student</th><th>Name</th><th class=\"num\">Total</th>",
    );
    for column in &book.columns {
        let hint = format!(
            "{} ({:.2} points{})",
            column.title,
            column.points,
            match (column.manual, column.bonus) {
                (true, _) => ", by hand",
                (false, true) => ", bonus: in the total, not in the max",
                (false, false) => "",
            }
        );
        let _ =
            write!(out, "<th class=\"num\" title=\"{}\">{}</th>", escape(&hint), escape(&column.header()));
    }
    out.push_str("<th>Status</th></tr>\n</thead>\n<tbody>\n");
    for student in &book.students {
        student_row(out, book, student, feedback_href);
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// A student's row.
fn student_row(out: &mut String, book: &Gradebook, student: &Record, feedback_href: &dyn Fn(&str) -> String) {
    let _ = write!(
        out,
        "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td class=\"num\" title=\"{:.1}%\">{:.2} / {:.2}</td>",
        escape(&safe_href(&feedback_href(&student.id))),
        escape(&student.id),
        escape(student.name.as_deref().unwrap_or("")),
        percent_of_max(student),
        student.total(),
        student.max()
    );
    for column in &book.columns {
        match student.categories.iter().find(|c| c.id == column.id) {
            Some(c) => match c.score {
                Some(score) => {
                    let _ = write!(out, "<td class=\"num\">{score:.2} / {:.2}</td>", c.max);
                }
                None => out.push_str("<td class=\"pending\">pending</td>"),
            },
            // A record from before the rubric gained this category: nothing to show.
            None => out.push_str("<td></td>"),
        }
    }
    let word = student.status.word();
    let _ = write!(out, "<td class=\"status-{}\">{}", escape(word), escape(word));
    if let Some(note) = &student.note {
        let _ = write!(out, "<span class=\"note\">{}</span>", escape(note));
    }
    out.push_str("</td></tr>\n");
}

/// Escapes text for HTML element content and quoted attribute values: `& < > " '`.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            _ => escaped.push(ch),
        }
    }
    escaped
}

/// An href kept relative: one whose first segment looks like a scheme (`javascript:`, `data:`) gets
/// `./` in front, which makes it a path. Escaping alone would not stop a `javascript:` link.
fn safe_href(href: &str) -> String {
    let first = href.split(['/', '?', '#']).next().unwrap_or("");
    if first.contains(':') {
        format!("./{href}")
    } else {
        href.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{columns, student};
    use super::super::{CaseStat, StudentStatus};
    use super::*;

    fn case(id: &str, passed: usize, ran: usize) -> CaseStat {
        CaseStat {
            id: id.to_owned(),
            title: format!("checks {id}"),
            category: "play".to_owned(),
            hidden: id == "full-board",
            passed,
            ran,
        }
    }

    const HOSTILE_NAME: &str = "<script>alert(1)</script>";
    const HOSTILE_ID: &str = "\" onmouseover=\"x";

    /// Four students: full marks, a pending hand grade, a build error, and a hostile one.
    fn book() -> Gradebook {
        let mut hostile = student(HOSTILE_ID, HOSTILE_NAME, StudentStatus::GraderError, 0.0, None);
        hostile.note = Some("archive <bad> & 'broken'".to_owned());
        Gradebook {
            assignment: "connect4".to_owned(),
            title: "Connect <Four>".to_owned(),
            columns: columns(),
            // Sorted by id, as a gradebook's students are: `"` sorts before letters.
            students: vec![
                hostile,
                student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0)),
                student("b2", "Bo", StudentStatus::Graded, 3.0, None),
                student("c3", "Cy", StudentStatus::BuildError, 0.0, Some(0.0)),
            ],
            cases: vec![case("win-row", 2, 3), case("full-board", 0, 2), case("undo", 1, 3)],
        }
    }

    fn href(id: &str) -> String {
        format!("students/{id}/feedback.md")
    }

    fn render(book: &Gradebook) -> String {
        render_class_html(book, &href)
    }

    /// Checks that every element is closed, in order; `meta` is void. Tag names only: attribute
    /// values hold no `<` or `>` once escaped, which is what this also checks.
    fn assert_well_formed(html: &str) {
        let mut open: Vec<String> = Vec::new();
        let mut rest = html;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').expect("unterminated tag") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
            rest = &rest[end + 1..];
            if tag.starts_with('!') {
                continue;
            }
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            if name == "meta" {
                continue;
            }
            if tag.starts_with('/') {
                assert_eq!(open.pop().as_deref(), Some(name.as_str()), "closing {name} out of order");
            } else {
                assert!(!tag.ends_with('/'), "self-closing {tag}");
                open.push(name);
            }
        }
        assert!(open.is_empty(), "never closed: {open:?}");
    }

    fn count(html: &str, pattern: &str) -> usize {
        html.matches(pattern).count()
    }

    #[test]
    fn escape_neutralises_hostile_text() {
        assert_eq!(escape(HOSTILE_NAME), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(escape(HOSTILE_ID), "&quot; onmouseover=&quot;x");
        assert_eq!(escape("a & b 'c'"), "a &amp; b &#39;c&#39;");
        assert_eq!(escape("&lt;"), "&amp;lt;");
        assert_eq!(escape("plain é"), "plain é");
    }

    #[test]
    fn hrefs_stay_relative() {
        assert_eq!(safe_href("students/a1/feedback.md"), "students/a1/feedback.md");
        assert_eq!(safe_href("javascript:alert(1)"), "./javascript:alert(1)");
        assert_eq!(safe_href("students/a:b/feedback.md"), "students/a:b/feedback.md");
    }

    #[test]
    fn hostile_names_and_ids_are_escaped() {
        let html = render(&book());
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains(HOSTILE_ID));
        assert!(html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"), "{html}");
        assert!(
            html.contains(
                "<a href=\"students/&quot; onmouseover=&quot;x/feedback.md\">&quot; onmouseover=&quot;x</a>"
            ),
            "{html}"
        );
        assert!(html.contains("archive &lt;bad&gt; &amp; &#39;broken&#39;"), "{html}");
        assert!(html.contains("<title>Connect &lt;Four&gt; (connect4): class results</title>"));
        let scheme = render_class_html(&book(), &|id: &str| format!("javascript:{id}"));
        assert!(scheme.contains("href=\"./javascript:a1\""), "{scheme}");
    }

    #[test]
    fn page_is_complete_and_self_contained() {
        let html = render(&book());
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"));
        assert!(html.ends_with("</html>\n"));
        for external in ["http:", "https:", "src=", "<link", "<script", "@import", "url("] {
            assert!(!html.contains(external), "{external}");
        }
        assert_well_formed(&html);
        // Counts of the elements most easily left open, as a second look.
        for tag in ["table", "thead", "tbody", "tr", "td", "th", "svg", "rect", "text", "line", "title", "a"]
        {
            assert_eq!(
                count(&html, &format!("<{tag} ")) + count(&html, &format!("<{tag}>")),
                count(&html, &format!("</{tag}>")),
                "{tag}"
            );
        }
    }

    #[test]
    fn histogram_has_ten_labelled_bars() {
        let html = render(&book());
        assert_eq!(count(&html, "<rect class=\"hist-bar\""), BINS);
        assert!(html.contains("role=\"img\" aria-label=\"Histogram of totals as percent of max, students per range: 0-10%: 2, 10-20%: 0,"), "{html}");
        // 0% twice (build error, grader error), 30% (pending style) and 100%.
        assert!(html.contains("<title>0-10%: 2 students</title>"), "{html}");
        assert!(html.contains("<title>30-40%: 1 student</title>"), "{html}");
        assert!(html.contains("<title>90-100%: 1 student</title>"), "{html}");
        assert!(html.contains(">Total, percent of max</text>"));
        assert!(html.contains(">Students</text>"));
        assert!(html
            .contains("standard deviation 40.9%. Pending hand-graded categories count as 0 until graded."));
        // The tallest bar fills the plot.
        let full = format!("height=\"{:.1}\"><title>0-10%", HEIGHT - TOP - BOTTOM);
        assert!(html.contains(&full), "{html}");
    }

    #[test]
    fn a_bonus_column_and_totals_above_the_max_are_said_to_be_what_they_are() {
        use super::super::testing::{cube_column, with_cube};
        let mut book = book();
        book.columns.push(cube_column());
        book.students[1] = with_cube(book.students[1].clone(), 3.0);
        let html = render(&book);
        assert_well_formed(&html);
        assert!(
            html.contains("<th class=\"num\" title=\"Doubling cube (5.00 points, bonus: in the total, not in the max)\">cube (bonus)</th>"),
            "{html}"
        );
        assert!(html.contains("title=\"130.0%\">13.00 / 10.00</td>"), "{html}");
        assert!(html.contains("<title>90-100%: 1 student</title>"), "{html}");
        assert!(
            html.contains("1 student above 100% with bonus points is counted in 90-100%.</figcaption>"),
            "{html}"
        );
        assert!(!render(&self::book()).contains("above 100%"));
    }

    #[test]
    fn cases_come_lowest_pass_rate_first() {
        let html = render(&book());
        let table = &html[html.find("<table class=\"cases\">").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        let order: Vec<usize> = ["full-board", "undo", "win-row"]
            .iter()
            .map(|id| table.find(&format!("<td>{id}</td>")).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{table}");
        assert!(table.contains("<td>full-board</td><td>checks full-board</td><td>play</td><td>yes</td><td class=\"num\">0/2</td><td class=\"num\">0.0%</td>"), "{table}");
        assert!(table.contains("<td class=\"num\">1/3</td><td class=\"num\">33.3%</td>"), "{table}");
        assert!(table.contains("<rect class=\"rate-fill\" width=\"66.7\""), "{table}");
    }

    #[test]
    fn students_have_one_row_each_with_pending_cells() {
        let html = render(&book());
        let table = &html[html.find("<table class=\"students\">").unwrap()..];
        let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
        assert_eq!(count(body, "<tr>"), 4);
        assert!(body.contains(
            "<tr><td><a href=\"students/b2/feedback.md\">b2</a></td><td>Bo</td><td class=\"num\" title=\"30.0%\">3.00 / 10.00</td>\
             <td class=\"num\">3.00 / 8.00</td><td class=\"pending\">pending</td><td class=\"status-graded\">graded</td></tr>"
        ), "{body}");
        assert!(body.contains("<td class=\"status-build-error\">build-error</td>"));
        assert!(
            table.contains("<th class=\"num\" title=\"Code style (2.00 points, by hand)\">style</th>"),
            "{table}"
        );
    }

    #[test]
    fn empty_class_renders() {
        let book = Gradebook { students: Vec::new(), cases: Vec::new(), ..book() };
        let html = render(&book);
        assert_eq!(count(&html, "<rect class=\"hist-bar\""), BINS);
        assert!(html.contains("<p>0 students: 0 graded, 0 build-error, 0 no-files, 0 grader-error.</p>"));
        assert!(html.contains("<p>No students.</p>"));
        assert!(html.contains("<p>No cases.</p>"));
        assert!(!html.contains("NaN") && !html.contains("inf"));
        assert_well_formed(&html);
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(render(&book()), render(&book()));
    }
}
