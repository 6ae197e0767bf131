//! A problem package in the ICPC/Kattis format (legacy and 2023-07) read as an assignment:
//! `problem.yaml`, `data/sample` (visible) and `data/secret` (hidden) with `.in`/`.ans`, and each
//! group's `testdata.yaml` (or `test_group.yaml`) for its points and validator flags.
//!
//! Test groups become rubric categories: `sample`, `secret`, and each subgroup of `secret`. A
//! pass-fail problem's 100 points are shared evenly by its cases; a scoring problem's groups are
//! worth what the package gives them, all or nothing where the package aggregates by `min` or
//! `pass-fail`.

use std::collections::BTreeMap;

use serde_norway::Value;

use super::*;
use crate::compare::TokenRules;
use crate::languages::{Choice, Language, LanguageRecipe};

/// The file that makes a folder a problem package.
pub const PROBLEM_FILE: &str = "problem.yaml";

/// Where a package's time limit computed from its accepted submissions is kept (BAPCtools' and
/// DOMjudge's file): one number of seconds.
pub const TIME_LIMIT_FILE: &str = ".timelimit";

/// The wall-clock limit of a run under a CPU time limit: the CPU limit decides; the wall limit
/// only ends a program that waits (a read that never returns), with room for a loaded machine.
pub fn wall_limit(time_limit: Duration) -> Duration {
    time_limit * 3 + Duration::from_secs(1)
}

/// The source of a time limit the package does not state: it is inferred from the accepted
/// submissions (`grader bless` writes it to `.timelimit`).
pub const INFERRED: &str = "inferred from the accepted submissions";

/// The time limit when the package states none and none was computed.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(2);

/// A pass-fail problem's points, shared by its cases.
pub const PASS_FAIL_POINTS: f64 = 100.0;

/// What a package is beyond its rubric.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageInfo {
    /// `legacy`, `2023-07-draft`, ...
    pub format_version: String,
    /// Pass-fail or scoring.
    pub scoring: bool,
    /// The time limit of every run (CPU time), and where it came from.
    pub time_limit: Duration,
    /// `problem.yaml`, `.timelimit`, or [`INFERRED`] until the accepted submissions have run.
    pub time_limit_source: String,
    /// The validator is an interactor: it talks with the program instead of reading its output.
    pub interactive: bool,
    /// The slowest accepted run times this is the time limit (before rounding).
    pub time_multiplier: f64,
    /// The time limit is a multiple of this (2023-07's `time_resolution`; legacy: none, a second).
    pub time_resolution: Option<f64>,
    /// The custom output validator (a file or a folder), if the package has one; else the default
    /// validator judges, by each case's [`CompareSpec::tokens`].
    pub validator: Option<PathBuf>,
}

/// Keys of `problem.yaml` the grader knows and does not need (credits, licences, statements).
const IGNORED_KEYS: &[&str] = &[
    "uuid",
    "version",
    "author",
    "source",
    "source_url",
    "license",
    "rights_owner",
    "keywords",
    "credits",
    "embargo_until",
    "languages",
    "allow_file_writing",
    "constants",
    "grading",
];

/// Keys of `limits` the grader knows and does not need.
const IGNORED_LIMITS: &[&str] = &[
    "time_multiplier",
    "time_safety_margin",
    "time_multipliers",
    "time_resolution",
    "code",
    "compilation_time",
    "compilation_memory",
    "validation_time",
    "validation_memory",
    "validation_output",
    "validation_passes",
];

/// Keys of a group's `testdata.yaml` / `test_group.yaml` the grader knows and does not need.
const IGNORED_GROUP_KEYS: &[&str] = &[
    "on_reject",
    "grading",
    "input_validator_flags",
    "input_validator_args",
    "static_validation",
    "full_feedback",
    "hint",
    "description",
    "reject_score",
];

/// A YAML file of the package, parsed, with what it is for messages.
struct Yaml {
    path: PathBuf,
    text: String,
    map: BTreeMap<String, Value>,
}

impl Yaml {
    /// Reads a YAML mapping (an empty file is an empty one).
    fn read(path: &Path) -> Result<Yaml, LoadError> {
        let text = read(path)?;
        let value: Value = if text.trim().is_empty() {
            Value::Mapping(Default::default())
        } else {
            serde_norway::from_str(&text).map_err(|e| LoadError::Invalid {
                path: path.to_owned(),
                line: e.location().map(|l| l.line()),
                message: e.to_string(),
            })?
        };
        let Value::Mapping(mapping) = value else {
            return Err(LoadError::Invalid {
                path: path.to_owned(),
                line: Some(1),
                message: "expected a mapping of keys to values".to_owned(),
            });
        };
        let mut map = BTreeMap::new();
        for (key, value) in mapping {
            let Value::String(key) = key else { continue };
            map.insert(key, value);
        }
        Ok(Yaml { path: path.to_owned(), text, map })
    }

    /// The 1-based line where `key:` is written, when it can be found.
    fn line_of(&self, key: &str) -> Option<usize> {
        let needle = format!("{key}:");
        self.text.lines().position(|l| l.trim_start().starts_with(&needle)).map(|n| n + 1)
    }

    fn error(&self, key: &str, message: impl Into<String>) -> LoadError {
        LoadError::Invalid { path: self.path.clone(), line: self.line_of(key), message: message.into() }
    }

    fn warn_unknown(&self, known: &[&str], ignored: &[&str], warnings: &mut Vec<String>) {
        for key in self.map.keys().filter(|k| !known.contains(&k.as_str()) && !ignored.contains(&k.as_str()))
        {
            let line = self.line_of(key).map(|l| format!(":{l}")).unwrap_or_default();
            warnings.push(format!("{}{line}: unknown key `{key}`, ignored", self.path.display()));
        }
    }

    fn string(&self, key: &str) -> Result<Option<String>, LoadError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(self.error(key, format!("`{key}` must be a string"))),
        }
    }

    fn number(&self, map: &BTreeMap<String, Value>, key: &str) -> Result<Option<f64>, LoadError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(Some)
                .ok_or_else(|| self.error(key, format!("`{key}` must be a number >= 0"))),
            Some(_) => Err(self.error(key, format!("`{key}` must be a number"))),
        }
    }

    /// Validator arguments: a string of space-separated words (legacy) or a sequence of strings.
    fn words(&self, key: &str) -> Result<Option<Vec<String>>, LoadError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.split_whitespace().map(str::to_owned).collect())),
            Some(Value::Sequence(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(self.error(key, format!("`{key}` must be strings"))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(self.error(key, format!("`{key}` must be a string or a list of strings"))),
        }
    }
}

/// A test data group's settings, after inheritance from the groups above it.
#[derive(Debug, Clone, Default)]
struct GroupSettings {
    validator_args: Vec<String>,
    accept_score: Option<f64>,
    range_max: Option<f64>,
    grader_flags: Vec<String>,
    /// Arguments of the program (2023-07 `args`, inherited).
    args: Vec<String>,
    /// 2023-07 `scoring`: the group's maximum score and its aggregation.
    score: Option<f64>,
    aggregation: Option<String>,
}

/// Test cases as `(id relative to data/, the .in file)`, in the order the format runs them.
type CaseFiles = Vec<(String, PathBuf)>;

/// One group of cases that becomes a rubric category.
struct Group {
    id: String,
    title: String,
    visibility: Visibility,
    /// The case files.
    cases: CaseFiles,
    settings: GroupSettings,
}

/// Loads the package in `dir` (which holds `problem.yaml`) as an assignment.
pub fn load_package(dir: &Path) -> Result<Assignment, LoadError> {
    let dir = dir.canonicalize().map_err(|source| LoadError::Io { path: dir.to_owned(), source })?;
    let id =
        dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "problem".to_owned());
    let problem = Yaml::read(&dir.join(PROBLEM_FILE))?;
    let mut warnings = Vec::new();
    let known = ["problem_format_version", "type", "name", "limits", "validation", "validator_flags"];
    problem.warn_unknown(&known, IGNORED_KEYS, &mut warnings);

    let version = problem.string("problem_format_version")?.unwrap_or_else(|| "legacy".to_owned());
    let modern = version != "legacy" && version != "legacy-icpc";
    let types: Vec<String> = match problem.map.get("type") {
        None | Some(Value::Null) => vec!["pass-fail".to_owned()],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Sequence(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        Some(_) => return Err(problem.error("type", "`type` must be a string or a list of strings")),
    };
    for t in &types {
        if !["pass-fail", "scoring", "interactive", "multi-pass", "submit-answer"].contains(&t.as_str()) {
            return Err(problem.error("type", format!("unknown problem type `{t}`")));
        }
        if ["multi-pass", "submit-answer"].contains(&t.as_str()) {
            return Err(problem.error("type", format!("`{t}` problems are not graded by this grader")));
        }
    }
    let scoring = types.iter().any(|t| t == "scoring");
    let validation = problem.string("validation")?.unwrap_or_else(|| "default".to_owned());
    let validation: Vec<&str> = validation.split_whitespace().collect();
    let interactive = types.iter().any(|t| t == "interactive") || validation.contains(&"interactive");
    let custom = validation.first() == Some(&"custom")
        || interactive
        || dir.join("output_validator").is_dir()
        || (!modern && dir.join("output_validators").is_dir() && validation.first() == Some(&"custom"));
    let validator = if custom { Some(validator_program(&dir, &problem)?) } else { None };
    let validator_flags = problem.words("validator_flags")?.unwrap_or_default();

    let title = match problem.map.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Mapping(names)) => names
            .get(Value::String("en".to_owned()))
            .or_else(|| names.values().next())
            .and_then(Value::as_str)
            .map_or_else(|| id.clone(), str::to_owned),
        _ => id.clone(),
    };

    let limits_map: BTreeMap<String, Value> = match problem.map.get("limits") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Mapping(m)) => {
            m.iter().filter_map(|(k, v)| k.as_str().map(|k| (k.to_owned(), v.clone()))).collect()
        }
        Some(_) => return Err(problem.error("limits", "`limits` must be a mapping")),
    };
    for key in limits_map.keys() {
        if !["time_limit", "memory", "output"].contains(&key.as_str())
            && !IGNORED_LIMITS.contains(&key.as_str())
        {
            let line = problem.line_of(key).map(|l| format!(":{l}")).unwrap_or_default();
            warnings.push(format!("{}{line}: unknown key `limits.{key}`, ignored", problem.path.display()));
        }
    }
    let (time_limit, time_limit_source) = match problem.number(&limits_map, "time_limit")? {
        Some(t) if t > 0.0 && t <= 3600.0 => (Duration::from_secs_f64(t), "problem.yaml".to_owned()),
        Some(_) => {
            return Err(problem.error("time_limit", "`time_limit` must be above 0 and at most 3600 seconds"))
        }
        None => match computed_time_limit(&dir)? {
            Some(t) => (t, TIME_LIMIT_FILE.to_owned()),
            // Inferred from the accepted submissions before grading (see `timelimit`).
            None => (DEFAULT_TIME_LIMIT, INFERRED.to_owned()),
        },
    };
    // How a time limit is inferred from the slowest accepted run: legacy `time_multiplier` (5),
    // 2023-07 `time_multipliers.ac_to_time_limit` (2); up to a multiple of `time_resolution` (1 s).
    let multipliers = match limits_map.get("time_multipliers") {
        Some(Value::Mapping(m)) => {
            let m: BTreeMap<String, Value> =
                m.iter().filter_map(|(k, v)| k.as_str().map(|k| (k.to_owned(), v.clone()))).collect();
            problem.number(&m, "ac_to_time_limit")?
        }
        _ => None,
    };
    let (time_multiplier, time_resolution) = if modern {
        (
            multipliers.unwrap_or(2.0),
            problem.number(&limits_map, "time_resolution")?.filter(|r| *r > 0.0).or(Some(1.0)),
        )
    } else {
        (problem.number(&limits_map, "time_multiplier")?.unwrap_or(5.0), None)
    };
    let mib = |key: &str, default: u64| -> Result<u64, LoadError> {
        match problem.number(&limits_map, key)? {
            Some(v) if v >= 1.0 && v <= (1u64 << 20) as f64 => Ok(v as u64),
            Some(_) => Err(problem.error(key, format!("`{key}` must be between 1 and 1048576 MiB"))),
            None => Ok(default),
        }
    };
    let memory_mb = mib("memory", 2048)?;
    let output_mb = mib("output", 8)?;
    let run_limits = Limits {
        cpu: time_limit,
        wall: wall_limit(time_limit),
        memory_bytes: memory_mb << 20,
        output_bytes: (output_mb << 20) as usize,
        processes: 256,
        address_space_limit: false,
        // Deep recursion is an answer a judge accepts: the stack may take all the memory.
        stack_bytes: Some(memory_mb << 20),
        ..Limits::default()
    };

    let data = dir.join("data");
    let mut groups = Vec::new();
    let root_settings = group_settings(&data, &GroupSettings::default(), &mut warnings)?;
    for (top, visibility) in [("sample", Visibility::Visible), ("secret", Visibility::Hidden)] {
        let folder = data.join(top);
        if !folder.is_dir() {
            continue;
        }
        let settings = group_settings(&folder, &root_settings, &mut warnings)?;
        let (direct, subgroups) = cases_and_groups(&data, &folder)?;
        if !direct.is_empty() {
            let title =
                if top == "sample" { "Sample cases (data/sample)" } else { "Secret cases (data/secret)" };
            groups.push(Group {
                id: top.to_owned(),
                title: title.to_owned(),
                visibility,
                cases: direct,
                settings: settings.clone(),
            });
        }
        for sub in subgroups {
            let sub_settings = group_settings(&sub, &settings, &mut warnings)?;
            let mut cases = Vec::new();
            collect_cases(&data, &sub, &mut cases)?;
            if cases.is_empty() {
                continue;
            }
            let name = sub.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let category =
                if name == "sample" || name == "secret" { format!("{top}-{name}") } else { name.clone() };
            groups.push(Group {
                id: category,
                title: format!("Test group {top}/{name}"),
                visibility,
                cases,
                settings: sub_settings,
            });
        }
    }
    let generated = dir.join("generators/generators.yaml").is_file();
    if groups.iter().all(|g| g.visibility != Visibility::Hidden) && generated {
        warnings.push(format!(
            "{}: no test cases under data/secret yet: `grader bless` makes them from generators/generators.yaml",
            dir.display()
        ));
    } else if groups.iter().all(|g| g.visibility != Visibility::Hidden) {
        return Err(LoadError::Invalid {
            path: data.join("secret"),
            line: None,
            message: "a problem package needs test cases (`.in` files) under data/secret".to_owned(),
        });
    }

    let points = group_points(&groups, scoring, modern);
    let mut categories = Vec::new();
    let mut cases = Vec::new();
    for (group, (points, all_or_nothing)) in groups.iter().zip(points) {
        categories.push(Category {
            id: group.id.clone(),
            title: group.title.clone(),
            points,
            manual: false,
            bonus: false,
            all_or_nothing,
        });
        let mut flags = validator_flags.clone();
        flags.extend(group.settings.validator_args.iter().cloned());
        // The default validator's flags are checked here; a custom validator's are its own.
        let rules = match validator {
            Some(_) => None,
            None => Some(TokenRules::parse(&flags).map_err(|message| LoadError::Invalid {
                path: dir.join(PROBLEM_FILE),
                line: problem.line_of("validator_flags"),
                message: format!("validator flags of group `{}`: {message}", group.id),
            })?),
        };
        let score_scale = if points > 0.0 { points / group.cases.len() as f64 } else { 1.0 };
        for (case_id, input) in &group.cases {
            let description = std::fs::read_to_string(input.with_extension("desc")).ok();
            let title = description
                .as_deref()
                .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
                .map_or_else(|| format!("input {}", file_name(input)), |l| l.trim().to_owned());
            cases.push(Case {
                id: case_id.clone(),
                title,
                path: input.clone(),
                category: group.id.clone(),
                weight: 1.0,
                visibility: group.visibility,
                disclosure: Disclosure::Diff,
                withheld: false,
                kind: CaseKind::Transcript,
                build: "program".to_owned(),
                compare: CompareSpec { tokens: rules.clone(), ..CompareSpec::default() },
                limits: run_limits.clone(),
                scenario: None,
                scenario_line: None,
                env: BTreeMap::new(),
                referee: None,
                generate: None,
                args: case_args(input, &group.settings)?,
                sidecars: SidecarsOnce::default(),
                package: Some(PackageCase {
                    input: input.clone(),
                    answer: input.with_extension("ans"),
                    time_limit,
                    validator_args: flags.clone(),
                    score_scale,
                    answer_optional: interactive,
                }),
            });
        }
    }

    let mut compiler = Limits::compiler();
    compiler.processes = 256;
    compiler.address_space_limit = false;
    let recipe = BuildRecipe {
        name: "program".to_owned(),
        commands: Vec::new(),
        run: Vec::new(),
        env: BTreeMap::new(),
        limits: compiler,
        requires: Vec::new(),
        language: Some(LanguageRecipe { choice: Choice::ByExtension, heap_mb: heap_mb(memory_mb) }),
    };
    let submission_files = Language::submission_patterns()
        .into_iter()
        .map(|p| glob::Pattern::new(p).expect("the languages' patterns are valid"))
        .collect();
    let reference = reference_solution(&dir);
    let mut assignment = Assignment {
        reference,
        id,
        title,
        handout: None,
        dir,
        submission_files,
        builds: BTreeMap::from([("program".to_owned(), recipe)]),
        stops_at_end_of_input: true,
        probe: None,
        categories,
        cases,
        late_penalty: None,
        similarity_base: SimilarityBase::default(),
        similarity_look_at: None,
        warnings,
        package: Some(PackageInfo {
            format_version: version,
            scoring,
            time_limit,
            time_limit_source,
            time_multiplier,
            time_resolution,
            interactive,
            validator,
        }),
    };
    super::course::apply(&mut assignment)?;
    Ok(assignment)
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The solution whose output is the answer: the one `generators/generators.yaml` names (a path
/// from the package's root), else the first accepted submission.
fn reference_solution(dir: &Path) -> Option<PathBuf> {
    let generators = dir.join("generators/generators.yaml");
    if let Ok(yaml) = Yaml::read(&generators) {
        if let Ok(Some(solution)) = yaml.string("solution") {
            let path = dir.join(solution.trim_start_matches('/'));
            if path.exists() {
                return Some(path);
            }
        }
    }
    entries(&dir.join("submissions/accepted")).into_iter().next()
}

/// The files and folders in `dir` that are not hidden (`.timelimit`, `.git`), sorted by name; none
/// when it cannot be read.
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')))
        .collect();
    paths.sort();
    paths
}

/// The package's custom output validator: `output_validator/` (2023-07), else the one program in
/// `output_validators/` (legacy).
fn validator_program(dir: &Path, problem: &Yaml) -> Result<PathBuf, LoadError> {
    let modern = dir.join("output_validator");
    if modern.is_dir() {
        return Ok(modern);
    }
    let legacy = dir.join("output_validators");
    match entries(&legacy).as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(problem.error(
            if problem.map.contains_key("validation") { "validation" } else { "type" },
            "no output validator in output_validator/ (or output_validators/): custom validation and \
             interactive problems (whose interactor it is) judge with one",
        )),
        several => Err(LoadError::Invalid {
            path: legacy,
            line: None,
            message: format!(
                "{} programs: the grader runs one output validator (a folder holds a program of several files)",
                several.len()
            ),
        }),
    }
}

/// A test case's program arguments: its own `<case>.yaml` `args` (2023-07), else its group's.
fn case_args(input: &Path, group: &GroupSettings) -> Result<Vec<String>, LoadError> {
    let config = input.with_extension("yaml");
    if !config.is_file() {
        return Ok(group.args.clone());
    }
    let yaml = Yaml::read(&config)?;
    Ok(yaml.words("args")?.unwrap_or_else(|| group.args.clone()))
}

/// The time limit in `.timelimit`, if the package has one.
fn computed_time_limit(dir: &Path) -> Result<Option<Duration>, LoadError> {
    let path = dir.join(TIME_LIMIT_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    match text.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 3600.0 => Ok(Some(Duration::from_secs_f64(t))),
        _ => Err(LoadError::Invalid {
            path,
            line: Some(1),
            message: format!("`{}` is not a time limit in seconds (above 0, at most 3600)", text.trim()),
        }),
    }
}

/// A group's settings: its own `testdata.yaml` (or `test_group.yaml`) over its parent's.
fn group_settings(
    folder: &Path,
    parent: &GroupSettings,
    warnings: &mut Vec<String>,
) -> Result<GroupSettings, LoadError> {
    let file = ["test_group.yaml", "testdata.yaml"].iter().map(|n| folder.join(n)).find(|p| p.is_file());
    let Some(file) = file else {
        // `scoring` is not inherited; the rest is.
        return Ok(GroupSettings { score: None, aggregation: None, ..parent.clone() });
    };
    let yaml = Yaml::read(&file)?;
    let known = [
        "output_validator_flags",
        "output_validator_args",
        "accept_score",
        "range",
        "grader_flags",
        "scoring",
    ];
    yaml.warn_unknown(&known, IGNORED_GROUP_KEYS, warnings);
    let mut settings = GroupSettings { score: None, aggregation: None, ..parent.clone() };
    if let Some(args) = yaml.words("output_validator_args")?.or(yaml.words("output_validator_flags")?) {
        settings.validator_args = args;
    }
    if let Some(score) = yaml.number(&yaml.map, "accept_score")? {
        settings.accept_score = Some(score);
    }
    if let Some(range) = yaml.string("range")? {
        let bounds: Vec<f64> = range.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        let [_, max] = bounds[..] else {
            return Err(yaml.error("range", "`range` must be two numbers, `min max`"));
        };
        settings.range_max = max.is_finite().then_some(max);
    }
    if let Some(args) = yaml.words("args")? {
        settings.args = args;
    }
    if let Some(flags) = yaml.words("grader_flags")? {
        settings.grader_flags = flags;
    }
    if let Some(scoring) = yaml.map.get("scoring") {
        let Value::Mapping(scoring) = scoring else {
            return Err(yaml.error("scoring", "`scoring` must be a mapping"));
        };
        let scoring: BTreeMap<String, Value> =
            scoring.iter().filter_map(|(k, v)| k.as_str().map(|k| (k.to_owned(), v.clone()))).collect();
        settings.score = match scoring.get("score") {
            Some(Value::String(s)) if s == "unbounded" => None,
            _ => yaml.number(&scoring, "score")?,
        };
        if let Some(Value::String(a)) = scoring.get("aggregation") {
            if !["pass-fail", "sum", "min"].contains(&a.as_str()) {
                return Err(
                    yaml.error("aggregation", format!("unknown aggregation `{a}` (pass-fail, sum, min)"))
                );
            }
            settings.aggregation = Some(a.clone());
        }
    }
    Ok(settings)
}

/// The `.in` files directly in `folder` (with their ids relative to `data`) and its subfolders.
fn cases_and_groups(data: &Path, folder: &Path) -> Result<(CaseFiles, Vec<PathBuf>), LoadError> {
    let entries =
        std::fs::read_dir(folder).map_err(|source| LoadError::Io { path: folder.to_owned(), source })?;
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    let mut cases = Vec::new();
    let mut groups = Vec::new();
    for path in paths {
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            // A test case's files (`.files`) are not a group.
            if path.extension().is_none_or(|e| e != "files") {
                groups.push(path);
            }
        } else if path.extension().is_some_and(|e| e == "in") {
            let relative = path.strip_prefix(data).unwrap_or(&path).with_extension("");
            let id = relative.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
            cases.push((id, path));
        }
    }
    Ok((cases, groups))
}

/// Every case under `folder`, in the order the format runs them (by name, groups in place).
fn collect_cases(data: &Path, folder: &Path, out: &mut CaseFiles) -> Result<(), LoadError> {
    let (cases, groups) = cases_and_groups(data, folder)?;
    out.extend(cases);
    for group in groups {
        collect_cases(data, &group, out)?;
    }
    Ok(())
}

/// Each group's points and whether they are all or nothing.
///
/// Pass-fail: 100 points shared evenly by every case. Scoring, 2023-07: samples score nothing;
/// `secret` is worth its `score` (100 by default), shared among its subgroups and direct cases that
/// state none; a subgroup aggregates `pass-fail` (all or nothing) by default. Scoring, legacy: a
/// group is worth the top of its `range`, else its `accept_score` (1 by default) per case, or once
/// under `min`/`max`/`avg` grading, all or nothing under `min`; `ignore_sample` at the root leaves
/// the samples out.
fn group_points(groups: &[Group], scoring: bool, modern: bool) -> Vec<(f64, bool)> {
    let total: usize = groups.iter().map(|g| g.cases.len()).sum();
    if !scoring {
        return groups
            .iter()
            .map(|g| (PASS_FAIL_POINTS * g.cases.len() as f64 / total.max(1) as f64, false))
            .collect();
    }
    // A package in the new format whose groups still say their points the legacy way (`range`,
    // `accept_score`, no `scoring`) is read the legacy way, as the package tools read it.
    let legacy_points = groups.iter().all(|g| g.settings.score.is_none() && g.settings.aggregation.is_none())
        && groups.iter().any(|g| g.settings.range_max.is_some() || g.settings.accept_score.is_some());
    if modern && !legacy_points {
        let secret = groups.iter().find(|g| g.id == "secret");
        let top = secret.and_then(|g| g.settings.score).unwrap_or(100.0);
        let hidden: Vec<&Group> = groups.iter().filter(|g| g.visibility == Visibility::Hidden).collect();
        // Direct cases of `secret` count one each; subgroups one each unless they state a score.
        let stated: f64 = hidden.iter().filter(|g| g.id != "secret").filter_map(|g| g.settings.score).sum();
        let unstated = hidden
            .iter()
            .map(|g| if g.id == "secret" { g.cases.len() } else { usize::from(g.settings.score.is_none()) })
            .sum::<usize>();
        let share = if unstated == 0 { 0.0 } else { ((top - stated) / unstated as f64).max(0.0) };
        return groups
            .iter()
            .map(|g| match g.visibility {
                Visibility::Visible => (0.0, false),
                Visibility::Hidden if g.id == "secret" => (share * g.cases.len() as f64, false),
                Visibility::Hidden => {
                    let aggregation = g.settings.aggregation.as_deref().unwrap_or("pass-fail");
                    (g.settings.score.unwrap_or(share), aggregation != "sum")
                }
            })
            .collect();
    }
    groups
        .iter()
        .map(|g| {
            let flags = &g.settings.grader_flags;
            if g.visibility == Visibility::Visible && flags.iter().any(|f| f == "ignore_sample") {
                return (0.0, false);
            }
            let accept = g.settings.accept_score.unwrap_or(1.0);
            let once = flags.iter().any(|f| ["min", "max", "avg"].contains(&f.as_str()));
            let points =
                g.settings.range_max.unwrap_or(if once { accept } else { accept * g.cases.len() as f64 });
            (points, flags.iter().any(|f| f == "min"))
        })
        .collect()
}
