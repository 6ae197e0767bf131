//! The pipeline: load (done by the caller) → build → run → compare → score → [`Report`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::build::{self, Build, BuildCache, BuildError, Submission};
use crate::context;
use crate::interactive;
use crate::load::{Assignment, Case, CaseKind, LoadError, Probe, Sidecars, Visibility};
use crate::points;
use crate::report::{
    BuildReport, BuildStatus, CaseReport, CaseStatus, HiddenCases, InputContext, ProbeReport, Report,
};
use crate::run::gate::Gate;
use crate::run::{self, Containment, RunRequest};
use crate::score::{self, Verdict};

mod runners;
pub mod validator;

use runners::{run_all, Pool};

/// Bytes of a program's standard error kept in a report.
const MAX_STDERR_BYTES: usize = 2048;

/// Bytes a program may print beyond twice its expected transcript before the run is stopped.
const FLOOD_MARGIN: usize = 64 * 1024;

/// A failure of the grader itself: the grading could not be done at all.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// The cases are incomplete (a missing transcript).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// At `rlimits-only`, the programs' user could read a hidden case: grading would leak it.
    #[error(
        "{}: a hidden case the programs could read at containment rlimits-only ({why}); {how} \
         (or pass --accept-readable-cases for a self-check that may show them)",
        path.display()
    )]
    ReadableCases {
        /// The first readable hidden case file.
        path: std::path::PathBuf,
        /// Why the programs could read it.
        why: String,
        /// How to make it unreadable.
        how: &'static str,
    },
    /// The submission could not be read or the build could not be attempted.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A problem package's output validator cannot judge (it does not build): the package's fault.
    #[error("the output validator {} cannot judge: {why}", path.display())]
    Validator {
        /// The validator program.
        path: std::path::PathBuf,
        /// Why, with the compiler's messages.
        why: String,
    },
}

/// What to grade and how.
#[derive(Debug, Clone)]
pub struct GradeOptions {
    /// Run only the cases students see (the self-check).
    pub visible_only: bool,
    /// Where built executables are cached.
    pub cache: BuildCache,
    /// How compilers and programs are contained.
    pub containment: Containment,
    /// Run only the cases whose id matches one of these patterns (`game/*`); none: every case.
    pub only: Vec<glob::Pattern>,
    /// Grade at `rlimits-only` even when the programs could read the hidden cases (a self-check
    /// that may show them; see [`check_cases_unreadable`]).
    pub accept_readable_cases: bool,
    /// Roll other dice in interactive cases: their games are seeded from this and the case's own seed
    /// (none: the case's seed alone).
    pub dice_seed: Option<u64>,
}

impl GradeOptions {
    /// Every case, cached in `cache`, at the strongest containment this machine supports.
    pub fn new(cache: BuildCache) -> GradeOptions {
        GradeOptions {
            visible_only: false,
            cache,
            containment: Containment::available(),
            only: Vec::new(),
            accept_readable_cases: false,
            dice_seed: None,
        }
    }
}

/// Grades one submission (a folder or a single file) against an assignment's cases.
pub fn grade(
    assignment: &Assignment,
    submission_path: &Path,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    let submission = Submission::collect(submission_path, &assignment.submission_files)?;
    grade_submission(assignment, &submission, options)
}

/// Grades a submission already read (a class's, from any layout); the report names it by its path.
pub fn grade_submission(
    assignment: &Assignment,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    Ok(start(assignment, submission, options)?.finish())
}

/// A grading between its two phases: built, probed and its visible cases run; its hidden cases
/// not yet (see [`start`]).
pub struct Started<'a> {
    assignment: &'a Assignment,
    options: &'a GradeOptions,
    submission_path: String,
    submission_files: Vec<String>,
    cases: Vec<&'a Case>,
    expectations: Vec<Arc<Sidecars>>,
    points: Vec<f64>,
    builds: BTreeMap<&'a str, Build>,
    /// A problem package's output validator, built.
    validator: Option<Build>,
    probe: Option<ProbeReport>,
    /// Each case's report, in the cases' order: the visible cases' so far.
    results: Vec<Option<CaseReport>>,
}

/// The first phase of a grading: builds the submission, runs the probe and every visible case.
/// Every run it starts has ended when it returns, and [`Started::finish`] runs the hidden cases:
/// so no state a hidden run leaves, through any channel known or not yet found, can reach an
/// output the student sees. A batch starts every student before it finishes any (see `batch`),
/// so that one student's hidden runs cannot feed another's visible output either.
///
/// # Errors
///
/// When the cases are incomplete, readable by the programs at `rlimits-only`, or the submission
/// cannot be read or built at all.
pub fn start<'a>(
    assignment: &'a Assignment,
    submission: &Submission,
    options: &'a GradeOptions,
) -> Result<Started<'a>, GradeError> {
    // The run users' folders kept between runs go when the last grading under way ends.
    let _folders = run::KeptFolders::hold();
    let cases: Vec<&Case> = assignment
        .cases
        .iter()
        .filter(|c| !c.withheld && (!options.visible_only || c.visibility == Visibility::Visible))
        .filter(|c| options.only.is_empty() || options.only.iter().any(|p| p.matches(&c.id)))
        .collect();
    if !options.accept_readable_cases {
        check_cases_unreadable(&cases, options.containment)?;
    }
    let expectations = cases.iter().map(|c| c.sidecars()).collect::<Result<Vec<_>, _>>()?;

    let mut builds: BTreeMap<&str, Build> = BTreeMap::new();
    for case in &cases {
        if !builds.contains_key(case.build.as_str()) {
            let recipe = &assignment.builds[&case.build];
            builds.insert(
                &case.build,
                build::build(assignment, recipe, submission, &options.cache, options.containment)?,
            );
        }
    }

    let validator = validator::build_validator(assignment, &options.cache, options.containment)?;
    // The sandboxes of this phase's runs: kept between its runs and reset after each, never lent
    // to another submission or to its hidden phase (see `run::KeptSandboxes`); they end with it.
    let keep = run::sandbox_reuse().then(run::KeptSandboxes::new);
    let probe = match &assignment.probe {
        Some(probe) => {
            let recipe = &assignment.builds[&probe.build];
            if !builds.contains_key(probe.build.as_str()) {
                let build =
                    build::build(assignment, recipe, submission, &options.cache, options.containment)?;
                builds.insert(&probe.build, build);
            }
            Some(run_probe(probe, &builds[probe.build.as_str()], options.containment, keep.as_ref()))
        }
        None => None,
    };
    let points = score::case_points(assignment, &cases);
    let mut started = Started {
        assignment,
        options,
        submission_path: submission.path.display().to_string(),
        submission_files: submission.files.iter().map(|f| f.name.clone()).collect(),
        results: (0..cases.len()).map(|_| None).collect(),
        cases,
        expectations,
        points,
        builds,
        validator,
        probe,
    };
    started.run_phase(Visibility::Visible, keep.as_ref());
    Ok(started)
}

impl Started<'_> {
    /// Runs the cases of one visibility, on the case runners (see `runners`); each case's report
    /// goes to its place.
    fn run_phase(&mut self, visibility: Visibility, keep: Option<&run::KeptSandboxes>) {
        let which: Vec<usize> =
            (0..self.cases.len()).filter(|&i| self.cases[i].visibility == visibility).collect();
        if which.is_empty() {
            return;
        }
        let (assignment, options, builds) = (self.assignment, self.options, &self.builds);
        let validator = self.validator.as_ref();
        let grade_one = |&i: &usize| {
            let case = self.cases[i];
            let build = &builds[case.build.as_str()];
            let programs = Programs { build, validator };
            run_case(assignment, case, &self.expectations[i], programs, self.points[i], options, keep)
        };
        // The runs without namespaces inherit the seal of the threads that start them.
        let pool = if options.containment == Containment::RlimitsOnly { Pool::Sealed } else { Pool::Plain };
        let reports = run_all(&which, pool, grade_one);
        for (i, report) in which.into_iter().zip(reports) {
            self.results[i] = Some(report);
        }
    }

    /// The second phase: runs the hidden cases (in sandboxes of their own, none of the first
    /// phase's), scores every case and makes the report.
    pub fn finish(mut self) -> Report {
        let _folders = run::KeptFolders::hold();
        if self.results.iter().any(Option::is_none) {
            let keep = run::sandbox_reuse().then(run::KeptSandboxes::new);
            self.run_phase(Visibility::Hidden, keep.as_ref());
        }
        let mut results: Vec<CaseReport> = std::mem::take(&mut self.results)
            .into_iter()
            .map(|r| r.expect("every case was run once"))
            .collect();
        let Started {
            assignment,
            options,
            submission_path,
            submission_files,
            cases,
            points,
            builds,
            probe,
            ..
        } = self;

        settle_all_or_nothing(assignment, &cases, &mut results);
        let earned: Vec<f64> = results.iter().map(|r| r.score).collect();
        let passed: Vec<bool> = results.iter().map(|r| r.status == CaseStatus::Passed).collect();
        let (categories, pending, total, max_total) =
            score::tally(assignment, &cases, &earned, &points, &passed);
        interactive::settle_left_out(&mut results, &categories);
        // What a self-check leaves out is the hidden cases; cases left out by `only` are the caller's choice.
        let not_run: Vec<&Case> = assignment
            .cases
            .iter()
            .filter(|c| c.visibility == Visibility::Hidden && !cases.iter().any(|k| k.id == c.id))
            .collect();
        // Bonus points apart: they are not what the maximum still lacks.
        let hidden = (!not_run.is_empty()).then(|| {
            let (mut points, mut bonus_points) = (0.0, 0.0);
            for (case, case_points) in not_run.iter().zip(score::case_points(assignment, &not_run)) {
                if assignment.category(&case.category).is_some_and(|c| c.bonus) {
                    bonus_points += case_points;
                } else {
                    points += case_points;
                }
            }
            HiddenCases {
                cases: not_run.len(),
                points: points::round(points),
                bonus_points: points::round(bonus_points),
            }
        });
        let cases: Vec<CaseReport> = results
            .into_iter()
            .map(|mut r| {
                r.score = points::round(r.score);
                r.max_score = points::round(r.max_score);
                r
            })
            .collect();

        Report {
            grader_version: env!("CARGO_PKG_VERSION").to_owned(),
            assignment: assignment.id.clone(),
            title: assignment.title.clone(),
            submission: submission_path,
            submission_files,
            submission_notes: Vec::new(),
            visible_only: options.visible_only,
            only: options.only.iter().map(|p| p.as_str().to_owned()).collect(),
            cases_root: assignment.dir.parent().map(|p| p.display().to_string()).unwrap_or_default(),
            containment: options.containment,
            // SAFETY: geteuid has no preconditions.
            programs_ran_as_grader: options.containment == Containment::RlimitsOnly
                && unsafe { libc::geteuid() } != 0,
            dice_seed: options.dice_seed,
            score: total,
            max_score: max_total,
            hidden,
            pending,
            late_points: 0.0,
            builds: builds
                .values()
                .map(|b| BuildReport {
                    recipe: b.recipe.clone(),
                    status: if b.ok { BuildStatus::Ok } else { BuildStatus::Error },
                    cached: b.cached,
                    log: b.log.clone(),
                    seconds: b.duration.as_secs_f64(),
                    hint: BuildReport::hint_of(&b.log, &assignment.id),
                })
                .collect(),
            probe,
            categories,
            package: assignment.package.as_ref().map(|info| crate::report::PackageReport {
                time_limit_seconds: info.time_limit.as_secs_f64(),
                time_limit_source: info.time_limit_source.clone(),
                verdict: crate::report::PackageReport::verdict_of(&cases),
            }),
            cases,
        }
    }
}

/// A category that counts only whole (a package's test group aggregated `pass-fail` or `min`):
/// when one of its cases did not pass in full, none of them earns anything, and each says why.
fn settle_all_or_nothing(assignment: &Assignment, cases: &[&Case], results: &mut [CaseReport]) {
    for category in assignment.categories.iter().filter(|c| c.all_or_nothing) {
        let members: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].category == category.id).collect();
        let failed = members.iter().find(|&&i| {
            results[i].status != CaseStatus::Passed || results[i].score + 1e-9 < results[i].max_score
        });
        let Some(&failed) = failed else { continue };
        let why = format!(
            "the group `{}` counts only whole, and case {} did not pass",
            category.id, cases[failed].id
        );
        for &i in &members {
            if results[i].score > 0.0 {
                results[i].score = 0.0;
                results[i].note = Some(match results[i].note.take() {
                    Some(note) => format!("{note}; {why}"),
                    None => why.clone(),
                });
            }
        }
    }
}

/// At `rlimits-only`, refuses to grade when the programs' user could read a hidden case's files:
/// the test and its sidecars (`<case>.*`). A root grader's programs run as run users that own
/// nothing, so only the permissions for others count: the file must lack `o+r`, or a folder above
/// it `o+x`. A grader that is not root runs programs as itself: they read what it reads.
///
/// # Errors
///
/// [`GradeError::ReadableCases`] for the first such file.
pub fn check_cases_unreadable(cases: &[&Case], containment: Containment) -> Result<(), GradeError> {
    use std::os::unix::fs::MetadataExt;
    if containment != Containment::RlimitsOnly {
        return Ok(());
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    for case in cases.iter().filter(|c| c.visibility == Visibility::Hidden) {
        let Some(folder) = case.path.parent() else { continue };
        let Some(stem) = case.path.file_stem().map(|s| format!("{}.", s.to_string_lossy())) else { continue };
        let sidecars = std::fs::read_dir(folder).into_iter().flatten().flatten().map(|e| e.path());
        for path in sidecars.filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&stem)))
        {
            if !root {
                return Err(GradeError::ReadableCases {
                    path,
                    why: "the grader is not root, so programs run as its own user and read what it reads"
                        .into(),
                    how: "grade hidden cases as root or at a containment with namespaces (`grader doctor`)",
                });
            }
            let Ok(path) = path.canonicalize() else { continue };
            let reachable = path.parent().is_some_and(run::nobody_can_enter);
            let mode = std::fs::metadata(&path).map(|meta| meta.mode()).unwrap_or(0);
            if reachable && mode & 0o004 != 0 {
                return Err(GradeError::ReadableCases {
                    why: format!(
                        "mode {:04o}, and every folder above it may be entered by others",
                        mode & 0o7777
                    ),
                    path,
                    how: "make the cases readable by root only, as the Gradescope bundle's setup.sh does \
                          (`chmod -R go-rwx` the assignment's folder, then `chmod go+x` its folders and \
                          `go+r` the files its build recipes name), or grade at a stronger containment",
                });
            }
        }
    }
    Ok(())
}

/// Runs the assignment's probe once with the assignment's limits; never fails: a failure is said in
/// the probe's report.
fn run_probe(
    probe: &Probe,
    build: &Build,
    containment: Containment,
    keep: Option<&run::KeptSandboxes>,
) -> ProbeReport {
    let mut report = ProbeReport { title: probe.title.clone(), lines: Vec::new(), failure: None };
    if !build.ok {
        report.failure = Some(format!("the `{}` build failed", build.recipe));
        return report;
    }
    let stdin: Vec<u8> = probe.stdin.iter().flat_map(|l| l.bytes().chain([b'\n'])).collect();
    let request = RunRequest {
        argv: &build.run_argv,
        env: &build.run_env,
        stdin: &stdin,
        limits: &probe.limits,
        mounts: &build.run_mounts,
        containment,
        keep,
    };
    match run::run(&request) {
        Ok(outcome) => {
            report.lines = String::from_utf8_lossy(&outcome.stdout)
                .lines()
                .filter(|line| !line.starts_with("> "))
                .map(str::to_owned)
                .collect();
            report.failure = match outcome.termination {
                run::Termination::Exited(0) => None,
                run::Termination::Exited(code) => Some(format!("exited with status {code}")),
                run::Termination::Signaled { name, .. } => Some(format!("killed by {name}")),
                run::Termination::Killed { limit } => Some(format!("stopped at the {limit} limit")),
            };
        }
        Err(e) => report.failure = Some(format!("the grader could not run it: {}", run::error_chain(&e))),
    }
    report
}

/// What runs a case: the submission's build, and a package's output validator if it has one.
#[derive(Clone, Copy)]
struct Programs<'a> {
    build: &'a Build,
    validator: Option<&'a Build>,
}

/// Runs one case and judges it; never fails: whatever happens becomes the case's status.
fn run_case(
    assignment: &Assignment,
    case: &Case,
    expected: &Sidecars,
    Programs { build, validator }: Programs,
    max_score: f64,
    options: &GradeOptions,
    keep: Option<&run::KeptSandboxes>,
) -> CaseReport {
    let containment = options.containment;
    // Without namespaces, a hidden case's run never overlaps a run whose output a student may see,
    // of this submission or another graded beside it (see `run::gate`).
    static HIDDEN_APART: Gate = Gate::new();
    let _pass = (containment == Containment::RlimitsOnly)
        .then(|| HIDDEN_APART.enter(case.visibility == Visibility::Hidden));
    let mut report = CaseReport {
        id: case.id.clone(),
        title: case.title.clone(),
        category: case.category.clone(),
        visibility: case.visibility,
        disclosure: case.disclosure,
        kind: case.kind,
        status: CaseStatus::Error,
        signal: None,
        limit: None,
        score: 0.0,
        max_score,
        leniency: Vec::new(),
        lenient_rewrite: None,
        forgiven: Vec::new(),
        partial: None,
        note: None,
        time_ms: None,
        cpu_ms: None,
        peak_memory_kb: None,
        divergence: None,
        diff: None,
        stderr: None,
        input: None,
        reproduce: None,
        games: Vec::new(),
        game_ends: Vec::new(),
        verdict: None,
    };
    if !build.ok {
        report.status = CaseStatus::BuildError;
        report.note = Some(format!("the `{}` build failed", build.recipe));
        report.verdict = case.package.as_ref().map(|_| crate::report::JudgeVerdict::CE);
        return report;
    }
    // The recipe's variables (a preload library) first; the case's own may add to them.
    let mut env = build.run_env.clone();
    env.extend(case.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    // The case's own arguments after the recipe's command line.
    let argv: Vec<std::ffi::OsString> =
        build.run_argv.iter().cloned().chain(case.args.iter().map(std::ffi::OsString::from)).collect();
    if let Some(referee) = &case.referee {
        let program = interactive::Program {
            argv: &build.run_argv,
            env: &env,
            limits: &case.limits,
            mounts: &build.run_mounts,
            containment,
        };
        let reseeded = options.dice_seed.and_then(|n| reseeded_referee(assignment, case, n));
        play_interactive_case(&mut report, reseeded.as_deref().unwrap_or(referee.0.as_ref()), program);
        return report;
    }
    // Output far past the transcript cannot pass any more: stop a flood there, not at the limit.
    let budget = expected.stdout.len().saturating_mul(2).saturating_add(FLOOD_MARGIN);
    let limits = run::Limits { output_bytes: case.limits.output_bytes.min(budget), ..case.limits.clone() };
    let request = RunRequest {
        argv: &argv,
        env: &env,
        stdin: &expected.stdin,
        limits: &limits,
        mounts: &build.run_mounts,
        containment,
        keep,
    };
    let outcome = match run::run(&request) {
        Ok(outcome) => outcome,
        Err(e) => {
            report.note = Some(format!("the grader could not run the program: {}", run::error_chain(&e)));
            return report;
        }
    };
    if let (Some(validator), Some(package)) = (
        validator,
        case.package.as_ref().filter(|_| assignment.package.as_ref().is_some_and(|p| p.interactive)),
    ) {
        let args = &package.validator_args;
        match validator::interact(validator, build, &env, case, args, &options.cache, containment) {
            Ok(interaction) => {
                let verdict = score::judge_interaction(
                    case,
                    &interaction.program,
                    interaction.judgement,
                    interaction.interactor_first,
                );
                settle_report(&mut report, case, &interaction.program, verdict, max_score);
            }
            Err(why) => report.note = Some(format!("the grader could not run the interaction: {why}")),
        }
        return report;
    }
    let judged = match (validator, &case.package) {
        (Some(validator), Some(package)) => {
            // The validator is asked only about an output of a program that ended well in time.
            let ended_well = matches!(outcome.termination, run::Termination::Exited(0))
                && outcome.cpu_time <= package.time_limit;
            let judgement = ended_well.then(|| {
                let args = &package.validator_args;
                validator::judge(validator, case, args, &outcome.stdout, &options.cache, containment)
            });
            score::judge_validated(case, &outcome, judgement)
        }
        _ => score::judge(case, &expected.stdout, &outcome, assignment.stops_at_end_of_input),
    };
    settle_report(&mut report, case, &outcome, judged, max_score);
    if report.status != CaseStatus::Passed || report.score < max_score {
        report.input = input_context(assignment, case, expected, report.divergence.as_ref());
        // A diff with the answer is the judge only where no validator program is.
        if validator.is_none() {
            report.reproduce = Some(reproduce_command(case, expected, &env, &argv));
        }
    }
    report
}

/// Fills a case's report from its run and its verdict: status, the limit or signal that ended it,
/// a package case's verdict, points, the comparison, what the run cost, its stderr.
fn settle_report(
    report: &mut CaseReport,
    case: &Case,
    outcome: &run::RunOutcome,
    verdict: Verdict,
    max_score: f64,
) {
    let Verdict { status, credit, note, comparison, judge } = verdict;
    report.status = status;
    match &outcome.termination {
        run::Termination::Signaled { name, .. } => report.signal = Some(name.clone()),
        run::Termination::Killed { limit } => report.limit = Some(*limit),
        run::Termination::Exited(_) => {}
    }
    if case.package.is_some() {
        // Over the time limit by the exact measure: the kernel's whole seconds had not stopped it.
        if status == CaseStatus::Timeout && report.limit.is_none() {
            report.limit = Some(run::Limit::Cpu);
        }
        let exit_code = match outcome.termination {
            run::Termination::Exited(code) => Some(code),
            _ => None,
        };
        report.verdict = Some(judge.unwrap_or_else(|| crate::report::JudgeVerdict::of(status, exit_code)));
    }
    report.score = max_score * credit;
    report.leniency = comparison.leniency;
    report.lenient_rewrite = comparison.lenient_rewrite;
    report.forgiven = comparison.forgiven;
    report.partial = comparison.partial;
    report.note = note;
    report.divergence = comparison.divergence;
    report.diff = comparison.diff;
    report.time_ms = Some(outcome.wall_time.as_millis() as u64);
    report.cpu_ms = Some(outcome.cpu_time.as_millis() as u64);
    report.peak_memory_kb = Some(outcome.peak_memory_kb);
    if !outcome.stderr.is_empty() {
        let mut kept = run::Capture::new(MAX_STDERR_BYTES * 3 / 4, MAX_STDERR_BYTES / 4);
        kept.push(&outcome.stderr);
        report.stderr = Some(String::from_utf8_lossy(&kept.into_bytes()).into_owned());
    }
}

/// The referee of an interactive case with its games seeded from `n` and the case's own `seed` (1
/// when it names none), for `grade --seed`; `None` if the scenario no longer builds one.
fn reseeded_referee(
    assignment: &Assignment,
    case: &Case,
    n: u64,
) -> Option<Box<dyn reference::referee::Match>> {
    let mut scenario = case.scenario.clone()?;
    let own = scenario.get("seed").and_then(toml::Value::as_integer).unwrap_or(1) as u64;
    // SplitMix64's finaliser: neighbouring values of `n` give unrelated games.
    let mut z = own ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    scenario.insert("seed".to_owned(), toml::Value::Integer((z & i64::MAX as u64) as i64));
    reference::solution(&assignment.id)?.interactive(&scenario).ok()
}

/// Plays an interactive case's match and judges it by the referee's score: passed with every point,
/// failed otherwise, with the referee's summary and each game that went wrong.
fn play_interactive_case(
    report: &mut CaseReport,
    referee: &dyn reference::referee::Match,
    program: interactive::Program<'_>,
) {
    match interactive::play_match(referee, program) {
        Ok(played) => {
            let credit = played.score.credit.clamp(0.0, 1.0);
            report.status = if credit >= 1.0 { CaseStatus::Passed } else { CaseStatus::Failed };
            report.score = report.max_score * credit;
            report.note = Some(played.score.summary);
            report.games = played.problems;
            report.game_ends = played.ends;
            report.reproduce =
                report.games.first().map(|game| replay_command(&report.id, game, program.argv));
            report.time_ms = Some(played.wall_time.as_millis() as u64);
            report.cpu_ms = Some(played.cpu_time.as_millis() as u64);
            report.peak_memory_kb = Some(played.peak_memory_kb);
            report.stderr = played.stderr;
        }
        Err(e) => {
            report.note = Some(format!("the grader could not run the program: {}", run::error_chain(&e)));
        }
    }
}

/// The case's input file and, at a first difference, the lines of it a correct program had read.
fn input_context(
    assignment: &Assignment,
    case: &Case,
    expected: &Sidecars,
    divergence: Option<&crate::compare::Divergence>,
) -> Option<InputContext> {
    if !expected.stdin_is_file {
        return None;
    }
    let stdin_path = case.stdin_path();
    // Relative to the cases folder (`trouble/game/x.stdin`), which the report names once.
    let root = assignment.dir.parent().unwrap_or(Path::new(""));
    let path = stdin_path.strip_prefix(root).unwrap_or(&stdin_path).display().to_string();
    let stdin = String::from_utf8_lossy(&expected.stdin);
    let consumed = divergence.and_then(|d| match case.kind {
        CaseKind::Transcript => {
            let reads = expected.replay.get_or_init(|| {
                let solution = reference::solution(&assignment.id)?;
                context::replay_reads(solution, &expected.stdin, &expected.stdout)
            });
            reads.as_deref().map(|reads| context::lines_read_before(reads, d.expected_line))
        }
        // A driver's transcript echoes each command it reads: the diff already shows them.
        CaseKind::Unit | CaseKind::Interactive => None,
    });
    let last = consumed.map(|n| context::last_lines(&stdin, n)).unwrap_or_default();
    Some(InputContext { path, consumed, last })
}

/// Lines of a game replayed inline by [`replay_command`]; a longer game is read from the JSON report.
const INLINE_REPLAY_LINES: usize = 40;

/// A shell command that plays an interactive game again: the lines the grader sent, fed to the
/// program outside the sandbox (inline for a short game, else from the JSON report), and which
/// colour the AI played.
fn replay_command(case_id: &str, game: &crate::report::GameProblem, argv: &[std::ffi::OsString]) -> String {
    let quote = |text: &str| shlex::try_quote(text).map_or_else(|_| format!("{text:?}"), |q| q.into_owned());
    let program: Vec<String> = argv.iter().map(|a| quote(&a.to_string_lossy())).collect();
    let colour = game.sent.iter().rev().find_map(|line| line.strip_prefix("new ")).unwrap_or("?");
    let lines = game.sent.len();
    let feed = if lines <= INLINE_REPLAY_LINES {
        let quoted: Vec<String> = game.sent.iter().map(|line| quote(line)).collect();
        format!("printf '%s\\n' {}", quoted.join(" "))
    } else {
        let filter = format!(".cases[] | select(.id == \"{case_id}\") | .games[0].sent[]");
        format!("jq -r {} report.json", quote(&filter))
    };
    format!(
        "{feed} | {}   # game {}: the {lines} lines the grader sent (report.json: `grade --format json`); \
         the AI plays {colour}",
        program.join(" "),
        game.game
    )
}

/// A shell command that runs the case's program outside the sandbox, with the same environment and
/// input, and diffs its output with the transcript.
fn reproduce_command(
    case: &Case,
    expected: &Sidecars,
    env: &BTreeMap<String, String>,
    argv: &[std::ffi::OsString],
) -> String {
    let quote = |text: &str| shlex::try_quote(text).map_or_else(|_| format!("{text:?}"), |q| q.into_owned());
    let absolute =
        |path: std::path::PathBuf| std::path::absolute(&path).unwrap_or(path).display().to_string();
    let mut words = vec!["env".to_owned(), "-i".to_owned()];
    words.extend(env.iter().map(|(k, v)| quote(&format!("{k}={v}"))));
    words.extend(argv.iter().map(|a| quote(&a.to_string_lossy())));
    let mut command = words.join(" ");
    if !expected.stdin.is_empty() {
        command.push_str(&format!(" < {}", quote(&absolute(case.stdin_path()))));
    }
    command.push_str(&format!(" | diff {} -", quote(&absolute(case.stdout_path()))));
    command
}
