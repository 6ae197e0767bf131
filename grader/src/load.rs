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
    /// The `.stdin` sidecar beside the case file.
    pub fn stdin_path(&self) -> PathBuf {
        self.path.with_extension("stdin")
    }

    /// The `.stdout` sidecar (the expected transcript) beside the case file.
    pub fn stdout_path(&self) -> PathBuf {
        self.path.with_extension("stdout")
    }

    /// The `.env` sidecar (`KEY=VALUE` lines) beside the case file, present when a scenario sets any.
    pub fn env_path(&self) -> PathBuf {
        self.path.with_extension("env")
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
    /// The category with this id.
    pub fn category(&self, id: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.id == id)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct AssignmentFile {
    id: Spanned<String>,
    title: String,
    #[serde(default)]
    handout: Option<String>,
    submission: SubmissionFile,
    builds: BTreeMap<String, BuildFile>,
    #[serde(default)]
    run: RunFile,
    limits: LimitsFile,
    #[serde(default)]
    compare: CompareFile,
    #[serde(default)]
    probe: Option<ProbeFile>,
    categories: Vec<CategoryFile>,
    #[serde(default)]
    late: Option<LateFile>,
    #[serde(default)]
    similarity: Option<SimilarityFile>,
}

/// `[similarity]`: what `grader similarity` must know of the assignment.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SimilarityFile {
    /// The base files, relative to the assignment's folder.
    base: Vec<Spanned<String>>,
}

/// `[late]`: what a submission marked late by the class download costs.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LateFile {
    /// Percent of the points earned, more than 0 and at most 100.
    penalty: Spanned<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ProbeFile {
    title: String,
    build: Spanned<String>,
    stdin: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SubmissionFile {
    files: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct BuildFile {
    commands: Vec<Vec<String>>,
    run: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    limits: LimitsFile,
    #[serde(default)]
    requires: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RunFile {
    #[serde(default = "yes")]
    stops_at_end_of_input: bool,
}

impl Default for RunFile {
    fn default() -> Self {
        Self { stops_at_end_of_input: true }
    }
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LimitsFile {
    wall_seconds: Option<Spanned<f64>>,
    cpu_seconds: Option<Spanned<f64>>,
    memory_mb: Option<Spanned<u64>>,
    output_kb: Option<Spanned<u64>>,
    processes: Option<Spanned<u64>>,
    file_size_kb: Option<Spanned<u64>>,
    disk_mb: Option<Spanned<u64>>,
    open_files: Option<Spanned<u64>>,
    address_space_limit: Option<bool>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CompareFile {
    normalize: Option<Vec<Normalization>>,
    loose_lines: Option<Spanned<String>>,
    unordered: Option<Spanned<String>>,
    ignore_lines: Option<Spanned<String>>,
    rewrite: Option<Vec<(Spanned<String>, String)>>,
    partial: Option<Partial>,
    hunk_cost: Option<Spanned<f64>>,
    lenient: Option<BTreeMap<Normalization, Spanned<f64>>>,
    lenient_rewrite: Option<Spanned<LenientRewriteFile>>,
}

/// `lenient-rewrite = { credit = 0.6, what = "...", rules = [["REGEX", "REPLACEMENT"], ...] }`: the
/// costly counterpart of `rewrite`, one more rung of the lenient ladder.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LenientRewriteFile {
    credit: Spanned<f64>,
    what: Spanned<String>,
    rules: Vec<(Spanned<String>, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CategoryFile {
    id: Spanned<String>,
    title: String,
    points: Spanned<f64>,
    #[serde(default)]
    manual: bool,
    #[serde(default)]
    bonus: Option<Spanned<bool>>,
    #[serde(default)]
    build: Option<Spanned<String>>,
    #[serde(default)]
    kind: Option<CaseKind>,
    #[serde(default)]
    compare: CompareFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CaseFile {
    title: String,
    #[serde(default)]
    category: Option<Spanned<String>>,
    #[serde(default)]
    weight: Option<Spanned<f64>>,
    #[serde(default)]
    visibility: Option<Visibility>,
    #[serde(default)]
    disclosure: Option<Disclosure>,
    #[serde(default)]
    withheld: Option<Spanned<bool>>,
    #[serde(default)]
    kind: Option<CaseKind>,
    #[serde(default)]
    build: Option<Spanned<String>>,
    #[serde(default)]
    compare: CompareFile,
    #[serde(default)]
    limits: LimitsFile,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    scenario: Option<Spanned<toml::Table>>,
}

/// Source text of one file, for turning byte spans into line numbers.
struct Source<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Source<'_> {
    fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }

    fn error_at(&self, span: std::ops::Range<usize>, message: impl fmt::Display) -> LoadError {
        LoadError::Invalid {
            path: self.path.to_owned(),
            line: Some(self.line_of(span.start)),
            message: message.to_string(),
        }
    }

    fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, LoadError> {
        toml::from_str(self.text).map_err(|e| LoadError::Invalid {
            path: self.path.to_owned(),
            line: e.span().map(|s| self.line_of(s.start)),
            message: e.message().trim().to_owned(),
        })
    }
}

fn read(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|source| LoadError::Io { path: path.to_owned(), source })
}

/// Ids of the assignments under a cases root (folders holding an `assignment.toml`), sorted.
pub fn assignment_ids(root: &Path) -> Result<Vec<String>, LoadError> {
    let entries =
        std::fs::read_dir(root).map_err(|source| LoadError::Io { path: root.to_owned(), source })?;
    let mut ids: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join(ASSIGNMENT_FILE).is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    ids.sort();
    Ok(ids)
}

/// Loads and validates the assignment `id` under the cases root, with all its cases.
pub fn load_assignment(root: &Path, id: &str) -> Result<Assignment, LoadError> {
    let dir = root.join(id);
    let path = dir.join(ASSIGNMENT_FILE);
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
    for (name, b) in file.builds {
        let limits = limits_from(&source, &LimitsFile::default(), &b.limits, &Limits::compiler())?;
        let recipe = BuildRecipe {
            name: name.clone(),
            commands: b.commands,
            run: b.run,
            env: b.env,
            limits,
            requires: b.requires,
        };
        builds.insert(name, recipe);
    }
    for recipe in builds.values() {
        if recipe.run.is_empty() || recipe.commands.iter().any(Vec::is_empty) {
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

    let similarity_base = match &file.similarity {
        Some(similarity) => similarity_base(&source, &dir, &similarity.base)?,
        None => SimilarityBase::default(),
    };

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

/// The base files `[similarity] base` names, read: each a C or Java file inside the assignment's
/// folder (or it is an error now); one that cannot be read is an error only for what needs it.
fn similarity_base(
    source: &Source,
    dir: &Path,
    names: &[Spanned<String>],
) -> Result<SimilarityBase, LoadError> {
    let mut files = Vec::new();
    let mut unreadable = None;
    for name in names {
        let text = name.get_ref();
        let relative = Path::new(text);
        let inside =
            !text.is_empty() && relative.components().all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(source.error_at(
                name.span(),
                format!("base file `{text}` must be a path inside the assignment's folder (no `..`, not absolute)"),
            ));
        }
        if crate::similarity::tokens::Language::of(text).is_none() {
            return Err(source.error_at(
                name.span(),
                format!(
                    "base file `{text}` is not C or Java source (.c, .h, .java): similarity reads only those"
                ),
            ));
        }
        match std::fs::read(dir.join(relative)) {
            Ok(content) => files.push(crate::build::SourceFile { name: text.clone(), content }),
            Err(e) => {
                let message = format!("cannot read the base file `{text}` in {}: {e}", dir.display());
                unreadable.get_or_insert((
                    source.path.to_owned(),
                    source.line_of(name.span().start),
                    message,
                ));
            }
        }
    }
    Ok(SimilarityBase { files, unreadable })
}

type CategoryDefaults = BTreeMap<String, (String, CaseKind, CompareSpec)>;

fn load_case(
    assignment: &Assignment,
    defaults: &CategoryDefaults,
    assignment_limits: &LimitsFile,
    path: &Path,
) -> Result<Case, LoadError> {
    let text = read(path)?;
    let source = Source { path, text: &text };
    let file: CaseFile = source.parse()?;
    let rel = path.strip_prefix(&assignment.dir).unwrap_or(path).with_extension("");
    let id = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
    let folder = rel
        .parent()
        .and_then(|p| p.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned());

    let category = match (&file.category, folder) {
        (Some(c), _) => {
            if !defaults.contains_key(c.get_ref()) {
                return Err(source.error_at(c.span(), unknown_category(assignment, c.get_ref())));
            }
            c.get_ref().clone()
        }
        (None, Some(folder)) if defaults.contains_key(&folder) => folder,
        (None, _) => {
            return Err(LoadError::Invalid {
                path: path.to_owned(),
                line: None,
                message: format!(
                    "the case names no `category` and its folder is not one; {}",
                    unknown_category(assignment, "")
                ),
            })
        }
    };
    if assignment.category(&category).is_some_and(|c| c.manual) {
        return Err(LoadError::Invalid {
            path: path.to_owned(),
            line: None,
            message: format!("category `{category}` is graded by hand and cannot have cases"),
        });
    }
    let (default_build, default_kind, default_compare) = defaults[&category].clone();

    let weight = match &file.weight {
        Some(w) if !(w.get_ref().is_finite() && *w.get_ref() > 0.0) => {
            return Err(source.error_at(w.span(), "weight must be a number > 0"))
        }
        Some(w) => *w.get_ref(),
        None => 1.0,
    };
    let build = match &file.build {
        Some(b) if !assignment.builds.contains_key(b.get_ref()) => {
            return Err(source.error_at(b.span(), format!("no build recipe named `{}`", b.get_ref())))
        }
        Some(b) => b.get_ref().clone(),
        None => default_build,
    };
    let limits = limits_from(&source, assignment_limits, &file.limits, &Limits::default())?;
    let compare = compare_from(&source, &file.compare, default_compare)?;
    let (scenario, scenario_line) = match file.scenario {
        Some(s) => {
            let line = source.line_of(s.span().start);
            (Some(s.into_inner()), Some(line))
        }
        None => (None, None),
    };

    let mut case = Case {
        id,
        title: file.title,
        path: path.to_owned(),
        category,
        weight,
        visibility: file.visibility.unwrap_or(Visibility::Visible),
        disclosure: file.disclosure.unwrap_or_default(),
        withheld: file.withheld.as_ref().is_some_and(|w| *w.get_ref()),
        kind: file.kind.unwrap_or(default_kind),
        build,
        compare,
        limits,
        scenario,
        scenario_line,
        env: file.env,
        referee: None,
    };
    if let Some(withheld) = file.withheld.as_ref().filter(|w| *w.get_ref()) {
        if case.visibility != Visibility::Hidden {
            return Err(source.error_at(withheld.span(), "only a hidden case can be withheld"));
        }
        return Ok(case);
    }
    if case.kind == CaseKind::Interactive {
        let invalid =
            |message: String| LoadError::Invalid { path: path.to_owned(), line: case.scenario_line, message };
        let scenario = case
            .scenario
            .as_ref()
            .ok_or_else(|| invalid("an interactive case needs a [scenario] for its referee".to_owned()))?;
        let solution = reference::solution(&assignment.id).ok_or_else(|| {
            invalid(format!("the reference has no assignment `{}` to referee the case", assignment.id))
        })?;
        let referee = solution.interactive(scenario).map_err(|e| invalid(format!("scenario: {e}")))?;
        case.referee = Some(Referee(referee.into()));
        return Ok(case);
    }
    if case.scenario.is_none() && !case.stdout_path().is_file() {
        return Err(LoadError::Invalid {
            path: path.to_owned(),
            line: None,
            message: format!(
                "the case has no [scenario] and no expected transcript {}",
                case.stdout_path().display()
            ),
        });
    }
    let env_path = case.env_path();
    if env_path.is_file() {
        let env_text = read(&env_path)?;
        for (n, line) in env_text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let (key, value) = line.split_once('=').ok_or_else(|| LoadError::Invalid {
                path: env_path.clone(),
                line: Some(n + 1),
                message: "expected KEY=VALUE".to_owned(),
            })?;
            case.env.entry(key.to_owned()).or_insert_with(|| value.to_owned());
        }
    }
    Ok(case)
}

fn unknown_category(assignment: &Assignment, id: &str) -> String {
    let known: Vec<&str> =
        assignment.categories.iter().filter(|c| !c.manual).map(|c| c.id.as_str()).collect();
    format!("unknown category `{id}` (automated categories: {})", known.join(", "))
}

/// Limits of a case (or a build): its own keys over the assignment's, over `defaults`. Every value is
/// checked against a range that the kernel and the grader can represent, so that a typo such as
/// `memory-mb = 17592186044416` is an error at its line instead of a limit that wraps to zero.
fn limits_from(
    source: &Source,
    base: &LimitsFile,
    over: &LimitsFile,
    defaults: &Limits,
) -> Result<Limits, LoadError> {
    let seconds = |v: &Option<Spanned<f64>>, fallback: &Option<Spanned<f64>>, default: Duration| match v
        .as_ref()
        .or(fallback.as_ref())
    {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() > 0.0 && *s.get_ref() <= 86_400.0) => {
            Err(source
                .error_at(s.span(), "a time limit must be a number of seconds above 0 and at most 86400"))
        }
        Some(s) => Ok(Duration::from_secs_f64(*s.get_ref())),
        None => Ok(default),
    };
    // (key, value, smallest, largest, unit in bytes): the largest values fit every unit conversion.
    let amount = |v: &Option<Spanned<u64>>,
                  fallback: &Option<Spanned<u64>>,
                  key: &str,
                  range: std::ops::RangeInclusive<u64>,
                  unit: u64,
                  default: u64|
     -> Result<u64, LoadError> {
        match v.as_ref().or(fallback.as_ref()) {
            Some(s) if !range.contains(s.get_ref()) => Err(source
                .error_at(s.span(), format!("{key} must be between {} and {}", range.start(), range.end()))),
            Some(s) => Ok(s.get_ref() * unit),
            None => Ok(default),
        }
    };
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    Ok(Limits {
        wall: seconds(&over.wall_seconds, &base.wall_seconds, defaults.wall)?,
        cpu: seconds(&over.cpu_seconds, &base.cpu_seconds, defaults.cpu)?,
        memory_bytes: amount(
            &over.memory_mb,
            &base.memory_mb,
            "memory-mb",
            1..=1 << 20,
            MIB,
            defaults.memory_bytes,
        )?,
        output_bytes: amount(
            &over.output_kb,
            &base.output_kb,
            "output-kb",
            1..=1 << 20,
            KIB,
            defaults.output_bytes as u64,
        )? as usize,
        processes: amount(&over.processes, &base.processes, "processes", 1..=1 << 16, 1, defaults.processes)?,
        file_size_bytes: amount(
            &over.file_size_kb,
            &base.file_size_kb,
            "file-size-kb",
            1..=1 << 30,
            KIB,
            defaults.file_size_bytes,
        )?,
        disk_bytes: amount(&over.disk_mb, &base.disk_mb, "disk-mb", 1..=1 << 20, MIB, defaults.disk_bytes)?,
        open_files: amount(
            &over.open_files,
            &base.open_files,
            "open-files",
            8..=1 << 20,
            1,
            defaults.open_files,
        )?,
        address_space_limit: over
            .address_space_limit
            .or(base.address_space_limit)
            .unwrap_or(defaults.address_space_limit),
    })
}

/// A comparison spec: each key given here replaces the one inherited.
fn compare_from(
    source: &Source,
    file: &CompareFile,
    inherited: CompareSpec,
) -> Result<CompareSpec, LoadError> {
    let mut spec = inherited;
    if let Some(n) = &file.normalize {
        spec.normalize = n.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
    }
    if let Some(p) = file.partial {
        spec.partial = p;
    }
    let line_pattern = |pattern: &Spanned<String>, key: &str| {
        regex::Regex::new(pattern.get_ref())
            .map(LinePattern)
            .map_err(|e| source.error_at(pattern.span(), format!("bad {key} pattern: {e}")))
    };
    if let Some(pattern) = &file.loose_lines {
        spec.loose_lines = Some(line_pattern(pattern, "loose-lines")?);
    }
    if let Some(pattern) = &file.unordered {
        spec.unordered = Some(line_pattern(pattern, "unordered")?);
    }
    if let Some(pattern) = &file.ignore_lines {
        spec.ignore_lines = Some(line_pattern(pattern, "ignore-lines")?);
    }
    let rules = |rules: &[(Spanned<String>, String)], key: &str| {
        rules
            .iter()
            .map(|(pattern, replacement)| Ok((line_pattern(pattern, key)?, replacement.clone())))
            .collect::<Result<Vec<_>, LoadError>>()
    };
    if let Some(rewrites) = &file.rewrite {
        spec.rewrite = rules(rewrites, "rewrite")?;
    }
    if let Some(cost) = &file.hunk_cost {
        if !(cost.get_ref().is_finite() && *cost.get_ref() > 0.0 && *cost.get_ref() <= 1.0) {
            return Err(source.error_at(cost.span(), "hunk-cost must be a number above 0 and at most 1"));
        }
        spec.hunk_cost = *cost.get_ref();
    }
    if let Some(lenient) = &file.lenient {
        let mut ladder = Vec::new();
        for (norm, credit) in lenient {
            if !(credit.get_ref().is_finite() && (0.0..=1.0).contains(credit.get_ref())) {
                return Err(source.error_at(credit.span(), "a lenient credit must be between 0 and 1"));
            }
            ladder.push((*norm, *credit.get_ref()));
        }
        spec.lenient = ladder;
    }
    if let Some(rewrite) = &file.lenient_rewrite {
        let (span, rewrite) = (rewrite.span(), rewrite.get_ref());
        let credit = *rewrite.credit.get_ref();
        if !(credit.is_finite() && (0.0..=1.0).contains(&credit)) {
            return Err(
                source.error_at(rewrite.credit.span(), "a lenient-rewrite credit must be between 0 and 1")
            );
        }
        if rewrite.what.get_ref().trim().is_empty() {
            return Err(
                source.error_at(rewrite.what.span(), "lenient-rewrite needs the words reports name it with")
            );
        }
        if rewrite.rules.is_empty() {
            return Err(source.error_at(span, "lenient-rewrite needs at least one rule"));
        }
        spec.lenient_rewrite = Some(LenientRewrite {
            credit,
            what: rewrite.what.get_ref().trim().to_owned(),
            rules: rules(&rewrite.rules, "lenient-rewrite")?,
        });
    }
    Ok(spec)
}
