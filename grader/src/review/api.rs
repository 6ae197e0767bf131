//! The review's JSON API, which its own pages use and scripts may: `GET /api/students`,
//! `GET /api/students/ID`, `POST /api/hand-grades`, `DELETE /api/hand-grades`, `POST /api/rubric-items`. Every failure is a
//! status with `{"error": "..."}`: 404 for an unknown student, 422 for a bad grade or item, 409 when
//! someone saved the grade meanwhile (with `current`, the grade there now), 400 or 415 for a body
//! that is not such JSON.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::json;

use super::class::{HandCategory, SaveError};
use super::{App, GradeChange, GradeWithdrawal, ItemChange, StudentRow};

/// `GET /api/students`: the class list.
#[derive(Debug, Serialize)]
struct Students {
    assignment: String,
    title: String,
    categories: Vec<HandCategory>,
    students: Vec<StudentRow>,
}

/// `GET /api/students/ID`: one student.
#[derive(Debug, Serialize)]
struct Student {
    #[serde(flatten)]
    row: StudentRow,
    /// The student's files as text (invalid UTF-8 replaced), or why they cannot be shown.
    files: Vec<File>,
    files_note: Option<String>,
    /// The automated report, as `students/ID/report.json` has it.
    report: Option<crate::report::Report>,
}

#[derive(Debug, Serialize)]
struct File {
    name: String,
    text: String,
}

/// A failure as the API answers it.
fn failure(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

impl IntoResponse for SaveError {
    fn into_response(self) -> Response {
        let message = self.to_string();
        match self {
            SaveError::UnknownStudent(_) => failure(StatusCode::NOT_FOUND, message),
            SaveError::Invalid(_) => failure(StatusCode::UNPROCESSABLE_ENTITY, message),
            SaveError::Conflict { current, .. } => {
                (StatusCode::CONFLICT, Json(json!({ "error": message, "current": current }))).into_response()
            }
            SaveError::Io(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, message),
        }
    }
}

/// Runs the class's file work off the async threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, Response> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| failure(StatusCode::INTERNAL_SERVER_ERROR, format!("the review failed: {e}")))
}

pub(super) async fn students(State(app): State<Arc<App>>) -> Response {
    let work = move || -> Result<Students, SaveError> {
        let snapshot = app.class.snapshot()?;
        Ok(Students {
            assignment: app.class.assignment.id.clone(),
            title: app.class.assignment.title.clone(),
            categories: snapshot.categories,
            students: snapshot.rows,
        })
    };
    match blocking(work).await {
        Ok(Ok(students)) => Json(students).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(response) => response,
    }
}

pub(super) async fn student(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let work = move || -> Result<Student, SaveError> {
        let snapshot = app.class.snapshot()?;
        let row = snapshot.rows.into_iter().find(|r| r.id == id).ok_or(SaveError::UnknownStudent(id))?;
        let (files, files_note) = match app.class.files(&row.id).map(|s| &s.files) {
            Ok(Ok(files)) => (
                files
                    .iter()
                    .map(|f| File {
                        name: f.name.clone(),
                        text: String::from_utf8_lossy(&f.content).into_owned(),
                    })
                    .collect(),
                None,
            ),
            Ok(Err(why)) => (Vec::new(), Some(why.clone())),
            Err(why) => (Vec::new(), Some(why)),
        };
        Ok(Student { report: app.class.report(&row.id), row, files, files_note })
    };
    match blocking(work).await {
        Ok(Ok(student)) => Json(student).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(response) => response,
    }
}

pub(super) async fn save_grade(
    State(app): State<Arc<App>>,
    change: Result<Json<GradeChange>, JsonRejection>,
) -> Response {
    save(app, change, |app, change| app.class.save_grade(change)).await
}

pub(super) async fn withdraw_grade(
    State(app): State<Arc<App>>,
    change: Result<Json<GradeWithdrawal>, JsonRejection>,
) -> Response {
    save(app, change, |app, change| app.class.withdraw_grade(change)).await
}

pub(super) async fn save_item(
    State(app): State<Arc<App>>,
    change: Result<Json<ItemChange>, JsonRejection>,
) -> Response {
    save(app, change, |app, change| app.class.save_item(change)).await
}

/// A save's answer: the body's rejection as it is, else what `work` made of it.
async fn save<T: Send + 'static>(
    app: Arc<App>,
    change: Result<Json<T>, JsonRejection>,
    work: fn(&App, T) -> Result<super::Saved, SaveError>,
) -> Response {
    let Json(change) = match change {
        Ok(change) => change,
        Err(rejection) => return failure(rejection.status(), rejection.body_text()),
    };
    match blocking(move || work(&app, change)).await {
        Ok(Ok(saved)) => Json(saved).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(response) => response,
    }
}
