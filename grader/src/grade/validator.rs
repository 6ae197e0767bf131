//! A problem package's custom output validator: built once like a submission (by its language, or
//! its own `build` and `run` scripts), run contained on each case as the format says
//! (`validator input answer feedback_dir/ [args] < team_output`), judged by its exit status (42
//! accepted, 43 wrong answer, anything else the judge's error) and its feedback files
//! (`judgemessage.txt`, `score.txt`, `score_multiplier.txt`).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::build::{self, Build, BuildCache, SourceFile, Submission};
use crate::languages::{Choice, LanguageRecipe};
use crate::load::{Assignment, BuildRecipe, Case};
use crate::run::{self, Containment, Limits, Mount, RunRequest, Termination};
use crate::score::Judgement;

use super::GradeError;

/// The name of the validator's build in the cache and in reports.
pub const RECIPE: &str = "output-validator";

/// Bytes of a feedback file read at most.
const MAX_FEEDBACK_BYTES: u64 = 64 * 1024;

/// Builds the package's output validator, if it has one (cached like any build).
///
/// # Errors
///
/// A validator that does not build is the package's fault, never the student's: a [`GradeError`]
/// naming it with the compiler's messages.
pub fn build_validator(
    assignment: &Assignment,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Option<Build>, GradeError> {
    let Some(program) = assignment.package.as_ref().and_then(|p| p.validator.as_deref()) else {
        return Ok(None);
    };
    let files = program_files(program).map_err(|source| {
        GradeError::Build(build::BuildError::Submission { path: program.to_owned(), source })
    })?;
    let scripts = files.iter().any(|f| f.name == "build" || f.name == "run");
    let mut limits = Limits::compiler();
    limits.processes = 256;
    limits.address_space_limit = false;
    let recipe = if scripts {
        // The format's own way: `build` (if any) in the program's folder, then `run` is the program.
        let script = "cd \"$1\" && if [ -f build ]; then chmod +x build && ./build; fi && chmod +x run";
        BuildRecipe {
            name: RECIPE.to_owned(),
            commands: vec![vec!["sh".into(), "-c".into(), script.into(), "build".into(), "{build}".into()]],
            run: vec!["{build}/run".to_owned()],
            env: Default::default(),
            limits,
            requires: vec!["sh".to_owned()],
            language: None,
        }
    } else {
        BuildRecipe {
            name: RECIPE.to_owned(),
            commands: Vec::new(),
            run: Vec::new(),
            env: Default::default(),
            limits,
            requires: Vec::new(),
            language: Some(LanguageRecipe { choice: Choice::ByExtension, heap_mb: 1024 }),
        }
    };
    let submission = Submission { path: program.to_owned(), files };
    let built = build::build(assignment, &recipe, &submission, cache, containment)?;
    if !built.ok {
        return Err(GradeError::Validator {
            path: program.to_owned(),
            why: format!("it does not build:\n{}", built.log.trim_end()),
        });
    }
    Ok(Some(built))
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
    Ok(files)
}

/// Runs the validator on one output of the case, contained, in a folder of its own that holds a
/// copy of the input and the answer (a hidden case's files stay unreadable by every run) and the
/// feedback folder.
pub fn judge(
    validator: &Build,
    case: &Case,
    args: &[String],
    team_output: &[u8],
    cache: &BuildCache,
    containment: Containment,
) -> Judgement {
    match run_validator(validator, case, args, team_output, cache, containment) {
        Ok(judgement) => judgement,
        Err(e) => Judgement::Failed { why: format!("the grader could not run it: {e}") },
    }
}

fn run_validator(
    validator: &Build,
    case: &Case,
    args: &[String],
    team_output: &[u8],
    cache: &BuildCache,
    containment: Containment,
) -> Result<Judgement, String> {
    let io = |e: std::io::Error| e.to_string();
    std::fs::create_dir_all(cache.dir()).map_err(io)?;
    let folder = tempfile::Builder::new().prefix(".validating-").tempdir_in(cache.dir()).map_err(io)?;
    let input = folder.path().join("input.in");
    let answer = folder.path().join("answer.ans");
    let feedback = folder.path().join("feedback");
    std::fs::copy(case.stdin_path(), &input).map_err(io)?;
    std::fs::copy(case.stdout_path(), &answer).map_err(io)?;
    std::fs::create_dir(&feedback).map_err(io)?;
    for path in [folder.path(), &feedback] {
        run::prepare_for_program(path, true).map_err(io)?;
    }
    for path in [&input, &answer] {
        run::prepare_for_program(path, false).map_err(io)?;
    }
    let mut argv: Vec<OsString> = validator.run_argv.clone();
    argv.push(input.into_os_string());
    argv.push(answer.into_os_string());
    argv.push(format!("{}/", feedback.display()).into());
    argv.extend(args.iter().map(OsString::from));
    let mut mounts = validator.run_mounts.clone();
    mounts.push(Mount { path: folder.path().to_owned(), writable: true });
    let limits = Limits {
        wall: Duration::from_secs(60),
        cpu: Duration::from_secs(30),
        memory_bytes: 2048 << 20,
        output_bytes: 1 << 20,
        processes: 256,
        address_space_limit: false,
        ..Limits::default()
    };
    let request = RunRequest {
        argv: &argv,
        env: &validator.run_env,
        stdin: team_output,
        limits: &limits,
        mounts: &mounts,
        containment,
        keep: None,
    };
    let outcome = run::run(&request).map_err(|e| run::error_chain(&e))?;
    let read = |name: &str| -> Option<String> {
        use std::io::Read;
        let file = std::fs::File::open(feedback.join(name)).ok()?;
        let mut text = String::new();
        file.take(MAX_FEEDBACK_BYTES).read_to_string(&mut text).ok()?;
        let text = text.trim().to_owned();
        (!text.is_empty()).then_some(text)
    };
    let message = read("judgemessage.txt");
    Ok(match outcome.termination {
        Termination::Exited(42) => {
            let number = |name: &str| read(name).map(|t| t.parse::<f64>().map_err(|_| (name.to_owned(), t)));
            let credit = match (number("score_multiplier.txt"), number("score.txt")) {
                (Some(Ok(m)), _) => m,
                (None, Some(Ok(score))) => score / case.package.as_ref().map_or(1.0, |p| p.score_scale),
                (None, None) => 1.0,
                (Some(Err((name, text))), _) | (_, Some(Err((name, text)))) => {
                    return Ok(Judgement::Failed { why: format!("its {name} holds `{text}`, not a number") })
                }
            };
            if !(credit.is_finite() && credit >= 0.0) {
                return Ok(Judgement::Failed { why: format!("it gave the score {credit}") });
            }
            Judgement::Accepted { credit: credit.min(1.0), message }
        }
        Termination::Exited(43) => Judgement::Rejected { message },
        other => {
            let stderr = String::from_utf8_lossy(&outcome.stderr);
            let stderr = stderr.trim();
            Judgement::Failed {
                why: format!(
                    "it {} (42 accepts, 43 rejects){}",
                    match other {
                        Termination::Exited(code) => format!("exited with status {code}"),
                        other => other.to_string(),
                    },
                    if stderr.is_empty() { String::new() } else { format!("; it said: {stderr}") }
                ),
            }
        }
    })
}
