//! The HTML renderer of a [`Gradebook`]: `class.html`, the instructor's page of a class. First the
//! students, sortable and filterable, then the spread of totals and each case's pass rate. One
//! self-contained file: inline style, inline SVG and a small inline script that only sorts and
//! filters what the HTML already holds; a Content-Security-Policy lets nothing else load or run.

mod cases;
mod histogram;
mod students;

use std::fmt::Write as _;

use base64::Engine as _;
use sha2::Digest as _;

use super::summary::{pending_students, status_counts};
use super::{Gradebook, Record, StudentStatus};

/// The page's style: plain, printable, readable without it.
const STYLE: &str = include_str!("html/class_page.css");

/// The page's script: sorting, filtering, and the measurements the browser tests read.
const SCRIPT: &str = include_str!("html/class_page.js");

/// Renders `class.html`: the students (each id linking to `feedback_href(id)`), the histogram of
/// totals and the cases from the lowest pass rate.
///
/// Every piece of data is HTML-escaped; an href that would name a URL scheme (`javascript:`) is made a
/// relative path instead, so a hostile student id cannot run anything.
pub fn render_class_html(book: &Gradebook, feedback_href: &dyn Fn(&str) -> String) -> String {
    let title = format!("{} ({}): class results", book.title, book.assignment);
    let mut out = String::new();
    page_head(&mut out, &title, STYLE, Some(SCRIPT));
    out.push_str("<header>\n");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    if let Some(banner) = &book.partial {
        let _ = writeln!(out, "<p class=\"partial\" role=\"status\">{}</p>", escape(banner));
    }
    counts(&mut out, book);
    if let Some(similarity) = &book.similarity {
        similarity_line(&mut out, similarity);
    }
    out.push_str(
        "<nav><a href=\"#students\">Students</a><a href=\"#totals\">Totals</a><a href=\"#cases\">Cases</a></nav>\n",
    );
    out.push_str("</header>\n<main>\n");
    students::students(&mut out, book, feedback_href);
    histogram::histogram(&mut out, book);
    cases::cases(&mut out, book);
    out.push_str("</main>\n");
    let _ = writeln!(out, "<script>{SCRIPT}</script>");
    out.push_str("</body>\n</html>\n");
    out
}

/// The document's start up to `<body>`: the title, the style, and a policy that lets the page load
/// nothing and run only its own style and script (by their hashes): no network, and no markup that
/// slipped through escaping could run.
pub(crate) fn page_head(out: &mut String, title: &str, style: &str, script: Option<&str>) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let script_src = script.map_or_else(|| "'none'".to_owned(), csp_hash);
    let _ = writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src {}; \
         script-src {script_src}; base-uri 'none'; form-action 'none'\">",
        csp_hash(style)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(out, "<style>{style}</style>\n</head>\n<body>");
}

/// A Content-Security-Policy source allowing exactly this inline text: `'sha256-<base64>'`.
fn csp_hash(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// The class in one line: students per status and with hand grades pending, each a link that
/// filters the table to them.
fn counts(out: &mut String, book: &Gradebook) {
    let n = book.students.len();
    let mut parts: Vec<String> = status_counts(book)
        .iter()
        .map(|(status, count)| filter_link(status.word(), &format!("{count} {}", status.word())))
        .collect();
    let pending = pending_students(book);
    if pending > 0 {
        parts.push(filter_link("pending", &format!("{pending} with hand grades pending")));
    }
    let all_passed = book.students.iter().filter(|s| passed_every_case(s)).count();
    parts.push(filter_link("all-passed", &format!("{all_passed} passed every case")));
    let _ = writeln!(
        out,
        "<p class=\"counts\">{n} {}: {}.</p>",
        if n == 1 { "student" } else { "students" },
        parts.join(", ")
    );
}

/// The similarity analysis beside the page, in one line linking to it: what it found, never a verdict.
fn similarity_line(out: &mut String, summary: &crate::similarity::report::Summary) {
    let pairs = |n: usize| if n == 1 { "1 pair".to_owned() } else { format!("{n} pairs") };
    let among = match summary.students_above_line {
        0 => String::new(),
        n => format!(", among {n} students"),
    };
    let _ = writeln!(
        out,
        "<p class=\"similarity\">Code shared between submissions: <a href=\"{}\">{} at or above the \
         \u{201c}look at this\u{201d} line{among}</a> ({} {} some code beyond the base code).</p>",
        crate::similarity::report::HTML_FILE,
        pairs(summary.above_line),
        pairs(summary.pairs),
        if summary.pairs == 1 { "shares" } else { "share" }
    );
}

/// A link that shows the students of one status filter (the page's script reads the fragment).
fn filter_link(flag: &str, text: &str) -> String {
    format!("<a href=\"#status={}\">{}</a>", escape(flag), escape(text))
}

/// The student's program was built and passed every case.
fn passed_every_case(student: &Record) -> bool {
    student.status == StudentStatus::Graded
        && !student.cases.is_empty()
        && student.cases.iter().all(|c| c.passed)
}

/// Escapes text for HTML element content and quoted attribute values: `& < > " '` as entities, and
/// control characters but tabs and line feeds written visibly as in every report (`\e`, `\u{202e}`):
/// a student's id holding a terminal's escape sequence or a bidirectional override shows as such,
/// whether the page is read in a browser or printed on a terminal.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for ch in crate::report::escape::inert(text, crate::report::escape::BLOCK).chars() {
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
mod tests;
