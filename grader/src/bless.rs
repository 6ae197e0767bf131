//! Generates the expected outputs of an assignment, or checks that the committed ones are fresh:
//! the sidecars of scenario cases (`.stdin`, `.stdout`, `.env`) from the Rust reference, and the
//! answers of plain cases and problem packages from the course's reference program in any
//! language (see `answers`).

use std::path::{Path, PathBuf};

use crate::build::program::ProgramError;
use crate::build::BuildCache;
use crate::load::{Assignment, LoadError};
use crate::run::Containment;

mod answers;
mod generators;

pub use generators::{seed_of, GENERATORS_FILE};

/// Why blessing could not be done.
#[derive(Debug, thiserror::Error)]
pub enum BlessError {
    /// A case or the assignment is malformed, or a file cannot be read or written.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The reference program (or a validator judging its answers) cannot be built.
    #[error(transparent)]
    Program(#[from] ProgramError),
    /// A generator command failed: the case it makes cannot be made.
    #[error("the generator command `{command}` failed: {why}")]
    Generator {
        /// The command, as `generators.yaml` writes it.
        command: String,
        /// What happened.
        why: String,
    },
    /// The reference program failed on an input: its answers cannot be trusted.
    #[error("the reference program {} failed: {why}", path.display())]
    Reference {
        /// The program.
        path: PathBuf,
        /// What happened.
        why: String,
    },
}

/// Blesses everything of the assignment: its scenario cases' sidecars, then the answers its
/// reference program gives for the rest; writes nothing when `check_only`.
///
/// # Errors
///
/// See [`BlessError`].
pub fn bless_all(
    assignment: &Assignment,
    check_only: bool,
    cache: &BuildCache,
    containment: Containment,
) -> Result<BlessOutcome, BlessError> {
    let mut outcome = bless(assignment, check_only)?;
    generators::bless_generated(assignment, check_only, cache, containment, &mut outcome)?;
    generators::bless_generated_cases(assignment, check_only, cache, containment, &mut outcome)?;
    // The cases the generators just made have answers to make too.
    let generated =
        !check_only && outcome.stale.iter().any(|p| p.extension().is_some_and(|e| e == "in" || e == "stdin"));
    let reloaded;
    let assignment = if generated {
        reloaded = crate::load::load_folder(&assignment.dir)?;
        &reloaded
    } else {
        assignment
    };
    answers::bless_answers(assignment, check_only, cache, containment, &mut outcome)?;
    // A package that states no time limit gets the one its accepted submissions give, beside it.
    let unstated =
        assignment.package.as_ref().is_some_and(|p| p.time_limit_source == crate::load::package::INFERRED);
    if unstated {
        let inferred = crate::timelimit::infer(assignment, cache, containment).map_err(|e| {
            BlessError::Reference { path: assignment.dir.join("submissions/accepted"), why: e.to_string() }
        })?;
        if let Some(inferred) = inferred {
            let written = crate::timelimit::write_beside(assignment, inferred.time_limit, check_only)
                .map_err(|source| LoadError::Io { path: assignment.dir.clone(), source })?;
            match written {
                Some(path) => outcome.stale.push(path),
                None => outcome.fresh += 1,
            }
        }
    }
    Ok(outcome)
}

/// What blessing found or did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BlessOutcome {
    /// Sidecars that differ from what the reference generates (written unless only checking).
    pub stale: Vec<PathBuf>,
    /// Sidecars already up to date.
    pub fresh: usize,
}

/// Expands every scenario case of the assignment; writes changed sidecars unless `check_only`.
pub fn bless(assignment: &Assignment, check_only: bool) -> Result<BlessOutcome, LoadError> {
    let mut outcome = BlessOutcome::default();
    // An interactive case's scenario is played at grading time: it has no sidecars.
    let scenario_cases: Vec<_> = assignment
        .cases
        .iter()
        .filter(|c| c.scenario.is_some() && c.kind != crate::load::CaseKind::Interactive)
        .collect();
    if scenario_cases.is_empty() {
        return Ok(outcome);
    }
    let Some(solution) = reference::solution(&assignment.id) else {
        return Err(LoadError::Invalid {
            path: scenario_cases[0].path.clone(),
            line: scenario_cases[0].scenario_line,
            message: format!("the reference has no assignment `{}` to expand [scenario] with", assignment.id),
        });
    };
    for case in scenario_cases {
        let scenario = case.scenario.as_ref().expect("filtered on scenario");
        let expansion = case.kind.expand(solution, scenario).map_err(|e| LoadError::Invalid {
            path: case.path.clone(),
            line: case.scenario_line,
            message: format!("scenario: {e}"),
        })?;
        let env: String = expansion.env.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        let sidecars = [
            (case.stdin_path(), Some(expansion.stdin)),
            (case.stdout_path(), Some(expansion.stdout)),
            (case.env_path(), (!env.is_empty()).then(|| env.into_bytes())),
        ];
        for (path, wanted) in sidecars {
            if wanted.is_none() && !path.exists() {
                continue;
            }
            if update(&path, wanted.as_deref(), check_only)? {
                outcome.stale.push(path);
            } else {
                outcome.fresh += 1;
            }
        }
    }
    Ok(outcome)
}

/// Makes `path` hold `wanted` (or not exist when `None`); returns whether it had to change.
fn update(path: &Path, wanted: Option<&[u8]>, check_only: bool) -> Result<bool, LoadError> {
    let io = |source| LoadError::Io { path: path.to_owned(), source };
    let current = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if current.as_deref() == wanted {
        return Ok(false);
    }
    if !check_only {
        match wanted {
            Some(bytes) => std::fs::write(path, bytes).map_err(io)?,
            None => std::fs::remove_file(path).map_err(io)?,
        }
    }
    Ok(true)
}
