//! A problem package's custom output validator: built once like a submission (by its language, or
//! its own `build` and `run` scripts), run contained on each case as the format says
//! (`validator input answer feedback_dir/ [args] < team_output`), judged by its exit status (42
//! accepted, 43 wrong answer, anything else the judge's error) and its feedback files
//! (`judgemessage.txt`, `score.txt`, `score_multiplier.txt`).

use std::ffi::OsString;

use crate::build::program::{self, ProgramError};
use crate::build::{Build, BuildCache};
use crate::load::{Assignment, Case};
use crate::run::{self, Containment, Termination};
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
    match program::build_program(assignment, program, RECIPE, cache, containment) {
        Ok(built) => Ok(Some(built)),
        Err(ProgramError::Build(e)) => Err(GradeError::Build(e)),
        Err(ProgramError::DoesNotBuild { log, .. }) => {
            Err(GradeError::Validator { path: program.to_owned(), why: format!("it does not build:\n{log}") })
        }
    }
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
    let run = || -> Result<Judgement, String> {
        let folder = Folder::for_case(case, cache, ".validating-")?;
        let argv = folder.argv(args);
        let outcome = program::run_program(validator, &argv, team_output, Some(folder.path()), containment)?;
        Ok(read_judgement(&outcome, &folder.feedback, case))
    };
    run().unwrap_or_else(|e| Judgement::Failed { why: format!("the grader could not run it: {e}") })
}

/// A validator's folder for one case: a copy of the input and the answer (a hidden case's own files
/// stay unreadable to every run), and the feedback folder it writes.
struct Folder {
    dir: tempfile::TempDir,
    input: std::path::PathBuf,
    answer: std::path::PathBuf,
    feedback: std::path::PathBuf,
}

impl Folder {
    fn for_case(case: &Case, cache: &BuildCache, prefix: &str) -> Result<Folder, String> {
        let io = |e: std::io::Error| e.to_string();
        let dir = program::scratch_folder(cache, prefix).map_err(io)?;
        let input = dir.path().join("input.in");
        let answer = dir.path().join("answer.ans");
        let feedback = dir.path().join("feedback");
        std::fs::copy(case.stdin_path(), &input).map_err(io)?;
        // An interactive case's answer may be missing: its interactor may need none.
        std::fs::write(&answer, std::fs::read(case.stdout_path()).unwrap_or_default()).map_err(io)?;
        std::fs::create_dir(&feedback).map_err(io)?;
        run::prepare_for_program(&feedback, true).map_err(io)?;
        for path in [&input, &answer] {
            run::prepare_for_program(path, false).map_err(io)?;
        }
        Ok(Folder { dir, input, answer, feedback })
    }

    fn path(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// The validator's arguments: `input answer feedback_dir/ [args]`.
    fn argv(&self, args: &[String]) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![self.input.clone().into(), self.answer.clone().into()];
        argv.push(format!("{}/", self.feedback.display()).into());
        argv.extend(args.iter().map(OsString::from));
        argv
    }
}

/// The validator's judgement from its ending and its feedback files.
fn read_judgement(outcome: &run::RunOutcome, feedback: &std::path::Path, case: &Case) -> Judgement {
    let read = |name: &str| -> Option<String> {
        use std::io::Read;
        let file = std::fs::File::open(feedback.join(name)).ok()?;
        let mut text = String::new();
        file.take(MAX_FEEDBACK_BYTES).read_to_string(&mut text).ok()?;
        let text = text.trim().to_owned();
        (!text.is_empty()).then_some(text)
    };
    let message = read("judgemessage.txt");
    match &outcome.termination {
        Termination::Exited(42) => {
            let number = |name: &str| read(name).map(|t| t.parse::<f64>().map_err(|_| (name.to_owned(), t)));
            let credit = match (number("score_multiplier.txt"), number("score.txt")) {
                (Some(Ok(m)), _) => m,
                (None, Some(Ok(score))) => score / case.package.as_ref().map_or(1.0, |p| p.score_scale),
                (None, None) => 1.0,
                (Some(Err((name, text))), _) | (_, Some(Err((name, text)))) => {
                    return Judgement::Failed { why: format!("its {name} holds `{text}`, not a number") }
                }
            };
            if !(credit.is_finite() && credit >= 0.0) {
                return Judgement::Failed { why: format!("it gave the score {credit}") };
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
    }
}

/// What one interactive case's runs gave: the program's outcome, and the interactor's judgement.
pub struct Interaction {
    /// The submission's run, as it talked with the interactor.
    pub program: run::RunOutcome,
    /// The interactor's verdict.
    pub judgement: Judgement,
    /// The interactor ended first: a rejection then stands whatever the program did after.
    pub interactor_first: bool,
}

/// Runs an interactive case: the submission and the validator (the interactor) wired to each other,
/// both contained; the interactor reads the input and answer files and judges.
#[allow(clippy::too_many_arguments)]
pub fn interact(
    validator: &Build,
    build: &Build,
    env: &std::collections::BTreeMap<String, String>,
    case: &Case,
    args: &[String],
    cache: &BuildCache,
    containment: Containment,
) -> Result<Interaction, String> {
    let folder = Folder::for_case(case, cache, ".interacting-")?;
    let mut partner_argv = validator.run_argv.clone();
    partner_argv.extend(folder.argv(args));
    let mut partner_mounts = validator.run_mounts.clone();
    partner_mounts.push(run::Mount { path: folder.path().to_owned(), writable: true });
    let partner_limits = program::limits();
    let argv: Vec<OsString> =
        build.run_argv.iter().cloned().chain(case.args.iter().map(OsString::from)).collect();
    let program_request =
        run::SpawnRequest { argv: &argv, env, limits: &case.limits, mounts: &build.run_mounts, containment };
    let partner_request = run::SpawnRequest {
        argv: &partner_argv,
        env: &validator.run_env,
        limits: &partner_limits,
        mounts: &partner_mounts,
        containment,
    };
    let pair = run::run_pair(&program_request, &partner_request).map_err(|e| run::error_chain(&e))?;
    Ok(Interaction {
        judgement: read_judgement(&pair.partner, &folder.feedback, case),
        program: pair.program,
        interactor_first: pair.partner_ended_first,
    })
}
