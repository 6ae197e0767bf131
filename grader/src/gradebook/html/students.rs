//! The students' table, first on the class page: a row per student (their id linking to their
//! feedback page), their total on one line, the percent of the points graded so far, their status as
//! worded badges (build errors and pending hand grades stand out without colour; before the
//! categories, so that a narrow window shows it), and each category.
//! Above it, the filters the page's script brings to life; without the script they stay hidden and the
//! table is all there, in id order.

use std::fmt::Write as _;

use super::super::summary::{graded_max, graded_percent};
use super::super::{Column, Gradebook, Record, StudentStatus};
use super::{escape, passed_every_case, safe_href};

/// The statuses the filter offers: the word a row's `data-flags` holds, and what the menu says.
const STATUS_FILTERS: [(&str, &str); 8] = [
    ("all-passed", "passed every case"),
    ("some-failed", "built, some case failed"),
    ("pending", "hand grades pending"),
    ("late", "marked late"),
    ("build-error", "build error"),
    ("no-files", "no files"),
    ("grader-error", "grader error"),
    ("graded", "graded (built)"),
];

/// The students' section: filters, the count shown, the table.
pub(super) fn students(out: &mut String, book: &Gradebook, feedback_href: &dyn Fn(&str) -> String) {
    out.push_str("<section id=\"students\">\n<h2>Students</h2>\n");
    if book.students.is_empty() {
        out.push_str("<p>No students.</p>\n</section>\n");
        return;
    }
    filters(out, book);
    let n = book.students.len();
    let _ = writeln!(
        out,
        "<p class=\"shown\" id=\"students-shown\" aria-live=\"polite\">{n} {}</p>",
        if n == 1 { "student" } else { "students" }
    );
    out.push_str("<p id=\"students-none\" hidden>No student matches these filters.</p>\n");
    // The max every student shares goes in the header, as the categories' do; a class whose maxes
    // differ (records of an older rubric merged in) shows each beside its total.
    let first = book.students[0].max();
    let shared_max = book.students.iter().all(|s| s.max() == first).then_some(first);
    out.push_str(
        "<div class=\"table-wrap\">\n<table class=\"students sortable\" id=\"students-table\">\n<thead>\n<tr>\
         <th data-key=\"id\" data-type=\"text\">Student</th><th data-key=\"name\" data-type=\"text\">Name</th>\
         <th class=\"num\" data-key=\"total\" data-type=\"number\" title=\"Points; pending hand grades count as 0\">Total",
    );
    if let Some(max) = shared_max {
        let _ = write!(out, "<span class=\"max\">/ {}</span>", points(max));
    }
    out.push_str(
        "</th><th class=\"num\" data-key=\"percent\" data-type=\"number\" title=\"Percent of the points graded so far\">%</th>\
         <th data-key=\"status\" data-type=\"number\">Status</th>",
    );
    for column in &book.columns {
        let _ = write!(
            out,
            "<th class=\"num category\" data-key=\"category:{}\" data-type=\"number\" title=\"{}\">{}<span class=\"max\">/ {}</span></th>",
            escape(&column.id),
            escape(&column_hint(column)),
            breakable(&column.header()),
            points(column.points)
        );
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for student in &book.students {
        student_row(out, book, student, shared_max, feedback_href);
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

/// The filters: a search on id and name, a status, a category the student lost points in, a range of
/// percent. Hidden until the script shows them: without it they could do nothing.
fn filters(out: &mut String, book: &Gradebook) {
    out.push_str(
        "<form class=\"filters\" id=\"student-filters\" role=\"search\" aria-label=\"Filter the students\" hidden>\n\
         <label>Search<input type=\"search\" name=\"q\" placeholder=\"id or name\" autocomplete=\"off\"></label>\n\
         <label>Status<select name=\"status\"><option value=\"\">all</option>",
    );
    for (flag, words) in STATUS_FILTERS {
        let _ = write!(out, "<option value=\"{flag}\">{words}</option>");
    }
    out.push_str("</select></label>\n<label>Lost points in<select name=\"lost\"><option value=\"\">any or none</option>");
    for column in &book.columns {
        let _ = write!(out, "<option value=\"{}\">{}</option>", escape(&column.id), escape(&column.header()));
    }
    out.push_str(
        "</select></label>\n<span class=\"range\">\
         <label>% from<input type=\"number\" name=\"min\" min=\"0\" step=\"any\" inputmode=\"decimal\"></label>\
         <label>to<input type=\"number\" name=\"max\" min=\"0\" step=\"any\" inputmode=\"decimal\"></label></span>\n\
         <button type=\"reset\">Show all</button>\n</form>\n",
    );
}

/// A student's row: `data-flags` for the status filter, `data-percent` for the range; each cell's
/// `data-sort` is its value for sorting (empty: nothing to sort by, last either way).
fn student_row(
    out: &mut String,
    book: &Gradebook,
    student: &Record,
    shared_max: Option<f64>,
    feedback_href: &dyn Fn(&str) -> String,
) {
    let flags = flags(student);
    let percent = graded_percent(student);
    let _ = write!(
        out,
        "<tr class=\"{}\" data-id=\"{}\" data-flags=\"{}\" data-percent=\"{}\">",
        flags.join(" "),
        escape(&student.id),
        flags.join(" "),
        percent.map_or_else(String::new, |p| format!("{p:.3}"))
    );
    let _ = write!(
        out,
        "<td class=\"id\"><a href=\"{}\">{}</a></td><td class=\"name\">{}</td>",
        escape(&safe_href(&feedback_href(&student.id))),
        escape(&student.id),
        escape(student.name.as_deref().unwrap_or(""))
    );
    let total = student.total();
    let _ = write!(out, "<td class=\"num total\" data-sort=\"{total:.2}\"><span>{total:.2}");
    if shared_max.is_none() {
        // A no-break space keeps the total on one line even without the style.
        let _ = write!(out, "&nbsp;/&nbsp;{:.2}", student.max());
    }
    out.push_str("</span></td>");
    match percent {
        // Of fewer points than the total's: said in the cell, not only in the header's tooltip.
        Some(p) if !student.pending().is_empty() => {
            let graded = graded_max(student);
            let _ = write!(
                out,
                "<td class=\"num\" data-sort=\"{p:.3}\" title=\"{p:.1}% of the {graded:.2} points graded so far \
                 (hand grades pending)\">{p:.1}%&nbsp;<small>of&nbsp;{graded:.2}</small></td>"
            );
        }
        Some(p) => {
            let _ = write!(out, "<td class=\"num\" data-sort=\"{p:.3}\">{p:.1}%</td>");
        }
        None => out.push_str("<td class=\"num\" data-sort=\"\">—</td>"),
    }
    let similar = book.similarity.as_ref().is_some_and(|s| s.flagged.contains(&student.id));
    status_cell(out, student, similar);
    for column in &book.columns {
        match student.categories.iter().find(|c| c.id == column.id) {
            Some(c) => match c.score {
                Some(score) => {
                    let lost = if score < c.max - 1e-9 { " lost" } else { "" };
                    let _ = write!(
                        out,
                        "<td class=\"num{lost}\" data-sort=\"{score:.2}\" title=\"{score:.2} of {:.2}\">{score:.2}</td>",
                        c.max
                    );
                }
                None => out.push_str(
                    "<td class=\"num pending\" data-sort=\"\"><span class=\"badge badge-pending\">pending</span></td>",
                ),
            },
            // A record from before the rubric gained this category: nothing to show.
            None => out.push_str("<td class=\"num\" data-sort=\"\"></td>"),
        }
    }
    out.push_str("</tr>\n");
}

/// The status cell: a worded badge for how it went (`build error`, `all passed`, ...; plain `graded`
/// otherwise), one naming the categories still to grade by hand, and the note on what went wrong.
/// Sorted problems first.
fn status_cell(out: &mut String, student: &Record, similar: bool) {
    let (rank, class, words) = match student.status {
        StudentStatus::GraderError => (0, "badge badge-grader-error", "grader error"),
        StudentStatus::NoFiles => (1, "badge badge-no-files", "no files"),
        StudentStatus::BuildError => (2, "badge badge-build-error", "build error"),
        StudentStatus::Graded if passed_every_case(student) => (4, "badge badge-all-passed", "all passed"),
        // The usual case needs no badge: its shaded categories say what it lost.
        StudentStatus::Graded => (3, "plain", "graded"),
    };
    let _ = write!(out, "<td class=\"status\" data-sort=\"{rank}\"><span class=\"{class}\">{words}</span>");
    let pending = student.pending();
    if !pending.is_empty() {
        // Short, to keep the row on one line: the row's own cells say which categories.
        let _ = write!(
            out,
            "<span class=\"badge badge-pending\" title=\"hand grades pending: {}\">pending</span>",
            escape(&pending.join(", "))
        );
    }
    if student.download.late == Some(true) {
        let title = match student.late_penalty {
            Some(percent) => format!("marked late by the download: {percent}% of the points taken off"),
            None => "marked late by the download".to_owned(),
        };
        let _ = write!(out, "<span class=\"badge badge-late\" title=\"{}\">late</span>", escape(&title));
    }
    if similar {
        // What the analysis found, never a verdict: a pair to look at, side by side there.
        let _ = write!(
            out,
            "<a class=\"badge badge-similar\" href=\"{}\" title=\"shares code with another submission at or \
             above the look-at-this line: see the pair side by side\">shares code</a>",
            crate::similarity::report::HTML_FILE
        );
    }
    if let Some(note) = &student.note {
        let _ = write!(out, "<span class=\"note\">{}</span>", escape(note));
    }
    out.push_str("</td>");
}

/// The words a row is filtered by: its status, `pending`, and `all-passed` or `some-failed` for a
/// student whose program was built.
fn flags(student: &Record) -> Vec<&'static str> {
    let mut flags = vec![student.status.word()];
    if !student.pending().is_empty() {
        flags.push("pending");
    }
    if student.download.late == Some(true) {
        flags.push("late");
    }
    if passed_every_case(student) {
        flags.push("all-passed");
    } else if student.status == StudentStatus::Graded {
        flags.push("some-failed");
    }
    flags
}

/// A column's header hint: its title and points, and how it is graded.
fn column_hint(column: &Column) -> String {
    format!(
        "{} ({:.2} points{})",
        column.title,
        column.points,
        match (column.manual, column.bonus) {
            (true, _) => ", by hand",
            (false, true) => ", bonus: in the total, not in the max",
            (false, false) => "",
        }
    )
}

/// Points as short as they are exact: `8`, `2.5`.
fn points(points: f64) -> String {
    let text = format!("{points:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A header escaped, with places to break a long one (`initialize<wbr>Board`, `end-of-<wbr>game`), so
/// that a narrow screen need not widen its column to the whole word.
fn breakable(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous: Option<char> = None;
    for ch in text.chars() {
        if previous.is_some_and(|p| (p.is_lowercase() && ch.is_uppercase()) || p == '-' || p == '_') {
            out.push_str("<wbr>");
        }
        out.push_str(&escape(ch.encode_utf8(&mut [0; 4])));
        previous = Some(ch);
    }
    out
}
