//! `grader batch` as an instructor runs it: stopped with Ctrl-C (SIGINT) or SIGTERM, it says so,
//! writes the class files of the students graded so far marked as partial, and exits 130 or 143; the
//! same command resumes. An output folder inside the class and a download's colliding ids are said
//! on stderr; a student's id holding a terminal's escape sequence is said there only escaped.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::repo;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The grader binary, run from the repository root with its own build cache.
fn grader(args: &[&str], cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    command.args(args).current_dir(repo()).env("GRADER_CACHE_DIR", cache).env("NO_COLOR", "1");
    command
}

fn run(args: &[&str], cache: &Path) -> Output {
    grader(args, cache).output().expect("the grader runs")
}

/// A class of `n` Trouble students, each a fixture of its own (the fixtures in turn).
fn class(root: &Path, n: usize) {
    let fixtures = ["correct", "bug-checkwin-zero", "bug-status-width", "bug-land-on-own", "trivia-spacing"];
    for i in 0..n {
        let dir = root.join(format!("student{i:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let fixture = repo().join("fixtures/trouble").join(fixtures[i % fixtures.len()]).join("main.c");
        std::fs::copy(fixture, dir.join("main.c")).unwrap();
    }
}

/// `grader batch` of `class` into `out` with one job, started, its stderr piped.
fn spawn_batch(class: &Path, out: &Path, cache: &Path) -> std::process::Child {
    grader(
        &["batch", class.to_str().unwrap(), "-a", "trouble", "-o", out.to_str().unwrap(), "--jobs", "1"],
        cache,
    )
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .unwrap()
}

/// Runs `grader batch` and sends it `signal` once its first student is graded; its exit status and
/// everything it said.
fn batch_stopped_by(
    signal: i32,
    class: &Path,
    out: &Path,
    cache: &Path,
) -> (std::process::ExitStatus, String) {
    let mut child = spawn_batch(class, out, cache);
    let mut said = String::new();
    let mut sent = false;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if !sent && line.starts_with("[1/") {
            // SAFETY: kill has no memory preconditions; the pid is our child's, not yet waited for.
            assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
            sent = true;
        }
        said.push_str(&line);
        said.push('\n');
    }
    assert!(sent, "no student was graded: {said}");
    (child.wait().unwrap(), said)
}

/// Runs `grader batch` and sends it SIGINT a second after it starts (its first line said); its exit
/// status, everything it said, and how long it took to end after the signal.
fn batch_interrupted_early(
    class: &Path,
    out: &Path,
    cache: &Path,
) -> (std::process::ExitStatus, String, Duration) {
    let mut child = spawn_batch(class, out, cache);
    let mut said = String::new();
    let mut signalled: Option<Instant> = None;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if signalled.is_none() {
            // Its programs under way by then (each sleeps until its 10-second wall limit).
            std::thread::sleep(Duration::from_secs(1));
            // SAFETY: kill has no memory preconditions; the pid is our child's, not yet waited for.
            assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
            signalled = Some(Instant::now());
        }
        said.push_str(&line);
        said.push('\n');
    }
    let status = child.wait().unwrap();
    (status, said, signalled.expect("the batch said something").elapsed())
}

/// The ids of `gradebook.csv`'s rows.
fn gradebook_ids(out: &Path) -> Vec<String> {
    let mut reader = csv::Reader::from_path(out.join("gradebook.csv")).unwrap();
    reader.records().map(|r| r.unwrap()[0].to_owned()).collect()
}

#[test]
fn sigint_ends_the_runs_under_way_at_once_and_keeps_the_students_graded_before() {
    let dir = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().join("class"), dir.path().join("out"));
    class(&root, 1);
    let first =
        run(&["batch", root.to_str().unwrap(), "-a", "trouble", "-o", out.to_str().unwrap()], dir.path());
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // A second student whose every run sleeps until its wall limit (10 s): its grading, waited for,
    // took minutes.
    let sleeper = root.join("student01");
    std::fs::create_dir_all(&sleeper).unwrap();
    std::fs::copy(repo().join("fixtures/hostile/sleeper/main.c"), sleeper.join("main.c")).unwrap();

    let (status, said, ended_after) = batch_interrupted_early(&root, &out, dir.path());
    assert_eq!(status.code(), Some(130), "{said}");
    assert!(said.contains("SIGINT: starting no new student; the 1 under way are stopped now"), "{said}");
    // Not one of its runs was waited for to its limit: the batch ended before a single case of the
    // sleeper could have (the grader's own wall limit, not a figure of this machine's speed).
    let wall_limit = common::assignment("trouble").cases[0].limits.wall;
    assert!(
        ended_after < wall_limit,
        "ended {ended_after:?} after the signal (limit {wall_limit:?}):\n{said}"
    );
    // The student graded before is kept; the one stopped is not graded.
    assert_eq!(gradebook_ids(&out), ["student00"], "{said}");
    assert!(said.contains("stopped by SIGINT: 1 of 2 students graded"), "{said}");
    assert!(!out.join("students/student01/record.json").exists());
}

#[test]
fn each_students_line_shows_the_total_with_the_hand_grades_the_run_applies() {
    let dir = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().join("class"), dir.path().join("out"));
    class(&root, 1);
    let grades = dir.path().join("grades.csv");
    std::fs::write(&grades, "id,category,points,comment\nstudent00,style,9,\nstudent00,survey,10,\n")
        .unwrap();
    let args = ["batch", root.to_str().unwrap(), "-a", "trouble", "-o", out.to_str().unwrap()];
    let with_grades = run(&[&args[..], &["--manual", grades.to_str().unwrap()]].concat(), dir.path());
    let said = text(&with_grades.stderr);
    assert_eq!(with_grades.status.code(), Some(0), "{said}");
    // 80 automated points and the 19 given by hand, as the gradebook has them.
    assert!(said.contains("[1/1] student00: 99.00 / 100.00 graded"), "{said}");
    let book = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(book.lines().nth(1).unwrap().starts_with("student00,,99.00,100.00,"), "{book}");
    // `grader show` prints that total too, each hand grade beside its category, in every format.
    let show = |format: &str| {
        text(&run(&["show", out.to_str().unwrap(), "student00", "--format", format], dir.path()).stdout)
    };
    assert!(
        show("text").contains("Score: 99.00 / 100.00 with the hand grades (80.00 / 80.00 automated)"),
        "{}",
        show("text")
    );
    assert!(show("text").contains("  style              9.00 /  10.00   graded by hand"), "{}", show("text"));
    let markdown = show("markdown");
    assert!(
        markdown.contains(": 99.00 / 100.00 points with the hand grades (80.00 / 80.00 automated)"),
        "{markdown}"
    );
    assert!(markdown.contains("- style: 9.00 / 10.00: "), "{markdown}");
    let json: serde_json::Value = serde_json::from_str(&show("json")).unwrap();
    assert_eq!(json["pending"][0]["given"]["points"], 9.0, "{json}");
    // Kept for the next run, whose line says the same.
    let again = run(&args, dir.path());
    assert!(
        text(&again.stderr).contains("[1/1] student00: 99.00 / 100.00 graded (up to date)"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn sigint_stops_a_batch_with_a_partial_gradebook_and_the_same_command_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().join("class"), dir.path().join("out"));
    let students = 12;
    class(&root, students);

    let (status, said) = batch_stopped_by(libc::SIGINT, &root, &out, dir.path());
    assert_eq!(status.code(), Some(130), "{said}");
    assert!(said.contains("SIGINT: starting no new student"), "{said}");
    let graded = gradebook_ids(&out);
    assert!(!graded.is_empty() && graded.len() < students, "{graded:?}\n{said}");
    let partial = format!(
        "Partial: {} of {students} students graded (stopped by SIGINT); re-run the same command to resume.",
        graded.len()
    );
    assert!(
        said.contains(&format!(
            "stopped by SIGINT: {} of {students} students graded; re-run the same command to resume.",
            graded.len()
        )),
        "{said}"
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains(&format!("\n\n**{partial}**\n")), "{summary}");
    assert!(std::fs::read_to_string(out.join("class.html")).unwrap().contains(&partial));
    // Whole files: every student in the gradebook has a record and feedback; the others none.
    for i in 0..students {
        let id = format!("student{i:02}");
        let record = out.join("students").join(&id).join("record.json");
        assert_eq!(record.exists(), graded.contains(&id), "{id}");
        if graded.contains(&id) {
            serde_json::from_slice::<serde_json::Value>(&std::fs::read(record).unwrap()).unwrap();
        }
    }

    // SIGTERM (a job scheduler's) stops it the same way, with its own code.
    let (status, said) = batch_stopped_by(libc::SIGTERM, &root, &out, dir.path());
    assert_eq!(status.code(), Some(143), "{said}");
    assert!(said.contains("stopped by SIGTERM: "), "{said}");

    let resumed = run(
        &["batch", root.to_str().unwrap(), "-a", "trouble", "-o", out.to_str().unwrap(), "--jobs", "2"],
        dir.path(),
    );
    let said = text(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{said}");
    assert!(said.contains("up to date") && !said.contains(" 0 up to date"), "{said}");
    assert_eq!(gradebook_ids(&out).len(), students);
    assert!(!std::fs::read_to_string(out.join("summary.md")).unwrap().contains("Partial"));
}

#[test]
fn an_out_folder_inside_the_class_is_a_usage_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    class(&root, 1);
    let out = root.join("graded");
    let refused =
        run(&["batch", root.to_str().unwrap(), "-a", "trouble", "-o", out.to_str().unwrap()], dir.path());
    let said = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!(
            "the output folder {} is inside the class folder {}",
            out.display(),
            root.display()
        )),
        "{said}"
    );
    assert!(!out.exists());
}

#[test]
fn colliding_ids_are_warned_on_stderr_and_only_names_a_student() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("class");
    class(&root, 2);
    std::fs::copy(root.join("student00/main.c"), root.join("student00.c")).unwrap();
    let out = dir.path().join("out");
    let (root_arg, out_arg) = (root.to_str().unwrap(), out.to_str().unwrap());
    let first = run(&["batch", root_arg, "-a", "trouble", "-o", out_arg], dir.path());
    let said = text(&first.stderr);
    assert_eq!(first.status.code(), Some(0), "{said}");
    assert!(
        said.contains(
            "warning: 2 submissions under the id `student00`: `student00` is graded; left out: `student00.c`"
        ),
        "{said}"
    );
    assert!(said.contains("; 1 with several submissions (warnings above, and in summary.md)"), "{said}");

    let only = run(&["batch", root_arg, "-a", "trouble", "-o", out_arg, "--only", "student01"], dir.path());
    let said = text(&only.stderr);
    assert_eq!(only.status.code(), Some(0), "{said}");
    assert!(
        said.contains("1 of 2 students graded again (--only); the class files hold 2, by status: "),
        "{said}"
    );
    let unknown = run(&["batch", root_arg, "-a", "trouble", "-o", out_arg, "--only", "nobody"], dir.path());
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("no student `nobody`"), "{}", text(&unknown.stderr));
    let both = run(
        &["batch", root_arg, "-a", "trouble", "-o", out_arg, "--only", "a", "--partition", "hash:1/2"],
        dir.path(),
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn an_escape_sequence_in_a_students_id_is_shown_not_run_by_export_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // Sets the terminal's title, rings it and clears the screen.
    let id = "ada\x1b]0;pwned\x07\x1b[2J";
    let shown = r"ada\e]0;pwned\x07\e[2J";
    let record = grader::gradebook::Record::ungraded(
        common::assignment("trouble"),
        id,
        None,
        id,
        "key",
        grader::gradebook::StudentStatus::NoFiles,
        "no files".to_owned(),
    );
    let folder = out.join("students").join(grader::batch::student_dir_name(id));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("record.json"), serde_json::to_vec(&record).unwrap()).unwrap();
    let info = serde_json::json!({"assignment": "trouble", "partition": null, "roster": [id], "grader_version": "0"});
    std::fs::write(out.join("batch.json"), info.to_string()).unwrap();
    let out_arg = out.to_str().unwrap();
    // As on a colour terminal, where anstream passes escape sequences through.
    let on_terminal = |args: &[&str]| {
        grader(args, dir.path()).env_remove("NO_COLOR").env("CLICOLOR_FORCE", "1").output().unwrap()
    };

    let export = on_terminal(&["export", out_arg, "--to", "moodle", "--out", dir.path().to_str().unwrap()]);
    let said = text(&export.stderr);
    assert_eq!(export.status.code(), Some(1), "{said}");
    assert!(said.contains(&format!("left out: {shown}: `{shown}` is not a Moodle participant id")), "{said}");
    assert!(!said.contains(['\x1b', '\x07']), "{said:?}");

    let show = on_terminal(&["show", out_arg, "nobody"]);
    let said = text(&show.stderr);
    assert_eq!(show.status.code(), Some(2), "{said}");
    assert!(said.contains(&format!("(nearest: {shown})")), "{said}");
    assert!(!said.contains(['\x1b', '\x07']), "{said:?}");
}
