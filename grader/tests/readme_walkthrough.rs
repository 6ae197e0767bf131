//! The README's instructor walkthrough ("An instructor's day") runs as written: its shell blocks, in
//! order, in a fresh folder, with this build's grader on PATH in place of the `cargo build` line.

mod common;

use std::process::Command;

/// The shell blocks of the README section that starts with `heading`.
fn shell_blocks(readme: &str, heading: &str) -> Vec<String> {
    let section = readme.split(heading).nth(1).expect("the section is in the README");
    let section = section.split("\n## ").next().unwrap_or(section);
    section.split("```sh\n").skip(1).map(|block| block.split("```").next().unwrap_or("").to_owned()).collect()
}

#[test]
fn the_instructors_day_runs_as_the_readme_writes_it() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let blocks = shell_blocks(&readme, "## An instructor's day");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_grader")).parent().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    // The examples are the repository's: the walkthrough runs beside a link to them.
    std::os::unix::fs::symlink(common::repo().join("examples"), dir.path().join("examples")).unwrap();
    let mut script = String::from("set -eu\n");
    for block in &blocks {
        for line in block.lines() {
            if line.starts_with("cargo build") {
                script.push_str(&format!("export PATH=\"{}:$PATH\"\n", bin.display()));
            } else {
                script.push_str(line);
                script.push('\n');
            }
        }
    }
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("GRADER_CACHE_DIR", cache.path())
        .env("GRADER_CASES", common::repo().join("cases"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{script}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    // What the walkthrough says happens, happens.
    assert!(stderr.contains("6 students: 6 graded"), "{stderr}");
    assert!(stderr.contains("hand grades: 3 given now"), "{stderr}");
    assert!(stdout.contains("Score:"), "grader show printed the report: {stdout}");
    let graded = dir.path().join("graded");
    for file in [
        "gradebook.csv",
        "summary.md",
        "class.html",
        "hand-grades.csv",
        "moodle-grades.csv",
        "moodle-feedback.zip",
    ] {
        assert!(graded.join(file).is_file(), "{file}");
    }
    let gradebook = std::fs::read_to_string(graded.join("gradebook.csv")).unwrap();
    let ada = gradebook.lines().find(|l| l.starts_with("10001,")).unwrap();
    assert!(ada.starts_with("10001,Ada Lovelace,99.00,100.00,"), "{ada}");
    let worksheet = std::fs::read_to_string(graded.join("moodle-grades.csv")).unwrap();
    assert_eq!(worksheet.lines().count(), 7, "{worksheet}");
    // The hand grades are in what the platform imports.
    let ada = worksheet.lines().find(|l| l.starts_with("Participant 10001,")).unwrap();
    assert!(ada.starts_with("Participant 10001,Ada Lovelace,99.00,100.00,"), "{ada}");
    assert!(stderr.contains("5 of them have hand grades pending"), "{stderr}");

    // The browser's way, as the walkthrough starts it (on any free port): a grade saved through the
    // API the page uses is in the hand grades, the gradebook and what `grader show` prints.
    let review = readme.split("```console\n$ ").nth(1).and_then(|b| b.lines().next()).unwrap();
    assert_eq!(review, "grader review graded");
    let mut args: Vec<&str> = review.split_whitespace().skip(1).collect();
    args.extend(["--port", "0"]);
    let server = common::Review::start(dir.path(), &args);
    assert_eq!(server.request("GET", "/api/students", None, None).0, 401);
    let grade = r#"{"id":"10003","category":"style","points":8,"comment":"tidy","ta":"ann"}"#;
    let (status, _, body) = server.request("POST", "/api/hand-grades", Some(grade), Some(&server.token));
    assert_eq!(status, 200, "{body}");
    let hand = std::fs::read_to_string(graded.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("10003,style,8,tidy,ann,"), "{hand}");
    let show = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["show", "graded", "10003"])
        .current_dir(dir.path())
        .env("GRADER_CASES", common::repo().join("cases"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(
        show.lines().any(|l| l.trim_start().starts_with("style")
            && l.contains("8.00 /  10.00")
            && l.ends_with("tidy")),
        "{show}"
    );
}

/// The README's table of assignments gives each one's case count as the code loads it (interactive
/// cases where the row counts those), so that the figure cannot drift.
#[test]
fn the_readmes_case_counts_are_the_assignments_own() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let mut rows = 0;
    for row in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let Some(id) = cells[0].strip_prefix("| `").and_then(|c| c.strip_suffix('`')) else { continue };
        let Some(cases) = cells.get(2) else { continue };
        let Ok(assignment) = grader::load::load_assignment(&common::repo().join("cases"), id) else {
            continue;
        };
        let said: usize = cases.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        let interactive = cases.starts_with(&format!("{said} interactive"));
        let counted = assignment
            .cases
            .iter()
            .filter(|c| !interactive || c.kind == grader::load::CaseKind::Interactive)
            .count();
        assert_eq!(said, counted, "{id}: the README says {said}");
        rows += 1;
    }
    assert_eq!(rows, 5, "a row per assignment");
}
