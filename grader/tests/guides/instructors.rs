//! The instructors guide (`docs/instructors.md`) runs as written: the instructor's day on the example
//! class (the batch, hand grades in a CSV, `grader show`, the Moodle export), a re-run of one student,
//! the Excel export, two partitions merged into the same gradebook, the similarity of the class, a
//! saved report rendered again; then `grader review` as its console block starts it, a grade saved
//! through the API the page uses.

use super::*;
use std::process::Command;

#[test]
fn the_instructors_guide_runs_as_written() {
    let ran = run("instructors");
    let (stdout, stderr) = (&ran.stdout, &ran.stderr);
    // The instructor's day.
    assert!(stderr.contains("6 students: 6 graded"), "{stderr}");
    assert!(stderr.contains("hand grades: 3 given now, 0 kept from earlier runs"), "{stderr}");
    assert!(
        stdout.contains("Score: 76.00 / 100.00 with the hand grades (70.00 / 80.00 automated)"),
        "grader show printed the report: {stdout}"
    );
    let graded = ran.path("graded");
    for file in [
        "gradebook.csv",
        "summary.md",
        "class.html",
        "hand-grades.csv",
        "moodle-grades.csv",
        "moodle-feedback.zip",
        "gradebook-excel.csv",
        "similarity.csv",
        "similarity.html",
    ] {
        assert!(graded.join(file).is_file(), "{file}");
    }
    for id in ["10001", "10004"] {
        for file in ["report.json", "record.json", "feedback.md", "feedback.html"] {
            assert!(graded.join("students").join(id).join(file).is_file(), "{id}/{file}");
        }
    }
    let gradebook = std::fs::read_to_string(graded.join("gradebook.csv")).unwrap();
    assert!(gradebook.starts_with("id,name,total,max,compile,style,"), "{gradebook}");
    let ada = gradebook.lines().find(|l| l.starts_with("10001,")).unwrap();
    assert!(ada.starts_with("10001,Ada Lovelace,99.00,100.00,"), "{ada}");
    let worksheet = std::fs::read_to_string(graded.join("moodle-grades.csv")).unwrap();
    assert_eq!(worksheet.lines().count(), 7, "{worksheet}");
    // The hand grades are in what the platform imports.
    let ada = worksheet.lines().find(|l| l.starts_with("Participant 10001,")).unwrap();
    assert!(ada.starts_with("Participant 10001,Ada Lovelace,99.00,100.00,"), "{ada}");
    assert!(stderr.contains("5 of them have hand grades pending"), "{stderr}");

    // Re-runs: one student again, the hand grades kept.
    assert!(stderr.contains("1 of 6 students graded again (--only); the class files hold 6"), "{stderr}");
    assert!(stderr.contains("hand grades: 0 given now, 3 kept from earlier runs"), "{stderr}");
    // Excel: the gradebook with a byte-order mark.
    let excel = std::fs::read(graded.join("gradebook-excel.csv")).unwrap();
    assert!(excel.starts_with(b"\xEF\xBB\xBFid,name,total,max,"), "{:?}", &excel[..20]);
    // Two partitions merged: the same gradebook as one run.
    assert!(stdout.contains("the same gradebook as one run"), "{stdout}");
    // Similarity: the six variants of one program, every pair above the line.
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("15 pairs share code, 15 at or above the \"look at this\" line"), "{all}");
    let pairs = std::fs::read_to_string(graded.join("similarity.csv")).unwrap();
    assert_eq!(pairs.lines().count(), 16, "{pairs}");
    assert!(pairs.lines().skip(1).all(|l| l.ends_with(",yes")), "{pairs}");
    // A saved report rendered again: JUnit, and the students' view naming hidden cases by number.
    let xml = std::fs::read_to_string(ran.path("10002.xml")).unwrap();
    let suites = common::junit_suites(&xml);
    assert_eq!(suites.iter().map(|s| s.1).sum::<usize>(), 55, "{xml}");
    assert!(suites.iter().any(|s| s.0 == "checkWin" && s.2 == 6), "{suites:?}");
    assert!(stdout.contains("FAIL checkWin/hidden-1 (0.00 / 1.67)"), "{stdout}");
    assert!(stdout.contains("Score: 70.00 / 80.00"), "{stdout}");

    // The browser's way, as the guide starts it (on any free port): a grade saved through the API
    // the page uses is in the hand grades, the gradebook and what `grader show` prints.
    let text = guide("instructors");
    let review = blocks(&text, "console")
        .iter()
        .flat_map(|b| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .find_map(|l| l.strip_prefix("$ grader review ").map(|rest| format!("review {rest}")))
        .expect("a console block starts grader review");
    assert_eq!(review, "review graded");
    let mut args: Vec<&str> = review.split_whitespace().collect();
    args.extend(["--port", "0"]);
    let server = common::Review::start(ran.dir.path(), &args);
    assert_eq!(server.request("GET", "/api/students", None, None).0, 401);
    let grade = r#"{"id":"10003","category":"style","points":8,"comment":"tidy","ta":"ann"}"#;
    let (status, _, body) = server.request("POST", "/api/hand-grades", Some(grade), Some(&server.token));
    assert_eq!(status, 200, "{body}");
    let hand = std::fs::read_to_string(graded.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("10003,style,8,tidy,ann,"), "{hand}");
    let gradebook = std::fs::read_to_string(graded.join("gradebook.csv")).unwrap();
    let grace = gradebook.lines().find(|l| l.starts_with("10003,")).unwrap();
    assert!(grace.starts_with("10003,Grace Hopper,83.00,100.00,15.00,8.00,"), "{grace}");
    let show = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["show", "graded", "10003"])
        .current_dir(ran.dir.path())
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
