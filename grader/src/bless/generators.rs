//! Test cases made by seeded generator programs, as BAPCtools' `generators/generators.yaml`
//! describes them: each case a command (`random --n 10 {seed}`) whose `{seed}` is a hash of the
//! command, so that the same file always makes the same input; or a literal (`in:`, `ans:`), or a
//! copy of a file under `generators/`. The inputs are written (recorded) under `data/`, the answers
//! then come from the reference solution (see `answers`).

use std::collections::BTreeMap;
use std::ffi::OsString;

use serde_norway::Value;
use sha2::{Digest, Sha512};

use super::*;
use crate::build::program::{self, ProgramError};
use crate::build::{Build, BuildCache, SourceFile};
use crate::run::{Containment, Termination};

/// Where a package keeps its generators and their file.
pub const GENERATORS_FILE: &str = "generators/generators.yaml";

/// How one test case's files are made.
#[derive(Debug, Clone, PartialEq)]
enum Source {
    /// A generator program's invocation, and the salt of its seed.
    Command { command: String, salt: String },
    /// Files given in `generators.yaml` itself, by extension (`in`, `ans`, `desc`, `hint`).
    Literal(BTreeMap<String, String>),
    /// The files of `generators/<path>.*`.
    Copy(String),
}

/// One test case to make: its path under `data/` (no extension) and how.
#[derive(Debug, Clone, PartialEq)]
struct Planned {
    path: String,
    source: Source,
}

/// The file's plan: the test cases, and the group settings files it writes.
#[derive(Debug, Default)]
struct Plan {
    cases: Vec<Planned>,
    /// `data/<group>/testdata.yaml` (or `test_group.yaml`) contents.
    settings: Vec<(String, String)>,
    /// Generators made of several files (`generators:`), by name.
    programs: BTreeMap<String, Vec<String>>,
}

/// The seed of a command: the low 31 bits of SHA-512 of the salt and the command, as BAPCtools
/// computes it (`int(sha512(salt + command).hexdigest(), 16) % 2**31`).
pub fn seed_of(salt: &str, command: &str) -> u32 {
    let digest = Sha512::digest(format!("{salt}{command}").as_bytes());
    let tail = [digest[60], digest[61], digest[62], digest[63]];
    u32::from_be_bytes(tail) & 0x7fff_ffff
}

/// Makes (or checks) every generated test case of the package in `dir`.
pub(super) fn bless_generated(
    assignment: &Assignment,
    check_only: bool,
    cache: &BuildCache,
    containment: Containment,
    outcome: &mut BlessOutcome,
) -> Result<(), BlessError> {
    let dir = &assignment.dir;
    let file = dir.join(GENERATORS_FILE);
    if assignment.package.is_none() || !file.is_file() {
        return Ok(());
    }
    let plan = read_plan(&file)?;
    let data = dir.join("data");
    for (group, text) in &plan.settings {
        update(&data.join(group), Some(text.as_bytes()), check_only, outcome)?;
    }
    let mut built: BTreeMap<String, Build> = BTreeMap::new();
    for case in &plan.cases {
        let files: BTreeMap<String, Vec<u8>> = match &case.source {
            Source::Literal(files) => {
                files.iter().map(|(e, t)| (e.clone(), t.clone().into_bytes())).collect()
            }
            Source::Copy(path) => copy_files(&dir.join("generators").join(path))?,
            Source::Command { command, salt } => {
                run_command(assignment, &plan, command, salt, &mut built, cache, containment)?
            }
        };
        if !files.contains_key("in") {
            return Err(invalid(&file, format!("test case `{}` makes no input", case.path)));
        }
        for (extension, bytes) in files {
            let path = data.join(format!("{}.{extension}", case.path));
            update(&path, Some(&bytes), check_only, outcome)?;
        }
    }
    Ok(())
}

/// Makes (or checks) the input of every case of our own format that names a generator
/// (`generate = "..."`): its `.stdin` sidecar, and its `.stdout` when the generator writes
/// `{name}.ans` too.
pub(super) fn bless_generated_cases(
    assignment: &Assignment,
    check_only: bool,
    cache: &BuildCache,
    containment: Containment,
    outcome: &mut BlessOutcome,
) -> Result<(), BlessError> {
    let plan = Plan::default();
    let mut built: BTreeMap<String, Build> = BTreeMap::new();
    for case in assignment.cases.iter().filter(|c| c.package.is_none()) {
        let Some(command) = &case.generate else { continue };
        let files = run_command(assignment, &plan, command, "", &mut built, cache, containment)?;
        for (extension, path) in [("in", case.stdin_path()), ("ans", case.stdout_path())] {
            if let Some(bytes) = files.get(extension) {
                update(&path, Some(bytes), check_only, outcome)?;
            }
        }
    }
    Ok(())
}

fn update(
    path: &Path,
    wanted: Option<&[u8]>,
    check_only: bool,
    outcome: &mut BlessOutcome,
) -> Result<(), BlessError> {
    if let Some(parent) = path.parent().filter(|_| !check_only) {
        std::fs::create_dir_all(parent)
            .map_err(|source| LoadError::Io { path: parent.to_owned(), source })?;
    }
    if super::update(path, wanted, check_only)? {
        outcome.stale.push(path.to_owned());
    } else {
        outcome.fresh += 1;
    }
    Ok(())
}

fn invalid(file: &Path, message: String) -> BlessError {
    BlessError::Load(LoadError::Invalid { path: file.to_owned(), line: None, message })
}

/// The files `generators/<path>.*` of a copied case, by extension.
fn copy_files(base: &Path) -> Result<BTreeMap<String, Vec<u8>>, BlessError> {
    let mut files = BTreeMap::new();
    for extension in ["in", "ans", "desc", "hint"] {
        let path = base.with_extension(extension);
        if let Ok(bytes) = std::fs::read(&path) {
            files.insert(extension.to_owned(), bytes);
        }
    }
    Ok(files)
}

/// Runs one generator command in a folder of its own; the input is `{name}.in` if it wrote one,
/// else its output; its `{name}.ans`, `.desc`, `.hint` are kept too.
fn run_command(
    assignment: &Assignment,
    plan: &Plan,
    command: &str,
    salt: &str,
    built: &mut BTreeMap<String, Build>,
    cache: &BuildCache,
    containment: Containment,
) -> Result<BTreeMap<String, Vec<u8>>, BlessError> {
    let seed = regex::Regex::new(r"\{seed(:[0-9]+)?\}").expect("a valid pattern");
    let with_seed = seed.replace_all(command, seed_of(salt, command).to_string().as_str()).into_owned();
    let mut words = with_seed.split_whitespace();
    let name = words.next().unwrap_or_default().to_owned();
    let generators = assignment.dir.join("generators");
    if !built.contains_key(&name) {
        let role = format!("generator-{}", name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
        let program = match plan.programs.get(&name) {
            Some(files) => {
                let mut sources = Vec::new();
                for file in files {
                    let path = generators.join(file);
                    let content = std::fs::read(&path)
                        .map_err(|source| LoadError::Io { path: path.clone(), source })?;
                    sources.push(SourceFile { name: file.clone(), content });
                }
                program::build_files(assignment, &generators.join(&name), sources, &role, cache, containment)
            }
            None => {
                let path = generators.join(&name);
                if !path.exists() {
                    return Err(invalid(
                        &assignment.dir.join(GENERATORS_FILE),
                        format!(
                            "`{command}`: no generator `{name}` in generators/ (nor under `generators:`)"
                        ),
                    ));
                }
                program::build_program(assignment, &path, &role, cache, containment)
            }
        };
        built.insert(name.clone(), program.map_err(|e: ProgramError| BlessError::Program(e))?);
    }
    let folder = program::scratch_folder(cache, ".generating-")
        .map_err(|source| LoadError::Io { path: cache.dir().to_owned(), source })?;
    let testcase = folder.path().join("testcase");
    let args: Vec<OsString> =
        words.map(|w| OsString::from(w.replace("{name}", &testcase.to_string_lossy()))).collect();
    let run = program::run_program(&built[&name], &args, &[], Some(folder.path()), containment)
        .map_err(|why| BlessError::Generator { command: command.to_owned(), why })?;
    if run.termination != Termination::Exited(0) {
        return Err(BlessError::Generator { command: command.to_owned(), why: program::ending(&run) });
    }
    let mut files = copy_files(&testcase)?;
    files.entry("in".to_owned()).or_insert(run.stdout);
    Ok(files)
}

/// Reads `generators.yaml` into the cases it makes.
fn read_plan(file: &Path) -> Result<Plan, BlessError> {
    let text =
        std::fs::read_to_string(file).map_err(|source| LoadError::Io { path: file.to_owned(), source })?;
    let root: Value = serde_norway::from_str(&text).map_err(|e| LoadError::Invalid {
        path: file.to_owned(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    let mut plan = Plan::default();
    if let Some(Value::Mapping(programs)) = root.get("generators") {
        for (name, files) in programs {
            let (Some(name), Value::Sequence(files)) = (name.as_str(), files) else {
                return Err(invalid(file, "`generators:` maps names to lists of files".to_owned()));
            };
            let files = files.iter().filter_map(|f| f.as_str().map(str::to_owned)).collect();
            plan.programs.insert(name.to_owned(), files);
        }
    }
    let salt = root.get("random_salt").and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(data) = root.get("data") {
        walk(file, data, "", &salt, &mut plan)?;
    }
    Ok(plan)
}

/// The entries of a directory's `data:`: a mapping, or a list of mappings numbered in order.
fn walk(file: &Path, data: &Value, prefix: &str, salt: &str, plan: &mut Plan) -> Result<(), BlessError> {
    let mut entries: Vec<(String, &Value)> = Vec::new();
    match data {
        Value::Mapping(map) => {
            for (name, value) in map {
                entries.push((key(file, name)?, value));
            }
        }
        Value::Sequence(items) => {
            let width = items.len().to_string().len();
            for (n, item) in items.iter().enumerate() {
                let Value::Mapping(map) = item else {
                    return Err(invalid(file, format!("`{prefix}data` lists mappings of names to cases")));
                };
                for (name, value) in map {
                    let name = key(file, name)?;
                    let directory = is_directory(value);
                    let number = if directory { format!("g{}", n + 1) } else { format!("{:0width$}", n + 1) };
                    let numbered = if name.is_empty() { number } else { format!("{number}-{name}") };
                    entries.push((numbered, value));
                }
            }
        }
        Value::Null => {}
        _ => return Err(invalid(file, format!("`{prefix}data` must be a mapping or a list"))),
    }
    for (name, value) in entries {
        let path = format!("{prefix}{name}");
        if name.contains('/') || name.contains("..") || name.is_empty() && prefix.is_empty() {
            return Err(invalid(file, format!("`{path}` is not a test case or group name")));
        }
        if is_directory(value) {
            let salt = value.get("random_salt").and_then(Value::as_str).unwrap_or(salt).to_owned();
            for settings in ["testdata.yaml", "test_group.yaml"] {
                if let Some(contents) = value.get(settings) {
                    let text = serde_norway::to_string(contents).map_err(|e| invalid(file, e.to_string()))?;
                    plan.settings.push((format!("{path}/{settings}"), text));
                }
            }
            if let Some(data) = value.get("data") {
                walk(file, data, &format!("{path}/"), &salt, plan)?;
            }
            continue;
        }
        let source = match value {
            // A manual case: its files are already under data/.
            Value::Null => continue,
            Value::String(command) if command.trim().ends_with(".in") => {
                Source::Copy(command.trim().trim_end_matches(".in").to_owned())
            }
            Value::String(command) => {
                Source::Command { command: command.trim().to_owned(), salt: salt.to_owned() }
            }
            Value::Mapping(_) => {
                let salt = value.get("random_salt").and_then(Value::as_str).unwrap_or(salt).to_owned();
                let command = value.get("generate").or_else(|| value.get("input")).and_then(Value::as_str);
                if let Some(command) = command {
                    Source::Command { command: command.trim().to_owned(), salt }
                } else if let Some(copy) = value.get("copy").and_then(Value::as_str) {
                    Source::Copy(copy.to_owned())
                } else {
                    let mut files = BTreeMap::new();
                    for extension in ["in", "ans", "desc", "hint"] {
                        if let Some(text) = value.get(extension) {
                            let text = match text {
                                // Text files end with a line break, as the format wants them.
                                Value::String(s) if s.ends_with('\n') || s.is_empty() => s.clone(),
                                Value::String(s) => format!("{s}\n"),
                                Value::Number(n) => format!("{n}\n"),
                                _ => {
                                    return Err(invalid(
                                        file,
                                        format!("`{path}`: `{extension}` must be a string"),
                                    ))
                                }
                            };
                            files.insert(extension.to_owned(), text);
                        }
                    }
                    if !files.contains_key("in") {
                        return Err(invalid(
                            file,
                            format!("`{path}` makes no input (`generate`, `in` or `copy`)"),
                        ));
                    }
                    Source::Literal(files)
                }
            }
            _ => return Err(invalid(file, format!("`{path}` must be a command, a mapping, or empty"))),
        };
        plan.cases.push(Planned { path, source });
    }
    Ok(())
}

fn key(file: &Path, name: &Value) -> Result<String, BlessError> {
    match name {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(invalid(file, "test case and group names must be strings".to_owned())),
    }
}

fn is_directory(value: &Value) -> bool {
    value.get("data").is_some() || value.get("type").and_then(Value::as_str) == Some("directory")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_bapctools_hashes_of_the_salt_and_command() {
        // Python: int(hashlib.sha512((salt + command).encode()).hexdigest(), 16) % 2**31
        assert_eq!(seed_of("", "gen 10 {seed}"), 1_141_951_394);
        assert_eq!(seed_of("", "gen 10 {seed:2}"), 741_440_561);
        assert_eq!(seed_of("salt", "gen 10 {seed}"), 186_994_908);
    }

    #[test]
    fn lists_number_their_cases_and_groups() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("generators.yaml");
        std::fs::write(
            &file,
            "random_salt: s\ndata:\n  sample:\n    data:\n      '1':\n        in: '1 2'\n        ans: '3'\n  secret:\n    \
             data:\n      - '': gen {seed}\n      - small: gen 5 {seed}\n      - hard:\n          data:\n            a: gen 9\n",
        )
        .unwrap();
        let plan = read_plan(&file).unwrap();
        let paths: Vec<&str> = plan.cases.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["sample/1", "secret/1", "secret/2-small", "secret/g3-hard/a"]);
        assert_eq!(plan.cases[1].source, Source::Command { command: "gen {seed}".into(), salt: "s".into() });
    }
}
