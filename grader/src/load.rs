//! Load stage: reads `cases/<id>/assignment.toml` and the case files into validated types.
//!
//! File structs (`*File`) mirror the TOML exactly and reject unknown keys; they are converted into the
//! validated types the other stages use. Every problem is a [`LoadError`] naming the file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::compare::{CompareSpec, LenientRewrite, LinePattern, Normalization, Partial};
use crate::run::Limits;

mod case;
mod course;
mod files;
pub mod package;
mod settings;
mod source;

use case::*;
use files::*;
use settings::*;
use source::*;

/// How a case exercises a submission; decides which expansion of the reference its scenario gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseKind {
    /// The whole program, fed a stdin, compared with the console's transcript.
    Transcript,
    /// One function at a time through the assignment's C driver, compared with the Rust driver.
    Unit,
    /// A match of games the reference's referee plays with the program, line by line.
    Interactive,
}

impl CaseKind {
    /// Expands a case's `[scenario]` table with the reference solution.
    pub fn expand(
        self,
        solution: &dyn reference::Solution,
        scenario: &toml::Table,
    ) -> Result<reference::Expansion, reference::ScenarioError> {
        match self {
            CaseKind::Transcript => solution.expand_transcript(scenario),
            CaseKind::Unit => solution.expand_unit(scenario),
            CaseKind::Interactive => {
                Err(reference::ScenarioError::new("an interactive case is played, not expanded"))
            }
        }
    }
}

/// The file every assignment folder has.
pub const ASSIGNMENT_FILE: &str = "assignment.toml";

/// Why an assignment or its cases could not be loaded: always names the file, and the line when known.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file is malformed or holds a bad value.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the offending key or value, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// No assignment folder with this id.
    #[error("no assignment `{id}` under {} (known: {known})", root.display())]
    UnknownAssignment {
        /// The id asked for.
        id: String,
        /// The cases root searched.
        root: PathBuf,
        /// The ids that exist, comma-separated.
        known: String,
    },
}

/// Whether students see a case when they self-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    /// Shown to students and run by `grader check`.
    Visible,
    /// Only run when an instructor grades.
    Hidden,
}

/// How much of a visible case's failure students are shown (hidden cases: always only the verdict).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Disclosure {
    /// The first difference with the expected line, the input so far and a diff.
    #[default]
    Diff,
    /// The program's own output at the first difference, never the expected line: for cases whose
    /// answer students should work out, not copy.
    Output,
    /// Passed or not, and the points.
    Verdict,
}

/// How to build one kind of executable from a submission and how to run it.
#[derive(Debug, Clone)]
pub struct BuildRecipe {
    /// The recipe's name (`program`, `driver`, ...).
    pub name: String,
    /// Commands run in order; placeholders `{build}`, `{out}`, `{assignment}`, `{common}`, `{glob:PATTERN}`.
    pub commands: Vec<Vec<String>>,
    /// The command line that runs what was built; same placeholders.
    pub run: Vec<String>,
    /// Environment variables of every run (`LD_PRELOAD = "{build}/seed.so"`); same placeholders.
    pub env: BTreeMap<String, String>,
    /// Limits of each compiler command ([`Limits::compiler`] unless the recipe sets `limits`).
    pub limits: Limits,
    /// Programs the recipe needs on PATH besides its commands' own (`javac` inside a build script):
    /// a missing one is the grading machine's problem, said before anything is built, never a
    /// build error of the student's.
    pub requires: Vec<String>,
    /// Built as a judge builds this language (`language = "python3"` in `assignment.toml`, or any
    /// language by its file endings for a problem package): `commands`, `run` and `requires` are
    /// then planned for each submission's files (see [`crate::languages`]).
    pub language: Option<crate::languages::LanguageRecipe>,
}

/// A run made once per grading to learn something about the submission and show it in the report,
/// worth no points: how the Turkish draughts driver reads the student's conventions.
#[derive(Debug, Clone)]
pub struct Probe {
    /// What the probe finds, in words: the heading of its lines in reports.
    pub title: String,
    /// The build recipe whose executable runs it.
    pub build: String,
    /// Standard input of the run, one line each.
    pub stdin: Vec<String>,
    /// The assignment's limits.
    pub limits: Limits,
}

/// A rubric category.
#[derive(Debug, Clone)]
pub struct Category {
    /// Short id used in case files and reports.
    pub id: String,
    /// What the category grades, in words.
    pub title: String,
    /// Points the category is worth.
    pub points: f64,
    /// Graded by hand: reported as pending, never run.
    pub manual: bool,
    /// An optional part (extra credit): its points add to a score but not to the maximum.
    pub bonus: bool,
    /// All or nothing: its points only when every case of it passes (a problem package's test
    /// group with `pass-fail` or `min` aggregation); else each case earns its share.
    pub all_or_nothing: bool,
}

/// One validated case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Path of the case file relative to the assignment folder, without `.toml`.
    pub id: String,
    /// What the case checks, in words.
    pub title: String,
    /// The case file.
    pub path: PathBuf,
    /// Category id.
    pub category: String,
    /// Share of its category, relative to the other cases' weights.
    pub weight: f64,
    /// Shown to students or not.
    pub visibility: Visibility,
    /// How much of a failure students see (`disclosure` in the case file).
    pub disclosure: Disclosure,
    /// A hidden case withheld from a student pack (`withheld = true`): it only holds the place and
    /// the weight of a case of the real grading, and is never run.
    pub withheld: bool,
    /// Whole program or one function through the driver.
    pub kind: CaseKind,
    /// Name of the build recipe whose executable runs this case.
    pub build: String,
    /// How output is compared.
    pub compare: CompareSpec,
    /// Limits of this case's run.
    pub limits: Limits,
    /// The `[scenario]` table, expanded by the reference into the sidecars.
    pub scenario: Option<toml::Table>,
    /// 1-based line of `[scenario]` in the case file, for error messages.
    pub scenario_line: Option<usize>,
    /// Environment variables the program runs with.
    pub env: BTreeMap<String, String>,
    /// For an interactive case: the referee built from its scenario.
    pub referee: Option<Referee>,
    /// Its input and expected transcript, read once (see [`Case::sidecars`]).
    pub sidecars: SidecarsOnce,
    /// For a test case of a problem package: its files and what the package says of it.
    pub package: Option<PackageCase>,
    /// A generator command of the assignment's `generators/` whose output is the case's input
    /// (`{seed}` hashed from the command, as BAPCtools does); `grader bless` writes it.
    pub generate: Option<String>,
    /// Arguments the program gets after its own command line (`args` of the case file, or of a
    /// package's `<case>.yaml`).
    pub args: Vec<String>,
}

/// A test case of a problem package: `<name>.in` and `<name>.ans`, not our sidecars.
#[derive(Debug, Clone)]
pub struct PackageCase {
    /// The input, piped to the program.
    pub input: PathBuf,
    /// The judge's answer, given to the output validator.
    pub answer: PathBuf,
    /// The problem's time limit, held to exactly (the kernel's CPU limit counts whole seconds).
    pub time_limit: Duration,
    /// Arguments of the output validator for this case (its group's, after the problem's).
    pub validator_args: Vec<String>,
    /// The case's score in the package's units, which a validator's `score.txt` is a share of.
    pub score_scale: f64,
    /// The answer file may be missing (an interactive problem's interactor may need none).
    pub answer_optional: bool,
}

/// The referee of an interactive case, shared by the threads that grade it.
#[derive(Clone)]
pub struct Referee(pub std::sync::Arc<dyn reference::referee::Match>);

impl std::fmt::Debug for Referee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Referee({} games)", self.0.games())
    }
}

impl Case {
    /// The case's input and expected transcript, read on first need and kept while the assignment
    /// is loaded: a class's gradings read them once, not once per student.
    ///
    /// # Errors
    ///
    /// A missing transcript (`grader bless` makes it) or a sidecar that cannot be read; an error is
    /// not kept, so a later call reads again.
    pub fn sidecars(&self) -> Result<std::sync::Arc<Sidecars>, LoadError> {
        if let Some(sidecars) = self.sidecars.0.get() {
            return Ok(sidecars.clone());
        }
        let read = std::sync::Arc::new(Sidecars::read(self)?);
        Ok(self.sidecars.0.get_or_init(|| read).clone())
    }

    /// The `.stdin` sidecar beside the case file (a package's `.in`).
    pub fn stdin_path(&self) -> PathBuf {
        match &self.package {
            Some(package) => package.input.clone(),
            None => self.path.with_extension("stdin"),
        }
    }

    /// The `.stdout` sidecar (the expected transcript) beside the case file (a package's `.ans`).
    pub fn stdout_path(&self) -> PathBuf {
        match &self.package {
            Some(package) => package.answer.clone(),
            None => self.path.with_extension("stdout"),
        }
    }

    /// The `.env` sidecar (`KEY=VALUE` lines) beside the case file, present when a scenario sets any.
    pub fn env_path(&self) -> PathBuf {
        self.path.with_extension("env")
    }
}

/// A case's sidecar files as read: its input and its expected transcript (an interactive case,
/// which a referee plays, has neither).
#[derive(Debug, Default)]
pub struct Sidecars {
    /// The `.stdin` sidecar's bytes (none when there is no such file).
    pub stdin: Vec<u8>,
    /// Whether the `.stdin` sidecar is a file.
    pub stdin_is_file: bool,
    /// The expected transcript.
    pub stdout: Vec<u8>,
    /// What the grade stage learns once from the reference's replay of the input (see
    /// `context::replay_reads`), kept with the files it was learnt from.
    pub replay: std::sync::OnceLock<Option<Vec<usize>>>,
}

impl Sidecars {
    fn read(case: &Case) -> Result<Sidecars, LoadError> {
        if case.referee.is_some() {
            return Ok(Sidecars::default());
        }
        let stdout_path = case.stdout_path();
        // An interactive case's answer is the interactor's to read, and it may need none.
        let optional = case.package.as_ref().is_some_and(|p| p.answer_optional);
        let stdout = std::fs::read(&stdout_path).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound if optional => Ok(Vec::new()),
            _ => Err(e),
        });
        let stdout = stdout.map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => LoadError::Invalid {
                path: case.path.clone(),
                line: None,
                message: format!(
                    "the expected transcript {} is missing: run `grader bless`",
                    stdout_path.display()
                ),
            },
            _ => LoadError::Io { path: stdout_path.clone(), source },
        })?;
        let stdin_path = case.stdin_path();
        let (stdin, stdin_is_file) = match std::fs::read(&stdin_path) {
            Ok(bytes) => (bytes, true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), false),
            Err(source) => return Err(LoadError::Io { path: stdin_path, source }),
        };
        Ok(Sidecars { stdin, stdin_is_file, stdout, replay: std::sync::OnceLock::new() })
    }
}

/// A case's [`Sidecars`] once read; its clones share them (the same files).
#[derive(Clone, Default)]
pub struct SidecarsOnce(std::sync::Arc<std::sync::OnceLock<std::sync::Arc<Sidecars>>>);

impl fmt::Debug for SidecarsOnce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() { "SidecarsOnce(read)" } else { "SidecarsOnce(unread)" })
    }
}

/// A loaded assignment: recipes, rubric and cases.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// Id, the folder name under the cases root.
    pub id: String,
    /// Title for reports.
    pub title: String,
    /// File name of the handout the assignment comes from, for people.
    pub handout: Option<String>,
    /// The assignment folder.
    pub dir: PathBuf,
    /// Patterns of the files taken from a submission folder.
    pub submission_files: Vec<glob::Pattern>,
    /// Build recipes by name.
    pub builds: BTreeMap<String, BuildRecipe>,
    /// Whether programs end by themselves at end of input (false: a kill after the full transcript is fine).
    pub stops_at_end_of_input: bool,
    /// Run once per grading for the report, if the assignment has one.
    pub probe: Option<Probe>,
    /// Rubric categories in rubric order.
    pub categories: Vec<Category>,
    /// Cases sorted by id.
    pub cases: Vec<Case>,
    /// `[late] penalty`: the percentage of a late submission's points taken off in a class's
    /// gradebook (`grader batch`), where the download marks it late.
    pub late_penalty: Option<f64>,
    /// `[similarity] base`: the base code the assignment hands out (a template, the handout's code),
    /// read when the assignment is loaded, named relative to its folder. `grader similarity` takes
    /// none of it as evidence.
    pub similarity_base: SimilarityBase,
    /// `[similarity] look-at`: the assignment's own "look at this" line, where it has one (see
    /// [`crate::similarity::Settings::look_at`]).
    pub similarity_look_at: Option<f64>,
    /// What loading found doubtful but not wrong (an unknown key of `problem.yaml`), for the
    /// command line to show.
    pub warnings: Vec<String>,
    /// For a problem package: what it is beyond the rubric.
    pub package: Option<package::PackageInfo>,
    /// The program (a file or a folder, in any language the grader builds) whose output on a
    /// case's input is its expected output, for `grader bless`: `[reference] program` of an
    /// `assignment.toml`, or a package's solution (`generators.yaml`'s, else its first accepted
    /// submission).
    pub reference: Option<PathBuf>,
}

/// `[similarity] base` as loaded: the files, or the first that could not be read. Only comparing
/// submissions needs them, so a missing one does not keep the assignment from grading (a test or a
/// tool may copy `assignment.toml` alone); [`SimilarityBase::files`] is the error then.
#[derive(Debug, Clone, Default)]
pub struct SimilarityBase {
    files: Vec<crate::build::SourceFile>,
    /// Why a base file could not be read: `assignment.toml`, the line of its name, the message.
    unreadable: Option<(PathBuf, usize, String)>,
}

impl SimilarityBase {
    /// Base files already read (tests, tools that build an assignment by hand).
    pub fn new(files: Vec<crate::build::SourceFile>) -> Self {
        SimilarityBase { files, unreadable: None }
    }

    /// Adds base files the instructor names on the command line (`--base`): a course's own handout
    /// code when it is not the one `assignment.toml` names.
    pub fn add(&mut self, files: Vec<crate::build::SourceFile>) {
        self.files.extend(files);
    }

    /// The base files, or the error naming `assignment.toml` and the line of the one that could not
    /// be read.
    pub fn files(&self) -> Result<&[crate::build::SourceFile], LoadError> {
        match &self.unreadable {
            None => Ok(&self.files),
            Some((path, line, message)) => {
                Err(LoadError::Invalid { path: path.clone(), line: Some(*line), message: message.clone() })
            }
        }
    }
}

impl Assignment {
    /// Writes what loading found doubtful (see [`Assignment::warnings`]), one `warning:` line each.
    pub fn write_warnings(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for warning in &self.warnings {
            writeln!(out, "warning: {warning}")?;
        }
        Ok(())
    }

    /// Sets a problem package's time limit (one inferred from its accepted submissions): every
    /// case's CPU limit and its wall limit with it.
    pub fn set_time_limit(&mut self, time_limit: Duration, source: &str) {
        let Some(package) = &mut self.package else { return };
        package.time_limit = time_limit;
        package.time_limit_source = source.to_owned();
        for case in &mut self.cases {
            if let Some(p) = &mut case.package {
                p.time_limit = time_limit;
                case.limits.cpu = time_limit;
                case.limits.wall = package::wall_limit(time_limit);
            }
        }
    }

    /// The category with this id.
    pub fn category(&self, id: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.id == id)
    }
}

/// The heap a JVM may take under a run's memory limit of `memory_mb`: three quarters, the rest for
/// the JVM itself (its code, threads and collector).
pub fn heap_mb(memory_mb: u64) -> u64 {
    (memory_mb * 3 / 4).max(16)
}

/// Whether a folder is an assignment: it holds an `assignment.toml` or a `problem.yaml`.
pub fn is_assignment_folder(dir: &Path) -> bool {
    dir.join(ASSIGNMENT_FILE).is_file() || dir.join(package::PROBLEM_FILE).is_file()
}

/// Loads the assignment a command names: an id under the cases root, or a path to a folder that
/// holds an `assignment.toml` or a problem package's `problem.yaml` (anywhere: `./connect4`,
/// `~/course/hello`). A name with a `/`, or an assignment folder here, is a path; else an id.
pub fn load(root: &Path, name: &str) -> Result<Assignment, LoadError> {
    let path = Path::new(name);
    // A folder here that is an assignment is the one meant, before an id under the cases folder.
    if name.contains('/') || is_assignment_folder(path) {
        return load_folder(path);
    }
    if !is_assignment_folder(&root.join(name)) && path.is_dir() {
        return load_folder(path);
    }
    load_assignment(root, name)
}

/// Loads the assignment in a folder: a problem package when it holds `problem.yaml` (with the
/// course's `assignment.toml` beside it, if any), else its `assignment.toml`.
pub fn load_folder(dir: &Path) -> Result<Assignment, LoadError> {
    if dir.join(package::PROBLEM_FILE).is_file() {
        return package::load_package(dir);
    }
    if dir.join(ASSIGNMENT_FILE).is_file() {
        let dir = dir.canonicalize().map_err(|source| LoadError::Io { path: dir.to_owned(), source })?;
        let (Some(root), Some(id)) = (dir.parent(), dir.file_name()) else {
            return Err(LoadError::Invalid {
                path: dir.clone(),
                line: None,
                message: "an assignment folder cannot be the root of the file system".to_owned(),
            });
        };
        return load_assignment(root, &id.to_string_lossy());
    }
    Err(LoadError::Invalid {
        path: dir.to_owned(),
        line: None,
        message: if dir.is_dir() {
            format!(
                "the folder holds neither {ASSIGNMENT_FILE} nor {} (an assignment or a problem package)",
                package::PROBLEM_FILE
            )
        } else {
            "no such folder (an assignment is an id under the cases folder, or the path of its folder)"
                .to_owned()
        },
    })
}

/// Ids of the assignments under a cases root (folders holding an `assignment.toml` or a problem
/// package's `problem.yaml`), sorted.
pub fn assignment_ids(root: &Path) -> Result<Vec<String>, LoadError> {
    let entries =
        std::fs::read_dir(root).map_err(|source| LoadError::Io { path: root.to_owned(), source })?;
    let mut ids: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| is_assignment_folder(&e.path()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    ids.sort();
    Ok(ids)
}

/// Loads and validates the assignment `id` under the cases root, with all its cases.
pub fn load_assignment(root: &Path, id: &str) -> Result<Assignment, LoadError> {
    let dir = root.join(id);
    let path = dir.join(ASSIGNMENT_FILE);
    if dir.join(package::PROBLEM_FILE).is_file() {
        return package::load_package(&dir);
    }
    if !path.is_file() {
        let known = assignment_ids(root).unwrap_or_default().join(", ");
        return Err(LoadError::UnknownAssignment { id: id.to_owned(), root: root.to_owned(), known });
    }
    let dir = dir.canonicalize().map_err(|source| LoadError::Io { path: dir.clone(), source })?;
    let text = read(&path)?;
    let source = Source { path: &path, text: &text };
    let file: AssignmentFile = source.parse()?;
    if file.id.get_ref() != id {
        return Err(source.error_at(
            file.id.span(),
            format!("id `{}` differs from the folder name `{id}`", file.id.get_ref()),
        ));
    }

    let mut submission_files = Vec::new();
    for pattern in &file.submission.files {
        let parsed = glob::Pattern::new(pattern.get_ref())
            .map_err(|e| source.error_at(pattern.span(), format!("bad file pattern: {e}")))?;
        submission_files.push(parsed);
    }

    let mut builds: BTreeMap<String, BuildRecipe> = BTreeMap::new();
    let assignment_memory =
        file.limits.memory_mb.as_ref().map_or(Limits::default().memory_bytes >> 20, |m| *m.get_ref());
    for (name, b) in file.builds {
        let mut compiler = Limits::compiler();
        let language = match &b.language {
            None => None,
            Some(code) => {
                let choice = match code.get_ref().as_str() {
                    "any" => crate::languages::Choice::ByExtension,
                    other => crate::languages::Choice::Only(
                        crate::languages::Language::from_code(other).ok_or_else(|| {
                            let known: Vec<&str> =
                                crate::languages::Language::ALL.iter().map(|l| l.code()).collect();
                            source.error_at(
                                code.span(),
                                format!("unknown language `{other}` (known: {}, or `any`)", known.join(", ")),
                            )
                        })?,
                    ),
                };
                if !b.commands.is_empty() || !b.run.is_empty() {
                    return Err(source.error_at(
                        code.span(),
                        format!("build `{name}` names a language and commands: give one or the other"),
                    ));
                }
                // A JVM's or Node's threads, and their reservations of address space.
                compiler.processes = 256;
                compiler.address_space_limit = false;
                Some(crate::languages::LanguageRecipe { choice, heap_mb: heap_mb(assignment_memory) })
            }
        };
        let limits = limits_from(&source, &LimitsFile::default(), &b.limits, &compiler)?;
        let recipe = BuildRecipe {
            language,
            name: name.clone(),
            commands: b.commands,
            run: b.run,
            env: b.env,
            limits,
            requires: b.requires,
        };
        builds.insert(name, recipe);
    }
    for recipe in builds.values().filter(|r| r.language.is_none()) {
        if recipe.run.is_empty() || recipe.commands.is_empty() || recipe.commands.iter().any(Vec::is_empty) {
            return Err(LoadError::Invalid {
                path: path.clone(),
                line: None,
                message: format!("build `{}` has an empty command", recipe.name),
            });
        }
    }

    // Validated here so that a bad assignment-wide limit is reported against assignment.toml.
    let assignment_limits = limits_from(&source, &LimitsFile::default(), &file.limits, &Limits::default())?;
    let default_compare = compare_from(&source, &file.compare, CompareSpec::default())?;

    let mut categories = Vec::new();
    let mut category_defaults = BTreeMap::new();
    for c in &file.categories {
        let cid = c.id.get_ref().clone();
        if categories.iter().any(|k: &Category| k.id == cid) {
            return Err(source.error_at(c.id.span(), format!("category `{cid}` is defined twice")));
        }
        if !(c.points.get_ref().is_finite() && *c.points.get_ref() >= 0.0) {
            return Err(source.error_at(c.points.span(), "points must be a number >= 0"));
        }
        let bonus = c.bonus.as_ref().filter(|b| *b.get_ref());
        // Pending points and the hand-grades file know nothing of extra credit: a bonus is automated.
        if let (Some(b), true) = (bonus, c.manual) {
            return Err(source.error_at(
                b.span(),
                format!("category `{cid}` is graded by hand and cannot be a bonus (`bonus` needs cases)"),
            ));
        }
        let build = match &c.build {
            Some(b) if !builds.contains_key(b.get_ref()) => {
                return Err(source.error_at(b.span(), format!("no build recipe named `{}`", b.get_ref())))
            }
            Some(b) => b.get_ref().clone(),
            None => "program".to_owned(),
        };
        let compare = compare_from(&source, &c.compare, default_compare.clone())?;
        let kind = c.kind.unwrap_or(CaseKind::Transcript);
        category_defaults.insert(cid.clone(), (build, kind, compare));
        categories.push(Category {
            id: cid,
            title: c.title.clone(),
            points: *c.points.get_ref(),
            manual: c.manual,
            bonus: bonus.is_some(),
            all_or_nothing: false,
        });
    }

    let probe = match file.probe {
        Some(p) if !builds.contains_key(p.build.get_ref()) => {
            return Err(
                source.error_at(p.build.span(), format!("no build recipe named `{}`", p.build.get_ref()))
            )
        }
        Some(p) => Some(Probe {
            title: p.title,
            build: p.build.into_inner(),
            stdin: p.stdin,
            limits: assignment_limits,
        }),
        None => None,
    };

    let late_penalty = match &file.late {
        Some(late) => {
            let percent = *late.penalty.get_ref();
            if !(percent > 0.0 && percent <= 100.0) {
                return Err(source.error_at(
                    late.penalty.span(),
                    format!("late penalty `{percent}` is not a percentage above 0 and at most 100"),
                ));
            }
            Some(percent)
        }
        None => None,
    };

    let reference = match &file.reference {
        Some(reference) => {
            let relative = Path::new(reference.program.get_ref());
            let inside = relative.components().all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside || !dir.join(relative).exists() {
                return Err(source.error_at(
                    reference.program.span(),
                    format!(
                        "no reference program `{}` in the assignment's folder (a file or folder inside it)",
                        reference.program.get_ref()
                    ),
                ));
            }
            Some(dir.join(relative))
        }
        None => None,
    };
    let similarity_base = match &file.similarity {
        Some(similarity) => similarity_base(&source, &dir, &similarity.base)?,
        None => SimilarityBase::default(),
    };
    let similarity_look_at =
        similarity_line(&source, file.similarity.as_ref().and_then(|s| s.look_at.as_ref()))?;

    let mut assignment = Assignment {
        id: id.to_owned(),
        title: file.title,
        handout: file.handout,
        dir: dir.clone(),
        submission_files,
        builds,
        stops_at_end_of_input: file.run.stops_at_end_of_input,
        probe,
        categories,
        cases: Vec::new(),
        late_penalty,
        similarity_base,
        similarity_look_at,
        warnings: Vec::new(),
        package: None,
        reference,
    };

    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.map_err(|e| LoadError::Invalid {
            path: e.path().map(Path::to_owned).unwrap_or_else(|| dir.clone()),
            line: None,
            message: e.to_string(),
        })?;
        let p = entry.path();
        if !entry.file_type().is_file()
            || p.extension().is_none_or(|e| e != "toml")
            || p == dir.join(ASSIGNMENT_FILE)
        {
            continue;
        }
        let case = load_case(&assignment, &category_defaults, &file.limits, p)?;
        assignment.cases.push(case);
    }
    Ok(assignment)
}
