//! Grading the mutants: each is a submission made in memory (the correct fixture with one file
//! changed), built with the assignment's recipes through the build cache and graded on the cases by
//! [`grade::grade_submission`], several at once within the class machinery's CPU slots.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::mutate::Mutant;
use super::report::MutantStatus;
use crate::build::{SourceFile, Submission};
use crate::grade::{self, GradeOptions};
use crate::load::{Assignment, CaseKind};
use crate::report::{BuildStatus, CaseStatus, Report};
use crate::run::{self, Limit};

/// The shortest wall-clock limit a mutant's case gets under the audit's limits.
pub const AUDIT_WALL_FLOOR: Duration = Duration::from_secs(1);
/// A mutant's case may take this many times the correct program's time under the audit's limits.
pub const AUDIT_WALL_FACTOR: u32 = 10;

/// What grading one mutant gave.
#[derive(Debug, Clone)]
pub enum Graded {
    /// A recipe failed: the mutant does not build (the first line of the compiler's complaint).
    NotBuilt(String),
    /// It built and every case ran.
    Report(Box<Report>),
    /// The grader itself failed on it (a case in `error`, or the grading could not be done).
    Error(String),
}

/// The limits a case ran under in the audit, where they are tighter than its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditLimit {
    /// The case.
    pub case: String,
    /// Its own wall-clock limit, in milliseconds.
    pub own_wall_ms: u64,
    /// The audit's, in milliseconds.
    pub wall_ms: u64,
    /// The audit's CPU limit, in whole seconds (the kernel counts whole seconds).
    pub cpu_seconds: u64,
}

/// The assignment with tighter limits for the mutants' runs: a program that loops for ever would
/// otherwise hold a CPU for each case's whole limit (Trouble's 10 s), hundreds of times. A case gets
/// [`AUDIT_WALL_FACTOR`] times the correct program's time on it, at least [`AUDIT_WALL_FLOOR`], never
/// more than its own limit; interactive cases keep theirs (the referee times each answer itself).
pub fn audit_limits(assignment: &Assignment, baseline: &Report) -> (Assignment, Vec<AuditLimit>) {
    let mut tightened = assignment.clone();
    let mut changed = Vec::new();
    for case in tightened.cases.iter_mut().filter(|c| c.kind != CaseKind::Interactive) {
        let Some(took) = baseline.cases.iter().find(|r| r.id == case.id).and_then(|r| r.time_ms) else {
            continue;
        };
        let wall = (Duration::from_millis(took) * AUDIT_WALL_FACTOR).max(AUDIT_WALL_FLOOR);
        if wall >= case.limits.wall {
            continue;
        }
        let cpu = Duration::from_secs(wall.as_secs_f64().ceil() as u64).min(case.limits.cpu);
        changed.push(AuditLimit {
            case: case.id.clone(),
            own_wall_ms: case.limits.wall.as_millis() as u64,
            wall_ms: wall.as_millis() as u64,
            cpu_seconds: cpu.as_secs(),
        });
        case.limits.wall = wall;
        case.limits.cpu = cpu;
    }
    (tightened, changed)
}

/// The fixture with one mutant's change made.
pub fn mutated(submission: &Submission, mutant: &Mutant) -> Submission {
    let files = submission
        .files
        .iter()
        .map(|f| {
            if f.name == mutant.file {
                SourceFile { name: f.name.clone(), content: mutant.apply(&f.content) }
            } else {
                f.clone()
            }
        })
        .collect();
    Submission { path: submission.path.clone(), files }
}

/// How one grading came out, as the audit counts it.
pub fn classify(report: Report) -> Graded {
    if let Some(build) = report.builds.iter().find(|b| b.status == BuildStatus::Error) {
        let first = build
            .log
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| build.log.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("the build failed");
        return Graded::NotBuilt(format!("{}: {}", build.recipe, first.trim()));
    }
    if let Some(case) = report.cases.iter().find(|c| c.status == CaseStatus::Error) {
        let why = case.note.clone().unwrap_or_default();
        return Graded::Error(format!("{}: the grader failed: {why}", case.id));
    }
    Graded::Report(Box::new(report))
}

/// The cases of `report` stopped at the audit's wall-clock limit (one of `limits`) having used
/// less than half of it in CPU: the program waited (for a CPU on a machine busy with other work, or
/// in a sleep of its own) rather than looped, so the tighter limit alone may have failed it.
pub fn starved_timeouts(report: &Report, limits: &[AuditLimit]) -> Vec<String> {
    report
        .cases
        .iter()
        .filter(|case| case.status == CaseStatus::Timeout && case.limit == Some(Limit::Wall))
        .filter(|case| {
            limits.iter().any(|limit| limit.case == case.id && case.cpu_ms.unwrap_or(0) * 2 < limit.wall_ms)
        })
        .map(|case| case.id.clone())
        .collect()
}

/// The report's words for `regraded` mutants graded twice.
pub fn regraded_note(regraded: usize) -> String {
    let mutants = if regraded == 1 { "1 mutant" } else { "mutants" };
    let count = if regraded == 1 { String::new() } else { format!("{regraded} ") };
    format!(
        "{count}{mutants} graded again: a case timed out under the tighter limit having used less than \
         half of it in CPU (a busy machine, or a wait of the program's own), so those cases ran again \
         under their own limits"
    )
}

/// `tightened` with the cases `ids` given back their own limits (from `own`).
fn with_own_limits(tightened: &Assignment, own: &Assignment, ids: &[String]) -> Assignment {
    let mut relaxed = tightened.clone();
    for case in relaxed.cases.iter_mut().filter(|c| ids.contains(&c.id)) {
        if let Some(original) = own.cases.iter().find(|c| c.id == case.id) {
            case.limits = original.limits.clone();
        }
    }
    relaxed
}

/// The assignments a mutant is graded with: `tightened` (see [`audit_limits`]), and `own`, whose
/// limits a case gets back when it timed out under `tightened`'s without looping.
pub struct GradedWith<'a> {
    /// The limits the mutants are graded under first.
    pub tightened: &'a Assignment,
    /// The assignment as it is.
    pub own: &'a Assignment,
    /// The cases `tightened` changed.
    pub limits: &'a [AuditLimit],
}

/// What [`grade_mutants`] gives: each mutant's grading, and how many were graded again.
pub struct GradedMutants {
    /// In the mutants' order.
    pub graded: Vec<Graded>,
    /// Mutants graded a second time, their starved cases under their own limits.
    pub regraded: usize,
}

/// Grades one mutant; a case that timed out under the audit's limit without looping (see
/// [`starved_timeouts`]) is run again under its own, so that a busy machine or a slow but finite
/// program does not count as a kill. Returns the grading and whether it was graded twice.
fn grade_one(with: &GradedWith, variant: &Submission, options: &GradeOptions) -> (Graded, bool) {
    let graded = grade_caught(with.tightened, variant, options);
    let starved = match &graded {
        Graded::Report(report) => starved_timeouts(report, with.limits),
        _ => Vec::new(),
    };
    if starved.is_empty() {
        return (graded, false);
    }
    (grade_caught(&with_own_limits(with.tightened, with.own, &starved), variant, options), true)
}

/// Grades one submission; a bug of the grader's own on it is its error, not the audit's end.
fn grade_caught(assignment: &Assignment, variant: &Submission, options: &GradeOptions) -> Graded {
    let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        grade::grade_submission(assignment, variant, options)
    }))
    .map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    });
    match graded {
        Ok(Ok(report)) => classify(report),
        Ok(Err(e)) => Graded::Error(format!("{e}")),
        Err(panic) => Graded::Error(format!("the grader failed (a bug of the grader's): {panic}")),
    }
}

/// Grades every mutant (`jobs` programs at once, one mutant more than that graded at a time),
/// in the mutants' order; `on_done` hears of each as it ends (for progress).
pub fn grade_mutants(
    with: &GradedWith,
    submission: &Submission,
    mutants: &[Mutant],
    options: &GradeOptions,
    jobs: usize,
    on_done: &(dyn Fn(&Mutant, &Graded) + Sync),
) -> GradedMutants {
    let results: Vec<Mutex<Option<Graded>>> = mutants.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let regraded = AtomicUsize::new(0);
    run::set_slot_count(jobs);
    std::thread::scope(|scope| {
        for _ in 0..=jobs.max(1) {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, Ordering::SeqCst);
                let Some(mutant) = mutants.get(at) else { break };
                let variant = mutated(submission, mutant);
                let (graded, twice) = grade_one(with, &variant, options);
                if twice {
                    regraded.fetch_add(1, Ordering::SeqCst);
                }
                on_done(mutant, &graded);
                *results[at].lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(graded);
            });
        }
    });
    let graded = results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .unwrap_or_else(|| Graded::Error("not graded".to_owned()))
        })
        .collect();
    GradedMutants { graded, regraded: regraded.into_inner() }
}

/// Progress of an audit on stderr: a bar on a terminal, a line per mutant otherwise.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    done: AtomicUsize,
    killed: AtomicUsize,
    survived: AtomicUsize,
    not_built: AtomicUsize,
    quiet: bool,
}

impl Progress {
    /// Progress over `total` mutants; `quiet`: say nothing.
    pub fn new(total: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} mutants, {msg} ({eta} left)")
                    .expect("a valid template"),
            );
            bar
        });
        Progress {
            bar,
            total,
            done: AtomicUsize::new(0),
            killed: AtomicUsize::new(0),
            survived: AtomicUsize::new(0),
            not_built: AtomicUsize::new(0),
            quiet,
        }
    }

    /// One mutant graded, and how it came out.
    pub fn done(&self, mutant: &Mutant, status: MutantStatus) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let counter = match status {
            MutantStatus::NotBuilt => Some(&self.not_built),
            MutantStatus::Survived => Some(&self.survived),
            MutantStatus::Killed => Some(&self.killed),
            MutantStatus::Equivalent | MutantStatus::Unobservable | MutantStatus::Error => None,
        };
        if let Some(counter) = counter {
            counter.fetch_add(1, Ordering::SeqCst);
        }
        let word = status.word();
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!(
                    "{} killed, {} survived, {} not built",
                    self.killed.load(Ordering::SeqCst),
                    self.survived.load(Ordering::SeqCst),
                    self.not_built.load(Ordering::SeqCst)
                ));
                bar.inc(1);
            }
            None if !self.quiet => eprintln!(
                "[{done}/{}] {} {}:{} {} ({}): {word}",
                self.total,
                mutant.id,
                crate::report::escape::inert(&mutant.file, &[]),
                mutant.line,
                crate::report::escape::inert(&mutant.function, &[]),
                mutant.operator.name()
            ),
            None => {}
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
