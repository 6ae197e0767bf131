//! `grader review`: a local web app over a graded class where teaching assistants read each
//! student's code beside the rubric and the automated results, and give the hand grades. It holds no
//! grading logic: it reads the class's outputs and writes hand grades through the gradebook module,
//! the one owner of `hand-grades.csv`, then the class's files again (see [`class`]).
//!
//! Trust: it binds 127.0.0.1 unless told otherwise and answers only requests that carry its token,
//! a fresh random one per start (in the query of the address it prints, then as a cookie the page
//! sets, or as `Authorization: Bearer`); every page is under a content security policy that runs no
//! script but its own and loads nothing from elsewhere; a student's code, output and names are text
//! (escaping templates); nothing is served from the disk but the embedded assets and the class's own
//! data, looked up by student id, never by a path a request gives.

mod api;
mod class;
mod highlight;
mod pages;
mod split;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;

pub use class::{Class, GradeChange, GradeView, GradeWithdrawal, ItemChange, SaveError, Saved, StudentRow};
pub use split::Split;

/// What every response says to the browser: run nothing but our own script, load nothing from
/// elsewhere, never inside another site's frame, never cached, no referrer (the first address holds
/// the token).
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Where `grader review` listens.
#[derive(Debug, Clone, Copy)]
pub struct ReviewOptions {
    /// The address to bind (127.0.0.1 unless told otherwise).
    pub host: IpAddr,
    /// The port (0: any free one).
    pub port: u16,
}

/// The app's state: the class and the token.
#[derive(Debug)]
pub struct App {
    class: Class,
    token: String,
    /// The cookie's name: the port in it, since a browser keeps cookies by host, not port, and two
    /// reviews on one machine must not take each other's token.
    cookie: String,
}

impl App {
    /// The app over `class`, answering requests that carry `token`; `port` names its cookie.
    pub fn new(class: Class, token: String, port: u16) -> App {
        App { class, token, cookie: format!("grader-review-{port}") }
    }
}

/// A fresh token: 32 bytes from the operating system's generator, in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The app's routes, behind the token and the security headers.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(pages::class_page))
        .route("/students/{id}", get(pages::student_page))
        .route("/assets/review.css", get(pages::stylesheet))
        .route("/assets/review.js", get(pages::script))
        .route("/api/students", get(api::students))
        .route("/api/students/{id}", get(api::student))
        .route("/api/hand-grades", post(api::save_grade).delete(api::withdraw_grade))
        .route("/api/rubric-items", post(api::save_item))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .layer(middleware::map_response(secure))
        .with_state(app)
}

/// Serves the app until Ctrl-C; `announce` is given its address (with the token) once it listens.
pub fn serve(class: Class, options: ReviewOptions, announce: impl FnOnce(&str)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(options.host, options.port)).await?;
        let address = listener.local_addr()?;
        let token = new_token()?;
        announce(&format!("http://{address}/?token={token}"));
        let app = Arc::new(App::new(class, token, address.port()));
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })
}

/// Lets through a request that carries the token; 401 for one without, 403 for a wrong one. A page
/// asked for with the token in its query gets the cookie and is sent to the same address without it,
/// so that the token leaves the address bar and the history.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let cookie = cookie(headers, &app.cookie);
    let query = request
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("token="));
    let given: Vec<&str> = [bearer, cookie, query].into_iter().flatten().collect();
    if given.is_empty() {
        let body = "this page needs the token: open the address `grader review` printed\n";
        return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], body).into_response();
    }
    if !given.iter().any(|t| same(t, &app.token)) {
        return (StatusCode::FORBIDDEN, "wrong token: open the address `grader review` printed\n")
            .into_response();
    }
    if query.is_some_and(|t| same(t, &app.token)) && request.method() == Method::GET {
        let kept: Vec<&str> = request
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter(|pair| !pair.starts_with("token="))
            .collect();
        // A path of `//host` would send the browser to another site: such a request goes to the class.
        let path = Some(request.uri().path()).filter(|p| !p.starts_with("//")).unwrap_or("/");
        let to = if kept.is_empty() { path.to_owned() } else { format!("{path}?{}", kept.join("&")) };
        let mut response = Redirect::to(&to).into_response();
        let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict", app.cookie, app.token);
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return response;
    }
    next.run(request).await
}

/// The value of the cookie `name` a request carries, if any.
fn cookie<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Compares a token in time that does not depend on where it differs.
fn same(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The headers every response carries (see [`CONTENT_SECURITY_POLICY`]).
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests;
