//! The course's own programs (a package's output validator, its reference solution, its test
//! generators, the `[reference]` of an assignment): built once like a submission, by their
//! language or their own `build` and `run` scripts, cached, and run contained.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use super::{build, Build, BuildCache, BuildError, SourceFile, Submission};
use crate::languages::{Choice, LanguageRecipe};
use crate::load::{Assignment, BuildRecipe};
use crate::run::{self, Containment, Limits, Mount, RunOutcome, RunRequest};

/// Limits of a run of the course's own program: generous, as the judge's programs are trusted to
/// end (60 s wall, 30 s CPU, 2 GiB); still contained.
pub fn limits() -> Limits {
    Limits {
        wall: Duration::from_secs(60),
        cpu: Duration::from_secs(30),
        memory_bytes: 2048 << 20,
        output_bytes: 64 << 20,
        processes: 256,
        file_size_bytes: 256 << 20,
        disk_bytes: 512 << 20,
        address_space_limit: false,
        ..Limits::default()
    }
}

/// Builds a program of the course (a file, or a folder of files), cached under `role`
/// (`output-validator`, `reference`, `generator-tree`).
///
/// # Errors
///
/// A program that cannot be read, or that does not build: the course's fault, said with the
/// compiler's messages, never a student's.
pub fn build_program(
    assignment: &Assignment,
    program: &Path,
    role: &str,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Build, ProgramError> {
    let files = program_files(program)
        .map_err(|source| BuildError::Submission { path: program.to_owned(), source })?;
    build_files(assignment, program, files, role, cache, containment)
}

/// [`build_program`] of files already read (a generator made of files `generators.yaml` lists);
/// `program` names it in messages.
///
/// # Errors
///
/// See [`build_program`].
pub fn build_files(
    assignment: &Assignment,
    program: &Path,
    files: Vec<SourceFile>,
    role: &str,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Build, ProgramError> {
    let scripts = files.iter().any(|f| f.name == "build" || f.name == "run");
    let mut limits = Limits::compiler();
    limits.processes = 256;
    limits.address_space_limit = false;
    let recipe = if scripts {
        // The format's own way: `build` (if any) in the program's folder, then `run` is the program.
        let script = "cd \"$1\" && if [ -f build ]; then chmod +x build && ./build; fi && chmod +x run";
        BuildRecipe {
            name: role.to_owned(),
            commands: vec![vec!["sh".into(), "-c".into(), script.into(), "build".into(), "{build}".into()]],
            run: vec!["{build}/run".to_owned()],
            env: Default::default(),
            limits,
            requires: vec!["sh".to_owned()],
            language: None,
        }
    } else {
        BuildRecipe {
            name: role.to_owned(),
            commands: Vec::new(),
            run: Vec::new(),
            env: Default::default(),
            limits,
            requires: Vec::new(),
            language: Some(LanguageRecipe { choice: Choice::ByExtension, heap_mb: 1024 }),
        }
    };
    let submission = Submission { path: program.to_owned(), files };
    let built = build(assignment, &recipe, &submission, cache, containment)?;
    if !built.ok {
        return Err(ProgramError::DoesNotBuild {
            path: program.to_owned(),
            log: built.log.trim_end().to_owned(),
        });
    }
    Ok(built)
}

/// Why a program of the course cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// It could not be read, or its compiler could not be run.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Its compiler refused it.
    #[error("{} does not build:\n{log}", path.display())]
    DoesNotBuild {
        /// The program.
        path: std::path::PathBuf,
        /// The compiler's messages.
        log: String,
    },
}

/// The files of a program: a single file, or every file of its folder (its own folders included).
fn program_files(program: &Path) -> std::io::Result<Vec<SourceFile>> {
    if program.is_file() {
        let name = program.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok(vec![SourceFile { name, content: std::fs::read(program)? }]);
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(program).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(program).unwrap_or(entry.path());
            let name = relative.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
            files.push(SourceFile { name, content: std::fs::read(entry.path())? });
        }
    }
    if files.is_empty() {
        return Err(std::io::Error::other("the program's folder holds no file"));
    }
    Ok(files)
}

/// Runs a built program contained with these arguments after its own, this input, and `folder`
/// (a folder of the grader's, made usable by the run) mounted writable for the files it reads and
/// writes.
///
/// # Errors
///
/// The grader could not run it at all (what the program does is the outcome).
pub fn run_program(
    program: &Build,
    args: &[OsString],
    stdin: &[u8],
    folder: Option<&Path>,
    containment: Containment,
) -> Result<RunOutcome, String> {
    let mut argv = program.run_argv.clone();
    argv.extend(args.iter().cloned());
    let mut mounts = program.run_mounts.clone();
    mounts.extend(folder.map(|f| Mount { path: f.to_owned(), writable: true }));
    let limits = limits();
    let request = RunRequest {
        argv: &argv,
        env: &program.run_env,
        stdin,
        limits: &limits,
        mounts: &mounts,
        containment,
        keep: None,
    };
    run::run(&request).map_err(|e| run::error_chain(&e))
}

/// A folder for one run of a program of the course, under the cache (where programs may be shown
/// a folder), usable by the run; removed when dropped.
pub fn scratch_folder(cache: &BuildCache, prefix: &str) -> std::io::Result<tempfile::TempDir> {
    std::fs::create_dir_all(cache.dir())?;
    let folder = tempfile::Builder::new().prefix(prefix).tempdir_in(cache.dir())?;
    run::prepare_for_program(folder.path(), true)?;
    Ok(folder)
}

/// How a run of a program of the course ended, in words, with what it said on stderr:
/// `exited with status 1: Traceback ...`.
pub fn ending(outcome: &RunOutcome) -> String {
    let how = match &outcome.termination {
        crate::run::Termination::Exited(code) => format!("exited with status {code}"),
        other => other.to_string(),
    };
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    match stderr.trim() {
        "" => how,
        said => format!("{how}: {said}"),
    }
}
