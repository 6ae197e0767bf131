//! Broken and hostile submissions get a precise status per case, and grading goes on around them.

mod common;

use std::time::Duration;

use grader::build::BuildCache;
use grader::grade::{grade, GradeOptions};
use grader::load::Assignment;
use grader::report::{CaseStatus, Report};

/// The Trouble cases with a one-second wall limit, so that hostile programs are stopped quickly.
fn trouble_with_short_limits() -> Assignment {
    let mut assignment = common::assignment("trouble").clone();
    for case in &mut assignment.cases {
        case.limits.wall = Duration::from_secs(1);
        case.limits.output_bytes = 64 * 1024;
    }
    assignment
}

fn grade_source(source: &str) -> Report {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.c"), source).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let options = GradeOptions { visible_only: true, ..GradeOptions::new(BuildCache::new(cache.path())) };
    grade(&trouble_with_short_limits(), dir.path(), &options).unwrap()
}

fn statuses(report: &Report, kind_is_unit: bool) -> Vec<(CaseStatus, Option<String>)> {
    report
        .cases
        .iter()
        .filter(|c| (c.kind == grader::load::CaseKind::Unit) == kind_is_unit)
        .map(|c| (c.status, c.note.clone()))
        .collect()
}

/// The six functions, correct enough to link the driver, with a hostile `main`.
fn with_main(main: &str) -> String {
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n\
         int gPieces[16]; int gHome[4]; int gRing[28]; int gFinish[4][4];\n\
         const char * const gPlayerNames[] = {{\"Red\", \"Green\", \"Yellow\", \"Blue\"}};\n\
         void initializeBoard(void) {{}}\nvoid printStatus(void) {{}}\n\
         int printMoves(int p, int r) {{ (void)p; (void)r; return 0; }}\n\
         int movePiece(int p, int f, int r) {{ (void)p; (void)f; (void)r; return 0; }}\n\
         int checkWin(int p) {{ (void)p; return 0; }}\n\
         #ifndef TEST_MAIN\nint main(void) {{ {main} }}\n#endif\n"
    )
}

#[test]
fn a_silent_infinite_loop_times_out_and_the_unit_cases_still_run() {
    let report = grade_source(&with_main("for (;;) {} return 0;"));
    for (status, note) in statuses(&report, false) {
        assert_eq!(status, CaseStatus::Timeout);
        assert!(note.unwrap().contains("still running after 1 s"));
    }
    // Every unit case still ran, and the stub functions pass none of them.
    let unit = statuses(&report, true);
    assert!(!unit.is_empty());
    assert!(unit.iter().all(|(s, _)| *s == CaseStatus::Failed), "{unit:?}");
}

#[test]
fn a_crash_is_reported_with_its_signal() {
    let report = grade_source(&with_main(
        "int *p = NULL; printf(\"Enter a random seed: \"); fflush(stdout); return *p;",
    ));
    for (status, note) in statuses(&report, false) {
        assert_eq!(status, CaseStatus::Crashed);
        let note = note.unwrap();
        assert!(note.contains("SIGSEGV"), "{note}");
    }
    let compile = report.cases.iter().find(|c| c.id == "compile/seed-minus-one").unwrap();
    assert!(compile.note.as_deref().unwrap().contains("the output was right"), "{:?}", compile.note);
    assert_eq!(compile.score, 0.0);
}

#[test]
fn an_output_flood_hits_the_output_limit() {
    let report = grade_source(&with_main("for (;;) puts(\"Enter position of piece to move: \"); return 0;"));
    for (status, note) in statuses(&report, false) {
        assert_eq!(status, CaseStatus::OutputLimit);
        assert!(note.unwrap().contains("printed far more than the expected output"));
    }
}

#[test]
fn a_wrong_exit_status_fails_the_case() {
    let report = grade_source(&with_main("printf(\"Enter a random seed: \"); return 3;"));
    let compile = report.cases.iter().find(|c| c.id == "compile/seed-minus-one").unwrap();
    assert_eq!(compile.status, CaseStatus::Failed);
    assert_eq!(compile.note.as_deref(), Some("the output was right but the program exited with status 3"));
}

#[test]
fn missing_functions_fail_the_driver_build_but_not_the_program_build() {
    // The template's globals and a main that prints the prompt: the program links on its own, and the
    // compile case runs it with our functions (the handout: they "don't have to work correctly").
    let source = "#include <stdio.h>\nint gPieces[16]; int gHome[4]; int gRing[28]; int gFinish[4][4];\n\
                  const char * const gPlayerNames[] = {\"Red\", \"Green\", \"Yellow\", \"Blue\"};\n\
                  int main(void) { printf(\"Enter a random seed: \"); return 0; }\n";
    let report = grade_source(source);
    let compile = report.cases.iter().find(|c| c.id == "compile/seed-minus-one").unwrap();
    assert_eq!(compile.status, CaseStatus::Passed, "seed -1 only needs the prompt");
    for (status, note) in statuses(&report, true) {
        assert_eq!(status, CaseStatus::BuildError);
        assert_eq!(note.as_deref(), Some("the `driver` build failed"));
    }
    let driver = report.builds.iter().find(|b| b.recipe == "driver").unwrap();
    assert!(driver.log.contains("undefined reference"), "{}", driver.log);
}

#[test]
fn an_empty_submission_is_a_build_error_not_a_grader_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let options = GradeOptions::new(BuildCache::new(cache.path()));
    let report = grade(&trouble_with_short_limits(), dir.path(), &options).unwrap();
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::BuildError));
    assert!(report.builds[0].log.contains("no file matching `*.c`"));
    assert_eq!(report.score, 0.0);
}
