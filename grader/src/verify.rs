//! `grader verify`: every example submission of an assignment graded and held to what its folder
//! promises, as problemtools' `verifyproblem` and BAPCtools do for a problem package
//! (`submissions/accepted`, `wrong_answer`, `time_limit_exceeded`, `run_time_error`,
//! `partially_accepted`, ...), and for our own format `fixtures/<id>/` (`correct` full marks,
//! `bug-*` below them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::grade::{self, GradeError, GradeOptions};
use crate::load::Assignment;
use crate::report::{JudgeVerdict, Report};

/// What a submission's folder promises about its grading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expectation {
    /// Every case accepted (`accepted`; our `correct`: full marks).
    Accepted,
    /// Some points, not all (`partially_accepted`).
    PartiallyAccepted,
    /// Only accepted or wrong answers, at least one wrong (`wrong_answer`).
    WrongAnswer,
    /// Too slow on some case (`time_limit_exceeded`).
    TimeLimitExceeded,
    /// Crashes on some case (`run_time_error`).
    RunTimeError,
    /// Some case not accepted (`rejected`).
    Rejected,
    /// Never a wrong answer, but too slow or crashing somewhere (`brute_force`).
    BruteForce,
    /// Below full marks (our `bug-*` fixtures).
    BelowFullMarks,
}

impl Expectation {
    /// The expectation of a folder of submissions, by its name.
    pub fn of_folder(name: &str) -> Option<Expectation> {
        Some(match name {
            "accepted" | "correct" => Expectation::Accepted,
            "partially_accepted" => Expectation::PartiallyAccepted,
            "wrong_answer" => Expectation::WrongAnswer,
            "time_limit_exceeded" => Expectation::TimeLimitExceeded,
            "run_time_error" => Expectation::RunTimeError,
            "rejected" => Expectation::Rejected,
            "brute_force" => Expectation::BruteForce,
            bug if bug.starts_with("bug-") => Expectation::BelowFullMarks,
            _ => return None,
        })
    }

    /// Whether a grading meets it; when not, why. `legacy` applies the legacy format's looser
    /// `time_limit_exceeded` (wrong answers allowed) and `run_time_error` (anything else allowed).
    pub fn check(self, report: &Report, legacy: bool) -> Result<(), String> {
        let counts = verdict_counts(report);
        let has = |v: JudgeVerdict| counts.contains_key(&v);
        let only = |allowed: &[JudgeVerdict]| counts.keys().all(|v| allowed.contains(v));
        let full = report.score + 1e-9 >= report.max_score;
        use JudgeVerdict::*;
        let (ok, wanted) = match self {
            Expectation::Accepted => (full && only(&[AC]), "every case accepted, full marks"),
            Expectation::PartiallyAccepted => (report.score > 1e-9 && !full, "some points but not all"),
            Expectation::WrongAnswer => (has(WA) && only(&[AC, WA]), "a wrong answer, and nothing worse"),
            Expectation::TimeLimitExceeded if legacy => {
                (has(TLE) && only(&[AC, WA, TLE]), "too slow on some case, never a crash")
            }
            Expectation::TimeLimitExceeded => {
                (has(TLE) && only(&[AC, TLE]), "too slow on some case, else accepted")
            }
            Expectation::RunTimeError if legacy => (has(RTE), "a crash on some case"),
            Expectation::RunTimeError => {
                (has(RTE) && only(&[AC, RTE]), "a crash on some case, else accepted")
            }
            Expectation::Rejected => (has(WA) || has(TLE) || has(RTE), "some case not accepted"),
            Expectation::BruteForce => (
                (has(TLE) || has(RTE)) && only(&[AC, TLE, RTE]),
                "never a wrong answer, but too slow or crashing somewhere",
            ),
            Expectation::BelowFullMarks => (!full, "below full marks"),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expected {wanted}"))
        }
    }
}

/// How many cases got each verdict (our own format's cases by their status, as a package's would).
pub fn verdict_counts(report: &Report) -> BTreeMap<JudgeVerdict, usize> {
    let mut counts = BTreeMap::new();
    for case in &report.cases {
        let verdict = case.verdict.unwrap_or_else(|| JudgeVerdict::of(case.status, None));
        *counts.entry(verdict).or_insert(0) += 1;
    }
    counts
}

/// One example submission and the folder it is in.
#[derive(Debug, Clone)]
pub struct Example {
    /// The submission (a file, or a folder of files).
    pub path: PathBuf,
    /// Its name as the table shows it: `wrong_answer/case_blind.py`.
    pub name: String,
    /// What its folder promises.
    pub expectation: Expectation,
}

/// Why an example is not graded here (a language the grader does not build, a compiler this
/// machine lacks), or `None`.
fn not_gradable(assignment: &Assignment, example: &Example) -> Option<String> {
    let submission = crate::build::Submission::collect(&example.path, &assignment.submission_files).ok()?;
    let all =
        crate::build::Submission::collect(&example.path, &[glob::Pattern::new("*").expect("a pattern")])
            .ok()?;
    if assignment.package.is_some() {
        let sources: Vec<crate::languages::Source> = all
            .files
            .iter()
            .map(|f| crate::languages::Source { name: &f.name, content: &f.content })
            .collect();
        if let Some(why) = crate::languages::unsupported(&sources) {
            return Some(why);
        }
    }
    submission.files.is_empty().then(|| "no file the assignment takes".to_owned())
}

/// The example submissions of an assignment: `submissions/<verdict>/*` in its folder, else its
/// fixtures (`fixtures/<id>/*` beside the cases folder), in name order.
pub fn examples(assignment: &Assignment) -> Vec<Example> {
    let mut found = Vec::new();
    let submissions = assignment.dir.join("submissions");
    if submissions.is_dir() {
        for folder in crate::load::package::entries(&submissions) {
            let Some(expectation) =
                folder.file_name().and_then(|n| n.to_str()).and_then(Expectation::of_folder)
            else {
                continue;
            };
            for path in crate::load::package::entries(&folder) {
                let name = path.strip_prefix(&submissions).unwrap_or(&path).display().to_string();
                found.push(Example { path, name, expectation });
            }
        }
        return found;
    }
    let fixtures =
        assignment.dir.parent().and_then(Path::parent).map(|p| p.join("fixtures").join(&assignment.id));
    for path in fixtures.iter().flat_map(|f| crate::load::package::entries(f)) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(expectation) = Expectation::of_folder(&name) {
            found.push(Example { path, name, expectation });
        }
    }
    found
}

/// One example graded and checked.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The example.
    pub example: Example,
    /// Its grading.
    pub report: Report,
    /// Whether the grading meets the expectation, or why not.
    pub outcome: Result<(), String>,
}

/// What `verify` found: the examples graded, and those it could not grade here, with why.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    /// Graded and checked.
    pub checked: Vec<Checked>,
    /// Not graded: a language the grader does not build, or a compiler this machine lacks.
    pub skipped: Vec<(Example, String)>,
}

impl Verified {
    /// Whether every example graded kept its promise.
    pub fn all_kept(&self) -> bool {
        self.checked.iter().all(|c| c.outcome.is_ok())
    }
}

/// Grades every example and checks each against its folder's promise.
///
/// # Errors
///
/// A grading the grader itself could not do (a missing compiler, an unwritable cache).
pub fn verify(assignment: &Assignment, options: &GradeOptions) -> Result<Verified, GradeError> {
    let legacy = assignment.package.as_ref().is_some_and(|p| p.format_version.starts_with("legacy"));
    let mut verified = Verified::default();
    for example in examples(assignment) {
        if let Some(why) = not_gradable(assignment, &example) {
            verified.skipped.push((example, why));
            continue;
        }
        let report = match grade::grade(assignment, &example.path, options) {
            Ok(report) => report,
            // A compiler this machine lacks: the submission is not graded here, the others are.
            Err(GradeError::Build(e @ crate::build::BuildError::NotFound { .. })) => {
                verified.skipped.push((example, e.to_string()));
                continue;
            }
            Err(e) => return Err(e),
        };
        let outcome = example.expectation.check(&report, legacy);
        verified.checked.push(Checked { example, report, outcome });
    }
    Ok(verified)
}

/// The table `grader verify` prints: one line per example, then how many met their promise.
pub fn render(verified: &Verified) -> String {
    let checked = &verified.checked;
    let names = checked.iter().map(|c| &c.example).chain(verified.skipped.iter().map(|(e, _)| e));
    let width = names.map(|e| e.name.len()).max().unwrap_or(10).max(10);
    let mut out = format!("{:<width$}  {:<6} {:>15}  verdict and cases\n", "submission", "result", "score");
    for c in checked {
        let counts: Vec<String> = verdict_counts(&c.report).iter().map(|(v, n)| format!("{n} {v}")).collect();
        let result = match &c.outcome {
            Ok(()) => "ok".to_owned(),
            Err(why) => format!("WRONG: {why}"),
        };
        let verdict = c.report.package.as_ref().map(|p| p.verdict.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "{:<width$}  {:<6} {:>15}  {} ({})\n",
            c.example.name,
            if c.outcome.is_ok() { "ok" } else { "WRONG" },
            format!("{:.2}/{:.2}", c.report.score, c.report.max_score),
            verdict,
            counts.join(", ")
        ));
        if c.outcome.is_err() {
            out.push_str(&format!("{:<width$}    {result}\n", ""));
        }
    }
    for (example, why) in &verified.skipped {
        out.push_str(&format!("{:<width$}  {:<6} {why}\n", example.name, "skip"));
    }
    let good = checked.iter().filter(|c| c.outcome.is_ok()).count();
    out.push_str(&format!("{good} of {} submissions as expected", checked.len()));
    if !verified.skipped.is_empty() {
        out.push_str(&format!("; {} not graded here (listed as skip)", verified.skipped.len()));
    }
    out.push('\n');
    out
}
