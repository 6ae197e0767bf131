//! No channel carries a hidden input to a student: in a batch every student's visible runs end
//! before any student's hidden run starts; no network namespace (and its counters) is shared
//! between two submissions; a run user's keyrings carry nothing from one grading to the next.

mod common;

use std::path::Path;

use grader::batch::{self, BatchOptions};
use grader::build::BuildCache;
use grader::grade::{grade, GradeOptions};
use grader::gradebook::{REPORT_FILE, STUDENTS_DIR};
use grader::load::CaseKind;
use grader::report::Report;
use grader::run::Containment;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn batch_options(out: &Path, cache: &Path, containment: Containment, only: &[&str]) -> BatchOptions {
    let grade = GradeOptions {
        containment,
        only: only.iter().map(|p| glob::Pattern::new(p).unwrap()).collect(),
        accept_readable_cases: containment == Containment::RlimitsOnly,
        ..GradeOptions::new(BuildCache::new(cache))
    };
    common::batch_options(out, grade)
}

/// A program that says which kind of case it runs (its stdin's first word), after a short sleep so
/// that runs overlap, in a log every run may append to (its path on stdin's second line), and
/// prints its stdin back (every case passes).
const LOGGER: &str = r#"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char kind[64], path[4096];
    if (scanf("%63s %4095s", kind, path) != 2) {
        return 1;
    }
    usleep(20000);
    int log = open(path, O_WRONLY | O_APPEND);
    strcat(kind, "\n");
    if (log < 0 || write(log, kind, strlen(kind)) < 0) {
        return 2;
    }
    printf("%s%s\n", kind, path);
    return 0;
}
"#;

#[test]
fn a_batch_runs_every_students_visible_cases_before_any_students_hidden_ones() {
    // Without namespaces, where the programs can reach a log of the host's (as root, each run is a
    // user of its own: the log is open to all).
    let work = tempfile::tempdir_in("/var/tmp").unwrap();
    let open_to_all = |path: &Path, mode| {
        std::fs::set_permissions(
            path,
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(mode),
        )
        .unwrap()
    };
    open_to_all(work.path(), 0o755);
    let log = work.path().join("runs.log");
    std::fs::write(&log, "").unwrap();
    open_to_all(&log, 0o666);

    let cases = work.path().join("cases/order");
    std::fs::create_dir_all(cases.join("runs")).unwrap();
    std::fs::write(
        cases.join("assignment.toml"),
        "id = \"order\"\ntitle = \"Order of runs\"\n\n[submission]\nfiles = [\"*.c\"]\n\n\
         [builds.program]\ncommands = [[\"gcc\", \"-o\", \"{out}\", \"{glob:*.c}\"]]\nrun = [\"{out}\"]\n\n\
         [limits]\nwall-seconds = 20\n\n[[categories]]\nid = \"runs\"\ntitle = \"Runs\"\npoints = 10\n",
    )
    .unwrap();
    for i in 0..4 {
        for kind in ["visible", "hidden"] {
            let case = cases.join(format!("runs/{kind}-{i}"));
            std::fs::write(case.with_extension("toml"), format!("title = \"t\"\nvisibility = \"{kind}\"\n"))
                .unwrap();
            let stdin = format!("{kind}\n{}\n", log.display());
            std::fs::write(case.with_extension("stdin"), &stdin).unwrap();
            std::fs::write(case.with_extension("stdout"), &stdin).unwrap();
        }
    }
    let assignment = grader::load::load_assignment(&work.path().join("cases"), "order").unwrap();
    let class = work.path().join("class");
    for student in ["ann", "bob", "cat", "dan", "eve"] {
        std::fs::create_dir_all(class.join(student)).unwrap();
        std::fs::write(class.join(student).join("main.c"), LOGGER).unwrap();
    }
    let cache = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = work.path().join("out");
    let options = batch_options(&out, cache.path(), Containment::RlimitsOnly, &[]);
    let outcome = batch::run_batch(&assignment, &class, &options).unwrap();
    assert_eq!(outcome.graded, 5);

    let runs = std::fs::read_to_string(&log).unwrap();
    let kinds: Vec<&str> = runs.lines().collect();
    assert_eq!(kinds.len(), 5 * 8, "{runs}");
    let first_hidden = kinds.iter().position(|&k| k == "hidden").unwrap();
    assert!(kinds[..first_hidden].iter().all(|&k| k == "visible") && first_hidden == 5 * 4, "{runs}");
    assert!(kinds[first_hidden..].iter().all(|&k| k == "hidden"), "a visible run after a hidden one: {runs}");
    for student in ["ann", "bob", "cat", "dan", "eve"] {
        let report = std::fs::read(out.join(STUDENTS_DIR).join(student).join(REPORT_FILE)).unwrap();
        let report: Report = serde_json::from_slice(&report).unwrap();
        assert_eq!(report.score, report.max_score, "{student}");
    }
}

/// The whole-program cases that `counter-reader` ran, each with the first line it printed.
fn counters_read(out: &Path, student: &str) -> Vec<(String, String)> {
    let report = std::fs::read(out.join(STUDENTS_DIR).join(student).join(REPORT_FILE)).unwrap();
    let report: Report = serde_json::from_slice(&report).unwrap();
    report
        .cases
        .iter()
        .filter(|case| case.kind != CaseKind::Unit)
        .map(|case| {
            let said = case.divergence.as_ref().and_then(|d| d.actual.clone()).unwrap_or_default();
            (case.id.clone(), said)
        })
        .collect()
}

#[test]
fn no_network_namespace_carries_a_counter_from_one_student_to_another() {
    // Writers send datagrams that their namespace counts (its loopback is down); readers print the
    // count they find. Graded together, in sandboxes kept for each submission's runs (the cache is
    // not below /tmp) and in sandboxes of their own per run.
    let levels: Vec<Containment> = [Containment::Full, Containment::NamespacesWithoutCgroups]
        .into_iter()
        .filter(|&level| level <= Containment::available())
        .collect();
    if levels.is_empty() {
        eprintln!("skipped: no namespaces here");
        return;
    }
    let hostile = common::repo().join("fixtures/hostile");
    let class = tempfile::tempdir().unwrap();
    for (student, fixture) in
        [("a-writer", "counter-writer"), ("b-reader", "counter-reader"), ("c-writer", "counter-writer")]
    {
        std::fs::create_dir_all(class.path().join(student)).unwrap();
        std::fs::copy(hostile.join(fixture).join("main.c"), class.path().join(student).join("main.c"))
            .unwrap();
    }
    std::fs::create_dir_all(class.path().join("d-reader")).unwrap();
    std::fs::copy(hostile.join("counter-reader/main.c"), class.path().join("d-reader/main.c")).unwrap();
    for level in levels {
        for cache in [tempfile::tempdir_in("/var/tmp").unwrap(), tempfile::tempdir().unwrap()] {
            let out = tempfile::tempdir().unwrap();
            let options = batch_options(out.path(), cache.path(), level, &["playerTurn/*"]);
            batch::run_batch(common::assignment("trouble"), class.path(), &options).unwrap();
            for reader in ["b-reader", "d-reader"] {
                let read = counters_read(out.path(), reader);
                assert!(!read.is_empty(), "{level}: {reader} ran no whole-program case");
                for (case, said) in read {
                    assert_eq!(said, "OutNoRoutes 0", "{level} {reader} {case}");
                }
            }
            // The writers did count: each of their runs found what its own sandbox's runs sent before.
            let written = counters_read(out.path(), "a-writer");
            assert!(written.iter().all(|(_, said)| said.starts_with("OutNoRoutes ")), "{level}: {written:?}");
        }
    }
}

#[test]
fn a_run_users_keyrings_carry_nothing_from_one_grading_to_the_next() {
    // Without namespaces, as root: each run is a user of its own, leased again by the next grading
    // of this process. `saves-keys` saves its input in every keyring it reaches and prints what it
    // finds: the second grading finds nothing of the first's runs, nor any run of another's.
    if !is_root() {
        eprintln!("skipped: not root, so programs would run as this test's user");
        return;
    }
    let cache = tempfile::tempdir_in("/var/tmp").unwrap();
    let options = GradeOptions {
        containment: Containment::RlimitsOnly,
        accept_readable_cases: true,
        only: ["playerTurn/*"].iter().map(|p| glob::Pattern::new(p).unwrap()).collect(),
        ..GradeOptions::new(BuildCache::new(cache.path()))
    };
    let saves = common::repo().join("fixtures/hostile/saves-keys");
    for grading in 0..2 {
        let report = grade(common::assignment("trouble"), &saves, &options).unwrap();
        for case in report.cases.iter().filter(|case| case.kind != CaseKind::Unit) {
            let said = case.divergence.as_ref().and_then(|d| d.actual.as_deref());
            assert_eq!(said, Some("found:"), "grading {grading}: {}", case.id);
        }
    }
}
