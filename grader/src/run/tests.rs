//! The run stage's behaviour at every containment level, as a specification: exits, limits, floods,
//! escapes, the environment, the sandbox's view.

use super::*;
use std::fs;
use std::thread;

fn limits() -> Limits {
    Limits { cpu: Duration::from_secs(10), file_size_bytes: 1024 * 1024, ..Limits::default() }
}

fn argv(script: &str) -> Vec<OsString> {
    vec!["/bin/sh".into(), "-c".into(), script.into()]
}

/// Runs `script` with `/bin/sh -c`; the grader itself must not fail.
fn run_sh_with(script: &str, stdin: &[u8], env: &BTreeMap<String, String>, limits: &Limits) -> RunOutcome {
    let argv = argv(script);
    let request = RunRequest {
        argv: &argv,
        env,
        stdin,
        limits,
        mounts: &[],
        containment: Containment::available(),
        keep: None,
    };
    run(&request).expect("the grader itself must not fail")
}

/// Runs `script` at a given containment level.
fn run_sh_in(containment: Containment, script: &str, stdin: &[u8], limits: &Limits) -> RunOutcome {
    run_sh_kept(containment, None, script, stdin, limits)
}

/// Runs `script` at a given containment level, in one of `keep`'s sandboxes if given.
fn run_sh_kept(
    containment: Containment,
    keep: Option<&KeptSandboxes>,
    script: &str,
    stdin: &[u8],
    limits: &Limits,
) -> RunOutcome {
    let argv = argv(script);
    let env = BTreeMap::new();
    let request = RunRequest { argv: &argv, env: &env, stdin, limits, mounts: &[], containment, keep };
    run(&request).expect("the grader itself must not fail")
}

/// The levels this machine supports, weakest first.
fn levels() -> Vec<Containment> {
    Containment::ALL.into_iter().filter(|&level| level <= Containment::available()).collect()
}

fn run_sh(script: &str, stdin: &[u8], limits: &Limits) -> RunOutcome {
    run_sh_with(script, stdin, &BTreeMap::new(), limits)
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("test output is UTF-8")
}

/// True while `pid` is a live (not zombie) process running `command`.
fn is_running(pid: i32, command: &str) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "pid (comm) state ...": comm may contain spaces, so split at the last ')'.
    let Some((head, tail)) = stat.rsplit_once(')') else {
        return false;
    };
    let comm = head.split_once('(').map_or("", |(_, comm)| comm);
    let state = tail.trim_start().chars().next();
    comm == command && !matches!(state, Some('Z' | 'X'))
}

/// Polls until `pid` is no longer running `command`, for at most `within`.
fn dies_within(pid: i32, command: &str, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if !is_running(pid, command) {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    !is_running(pid, command)
}

/// Processes spinning on every CPU, as on a machine busy with other work, until dropped.
struct BusyMachine(Vec<std::process::Child>);

impl BusyMachine {
    /// `per_cpu` spinning processes per CPU.
    fn start(per_cpu: usize) -> BusyMachine {
        let cpus = thread::available_parallelism().map_or(1, |n| n.get());
        let spin = || std::process::Command::new("/bin/sh").args(["-c", "while :; do :; done"]).spawn();
        BusyMachine((0..per_cpu * cpus).map(|_| spin().unwrap()).collect())
    }
}

impl Drop for BusyMachine {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}

#[test]
fn a_normal_exit_reports_its_code_and_exact_output() {
    let outcome = run_sh("printf 'hello\\nworld\\n'; echo oops >&2; exit 3", b"", &limits());
    assert_eq!(outcome.termination, Termination::Exited(3));
    assert_eq!(outcome.stdout, b"hello\nworld\n");
    assert_eq!(outcome.stderr, b"oops\n");
    assert!(outcome.peak_memory_kb > 0);
}

#[test]
fn stdin_is_delivered_and_echoed_back() {
    let input = b"first line\nsecond line\nno newline at the end";
    let outcome = run_sh("cat", input, &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, input);
}

#[test]
fn input_and_output_larger_than_the_pipes_arrive_whole_at_every_level() {
    // More than any pipe holds, in and out: the run must keep feeding and reading once its
    // quiet start is over, and lose nothing.
    let input: Vec<u8> = (0..3_000_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let limits = Limits { output_bytes: 8 << 20, ..limits() };
    for level in levels() {
        let outcome = run_sh_in(level, "cat; echo done >&2", &input, &limits);
        assert_eq!(outcome.termination, Termination::Exited(0), "{level}");
        assert!(outcome.stdout == input, "{level}: {} bytes came back", outcome.stdout.len());
        assert_eq!(outcome.stderr, b"done\n", "{level}");
    }
}

#[test]
fn a_program_that_never_reads_a_large_stdin_does_not_hang_the_grader() {
    let input = vec![b'x'; 1024 * 1024];
    let outcome = run_sh("echo ignored", &input, &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, b"ignored\n");
}

#[test]
fn a_program_that_reads_part_of_stdin_and_exits_is_fine() {
    let input = vec![b'y'; 1024 * 1024];
    let outcome = run_sh("head -c 5", &input, &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, b"yyyyy");
}

#[test]
fn a_silent_infinite_loop_times_out_on_the_wall_clock() {
    let limits = Limits { wall: Duration::from_secs(1), cpu: Duration::from_secs(30), ..limits() };
    let outcome = run_sh("while :; do :; done", b"", &limits);
    // Killed at the wall limit, long before its CPU limit could end it.
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Wall });
    assert!(outcome.stdout.is_empty());
    assert!(outcome.wall_time >= limits.wall, "{:?}", outcome.wall_time);
}

#[test]
fn a_sleeping_program_times_out_quickly_on_the_wall_clock() {
    let limits = Limits { wall: Duration::from_secs(1), ..limits() };
    let outcome = run_sh("echo before; sleep 100", b"", &limits);
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Wall });
    // Output written before the timeout is kept, for prefix comparison.
    assert_eq!(outcome.stdout, b"before\n");
    assert!(outcome.cpu_time < limits.cpu);
}

#[test]
fn a_cpu_hog_is_stopped_by_the_cpu_limit() {
    // A wide wall limit: on a loaded machine one second of CPU can take many seconds of wall.
    let limits = Limits { wall: Duration::from_secs(30), cpu: Duration::from_secs(1), ..limits() };
    let outcome = run_sh("while :; do :; done", b"", &limits);
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Cpu });
    // On a virtual machine under load the kernel's CPU-limit clock can run up to about half a
    // second ahead of the rusage it reports afterwards: only check that the time is plausible.
    assert!(outcome.cpu_time >= limits.cpu / 2, "{:?}", outcome.cpu_time);
}

#[test]
fn the_cpu_limit_counts_every_process_of_a_run_together_and_fractions_of_a_second() {
    // RLIMIT_CPU alone gave each process a whole second: four spinning children used four seconds
    // and the shell then exited as if nothing had happened. The run's CPU time, all its processes
    // together, is held to the limit itself, at every level.
    let limits = Limits { wall: Duration::from_secs(30), cpu: Duration::from_millis(300), ..limits() };
    for level in Containment::ALL.into_iter().filter(|&level| level <= Containment::available()) {
        let forks = run_sh_in(level, "for i in 1 2 3 4; do (while :; do :; done) & done; wait", b"", &limits);
        assert_eq!(forks.termination, Termination::Killed { limit: Limit::Cpu }, "{level}");
        let one = run_sh_in(level, "while :; do :; done", b"", &limits);
        assert_eq!(one.termination, Termination::Killed { limit: Limit::Cpu }, "{level}");
        assert!(
            one.cpu_time < Duration::from_secs(1),
            "{level}: {:?}, not RLIMIT_CPU's second",
            one.cpu_time
        );
    }
}

#[test]
fn a_busy_machine_does_not_turn_a_cpu_limit_into_a_wall_limit() {
    // Three spinning processes per CPU: the program gets about a quarter of one. Its wall limit
    // counts only the time it ran or slept, so its CPU limit still comes first, as on an idle
    // machine.
    let hogs = BusyMachine::start(3);
    let limits = Limits { wall: Duration::from_secs(3), cpu: Duration::from_secs(1), ..limits() };
    let outcome = run_sh("while :; do :; done", b"", &limits);
    drop(hogs);
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Cpu }, "{:?}", outcome.wall_time);
}

#[test]
fn a_cpu_hog_that_ignores_sigxcpu_is_killed_at_the_hard_limit() {
    let limits = Limits { wall: Duration::from_secs(30), cpu: Duration::from_secs(1), ..limits() };
    let outcome = run_sh("trap '' XCPU; while :; do :; done", b"", &limits);
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Cpu });
    assert!(outcome.cpu_time >= limits.cpu, "{:?}", outcome.cpu_time);
}

#[test]
fn an_output_flood_hits_the_output_limit_quickly() {
    let limits = Limits { output_bytes: 64 * 1024, ..limits() };
    let outcome = run_sh("yes", b"", &limits);
    assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Output });
    assert_eq!(outcome.stdout.len(), limits.output_bytes);
    assert!(outcome.stdout.chunks(2).all(|pair| pair == b"y\n"));
}

#[test]
fn stderr_beyond_the_cap_is_truncated_but_not_a_failure() {
    let limits = Limits { output_bytes: 1000, ..limits() };
    let outcome = run_sh("head -c 200000 /dev/zero | tr '\\0' e >&2; echo done", b"", &limits);
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, b"done\n");
    let mut kept = vec![b'e'; 750];
    kept.extend_from_slice(b"\n[... 199000 bytes left out ...]\n");
    kept.extend_from_slice(&[b'e'; 250]);
    assert_eq!(outcome.stderr, kept);
}

#[test]
fn crashes_are_reported_with_the_signal_number_and_name() {
    for (signal, name) in [(11, "SIGSEGV"), (6, "SIGABRT"), (8, "SIGFPE")] {
        let short = name.trim_start_matches("SIG");
        let outcome = run_sh(&format!("kill -{short} $$"), b"", &limits());
        assert_eq!(outcome.termination, Termination::Signaled { signal, name: name.to_owned() });
    }
}

#[test]
fn a_background_child_is_killed_and_does_not_hang_the_run() {
    let outcome = run_sh("sleep 100 & echo $!; exit 0", b"", &limits());
    // Ended with the shell: neither the sleep nor its hold on stdout kept the run to its wall limit.
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert!(outcome.wall_time < limits().wall, "{:?}", outcome.wall_time);
    let pid: i32 = text(&outcome.stdout).trim().parse().expect("the script prints a pid");
    assert!(dies_within(pid, "sleep", Duration::from_secs(30)), "sleep {pid} survived the run");
    // SAFETY: kill with signal 0 only checks for existence. A zombie (not reaped by the
    // container's init) still exists; /proc tells us it is dead, so accept ESRCH or a zombie.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!exists || !is_running(pid, "sleep"));
}

#[test]
fn a_grandchild_that_escaped_the_group_does_not_hang_the_run() {
    // setsid puts the sleep in a session of its own, out of reach of the group kill, still
    // holding stdout open. The outer shell waits until the escapee has written its pid.
    let script = "setsid sh -c 'echo $$ > escapee; exec sleep 30' & \
                  while [ ! -s escapee ]; do sleep 0.05; done; cat escapee";
    let outcome = run_sh(script, b"", &limits());
    let pid: Option<i32> = text(&outcome.stdout).trim().parse().ok();
    if let Some(pid) = pid {
        // SAFETY: kill has no memory-safety preconditions; clean up the escapee ourselves.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert!(pid.is_some(), "stdout: {:?}", outcome.stdout);
    // Its hold on stdout did not keep the run to its wall limit.
    assert!(outcome.wall_time < limits().wall, "{:?}", outcome.wall_time);
}

#[test]
fn non_utf8_output_is_kept_as_bytes() {
    let outcome = run_sh("printf '\\377\\376\\000abc\\n'", b"", &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, b"\xff\xfe\x00abc\n");
}

#[test]
fn the_environment_holds_only_the_requested_variables_and_the_defaults() {
    let env = BTreeMap::from([("GRADER_SEED".to_owned(), "42".to_owned())]);
    let outcome = run_sh_with("env | sort", b"", &env, &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    let lines: Vec<&str> = text(&outcome.stdout).lines().collect();
    let home = lines.iter().find_map(|line| line.strip_prefix("HOME=")).expect("HOME is set");
    // dash exports PWD itself; everything else comes from the grader.
    let expected = [
        "GRADER_SEED=42".to_owned(),
        format!("HOME={home}"),
        "LANG=C".to_owned(),
        format!("PATH={DEFAULT_PATH}"),
        format!("PWD={home}"),
    ];
    assert_eq!(lines, expected);

    let env =
        BTreeMap::from([("LANG".to_owned(), "C.UTF-8".to_owned()), ("PATH".to_owned(), "/bin".to_owned())]);
    let outcome = run_sh_with("echo \"$LANG $PATH\"", b"", &env, &limits());
    assert_eq!(outcome.stdout, b"C.UTF-8 /bin\n");
}

#[test]
fn the_working_directory_starts_empty_and_what_a_program_leaves_there_is_removed() {
    // The script also makes a folder it cannot write to, which must not defeat the clean-up.
    let script = "pwd; ls -A | wc -l; echo data > made-here; mkdir -p locked/in; chmod 000 locked";
    let first = run_sh_in(Containment::RlimitsOnly, script, b"", &limits());
    let second = run_sh_in(Containment::RlimitsOnly, script, b"", &limits());
    for outcome in [&first, &second] {
        assert_eq!(outcome.termination, Termination::Exited(0));
        let mut lines = text(&outcome.stdout).lines();
        let dir = PathBuf::from(lines.next().expect("pwd"));
        assert_eq!(lines.next().map(str::trim), Some("0"), "the directory starts empty");
        assert!(dir.starts_with(std::env::temp_dir()), "{}", dir.display());
        // Removed, or emptied and kept for its run user's next run (a root grader's).
        let left = std::fs::read_dir(&dir).map(|entries| entries.count()).unwrap_or(0);
        assert_eq!(left, 0, "what the program left in {} remains", dir.display());
    }
    // A folder left as it was given, or emptied back to it, may serve a later run, which finds it
    // empty; one whose mode its program changed is removed.
    for _ in 0..3 {
        let quiet = run_sh_in(Containment::RlimitsOnly, "ls -A | wc -l", b"", &limits());
        assert_eq!(text(&quiet.stdout).trim(), "0", "the directory starts empty");
    }
    let opened = run_sh_in(Containment::RlimitsOnly, "pwd; chmod 755 .", b"", &limits());
    assert_eq!(opened.termination, Termination::Exited(0));
    let dir = PathBuf::from(text(&opened.stdout).trim());
    assert!(!dir.exists(), "{} was left behind", dir.display());
}

#[test]
fn the_basics_hold_at_every_containment_level() {
    for level in levels() {
        let outcome = run_sh_in(level, "cat; echo oops >&2; exit 3", b"in\n", &limits());
        assert_eq!(outcome.termination, Termination::Exited(3), "{level}");
        assert_eq!((outcome.stdout.as_slice(), outcome.stderr.as_slice()), (&b"in\n"[..], &b"oops\n"[..]));
        let outcome = run_sh_in(level, "kill -SEGV $$", b"", &limits());
        assert_eq!(
            outcome.termination,
            Termination::Signaled { signal: 11, name: "SIGSEGV".into() },
            "{level}"
        );
        let quick = Limits { wall: Duration::from_millis(500), ..limits() };
        let outcome = run_sh_in(level, "sleep 30", b"", &quick);
        assert_eq!(outcome.termination, Termination::Killed { limit: Limit::Wall }, "{level}");
    }
}

#[test]
fn programs_start_with_no_signal_blocked_or_ignored_at_every_level() {
    // The grader ignores SIGPIPE (and, under the test harness, signal 32) and blocks every signal
    // around a start: none of it may reach the program.
    for level in levels() {
        let outcome = run_sh_in(level, "grep -E '^Sig(Blk|Ign)' /proc/self/status", b"", &limits());
        assert_eq!(
            text(&outcome.stdout),
            "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n",
            "{level}"
        );
    }
}

#[test]
fn a_sandboxed_program_cannot_reach_a_listener_of_the_host() {
    if Containment::available() == Containment::RlimitsOnly {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener on the loopback");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("its address").port();
    let script = format!(
        "if bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' 2>/dev/null; then echo reached; else echo cut off; fi; \
         cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '"
    );
    // Several runs, in fresh sandboxes and in sandboxes kept for them (as root, born in one network
    // namespace made for them).
    let keep = KeptSandboxes::new();
    for at in 0..4 {
        let kept = (at >= 2).then_some(&keep);
        let outcome = run_sh_kept(Containment::available(), kept, &script, b"", &limits());
        assert_eq!(text(&outcome.stdout), "cut off\nlo\n", "{:?}", text(&outcome.stderr));
    }
    assert!(listener.accept().is_err(), "a sandboxed program connected to the host's loopback");
    // The same script outside a sandbox does reach it: the test can tell.
    let outcome = run_sh_in(Containment::RlimitsOnly, &script, b"", &limits());
    assert!(text(&outcome.stdout).starts_with("reached"), "{}", text(&outcome.stdout));
}

#[test]
fn a_sandboxed_program_sees_a_private_root_and_no_network() {
    if Containment::available() == Containment::RlimitsOnly {
        eprintln!("namespaces are not available here: {:?}", namespace_problem());
        return;
    }
    let script = "pwd; ls -A | wc -l; echo data > made-here; id -u; hostname; ls /; \
                  ls /proc | grep -c '^[0-9]'; cat /sys/class/net/*/address 2>&1 | head -1; \
                  ls /root /home 2>&1 | head -1; echo x > /etc/x 2>&1 || echo etc-read-only";
    for _ in 0..2 {
        let outcome = run_sh_in(Containment::available(), script, b"", &limits());
        assert_eq!(outcome.termination, Termination::Exited(0));
        let out = text(&outcome.stdout);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(&lines[..4], ["/work", "0", "1000", "sandbox"], "{out}");
        let root: Vec<&str> =
            lines.iter().skip(4).take_while(|l| !l.chars().all(|c| c.is_ascii_digit())).copied().collect();
        for entry in &root {
            assert!(
                [
                    "bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc", "sbin", "tmp",
                    "usr", "work"
                ]
                .contains(entry),
                "unexpected /{entry} in {root:?}"
            );
        }
        // Only the shell, ls, grep (and perhaps a pipe's other end) are processes of the run.
        let processes: usize = lines[4 + root.len()].parse().unwrap();
        assert!(processes <= 4, "{processes} processes visible");
        assert!(out.contains("etc-read-only"), "{out}");
    }
}

#[test]
fn a_sandboxed_program_sees_no_cgroups_name() {
    // Its cgroups are named after how many this grader made: a count other runs move.
    for level in levels().into_iter().filter(|&level| level != Containment::RlimitsOnly) {
        let outcome = run_sh_in(level, "cat /proc/self/cgroup", b"", &limits());
        let out = text(&outcome.stdout);
        assert!(!out.is_empty(), "{level}: {}", text(&outcome.stderr));
        for line in out.lines() {
            assert!(line.ends_with(":/"), "{level}: {line} in {out}");
        }
    }
}

#[test]
fn a_sandboxed_program_cannot_read_the_graders_command_line() {
    for level in levels().into_iter().filter(|&level| level != Containment::RlimitsOnly) {
        let outcome = run_sh_in(
            level,
            "wc -c < /proc/1/cmdline; ls /proc/1/ > /dev/null && echo listed",
            b"",
            &limits(),
        );
        assert_eq!(text(&outcome.stdout), "0\nlisted\n", "{level}: {}", text(&outcome.stderr));
    }
}

#[test]
fn a_run_started_by_a_sealed_thread_leads_its_own_group_under_the_one_inherited_filter() {
    // The shell's group is its own pid; the seal refuses setsid to the child it starts (not a
    // group leader, so setsid(1) calls it at once); one filter, the thread's, not one of its own.
    let script = "cut -d' ' -f5 /proc/$$/stat; echo $$; setsid true; echo \"setsid $?\"; \
                  grep -E '^Seccomp(_filters)?:' /proc/$$/status";
    let (outcome, filters) = thread::spawn(move || {
        assert!(seal::seal_this_thread(), "the thread is sealed");
        // Ours, and a container's if there is one.
        let status = fs::read_to_string("/proc/thread-self/status").expect("/proc is mounted");
        let filters = status.lines().find(|line| line.starts_with("Seccomp_filters:")).map(str::to_owned);
        (run_sh_in(Containment::RlimitsOnly, script, b"", &limits()), filters)
    })
    .join()
    .expect("the run ends");
    assert_eq!(outcome.termination, Termination::Exited(0), "{}", text(&outcome.stderr));
    let lines: Vec<&str> = text(&outcome.stdout).lines().collect();
    assert_eq!(lines[0], lines[1], "the group is the shell's own: {lines:?}");
    assert_eq!(lines[2], "setsid 1", "{lines:?}");
    assert_eq!(lines[3], "Seccomp:\t2", "{lines:?}");
    // Kernels from 5.9 count the filters: the thread's, inherited (none installed by the run).
    assert_eq!(lines.get(4).copied(), filters.as_deref(), "{lines:?}");
}

#[test]
fn a_process_that_leaves_the_session_dies_with_the_sandbox() {
    if Containment::available() == Containment::RlimitsOnly {
        return;
    }
    let marker = format!("grader-escape-{}", std::process::id());
    let script = format!("setsid sh -c 'exec -a {marker} sleep 30' & sleep 0.2; exit 0");
    let outcome = run_sh_in(Containment::available(), &script, b"", &limits());
    assert_eq!(outcome.termination, Termination::Exited(0));
    thread::sleep(Duration::from_millis(200));
    let alive = fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        fs::read(entry.path().join("cmdline"))
            .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains(&marker))
    });
    assert!(!alive, "the escapee outlived its run");
}

#[test]
fn an_interactive_program_is_spoken_to_line_by_line() {
    let argv = argv("while read line; do echo \"got $line\"; done; echo bye; printf tail");
    let env = BTreeMap::new();
    let limits = limits();
    let request = SpawnRequest {
        argv: &argv,
        env: &env,
        limits: &limits,
        mounts: &[],
        containment: Containment::available(),
    };
    let mut program = Interactive::start(&request).unwrap();
    for word in ["one", "two"] {
        program.send_line(word.as_bytes()).unwrap();
        assert_eq!(
            program.read_line(Duration::from_secs(5)),
            LineRead::Line(format!("got {word}").into_bytes())
        );
    }
    assert_eq!(program.read_line(Duration::from_millis(200)), LineRead::TimedOut);
    program.close_stdin();
    assert_eq!(program.read_line(Duration::from_secs(5)), LineRead::Line(b"bye".to_vec()));
    assert_eq!(program.read_line(Duration::from_secs(5)), LineRead::Closed { partial: b"tail".to_vec() });
    let outcome = program.finish(Duration::from_secs(5)).unwrap();
    assert_eq!(outcome.termination, Termination::Exited(0));
    assert_eq!(outcome.stdout, b"got one\ngot two\nbye\ntail");
}

#[test]
fn an_answer_the_machine_kept_waiting_for_a_cpu_is_in_time() {
    // Three spinning processes per CPU: the program's 0.3 s of work takes about four times as
    // long, most of it waiting for a CPU.
    let hogs = BusyMachine::start(3);
    let argv = argv("read x; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo done; read y");
    let env = BTreeMap::new();
    let limits = limits();
    let request = SpawnRequest {
        argv: &argv,
        env: &env,
        limits: &limits,
        mounts: &[],
        containment: Containment::available(),
    };
    let mut program = Interactive::start(&request).unwrap();
    program.send_line(b"go").unwrap();
    let answer = program.read_line(Duration::from_millis(700));
    // A program that waits for input instead is not kept waiting: its time runs as before.
    let silence = program.read_line(Duration::from_millis(300));
    drop(hogs);
    assert_eq!(answer, LineRead::Line(b"done".to_vec()));
    assert_eq!(silence, LineRead::TimedOut);
}

#[test]
fn writing_past_the_file_size_limit_fails_without_harming_the_grader() {
    let limits = Limits { file_size_bytes: 4096, ..limits() };
    let script = "head -c 100000 /dev/zero > big; echo \"status $?\"; wc -c < big";
    let outcome = run_sh(script, b"", &limits);
    assert_eq!(outcome.termination, Termination::Exited(0));
    // head dies of SIGXFSZ (25): the shell reports 128 + 25; the file stops at the limit.
    assert_eq!(text(&outcome.stdout), "status 153\n4096\n");
}

#[test]
fn the_rlimits_are_applied_to_the_program() {
    let limits = Limits {
        cpu: Duration::from_millis(1500),
        memory_bytes: 300 * 1024 * 1024,
        processes: 1000,
        file_size_bytes: 123_456,
        open_files: 32,
        ..limits()
    };
    let outcome = run_sh("cat /proc/self/limits", b"", &limits);
    assert_eq!(outcome.termination, Termination::Exited(0));
    let table = text(&outcome.stdout);
    let row = |name: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {table}"));
        line[name.len()..].split_whitespace().take(2).map(str::to_owned).collect()
    };
    assert_eq!(row("Max cpu time"), ["2", "3"]);
    // With a cgroup, memory is bounded there: a JVM could not start under an address-space limit.
    if Containment::available() == Containment::Full {
        assert_eq!(row("Max address space"), ["unlimited", "unlimited"]);
    } else {
        assert_eq!(row("Max address space"), ["314572800", "314572800"]);
    }
    if Containment::available() == Containment::Full {
        // `pids.max` bounds processes there; `RLIMIT_NPROC` stays at the inherited ceiling.
        let hard = limits::hard_process_limit();
        let shown = if hard == u64::MAX { "unlimited".to_owned() } else { hard.to_string() };
        assert_eq!(row("Max processes")[1], shown);
    } else {
        assert_eq!(row("Max processes"), ["1000", "1000"]);
    }
    assert_eq!(row("Max file size"), ["123456", "123456"]);
    assert_eq!(row("Max open files"), ["32", "32"]);
    assert_eq!(row("Max core file size"), ["0", "0"]);
}

#[test]
fn a_root_graders_sandbox_without_cgroups_bounds_system_v_ipc_and_its_program_cannot_raise_the_bounds() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only a root grader's sandbox sets its IPC limits");
        return;
    }
    let limits = Limits { memory_bytes: 64 << 20, ..limits() };
    let script = "cat /proc/sys/kernel/shmall /proc/sys/kernel/msgmni; \
                  echo 99999999 > /proc/sys/kernel/shmall 2>/dev/null && echo raised; \
                  cat /proc/sys/kernel/shmall";
    // (With a cgroup, its memory limit counts shared memory and queues instead.)
    let level = Containment::NamespacesWithoutCgroups;
    if level > Containment::available() {
        eprintln!("skipped: no namespaces here");
        return;
    }
    let outcome = run_sh_in(level, script, b"", &limits);
    assert_eq!(text(&outcome.stdout), "16384\n16\n16384\n", "{level}: {}", text(&outcome.stderr));
}

#[test]
fn a_jvm_without_a_cgroup_starts_but_cannot_allocate_beyond_the_memory_limit() {
    // A JVM reserves gigabytes of address space, so its runs have no address-space limit; what
    // it commits, on its heap or off it (here 64 MiB blocks through Unsafe, up to 3 GiB), is
    // bounded all the same.
    if which::which("java").is_err() {
        eprintln!("skipped: no java here");
        return;
    }
    let hog = r#"public class Hog { public static void main(String[] a) throws Exception {
        var f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe"); f.setAccessible(true);
        var u = (sun.misc.Unsafe) f.get(null); long mib = 0;
        try { for (int i = 0; i < 48; i++) { long p = u.allocateMemory(64L << 20);
                u.setMemory(p, 64L << 20, (byte) 1); mib += 64; }
            System.out.println("allocated " + mib + " MiB");
        } catch (Throwable t) { System.out.println("refused at " + mib + " MiB"); } } }"#;
    let script = format!(
        "cat > Hog.java <<'EOF'\n{hog}\nEOF\nexec java -Xmx256m -Xss1m -XX:+UseSerialGC \
         -XX:TieredStopAtLevel=1 -XX:-UsePerfData -XX:ActiveProcessorCount=1 Hog.java 2>/dev/null"
    );
    let limits = Limits {
        memory_bytes: 512 << 20,
        address_space_limit: false,
        processes: 128,
        wall: Duration::from_secs(60),
        cpu: Duration::from_secs(30),
        ..limits()
    };
    for level in levels().into_iter().filter(|&level| level != Containment::Full) {
        let outcome = run_sh_in(level, &script, b"", &limits);
        let said = text(&outcome.stdout).trim();
        let refused_at = said.strip_prefix("refused at ").and_then(|rest| rest.strip_suffix(" MiB"));
        let refused_at: u64 = refused_at.and_then(|n| n.parse().ok()).unwrap_or_else(|| {
            panic!("{level}: {said:?} ({:?}, {})", outcome.termination, text(&outcome.stderr))
        });
        assert!(refused_at < 512, "{level}: {said}");
    }
}

#[test]
fn a_pooled_cgroup_does_not_carry_the_limit_its_last_run_hit() {
    if Containment::available() != Containment::Full {
        eprintln!("skipped: no cgroups here");
        return;
    }
    let limits = Limits { processes: 6, wall: Duration::from_secs(1), ..limits() };
    // Each time: a run that hits the process limit, then one that only times out, then one that
    // is killed (not for memory). The later runs may get the first one's cgroup if it were
    // pooled: their verdicts must be their own.
    for _ in 0..3 {
        let forks = "sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 5 & done' 2>/dev/null; exec sleep 5";
        let hit = run_sh_in(Containment::Full, forks, b"", &limits);
        assert_eq!(hit.termination, Termination::Killed { limit: Limit::Processes });
        let slow = run_sh_in(Containment::Full, "sleep 5", b"", &limits);
        assert_eq!(slow.termination, Termination::Killed { limit: Limit::Wall });
        let killed = run_sh_in(Containment::Full, "kill -9 $$", b"", &limits);
        assert!(matches!(killed.termination, Termination::Signaled { signal: 9, .. }), "{:?}", killed);
    }
    let memory = Limits { memory_bytes: 32 << 20, ..limits };
    let hog = "awk 'BEGIN { s = \"a\"; while (1) s = s s }'";
    let oom = run_sh_in(Containment::Full, hog, b"", &memory);
    assert!(oom.memory_exhausted, "{:?}", oom.termination);
    for _ in 0..3 {
        let killed = run_sh_in(Containment::Full, "kill -9 $$", b"", &memory);
        assert!(!killed.memory_exhausted);
        assert!(matches!(killed.termination, Termination::Signaled { signal: 9, .. }), "{:?}", killed);
    }
}

#[test]
fn a_program_starts_after_its_admission_and_its_clock_with_it() {
    let env = BTreeMap::new();
    let argv = argv("exit 0");
    for level in levels() {
        let limits = limits();
        let request =
            SpawnRequest { argv: &argv, env: &env, limits: &limits, mounts: &[], containment: level };
        let mut admitted = None;
        let mut running = spawn_admitted(&request, &mut || {
            thread::sleep(Duration::from_millis(200));
            admitted = Some(Instant::now());
        })
        .unwrap();
        let admitted = admitted.expect("admit was called");
        assert!(running.started() >= admitted, "{level}: the clock started before the admission");
        let ended = running.wait().unwrap();
        assert_eq!(ended.status.map(|status| libc::WEXITSTATUS(status)), Some(0), "{level}");
    }
}

#[test]
fn a_program_that_cannot_be_executed_is_an_error_naming_the_step() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let program = dir.path().join("not-executable");
    std::fs::write(&program, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o644)).unwrap();
    let env = BTreeMap::new();
    let argv = [program.clone().into_os_string()];
    let mounts = [Mount::read_only(dir.path())];
    for level in levels() {
        let limits = limits();
        let request = RunRequest {
            argv: &argv,
            env: &env,
            stdin: b"",
            limits: &limits,
            mounts: &mounts,
            containment: level,
            keep: None,
        };
        // The exec fails after the sandbox said it was ready: its error record still names the step.
        let error = match run(&request) {
            Err(error) => error_chain(&error),
            Ok(outcome) => panic!("{level}: ran, {:?}", outcome.termination),
        };
        assert!(error.contains("Permission denied"), "{level}: {error}");
        if level != Containment::RlimitsOnly {
            assert!(error.contains("cannot execute the program"), "{level}: {error}");
        }
    }
}

#[test]
fn requests_the_grader_cannot_serve_are_errors() {
    let env = BTreeMap::new();
    let limits = limits();
    let request = |argv| RunRequest {
        argv,
        env: &env,
        stdin: b"",
        limits: &limits,
        mounts: &[],
        containment: Containment::available(),
        keep: None,
    };
    assert!(matches!(run(&request(&[])), Err(RunError::EmptyArgv)));
    let relative = [OsString::from("bin/sh")];
    assert!(matches!(run(&request(&relative)), Err(RunError::RelativeProgram(_))));
    let missing = [OsString::from("/nonexistent/program")];
    assert!(matches!(run(&request(&missing)), Err(RunError::Spawn { .. })));
    // A sandbox's root covers /sys: a path below it cannot be shown to a program.
    if Containment::available() != Containment::RlimitsOnly {
        let shell = [OsString::from("/bin/sh"), OsString::from("-c"), OsString::from("true")];
        let below = [Mount::read_only("/sys/kernel")];
        let hidden = RunRequest { mounts: &below, ..request(&shell) };
        let error = run(&hidden).unwrap_err();
        assert!(error_chain(&error).contains("/sys/kernel"), "{}", error_chain(&error));
    }
}

#[test]
fn signal_names_follow_the_usual_spelling() {
    assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
    assert_eq!(signal_name(libc::SIGXCPU), "SIGXCPU");
    assert_eq!(signal_name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
    assert_eq!(
        Termination::Signaled { signal: 11, name: "SIGSEGV".into() }.to_string(),
        "killed by SIGSEGV (signal 11)"
    );
}
