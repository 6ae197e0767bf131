//! A student's feedback as a page of its own (`students/<id>/feedback.html`, beside `feedback.md`,
//! which the class page links to): the Markdown rendered by pulldown-cmark into one self-contained
//! page that loads nothing and runs no script.
//!
//! The Markdown already holds what a student controls escaped or fenced (see `feedback.rs`); this
//! renderer does not rely on it: any raw HTML in the Markdown is shown as text, an image becomes its
//! description (it would load from the network), and a link goes only to the web, mail or a relative
//! path (a `javascript:` link becomes its text).

use pulldown_cmark::{Alignment, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::html::page_head;

/// The feedback page's style: a readable column, wide blocks scrolling on their own.
const STYLE: &str = "\
:root{color-scheme:light}
body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:52rem;padding:1rem 1.25rem 3rem;color:#1b1b1b;background:#fff}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:1.75rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td:nth-child(2),th:nth-child(2){text-align:right;white-space:nowrap}
pre{background:#f6f6f6;border:1px solid #ddd;padding:.5rem;overflow-x:auto;max-width:100%}
code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.9em}
p code,li code,td code{overflow-wrap:anywhere}
li{margin:.2rem 0}
";

/// Renders a feedback's Markdown as a page titled by its first heading.
pub fn render_feedback_html(markdown: &str) -> String {
    let events: Vec<Event> = inert(Parser::new_ext(markdown, Options::ENABLE_TABLES)).collect();
    let title = first_heading(&events).unwrap_or_else(|| "Feedback".to_owned());
    let mut out = String::new();
    page_head(&mut out, &format!("{title}: feedback"), STYLE, None);
    out.push_str("<main>\n");
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// The events with nothing left that could run, load or point anywhere else: raw HTML as text,
/// images as their description, links to other schemes as their text, control characters in text
/// and code shown as in every report (`\e`). A table's column alignment goes too: pulldown-cmark
/// writes it as a `style` attribute, which the page's policy would refuse (the style sheet aligns
/// the feedback's one table, its points on the right).
fn inert<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    // Links do not nest in CommonMark: one flag tells whether the next link end is a dropped one's.
    let mut dropped_link = false;
    events.filter_map(move |event| match event {
        Event::Html(text) | Event::InlineHtml(text) | Event::Text(text) => Some(Event::Text(visible(text))),
        Event::Code(code) => Some(Event::Code(visible(code))),
        Event::Start(Tag::Table(alignments)) => {
            Some(Event::Start(Tag::Table(alignments.iter().map(|_| Alignment::None).collect())))
        }
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Link { ref dest_url, .. }) if !safe_link(dest_url) => {
            dropped_link = true;
            None
        }
        Event::End(TagEnd::Link) if dropped_link => {
            dropped_link = false;
            None
        }
        other => Some(other),
    })
}

/// Text with its control characters but tabs and line feeds written visibly.
fn visible(text: CowStr) -> CowStr {
    crate::report::escape::inert(&text, crate::report::escape::BLOCK).into()
}

/// A link a feedback page may hold: to the web (`http`, `https`), to mail, or a relative path or
/// fragment. Read as a browser does: tabs and line breaks inside are dropped, and leading spaces and
/// control characters, before the scheme is looked at.
fn safe_link(dest: &CowStr) -> bool {
    let cleaned: String = dest
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let head = cleaned.split(['/', '?', '#']).next().unwrap_or("");
    match head.split_once(':') {
        None => true,
        Some((scheme, _)) => ["http", "https", "mailto"].contains(&scheme.to_ascii_lowercase().as_str()),
    }
}

/// The text of the first heading, for the page's title.
fn first_heading(events: &[Event]) -> Option<String> {
    let start = events.iter().position(|e| matches!(e, Event::Start(Tag::Heading { .. })))?;
    let mut title = String::new();
    for event in &events[start + 1..] {
        match event {
            Event::End(TagEnd::Heading(_)) => break,
            Event::Text(text) | Event::Code(text) => title.push_str(text),
            _ => {}
        }
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{columns, student};
    use super::super::{render_feedback, render_ungraded_feedback, StudentStatus};
    use super::*;
    use crate::report::test_support::hostile_report;

    /// The page's body: what the Markdown became.
    fn body(page: &str) -> &str {
        &page[page.find("<main>").unwrap()..page.find("</main>").unwrap()]
    }

    #[test]
    fn raw_html_in_the_markdown_is_shown_as_text() {
        let page = render_feedback_html(
            "# Demo\n\n<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> and <b>bold</b>.\n",
        );
        let body = body(&page);
        assert!(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{body}");
        assert!(
            body.contains("Text &lt;img src=x onerror=alert(1)&gt; and &lt;b&gt;bold&lt;/b&gt;."),
            "{body}"
        );
        assert!(!body.contains("<script") && !body.contains("<img") && !body.contains("<b>"), "{body}");
    }

    #[test]
    fn images_become_their_description_and_links_stay_on_safe_schemes() {
        let page = render_feedback_html(
            "# Demo\n\n![a tracking pixel](http://e.vil/p.png) \
             [run](javascript:alert(1)) [run too](<java\tscript:alert(1)>) [data](DATA:text/html,x) \
             [handout](https://example.org/h.pdf) [mail](mailto:ta@example.org) [case](../cases/a.md#b)\n",
        );
        let body = body(&page);
        assert!(!body.contains("<img") && !body.contains("e.vil"), "{body}");
        assert!(body.contains("a tracking pixel"), "{body}");
        assert!(!body.contains("javascript") && !body.contains("DATA:"), "{body}");
        assert!(body.contains(" run run too data "), "{body}");
        assert!(body.contains("<a href=\"https://example.org/h.pdf\">handout</a>"), "{body}");
        assert!(body.contains("<a href=\"mailto:ta@example.org\">mail</a>"), "{body}");
        assert!(body.contains("<a href=\"../cases/a.md#b\">case</a>"), "{body}");
    }

    #[test]
    fn a_hostile_students_feedback_renders_inert_with_its_table_and_code() {
        let record =
            student("<img src=x onerror=alert(1)>", "**Ada** | `x`", StudentStatus::Graded, 2.0, None);
        let markdown = render_feedback(&hostile_report(), &record, &columns());
        let page = render_feedback_html(&markdown);
        let body = body(&page);
        for markup in ["<img", "<script", "onerror=alert(1)>", "<iframe", "href=\"javascript"] {
            assert!(!body.contains(markup), "{markup} in {body}");
        }
        assert!(body.contains("&lt;img src=x onerror=alert(1)&gt; (**Ada** | `x`)"), "{body}");
        assert!(body.contains("<table>") && body.contains("<td>Plays by the rules</td>"), "{body}");
        assert!(!body.contains("style="), "the policy refuses style attributes: {body}");
        assert!(body.contains("<pre><code class=\"language-text\">main.c:9:1: error"), "{body}");
        assert!(!page.contains('\u{1b}'), "a raw escape character");
    }

    #[test]
    fn the_page_is_self_contained_and_titled_by_the_feedbacks_heading() {
        let mut record = student("c3", "Cy", StudentStatus::BuildError, 0.0, None);
        record.note = Some("a build error".to_owned());
        let page = render_feedback_html(&render_ungraded_feedback("Connect <Four>", &record, &columns()));
        assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"));
        assert!(page.contains("<title>Connect &lt;Four&gt;: feedback</title>"), "{page}");
        assert!(page.contains("script-src 'none'"), "{page}");
        for external in ["http:", "https:", "src=", "<link", "<script", "@import", "url("] {
            assert!(!page.contains(external), "{external}: {page}");
        }
        assert!(page.ends_with("</main>\n</body>\n</html>\n"));
    }
}
