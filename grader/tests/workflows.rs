//! The GitHub Actions examples (`examples/github-actions/`): valid for GitHub's workflow schema, run
//! end to end by the runner of `actions/` (local stand-ins for what needs the network), and built so
//! that a student's workflow reads nothing of a hidden case while the instructor's reads the private
//! cases with a token and keeps the hand grades.

mod actions;
mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use actions::{Outcome, Runner, Workflow};
use grader::load::{Assignment, Visibility};

fn example(name: &str) -> PathBuf {
    common::repo().join("examples/github-actions").join(name)
}

/// The grader's build cache, shared by every job of every run here (a runner's machine state).
fn machine_env() -> BTreeMap<String, String> {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let cache = CACHE.get_or_init(|| tempfile::tempdir().unwrap());
    BTreeMap::from([("GRADER_CACHE_DIR".to_owned(), cache.path().display().to_string())])
}

/// The grader binary, as an instructor publishes it, and its SHA-256.
fn published_grader() -> (PathBuf, String) {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_grader"));
    let out = Command::new("sha256sum").arg(&binary).output().expect("sha256sum runs");
    let sum = String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap().to_owned();
    (binary, sum)
}

/// A runner of `this_repository`'s workflow with the published grader at the workflow's GRADER_URL
/// and its SHA-256 filled in, as the instructor does.
fn runner(workflow: &Workflow, this_repository: &Path) -> Runner {
    let mut runner = Runner::new(this_repository);
    let (binary, sum) = published_grader();
    let url = workflow.env.get("GRADER_URL").expect("the workflow fetches the grader from its GRADER_URL");
    runner.urls.insert(actions::scalar(url), binary);
    runner.env_edits.insert("GRADER_SHA256".to_owned(), sum);
    runner.machine_env = machine_env();
    runner
}

/// What of an assignment's hidden cases must never reach a student: their ids, and the lines (20
/// characters and more, trimmed) of their expected outputs that no visible case's files hold.
fn hidden_needles(assignment: &Assignment) -> Vec<String> {
    let mut public = String::new();
    for case in assignment.cases.iter().filter(|c| c.visibility == Visibility::Visible) {
        for path in [case.path.clone(), case.stdin_path(), case.stdout_path()] {
            public.push_str(&fs::read_to_string(path).unwrap_or_default());
        }
    }
    let mut needles = Vec::new();
    for case in assignment.cases.iter().filter(|c| c.visibility == Visibility::Hidden) {
        needles.push(case.id.clone());
        let transcript = fs::read_to_string(case.stdout_path()).unwrap_or_default();
        needles.extend(
            transcript
                .lines()
                .map(str::trim)
                .filter(|l| l.chars().count() >= 20 && !public.contains(*l))
                .map(str::to_owned),
        );
    }
    needles.sort();
    needles.dedup();
    needles
}

/// The first file under `dirs` that holds a needle, and the needle.
fn find_hidden(dirs: &[&Path], needles: &[String]) -> Option<(PathBuf, String)> {
    let pattern: Vec<String> = needles.iter().map(|n| regex::escape(n)).collect();
    let matcher = regex::bytes::RegexBuilder::new(&pattern.join("|")).size_limit(1 << 28).build().unwrap();
    for dir in dirs {
        for entry in walkdir::WalkDir::new(dir) {
            let entry = entry.unwrap();
            if !entry.file_type().is_file() {
                continue;
            }
            let bytes = fs::read(entry.path()).unwrap();
            if let Some(found) = matcher.find(&bytes) {
                return Some((entry.into_path(), String::from_utf8_lossy(found.as_bytes()).into_owned()));
            }
        }
    }
    None
}

/// The folders each run step passes to `--cases`, with `$VAR`s of the workflow's env resolved.
fn cases_args(workflow: &Workflow) -> Vec<(String, String)> {
    let flag = regex::Regex::new(r#"--cases\s+"?([^\s"]+)"?"#).unwrap();
    let mut found = Vec::new();
    for (id, job) in &workflow.jobs {
        for script in job.steps.iter().filter_map(|s| s.run.as_deref()) {
            for capture in flag.captures_iter(script) {
                let mut arg = capture[1].to_owned();
                if let Some(var) = arg.strip_prefix('$') {
                    arg = actions::scalar(&workflow.env[var.trim_matches(|c| c == '{' || c == '}')]);
                }
                found.push((id.clone(), arg));
            }
        }
    }
    found
}

/// check-jsonschema, as a command or as a Python module (pip's scripts folder need not be on PATH).
fn check_jsonschema() -> Option<Command> {
    let commands = [("check-jsonschema", vec![]), ("python3", vec!["-m", "check_jsonschema"])];
    commands.into_iter().find_map(|(program, args)| {
        let probe = Command::new(program).args(&args).arg("--version").output();
        probe.is_ok_and(|out| out.status.success()).then(|| {
            let mut command = Command::new(program);
            command.args(args);
            command
        })
    })
}

#[test]
fn both_workflows_are_valid_for_githubs_workflow_schema() {
    // check-jsonschema carries GitHub's schema (`.ci/run` installs it).
    if check_jsonschema().is_none() {
        eprintln!("skipped: check-jsonschema is not installed (pip install check-jsonschema; .ci/run does)");
        return;
    }
    for name in ["course-repo.yml", "grade-class.yml"] {
        let out = check_jsonschema()
            .unwrap()
            .args(["--builtin-schema", "vendor.github-workflows"])
            .arg(example(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A control: a step that both uses an action and runs a script is refused.
    let bad = tempfile::NamedTempFile::with_suffix(".yml").unwrap();
    let text = "name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - uses: actions/checkout@v4\n        run: echo\n";
    fs::write(bad.path(), text).unwrap();
    let out = check_jsonschema()
        .unwrap()
        .args(["--builtin-schema", "vendor.github-workflows"])
        .arg(bad.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "the schema check refuses an invalid workflow");
}

#[test]
fn a_students_workflow_checks_out_only_their_repository_and_grades_on_the_pack() {
    let workflow = actions::load(&example("course-repo.yml"));
    for (id, job) in &workflow.jobs {
        for step in &job.steps {
            if let Some(uses) = &step.uses {
                assert!(
                    !step.with.contains_key("repository"),
                    "{id}: `{}` checks out another repository, which a student's workflow can read only \
                     if it is public",
                    step.label()
                );
                let action = uses.split('@').next().unwrap();
                assert!(
                    ["actions/checkout", "actions/upload-artifact"].contains(&action),
                    "{id} uses {uses}"
                );
            }
        }
    }
    let cases = cases_args(&workflow);
    assert!(!cases.is_empty());
    for (job, dir) in cases {
        assert!(dir.starts_with("grader-pack/"), "{job} grades with --cases {dir}, not the student pack");
    }
}

/// A template repository as the README sets one up: a submission's files, the pack made with `grader
/// pack --assignment trouble -o grader-pack`, and the workflow.
fn template_repository(submission: &str) -> tempfile::TempDir {
    let template = tempfile::tempdir().unwrap();
    common::copy_tree(&common::repo().join("fixtures/trouble").join(submission), template.path());
    let cases = common::repo().join("cases");
    let pack = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["--cases", cases.to_str().unwrap(), "pack", "--assignment", "trouble", "-o", "grader-pack"])
        .current_dir(template.path())
        .output()
        .unwrap();
    assert!(pack.status.success(), "{}", String::from_utf8_lossy(&pack.stderr));
    let workflows = template.path().join(".github/workflows");
    fs::create_dir_all(&workflows).unwrap();
    fs::copy(example("course-repo.yml"), workflows.join("self-check.yml")).unwrap();
    template
}

#[test]
fn a_students_self_check_runs_end_to_end_and_nothing_it_reads_holds_a_hidden_case() {
    let workflow = actions::load(&example("course-repo.yml"));
    let template = template_repository("correct");
    let runner = runner(&workflow, template.path());
    let runs = runner.run(&workflow);
    assert_eq!((workflow.name.as_str(), runs.len()), ("self-check", 1));
    let job = &runs[0];
    assert!(job.succeeded, "{}", job.log());

    // What it read: the student's repository and the published grader, nothing else.
    let url = actions::scalar(&workflow.env["GRADER_URL"]);
    assert_eq!(job.fetched, [url]);
    assert_eq!(job.checkouts.len(), 1);
    assert_eq!(job.checkouts[0].repository, "self");
    // Nothing of a hidden case in any of it, the binary included, nor in what it left.
    let needles = hidden_needles(common::assignment("trouble"));
    assert!(needles.len() > 30, "ids and distinctive lines of the hidden cases: {}", needles.len());
    let report = runner.artifact("grader-report");
    assert_eq!(find_hidden(&[&job.workspace, &job.temp, &report], &needles), None);
    // A control: the repository's own cases hold them.
    assert!(find_hidden(&[&common::repo().join("cases/trouble")], &needles).is_some());

    for file in ["report.json", "junit.xml"] {
        assert!(report.join(file).is_file(), "{file} in the artifact");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["score"], json["max_score"], "the correct fixture passes every visible case");
    let points = |key: &str| json[key].as_f64().unwrap();
    let score = format!("{:.2} / {:.2} points", points("score"), points("max_score"));
    assert!(job.summary.starts_with("## ") && job.summary.contains(&score), "the summary:\n{}", job.summary);
}

#[test]
fn a_students_self_check_fails_at_its_last_step_and_still_reports_a_failing_case() {
    let workflow = actions::load(&example("course-repo.yml"));
    let template = template_repository("bug-land-on-own");
    let runner = runner(&workflow, template.path());
    let job = &runner.run(&workflow)[0];
    assert!(!job.succeeded, "{}", job.log());
    let failed: Vec<&str> =
        job.steps.iter().filter(|s| s.outcome == Outcome::Failure).map(|s| s.name.as_str()).collect();
    assert_eq!(failed, ["Every visible case passes"], "{}", job.log());
    assert_eq!(job.step("Report").outcome, Outcome::Success);
    assert!(job.step("Report").output.contains("FAIL "), "{}", job.step("Report").output);
    assert!(runner.artifact("grader-report").join("junit.xml").is_file());
}

/// The jobs of a workflow that check out their own repository.
fn self_checkouts(workflow: &Workflow) -> BTreeMap<String, bool> {
    workflow
        .jobs
        .iter()
        .map(|(id, job)| {
            let own = job.steps.iter().any(|s| {
                s.uses.as_deref().is_some_and(|u| u.starts_with("actions/checkout@"))
                    && !s.with.contains_key("repository")
            });
            (id.clone(), own)
        })
        .collect()
}

#[test]
fn the_class_workflow_checks_out_its_repository_in_every_job_and_the_private_cases_with_a_token() {
    let workflow = actions::load(&example("grade-class.yml"));
    // Every job reads this repository: the submissions, or grades.csv for the merge.
    for (job, own) in self_checkouts(&workflow) {
        assert!(own, "job {job} does not check out the course repository");
    }
    let mut cases_paths = Vec::new();
    for (id, job) in &workflow.jobs {
        for step in job.steps.iter().filter(|s| s.with.contains_key("repository")) {
            let token = step.with.get("token").map(actions::scalar).unwrap_or_default();
            assert!(
                token.starts_with("${{ secrets.") && token.ends_with("}}"),
                "{id}: `{}` checks out a repository that must be private without a token from a secret",
                step.label()
            );
            cases_paths.push(step.with.get("path").map(actions::scalar).unwrap_or_default());
        }
    }
    let cases = cases_args(&workflow);
    assert_eq!(cases.len(), workflow.jobs.len(), "every job grades or merges with --cases");
    for (job, dir) in cases {
        assert!(
            cases_paths.iter().any(|p| !p.is_empty() && dir.starts_with(&format!("{p}/"))),
            "{job} reads --cases {dir}, which no checkout of the private cases provides"
        );
    }
}

/// A course repository: `submissions/` with three Trouble fixtures as students, and `grades.csv`.
fn course_repository() -> tempfile::TempDir {
    let course = tempfile::tempdir().unwrap();
    for (student, fixture) in [("ada", "correct"), ("brendan", "bug-land-on-own"), ("chen", "stub-functions")]
    {
        common::copy_tree(
            &common::repo().join("fixtures/trouble").join(fixture),
            &course.path().join("submissions").join(student),
        );
    }
    fs::write(
        course.path().join("grades.csv"),
        "id,category,points,comment\nada,style,9,tidy\nada,survey,10,\nbrendan,style,6,long functions\n",
    )
    .unwrap();
    course
}

/// The private cases repository: the course's `cases/` folder.
fn cases_repository() -> tempfile::TempDir {
    let cases = tempfile::tempdir().unwrap();
    common::copy_tree(&common::repo().join("cases"), &cases.path().join("cases"));
    cases
}

#[test]
fn grading_a_class_reads_the_private_cases_with_the_token_and_the_merge_keeps_the_hand_grades() {
    let workflow = actions::load(&example("grade-class.yml"));
    let course = course_repository();
    let cases = cases_repository();
    let mut runner = runner(&workflow, course.path());
    let name = actions::scalar(&workflow.env["CASES_REPOSITORY"]);
    runner
        .repositories
        .insert(name.clone(), actions::Repository { dir: cases.path().to_owned(), private: true });
    runner.secrets.insert("CASES_TOKEN".to_owned(), "github_pat_for_the_test".to_owned());
    runner.inputs.insert("assignment".to_owned(), "trouble".to_owned());
    let runs = runner.run(&workflow);
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["grade (1)", "grade (2)", "grade (3)", "grade (4)", "merge"]);
    for run in &runs {
        assert!(run.succeeded, "{}", run.log());
        assert!(run.checkouts.iter().any(|c| c.repository == name && c.token), "{}", run.name);
    }

    let graded = runner.artifact("graded");
    let gradebook = fs::read_to_string(graded.join("gradebook.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(gradebook.as_bytes());
    let headers = rows.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: BTreeMap<String, csv::StringRecord> =
        rows.records().map(|r| r.unwrap()).map(|r| (r[0].to_owned(), r)).collect();
    assert_eq!(rows.len(), 3, "{gradebook}");
    assert_eq!(
        (&rows["ada"][column("style")], &rows["ada"][column("survey")]),
        ("9.00", "10.00"),
        "{gradebook}"
    );
    assert_eq!(&rows["brendan"][column("style")], "6.00", "{gradebook}");
    assert_eq!(&rows["chen"][column("style")], "", "no hand grade: pending\n{gradebook}");
    assert!(runs[4].summary.contains("3"), "the summary is on the run's page:\n{}", runs[4].summary);
}

#[test]
fn without_the_token_the_class_workflow_stops_at_the_private_checkout_and_merges_nothing() {
    let workflow = actions::load(&example("grade-class.yml"));
    let course = course_repository();
    let cases = cases_repository();
    let mut runner = runner(&workflow, course.path());
    let name = actions::scalar(&workflow.env["CASES_REPOSITORY"]);
    runner.repositories.insert(name, actions::Repository { dir: cases.path().to_owned(), private: true });
    runner.inputs.insert("assignment".to_owned(), "trouble".to_owned());
    let runs = runner.run(&workflow);
    for run in &runs[..4] {
        assert!(!run.succeeded);
        assert_eq!(run.step("Check out the cases (private)").outcome, Outcome::Failure, "{}", run.log());
    }
    assert!(runs[4].skipped, "the merge waits for every share");
}
