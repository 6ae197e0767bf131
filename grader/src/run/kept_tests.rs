//! Sandboxes kept for a submission's runs, as a specification: a run finds nothing of the run
//! before it, whatever that run left, and a run the grader had to stop ends its sandbox.

use super::*;

fn limits() -> Limits {
    Limits { cpu: Duration::from_secs(10), file_size_bytes: 1024 * 1024, ..Limits::default() }
}

/// The namespace levels this machine supports.
fn sandbox_levels() -> Vec<Containment> {
    [Containment::NamespacesWithoutCgroups, Containment::Full]
        .into_iter()
        .filter(|&level| level <= Containment::available())
        .collect()
}

/// Runs `script` with `/bin/sh -c` in one of `keep`'s sandboxes.
fn run_kept(
    keep: &KeptSandboxes,
    level: Containment,
    script: &str,
    env: &BTreeMap<String, String>,
    limits: &Limits,
) -> RunOutcome {
    let argv: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), script.into()];
    let request = RunRequest {
        argv: &argv,
        env,
        stdin: b"",
        limits,
        mounts: &[],
        containment: level,
        keep: Some(keep),
    };
    run(&request).expect("the grader itself must not fail")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A run that leaves something in every place a run can reach: files (and a folder it locked) in
/// each writable folder, System V objects of the three kinds, a POSIX message queue, processes
/// that left its session, a listener on an abstract socket and one on the loopback; its
/// environment holds a secret. It prints its PID.
const LEAVER: &str = r#"
echo $$
for place in /work /tmp /dev/shm; do
    echo "$LEFTOVER" > "$place/left"; echo x > "$place/.hidden"; mkdir -p "$place/d/e"; chmod 000 "$place/d"
    ln -s /etc/passwd "$place/link"
done
ipcmk -M 4096 >/dev/null; ipcmk -Q >/dev/null; ipcmk -S 2 >/dev/null
echo "made $(ipcs -m | grep -c '^0x') $(ipcs -q | grep -c '^0x') $(ipcs -s | grep -c '^0x')"
python3 -c 'import ctypes, os; c = ctypes.CDLL(None); print("mq", c.mq_open(b"/leftover", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0)'
python3 -c 'import ctypes; c = ctypes.CDLL(None)
print("keys", all(c.syscall(248, b"user", b"leftover", b"secret", 6, k) > 0 for k in (-4, -5)))'
setsid sh -c 'exec sleep 30' < /dev/null > /dev/null 2>&1 &
python3 -c 'import socket, time
a = socket.socket(socket.AF_UNIX); a.bind("\0leftover"); a.listen()
try:
    t = socket.socket(); t.bind(("127.0.0.1", 47001)); t.listen()
except OSError:
    pass
time.sleep(30)' < /dev/null > /dev/null 2>&1 &
sleep 0.3
echo left
"#;

/// What the next run looks for: each line says what it found, `none` where it found nothing.
const LOOKER: &str = r#"
echo $$
for place in /work /tmp /dev/shm; do echo "$place: $(ls -A "$place" | wc -l)"; done
echo "shm $(ipcs -m | grep -c '^0x') msg $(ipcs -q | grep -c '^0x') sem $(ipcs -s | grep -c '^0x')"
python3 -c 'import ctypes, os; c = ctypes.CDLL(None); print("mq", c.mq_open(b"/leftover", os.O_RDWR, 0, None) >= 0)'
echo "sleeping or listening: $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c -e sleep -e python3)"
python3 -c 'import socket
for family, address in ((socket.AF_UNIX, "\0leftover"), (socket.AF_INET, ("127.0.0.1", 47001))):
    s = socket.socket(family)
    try:
        s.connect(address); print("reached", address)
    except OSError:
        print("none")'
python3 -c 'import ctypes; c = ctypes.CDLL(None)
print("keys", [c.syscall(250, 10, k, b"user", b"leftover", 0) > 0 for k in (-4, -5)])'
echo "env ${LEFTOVER:-none}"
echo "host $(hostname)"
"#;

#[test]
fn a_run_in_a_kept_sandbox_finds_nothing_of_the_run_before() {
    let levels = sandbox_levels();
    if levels.is_empty() {
        eprintln!("skipped: no namespaces here");
        return;
    }
    for level in levels {
        let keep = KeptSandboxes::new();
        let secret = BTreeMap::from([("LEFTOVER".to_owned(), "secret".to_owned())]);
        let left = run_kept(&keep, level, LEAVER, &secret, &limits());
        assert_eq!(left.termination, Termination::Exited(0), "{level}: {}", text(&left.stderr));
        let out = text(&left.stdout);
        assert!(
            out.ends_with("made 1 1 1\nmq True\nkeys True\nleft\n"),
            "{level}: the leaver could not leave all: {out}"
        );
        // What a run in a sandbox of its own finds: the same, PID included.
        let argv: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), LOOKER.into()];
        let (none, limits) = (BTreeMap::new(), limits());
        let fresh = RunRequest {
            argv: &argv,
            env: &none,
            stdin: b"",
            limits: &limits,
            mounts: &[],
            containment: level,
            keep: None,
        };
        let expected = text(&run(&fresh).unwrap().stdout);
        let nothing = [
            "/work: 0",
            "/tmp: 0",
            "/dev/shm: 0",
            "shm 0 msg 0 sem 0",
            "mq False",
            "sleeping or listening: 0",
        ];
        for line in nothing.into_iter().chain(["none", "keys [False, False]", "env none"]) {
            assert!(expected.lines().any(|l| l == line), "{level}: a fresh sandbox shows {expected}");
        }
        assert_eq!(out.lines().next(), expected.lines().next(), "{level}: another PID");
        for _ in 0..2 {
            let looked = run_kept(&keep, level, LOOKER, &none, &limits);
            assert_eq!(looked.termination, Termination::Exited(0), "{level}: {}", text(&looked.stderr));
            assert_eq!(text(&looked.stdout), expected, "{level}: {}", text(&looked.stderr));
        }
        assert_eq!(keep.built(), 1, "{level}: the runs did not share one sandbox");
    }
}

/// A run that changes nothing in the writable places but the folders themselves, and takes inode
/// numbers without a name: what the next run finds must still be what a new sandbox shows.
const FOLDER_CHANGER: &str = r#"
chmod 755 /work && echo chmod
touch -d @0 /work && echo touch
chattr +d /work 2>/dev/null && echo chattr
cd / && python3 -I -c 'import os
try:
    os.setxattr("/work", "user.left", b"1"); print("xattr")
except OSError:
    pass
fds = [os.open(p, os.O_TMPFILE | os.O_RDWR, 0o600) for p in ("/work", "/tmp", "/dev/shm")]
print("tmpfiles")'
"#;

/// What the run after [`FOLDER_CHANGER`] looks at.
const FOLDER_LOOKER: &str = r#"
stat -c '%n %a %h %s' /work /tmp /dev/shm
for place in /work /tmp /dev/shm; do [ "$(stat -c %Y $place)" -gt 1000000000 ] && echo "$place recent" || echo "$place old"; done
lsattr -d /work 2>&1 | cut -c1-20
cd / && python3 -I -c 'import os
for p in ("/work", "/tmp", "/dev/shm"):
    print(p, os.listxattr(p), os.fstat(os.open(p + "/new", os.O_CREAT | os.O_WRONLY, 0o600)).st_ino)'
"#;

#[test]
fn a_run_that_changes_only_the_writable_folders_leaves_the_next_run_nothing() {
    for level in sandbox_levels() {
        let (none, limits) = (BTreeMap::new(), limits());
        // What a new kept sandbox's first run finds (a sandbox of its own lays its tmpfs out
        // otherwise: other inode numbers).
        let expected = text(&run_kept(&KeptSandboxes::new(), level, FOLDER_LOOKER, &none, &limits).stdout);
        assert!(expected.contains("/work 700 2 "), "{level}: a new sandbox shows {expected}");
        let keep = KeptSandboxes::new();
        let changed = run_kept(&keep, level, FOLDER_CHANGER, &none, &limits);
        let out = text(&changed.stdout);
        assert!(out.starts_with("chmod\ntouch\n") && out.ends_with("tmpfiles\n"), "{level}: {out}");
        let looked = run_kept(&keep, level, FOLDER_LOOKER, &none, &limits);
        assert_eq!(text(&looked.stdout), expected, "{level}: {}", text(&looked.stderr));
        assert_eq!(keep.built(), 1, "{level}: the runs did not share one sandbox");
    }
}

/// Whether a command run in a kept sandbox makes its reset replace the writable places' tmpfs: it
/// does whenever the command opens, makes or changes anything there, and only then.
#[test]
fn a_reset_replaces_the_writable_places_only_after_a_run_that_touched_them() {
    let commands = [
        ("exit 0", false),
        ("stat /work /tmp /dev/shm > /dev/null; cat /tmp/missing 2>/dev/null; cd /work; echo $$", false),
        ("ls /tmp > /dev/null", true),
        (": > /dev/shm/made", true),
        ("mkdir /tmp/d && rmdir /tmp/d", true),
        ("chmod 711 /work", true),
        ("touch -d @0 /work", true),
        ("cd / && python3 -I -c 'import os; os.open(\"/tmp\", os.O_TMPFILE | os.O_RDWR, 0o600)'", true),
        ("cd / && python3 -I -c 'import os; os.symlink(\"/etc\", \"/dev/shm/l\")'", true),
    ];
    for level in sandbox_levels() {
        let (keep, none, limits) = (KeptSandboxes::new(), BTreeMap::new(), limits());
        let clean = run_kept(&keep, level, "exit 0", &none, &limits);
        assert_eq!(clean.termination, Termination::Exited(0), "{level}");
        let mut expected = (0, 0);
        for (command, touches) in commands {
            let outcome = run_kept(&keep, level, command, &none, &limits);
            assert_eq!(
                outcome.termination,
                Termination::Exited(0),
                "{level}: {command}: {}",
                text(&outcome.stderr)
            );
            // The next run takes the sandbox once its reset after `command` is done.
            run_kept(&keep, level, "exit 0", &none, &limits);
            expected = (expected.0 + usize::from(touches), expected.1 + 2);
            assert_eq!(keep.scratches_replaced(), expected, "{level}: after `{command}`");
        }
        assert_eq!(keep.built(), 1, "{level}: the runs did not share one sandbox");
    }
}

#[test]
fn a_kept_sandbox_hides_its_pid_1_from_programs() {
    for level in sandbox_levels() {
        let keep = KeptSandboxes::new();
        let script = "cat /proc/1/stat > /dev/null 2>&1 && echo read || echo unreadable; \
                      ls /proc | grep -qx 1 && echo listed || echo unlisted; echo $$";
        for _ in 0..2 {
            let outcome = run_kept(&keep, level, script, &BTreeMap::new(), &limits());
            assert_eq!(
                text(&outcome.stdout),
                "unreadable\nunlisted\n2\n",
                "{level}: {}",
                text(&outcome.stderr)
            );
        }
    }
}

#[test]
fn a_run_the_grader_stops_ends_its_kept_sandbox() {
    for level in sandbox_levels() {
        let keep = KeptSandboxes::new();
        let quick = Limits { wall: Duration::from_millis(500), ..limits() };
        let slow = run_kept(&keep, level, "echo started; sleep 30", &BTreeMap::new(), &quick);
        assert_eq!(slow.termination, Termination::Killed { limit: Limit::Wall }, "{level}");
        assert_eq!(slow.stdout, b"started\n");
        let flood =
            run_kept(&keep, level, "yes", &BTreeMap::new(), &Limits { output_bytes: 4096, ..limits() });
        assert_eq!(flood.termination, Termination::Killed { limit: Limit::Output }, "{level}");
        let next = run_kept(&keep, level, "ls -A | wc -l", &BTreeMap::new(), &limits());
        assert_eq!(text(&next.stdout), "0\n", "{level}");
        assert_eq!(keep.built(), 3, "{level}: a stopped run's sandbox served another");
    }
}

#[test]
fn runs_in_a_kept_sandbox_end_as_in_a_sandbox_of_their_own() {
    for level in sandbox_levels() {
        let keep = KeptSandboxes::new();
        // A run the grader stops (here at its CPU limit, when the run-wide watch reads it before the
        // kernel's RLIMIT_CPU acts) spoils its sandbox by design, which is then built again: the
        // spinner gets sandboxes of its own, so that `keep` counts the runs that end by themselves.
        let spinners = KeptSandboxes::new();
        let none = BTreeMap::new();
        for _ in 0..2 {
            let outcome = run_kept(&keep, level, "echo out; echo err >&2; exit 3", &none, &limits());
            assert_eq!(outcome.termination, Termination::Exited(3), "{level}");
            assert_eq!(
                (outcome.stdout.as_slice(), outcome.stderr.as_slice()),
                (&b"out\n"[..], &b"err\n"[..])
            );
            let crash = run_kept(&keep, level, "kill -SEGV $$", &none, &limits());
            assert_eq!(crash.termination, Termination::Signaled { signal: 11, name: "SIGSEGV".into() });
            let hog = Limits { cpu: Duration::from_secs(1), wall: Duration::from_secs(30), ..limits() };
            let spin = run_kept(&spinners, level, "while :; do :; done", &none, &hog);
            assert_eq!(spin.termination, Termination::Killed { limit: Limit::Cpu }, "{level}");
            let id = run_kept(
                &keep,
                level,
                "pwd; id -u; grep -E '^Sig(Blk|Ign)' /proc/self/status",
                &none,
                &limits(),
            );
            assert_eq!(
                text(&id.stdout),
                "/work\n1000\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n",
                "{level}: {:?}, {}",
                id.termination,
                text(&id.stderr)
            );
            let root = run_kept(&keep, level, "touch /x 2>/dev/null || echo read-only", &none, &limits());
            assert_eq!(text(&root.stdout), "read-only\n", "{level}");
        }
        assert_eq!(keep.built(), 1, "{level}");
    }
}

#[test]
fn a_compilers_run_never_uses_a_kept_sandbox() {
    let Some(&level) = sandbox_levels().last() else { return };
    let keep = KeptSandboxes::new();
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    sandbox::prepare_for_program(dir.path(), true).unwrap();
    let mounts = [Mount { path: dir.path().to_owned(), writable: true }];
    let argv: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), "true".into()];
    let env = BTreeMap::new();
    let limits = limits();
    let request = RunRequest {
        argv: &argv,
        env: &env,
        stdin: b"",
        limits: &limits,
        mounts: &mounts,
        containment: level,
        keep: Some(&keep),
    };
    assert_eq!(run(&request).unwrap().termination, Termination::Exited(0));
    assert_eq!(keep.built(), 0);
}

#[test]
fn a_run_shown_a_folder_below_tmp_gets_a_sandbox_of_its_own() {
    // A reset's new tmpfs at /tmp would cover the folder.
    let Some(&level) = sandbox_levels().last() else { return };
    let keep = KeptSandboxes::new();
    let below = tempfile::tempdir_in("/tmp").unwrap();
    let beside = tempfile::tempdir_in("/var/tmp").unwrap();
    let argv: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), "true".into()];
    let (env, limits) = (BTreeMap::new(), limits());
    for (dir, built) in [(&below, 0), (&beside, 1)] {
        sandbox::prepare_for_program(dir.path(), false).unwrap();
        let mounts = [Mount::read_only(dir.path())];
        let request = RunRequest {
            argv: &argv,
            env: &env,
            stdin: b"",
            limits: &limits,
            mounts: &mounts,
            containment: level,
            keep: Some(&keep),
        };
        assert_eq!(run(&request).unwrap().termination, Termination::Exited(0));
        assert_eq!(keep.built(), built, "{}", dir.path().display());
    }
}

#[test]
fn a_kept_sandbox_outlives_the_thread_whose_run_built_it() {
    for level in sandbox_levels() {
        let keep = KeptSandboxes::new();
        let none = BTreeMap::new();
        std::thread::scope(|scope| {
            scope.spawn(|| run_kept(&keep, level, "true", &none, &limits()));
        });
        let after = run_kept(&keep, level, "echo served", &none, &limits());
        assert_eq!(text(&after.stdout), "served\n", "{level}: {:?}", after.termination);
        assert_eq!(keep.built(), 1, "{level}");
    }
}

#[test]
fn kept_sandboxes_of_several_submissions_serve_many_runs_at_once() {
    // Sandboxes are built and reset while others run: each run must still end as it would alone
    // (a reset that read another thread's errno once failed here at random).
    let Some(&level) = sandbox_levels().last() else { return };
    std::thread::scope(|scope| {
        for submission in 0..4 {
            scope.spawn(move || {
                let keep = KeptSandboxes::new();
                let none = BTreeMap::new();
                for run in 0..25 {
                    let script = format!("echo {submission}-{run} > /tmp/mine; sleep 0.01 & cat /tmp/mine");
                    let outcome = run_kept(&keep, level, &script, &none, &limits());
                    assert_eq!(
                        text(&outcome.stdout),
                        format!("{submission}-{run}\n"),
                        "{:?}",
                        outcome.termination
                    );
                }
                assert_eq!(keep.built(), 1);
            });
        }
    });
}

#[test]
fn runs_waiting_for_a_core_hold_no_kept_sandbox() {
    // Eight runners with four runs each, at once: the runs wait for a core before they take a
    // sandbox, so the submission needs no more sandboxes than runs can use cores at once (runs
    // that took a sandbox and then waited for a core had a submission build eight for 54 runs).
    for level in sandbox_levels() {
        let keep = KeptSandboxes::new();
        let (none, limits) = (BTreeMap::new(), limits());
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..4 {
                        let ran = run_kept(&keep, level, "exit 0", &none, &limits);
                        assert_eq!(ran.termination, Termination::Exited(0), "{level}: {}", text(&ran.stderr));
                    }
                });
            }
        });
        let most = cpu_slot_count();
        assert!((1..=most).contains(&keep.built()), "{level}: {} sandboxes for {most} cores", keep.built());
    }
}

/// Where no inotify watch is left to lend (the user's instances spent), a reset replaces the tmpfs
/// after every run, a clean one too, and a run still finds nothing of the one before.
#[test]
fn without_a_watch_every_reset_replaces_the_writable_places() {
    for level in sandbox_levels() {
        let (keep, none, limits) = (KeptSandboxes::without_watches(), BTreeMap::new(), limits());
        for _ in 0..3 {
            let clean = run_kept(&keep, level, "exit 0", &none, &limits);
            assert_eq!(clean.termination, Termination::Exited(0), "{level}");
        }
        assert_eq!(keep.scratches_replaced(), (2, 2), "{level}: a clean run's reset kept the tmpfs");
        let expected = text(&run_kept(&KeptSandboxes::new(), level, FOLDER_LOOKER, &none, &limits).stdout);
        run_kept(&keep, level, FOLDER_CHANGER, &none, &limits);
        let looked = run_kept(&keep, level, FOLDER_LOOKER, &none, &limits);
        assert_eq!(text(&looked.stdout), expected, "{level}: {}", text(&looked.stderr));
        assert_eq!(keep.built(), 1, "{level}: the runs did not share one sandbox");
    }
}

#[test]
fn a_folder_below_the_writable_places_is_one_a_reset_would_cover() {
    for path in ["/work", "/work/main/target", "/tmp/cache", "/dev/shm/x"] {
        assert!(below_writable_places(std::path::Path::new(path)), "{path}");
    }
    for path in ["/workspace", "/var/tmp/cache", "/dev", "/home/u/.cache/grader", "/"] {
        assert!(!below_writable_places(std::path::Path::new(path)), "{path}");
    }
}
