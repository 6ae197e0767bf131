//! The review's routes and saves, asked without a socket (tower's `oneshot`) over a class made on
//! disk as `grader batch` leaves one: records, `batch.json`, the students' files in the class folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use tower::ServiceExt;

use super::*;
use crate::gradebook::{Record, StudentStatus, BATCH_FILE, RECORD_FILE, STUDENTS_DIR};

const TOKEN: &str = "0123456789abcdef";

/// A Trouble class of three students (one with a hostile id and code), graded as far as records go.
struct Fixture {
    _dir: tempfile::TempDir,
    out: PathBuf,
}

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    let out = dir.path().join("out");
    let assignment = trouble();
    let students = [
        ("ada", "int main(void) { return 0; }\n".to_owned()),
        ("bo", "/* plain */\nint main(void) { return 1; }\n".to_owned()),
        (
            HOSTILE,
            "/* </script><script>alert(1)</script> \u{1b}[2J */\nint main(void) { return 2; }\n".to_owned(),
        ),
    ];
    let key = crate::batch::assignment_key(&assignment);
    for (id, code) in &students {
        let folder = root.join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("main.c"), code).unwrap();
    }
    // A file of the grader's that a student links to is no file of theirs.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("secret.c"), "int secret_of_the_grader;\n").unwrap();
    std::os::unix::fs::symlink(out.join("secret.c"), root.join("bo/link.c")).unwrap();
    let entries = crate::roster::discover(&root, &assignment.submission_files, Default::default()).unwrap();
    for entry in &entries {
        let mut record = Record::ungraded(
            &assignment,
            &entry.id,
            None,
            &entry.id,
            &crate::batch::student_key(&key, entry),
            StudentStatus::Graded,
            String::new(),
        );
        record.note = None;
        record.automated = 60.0;
        let path = out.join(STUDENTS_DIR).join(crate::batch::student_dir_name(&entry.id)).join(RECORD_FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_vec(&record).unwrap()).unwrap();
    }
    let info = crate::batch::BatchInfo {
        assignment: "trouble".into(),
        partition: None,
        roster: students.iter().map(|(id, _)| id.to_string()).collect(),
        grader_version: "test".into(),
        root: Some(root),
        assignment_dir: Some(assignment.dir.clone()),
        partial: None,
    };
    std::fs::write(out.join(BATCH_FILE), serde_json::to_vec(&info).unwrap()).unwrap();
    Fixture { _dir: dir, out }
}

fn trouble() -> crate::load::Assignment {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    crate::load::load_assignment(&root, "trouble").unwrap()
}

fn class(out: &Path, split: Split) -> Class {
    Class::open(out, trouble(), split)
}

fn app(out: &Path) -> axum::Router {
    router(Arc::new(App::new(class(out, Split::default()), TOKEN.into(), 8123)))
}

/// Sends a request; returns the status, the headers and the body as text.
async fn send(app: &axum::Router, request: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let response = app.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 24).await.unwrap();
    (parts.status, parts.headers, String::from_utf8_lossy(&bytes).into_owned())
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).header(header::AUTHORIZATION, format!("Bearer {TOKEN}")).body(Body::empty()).unwrap()
}

fn post(path: &str, json: serde_json::Value) -> Request<Body> {
    Request::post(path)
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json.to_string()))
        .unwrap()
}

#[tokio::test]
async fn the_token_is_asked_for_in_the_query_a_cookie_or_a_bearer_header() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let bare = Request::get("/api/students").body(Body::empty()).unwrap();
    assert_eq!(send(&app, bare).await.0, StatusCode::UNAUTHORIZED);
    let wrong = Request::get("/")
        .header(header::AUTHORIZATION, "Bearer 0123456789abcdeX")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, wrong).await.0, StatusCode::FORBIDDEN);
    let wrong_cookie =
        Request::get("/").header(header::COOKIE, "grader-review-8123=nope").body(Body::empty()).unwrap();
    assert_eq!(send(&app, wrong_cookie).await.0, StatusCode::FORBIDDEN);
    // Another review's cookie (another port) is no token of this one.
    let other = Request::get("/")
        .header(header::COOKIE, format!("grader-review-9000={TOKEN}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, other).await.0, StatusCode::UNAUTHORIZED);

    // Never to another site, whatever the path.
    let elsewhere = Request::get(format!("//evil.example/?token={TOKEN}")).body(Body::empty()).unwrap();
    let (status, headers, _) = send(&app, elsewhere).await;
    assert_eq!((status, &headers[header::LOCATION]), (StatusCode::SEE_OTHER, &"/".parse().unwrap()));
    let first = Request::get(format!("/students/ada?token={TOKEN}")).body(Body::empty()).unwrap();
    let (status, headers, _) = send(&app, first).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers[header::LOCATION], "/students/ada");
    let cookie = headers[header::SET_COOKIE].to_str().unwrap();
    assert_eq!(cookie, format!("grader-review-8123={TOKEN}; Path=/; HttpOnly; SameSite=Strict"));
    let with_cookie = Request::get("/students/ada")
        .header(header::COOKIE, format!("a=b; grader-review-8123={TOKEN}"))
        .body(Body::empty())
        .unwrap();
    let (status, headers, page) = send(&app, with_cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains(r#"<span class="hl-function">main</span>"#), "{page}");
    let policy = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(policy.starts_with("default-src 'none'; script-src 'self';"), "{policy}");
    assert_eq!(headers[header::REFERRER_POLICY], "no-referrer");
}

#[tokio::test]
async fn a_hostile_students_id_and_code_are_shown_as_text() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let (status, _, class_page) = send(&app, get("/")).await;
    assert_eq!(status, StatusCode::OK);
    let href = "/students/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E";
    assert!(class_page.contains(&format!("href=\"{href}\"")), "{class_page}");
    let (status, _, page) = send(&app, get(href)).await;
    assert_eq!(status, StatusCode::OK);
    for page in [&class_page, &page] {
        assert!(!page.contains("<img"), "{page}");
        assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "{page}");
        // The page's own script, no other.
        assert_eq!(page.matches("<script").count(), 1, "{page}");
    }
    assert!(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "{page}");
    assert!(page.contains('\u{241b}') && !page.contains('\u{1b}'), "the escape is shown, not kept: {page}");
}

#[tokio::test]
async fn nothing_but_the_class_is_served_whatever_the_path() {
    let fixture = fixture();
    let app = app(&fixture.out);
    for path in [
        "/students/..%2F..%2Fbatch.json",
        "/students/../batch.json",
        "/assets/../../Cargo.toml",
        "/assets/%2e%2e/review.rs",
        "/etc/passwd",
        "//etc/passwd",
        "/hand-grades.csv",
        "/students/ada/record.json",
    ] {
        let (status, _, body) = send(&app, get(path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        assert!(!body.contains("trouble") && !body.contains("[package]"), "{path}: {body}");
    }
    let (status, _, page) = send(&app, get("/students/bo")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("main.c") && !page.contains("link.c") && !page.contains("secret_of_the_grader"),
        "{page}"
    );
}

#[tokio::test]
async fn a_saved_grade_is_in_the_hand_grades_the_gradebook_and_the_feedback() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let grade = serde_json::json!({"id": "ada", "category": "style", "points": 7.5, "comment": "=clear", "ta": "Ann"});
    let (status, _, body) = send(&app, post("/api/hand-grades", grade)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let hand = std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap();
    assert_eq!(hand, "id,category,points,comment,ta,items\nada,style,7.5,'=clear,Ann,\n");
    let book = std::fs::read_to_string(fixture.out.join("gradebook.csv")).unwrap();
    assert!(book.lines().any(|l| l.starts_with("ada,,67.50,100.00,")), "{book}");
    let feedback = std::fs::read_to_string(fixture.out.join("students/ada/feedback.md")).unwrap();
    assert!(feedback.contains("7.50 / 10.00") && feedback.contains("clear"), "{feedback}");
    // A comment pasted with a terminal's escape sequence reaches no file with it.
    let (_, _, listing) = send(&app, get("/api/students/ada")).await;
    let version =
        serde_json::from_str::<serde_json::Value>(&listing).unwrap()["hand"]["style"]["version"].clone();
    let pasted = serde_json::json!({"id": "ada", "category": "style", "points": 7.5, "comment": "red\u{1b}[31m", "ta": "Ann", "replaces": version});
    assert_eq!(send(&app, post("/api/hand-grades", pasted)).await.0, StatusCode::OK);
    for file in ["hand-grades.csv", "gradebook.csv", "students/ada/feedback.md", "students/ada/feedback.html"]
    {
        let text = std::fs::read_to_string(fixture.out.join(file)).unwrap();
        assert!(!text.contains('\u{1b}'), "{file}: {text}");
    }
    let (_, _, listing) = send(&app, get("/api/students")).await;
    let listing: serde_json::Value = serde_json::from_str(&listing).unwrap();
    let ada = listing["students"].as_array().unwrap().iter().find(|s| s["id"] == "ada").unwrap();
    assert_eq!((ada["id"].as_str(), ada["total"].as_f64()), (Some("ada"), Some(67.5)));
    assert_eq!(ada["hand"]["style"]["ta"], "Ann");
    assert_eq!(ada["pending"], serde_json::json!(["survey"]));
}

#[tokio::test]
async fn bad_grades_are_refused_with_a_message_and_change_nothing() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let cases = [
        (
            serde_json::json!({"id": "ada", "category": "style", "points": 10.5, "ta": "Ann"}),
            422,
            "not within 0..10",
        ),
        (serde_json::json!({"id": "ada", "category": "style", "points": -1, "ta": "Ann"}), 422, "not within"),
        (
            serde_json::json!({"id": "zed", "category": "style", "points": 1, "ta": "Ann"}),
            404,
            "no student `zed`",
        ),
        (
            serde_json::json!({"id": "ada", "category": "compile", "points": 1, "ta": "Ann"}),
            422,
            "no hand-graded category",
        ),
        (
            serde_json::json!({"id": "ada", "category": "style", "points": 1, "ta": " "}),
            422,
            "say who grades",
        ),
        (
            serde_json::json!({"id": "ada", "category": "style", "points": 1, "ta": "Ann", "items": ["9"]}),
            422,
            "no rubric item `9`",
        ),
        (serde_json::json!({"id": "ada", "category": "style", "points": 1}), 422, "ta"),
        (
            serde_json::json!({"id": "ada", "category": "style", "points": 1, "ta": "Ann", "extra": 1}),
            422,
            "unknown field",
        ),
    ];
    for (grade, status, message) in cases {
        let (got, _, body) = send(&app, post("/api/hand-grades", grade.clone())).await;
        assert_eq!(got.as_u16(), status, "{grade}: {body}");
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].as_str().unwrap().contains(message), "{grade}: {body}");
    }
    let not_json = Request::post("/api/hand-grades")
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from("id=ada"))
        .unwrap();
    assert_eq!(send(&app, not_json).await.0, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(!fixture.out.join("hand-grades.csv").exists());
}

#[tokio::test]
async fn a_save_over_a_grade_given_meanwhile_is_refused_and_shows_it() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let first =
        serde_json::json!({"id": "bo", "category": "style", "points": 6, "comment": "ok", "ta": "Ann"});
    let (_, _, saved) = send(&app, post("/api/hand-grades", first)).await;
    let version = serde_json::from_str::<serde_json::Value>(&saved).unwrap()["grade"]["version"].clone();
    // Bo's page was loaded before Ann saved: it replaces no grade.
    let late = serde_json::json!({"id": "bo", "category": "style", "points": 9, "ta": "Bea", "replaces": ""});
    let (status, _, body) = send(&app, post("/api/hand-grades", late)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let refused: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(refused["current"]["points"], 6.0);
    assert_eq!(refused["current"]["ta"], "Ann");
    assert!(refused["error"].as_str().unwrap().starts_with("Ann saved a grade of bo in style meanwhile"));
    let hand = std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("bo,style,6,ok,Ann,"), "{hand}");
    // Naming the grade it replaces, the save is made.
    let over =
        serde_json::json!({"id": "bo", "category": "style", "points": 9, "ta": "Bea", "replaces": version});
    assert_eq!(send(&app, post("/api/hand-grades", over)).await.0, StatusCode::OK);
    let hand = std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("bo,style,9,,Bea,"), "{hand}");
}

#[test]
fn two_saves_of_one_category_at_once_make_one_grade_and_one_refusal() {
    let fixture = fixture();
    let class = Arc::new(class(&fixture.out, Split::default()));
    for round in 0..5 {
        let id = ["ada", "bo", HOSTILE, "ada", "bo"][round];
        let category = if round < 3 { "style" } else { "survey" };
        let threads: Vec<_> = ["Ann", "Bea"]
            .into_iter()
            .map(|ta| {
                let class = class.clone();
                let change = GradeChange {
                    id: id.into(),
                    category: category.into(),
                    points: Some(if ta == "Ann" { 3.0 } else { 4.0 }),
                    comment: None,
                    ta: ta.into(),
                    items: Vec::new(),
                    replaces: None,
                };
                std::thread::spawn(move || class.save_grade(change))
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let saved = results.iter().filter(|r| r.is_ok()).count();
        let refused = results.iter().filter(|r| matches!(r, Err(SaveError::Conflict { .. }))).count();
        assert_eq!((saved, refused), (1, 1), "round {round}: {results:?}");
    }
    let hand = crate::gradebook::ManualGrades::stored(&fixture.out, &trouble()).unwrap();
    assert_eq!(hand.len(), 5);
}

#[tokio::test]
async fn editing_a_rubric_item_moves_every_grade_that_has_it() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let item =
        serde_json::json!({"category": "style", "points": -2, "title": "no header comment", "ta": "Ann"});
    let (status, _, body) = send(&app, post("/api/rubric-items", item)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Ada: the item alone (10 - 2); Bo: the item and a point more taken off by hand.
    let ada = serde_json::json!({"id": "ada", "category": "style", "ta": "Ann", "items": ["1"]});
    let (_, _, body) = send(&app, post("/api/hand-grades", ada)).await;
    assert!(body.contains("\"points\":8.0"), "{body}");
    let bo = serde_json::json!({"id": "bo", "category": "style", "points": 7, "ta": "Ann", "items": ["1"]});
    send(&app, post("/api/hand-grades", bo)).await;
    let edit = serde_json::json!({"category": "style", "item": "1", "points": -3, "title": "no header comment at all", "ta": "Bea"});
    let (status, _, body) = send(&app, post("/api/rubric-items", edit)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("\"students\":[\"ada\",\"bo\"]"), "{body}");
    let hand = std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("ada,style,7,,Ann,1\n") && hand.contains("bo,style,6,,Ann,1\n"), "{hand}");
    let feedback = std::fs::read_to_string(fixture.out.join("students/bo/feedback.md")).unwrap();
    assert!(feedback.contains("-3.00: no header comment at all"), "{feedback}");
    let too_big = serde_json::json!({"category": "style", "points": -11, "title": "x", "ta": "Bea"});
    assert_eq!(send(&app, post("/api/rubric-items", too_big)).await.0, StatusCode::UNPROCESSABLE_ENTITY);
    let unknown =
        serde_json::json!({"category": "style", "item": "7", "points": -1, "title": "x", "ta": "Bea"});
    assert_eq!(send(&app, post("/api/rubric-items", unknown)).await.0, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn next_to_grade_follows_the_graders_share_of_a_split_class() {
    let fixture = fixture();
    let ids: Vec<String> = ["ada", "bo", HOSTILE].map(str::to_owned).to_vec();
    let split = Split::even(&["Ann".into(), "Bea".into()], &ids);
    let app = router(Arc::new(App::new(class(&fixture.out, split), TOKEN.into(), 8123)));
    let (_, _, class_page) = send(&app, get("/")).await;
    assert!(class_page.contains("Assigned to"), "{class_page}");
    // In the class page's order (`<img...` sorts first): Ann has `<img...` and ada, Bea has bo.
    let mine = |ta: &str, at: &str| {
        Request::get(at)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(header::COOKIE, format!("grader-review-ta={ta}"))
            .body(Body::empty())
            .unwrap()
    };
    let (_, _, page) = send(&app, mine("Ann", "/students/ada")).await;
    assert!(page.contains("id=\"next-ungraded\" href=\"/students/%3Cimg"), "{page}");
    let (_, _, page) = send(&app, mine("Bea", "/students/ada")).await;
    assert!(page.contains("id=\"next-ungraded\" href=\"/students/bo\""), "{page}");
}

#[tokio::test]
async fn a_grade_taken_back_is_pending_again_unless_another_was_saved_since() {
    let fixture = fixture();
    let app = app(&fixture.out);
    let grade = serde_json::json!({"id": "ada", "category": "style", "points": 7, "ta": "Ann"});
    let (_, _, saved) = send(&app, post("/api/hand-grades", grade)).await;
    let version = serde_json::from_str::<serde_json::Value>(&saved).unwrap()["grade"]["version"].clone();
    let delete = |body: serde_json::Value| {
        Request::delete("/api/hand-grades")
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    // Named by a version it does not have: refused, and the grade stays.
    let stale = serde_json::json!({"id": "ada", "category": "style", "ta": "Bea", "replaces": "0123"});
    let (status, _, body) = send(&app, delete(stale)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap().contains("ada,style,7,"));
    let taken = serde_json::json!({"id": "ada", "category": "style", "ta": "Bea", "replaces": version});
    let (status, _, body) = send(&app, delete(taken.clone())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        std::fs::read_to_string(fixture.out.join("hand-grades.csv")).unwrap(),
        "id,category,points,comment,ta,items\n"
    );
    let book = std::fs::read_to_string(fixture.out.join("gradebook.csv")).unwrap();
    let ada = book.lines().find(|l| l.starts_with("ada,")).unwrap();
    assert!(ada.starts_with("ada,,60.00,100.00,") && ada.contains(",style survey,"), "{ada}");
    // Nothing left to take back.
    let (status, _, body) = send(&app, delete(taken)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.contains("no hand grade in style to take back"), "{body}");
}
