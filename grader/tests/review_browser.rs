//! `grader review` in a real browser: the binary serves a small graded Trouble class on 127.0.0.1 and
//! headless Chromium (Debian's `chromium`), driven over the DevTools protocol, uses it as a teaching
//! assistant does. Without the token the review answers 401 (403 for a wrong one), to a browser too;
//! with it, the address sets a cookie and every page comes under a content security policy. Through
//! the pages two students get a hand grade that the reloaded page, `hand-grades.csv`, the gradebook
//! and `grader show` then hold; a new rubric item ticked moves the points; a student whose id and code
//! are markup gets a page where nothing of theirs runs or loads; a save over a grade another tab
//! saved meanwhile is refused, with the choice to save over it. The browser part runs when a browser
//! is installed (`/usr/bin/chromium`, or `$CHROMIUM`), and says so when it is not.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use chromiumoxide::{Browser, BrowserConfig, Page};
use common::Review;
use futures::StreamExt;
use grader::grade::GradeOptions;
use serde::de::DeserializeOwned;

/// A student whose id (the folder's name) is markup, and whose code closes a script and opens one.
const HOSTILE: &str = "<img src=x onerror=window.pwned=1>";
const HOSTILE_CODE: &str = concat!(
    "/* </script><script>window.pwned=1</script><img src=x onerror=\"window.pwned=1\"> */\n",
    "int main(void) { return 0 } /* no semicolon: it does not compile */\n",
);

/// The other students: (id, fixture of `trouble`).
const STUDENTS: [(&str, &str); 3] =
    [("ada", "correct"), ("bob", "bug-checkwin-zero"), ("cy", "does-not-compile")];

/// The teaching assistant's name as typed into the page.
const TA: &str = "Ann Grader";

/// A class graded into `out` (each test its own: the browser's saves write there; the shared build
/// cache compiles each fixture once).
struct Graded {
    dir: tempfile::TempDir,
    out: PathBuf,
}

fn graded_class() -> Graded {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    for (id, fixture) in STUDENTS {
        std::fs::create_dir_all(root.join(id)).unwrap();
        let source = common::repo().join("fixtures/trouble").join(fixture).join("main.c");
        std::fs::copy(source, root.join(id).join("main.c")).unwrap();
    }
    std::fs::create_dir_all(root.join(HOSTILE)).unwrap();
    std::fs::write(root.join(HOSTILE).join("main.c"), HOSTILE_CODE).unwrap();
    let out = dir.path().join("out");
    let options = common::batch_options(&out, GradeOptions::new(common::cache()));
    grader::batch::run_batch(common::assignment("trouble"), &root, &options).unwrap();
    Graded { dir, out }
}

/// `grader review OUT --port 0`, running until dropped (a panicking test stops it too).
fn start_review(out: &Path) -> Review {
    Review::start(out.parent().unwrap(), &["review", "--port", "0", out.to_str().unwrap()])
}

/// A GET of `path` on its own connection, with `Authorization: Bearer TOKEN` when given.
fn get(review: &Review, path: &str, token: Option<&str>) -> (u16, String, String) {
    review.request("GET", path, None, token)
}

/// The rows of one of the class's CSV files, each by its header's names.
fn csv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    reader
        .records()
        .map(|r| header.iter().cloned().zip(r.unwrap().iter().map(str::to_owned)).collect())
        .collect()
}

/// The hand grade `hand-grades.csv` holds for `id` in `category`.
fn hand_grade(out: &Path, id: &str, category: &str) -> HashMap<String, String> {
    let rows = csv_rows(&out.join("hand-grades.csv"));
    let found = rows.iter().find(|r| r["id"] == id && r["category"] == category);
    found.cloned().unwrap_or_else(|| panic!("no grade of {id} in {category}: {rows:?}"))
}

fn points(text: &str) -> f64 {
    text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn the_review_answers_only_with_its_token_and_under_its_security_policy() {
    let class = graded_class();
    let review = start_review(&class.out);
    let (status, head, body) = get(&review, "/api/students", None);
    assert_eq!(status, 401, "{head}\n{body}");
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    let wrong = "0".repeat(review.token.len());
    assert_eq!(get(&review, "/api/students", Some(&wrong)).0, 403);
    assert_eq!(get(&review, &format!("/?token={wrong}"), None).0, 403);

    let (status, _, body) = get(&review, "/api/students", Some(&review.token));
    assert_eq!(status, 200, "{body}");
    let students: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(students["students"].as_array().map(Vec::len), Some(4), "{students}");

    // The printed address sets the cookie and sends the browser on without the token.
    let (status, head, _) = get(&review, &format!("/?token={}", review.token), None);
    assert_eq!(status, 303, "{head}");
    assert!(head.contains("\r\nlocation: /\r\n"), "{head}");
    let cookie = format!("set-cookie: grader-review-{}={}; path=/; httponly", review.port, review.token);
    assert!(head.contains(&cookie), "{head}");

    let (status, head, body) = get(&review, "/", Some(&review.token));
    assert_eq!(status, 200, "{body}");
    let policy = head.lines().find_map(|l| l.strip_prefix("content-security-policy: "));
    let policy = policy.unwrap_or_else(|| panic!("no content security policy: {head}"));
    assert!(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"), "{policy}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_teaching_assistant_grades_the_class_through_the_review_in_headless_chromium() {
    let Some(executable) = common::browser_or_skip() else { return };
    let started = Instant::now();
    let class = graded_class();
    let review = start_review(&class.out);
    let browser = launch(&executable, &class.dir.path().join("profile")).await;

    without_the_token_the_browser_gets_401_not_the_class(&browser, &review).await;
    let page = browser.new_page(review.url(&format!("/?token={}", review.token))).await.unwrap();
    the_address_sets_the_cookie_and_the_name_is_kept(&page, &review).await;
    two_students_get_a_grade_that_the_page_and_the_class_files_keep(&page, &review, &class.out).await;
    a_new_rubric_item_ticked_takes_its_points_off(&page, &review, &class.out).await;
    the_hostile_students_pages_run_and_load_nothing_of_theirs(&page, &review).await;
    a_save_over_a_grade_saved_meanwhile_is_refused(&browser, &review, &class.out).await;

    let mut browser = browser;
    browser.close().await.unwrap();
    let _ = browser.wait().await;
    eprintln!("the browser's review took {:.1} s", started.elapsed().as_secs_f64());
}

/// Chromium with the flags a closed machine needs (no background connections, a fresh profile),
/// its DevTools connection driven on a task of its own.
async fn launch(executable: &Path, profile: &Path) -> Browser {
    let config = BrowserConfig::builder()
        .chrome_executable(executable)
        .no_sandbox()
        .args(["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--disable-domain-reliability"])
        .user_data_dir(profile)
        .window_size(1280, 900)
        .viewport(None)
        .build()
        .unwrap();
    let (browser, handler) = Browser::launch(config).await.expect("chromium starts");
    // The handler is the connection's stream of events, polled until the browser closes.
    let mut handler = handler;
    tokio::spawn(async move { while handler.next().await.is_some() {} });
    browser
}

/// `document.querySelector(selector)` in JavaScript.
fn query(selector: &str) -> String {
    format!("document.querySelector({})", serde_json::Value::from(selector))
}

/// The value of a JavaScript expression on the page.
async fn js<T: DeserializeOwned>(page: &Page, expression: &str) -> T {
    let result = page.evaluate(expression).await.unwrap_or_else(|e| panic!("{expression}: {e}"));
    result.into_value().unwrap_or_else(|e| panic!("{expression}: {e}"))
}

/// The `value` of the element `selector` finds, and its `textContent`.
async fn value(page: &Page, selector: &str) -> String {
    js(page, &format!("{}.value", query(selector))).await
}

async fn text_of(page: &Page, selector: &str) -> String {
    js(page, &format!("{}.textContent", query(selector))).await
}

/// Waits, polling every 50 ms, until a JavaScript condition holds on the page (a minute: a failure).
async fn wait_for(page: &Page, condition: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // Between two documents of a navigation the evaluation may fail: not yet.
        let result = page.evaluate(format!("Boolean({condition})")).await.ok();
        if result.and_then(|r| r.into_value::<bool>().ok()) == Some(true) {
            return;
        }
        if Instant::now() > deadline {
            let text: Option<String> = page
                .evaluate("location.href + '\\n' + document.body.innerText")
                .await
                .ok()
                .and_then(|r| r.into_value().ok());
            panic!("waited a minute for `{condition}`; the page:\n{}", text.unwrap_or_default());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the page at `path` has loaded and its script has set it up.
async fn loaded(page: &Page, path: &str) {
    let path = serde_json::Value::from(path);
    wait_for(page, &format!("location.pathname === {path} && document.readyState === 'complete'")).await;
}

/// The address of a student's page, every byte of the id but letters and digits percent-encoded.
fn student_path(id: &str) -> String {
    let encoded: String = id
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") })
        .collect();
    format!("/students/{encoded}")
}

async fn without_the_token_the_browser_gets_401_not_the_class(browser: &Browser, review: &Review) {
    let page = browser.new_page(review.url("/")).await.unwrap();
    loaded(&page, "/").await;
    let text: String = js(&page, "document.body.innerText").await;
    assert!(text.contains("this page needs the token"), "{text}");
    assert!(js::<bool>(&page, "document.getElementById('students') === null").await, "{text}");
    page.close().await.unwrap();
}

async fn the_address_sets_the_cookie_and_the_name_is_kept(page: &Page, review: &Review) {
    loaded(page, "/").await;
    assert_eq!(js::<String>(page, "location.search").await, "", "the token left the address");
    let cookies = page.get_cookies().await.unwrap();
    let name = format!("grader-review-{}", review.port);
    let cookie = cookies.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{cookies:?}"));
    assert!(cookie.value == review.token && cookie.http_only, "{cookie:?}");
    assert!(js::<bool>(page, "document.querySelectorAll('#students tbody tr').length === 4").await);
    page.find_element("#ta-name").await.unwrap().click().await.unwrap().type_str(TA).await.unwrap();
    page.find_element("#ta-name").await.unwrap().press_key("Tab").await.unwrap();
    wait_for(page, &format!("localStorage.getItem('grader-review-ta') === '{TA}'")).await;
}

/// Opens a student's page by their link in the class table.
async fn open_from_the_class(page: &Page, review: &Review, id: &str) {
    page.goto(review.url("/")).await.unwrap();
    loaded(page, "/").await;
    let link = format!("#students a[href='/students/{id}']");
    page.find_element(link).await.unwrap().click().await.unwrap();
    loaded(page, &format!("/students/{id}")).await;
    assert_eq!(value(page, "#ta-name").await, TA);
}

/// Types into a field of the form of `category` (empty before).
async fn type_into(page: &Page, category: &str, field: &str, text: &str) {
    let selector = format!("form.grade[data-category='{category}'] {field}");
    page.find_element(selector).await.unwrap().click().await.unwrap().type_str(text).await.unwrap();
}

/// Clicks Save in the form of `category`.
async fn save(page: &Page, category: &str) {
    let selector = format!("form.grade[data-category='{category}'] button[type=submit]");
    page.find_element(selector).await.unwrap().click().await.unwrap();
}

/// The text of the status of the form of `category`.
fn status(category: &str) -> String {
    format!("{}.textContent", query(&format!("form.grade[data-category='{category}'] .status")))
}

async fn two_students_get_a_grade_that_the_page_and_the_class_files_keep(
    page: &Page,
    review: &Review,
    out: &Path,
) {
    let grades = [("ada", "7", "Clear names, few comments"), ("bob", "6.5", "No header comment")];
    for (id, given, comment) in grades {
        open_from_the_class(page, review, id).await;
        assert_eq!(js::<String>(page, &format!("{}.dataset.category", query("form.grade"))).await, "style");
        type_into(page, "style", "input[name=points]", given).await;
        type_into(page, "style", "textarea[name=comment]", comment).await;
        save(page, "style").await;
        wait_for(page, &format!("{}.startsWith('Saved')", status("style"))).await;
        assert!(js::<String>(page, &status("style")).await.contains(TA));
    }
    for (id, given, comment) in grades {
        // The page as the review gives it now.
        page.goto(review.url(&format!("/students/{id}"))).await.unwrap();
        page.reload().await.unwrap();
        loaded(page, &format!("/students/{id}")).await;
        let form = "form.grade[data-category='style']";
        assert_eq!(value(page, &format!("{form} input[name=points]")).await, given);
        assert_eq!(value(page, &format!("{form} textarea[name=comment]")).await, comment);
        assert_eq!(js::<String>(page, &status("style")).await, format!("Graded by {TA}"));

        let kept = hand_grade(out, id, "style");
        assert_eq!((points(&kept["points"]), kept["comment"].as_str()), (points(given), comment), "{kept:?}");
        assert_eq!(kept["ta"], TA);
        let gradebook = csv_rows(&out.join("gradebook.csv"));
        let row = gradebook.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("{gradebook:?}"));
        assert_eq!(points(&row["style"]), points(given), "{row:?}");
        assert_eq!(row["pending"], "survey", "{row:?}");

        let shown = Command::new(env!("CARGO_BIN_EXE_grader"))
            .arg("--cases")
            .arg(common::repo().join("cases"))
            .arg("show")
            .arg(out)
            .arg(id)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        // `  style   7.00 /  10.00   graded by hand  Coding style, ...: the comment`
        let line = text.lines().find(|l| l.trim_start().starts_with("style "));
        let line = line.unwrap_or_else(|| panic!("no style line in:\n{text}"));
        let given = format!("{:.2} /", points(given));
        assert!(line.contains(&given) && line.ends_with(comment), "{line}");
    }
}

async fn a_new_rubric_item_ticked_takes_its_points_off(page: &Page, review: &Review, out: &Path) {
    open_from_the_class(page, review, "cy").await;
    let form = "form.grade[data-category='style']";
    page.find_element(format!("{form} details.new-item summary")).await.unwrap().click().await.unwrap();
    type_into(page, "style", "input[name=item-title]", "No comment on playerTurn").await;
    type_into(page, "style", "input[name=item-points]", "-2").await;
    page.find_element(format!("{form} .add-item")).await.unwrap().click().await.unwrap();
    // The page reloads with the item.
    wait_for(page, &format!("document.querySelectorAll(\"{form} input[name=item]\").length === 1")).await;
    loaded(page, "/students/cy").await;
    assert_eq!(text_of(page, &format!("{form} .item-title")).await, "No comment on playerTurn");
    page.find_element(format!("{form} input[name=item]")).await.unwrap().click().await.unwrap();
    let given = format!("{}.value", query(&format!("{form} input[name=points]")));
    wait_for(page, &format!("{given} === '8'")).await;
    save(page, "style").await;
    wait_for(page, &format!("{}.startsWith('Saved: 8 points')", status("style"))).await;
    let kept = hand_grade(out, "cy", "style");
    assert_eq!(points(&kept["points"]), 8.0, "{kept:?}");
    assert_eq!(kept["items"], value(page, &format!("{form} input[name=item]")).await, "{kept:?}");
}

/// What a page holds that a student could have made run or load.
async fn assert_inert(page: &Page) {
    let check = "JSON.stringify({ pwned: typeof window.pwned, images: document.querySelectorAll('img').length, \
                 scripts: Array.from(document.querySelectorAll('script')).map((s) => s.getAttribute('src')) })";
    let found: serde_json::Value = serde_json::from_str(&js::<String>(page, check).await).unwrap();
    let expected = serde_json::json!({ "pwned": "undefined", "images": 0, "scripts": ["/assets/review.js"] });
    assert_eq!(found, expected);
}

async fn the_hostile_students_pages_run_and_load_nothing_of_theirs(page: &Page, review: &Review) {
    let path = student_path(HOSTILE);
    page.goto(review.url(&path)).await.unwrap();
    loaded(page, &path).await;
    assert_inert(page).await;
    assert_eq!(text_of(page, "h1").await, HOSTILE);
    let text: String = js(page, "document.body.innerText").await;
    assert!(text.contains("</script><script>window.pwned=1</script><img src=x"), "{text}");

    page.goto(review.url("/")).await.unwrap();
    loaded(page, "/").await;
    assert_inert(page).await;
    // The id is the link's text, and its address names it.
    let link = format!(
        "Array.from(document.querySelectorAll('#students a')).filter((a) => a.textContent === {}) \
         .map((a) => decodeURIComponent(a.getAttribute('href')))",
        serde_json::Value::from(HOSTILE)
    );
    assert_eq!(js::<Vec<String>>(page, &link).await, [format!("/students/{HOSTILE}")]);
}

async fn a_save_over_a_grade_saved_meanwhile_is_refused(browser: &Browser, review: &Review, out: &Path) {
    let path = "/students/bob";
    let first = browser.new_page(review.url(path)).await.unwrap();
    let second = browser.new_page(review.url(path)).await.unwrap();
    loaded(&first, path).await;
    loaded(&second, path).await;

    first.bring_to_front().await.unwrap();
    type_into(&first, "survey", "input[name=points]", "10").await;
    save(&first, "survey").await;
    wait_for(&first, &format!("{}.startsWith('Saved')", status("survey"))).await;

    second.bring_to_front().await.unwrap();
    type_into(&second, "survey", "input[name=points]", "3").await;
    save(&second, "survey").await;
    wait_for(&second, &format!("{}.includes('meanwhile')", status("survey"))).await;
    let button = "form.grade[data-category='survey'] .status button.replace";
    assert_eq!(text_of(&second, button).await, "Save mine over theirs");
    assert!(js::<String>(&second, &status("survey")).await.contains("Theirs: 10 points"));
    assert_eq!(points(&hand_grade(out, "bob", "survey")["points"]), 10.0);
    // Until the second grader chooses to.
    second.find_element(button).await.unwrap().click().await.unwrap();
    wait_for(&second, &format!("{}.startsWith('Saved: 3 points')", status("survey"))).await;
    assert_eq!(points(&hand_grade(out, "bob", "survey")["points"]), 3.0);
    first.close().await.unwrap();
    second.close().await.unwrap();
}
