//! Problem packages (the ICPC/Kattis format) as assignments, and languages chosen by extension: the
//! example packages' submissions get their expected verdicts, a Python assignment of our own format
//! runs without workarounds, and a package's malformed files are errors naming file and line.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use grader::grade::{grade, GradeOptions};
use grader::load::{load, load_folder, LoadError};
use grader::report::{CaseStatus, JudgeVerdict};
use grader::run::Containment;
use grader::verify;

fn package(name: &str) -> PathBuf {
    common::repo().join("examples/packages").join(name)
}

fn options() -> GradeOptions {
    GradeOptions::new(common::cache())
}

/// Every example submission keeps its folder's promise, with the points its defect should cost.
#[test]
fn every_example_submission_gets_its_expected_verdict_and_score() {
    let expected: &[(&str, &[(&str, f64)])] = &[
        (
            "guess",
            &[
                ("accepted/bisect.c", 100.0),
                ("accepted/bisect.py", 100.0),
                // Dies at the judge's first `higher` or `lower`: every case, the sample too.
                ("run_time_error/reads_words.py", 0.0),
                // Too slow to guess in the three cases up to a million.
                ("time_limit_exceeded/thinks_long.py", 50.0),
                // Out of guesses when the number is large: the interactor rejects first.
                ("wrong_answer/count_up.py", 66.67),
            ],
        ),
        (
            "wordcount",
            &[
                ("accepted/Main.java", 100.0),
                ("accepted/count.c", 100.0),
                ("accepted/count.py", 100.0),
                // Two of seven cases (the long texts) crash, one (the book) is too slow, three
                // have two words differing only in case: each case is a seventh of 100 points.
                ("run_time_error/fixed_buffer.c", 71.43),
                ("time_limit_exceeded/quadratic.py", 85.71),
                ("wrong_answer/case_blind.py", 57.14),
            ],
        ),
        (
            "anagram",
            &[
                ("accepted/rotate.c", 100.0),
                ("accepted/sort_or_reverse.py", 100.0),
                // The validator rejects the two words already sorted: two of seven cases.
                ("wrong_answer/sorted_only.py", 71.43),
            ],
        ),
        (
            "average",
            &[
                ("accepted/mean.c", 100.0),
                ("accepted/mean.py", 100.0),
                // The int overflows on every large case: the 60-point group is lost whole.
                ("partially_accepted/int_sum.c", 40.0),
                // One decimal is within 1e-6 relative of the large means, not of the small ones.
                ("wrong_answer/rounded.py", 60.0),
            ],
        ),
    ];
    std::thread::scope(|scope| {
        let handles: Vec<_> = expected
            .iter()
            .map(|(name, submissions)| {
                scope.spawn(move || {
                    let assignment = load_folder(&package(name)).unwrap();
                    assert!(assignment.warnings.is_empty(), "{name}: {:?}", assignment.warnings);
                    let verified = verify::verify(&assignment, &options()).unwrap();
                    assert!(verified.skipped.is_empty(), "{name}: {:?}", verified.skipped);
                    let checked = verified.checked.clone();
                    let got: Vec<(String, f64)> =
                        checked.iter().map(|c| (c.example.name.clone(), c.report.score)).collect();
                    let want: Vec<(String, f64)> =
                        submissions.iter().map(|(n, s)| (n.to_string(), *s)).collect();
                    assert_eq!(got, want, "{name}");
                    for c in &checked {
                        assert_eq!(
                            c.outcome,
                            Ok(()),
                            "{name} {}:\n{}",
                            c.example.name,
                            verify::render(&verified)
                        );
                    }
                    checked
                })
            })
            .collect();
        let checked: Vec<_> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
        let verdict = |name: &str| {
            let c = checked.iter().find(|c| c.example.name == name).unwrap();
            c.report.package.as_ref().unwrap().verdict
        };
        assert_eq!(verdict("run_time_error/fixed_buffer.c"), JudgeVerdict::RTE);
        assert_eq!(verdict("time_limit_exceeded/quadratic.py"), JudgeVerdict::TLE);
        assert_eq!(verdict("wrong_answer/case_blind.py"), JudgeVerdict::WA);
        assert_eq!(verdict("wrong_answer/count_up.py"), JudgeVerdict::WA);
        assert_eq!(verdict("run_time_error/reads_words.py"), JudgeVerdict::RTE);
        let count_up = checked.iter().find(|c| c.example.name == "wrong_answer/count_up.py").unwrap();
        let last = count_up.report.cases.iter().find(|c| c.id == "secret/02-last").unwrap();
        assert_eq!(last.note.as_deref(), Some("no right guess in 20 guesses"));
        // A custom validator's words are the case's note.
        let sorted = checked.iter().find(|c| c.example.name == "wrong_answer/sorted_only.py").unwrap();
        let two = sorted.report.cases.iter().find(|c| c.id == "secret/01-two").unwrap();
        assert_eq!(two.note.as_deref(), Some("the anagram is the word itself"));
        // The group that counts only whole says which case lost it.
        let int_sum = checked.iter().find(|c| c.example.name == "partially_accepted/int_sum.c").unwrap();
        let large = int_sum.report.cases.iter().find(|c| c.id == "secret/large/01").unwrap();
        assert_eq!((large.status, large.verdict), (CaseStatus::Failed, Some(JudgeVerdict::WA)));
        let categories: Vec<(&str, f64)> =
            int_sum.report.categories.iter().map(|c| (c.id.as_str(), c.max_score)).collect();
        assert_eq!(categories, [("sample", 0.0), ("large", 60.0), ("small", 40.0)]);
        let time = &int_sum.report.package.as_ref().unwrap();
        assert_eq!((time.time_limit_seconds, time.time_limit_source.as_str()), (1.0, "problem.yaml"));
    });
}

/// A wrong answer says which token differs and where, and a self-check runs the samples only.
#[test]
fn a_self_check_runs_the_samples_and_names_the_first_differing_token() {
    let assignment = load_folder(&package("wordcount")).unwrap();
    let submission = package("wordcount").join("submissions/wrong_answer/case_blind.py");
    let report = grade(&assignment, &submission, &GradeOptions { visible_only: true, ..options() }).unwrap();
    let ids: Vec<&str> = report.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["sample/1", "sample/2"]);
    let first = &report.cases[0];
    assert_eq!(first.note.as_deref(), Some("token 2: expected `5`, got `4` (a different token)"));
    let divergence = first.divergence.as_ref().unwrap();
    assert_eq!((divergence.expected.as_deref(), divergence.actual.as_deref()), (Some("5 5"), Some("5 4")));
    assert_eq!(report.hidden.as_ref().map(|h| h.cases), Some(5));
}

/// `grader grade` and `grader verify` take a package by its path, from anywhere.
#[test]
fn the_command_line_takes_a_package_by_its_path() {
    let cache = tempfile::tempdir().unwrap();
    let grader = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["verify", "average", "--cache-dir"])
        .arg(cache.path())
        .current_dir(common::repo().join("examples/packages"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&grader.stdout);
    assert!(grader.status.success(), "{stdout}{}", String::from_utf8_lossy(&grader.stderr));
    assert!(stdout.contains("partially_accepted/int_sum.c  ok "), "{stdout}");
    assert!(stdout.contains("4 of 4 submissions as expected"), "{stdout}");
}

/// Writes `toy/assignment.toml` (with `body` after its rubric) and files, returns the cases root.
fn toy(body: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("toy");
    std::fs::create_dir_all(dir.join("words")).unwrap();
    let head = "id = \"toy\"\ntitle = \"Toy\"\n[submission]\nfiles = [\"*.py\"]\n\n\
                [[categories]]\nid = \"words\"\ntitle = \"Words\"\npoints = 10\n\n";
    std::fs::write(dir.join("assignment.toml"), format!("{head}{body}")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    root
}

/// `language = "python3"`: no commands, no interpreter path, modules of the submission importable,
/// a syntax error a build error.
#[test]
fn a_python_assignment_of_our_own_format_needs_no_workarounds() {
    let root = toy(
        "[builds.program]\nlanguage = \"python3\"\n",
        &[
            ("words/two.toml", "title = \"two words\"\n"),
            ("words/two.stdin", "hello world\n"),
            ("words/two.stdout", "2\n"),
        ],
    );
    let assignment = load(root.path(), "toy").unwrap();
    let submission = tempfile::tempdir().unwrap();
    std::fs::write(submission.path().join("main.py"), "from counting import count\nprint(count(input()))\n")
        .unwrap();
    std::fs::write(submission.path().join("counting.py"), "def count(line):\n    return len(line.split())\n")
        .unwrap();
    let report = grade(&assignment, submission.path(), &options()).unwrap();
    assert_eq!(report.score, 10.0, "{}", common::plain_text(&report));

    std::fs::write(submission.path().join("counting.py"), "def count(line)\n    return 0\n").unwrap();
    let report = grade(&assignment, submission.path(), &options()).unwrap();
    assert_eq!(report.cases[0].status, CaseStatus::BuildError);
    assert!(report.builds[0].log.contains("SyntaxError"), "{}", report.builds[0].log);
}

/// A program a recipe needs that no sandbox can run is the grader's error (exit 3) naming where it
/// was looked for, never the student's zero.
#[test]
fn a_missing_or_unreachable_interpreter_is_the_graders_error_naming_it() {
    let run = |recipe: &str, path: Option<&Path>| {
        let root = toy(recipe, &[("words/one.toml", "title = \"one\"\n"), ("words/one.stdout", "1\n")]);
        let submission = tempfile::tempdir().unwrap();
        std::fs::write(submission.path().join("main.py"), "print(1)\n").unwrap();
        let cache = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
        command.args(["grade", "-a", "toy", "--cases"]).arg(root.path()).arg(submission.path());
        command.arg("--cache-dir").arg(cache.path());
        if let Some(dir) = path {
            let path = std::env::join_paths(
                std::iter::once(dir.to_owned())
                    .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
            )
            .unwrap();
            command.env("PATH", path);
        }
        let output = command.output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (code, stderr) = run(
        "[builds.program]\ncommands = [[\"true\"]]\nrun = [\"no-such-interpreter\", \"{build}/main.py\"]\n",
        None,
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("`no-such-interpreter` is not installed"), "{stderr}");

    // An interpreter only in a folder no sandbox shows (a version manager's shim in a home folder).
    let home = tempfile::tempdir().unwrap();
    let shim = home.path().join("fake-python");
    std::fs::write(&shim, "#!/bin/sh\nexec python3 \"$@\"\n").unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (code, stderr) = run(
        "[builds.program]\ncommands = [[\"true\"]]\nrun = [\"fake-python\", \"{build}/main.py\"]\n",
        Some(home.path()),
    );
    if Containment::available() == Containment::RlimitsOnly {
        // Without a sandbox every folder is seen: the shim runs.
        assert_eq!(code, Some(0), "{stderr}");
    } else {
        assert_eq!(code, Some(3), "{stderr}");
        assert!(stderr.contains("installed only at") && stderr.contains("fake-python"), "{stderr}");
    }
}

fn package_with(problem_yaml: &str, files: &[(&str, &str)]) -> Result<grader::load::Assignment, LoadError> {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("toy");
    std::fs::create_dir_all(package.join("data/secret")).unwrap();
    std::fs::write(package.join("problem.yaml"), problem_yaml).unwrap();
    std::fs::write(package.join("data/secret/1.in"), "1\n").unwrap();
    std::fs::write(package.join("data/secret/1.ans"), "1\n").unwrap();
    for (name, text) in files {
        let path = package.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    load_folder(&package)
}

#[test]
fn a_packages_malformed_files_are_errors_naming_file_and_line() {
    let error = |yaml: &str, files: &[(&str, &str)]| package_with(yaml, files).unwrap_err().to_string();
    let e = error("name: Toy\nlimits:\n  time_limit: [1, 2]\n", &[]);
    assert!(e.contains("problem.yaml:3: `time_limit` must be a number"), "{e}");
    let e = error("name: Toy\ntype: [pass-fail\n", &[]);
    assert!(e.contains("problem.yaml:") && e.contains("flow sequence"), "{e}");
    let e = error("name: Toy\ntype: golf\n", &[]);
    assert!(e.contains("problem.yaml:2: unknown problem type `golf`"), "{e}");
    let e = error("name: Toy\nvalidator_flags: float_tolerance\n", &[]);
    assert!(
        e.contains("problem.yaml:2: validator flags of group `secret`: `float_tolerance` needs a number"),
        "{e}"
    );
    let e = error("name: Toy\n", &[("data/secret/testdata.yaml", "accept_score: lots\n")]);
    assert!(e.contains("testdata.yaml:1: `accept_score` must be a number"), "{e}");
    let e = error("name: Toy\n", &[(".timelimit", "soon\n")]);
    assert!(e.contains(".timelimit:1: `soon` is not a time limit in seconds"), "{e}");
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("problem.yaml"), "name: Empty\n").unwrap();
    let e = load_folder(empty.path()).unwrap_err().to_string();
    assert!(e.contains("data/secret: a problem package needs test cases"), "{e}");
    // Unknown keys are warnings, with their line; known ones the grader does not need are not.
    let loaded =
        package_with("name: Toy\nlicense: cc0\ncolour: blue\nlimits:\n  time_limit: 1\n", &[]).unwrap();
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0].ends_with("problem.yaml:3: unknown key `colour`, ignored"),
        "{:?}",
        loaded.warnings
    );
    // Without a stated time limit: one to infer from the accepted submissions (none here: the
    // default, said when grading settles it).
    let unstated = package_with("name: Toy\n", &[]).unwrap();
    assert_eq!(
        unstated.package.as_ref().unwrap().time_limit_source,
        "inferred from the accepted submissions"
    );
    let mut unstated = unstated;
    assert_eq!(
        grader::timelimit::settle(&mut unstated, &common::cache(), Containment::available()).unwrap(),
        None
    );
    assert!(
        unstated.warnings.iter().any(|w| w.contains("no accepted submission ran to infer one: 2 s")),
        "{:?}",
        unstated.warnings
    );
}

/// A validator that does not answer by the protocol, or does not build, is the package's fault:
/// the case is the grader's error, or the grading stops (exit 3), never a student's zero.
#[test]
fn a_broken_validator_is_the_packages_fault_never_the_students() {
    let with_validator = |validator: &str| {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("echo");
        for folder in ["data/secret", "output_validator"] {
            std::fs::create_dir_all(package.join(folder)).unwrap();
        }
        std::fs::write(package.join("problem.yaml"), "name: Echo\nlimits:\n  time_limit: 1\n").unwrap();
        std::fs::write(package.join("data/secret/1.in"), "1\n").unwrap();
        std::fs::write(package.join("data/secret/1.ans"), "1\n").unwrap();
        std::fs::write(package.join("output_validator/check.py"), validator).unwrap();
        let submission = dir.path().join("echo.py");
        std::fs::write(&submission, "print(input())\n").unwrap();
        let assignment = load_folder(&package).unwrap();
        (dir, grade(&assignment, &submission, &options()))
    };
    let (_dir, report) = with_validator("import sys\nsys.exit(0)\n");
    let case = &report.unwrap().cases[0];
    assert_eq!((case.status, case.verdict), (CaseStatus::Error, Some(JudgeVerdict::JE)));
    let note = case.note.as_deref().unwrap();
    assert!(
        note.contains("the package's fault")
            && note.contains("exited with status 0 (42 accepts, 43 rejects)"),
        "{note}"
    );

    let (_dir, report) = with_validator("import sys\nsys.exit(42)\n");
    assert_eq!(report.unwrap().score, 100.0);

    let (_dir, report) = with_validator("def broken(:\n");
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("output_validator cannot judge: it does not build") && error.contains("SyntaxError"),
        "{error}"
    );
}

/// Every file under `data/` of a package, by its path there.
fn data_files(package: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(package.join("data"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let name = e.path().strip_prefix(package).unwrap().display().to_string();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn bless(assignment: &grader::load::Assignment, check: bool) -> grader::bless::BlessOutcome {
    grader::bless::bless_all(assignment, check, &common::cache(), Containment::available()).unwrap()
}

/// A package stripped of its generated inputs and of every answer gets them back, byte for byte,
/// from its seeded generators and its reference solution; `--check` then finds nothing stale, and
/// finds an answer changed by hand.
#[test]
fn a_package_stripped_of_its_data_gets_it_back_from_bless() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["primes", "wordcount"] {
        common::copy_tree(&package(name), &dir.path().join(name));
    }
    let primes = dir.path().join("primes");
    let committed = data_files(&package("primes"));
    std::fs::remove_dir_all(primes.join("data")).unwrap();
    let outcome = bless(&load_folder(&primes).unwrap(), false);
    assert_eq!(outcome.stale.len(), committed.len(), "{outcome:?}");
    assert_eq!(data_files(&primes), committed);
    let assignment = load_folder(&primes).unwrap();
    assert_eq!(bless(&assignment, true).stale, Vec::<PathBuf>::new());

    std::fs::write(primes.join("data/secret/5-large.ans"), "48309\n").unwrap();
    let stale = bless(&load_folder(&primes).unwrap(), true).stale;
    assert_eq!(stale, [primes.canonicalize().unwrap().join("data/secret/5-large.ans")]);

    // Answers written by hand that the reference agrees with stay; missing ones come back.
    let wordcount = dir.path().join("wordcount");
    let committed = data_files(&package("wordcount"));
    for (name, _) in committed.iter().filter(|(n, _)| n.ends_with(".ans")) {
        std::fs::remove_file(wordcount.join(name)).unwrap();
    }
    let outcome = bless(&load_folder(&wordcount).unwrap(), false);
    assert_eq!(outcome.stale.len(), 7, "{outcome:?}");
    assert_eq!(data_files(&wordcount), committed);
}

/// `[reference] program` in our own format: the expected outputs of plain cases from a program in
/// any language, no Rust, no hand-typed transcript.
#[test]
fn a_reference_program_writes_the_transcripts_of_plain_cases() {
    let root = toy(
        "[builds.program]\nlanguage = \"python3\"\n\n[reference]\nprogram = \"solution/count.py\"\n",
        &[("words/two.toml", "title = \"two words\"\n"), ("words/two.stdin", "hello  world\n")],
    );
    let dir = root.path().join("toy");
    std::fs::create_dir_all(dir.join("solution")).unwrap();
    std::fs::write(dir.join("solution/count.py"), "print(len(input().split()))\n").unwrap();
    let assignment = load(root.path(), "toy").unwrap();
    let outcome = bless(&assignment, true);
    assert_eq!(outcome.stale, [dir.canonicalize().unwrap().join("words/two.stdout")]);
    bless(&assignment, false);
    assert_eq!(std::fs::read_to_string(dir.join("words/two.stdout")).unwrap(), "2\n");
    let submission = tempfile::tempdir().unwrap();
    std::fs::write(submission.path().join("words.py"), "import sys\nprint(len(sys.stdin.read().split()))\n")
        .unwrap();
    assert_eq!(grade(&assignment, submission.path(), &options()).unwrap().score, 10.0);
    let e = load_with_reference("solution/missing.py");
    assert!(
        e.contains("assignment.toml:") && e.contains("no reference program `solution/missing.py`"),
        "{e}"
    );
}

fn load_with_reference(program: &str) -> String {
    let root = toy(
        &format!("[builds.program]\nlanguage = \"python3\"\n\n[reference]\nprogram = \"{program}\"\n"),
        &[],
    );
    load(root.path(), "toy").unwrap_err().to_string()
}

/// A package that states no time limit gets the one the package tools would compute from its
/// accepted submissions (the slowest run times 5, in whole seconds), then `bless` keeps it beside
/// the package; the time-limit-exceeded submission still exceeds it.
#[test]
fn a_package_without_a_time_limit_takes_one_from_its_accepted_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let wordcount = dir.path().join("wordcount");
    common::copy_tree(&package("wordcount"), &wordcount);
    let yaml = std::fs::read_to_string(wordcount.join("problem.yaml")).unwrap();
    std::fs::write(wordcount.join("problem.yaml"), yaml.split("limits:").next().unwrap()).unwrap();
    std::fs::remove_file(wordcount.join(".timelimit")).unwrap();
    let mut assignment = load_folder(&wordcount).unwrap();
    let containment = Containment::available();
    let inferred =
        grader::timelimit::settle(&mut assignment, &common::cache(), containment).unwrap().unwrap();
    assert_eq!(inferred.time_limit, grader::timelimit::from_slowest(inferred.slowest, 5.0, None));
    assert!(inferred.slowest > std::time::Duration::ZERO && inferred.submission.starts_with("accepted/"));
    let verified = verify::verify(&assignment, &options()).unwrap();
    assert!(verified.all_kept() && verified.skipped.is_empty(), "{}", verify::render(&verified));
    let checked = verified.checked;
    let tle = checked.iter().find(|c| c.example.name == "time_limit_exceeded/quadratic.py").unwrap();
    let package = tle.report.package.as_ref().unwrap();
    assert_eq!(package.time_limit_source, "inferred from the accepted submissions");
    // Every report states the limit the grading ran under: the settled one.
    let settled = assignment.package.as_ref().unwrap();
    assert_eq!(settled.time_limit, inferred.time_limit);
    assert_eq!(package.time_limit_seconds, settled.time_limit.as_secs_f64());

    let outcome = bless(&load_folder(&wordcount).unwrap(), false);
    assert!(outcome.stale.iter().any(|p| p.ends_with(".timelimit")), "{outcome:?}");
    // What bless wrote is what the package is read with from now on, named as its source.
    let written: f64 = std::fs::read_to_string(wordcount.join(".timelimit")).unwrap().trim().parse().unwrap();
    let kept = load_folder(&wordcount).unwrap();
    let info = kept.package.as_ref().unwrap();
    assert_eq!(info.time_limit_source, ".timelimit");
    assert_eq!(info.time_limit.as_secs_f64(), written);
    assert_eq!(kept.cases[0].limits.cpu, info.time_limit, "every case runs under it");
}

/// A student pack of a package: the samples, the group settings and the validator, an empty
/// placeholder per hidden case in its group (so a self-check knows what it leaves out), and nothing
/// of the hidden data, the solutions or the generators.
#[test]
fn a_student_pack_of_a_package_holds_the_samples_and_placeholders_only() {
    let out = tempfile::tempdir().unwrap();
    let root = common::repo().join("examples/packages");
    for name in ["average", "primes"] {
        let pack = grader::pack::write_student_pack(&root, name, &out.path().join(name), false).unwrap();
        assert!(!pack.assignment_dir.join("submissions").exists(), "{name}");
        assert!(!pack.assignment_dir.join("generators").exists(), "{name}");
        let packed = data_files(&pack.assignment_dir);
        for (file, bytes) in &packed {
            let placeholder = file.contains("/withheld-") && bytes.is_empty();
            let public = file.starts_with("data/sample/") || file.ends_with("test_group.yaml");
            assert!(placeholder || public, "{name}: {file} is in the pack");
        }
        let assignment = load(&out.path().join(name).join("cases"), name).unwrap();
        let original = load_folder(&package(name)).unwrap();
        let shares = |a: &grader::load::Assignment| {
            let points = grader::score::case_points(a, &a.cases.iter().collect::<Vec<_>>());
            a.cases
                .iter()
                .zip(points)
                .map(|(c, p)| (c.category.clone(), (p * 100.0).round() as i64))
                .collect::<Vec<_>>()
        };
        let (mut packed_shares, mut original_shares) = (shares(&assignment), shares(&original));
        packed_shares.sort();
        original_shares.sort();
        assert_eq!(packed_shares, original_shares, "{name}: every case keeps its category and points");
    }
    let assignment = load(&out.path().join("average/cases"), "average").unwrap();
    let mean = package("average").join("submissions/accepted/mean.py");
    let report = grade(&assignment, &mean, &GradeOptions { visible_only: true, ..options() }).unwrap();
    let hidden = report.hidden.unwrap();
    assert_eq!((hidden.cases, hidden.points), (7, 100.0));
}

/// C++, Rust and JavaScript submissions (C, Java and Python are the examples' own) are built by
/// their endings and graded in the sandbox, Rust from a rustup toolchain in a home folder too.
#[test]
fn every_language_of_the_table_is_graded_by_its_endings() {
    let sources = [
        (
            "count.cpp",
            "#include <iostream>\n#include <set>\n#include <string>\nint main() {\n  std::string w; char c; long n = 0;\n  \
             std::set<std::string> seen;\n  auto end = [&] { if (!w.empty()) { n++; seen.insert(w); w.clear(); } };\n  \
             while (std::cin.get(c)) { if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) w += c; else end(); }\n  \
             end();\n  std::cout << n << ' ' << seen.size() << '\\n';\n}\n",
        ),
        (
            "count.rs",
            "use std::io::Read;\nfn main() {\n    let mut text = String::new();\n    std::io::stdin().read_to_string(&mut text).unwrap();\n    \
             let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).collect();\n    \
             let distinct: std::collections::HashSet<&str> = words.iter().copied().collect();\n    \
             println!(\"{} {}\", words.len(), distinct.len());\n}\n",
        ),
        (
            "count.js",
            "const text = require('fs').readFileSync(0, 'utf8');\nconst words = text.match(/[A-Za-z]+/g) || [];\n\
             console.log(words.length, new Set(words).size);\n",
        ),
    ];
    let assignment = load_folder(&package("wordcount")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in sources {
        let file = dir.path().join(name);
        std::fs::write(&file, source).unwrap();
        let report = grade(&assignment, &file, &options()).unwrap();
        assert_eq!(report.score, 100.0, "{name}:\n{}", common::plain_text(&report));
        assert_eq!(report.package.as_ref().unwrap().verdict, JudgeVerdict::AC, "{name}");
    }
}

/// Our own format's seeded cases: `generate = "gen.py {seed} 50"` in a case file, the generator in
/// the assignment's `generators/`, the transcript from the `[reference]`: `bless` writes both
/// sidecars, and makes the same input again.
#[test]
fn a_case_of_our_own_format_can_be_generated_with_a_seed() {
    let root = toy(
        "[builds.program]\nlanguage = \"python3\"\n\n[reference]\nprogram = \"solution/count.py\"\n",
        &[("words/many.toml", "title = \"many words\"\ngenerate = \"gen.py {seed} 50\"\n")],
    );
    let dir = root.path().join("toy");
    for folder in ["solution", "generators"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    std::fs::write(dir.join("solution/count.py"), "print(len(input().split()))\n").unwrap();
    std::fs::write(
        dir.join("generators/gen.py"),
        "import random, sys\nr = random.Random(int(sys.argv[1]))\nprint(' '.join('w' * r.randint(1, 5) for _ in range(int(sys.argv[2]))))\n",
    )
    .unwrap();
    let assignment = load(root.path(), "toy").unwrap();
    let outcome = bless(&assignment, false);
    assert_eq!(outcome.stale.len(), 2, "{outcome:?}");
    let input = std::fs::read_to_string(dir.join("words/many.stdin")).unwrap();
    assert_eq!(input.split_whitespace().count(), 50);
    assert_eq!(std::fs::read_to_string(dir.join("words/many.stdout")).unwrap(), "50\n");
    let again = load(root.path(), "toy").unwrap();
    assert_eq!(bless(&again, true).stale, Vec::<PathBuf>::new(), "the same seed, the same input");
    let e = load_with_case("generate = \"missing.py {seed}\"\n");
    assert!(e.contains("many.toml:2:") && e.contains("no generator `missing.py`"), "{e}");
}

fn load_with_case(line: &str) -> String {
    let root = toy(
        "[builds.program]\nlanguage = \"python3\"\n",
        &[("words/many.toml", &format!("title = \"t\"\n{line}"))],
    );
    load(root.path(), "toy").unwrap_err().to_string()
}

/// Per-case program arguments: `args` in a case file of our own format, `args` in a package's
/// `<case>.yaml` (2023-07), after the program's own command line.
#[test]
fn a_case_gives_the_program_its_own_arguments() {
    let root = toy(
        "[builds.program]\nlanguage = \"python3\"\n",
        &[
            ("words/args.toml", "title = \"arguments\"\nargs = [\"two\", \"words\"]\n"),
            ("words/args.stdout", "['two', 'words']\n"),
        ],
    );
    let submission = tempfile::tempdir().unwrap();
    std::fs::write(submission.path().join("main.py"), "import sys\nprint(sys.argv[1:])\n").unwrap();
    let report = grade(&load(root.path(), "toy").unwrap(), submission.path(), &options()).unwrap();
    assert_eq!(report.score, 10.0, "{}", common::plain_text(&report));

    let dir = tempfile::tempdir().unwrap();
    let args = dir.path().join("args");
    std::fs::create_dir_all(args.join("data/secret")).unwrap();
    std::fs::write(args.join("problem.yaml"), "name: Args\nlimits:\n  time_limit: 1\n").unwrap();
    std::fs::write(args.join("data/secret/1.in"), "").unwrap();
    std::fs::write(args.join("data/secret/1.ans"), "1\n").unwrap();
    std::fs::write(args.join("data/secret/1.yaml"), "args: [\"1\"]\n").unwrap();
    let assignment = load_folder(&args).unwrap();
    let echo = submission.path().join("echo.py");
    std::fs::write(&echo, "import sys\nprint(sys.argv[1])\n").unwrap();
    assert_eq!(assignment.cases[0].args, ["1"]);
    assert_eq!(grade(&assignment, &echo, &options()).unwrap().score, 100.0);
}

/// A package's programs get a stack as large as their memory, as judges give: recursion a million
/// deep (about 128 MB of stack, a crash under the usual 8 MB) is an accepted answer.
#[test]
fn deep_recursion_is_an_accepted_answer() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep");
    std::fs::create_dir_all(deep.join("data/secret")).unwrap();
    std::fs::write(deep.join("problem.yaml"), "name: Deep\nlimits:\n  time_limit: 2\n  memory: 512\n")
        .unwrap();
    std::fs::write(deep.join("data/secret/1.in"), "").unwrap();
    std::fs::write(deep.join("data/secret/1.ans"), "1000000\n").unwrap();
    let source = dir.path().join("deep.c");
    std::fs::write(
        &source,
        "#include <stdio.h>\nstatic long __attribute__((noinline)) depth(long n, volatile char *prev) {\n    \
         volatile char pad[128];\n    pad[0] = prev ? (char)(prev[0] + 1) : 0;\n    if (n == 0) return 1;\n    \
         long below = depth(n - 1, pad);\n    return below + (pad[0] == pad[0]);\n}\n\
         int main(void) { printf(\"%ld\\n\", depth(999999, 0)); return 0; }\n",
    )
    .unwrap();
    let report = grade(&load_folder(&deep).unwrap(), &source, &options()).unwrap();
    assert_eq!(report.score, 100.0, "{}", common::plain_text(&report));
}
