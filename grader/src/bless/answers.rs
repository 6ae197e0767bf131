//! Expected outputs from the course's reference program (a package's accepted solution, or the
//! `[reference]` of an assignment): run contained on every input, its output written where an
//! answer is missing or disagrees with it, as the case's own judge (the validator, or the case's
//! comparison) sees agreement.

use super::*;
use crate::build::program;
use crate::build::BuildCache;
use crate::compare::{self, Extent};
use crate::grade::validator;
use crate::load::{Case, CaseKind};
use crate::run::{Containment, Termination};
use crate::score::Judgement;

/// The reference program's answers for every case that takes its expected output from one: a
/// missing answer is written, one the case's judge does not accept from the reference is stale.
pub(super) fn bless_answers(
    assignment: &Assignment,
    check_only: bool,
    cache: &BuildCache,
    containment: Containment,
    outcome: &mut BlessOutcome,
) -> Result<(), BlessError> {
    let Some(reference) = &assignment.reference else { return Ok(()) };
    // An interactive problem's answers are the interactor's to read, not a program's output.
    if assignment.package.as_ref().is_some_and(|p| p.interactive) {
        return Ok(());
    }
    let cases: Vec<&Case> = assignment
        .cases
        .iter()
        .filter(|c| c.scenario.is_none() && c.kind == CaseKind::Transcript && !c.withheld)
        .collect();
    if cases.is_empty() {
        return Ok(());
    }
    let built = program::build_program(assignment, reference, "reference", cache, containment)?;
    let judge = validator::build_validator(assignment, cache, containment)
        .map_err(|e| BlessError::Reference { path: reference.clone(), why: e.to_string() })?;
    for case in cases {
        let input = match std::fs::read(case.stdin_path()) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && case.package.is_none() => Vec::new(),
            Err(source) => return Err(LoadError::Io { path: case.stdin_path(), source }.into()),
        };
        let run = program::run_program(&built, &[], &input, None, containment)
            .map_err(|why| BlessError::Reference { path: reference.clone(), why })?;
        if run.termination != Termination::Exited(0) {
            let why = format!("on {} it {}", case.stdin_path().display(), program::ending(&run));
            return Err(BlessError::Reference { path: reference.clone(), why });
        }
        let path = case.stdout_path();
        let fresh = match std::fs::read(&path) {
            Ok(current) => agrees(case, &current, &run.stdout, judge.as_ref(), cache, containment),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(source) => return Err(LoadError::Io { path, source }.into()),
        };
        if fresh {
            outcome.fresh += 1;
            continue;
        }
        if !check_only {
            std::fs::write(&path, &run.stdout)
                .map_err(|source| LoadError::Io { path: path.clone(), source })?;
        }
        outcome.stale.push(path);
    }
    Ok(())
}

/// Whether the committed answer agrees with the reference's output as the case is judged: the
/// same bytes, or an output its validator (or comparison) accepts in full against the answer.
fn agrees(
    case: &Case,
    answer: &[u8],
    output: &[u8],
    judge: Option<&crate::build::Build>,
    cache: &BuildCache,
    containment: Containment,
) -> bool {
    if answer == output {
        return true;
    }
    match (judge, &case.package, &case.compare.tokens) {
        (Some(judge), Some(package), _) => matches!(
            validator::judge(judge, case, &package.validator_args, output, cache, containment),
            Judgement::Accepted { credit, .. } if credit >= 1.0
        ),
        (_, _, Some(rules)) => compare::TokenRules::judge(rules, answer, output),
        _ => {
            let comparison = compare::compare(answer, output, &case.compare, Extent::Whole);
            comparison.matched && comparison.credit >= 1.0
        }
    }
}
