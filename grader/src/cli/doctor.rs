//! `grader doctor`: how well this machine contains student programs, and how to get more.

use std::io::Write;

use super::*;

/// `grader doctor`: what this machine supports, and how to get more.
pub(super) fn doctor() -> anyhow::Result<u8> {
    let mut out = anstream::stdout();
    let level = Containment::available();
    writeln!(out, "containment: {level}")?;
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    writeln!(
        out,
        "user: {}",
        if root { "root (programs run as nobody inside a sandbox)" } else { "unprivileged" }
    )?;
    match run::namespace_problem() {
        None => {
            writeln!(out, "namespaces: yes (user, mount, PID, network, IPC, UTS; a private root on tmpfs)")?
        }
        Some(problem) => {
            writeln!(out, "namespaces: no: {problem}")?;
            writeln!(
                out,
                "  to get them: allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, \
                 or user.max_user_namespaces > 0; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0), \
                 or in Docker run with --security-opt seccomp=unconfined (or --privileged)"
            )?;
        }
    }
    match run::Hierarchy::usable() {
        Some(hierarchy) => writeln!(out, "cgroups: yes ({})", hierarchy.describe())?,
        None => {
            writeln!(out, "cgroups: no (processes and memory are bounded by rlimits only)")?;
            writeln!(
                out,
                "  to get them: run as root, or in a cgroup v2 subtree delegated to this user \
                 (systemd-run --user --scope -p Delegate=yes grader ...)"
            )?;
        }
    }
    let cache = BuildCache::default_dir();
    writeln!(out, "build cache: {} (GRADER_CACHE_DIR or --cache-dir to choose)", cache.display())?;
    if level > Containment::RlimitsOnly && run::below_writable_places(&cache) {
        writeln!(
            out,
            "warning: the build cache is below /work, /tmp or /dev/shm, where a sandbox has its writable \
             places: each run is shown its build there in a fresh sandbox of its own, not in one kept for \
             the submission (about 1.5x the CPU per case); choose a cache elsewhere"
        )?;
    }
    let ceiling = run::hard_process_limit();
    if ceiling != u64::MAX {
        writeln!(
            out,
            "process ceiling: {ceiling} (this user's hard RLIMIT_NPROC; a run's process limit cannot exceed it)"
        )?;
    }
    let users = run::RUN_UIDS;
    if root {
        writeln!(
            out,
            "run users: without namespaces (rlimits-only), each run is a user of its own, uid {}-{} \
             (those free of accounts and of other graders' leases), and nothing of it outlives the run",
            users.start,
            users.end - 1
        )?;
    } else {
        writeln!(
            out,
            "run users: no (not root): without namespaces (rlimits-only), programs run as this user, can \
             read what it can read and signal its processes, the grader's included"
        )?;
    }
    if level == Containment::RlimitsOnly {
        writeln!(
            out,
            "warning: without namespaces programs see the host's files that others may read, and its \
             network; grading refuses when they could read a hidden case (--accept-readable-cases for \
             a self-check); prefer `--require-containment namespaces-without-cgroups` for hidden cases"
        )?;
    }
    Ok(EXIT_OK)
}
