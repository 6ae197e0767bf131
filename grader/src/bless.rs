//! Generates the sidecars of scenario cases (`.stdin`, `.stdout`, `.env`) from the reference, or checks
//! that the committed ones are fresh.

use std::path::{Path, PathBuf};

use crate::load::{Assignment, LoadError};

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
