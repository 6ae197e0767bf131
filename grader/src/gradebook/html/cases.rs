//! The cases on the class page, lowest pass rate first (the place to fix a handout or a case), over
//! the students whose program was built: a build error says nothing about a case, and counting it as
//! a failure would tie every case at the share of students who built.

use std::fmt::Write as _;

use super::super::summary::{hardest_first, pass_percent, pass_rate_note};
use super::super::Gradebook;
use super::escape;

/// Width of a case's pass-rate bar, in SVG user units.
pub(super) const RATE_BAR: f64 = 100.0;

/// The cases' section: whom the rates count, then a sortable row per case.
pub(super) fn cases(out: &mut String, book: &Gradebook) {
    out.push_str("<section id=\"cases\">\n<h2>Cases, lowest pass rate first</h2>\n");
    if book.cases.is_empty() {
        out.push_str("<p>No cases.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(out, "<p>{}</p>", escape(&pass_rate_note(book)));
    out.push_str(
        "<div class=\"table-wrap\">\n<table class=\"cases sortable\">\n<thead>\n<tr>\
         <th data-key=\"case\" data-type=\"text\">Case</th><th data-key=\"title\" data-type=\"text\">Title</th>\
         <th data-key=\"category\" data-type=\"text\">Category</th><th data-key=\"hidden\" data-type=\"text\">Hidden</th>\
         <th class=\"num\" data-key=\"passed\" data-type=\"number\">Passed</th>\
         <th class=\"num\" data-key=\"rate\" data-type=\"number\">Pass rate</th><th>Bar</th></tr>\n</thead>\n<tbody>\n",
    );
    for case in hardest_first(&book.cases) {
        let fill = RATE_BAR * case.pass_rate();
        let rate = if case.ran == 0 { String::new() } else { format!("{:.4}", case.pass_rate()) };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\" data-sort=\"{}\">{}/{}</td>\
             <td class=\"num\" data-sort=\"{rate}\">{}</td>\
             <td><svg width=\"{RATE_BAR}\" height=\"10\" viewBox=\"0 0 {RATE_BAR} 10\" aria-hidden=\"true\">\
             <rect class=\"rate-track\" width=\"{RATE_BAR}\" height=\"10\"></rect>\
             <rect class=\"rate-fill\" width=\"{fill:.1}\" height=\"10\"></rect></svg></td></tr>",
            escape(&case.id),
            escape(&case.title),
            escape(&case.category),
            if case.hidden { "yes" } else { "no" },
            case.passed,
            case.passed,
            case.ran,
            escape(&pass_percent(case))
        );
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}
