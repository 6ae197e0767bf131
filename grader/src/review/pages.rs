//! The review's pages, from maud's escaping templates: the class (students with their hand-grading
//! progress) and a student (their code, highlighted, beside the hand-graded categories with their
//! rubric items, and the automated report's failures). No inline script or style: the page's one
//! script and stylesheet are embedded in the binary and served under the content security policy.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use super::class::{HandCategory, Snapshot, StudentRow};
use super::App;
use crate::report::{escape, CaseStatus, Report};

const STYLESHEET: &str = include_str!("assets/review.css");
const SCRIPT: &str = include_str!("assets/review.js");

/// The cookie the page's script keeps the grader's name in (so that "mine" and "next ungraded"
/// follow the class's split).
const TA_COOKIE: &str = "grader-review-ta";

pub(super) async fn stylesheet() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLESHEET).into_response()
}

pub(super) async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response()
}

/// Text a student controls, made visible where it holds control characters (maud escapes the rest).
fn shown(text: &str) -> String {
    escape::inert(text, escape::ONE_LINE)
}

/// Lines of text a student controls (program output, a diff), tabs and line feeds kept.
fn shown_block(text: &str) -> String {
    escape::inert(text, escape::BLOCK)
}

/// What a student's id keeps unencoded in a link: letters, digits and `-_.~` (RFC 3986's unreserved).
const ID_IN_PATH: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// The address of a student's page: the id percent-encoded as one path segment.
fn student_href(id: &str) -> String {
    format!("/students/{}", percent_encoding::utf8_percent_encode(id, ID_IN_PATH))
}

fn page(title: &str, kind: &str, body: Markup) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { (title) }
                    link rel="stylesheet" href="/assets/review.css";
                    script src="/assets/review.js" defer {}
                }
                body data-page=(kind) { (body) }
            }
        }
        .into_string(),
    )
}

fn who_form() -> Markup {
    html! {
        form #who {
            label { "Grading as " input #ta-name type="text" autocomplete="name" placeholder="your name" required; }
        }
    }
}

/// The teaching assistant the request's cookie names, if any (the page's script encodes it).
fn ta_of(headers: &HeaderMap) -> Option<String> {
    let value = super::cookie(headers, TA_COOKIE)?;
    let name = percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

fn failure_page(status: StatusCode, message: &str) -> Response {
    (
        status,
        page("Review", "error", html! { main { p.error { (message) } p { a href="/" { "The class" } } } }),
    )
        .into_response()
}

pub(super) async fn class_page(State(app): State<Arc<App>>) -> Response {
    let work = move || app.class.snapshot().map(|snapshot| render_class(&app, &snapshot));
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(page)) => page.into_response(),
        Ok(Err(e)) => failure_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        Err(e) => failure_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

fn render_class(app: &App, snapshot: &Snapshot) -> Html<String> {
    let class = &app.class;
    let wanted = snapshot.rows.len() * snapshot.categories.len();
    let given: usize = snapshot.rows.iter().map(|r| r.hand.len()).sum();
    let complete = snapshot.rows.iter().filter(|r| r.pending.is_empty()).count();
    let title = format!("Hand grading: {}", class.assignment.title);
    let body = html! {
        header {
            h1 { (title) }
            p.progress { (given) " of " (wanted) " hand grades given; " (complete) " of " (snapshot.rows.len()) " students complete" }
            (who_form())
        }
        main {
            div.filters {
                input #filter type="search" placeholder="Filter by id, name, status, grader" aria-label="Filter the students";
                label { input #only-mine type="checkbox"; " only mine" }
                label { input #only-ungraded type="checkbox"; " only those with grades to give" }
            }
            table #students {
                thead { tr {
                    th data-sort="text" { "Id" } th data-sort="text" { "Name" } th data-sort="number" { "Total" }
                    th data-sort="text" { "Status" } th data-sort="number" { "To grade" }
                    th data-sort="text" { "Graded by" } @if !class.split.is_empty() { th data-sort="text" { "Assigned to" } }
                } }
                tbody {
                    @for row in &snapshot.rows { (class_row(row, &snapshot.categories, !class.split.is_empty())) }
                }
            }
        }
    };
    page(&title, "class", body)
}

fn class_row(row: &StudentRow, categories: &[HandCategory], split: bool) -> Markup {
    let graders: Vec<String> = row
        .hand
        .iter()
        .map(|(category, grade)| format!("{category}: {}", grade.ta.as_deref().unwrap_or("?")))
        .collect();
    html! {
        tr data-id=(row.id) data-assigned=[row.assigned_to.as_deref()] data-pending=(row.pending.len()) {
            td { a href=(student_href(&row.id)) { (shown(&row.id)) } }
            td { (shown(row.name.as_deref().unwrap_or(""))) }
            td.number data-value=(row.total) { (format!("{:.2}", row.total)) " / " (format!("{:.2}", row.max)) }
            td {
                span class=(format!("badge badge-{}", row.status)) { (row.status) }
                @if row.late == Some(true) { " " span.badge.badge-late { "late" } }
                @if let Some(note) = &row.note { " " span.note { (shown(note)) } }
            }
            td data-value=(row.pending.len()) {
                @if row.pending.is_empty() { span.badge.badge-done { "done" } }
                @for category in &row.pending {
                    @let title = categories.iter().find(|c| &c.id == category).map_or(category.as_str(), |c| c.title.as_str());
                    span.badge.badge-pending title=(title) { (category) } " "
                }
            }
            td { (graders.join(", ")) }
            @if split { td { (row.assigned_to.as_deref().unwrap_or("")) } }
        }
    }
}

pub(super) async fn student_page(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let ta = ta_of(&headers);
    let work = move || -> Result<Html<String>, (StatusCode, String)> {
        let snapshot =
            app.class.snapshot().map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let Some(index) = snapshot.rows.iter().position(|r| r.id == id) else {
            return Err((StatusCode::NOT_FOUND, format!("No student `{}` in the class.", shown(&id))));
        };
        Ok(render_student(&app, &snapshot, index, ta.as_deref()))
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(page)) => page.into_response(),
        Ok(Err((status, message))) => failure_page(status, &message),
        Err(e) => failure_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// The next student after `index` with a grade to give, among those the split gives `ta` (all when
/// the class is not split or `ta` has no share), wrapping round.
fn next_ungraded<'a>(rows: &'a [StudentRow], index: usize, ta: Option<&str>) -> Option<&'a StudentRow> {
    let mine =
        |row: &StudentRow| ta.is_none() || row.assigned_to.is_none() || row.assigned_to.as_deref() == ta;
    let has_share = ta.is_some() && rows.iter().any(|r| r.assigned_to.as_deref() == ta);
    (1..rows.len())
        .map(|step| &rows[(index + step) % rows.len()])
        .find(|row| !row.pending.is_empty() && (!has_share || mine(row)))
}

fn render_student(app: &App, snapshot: &Snapshot, index: usize, ta: Option<&str>) -> Html<String> {
    let rows = &snapshot.rows;
    let row = &rows[index];
    let previous = index.checked_sub(1).map(|i| &rows[i]);
    let next = rows.get(index + 1);
    let ungraded = next_ungraded(rows, index, ta);
    let report = app.class.report(&row.id);
    let files = app.class.files(&row.id);
    let title = format!("{} — {}", shown(&row.id), app.class.assignment.title);
    let body = html! {
        header {
            nav {
                a href="/" { "Class" }
                @if let Some(p) = previous { " · " a #previous rel="prev" href=(student_href(&p.id)) { "← " (shown(&p.id)) } }
                @if let Some(n) = next { " · " a #next rel="next" href=(student_href(&n.id)) { (shown(&n.id)) " →" } }
                @if let Some(u) = ungraded { " · " a #next-ungraded href=(student_href(&u.id)) { "next to grade: " (shown(&u.id)) } }
                span.keys { "keys: j next, k previous, n next to grade" }
            }
            h1 { (shown(&row.id)) @if let Some(name) = &row.name { " " span.name { (shown(name)) } } }
            p #total { "Total " strong { (format!("{:.2}", row.total)) } " / " (format!("{:.2}", row.max)) " · "
                span class=(format!("badge badge-{}", row.status)) { (row.status) }
                @if row.late == Some(true) { " " span.badge.badge-late { "late" } }
                @if let Some(to) = &row.assigned_to { " · assigned to " (to) }
            }
            @if let Some(note) = &row.note { p.note { (shown(note)) } }
            (who_form())
        }
        main.student {
            section.code aria-label="The student's files" {
                @match files {
                    Err(why) => p.note { "Files not shown: " (why) },
                    Ok(submission) => {
                        @if submission.changed { p.warning { "These files differ from those graded: the class folder changed since." } }
                        @match &submission.files {
                            Err(why) => p.note { "Files not read: " (shown(why)) },
                            Ok(files) => @for file in files { (code_file(&file.name, &file.content)) },
                        }
                    }
                }
            }
            section.side {
                @for category in &snapshot.categories { (grade_form(row, category)) }
                (automated(report.as_ref()))
            }
        }
    };
    page(&title, "student", body)
}

fn code_file(name: &str, content: &[u8]) -> Markup {
    let lines = super::highlight::highlight(name, content);
    html! {
        details.file open {
            summary { (shown(name)) " " span.lines { "(" (lines.len()) @if lines.len() == 1 { " line)" } @else { " lines)" } } }
            table.source { tbody {
                @for (i, line) in lines.into_iter().enumerate() {
                    tr { td.ln { (i + 1) } td { code { (line) } } }
                }
            } }
        }
    }
}

fn grade_form(row: &StudentRow, category: &HandCategory) -> Markup {
    let grade = row.hand.get(&category.id);
    let points = grade.map(|g| g.points);
    html! {
        form.grade data-id=(row.id) data-category=(category.id) data-max=(category.points)
            data-version=(grade.map_or("", |g| g.version.as_str())) {
            h2 { (category.title) " " span.max { "(" (category.id) ", " (category.points) " points)" } }
            @if !category.items.is_empty() {
                fieldset.items { legend { "Rubric items" }
                    @for item in &category.items {
                        @let applied = grade.is_some_and(|g| g.items.contains(&item.id));
                        div.item {
                            label {
                                input type="checkbox" name="item" value=(item.id) data-points=(item.points) checked[applied];
                                " " span.delta { (format!("{:+.2}", item.points)) } " " span.item-title { (item.title) }
                            }
                            " " button.edit-item type="button" data-item=(item.id) data-points=(item.points) data-title=(item.title) { "edit" }
                        }
                    }
                }
            }
            label { "Points " input name="points" type="number" min="0" max=(category.points) step="any" value=[points] required; " / " (category.points) }
            label.comment { "Comment" textarea name="comment" rows="3" { (grade.and_then(|g| g.comment.as_deref()).unwrap_or("")) } }
            button type="submit" { "Save" }
            @if grade.is_some() { " " button.withdraw type="button" { "Take back" } }
            p.status role="status" {
                @match grade { Some(g) => { "Graded by " (g.ta.as_deref().unwrap_or("?")) }, None => "Not graded yet" }
            }
            details.new-item {
                summary { "New rubric item" }
                label { "Title " input name="item-title" type="text"; }
                label { "Points " input name="item-points" type="number" step="any" placeholder="-1"; }
                button.add-item type="button" { "Add to " (category.id) }
            }
        }
    }
}

fn automated(report: Option<&Report>) -> Markup {
    let Some(report) = report else {
        return html! { h2 { "Automated" } p.note { "No report: nothing was graded (see the class page)." } };
    };
    let failed: Vec<_> = report.cases.iter().filter(|c| !c.full_marks()).collect();
    html! {
        h2 { "Automated: " (format!("{:.2}", report.score)) " / " (format!("{:.2}", report.max_score)) }
        table.categories { tbody {
            @for category in &report.categories {
                tr { td { (category.title) } td.number { (format!("{:.2}", category.score)) " / " (format!("{:.2}", category.max_score)) } td { (category.passed) " of " (category.cases) " cases" } }
            }
        } }
        @for build in report.builds.iter().filter(|b| b.status == crate::report::BuildStatus::Error) {
            details.build open { summary { "Build failed: " (build.recipe) } pre { (shown_block(&build.log)) } }
        }
        h3 { (failed.len()) " cases short of full marks" }
        @for case in failed {
            details.case {
                summary {
                    span class=(format!("badge badge-case-{}", if case.status == CaseStatus::Passed { "partial" } else { "failed" })) {
                        (serde_json::to_value(case.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())
                    }
                    " " (case.title) " " span.points { (format!("{:.2} / {:.2}", case.score, case.max_score)) }
                }
                @if let Some(note) = &case.note { p.note { (shown(note)) } }
                @if let Some(d) = &case.divergence {
                    p { "First difference at line " (d.line) ":" }
                    dl.divergence {
                        dt { "expected" } dd { code { (d.expected.as_deref().map(shown).unwrap_or_else(|| "(end of output)".into())) } }
                        dt { "actual" } dd { code { (d.actual.as_deref().map(shown).unwrap_or_else(|| "(end of output)".into())) } }
                    }
                }
                @if let Some(diff) = &case.diff { pre.diff { (shown_block(diff)) } }
                @if let Some(stderr) = &case.stderr { p { "Standard error:" } pre { (shown_block(stderr)) } }
            }
        }
    }
}
