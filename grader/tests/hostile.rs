//! The hostile suite: every program of `fixtures/hostile` graded as a Trouble submission must end with
//! its expected status and no points, leave nothing behind (no process, no file, no temporary folder),
//! and reach nothing outside its sandbox: not the answers, not the network, not the build cache.

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use grader::build::BuildCache;
use grader::grade::{grade, GradeOptions};
use grader::load::{Assignment, CaseKind};
use grader::report::{CaseStatus, Report};
use grader::run::{Containment, Limit as RunLimit};

/// What the whole-program cases of a hostile submission must end as.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Status(CaseStatus),
    Limit(RunLimit),
    Signal(&'static str),
}

fn expectations(level: Containment) -> BTreeMap<&'static str, Vec<Expect>> {
    use Expect::*;
    let cgroups = level == Containment::Full;
    BTreeMap::from([
        ("assert", vec![Signal("SIGABRT")]),
        // A spinning program meets its CPU limit (1 s) before the wall limit (2 s) only when it gets
        // half a core: on a loaded machine (CI running two test binaries) the wall limit comes first.
        ("close-stdout-loop", vec![Limit(RunLimit::Cpu), Limit(RunLimit::Wall)]),
        ("connects-out", vec![Status(CaseStatus::Failed)]),
        ("divide-by-zero", vec![Signal("SIGFPE")]),
        // Without a cgroup the kernel only refuses forks; the spinning processes then time out.
        (
            "fork-bomb",
            if cgroups {
                vec![Limit(RunLimit::Processes)]
            } else {
                vec![Limit(RunLimit::Wall), Limit(RunLimit::Cpu)]
            },
        ),
        ("huge-file", vec![Status(CaseStatus::Failed)]),
        ("ignores-stdin", vec![Status(CaseStatus::Failed)]),
        // Long lines: the short transcripts are far exceeded, the long ones are not.
        ("invalid-utf8", vec![Status(CaseStatus::Failed), Limit(RunLimit::Output)]),
        ("many-files", vec![Status(CaseStatus::Failed)]),
        // Without a cgroup, malloc fails at the address-space limit and the program says so.
        (
            "memory-hog",
            if cgroups { vec![Limit(RunLimit::Memory)] } else { vec![Status(CaseStatus::Failed)] },
        ),
        ("no-newline-flood", vec![Limit(RunLimit::Output)]),
        ("orphan-holds-stdout", vec![Status(CaseStatus::Failed)]),
        ("printing-loop", vec![Limit(RunLimit::Output)]),
        ("reads-answers", vec![Status(CaseStatus::Failed)]),
        ("reads-stdin-then-blocks", vec![Limit(RunLimit::Wall)]),
        ("segfault", vec![Signal("SIGSEGV")]),
        ("setsid-escaper", vec![Status(CaseStatus::Failed)]),
        ("silent-loop", vec![Limit(RunLimit::Cpu), Limit(RunLimit::Wall)]),
        ("sleeper", vec![Limit(RunLimit::Wall)]),
        ("writes-outside", vec![Status(CaseStatus::Failed)]),
    ])
}

/// The Trouble assignment with short time limits, so that the suite takes seconds per program.
fn trouble_quickly() -> Assignment {
    let mut assignment = common::assignment("trouble").clone();
    for case in &mut assignment.cases {
        case.limits.wall = Duration::from_secs(2);
        case.limits.cpu = Duration::from_secs(1);
    }
    for recipe in assignment.builds.values_mut() {
        // The compile bomb needs gigabytes; a correct program needs a few dozen megabytes.
        recipe.limits.memory_bytes = 384 << 20;
        recipe.limits.cpu = Duration::from_secs(30);
    }
    assignment
}

fn matches(expect: &Expect, case: &grader::report::CaseReport) -> bool {
    match expect {
        Expect::Status(status) => case.status == *status && case.limit.is_none() && case.signal.is_none(),
        Expect::Limit(limit) => case.limit == Some(*limit),
        Expect::Signal(name) => case.status == CaseStatus::Crashed && case.signal.as_deref() == Some(*name),
    }
}

fn check(name: &str, report: &Report, expected: &[Expect]) {
    assert_eq!(report.score, 0.0, "{name} earned points");
    for case in &report.cases {
        match case.kind {
            // Only a main: the driver build (the functions) fails.
            CaseKind::Unit => assert_eq!(case.status, CaseStatus::BuildError, "{name} {}", case.id),
            _ => assert!(
                expected.iter().any(|e| matches(e, case)),
                "{name} {}: {:?} limit {:?} signal {:?} ({:?}), expected one of {expected:?}",
                case.id,
                case.status,
                case.limit,
                case.signal,
                case.note
            ),
        }
    }
}

fn lower_hard_process_limit(ceiling: u64) {
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only access `current`, a valid rlimit.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NPROC, &mut current), 0);
        current.rlim_max = current.rlim_max.min(ceiling);
        current.rlim_cur = current.rlim_cur.min(ceiling);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NPROC, &current), 0);
    }
}

/// Processes whose executable lies under `dir` (a run's program, from the build cache).
fn processes_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(exe) = std::fs::read_link(entry.path().join("exe")) {
            if exe.starts_with(dir) {
                found.push(format!("{} {}", entry.file_name().to_string_lossy(), exe.display()));
            }
        }
    }
    found
}

/// Files named `hostile-was-here-*` in the places a program might reach.
fn traces() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in ["/tmp", "/var/tmp", "/dev/shm", "/", "/etc", "/root"] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with("hostile-was-here") {
                found.push(entry.path());
            }
        }
    }
    found
}

#[test]
fn hostile_submissions_are_contained_and_leave_nothing_behind() {
    let level = Containment::available();
    if level == Containment::RlimitsOnly {
        eprintln!(
            "skipped: no namespaces here ({:?}); see `grader doctor`",
            grader::run::namespace_problem()
        );
        return;
    }
    // A CI runner's hard process limit may be below a run's own (64): the fork bomb must still be
    // told by its run's limit. Lowered here for good (nothing without CAP_SYS_RESOURCE can raise it),
    // which this binary's one test can afford.
    lower_hard_process_limit(40);
    // Every temporary folder of the runs goes here, so that leftovers can be seen. This test binary
    // has this one test, so nothing else reads the variable meanwhile.
    let temp = tempfile::tempdir().unwrap();
    std::env::set_var("TMPDIR", temp.path());
    let cache_dir = tempfile::tempdir_in("/tmp").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let traces_before = traces();

    let assignment = trouble_quickly();
    let options = GradeOptions::new(BuildCache::new(cache_dir.path()));
    let started = Instant::now();
    for (name, expected) in expectations(level) {
        let path = common::repo().join("fixtures/hostile").join(name);
        let one = Instant::now();
        let report = grade(&assignment, &path, &options).unwrap();
        eprintln!("{name}: {:.1} s", one.elapsed().as_secs_f64());
        assert_eq!(report.containment, level);
        check(name, &report, &expected);
    }

    // The compile bomb: the compiler is stopped at its memory limit, and the build fails.
    let bomb = Instant::now();
    let report = grade(&assignment, &common::repo().join("fixtures/hostile/compile-bomb"), &options).unwrap();
    assert!(report.cases.iter().all(|c| c.status == CaseStatus::BuildError));
    let game = report.builds.iter().find(|b| b.recipe == "game").unwrap();
    assert!(game.log.contains("memory"), "the compile bomb's log: {}", game.log);
    assert!(bomb.elapsed() < Duration::from_secs(60), "{:?}", bomb.elapsed());
    eprintln!("all: {:.1} s", started.elapsed().as_secs_f64());

    // Nothing reached the host.
    let mut stream = listener.accept();
    if let Ok((ref mut connection, peer)) = stream {
        let mut said = String::new();
        let _ = connection.read_to_string(&mut said);
        panic!("a program connected from {peer}: {said:?}");
    }
    assert!(matches!(stream, Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock));
    assert_eq!(traces(), traces_before, "a program wrote outside its sandbox");
    for entry in walkdir::WalkDir::new(cache_dir.path()).into_iter().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "prog") {
            let head = std::fs::read(path).unwrap();
            assert!(head.starts_with(b"\x7fELF"), "{} was overwritten", path.display());
        }
        assert!(!path.to_string_lossy().contains("hostile-was-here"), "{}", path.display());
    }
    // Nothing of the runs is left: no process, no temporary folder.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_under(cache_dir.path()), Vec::<String>::new());
    let left: Vec<_> = std::fs::read_dir(temp.path()).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    unprivileged_grader_is_contained_too();
}

/// As root, the same grader run by `nobody` (no cgroups, an unprivileged user namespace): the
/// answers stay out of reach and nothing is written outside.
fn unprivileged_grader_is_contained_too() {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let home = tempfile::tempdir_in("/tmp").unwrap();
    std::os::unix::fs::chown(home.path(), Some(65534), Some(65534)).unwrap();
    for name in ["reads-answers", "writes-outside", "fork-bomb"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(["grade", "--assignment", "trouble", "--format", "json", "--cache-dir"])
            .arg(home.path().join("cache"))
            .arg(common::repo().join("fixtures/hostile").join(name))
            .current_dir(home.path())
            .env("TMPDIR", home.path())
            .env("HOME", home.path())
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("{name}: {}", String::from_utf8_lossy(&output.stderr)));
        let level = report["containment"].as_str().unwrap();
        if level == "rlimits-only" {
            eprintln!("skipped as nobody: no unprivileged user namespaces here");
            return;
        }
        assert_eq!(level, "namespaces-without-cgroups", "{name}");
        assert_eq!(report["score"], 0.0, "{name}");
        let passed = report["cases"].as_array().unwrap().iter().filter(|c| c["status"] == "passed").count();
        assert_eq!(passed, 0, "{name}");
    }
    assert_eq!(traces(), Vec::<PathBuf>::new());
}
