//! Confinement of one run: namespaces and a private root where the kernel allows them, rlimits always.
//!
//! In a namespace sandbox the grader `clone`s a child into new user, mount, PID, network, IPC, UTS and
//! cgroup namespaces (a root grader's kept sandboxes are born in their submission's network
//! namespace instead, never another submission's: see `netns`). The child shares the grader's memory
//! (`CLONE_VM`) on a stack of its own, so that no run copies the grader's page tables. That child is
//! PID 1 of its namespace: it builds a root on a size-limited tmpfs (mounted over `/sys` in its own
//! mount namespace) with the system directories bound read-only and the run's own paths ([`Mount`])
//! bound at their own paths, and `pivot_root`s into it. Then it
//! says it is ready over a status pipe and waits for the grader's word (the grader takes a CPU slot
//! first), forks the program as an unprivileged user (inside uid 1000; outside the grader's uid, or
//! `nobody` when the grader is root), reaps everything, and reports the program's end. When PID 1
//! exits the kernel kills whatever is left, so nothing outlives a run: `setsid` and double forks do
//! not help. Between `clone` and `exec` only raw system calls run, on data prepared before the clone
//! and kept until PID 1 is reaped (the grader is multi-threaded: nothing may allocate or take a lock
//! there).
//!
//! Where namespaces are not allowed the program runs under rlimits only, in its own process group.

use std::ffi::CString;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::cgroup::{CgroupLimits, Hierarchy, RunCgroup};
use super::exec::{c_bytes, pipe, reset_signal_dispositions, ChildStack, ExecImage};
use super::netns::SubmissionNetwork;
use super::{Limits, Rlimits};

mod init;
mod kept;
mod launch;
mod plan;
mod serve;

use init::*;
pub use kept::{await_reaped, below_writable_places, sandbox_reuse, set_sandbox_reuse, KeptSandboxes};
pub(super) use kept::{Keeper, KeptSandbox, Key};
use launch::*;
pub(super) use launch::{kill_and_reap, read_status, run_cgroup, spawn, LaunchOwner, ProgramEnd};
use plan::*;
pub(super) use plan::{Plan, ProgramStart};
use serve::*;

/// How well runs are contained on this machine, from the strongest level down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Containment {
    /// Rlimits, a process group and `no_new_privs` only: the program runs as the grader's user and
    /// sees what that user may see; processes and memory are bounded only by rlimits (which do not
    /// bound root's process count).
    RlimitsOnly,
    /// Namespaces and a private root; processes bounded by `RLIMIT_NPROC` counted inside the user
    /// namespace, memory by `RLIMIT_AS`.
    NamespacesWithoutCgroups,
    /// Namespaces, a private root, and a cgroup per run bounding processes and memory.
    Full,
}

impl Containment {
    /// Every level, weakest first.
    pub const ALL: [Containment; 3] =
        [Containment::RlimitsOnly, Containment::NamespacesWithoutCgroups, Containment::Full];

    /// The strongest level this machine supports, probed once per process by running `/bin/true`.
    pub fn available() -> Containment {
        static PROBED: OnceLock<Containment> = OnceLock::new();
        *PROBED.get_or_init(|| {
            if namespaces_work() {
                if Hierarchy::usable().is_some() {
                    Containment::Full
                } else {
                    Containment::NamespacesWithoutCgroups
                }
            } else {
                Containment::RlimitsOnly
            }
        })
    }

    /// The level's name as the report and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            Containment::Full => "full",
            Containment::NamespacesWithoutCgroups => "namespaces-without-cgroups",
            Containment::RlimitsOnly => "rlimits-only",
        }
    }

    /// The level spelled `name`, if any.
    pub fn from_name(name: &str) -> Option<Containment> {
        Containment::ALL.into_iter().find(|level| level.name() == name)
    }
}

impl fmt::Display for Containment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why namespaces are not available, for `grader doctor` (None when they work).
pub fn namespace_problem() -> Option<String> {
    static PROBLEM: OnceLock<Option<String>> = OnceLock::new();
    PROBLEM.get_or_init(probe_namespaces).clone()
}

fn namespaces_work() -> bool {
    namespace_problem().is_none()
}

fn probe_namespaces() -> Option<String> {
    let limits = Limits { wall: std::time::Duration::from_secs(10), ..Limits::default() };
    let argv = [std::ffi::OsString::from("/bin/true")];
    let env = std::collections::BTreeMap::new();
    let request = super::RunRequest {
        argv: &argv,
        env: &env,
        stdin: b"",
        limits: &limits,
        mounts: &[],
        containment: Containment::NamespacesWithoutCgroups,
        keep: None,
    };
    match super::run(&request) {
        Ok(outcome) if outcome.termination == super::Termination::Exited(0) => None,
        Ok(outcome) => Some(format!("/bin/true in a namespace sandbox {}", outcome.termination)),
        Err(error) => Some(super::error_chain(&error)),
    }
}

/// A path of the host made visible inside the sandbox at the same path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// An absolute path, a file or a directory.
    pub path: PathBuf,
    /// Whether the run may write there (a compiler's output folder); read-only otherwise.
    pub writable: bool,
}

impl Mount {
    /// A read-only mount of `path`.
    pub fn read_only(path: impl Into<PathBuf>) -> Mount {
        Mount { path: path.into(), writable: false }
    }
}

/// System directories bound read-only into every sandbox (or recreated as the symlinks they are).
const SYSTEM_PATHS: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/// Finds a program a recipe names (`python3`, `gcc`) as the sandbox will see it: the first on PATH
/// that lies in the system folders bound into every sandbox (itself, or the file its links lead
/// to), unless programs run without one (`rlimits-only`), where the first on PATH will do. A version
/// manager's shim under a home folder (pyenv's `python3`, rustup's `rustc`) runs nowhere in a
/// sandbox, so it is passed over for the system's own program further on PATH.
///
/// # Errors
///
/// [`Located::Nowhere`] when PATH has no such program; [`Located::Outside`] naming the programs
/// found outside the system folders, which the sandbox cannot show.
pub fn locate_program(name: &str, containment: Containment) -> Result<PathBuf, Located> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let shown = |p: &Path| SYSTEM_PATHS.iter().any(|system| p.starts_with(system));
    let mut outside = Vec::new();
    for dir in std::env::split_paths(&path).filter(|d| d.is_absolute()) {
        let candidate = dir.join(name);
        let executable =
            std::fs::metadata(&candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        if !executable {
            continue;
        }
        if containment == Containment::RlimitsOnly {
            return Ok(candidate);
        }
        // The file a link leads to must be shown too; a link from elsewhere to a system program is
        // run by the program's own path.
        let real = candidate.canonicalize().unwrap_or_else(|_| candidate.clone());
        if shown(&real) {
            return Ok(if shown(&candidate) { candidate } else { real });
        }
        // rustup's proxy runs the toolchain it chooses: that toolchain's own program, shown to
        // the sandbox with its folder (see `toolchain_folder`).
        if let Some(own) = rustup_toolchain_program(&candidate, &real, name) {
            return Ok(own);
        }
        if !outside.contains(&real) {
            outside.push(real);
        }
    }
    Err(if outside.is_empty() { Located::Nowhere } else { Located::Outside(outside) })
}

/// The program a rustup proxy (`~/.cargo/bin/rustc`, a link to `rustup`) would run: the active
/// toolchain's own, `<sysroot>/bin/<name>`, as `rustc --print sysroot` names the toolchain.
fn rustup_toolchain_program(candidate: &Path, real: &Path, name: &str) -> Option<PathBuf> {
    if real.file_name()? != "rustup" || !matches!(name, "rustc" | "rustdoc") {
        return None;
    }
    let output = std::process::Command::new(candidate).args(["--print", "sysroot"]).output().ok()?;
    let sysroot = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    let program = sysroot.join("bin").join(name);
    (output.status.success() && program.is_file()).then_some(program)
}

/// The folder a sandbox must be shown (read-only) for a program outside the system folders to
/// run: the Rust toolchain it belongs to (`<sysroot>/bin/rustc`, with `<sysroot>/lib/rustlib`), or
/// `None`. Nothing else outside the system folders is shown: a program in a home folder's `bin`
/// would show the whole home folder.
pub fn toolchain_folder(program: &Path) -> Option<PathBuf> {
    let real = program.canonicalize().ok()?;
    if SYSTEM_PATHS.iter().any(|system| real.starts_with(system)) {
        return None;
    }
    let bin = real.parent()?;
    let sysroot = bin.parent()?;
    (bin.file_name()? == "bin" && sysroot.join("lib/rustlib").is_dir()).then(|| sysroot.to_owned())
}

/// Why [`locate_program`] found no program a sandbox can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Not installed, or not on PATH.
    Nowhere,
    /// Installed only outside the system folders a sandbox shows (these real paths).
    Outside(Vec<PathBuf>),
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Located::Nowhere => {
                f.write_str("not installed (not on PATH, nor in /usr/local/bin, /usr/bin, /bin)")
            }
            Located::Outside(found) => {
                let found: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "installed only at {}, outside the folders a sandbox shows ({}): install it there \
                     (a system package), or grade at --containment rlimits-only",
                    found.join(", "),
                    SYSTEM_PATHS.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for Located {}

/// Devices bound into `/dev`.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The uid and gid of the program inside the user namespace.
const INSIDE_ID: u32 = 1000;

/// `nobody`/`nogroup`, the ids root's runs get outside (and, without namespaces, run as).
pub(super) const NOBODY: u32 = 65534;

/// The working directory inside, also `HOME`.
pub const INSIDE_WORKDIR: &str = "/work";

/// Makes `path` usable by the unprivileged user that runs programs in a sandbox: when the grader is
/// root, it becomes owned by `nobody` (writable) or readable by all (read-only); otherwise nothing
/// changes.
pub fn prepare_for_program(path: &Path, writable: bool) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    if writable {
        std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY))
    } else {
        let meta = std::fs::metadata(path)?;
        let mode = meta.permissions().mode();
        let readable = if meta.is_dir() || mode & 0o100 != 0 { 0o555 } else { 0o444 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | readable))
    }
}

/// Lets the unprivileged users of programs pass through a folder of the grader's by path, without
/// listing it: when the grader is root, its mode becomes 0711. Otherwise nothing changes.
pub fn open_for_passage(dir: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))
}

/// Makes a file of a sealed build folder readable by root alone (a submission's source, which no
/// program needs). Nothing changes when the grader is not root.
pub fn keep_from_programs(path: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)),
        _ => Ok(()),
    }
}

/// Makes a finished build folder readable, and no longer writable, by the user that runs programs:
/// when the grader is root, every entry goes back to root and gains read (and search) permission for
/// all. Otherwise nothing changes. A program could otherwise rewrite the cached executable that the
/// next gradings of the same files run.
pub fn seal_for_programs(dir: &Path) -> io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(io::Error::other)?;
        std::os::unix::fs::lchown(entry.path(), Some(0), Some(0))?;
        if !entry.path_is_symlink() {
            prepare_for_program(entry.path(), false)?;
        }
    }
    Ok(())
}

/// Whether a root grader's programs, which run as users that own nothing when there are no
/// namespaces, can enter `path`: every folder from `/` down must be open to others (the mode's
/// `o+x`; a folder of `nobody`'s counts as open too). ACLs are not read.
pub fn nobody_can_enter(path: &Path) -> bool {
    let Ok(path) = path.canonicalize() else { return false };
    path.ancestors().all(|dir| {
        std::fs::metadata(dir).is_ok_and(|meta| {
            use std::os::unix::fs::MetadataExt;
            meta.mode() & 0o001 != 0 || meta.uid() == NOBODY
        })
    })
}
