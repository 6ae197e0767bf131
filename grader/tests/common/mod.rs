//! Helpers shared by the integration tests: the repository, its assignments, gradings of fixtures.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use grader::batch::{BatchOptions, StopFlag};
use grader::build::BuildCache;
use grader::grade::{grade, GradeOptions};
use grader::gradebook::ManualGrades;
use grader::load::{load_assignment, Assignment};
use grader::report::{render_text, Report};
use grader::roster::ArchiveCaps;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// An assignment of the repository's `cases/`, loaded once per test binary.
pub fn assignment(id: &str) -> &'static Assignment {
    static LOADED: OnceLock<Vec<Assignment>> = OnceLock::new();
    let all = LOADED.get_or_init(|| {
        let root = repo().join("cases");
        grader::load::assignment_ids(&root)
            .unwrap()
            .iter()
            .map(|id| load_assignment(&root, id).unwrap_or_else(|e| panic!("cases/{id} loads: {e}")))
            .collect()
    });
    all.iter().find(|a| a.id == id).unwrap_or_else(|| panic!("no assignment {id}"))
}

/// One build cache for the whole test binary, so that each fixture is compiled once.
pub fn cache() -> BuildCache {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    BuildCache::new(CACHE.get_or_init(|| tempfile::tempdir().unwrap()).path())
}

/// A batch of the whole class into `out`, graded with `grade`, two CPU slots, no hand grades.
pub fn batch_options(out: &Path, grade: GradeOptions) -> BatchOptions {
    BatchOptions {
        out: out.to_owned(),
        jobs: 2,
        partition: None,
        manual: ManualGrades::default(),
        force: false,
        only: Vec::new(),
        stop: StopFlag::new(),
        caps: ArchiveCaps::default(),
        grade,
        similarity: None,
    }
}

/// Grades `fixtures/<assignment>/<name>` on every case, once per test binary: the tests that look at
/// the same fixture (its bug's categories, the defect table, the formats) share the grading.
pub fn grade_fixture(assignment_id: &str, name: &str) -> Report {
    type Gradings =
        std::sync::Mutex<std::collections::HashMap<(String, String), std::sync::Arc<OnceLock<Report>>>>;
    static GRADINGS: OnceLock<Gradings> = OnceLock::new();
    let slot = GRADINGS
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry((assignment_id.to_owned(), name.to_owned()))
        .or_default()
        .clone();
    slot.get_or_init(|| grade_fixture_now(assignment_id, name)).clone()
}

/// Grades the named fixtures of an assignment a few at once, as a batch grades a class (their runs
/// share the grader's CPU slots), and gives their reports in the names' order. A test that reads many
/// fixtures waits for about their CPU time over the cores, not for the sum of their longest cases
/// (a backgammon-ai grading spends most of its wall time in one long case that holds one core).
pub fn grade_fixtures(assignment_id: &str, names: &[&str]) -> Vec<Report> {
    // Three at once per core keep both cores busy past any grading's long case; more would only
    // hold more sandboxes.
    let at_once = 3 * grader::run::cores().max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..at_once.min(names.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(name) = names.get(i) else { break };
                grade_fixture(assignment_id, name);
            });
        }
    });
    names.iter().map(|name| grade_fixture(assignment_id, name)).collect()
}

fn grade_fixture_now(assignment_id: &str, name: &str) -> Report {
    let options = GradeOptions::new(cache());
    // A path relative to the repository keeps the snapshots free of this machine's folders.
    let path = PathBuf::from("fixtures").join(assignment_id).join(name);
    let mut report = grade(assignment(assignment_id), &repo().join(&path), &options).expect("grading works");
    report.submission = path.display().to_string();
    // Tests share the cache and run in any order: whether another test built a fixture first is not
    // part of its report's snapshot.
    for build in &mut report.builds {
        build.cached = false;
    }
    report
}

/// Copies a folder's files into another (made if missing).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Categories in which the report has fewer points than available.
pub fn losing(report: &Report) -> BTreeSet<&str> {
    report.categories.iter().filter(|c| c.score < c.max_score).map(|c| c.id.as_str()).collect()
}

/// The text report without colour.
/// The text report without colour, its timings replaced by `[time]` (they vary from run to run).
pub fn plain_text(report: &Report) -> String {
    let text = anstream::adapter::strip_str(&render_text(report, grader::report::TextOptions::default()))
        .to_string()
        // The instructor's text names the cases where this machine keeps them (the folder as loaded,
        // canonical or not).
        .replace(&format!("{}/", repo().display()), "")
        .replace(&format!("{}/", repo().canonicalize().unwrap_or_else(|_| repo()).display()), "");
    static TIMINGS: OnceLock<regex::Regex> = OnceLock::new();
    let timings = TIMINGS.get_or_init(|| {
        regex::Regex::new(r"the programs used [0-9.]+ s of CPU, the slowest case [0-9]+ ms \([^)]*\)")
            .unwrap()
    });
    let text = timings.replace_all(&text, "the programs used [time] of CPU, the slowest case [time]");
    // Which time limit stops a looping program first depends on the machine's load: a loaded machine
    // gives it less CPU per second of wall time. The status (a timeout) does not.
    static LIMITS: OnceLock<regex::Regex> = OnceLock::new();
    let limits = LIMITS.get_or_init(|| {
        regex::Regex::new(r"used more than [0-9.]+ s of CPU time|still running after [0-9.]+ s").unwrap()
    });
    limits.replace_all(&text, "[stopped at a time limit]").into_owned()
}

/// Names of the `bug-*` folders of an assignment's fixtures.
pub fn bug_fixtures(assignment_id: &str) -> BTreeSet<String> {
    std::fs::read_dir(repo().join("fixtures").join(assignment_id))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bug-"))
        .collect()
}

/// Names of every fixture folder of an assignment, sorted.
pub fn all_fixtures(assignment_id: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("fixtures").join(assignment_id))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// What a fixture is, from the comment that opens one of its source files
/// (`/* bug: ... */`, `/* trivia: ... */`, `/* variant: ... */`, `/* other version: ... */`,
/// `/* does not compile: ... */`).
pub fn fixture_description(assignment_id: &str, name: &str) -> String {
    let dir = repo().join("fixtures").join(assignment_id).join(name);
    // Java fixtures keep their sources in a tree and open one with a `// bug: ...` line.
    let files = walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file());
    for file in files {
        let text = std::fs::read_to_string(file.path()).unwrap_or_default();
        let comment = match (text.strip_prefix("/* "), text.strip_prefix("// ")) {
            (Some(rest), _) => rest.split_once("*/").map(|(comment, _)| comment),
            (None, Some(rest)) => rest.lines().next(),
            (None, None) => None,
        };
        let Some(comment) = comment else { continue };
        if let Some((kind, what)) = comment.split_once(": ") {
            if ["bug", "trivia", "variant", "other version", "does not compile"].contains(&kind) {
                let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
                return format!("{kind}: {what}");
            }
        }
    }
    "the correct submission".to_owned()
}

/// The Markdown defect-cost table of an assignment: one row per fixture with what it loses where.
pub fn defect_table(assignment_id: &str, reports: &[(String, Report)]) -> String {
    let mut table = String::from(
        "| fixture | what it is | categories charged (points lost) | score |\n|---|---|---|---|\n",
    );
    for (name, report) in reports {
        let charged: Vec<String> = report
            .categories
            .iter()
            .filter(|c| c.score < c.max_score)
            .map(|c| format!("{} {:.2}", c.id, c.max_score - c.score))
            .collect();
        let charged = if charged.is_empty() { "none".to_owned() } else { charged.join(", ") };
        table.push_str(&format!(
            "| `{name}` | {} | {charged} | {:.2} / {:.2} |\n",
            fixture_description(assignment_id, name).replace('|', "\\|"),
            report.score,
            report.max_score
        ));
    }
    table
}

/// Per suite: its name, and its test, failure and error counts; checked against the cases under it.
pub fn junit_suites(xml: &str) -> Vec<(String, usize, usize, usize)> {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert!(root.has_tag_name("testsuites"));
    let count = |node: roxmltree::Node<'_, '_>, name: &str| -> usize {
        node.attribute(name).unwrap_or_else(|| panic!("{name} on {node:?}")).parse().unwrap()
    };
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .map(|suite| {
            let cases: Vec<_> = suite.children().filter(|n| n.has_tag_name("testcase")).collect();
            let with = |tag: &str| cases.iter().filter(|c| c.children().any(|n| n.has_tag_name(tag))).count();
            let name = suite.attribute("name").unwrap().to_owned();
            assert_eq!(count(suite, "tests"), cases.len(), "{name}");
            assert_eq!(count(suite, "failures"), with("failure"), "{name}");
            assert_eq!(count(suite, "errors"), with("error"), "{name}");
            for case in &cases {
                let properties: Vec<&str> = case
                    .descendants()
                    .filter(|n| n.has_tag_name("property"))
                    .filter_map(|p| p.attribute("name"))
                    .collect();
                assert!(properties.contains(&"score") && properties.contains(&"max_score"), "{case:?}");
            }
            (name, cases.len(), with("failure"), with("error"))
        })
        .collect();
    let total = |name: &str| -> usize { count(root, name) };
    assert_eq!(total("tests"), suites.iter().map(|s| s.1).sum::<usize>());
    assert_eq!(total("failures"), suites.iter().map(|s| s.2).sum::<usize>());
    assert_eq!(total("errors"), suites.iter().map(|s| s.3).sum::<usize>());
    suites
}

/// Renders a grading in every format and checks each one's structure against the report: JUnit
/// (parsed, a test per case, failures and errors where the report has them, no hidden case named),
/// Gradescope (its keys, a test per case, the score, no hidden case named), JSON (reads back equal).
pub fn check_formats(report: &Report) {
    let hidden: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.visibility == grader::load::Visibility::Hidden)
        .map(|c| c.id.as_str())
        .collect();
    let failing = report
        .cases
        .iter()
        .filter(|c| c.status != grader::report::CaseStatus::Passed || c.score < c.max_score);
    let xml = grader::report::render_junit(report);
    let suites = junit_suites(&xml);
    assert_eq!(suites.iter().map(|s| s.1).sum::<usize>(), report.cases.len());
    assert_eq!(suites.iter().map(|s| s.2 + s.3).sum::<usize>(), failing.count(), "{xml}");
    let results: serde_json::Value =
        serde_json::from_str(&grader::report::render_gradescope(report)).unwrap();
    assert_eq!(results["score"].as_f64(), Some(report.score));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), report.cases.len());
    for test in tests {
        for key in ["name", "score", "max_score", "status", "output", "visibility"] {
            assert!(!test[key].is_null(), "{key} in {test}");
        }
    }
    assert_gradescope_points_add_up(&results, report);
    for text in [&xml, &grader::report::render_markdown(report), &results.to_string()] {
        for id in &hidden {
            assert!(!text.contains(id), "a student-facing format names the hidden case {id}");
        }
    }
    let json = grader::report::render_json(report);
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, report);
}

/// Gradescope's tests add up exactly to the report's score and maximum (in hundredths, as Gradescope
/// shows them), each within two hundredths of its case's points, full marks kept full.
pub fn assert_gradescope_points_add_up(results: &serde_json::Value, report: &Report) {
    let hundredths = |v: &serde_json::Value| (v.as_f64().unwrap() * 100.0).round() as i64;
    let tests = results["tests"].as_array().unwrap();
    let score: i64 = tests.iter().map(|t| hundredths(&t["score"])).sum();
    let max: i64 = tests.iter().map(|t| hundredths(&t["max_score"])).sum();
    let total = (report.score * 100.0).round() as i64;
    let maximum = (report.max_score * 100.0).round() as i64;
    assert_eq!(
        (score, max),
        (total, maximum),
        "the tests' points against the report's {}",
        report.submission
    );
    for (test, case) in tests.iter().zip(&report.cases) {
        let bonus = report.is_bonus(&case.category);
        let case_max = if bonus { 0.0 } else { case.max_score };
        let near = |a: f64, b: f64| (a - b).abs() <= 0.02 + 1e-9;
        assert!(near(test["score"].as_f64().unwrap(), case.score), "{test} for {}", case.id);
        assert!(near(test["max_score"].as_f64().unwrap(), case_max), "{test} for {}", case.id);
        if case.full_marks() && !bonus {
            assert_eq!(test["score"], test["max_score"], "a case at full marks: {test}");
        }
    }
}

/// How `fixtures/hostile/saves-input` names an input it saved: FNV-1a, 64 bits, in hex.
pub fn saved_input_name(bytes: &[u8]) -> String {
    let hash = bytes
        .iter()
        .fold(14695981039346656037u64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(1099511628211));
    format!("{hash:016x}")
}

/// The names `saves-input` gives the inputs of an assignment's hidden cases.
pub fn hidden_input_names(assignment: &Assignment) -> Vec<String> {
    assignment
        .cases
        .iter()
        .filter(|c| c.visibility == grader::load::Visibility::Hidden)
        .map(|c| saved_input_name(&std::fs::read(c.stdin_path()).unwrap_or_default()))
        .collect()
}

/// A running `grader review`: its address (with the token), killed when dropped.
pub struct Review {
    child: std::process::Child,
    /// Its port.
    pub port: u16,
    /// The token it printed.
    pub token: String,
}

impl Review {
    /// Starts `grader <args>` (a `review` command line) in `dir` and reads the address it prints.
    pub fn start(dir: &Path, args: &[&str]) -> Review {
        use std::io::{BufRead, Read};
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(args)
            .current_dir(dir)
            .env("GRADER_CASES", repo().join("cases"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("grader review starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let Some((port, token)) =
            line.trim().strip_prefix("http://127.0.0.1:").and_then(|rest| rest.split_once("/?token="))
        else {
            let _ = child.kill();
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!("not the review's address: {line:?}\n{stderr}")
        };
        Review { port: port.parse().unwrap(), token: token.to_owned(), child }
    }

    /// The address of `path` on the review.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Sends one request on its own connection (HTTP/1.1, `Connection: close`), a JSON body when
    /// given, with `Authorization: Bearer TOKEN` when `bearer` is: the status, the head (lowercased)
    /// and the body.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        json: Option<&str>,
        bearer: Option<&str>,
    ) -> (u16, String, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
        let body = json.unwrap_or("");
        let mut request =
            format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n", self.port);
        if let Some(token) = bearer {
            request.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        if json.is_some() {
            request.push_str("Content-Type: application/json\r\n");
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("{answer}"));
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{head}"));
        (status, head.to_ascii_lowercase(), body.to_owned())
    }
}

impl Drop for Review {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Headless Chromium (`/usr/bin/chromium`, or `$CHROMIUM`), or `None` after saying why the test that
/// needs it is skipped.
pub fn browser_or_skip() -> Option<PathBuf> {
    let path =
        std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !path.is_file() {
        eprintln!("skipped: no Chromium at {} (apt-get install chromium, or set CHROMIUM)", path.display());
        return None;
    }
    Some(path)
}

/// What a page's shell blocks did, run by [`run_shell_lines`].
pub struct ShellRun {
    /// The folder they ran in (kept until this is dropped).
    pub dir: tempfile::TempDir,
    /// Their standard output, all blocks together.
    pub stdout: String,
    /// Their standard error.
    pub stderr: String,
}

impl ShellRun {
    /// A path in the folder the blocks ran in.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

/// Runs `lines` (a page's shell blocks, in order) as one `set -eu` script in a fresh folder: this
/// build's grader first on PATH, `cases`, `examples` and `fixtures` linked to the repository's, a
/// fresh build cache, the repository's cases, no colour. Fails the test, with the script and its
/// output, when a command fails.
pub fn run_shell_lines(page: &str, lines: &[String]) -> ShellRun {
    let bin = Path::new(env!("CARGO_BIN_EXE_grader")).parent().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    for link in ["cases", "examples", "fixtures"] {
        std::os::unix::fs::symlink(repo().join(link), dir.path().join(link)).unwrap();
    }
    let script = format!("set -eu\nexport PATH=\"{}:$PATH\"\n{}\n", bin.display(), lines.join("\n"));
    let cache = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("GRADER_CACHE_DIR", cache.path())
        .env("GRADER_CASES", repo().join("cases"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{page}:\n{script}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    ShellRun { dir, stdout, stderr }
}
