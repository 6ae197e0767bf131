//! The class page's markup: escaping, self-containment, the students first with their badges and
//! filters, the histogram with pending hand grades apart, the cases over the built students.

use super::super::testing::{columns, student};
use super::super::{CaseOutcome, CaseStat, StudentStatus};
use super::cases::RATE_BAR;
use super::histogram::{BOTTOM, HEIGHT, TOP};
use super::*;
use crate::gradebook::summary::BINS;

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

/// Four students: full marks, a pending hand grade with a failed case, a build error, and a hostile
/// one the grader could not grade.
fn book() -> Gradebook {
    let mut hostile = student(HOSTILE_ID, HOSTILE_NAME, StudentStatus::GraderError, 0.0, None);
    hostile.note = Some("archive <bad> & 'broken'".to_owned());
    hostile.cases.clear();
    let mut bo = student("b2", "Bo", StudentStatus::Graded, 3.0, None);
    bo.cases.push(CaseOutcome { id: "c2".to_owned(), passed: false, status: "failed".to_owned() });
    let mut cy = student("c3", "Cy", StudentStatus::BuildError, 0.0, Some(0.0));
    cy.note = Some("main.c: expected ';'".to_owned());
    Gradebook {
        assignment: "connect4".to_owned(),
        title: "Connect <Four>".to_owned(),
        columns: columns(),
        // Sorted by id, as a gradebook's students are: `"` sorts before letters.
        students: vec![hostile, student("a1", "Ada", StudentStatus::Graded, 8.0, Some(2.0)), bo, cy],
        cases: vec![case("win-row", 2, 3), case("full-board", 0, 2), case("undo", 1, 3)],
        partial: None,
        similarity: None,
    }
}

fn href(id: &str) -> String {
    format!("students/{id}/feedback.html")
}

fn render(book: &Gradebook) -> String {
    render_class_html(book, &href)
}

/// Elements that have no end tag.
const VOID: [&str; 5] = ["meta", "input", "wbr", "br", "link"];

/// Checks that every element is closed, in order. Tag names only: attribute values hold no `<` or
/// `>` once escaped, which is what this also checks. The page's script is skipped whole.
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
        if tag == "script" {
            rest = &rest[rest.find("</script>").expect("script closed")..];
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if VOID.contains(&name.as_str()) {
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

/// The text from `start` up to the next `end`.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html.find(start).unwrap_or_else(|| panic!("no {start} in {html}"));
    let rest = &html[from..];
    &rest[..rest.find(end).unwrap_or_else(|| panic!("no {end} after {start}"))]
}

/// The students' table body.
fn student_rows(html: &str) -> &str {
    between(between(html, "<table class=\"students", "</table>"), "<tbody>", "</tbody>")
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
    assert_eq!(safe_href("students/a1/feedback.html"), "students/a1/feedback.html");
    assert_eq!(safe_href("javascript:alert(1)"), "./javascript:alert(1)");
    assert_eq!(safe_href("students/a:b/feedback.html"), "students/a:b/feedback.html");
}

#[test]
fn hostile_names_and_ids_are_escaped() {
    let html = render(&book());
    // The one script is the page's own, at the end.
    assert_eq!(count(&html, "<script"), 1, "{html}");
    assert_eq!(html.find("<script>"), html.rfind("<script>"));
    assert!(!html.contains(HOSTILE_ID));
    assert!(!html.contains(HOSTILE_NAME));
    assert!(html.contains("<td class=\"name\">&lt;script&gt;alert(1)&lt;/script&gt;</td>"), "{html}");
    assert!(
        html.contains(
            "<a href=\"students/&quot; onmouseover=&quot;x/feedback.html\">&quot; onmouseover=&quot;x</a>"
        ),
        "{html}"
    );
    assert!(html.contains("data-id=\"&quot; onmouseover=&quot;x\""), "{html}");
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
    for external in ["http:", "https:", "src=", "<link", "@import", "url(", "<iframe", "<img"] {
        assert!(!html.contains(external), "{external}");
    }
    assert_well_formed(&html);
    // Counts of the elements most easily left open, as a second look.
    for tag in
        ["table", "thead", "tbody", "tr", "td", "th", "svg", "rect", "text", "line", "title", "a", "section"]
    {
        assert_eq!(
            count(&html, &format!("<{tag} ")) + count(&html, &format!("<{tag}>")),
            count(&html, &format!("</{tag}>")),
            "{tag}"
        );
    }
}

#[test]
fn the_policy_lets_only_the_pages_own_style_and_script_run_and_nothing_load() {
    let html = render(&book());
    let policy = between(&html, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\">");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(policy.contains(&format!("style-src {};", csp_hash(STYLE))), "{policy}");
    assert!(policy.contains(&format!("script-src {};", csp_hash(SCRIPT))), "{policy}");
    assert!(!policy.contains("unsafe"), "{policy}");
    // What the hashes allow is exactly what the page holds.
    assert!(html.contains(&format!("<style>{STYLE}</style>")));
    assert!(html.contains(&format!("<script>{SCRIPT}</script>")));
    // Nothing in them could end their element early.
    for text in [STYLE, SCRIPT] {
        assert!(!text.to_ascii_lowercase().contains("</s") && !text.contains("<!--"));
    }
    assert_eq!(csp_hash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
}

#[test]
fn the_students_come_first_then_the_totals_then_the_cases() {
    let html = render(&book());
    let at = |id: &str| html.find(&format!("<section id=\"{id}\">")).unwrap_or_else(|| panic!("{id}"));
    assert!(at("students") < at("totals") && at("totals") < at("cases"));
    assert!(html.contains("<nav><a href=\"#students\">Students</a>"), "{html}");
}

#[test]
fn the_counts_link_to_their_filters() {
    let html = render(&book());
    assert!(
        html.contains(
            "<p class=\"counts\">4 students: <a href=\"#status=graded\">2 graded</a>, \
             <a href=\"#status=build-error\">1 build-error</a>, <a href=\"#status=no-files\">0 no-files</a>, \
             <a href=\"#status=grader-error\">1 grader-error</a>, \
             <a href=\"#status=pending\">2 with hand grades pending</a>, \
             <a href=\"#status=all-passed\">1 passed every case</a>.</p>"
        ),
        "{html}"
    );
}

#[test]
fn each_student_is_a_row_with_the_total_on_one_line() {
    let html = render(&book());
    let body = student_rows(&html);
    assert_eq!(count(body, "<tr "), 4);
    assert!(
        body.contains(
            "<tr class=\"graded pending some-failed\" data-id=\"b2\" data-flags=\"graded pending some-failed\" \
             data-percent=\"37.500\"><td class=\"id\"><a href=\"students/b2/feedback.html\">b2</a></td>\
             <td class=\"name\">Bo</td>\
             <td class=\"num total\" data-sort=\"3.00\"><span>3.00</span></td>\
             <td class=\"num\" data-sort=\"37.500\" title=\"37.5% of the 8.00 points graded so far (hand grades \
             pending)\">37.5%&nbsp;<small>of&nbsp;8.00</small></td>\
             <td class=\"status\" data-sort=\"3\"><span class=\"plain\">graded</span>\
             <span class=\"badge badge-pending\" title=\"hand grades pending: style\">pending</span></td>\
             <td class=\"num lost\" data-sort=\"3.00\" title=\"3.00 of 8.00\">3.00</td>\
             <td class=\"num pending\" data-sort=\"\"><span class=\"badge badge-pending\">pending</span></td></tr>"
        ),
        "{body}"
    );
    assert!(
        body.contains("<td class=\"num\" data-sort=\"8.00\" title=\"8.00 of 8.00\">8.00</td>"),
        "a full mark is not lost: {body}"
    );
}

#[test]
fn the_max_goes_in_the_header_when_every_student_shares_it_else_beside_each_total() {
    let html = render(&book());
    assert!(html.contains(">Total<span class=\"max\">/ 10</span></th>"), "{html}");
    let mut book = book();
    // A record of a rubric without `style`: its max is 8.
    book.students[1].categories.pop();
    let html = render(&book);
    assert!(html.contains(">Total</th>"), "{html}");
    assert!(html.contains("<span>8.00&nbsp;/&nbsp;8.00</span>"), "{html}");
    assert!(html.contains("<span>3.00&nbsp;/&nbsp;10.00</span>"), "{html}");
}

#[test]
fn build_errors_and_pending_grades_are_marked_in_words() {
    let html = render(&book());
    let body = student_rows(&html);
    assert!(body.contains("<tr class=\"build-error\" data-id=\"c3\" data-flags=\"build-error\""), "{body}");
    assert!(
        body.contains(
            "<td class=\"status\" data-sort=\"2\"><span class=\"badge badge-build-error\">build error</span>\
             <span class=\"note\">main.c: expected &#39;;&#39;</span></td>"
        ),
        "{body}"
    );
    assert!(body.contains("<span class=\"badge badge-all-passed\">all passed</span>"), "{body}");
    assert!(body.contains("<span class=\"badge badge-grader-error\">grader error</span>"), "{body}");
    assert_eq!(count(body, "title=\"hand grades pending: style\">pending</span>"), 2, "{body}");
}

#[test]
fn a_late_submission_and_a_partial_class_are_said_in_words() {
    let mut book = book();
    book.students[0].download.late = Some(true);
    book.students[0].late_penalty = Some(10.0);
    book.partial = Some("Partial: 3 of 5 students graded (stopped by SIGINT) <b>".to_owned());
    let html = render(&book);
    assert!(
        html.contains("<p class=\"partial\" role=\"status\">Partial: 3 of 5 students graded (stopped by SIGINT) &lt;b&gt;</p>"),
        "{html}"
    );
    let body = student_rows(&html);
    assert_eq!(count(body, "<span class=\"badge badge-late\" title=\"marked late by the download: 10% of the points taken off\">late</span>"), 1, "{body}");
    assert!(body.contains("data-flags=\"graded late") || body.contains(" late\""), "{body}");
    assert_well_formed(&html);
    let summary = crate::gradebook::render_summary(&book);
    assert!(summary.contains("**Partial: 3 of 5 students graded"), "{summary}");
}

#[test]
fn the_filters_offer_every_status_and_category_and_wait_for_the_script() {
    let html = render(&book());
    let form = between(&html, "<form class=\"filters\"", "</form>");
    assert!(form.contains(" hidden>"), "without the script they could do nothing: {form}");
    for name in ["q", "status", "lost", "min", "max"] {
        assert!(form.contains(&format!("name=\"{name}\"")), "{name}: {form}");
    }
    for flag in ["all-passed", "some-failed", "pending", "build-error", "no-files", "grader-error", "graded"]
    {
        assert!(form.contains(&format!("<option value=\"{flag}\">")), "{flag}: {form}");
    }
    assert!(form.contains("<option value=\"play\">play</option><option value=\"style\">style</option>"));
    // The table's headers say what the script sorts by.
    let head = between(&html, "<table class=\"students", "</thead>");
    let at: Vec<usize> = ["id", "name", "total", "percent", "status", "category:play", "category:style"]
        .iter()
        .map(|key| head.find(&format!("data-key=\"{key}\"")).unwrap_or_else(|| panic!("{key}: {head}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "the status before the categories: {head}");
    assert!(
        head.contains(
            "<th class=\"num category\" data-key=\"category:style\" data-type=\"number\" \
             title=\"Code style (2.00 points, by hand)\">style<span class=\"max\">/ 2</span></th>"
        ),
        "{head}"
    );
}

#[test]
fn histogram_has_ten_labelled_bars() {
    let html = render(&book());
    assert_eq!(count(&html, "<rect class=\"hist-bar\""), BINS);
    assert!(html.contains("role=\"img\" aria-label=\"Histogram of totals as percent of the points graded so far, students per range: 0-10%: 2 (1 pending), 10-20%: 0,"), "{html}");
    // 0% twice (build error; grader error, pending), 37.5% of the 8 graded points (pending) and 100%.
    assert!(html.contains("<title>0-10%: 2 students, 1 with hand grades pending</title>"), "{html}");
    assert!(html.contains("<title>30-40%: 1 student, 1 with hand grades pending</title>"), "{html}");
    assert!(html.contains("<title>90-100%: 1 student</title>"), "{html}");
    assert!(html.contains(">Total, percent of the points graded so far</text>"));
    assert!(html.contains(" text-anchor=\"middle\">90-100</text>"), "{html}");
    assert!(html.contains(">Students</text>"));
    // The tallest bar fills the plot, its parts together.
    let plot = HEIGHT - TOP - BOTTOM;
    assert!(html.contains(&format!("height=\"{:.1}\"><title>0-10%", plot / 2.0)), "{html}");
    assert!(
        html.contains(&format!("y=\"{TOP:.1}\" width=\"40.0\" height=\"{:.1}\"><title>0-10%", plot / 2.0))
    );
}

#[test]
fn the_histogram_shows_pending_hand_grades_apart_and_says_so() {
    let html = render(&book());
    assert_eq!(count(&html, "<rect class=\"hist-pending\""), 2, "{html}");
    let caption = between(&html, "<figcaption>", "</figcaption>");
    assert!(
        caption.contains(
            "2 students have hand grades pending: their percent is of the points graded so far (automated \
             points only, until their hand grades are in), while their total counts the pending categories as 0."
        ),
        "{caption}"
    );
    assert!(
        caption.contains("<span class=\"swatch swatch-pending\"></span>hand grades pending"),
        "{caption}"
    );
    // With every hand grade in, nothing is drawn or said apart.
    let mut graded = book();
    for student in &mut graded.students {
        student.categories[1].score = Some(1.0);
    }
    let html = render(&graded);
    assert_eq!(count(&html, "<rect class=\"hist-pending\""), 0);
    let caption = between(&html, "<figcaption>", "</figcaption>");
    assert!(!caption.contains("pending"), "{caption}");
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
        html.contains("title=\"Doubling cube (5.00 points, bonus: in the total, not in the max)\">cube (bonus)<span class=\"max\">/ 5</span></th>"),
        "{html}"
    );
    assert!(html.contains("<span>13.00</span>"), "{html}");
    assert!(html.contains(">130.0%</td>"), "{html}");
    assert!(html.contains("<title>90-100%: 1 student</title>"), "{html}");
    assert!(html.contains("1 student above 100% with bonus points is counted in 90-100%."), "{html}");
    assert!(!render(&self::book()).contains("above 100%"));
}

#[test]
fn cases_come_lowest_pass_rate_first_over_the_built_students() {
    let html = render(&book());
    let section = between(&html, "<section id=\"cases\">", "</section>");
    assert!(
        section.contains(
            "<p>Pass rates are over the 2 students whose build succeeded; of the 1 student with a build \
             error, only the cases their program still ran count.</p>"
        ),
        "{section}"
    );
    let table = between(section, "<table class=\"cases sortable\">", "</table>");
    let order: Vec<usize> = ["full-board", "undo", "win-row"]
        .iter()
        .map(|id| table.find(&format!("<td>{id}</td>")).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{table}");
    assert!(table.contains("<td>full-board</td><td>checks full-board</td><td>play</td><td>yes</td><td class=\"num\" data-sort=\"0\">0/2</td><td class=\"num\" data-sort=\"0.0000\">0.0%</td>"), "{table}");
    assert!(
        table.contains(
            "<td class=\"num\" data-sort=\"1\">1/3</td><td class=\"num\" data-sort=\"0.3333\">33.3%</td>"
        ),
        "{table}"
    );
    assert!(
        table.contains(&format!("<rect class=\"rate-fill\" width=\"{:.1}\"", RATE_BAR * 2.0 / 3.0)),
        "{table}"
    );
}

#[test]
fn empty_class_renders() {
    let book = Gradebook { students: Vec::new(), cases: Vec::new(), ..book() };
    let html = render(&book);
    assert_eq!(count(&html, "<rect class=\"hist-bar\""), BINS);
    assert!(
        html.contains("<p class=\"counts\">0 students: <a href=\"#status=graded\">0 graded</a>,"),
        "{html}"
    );
    assert!(html.contains("<p>No students.</p>"));
    assert!(html.contains("<p>No cases.</p>"));
    let markup = &html[..html.find("<script>").unwrap()];
    assert!(!markup.contains("NaN") && !markup.contains("inf"));
    assert_well_formed(&html);
}

#[test]
fn output_is_deterministic() {
    assert_eq!(render(&book()), render(&book()));
}

#[test]
fn the_similarity_analysis_beside_the_page_is_linked_with_what_it_found() {
    assert!(!render(&book()).contains("similarity.html"), "no analysis, no link");
    let summary = crate::similarity::report::Summary {
        pairs: 12,
        above_line: 3,
        students_above_line: 5,
        flagged: ["b2".to_owned()].into(),
    };
    let html = render(&Gradebook { similarity: Some(summary), ..book() });
    // The student in a pair above the line is flagged on their row, linking to the pairs.
    let row = |id: &str| between(&html, &format!("data-id=\"{id}\""), "</tr>");
    assert!(row("b2").contains("<a class=\"badge badge-similar\" href=\"similarity.html\""), "{}", row("b2"));
    assert!(!row("c3").contains("badge-similar"), "{}", row("c3"));
    let line = between(&html, "<p class=\"similarity\">", "</p>");
    assert_eq!(
        line,
        "<p class=\"similarity\">Code shared between submissions: <a href=\"similarity.html\">3 pairs at or \
         above the \u{201c}look at this\u{201d} line, among 5 students</a> (12 pairs share some code beyond \
         the base code)."
    );
    // In the header, before the students.
    assert!(html.find("class=\"similarity\"") < html.find("id=\"students\""));
    assert_well_formed(&html);
}
