//! The command line: argument parsing (clap derive) and one function per subcommand.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::run::{self, Containment};

use crate::bless::BlessError;
use crate::build::program::ProgramError;
use crate::build::BuildCache;
use crate::grade::{self, GradeError, GradeOptions};
use crate::load::{self, LoadError};
use crate::report::{self, HiddenVisibility, Report, TextOptions, Verbosity};

mod assignments;
mod class;
mod doctor;
mod review;

use assignments::{bless, list};
use doctor::doctor;

/// Exit code: the work was done (and, for `check`, everything passed).
pub const EXIT_OK: u8 = 0;
/// Exit code: a self-check found failing cases (of a bonus category only when chosen with `--case`), a
/// score is below `--fail-under`, or sidecars are stale.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad usage or a malformed assignment, case or rubric.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the grader itself could not work (cannot run the compiler, cannot write the cache).
pub const EXIT_INTERNAL: u8 = 3;
// A batch stopped by SIGINT or SIGTERM exits with 128 plus the signal's number (130, 143), as a shell
// reports a process the signal ended: see `crate::batch::exit_code_of`.

/// Failing cases annotated on a GitHub Actions run: GitHub shows at most 10 error annotations per step.
const GITHUB_ANNOTATIONS: usize = 10;

/// Builds, runs and scores submissions of the board-game assignments against reference transcripts.
#[derive(Debug, Parser)]
#[command(name = "grader", version, about)]
pub struct Cli {
    /// Folder holding one sub-folder per assignment (default: `$GRADER_CASES`, else the nearest
    /// `cases/` above the current folder, else the one this grader was built with).
    #[arg(long, global = true, value_name = "DIR")]
    cases: Option<PathBuf>,

    /// Refuse to grade unless programs can be contained at least this well
    /// (full, namespaces-without-cgroups, rlimits-only; see `grader doctor`).
    #[arg(long, global = true, value_name = "LEVEL", value_parser = parse_containment)]
    require_containment: Option<Containment>,

    /// Contain programs at most this well (default: the strongest level this machine supports).
    #[arg(long, global = true, value_name = "LEVEL", value_parser = parse_containment)]
    containment: Option<Containment>,

    /// Grade at `rlimits-only` even where the programs could read the hidden cases (a self-check on
    /// one's own machine; never for grades: a program could print the expected outputs).
    #[arg(long, global = true)]
    accept_readable_cases: bool,

    /// Build a fresh sandbox for every run, instead of one per build of a submission that is reset
    /// between its runs (the default; docs/operators.md says what is reset).
    #[arg(long, global = true)]
    fresh_sandboxes: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Grade one submission (a folder of sources or a single file) on every case.
    Grade {
        /// The submission: a folder or a single source file.
        submission: PathBuf,
        /// Assignment id (see `grader list`).
        #[arg(long, short)]
        assignment: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Write the report here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Exit with status 1 when the score is below this percentage (0 to 100) of the automated points.
        #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
        fail_under: Option<f64>,
        /// Build cache folder (default: `$GRADER_CACHE_DIR`, else `/var/cache/grader` for root, else
        /// `~/.cache/grader`).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        /// Render only what a student may see (hidden cases by verdict and points; each visible case as
        /// its `disclosure` allows). The gradescope format always does.
        #[arg(long)]
        student_view: bool,
        /// With `--format gradescope`: when students see the tests of hidden cases (visible, hidden,
        /// after_due_date, after_published; default visible).
        #[arg(long, value_name = "WHEN", value_parser = parse_hidden_visibility)]
        hidden_visibility: Option<HiddenVisibility>,
        #[command(flatten)]
        selection: Selection,
    },
    /// Self-check a submission on the visible cases, with a diff at each first divergence.
    Check {
        /// The submission folder or file (default: the current folder).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Assignment id (see `grader list`).
        #[arg(long, short)]
        assignment: String,
        /// Build cache folder.
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        #[command(flatten)]
        selection: Selection,
    },
    /// Grade a whole class: every submission under ROOT (a folder per student, Moodle or Canvas
    /// downloads, .zip/.tar.gz), reports and feedback per student, gradebook.csv, summary.md and
    /// class.html in OUT. A re-run grades only what changed.
    Batch(class::BatchArgs),
    /// Merge the outputs of `grader batch --partition` runs into one gradebook, summary and class page.
    Merge(class::MergeArgs),
    /// Render a JSON report (from `grade --format json`, or a batch's `students/<id>/report.json`) in
    /// another format, without grading again.
    Render {
        /// The JSON report.
        report: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Render only what a student may see (as `grade --student-view`).
        #[arg(long)]
        student_view: bool,
        /// How much the text format says.
        #[arg(long, short, conflicts_with = "verbose")]
        quiet: bool,
        /// Also the passing cases, whole compiler logs and reproduce commands (text format).
        #[arg(long, short)]
        verbose: bool,
        /// With `--format gradescope`: when students see the tests of hidden cases (as `grade`).
        #[arg(long, value_name = "WHEN", value_parser = parse_hidden_visibility)]
        hidden_visibility: Option<HiddenVisibility>,
    },
    /// Show one student's report of a class graded with `batch` (by the student's id), in any format.
    Show(class::ShowArgs),
    /// Export a class graded with `batch` for a course platform: its grade import CSV and a zip of
    /// the feedback files, named as its bulk feedback upload expects (or, `--to excel`, the gradebook
    /// with the byte-order mark Excel needs).
    Export(class::ExportArgs),
    /// Hand-grade a class graded with `batch` in the browser: a local web app (address and token
    /// printed on start) with each student's code beside the rubric and the automated results.
    Review(review::ReviewArgs),
    /// Compare a class's submissions: which pairs share code beyond the assignment's base code, and
    /// where (similarity.csv, and similarity.html with each close pair side by side).
    Similarity(class::SimilarityArgs),
    /// Regenerate the `.stdin`/`.stdout` sidecars of scenario cases from the reference.
    Bless {
        /// Only this assignment: an id, or the path of its folder (default: all).
        #[arg(long, short)]
        assignment: Option<String>,
        /// Write nothing; exit 1 when any sidecar or answer is stale.
        #[arg(long)]
        check: bool,
        /// Build cache folder (for a reference program in any language).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Grade every example submission of an assignment and check each against what its folder
    /// promises: a problem package's `submissions/<verdict>/`, else `fixtures/<id>/` (`correct` full
    /// marks, `bug-*` below). Exits 1 when one does not keep its promise.
    Verify {
        /// Assignment id, or the path of its folder (a problem package, an assignment.toml).
        assignment: String,
        /// Build cache folder.
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Say how well this machine can contain student programs, and how to get more.
    Doctor,
    /// List assignments, their rubric categories and their cases.
    List {
        /// Only this assignment (default: all).
        #[arg(long, short)]
        assignment: Option<String>,
    },
    /// Write a student pack: the assignment's folder without its hidden cases (a placeholder of
    /// category and weight for each), for `grader check --cases DIR/cases`, and a README.
    Pack {
        /// Assignment id (see `grader list`).
        #[arg(long, short)]
        assignment: String,
        /// The pack's folder (missing or empty, unless `--force`).
        #[arg(long, short, value_name = "DIR")]
        output: PathBuf,
        /// Replace the folder's `cases/<id>/`, `cases/common/` and `README.md` if it holds anything.
        #[arg(long)]
        force: bool,
    },
    /// Audit the cases by mutation analysis: grade single-defect mutants of a correct submission and
    /// report which defects no case notices and what a single defect costs, per category.
    Audit(crate::audit::AuditArgs),
    /// Write a Gradescope autograder zip: setup.sh, run_autograder, this grader and every case
    /// (hidden ones included: keep it private). `--require-containment` is written into it.
    GradescopeBundle {
        /// Assignment id (see `grader list`).
        #[arg(long, short)]
        assignment: String,
        /// The zip to write (replaced atomically).
        #[arg(long, short, value_name = "ZIP")]
        output: PathBuf,
        /// The grader executable to put in it (default: this one).
        #[arg(long, value_name = "PATH")]
        grader_binary: Option<PathBuf>,
        /// When students see the tests of hidden cases (visible, hidden, after_due_date,
        /// after_published; default visible), written into it.
        #[arg(long, value_name = "WHEN", value_parser = parse_hidden_visibility)]
        hidden_visibility: Option<HiddenVisibility>,
    },
}

/// Which cases run and how much the text report says.
#[derive(Debug, Default, Args)]
struct Selection {
    /// Run only the cases whose id matches this pattern (`game/*`, `movePiece/capture-at-start`); repeatable.
    #[arg(long = "case", id = "case", value_name = "PATTERN", value_parser = parse_case_pattern)]
    case_patterns: Vec<glob::Pattern>,
    /// Say only the score and the cases that lost points.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Also list the passing cases with their time and memory, whole compiler logs, and a command
    /// reproducing each failure.
    #[arg(long, short)]
    verbose: bool,
    /// Roll other dice in interactive cases (backgammon-ai): their games are seeded from N and each
    /// case's own seed. Without it every grading plays the same games.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

impl Selection {
    fn verbosity(&self) -> Verbosity {
        match (self.quiet, self.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        }
    }
}

fn parse_case_pattern(text: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(text).map_err(|e| format!("`{text}` is not a case pattern: {e}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// For people; coloured on a terminal.
    Text,
    /// For programs: the report struct as JSON.
    Json,
    /// Gradescope's `results.json` (hidden cases by their points only); written even when the
    /// grading fails, with the reason.
    Gradescope,
    /// JUnit XML for CI: a test suite per rubric category, a test case per case (hidden cases by
    /// their verdict and points only).
    Junit,
    /// Markdown for a GitHub Actions step summary (`--output "$GITHUB_STEP_SUMMARY"`); when
    /// `GITHUB_ACTIONS=true`, the failures also go to standard error as workflow commands, which
    /// GitHub shows as annotations.
    Markdown,
}

/// Parses the arguments, runs the command, and maps its result to an exit code.
pub fn main_impl() -> ExitCode {
    let cli = Cli::parse();
    let outcome = run(cli);
    // Nothing of the runs outlives the grader, and their CPU time is its own (see `run`).
    crate::run::await_reaped();
    match outcome {
        Ok(code) => ExitCode::from(code),
        // `grader list | head` closing the pipe early is the reader's choice, not an error.
        Err(err)
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::from(EXIT_OK)
        }
        Err(err) => {
            // A submission that cannot be read or is refused (10,000 headers) is bad input, as a
            // malformed case is; the grader's own failures are the rest.
            let bad_submission = |e: &crate::build::BuildError| {
                matches!(
                    e,
                    crate::build::BuildError::Submission { .. } | crate::build::BuildError::OverCap { .. }
                )
            };
            let code = if err.chain().any(|e| e.is::<LoadError>() || e.is::<UsageError>()) {
                EXIT_USAGE
            } else if let Some(GradeError::Load(_) | GradeError::Validator { .. }) =
                err.downcast_ref::<GradeError>()
            {
                // A package whose validator does not build is malformed, as a bad case file is.
                EXIT_USAGE
            } else if let Some(
                BlessError::Load(_)
                | BlessError::Reference { .. }
                | BlessError::Generator { .. }
                | BlessError::Program(ProgramError::DoesNotBuild { .. }),
            ) = err.downcast_ref::<BlessError>()
            {
                // The course's own programs failing is the assignment's fault, not the machine's.
                EXIT_USAGE
            } else if matches!(err.downcast_ref::<GradeError>(), Some(GradeError::Build(e)) if bad_submission(e))
                || err.downcast_ref::<crate::build::BuildError>().is_some_and(bad_submission)
            {
                EXIT_USAGE
            } else {
                EXIT_INTERNAL
            };
            // Errors name students (`--only`, `show`, hand grades): their ids are folder names.
            let message = crate::report::escape::inert(&format!("{err:#}"), crate::report::escape::BLOCK);
            let _ = writeln!(anstream::stderr(), "error: {message}");
            ExitCode::from(code)
        }
    }
}

/// A mistake in how the grader was called.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub(crate) String);

fn parse_percent(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .ok_or_else(|| format!("`{text}` is not a percentage from 0 to 100"))
}

fn parse_hidden_visibility(name: &str) -> Result<HiddenVisibility, String> {
    HiddenVisibility::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = HiddenVisibility::ALL.iter().map(|v| v.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

fn parse_containment(name: &str) -> Result<Containment, String> {
    Containment::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Containment::ALL.iter().map(|level| level.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// The containment to grade with: the strongest available, capped by `--containment`, and never
/// below `--require-containment`.
fn containment(
    cli_cap: Option<Containment>,
    required: Option<Containment>,
) -> Result<Containment, UsageError> {
    let available = Containment::available();
    let level = cli_cap.map_or(available, |cap| cap.min(available));
    match required {
        Some(required) if level < required => Err(UsageError(format!(
            "programs would run at containment `{level}`, below the required `{required}` \
             (this machine supports `{available}`); run `grader doctor` to see why"
        ))),
        _ => Ok(level),
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    if let Command::Doctor = cli.command {
        return doctor();
    }
    let cases = cases_root(cli.cases.as_deref())?;
    let level = || containment(cli.containment, cli.require_containment);
    crate::run::set_sandbox_reuse(!cli.fresh_sandboxes);
    match cli.command {
        Command::Doctor => doctor(),
        Command::Grade {
            submission,
            assignment,
            format,
            output,
            fail_under,
            cache_dir,
            student_view,
            hidden_visibility,
            selection,
        } => {
            if hidden_visibility.is_some() && format != Format::Gradescope {
                return Err(UsageError("--hidden-visibility is for --format gradescope".to_owned()).into());
            }
            let graded = level().map_err(anyhow::Error::from).and_then(|level| {
                let options = grade_options(false, cache_dir, level, &selection, cli.accept_readable_cases);
                // A student reads a Gradescope grading's error in results.json.
                grade_one(&cases, &assignment, &submission, options, format == Format::Gradescope)
            });
            let report = match (graded, format) {
                (Ok(report), _) => report,
                // Gradescope shows the student whatever results.json says: a reason beats a crash.
                (Err(e), Format::Gradescope) => {
                    emit(&report::render_gradescope_failure(&format!("{e:#}")), output.as_deref())?;
                    return Err(e);
                }
                (Err(e), _) => return Err(e),
            };
            let text = match format {
                Format::Gradescope => report::render_gradescope_with(
                    &report,
                    &report::GradescopeOptions { hidden_visibility: hidden_visibility.unwrap_or_default() },
                ),
                _ => render(&report, format, student_view, selection.verbosity()),
            };
            emit(&text, output.as_deref())?;
            let below = fail_under.is_some_and(|p| report.score < report.max_score * p / 100.0);
            Ok(if below { EXIT_FAILED } else { EXIT_OK })
        }
        Command::Check { dir, assignment, cache_dir, selection } => {
            let options = grade_options(true, cache_dir, level()?, &selection, cli.accept_readable_cases);
            let mut report = grade_one(&cases, &assignment, &dir, options, false)?;
            // A self-check runs on the student's own machine: the cases' paths as they reach them
            // from here (`pack/cases/trouble/...`), which the student view keeps.
            report.cases_root = relative_to_here(Path::new(&report.cases_root));
            let options = TextOptions { diffs: true, verbosity: selection.verbosity() };
            emit(&report::render_text(&report.student_view(), options), None)?;
            // Cases chosen with `--case` are asked about, bonus ones too; otherwise an optional part
            // left out does not fail the self-check.
            let passed = if report.only.is_empty() {
                report.all_passed()
            } else {
                report.cases.iter().all(report::CaseReport::full_marks)
            };
            Ok(if passed { EXIT_OK } else { EXIT_FAILED })
        }
        Command::Batch(args) => class::batch(&cases, args, level()?, cli.accept_readable_cases),
        Command::Merge(args) => class::merge(&cases, args),
        Command::Show(args) => class::show(&cases, args),
        Command::Export(args) => class::export(&cases, args),
        Command::Similarity(args) => class::similarity(&cases, args),
        Command::Review(args) => review::review(&cases, args),
        Command::Render { report, format, output, student_view, quiet, verbose, hidden_visibility } => {
            if hidden_visibility.is_some() && format != Format::Gradescope {
                return Err(UsageError("--hidden-visibility is for --format gradescope".to_owned()).into());
            }
            let text = std::fs::read_to_string(&report)
                .with_context(|| format!("cannot read the report {}", report.display()))?;
            let parsed: Report = serde_json::from_str(&text).map_err(|e| {
                UsageError(format!(
                    "{}:{}: not a report of this grader ({e}); reports come from `grader grade --format json`",
                    report.display(),
                    e.line()
                ))
            })?;
            let verbosity = Selection { case_patterns: Vec::new(), quiet, verbose, seed: None }.verbosity();
            let text = match hidden_visibility {
                Some(hidden_visibility) => {
                    report::render_gradescope_with(&parsed, &report::GradescopeOptions { hidden_visibility })
                }
                None => render(&parsed, format, student_view, verbosity),
            };
            emit(&text, output.as_deref())?;
            Ok(EXIT_OK)
        }
        Command::Audit(args) => crate::audit::command::run(&cases, args, level()?, cli.accept_readable_cases),
        Command::Bless { assignment, check, cache_dir } => {
            let cache = BuildCache::new(cache_dir.unwrap_or_else(BuildCache::default_dir));
            bless(&cases, assignment.as_deref(), check, &cache, level()?)
        }
        Command::List { assignment } => list(&cases, assignment.as_deref()),
        Command::Verify { assignment, cache_dir } => {
            let selection = Selection::default();
            let options = grade_options(false, cache_dir, level()?, &selection, cli.accept_readable_cases);
            let assignment = settled_assignment(&cases, &assignment, &options.cache, options.containment)?;
            let verified = crate::verify::verify(&assignment, &options)?;
            if verified.checked.is_empty() && verified.skipped.is_empty() {
                return Err(UsageError(format!(
                    "`{}` has no example submissions (submissions/<verdict>/ in its folder, or fixtures/{}/)",
                    assignment.id, assignment.id
                ))
                .into());
            }
            emit(&crate::verify::render(&verified), None)?;
            Ok(if verified.all_kept() { EXIT_OK } else { EXIT_FAILED })
        }
        Command::Pack { assignment, output, force } => {
            let pack = crate::pack::write_student_pack(&cases, &assignment, &output, force)
                .map_err(publish_error)?;
            let mut err = anstream::stderr();
            writeln!(
                err,
                "{}: {} visible cases, {} hidden ones withheld (a placeholder each in {}/)",
                pack.assignment_dir.display(),
                pack.visible_cases,
                pack.withheld_cases,
                crate::pack::WITHHELD_DIR
            )?;
            match &pack.readme {
                crate::pack::ReadmeFate::Filtered(sections) => writeln!(
                    err,
                    "its README.md without: {} (from gradings with the hidden cases)",
                    sections.join(", ")
                )?,
                crate::pack::ReadmeFate::Dropped(why) => writeln!(err, "its README.md left out: {why}")?,
                crate::pack::ReadmeFate::Copied | crate::pack::ReadmeFate::Absent => {}
            }
            writeln!(err, "students: see {}", pack.dir.join("README.md").display())?;
            Ok(EXIT_OK)
        }
        Command::GradescopeBundle { assignment, output, grader_binary, hidden_visibility } => {
            let grader_binary = match grader_binary {
                Some(path) => path,
                None => std::env::current_exe().context("cannot find this grader; pass --grader-binary")?,
            };
            let options = crate::pack::BundleOptions {
                grader_binary,
                require_containment: cli.require_containment,
                hidden_visibility: hidden_visibility.unwrap_or_default(),
            };
            let bundle = crate::pack::write_gradescope_bundle(&cases, &assignment, &output, &options)
                .map_err(publish_error)?;
            writeln!(
                anstream::stderr(),
                "{}: {} entries, {:.1} MB; {} cases, {} hidden (keep it private); setup.sh installs {}",
                bundle.path.display(),
                bundle.entries,
                bundle.bytes as f64 / 1e6,
                bundle.cases,
                bundle.hidden_cases,
                bundle.packages.join(", ")
            )?;
            Ok(EXIT_OK)
        }
    }
}

/// A pack's or a bundle's failure as the command line reports it: what the caller can fix (the
/// output folder, the assignment, a file that leaks a hidden case) exits 2; a disk error does not.
fn publish_error(e: crate::pack::PackError) -> anyhow::Error {
    use crate::pack::PackError;
    match e {
        PackError::Load(e) => e.into(),
        PackError::OutputNotEmpty { .. }
        | PackError::OutputInsideSource { .. }
        | PackError::WithheldFolderTaken { .. }
        | PackError::Leak { .. }
        | PackError::GraderBinary { .. } => UsageError(format!("{:#}", anyhow::Error::from(e))).into(),
        PackError::Io { .. } | PackError::Zip { .. } | PackError::Verify { .. } => e.into(),
    }
}

/// A report in `format`; the student-facing formats (gradescope, junit, markdown) always render the
/// student view.
fn render(report: &Report, format: Format, student_view: bool, verbosity: Verbosity) -> String {
    let shown = if student_view { report.student_view() } else { report.clone() };
    match format {
        Format::Text => {
            report::render_text(&shown, TextOptions { diffs: verbosity == Verbosity::Verbose, verbosity })
        }
        Format::Json => report::render_json(&shown),
        Format::Gradescope => report::render_gradescope(report),
        Format::Junit => report::render_junit(report),
        Format::Markdown => {
            // Workflow commands on either stream become annotations on the run's page; a failed
            // write to stderr loses only them.
            if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
                let annotations = report::render_github_annotations(report, GITHUB_ANNOTATIONS);
                let _ = std::io::stderr().write_all(annotations.as_bytes());
            }
            report::render_markdown(report)
        }
    }
}

/// How `grade` and `check` grade: the cases they select, the cache, the containment.
fn grade_options(
    visible_only: bool,
    cache_dir: Option<PathBuf>,
    containment: Containment,
    selection: &Selection,
    accept_readable_cases: bool,
) -> GradeOptions {
    let cache = BuildCache::new(cache_dir.unwrap_or_else(BuildCache::default_dir));
    GradeOptions {
        visible_only,
        cache,
        containment,
        only: selection.case_patterns.clone(),
        accept_readable_cases,
        dice_seed: selection.seed,
    }
}

/// Loads the assignment a command names (an id under the cases folder, or a folder's path) and
/// says on stderr what loading found doubtful.
pub(crate) fn load_assignment(cases: &Path, name: &str) -> Result<load::Assignment, LoadError> {
    let assignment = load::load(cases, name)?;
    // Warnings are worth no failure of their own: a closed stderr loses them.
    let _ = assignment.write_warnings(&mut anstream::stderr());
    Ok(assignment)
}

/// [`load_assignment`], and for a problem package that states no time limit, the one its accepted
/// submissions give (measured once per package content, then kept in the build cache).
pub(crate) fn settled_assignment(
    cases: &Path,
    name: &str,
    cache: &BuildCache,
    containment: Containment,
) -> anyhow::Result<load::Assignment> {
    let mut assignment = load::load(cases, name)?;
    if let Some(inferred) = crate::timelimit::settle(&mut assignment, cache, containment)? {
        let mut err = anstream::stderr();
        let _ = writeln!(
            err,
            "time limit: {} s of CPU, inferred from the slowest accepted run ({} s, {}); `grader bless` keeps it in .timelimit",
            inferred.time_limit.as_secs_f64(),
            inferred.slowest.as_secs_f64(),
            inferred.submission
        );
    }
    let _ = assignment.write_warnings(&mut anstream::stderr());
    Ok(assignment)
}

/// Grades one submission; `for_student` words a wrong folder for the student who uploaded it (a
/// Gradescope grading) rather than for the instructor at the command line.
fn grade_one(
    cases: &Path,
    assignment: &str,
    submission: &Path,
    options: GradeOptions,
    for_student: bool,
) -> anyhow::Result<Report> {
    let assignment = settled_assignment(cases, assignment, &options.cache, options.containment)?;
    if !submission.exists() {
        return Err(UsageError(format!("no submission at {}", submission.display())).into());
    }
    // A folder without a single file the assignment takes is the wrong folder, not a zero.
    let files = crate::build::Submission::collect(submission, &assignment.submission_files)?;
    if files.files.is_empty() {
        let patterns: Vec<&str> = assignment.submission_files.iter().map(|p| p.as_str()).collect();
        if for_student {
            return Err(UsageError(format!(
                "the submission holds no file matching {}: upload the source files themselves, or one \
                 folder (or a zip of one) that holds them",
                patterns.join(" or ")
            ))
            .into());
        }
        let hint =
            if submission.is_dir() && std::fs::read_dir(submission)?.flatten().any(|e| e.path().is_dir()) {
                " (a folder of submissions is graded with `grader batch`)"
            } else {
                ""
            };
        return Err(UsageError(format!(
            "{} holds no file matching {}: is it the submission's folder?{hint}",
            submission.display(),
            patterns.join(" or ")
        ))
        .into());
    }
    if !options.only.is_empty() {
        let selected = assignment
            .cases
            .iter()
            .filter(|c| !options.visible_only || c.visibility == load::Visibility::Visible)
            .any(|c| options.only.iter().any(|p| p.matches(&c.id)));
        if !selected {
            let patterns: Vec<&str> = options.only.iter().map(|p| p.as_str()).collect();
            return Err(UsageError(format!(
                "no {}case of `{}` matches {} (`grader list -a {}` names them)",
                if options.visible_only { "visible " } else { "" },
                assignment.id,
                patterns.join(", "),
                assignment.id
            ))
            .into());
        }
    }
    Ok(grade::grade(&assignment, submission, &options)?)
}

/// Writes rendered output to a file (without colour) or to standard output (colour if a terminal).
fn emit(text: &str, output: Option<&Path>) -> anyhow::Result<()> {
    match output {
        Some(path) => {
            let file =
                std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
            let mut stream = anstream::StripStream::new(file);
            stream.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => {
            let mut stdout = anstream::stdout();
            let written = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
            // `grader check | head` closing the pipe early is not an error worth reporting.
            match written {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
                _ => {}
            }
        }
    }
    Ok(())
}

/// `path` as reached from the current folder (`../course/cases`, `pack/cases`), or as it is when it
/// cannot be (no current folder).
fn relative_to_here(path: &Path) -> String {
    let (Ok(here), Ok(there)) = (std::env::current_dir().and_then(|d| d.canonicalize()), path.canonicalize())
    else {
        return path.display().to_string();
    };
    let common = here.components().zip(there.components()).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in here.components().skip(common) {
        relative.push("..");
    }
    for part in there.components().skip(common) {
        relative.push(part);
    }
    if relative.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        relative.display().to_string()
    }
}

/// Finds the cases root: the flag, `$GRADER_CASES`, the nearest `cases/` above the current folder, or
/// the repository this grader was built from.
fn cases_root(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(dir) =
        flag.map(Path::to_owned).or_else(|| std::env::var_os("GRADER_CASES").map(PathBuf::from))
    {
        if !dir.is_dir() {
            return Err(UsageError(format!("no cases folder at {}", dir.display())).into());
        }
        return Ok(dir);
    }
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    for dir in cwd.ancestors() {
        let candidate = dir.join("cases");
        if load::assignment_ids(&candidate).is_ok_and(|ids| !ids.is_empty()) {
            return Ok(candidate);
        }
    }
    let built_with = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    if built_with.is_dir() {
        return Ok(built_with);
    }
    Err(UsageError("no cases folder found: pass --cases DIR or set GRADER_CASES".to_owned()).into())
}
