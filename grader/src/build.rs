//! Build stage: collects a submission's files and compiles them by a recipe, cached by content hash.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::load::{Assignment, BuildRecipe};
use crate::run::{self, Containment, Mount, RunRequest, Termination};

mod caps;
pub mod program;

pub(crate) use caps::show_bytes;
pub use caps::{ArchiveCaps, CapError};

/// Bytes of compiler output kept for a report.
const MAX_LOG_BYTES: usize = 16 * 1024;
/// Bumped whenever the meaning of a cache entry changes, so old entries are never reused.
const CACHE_VERSION: &str = "grader-build-v1";

/// A failure of the grader itself while building (not a compiler error: that is a [`Build`] result).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The submission path does not exist or cannot be read.
    #[error("cannot read submission {}", path.display())]
    Submission {
        /// The path given.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The build cache could not be written or read.
    #[error("build cache {}", path.display())]
    Cache {
        /// The cache path concerned.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The submission holds more than a submission may (a file of gigabytes, a dumped folder):
    /// nothing of it is built.
    #[error("the submission {} is refused: {reason}", path.display())]
    OverCap {
        /// The path given.
        path: PathBuf,
        /// Which cap, and the file that went over it.
        reason: CapError,
    },
    /// The grader is root without namespaces, so compilers and programs run as run users of their own
    /// (uids 61000-61999), who cannot reach a folder they need.
    #[error(
        "programs run as run users of their own here (the grader is root and contains them with rlimits \
         only, without namespaces), and they cannot enter {}: keep the cases and the build cache (--cache-dir) in \
         folders every user may enter, not under /root (`grader doctor` says why there are no namespaces)",
        path.display()
    )]
    Unreachable {
        /// The folder.
        path: PathBuf,
    },
    /// The grader is root, so compilers run as another user, and a file of the assignment that a
    /// recipe compiles in (a driver, a shared header) is not readable by other users: every build
    /// would fail, and the failure would be taken for the student's.
    #[error(
        "{} is not readable by other users, and compilers run as another user here (the grader is root): \
         every build would fail; `chmod o+r` it (hidden cases may stay unreadable: only what the recipes \
         compile in must be readable)",
        path.display()
    )]
    UnreadableInput {
        /// The file.
        path: PathBuf,
    },
    /// A build or run command names a program this machine cannot run in a sandbox: not installed,
    /// or installed only where a sandbox cannot see it (a version manager's shim in a home folder).
    #[error("`{program}` is {why}")]
    NotFound {
        /// The program named by the recipe.
        program: String,
        /// What the search found.
        why: run::Located,
    },
    /// The compiler could not be started at all.
    #[error("cannot run the build command `{command}`")]
    Spawn {
        /// The command line.
        command: String,
        /// What the runner said.
        source: run::RunError,
    },
}

/// Folders below a submission searched for files of nested patterns.
const MAX_SUBMISSION_DEPTH: usize = 16;

/// One file of a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Its path in the submission, folders separated by `/` (`main.c`, `src/game/Board.java`).
    pub name: String,
    /// Its bytes.
    pub content: Vec<u8>,
}

/// The files of a submission that the assignment takes.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The folder or single file given.
    pub path: PathBuf,
    /// The files matching the assignment's patterns, sorted by name.
    pub files: Vec<SourceFile>,
}

impl Submission {
    /// Reads a submission: a single file, or the files of a folder matching the patterns: only its
    /// top level for plain patterns (`*.c`), its whole tree for patterns with folders (`**/*.java`),
    /// where names keep their folders (`src/game/Board.java`). Hidden folders (`.git`) are skipped.
    /// The files are read within the default [`ArchiveCaps`] (see [`Submission::collect_within`]).
    pub fn collect(path: &Path, patterns: &[glob::Pattern]) -> Result<Self, BuildError> {
        Self::collect_within(path, patterns, ArchiveCaps::default())
    }

    /// [`Submission::collect`] within these caps: more matching files than `caps.entries`, a file
    /// over `caps.file_bytes` or files over `caps.total_bytes` together is a [`BuildError::OverCap`]
    /// naming the file and the cap, and no file is read further than one byte past a cap.
    pub fn collect_within(
        path: &Path,
        patterns: &[glob::Pattern],
        caps: ArchiveCaps,
    ) -> Result<Self, BuildError> {
        let err = |source| BuildError::Submission { path: path.to_owned(), source };
        let refuse = |reason| match reason {
            CapError::Io { error, .. } => err(error),
            reason => BuildError::OverCap { path: path.to_owned(), reason },
        };
        let meta = std::fs::metadata(path).map_err(err)?;
        let mut files = Vec::new();
        let mut used = 0;
        if meta.is_file() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let file = std::fs::File::open(path).map_err(err)?;
            let content = caps.read(&name, file, &mut used).map_err(refuse)?;
            files.push(SourceFile { name, content });
            return Ok(Self { path: path.to_owned(), files });
        }
        let nested = patterns.iter().any(|p| p.as_str().contains('/'));
        let options = glob::MatchOptions { require_literal_separator: true, ..glob::MatchOptions::new() };
        let walker = walkdir::WalkDir::new(path)
            .min_depth(1)
            .max_depth(if nested { MAX_SUBMISSION_DEPTH } else { 1 })
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'));
        for entry in walker {
            let entry = entry.map_err(|e| err(e.into()))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let relative = entry.path().strip_prefix(path).unwrap_or(entry.path());
            let name = relative.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
            if !patterns.iter().any(|p| p.matches_with(&name, options)) {
                continue;
            }
            if files.len() == caps.entries {
                return Err(refuse(CapError::Entries { cap: caps.entries }));
            }
            // The file that cannot be read is the one to name, not the folder.
            let file = std::fs::File::open(entry.path())
                .map_err(|source| BuildError::Submission { path: entry.path().to_owned(), source })?;
            let content = caps.read(&name, file, &mut used).map_err(refuse)?;
            files.push(SourceFile { name, content });
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Self { path: path.to_owned(), files })
    }
}

/// Where built executables are kept between gradings, keyed by the hash of everything that went in.
#[derive(Debug, Clone)]
pub struct BuildCache {
    dir: PathBuf,
}

impl BuildCache {
    /// A cache in this folder (created on first use). A relative folder is taken from the current
    /// one now: programs run from the cache in a sandbox whose working folder is not this process's.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        Self { dir: std::path::absolute(&dir).unwrap_or(dir) }
    }

    /// `$GRADER_CACHE_DIR`, else (for root) `/var/cache/grader`, else `$XDG_CACHE_HOME/grader`, else
    /// `~/.cache/grader`, else the temp folder.
    pub fn default_dir() -> PathBuf {
        let env = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        // Root's compilers and programs run as nobody, which cannot reach into /root.
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        env("GRADER_CACHE_DIR")
            .or_else(|| root.then(|| PathBuf::from("/var/cache/grader")))
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("grader")))
            .or_else(|| env("HOME").map(|d| d.join(".cache").join("grader")))
            .unwrap_or_else(|| std::env::temp_dir().join("grader-cache"))
    }

    /// The cache's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The result of one recipe on one submission.
#[derive(Debug, Clone)]
pub struct Build {
    /// The recipe's name.
    pub recipe: String,
    /// The compiler accepted the submission.
    pub ok: bool,
    /// The compiler's messages (bounded), with the build folder's path removed.
    pub log: String,
    /// Reused from an earlier grading of the same files.
    pub cached: bool,
    /// Time spent building (zero when cached).
    pub duration: Duration,
    /// The command line that runs what was built.
    pub run_argv: Vec<OsString>,
    /// The environment of every run, before the case's own variables.
    pub run_env: BTreeMap<String, String>,
    /// What a run may see of the host inside a sandbox: the build folder, read-only.
    pub run_mounts: Vec<Mount>,
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    ok: bool,
    log: String,
}

/// Values of the placeholders in recipe commands.
struct Placeholders<'a> {
    build: PathBuf,
    assignment: &'a Path,
    files: &'a [SourceFile],
}

/// The folder of files every assignment's recipes may share (`{common}`): `cases/common` beside the
/// assignment's own folder.
fn common_dir(assignment: &Path) -> PathBuf {
    assignment.parent().unwrap_or(assignment).join("common")
}

impl Placeholders<'_> {
    /// Expands `{build}`, `{out}`, `{assignment}`, `{common}` inside arguments; `{glob:PAT}` becomes the matching
    /// submission files (as paths in the build folder), as many arguments as there are matches.
    fn expand(&self, args: &[String]) -> Result<Vec<OsString>, String> {
        let mut out = Vec::new();
        for arg in args {
            if let Some(pattern) = arg.strip_prefix("{glob:").and_then(|p| p.strip_suffix('}')) {
                let pat = glob::Pattern::new(pattern).map_err(|e| format!("bad pattern `{pattern}`: {e}"))?;
                let matches: Vec<&SourceFile> = self.files.iter().filter(|f| pat.matches(&f.name)).collect();
                if matches.is_empty() {
                    return Err(format!("the submission has no file matching `{pattern}`"));
                }
                out.extend(matches.iter().map(|f| self.build.join(&f.name).into_os_string()));
            } else {
                out.push(self.expand_text(arg).into());
            }
        }
        Ok(out)
    }

    /// Expands `{build}`, `{out}`, `{assignment}` and `{common}` inside one string.
    fn expand_text(&self, text: &str) -> String {
        let build = self.build.to_string_lossy();
        text.replace("{out}", &format!("{build}/prog"))
            .replace("{build}", &build)
            .replace("{assignment}", &self.assignment.to_string_lossy())
            .replace("{common}", &common_dir(self.assignment).to_string_lossy())
    }
}

/// The cache key: the recipe, the submission's files, and the assignment files the recipe names.
fn cache_key(assignment: &Assignment, recipe: &BuildRecipe, submission: &Submission) -> String {
    let mut hasher = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(CACHE_VERSION.as_bytes());
    field(assignment.id.as_bytes());
    field(recipe.name.as_bytes());
    for arg in recipe.commands.iter().flatten().chain(&recipe.run).chain(recipe.env.values()) {
        field(arg.as_bytes());
        // Files of the assignment folder that the recipe uses (a driver, a preload library) are inputs
        // too, and every shared file once the recipe uses one (a header may be included, not named).
        if let Some(rest) = arg.strip_prefix("{assignment}/") {
            field(&std::fs::read(assignment.dir.join(rest)).unwrap_or_default());
        }
    }
    if recipe.commands.iter().flatten().any(|arg| arg.contains("{common}")) {
        let mut shared: Vec<PathBuf> = std::fs::read_dir(common_dir(&assignment.dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .collect();
        shared.sort();
        for path in shared {
            field(path.file_name().unwrap_or_default().as_encoded_bytes());
            field(&std::fs::read(&path).unwrap_or_default());
        }
    }
    for file in &submission.files {
        field(file.name.as_bytes());
        field(&file.content);
    }
    hasher.finalize().to_hex()[..32].to_owned()
}

/// The files of the assignment a recipe's commands compile in: those named `{assignment}/...`, and
/// every shared file once a command names `{common}`.
fn recipe_inputs(assignment: &Assignment, recipe: &BuildRecipe) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = recipe
        .commands
        .iter()
        .flatten()
        .filter_map(|arg| arg.strip_prefix("{assignment}/"))
        .map(|rest| assignment.dir.join(rest))
        .filter(|path| path.is_file())
        .collect();
    if recipe.commands.iter().flatten().any(|arg| arg.contains("{common}")) {
        let shared = std::fs::read_dir(common_dir(&assignment.dir)).into_iter().flatten().flatten();
        inputs.extend(shared.map(|entry| entry.path()).filter(|path| path.is_file()));
    }
    inputs
}

/// Whether users other than the file's owner and group may read it.
fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o004 != 0)
}

/// Builds a submission with one recipe, reusing the cache when the same inputs were built before.
pub fn build(
    assignment: &Assignment,
    recipe: &BuildRecipe,
    submission: &Submission,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Build, BuildError> {
    let planned;
    let recipe = match &recipe.language {
        None => recipe,
        Some(language) => match plan_language(recipe, language, submission) {
            Ok(concrete) => {
                planned = concrete;
                &planned
            }
            // No language or entry point to be found is the submission's build error.
            Err(message) => {
                return Ok(Build {
                    recipe: recipe.name.clone(),
                    ok: false,
                    log: format!("{message}\n"),
                    cached: false,
                    duration: Duration::ZERO,
                    run_argv: Vec::new(),
                    run_env: BTreeMap::new(),
                    run_mounts: Vec::new(),
                })
            }
        },
    };
    let cache_err = |path: &Path| {
        let path = path.to_owned();
        move |source| BuildError::Cache { path, source }
    };
    let key = cache_key(assignment, recipe, submission);
    let final_dir = cache.dir.join(format!("{}-{}-{key}", assignment.id, recipe.name));
    let entry_path = final_dir.join("outcome.json");
    let placeholders = |dir: &Path| -> Placeholders<'_> {
        Placeholders { build: dir.to_owned(), assignment: &assignment.dir, files: &submission.files }
    };
    // A run command named without a folder (`java`) is looked up on PATH once, here: a missing
    // runtime is a clear error, and the sandbox needs an absolute program.
    let run_argv = |dir: &Path| -> Result<Vec<OsString>, BuildError> {
        let mut argv = placeholders(dir).expand(&recipe.run).unwrap_or_default();
        if let Some(program) = argv.first_mut() {
            if !Path::new(program).is_absolute() && !program.to_string_lossy().contains('/') {
                let name = program.to_string_lossy().into_owned();
                let found = run::locate_program(&name, containment)
                    .map_err(|why| BuildError::NotFound { program: name, why })?;
                *program = found.into_os_string();
            }
        }
        Ok(argv)
    };
    let run_env = |dir: &Path| {
        let p = placeholders(dir);
        recipe.env.iter().map(|(k, v)| (k.clone(), p.expand_text(v))).collect::<BTreeMap<_, _>>()
    };

    let run_mounts = |dir: &Path| -> Result<Vec<Mount>, BuildError> {
        if containment != Containment::RlimitsOnly {
            run::prepare_for_program(dir, false).map_err(cache_err(dir))?;
        }
        let mut mounts = vec![Mount::read_only(dir)];
        // An interpreter installed outside the system folders, with its installation.
        let program = run_argv(dir)?.into_iter().next();
        mounts.extend(program.and_then(|p| run::toolchain_folder(Path::new(&p))).map(Mount::read_only));
        Ok(mounts)
    };

    // What the machine lacks is said first: a missing JDK is not a student's build error.
    for program in &recipe.requires {
        run::locate_program(program, containment)
            .map_err(|why| BuildError::NotFound { program: program.clone(), why })?;
    }
    run_argv(&final_dir)?;

    if let Ok(text) = std::fs::read_to_string(&entry_path) {
        if let Ok(entry) = serde_json::from_str::<CacheEntry>(&text) {
            return Ok(Build {
                run_mounts: run_mounts(&final_dir)?,
                recipe: recipe.name.clone(),
                ok: entry.ok,
                log: entry.log,
                cached: true,
                duration: Duration::ZERO,
                run_argv: run_argv(&final_dir)?,
                run_env: run_env(&final_dir),
            });
        }
    }

    std::fs::create_dir_all(&cache.dir).map_err(cache_err(&cache.dir))?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        if let Some(path) = recipe_inputs(assignment, recipe).into_iter().find(|p| !readable_by_others(p)) {
            return Err(BuildError::UnreadableInput { path });
        }
    }
    // SAFETY: geteuid has no preconditions.
    if containment == Containment::RlimitsOnly && unsafe { libc::geteuid() } == 0 {
        if let Some(path) = [&assignment.dir, &cache.dir].into_iter().find(|p| !run::nobody_can_enter(p)) {
            return Err(BuildError::Unreachable { path: path.clone() });
        }
    }
    let work = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(&cache.dir)
        .map_err(cache_err(&cache.dir))?;
    for file in &submission.files {
        let path = work.path().join(&file.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(cache_err(parent))?;
        }
        std::fs::write(&path, &file.content).map_err(cache_err(&path))?;
    }
    // A root grader's compilers run unprivileged at every level (nobody, or a run user of their own
    // without namespaces): the build folder is theirs to write, and the cache's own folder lets them
    // reach it by its path, never list it (the other submissions' builds are named there).
    run::open_for_passage(&cache.dir).map_err(cache_err(&cache.dir))?;
    run::prepare_for_program(work.path(), true).map_err(cache_err(work.path()))?;
    let started = Instant::now();
    let (ok, log, ended) = compile(recipe, &placeholders(work.path()), containment)?;
    if ended == BuildEnd::Stopped {
        // A compiler stopped by a signal or a limit may have been stopped by a loaded or shutting-down
        // machine, not by the submission: this grading reports it, the next one builds again.
        return Ok(Build {
            run_mounts: Vec::new(),
            recipe: recipe.name.clone(),
            ok,
            log: format!("{log}(not kept in the build cache: the next grading builds it again)\n"),
            cached: false,
            duration: started.elapsed(),
            run_argv: run_argv(&final_dir)?,
            run_env: run_env(&final_dir),
        });
    }
    let entry = CacheEntry { ok, log };
    let json = serde_json::to_string(&entry).expect("a cache entry always serialises");
    std::fs::write(work.path().join("outcome.json"), json).map_err(cache_err(work.path()))?;
    run::seal_for_programs(work.path()).map_err(cache_err(work.path()))?;
    // The submission's own files are the compilers' input, not the program's: readable by the
    // grader alone from now on (a program of another student could otherwise read them by path),
    // unless the recipe runs one of them.
    let interpreted = recipe.language.is_some_and(|_| {
        crate::languages::detect(&submission.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>())
            .is_ok_and(crate::languages::Language::interpreted)
    });
    let run_names = |file: &SourceFile| {
        interpreted || recipe.run.iter().any(|arg| arg.ends_with(&format!("/{}", file.name)))
    };
    for file in submission.files.iter().filter(|file| !run_names(file)) {
        run::keep_from_programs(&work.path().join(&file.name)).map_err(cache_err(work.path()))?;
    }
    // Another grader may have built the same key meanwhile: either copy is good, keep the first.
    let work_path = work.keep();
    if std::fs::rename(&work_path, &final_dir).is_err() {
        let _ = std::fs::remove_dir_all(&work_path);
    }
    Ok(Build {
        run_mounts: run_mounts(&final_dir)?,
        recipe: recipe.name.clone(),
        ok: entry.ok,
        log: entry.log,
        cached: false,
        duration: started.elapsed(),
        run_argv: run_argv(&final_dir)?,
        run_env: run_env(&final_dir),
    })
}

/// A language recipe made concrete for a submission's files: its commands, run line and the tools
/// they need (a missing one is then the machine's error, said before anything is built).
fn plan_language(
    recipe: &BuildRecipe,
    language: &crate::languages::LanguageRecipe,
    submission: &Submission,
) -> Result<BuildRecipe, String> {
    let sources: Vec<crate::languages::Source> = submission
        .files
        .iter()
        .map(|f| crate::languages::Source { name: &f.name, content: &f.content })
        .collect();
    let plan = language.plan(&sources)?;
    let mut requires = recipe.requires.clone();
    requires.extend(plan.language.tools().iter().map(|t| (*t).to_owned()));
    Ok(BuildRecipe {
        name: recipe.name.clone(),
        commands: plan.commands,
        run: plan.run,
        env: recipe.env.clone(),
        limits: recipe.limits.clone(),
        requires,
        // Kept: the cache key and the readable sources follow from it.
        language: Some(*language),
    })
}

/// How a build's commands ended, as far as the cache is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BuildEnd {
    /// Every command exited, successfully or with its own errors: the same inputs build the same way.
    Exited,
    /// A command was killed by a signal or stopped at a limit: it may not happen again.
    Stopped,
}

/// Runs a recipe's commands in order; the first that fails ends the build with its messages.
///
/// In a sandbox the compiler sees the system, the build folder (writable) and the assignment files
/// the command names (read-only), nothing else of the assignment: not its cases.
fn compile(
    recipe: &BuildRecipe,
    placeholders: &Placeholders,
    containment: Containment,
) -> Result<(bool, String, BuildEnd), BuildError> {
    let env = BTreeMap::new();
    let mut log = String::new();
    for command in &recipe.commands {
        let mut argv = match placeholders.expand(command) {
            Ok(argv) => argv,
            Err(message) => return Ok((false, message, BuildEnd::Exited)),
        };
        // The runner wants an absolute program path; recipes name compilers as a shell would.
        let program = match Path::new(&argv[0]).is_absolute() {
            true => PathBuf::from(&argv[0]),
            false => run::locate_program(&argv[0].to_string_lossy(), containment)
                .map_err(|why| BuildError::NotFound { program: command[0].clone(), why })?,
        };
        let toolchain = run::toolchain_folder(&program);
        argv[0] = program.into_os_string();
        let mut mounts = vec![Mount { path: placeholders.build.clone(), writable: true }];
        mounts.extend(toolchain.map(Mount::read_only));
        mounts.extend(
            argv.iter()
                .map(Path::new)
                .filter(|arg| arg.starts_with(placeholders.assignment) && arg.exists())
                .map(Mount::read_only),
        );
        // The shared folder whole, so that its headers can be included: it holds no answers.
        let common = common_dir(placeholders.assignment);
        if command.iter().any(|arg| arg.contains("{common}")) && common.is_dir() {
            mounts.push(Mount::read_only(&common));
        }
        let request = RunRequest {
            argv: &argv,
            env: &env,
            stdin: &[],
            limits: &recipe.limits,
            mounts: &mounts,
            containment,
            // A compiler's folder is its own: its sandbox serves no other run.
            keep: None,
        };
        let outcome =
            run::run(&request).map_err(|source| BuildError::Spawn { command: command.join(" "), source })?;
        // Paths as a reader knows them: the build folder's files by name, the assignment's files from
        // the folder that holds the cases (`cases/<id>/driver.c`), not this machine's.
        let prefix = format!("{}/", placeholders.build.display());
        let cases_parent = placeholders.assignment.parent().and_then(Path::parent);
        let cases_prefix = cases_parent.map(|p| format!("{}/", p.display()));
        for stream in [&outcome.stdout, &outcome.stderr] {
            let mut text = String::from_utf8_lossy(stream).replace(&prefix, "");
            if let Some(cases_prefix) = &cases_prefix {
                text = text.replace(cases_prefix.as_str(), "");
            }
            log.push_str(&text);
        }
        if outcome.memory_exhausted {
            log.push_str(&format!(
                "`{}` ran out of memory (the limit is {} MiB)\n",
                command[0],
                recipe.limits.memory_bytes >> 20
            ));
        }
        let ended = match outcome.termination {
            Termination::Exited(_) if !outcome.memory_exhausted => BuildEnd::Exited,
            _ => BuildEnd::Stopped,
        };
        let failure = match outcome.termination {
            Termination::Exited(0) => None,
            Termination::Exited(code) => Some(format!("`{}` exited with status {code}", command[0])),
            Termination::Signaled { name, .. } => Some(format!("`{}` was killed by {name}", command[0])),
            Termination::Killed { limit } => {
                Some(format!("`{}` was stopped at the {limit} limit", command[0]))
            }
        };
        if let Some(failure) = failure {
            log.push_str(&failure);
            log.push('\n');
            return Ok((false, truncate(log), ended));
        }
    }
    Ok((true, truncate(log), BuildEnd::Exited))
}

fn truncate(mut log: String) -> String {
    if log.len() > MAX_LOG_BYTES {
        let mut end = MAX_LOG_BYTES;
        while !log.is_char_boundary(end) {
            end -= 1;
        }
        log.truncate(end);
        log.push_str("\n... (compiler output cut)\n");
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(submission: &Submission) -> Vec<&str> {
        submission.files.iter().map(|f| f.name.as_str()).collect()
    }

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, file).unwrap();
        }
        dir
    }

    fn patterns(texts: &[&str]) -> Vec<glob::Pattern> {
        texts.iter().map(|t| glob::Pattern::new(t).unwrap()).collect()
    }

    #[test]
    fn plain_patterns_take_the_top_level_only() {
        let dir = tree(&["main.c", "board.h", "old/main.c", "notes.txt"]);
        let submission = Submission::collect(dir.path(), &patterns(&["*.c", "*.h"])).unwrap();
        assert_eq!(names(&submission), ["board.h", "main.c"]);
    }

    #[test]
    fn nested_patterns_take_the_tree_with_folders_in_names_and_skip_hidden_folders() {
        let dir = tree(&[
            "src/main/java/edu/game/Board.java",
            "src/main/java/edu/game/Main.java",
            "Tool.java",
            ".git/hooks/Hook.java",
            "team.jar",
            "README.md",
        ]);
        let submission = Submission::collect(dir.path(), &patterns(&["**/*.java", "**/*.jar"])).unwrap();
        assert_eq!(
            names(&submission),
            [
                "Tool.java",
                "src/main/java/edu/game/Board.java",
                "src/main/java/edu/game/Main.java",
                "team.jar"
            ]
        );
    }

    #[test]
    fn a_tree_of_thousands_of_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..=ArchiveCaps::default().entries {
            std::fs::write(dir.path().join(format!("f{i}.java")), "").unwrap();
        }
        let err = Submission::collect(dir.path(), &patterns(&["**/*.java"])).unwrap_err();
        assert!(matches!(err, BuildError::OverCap { .. }), "{err:?}");
        assert!(crate::run::error_chain(&err).contains("more than 2000 files"), "{err:?}");
    }

    #[test]
    fn a_submission_file_over_the_cap_is_a_build_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.c"), "int main(void) { return 0; }").unwrap();
        // Sparse: 3 GiB long, no block on disk; only what is read of it costs.
        let big = dir.path().join("board.c");
        std::fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
        for given in [dir.path(), big.as_path()] {
            let err = Submission::collect(given, &patterns(&["*.c"])).unwrap_err();
            let text = crate::run::error_chain(&err);
            assert!(matches!(err, BuildError::OverCap { .. }), "{text}");
            assert!(
                text.contains("board.c is larger than 8 MiB, the cap on one file of a submission"),
                "{text}"
            );
        }
    }

    #[test]
    fn files_over_the_cap_together_are_a_build_error_naming_the_one_that_went_over() {
        let dir = tree(&[]);
        for name in ["a.c", "b.c", "c.c"] {
            std::fs::write(dir.path().join(name), [b' '; 100]).unwrap();
        }
        let caps = ArchiveCaps { entries: 10, file_bytes: 100, total_bytes: 250 };
        let err = Submission::collect_within(dir.path(), &patterns(&["*.c"]), caps).unwrap_err();
        let text = crate::run::error_chain(&err);
        assert!(text.contains("with c.c the files are larger than 250 bytes"), "{text}");
        let caps = ArchiveCaps { total_bytes: 300, ..caps };
        let submission = Submission::collect_within(dir.path(), &patterns(&["*.c"]), caps).unwrap();
        assert_eq!(names(&submission), ["a.c", "b.c", "c.c"], "exactly at the caps is within them");
    }
}
