//! The command line as CI scripts and students use it: exit codes, JSON shape, messages.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::repo;

/// Runs the grader binary from the repository root with its own build cache.
fn grader(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .current_dir(repo())
        .env("GRADER_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .output()
        .expect("the grader runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn grade_json_of_the_correct_fixture_has_full_marks_and_the_documented_shape() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(
        &["grade", "fixtures/trouble/correct", "--assignment", "trouble", "--format", "json"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["score"], report["max_score"]);
    assert_eq!(report["max_score"], 80.0);
    let pending: Vec<&str> =
        report["pending"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(pending, ["style", "survey"]);
    for category in report["categories"].as_array().unwrap() {
        assert!(
            category["id"].is_string() && category["score"].is_number() && category["max_score"].is_number()
        );
    }
    let cases = report["cases"].as_array().unwrap();
    assert!(cases.len() >= 40);
    for case in cases {
        assert_eq!(case["status"], "passed", "{case}");
        for key in ["id", "category", "score", "max_score"] {
            assert!(!case[key].is_null(), "{key} in {case}");
        }
    }
}

#[test]
fn grade_writes_the_report_to_a_file_and_regrading_reuses_the_build() {
    let cache = tempfile::tempdir().unwrap();
    let out_file = cache.path().join("report.json");
    let args = [
        "grade",
        "fixtures/trouble/correct",
        "-a",
        "trouble",
        "--format",
        "json",
        "-o",
        out_file.to_str().unwrap(),
    ];
    assert!(grader(&args, cache.path()).status.success());
    let first: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert!(first["builds"].as_array().unwrap().iter().all(|b| b["cached"] == false));
    assert!(grader(&args, cache.path()).status.success());
    let second: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert!(second["builds"].as_array().unwrap().iter().all(|b| b["cached"] == true));
    assert_eq!(first["score"], second["score"]);
}

#[test]
fn check_shows_the_first_divergence_and_fails_on_a_buggy_submission() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["check", "fixtures/trouble/bug-land-on-own", "--assignment", "trouble"], cache.path());
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("(visible cases only)"), "{stdout}");
    assert!(stdout.contains("first difference at line"), "{stdout}");
    assert!(
        stdout.contains("--- expected\n") || stdout.contains("--- expected"),
        "a diff is shown:\n{stdout}"
    );
    let trouble = common::assignment("trouble");
    for case in trouble.cases.iter().filter(|c| c.visibility == grader::load::Visibility::Hidden) {
        assert!(!stdout.contains(&case.id), "hidden case {} is not run: {stdout}", case.id);
    }
    // The visible score is not called a grade, and what was left out is counted.
    assert!(!stdout.contains("Score:"), "{stdout}");
    let hidden = trouble.cases.iter().filter(|c| c.visibility == grader::load::Visibility::Hidden).count();
    assert!(stdout.contains(&format!("This is not your grade: {hidden} hidden cases worth")), "{stdout}");
    assert!(!stdout.contains("\u{1b}["), "NO_COLOR is honoured");

    let ok = grader(&["check", "fixtures/trouble/correct", "--assignment", "trouble"], cache.path());
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));
}

#[test]
fn fail_under_turns_a_low_score_into_exit_1() {
    let cache = tempfile::tempdir().unwrap();
    let args = ["grade", "fixtures/trouble/bug-no-extra-roll", "-a", "trouble", "--fail-under", "90"];
    assert_eq!(grader(&args, cache.path()).status.code(), Some(1));
    let args = ["grade", "fixtures/trouble/bug-no-extra-roll", "-a", "trouble", "--fail-under", "50"];
    assert_eq!(grader(&args, cache.path()).status.code(), Some(0));
}

#[test]
fn bless_check_finds_every_committed_sidecar_fresh() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["bless", "--check"], cache.path());
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("0 stale"));
}

#[test]
fn bless_check_reports_a_stale_sidecar_and_bless_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases");
    let dir = cases.join("trouble");
    std::fs::create_dir_all(dir.join("compile")).unwrap();
    std::fs::copy(repo().join("cases/trouble/assignment.toml"), dir.join("assignment.toml")).unwrap();
    std::fs::write(dir.join("compile/quit.toml"), "title = \"t\"\n[scenario]\ninputs = [\"-1\"]\n").unwrap();
    std::fs::write(dir.join("compile/quit.stdout"), "Enter a seed: ").unwrap();
    let cases_arg = cases.to_str().unwrap();

    let out = grader(&["--cases", cases_arg, "bless", "--check"], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("stale") && text(&out.stdout).contains("quit.stdout"));
    assert_eq!(
        std::fs::read_to_string(dir.join("compile/quit.stdout")).unwrap(),
        "Enter a seed: ",
        "--check writes nothing"
    );

    assert!(grader(&["--cases", cases_arg, "bless"], tmp.path()).status.success());
    assert_eq!(std::fs::read_to_string(dir.join("compile/quit.stdout")).unwrap(), "Enter a random seed: ");
    assert_eq!(std::fs::read_to_string(dir.join("compile/quit.stdin")).unwrap(), "-1\n");
    assert!(grader(&["--cases", cases_arg, "bless", "--check"], tmp.path()).status.success());
}

#[test]
fn a_malformed_case_is_a_usage_error_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cases/trouble");
    std::fs::create_dir_all(dir.join("compile")).unwrap();
    std::fs::copy(repo().join("cases/trouble/assignment.toml"), dir.join("assignment.toml")).unwrap();
    std::fs::write(dir.join("compile/bad.toml"), "title = \"t\"\nvisibility = \"secret\"\n").unwrap();
    let cases_arg = tmp.path().join("cases");
    let out = grader(&["--cases", cases_arg.to_str().unwrap(), "list"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("bad.toml:2:"), "{stderr}");
    assert!(stderr.contains("secret"), "{stderr}");
}

#[test]
fn a_scenario_that_cannot_progress_is_rejected_by_bless_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cases/trouble");
    std::fs::create_dir_all(dir.join("playerTurn")).unwrap();
    std::fs::copy(repo().join("cases/trouble/assignment.toml"), dir.join("assignment.toml")).unwrap();
    let case = "title = \"t\"\n\n[scenario]\nseed = 0\nplayers = 2\npolicy = { seed = 1 }\n";
    std::fs::write(dir.join("playerTurn/zero.toml"), case).unwrap();
    let cases_arg = tmp.path().join("cases");
    let out = grader(&["--cases", cases_arg.to_str().unwrap(), "bless"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("zero.toml:3:") && stderr.contains("seed 0"), "{stderr}");
}

#[test]
fn usage_mistakes_exit_2() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["grade", "fixtures/trouble/nowhere", "--assignment", "trouble"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no submission at"));
    let out = grader(&["grade", "fixtures/trouble/correct", "--assignment", "chess"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no assignment `chess`"));
    assert_eq!(grader(&["grade"], cache.path()).status.code(), Some(2));
}

#[test]
fn list_shows_the_rubric_and_the_cases() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["list"], cache.path());
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("trouble"));
    assert!(stdout.contains("graded by hand"));
    assert!(stdout.contains("playerTurn/handout-sample-run"));
}

#[test]
fn a_single_source_file_is_a_submission_too() {
    let cache = tempfile::tempdir().unwrap();
    let args = ["grade", "fixtures/trouble/correct/main.c", "-a", "trouble", "--format", "json"];
    let out = grader(&args, cache.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["score"], report["max_score"]);
}

#[test]
fn batch_grades_a_class_folder_and_merge_refuses_overlapping_shares() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for name in ["correct", "bug-no-kings"] {
        std::fs::create_dir_all(class.join(name)).unwrap();
        let source = repo().join("fixtures/checkers").join(name).join("checkers.c");
        std::fs::copy(source, class.join(name).join("checkers.c")).unwrap();
    }
    let out = dir.path().join("out");
    let (class_arg, out_arg) = (class.to_str().unwrap(), out.to_str().unwrap());
    let run = grader(&["batch", class_arg, "-a", "checkers", "-o", out_arg, "--jobs", "2"], dir.path());
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    // Not a terminal: plain progress lines, then the last line.
    assert!(stderr.contains("[2/2] "), "{stderr}");
    // "Graded" once: what this run did, then the students by status.
    assert!(stderr.contains("2 students: 2 graded now, 0 up to date; by status: 2 graded."), "{stderr}");
    let csv = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(csv.contains("\ncorrect,,100.00,100.00,"), "{csv}");
    assert!(csv.contains("\nbug-no-kings,,80.00,100.00,"), "{csv}");

    let again = grader(&["batch", class_arg, "-a", "checkers", "-o", out_arg], dir.path());
    assert!(text(&again.stderr).contains("0 graded now, 2 up to date"), "{}", text(&again.stderr));

    let other = grader(&["batch", class_arg, "-a", "trouble", "-o", out_arg], dir.path());
    assert_eq!(other.status.code(), Some(2), "{}", text(&other.stderr));
    let merged = dir.path().join("merged");
    let merge =
        grader(&["merge", out_arg, out_arg, "-a", "checkers", "-o", merged.to_str().unwrap()], dir.path());
    assert_eq!(merge.status.code(), Some(2), "{}", text(&merge.stderr));
    assert!(text(&merge.stderr).contains("the partitions overlap"), "{}", text(&merge.stderr));
    let bad_share =
        grader(&["batch", class_arg, "-a", "checkers", "-o", out_arg, "--partition", "hash:3/2"], dir.path());
    assert_eq!(bad_share.status.code(), Some(2));
    assert!(text(&bad_share.stderr).contains("not hash:K/N or slice:K/N"), "{}", text(&bad_share.stderr));
}

#[test]
fn a_folder_without_sources_and_an_impossible_fail_under_are_usage_errors() {
    let cache = tempfile::tempdir().unwrap();
    let parent = grader(&["grade", "fixtures/trouble", "-a", "trouble"], cache.path());
    assert_eq!(parent.status.code(), Some(2));
    let message = text(&parent.stderr);
    assert!(message.contains("holds no file matching *.c or *.h"), "{message}");
    assert!(message.contains("graded with `grader batch`"), "{message}");
    let over =
        grader(&["grade", "fixtures/trouble/correct", "-a", "trouble", "--fail-under", "150"], cache.path());
    assert_eq!(over.status.code(), Some(2));
    assert!(text(&over.stderr).contains("not a percentage from 0 to 100"), "{}", text(&over.stderr));
}

#[test]
fn gradescope_results_have_its_shape_hide_hidden_cases_and_exist_even_when_grading_fails() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(
        &["grade", "fixtures/trouble/bug-checkwin-zero", "-a", "trouble", "--format", "gradescope"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results["output_format"], "md");
    assert!(results["execution_time"].is_u64());
    let tests = results["tests"].as_array().unwrap();
    // The tests' points, as Gradescope adds them up, are the score and the 80 automated points exactly.
    let hundredths = |v: &serde_json::Value| (v.as_f64().unwrap() * 100.0).round() as i64;
    let total: i64 = tests.iter().map(|t| hundredths(&t["score"])).sum();
    let maximum: i64 = tests.iter().map(|t| hundredths(&t["max_score"])).sum();
    assert_eq!((total, maximum), (hundredths(&results["score"]), 8000), "{results:#}");
    let hidden: Vec<&str> = common::assignment("trouble")
        .cases
        .iter()
        .filter(|c| c.visibility == grader::load::Visibility::Hidden)
        .map(|c| c.id.as_str())
        .collect();
    for test in tests {
        for key in ["name", "score", "max_score", "status", "output", "visibility"] {
            assert!(!test[key].is_null(), "{key} in {test}");
        }
        assert!(["passed", "failed"].contains(&test["status"].as_str().unwrap()));
        let shown = format!("{}{}", test["name"], test["output"]);
        assert!(!hidden.iter().any(|id| shown.contains(id)), "a hidden case named: {test}");
    }
    assert!(tests.iter().any(
        |t| t["status"] == "failed" && t["output"].as_str().unwrap().contains("first difference at line")
    ));

    let file = cache.path().join("results.json");
    let failed = grader(
        &["grade", "no/such/folder", "-a", "trouble", "--format", "gradescope", "-o", file.to_str().unwrap()],
        cache.path(),
    );
    assert_eq!(failed.status.code(), Some(2));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(results["score"], 0.0);
    assert!(results["output"].as_str().unwrap().contains("no submission at no/such/folder"), "{results}");
}

#[test]
fn a_submission_of_another_assignment_gets_a_hint_and_each_missing_name_once() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["grade", "fixtures/trouble/correct", "-a", "backgammon"], cache.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("not defined by the submission (the_board_white, the_board_red,"), "{report}");
    assert!(report.contains("is it a submission of `backgammon`?"), "{report}");
    // Once per failed build (each build's log is its own), not once per use.
    let failed_builds = report.lines().filter(|l| l.starts_with("build ") && l.contains(": error")).count();
    assert!(failed_builds >= 1);
    assert!(report.matches("undefined reference to `the_board_white'").count() <= failed_builds, "{report}");
}

/// A cases root with `toy`: `basics` (10 points: reads `hi`, prints it) and the bonus `cube` (5
/// points: reads `double`, prints it), both visible.
fn toy_with_bonus(root: &Path) {
    let dir = root.join("toy");
    for folder in ["basics", "cube"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    let assignment = r#"
id = "toy"
title = "Toy with an optional part"

[submission]
files = ["*.c"]

[builds.program]
commands = [["gcc", "-o", "{out}", "{glob:*.c}"]]
run = ["{out}"]

[limits]
wall-seconds = 10

[[categories]]
id = "basics"
title = "Says hi"
points = 10

[[categories]]
id = "cube"
title = "Doubles (optional)"
points = 5
bonus = true
"#;
    std::fs::write(dir.join("assignment.toml"), assignment).unwrap();
    for (case, line) in [("basics/hello", "hi\n"), ("cube/double", "double\n")] {
        std::fs::write(dir.join(format!("{case}.toml")), "title = \"echoes its line\"\n").unwrap();
        std::fs::write(dir.join(format!("{case}.stdin")), line).unwrap();
        std::fs::write(dir.join(format!("{case}.stdout")), line).unwrap();
    }
}

/// A submission that echoes the line it reads when it is one of `known`, and prints `?` otherwise.
fn submission_echoing(dir: &Path, known: &[&str]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let tests: Vec<String> = known.iter().map(|k| format!("strcmp(line, \"{k}\\n\") == 0")).collect();
    let condition = if tests.is_empty() { "0".to_owned() } else { tests.join(" || ") };
    let source = format!(
        "#include <stdio.h>\n#include <string.h>\nint main(void) {{\n    char line[64] = \"\";\n    \
         fgets(line, sizeof line, stdin);\n    fputs({condition} ? line : \"?\\n\", stdout);\n    return 0;\n}}\n"
    );
    std::fs::write(dir.join("main.c"), source).unwrap();
    dir.to_str().unwrap().to_owned()
}

#[test]
fn a_check_whose_only_failure_is_a_bonus_case_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases");
    toy_with_bonus(&cases);
    let cases = cases.to_str().unwrap();
    let sub = submission_echoing(&tmp.path().join("without-cube"), &["hi"]);

    let out = grader(&["--cases", cases, "check", &sub, "--assignment", "toy"], tmp.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("FAIL cube/double (0.00 / 5.00, bonus)"), "{stdout}");
    assert!(
        stdout.contains("Visible cases: 10.00 / 10.00 points (including 0.00 of 5.00 bonus points)"),
        "{stdout}"
    );

    // Asked about by name, a bonus case that fails fails the check.
    let chosen = grader(&["--cases", cases, "check", &sub, "-a", "toy", "--case", "cube/*"], tmp.path());
    assert_eq!(chosen.status.code(), Some(1), "{}", text(&chosen.stdout));

    // The grade is full marks, the bonus category reported as such.
    let graded = grader(&["--cases", cases, "grade", &sub, "-a", "toy", "--format", "json"], tmp.path());
    assert!(graded.status.success(), "{}", text(&graded.stderr));
    let report: serde_json::Value = serde_json::from_slice(&graded.stdout).unwrap();
    assert_eq!((report["score"].as_f64(), report["max_score"].as_f64()), (Some(10.0), Some(10.0)));
    assert_eq!(report["categories"][1]["bonus"], true);
    assert_eq!(report["categories"][1]["max_score"], 5.0);
    assert!(report["categories"][0].get("bonus").is_none(), "{report}");

    // Any other failure still fails the check.
    let wrong = submission_echoing(&tmp.path().join("cube-only"), &["double"]);
    let out = grader(&["--cases", cases, "check", &wrong, "-a", "toy"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

#[test]
fn a_submission_with_the_optional_part_scores_above_the_max() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases");
    toy_with_bonus(&cases);
    let sub = submission_echoing(&tmp.path().join("everything"), &["hi", "double"]);
    let args = ["--cases", cases.to_str().unwrap(), "grade", &sub, "-a", "toy"];
    let graded = grader(&[&args[..], &["--format", "json"]].concat(), tmp.path());
    let report: serde_json::Value = serde_json::from_slice(&graded.stdout).unwrap();
    assert_eq!((report["score"].as_f64(), report["max_score"].as_f64()), (Some(15.0), Some(10.0)));
    // --fail-under compares the score, bonus included, with the maximum: 150% clears 100%.
    assert_eq!(grader(&[&args[..], &["--fail-under", "100"]].concat(), tmp.path()).status.code(), Some(0));
}

#[test]
fn a_relative_cache_folder_is_taken_from_the_current_folder() {
    let work = tempfile::tempdir().unwrap();
    // A root grader's programs run as nobody, who must be able to enter the cache.
    std::fs::set_permissions(work.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["grade", "--assignment", "trouble", "--format", "json", "--cache-dir", "cache", "--cases"])
        .arg(repo().join("cases"))
        .arg(repo().join("fixtures/trouble/correct"))
        .current_dir(work.path())
        .output()
        .expect("the grader runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["score"], report["max_score"], "{}", text(&out.stdout));
    assert!(work.path().join("cache").is_dir());
}

/// A folder open to others (a temporary folder is private): run users must reach what is in it.
fn open_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn hidden_cases_the_programs_could_read_refuse_grading_without_namespaces_until_their_modes_are_fixed() {
    use std::os::unix::fs::PermissionsExt;
    let copy = open_tempdir();
    let cases = copy.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    for folder in ["trouble", "common"] {
        let status = Command::new("cp").arg("-a").arg(repo().join("cases").join(folder)).arg(&cases).status();
        assert!(status.unwrap().success());
    }
    let cache = open_tempdir();
    let cases_arg = cases.to_str().unwrap();
    let grade = |extra: &[&str]| {
        let mut args = vec!["--cases", cases_arg, "--containment", "rlimits-only"];
        args.extend_from_slice(extra);
        args.extend(["grade", "fixtures/trouble/correct", "--assignment", "trouble", "--format", "json"]);
        grader(&args, cache.path())
    };

    // The checkout's modes: every hidden answer is readable by all.
    let refused = grade(&[]);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused.stderr));
    let message = text(&refused.stderr);
    assert!(message.contains("hidden case") && message.contains("--accept-readable-cases"), "{message}");
    assert!(refused.stdout.is_empty(), "nothing was graded");

    // Accepted for a self-check: graded as usual; the report says whose user the programs had.
    let accepted = grade(&["--accept-readable-cases"]);
    assert!(accepted.status.success(), "{}", text(&accepted.stderr));
    let report: serde_json::Value = serde_json::from_slice(&accepted.stdout).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert_eq!(report["programs_ran_as_grader"].as_bool().unwrap_or(false), !root, "{report:#}");

    if !root {
        return; // A grader that is not root is always refused: its programs run as itself.
    }
    // Every hidden case's files readable by root alone: graded, full marks.
    let trouble = common::assignment("trouble");
    for case in trouble.cases.iter().filter(|c| c.visibility == grader::load::Visibility::Hidden) {
        let stem = case.path.file_stem().unwrap().to_string_lossy().into_owned();
        let folder = cases.join("trouble").join(case.path.parent().unwrap().file_name().unwrap());
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&format!("{stem}.")) {
                std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
            }
        }
    }
    let graded = grade(&[]);
    assert!(graded.status.success(), "{}", text(&graded.stderr));
    let report: serde_json::Value = serde_json::from_slice(&graded.stdout).unwrap();
    assert_eq!(report["containment"], "rlimits-only");
    assert_eq!(report["score"], report["max_score"]);
}

#[test]
fn a_machine_without_checkstyle_is_the_graders_error_not_the_students() {
    // Every program on PATH but Checkstyle: the style build says so before it builds, exit 3.
    let bin = tempfile::tempdir().unwrap();
    for dir in std::env::var("PATH").unwrap().split(':') {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if name != "checkstyle" && !bin.path().join(&name).exists() {
                let _ = std::os::unix::fs::symlink(entry.path(), bin.path().join(&name));
            }
        }
    }
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["grade", "--assignment", "backgammon-ai", "--case", "style/*"])
        .arg(repo().join("fixtures/backgammon-ai/correct"))
        .arg("--cache-dir")
        .arg(cache.path())
        .env("PATH", bin.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("`checkstyle` is not installed"), "{}", text(&out.stderr));
}

#[test]
fn an_output_folder_that_is_a_file_is_refused_once_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, "").unwrap();
    let out =
        grader(&["batch", "-a", "trouble", "--out", file.to_str().unwrap(), "fixtures/trouble"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("is a file: the outputs go in a folder"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_refused_or_unreadable_submission_is_bad_input_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..2100 {
        std::fs::write(many.join(format!("f{i}.h")), "").unwrap();
    }
    let out = grader(&["grade", many.to_str().unwrap(), "-a", "trouble"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is refused: more than 2000 files"), "{}", text(&out.stderr));

    // A file in the folder that the grader cannot read: named, and bad input too. Root reads
    // everything, so the grader runs as nobody for this.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped the unreadable file: needs root to run the grader as nobody");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("main.c"), "int main(void) { return 0; }").unwrap();
    std::fs::set_permissions(sub.join("main.c"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["grade", sub.to_str().unwrap(), "-a", "trouble", "--accept-readable-cases"])
        .current_dir(repo())
        .env("GRADER_CACHE_DIR", dir.path().join("cache"))
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("sub/main.c: Permission denied"), "{}", text(&out.stderr));
}

#[test]
fn quiet_names_each_failed_build_and_its_first_error_not_every_case() {
    let cache = tempfile::tempdir().unwrap();
    let out = grader(&["grade", "fixtures/trouble/does-not-compile", "-a", "trouble", "-q"], cache.path());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("BILD the `driver` build failed (40 cases not run): main.c:"), "{stdout}");
    assert!(lines[0].contains("error:"), "{stdout}");
    assert!(lines[1].starts_with("BILD the `game` build failed (15 cases not run): "), "{stdout}");
    assert!(lines[2].starts_with("Score: 0.00 / 80.00"), "{stdout}");
}

/// A copy of Trouble's cases (and the shared files its recipes use) in `cases`, a cases folder of
/// its own.
fn copy_trouble_cases(cases: &Path) {
    for sub in ["trouble", "common"] {
        let from = repo().join("cases").join(sub);
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.unwrap();
            let target = cases.join(sub).join(entry.path().strip_prefix(&from).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

#[test]
fn the_input_of_a_failing_case_is_named_where_the_cases_are() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("course-cases");
    copy_trouble_cases(&cases);
    let args = [
        "--cases",
        cases.to_str().unwrap(),
        "grade",
        "fixtures/trouble/bug-start-square",
        "-a",
        "trouble",
        "--accept-readable-cases",
        "--case",
        "movePiece/*",
    ];
    let out = grader(&args, dir.path());
    let stdout = text(&out.stdout);
    let shown = format!("input: {}/trouble/movePiece/", cases.display());
    assert!(stdout.contains(&shown), "{stdout}");
    // A student's view names the pack's own `cases/` folder.
    let mut student = args.to_vec();
    student.push("--student-view");
    let stdout = text(&grader(&student, dir.path()).stdout);
    assert!(stdout.contains("input: cases/trouble/movePiece/"), "{stdout}");
}

#[test]
fn a_driver_the_compilers_cannot_read_is_the_graders_error_not_a_students_build_error() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: compilers run as another user only when the grader is root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    copy_trouble_cases(&cases);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let driver = cases.join("trouble/driver.c");
    std::fs::set_permissions(&driver, std::fs::Permissions::from_mode(0o600)).unwrap();
    let args = ["--cases", cases.to_str().unwrap(), "grade", "fixtures/trouble/correct", "-a", "trouble"];
    let out = grader(&args, dir.path());
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("driver.c is not readable by other users"), "{}", text(&out.stderr));
    // Nothing was cached as the student's failure: once readable, the same cache builds it.
    std::fs::set_permissions(&driver, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = grader(&args, dir.path());
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn a_compiler_killed_by_a_signal_is_reported_and_never_cached_as_the_students_failure() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    copy_trouble_cases(&cases);
    // The game's first command is killed as a machine out of memory or shutting down would kill it.
    let toml = cases.join("trouble/assignment.toml");
    let text_before = std::fs::read_to_string(&toml).unwrap();
    let first_command =
        "commands = [\n    [\"gcc\", \"-std=c17\", \"-O2\", \"-Wall\", \"-o\", \"{build}/own-program\"";
    assert!(text_before.contains(first_command), "the game recipe's first command moved");
    let killed =
        first_command.replace("commands = [\n", "commands = [\n    [\"sh\", \"-c\", \"kill -KILL $$\"],\n");
    std::fs::write(&toml, text_before.replace(first_command, &killed)).unwrap();
    let args = [
        "--cases",
        cases.to_str().unwrap(),
        "grade",
        "fixtures/trouble/correct",
        "-a",
        "trouble",
        "--case",
        "compile/*",
        "--format",
        "json",
    ];
    for attempt in ["first", "second"] {
        let out = grader(&args, dir.path());
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
        let game = report["builds"].as_array().unwrap().iter().find(|b| b["recipe"] == "game").unwrap();
        assert_eq!(game["status"], "error", "{attempt}: {game}");
        assert_eq!(game["cached"], false, "{attempt} grading: a killed build is built again, not read back");
        let log = game["log"].as_str().unwrap();
        assert!(log.contains("`sh` was killed by SIGKILL"), "{log}");
        assert!(log.contains("not kept in the build cache"), "{log}");
    }
}

#[test]
fn render_writes_gradescope_results_with_the_hidden_visibility_asked_and_refuses_it_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("report.json");
    let graded = grader(
        &[
            "grade",
            "fixtures/trouble/correct",
            "-a",
            "trouble",
            "--case",
            "movePiece/*",
            "--format",
            "json",
            "-o",
            saved.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(graded.status.success(), "{}", text(&graded.stderr));
    let render = |extra: &[&str]| {
        let mut args = vec!["render", saved.to_str().unwrap()];
        args.extend_from_slice(extra);
        grader(&args, dir.path())
    };
    let out = render(&["--format", "gradescope", "--hidden-visibility", "after_published"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tests = results["tests"].as_array().unwrap();
    let hidden: Vec<&serde_json::Value> = tests.iter().filter(|t| t["visibility"] != "visible").collect();
    assert!(!hidden.is_empty(), "movePiece has hidden cases: {results}");
    assert!(hidden.iter().all(|t| t["visibility"] == "after_published"), "{results}");
    let refused = render(&["--format", "text", "--hidden-visibility", "hidden"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("is for --format gradescope"), "{}", text(&refused.stderr));
}

#[test]
fn a_class_graded_on_one_slot_without_namespaces_ends_with_every_student_scored_as_alone() {
    // One CPU slot, kept by a case runner from run to run, and the gate that keeps hidden runs apart
    // from visible ones: a runner that kept the slot while it waited at the gate, for a run of
    // another student that waited for that slot, hung the whole class.
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    let fixtures =
        ["correct", "bug-no-extra-roll", "correct", "bug-status-width", "correct", "bug-passes-start"];
    for (at, fixture) in fixtures.iter().enumerate() {
        let student = class.join(format!("s{at}"));
        std::fs::create_dir_all(&student).unwrap();
        let source = repo().join("fixtures/trouble").join(fixture).join("main.c");
        std::fs::copy(source, student.join("main.c")).unwrap();
    }
    let out_dir = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["--containment", "rlimits-only", "--accept-readable-cases", "batch"])
        .arg(&class)
        .args(["--assignment", "trouble", "--jobs", "1", "--out"])
        .arg(&out_dir)
        .current_dir(repo())
        .env("GRADER_CACHE_DIR", dir.path().join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the grader runs");
    // Six students take seconds to build and grade; a hang is the failure this test is for.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the batch did not end in 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    let score = |report: &[u8]| {
        let report: serde_json::Value = serde_json::from_slice(report).unwrap();
        (report["score"].as_f64().unwrap(), report["max_score"].as_f64().unwrap())
    };
    for (at, fixture) in fixtures.iter().enumerate() {
        let graded = grader(
            &[
                "--containment",
                "rlimits-only",
                "--accept-readable-cases",
                "grade",
                &format!("fixtures/trouble/{fixture}"),
                "-a",
                "trouble",
                "--format",
                "json",
            ],
            &dir.path().join("cache"),
        );
        assert!(graded.status.success(), "{}", text(&graded.stderr));
        let in_class = std::fs::read(out_dir.join(format!("students/s{at}/report.json"))).unwrap();
        assert_eq!(score(&in_class), score(&graded.stdout), "s{at} ({fixture})");
    }
}

/// A self-check names each failing case's input where the student reaches it from where they are
/// (`pack/cases/trouble/...`), not as `cases/...`, which does not exist there.
#[test]
fn a_self_check_names_the_inputs_as_the_student_reaches_them() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(args)
            .arg("--cases")
            .arg(repo().join("cases"))
            .current_dir(dir.path())
            .env("GRADER_CACHE_DIR", cache.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let packed = run(&["pack", "-a", "trouble", "--output", "pack"]);
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    let fixture = repo().join("fixtures/trouble/bug-checkwin-zero");
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["check", "-a", "trouble", "--cases", "pack/cases", fixture.to_str().unwrap()])
        .current_dir(dir.path())
        .env("GRADER_CACHE_DIR", cache.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    let inputs: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("input: "))
        .map(|rest| rest.split(' ').next().unwrap())
        .collect();
    assert!(!inputs.is_empty(), "{stdout}");
    for input in inputs {
        assert!(input.starts_with("pack/cases/trouble/"), "{input}");
        assert!(dir.path().join(input).is_file(), "{input} is where it says");
    }
}
