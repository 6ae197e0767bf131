//! A small runner of GitHub Actions workflows for the examples' tests (`act` is not available here).
//!
//! It runs what the examples use and refuses anything else, so that a workflow using more fails its
//! test instead of being run wrongly: jobs in `needs` order, each matrix combination as a job of its
//! own; `run:` steps with bash as GitHub runs them (`bash --noprofile --norc -eo pipefail` under
//! `shell: bash`, else `bash -e`), in a workspace of their job, with GitHub's variables and files
//! (`GITHUB_OUTPUT`, `GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_STEP_SUMMARY`) and the environment the
//! workflow declares, nothing of the test's; the `${{ }}` expressions the examples write; and in
//! place of what needs the network, local stand-ins: `actions/checkout` copies a local folder (and
//! refuses a private repository without a token, as GitHub does), the artifact actions keep
//! artifacts in a folder of the runner, and `curl` on PATH serves URLs from local files.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_norway::Value;

/// A workflow file, as far as the runner reads it (unknown keys are refused).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    /// Its name.
    pub name: String,
    /// Its triggers (read, not interpreted: a key the runner does not know is refused).
    #[allow(dead_code)]
    pub on: Value,
    /// The token's permissions (read, not interpreted).
    #[serde(default)]
    #[allow(dead_code)]
    pub permissions: Option<Value>,
    /// Defaults of its steps.
    #[serde(default)]
    pub defaults: Option<Defaults>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, Value>,
    /// Its jobs, by id.
    pub jobs: BTreeMap<String, Job>,
}

/// `defaults:` of a workflow.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// `defaults.run`.
    pub run: RunDefaults,
}

/// `defaults.run:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDefaults {
    /// The shell of `run:` steps.
    pub shell: String,
}

/// A job.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Job {
    /// The runner's image.
    pub runs_on: String,
    /// Its time limit (read, not enforced).
    #[serde(default)]
    #[allow(dead_code)]
    pub timeout_minutes: Option<u32>,
    /// The jobs it waits for: one id or a list.
    #[serde(default)]
    pub needs: Option<Value>,
    /// Its matrix.
    #[serde(default)]
    pub strategy: Option<Strategy>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, Value>,
    /// Its steps.
    pub steps: Vec<Step>,
}

/// `strategy:` of a job.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Strategy {
    /// Whether one failing combination cancels the others (read, not interpreted: every one runs).
    #[serde(default)]
    #[allow(dead_code)]
    pub fail_fast: Option<bool>,
    /// Each key's values; the job runs once for each combination.
    pub matrix: BTreeMap<String, Vec<Value>>,
}

/// A step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Its name.
    #[serde(default)]
    pub name: Option<String>,
    /// Its id, for `steps.<id>.outputs`.
    #[serde(default)]
    pub id: Option<String>,
    /// The action it uses.
    #[serde(default)]
    pub uses: Option<String>,
    /// The action's inputs.
    #[serde(default)]
    pub with: BTreeMap<String, Value>,
    /// The script it runs.
    #[serde(default)]
    pub run: Option<String>,
    /// Its environment.
    #[serde(default)]
    pub env: BTreeMap<String, Value>,
    /// Its condition.
    #[serde(default, rename = "if")]
    pub condition: Option<String>,
    /// Its shell.
    #[serde(default)]
    pub shell: Option<String>,
}

impl Step {
    /// Its name, or what it uses or runs.
    pub fn label(&self) -> String {
        self.name.clone().or_else(|| self.uses.clone()).unwrap_or_else(|| {
            self.run.as_deref().unwrap_or_default().lines().next().unwrap_or_default().to_owned()
        })
    }
}

/// Reads a workflow file.
pub fn load(path: &Path) -> Workflow {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A scalar of YAML as the string GitHub makes of it.
pub fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        other => panic!("not a scalar: {other:?}"),
    }
}

/// A value of an expression.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Null,
    Bool(bool),
    Str(String),
}

impl Val {
    fn truthy(&self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Str(s) => !s.is_empty(),
        }
    }

    fn text(&self) -> String {
        match self {
            Val::Null => String::new(),
            Val::Bool(b) => b.to_string(),
            Val::Str(s) => s.clone(),
        }
    }
}

/// What expressions can read.
#[derive(Debug, Clone, Default)]
pub struct Contexts {
    /// `env`.
    pub env: BTreeMap<String, String>,
    /// `inputs`.
    pub inputs: BTreeMap<String, String>,
    /// `matrix`.
    pub matrix: BTreeMap<String, String>,
    /// `secrets`.
    pub secrets: BTreeMap<String, String>,
    /// `steps.<id>.outputs`.
    pub outputs: BTreeMap<String, BTreeMap<String, String>>,
    /// Whether every step so far succeeded.
    pub success: bool,
}

impl Contexts {
    fn lookup(&self, path: &str) -> Val {
        let parts: Vec<&str> = path.split('.').collect();
        let map = |m: &BTreeMap<String, String>, key: Option<&&str>| {
            key.and_then(|k| m.get(*k)).map_or(Val::Null, |v| Val::Str(v.clone()))
        };
        match parts[0] {
            "env" => map(&self.env, parts.get(1)),
            "inputs" => map(&self.inputs, parts.get(1)),
            "matrix" => map(&self.matrix, parts.get(1)),
            "secrets" => map(&self.secrets, parts.get(1)),
            "steps" if parts.len() == 4 && parts[2] == "outputs" => self
                .outputs
                .get(parts[1])
                .and_then(|o| o.get(parts[3]))
                .map_or(Val::Null, |v| Val::Str(v.clone())),
            "runner" if parts.get(1) == Some(&"os") => Val::Str("Linux".to_owned()),
            _ => panic!("the test runner does not know the context `{path}`"),
        }
    }

    /// `${{ expr }}` replaced in `text`.
    pub fn interpolate(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end =
                rest[start..].find("}}").unwrap_or_else(|| panic!("an unclosed expression in {text:?}"));
            out.push_str(&self.eval(&rest[start + 3..start + end]).text());
            rest = &rest[start + end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// Whether a step's `if:` lets it run; like GitHub, `success() &&` is implied unless the
    /// condition calls a status function.
    pub fn allows(&self, condition: Option<&str>) -> bool {
        let Some(condition) = condition else { return self.success };
        let expr = condition.trim();
        let expr = expr.strip_prefix("${{").and_then(|e| e.strip_suffix("}}")).unwrap_or(expr);
        let status = ["always()", "success()", "failure()", "cancelled()"].iter().any(|f| expr.contains(f));
        (status || self.success) && self.eval(expr).truthy()
    }

    fn eval(&self, expr: &str) -> Val {
        let tokens = tokenize(expr);
        let mut parser = Parser { tokens: &tokens, at: 0, contexts: self };
        let value = parser.or();
        assert_eq!(parser.at, tokens.len(), "the test runner cannot read the expression {expr:?}");
        value
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Path(String),
    Str(String),
    Op(&'static str),
}

fn tokenize(expr: &str) -> Vec<Token> {
    let chars: Vec<char> = expr.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            let mut s = String::new();
            i += 1;
            loop {
                match (chars.get(i), chars.get(i + 1)) {
                    (Some('\''), Some('\'')) => {
                        s.push('\'');
                        i += 2;
                    }
                    (Some('\''), _) => break,
                    (Some(&c), _) => {
                        s.push(c);
                        i += 1;
                    }
                    (None, _) => panic!("an unclosed string in {expr:?}"),
                }
            }
            i += 1;
            tokens.push(Token::Str(s));
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || "_-.".contains(chars[i])) {
                i += 1;
            }
            tokens.push(Token::Path(chars[start..i].iter().collect()));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let op = ["==", "!=", "&&", "||"].into_iter().find(|op| *op == two);
            if let Some(op) = op {
                tokens.push(Token::Op(op));
                i += 2;
            } else {
                let op = ["!", "(", ")"].into_iter().find(|op| op.starts_with(c));
                tokens.push(Token::Op(
                    op.unwrap_or_else(|| panic!("the test runner cannot read {c:?} in {expr:?}")),
                ));
                i += 1;
            }
        }
    }
    tokens
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    contexts: &'a Contexts,
}

impl Parser<'_> {
    fn eat(&mut self, op: &str) -> bool {
        let found = matches!(self.tokens.get(self.at), Some(Token::Op(o)) if *o == op);
        self.at += usize::from(found);
        found
    }

    fn or(&mut self) -> Val {
        let mut left = self.and();
        while self.eat("||") {
            let right = self.and();
            left = if left.truthy() { left } else { right };
        }
        left
    }

    fn and(&mut self) -> Val {
        let mut left = self.equality();
        while self.eat("&&") {
            let right = self.equality();
            left = if left.truthy() { right } else { left };
        }
        left
    }

    fn equality(&mut self) -> Val {
        let left = self.unary();
        for (op, equal) in [("==", true), ("!=", false)] {
            if self.eat(op) {
                let right = self.unary();
                // GitHub compares strings ignoring case.
                let same = left.text().eq_ignore_ascii_case(&right.text());
                return Val::Bool(same == equal);
            }
        }
        left
    }

    fn unary(&mut self) -> Val {
        if self.eat("!") {
            return Val::Bool(!self.unary().truthy());
        }
        if self.eat("(") {
            let value = self.or();
            assert!(self.eat(")"), "a parenthesis is not closed");
            return value;
        }
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Str(s)) => Val::Str(s),
            Some(Token::Path(name)) if self.eat("(") => {
                assert!(self.eat(")"), "the test runner knows only functions without arguments: {name}");
                match name.as_str() {
                    "always" => Val::Bool(true),
                    "success" => Val::Bool(self.contexts.success),
                    "failure" => Val::Bool(!self.contexts.success),
                    "cancelled" => Val::Bool(false),
                    _ => panic!("the test runner does not know the function {name}()"),
                }
            }
            Some(Token::Path(p)) if p == "true" || p == "false" => Val::Bool(p == "true"),
            Some(Token::Path(p)) if p.chars().all(|c| c.is_ascii_digit()) => Val::Str(p),
            Some(Token::Path(p)) => self.contexts.lookup(&p),
            other => panic!("the test runner cannot read {other:?}"),
        }
    }
}

/// A repository the runner can check out.
#[derive(Debug, Clone)]
pub struct Repository {
    /// Its files.
    pub dir: PathBuf,
    /// Whether a token is needed to check it out.
    pub private: bool,
}

/// A checkout a job made.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkout {
    /// The repository (`self` for the workflow's own).
    pub repository: String,
    /// Where in the workspace.
    pub path: String,
    /// Whether a token was passed.
    pub token: bool,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It ran and succeeded.
    Success,
    /// It ran and failed.
    Failure,
    /// Its condition kept it from running.
    Skipped,
}

/// A step that ran (or not).
#[derive(Debug, Clone)]
pub struct StepRun {
    /// Its label.
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
    /// What it printed (a stand-in's messages for an action).
    pub output: String,
}

/// A job that ran.
#[derive(Debug)]
pub struct JobRun {
    /// Its id, with its matrix values: `grade (1)`.
    pub name: String,
    /// Whether every step succeeded (false also when it was skipped).
    pub succeeded: bool,
    /// Whether it was skipped because a job it needs failed.
    pub skipped: bool,
    /// Its steps.
    pub steps: Vec<StepRun>,
    /// Its workspace, as the last step left it.
    pub workspace: PathBuf,
    /// Its `RUNNER_TEMP`.
    pub temp: PathBuf,
    /// Its step summaries, joined.
    pub summary: String,
    /// What it checked out.
    pub checkouts: Vec<Checkout>,
    /// The URLs it fetched.
    pub fetched: Vec<String>,
}

impl JobRun {
    /// Its step named `name`.
    pub fn step(&self, name: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no step {name} in {}", self.name))
    }

    /// Every step, for a failure message.
    pub fn log(&self) -> String {
        let steps: Vec<String> =
            self.steps.iter().map(|s| format!("== {} ({:?})\n{}", s.name, s.outcome, s.output)).collect();
        format!("job {}:\n{}", self.name, steps.join("\n"))
    }
}

/// The runner and the world it stands in for.
pub struct Runner {
    /// The workflow's own repository.
    pub this_repository: PathBuf,
    /// Other repositories, by `owner/name`.
    pub repositories: BTreeMap<String, Repository>,
    /// Files served for URLs.
    pub urls: BTreeMap<String, PathBuf>,
    /// `secrets`.
    pub secrets: BTreeMap<String, String>,
    /// `inputs` (`workflow_dispatch`'s, their defaults filled in by the test).
    pub inputs: BTreeMap<String, String>,
    /// The values an instructor puts in place of the workflow's placeholders (`env:` at its top).
    pub env_edits: BTreeMap<String, String>,
    /// Variables of the runner's machine beside GitHub's (a build cache for the grader, say).
    pub machine_env: BTreeMap<String, String>,
    root: tempfile::TempDir,
}

impl Runner {
    /// A runner for a workflow of `this_repository`.
    pub fn new(this_repository: &Path) -> Runner {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("bin")).unwrap();
        fs::create_dir_all(root.path().join("artifacts")).unwrap();
        Runner {
            this_repository: this_repository.to_owned(),
            repositories: BTreeMap::new(),
            urls: BTreeMap::new(),
            secrets: BTreeMap::new(),
            inputs: BTreeMap::new(),
            env_edits: BTreeMap::new(),
            machine_env: BTreeMap::new(),
            root,
        }
    }

    /// The artifacts uploaded so far, by name.
    pub fn artifact(&self, name: &str) -> PathBuf {
        self.root.path().join("artifacts").join(name)
    }

    /// Writes the `curl` stand-in: it serves `self.urls` and logs each URL with the job's RUNNER_TEMP.
    fn write_curl(&self) {
        let table: String =
            self.urls.iter().map(|(url, file)| format!("{url}\t{}\n", file.display())).collect();
        fs::write(self.root.path().join("urls"), table).unwrap();
        let script = format!(
            r#"#!/bin/bash
# The test runner's stand-in for curl: serves the URLs of its table from local files.
out= url=
while [ $# -gt 0 ]; do
    case $1 in
        -o|--output) out=$2; shift 2 ;;
        --retry|--max-time|--connect-timeout|-H|--header) shift 2 ;;
        -*) shift ;;
        *) url=$1; shift ;;
    esac
done
printf '%s\t%s\n' "$RUNNER_TEMP" "$url" >> '{log}'
file=$(awk -F'\t' -v url="$url" '$1 == url {{ print $2 }}' '{table}')
if [ -z "$file" ]; then
    echo "curl: (22) The requested URL returned error: 404" >&2
    exit 22
fi
if [ -n "$out" ]; then cp "$file" "$out"; else cat "$file"; fi
"#,
            log = self.root.path().join("fetched").display(),
            table = self.root.path().join("urls").display(),
        );
        let curl = self.root.path().join("bin/curl");
        fs::write(&curl, script).unwrap();
        fs::set_permissions(&curl, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Runs every job of the workflow, in `needs` order, each matrix combination apart.
    pub fn run(&self, workflow: &Workflow) -> Vec<JobRun> {
        self.write_curl();
        let mut env: BTreeMap<String, String> =
            workflow.env.iter().map(|(k, v)| (k.clone(), scalar(v))).collect();
        for (key, value) in &self.env_edits {
            assert!(env.contains_key(key), "the workflow declares no env {key} to edit");
            env.insert(key.clone(), value.clone());
        }
        let shell = workflow.defaults.as_ref().map(|d| d.run.shell.clone());
        let mut done: BTreeMap<String, bool> = BTreeMap::new();
        let mut runs = Vec::new();
        while done.len() < workflow.jobs.len() {
            let ready = workflow
                .jobs
                .iter()
                .find(|(id, job)| !done.contains_key(*id) && needs(job).iter().all(|n| done.contains_key(n)));
            let (id, job) = ready.expect("the jobs' needs form no cycle");
            let blocked = needs(job).iter().any(|n| !done[n]);
            let mut ok = true;
            for matrix in combinations(job) {
                let run = self.run_job(id, job, &matrix, &env, shell.as_deref(), blocked);
                ok &= run.succeeded;
                runs.push(run);
            }
            done.insert(id.clone(), ok);
        }
        runs
    }

    fn run_job(
        &self,
        id: &str,
        job: &Job,
        matrix: &BTreeMap<String, String>,
        workflow_env: &BTreeMap<String, String>,
        shell: Option<&str>,
        blocked: bool,
    ) -> JobRun {
        // The stand-ins are this Linux machine's.
        assert!(job.runs_on.starts_with("ubuntu-"), "{id} runs on {}, not Linux", job.runs_on);
        let values: Vec<&str> = matrix.values().map(String::as_str).collect();
        let name = if values.is_empty() { id.to_owned() } else { format!("{id} ({})", values.join(", ")) };
        let dir = tempfile::Builder::new().prefix("job-").tempdir_in(self.root.path()).unwrap().keep();
        let (workspace, temp, home) = (dir.join("workspace"), dir.join("temp"), dir.join("home"));
        for d in [&workspace, &temp, &home] {
            fs::create_dir_all(d).unwrap();
        }
        let mut run = JobRun {
            name,
            succeeded: !blocked,
            skipped: blocked,
            steps: Vec::new(),
            workspace: workspace.clone(),
            temp: temp.clone(),
            summary: String::new(),
            checkouts: Vec::new(),
            fetched: Vec::new(),
        };
        if blocked {
            return run;
        }
        let mut contexts = Contexts {
            env: workflow_env.clone(),
            inputs: self.inputs.clone(),
            matrix: matrix.clone(),
            secrets: self.secrets.clone(),
            outputs: BTreeMap::new(),
            success: true,
        };
        for (key, value) in &job.env {
            let value = contexts.interpolate(&scalar(value));
            contexts.env.insert(key.clone(), value);
        }
        let mut paths: Vec<String> = Vec::new();
        for step in &job.steps {
            let mut step_contexts = contexts.clone();
            for (key, value) in &step.env {
                let value = step_contexts.interpolate(&scalar(value));
                step_contexts.env.insert(key.clone(), value);
            }
            let label = contexts.interpolate(&step.label());
            if !contexts.allows(step.condition.as_deref()) {
                run.steps.push(StepRun { name: label, outcome: Outcome::Skipped, output: String::new() });
                continue;
            }
            let (ok, output) = match (&step.uses, &step.run) {
                (Some(uses), None) => {
                    let with: BTreeMap<String, String> = step
                        .with
                        .iter()
                        .map(|(k, v)| (k.clone(), step_contexts.interpolate(&scalar(v))))
                        .collect();
                    self.action(uses, &with, &workspace, &mut run.checkouts)
                }
                (None, Some(script)) => {
                    let files = StepFiles::new(&temp);
                    let script = step_contexts.interpolate(script);
                    let shell = step.shell.as_deref().or(shell);
                    let mut command = Command::new("bash");
                    match shell {
                        Some("bash") => command.args(["--noprofile", "--norc", "-eo", "pipefail"]),
                        None => command.arg("-e"),
                        Some(other) => panic!("the test runner runs bash, not {other}"),
                    };
                    let script_path = temp.join("step.sh");
                    fs::write(&script_path, script).unwrap();
                    let mut path: Vec<String> = paths.iter().rev().cloned().collect();
                    path.push(self.root.path().join("bin").display().to_string());
                    path.push(std::env::var("PATH").unwrap_or_default());
                    command
                        .arg(&script_path)
                        .current_dir(&workspace)
                        .env_clear()
                        .envs(&self.machine_env)
                        .envs([
                            ("CI", "true".to_owned()),
                            ("GITHUB_ACTIONS", "true".to_owned()),
                            ("RUNNER_OS", "Linux".to_owned()),
                            ("HOME", home.display().to_string()),
                            ("PATH", path.join(":")),
                            ("GITHUB_WORKSPACE", workspace.display().to_string()),
                            ("RUNNER_TEMP", temp.display().to_string()),
                        ])
                        .envs(files.env())
                        .envs(&step_contexts.env);
                    let out = command.output().expect("bash runs");
                    let output = format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    let outputs = files.read("output");
                    if let Some(id) = &step.id {
                        contexts.outputs.insert(id.clone(), outputs);
                    }
                    contexts.env.extend(files.read("env"));
                    let added = fs::read_to_string(files.path("path")).unwrap();
                    paths.extend(added.lines().filter(|l| !l.is_empty()).map(str::to_owned));
                    run.summary.push_str(&fs::read_to_string(files.path("summary")).unwrap());
                    (out.status.success(), output)
                }
                _ => panic!("a step either uses an action or runs a script: {}", step.label()),
            };
            contexts.success &= ok;
            let outcome = if ok { Outcome::Success } else { Outcome::Failure };
            run.steps.push(StepRun { name: label, outcome, output });
        }
        run.succeeded = contexts.success;
        let log = fs::read_to_string(self.root.path().join("fetched")).unwrap_or_default();
        let mine = format!("{}\t", temp.display());
        run.fetched = log.lines().filter_map(|l| l.strip_prefix(&mine)).map(str::to_owned).collect();
        run
    }

    /// Runs an action's stand-in: whether it succeeded, and what it says.
    fn action(
        &self,
        uses: &str,
        with: &BTreeMap<String, String>,
        workspace: &Path,
        checkouts: &mut Vec<Checkout>,
    ) -> (bool, String) {
        let input = |key: &str| with.get(key).filter(|v| !v.is_empty()).cloned();
        let known = |keys: &[&str]| {
            for key in with.keys() {
                assert!(keys.contains(&key.as_str()), "the stand-in of {uses} does not know `with: {key}`");
            }
        };
        match uses {
            "actions/checkout@v4" => {
                known(&["repository", "ref", "token", "path"]);
                let path = input("path").unwrap_or_default();
                let token = input("token").is_some();
                let (name, dir) = match input("repository") {
                    None => ("self".to_owned(), self.this_repository.clone()),
                    Some(name) => {
                        let Some(repository) = self.repositories.get(&name) else {
                            return (
                                false,
                                format!("Repository not found: {name} (the test has no copy of it)"),
                            );
                        };
                        if repository.private && !token {
                            // What GitHub answers a workflow token for another private repository.
                            return (false, format!("Error: fatal: repository '{name}' not found"));
                        }
                        (name, repository.dir.clone())
                    }
                };
                checkouts.push(Checkout { repository: name.clone(), path: path.clone(), token });
                super::common::copy_tree(&dir, &workspace.join(&path));
                (true, format!("checked out {name} into ./{path}"))
            }
            "actions/upload-artifact@v4" => {
                known(&["name", "path"]);
                let name = input("name").unwrap_or_else(|| "artifact".to_owned());
                let target = self.artifact(&name);
                if target.exists() {
                    return (false, format!("an artifact named {name} exists already"));
                }
                let paths: Vec<PathBuf> = input("path")
                    .unwrap_or_default()
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(|l| workspace.join(l))
                    .filter(|p| p.exists())
                    .collect();
                if paths.is_empty() {
                    return (true, "warning: no files found; nothing uploaded".to_owned());
                }
                // The root of the artifact is the least common ancestor of what is uploaded.
                let roots: Vec<PathBuf> = paths
                    .iter()
                    .map(|p| if p.is_dir() { p.clone() } else { p.parent().unwrap().to_owned() })
                    .collect();
                let mut root = roots[0].clone();
                while !roots.iter().all(|r| r.starts_with(&root)) {
                    root = root.parent().unwrap().to_owned();
                }
                for path in &paths {
                    let rel = path.strip_prefix(&root).unwrap();
                    if path.is_dir() {
                        super::common::copy_tree(path, &target.join(rel));
                    } else {
                        fs::create_dir_all(target.join(rel).parent().unwrap()).unwrap();
                        fs::copy(path, target.join(rel)).unwrap();
                    }
                }
                (true, format!("uploaded {name}"))
            }
            "actions/download-artifact@v4" => {
                known(&["name", "pattern", "path"]);
                let into = workspace.join(input("path").unwrap_or_default());
                let mut names: Vec<String> = fs::read_dir(self.root.path().join("artifacts"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                if let Some(name) = input("name") {
                    if !names.contains(&name) {
                        return (false, format!("no artifact named {name}"));
                    }
                    super::common::copy_tree(&self.artifact(&name), &into);
                    return (true, format!("downloaded {name}"));
                }
                let pattern =
                    glob::Pattern::new(&input("pattern").unwrap_or_else(|| "*".to_owned())).unwrap();
                let chosen: Vec<&String> = names.iter().filter(|n| pattern.matches(n)).collect();
                for name in &chosen {
                    super::common::copy_tree(&self.artifact(name), &into.join(name));
                }
                (true, format!("downloaded {chosen:?}"))
            }
            other => panic!("the test runner has no stand-in for `uses: {other}`"),
        }
    }
}

/// The files GitHub gives a `run:` step.
struct StepFiles {
    dir: PathBuf,
}

impl StepFiles {
    fn new(temp: &Path) -> StepFiles {
        let dir = tempfile::Builder::new().prefix("step-").tempdir_in(temp).unwrap().keep();
        for name in ["output", "env", "path", "summary"] {
            fs::write(dir.join(name), "").unwrap();
        }
        StepFiles { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("GITHUB_OUTPUT", self.path("output")),
            ("GITHUB_ENV", self.path("env")),
            ("GITHUB_PATH", self.path("path")),
            ("GITHUB_STEP_SUMMARY", self.path("summary")),
        ]
    }

    /// `key=value` lines and `key<<DELIMITER` blocks of GITHUB_OUTPUT or GITHUB_ENV.
    fn read(&self, name: &str) -> BTreeMap<String, String> {
        let text = fs::read_to_string(self.path(name)).unwrap();
        let mut values = BTreeMap::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if let Some((key, delimiter)) = line.split_once("<<") {
                let block: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
                values.insert(key.to_owned(), block.join("\n"));
            } else if let Some((key, value)) = line.split_once('=') {
                values.insert(key.to_owned(), value.to_owned());
            }
        }
        values
    }
}

/// The ids of the jobs a job needs.
fn needs(job: &Job) -> Vec<String> {
    match &job.needs {
        None => Vec::new(),
        Some(Value::Sequence(ids)) => ids.iter().map(scalar).collect(),
        Some(id) => vec![scalar(id)],
    }
}

/// Each combination of a job's matrix (one empty combination without a matrix).
fn combinations(job: &Job) -> Vec<BTreeMap<String, String>> {
    let mut all = vec![BTreeMap::new()];
    for (key, values) in job.strategy.iter().flat_map(|s| &s.matrix) {
        all = all
            .into_iter()
            .flat_map(|combination| {
                values.iter().map(move |value| {
                    let mut next = combination.clone();
                    next.insert(key.clone(), scalar(value));
                    next
                })
            })
            .collect();
    }
    all
}
