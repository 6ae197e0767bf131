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
        // A spinning program meets its CPU limit (0.1 s) before the wall limit (0.3 s) only when it
        // gets a third of a core: on a loaded machine the wall limit comes first.
        ("close-stdout-loop", vec![Limit(RunLimit::Cpu), Limit(RunLimit::Wall)]),
        ("connects-out", vec![Status(CaseStatus::Failed)]),
        // Both print a counter of their network namespace (see grader/tests/hidden_channels.rs).
        ("counter-reader", vec![Status(CaseStatus::Failed)]),
        ("counter-writer", vec![Status(CaseStatus::Failed)]),
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
        // Gradescope's path to a hidden answer, which is not here (grader/tests/pack.rs grades it in
        // that layout): the build fails.
        ("includes-answers", vec![Status(CaseStatus::BuildError)]),
        // Long lines: the short transcripts are far exceeded, the long ones are not.
        ("invalid-utf8", vec![Status(CaseStatus::Failed), Limit(RunLimit::Output)]),
        // Its leftover signals every process it may: in its own sandbox, its own program too.
        ("lingers", vec![Status(CaseStatus::Failed), Signal("SIGKILL")]),
        // Without namespaces no tmpfs bounds the disk: all 500 MiB are written, which a loaded
        // machine may not finish within the CPU or wall limit.
        (
            "many-files",
            if level == Containment::RlimitsOnly {
                vec![Status(CaseStatus::Failed), Limit(RunLimit::Cpu), Limit(RunLimit::Wall)]
            } else {
                vec![Status(CaseStatus::Failed)]
            },
        ),
        // Memory in files of no process: stopped at the memory limit where a cgroup counts it, the
        // grader alive; without one, each file is under the file-size limit and the run fails.
        ("memfd-hog", if cgroups { vec![Limit(RunLimit::Memory)] } else { vec![Status(CaseStatus::Failed)] }),
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
        // It prints what earlier runs saved (see `nothing_carried_over`).
        ("saves-input", vec![Status(CaseStatus::Failed)]),
        // It prints what earlier runs saved in keyrings (see `no_key_carried_over`).
        ("saves-keys", vec![Status(CaseStatus::Failed)]),
        ("segfault", vec![Signal("SIGSEGV")]),
        ("setsid-escaper", vec![Status(CaseStatus::Failed)]),
        ("silent-loop", vec![Limit(RunLimit::Cpu), Limit(RunLimit::Wall)]),
        ("sleeper", vec![Limit(RunLimit::Wall)]),
        // Refused by its IPC namespace's limits (see `ipc_was_bounded`) or, with a cgroup, killed
        // there; without namespaces nothing bounds it but its CPU time, and what it kept is
        // removed after the run.
        (
            "sysv-hog",
            match level {
                Containment::Full => vec![Limit(RunLimit::Memory), Status(CaseStatus::Failed)],
                Containment::NamespacesWithoutCgroups if ipc_limits_hold() => {
                    vec![Status(CaseStatus::Failed)]
                }
                _ => vec![Status(CaseStatus::Failed), Limit(RunLimit::Cpu), Limit(RunLimit::Wall)],
            },
        ),
        ("writes-outside", vec![Status(CaseStatus::Failed)]),
    ])
}

/// Programs whose own limit (memory) must stop them: on a loaded machine they may take longer than
/// the short wall limit of the others to get there, and then they end at once.
const STOPPED_BY_THEIR_OWN_LIMIT: &[&str] = &["memory-hog", "memfd-hog", "sysv-hog"];

/// Programs graded on two cases only: each run holds gigabytes where nothing bounds them (without
/// namespaces), which the machine running the suite need not give to every case at once.
const TWO_CASES: &[&str] = &["sysv-hog"];

/// What cannot be graded without namespaces in this test: on a host it may reach (the network;
/// this checkout's cases, readable by all; memory in files, which no rlimit bounds).
/// The counters' writer sends to the host's loopback, which is up there.
const NEEDS_NAMESPACES: &[&str] =
    &["connects-out", "reads-answers", "memfd-hog", "counter-reader", "counter-writer"];

/// Programs graded at `rlimits-only` once every other level has ended: without namespaces they
/// write outside (into /tmp, /var/tmp, ...) as their run user, whose files the grader removes after
/// the run; the levels side by side look for traces outside meanwhile, and would see them.
const AFTER_THE_OTHER_LEVELS: &[&str] = &["writes-outside"];

/// Programs that end at a time limit, whatever it is: graded under short ones, as each of their
/// runs holds a CPU slot until then (one that sleeps, until it is seen idle after half a second) on
/// every case at every level, which was most of the suite's time.
const END_AT_A_TIME_LIMIT: &[&str] =
    &["close-stdout-loop", "reads-stdin-then-blocks", "silent-loop", "sleeper"];

/// The Trouble assignment with short limits, so that the suite takes seconds per program.
fn trouble_quickly(name: &str) -> Assignment {
    let mut assignment = common::assignment("trouble").clone();
    // (wall, CPU) in milliseconds. The fork bomb spins at its process limit until its CPU limit, all
    // its processes together: long enough to reach the process limit under load (it takes a few
    // milliseconds of CPU), short enough for the suite.
    let (wall, cpu) = match name {
        _ if STOPPED_BY_THEIR_OWN_LIMIT.contains(&name) => (30_000, 1_000),
        _ if END_AT_A_TIME_LIMIT.contains(&name) => (150, 100),
        "fork-bomb" => (1_000, 200),
        _ => (2_000, 1_000),
    };
    for case in &mut assignment.cases {
        case.limits.wall = Duration::from_millis(wall);
        case.limits.cpu = Duration::from_millis(cpu);
        // What stops the huge file is a limit, whatever its size: a small one spares the disk 16 MiB
        // a case.
        if name == "huge-file" {
            case.limits.file_size_bytes = 2 << 20;
        }
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

/// Whether a sandbox without cgroups sets its IPC namespace's limits: only a root grader's can, whose
/// init is root in its user namespace and its programs another user. A grader that is not root has
/// one user to map, its programs' as well as its init's, and the kernel lets the namespace's root
/// user, and no capability, change those limits.
fn ipc_limits_hold() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// In a sandbox, `sysv-hog` kept no more System V shared memory than its run's memory limit and no
/// more than a few hundred KiB in message queues (where it was not killed for memory first).
fn ipc_was_bounded(report: &Report, level: Containment) {
    let limit_mib = common::assignment("trouble").cases[0].limits.memory_bytes >> 20;
    let said: Vec<&str> = report
        .cases
        .iter()
        .filter(|case| case.limit.is_none())
        .filter_map(|case| case.divergence.as_ref()?.actual.as_deref())
        .collect();
    assert!(
        !said.is_empty() || report.cases.iter().all(|c| c.limit.is_some()),
        "{level}: no line of sysv-hog's"
    );
    for line in said {
        let number = |after: &str| -> u64 {
            let rest = line.split_once(after).unwrap_or_else(|| panic!("{level}: {line:?}")).1;
            rest.split(' ').next().unwrap().parse().unwrap()
        };
        assert!(number("shm kept ") <= limit_mib, "{level}: {line}");
        assert!(number("msg kept ") <= 1024, "{level}: {line}");
    }
}

/// What runs of `saves-input` found that others had saved. In a sandbox, nothing: its first line
/// names no input. Without namespaces, runs of one kind may meet while they live (as any two
/// programs on one machine can), but no visible case's run names a hidden case's input.
fn nothing_carried_over(report: &Report, level: Containment) {
    let hidden = common::hidden_input_names(common::assignment("trouble"));
    for case in report.cases.iter().filter(|case| case.kind != CaseKind::Unit) {
        let said = case.divergence.as_ref().and_then(|d| d.actual.as_deref());
        let said = said.unwrap_or_else(|| panic!("{level} {}: no line", case.id));
        assert!(said.starts_with("found:"), "{level} {}: {said}", case.id);
        if level != Containment::RlimitsOnly {
            assert_eq!(said, "found:", "{level} {}", case.id);
        } else if case.visibility == grader::load::Visibility::Visible {
            assert!(!hidden.iter().any(|name| said.contains(name.as_str())), "{level} {}: {said}", case.id);
        }
    }
}

/// What runs of `saves-keys` found in the keyrings that earlier runs had saved: nothing, at every
/// level (a kept sandbox's reset empties its user's keyrings, the persistent one too; without
/// namespaces a sealed run reaches no keyring, and a run user's are emptied when it is leased).
fn no_key_carried_over(report: &Report, level: Containment) {
    for case in report.cases.iter().filter(|case| case.kind != CaseKind::Unit) {
        let said = case.divergence.as_ref().and_then(|d| d.actual.as_deref());
        assert_eq!(said, Some("found:"), "{level} {}", case.id);
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
    // A CI runner's hard process limit may be below a run's own (64): the fork bomb must still be
    // told by its run's limit. Lowered here for good (nothing without CAP_SYS_RESOURCE can raise it),
    // which this binary's tests can afford. Only for root, whom the limit does not bind: for any
    // other user it bounds all its processes together, the grader's threads and every run's (user
    // namespaces count theirs towards it too), and 40 would leave one fork bomb nothing to share.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        lower_hard_process_limit(40);
    }
    // Every temporary folder of the runs goes here, so that leftovers can be seen. Set before any
    // test of this binary runs a program (they all start here).
    let temp = tempfile::tempdir().unwrap();
    // Open to others, as a temporary folder is: a root grader's run users reach their folders here.
    std::fs::set_permissions(
        temp.path(),
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    std::env::set_var("TMPDIR", temp.path());
    let levels: Vec<Containment> =
        Containment::ALL.into_iter().filter(|&level| level <= Containment::available()).collect();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let traces_before = traces();
    // The levels side by side, and the two gradings of their own beside them, as a batch grades
    // students: most hostile programs wait for a limit, and the grader's CPU slots keep the runs
    // that spin from crowding each other's clocks. What none may leave is looked for once all
    // have ended.
    std::thread::scope(|scope| {
        for level in levels.into_iter().rev() {
            // Without namespaces only a root grader keeps programs apart (users of their own).
            if level == Containment::RlimitsOnly && !root {
                eprintln!("skipped rlimits-only: not root, so programs would run as this test's user");
                continue;
            }
            scope.spawn(move || contained_at(level, false));
        }
        scope.spawn(one_student_cannot_reach_another_without_namespaces);
        scope.spawn(unprivileged_grader_is_contained_too);
    });
    if root && Containment::RlimitsOnly <= Containment::available() {
        contained_at(Containment::RlimitsOnly, true);
    }
    assert_eq!(traces(), traces_before, "a program wrote outside its sandbox");
    // Nothing of the runs is left: no process, no temporary folder, nothing of a run user. Their
    // kept sandboxes are reaped by a thread of the grader's: waited for, then looked at.
    grader::run::await_reaped();
    let left = || -> Vec<String> {
        let mut left: Vec<String> = std::fs::read_dir(temp.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|dir| !is_empty_folder(dir))
            .map(|dir| dir.display().to_string())
            .collect();
        left.extend(left_by_run_users());
        left
    };
    assert_eq!(eventually_empty(left), Vec::<String>::new(), "left behind");
}

/// What `look` finds, once it finds nothing or after 200 ms (the suite's old fixed sleep, so no
/// leftover is given longer to go): a process killed at the end of its run is gone once its parent
/// (the machine's init, or a sandbox's) has reaped it, a moment later.
fn eventually_empty(look: impl Fn() -> Vec<String>) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        let found = look();
        if found.is_empty() || Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every hostile program graded at `level`: its expected status, and nothing reached or left.
/// `deferred`: only those graded at `rlimits-only` after the other levels ([`AFTER_THE_OTHER_LEVELS`]);
/// else all the others.
fn contained_at(level: Containment, deferred: bool) {
    eprintln!("containment {level}");
    // Not below /tmp: a run shown a folder there gets a sandbox of its own, and the programs are
    // to be graded in the sandboxes kept for a submission's runs, as in a class.
    let cache_dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let traces_before = traces();
    let options = GradeOptions {
        containment: level,
        // This checkout's cases are readable by all: the programs at rlimits-only could read them,
        // which is why `reads-answers` is left out there (grader/tests/pack.rs grades it in the
        // Gradescope layout, whose setup makes them unreadable).
        accept_readable_cases: level == Containment::RlimitsOnly,
        ..GradeOptions::new(BuildCache::new(cache_dir.path()))
    };
    for (name, expected) in expectations(level) {
        if level == Containment::RlimitsOnly && NEEDS_NAMESPACES.contains(&name) {
            continue;
        }
        let after = level == Containment::RlimitsOnly && AFTER_THE_OTHER_LEVELS.contains(&name);
        if after != deferred {
            continue;
        }
        let path = common::repo().join("fixtures/hostile").join(name);
        let one = Instant::now();
        let only = if TWO_CASES.contains(&name) {
            ["playerTurn/handout-sample-run", "playerTurn/four-players-short"]
                .map(|id| glob::Pattern::new(id).unwrap())
                .to_vec()
        } else {
            Vec::new()
        };
        let options = GradeOptions { only, ..options.clone() };
        let report = grade(&trouble_quickly(name), &path, &options).unwrap();
        eprintln!("{level} {name}: {:.1} s", one.elapsed().as_secs_f64());
        assert_eq!(report.containment, level);
        check(name, &report, &expected);
        if name == "sysv-hog"
            && (level == Containment::Full || ipc_limits_hold())
            && level != Containment::RlimitsOnly
        {
            ipc_was_bounded(&report, level);
        }
        if name == "saves-input" {
            nothing_carried_over(&report, level);
        }
        if name == "saves-keys" {
            no_key_carried_over(&report, level);
        }
    }

    // The compile bomb: the compiler is stopped at its memory limit, and the build fails.
    if !deferred {
        let bomb = common::repo().join("fixtures/hostile/compile-bomb");
        let report = grade(&trouble_quickly("compile-bomb"), &bomb, &options).unwrap();
        assert!(report.cases.iter().all(|c| c.status == CaseStatus::BuildError));
        let game = report.builds.iter().find(|b| b.recipe == "game").unwrap();
        assert!(game.log.contains("memory"), "the compile bomb's log: {}", game.log);
    }

    // Nothing reached the host.
    let mut stream = listener.accept();
    if let Ok((ref mut connection, peer)) = stream {
        let mut said = String::new();
        let _ = connection.read_to_string(&mut said);
        panic!("a program connected from {peer}: {said:?}");
    }
    assert!(matches!(stream, Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock));
    assert_eq!(traces(), traces_before, "{level}: a program wrote outside its sandbox");
    for entry in walkdir::WalkDir::new(cache_dir.path()).into_iter().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "prog") {
            let head = std::fs::read(path).unwrap();
            assert!(head.starts_with(b"\x7fELF"), "{} was overwritten", path.display());
        }
        assert!(!path.to_string_lossy().contains("hostile-was-here"), "{}", path.display());
    }
    // No process of its programs is left (the temporary folders and the run users' leftovers are
    // looked for once every level has ended).
    grader::run::await_reaped();
    assert_eq!(eventually_empty(|| processes_under(cache_dir.path())), Vec::<String>::new(), "{level}");
}

fn is_empty_folder(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// Processes, files in the world-writable places and System V IPC objects of the run users this
/// process leased (another grader beside it, such as a second copy of this suite, has its own).
fn left_by_run_users() -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let users = grader::run::leased_by_this_process();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let is_process = entry.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit());
        // A zombie is dead: it waits for the machine's init, whose child it became, to reap it.
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let dead = stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']));
        if is_process && !dead && entry.metadata().is_ok_and(|meta| users.contains(&meta.uid())) {
            found.push(format!("process {}", entry.file_name().to_string_lossy()));
        }
    }
    for dir in ["/tmp", "/var/tmp", "/dev/shm"] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.metadata().is_ok_and(|meta| users.contains(&meta.uid())) {
                found.push(entry.path().display().to_string());
            }
        }
    }
    for table in ["shm", "sem", "msg"] {
        let text = std::fs::read_to_string(format!("/proc/sysvipc/{table}")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // uid is the 8th column of shm, the 5th of sem and msg: any run user's id is evidence.
            if fields.iter().skip(3).filter_map(|f| f.parse::<u32>().ok()).any(|id| users.contains(&id)) {
                found.push(format!("{table}: {line}"));
            }
        }
    }
    found
}

/// As root without namespaces: a submission whose leftovers signal every process they may, and try
/// to swap the working folders beside theirs for links, graded beside a correct one (twice). The
/// correct one keeps every point, and nothing of either is left.
fn one_student_cannot_reach_another_without_namespaces() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let cache_dir = tempfile::tempdir_in("/tmp").unwrap();
    let options = GradeOptions {
        containment: Containment::RlimitsOnly,
        accept_readable_cases: true,
        ..GradeOptions::new(BuildCache::new(cache_dir.path()))
    };
    let assignment = common::assignment("trouble");
    let hostile = common::repo().join("fixtures/hostile/lingers");
    let correct = common::repo().join("fixtures/trouble/correct");
    // Two submissions that save their inputs and print what others saved, graded at once: no
    // visible run of either names a hidden input of the other's.
    let saves = common::repo().join("fixtures/hostile/saves-input");
    std::thread::scope(|scope| {
        let other = scope.spawn(|| grade(assignment, &saves, &options).unwrap());
        nothing_carried_over(&grade(assignment, &saves, &options).unwrap(), Containment::RlimitsOnly);
        nothing_carried_over(&other.join().unwrap(), Containment::RlimitsOnly);
    });
    std::thread::scope(|scope| {
        let lingering = scope.spawn(|| grade(assignment, &hostile, &options).unwrap());
        for _ in 0..2 {
            let report = grade(assignment, &correct, &options).unwrap();
            let failed: Vec<_> = report.cases.iter().filter(|c| c.status != CaseStatus::Passed).collect();
            assert!(failed.is_empty(), "the correct submission lost {failed:#?}");
            assert_eq!(report.score, report.max_score);
        }
        assert_eq!(lingering.join().unwrap().score, 0.0);
    });
}

/// As root, the same grader run by `nobody` (no cgroups, an unprivileged user namespace): the
/// answers stay out of reach and nothing is written outside.
fn unprivileged_grader_is_contained_too() {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    // Not below /tmp: its build cache is here, and a run shown a folder there gets a sandbox of its
    // own, where the programs are to be graded in the sandboxes kept for a submission's runs.
    let home = tempfile::tempdir_in("/var/tmp").unwrap();
    std::os::unix::fs::chown(home.path(), Some(65534), Some(65534)).unwrap();
    // The course's Trouble cases under the suite's short time limits (the fork bomb spins until
    // one), readable by all as a checkout's are.
    let cases = home.path().join("cases");
    for folder in ["trouble", "common"] {
        common::copy_tree(&common::repo().join("cases").join(folder), &cases.join(folder));
    }
    let toml = cases.join("trouble/assignment.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(text.contains("\nwall-seconds = 10\n") && text.contains("\ncpu-seconds = 2\n"), "{text}");
    let quick = text
        .replace("\nwall-seconds = 10\n", "\nwall-seconds = 2\n")
        .replace("\ncpu-seconds = 2\n", "\ncpu-seconds = 0.5\n");
    std::fs::write(&toml, quick).unwrap();
    // The grader run as `nobody`, in a home of its own, on a submission.
    let as_nobody = |args: &[&str], submission: std::path::PathBuf| {
        std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(args)
            .arg("--cache-dir")
            .arg(home.path().join("cache"))
            .arg("--cases")
            .arg(&cases)
            .arg(submission)
            .current_dir(home.path())
            .env("TMPDIR", home.path())
            .env("HOME", home.path())
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap()
    };
    // Without namespaces it cannot give runs users of their own, and its report says so.
    let self_check = as_nobody(
        &[
            "--containment",
            "rlimits-only",
            "--accept-readable-cases",
            "grade",
            "--assignment",
            "trouble",
            "--case",
            "checkWin/*",
        ],
        common::repo().join("fixtures/trouble/correct"),
    );
    let said = String::from_utf8_lossy(&self_check.stdout);
    assert!(
        said.contains("ran as the grader's own user"),
        "{said}{}",
        String::from_utf8_lossy(&self_check.stderr)
    );
    for name in ["reads-answers", "writes-outside", "fork-bomb", "saves-keys"] {
        let output = as_nobody(
            &["grade", "--assignment", "trouble", "--format", "json"],
            common::repo().join("fixtures/hostile").join(name),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(3) && stderr.contains("rlimits-only") {
            // Without namespaces a grader that is not root refuses hidden cases its programs could read.
            eprintln!("skipped as nobody: no unprivileged user namespaces here ({stderr})");
            return;
        }
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{name}: {stderr}"));
        let level = report["containment"].as_str().unwrap();
        if level == "rlimits-only" {
            eprintln!("skipped as nobody: no unprivileged user namespaces here");
            return;
        }
        assert_eq!(level, "namespaces-without-cgroups", "{name}");
        assert_eq!(report["score"], 0.0, "{name}");
        if name == "saves-keys" {
            // Every run finds nothing another left in the keyrings its kept sandbox keeps.
            for case in report["cases"].as_array().unwrap().iter().filter(|c| c["kind"] != "unit") {
                assert_eq!(case["divergence"]["actual"], "found:", "as nobody: {}", case["id"]);
            }
        }
        let passed = report["cases"].as_array().unwrap().iter().filter(|c| c["status"] == "passed").count();
        assert_eq!(passed, 0, "{name}");
    }
    assert_eq!(traces(), Vec::<PathBuf>::new());
}
